package analysis

import (
	"math"
	"slices"

	"github.com/dpgpu/dpgpu/ir"
)

// This file is the range analysis of ir expressions: the one walker the CPU
// compiler (per tile or batch, to specialise its kernels) and the code
// generator (to leave checks out of the generated CUDA) both run. Over the
// ranges of i and j (an Env) it bounds every integer expression, decides the
// conditions whose value it knows, proves reads inside the grid and the
// inputs and integer operations within the finite range, and reports those
// facts to a Recorder.

// Tri is what is known of a condition.
type Tri uint8

const (
	False   Tri = 1
	True    Tri = 2
	Unknown Tri = 3
)

// TriOf is the Tri of a known truth.
func TriOf(b bool) Tri {
	if b {
		return True
	}
	return False
}

// Not is what is known of the negation.
func (t Tri) Not() Tri {
	switch t {
	case False:
		return True
	case True:
		return False
	}
	return Unknown
}

// Failure is what a failed integer operation (an overflow, an operation
// on inf the rules leave undefined) leaves to the expressions after it.
type Failure uint8

const (
	// Stops: a failed operation stops the run, so what follows a checked
	// operation never sees a value outside the finite range (the CPU
	// evaluator and its compiled kernels).
	Stops Failure = iota
	// Wraps: a failed operation is reported, but the computation goes on
	// with what it left, wrapped within its type (the generated CUDA): a
	// claim must hold for those values too.
	Wraps
)

// Recorder receives the facts the walker proves, in a fixed order for a
// given recurrence: a user may key what it compiles on the sequence.
type Recorder interface {
	// Proven: a Load or CellRef is (ok) or may not be inside its input
	// or the grid.
	Proven(e ir.Expr, ok bool)
	// Sides: an integer + - * (or sum) may reach r, of type t; safe when
	// it is proven within the finite range.
	Sides(e ir.Expr, r Range, t ir.Type, safe bool)
	// Known: what is known of the condition of a ?: and of the left
	// operand of && and ||, which e is.
	Known(e ir.Expr, t Tri)
}

// Config parameterises the walker.
type Config struct {
	Failure Failure
	// Rows and Cols are the grid's extent, against which cell
	// references are proven.
	Rows, Cols int64
	// Input, when not nil, bounds the value of a read of an integer
	// input whose indices lie in idx (inside: proven within the input).
	// Without it a read may give any value of its type.
	Input func(n *ir.Load, idx []Range, inside bool) Range
	// Refine narrows the ranges of the index variables under the
	// conditions that must hold (the branches of ?:, the right operand of
	// && and ||) as well as deciding them.
	Refine bool
	// Rec, when not nil, receives the facts.
	Rec Recorder
}

// Env is what is known at a point of the recurrence: the ranges of i and
// j, of the reduction variables in scope, and of a cell's value.
type Env struct {
	I, J Range
	// Cells bounds the value of every cell read; Full() when nothing is
	// known beyond the cell type.
	Cells Range
	red   []redRange
	rel   []relFact
	empty bool
}

// relFact records that v - e lies in r, where v is an index variable and
// e an expression with no side effect (the other side of a comparison
// assumed): the one relation between two unknowns that intervals lose,
// and the one bounds of references need. Under `wt[i-1] <= w`, `w -
// wt[i-1] >= 0` holds whatever wt holds.
type relFact struct {
	v *ir.Var
	e ir.Expr
	r Range
	// rem, when not 0, makes the fact one of v % rem instead (e nil):
	// under `j % 7 != 0`, j % 7 - 1 >= 0 — a 3-D grid's j is J % C of
	// the column variable J (sema's lowering), and its guard reads it.
	rem int64
	// holes are values v - e is known not to take (under `i != j`): a
	// range that reaches one later is cut short of it.
	holes []int64
}

// trim cuts f's range short of its holes.
func (f relFact) trim() relFact {
	for again := true; again && !f.r.IsEmpty(); {
		again = false
		for _, h := range f.holes {
			switch {
			case f.r.Lo == h && h != math.MaxInt64:
				f.r.Lo, again = h+1, true
			case f.r.Hi == h && h != math.MinInt64:
				f.r.Hi, again = h-1, true
			}
		}
	}
	return f
}

type redRange struct {
	r *ir.Reduce
	v Range
}

// NewEnv is the Env of i in i and j in j.
func NewEnv(i, j Range) Env {
	return Env{I: i, J: j, Cells: Full(), empty: i.IsEmpty() || j.IsEmpty()}
}

// IsEmpty reports whether the point the Env describes is never reached.
func (e Env) IsEmpty() bool { return e.empty }

// WithCells is e with every cell value in c.
func (e Env) WithCells(c Range) Env {
	e.Cells = c
	return e
}

// WithRed is e inside reduction r, whose variable ranges over v.
func (e Env) WithRed(r *ir.Reduce, v Range) Env {
	red := make([]redRange, len(e.red), len(e.red)+1)
	copy(red, e.red)
	e.red = append(red, redRange{r, v})
	return e
}

// Lookup is the range of index variable v.
func (e Env) Lookup(v *ir.Var) Range {
	for k := len(e.red) - 1; k >= 0; k-- {
		if v.BoundBy(e.red[k].r) {
			return e.red[k].v
		}
	}
	if v.Reduce == nil {
		switch v.Kind {
		case ir.VarI:
			return e.I
		case ir.VarJ:
			return e.J
		}
	}
	return Full()
}

// set is e with v's range r.
func (e Env) set(v *ir.Var, r Range) Env {
	if r.IsEmpty() {
		e.empty = true
	}
	for k := len(e.red) - 1; k >= 0; k-- {
		if v.BoundBy(e.red[k].r) {
			red := make([]redRange, len(e.red))
			copy(red, e.red)
			red[k].v = r
			e.red = red
			return e
		}
	}
	if v.Reduce == nil {
		switch v.Kind {
		case ir.VarI:
			e.I = r
		case ir.VarJ:
			e.J = r
		}
	}
	return e
}

// envHull is what holds at a point reached with a or with b.
func envHull(a, b Env) Env {
	switch {
	case a.empty:
		return b
	case b.empty:
		return a
	}
	r := Env{I: a.I.Hull(b.I), J: a.J.Hull(b.J), Cells: a.Cells}
	for k := range a.red {
		v := Full()
		if k < len(b.red) && b.red[k].r == a.red[k].r {
			v = a.red[k].v.Hull(b.red[k].v)
		}
		r.red = append(r.red, redRange{a.red[k].r, v})
	}
	for _, f := range a.rel {
		for _, g := range b.rel {
			if !f.sameKey(g) {
				continue
			}
			h := relFact{v: f.v, e: f.e, r: f.r.Hull(g.r), rem: f.rem}
			for _, x := range f.holes {
				if slices.Contains(g.holes, x) {
					h.holes = append(h.holes, x)
				}
			}
			if !h.r.IsFull() || len(h.holes) > 0 {
				r.rel = append(r.rel, h)
			}
		}
	}
	return r
}

// relOf is what is known of v - e.
func (e Env) relOf(v *ir.Var, x ir.Expr) (Range, bool) {
	for _, f := range e.rel {
		if f.sameKey(relFact{v: v, e: x}) {
			return f.r, true
		}
	}
	return Full(), false
}

// sameKey reports whether f and g are facts of one quantity (v - e, or
// v % rem).
func (f relFact) sameKey(g relFact) bool {
	return f.rem == g.rem && sameVar(f.v, g.v) && (f.rem != 0 || sameExpr(f.e, g.e))
}

// values is what f allows its quantity: its range short of its holes,
// within 0..rem-1 for a remainder.
func (f relFact) values() Range {
	if f.rem != 0 {
		f.r = f.r.Meet(Span(0, f.rem-1))
	}
	return f.trim().r
}

// with is e knowing nf as well, merged with what e knew of its quantity.
func (e Env) with(nf relFact) Env {
	rel := make([]relFact, 0, len(e.rel)+1)
	for _, f := range e.rel {
		if f.sameKey(nf) {
			nf.r = nf.r.Meet(f.r)
			nf.holes = append(slices.Clip(nf.holes), f.holes...)
			continue
		}
		rel = append(rel, f)
	}
	nf = nf.trim()
	if nf.values().IsEmpty() {
		e.empty = true
	}
	e.rel = append(rel, nf)
	return e
}

// withRel is e knowing that v - x lies in r as well.
func (e Env) withRel(v *ir.Var, x ir.Expr, r Range, holes ...int64) Env {
	return e.with(relFact{v: v, e: x, r: r, holes: holes})
}

// withRem is e knowing that v % c lies in r (and is none of holes).
func (e Env) withRem(v *ir.Var, c int64, r Range, holes ...int64) Env {
	return e.with(relFact{v: v, r: r, holes: holes, rem: c})
}

// remOf is what is known of v % c for v >= 0 and c > 0: within 0..c-1,
// narrowed by the facts of en and short of their holes.
func (e Env) remOf(v *ir.Var, c int64) Range {
	for _, f := range e.rel {
		if f.sameKey(relFact{v: v, rem: c}) {
			return f.values()
		}
	}
	return Span(0, c-1)
}

// Walker runs the range analysis. It is not safe for concurrent use; the
// zero Walker with its Config set is ready, and a Walker may be reused.
type Walker struct {
	Config
	// risky counts the operations seen that may fail (a read not proven
	// inside, an unproven overflow, a divisor that may be 0, a float
	// converted to an integer): a condition whose evaluation saw one is
	// never decided, since a user that leaves a decided condition out of
	// its code leaves its error out with it (Decide).
	risky int
	idx   []Range
	buf   []redRange
}

// Range bounds the integer (or boolean) value of e in en; for a floating
// e it is Full(). It walks all of e, reporting the facts to Rec.
func (w *Walker) Range(e ir.Expr, en Env) Range {
	if en.empty {
		return Empty()
	}
	return w.anyRange(e, en)
}

// Walk visits e for the facts inside it.
func (w *Walker) Walk(e ir.Expr, en Env) { w.Range(e, en) }

// Decide is the truth of cond in en when it is known and evaluating cond
// cannot fail; otherwise Unknown, so that the user evaluates it as the
// reference evaluator does.
func (w *Walker) Decide(cond ir.Expr, en Env) Tri {
	before := w.risky
	t := w.boolTri(cond, en)
	if w.risky != before {
		return Unknown
	}
	return t
}

func (w *Walker) proven(e ir.Expr, ok bool) {
	if !ok {
		w.risky++
	}
	if w.Rec != nil {
		w.Rec.Proven(e, ok)
	}
}

func (w *Walker) sides(e ir.Expr, r Range, t ir.Type, safe bool) {
	if !safe {
		w.risky++
	}
	if w.Rec != nil {
		w.Rec.Sides(e, r, t, safe)
	}
}

func (w *Walker) known(e ir.Expr, t Tri) {
	if w.Rec != nil {
		w.Rec.Known(e, t)
	}
}

// finite is the range of finite values of integer type t.
func finite(t ir.Type) Range {
	f := ir.ArithMax(t)
	return Range{-f, f}
}

// clampFinite bounds the result of a checked operation when a failure
// stops the run: anything outside the finite range never reaches what
// follows.
func clampFinite(r Range, t ir.Type) Range {
	f := finite(t)
	if c := r.Meet(f); !c.IsEmpty() || r.IsEmpty() {
		return c
	}
	// Certain to fail: the lanes of a batch hold whatever the failed
	// operation left, so nothing narrower than the type's range holds.
	return f
}

// typeRange is every value an integer type can hold (Full for long).
func typeRange(t ir.Type) Range {
	switch {
	case t == ir.Char:
		// Char data may be signed bytes or the codes 128..255.
		return Range{-128, 255}
	case t.IsInteger() && t.Size() < 8:
		in := t.Info()
		return Range{in.Min, in.Max}
	}
	return Full()
}

// clampType keeps a result within what type t can hold when failures
// wrap: a value outside it has wrapped, so any value of t is possible.
func clampType(r Range, t ir.Type) Range {
	if r.IsEmpty() {
		return r
	}
	tr := typeRange(t)
	if !r.Within(tr.Lo, tr.Hi) {
		return tr
	}
	return r
}

type class = ir.Class

const (
	clInt   = ir.ClassInt   // int64 (char, short, int, long)
	clBool  = ir.ClassBool  // Go bool
	clFloat = ir.ClassFloat // float64 (float rounded to float32)
)

func classOf(t ir.Type) class { return t.Class() }

func boolRange(t Tri) Range {
	switch t {
	case False:
		return Point(0)
	case True:
		return Point(1)
	}
	return Range{0, 1}
}

// choose is what c ? x : y is known to be: the branch c decides, else
// what join says of both.
func choose[T any](c Tri, x, y T, join func(T, T) T) T {
	switch c {
	case True:
		return x
	case False:
		return y
	}
	return join(x, y)
}

func joinTri(x, y Tri) Tri {
	if x == y {
		return x
	}
	return Unknown
}

// anyRange bounds e if it is an integer or boolean and walks it otherwise.
func (w *Walker) anyRange(e ir.Expr, en Env) Range {
	switch classOf(e.Type()) {
	case clInt:
		return w.intRange(e, en)
	case clBool:
		return boolRange(w.boolTri(e, en))
	}
	w.walkOther(e, en)
	return Full()
}

// branches are the Envs of the branches of cond ? : (and of the right
// operand of && and ||).
func (w *Walker) branches(cond ir.Expr, en Env) (t, f Env) {
	if !w.Refine {
		return en, en
	}
	return w.Assume(cond, true, en), w.Assume(cond, false, en)
}

// intRange bounds an integer expression.
func (w *Walker) intRange(e ir.Expr, en Env) Range {
	if en.empty {
		return Empty()
	}
	r := w.intRange0(e, en)
	if w.Failure == Wraps {
		r = clampType(r, e.Type())
	}
	return r
}

func (w *Walker) intRange0(e ir.Expr, en Env) Range {
	t := e.Type()
	switch n := e.(type) {
	case *ir.Const:
		if v, ok := constInt(n); ok {
			return Point(v)
		}
		return Full()
	case *ir.Inf:
		p, ng := ir.ArithSentinels(t)
		if n.Neg {
			return Point(ng)
		}
		return Point(p)
	case *ir.ScalarRef:
		if n.Scalar.Value.T.IsFloat() {
			return Full()
		}
		return Point(n.Scalar.Value.I)
	case *ir.Var:
		return en.Lookup(n)
	case *ir.Load:
		return w.load(n, en)
	case *ir.CellRef:
		w.cellRef(n, en)
		return en.Cells
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return boolRange(w.boolTri(n, en))
		}
		if classOf(t) != clInt {
			w.walkOther(n.X, en)
			return Full()
		}
		return w.intRange(n.X, en).Neg()
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd, ir.OpOr, ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			return boolRange(w.boolTri(n, en))
		}
		x, y := w.intRange(n.X, en), w.intRange(n.Y, en)
		var r Range
		if w.Failure == Wraps {
			r = w.arithWraps(n, x, y)
		} else {
			r = w.arithStops(n, x, y)
		}
		switch n.Op {
		case ir.OpSub:
			r = w.relRange(n, x, y, r, en)
			r = w.quotientDiff(n, x, y, r, en)
		case ir.OpMul:
			r = w.quotientProduct(n, x, y, r, en)
		case ir.OpRem:
			if v, c, ok := remainderVar(n); ok && x.Lo >= 0 {
				if m := r.Meet(en.remOf(v, c)); !m.IsEmpty() {
					r = m
				}
			}
		}
		return r
	case *ir.Select:
		c := w.Decide(n.Cond, en)
		w.known(n, c)
		te, fe := w.branches(n.Cond, en)
		return choose(c, w.anyRange(n.Then, te), w.anyRange(n.Else, fe), Range.Hull)
	case *ir.Convert:
		switch classOf(n.X.Type()) {
		case clBool:
			return boolRange(w.boolTri(n.X, en))
		case clFloat:
			w.walkOther(n.X, en)
			w.risky++ // NaN or a value outside the finite range
			return Full()
		}
		x := w.intRange(n.X, en)
		from := n.X.Type()
		if from != t && from.HasInf() && t.HasInf() {
			// short, int and long map the inf sentinels onto each other.
			p, ng := ir.ArithSentinels(from)
			if x.Has(p) || x.Has(ng) {
				return Full()
			}
		}
		return x
	case *ir.Call:
		if classOf(t) != clInt {
			w.walkOther(n, en)
			return Full()
		}
		switch n.Fn {
		case ir.FnMin, ir.FnMax:
			var r Range
			for k, x := range n.Args {
				v := w.intRange(x, en)
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
			return w.intRange(n.Args[0], en).Abs()
		}
		for _, x := range n.Args {
			w.anyRange(x, en)
		}
		return Full()
	case *ir.Reduce:
		lo, hi, inner := w.reduceEnv(n, en)
		var body Range
		if classOf(n.Body.Type()) == clInt {
			body = w.intRange(n.Body, inner)
		} else {
			w.walkOther(n.Body, inner)
			body = Full()
		}
		if classOf(t) != clInt {
			return Full()
		}
		if n.Op == ir.ReduceSum {
			// At most hi - lo + 1 terms, each within body, and 0 when empty.
			r := Full()
			if cnt, ok := ir.Sub64(hi.Hi, lo.Lo); ok && cnt < math.MaxInt64 {
				r = Point(0).Hull(Span(0, max(cnt+1, 0)).Mul(body))
			}
			safe := r.Within(-ir.ArithMax(t), ir.ArithMax(t))
			w.sides(n, Full(), ir.Int, safe)
			if w.Failure == Wraps {
				return Full()
			}
			return clampFinite(r, t)
		}
		if lo.Hi > hi.Lo && w.diff(n.Hi, n.Lo, en).Lo < 0 { // the range may be empty
			p, ng := ir.ArithSentinels(t)
			id := p
			if n.Op == ir.ReduceMax {
				id = ng
			}
			body = body.Hull(Point(id))
		}
		return body
	}
	return Full()
}

// BodyEnv is the Env of the body of reduction n in en.
func (w *Walker) BodyEnv(n *ir.Reduce, en Env) Env {
	if en.empty {
		return en
	}
	_, _, inner := w.reduceEnv(n, en)
	return inner
}

// NonEmpty reports whether reduction n's range is proven to hold a value
// wherever en holds (by the bounds' ranges, or a relation between them).
func (w *Walker) NonEmpty(n *ir.Reduce, en Env) bool {
	if en.empty {
		return true
	}
	rec := w.Rec
	w.Rec = nil
	defer func() { w.Rec = rec }()
	lo, hi := w.intRange(n.Lo, en), w.intRange(n.Hi, en)
	return lo.Hi <= hi.Lo || w.diff(n.Hi, n.Lo, en).Lo >= 0
}

// reduceEnv walks n's bounds and gives the Env of its body.
func (w *Walker) reduceEnv(n *ir.Reduce, en Env) (lo, hi Range, inner Env) {
	lo, hi = w.intRange(n.Lo, en), w.intRange(n.Hi, en)
	v := Span(lo.Lo, hi.Hi)
	inner = en
	if v.IsEmpty() && w.Refine {
		// The body is never evaluated. (Without refinement the walker
		// still visits it, for the facts a user keys its code on.)
		inner.empty = true
	}
	k := len(en.red)
	if !w.Refine && len(w.buf) >= k && (k == 0 || &w.buf[0] == &en.red[0]) {
		// Without refinement every Env in scope is a prefix of this
		// one: the walker's buffer holds them all, without garbage.
		inner.red = append(w.buf[:k], redRange{n, v})
		w.buf = inner.red
	} else {
		inner = inner.WithRed(n, v)
	}
	return lo, hi, inner
}

// arithStops bounds an integer + - * / % when a failure stops the run.
func (w *Walker) arithStops(n *ir.Binary, x, y Range) Range {
	t := n.Type()
	if n.Saturate {
		p, ng := ir.ArithSentinels(t)
		if x.Has(p) || x.Has(ng) || y.Has(p) || y.Has(ng) {
			if n.Op == ir.OpAdd || n.Op == ir.OpSub || n.Op == ir.OpMul {
				w.sides(n, Full(), ir.Int, false)
			}
			return Full()
		}
	}
	switch n.Op {
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		if !n.Saturate {
			// Without Saturate both operands are finite values (sema),
			// and a checked operand never leaves the range.
			x, y = clampFinite(x, t), clampFinite(y, t)
		}
		var r Range
		switch n.Op {
		case ir.OpAdd:
			r = x.Add(y)
		case ir.OpSub:
			r = x.Sub(y)
		default:
			r = x.Mul(y)
		}
		w.sides(n, r, t, r.Within(-ir.ArithMax(t), ir.ArithMax(t)))
		return clampFinite(r, t)
	case ir.OpDiv, ir.OpRem:
		if y.Has(0) || n.Saturate {
			w.risky++ // division by zero, or an undefined inf operation
		}
	}
	switch n.Op {
	case ir.OpDiv:
		return x.Quo(y)
	case ir.OpRem:
		return x.Rem(y)
	}
	return Full()
}

// arithWraps bounds an integer + - * / % when a failure wraps (the caller
// clamps to the type): the inf rules give an operand, inf or 0.
func (w *Walker) arithWraps(n *ir.Binary, x, y Range) Range {
	t := n.Type()
	var r Range
	switch n.Op {
	case ir.OpAdd:
		r = x.Add(y)
		if n.Saturate && !r.IsEmpty() {
			// inf + x is inf: the result is the sum or an operand.
			r = r.Hull(x.Hull(y))
		}
	case ir.OpSub:
		r = x.Add(y.Neg())
		if n.Saturate && !r.IsEmpty() {
			p, ng := ir.ArithSentinels(t)
			r = r.Hull(x.Hull(Range{ng, p}))
		}
	case ir.OpMul:
		// inf * x is ±inf: as extreme as the product of the sentinel and
		// x (|x| >= 1), so within the hull of the products.
		r = x.Mul(y)
	case ir.OpDiv, ir.OpRem:
		if y.Has(0) || n.Saturate {
			w.risky++
		}
		if !x.IsEmpty() && !y.IsEmpty() && y.Has(0) {
			return Full()
		}
		if n.Op == ir.OpDiv {
			r = x.Quo(y)
		} else {
			r = x.Rem(y)
		}
		if n.Saturate && !r.IsEmpty() && !r.IsFull() {
			// inf / c is inf, not the sentinel divided by c (-inf for
			// c < 0); a failed inf % c gives 0.
			r = r.Hull(x.Hull(Point(0)))
			if y.Lo < 0 {
				r = r.Hull(x.Neg())
			}
		}
		return r
	default:
		return Full()
	}
	if !r.Within(-ir.ArithMax(t), ir.ArithMax(t)) || n.Saturate {
		w.risky++
	}
	return r
}

// walkOther visits a floating expression for the reads and conditions
// inside it.
func (w *Walker) walkOther(e ir.Expr, en Env) {
	if en.empty {
		return
	}
	switch n := e.(type) {
	case *ir.Load:
		w.load(n, en)
	case *ir.CellRef:
		w.cellRef(n, en)
	case *ir.Unary:
		w.anyRange(n.X, en)
	case *ir.Binary:
		if n.Op == ir.OpAnd || n.Op == ir.OpOr {
			w.boolTri(n, en)
			return
		}
		w.anyRange(n.X, en)
		w.anyRange(n.Y, en)
	case *ir.Select:
		w.known(n, w.Decide(n.Cond, en))
		te, fe := w.branches(n.Cond, en)
		w.anyRange(n.Then, te)
		w.anyRange(n.Else, fe)
	case *ir.Convert:
		w.anyRange(n.X, en)
	case *ir.Call:
		for _, x := range n.Args {
			w.anyRange(x, en)
		}
	case *ir.Reduce:
		_, _, inner := w.reduceEnv(n, en)
		w.anyRange(n.Body, inner)
	}
}

// load proves a read of an input and bounds its value.
func (w *Walker) load(n *ir.Load, en Env) Range {
	// An index may hold a read of its own: the indices live on a stack.
	base := len(w.idx)
	for _, x := range n.Index {
		r := w.intRange(x, en)
		w.idx = append(w.idx, r)
	}
	idx := w.idx[base:]
	defer func() { w.idx = w.idx[:base] }()
	in := n.In
	ok := false
	switch len(idx) {
	case 1:
		ok = idx[0].Within(0, int64(in.Len())-1)
	case 2:
		ok = idx[0].Within(0, int64(in.Rows)-1) && idx[1].Within(0, int64(in.Cols)-1)
	}
	w.proven(n, ok)
	switch {
	case in.T.IsFloat():
		return Full()
	case in.Bounded:
		// Declared bounds hold for any data: a program that relies on
		// them is not tied to these values.
		return Range{in.Lo, in.Hi}
	case w.Input == nil:
		return Full()
	}
	return w.Input(n, idx, ok)
}

func (w *Walker) cellRef(n *ir.CellRef, en Env) {
	i, j := w.intRange(n.I, en), w.intRange(n.J, en)
	w.proven(n, i.Within(0, w.Rows-1) && j.Within(0, w.Cols-1))
}

// boolTri decides a condition when it can.
func (w *Walker) boolTri(e ir.Expr, en Env) Tri {
	if en.empty {
		return Unknown
	}
	switch n := e.(type) {
	case *ir.Const:
		return TriOf(n.V.I != 0 || n.V.F != 0)
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return w.boolTri(n.X, en).Not()
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd, ir.OpOr:
			x := w.Decide(n.X, en)
			w.known(n, x)
			ye := en
			if w.Refine {
				ye = w.Assume(n.X, n.Op == ir.OpAnd, en)
			}
			y := w.boolTri(n.Y, ye)
			if ye.empty {
				// The right operand is never evaluated.
				y = TriOf(n.Op == ir.OpOr)
			}
			if n.Op == ir.OpAnd {
				switch {
				case x == False || y == False:
					return False
				case x == True:
					return y
				case y == True:
					return x
				}
				return Unknown
			}
			switch {
			case x == True || y == True:
				return True
			case x == False:
				return y
			case y == False:
				return x
			}
			return Unknown
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			if classOf(n.X.Type()) == clFloat || classOf(n.Y.Type()) == clFloat {
				w.anyRange(n.X, en)
				w.anyRange(n.Y, en)
				return Unknown
			}
			return compareTri(n.Op, w.intRange(n.X, en), w.intRange(n.Y, en))
		}
	case *ir.Select:
		c := w.Decide(n.Cond, en)
		w.known(n, c)
		te, fe := w.branches(n.Cond, en)
		return choose(c, w.boolTri(n.Then, te), w.boolTri(n.Else, fe), joinTri)
	case *ir.Convert:
		if classOf(n.X.Type()) == clInt {
			r := w.intRange(n.X, en)
			switch {
			case r == Point(0):
				return False
			case !r.Has(0):
				return True
			}
			return Unknown
		}
	}
	w.anyRange(e, en)
	return Unknown
}

func compareTri(op ir.Op, x, y Range) Tri {
	switch op {
	case ir.OpEq, ir.OpNe:
		t := Unknown
		if x.IsPoint() && y.IsPoint() && x.Lo == y.Lo {
			t = True
		} else if x.Hi < y.Lo || y.Hi < x.Lo {
			t = False
		}
		if op == ir.OpNe {
			return t.Not()
		}
		return t
	case ir.OpLt:
		if x.Hi < y.Lo {
			return True
		}
		if x.Lo >= y.Hi {
			return False
		}
	case ir.OpLe:
		if x.Hi <= y.Lo {
			return True
		}
		if x.Lo > y.Hi {
			return False
		}
	case ir.OpGt:
		return compareTri(ir.OpLt, y, x)
	case ir.OpGe:
		return compareTri(ir.OpLe, y, x)
	}
	return Unknown
}

// Assume narrows en by the knowledge that cond evaluated to truth. It
// understands comparisons of an index variable with an expression of known
// range, and &&, || and ! of those; anything else leaves en as it is. It
// reports no facts.
func (w *Walker) Assume(cond ir.Expr, truth bool, en Env) Env {
	if en.empty {
		return en
	}
	rec := w.Rec
	w.Rec = nil
	defer func() { w.Rec = rec }()
	return w.assume(cond, truth, en)
}

func (w *Walker) assume(cond ir.Expr, truth bool, en Env) Env {
	if en.empty {
		return en
	}
	switch n := cond.(type) {
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return w.assume(n.X, !truth, en)
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd:
			if truth {
				return w.assume(n.Y, true, w.assume(n.X, true, en))
			}
			// !(x && y): x false, or x true and y false.
			return envHull(w.assume(n.X, false, en), w.assume(n.Y, false, w.assume(n.X, true, en)))
		case ir.OpOr:
			if !truth {
				return w.assume(n.Y, false, w.assume(n.X, false, en))
			}
			return envHull(w.assume(n.X, true, en), w.assume(n.Y, true, w.assume(n.X, false, en)))
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			op := n.Op
			if !truth {
				op = negate(op)
			}
			if v, ok := varOf(n.X); ok {
				en = compareVar(en, v, op, w.Range(n.Y, en))
				en = w.compareRel(en, v, n.Y, 0, op, Point(0))
			}
			if v, ok := varOf(n.Y); ok {
				en = compareVar(en, v, mirror(op), w.Range(n.X, en))
				en = w.compareRel(en, v, n.X, 0, mirror(op), Point(0))
			}
			// v % c op y for a constant c > 0 and v >= 0 (the user's j
			// of a 3-D grid, J % C).
			if v, c, ok := remainderVar(n.X); ok && en.Lookup(v).Lo >= 0 {
				en = compareRem(en, v, c, op, w.Range(n.Y, en))
			}
			if v, c, ok := remainderVar(n.Y); ok && en.Lookup(v).Lo >= 0 {
				en = compareRem(en, v, c, mirror(op), w.Range(n.X, en))
			}
			// v / c op y for a constant c > 0 and v >= 0 (the user's
			// column of a recurrence of several tables, J / T).
			if v, c, ok := quotientVar(n.X); ok {
				en = compareQuotient(en, v, c, op, w.Range(n.Y, en))
			}
			if v, c, ok := quotientVar(n.Y); ok {
				en = compareQuotient(en, v, c, mirror(op), w.Range(n.X, en))
			}
			// v + e + c op y, v - e + c op y: v op y - e - c, v op y + e - c
			// for an interval of v (`j + base == 0` with base >= 0: j <= 0),
			// where the sum was computed exactly.
			if v, e, neg, c, ok := plusVar(n.X); ok && w.exactSum(n.X, en) {
				en = compareVar(en, v, op, w.solveFor(e, neg, c, w.Range(n.Y, en), en))
			}
			if v, e, neg, c, ok := plusVar(n.Y); ok && w.exactSum(n.Y, en) {
				en = compareVar(en, v, mirror(op), w.solveFor(e, neg, c, w.Range(n.X, en), en))
			}
			// v - e + c op y: a relation of v and e (`j - i <= minloop`),
			// where the difference was computed exactly.
			if v, e, c, ok := difference(n.X); ok && w.exactSum(n.X, en) {
				en = w.compareRel(en, v, e, c, op, w.Range(n.Y, en))
			}
			if v, e, c, ok := difference(n.Y); ok && w.exactSum(n.Y, en) {
				en = w.compareRel(en, v, e, c, mirror(op), w.Range(n.X, en))
			}
			return en
		}
	}
	return en
}

// opRange is the range of x where `x op y` holds for some y in y (Full()
// for an op that is not a comparison).
func opRange(op ir.Op, y Range) Range {
	if y.IsEmpty() || y.IsFull() {
		return Full()
	}
	switch op {
	case ir.OpEq:
		return y
	case ir.OpLt:
		if y.Hi == math.MinInt64 {
			return Empty()
		}
		return Range{math.MinInt64, y.Hi - 1}
	case ir.OpLe:
		return Range{math.MinInt64, y.Hi}
	case ir.OpGt:
		if y.Lo == math.MaxInt64 {
			return Empty()
		}
		return Range{y.Lo + 1, math.MaxInt64}
	case ir.OpGe:
		return Range{y.Lo, math.MaxInt64}
	}
	return Full()
}

// relate records that v - x lies in r (see relFact) when x is an
// expression of data and index variables that is not a constant (whose
// relation with v the interval of v already holds). Between two index
// variables it narrows both intervals as well: under j - i >= 4, i stays
// 4 below j's greatest value.
func (w *Walker) relate(en Env, v *ir.Var, x ir.Expr, r Range, holes ...int64) Env {
	if en.empty || (r.IsFull() && len(holes) == 0) || !stable(x) || isConst(x) {
		return en
	}
	if u, ok := varOf(x); ok {
		if sameVar(u, v) {
			if !r.Has(0) || slices.Contains(holes, 0) {
				en.empty = true
			}
			return en
		}
		vr, ur := en.Lookup(v), en.Lookup(u)
		if !r.IsFull() && !vr.IsFull() && !ur.IsFull() {
			en = en.set(v, vr.Meet(clampAdd(ur, r)))
			en = en.set(u, ur.Meet(clampAdd(vr, relNeg(r))))
		}
	}
	return en.withRel(v, x, r, holes...)
}

// compareRel records `v - x + c op y` (y's range ry) as a relation of v
// and x: a range, or for != of one value a hole.
func (w *Walker) compareRel(en Env, v *ir.Var, x ir.Expr, c int64, op ir.Op, ry Range) Env {
	if op == ir.OpNe {
		if !ry.IsPoint() {
			return en
		}
		h, ok := ir.Sub64(ry.Lo, c)
		if !ok {
			return en
		}
		return w.relate(en, v, x, Full(), h)
	}
	return w.relate(en, v, x, opRange(op, ry.Add(Point(-c))))
}

// clampAdd is a + b, the ends of the int64 range standing for infinities
// (a relation is often one-sided): sums saturate at them.
func clampAdd(a, b Range) Range {
	if a.IsEmpty() || b.IsEmpty() {
		return Empty()
	}
	return Range{satAdd(a.Lo, b.Lo), satAdd(a.Hi, b.Hi)}
}

// relNeg is -r, the ends of the int64 range standing for infinities.
func relNeg(r Range) Range {
	if r.IsEmpty() {
		return r
	}
	return Range{satNeg(r.Hi), satNeg(r.Lo)}
}

func satNeg(x int64) int64 {
	switch x {
	case math.MinInt64:
		return math.MaxInt64
	case math.MaxInt64:
		return math.MinInt64
	}
	return -x
}

func satAdd(x, y int64) int64 {
	switch {
	case x == math.MinInt64 || y == math.MinInt64:
		return math.MinInt64
	case x == math.MaxInt64 || y == math.MaxInt64:
		return math.MaxInt64
	}
	s, ok := ir.Add64(x, y)
	if !ok {
		if x > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// difference sees `v - e + c` in x (v an index variable, e stable, c a
// constant, in any grouping of the constant).
func difference(x ir.Expr) (v *ir.Var, e ir.Expr, c int64, ok bool) {
	v, e, neg, c, ok := plusVar(x)
	return v, e, c, ok && neg
}

// plusVar sees `v + e + c`, `e + v + c` or `v - e + c` in x (v an index
// variable, e stable and not a constant, c a constant in any grouping);
// neg: e is subtracted.
func plusVar(x ir.Expr) (v *ir.Var, e ir.Expr, neg bool, c int64, ok bool) {
	x, c = splitConst(x)
	n, isBin := x.(*ir.Binary)
	if !isBin || n.Saturate || (n.Op != ir.OpAdd && n.Op != ir.OpSub) {
		return nil, nil, false, 0, false
	}
	vx, cx := splitConst(n.X)
	ey, cy := splitConst(n.Y)
	if n.Op == ir.OpSub {
		cy = -cy
		if cy == math.MinInt64 {
			return nil, nil, false, 0, false
		}
	}
	v, ok = varOf(vx)
	if !ok && n.Op == ir.OpAdd {
		vx, ey = ey, vx
		v, ok = varOf(vx)
	}
	if !ok || !stable(ey) || isConst(ey) {
		return nil, nil, false, 0, false
	}
	c, ok1 := ir.Add64(c, cx)
	c, ok2 := ir.Add64(c, cy)
	return v, ey, n.Op == ir.OpSub, c, ok1 && ok2
}

// exactSum reports whether x, a sum or difference (see plusVar and
// difference), has its mathematical value where en holds: always where a
// failure stops the run, and where it wraps when no step of it can leave
// its type (else the comparison it takes part in says nothing of v and e).
func (w *Walker) exactSum(x ir.Expr, en Env) bool {
	if w.Failure != Wraps {
		return true
	}
	lim := ir.ArithMax(x.Type())
	ok := func(r Range) bool { return r.Within(-lim, lim) }
	x, c := splitConst(x)
	n := x.(*ir.Binary) // plusVar or difference checked the shape
	vx, cx := splitConst(n.X)
	ey, cy := splitConst(n.Y)
	a, b := w.Range(vx, en).Add(Point(cx)), w.Range(ey, en).Add(Point(cy))
	s := a.Add(b)
	if n.Op == ir.OpSub {
		s = a.Sub(b)
	}
	return ok(a) && ok(b) && ok(s) && ok(s.Add(Point(c)))
}

// solveFor is the range of v where v + e + c (v - e + c when neg) lies in
// y: y - e - c (y + e - c).
func (w *Walker) solveFor(e ir.Expr, neg bool, c int64, y Range, en Env) Range {
	re := w.Range(e, en)
	if re.IsEmpty() || y.IsEmpty() || re.IsFull() || y.IsFull() || c == math.MinInt64 {
		return Full()
	}
	var r Range
	if neg {
		r = y.Add(re)
	} else {
		r = y.Sub(re)
	}
	return r.Add(Point(-c))
}

// splitConst writes x as y + c for a constant c (0 when there is none).
func splitConst(x ir.Expr) (ir.Expr, int64) {
	n, ok := x.(*ir.Binary)
	if !ok || n.Saturate || (n.Op != ir.OpAdd && n.Op != ir.OpSub) {
		return x, 0
	}
	c, ok := Int(n.Y, nil)
	if !ok {
		if n.Op == ir.OpAdd {
			if c, ok := Int(n.X, nil); ok {
				return n.Y, c
			}
		}
		return x, 0
	}
	if n.Op == ir.OpSub {
		if c == math.MinInt64 {
			return x, 0
		}
		c = -c
	}
	return n.X, c
}

// diff bounds x - y by a relation of en, Full() when none applies: x and
// y are `v + c` and `e + d` (or the other way round) for a relation of v
// and e.
func (w *Walker) diff(x, y ir.Expr, en Env) Range {
	if len(en.rel) == 0 {
		return Full()
	}
	xe, cx := splitConst(x)
	ye, cy := splitConst(y)
	c, ok := ir.Sub64(cx, cy)
	if !ok {
		return Full()
	}
	if v, ok := varOf(xe); ok {
		if f, ok := en.relOf(v, ye); ok {
			return clampAdd(f, Point(c))
		}
	}
	if v, ok := varOf(ye); ok {
		if f, ok := en.relOf(v, xe); ok {
			return clampAdd(relNeg(f), Point(c))
		}
	}
	return Full()
}

// quotientProduct narrows the range r of k * s (n, either order) where k
// is the variable of a reduction `k in lo..q / s` with lo >= 0 and q and
// s stable (their values where the bound was evaluated are their values
// here): then k * s <= max(q, 0). (For s >= 1 and q >= 0, k <= q/s
// rounds down, so k*s <= q; for q < 0 the quotient is at most 0, so k is
// 0; for s <= 0, k*s <= 0: a zero divisor stops the run.) It is what keeps the unbounded knapsack's `cell[i-1][w -
// k*wt[i-1]]`, k in 0..w / wt[i-1], inside its row: intervals alone see
// k up to the capacity times the heaviest item.
func (w *Walker) quotientProduct(n *ir.Binary, x, y Range, r Range, en Env) Range {
	if n.Saturate {
		return r
	}
	for _, side := range [2]struct {
		k, s   ir.Expr
		kr, sr Range
	}{{n.X, n.Y, x, y}, {n.Y, n.X, y, x}} {
		k, ok := varOf(side.k)
		if !ok || k.Reduce == nil || side.kr.Lo < 0 || !stable(side.s) {
			continue
		}
		q := quotientBound(k.Reduce.Hi, stripIntConv(side.s))
		if q == nil {
			continue
		}
		hi := max(w.intRange(q, en).Hi, 0)
		if m := r.Meet(Span(math.MinInt64, hi)); !m.IsEmpty() {
			r = m
		}
	}
	return r
}

// quotientDiff narrows the range r of q - k*s (n, the product in either
// order) where k*s is a product quotientProduct bounds by max(q, 0), q
// itself being the left operand: then q - k*s >= min(q, 0). It is what
// proves the unbounded knapsack's `cell[i-1][w - k*wt[i-1]]`, k in 0..w /
// wt[i-1], inside its row (w - k*wt[i-1] >= 0), so that the read is not
// checked at every copy of the item. Sound where the subtraction cannot
// wrap, as relRange.
func (w *Walker) quotientDiff(n *ir.Binary, x, y Range, r Range, en Env) Range {
	if n.Saturate || x.IsEmpty() {
		return r
	}
	if w.Failure == Wraps && !x.Sub(y).Within(-ir.ArithMax(n.Type()), ir.ArithMax(n.Type())) {
		return r
	}
	p, ok := stripIntConv(n.Y).(*ir.Binary)
	if !ok || p.Op != ir.OpMul || p.Saturate {
		return r
	}
	qe := stripIntConv(n.X)
	for _, side := range [2][2]ir.Expr{{p.X, p.Y}, {p.Y, p.X}} {
		k, ok := varOf(side[0])
		if !ok || k.Reduce == nil || !stable(side[1]) || w.intRange(side[0], en).Lo < 0 {
			continue
		}
		if q := quotientBound(k.Reduce.Hi, stripIntConv(side[1])); q == nil || !sameExpr(stripIntConv(q), qe) {
			continue
		}
		if m := r.Meet(Span(min(x.Lo, 0), math.MaxInt64)); !m.IsEmpty() {
			r = m
		}
	}
	return r
}

// quotientBound is q where the bound hi keeps k * s <= max(q, 0) for
// every k <= hi (s and q stable): hi is q / s, a min with q / s among
// its arguments, or `s == 0 ? x : y` (or `s != 0 ? y : x`) where y is
// one (where s is 0, k * s is 0) — the bounded knapsack's `k in
// 0..(wt[i-1] == 0 ? cnt[i-1] : min(cnt[i-1], w / wt[i-1]))`. nil
// otherwise.
func quotientBound(hi, s ir.Expr) ir.Expr {
	switch n := stripIntConv(hi).(type) {
	case *ir.Binary:
		if n.Op == ir.OpDiv && !n.Saturate && stable(n.X) && sameExpr(stripIntConv(n.Y), s) {
			return n.X
		}
	case *ir.Call:
		if n.Fn == ir.FnMin {
			for _, a := range n.Args {
				if q := quotientBound(a, s); q != nil {
					return q
				}
			}
		}
	case *ir.Select:
		c, ok := n.Cond.(*ir.Binary)
		if !ok || (c.Op != ir.OpEq && c.Op != ir.OpNe) {
			return nil
		}
		x, y := stripIntConv(c.X), stripIntConv(c.Y)
		if z, ok := Int(y, nil); !ok || z != 0 || !sameExpr(x, s) {
			if z, ok := Int(x, nil); !ok || z != 0 || !sameExpr(y, s) {
				return nil
			}
		}
		if c.Op == ir.OpEq {
			return quotientBound(n.Else, s)
		}
		return quotientBound(n.Then, s)
	}
	return nil
}

// StripIntConv sees through conversions between integer types.
func StripIntConv(e ir.Expr) ir.Expr { return stripIntConv(e) }

func stripIntConv(e ir.Expr) ir.Expr {
	for {
		c, ok := e.(*ir.Convert)
		if !ok || !c.T.IsInteger() || !c.X.Type().IsInteger() || c.T == ir.Bool {
			return e
		}
		e = c.X
	}
}

// relRange narrows the range r of x - y (n) by a relation of en: sound
// where the subtraction cannot wrap (failures stop the run, or the
// operands' ranges keep it within the type).
func (w *Walker) relRange(n *ir.Binary, x, y Range, r Range, en Env) Range {
	if len(en.rel) == 0 || n.Saturate {
		return r
	}
	if w.Failure == Wraps && !x.Sub(y).Within(-ir.ArithMax(n.Type()), ir.ArithMax(n.Type())) {
		return r
	}
	if m := r.Meet(w.diff(n.X, n.Y, en)); !m.IsEmpty() {
		return m
	}
	return r
}

// stable reports whether e has the same value wherever it is evaluated
// with the same index variables: constants, scalars, index variables,
// reads of inputs, and integer arithmetic of those.
func stable(e ir.Expr) bool {
	switch n := e.(type) {
	case *ir.Const, *ir.ScalarRef, *ir.Var:
		return true
	case *ir.Load:
		for _, x := range n.Index {
			if !stable(x) {
				return false
			}
		}
		return !n.In.T.IsFloat()
	case *ir.Unary:
		return n.Op != ir.OpNot && stable(n.X)
	case *ir.Binary:
		switch n.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul:
			return !n.Saturate && stable(n.X) && stable(n.Y)
		}
	case *ir.Convert:
		return n.T.IsInteger() && n.X.Type().IsInteger() && stable(n.X)
	}
	return false
}

// isConst reports whether e is a constant or a scalar.
func isConst(e ir.Expr) bool {
	switch e.(type) {
	case *ir.Const, *ir.ScalarRef:
		return true
	}
	return false
}

// SameExpr reports whether the stable expressions a and b (constants,
// scalars, index variables, reads of inputs and cells at such indices,
// arithmetic, min and max of those) are written alike, and so have one
// value wherever they are evaluated with the same index variables and
// cells (codegen's shared subexpressions compare them so too).
func SameExpr(a, b ir.Expr) bool { return sameExpr(a, b) }

func sameExpr(a, b ir.Expr) bool {
	if a == b {
		return true
	}
	switch x := a.(type) {
	case *ir.Const:
		y, ok := b.(*ir.Const)
		return ok && x.V == y.V && x.T == y.T
	case *ir.ScalarRef:
		y, ok := b.(*ir.ScalarRef)
		return ok && x.Scalar == y.Scalar
	case *ir.Var:
		y, ok := b.(*ir.Var)
		return ok && sameVar(x, y)
	case *ir.Load:
		y, ok := b.(*ir.Load)
		if !ok || x.In != y.In || len(x.Index) != len(y.Index) {
			return false
		}
		for k := range x.Index {
			if !sameExpr(x.Index[k], y.Index[k]) {
				return false
			}
		}
		return true
	case *ir.Unary:
		y, ok := b.(*ir.Unary)
		return ok && x.Op == y.Op && x.T == y.T && sameExpr(x.X, y.X)
	case *ir.Binary:
		y, ok := b.(*ir.Binary)
		return ok && x.Op == y.Op && x.T == y.T && x.Saturate == y.Saturate && sameExpr(x.X, y.X) && sameExpr(x.Y, y.Y)
	case *ir.Convert:
		y, ok := b.(*ir.Convert)
		return ok && x.T == y.T && sameExpr(x.X, y.X)
	case *ir.CellRef:
		y, ok := b.(*ir.CellRef)
		return ok && x.T == y.T && x.Table == y.Table && sameExpr(x.I, y.I) && sameExpr(x.J, y.J)
	case *ir.Call:
		y, ok := b.(*ir.Call)
		if !ok || x.Fn != y.Fn || x.T != y.T || len(x.Args) != len(y.Args) {
			return false
		}
		for k := range x.Args {
			if !sameExpr(x.Args[k], y.Args[k]) {
				return false
			}
		}
		return true
	}
	return false
}

// sameVar reports whether x and y are one index variable: the grid's
// variable of one kind, or the variable of one reduction.
func sameVar(x, y *ir.Var) bool {
	if x.Reduce == nil && y.Reduce == nil && x.Kind != ir.VarReduce {
		return x.Kind == y.Kind
	}
	return canonVar(x) == canonVar(y)
}

// varOf sees through integer conversions to an index variable.
// quotientVar reports whether x is v / c (or an integer conversion of
// it) for a variable v and a constant c > 0.
func quotientVar(x ir.Expr) (*ir.Var, int64, bool) { return byConst(x, ir.OpDiv) }

// remainderVar reports whether x is v % c (or an integer conversion of
// it) for a variable v and a constant c > 0.
func remainderVar(x ir.Expr) (*ir.Var, int64, bool) { return byConst(x, ir.OpRem) }

// byConst reports whether x is v op c (or an integer conversion of it)
// for a variable v and a constant c > 0.
func byConst(x ir.Expr, op ir.Op) (*ir.Var, int64, bool) {
	n, ok := stripIntConv(x).(*ir.Binary)
	if !ok || n.Saturate || n.Op != op {
		return nil, 0, false
	}
	k, ok := n.Y.(*ir.Const)
	if !ok || k.V.I <= 0 || k.V.T.IsFloat() {
		return nil, 0, false
	}
	v, ok := varOf(n.X)
	return v, k.V.I, ok
}

// compareRem records v % c op y (y in other) as a fact of v % c: a range,
// or for != of one value a hole.
func compareRem(en Env, v *ir.Var, c int64, op ir.Op, other Range) Env {
	if op == ir.OpNe {
		if !other.IsPoint() {
			return en
		}
		return en.withRem(v, c, Full(), other.Lo)
	}
	if r := opRange(op, other); !r.IsFull() {
		return en.withRem(v, c, r)
	}
	return en
}

// compareQuotient narrows v where v / c op y for y in other, v >= 0 and
// c > 0: v / c is then floor(v / c), >= k where v >= k*c and <= k where
// v <= k*c + c-1.
func compareQuotient(en Env, v *ir.Var, c int64, op ir.Op, other Range) Env {
	cur := en.Lookup(v)
	if cur.IsFull() || cur.IsEmpty() || cur.Lo < 0 || other.IsFull() || other.IsEmpty() {
		return en
	}
	lowest := func(k int64) (int64, bool) { return ir.Mul64(k, c) } // least v with v/c = k
	highest := func(k int64) (int64, bool) { x, ok := ir.Mul64(k, c); return x + c - 1, ok && x <= math.MaxInt64-c }
	ge := func(en Env, k int64) Env {
		if b, ok := lowest(k); ok {
			return compareVar(en, v, ir.OpGe, Point(b))
		}
		return en
	}
	le := func(en Env, k int64) Env {
		if b, ok := highest(k); ok {
			return compareVar(en, v, ir.OpLe, Point(b))
		}
		return en
	}
	switch op {
	case ir.OpEq:
		return le(ge(en, other.Lo), other.Hi)
	case ir.OpGe:
		return ge(en, other.Lo)
	case ir.OpGt:
		if other.Lo < math.MaxInt64 {
			return ge(en, other.Lo+1)
		}
	case ir.OpLe:
		return le(en, other.Hi)
	case ir.OpLt:
		if other.Hi > math.MinInt64 {
			return le(en, other.Hi-1)
		}
	case ir.OpNe:
		if other.IsPoint() {
			k := other.Lo
			lo, ok1 := lowest(k)
			hi, ok2 := highest(k)
			switch {
			case !ok1 || !ok2:
			case cur.Lo >= lo && cur.Lo <= hi:
				return compareVar(en, v, ir.OpGt, Point(hi))
			case cur.Hi >= lo && cur.Hi <= hi:
				return compareVar(en, v, ir.OpLt, Point(lo))
			}
		}
	}
	return en
}

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

// negated and mirrored map a comparison to `!(x op y)` and to `y op' x`.
var (
	negated  = map[ir.Op]ir.Op{ir.OpEq: ir.OpNe, ir.OpNe: ir.OpEq, ir.OpLt: ir.OpGe, ir.OpGe: ir.OpLt, ir.OpGt: ir.OpLe, ir.OpLe: ir.OpGt}
	mirrored = map[ir.Op]ir.Op{ir.OpLt: ir.OpGt, ir.OpGt: ir.OpLt, ir.OpLe: ir.OpGe, ir.OpGe: ir.OpLe}
)

// negate turns `x op y` into the op of its negation.
func negate(op ir.Op) ir.Op {
	if n, ok := negated[op]; ok {
		return n
	}
	return op
}

// mirror turns `x op v` into `v op' x`.
func mirror(op ir.Op) ir.Op {
	if m, ok := mirrored[op]; ok {
		return m
	}
	return op
}

// compareVar narrows v by `v op other`.
func compareVar(en Env, v *ir.Var, op ir.Op, other Range) Env {
	cur := en.Lookup(v)
	if cur.IsFull() || cur.IsEmpty() || other.IsFull() || other.IsEmpty() {
		return en
	}
	var nv Range
	switch op {
	case ir.OpEq:
		nv = cur.Meet(other)
	case ir.OpNe:
		nv = cur
		if other.IsPoint() {
			switch other.Lo {
			case cur.Lo:
				nv = Span(cur.Lo+1, cur.Hi)
			case cur.Hi:
				nv = Span(cur.Lo, cur.Hi-1)
			}
		}
	case ir.OpLt:
		if other.Hi == math.MinInt64 {
			nv = Empty()
		} else {
			nv = cur.Meet(Range{math.MinInt64, other.Hi - 1})
		}
	case ir.OpLe:
		nv = cur.Meet(Range{math.MinInt64, other.Hi})
	case ir.OpGt:
		if other.Lo == math.MaxInt64 {
			nv = Empty()
		} else {
			nv = cur.Meet(Range{other.Lo + 1, math.MaxInt64})
		}
	case ir.OpGe:
		nv = cur.Meet(Range{other.Lo, math.MaxInt64})
	default:
		return en
	}
	return en.set(v, nv)
}
