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
	return loadData(path, func(r io.Reader, size int64) ([]*Table, error) {
		return readManhattan(r, path, size)
	})
}

// readManhattan parses the weights straight into the two tables, sized
// once from the header; size is the file's size when known (a hint, see
// lineReader).
func readManhattan(r io.Reader, name string, size int64) ([]*Table, error) {
	lr := newLineReader(r, name, size)
	head, ok, err := lr.data()
	if err != nil {
		return nil, err
	}
	var nm []int64
	if ok {
		if nm, err = appendInts(nil, head, false); err != nil {
			return nil, lr.errorf("%v", err)
		}
	}
	if !ok || len(nm) != 2 {
		return nil, lr.errorf("expected a first line \"n m\" (rows and columns of intersections)")
	}
	if nm[0] < 1 || nm[1] < 1 || nm[0] > 1<<31 || nm[1] > 1<<31 {
		return nil, lr.errorf("grid size %d x %d: both sides must be between 1 and 2^31", nm[0], nm[1])
	}
	n, m := int(nm[0]), int(nm[1])
	block := func(what string, rows, cols int) (*Table, error) {
		t := &Table{Rows: rows, Cols: cols, I: make([]int64, 0, lr.capFor(int64(rows)*int64(cols)))}
		prefault(t.I)
		if cols == 0 {
			return t, nil
		}
		for i := 0; i < rows; i++ {
			line, ok, err := lr.data()
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, lr.errorf("file ends after %d of the %d lines of %s weights", i, rows, what)
			}
			before := len(t.I)
			if t.I, err = appendInts(t.I, line, false); err != nil {
				return nil, lr.errorf("%v", err)
			}
			if got := len(t.I) - before; got != cols {
				return nil, lr.errorf("line %d of the %s weights has %d values, want %d", i+1, what, got, cols)
			}
			t.Span = t.Span.Widen(t.I[before:])
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
	if line, more, err := lr.data(); err != nil {
		return nil, err
	} else if more {
		if _, err := appendInts(nil, line, false); err != nil {
			return nil, lr.errorf("%v", err)
		}
		return nil, lr.errorf("unexpected data after the %d x %d grid's weights", n, m)
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
