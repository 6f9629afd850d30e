package sema

import (
	"slices"
	"sync"
	"sync/atomic"

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

// A Prototype is a file's declarations, settings and args: line checked
// once (the part of CheckData that reads no data), for checking the data
// of many bindings of the file: a batch's instances. Lowering the
// declarations again for every instance was a third of the host's time
// an instance in a batch of short alignments. Safe for concurrent use.
type Prototype struct {
	c *checker // the declaration steps done, without errors; not written after Prepare
	// sides: the grid line's sides whose values follow from the shapes
	// of some inputs alone (literals, literal scalars, len/rows/cols):
	// their values by those shapes, found once (gridSide).
	sides map[dsl.Expr]*sideMemo
}

// sideMemo is one grid side's values by the shapes of the inputs it
// measures (at most maxMeasured), where no binding overrode a scalar it
// reads.
type sideMemo struct {
	inputs  []*inputInfo  // the prototype's inputs the side measures
	scalars []*scalarInfo // and the literal scalars it reads
	values  sync.Map      // sideKey -> int64
	n       atomic.Int32  // entries, bounded by maxSides
}

const (
	maxMeasured = 4
	maxSides    = 1 << 14
)

// sideKey is the shapes (rows, cols) of a side's measured inputs.
type sideKey [2 * maxMeasured]int

// memoSide makes e's sideMemo, or nil where e reads anything but
// literals, literal scalars and the sizes of inputs.
func (c *checker) memoSide(e dsl.Expr) *sideMemo {
	m := &sideMemo{}
	var walk func(e dsl.Expr) bool
	walk = func(e dsl.Expr) bool {
		switch e := e.(type) {
		case *dsl.IntLit, *dsl.FloatLit:
			return true
		case *dsl.Paren:
			return walk(e.X)
		case *dsl.Unary:
			return walk(e.X)
		case *dsl.Binary:
			return walk(e.X) && walk(e.Y)
		case *dsl.Ident:
			en := c.entity(e.Name)
			if en == nil || en.scalar == nil || !en.scalar.literal {
				return false
			}
			m.scalars = append(m.scalars, en.scalar)
			return true
		case *dsl.Call:
			if n := e.Func.Name; (n != "len" && n != "rows" && n != "cols") || len(e.Args) != 1 {
				return false
			}
			id, ok := e.Args[0].(*dsl.Ident)
			if !ok || c.entity(id.Name) == nil || c.entity(id.Name).input == nil {
				return false
			}
			in := c.entity(id.Name).input
			if !slices.Contains(m.inputs, in) {
				m.inputs = append(m.inputs, in)
			}
			return len(m.inputs) <= maxMeasured
		}
		return false
	}
	if !walk(e) {
		return nil
	}
	return m
}

// side is the memo's value of the side for c's data, if known; key is
// where to keep it once computed (ok false: not to be kept).
func (m *sideMemo) side(c *checker) (v int64, found bool, key sideKey, ok bool) {
	if len(c.errs) > 0 {
		return 0, false, key, false
	}
	for _, s := range m.scalars {
		if c.scalars[s.index].overrideBy != "" {
			return 0, false, key, false
		}
	}
	for k, in := range m.inputs {
		x := c.inputs[in.index]
		if !x.ok {
			return 0, false, key, false
		}
		key[2*k], key[2*k+1] = x.in.Rows, x.in.Cols
	}
	if v, found := m.values.Load(key); found {
		return v.(int64), true, key, true
	}
	return 0, false, key, true
}

// keep remembers a side's value v for key, up to maxSides values.
func (m *sideMemo) keep(key sideKey, v int64) {
	if m.n.Load() < maxSides {
		if _, loaded := m.values.LoadOrStore(key, v); !loaded {
			m.n.Add(1)
		}
	}
}

// Prepare checks f's declarations, settings and args: line for
// Prototype.CheckData. It returns nil where they hold an error: CheckData
// (the package function) then reports it with the data's errors.
func Prepare(f *dsl.File, names []Name) *Prototype {
	c := newChecker(f, &Data{Names: names})
	c.checkDecls()
	for _, s := range c.scalars {
		if !s.s.Derived {
			c.evalScalar(s) // reads no other name, no data
			s.literal, s.ok = true, false
		}
	}
	if len(c.errs) > 0 {
		return nil
	}
	c.data = nil
	pr := &Prototype{c: c, sides: map[dsl.Expr]*sideMemo{}}
	if c.grid != nil {
		for _, e := range c.grid.Sides {
			if m := c.memoSide(e); m != nil {
				pr.sides[e] = m
			}
		}
	}
	c.proto = pr
	return pr
}

// CheckData is CheckData(f, data) for the file pr was prepared from, data
// bound to that same parsed file: the same problem or the same errors.
func (pr *Prototype) CheckData(data *Data) (*ir.Problem, error) {
	return pr.run(data, (*checker).checkValues)
}

// Check is Check(f, data) for the file pr was prepared from: the
// recurrence lowered with data's inputs (a batch's instances on the CPU,
// whose programs read them).
func (pr *Prototype) Check(data *Data) (*ir.Problem, error) {
	return pr.run(data, func(c *checker) {
		c.checkValues()
		c.checkRest()
	})
}

// run is run (sema.go) on a clone of pr's checker.
func (pr *Prototype) run(data *Data, steps func(*checker)) (*ir.Problem, error) {
	c := pr.c.clone(data)
	steps(c)
	return c.result()
}

// clone is a checker for data with c's declarations: the parsed file's
// declarations and the maps of settings shared (read only), every input,
// scalar and name of its own (the data steps write them), in a few
// allocations.
func (c *checker) clone(data *Data) *checker {
	type input struct {
		info inputInfo
		in   ir.Input
	}
	type scalar struct {
		info scalarInfo
		s    ir.Scalar
	}
	type fresh struct { // one allocation for the checker and its problem
		c checker
		p ir.Problem
	}
	x := &fresh{c: *c, p: *c.p}
	n, p := &x.c, &x.p
	n.p, n.data, n.errs = p, data, nil
	n.laterReported, n.infInputs, n.shared = nil, nil, nil
	ins := make([]input, len(c.inputs))
	n.inputs, p.Inputs = make([]*inputInfo, len(c.inputs)), nil
	if len(c.inputs) > 0 {
		p.Inputs = make([]*ir.Input, len(c.inputs))
	}
	for k, info := range c.inputs {
		ins[k] = input{*info, *info.in}
		ins[k].info.in = &ins[k].in
		n.inputs[k], p.Inputs[k] = &ins[k].info, &ins[k].in
	}
	scs := make([]scalar, len(c.scalars))
	n.scalars, p.Scalars = make([]*scalarInfo, len(c.scalars)), nil
	if len(c.scalars) > 0 {
		p.Scalars = make([]*ir.Scalar, len(c.scalars))
	}
	for k, info := range c.scalars {
		scs[k] = scalar{*info, *info.s}
		scs[k].info.s = &scs[k].s
		n.scalars[k], p.Scalars[k] = &scs[k].info, &scs[k].s
	}
	n.ents = make([]entity, len(c.ents))
	for k, e := range c.ents {
		n.ents[k] = e
		if e.input != nil {
			n.ents[k].input = n.inputs[e.input.index]
		} else {
			n.ents[k].scalar = n.scalars[e.scalar.index]
		}
	}
	return n
}
