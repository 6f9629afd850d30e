package codegen

import (
	"math"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// ival is a closed integer interval [lo, hi]. The zero value is unknown
// (every int64); empty marks a range with no value (an unreachable case).
// The generator uses intervals to prove reads in bounds and int and long
// arithmetic inside the finite range (docs/language.md §6.1), so that it can
// leave out checks in the hot loops. Every claim must hold for every value a
// computation can produce, including what a failed operation leaves behind
// (an overflow wraps within the type; the inf rules give an operand or 0):
// the run then stops with an error, but the launch goes on, and a read
// proved in bounds must stay in bounds.
type ival struct {
	lo, hi int64
	known  bool
	empty  bool
}

func point(v int64) ival     { return ival{lo: v, hi: v, known: true} }
func span(lo, hi int64) ival { return ival{lo: lo, hi: hi, known: true, empty: lo > hi} }
func (a ival) within(lo, hi int64) bool {
	return a.empty || (a.known && a.lo >= lo && a.hi <= hi)
}
func (a ival) has(v int64) bool { return !a.empty && (!a.known || (a.lo <= v && v <= a.hi)) }

// emptyIval is the range of an expression never evaluated.
var emptyIval = ival{known: true, empty: true}

// rng is a as an analysis.Range, whose arithmetic the interval operations
// below use: unknown is every int64.
func (a ival) rng() analysis.Range {
	switch {
	case a.empty:
		return analysis.Empty()
	case !a.known:
		return analysis.Full()
	}
	return analysis.Range{Lo: a.lo, Hi: a.hi}
}

// fromRng is the ival of r: every int64 is unknown.
func fromRng(r analysis.Range) ival {
	switch {
	case r.IsEmpty():
		return emptyIval
	case r.IsFull():
		return ival{}
	}
	return span(r.Lo, r.Hi)
}

// typeRange is every value an integer type can hold.
func typeRange(t ir.Type) ival {
	switch {
	case t == ir.Char:
		// Char data may be signed bytes or the codes 128..255.
		return span(-128, 255)
	case t.IsInteger() && t.Size() < 8:
		in := t.Info()
		return span(in.Min, in.Max)
	}
	return ival{}
}

// clampType keeps a result within what type t can hold: a value outside it
// has wrapped (or was reported as an overflow), so any value of t is possible.
func clampType(a ival, t ir.Type) ival {
	if a.empty {
		return a
	}
	r := typeRange(t)
	if !r.known {
		return a
	}
	if !a.known || a.lo < r.lo || a.hi > r.hi {
		return r
	}
	return a
}

func hull(a, b ival) ival {
	if (!a.known && !b.empty) || (!b.known && !a.empty) {
		return ival{}
	}
	return fromRng(a.rng().Hull(b.rng()))
}

func meet(a, b ival) ival { return fromRng(a.rng().Meet(b.rng())) }

// mul64 is a * b, ok false on int64 overflow.
func mul64(a, b int64) (int64, bool) { return ir.Mul64(a, b) }

// binary applies op to known operands; an empty operand gives empty and an
// unknown one unknown.
func binary(a, b ival, op func(x, y analysis.Range) analysis.Range) ival {
	switch {
	case a.empty || b.empty:
		return emptyIval
	case !a.known || !b.known:
		return ival{}
	}
	return fromRng(op(a.rng(), b.rng()))
}

func ivAdd(a, b ival) ival { return binary(a, b, analysis.Range.Add) }
func ivMul(a, b ival) ival { return binary(a, b, analysis.Range.Mul) }

func ivNeg(a ival) ival {
	if !a.known {
		return a
	}
	return fromRng(a.rng().Neg())
}

// ivDivRem handles x / c and x % c for a positive constant c; anything else
// is unknown.
func ivDivRem(op ir.Op, a, b ival) ival {
	if !a.empty && !b.empty && (!b.known || b.lo != b.hi || b.lo <= 0) {
		return ival{}
	}
	if op == ir.OpDiv {
		return binary(a, b, analysis.Range.Quo)
	}
	return binary(a, b, analysis.Range.Rem)
}

// env is what is known about the index variables at a point of the
// recurrence: the grid's ranges narrowed by the conditions that must hold
// there (earlier cases false, the current case true, the left operand of &&
// true, ...).
type env struct {
	i, j  ival
	red   []redRange
	empty bool
	// cells bounds every cell value when hasCells (see inferCellRange);
	// otherwise cells may hold any value of the cell type.
	cells    ival
	hasCells bool
}

type redRange struct {
	r  *ir.Reduce
	iv ival
}

func (e env) withRed(r *ir.Reduce, iv ival) env {
	red := make([]redRange, len(e.red), len(e.red)+1)
	copy(red, e.red)
	e.red = append(red, redRange{r, iv})
	return e
}

// bound reports whether Var v is the variable of reduction r (sema may share
// the *ir.Var or point Var.Reduce at its reduction).
func bound(v *ir.Var, r *ir.Reduce) bool {
	return v == r.Var || (v.Reduce != nil && v.Reduce == r)
}

func (e env) lookup(v *ir.Var) ival {
	switch v.Kind {
	case ir.VarI:
		return e.i
	case ir.VarJ:
		return e.j
	}
	for k := len(e.red) - 1; k >= 0; k-- {
		if bound(v, e.red[k].r) {
			return e.red[k].iv
		}
	}
	return ival{}
}

func (e env) set(v *ir.Var, iv ival) env {
	if iv.empty {
		e.empty = true
	}
	switch v.Kind {
	case ir.VarI:
		e.i = iv
		return e
	case ir.VarJ:
		e.j = iv
		return e
	}
	for k := len(e.red) - 1; k >= 0; k-- {
		if bound(v, e.red[k].r) {
			red := make([]redRange, len(e.red))
			copy(red, e.red)
			red[k].iv = iv
			e.red = red
			return e
		}
	}
	return e
}

func envHull(a, b env) env {
	switch {
	case a.empty:
		return b
	case b.empty:
		return a
	}
	r := env{i: hull(a.i, b.i), j: hull(a.j, b.j), cells: a.cells, hasCells: a.hasCells}
	for k := range a.red {
		iv := a.red[k].iv
		if k < len(b.red) && b.red[k].r == a.red[k].r {
			iv = hull(iv, b.red[k].iv)
		} else {
			iv = ival{}
		}
		r.red = append(r.red, redRange{a.red[k].r, iv})
	}
	return r
}

// rangeOf bounds the integer value of e in env. Floating expressions are
// unknown.
func rangeOf(e ir.Expr, en env) ival {
	if en.empty {
		return ival{known: true, empty: true}
	}
	t := e.Type()
	if t.IsFloat() {
		return ival{}
	}
	var r ival
	switch n := e.(type) {
	case *ir.Const:
		if n.V.T.IsFloat() {
			return typeRange(t)
		}
		r = point(n.V.I)
	case *ir.ScalarRef:
		if n.Scalar.Value.T.IsFloat() {
			return typeRange(t)
		}
		r = point(n.Scalar.Value.I)
	case *ir.Inf:
		p, ng := ir.InfSentinel(t)
		if n.Neg {
			r = point(ng)
		} else {
			r = point(p)
		}
	case *ir.Var:
		r = en.lookup(n)
	case *ir.Load:
		r = typeRange(t)
	case *ir.CellRef:
		r = typeRange(t)
		if en.hasCells {
			r = en.cells
		}
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return span(0, 1)
		}
		r = ivNeg(rangeOf(n.X, en))
	case *ir.Binary:
		switch n.Op {
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe, ir.OpAnd, ir.OpOr:
			return span(0, 1)
		}
		x, y := rangeOf(n.X, en), rangeOf(n.Y, en)
		switch n.Op {
		case ir.OpAdd:
			r = ivAdd(x, y)
			if n.Saturate && !r.empty {
				// inf + x is inf: the result is the sum or an operand.
				r = hull(r, hull(x, y))
			}
		case ir.OpSub:
			r = ivAdd(x, ivNeg(y))
			if n.Saturate && !r.empty {
				p, ng := ir.InfSentinel(t)
				r = hull(r, hull(x, span(ng, p)))
			}
		case ir.OpMul:
			// inf * x is ±inf: as extreme as the product of the sentinel
			// and x (|x| >= 1), so within the hull of the products.
			r = ivMul(x, y)
		case ir.OpDiv, ir.OpRem:
			r = ivDivRem(n.Op, x, y)
			if n.Saturate && !r.empty && r.known {
				// inf / c is inf, not the sentinel divided by c; a failed
				// inf % c gives 0.
				r = hull(r, hull(x, point(0)))
			}
		}
	case *ir.Select:
		r = hull(rangeOf(n.Then, refine(n.Cond, true, en)), rangeOf(n.Else, refine(n.Cond, false, en)))
	case *ir.Convert:
		x := n.X.Type()
		if x.IsFloat() {
			return typeRange(t)
		}
		r = rangeOf(n.X, en)
		if t == ir.Bool {
			return span(0, 1)
		}
		// short, int and long map the inf sentinels onto each other.
		if x.HasInf() && t.HasInf() && x != t {
			p, ng := ir.InfSentinel(x)
			if r.has(p) || r.has(ng) {
				r = ival{}
			}
		}
	case *ir.Call:
		switch n.Fn {
		case ir.FnMin, ir.FnMax:
			op := analysis.Range.Min
			if n.Fn == ir.FnMax {
				op = analysis.Range.Max
			}
			for k, a := range n.Args {
				v := rangeOf(a, en)
				if k == 0 {
					r = v
				} else {
					r = binary(r, v, op)
				}
			}
		case ir.FnAbs:
			r = fromRng(rangeOf(n.Args[0], en).rng().Abs())
		default:
			r = typeRange(t)
		}
	case *ir.Reduce:
		if n.Op == ir.ReduceSum {
			r = ival{}
			break
		}
		body := rangeOf(n.Body, en.withRed(n, hull(rangeOf(n.Lo, en), rangeOf(n.Hi, en))))
		p, ng := ir.InfSentinel(t)
		if n.Op == ir.ReduceMin {
			r = hull(body, point(p))
		} else {
			r = hull(body, point(ng))
		}
	default:
		r = ival{}
	}
	return clampType(r, t)
}

// refine narrows env by the knowledge that cond evaluated to truth. It
// understands comparisons of an index variable with an expression of known
// range, and &&, || and ! of those; anything else leaves env as it is.
func refine(cond ir.Expr, truth bool, en env) env {
	if en.empty {
		return en
	}
	switch n := cond.(type) {
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return refine(n.X, !truth, en)
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd:
			if truth {
				return refine(n.Y, true, refine(n.X, true, en))
			}
			// !(x && y): x false, or x true and y false.
			return envHull(refine(n.X, false, en), refine(n.Y, false, refine(n.X, true, en)))
		case ir.OpOr:
			if !truth {
				return refine(n.Y, false, refine(n.X, false, en))
			}
			return envHull(refine(n.X, true, en), refine(n.Y, true, refine(n.X, false, en)))
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			op := n.Op
			if !truth {
				op = negate(op)
			}
			if v, ok := varOf(n.X); ok {
				en = compareVar(en, v, op, rangeOf(n.Y, en))
			}
			if v, ok := varOf(n.Y); ok {
				en = compareVar(en, v, mirror(op), rangeOf(n.X, en))
			}
			return en
		}
	}
	return en
}

// varOf sees through integer conversions to an index variable.
func varOf(e ir.Expr) (*ir.Var, bool) {
	for {
		switch n := e.(type) {
		case *ir.Var:
			return n, true
		case *ir.Convert:
			if !n.T.IsInteger() || !n.X.Type().IsInteger() || n.T == ir.Bool {
				return nil, false
			}
			e = n.X
		default:
			return nil, false
		}
	}
}

func negate(op ir.Op) ir.Op {
	return map[ir.Op]ir.Op{ir.OpEq: ir.OpNe, ir.OpNe: ir.OpEq, ir.OpLt: ir.OpGe, ir.OpGe: ir.OpLt, ir.OpGt: ir.OpLe, ir.OpLe: ir.OpGt}[op]
}

// mirror turns `x op v` into `v op' x`.
func mirror(op ir.Op) ir.Op {
	return map[ir.Op]ir.Op{ir.OpEq: ir.OpEq, ir.OpNe: ir.OpNe, ir.OpLt: ir.OpGt, ir.OpGt: ir.OpLt, ir.OpLe: ir.OpGe, ir.OpGe: ir.OpLe}[op]
}

// compareVar narrows v by `v op other`.
func compareVar(en env, v *ir.Var, op ir.Op, other ival) env {
	cur := en.lookup(v)
	if !cur.known || cur.empty || !other.known || other.empty {
		return en
	}
	var nv ival
	switch op {
	case ir.OpEq:
		nv = meet(cur, other)
	case ir.OpNe:
		nv = cur
		if other.lo == other.hi {
			switch other.lo {
			case cur.lo:
				nv = span(cur.lo+1, cur.hi)
			case cur.hi:
				nv = span(cur.lo, cur.hi-1)
			}
		}
	case ir.OpLt:
		nv = meet(cur, span(math.MinInt64, other.hi-1))
	case ir.OpLe:
		nv = meet(cur, span(math.MinInt64, other.hi))
	case ir.OpGt:
		nv = meet(cur, span(other.lo+1, math.MaxInt64))
	case ir.OpGe:
		nv = meet(cur, span(other.lo, math.MaxInt64))
	default:
		return en
	}
	return en.set(v, nv)
}
