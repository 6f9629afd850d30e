package formats

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// maxLine bounds one line of a text file. Unwrapped genomes put millions of
// characters on one line, so the bound is generous; it only stops a binary
// file from being swallowed whole as a "line".
const maxLine = 1 << 30

// lineReader hands out the lines of a text file with their 1-based numbers,
// without the line end (LF or CRLF).
type lineReader struct {
	sc   *bufio.Scanner
	name string
	n    int
}

func newLineReader(r io.Reader, name string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	return &lineReader{sc: sc, name: name}
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

// isSpace reports whether c separates values in the text formats.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// fields appends the whitespace-separated fields of line to dst.
func fields(dst [][]byte, line []byte) [][]byte {
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
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

// parseDecimal parses a plain decimal integer ([+-]digits) without
// allocating; ok is false for anything else, including overflow, so that the
// caller can fall back to strconv for the other spellings and for the error.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18+1 {
		return 0, false // 18 digits and a sign cannot overflow int64
	}
	neg := false
	switch b[0] {
	case '-':
		neg = true
		b = b[1:]
	case '+':
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseInt parses an integer value of a text format. Besides plain decimals
// it accepts floats that are exactly integral ("3.0", "1e3": what numpy's
// savetxt writes), so that such files load into integer inputs.
func parseInt(tok []byte) (int64, error) {
	if v, ok := parseDecimal(tok); ok {
		return v, nil
	}
	if len(tok) == 0 {
		return 0, fmt.Errorf("empty value")
	}
	s := string(tok)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is outside the 64-bit integer range", s)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	v, ok := floatToInt(f)
	if !ok {
		if f == math.Trunc(f) && !math.IsInf(f, 0) {
			return 0, fmt.Errorf("%q is outside the 64-bit integer range", s)
		}
		return 0, fmt.Errorf("%q %s", s, notInteger)
	}
	return v, nil
}

// parseFloat parses a floating value of a text format (also "inf", "nan").
func parseFloat(tok []byte) (float64, error) {
	if v, ok := parseDecimal(tok); ok {
		return float64(v), nil
	}
	if len(tok) == 0 {
		return 0, fmt.Errorf("empty value")
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is outside the range of a double", tok)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", tok)
	}
	return f, nil
}
