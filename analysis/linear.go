package analysis

import "github.com/dpgpu/dpgpu/ir"

// Form is a linear form I*i + J*j + K in the recurrence's index variables,
// with integer constants.
type Form struct{ I, J, K int64 }

// Linear writes the integer expression e as a linear form in i and j, if it
// can: e is built from i, j, integer constants and scalars, integer
// conversions, negation, + and -, and * by a constant. ok is false for
// anything else, for an operation that may see inf (Binary.Saturate), and
// where a coefficient would overflow int64.
func Linear(e ir.Expr) (f Form, ok bool) {
	a, ok := AffineOf(e, nil)
	if !ok {
		return Form{}, false
	}
	return a.Form()
}

// Offset returns d when e is `v - d` for the index variable v (VarI or
// VarJ): how far back along that axis a referenced cell is.
func Offset(e ir.Expr, v ir.VarKind) (int64, bool) {
	f, ok := Linear(e)
	if !ok {
		return 0, false
	}
	coef, other := f.I, f.J
	if v == ir.VarJ {
		coef, other = f.J, f.I
	}
	if coef != 1 || other != 0 || f.K == -1<<63 {
		return 0, false
	}
	return -f.K, true
}

// constInt is the value of a constant of integer type (bool included): its
// own value, or, for a floating literal taken as an integer, the value C's
// conversion gives where that is a number (not for NaN or infinities).
func constInt(n *ir.Const) (int64, bool) {
	switch {
	case !n.T.IsInteger():
		return 0, false
	case !n.V.T.IsFloat():
		return n.V.I, true
	}
	f := n.V.F
	switch {
	case f != f || f >= 1<<63 || f <= -(1<<63):
		return 0, false
	case n.T.Is(ir.IsBoolean):
		if f != 0 {
			return 1, true
		}
		return 0, true
	}
	return int64(f), true
}
