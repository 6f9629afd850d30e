package formats

import (
	"fmt"
	"io"

	"github.com/dpgpu/dpgpu/ir"
)

// readText reads plain text; size is the file's size when known (a hint,
// see lineReader). Blank lines and lines whose first non-blank character is
// '#' are skipped in both modes.
//
// Char: every non-whitespace character is one value. When there are several
// lines and all have the same number of characters, line r is row r of a
// matrix; otherwise the characters of all lines, in order, form a 1xN
// vector (a wrapped sequence whose last line is shorter).
//
// Numbers: whitespace-separated values, one line per row. A single line, or
// one value per line, is a 1xN vector; otherwise every line must have the
// same number of values. `inf` and `-inf` are values of any numeric type
// (Inf in integer data).
func readText(r io.Reader, name string, size int64, opt Options) (*Table, error) {
	lr := newLineReader(r, name, size)
	if opt.Char {
		return readTextChars(lr)
	}
	var (
		ints   []int64
		floats []float64
		sh     shape
		span   ir.Span
		err    error
	)
	for line := range lr.dataLines() {
		before := len(ints) + len(floats)
		if opt.Float {
			floats, err = appendFloats(floats, line)
		} else {
			ints, err = appendInts(ints, line, true)
		}
		if err != nil {
			// A row of the wrong length is reported as such, whatever
			// its values.
			if err := sh.add(name, lr.n, countFields(line), "values"); err != nil {
				return nil, err
			}
			return nil, lr.errorf("%v", err)
		}
		if err := sh.add(name, lr.n, len(ints)+len(floats)-before, "values"); err != nil {
			return nil, err
		}
		span = span.Widen(ints[min(before, len(ints)):])
		if sh.rows == 1 {
			// Size the array once for the whole file from its first row.
			want := lr.estimate(len(line), sh.cols)
			ints, floats = reserve(ints, want), reserve(floats, want)
			prefault(ints)
			prefault(floats)
		}
	}
	if lr.err != nil {
		return nil, lr.err
	}
	t, err := sh.table(name, ints, floats)
	if t != nil {
		t.Span = span
	}
	return t, err
}

// reserve gives s, if it is not nil, a capacity of at least n, copying it
// once.
func reserve[E any](s []E, n int) []E {
	if s == nil || cap(s) >= n {
		return s
	}
	t := make([]E, len(s), n)
	copy(t, s)
	return t
}

// readTextChars is the Char mode of readText.
func readTextChars(lr *lineReader) (*Table, error) {
	var (
		vals    = make([]byte, 0, lr.sizeHint) // at most a value a byte
		rows    int
		cols    = -1 // characters per line while all lines agree, else -1
		uniform = true
	)
	for line := range lr.dataLines() {
		before := len(vals)
		var col int
		var err error
		if vals, col, err = appendChars(vals, line, false); err != nil {
			return nil, lr.errorf("column %d: %v", col, err)
		}
		n := len(vals) - before
		if rows == 0 {
			cols = n
		} else if n != cols {
			uniform = false
		}
		rows++
	}
	if lr.err != nil {
		return nil, lr.err
	}
	if len(vals) == 0 {
		// No characters: the empty sequence (a 1x0 input), as "" in the
		// .dp file is.
		return &Table{Rows: 1, Cols: 0, I: []int64{}, Printable: true}, nil
	}
	if rows > 1 && uniform {
		return printable(rows, cols, vals), nil
	}
	return printable(1, len(vals), vals), nil
}

// checkChar accepts the printable ASCII characters other than space: the
// values a `char` input can hold without depending on the C compiler's
// signedness of char, and without splitting a UTF-8 character into bytes.
func checkChar(c byte) error {
	if c < 0x21 || c > 0x7e {
		if c >= 0x80 {
			return fmt.Errorf("byte 0x%02x is not ASCII; char inputs hold one ASCII character per value", c)
		}
		if isSpace(c) {
			return fmt.Errorf("whitespace 0x%02x in character data", c)
		}
		return fmt.Errorf("control character 0x%02x in character data", c)
	}
	return nil
}
