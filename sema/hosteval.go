package sema

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dpgpu/dpgpu/ir"
)

// A reduction in a scalar or a grid side (`int H = sum(k in
// 0..len(p)-1: p[k]) / 2`, contract v2 §7.5) is computed once, here, on
// the host, by the arithmetic of docs/language.md §6.1 that the recurrence
// follows at run time: its body has C types (p[k] is an int), an integer
// operation whose exact result is outside the finite range is an error at
// its operator, inf follows the inf rules, an index outside an input is an
// error at the read, and an empty range gives the identity (inf, -inf, 0).
// Its value then enters the scalar's double-precision evaluation (evalHost)
// like any other operand; a scalar that is one reduction takes its value
// exactly (evalScalars), also beyond 2^53.
//
// The rules are those of ir/arith.go and of foldBinary; what this adds is
// the loop, the reads of input elements and the inf sentinels of
// integer data.

// maxHostSteps bounds the body evaluations of the reductions of one scalar
// or grid side, so that `dpgpu check` of a mistyped bound (0..1e12) ends
// within seconds: a sum over 134 million values is allowed.
const maxHostSteps = 1 << 27

// hostEval evaluates an expression of a scalar on the host with the
// values of the enclosing reductions' variables.
type hostEval struct {
	binds []hostBind // innermost last
	steps int64
}

// hostBind is the value of a reduction's variable.
type hostBind struct {
	r *ir.Reduce
	v int64
}

// evalTyped evaluates e by the rules of §6.1; e is a reduction or input
// read of a scalar or a grid side, or a part of one.
func evalTyped(e ir.Expr) (ir.Value, error) {
	h := &hostEval{}
	return h.eval(e)
}

// infValue is inf (or -inf) of type t: the sentinel of an integer type,
// IEEE's infinity otherwise.
func infValue(t ir.Type, neg bool) ir.Value {
	if t.IsFloat() {
		if neg {
			return ir.Value{T: t, F: math.Inf(-1)}
		}
		return ir.Value{T: t, F: math.Inf(1)}
	}
	p, n := ir.ArithSentinels(t)
	if neg {
		return ir.Value{T: t, I: n}
	}
	return ir.Value{T: t, I: p}
}

// isInfValue reports whether v is inf or -inf: an integer sentinel of a
// type that has them, or an IEEE infinity.
func isInfValue(v ir.Value) bool {
	if v.T.IsFloat() {
		return math.IsInf(v.F, 0)
	}
	if !v.T.HasInf() {
		return false
	}
	p, n := ir.ArithSentinels(v.T)
	return v.I == p || v.I == n
}

// hostFloat is v as a double, integer inf sentinels as IEEE infinities:
// how a typed value enters the double-precision evaluation of a scalar.
func hostFloat(v ir.Value) float64 {
	if isInfValue(v) && !v.T.IsFloat() {
		return math.Inf(int(sign(v.I)))
	}
	return v.Float64()
}

func sign(x int64) int64 {
	if x < 0 {
		return -1
	}
	return 1
}

func (h *hostEval) eval(e ir.Expr) (ir.Value, error) {
	switch n := e.(type) {
	case *ir.Const:
		return n.V, nil
	case *ir.ScalarRef:
		return n.Scalar.Value, nil
	case *ir.Inf:
		return infValue(n.T, n.Neg), nil
	case *ir.Var:
		for k := len(h.binds) - 1; k >= 0; k-- {
			if b := h.binds[k]; n.BoundBy(b.r) {
				return ir.Value{T: n.T, I: b.v}, nil
			}
		}
		return ir.Value{}, &evalError{n.Pos, fmt.Sprintf("%s has no value here", n.Name)}
	case *ir.Load:
		return h.load(n)
	case *ir.Unary:
		x, err := h.eval(n.X)
		if err != nil {
			return ir.Value{}, err
		}
		if n.Op == ir.OpNot {
			return boolValue(!truth(x)), nil
		}
		if x.T.IsFloat() {
			return ir.Value{T: n.T, F: -x.F}, nil
		}
		// The finite range is symmetric and the sentinels are each
		// other's negation: negation never overflows.
		return ir.Value{T: n.T, I: -x.I}, nil
	case *ir.Binary:
		return h.binary(n)
	case *ir.Select:
		c, err := h.eval(n.Cond)
		if err != nil {
			return ir.Value{}, err
		}
		if truth(c) {
			return h.eval(n.Then)
		}
		return h.eval(n.Else)
	case *ir.Convert:
		x, err := h.eval(n.X)
		if err != nil {
			return ir.Value{}, err
		}
		return convertHost(x, n)
	case *ir.Call:
		return h.call(n)
	case *ir.Reduce:
		return h.reduce(n)
	}
	return ir.Value{}, fmt.Errorf("cannot evaluate %T on the host", e)
}

// truth is a condition's value.
func truth(v ir.Value) bool {
	if v.T.IsFloat() {
		return v.F != 0
	}
	return v.I != 0
}

// load reads an input element, checking the index.
func (h *hostEval) load(n *ir.Load) (ir.Value, error) {
	in := n.In
	var idx [2]int64
	for k, x := range n.Index {
		v, err := h.eval(x)
		if err != nil {
			return ir.Value{}, err
		}
		idx[k] = v.I
	}
	var at int64
	if in.Vector {
		if idx[0] < 0 || idx[0] >= int64(in.Cols) {
			return ir.Value{}, &evalError{n.Pos, fmt.Sprintf("index %d is outside %s (%d elements: 0..%d)", idx[0], in.Name, in.Cols, in.Cols-1)}
		}
		at = idx[0]
	} else {
		if idx[0] < 0 || idx[0] >= int64(in.Rows) || idx[1] < 0 || idx[1] >= int64(in.Cols) {
			return ir.Value{}, &evalError{n.Pos, fmt.Sprintf("index [%d][%d] is outside %s (%dx%d)", idx[0], idx[1], in.Name, in.Rows, in.Cols)}
		}
		at = idx[0]*int64(in.Cols) + idx[1]
	}
	if in.T.IsFloat() {
		return ir.Value{T: in.T, F: in.F[at]}, nil
	}
	return ir.Value{T: in.T, I: in.I[at]}, nil
}

func (h *hostEval) binary(n *ir.Binary) (ir.Value, error) {
	x, err := h.eval(n.X)
	if err != nil {
		return ir.Value{}, err
	}
	switch n.Op {
	case ir.OpAnd, ir.OpOr:
		if truth(x) != (n.Op == ir.OpAnd) {
			return boolValue(n.Op == ir.OpOr), nil // decided by X
		}
		y, err := h.eval(n.Y)
		if err != nil {
			return ir.Value{}, err
		}
		return boolValue(truth(y)), nil
	}
	y, err := h.eval(n.Y)
	if err != nil {
		return ir.Value{}, err
	}
	t := x.T // both operands have the operation's type
	if t.IsFloat() {
		if b, ok := compare(n.Op.String(), x.F, y.F); ok {
			return boolValue(b), nil
		}
		var r float64
		switch n.Op {
		case ir.OpAdd:
			r = x.F + y.F
		case ir.OpSub:
			r = x.F - y.F
		case ir.OpMul:
			r = x.F * y.F
		case ir.OpDiv:
			r = x.F / y.F
		default:
			return ir.Value{}, &evalError{n.Pos, fmt.Sprintf("operator %s is not defined on %s", n.Op, t)}
		}
		if t == ir.Float {
			r = float64(float32(r))
		}
		return ir.Value{T: t, F: r}, nil
	}
	if b, ok := compare(n.Op.String(), x.I, y.I); ok {
		return boolValue(b), nil
	}
	r, f := ir.Arith(n.Op, n.T, n.Saturate, x.I, y.I)
	if f != ir.FaultNone {
		return ir.Value{}, &evalError{n.Pos, faultText(f, n.Op, n.T, x.I, y.I)}
	}
	return ir.Value{T: n.T, I: r}, nil
}

// faultText words a fault of x op y in type t.
func faultText(f ir.Fault, op ir.Op, t ir.Type, x, y int64) string {
	switch f {
	case ir.FaultDivZero:
		return "division by zero"
	case ir.FaultOverflow:
		return fmt.Sprintf("overflow: %d %s %d does not fit %s (finite range ±%d)", x, op, y, t, ir.ArithMax(t))
	case ir.FaultInfSub:
		return "inf - inf is undefined"
	case ir.FaultInfMul:
		return "inf * 0 is undefined"
	case ir.FaultInfDiv:
		return "inf / inf is undefined"
	case ir.FaultInfRem:
		return "inf % x is undefined"
	}
	return "the value is NaN (not a number)"
}

// convertHost converts v to c's type by the rules of ir.Convert: inf to
// inf, float to integer truncating, NaN and values beyond the finite range
// refused.
func convertHost(v ir.Value, c *ir.Convert) (ir.Value, error) {
	t := c.T
	switch {
	case t == ir.Bool:
		return boolValue(truth(v)), nil
	case v.T == t:
		return v, nil
	case isInfValue(v):
		neg := v.F < 0 || (!v.T.IsFloat() && v.I < 0)
		if !t.IsFloat() && !t.HasInf() {
			return ir.Value{}, &evalError{c.Pos, fmt.Sprintf("inf converted to %s, which has no inf", t)}
		}
		return infValue(t, neg), nil
	case t.IsFloat():
		f := v.Float64()
		if t == ir.Float {
			f = float64(float32(f))
		}
		return ir.Value{T: t, F: f}, nil
	case v.T.IsFloat():
		if math.IsNaN(v.F) {
			return ir.Value{}, &evalError{c.Pos, fmt.Sprintf("NaN (not a number) converted to %s", t)}
		}
		tr := math.Trunc(v.F)
		if lo, hi := ir.FiniteRange(t); tr < float64(lo) || tr >= float64(hi)+1 {
			return ir.Value{}, &evalError{c.Pos, fmt.Sprintf("overflow: converting %s to %s does not fit (finite range ±%d)", strconv.FormatFloat(v.F, 'g', -1, 64), t, hi)}
		}
		return ir.Value{T: t, I: int64(tr)}, nil
	}
	if lo, hi := ir.FiniteRange(t); t != ir.Char && (v.I < lo || v.I > hi) {
		return ir.Value{}, &evalError{c.Pos, fmt.Sprintf("overflow: converting %d to %s does not fit (finite range ±%d)", v.I, t, hi)}
	}
	return ir.Value{T: t, I: v.I}, nil
}

func (h *hostEval) call(n *ir.Call) (ir.Value, error) {
	args := make([]ir.Value, len(n.Args))
	for k, a := range n.Args {
		v, err := h.eval(a)
		if err != nil {
			return ir.Value{}, err
		}
		args[k] = v
	}
	switch n.Fn {
	case ir.FnMin, ir.FnMax:
		best := args[0]
		for _, v := range args[1:] {
			if better(n.Fn == ir.FnMin, v, best) {
				best = v
			}
		}
		return best, nil
	case ir.FnAbs:
		v := args[0]
		if v.T.IsFloat() {
			return ir.Value{T: v.T, F: math.Abs(v.F)}, nil
		}
		if v.I < 0 {
			v.I = -v.I // symmetric: -inf becomes inf
		}
		return v, nil
	}
	x := make([]float64, len(args))
	for k, v := range args {
		x[k] = v.F
	}
	var r float64
	switch n.Fn {
	case ir.FnExp:
		r = math.Exp(x[0])
	case ir.FnLog:
		r = math.Log(x[0])
	case ir.FnSqrt:
		r = math.Sqrt(x[0])
	case ir.FnPow:
		r = math.Pow(x[0], x[1])
	case ir.FnFloor:
		r = math.Floor(x[0])
	case ir.FnCeil:
		r = math.Ceil(x[0])
	default:
		return ir.Value{}, &evalError{n.Pos, fmt.Sprintf("cannot evaluate %s on the host", n.Fn)}
	}
	if n.T == ir.Float {
		r = float64(float32(r))
	}
	return ir.Value{T: n.T, F: r}, nil
}

// better reports whether v wins over best in a min (isMin) or a max: ties
// keep the first, as the evaluators do.
func better(isMin bool, v, best ir.Value) bool {
	if v.T.IsFloat() {
		if isMin {
			return v.F < best.F
		}
		return v.F > best.F
	}
	if isMin {
		return v.I < best.I
	}
	return v.I > best.I
}

func (h *hostEval) reduce(n *ir.Reduce) (ir.Value, error) {
	lo, err := h.eval(n.Lo)
	if err != nil {
		return ir.Value{}, err
	}
	hi, err := h.eval(n.Hi)
	if err != nil {
		return ir.Value{}, err
	}
	var acc ir.Value
	switch n.Op {
	case ir.ReduceMin:
		acc = infValue(n.T, false)
	case ir.ReduceMax:
		acc = infValue(n.T, true)
	default:
		acc = ir.Value{T: n.T}
	}
	if lo.I > hi.I {
		return acc, nil
	}
	if h.steps += hi.I - lo.I + 1; h.steps > maxHostSteps || hi.I-lo.I < 0 {
		return ir.Value{}, &evalError{n.Pos, fmt.Sprintf("the reduction runs over %d..%d: more values than a scalar is computed over on the host (at most %d)", lo.I, hi.I, int64(maxHostSteps))}
	}
	h.binds = append(h.binds, hostBind{r: n})
	defer func() { h.binds = h.binds[:len(h.binds)-1] }()
	for k := lo.I; ; k++ {
		h.binds[len(h.binds)-1].v = k
		v, err := h.eval(n.Body)
		if err != nil {
			return ir.Value{}, err
		}
		if v.T.IsFloat() && math.IsNaN(v.F) {
			return ir.Value{}, &evalError{n.Pos, fmt.Sprintf("the value is NaN (not a number) for %s = %d", n.Var.Name, k)}
		}
		switch {
		case n.Op != ir.ReduceSum:
			if better(n.Op == ir.ReduceMin, v, acc) {
				acc = v
			}
		case n.T.IsFloat():
			acc.F += v.F
			if n.T == ir.Float {
				acc.F = float64(float32(acc.F))
			}
		default:
			// One step of a sum: the + rule with inf, as at run time.
			r, f := ir.Arith(ir.OpAdd, n.T, true, acc.I, v.I)
			if f != ir.FaultNone {
				msg := faultText(f, ir.OpAdd, n.T, acc.I, v.I)
				if f == ir.FaultOverflow {
					msg = fmt.Sprintf("overflow: the sum reaches %d + %d, which does not fit %s (finite range ±%d)", acc.I, v.I, n.T, ir.ArithMax(n.T))
				}
				return ir.Value{}, &evalError{n.Pos, msg}
			}
			acc.I = r
		}
		if k == hi.I {
			return acc, nil
		}
	}
}
