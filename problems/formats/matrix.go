package formats

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// MatrixSize is the side of the table a scoring matrix is read into: one
// row and one column per ASCII code, so that a recurrence indexes it with
// char inputs directly (S[A[i-1]][B[j-1]]).
const MatrixSize = 128

// builtinMatrices are the NCBI matrices that need no file: a `.mat` path
// that names none on disk but whose base name is one of these reads the
// copy here, as BLAST finds BLOSUM62 by name. The files are NCBI's
// (ftp.ncbi.nih.gov/blast/matrices), unchanged: BLOSUM45, BLOSUM62,
// BLOSUM80, PAM250, and NUC.4.4 under the name EMBOSS gives it, EDNAFULL
// (match 5, mismatch -4, IUPAC ambiguity codes).
//
//go:embed matrices/*.mat
var builtinMatrices embed.FS

// BuiltinMatrices lists the names of the matrices that are built in.
func BuiltinMatrices() []string {
	entries, _ := builtinMatrices.ReadDir("matrices")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// builtinMatrix is the built-in matrix whose file name is base
// (case-insensitive, ".ncbi" standing for ".mat").
func builtinMatrix(base string) ([]byte, string, bool) {
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	for _, name := range BuiltinMatrices() {
		if strings.EqualFold(strings.TrimSuffix(name, ".mat"), stem) {
			data, err := builtinMatrices.ReadFile("matrices/" + name)
			return data, name, err == nil
		}
	}
	return nil, "", false
}

// loadMatrix reads the scoring matrix at path, or the built-in one of its
// name when no file is there. A file that exists is always read, so that a
// user's own copy (or a damaged one) is never replaced silently.
func loadMatrix(path string, opt Options) (*Table, error) {
	t, err := loadWith(path, opt, readMatrix)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return t, err
	}
	data, name, ok := builtinMatrix(filepath.Base(path))
	if !ok {
		return nil, err
	}
	return readMatrix(bytes.NewReader(data), name+" (built in)", int64(len(data)), opt)
}

// readMatrix reads an NCBI scoring matrix (the format of
// ftp.ncbi.nih.gov/blast/matrices): lines starting with '#' are comments;
// the first other line lists the column letters, one character each; every
// further line is a row: its letter, then one score per column. Rows may
// come in any order, but every letter of the header needs exactly one.
//
// The result is a MatrixSize x MatrixSize table indexed by ASCII codes.
// Each letter of the matrix stands for its code and, for a letter of the
// alphabet the matrix names in one case only, for the other case too
// (sequence files use lower case as a soft mask, not as another residue).
// A pair with a character the matrix does not name scores what the matrix
// gives that character's partner against `*`, the score BLAST gives an
// unknown residue. Two unnamed characters, and an unnamed one against `*`
// itself, take the lowest score of the `*` row and column, so that unknown
// never scores as a match of unknown. A matrix without `*` gives all those
// pairs its lowest score.
func readMatrix(r io.Reader, name string, size int64, opt Options) (*Table, error) {
	if opt.Char {
		return nil, errAt(name, 0, "a scoring matrix holds scores; declare the input as int (or short, long, float, double), not char")
	}
	lr := newLineReader(r, name, size)
	var (
		letters []byte      // the header's letters, in column order
		col     [256]int    // letter -> column + 1; 0 when not a letter
		rowAt   [256]int    // letter -> the line of its row; 0 when none yet
		ints    [][]int64   // ints[c]: the row of column c's letter (opt.Float: nil)
		floats  [][]float64 // or floats[c]
		toks    [][]byte    // the fields of a line, reused
		hline   int         // the header's line
		rows    int         // rows read
	)
	for line := range lr.lines() {
		if isBlankOrComment(line) {
			continue
		}
		toks = fields(toks[:0], line)
		if letters == nil {
			hline = lr.n
			for k, tok := range toks {
				c, err := matrixLetter(tok)
				if err != nil {
					return nil, lr.errorf("header line, column %d: %v (the first line that is not a comment must list the column letters)", k+1, err)
				}
				if col[c] != 0 {
					return nil, lr.errorf("header line: letter %q appears twice (columns %d and %d)", c, col[c], k+1)
				}
				col[c] = k + 1
				letters = append(letters, c)
			}
			ints, floats = make([][]int64, len(letters)), make([][]float64, len(letters))
			continue
		}
		c, err := matrixLetter(toks[0])
		if err != nil {
			return nil, lr.errorf("a row starts with its letter: %v", err)
		}
		if col[c] == 0 {
			return nil, lr.errorf("row %q: the header line (line %d) has no column %q", c, hline, c)
		}
		if rowAt[c] != 0 {
			return nil, lr.errorf("row %q appears twice (lines %d and %d)", c, rowAt[c], lr.n)
		}
		rowAt[c] = lr.n
		if got := len(toks) - 1; got != len(letters) {
			return nil, lr.errorf("row %q has %d score%s; the header line (line %d) names %d letters", c, got, plural(got), hline, len(letters))
		}
		k := col[c] - 1
		if opt.Float {
			floats[k] = make([]float64, len(letters))
		} else {
			ints[k] = make([]int64, len(letters))
		}
		for m, tok := range toks[1:] {
			var err error
			if opt.Float {
				floats[k][m], err = parseFloat(tok)
			} else {
				ints[k][m], err = parseInt(tok)
			}
			if err != nil {
				return nil, lr.errorf("row %q, column %q: %v", c, letters[m], err)
			}
		}
		rows++
	}
	if lr.err != nil {
		return nil, lr.err
	}
	if letters == nil {
		return nil, errAt(name, 0, "no header line of column letters; is this an NCBI scoring matrix?")
	}
	if rows < len(letters) {
		var missing []string
		for _, c := range letters {
			if rowAt[c] == 0 {
				missing = append(missing, fmt.Sprintf("%q", c))
			}
		}
		return nil, errAt(name, 0, "no row for %s (the header line, line %d, names %d letters)", strings.Join(missing, ", "), hline, len(letters))
	}
	m := &matrixIndex{col: col, letters: letters}
	if opt.Float {
		return &Table{Rows: MatrixSize, Cols: MatrixSize, F: expandMatrix(m, floats)}, nil
	}
	return &Table{Rows: MatrixSize, Cols: MatrixSize, I: expandMatrix(m, ints)}, nil
}

// matrixLetter checks that tok is one letter of a matrix: a single
// printable ASCII character that cannot start a number, so that a header
// line left out is reported rather than read as letters.
func matrixLetter(tok []byte) (byte, error) {
	if len(tok) != 1 {
		return 0, fmt.Errorf("%q is not a single character", tok)
	}
	c := tok[0]
	if err := checkChar(c); err != nil {
		return 0, err
	}
	if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		return 0, fmt.Errorf("%q is a number, not a letter", tok)
	}
	return c, nil
}

// matrixIndex says which matrix row or column an ASCII code reads.
type matrixIndex struct {
	col     [256]int // letter -> column + 1
	letters []byte
}

// of is the row or column of code c: its own letter, else its other case
// for a letter of the alphabet; -1 when the matrix names neither.
func (m *matrixIndex) of(c byte) int {
	if k := m.col[c]; k != 0 {
		return k - 1
	}
	switch {
	case c >= 'a' && c <= 'z':
		return m.col[c-'a'+'A'] - 1
	case c >= 'A' && c <= 'Z':
		return m.col[c-'A'+'a'] - 1
	}
	return -1
}

// expandMatrix spreads the square matrix rows (rows[r][c], in the header's
// order) over the ASCII codes, by the rules of readMatrix.
func expandMatrix[E int64 | float64](m *matrixIndex, rows [][]E) []E {
	star := m.col['*'] - 1
	// low is what two unknown characters score: the lowest entry of the
	// `*` row and column, or of the whole matrix without one.
	var low E
	first := true
	for r := range rows {
		for c, v := range rows[r] {
			if star >= 0 && r != star && c != star {
				continue
			}
			if first || v < low {
				low, first = v, false
			}
		}
	}
	out := make([]E, MatrixSize*MatrixSize)
	for x := range MatrixSize {
		rx := m.of(byte(x))
		for y := range MatrixSize {
			ry := m.of(byte(y))
			v := low
			switch {
			case rx >= 0 && ry >= 0:
				v = rows[rx][ry]
			case star < 0:
			case rx >= 0 && rx != star:
				v = rows[rx][star]
			case ry >= 0 && ry != star:
				v = rows[star][ry]
			}
			out[x*MatrixSize+y] = v
		}
	}
	return out
}
