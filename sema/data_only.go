package sema

import (
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
)

// CheckData is Check without the recurrence: it checks the declarations,
// settings and arguments, binds and checks the data and the scalars, and
// sizes the grid, but lowers neither the recurrence, the schedule nor the
// answer. A batch runs it on the instances of a shape it has seen (the
// same file, sizes, scalars and data bits: engine), and gives the result
// the recurrence of the shape's first instance, checked in full (Adopt):
// lowering the recurrence is most of Check's time, and for one `.dp` file
// it depends on nothing else.
func CheckData(f *dsl.File, data *Data) (*ir.Problem, error) {
	return run(f, data, (*checker).checkData)
}

// Adopt completes p, made by CheckData, with the recurrence, schedule and
// answer of tmpl, an instance of the same file made by Check with the same
// sizes, scalars and data bits (whether inputs hold inf; the caller
// compares them). The expressions it takes read tmpl's inputs: the result
// is for runs that read only its data (p's Inputs) — a batch launch,
// whose program was made from tmpl — never for evaluating the recurrence.
func Adopt(p, tmpl *ir.Problem) *ir.Problem {
	q := *tmpl
	q.Name, q.File, q.Src = p.Name, p.File, p.Src
	q.Inputs, q.Scalars = p.Inputs, p.Scalars
	q.Dims, q.Rows, q.Cols, q.Mid, q.Inner = p.Dims, p.Rows, p.Cols, p.Mid, p.Inner
	return &q
}
