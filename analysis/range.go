package analysis

import (
	"math"

	"github.com/dpgpu/dpgpu/ir"
)

// Range is a closed interval [Lo, Hi] of int64 values: what a range analysis
// knows of an integer expression. Full(), every int64, is also what is said of
// an expression nothing is known of; a Range with Lo > Hi is empty, the value
// of an expression that is never evaluated (a case that cannot be taken, the
// body of a reduction over nothing). Empty() is the canonical empty Range: it
// is within every bound and the identity of Hull.
//
// The operations are exact on int64 and give Full() where a bound would wrap,
// so that they hold for every value the operands may take. What a user
// knows beyond that (a checked operation stops the run and so never yields
// a value outside the finite range; a failed operation on the GPU wraps) it
// applies to the results itself.
type Range struct{ Lo, Hi int64 }

// Full is every int64.
func Full() Range { return Range{math.MinInt64, math.MaxInt64} }

// Empty holds no value.
func Empty() Range { return Range{math.MaxInt64, math.MinInt64} }

// Point is the Range of the one value v.
func Point(v int64) Range { return Range{v, v} }

// Span is [lo, hi], Empty when lo > hi.
func Span(lo, hi int64) Range {
	if lo > hi {
		return Empty()
	}
	return Range{lo, hi}
}

// IsEmpty reports whether r holds no value.
func (r Range) IsEmpty() bool { return r.Lo > r.Hi }

// IsPoint reports whether r holds exactly one value.
func (r Range) IsPoint() bool { return r.Lo == r.Hi }

// IsFull reports whether r is every int64 (nothing is known).
func (r Range) IsFull() bool { return r == Full() }

// Within reports whether every value of r lies in [lo, hi] (true when r is
// empty).
func (r Range) Within(lo, hi int64) bool { return r.IsEmpty() || (r.Lo >= lo && r.Hi <= hi) }

// Has reports whether v is a value of r.
func (r Range) Has(v int64) bool { return r.Lo <= v && v <= r.Hi }

// Hull is the smallest Range holding r and s.
func (r Range) Hull(s Range) Range {
	switch {
	case r.IsEmpty():
		return s
	case s.IsEmpty():
		return r
	}
	return Range{min(r.Lo, s.Lo), max(r.Hi, s.Hi)}
}

// Meet is the values r and s have in common.
func (r Range) Meet(s Range) Range { return Span(max(r.Lo, s.Lo), min(r.Hi, s.Hi)) }

// Add is the range of x + y for x in r and y in s.
func (r Range) Add(s Range) Range {
	if r.IsEmpty() || s.IsEmpty() {
		return Empty()
	}
	lo, ok1 := ir.Add64(r.Lo, s.Lo)
	hi, ok2 := ir.Add64(r.Hi, s.Hi)
	if !ok1 || !ok2 {
		return Full()
	}
	return Range{lo, hi}
}

// Neg is the range of -x for x in r.
func (r Range) Neg() Range {
	switch {
	case r.IsEmpty():
		return Empty()
	case r.Lo == math.MinInt64:
		return Full()
	}
	return Range{-r.Hi, -r.Lo}
}

// Sub is the range of x - y for x in r and y in s.
func (r Range) Sub(s Range) Range { return r.Add(s.Neg()) }

// Mul is the range of x * y for x in r and y in s: the hull of the
// products of the ends.
func (r Range) Mul(s Range) Range {
	if r.IsEmpty() || s.IsEmpty() {
		return Empty()
	}
	out := Empty()
	for _, x := range [2]int64{r.Lo, r.Hi} {
		for _, y := range [2]int64{s.Lo, s.Hi} {
			p, ok := ir.Mul64(x, y)
			if !ok {
				return Full()
			}
			out = out.Hull(Point(p))
		}
	}
	return out
}

// Quo is the range of x / y (truncating) for x in r and y in s, where s
// holds no 0: on such a rectangle the quotient is monotonic in each
// operand, so its extremes are at the corners (a knapsack's w / wt[i-1]
// with weights >= 1 is within the row). Full() where s holds 0, and where
// MinInt64 / -1 could wrap.
func (r Range) Quo(s Range) Range {
	switch {
	case r.IsEmpty() || s.IsEmpty():
		return Empty()
	case s.Has(0), s.Has(-1) && r.Has(math.MinInt64):
		return Full()
	}
	a, b, c, d := r.Lo/s.Lo, r.Lo/s.Hi, r.Hi/s.Lo, r.Hi/s.Hi
	return Range{min(a, b, c, d), max(a, b, c, d)}
}

// Rem is the range of x % c (the sign of x, as in C and Go) for x in r and
// a divisor known to be the constant c of s; Full() when c is not known or
// is 0.
func (r Range) Rem(s Range) Range {
	switch {
	case r.IsEmpty() || s.IsEmpty():
		return Empty()
	case !s.IsPoint() || s.Lo == 0 || s.Lo == math.MinInt64:
		return Full()
	}
	m := s.Lo
	if m < 0 {
		m = -m
	}
	lo, hi := -(m - 1), m-1
	if r.Lo >= 0 {
		lo, hi = 0, min(hi, r.Hi)
	}
	if r.Hi <= 0 {
		lo, hi = max(lo, r.Lo), 0
	}
	return Range{lo, hi}
}

// Abs is the range of |x| for x in r.
func (r Range) Abs() Range {
	switch {
	case r.IsEmpty():
		return Empty()
	case r.Lo >= 0:
		return r
	case r.Lo == math.MinInt64:
		return Full()
	case r.Hi <= 0:
		return Range{-r.Hi, -r.Lo}
	}
	return Range{0, max(-r.Lo, r.Hi)}
}

// Min is the range of min(x, y) for x in r and y in s.
func (r Range) Min(s Range) Range {
	if r.IsEmpty() || s.IsEmpty() {
		return Empty()
	}
	return Range{min(r.Lo, s.Lo), min(r.Hi, s.Hi)}
}

// Max is the range of max(x, y) for x in r and y in s.
func (r Range) Max(s Range) Range {
	if r.IsEmpty() || s.IsEmpty() {
		return Empty()
	}
	return Range{max(r.Lo, s.Lo), max(r.Hi, s.Hi)}
}
