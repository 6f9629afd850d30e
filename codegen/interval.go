package codegen

import (
	"math"
	"slices"

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

// typeRange is every value an integer type can hold.
func typeRange(t ir.Type) analysis.Range {
	switch {
	case t == ir.Char:
		// Char data may be signed bytes or the codes 128..255.
		return analysis.Span(-128, 255)
	case t.IsInteger() && t.Size() < 8:
		in := t.Info()
		return analysis.Span(in.Min, in.Max)
	}
	return analysis.Full()
}

// env is what is known about the index variables at a point of the
// recurrence: the grid's ranges narrowed by the conditions that must hold
// there (earlier cases false, the current case true, the left operand of &&
// true, ...), and the range of the cell values (see inferCellRange).
type env = analysis.Env

// gridEnv is the env of every cell of the grid, whose cells hold values
// in cells (unknown: any value of the cell type).
func (g *gen) gridEnv(cells analysis.Range) env {
	return analysis.NewEnv(analysis.Span(0, g.p.Rows-1), analysis.Span(0, g.p.Cols-1)).WithCells(cells)
}

// walker is the range analysis under the GPU's failure model, narrowing
// ranges under the conditions that hold and bounding the inputs as the
// program is specialised to them.
func (g *gen) walker() analysis.Walker {
	w := analysis.Walker{Config: analysis.Config{
		Failure: analysis.Wraps,
		Rows:    g.p.Rows,
		Cols:    g.p.Cols,
		Refine:  true,
	}}
	w.Input = g.inputBound
	return w
}

// inputBound bounds a read of an integer input as the program is
// specialised to (batchInputRange for a batch program's, inputRange for
// every other's), once per input. A read outside its input reports an
// error and gives element 0, also within the bound.
func (g *gen) inputBound(n *ir.Load, _ []analysis.Range, _ bool) analysis.Range {
	in := n.In
	r, ok := g.inputRanges[in]
	if !ok {
		if g.opt.Batch {
			r = g.batchInputRange(in)
		} else {
			r = inputRange(in)
		}
		if g.inputRanges == nil {
			g.inputRanges = map[*ir.Input]analysis.Range{}
		}
		g.inputRanges[in] = r
	}
	return r
}

// batchInputRange bounds an integer input of a batch program, which runs
// the data of many instances and so cannot depend on one's values (but
// for what its BatchKey holds).
func (g *gen) batchInputRange(in *ir.Input) analysis.Range {
	r := finiteInputRange(in)
	// A batch program runs instances of one BatchKey: the shared inputs'
	// data is the key's (its digest), and so is the one bit of a varying
	// char input that says its codes are ASCII.
	switch {
	case !g.varies(in):
		// The data's own least and greatest values (not widened: the key
		// holds the data): a scoring matrix indexed by a query's letters
		// needs no check.
		r = r.Meet(exactInputRange(in))
	case in.T == ir.Char && asciiOnly(in):
		r = analysis.Span(0, 127)
	}
	return r
}

// finiteInputRange is the bound of data a program may not depend on: its
// type's finite range when the data holds no inf, which spares the inf
// rules of the arithmetic on it (one bit of the data decides the
// program), else nothing.
func finiteInputRange(in *ir.Input) analysis.Range {
	if !in.T.IsFloat() && in.T.HasInf() && !in.HoldsInf() {
		return analysis.Span(ir.FiniteRange(in.T))
	}
	return analysis.Full()
}

// HostInputRange is the bound of in's values a host program is
// specialised to: two problems whose inputs have the same bounds (and the
// same sizes) share a program.
func HostInputRange(in *ir.Input) analysis.Range { return inputRange(in) }

// exactInputRange is the least and greatest of in's values (Full for
// floats, no data or an inf sentinel among them).
func exactInputRange(in *ir.Input) analysis.Range {
	if in.T.IsFloat() || len(in.I) == 0 {
		return analysis.Full()
	}
	lo, hi := slices.Min(in.I), slices.Max(in.I)
	if in.T.HasInf() && hasInf(in, []int64{lo, hi}) {
		return analysis.Full()
	}
	return analysis.Span(lo, hi)
}

// inputRange bounds an integer input of every program but a batch's: by
// the data's least and greatest values, widened to powers of two (and
// their sign) so that data of similar magnitude shares one compiled
// program. The bounds spare the checks that keep a compiler from making
// the cell updates vector code on the host and cost a third of the
// knapsack's cell on the GPU: its j - wt[i-1], its cell + val[i-1]
// (NVRTC's disk cache keeps a program per bound). Data that changes from
// run to run of the program (ir.Input.PerRun) is bounded as a batch's.
func inputRange(in *ir.Input) analysis.Range {
	if in.T.IsFloat() || len(in.I) == 0 {
		return analysis.Full()
	}
	if in.PerRun {
		return finiteInputRange(in)
	}
	sp := in.IntSpan()
	lo, hi := sp.Lo, sp.Hi
	if in.T.HasInf() && hasInf(in, []int64{lo, hi}) {
		// An inf sentinel in the data: no bound that helps.
		return analysis.Full()
	}
	r := analysis.Span(-pow2AtLeast(-lo), pow2AtLeast(hi))
	// Data all of one sign keeps it, zero excluded: a weight that is never
	// 0 spares the check of w / wt[i-1].
	switch {
	case lo > 0:
		r.Lo = 1
	case hi < 0:
		r.Hi = -1
	}
	return r
}

// hasInf reports whether one of vs, values of in, is an inf sentinel of
// in's type (or beyond it).
func hasInf(in *ir.Input, vs []int64) bool {
	p, ng := ir.InfSentinel(in.T)
	for _, v := range vs {
		if v >= p || v <= ng {
			return true
		}
	}
	return false
}

// pow2AtLeast is 0 for x <= 0, else the least power of two >= x, or
// MaxInt64 above 2^62 (capping it at 2^62 had bounded a long input holding
// 2^62 + 5 by 2^62: a sum with it could lose its check).
func pow2AtLeast(x int64) int64 {
	if x <= 0 {
		return 0
	}
	if x > 1<<62 {
		return math.MaxInt64 // no power of two of int64 holds it
	}
	p := int64(1)
	for p < x {
		p <<= 1
	}
	return p
}

// rangeOf bounds the integer value of e in en. Floating expressions are
// unknown.
func (g *gen) rangeOf(e ir.Expr, en env) analysis.Range {
	if e.Type().IsFloat() {
		return analysis.Full()
	}
	w := g.walker()
	return w.Range(e, en)
}

// finiteRangeOf bounds the integer value of e in en where no failure
// happened before (analysis.Stops), the cells read within runCells.
func (g *gen) finiteRangeOf(e ir.Expr, en env) analysis.Range {
	if !g.runCells.IsFull() {
		en = en.WithCells(g.runCells)
	}
	return g.rangeFail(e, en, analysis.Stops)
}

// rangeFail bounds the integer value of e in en under the failure model f.
func (g *gen) rangeFail(e ir.Expr, en env, f analysis.Failure) analysis.Range {
	if e.Type().IsFloat() {
		return analysis.Full()
	}
	w := g.walker()
	w.Failure = f
	return w.Range(e, en)
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

// asciiOnly reports whether a char input's codes are all 0 to 127 (one of
// the data bits of codegen.BatchKey).
func asciiOnly(in *ir.Input) bool {
	for _, v := range in.I {
		if v < 0 || v > 127 {
			return false
		}
	}
	return true
}
