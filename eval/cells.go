package eval

import (
	"fmt"
	"strings"
	"sync"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// This file is the evaluator of the generic schedules (plan.Interval,
// plan.Hyperplanar). Their references reach over ranges of earlier fronts,
// so there is no window of lines to batch over: the whole grid is in
// memory and a cell may read any cell of an earlier front. A CellProgram
// computes one cell at a time with the scalar closures of scalar.go, its
// cell references reading the grid itself; only the case whose condition
// holds is evaluated, so a reduction in a case not taken costs nothing.
// Where the time goes, in a reduction over a range of cells, the body is
// compiled a second time into loops over blocks of the reduction variable
// (kvec.go), which the scalar closures hand the reduction to.

// CellProgram is a problem's recurrence compiled to compute single cells of
// a grid kept whole in memory, in the order of a generic plan's fronts. It
// is safe for concurrent use: each worker computes with its own
// CellMachine.
type CellProgram struct {
	p          *ir.Problem
	h          plan.Hyperplane
	rows, cols int64
	data       any // the grid's cells: []int16, []int32, []int64, []float32 or []float64
	// dataT, when not nil, is the transposed copy (plan.Plan.Transposed):
	// cell [i][j] is also at dataT[j*rows+i], written with every cell,
	// so that a reduction walking a column reads consecutive elements.
	dataT      any
	slots      map[*ir.Reduce]int
	cases      []cellCase
	checked    map[*ir.CellRef]bool
	regs       kregs               // the vector registers of every vectorised reduction
	vectorised map[*ir.Reduce]bool // the reductions with a vector form
	facts      cellFacts
	// The shortest reductions that run the vector form, and that a
	// machine may split (kMinLanes, kSplitLanes; the tests move them).
	minLanes, splitLanes int64
}

// cellFacts are what the range analysis (analysis.Walker) proves of the
// recurrence over the whole grid: the integer operations that never leave
// the finite range, whose vector loops leave the check out. (Its proofs
// that a read stays inside assume that a failed operation stops the
// evaluation; the closures go on to the end of the cell after one, and the
// loops on the lanes that do not need a value, so they check every read.)
// An operation the analysis visits more than once is safe only if every
// visit proves it.
type cellFacts struct {
	safe map[ir.Expr]bool
}

func (f *cellFacts) Proven(ir.Expr, bool) {}

func (f *cellFacts) Sides(e ir.Expr, _ analysis.Range, _ ir.Type, safe bool) {
	if was, seen := f.safe[e]; seen {
		safe = safe && was
	}
	f.safe[e] = safe
}

func (f *cellFacts) Known(ir.Expr, analysis.Tri) {}

// analyze runs the range analysis of every case over the whole grid.
func (c *CellProgram) analyze() {
	f := &c.facts
	f.safe = map[ir.Expr]bool{}
	w := &analysis.Walker{Config: analysis.Config{
		Failure: analysis.Stops, Rows: c.rows, Cols: c.cols, Input: analysis.NewInputBounds(c.p).Load, Rec: f,
	}}
	en := analysis.NewEnv(analysis.Span(0, c.rows-1), analysis.Span(0, c.cols-1))
	for _, cs := range c.p.Cases {
		if cs.Cond != nil {
			w.Walk(cs.Cond, en)
		}
		w.Walk(cs.Value, en)
	}
}

// cellCase is one case: its condition (nil for otherwise) and what stores
// its value in the cell at a flat index of the grid.
type cellCase struct {
	cond  bFn
	store func(f *frame, at int64)
}

// CompileCells compiles p's recurrence, planned with a generic schedule by
// pl, to compute the cells of g (p's whole grid, which it reads and writes)
// one at a time: front by front, in the order of pl.T, the cells of a front
// in any order or at once. The references pl marks Checked are verified on
// every read: the cell read must be on an earlier front.
//
// gT, when not nil, is a cols x rows grid of the same type that the
// program keeps as the transposed copy of g (plan.Plan.Transposed; the
// caller allocates it, counted by plan.CPUMemory, or passes nil to run
// without).
func CompileCells(p *ir.Problem, pl *plan.Plan, g, gT *backend.Grid) (*CellProgram, error) {
	if !pl.Schedule.Generic() {
		return nil, fmt.Errorf("compiling %s: the %s schedule is run with Compile, not CompileCells", p.Name, pl.Schedule)
	}
	if p.Rows <= 0 || p.Cols <= 0 {
		return nil, fmt.Errorf("compiling %s: the grid is %dx%d", p.Name, p.Rows, p.Cols)
	}
	if !p.CellType.Is(ir.IsCell) {
		return nil, fmt.Errorf("compiling %s: unsupported cell type %s", p.Name, p.CellType)
	}
	if !g.Fits(p.CellType, p.Rows, p.Cols) {
		return nil, fmt.Errorf("compiling %s: the grid is not a %dx%d grid of %s", p.Name, p.Rows, p.Cols, p.CellType)
	}
	if len(p.Cases) == 0 {
		return nil, fmt.Errorf("compiling %s: the recurrence has no cases", p.Name)
	}
	c := &CellProgram{
		p: p, h: pl.T, rows: p.Rows, cols: p.Cols,
		slots: map[*ir.Reduce]int{}, checked: map[*ir.CellRef]bool{}, vectorised: map[*ir.Reduce]bool{},
		minLanes: kMinLanes, splitLanes: kSplitLanes,
	}
	if gT != nil && !gT.Fits(p.CellType, p.Cols, p.Rows) {
		return nil, fmt.Errorf("compiling %s: the transposed grid is not a %dx%d grid of %s", p.Name, p.Cols, p.Rows, p.CellType)
	}
	cellsOf := func(g *backend.Grid) any {
		if g == nil {
			return nil
		}
		switch {
		case p.CellType == ir.Double:
			return backend.Cells[float64](g)
		case p.CellType == ir.Float:
			return backend.Cells[float32](g)
		case p.CellType.Size() == 8:
			return backend.Cells[int64](g)
		case p.CellType.Size() == 4:
			return backend.Cells[int32](g)
		case p.CellType.Size() == 2:
			return backend.Cells[int16](g)
		}
		return nil
	}
	c.data, c.dataT = cellsOf(g), cellsOf(gT)
	if c.data == nil {
		return nil, fmt.Errorf("compiling %s: unsupported cell type %s", p.Name, p.CellType)
	}
	for _, d := range pl.Deps {
		if d.Checked {
			c.checked[d.Ref] = true
		}
	}
	for _, cs := range p.Cases {
		assignSlots(cs.Cond, c.slots)
		assignSlots(cs.Value, c.slots)
	}
	c.analyze()
	cc := &cellComp{prog: c}
	cc.s = &scomp{sc: &scope{slots: c.slots}, leaf: cc.leaf}
	rules := newCellRules(p)
	for _, cs := range p.Cases {
		var k cellCase
		if cs.Cond != nil {
			k.cond = cc.s.boolFn(cs.Cond)
		}
		v := toCellType(cs.Value, p.CellType)
		pos := cs.Value.Position()
		switch d := c.data.(type) {
		case []float64:
			k.store = storeCell(d, transposed(c, d), p.Rows, &rules.floats, cc.s.floatFn(v), pos)
		case []float32:
			k.store = storeCell(d, transposed(c, d), p.Rows, &rules.floats, cc.s.floatFn(v), pos)
		case []int64:
			k.store = storeCell(d, transposed(c, d), p.Rows, &rules.ints, cc.s.intFn(v), pos)
		case []int32:
			k.store = storeCell(d, transposed(c, d), p.Rows, &rules.ints, cc.s.intFn(v), pos)
		case []int16:
			k.store = storeCell(d, transposed(c, d), p.Rows, &rules.ints, cc.s.intFn(v), pos)
		}
		c.cases = append(c.cases, k)
	}
	if cc.s.err != nil {
		return nil, fmt.Errorf("compiling %s: %w", p.Name, cc.s.err)
	}
	return c, nil
}

// store is the element type of a grid's memory, one per cell type.
type store interface {
	int16 | int32 | int64 | float32 | float64
}

// storeCell is the store of a case: the value, checked by the cell type's
// rule, narrowed to the grid's element type.
func storeCell[S store, T num](data, dataT []S, rows int64, rule *cellRule[T], val func(*frame) T, pos source.Pos) func(*frame, int64) {
	return func(f *frame, at int64) {
		v := val(f)
		if f.err != nil {
			return
		}
		if rule.refuses(v) {
			f.fail(rule.err(pos, f.i, f.j, v))
			return
		}
		data[at] = S(v)
		if dataT != nil {
			dataT[f.j*rows+f.i] = S(v)
		}
	}
}

// transposed is the program's transposed copy as a slice of data's type
// (nil when it keeps none).
func transposed[S store](c *CellProgram, _ []S) []S {
	t, _ := c.dataT.([]S)
	return t
}

// cellComp compiles the closures of a CellProgram: the scalar compiler of
// scalar.go, with cell references and reductions compiled here (its leaf).
type cellComp struct {
	prog *CellProgram
	s    *scomp
}

// leaf compiles the nodes that differ from the batch kernels' closures:
// cell references read the grid, and a reduction that has a vector form
// gets it, around its scalar form.
func (c *cellComp) leaf(e ir.Expr) any {
	switch n := e.(type) {
	case *ir.CellRef:
		fi, fj := c.s.intFn(n.I), c.s.intFn(n.J)
		switch d := c.prog.data.(type) {
		case []float64:
			return cellRead[float64, float64](c.prog, n, d, fi, fj)
		case []float32:
			return cellRead[float32, float64](c.prog, n, d, fi, fj)
		case []int64:
			return cellRead[int64, int64](c.prog, n, d, fi, fj)
		case []int32:
			return cellRead[int32, int64](c.prog, n, d, fi, fj)
		case []int16:
			return cellRead[int16, int64](c.prog, n, d, fi, fj)
		}
	case *ir.Reduce:
		return c.reduce(n)
	}
	return nil
}

// cellRead reads cell [fi][fj] of the grid: a read outside the grid is an
// error, and so is a read of a checked reference that is not on an earlier
// front.
func cellRead[S store, T num](c *CellProgram, n *ir.CellRef, data []S, fi, fj iFn) func(*frame) T {
	rows, cols := c.rows, c.cols
	if !c.checked[n] {
		return func(f *frame) T {
			i, j := fi(f), fj(f)
			if uint64(i) >= uint64(rows) || uint64(j) >= uint64(cols) {
				f.fail(OutsideGrid(n, i, j, rows, cols))
				return 0
			}
			return T(data[i*cols+j])
		}
	}
	h := c.h
	return func(f *frame) T {
		i, j := fi(f), fj(f)
		if uint64(i) >= uint64(rows) || uint64(j) >= uint64(cols) {
			f.fail(OutsideGrid(n, i, j, rows, cols))
			return 0
		}
		if h.T(i, j) >= h.T(f.i, f.j) {
			f.fail(c.notYet(f, n, i, j))
			return 0
		}
		return T(data[i*cols+j])
	}
}

// notYet is the error of a checked reference that reads cell [i][j], which
// is not on an earlier front than the cell being computed: it names both
// cells, the input values the index was read from, and the fronts.
func (c *CellProgram) notYet(f *frame, n *ir.CellRef, i, j int64) error {
	var binds []Binding
	for r, slot := range c.slots {
		binds = append(binds, Binding{Reduce: r, Value: f.vars[slot]})
	}
	return NotYet(c.p, c.h, n, f.i, f.j, i, j, binds)
}

// NotYet is the error of reference n, checked for its front (plan
// Dependency.Checked), that read cell [i][j] while computing cell [ci][cj],
// whose front under h is not later: the cells, the input values the index
// was read from (those that binds, the values of the reductions around n,
// let it evaluate), and the fronts. Every back end words it so.
func NotYet(p *ir.Problem, h plan.Hyperplane, n *ir.CellRef, ci, cj, i, j int64, binds []Binding) error {
	self, read := p.CellText(ci, cj), p.CellText(i, j)
	var loads []string
	seen := map[string]bool{}
	for _, x := range []ir.Expr{n.I, n.J} {
		ir.Walk(x, func(e ir.Expr) bool {
			ld, ok := e.(*ir.Load)
			if !ok {
				return true
			}
			idx := make([]string, len(ld.Index))
			for k, ix := range ld.Index {
				v, err := EvalWith(ix, ci, cj, binds, nil)
				if err != nil {
					return false
				}
				idx[k] = fmt.Sprintf("[%d]", v.I)
			}
			v, err := EvalWith(ld, ci, cj, binds, nil)
			if err != nil {
				return false
			}
			s := ld.In.Name + strings.Join(idx, "") + " = " + v.String()
			if !seen[s] {
				seen[s] = true
				loads = append(loads, s)
			}
			return false
		})
	}
	via := ""
	if len(loads) > 0 {
		via = " (" + strings.Join(loads, ", ") + ")"
	}
	t, tr := h.T(ci, cj), h.T(i, j)
	front := h.In(p)
	if tr == t {
		return errAt(n.Pos, "%s reads %s%s, which is not computed yet: both are on front %s = %d, whose cells are computed at the same time", self, read, via, front, t)
	}
	return errAt(n.Pos, "%s reads %s%s, which is not computed yet: it is on front %s = %d, after the front of %s (%d); fronts are computed in increasing order", self, read, via, front, tr, self, t)
}

// CellMachine is one worker's state for computing cells: the scalar frame
// and the registers of the vectorised reductions.
type CellMachine struct {
	prog    *CellProgram
	fr      frame
	kv      kmach
	split   int
	run     func(work func(w int))
	helpers []*CellMachine
	gaveUp  int64 // reductions whose vector form gave up, for the tests
}

// NewMachine returns a machine that computes cells of c.
func (c *CellProgram) NewMachine() *CellMachine {
	m := &CellMachine{prog: c, split: 1}
	m.fr.vars = make([]int64, len(c.slots))
	m.fr.p = c.p
	m.fr.cm = m
	m.kv.grow(c.regs)
	return m
}

// Split lets the machine spread a long min or max reduction over n
// workers, for fronts of fewer cells than workers: a 1-D look-back has one
// cell per front. run must call work(0) on the caller's goroutine and
// work(w), 0 < w < n, on any of the other workers that is free, and return
// when every call has returned; the calls take the reduction's chunks from
// a counter, so that a worker that never comes holds nobody up. The
// executor's workers stay ready between the cells of a run (a goroutine
// started per reduction would take longer to wake than a chunk takes);
// run nil starts a goroutine per worker. Worker w > 0 computes on a helper
// machine of m's own. The value is the same as computed in one piece (the
// first of equal values wins, as in the sequential loop); sums are never
// split, since the order of their checked additions decides what
// overflows.
func (m *CellMachine) Split(n int, run func(work func(w int))) {
	n = max(n, 1)
	for len(m.helpers) < n-1 {
		m.helpers = append(m.helpers, m.prog.NewMachine())
	}
	m.split, m.run = n, run
	if run == nil {
		m.run = func(work func(w int)) { goWork(n, work) }
	}
}

// goWork calls work(1) .. work(n-1) on a goroutine each and work(0) on
// the caller's, and waits for them.
func goWork(n int, work func(w int)) {
	var wg sync.WaitGroup
	for w := 1; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(0)
	wg.Wait()
}

// Compute computes cell [i][j] and stores it in the grid. Every cell it
// reads must be computed already (on an earlier front). The first error (a
// read outside the grid or an input, a checked read of a cell not computed
// yet, an overflow, a division by zero, a NaN) is returned, positioned at
// the `.dp` expression and naming the cell.
func (m *CellMachine) Compute(i, j int64) error {
	f := &m.fr
	f.i, f.j, f.err = i, j, nil
	at := i*m.prog.cols + j
	for _, cs := range m.prog.cases {
		if cs.cond != nil {
			take := cs.cond(f)
			if f.err != nil {
				return f.err
			}
			if !take {
				continue
			}
		}
		cs.store(f, at)
		return f.err
	}
	return nil
}
