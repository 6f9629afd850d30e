package formats

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// text is the text of one value: a field of a line ([]byte) or a cell of a
// CSV record (string). The parsers take either without converting, so that
// neither kind of file allocates per value.
type text interface{ ~[]byte | ~string }

// parseDecimal parses a plain decimal integer ([+-]digits) without
// allocating; ok is false for anything else, including overflow, so that the
// caller can fall back to strconv for the other spellings and for the error.
func parseDecimal[T text](b T) (int64, bool) {
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
	for i := 0; i < len(b); i++ {
		c := b[i]
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

// exactPow10 are the powers of ten that are exact doubles.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseSimpleFloat parses the common decimal spellings of a double
// ([+-]digits[.digits][(e|E)[+-]digits]) without allocating, in the cases
// where one IEEE operation gives the correctly rounded value: a mantissa of
// at most 2^53 scaled by an exact power of ten (Clinger's fast path). ok is
// false for every other spelling, which strconv then parses.
func parseSimpleFloat[T text](b T) (float64, bool) {
	i, neg := 0, false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp, seen, dot := 0, 0, 0, false // significant digits, all digits
	for ; i < len(b); i++ {
		c := b[i]
		if c == '.' && !dot {
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		seen++
		if mant != 0 || c != '0' {
			if digits++; digits > 19 {
				return 0, false // mant would overflow; it is over 2^53 anyway
			}
		}
		mant = mant*10 + uint64(c-'0')
		if dot {
			exp--
		}
	}
	if seen == 0 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, false
		}
		e := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if e > 1000 {
				return 0, false
			}
			e = e*10 + int(b[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(b) || mant > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	f := float64(mant)
	if exp < 0 {
		f /= exactPow10[-exp]
	} else {
		f *= exactPow10[exp]
	}
	if neg {
		f = -f
	}
	return f, true
}

// parseInt parses an integer value of a text format. Besides plain decimals
// it accepts floats that are exactly integral ("3.0", "1e3": what numpy's
// savetxt writes), so that such files load into integer inputs. The
// conversions to string for strconv stay on the stack (strconv copies what
// it keeps in an error), and tok is only boxed for a message.
func parseInt[T text](tok T) (int64, error) {
	if v, ok := parseDecimal(tok); ok {
		return v, nil
	}
	if len(tok) == 0 {
		return 0, fmt.Errorf("empty value")
	}
	// An integral float of the fast path ("3.0", "1e3") has the value that
	// strconv.ParseInt would give if it accepted the text at all; taking it
	// first spares the error ParseInt allocates for such a text.
	f, ok := parseSimpleFloat(tok)
	if !ok {
		if v, err := strconv.ParseInt(string(tok), 10, 64); err == nil {
			if v == Inf || v == -Inf {
				// Written as a number, it is not inf: no finite value of
				// any type reaches it.
				return 0, fmt.Errorf("%q is outside the finite range of long (±%d)", tok, int64(Inf-1))
			}
			return v, nil
		}
		var err error
		f, err = strconv.ParseFloat(string(tok), 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is outside the 64-bit integer range", tok)
		}
		if err != nil {
			return 0, notNumber(string(tok))
		}
	}
	v, ok := floatToInt(f)
	if !ok {
		if f == math.Trunc(f) && !math.IsInf(f, 0) {
			return 0, fmt.Errorf("%q is outside the 64-bit integer range", tok)
		}
		return 0, fmt.Errorf("%q %s", tok, notInteger)
	}
	return v, nil
}

// parseIntInf is parseInt that also reads inf and -inf, in the spellings
// parseFloat reads ("inf", "-Inf", "+infinity"), as ±Inf: the data of a
// .txt or .csv file, where a missing edge of a distance matrix is inf
// (contract v2 §7.5). The formats of the built-in problems and TSPLIB
// have no inf and use parseInt.
func parseIntInf[T text](tok T) (int64, error) {
	if len(tok) >= 3 && len(tok) <= 9 {
		if f, err := strconv.ParseFloat(string(tok), 64); err == nil && math.IsInf(f, 0) {
			if f < 0 {
				return -Inf, nil
			}
			return Inf, nil
		}
	}
	return parseInt(tok)
}

// parseFloat parses a floating value of a text format (also "inf", "nan").
func parseFloat[T text](tok T) (float64, error) {
	if v, ok := parseDecimal(tok); ok {
		return float64(v), nil
	}
	if v, ok := parseSimpleFloat(tok); ok {
		return v, nil
	}
	if len(tok) == 0 {
		return 0, fmt.Errorf("empty value")
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is outside the range of a double", tok)
	}
	if err != nil {
		return 0, notNumber(string(tok))
	}
	return f, nil
}

// notNumber is the error of a token that is no number: quoted, cut short
// when long (a whole line of a file whose values are not separated by
// spaces), with a hint where commas joined the values.
func notNumber(tok string) error {
	q := tok
	if len(q) > 40 {
		q = q[:40] + "..."
	}
	if strings.Contains(tok, ",") {
		return fmt.Errorf("%q is not a number: values here are separated by spaces (a .csv file takes commas)", q)
	}
	return fmt.Errorf("%q is not a number", q)
}
