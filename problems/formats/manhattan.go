package formats

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// loadManhattan reads a Manhattan tourist instance as [down (n-1)xm,
// right nx(m-1)].
//
// The format: optional '#' comment lines (and blank lines, anywhere), a line
// "n m" (n rows and m columns of intersections), n-1 lines of m integers
// (down[i][j], the street from (i,j) to (i+1,j)), then n lines of m-1
// integers (right[i][j], from (i,j) to (i,j+1)). A block with no values (n
// = 1 or m = 1) has no lines.
func loadManhattan(path string) ([]*Table, error) {
	file, f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return readManhattan(f, path)
}

func readManhattan(r io.Reader, name string) ([]*Table, error) {
	lr := newLineReader(r, name)
	var toks [][]byte
	// nextRow returns the values of the next data line; ok is false at EOF.
	nextRow := func() (row []int64, ok bool, err error) {
		for {
			line, ok, err := lr.next()
			if err != nil || !ok {
				return nil, false, err
			}
			if isBlankOrComment(line) {
				continue
			}
			toks = fields(toks[:0], line)
			row = make([]int64, len(toks))
			for i, t := range toks {
				if row[i], err = parseInt(t); err != nil {
					return nil, false, errAt(name, lr.n, "%v", err)
				}
			}
			return row, true, nil
		}
	}

	head, ok, err := nextRow()
	if err != nil {
		return nil, err
	}
	if !ok || len(head) != 2 {
		return nil, errAt(name, lr.n, "expected a first line \"n m\" (rows and columns of intersections)")
	}
	if head[0] < 1 || head[1] < 1 || head[0] > 1<<31 || head[1] > 1<<31 {
		return nil, errAt(name, lr.n, "grid size %d x %d: both sides must be between 1 and 2^31", head[0], head[1])
	}
	n, m := int(head[0]), int(head[1])
	block := func(what string, rows, cols int) (*Table, error) {
		t := &Table{Rows: rows, Cols: cols, I: []int64{}}
		if cols == 0 {
			return t, nil
		}
		for i := 0; i < rows; i++ {
			row, ok, err := nextRow()
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, errAt(name, lr.n, "file ends after %d of the %d lines of %s weights", i, rows, what)
			}
			if len(row) != cols {
				return nil, errAt(name, lr.n, "line %d of the %s weights has %d values, want %d", i+1, what, len(row), cols)
			}
			t.I = append(t.I, row...)
		}
		return t, nil
	}
	down, err := block("down", n-1, m)
	if err != nil {
		return nil, err
	}
	right, err := block("right", n, m-1)
	if err != nil {
		return nil, err
	}
	if _, more, err := nextRow(); err != nil {
		return nil, err
	} else if more {
		return nil, errAt(name, lr.n, "unexpected data after the %d x %d grid's weights", n, m)
	}
	return []*Table{down, right}, nil
}

// WriteManhattan writes an n x m Manhattan tourist instance in the format
// LoadGroup("manhattan", ...) reads. down is (n-1) x m and right is
// n x (m-1), both row-major.
func WriteManhattan(w io.Writer, n, m int, down, right []int64) error {
	if n < 1 || m < 1 {
		return fmt.Errorf("writing Manhattan grid: size %d x %d", n, m)
	}
	if len(down) != (n-1)*m || len(right) != n*(m-1) {
		return fmt.Errorf("writing Manhattan grid %d x %d: down has %d values (want %d), right has %d (want %d)",
			n, m, len(down), (n-1)*m, len(right), n*(m-1))
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d %d\n", n, m)
	var b []byte
	rows := func(vals []int64, cols int) {
		for len(vals) > 0 {
			b = b[:0]
			for j, v := range vals[:cols] {
				if j > 0 {
					b = append(b, ' ')
				}
				b = strconv.AppendInt(b, v, 10)
			}
			b = append(b, '\n')
			bw.Write(b)
			vals = vals[cols:]
		}
	}
	rows(down, m)
	rows(right, m-1)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing Manhattan grid: %w", err)
	}
	return nil
}
