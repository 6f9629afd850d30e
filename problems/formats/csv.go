package formats

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readCSV reads comma-separated values: one record per row, cells trimmed of
// spaces, lines starting with '#' skipped. Each cell is a number, or for
// Char a single character. A first row none of whose cells parse (for Char:
// none is a single character) is a header and is skipped; a first row that
// mixes values and words is an error. A file of one row or one column is a
// 1xN vector; otherwise all rows must have the same number of cells. size
// is the file's size when known (a hint, see lineReader).
func readCSV(r io.Reader, name string, size int64, opt Options) (*Table, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // checked here, with a clearer message
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true

	var (
		ints   []int64
		floats []float64
		sh     shape
		first  = true
	)
	for {
		start := cr.InputOffset()
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
		if err := sh.add(name, line, len(rec), "cells"); err != nil {
			return nil, err
		}
		if sh.rows == 1 {
			// Size the array once for the whole file from its first row.
			want := sizeHint(size).estimate(int(cr.InputOffset()-start)-1, len(rec))
			if opt.Float {
				floats = make([]float64, 0, want)
			} else {
				ints = make([]int64, 0, want)
			}
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
				ints = append(grow(ints, 1), v)
			case opt.Float:
				v, err := parseFloat(cell)
				if err != nil {
					return nil, errAt(name, l, "cell %d: %v", i+1, err)
				}
				floats = append(grow(floats, 1), v)
			default:
				v, err := parseIntInf(cell)
				if err != nil {
					return nil, errAt(name, l, "cell %d: %v", i+1, err)
				}
				ints = append(grow(ints, 1), v)
			}
		}
	}
	return sh.table(name, ints, floats)
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
			_, err = parseFloat(cell)
		default:
			// A word is a header cell; a fraction in an integer file is a
			// value with an error, reported as such below.
			_, err = parseFloat(cell)
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
