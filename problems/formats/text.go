package formats

import (
	"fmt"
	"io"
)

// loadText reads a .txt file. See readText.
func loadText(path string, opt Options) (*Table, error) {
	file, f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return readText(f, path, opt)
}

// readText reads plain text. Blank lines and lines whose first non-blank
// character is '#' are skipped in both modes.
//
// Char: every non-whitespace character is one value. When there are several
// lines and all have the same number of characters, line r is row r of a
// matrix; otherwise the characters of all lines, in order, form a 1xN
// vector (a wrapped sequence whose last line is shorter).
//
// Numbers: whitespace-separated values, one line per row. A single line, or
// one value per line, is a 1xN vector; otherwise every line must have the
// same number of values.
func readText(r io.Reader, name string, opt Options) (*Table, error) {
	if opt.Char {
		return readTextChars(r, name)
	}
	lr := newLineReader(r, name)
	var (
		ints      []int64
		floats    []float64
		toks      [][]byte
		rows      int
		cols      int // values in the first row
		firstLine int
	)
	for {
		line, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if isBlankOrComment(line) {
			continue
		}
		toks = fields(toks[:0], line)
		if rows == 0 {
			cols, firstLine = len(toks), lr.n
		} else if len(toks) != cols {
			return nil, errAt(name, lr.n, "row %d has %d values, but the first row (line %d) has %d; rows of a matrix must have equal lengths",
				rows+1, len(toks), firstLine, cols)
		}
		for _, tok := range toks {
			if opt.Float {
				v, err := parseFloat(tok)
				if err != nil {
					return nil, errAt(name, lr.n, "%v", err)
				}
				floats = append(floats, v)
				continue
			}
			v, err := parseInt(tok)
			if err != nil {
				return nil, errAt(name, lr.n, "%v", err)
			}
			ints = append(ints, v)
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

// readTextChars is the Char mode of readText.
func readTextChars(r io.Reader, name string) (*Table, error) {
	lr := newLineReader(r, name)
	var (
		vals    []int64
		rows    int
		cols    = -1 // characters per line while all lines agree, else -1
		uniform = true
	)
	for {
		line, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if isBlankOrComment(line) {
			continue
		}
		before := len(vals)
		for i, c := range line {
			if isSpace(c) {
				continue
			}
			if err := checkChar(c); err != nil {
				return nil, errAt(name, lr.n, "column %d: %v", i+1, err)
			}
			vals = append(vals, int64(c))
		}
		n := len(vals) - before
		if rows == 0 {
			cols = n
		} else if n != cols {
			uniform = false
		}
		rows++
	}
	if len(vals) == 0 {
		return nil, errAt(name, 0, "holds no characters")
	}
	if rows > 1 && uniform {
		return &Table{Rows: rows, Cols: cols, I: vals}, nil
	}
	return &Table{Rows: 1, Cols: len(vals), I: vals}, nil
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
