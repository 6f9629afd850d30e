package formats

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// loadCSV reads a .csv file. See readCSV.
func loadCSV(path string, opt Options) (*Table, error) {
	file, f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return readCSV(f, path, opt)
}

// readCSV reads comma-separated values: one record per row, cells trimmed of
// spaces, lines starting with '#' skipped. Each cell is a number, or for
// Char a single character. A first row none of whose cells parse (for Char:
// none is a single character) is a header and is skipped; a first row that
// mixes values and words is an error. A file of one row or one column is a
// 1xN vector; otherwise all rows must have the same number of cells.
func readCSV(r io.Reader, name string, opt Options) (*Table, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // checked here, with a clearer message
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true

	var (
		ints      []int64
		floats    []float64
		rows      int
		cols      int
		firstLine int
		first     = true
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, errAt(name, pe.Line, "%v", pe.Err)
			}
			return nil, errAt(name, 0, "%v", err)
		}
		line, _ := cr.FieldPos(0)
		if first {
			first = false
			if isCSVHeader(rec, opt) {
				continue
			}
		}
		if rows == 0 {
			cols, firstLine = len(rec), line
		} else if len(rec) != cols {
			return nil, errAt(name, line, "row %d has %d cells, but the first row (line %d) has %d; rows of a matrix must have equal lengths",
				rows+1, len(rec), firstLine, cols)
		}
		for i, cell := range rec {
			cell = strings.TrimSpace(cell)
			l, _ := cr.FieldPos(i)
			switch {
			case opt.Char:
				v, err := csvChar(cell)
				if err != nil {
					return nil, errAt(name, l, "cell %d: %v", i+1, err)
				}
				ints = append(ints, v)
			case opt.Float:
				v, err := parseFloat([]byte(cell))
				if err != nil {
					return nil, errAt(name, l, "cell %d: %v", i+1, err)
				}
				floats = append(floats, v)
			default:
				v, err := parseInt([]byte(cell))
				if err != nil {
					return nil, errAt(name, l, "cell %d: %v", i+1, err)
				}
				ints = append(ints, v)
			}
		}
		rows++
	}
	if rows == 0 {
		return nil, errAt(name, 0, "holds no values")
	}
	t := &Table{Rows: rows, Cols: cols, I: ints, F: floats}
	if rows == 1 || cols == 1 {
		t.Rows, t.Cols = 1, rows*cols
	}
	return t, nil
}

// isCSVHeader reports whether no cell of rec is a value.
func isCSVHeader(rec []string, opt Options) bool {
	for _, cell := range rec {
		cell = strings.TrimSpace(cell)
		var err error
		switch {
		case opt.Char:
			_, err = csvChar(cell)
		case opt.Float:
			_, err = parseFloat([]byte(cell))
		default:
			// A word is a header cell; a fraction in an integer file is a
			// value with an error, reported as such below.
			_, err = parseFloat([]byte(cell))
		}
		if err == nil {
			return false
		}
	}
	return true
}

// csvChar is the value of a cell of a char CSV: exactly one character.
func csvChar(cell string) (int64, error) {
	if len(cell) != 1 {
		if cell == "" {
			return 0, fmt.Errorf("empty cell")
		}
		return 0, fmt.Errorf("%q is not a single character", cell)
	}
	if err := checkChar(cell[0]); err != nil {
		return 0, err
	}
	return int64(cell[0]), nil
}
