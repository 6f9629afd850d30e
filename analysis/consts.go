package analysis

import "github.com/dpgpu/dpgpu/ir"

// Int is the value of an integer expression made of constants, scalars
// and the variables env binds (reduction variables the caller iterates):
// + - * / % by the run-time rules (ir.Arith: what would stop a run is no
// constant), unary minus, integer conversions, min and max. ok is false
// for anything else — a cell, an input element, an index variable — and
// for a floating value. It is the one constant evaluator of the stages
// after sema (the planner's answer cells and regions, the CPU compiler's
// constant operands); sema folds with the same arithmetic.
func Int(e ir.Expr, env map[*ir.Var]int64) (int64, bool) {
	switch n := e.(type) {
	case *ir.Const:
		return constInt(n)
	case *ir.ScalarRef:
		return n.Scalar.Value.I, n.Scalar.Value.T.IsInteger()
	case *ir.Var:
		v, ok := env[n]
		return v, ok
	case *ir.Convert:
		if !n.T.IsInteger() || !n.X.Type().IsInteger() {
			return 0, false
		}
		return Int(n.X, env)
	case *ir.Unary:
		x, ok := Int(n.X, env)
		if n.Op == ir.OpNeg && ok {
			// Finite values and the inf sentinels are symmetric.
			return ir.Sub64(0, x)
		}
	case *ir.Binary:
		x, ok1 := Int(n.X, env)
		y, ok2 := Int(n.Y, env)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch n.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem:
			v, f := ir.Arith(n.Op, n.T, n.Saturate, x, y)
			return v, f == ir.FaultNone
		}
	case *ir.Call:
		if n.Fn != ir.FnMin && n.Fn != ir.FnMax {
			return 0, false
		}
		var r int64
		for k, a := range n.Args {
			v, ok := Int(a, env)
			if !ok {
				return 0, false
			}
			if k == 0 || (n.Fn == ir.FnMin && v < r) || (n.Fn == ir.FnMax && v > r) {
				r = v
			}
		}
		return r, true
	}
	return 0, false
}
