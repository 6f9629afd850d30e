package sema

import (
	"fmt"
	"math"

	"github.com/dpgpu/dpgpu/ir"
)

// convertValue converts a constant to type t as C does (float to integer
// truncates toward zero), refusing values that do not fit.
func convertValue(v ir.Value, t ir.Type) (ir.Value, error) {
	if t == ir.Bool {
		nz := v.I != 0
		if v.T.IsFloat() {
			nz = v.F != 0
		}
		if nz {
			return ir.Value{T: ir.Bool, I: 1}, nil
		}
		return ir.Value{T: ir.Bool}, nil
	}
	if v.T.IsFloat() {
		return floatValue(v.F, t)
	}
	return intValue(v.I, t)
}

// foldBinary computes x op y for constants whose operands have type t (the
// result is Bool for comparisons and logic). Integer arithmetic that
// overflows t, and integer division by zero, are errors.
func foldBinary(op string, t ir.Type, x, y ir.Value) (ir.Value, error) {
	boolean := func(b bool) (ir.Value, error) {
		if b {
			return ir.Value{T: ir.Bool, I: 1}, nil
		}
		return ir.Value{T: ir.Bool}, nil
	}
	switch op {
	case "&&":
		return boolean(x.I != 0 && y.I != 0)
	case "||":
		return boolean(x.I != 0 || y.I != 0)
	}
	if t.IsFloat() {
		a, b := x.F, y.F
		var r float64
		switch op {
		case "==":
			return boolean(a == b)
		case "!=":
			return boolean(a != b)
		case "<":
			return boolean(a < b)
		case "<=":
			return boolean(a <= b)
		case ">":
			return boolean(a > b)
		case ">=":
			return boolean(a >= b)
		case "+":
			r = a + b
		case "-":
			r = a - b
		case "*":
			r = a * b
		case "/":
			r = a / b
		default:
			return ir.Value{}, fmt.Errorf("operator %s is not defined on %s", op, t)
		}
		if t == ir.Float {
			r = float64(float32(r))
		}
		return ir.Value{T: t, F: r}, nil
	}
	a, b := x.I, y.I
	var r int64
	overflow := false
	switch op {
	case "==":
		return boolean(a == b)
	case "!=":
		return boolean(a != b)
	case "<":
		return boolean(a < b)
	case "<=":
		return boolean(a <= b)
	case ">":
		return boolean(a > b)
	case ">=":
		return boolean(a >= b)
	case "+":
		r = a + b
		overflow = (a > 0 && b > 0 && r < 0) || (a < 0 && b < 0 && r >= 0)
	case "-":
		r = a - b
		overflow = (a >= 0 && b < 0 && r < 0) || (a < 0 && b > 0 && r >= 0)
	case "*":
		r = a * b
		overflow = a != 0 && (r/a != b || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64))
	case "/", "%":
		if b == 0 {
			return ir.Value{}, fmt.Errorf("division by zero")
		}
		if a == math.MinInt64 && b == -1 {
			overflow = true
		}
		if op == "/" {
			r = a / b
		} else if !overflow {
			r = a % b
		}
	default:
		return ir.Value{}, fmt.Errorf("unknown operator %s", op)
	}
	lo, hi := ir.FiniteRange(t)
	if overflow || r < lo || r > hi {
		return ir.Value{}, fmt.Errorf("constant expression %d %s %d overflows %s (finite range ±%d)", a, op, b, t, hi)
	}
	return ir.Value{T: t, I: r}, nil
}

// negate computes -v: exact for floating values (-0.0 included), an error
// for the one integer of each type that has no negation.
func negate(v ir.Value) (ir.Value, error) {
	if v.T.IsFloat() {
		return ir.Value{T: v.T, F: -v.F}, nil
	}
	r, err := foldBinary("-", v.T, ir.Value{T: v.T}, v)
	if err != nil {
		return ir.Value{}, fmt.Errorf("constant expression -(%d) overflows %s", v.I, v.T)
	}
	return r, nil
}
