package ir

import "math/bits"

// This file is the integer arithmetic of docs/language.md §6.1 on values,
// in one place, as go/constant is for Go: the checker folds constants with
// it, the CPU evaluators compute every checked operation with it, and the
// range analyses use its exact int64 steps. What differs between the users
// is only how a Fault is worded, which each keeps.

// Fault is why an integer operation has no value.
type Fault uint8

const (
	FaultNone     Fault = iota
	FaultOverflow       // the exact result is outside the finite range
	FaultInfSub         // inf - inf (or inf + -inf)
	FaultInfMul         // inf * 0
	FaultInfDiv         // inf / inf
	FaultInfRem         // inf % x
	FaultDivZero        // x / 0, x % 0
	FaultNaN            // NaN converted to an integer
)

// ArithMax is the largest finite value of the arithmetic of integer type t:
// TypeInfo.FiniteHi where t has inf sentinels, else that of int (bool and
// char compute as int; a floating type gets int's too, which no integer
// operation reads).
func ArithMax(t Type) int64 {
	if t.HasInf() {
		return t.info().FiniteHi
	}
	return Int.info().FiniteHi
}

// IsFinite reports whether |v| <= fmax. It is written without branches, in
// the form vector loops accumulate: the sign of fmax - |v|, where |v| wraps
// for math.MinInt64 and so is negative, is set exactly when v is outside
// the range.
func IsFinite(v, fmax int64) bool {
	m := v >> 63
	return fmax-((v^m)-m) >= 0
}

// AddFinite and SubFinite, MulFinite compute an operation on finite
// operands of type t, reporting whether the exact result is finite. The
// sign tests catch a wrapped long; an int never wraps in 64 bits.
func AddFinite(t Type, x, y int64) (int64, bool) { return AddWithin(x, y, ArithMax(t)) }

// SubFinite is x - y on finite operands (see AddFinite).
func SubFinite(t Type, x, y int64) (int64, bool) { return SubWithin(x, y, ArithMax(t)) }

// AddWithin and SubWithin are AddFinite and SubFinite with the type's
// bound fmax (ArithMax) given: for loops that look it up once.
func AddWithin(x, y, fmax int64) (int64, bool) {
	s := x + y
	return s, (x^s)&(y^s) >= 0 && IsFinite(s, fmax)
}

// SubWithin is x - y on finite operands within ±fmax (see AddWithin).
func SubWithin(x, y, fmax int64) (int64, bool) {
	s := x - y
	return s, (x^y)&(x^s) >= 0 && IsFinite(s, fmax)
}

// MulFinite is x * y on finite operands (see AddFinite).
func MulFinite(t Type, x, y int64) (int64, bool) {
	hi, lo := bits.Mul64(uabs(x), uabs(y))
	return x * y, hi == 0 && lo <= uint64(ArithMax(t))
}

// uabs is |x| as an unsigned number (exact for every int64).
func uabs(x int64) uint64 {
	m := x >> 63
	return uint64((x ^ m) - m)
}

// Add64 is a + b in int64, ok false when it wraps: the exact step of the
// range analyses and linear forms, which know no type.
func Add64(a, b int64) (int64, bool) {
	s := a + b
	return s, (a^s)&(b^s) >= 0
}

// Sub64 is a - b in int64, ok false when it wraps.
func Sub64(a, b int64) (int64, bool) {
	s := a - b
	return s, (a^b)&(a^s) >= 0
}

// Mul64 is a * b in int64, ok false when it wraps.
func Mul64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uabs(a), uabs(b))
	p := a * b
	if hi != 0 {
		return p, false
	}
	if (a < 0) != (b < 0) && a != 0 && b != 0 {
		return p, lo <= 1<<63
	}
	return p, lo < 1<<63
}

// Arith computes x op y (op one of + - * / %) for integer type t by the
// rules of §6.1. sat (Binary.Saturate) says that an operand may be an inf
// sentinel; without it both are finite.
func Arith(op Op, t Type, sat bool, x, y int64) (int64, Fault) {
	if (op == OpDiv || op == OpRem) && y == 0 {
		return 0, FaultDivZero
	}
	if sat {
		p, n := ArithSentinels(t)
		xi, yi := x == p || x == n, y == p || y == n
		if xi || yi {
			return infArith(op, x, y, xi, yi, p, n)
		}
	}
	var v int64
	ok := true
	switch op {
	case OpAdd:
		v, ok = AddFinite(t, x, y)
	case OpSub:
		v, ok = SubFinite(t, x, y)
	case OpMul:
		v, ok = MulFinite(t, x, y)
	case OpDiv:
		// |x / y| <= |x|: finite operands give a finite quotient. The
		// test only matters for garbage on a lane nobody reads.
		v = x / y
		ok = IsFinite(v, ArithMax(t))
	case OpRem:
		v = x % y
	}
	if !ok {
		return v, FaultOverflow
	}
	return v, FaultNone
}

// ArithSentinels returns the inf and -inf sentinels of integer type t
// (those of long for bool and the floating types): the sentinels the
// arithmetic and the conversions of §6.1 test for.
func ArithSentinels(t Type) (pos, neg int64) {
	if t.IsInteger() && !t.Is(IsBoolean) {
		return InfSentinel(t)
	}
	return InfSentinel(Long)
}

// infArith is an operation with at least one infinite operand (xi, yi: x,
// y is a sentinel; p, n the sentinels): IEEE's result where it is a
// number, a fault where IEEE gives NaN. A zero divisor has been refused.
func infArith(op Op, x, y int64, xi, yi bool, p, n int64) (int64, Fault) {
	neg := func(v int64) int64 {
		if v == p {
			return n
		}
		return p
	}
	// signed is ±inf with the sign of a * b (neither zero).
	signed := func(a, b int64) int64 {
		if (a < 0) != (b < 0) {
			return n
		}
		return p
	}
	switch op {
	case OpAdd:
		switch {
		case xi && yi && x != y:
			return 0, FaultInfSub
		case xi:
			return x, FaultNone
		}
		return y, FaultNone
	case OpSub:
		switch {
		case xi && yi && x == y:
			return 0, FaultInfSub
		case xi:
			return x, FaultNone
		}
		return neg(y), FaultNone
	case OpMul:
		if x == 0 || y == 0 {
			return 0, FaultInfMul
		}
		return signed(x, y), FaultNone
	case OpDiv:
		switch {
		case xi && yi:
			return 0, FaultInfDiv
		case xi:
			return signed(x, y), FaultNone
		}
		return 0, FaultNone
	case OpRem:
		if xi {
			return 0, FaultInfRem
		}
		return x, FaultNone
	}
	return 0, FaultNone
}
