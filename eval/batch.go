package eval

import (
	"fmt"
	"sync"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// Axis says which index varies along a batch.
type Axis uint8

const (
	// AlongJ: a batch is a segment of one row, i fixed and j = Lane0,
	// Lane0+1, ... (the rows and wavefront schedules).
	AlongJ Axis = iota
	// AlongI: a batch is a segment of one column (the cols schedule).
	AlongI
)

// Line is one row (AlongJ) or column (AlongI) of the executor's window on
// the grid: the cell at lane index x is I[x-Base] for integer cells and
// F[x-Base] for floating ones (int and long cells are both held as int64,
// float and double cells as float64).
type Line struct {
	I    []int64
	F    []float64
	Base int64
}

// Batch is a run of cells of one row (or column) to compute: lane indices
// Lane0 .. Lane0+N-1 at step index Step. Lines[k] is the line at step index
// Step - (k + lo), where lo, hi = Recurrence.Steps(); the output line is
// Lines[-lo]. Lines must hold every cell the recurrence may read: the cells
// already computed, LaneReach lanes around the batch, and whole lines when
// FullLines is true.
type Batch struct {
	Step  int64
	Lane0 int64
	N     int
	Lines []Line
}

// Recurrence is a problem's recurrence compiled for one axis and lane
// order. It is safe for concurrent use; each worker runs kernels on its own
// Machine.
type Recurrence struct {
	p        *ir.Problem
	axis     Axis
	desc     bool
	cellT    ir.Type
	cls      class
	slots    map[*ir.Reduce]int
	dLo, dHi int64 // step offsets read, 0 included
	// deps, when not nil, are the plan's dependencies by reference: their
	// offsets are used as they are (CompilePlan).
	deps     map[*ir.CellRef]*plan.Dependency
	reachLo  int64 // lanes read before the cell (same or other lines)
	reachHi  int64 // lanes read after the cell
	full     bool  // some reference has a data-dependent lane
	stepN    int64 // grid extent along the step axis
	laneN    int64 // grid extent along the lane axis
	inRanges analysis.InputBounds
	stepOff  map[*ir.CellRef]int64
	anyCase  []caseFns // scalar closures of every case, for the fallbacks
	rules    cellRules // what a computed cell may hold
	// chain (rows): the reduction each machine computes from the one S
	// columns before it in the same row (analysis.FirstChain; chainFn).
	chain *ir.Reduce

	mu      sync.Mutex
	kernels map[string]*Kernel
	// scratch holds analyzers for Kernel to reuse: it runs once per tile,
	// and a long run has hundreds of thousands of tiles, whose garbage
	// would otherwise double the process's heap between collections.
	scratch sync.Pool
}

// caseFns are the scalar closures of one case: its condition (nil for
// otherwise) and its value converted to the cell type.
type caseFns struct {
	cond bFn
	val  laneStore
}

// Compile compiles the recurrence of p for batches along axis; descending
// says that the lanes of a batch are computed from the last to the first
// (a backward wavefront). It checks what the batch model needs: every cell
// reference reads a line at a constant step offset, and a reference to the
// line being computed reads a constant number of lanes back in the lane
// order.
func Compile(p *ir.Problem, axis Axis, descending bool) (*Recurrence, error) {
	return compile(p, axis, descending, nil)
}

// CompilePlan compiles the recurrence of p for the v1 sweep pl plans: the
// axis and lane order follow its schedule, and every reference's offsets
// are the plan's (plan.Dependency.DI, DJ), not derived again, so that what
// the plan accepted is what runs.
func CompilePlan(p *ir.Problem, pl *plan.Plan) (*Recurrence, error) {
	if pl.Schedule.Generic() {
		return nil, fmt.Errorf("compiling %s: the %s schedule runs with CompileCells", p.Name, pl.Schedule)
	}
	axis, desc := AlongJ, false
	switch pl.Schedule {
	case plan.Cols:
		axis = AlongI
	case plan.Wavefront:
		desc = pl.Direction == plan.Backward
	}
	deps := make(map[*ir.CellRef]*plan.Dependency, len(pl.Deps))
	for n := range pl.Deps {
		deps[pl.Deps[n].Ref] = &pl.Deps[n]
	}
	r, err := compile(p, axis, desc, deps)
	if err == nil && pl.Schedule == plan.Rows {
		r.chain = analysis.FirstChain(p)
	}
	return r, err
}

// Chain is the reduction r's machines compute as a chain, nil without one
// (or without r).
func (r *Recurrence) Chain() *ir.Reduce {
	if r == nil {
		return nil
	}
	return r.chain
}

// ChainBytes is what each machine of r keeps for its chained reduction
// (three longs a column of the row), 0 without one.
func (r *Recurrence) ChainBytes() int64 {
	if r.chain == nil {
		return 0
	}
	return plan.ChainColumnBytes * r.laneN
}

// compile is Compile with the offsets of deps where given (nil: derived
// from the references by the planner's rule, analysis.Offset).
func compile(p *ir.Problem, axis Axis, descending bool, deps map[*ir.CellRef]*plan.Dependency) (*Recurrence, error) {
	if p.Rows <= 0 || p.Cols <= 0 {
		return nil, fmt.Errorf("compiling %s: the grid is %dx%d", p.Name, p.Rows, p.Cols)
	}
	if !p.CellType.Is(ir.IsCell) {
		return nil, fmt.Errorf("compiling %s: unsupported cell type %s", p.Name, p.CellType)
	}
	if len(p.Cases) == 0 {
		return nil, fmt.Errorf("compiling %s: the recurrence has no cases", p.Name)
	}
	r := &Recurrence{
		p: p, axis: axis, desc: descending, cellT: p.CellType, cls: classOf(p.CellType),
		slots: map[*ir.Reduce]int{}, inRanges: analysis.NewInputBounds(p),
		stepOff: map[*ir.CellRef]int64{}, kernels: map[string]*Kernel{},
		rules: newCellRules(p), deps: deps,
	}
	r.stepN, r.laneN = p.Rows, p.Cols
	if axis == AlongI {
		r.stepN, r.laneN = p.Cols, p.Rows
	}
	for _, c := range p.Cases {
		assignSlots(c.Cond, r.slots)
		assignSlots(c.Value, r.slots)
	}
	var errs []error
	for _, c := range p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				if ref, ok := x.(*ir.CellRef); ok {
					if err := r.checkRef(ref); err != nil {
						errs = append(errs, err)
					}
				}
				return true
			})
		}
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	sc := &scomp{sc: &scope{slots: r.slots}}
	for _, c := range p.Cases {
		var f caseFns
		if c.Cond != nil {
			f.cond = sc.boolFn(c.Cond)
		}
		f.val = sc.cellValue(toCellType(c.Value, r.cellT), r.cls)
		r.anyCase = append(r.anyCase, f)
	}
	if sc.err != nil {
		return nil, fmt.Errorf("compiling %s: %w", p.Name, sc.err)
	}
	return r, nil
}

// toCellType converts a case value to the cell type when sema has not.
func toCellType(e ir.Expr, t ir.Type) ir.Expr {
	if e.Type() == t {
		return e
	}
	return &ir.Convert{Node: ir.Node{T: t, Pos: e.Position()}, X: e}
}

func (r *Recurrence) stepVar() ir.VarKind {
	if r.axis == AlongJ {
		return ir.VarI
	}
	return ir.VarJ
}

func (r *Recurrence) laneVar() ir.VarKind {
	if r.axis == AlongJ {
		return ir.VarJ
	}
	return ir.VarI
}

// refIndices returns a reference's step-axis and lane-axis index.
func (r *Recurrence) refIndices(ref *ir.CellRef) (step, lane ir.Expr) {
	if r.axis == AlongJ {
		return ref.I, ref.J
	}
	return ref.J, ref.I
}

// offsets are a reference's step and lane offsets: the plan's when the
// Recurrence was compiled for one, else by the planner's rule.
func (r *Recurrence) offsets(ref *ir.CellRef) (d int64, dOK bool, b int64, bOK bool) {
	if dep, ok := r.deps[ref]; ok {
		step, lane := dep.DI, dep.DJ
		if r.axis == AlongI {
			step, lane = dep.DJ, dep.DI
		}
		if step != nil {
			d, dOK = *step, true
		}
		if lane != nil {
			b, bOK = *lane, true
		}
		return d, dOK, b, bOK
	}
	step, lane := r.refIndices(ref)
	d, dOK = constOffset(step, r.stepVar())
	b, bOK = constOffset(lane, r.laneVar())
	return d, dOK, b, bOK
}

func (r *Recurrence) checkRef(ref *ir.CellRef) error {
	d, ok, b, laneOK := r.offsets(ref)
	if !ok {
		axis := "row"
		if r.axis == AlongI {
			axis = "column"
		}
		return errAt(ref.Pos, "%s: the CPU executor needs a constant %s offset here", refText(ref), axis)
	}
	r.stepOff[ref] = d
	r.dLo, r.dHi = min(r.dLo, d), max(r.dHi, d)
	if !laneOK {
		if d == 0 {
			return errAt(ref.Pos, "%s reads the line being computed at a data-dependent position", refText(ref))
		}
		r.full = true
		return nil
	}
	if d == 0 && (b == 0 || (b < 0) != r.desc) {
		return errAt(ref.Pos, "%s reads a cell of the line being computed that is not computed yet", refText(ref))
	}
	if b > 0 {
		r.reachLo = max(r.reachLo, b)
	} else {
		r.reachHi = max(r.reachHi, -b)
	}
	return nil
}

// constOffset returns d when e is `v - d` for the index variable v
// (analysis.Offset, the planner's rule).
func constOffset(e ir.Expr, v ir.VarKind) (int64, bool) { return analysis.Offset(e, v) }

// Steps returns the range of step offsets lo..hi (lo <= 0 <= hi) of the
// lines a batch reads: offset d is the line at step index Step - d.
func (r *Recurrence) Steps() (lo, hi int64) { return r.dLo, r.dHi }

// LaneReach returns how many lanes before and after a cell the recurrence
// reads at constant offsets: a batch's lines must hold lanes
// Lane0-before .. Lane0+N-1+after.
func (r *Recurrence) LaneReach() (before, after int64) { return r.reachLo, r.reachHi }

// FullLines reports whether some reference reads a data-dependent lane, so
// that every line must hold the whole extent of the grid.
func (r *Recurrence) FullLines() bool { return r.full }

// Kernel returns the kernel specialised for the cells of rows iLo..iHi and
// columns jLo..jHi (inclusive): the conditions that are constant there are
// folded and the reads that cannot leave the grid are not checked. Kernels
// are cached by what the analysis decided, so regions with the same facts
// share one.
func (r *Recurrence) Kernel(iLo, iHi, jLo, jHi int64) (*Kernel, error) {
	a, _ := r.scratch.Get().(*analyzer)
	if a == nil {
		a = &analyzer{}
	}
	*a = analyzer{rec: r, iLo: iLo, iHi: iHi, jLo: jLo, jHi: jHi, w: a.w, sig: a.sig[:0], caseConds: a.caseConds[:0]}
	a.analyze()
	r.mu.Lock()
	k := r.kernels[string(a.sig)] // no allocation for the lookup
	r.mu.Unlock()
	key := ""
	if k == nil {
		key = string(a.sig)
	}
	r.scratch.Put(a)
	if k != nil {
		return k, nil
	}
	f := &facts{proven: map[ir.Expr]bool{}, sides: map[ir.Expr]uint8{}, known: map[ir.Expr]tri{}}
	a2 := analyzer{rec: r, iLo: iLo, iHi: iHi, jLo: jLo, jHi: jHi, rec2: f}
	a2.analyze()
	f.cases = append([]tri(nil), a2.caseConds...)
	k, err := r.compileKernel(f)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if old := r.kernels[key]; old != nil {
		k = old
	} else {
		r.kernels[key] = k
	}
	r.mu.Unlock()
	return k, nil
}

// Kernels is the number of distinct kernels compiled so far.
func (r *Recurrence) Kernels() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.kernels)
}

// instr is one step of a kernel: an operation over the whole batch.
type instr func(m *Machine)

// Kernel computes batches of cells for one set of facts.
type Kernel struct {
	rec   *Recurrence
	prog  []instr
	seqs  []*seqCase // cases that read the line being computed, in case order
	und   *undecided // lanes whose case depends on the line being computed
	blend *blendCase // the case the scan stores for the lanes it does not compute
	fast  scanFn     // the scan of the single common case, when it has one
	nSI   int        // int64 scalar registers (bools as 0 or 1)
	nSF   int        // float64 scalar registers
	nVI   int        // vector registers of each element type
	nVF   int
	nVB   int
}

// Machine is one worker's registers for running kernels.
type Machine struct {
	rec    *Recurrence
	b      *Batch
	n      int
	out    int // index of the output line in b.Lines
	fr     frame
	ints   bank[int64]
	floats bank[float64]
	bools  bank[bool] // vector registers only: scalar bools are ints
	cap    int
	allT   []bool
	// The chained reduction's value and bound at each column, and the
	// row + 1 they were computed for (0: none): chainFn.
	chainV, chainH, chainRow []int64
}

// elem is the element type of a register: integer values (int, long,
// char, and bool as 0 or 1 in scalar registers) are held as int64,
// floating ones as float64, masks and vector bools as bool. The code that
// is the same for every type is written once over elem; its loops are
// instantiated per type (each has its own GC shape), so they compile to
// the same machine code as a hand-written copy.
type elem interface{ int64 | float64 | bool }

// num is the element types of cells and arithmetic.
type num interface{ int64 | float64 }

// bank is the registers of one element type.
type bank[T elem] struct {
	s []T   // scalar registers
	v [][]T // vector registers: the batch's values, in x or a view elsewhere
	x [][]T // the storage of each vector register
	z []T   // zeros, for a read that no lane needs
}

// bankOf returns m's registers of type T. It is called once per
// instruction, never per lane.
func bankOf[T elem](m *Machine) *bank[T] {
	var z T
	switch any(z).(type) {
	case int64:
		return any(&m.ints).(*bank[T])
	case float64:
		return any(&m.floats).(*bank[T])
	}
	return any(&m.bools).(*bank[T])
}

// grow makes room for ns scalar and nv vector registers of up to lanes
// lanes.
func (b *bank[T]) grow(ns, nv, lanes int) {
	for len(b.s) < ns {
		b.s = append(b.s, *new(T))
	}
	for len(b.x) < nv {
		b.x = append(b.x, make([]T, lanes))
		b.v = append(b.v, nil)
	}
}

// get reads lane k of an operand in a vector or scalar register.
func (b *bank[T]) get(o opnd, k int) T {
	if o.vec {
		return b.v[o.reg][k]
	}
	return b.s[o.reg]
}

// NewMachine returns registers for batches of up to maxLanes cells.
func (r *Recurrence) NewMachine(maxLanes int) *Machine {
	maxLanes = max(maxLanes, 1)
	m := &Machine{rec: r, cap: maxLanes, out: int(-r.dLo)}
	if r.chain != nil {
		m.chainV, m.chainH, m.chainRow = make([]int64, r.laneN), make([]int64, r.laneN), make([]int64, r.laneN)
	}
	m.fr.vars = make([]int64, len(r.slots))
	m.fr.m = m
	m.ints.z = make([]int64, maxLanes)
	m.floats.z = make([]float64, maxLanes)
	m.allT = make([]bool, maxLanes)
	for k := range m.allT {
		m.allT[k] = true
	}
	return m
}

// Bytes is the memory the machine's registers hold.
func (m *Machine) Bytes() int64 {
	return int64(m.cap) * int64(8*(len(m.ints.x)+len(m.floats.x)+2)+len(m.bools.x)+1)
}

func (m *Machine) ensure(k *Kernel) {
	m.ints.grow(k.nSI, k.nVI, m.cap)
	m.floats.grow(k.nSF, k.nVF, m.cap)
	m.bools.grow(0, k.nVB, m.cap)
}

// Run computes the cells of batch b into its output line with kernel k.
// The first error (a read outside the grid or an input, a division by zero,
// an int overflow) stops it.
func (m *Machine) Run(k *Kernel, b *Batch) error {
	if b.N <= 0 {
		return nil
	}
	if b.N > m.cap {
		return fmt.Errorf("internal error: batch of %d cells on a machine for %d", b.N, m.cap)
	}
	r := m.rec
	if len(b.Lines) != int(r.dHi-r.dLo+1) {
		return fmt.Errorf("internal error: batch with %d lines, the recurrence reads %d", len(b.Lines), r.dHi-r.dLo+1)
	}
	out := b.Lines[m.out]
	s := b.Lane0 - out.Base
	size := out.len(r.cls)
	if s < 0 || s+int64(b.N) > int64(size) {
		return fmt.Errorf("internal error: the output line does not hold lanes %d..%d", b.Lane0, b.Lane0+int64(b.N)-1)
	}
	m.ensure(k)
	m.b, m.n = b, b.N
	m.fr.err = nil
	for _, in := range k.prog {
		in(m)
		if m.fr.err != nil {
			return m.fr.err
		}
	}
	if len(k.seqs) > 0 || k.und != nil {
		m.scan(k)
	}
	return m.fr.err
}

// cellsOf returns l's cells of type T: I or F.
func cellsOf[T num](l *Line) []T {
	if c, ok := any(&l.I).(*[]T); ok {
		return *c
	}
	return *any(&l.F).(*[]T)
}

// len is the number of cells l holds for cells of class cls.
func (l *Line) len(cls class) int {
	if cls == ir.ClassFloat {
		return len(l.F)
	}
	return len(l.I)
}

// out returns the batch's cells in the output line.
func out[T num](m *Machine) []T {
	l := &m.b.Lines[m.out]
	s := m.b.Lane0 - l.Base
	return cellsOf[T](l)[s : s+int64(m.n)]
}

// coords returns the grid coordinates of lane k of the batch.
func (m *Machine) coords(k int) (i, j int64) {
	if m.rec.axis == AlongJ {
		return m.b.Step, m.b.Lane0 + int64(k)
	}
	return m.b.Lane0 + int64(k), m.b.Step
}

// site is lane k of the batch, for messages.
func (m *Machine) site(k int) site {
	i, j := m.coords(k)
	return siteIn(m.rec.p, i, j)
}

// at points the scalar frame at lane k.
func (m *Machine) at(k int) {
	m.fr.i, m.fr.j = m.coords(k)
	m.fr.lane = k
}

func (m *Machine) fail(err error) { m.fr.fail(err) }

// active reports whether any lane of mask register r (-1: all) is set.
func (m *Machine) anyActive(r int) bool {
	if r < 0 {
		return m.n > 0
	}
	for _, v := range m.bools.v[r][:m.n] {
		if v {
			return true
		}
	}
	return false
}

func (m *Machine) isActive(r, k int) bool { return r < 0 || m.bools.v[r][k] }

// firstActive is the first lane of mask register r (-1: all), 0 when none
// is set: where a value the same for every lane is computed, so that an
// error names a cell that needs it.
func (m *Machine) firstActive(r int) int {
	if r < 0 {
		return 0
	}
	for k, v := range m.bools.v[r][:m.n] {
		if v {
			return k
		}
	}
	return 0
}

// cellAt locates cell [i][j] in the window: the line and the index in it.
func (m *Machine) cellAt(ref *ir.CellRef, i, j int64) (*Line, int64, error) {
	p := m.rec.p
	if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols {
		return nil, 0, OutsideGrid(ref, i, j, p.Rows, p.Cols)
	}
	step, lane := i, j
	if m.rec.axis == AlongI {
		step, lane = j, i
	}
	d := m.b.Step - step
	if d < m.rec.dLo || d > m.rec.dHi {
		return nil, 0, errAt(ref.Pos, "internal error: %s reads cell[%d][%d], which the executor does not hold", refText(ref), i, j)
	}
	l := &m.b.Lines[d-m.rec.dLo]
	return l, lane - l.Base, nil
}

// cell reads cell [i][j] of the window for the scalar closures.
func cell[T num](m *Machine, ref *ir.CellRef, i, j int64) (T, error) {
	l, x, err := m.cellAt(ref, i, j)
	if err != nil {
		return 0, err
	}
	c := cellsOf[T](l)
	if x < 0 || x >= int64(len(c)) {
		return 0, errAt(ref.Pos, "internal error: %s reads cell[%d][%d], outside the executor's window", refText(ref), i, j)
	}
	return c[x], nil
}

// minF and maxF keep the first of equal operands, like min() and max().
func minF(a, b float64) float64 {
	if b < a {
		return b
	}
	return a
}

func maxF(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// vector operation codes, indexes of the generated tables.
const (
	vAdd = iota
	vSub
	vMul
	vDiv
	vMin
	vMax
	vEq
	vNe
	vLt
	vLe
	vGt
	vGe
)

func vopOf(op ir.Op) int {
	switch op {
	case ir.OpAdd:
		return vAdd
	case ir.OpSub:
		return vSub
	case ir.OpMul:
		return vMul
	case ir.OpDiv:
		return vDiv
	case ir.OpEq:
		return vEq
	case ir.OpNe:
		return vNe
	case ir.OpLt:
		return vLt
	case ir.OpLe:
		return vLe
	case ir.OpGt:
		return vGt
	case ir.OpGe:
		return vGe
	}
	return -1
}

func fill[T any](d []T, v T) {
	for k := range d {
		d[k] = v
	}
}
