package codegen

import (
	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// The generator uses value ranges to prove reads in bounds and int and long
// arithmetic inside the finite range (docs/language.md §6.1), so that it can
// leave out checks in the hot loops. The ranges are those of package
// analysis, whose walker the CPU compiler runs too, here under the GPU's
// failure model: every claim must hold for every value a computation can
// produce, including what a failed operation leaves behind (an overflow
// wraps within the type; the inf rules give an operand or 0): the run then
// stops with an error, but the launch goes on, and a read proved in bounds
// must stay in bounds.

// ival is a closed integer interval [lo, hi]. The zero value is unknown
// (every int64); empty marks a range with no value (an unreachable case).
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

// rng is a as an analysis.Range: unknown is every int64.
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

func hull(a, b ival) ival { return fromRng(a.rng().Hull(b.rng())) }

// env is what is known about the index variables at a point of the
// recurrence: the grid's ranges narrowed by the conditions that must hold
// there (earlier cases false, the current case true, the left operand of &&
// true, ...), and the range of the cell values (see inferCellRange).
type env = analysis.Env

// gridEnv is the env of every cell of the grid, whose cells hold values
// in cells (unknown: any value of the cell type).
func (g *gen) gridEnv(cells ival) env {
	return analysis.NewEnv(analysis.Span(0, g.p.Rows-1), analysis.Span(0, g.p.Cols-1)).WithCells(cells.rng())
}

// walker is the range analysis under the GPU's failure model, narrowing
// ranges under the conditions that hold.
func (g *gen) walker() analysis.Walker {
	w := analysis.Walker{Config: analysis.Config{
		Failure: analysis.Wraps,
		Rows:    g.p.Rows,
		Cols:    g.p.Cols,
		Refine:  true,
	}}
	if g.prog != nil && g.prog.Kernel == KernelHost {
		w.Input = g.hostInputRange
	} else {
		w.Input = g.finiteInputRange
	}
	return w
}

// finiteInputRange bounds a read of an integer input for programs that do
// not depend on the data's values (GPU programs): by its type's finite
// range when the data holds no inf, which spares the inf rules of the
// arithmetic on it; one bit of the data per input decides the program.
func (g *gen) finiteInputRange(n *ir.Load, _ []analysis.Range, _ bool) analysis.Range {
	in := n.In
	if r, ok := g.hostRanges[in]; ok {
		return r
	}
	r := analysis.Full()
	if !in.T.IsFloat() && in.T.HasInf() {
		lo, hi := ir.FiniteRange(in.T)
		r = analysis.Span(lo, hi)
		p, ng := ir.InfSentinel(in.T)
		for _, v := range in.I {
			if v >= p || v <= ng {
				r = analysis.Full()
				break
			}
		}
	}
	if g.hostRanges == nil {
		g.hostRanges = map[*ir.Input]analysis.Range{}
	}
	g.hostRanges[in] = r
	return r
}

// hostInputRange bounds a read of an integer input, for host programs: by
// the data's least and greatest values, widened to powers of two so that
// data of similar magnitude shares one compiled program. (A GPU program
// does not depend on the data's values, only on the sizes; a host program
// compiles in a fraction of a second, and the bounds spare the checks
// that keep the compiler from making the cell updates vector code: a
// knapsack's j - wt[i-1], its cell + val[i-1].) A read outside its input
// reports an error and gives element 0, also within the bounds.
func (g *gen) hostInputRange(n *ir.Load, _ []analysis.Range, _ bool) analysis.Range {
	in := n.In
	if r, ok := g.hostRanges[in]; ok {
		return r
	}
	r := inputRange(in)
	if g.hostRanges == nil {
		g.hostRanges = map[*ir.Input]analysis.Range{}
	}
	g.hostRanges[in] = r
	return r
}

// HostInputRange is the bound of in's values a host program is
// specialised to: two problems whose inputs have the same bounds (and the
// same sizes) share a program.
func HostInputRange(in *ir.Input) analysis.Range { return inputRange(in) }

// inputRange is hostInputRange's bound of in's values.
func inputRange(in *ir.Input) analysis.Range {
	if in.T.IsFloat() || len(in.I) == 0 {
		return analysis.Full()
	}
	lo, hi := in.I[0], in.I[0]
	for _, v := range in.I {
		lo, hi = min(lo, v), max(hi, v)
	}
	p, ng := ir.InfSentinel(in.T)
	if in.T.HasInf() && (hi >= p || lo <= ng) {
		// An inf sentinel in the data: no bound that helps.
		return analysis.Full()
	}
	return analysis.Span(-pow2AtLeast(-lo), pow2AtLeast(hi))
}

// pow2AtLeast is 0 for x <= 0, else the least power of two >= x (capped
// at 2^62).
func pow2AtLeast(x int64) int64 {
	if x <= 0 {
		return 0
	}
	p := int64(1)
	for p < x && p < 1<<62 {
		p <<= 1
	}
	return p
}

// rangeOf bounds the integer value of e in en. Floating expressions are
// unknown.
func (g *gen) rangeOf(e ir.Expr, en env) ival {
	if e.Type().IsFloat() {
		return ival{}
	}
	w := g.walker()
	return fromRng(w.Range(e, en))
}

// finiteRangeOf bounds the integer value of e in en where no failure
// happened before (analysis.Stops), the cells read within runCells.
func (g *gen) finiteRangeOf(e ir.Expr, en env) ival {
	if g.runCells.known {
		en = en.WithCells(g.runCells.rng())
	}
	return g.rangeFail(e, en, analysis.Stops)
}

// rangeFail bounds the integer value of e in en under the failure model f.
func (g *gen) rangeFail(e ir.Expr, en env, f analysis.Failure) ival {
	if e.Type().IsFloat() {
		return ival{}
	}
	w := g.walker()
	w.Failure = f
	return fromRng(w.Range(e, en))
}

// refine narrows en by the knowledge that cond evaluated to truth.
func (g *gen) refine(cond ir.Expr, truth bool, en env) env {
	w := g.walker()
	return w.Assume(cond, truth, en)
}

// bodyEnv is the env of the body of reduction n.
func (g *gen) bodyEnv(n *ir.Reduce, en env) env {
	w := g.walker()
	return w.BodyEnv(n, en)
}
