package formats

import (
	"bufio"
	"io"
	"iter"
	"unsafe"

	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
)

// This file is the reader core that every text format is built on: lines
// with their numbers, the values of a line parsed straight from its bytes
// into a typed array, and the sizing of those arrays from the file's size,
// so that loading a large matrix costs about what reading it does. Nothing
// here allocates per value: the line buffer is reused, numbers are parsed
// from bytes in place, and arrays are sized once from what the file or its
// header says and otherwise doubled.

// maxLine bounds one line of a text file. Unwrapped genomes put millions of
// characters on one line, so the bound is generous; it only stops a binary
// file from being swallowed whole as a "line".
const maxLine = 1 << 30

// lineBuffer is the initial size of a lineReader's buffer: large enough that
// the reads of a big file are few, small enough not to matter for a small one.
const lineBuffer = 256 << 10

// lineReader hands out the lines of a text file with their 1-based numbers,
// without the line end (LF or CRLF).
type lineReader struct {
	sc   *bufio.Scanner
	name string
	n    int   // the number of the line last handed out
	err  error // the read error that ended lines or dataLines
	sizeHint
}

// sizeHint is the size in bytes of the file being read, or 0 when unknown:
// a bound on what it can hold, for sizing arrays once (capFor, estimate),
// never trusted for correctness.
type sizeHint int64

// newLineReader reads r, the file name (empty for a reader with no file
// behind it), of size bytes when known, else 0 (sizeHint).
func newLineReader(r io.Reader, name string, size int64) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(lineBuffer, max(size+1, 4096))), maxLine)
	return &lineReader{sc: sc, name: name, sizeHint: sizeHint(size)}
}

// next returns the next line; the slice is valid until the following call.
// At the end it returns ok == false and the read error, if any.
func (lr *lineReader) next() (line []byte, ok bool, err error) {
	if !lr.sc.Scan() {
		if err := lr.sc.Err(); err != nil {
			return nil, false, errAt(lr.name, lr.n+1, "%v", err)
		}
		return nil, false, nil
	}
	lr.n++
	return lr.sc.Bytes(), true, nil
}

// data returns the next line that carries values, skipping blank lines and
// '#' comments (isBlankOrComment); otherwise it is next.
func (lr *lineReader) data() (line []byte, ok bool, err error) {
	for {
		line, ok, err = lr.next()
		if !ok || !isBlankOrComment(line) {
			return line, ok, err
		}
	}
}

// lines yields every line in order (each valid until the next one is
// asked for). A read error ends the sequence and is left in lr.err.
func (lr *lineReader) lines() iter.Seq[[]byte] { return lr.seq(lr.next) }

// dataLines is lines without blank and comment lines (data).
func (lr *lineReader) dataLines() iter.Seq[[]byte] { return lr.seq(lr.data) }

func (lr *lineReader) seq(next func() ([]byte, bool, error)) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for {
			line, ok, err := next()
			if err != nil {
				lr.err = err
			}
			if !ok || !yield(line) {
				return
			}
		}
	}
}

// errorf is an error at the line last handed out.
func (lr *lineReader) errorf(format string, args ...any) error {
	return errAt(lr.name, lr.n, format, args...)
}

// prefault has the pages of s's capacity faulted in beside the parsing
// that fills it (hostmem.Prefault): for a table of 10^8 values the page
// faults cost as much as the parsing.
func prefault[E int64 | float64](s []E) {
	if c := cap(s); c > 0 {
		hostmem.Prefault(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:c]))), c*8))
	}
}

// capFor is the capacity to give an array that is to receive want values
// from this file (a count from a header, or an estimate): want, but never
// more than the file can hold, so that a damaged header cannot make a small
// file allocate gigabytes. Every value takes at least two bytes (a digit and
// a separator, the last one perhaps only the digit). With no size known the
// array starts small and grows by doubling.
func (size sizeHint) capFor(want int64) int {
	limit := int64(4096)
	if size > 0 {
		limit = int64(size)/2 + 1
	}
	return int(max(0, min(want, limit)))
}

// estimate guesses how many values the whole file holds from its first data
// line of lineBytes bytes holding values of them: the file's size in lines
// like it, with an eighth more for lines a little shorter. With the array
// sized so, a file of lines of similar length loads without any copying,
// and any other file with one doubling at most of its final size.
func (size sizeHint) estimate(lineBytes, values int) int {
	if size <= 0 || values <= 0 {
		return size.capFor(int64(values))
	}
	per := float64(lineBytes+1) / float64(values)
	return size.capFor(int64(float64(size)/per*9/8) + int64(values))
}

// grow returns s with room for at least n more elements. The capacity at
// least doubles, so filling an array of unknown size copies each element
// about once (append grows large slices by only a quarter, which copies them
// four times over and leaves that much garbage).
func grow[E any](s []E, n int) []E {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]E, len(s), max(2*cap(s), len(s)+n, 64))
	copy(t, s)
	return t
}

// spaceTab marks the bytes that separate values in the text formats.
var spaceTab = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, '\v': true, '\f': true}

// isSpace reports whether c separates values in the text formats.
func isSpace(c byte) bool { return spaceTab[c] }

// fields appends the whitespace-separated fields of line to dst.
func fields(dst [][]byte, line []byte) [][]byte {
	for tok, rest := nextField(line); len(tok) > 0; tok, rest = nextField(rest) {
		dst = append(dst, tok)
	}
	return dst
}

// nextField splits off the first whitespace-separated field of line; tok
// is empty when there is none left.
func nextField(line []byte) (tok, rest []byte) {
	i := 0
	for i < len(line) && spaceTab[line[i]] {
		i++
	}
	j := i
	for j < len(line) && !spaceTab[line[j]] {
		j++
	}
	return line[i:j], line[j:]
}

// countFields is the number of whitespace-separated fields of line.
func countFields(line []byte) int {
	n := 0
	for tok, rest := nextField(line); len(tok) > 0; tok, rest = nextField(rest) {
		n++
	}
	return n
}

// isBlankOrComment reports whether a line of a numeric text file carries no
// data: empty, all whitespace, or a comment starting with '#' (after any
// leading whitespace).
func isBlankOrComment(line []byte) bool {
	for _, c := range line {
		if c == '#' {
			return true
		}
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// appendInts appends the integers of line's whitespace-separated fields to
// dst (parseInt; parseIntInf when inf, which reads inf too), growing it by
// doubling when it is full. The error is parseInt's, without a position:
// the caller knows the line. Plain decimals of up to 18 digits, nearly
// every value of a real file, are parsed in the same pass that finds where
// they end.
func appendInts(dst []int64, line []byte, inf bool) ([]int64, error) {
	i := 0
	for {
		for i < len(line) && spaceTab[line[i]] {
			i++
		}
		if i == len(line) {
			return dst, nil
		}
		j := i
		if line[j] == '-' || line[j] == '+' {
			j++
		}
		digits := j
		var v int64
		for j < len(line) && j-digits < 18 && '0' <= line[j] && line[j] <= '9' {
			v = v*10 + int64(line[j]-'0')
			j++
		}
		if j > digits && (j == len(line) || spaceTab[line[j]]) {
			if line[i] == '-' {
				v = -v
			}
		} else {
			for j < len(line) && !spaceTab[line[j]] {
				j++
			}
			var err error
			if inf {
				v, err = parseIntInf(line[i:j])
			} else {
				v, err = parseInt(line[i:j])
			}
			if err != nil {
				return dst, err
			}
		}
		if len(dst) == cap(dst) {
			dst = grow(dst, 1)
		}
		dst = append(dst, v)
		i = j
	}
}

// appendFloats is appendInts for floating values (parseFloat).
func appendFloats(dst []float64, line []byte) ([]float64, error) {
	for tok, rest := nextField(line); len(tok) > 0; tok, rest = nextField(rest) {
		v, err := parseFloat(tok)
		if err != nil {
			return dst, err
		}
		if len(dst) == cap(dst) {
			dst = grow(dst, 1)
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// appendChars appends the characters of line to dst, one value per
// non-whitespace byte, each checked by checkChar; upper converts lower-case
// letters first (FASTA's soft mask). col is the 1-based column of a bad
// character. Bytes, widened once at the end (widen), take an eighth of the
// memory of growing the final array.
func appendChars(dst, line []byte, upper bool) (out []byte, col int, err error) {
	dst = grow(dst, len(line))
	// The common line is all kept as it is: find where it stops being
	// so with one table lookup a byte, and copy that much at once.
	keep := &keptChars[0]
	if upper {
		keep = &keptChars[1]
	}
	k := 0
	for k < len(line) && keep[line[k]] {
		k++
	}
	dst = append(dst, line[:k]...)
	for i := k; i < len(line); i++ {
		c := line[i]
		if spaceTab[c] {
			continue
		}
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c < 0x21 || c > 0x7e {
			return dst, i + 1, checkChar(c)
		}
		dst = append(dst, c)
	}
	return dst, 0, nil
}

// keptChars[u][c]: appendChars keeps byte c as it is (printable ASCII;
// with u, not a lower-case letter).
var keptChars = func() (t [2][256]bool) {
	for c := 0x21; c <= 0x7e; c++ {
		t[0][c] = true
		t[1][c] = c < 'a' || c > 'z'
	}
	return t
}()

// widen converts characters to the values a Table holds.
func widen(b []byte) []int64 { return widenInto(make([]int64, len(b)), b) }

// printable is the table of rows x cols characters b, with their span:
// the programs generated for it, and their plans, ask for the least and
// greatest value many times (a genome of millions of bases would be
// scanned each time: ir.Input.IntSpan).
func printable(rows, cols int, b []byte) *Table {
	return printableInto(rows, cols, make([]int64, len(b)), b)
}

// printableInto is printable with the values in v (len(v) == len(b)).
func printableInto(rows, cols int, v []int64, b []byte) *Table {
	t := &Table{Rows: rows, Cols: cols, I: widenInto(v, b), Printable: true}
	if len(b) > 0 {
		lo, hi := b[0], b[0]
		for _, c := range b {
			lo, hi = min(lo, c), max(hi, c)
		}
		t.Span = ir.Span{Lo: int64(lo), Hi: int64(hi), Known: true}
	}
	return t
}

// widenInto sets v[k] to b[k] and returns v (len(v) == len(b)).
func widenInto(v []int64, b []byte) []int64 {
	for i, c := range b {
		v[i] = int64(c)
	}
	return v
}

// shape follows the rows of a matrix as they are read: the number of values
// in the first row, and that every other row has as many.
type shape struct {
	rows, cols int
	firstLine  int
}

// add counts a row of n values on line; unit names the values in the error
// ("values", "cells").
func (s *shape) add(name string, line, n int, unit string) error {
	if s.rows == 0 {
		s.cols, s.firstLine = n, line
	} else if n != s.cols {
		return errAt(name, line, "row %d has %d %s, but the first row (line %d) has %d; rows of a matrix must have equal lengths",
			s.rows+1, n, unit, s.firstLine, s.cols)
	}
	s.rows++
	return nil
}

// table is the loaded matrix: a single row or a single column is a 1xN
// vector. It is an error to have read no row.
func (s *shape) table(name string, ints []int64, floats []float64) (*Table, error) {
	if s.rows == 0 {
		return nil, errAt(name, 0, "holds no values")
	}
	t := &Table{Rows: s.rows, Cols: s.cols, I: ints, F: floats}
	if s.rows == 1 || s.cols == 1 {
		t.Column = s.cols == 1 && s.rows > 1
		t.Rows, t.Cols = 1, s.rows*s.cols
	}
	return t, nil
}
