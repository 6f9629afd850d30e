package eval

import (
	"math"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// This file is the interval analysis behind per-region specialisation: over
// a rectangle of the grid it bounds every integer expression, decides the
// conditions that are the same for every cell of the rectangle (i == 0 is
// false away from the first row) and proves the reads that cannot leave the
// grid or an input. A kernel compiled for those facts skips dead cases and
// bounds checks; the facts, in a fixed order, are the key under which the
// kernel is cached.

// ival is a range of int64 values: the ranges, and their arithmetic, are
// those of package analysis, which the code generator's analysis uses too.
type ival = analysis.Range

var fullRange = analysis.Full()

// tri is what is known of a condition over a region.
type tri uint8

const (
	triFalse   tri = 1
	triTrue    tri = 2
	triUnknown tri = 3
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func (t tri) not() tri {
	switch t {
	case triFalse:
		return triTrue
	case triTrue:
		return triFalse
	}
	return triUnknown
}

// facts are the analysis results a kernel is compiled for.
type facts struct {
	proven map[ir.Expr]bool // Load, CellRef: never outside
	safe   map[ir.Expr]bool // integer + - * and sum: never outside the finite range
	// sides says, for an integer + - * not safe, which end of the finite
	// range it may cross: sideUp, sideDown or both.
	sides map[ir.Expr]uint8
	known map[ir.Expr]tri // && and || left operands, ?: conditions
	cases []tri           // each case's condition (triTrue for otherwise)
}

// analyzer runs the interval analysis over one region.
type analyzer struct {
	rec       *Recurrence
	iLo, iHi  int64
	jLo, jHi  int64
	env       map[*ir.Reduce]ival
	stack     []*ir.Reduce
	sig       []byte
	rec2      *facts // when not nil, record the facts
	caseConds []tri
	// risky counts the operations seen that may stop the run with an
	// error (a read not proven inside, an unproven overflow, a divisor that
	// may be 0, a float converted to an integer): a condition whose
	// evaluation saw one is never decided statically, since deciding it
	// leaves it out of the kernel, and its error with it (decide).
	risky int
}

// decide is the truth of cond over the region when it is known and
// evaluating cond cannot fail; otherwise triUnknown, so that the kernel
// evaluates it as the reference evaluator does.
func (a *analyzer) decide(cond ir.Expr) tri {
	before := a.risky
	t := a.boolTri(cond)
	if a.risky != before {
		return triUnknown
	}
	return t
}

func (a *analyzer) resolve(v *ir.Var) *ir.Reduce {
	if v.Reduce != nil {
		return v.Reduce
	}
	for k := len(a.stack) - 1; k >= 0; k-- {
		if boundBy(v, a.stack[k]) {
			return a.stack[k]
		}
	}
	return nil
}

func (a *analyzer) noteProven(e ir.Expr, ok bool) {
	if !ok {
		a.risky++
	}
	a.sig = append(a.sig, byte(b2i(ok)))
	if a.rec2 != nil {
		a.rec2.proven[e] = ok
	}
}

// Which end of the finite range an operation may cross.
const (
	sideUp   uint8 = 1
	sideDown uint8 = 2
)

// noteSafe records whether an integer operation is proven to stay within
// the finite range, so that its kernel may leave the check out.
func (a *analyzer) noteSafe(e ir.Expr, ok bool) {
	a.noteSides(e, fullRange, ir.Int, ok)
}

// noteSides records the range r an integer operation of type t may reach:
// safe when within the finite range, else which ends it may cross.
func (a *analyzer) noteSides(e ir.Expr, r ival, t ir.Type, safe bool) {
	var side uint8
	if !safe {
		a.risky++
		if r.Hi > finiteMax(t) {
			side |= sideUp
		}
		if r.Lo < -finiteMax(t) {
			side |= sideDown
		}
	}
	a.sig = append(a.sig, side+9)
	if a.rec2 != nil {
		a.rec2.safe[e] = side == 0
		a.rec2.sides[e] = side
	}
}

// finiteRange is the range of finite values of integer type t.
func finiteRange(t ir.Type) ival {
	f := finiteMax(t)
	return ival{Lo: -f, Hi: f}
}

// clampFinite bounds the result of a checked operation: anything outside
// the finite range stops the run, so what follows never sees it.
func clampFinite(r ival, t ir.Type) ival {
	f := finiteRange(t)
	if c := r.Meet(f); !c.IsEmpty() || r.IsEmpty() {
		return c
	}
	// Certain to fail: the lanes of a batch hold whatever the failed
	// operation left, so nothing narrower than the type's range holds.
	return f
}

func (a *analyzer) noteTri(e ir.Expr, t tri) {
	a.sig = append(a.sig, byte(t)+2)
	if a.rec2 != nil {
		a.rec2.known[e] = t
	}
}

// intRange bounds an integer expression.
func (a *analyzer) intRange(e ir.Expr) ival {
	t := e.Type()
	switch n := e.(type) {
	case *ir.Const:
		return analysis.Point(constValue(n).I)
	case *ir.Inf:
		return analysis.Point(infValue(t, n.Neg).I)
	case *ir.ScalarRef:
		if n.Scalar.Value.T.IsFloat() {
			return fullRange
		}
		return analysis.Point(n.Scalar.Value.I)
	case *ir.Var:
		if r := a.resolve(n); r != nil {
			if v, ok := a.env[r]; ok {
				return v
			}
			return fullRange
		}
		switch n.Kind {
		case ir.VarI:
			return ival{Lo: a.iLo, Hi: a.iHi}
		case ir.VarJ:
			return ival{Lo: a.jLo, Hi: a.jHi}
		}
		return fullRange
	case *ir.Load:
		return a.loadRange(n)
	case *ir.CellRef:
		a.cellRef(n)
		return fullRange
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return boolRange(a.boolTri(n))
		}
		if classOf(t) != clInt {
			a.walkOther(n.X)
			return fullRange
		}
		return a.intRange(n.X).Neg()
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd, ir.OpOr, ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			return boolRange(a.boolTri(n))
		}
		x, y := a.intRange(n.X), a.intRange(n.Y)
		if n.Saturate {
			p, ng := sentinels(t)
			if x.Has(p) || x.Has(ng) || y.Has(p) || y.Has(ng) {
				if n.Op == ir.OpAdd || n.Op == ir.OpSub || n.Op == ir.OpMul {
					a.noteSafe(n, false)
				}
				return fullRange
			}
		}
		switch n.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul:
			if !n.Saturate {
				// Without Saturate both operands are finite values
				// (sema), and a checked operand never leaves the range.
				x, y = clampFinite(x, t), clampFinite(y, t)
			}
			var r ival
			switch n.Op {
			case ir.OpAdd:
				r = x.Add(y)
			case ir.OpSub:
				r = x.Sub(y)
			default:
				r = x.Mul(y)
			}
			safe := r.Within(-finiteMax(t), finiteMax(t))
			a.noteSides(n, r, t, safe)
			return clampFinite(r, t)
		case ir.OpDiv, ir.OpRem:
			if y.Has(0) || n.Saturate {
				a.risky++ // division by zero, or an undefined inf operation
			}
		}
		switch n.Op {
		case ir.OpDiv:
			return x.Quo(y)
		case ir.OpRem:
			return x.Rem(y)
		}
		return fullRange
	case *ir.Select:
		c := a.decide(n.Cond)
		a.noteTri(n, c)
		return choose(c, a.anyRange(n.Then), a.anyRange(n.Else), ival.Hull)
	case *ir.Convert:
		switch classOf(n.X.Type()) {
		case clBool:
			return boolRange(a.boolTri(n.X))
		case clFloat:
			a.walkOther(n.X)
			a.risky++ // NaN or a value outside the finite range
			return fullRange
		}
		x := a.intRange(n.X)
		from := n.X.Type()
		if from != t && hasSentinel(from) && hasSentinel(t) {
			p, ng := sentinels(from)
			if x.Has(p) || x.Has(ng) {
				return fullRange
			}
		}
		return x
	case *ir.Call:
		if classOf(t) != clInt {
			a.walkOther(n)
			return fullRange
		}
		switch n.Fn {
		case ir.FnMin, ir.FnMax:
			var r ival
			for k, x := range n.Args {
				v := a.intRange(x)
				switch {
				case k == 0:
					r = v
				case n.Fn == ir.FnMin:
					r = r.Min(v)
				default:
					r = r.Max(v)
				}
			}
			return r
		case ir.FnAbs:
			return a.intRange(n.Args[0]).Abs()
		}
		for _, x := range n.Args {
			a.anyRange(x)
		}
		return fullRange
	case *ir.Reduce:
		lo, hi := a.intRange(n.Lo), a.intRange(n.Hi)
		a.env[n] = analysis.Span(lo.Lo, hi.Hi)
		a.stack = append(a.stack, n)
		var body ival
		if classOf(n.Body.Type()) == clInt {
			body = a.intRange(n.Body)
		} else {
			a.walkOther(n.Body)
			body = fullRange
		}
		a.stack = a.stack[:len(a.stack)-1]
		delete(a.env, n)
		if classOf(t) != clInt {
			return fullRange
		}
		if n.Op == ir.ReduceSum {
			// At most hi - lo + 1 terms, each within body, and 0 when empty.
			r := fullRange
			if cnt, ok := ir.Sub64(hi.Hi, lo.Lo); ok && cnt < math.MaxInt64 {
				r = analysis.Point(0).Hull(analysis.Span(0, max(cnt+1, 0)).Mul(body))
			}
			safe := r.Within(-finiteMax(t), finiteMax(t))
			a.noteSafe(n, safe)
			return clampFinite(r, t)
		}
		if lo.Hi > hi.Lo { // the range may be empty
			body = body.Hull(analysis.Point(identityInt(n.Op, t)))
		}
		return body
	}
	return fullRange
}

// choose is what c ? x : y is known to be over the region: the branch c
// decides, else what join says of both.
func choose[T any](c tri, x, y T, join func(T, T) T) T {
	switch c {
	case triTrue:
		return x
	case triFalse:
		return y
	}
	return join(x, y)
}

// joinTri is what is known of a condition that is x or y.
func joinTri(x, y tri) tri {
	if x == y {
		return x
	}
	return triUnknown
}

func boolRange(t tri) ival {
	switch t {
	case triFalse:
		return analysis.Point(0)
	case triTrue:
		return analysis.Point(1)
	}
	return ival{Lo: 0, Hi: 1}
}

// anyRange bounds e if it is an integer and walks it otherwise.
func (a *analyzer) anyRange(e ir.Expr) ival {
	switch classOf(e.Type()) {
	case clInt:
		return a.intRange(e)
	case clBool:
		return boolRange(a.boolTri(e))
	}
	a.walkOther(e)
	return fullRange
}

// walkOther visits a floating expression for the reads and conditions
// inside it.
func (a *analyzer) walkOther(e ir.Expr) {
	switch n := e.(type) {
	case *ir.Load:
		a.loadRange(n)
	case *ir.CellRef:
		a.cellRef(n)
	case *ir.Unary:
		a.anyRange(n.X)
	case *ir.Binary:
		if n.Op == ir.OpAnd || n.Op == ir.OpOr {
			a.boolTri(n)
			return
		}
		a.anyRange(n.X)
		a.anyRange(n.Y)
	case *ir.Select:
		a.noteTri(n, a.decide(n.Cond))
		a.anyRange(n.Then)
		a.anyRange(n.Else)
	case *ir.Convert:
		a.anyRange(n.X)
	case *ir.Call:
		for _, x := range n.Args {
			a.anyRange(x)
		}
	case *ir.Reduce:
		lo, hi := a.intRange(n.Lo), a.intRange(n.Hi)
		a.env[n] = analysis.Span(lo.Lo, hi.Hi)
		a.stack = append(a.stack, n)
		a.anyRange(n.Body)
		a.stack = a.stack[:len(a.stack)-1]
		delete(a.env, n)
	}
}

func (a *analyzer) loadRange(n *ir.Load) ival {
	idx := make([]ival, len(n.Index))
	for k, x := range n.Index {
		idx[k] = a.intRange(x)
	}
	in := n.In
	ok := false
	if len(idx) == 1 {
		ok = idx[0].Within(0, int64(in.Len())-1)
	} else if len(idx) == 2 {
		ok = idx[0].Within(0, int64(in.Rows)-1) && idx[1].Within(0, int64(in.Cols)-1)
	}
	a.noteProven(n, ok)
	if in.T.IsFloat() {
		return fullRange
	}
	if ok && idx[0].IsPoint() && idx[len(idx)-1].IsPoint() {
		k, _ := loadIndex(in, []int64{idx[0].Lo, idx[len(idx)-1].Lo})
		if len(idx) == 1 {
			k = idx[0].Lo
		}
		return analysis.Point(in.I[k])
	}
	return a.rec.inputRange(in)
}

func (a *analyzer) cellRef(n *ir.CellRef) {
	i, j := a.intRange(n.I), a.intRange(n.J)
	p := a.rec.p
	a.noteProven(n, i.Within(0, p.Rows-1) && j.Within(0, p.Cols-1))
}

// boolTri decides a condition over the region when it can.
func (a *analyzer) boolTri(e ir.Expr) tri {
	switch n := e.(type) {
	case *ir.Const:
		return triOf(n.V.I != 0 || n.V.F != 0)
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return a.boolTri(n.X).not()
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd, ir.OpOr:
			x := a.decide(n.X)
			a.noteTri(n, x)
			y := a.boolTri(n.Y)
			if n.Op == ir.OpAnd {
				switch {
				case x == triFalse || y == triFalse:
					return triFalse
				case x == triTrue:
					return y
				case y == triTrue:
					return x
				}
				return triUnknown
			}
			switch {
			case x == triTrue || y == triTrue:
				return triTrue
			case x == triFalse:
				return y
			case y == triFalse:
				return x
			}
			return triUnknown
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			if classOf(n.X.Type()) == clFloat || classOf(n.Y.Type()) == clFloat {
				a.anyRange(n.X)
				a.anyRange(n.Y)
				return triUnknown
			}
			return compareTri(n.Op, a.intRange(n.X), a.intRange(n.Y))
		}
	case *ir.Select:
		c := a.decide(n.Cond)
		a.noteTri(n, c)
		return choose(c, a.boolTri(n.Then), a.boolTri(n.Else), joinTri)
	case *ir.Convert:
		if classOf(n.X.Type()) == clInt {
			r := a.intRange(n.X)
			switch {
			case r == analysis.Point(0):
				return triFalse
			case !r.Has(0):
				return triTrue
			}
			return triUnknown
		}
	}
	a.anyRange(e)
	return triUnknown
}

func compareTri(op ir.Op, x, y ival) tri {
	switch op {
	case ir.OpEq, ir.OpNe:
		t := triUnknown
		if x.IsPoint() && y.IsPoint() && x.Lo == y.Lo {
			t = triTrue
		} else if x.Hi < y.Lo || y.Hi < x.Lo {
			t = triFalse
		}
		if op == ir.OpNe {
			return t.not()
		}
		return t
	case ir.OpLt:
		if x.Hi < y.Lo {
			return triTrue
		}
		if x.Lo >= y.Hi {
			return triFalse
		}
	case ir.OpLe:
		if x.Hi <= y.Lo {
			return triTrue
		}
		if x.Lo > y.Hi {
			return triFalse
		}
	case ir.OpGt:
		return compareTri(ir.OpLt, y, x)
	case ir.OpGe:
		return compareTri(ir.OpLe, y, x)
	}
	return triUnknown
}

// analyze runs the analysis of the recurrence's cases over rows iLo..iHi,
// columns jLo..jHi, appending the signature to sig.
func (a *analyzer) analyze() {
	a.caseConds = a.caseConds[:0]
	for _, c := range a.rec.p.Cases {
		t := triTrue
		if c.Cond != nil {
			t = a.decide(c.Cond)
		}
		a.caseConds = append(a.caseConds, t)
		a.sig = append(a.sig, byte(t)+5)
		a.anyRange(c.Value)
	}
}
