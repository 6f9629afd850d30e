package sema

import (
	"fmt"

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
// result is Bool for comparisons and logic). Integer arithmetic follows the
// run-time rules (ir.Arith): a result outside t's finite range, and
// integer division by zero, are errors.
func foldBinary(op string, t ir.Type, x, y ir.Value) (ir.Value, error) {
	switch op {
	case "&&":
		return boolValue(x.I != 0 && y.I != 0), nil
	case "||":
		return boolValue(x.I != 0 || y.I != 0), nil
	}
	if t.IsFloat() {
		if b, ok := compare(op, x.F, y.F); ok {
			return boolValue(b), nil
		}
		a, b := x.F, y.F
		var r float64
		switch op {
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
	if c, ok := compare(op, a, b); ok {
		return boolValue(c), nil
	}
	o, ok := map[string]ir.Op{"+": ir.OpAdd, "-": ir.OpSub, "*": ir.OpMul, "/": ir.OpDiv, "%": ir.OpRem}[op]
	if !ok {
		return ir.Value{}, fmt.Errorf("unknown operator %s", op)
	}
	// Constants are finite, so Saturate is off; t's own finite range is
	// checked too, for the operand types that compute as int.
	r, f := ir.Arith(o, t, false, a, b)
	if f == ir.FaultDivZero {
		return ir.Value{}, fmt.Errorf("division by zero")
	}
	lo, hi := ir.FiniteRange(t)
	if f != ir.FaultNone || r < lo || r > hi {
		return ir.Value{}, fmt.Errorf("constant expression %d %s %d overflows %s (finite range ±%d)", a, op, b, t, hi)
	}
	return ir.Value{T: t, I: r}, nil
}

// compare is a op b for a comparison operator op; ok is false for any
// other operator.
func compare[T int64 | float64](op string, a, b T) (r, ok bool) {
	switch op {
	case "==":
		return a == b, true
	case "!=":
		return a != b, true
	case "<":
		return a < b, true
	case "<=":
		return a <= b, true
	case ">":
		return a > b, true
	case ">=":
		return a >= b, true
	}
	return false, false
}

// boolValue is b as a constant.
func boolValue(b bool) ir.Value {
	if b {
		return ir.Value{T: ir.Bool, I: 1}
	}
	return ir.Value{T: ir.Bool}
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
