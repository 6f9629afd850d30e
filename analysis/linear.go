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
	switch n := e.(type) {
	case *ir.Var:
		if n.Reduce == nil {
			switch n.Kind {
			case ir.VarI:
				return Form{I: 1}, true
			case ir.VarJ:
				return Form{J: 1}, true
			}
		}
	case *ir.Const:
		if v, ok := constInt(n); ok {
			return Form{K: v}, true
		}
	case *ir.ScalarRef:
		if n.Scalar.Value.T.IsInteger() {
			return Form{K: n.Scalar.Value.I}, true
		}
	case *ir.Convert:
		if n.T.IsInteger() && n.X.Type().IsInteger() {
			return Linear(n.X)
		}
	case *ir.Unary:
		if n.Op == ir.OpNeg {
			if x, ok := Linear(n.X); ok {
				return x.scale(-1)
			}
		}
	case *ir.Binary:
		if n.Saturate {
			break
		}
		x, ok1 := Linear(n.X)
		y, ok2 := Linear(n.Y)
		if !ok1 || !ok2 {
			break
		}
		switch n.Op {
		case ir.OpAdd:
			return x.add(y, 1)
		case ir.OpSub:
			return x.add(y, -1)
		case ir.OpMul:
			if x.I == 0 && x.J == 0 {
				return y.scale(x.K)
			}
			if y.I == 0 && y.J == 0 {
				return x.scale(y.K)
			}
		}
	}
	return Form{}, false
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

// add is f + s*g, s = ±1.
func (f Form) add(g Form, s int64) (Form, bool) {
	g, ok := g.scale(s)
	if !ok {
		return Form{}, false
	}
	i, ok1 := ir.Add64(f.I, g.I)
	j, ok2 := ir.Add64(f.J, g.J)
	k, ok3 := ir.Add64(f.K, g.K)
	return Form{i, j, k}, ok1 && ok2 && ok3
}

// scale is c*f.
func (f Form) scale(c int64) (Form, bool) {
	i, ok1 := ir.Mul64(f.I, c)
	j, ok2 := ir.Mul64(f.J, c)
	k, ok3 := ir.Mul64(f.K, c)
	return Form{i, j, k}, ok1 && ok2 && ok3
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
