package codegen

import (
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// The front kernel (templates/front.cu) runs the generic schedules: fronts
// of equal t = A*i + B*j by increasing t, one launch per front, over the
// whole grid in device memory. Its cells are independent, and how long a
// cell takes is mostly how long its reductions run, which varies with the
// front: an interval DP's front j - i = d has n - d cells with reductions of
// d terms; a 1-D look-back has fronts of one cell whose reduction reads
// every earlier cell. So the host picks, per front, how many threads share
// one cell (Spread): a thread each where reductions are short; a warp each,
// the iterations of the cell's outermost reductions dealt out to the lanes
// and folded with shuffles; a block of several warps each where a front has
// too few cells to keep the device busy (an interval DP's late fronts, a
// look-back's single cell). The recurrence is generated once for the
// three: its accessor says which lane of how many a thread is.

// Spread is how many threads of the front kernel compute one cell.
type Spread uint8

const (
	SpreadAuto   Spread = iota // per front, by Program.FrontSpread
	SpreadThread               // one thread per cell
	SpreadWarp                 // one warp per cell, reductions split over its lanes
	SpreadBlock                // one block per cell, reductions split over its threads
)

func (s Spread) String() string {
	return [...]string{"auto", "thread", "warp", "block"}[s]
}

// Func is the front kernel's entry point for s.
func (s Spread) Func() string {
	switch s {
	case SpreadWarp:
		return FuncFrontWarp
	case SpreadBlock:
		return FuncFrontBlock
	}
	return FuncFrontThread
}

// The placement thresholds of FrontSpread. Below splitMin terms a lane
// would have at most one term or none: a thread per cell does the work
// with no folding. Otherwise a cell gets as many lanes as fill the device
// once (FillThreads per multiprocessor over the front's cells), at least a
// warp, at most a block of BlockThreads, and no more than leave each lane
// minTerms terms: a warp where a front has many cells, a block of several
// warps where it has few (the late fronts of interval DP, a 1-D look-back's
// single cell). More lanes per cell means more reads in flight.
const (
	splitMin = 8
	minTerms = 4
)

// redSpan is the bounds of a split reduction as linear forms in i and j; ok
// is false where they are not (data-dependent bounds).
type redSpan struct {
	lo, hi analysis.Form
	ok     bool
}

// splitReduction reports whether the front kernel may deal the iterations
// of reduction n out to several lanes and fold their partial results: min
// and max in any type (the fold is exact, ties aside, which only traceback
// sees, and it reads the grid on the host), sums of int and long (exact,
// checked as the sequential sum is). A floating sum is not split: another
// order of additions rounds differently from the CPU.
func splitReduction(n *ir.Reduce) bool {
	switch n.Op {
	case ir.ReduceMin, ir.ReduceMax:
		return true
	}
	return n.T == ir.Int || n.T == ir.Long
}

// outerReductions calls f for every reduction of the recurrence that no
// other reduction's body encloses: those the emitter splits
// (emitter.reduce, m.reds empty), the bounds of such a reduction included.
func outerReductions(p *ir.Problem, f func(*ir.Reduce)) {
	var visit func(e ir.Expr)
	visit = func(e ir.Expr) {
		ir.Walk(e, func(x ir.Expr) bool {
			r, ok := x.(*ir.Reduce)
			if !ok {
				return true
			}
			f(r)
			visit(r.Lo)
			visit(r.Hi)
			return false // the body is inside r
		})
	}
	for _, c := range p.Cases {
		if c.Cond != nil {
			visit(c.Cond)
		}
		visit(c.Value)
	}
}

// usesVar reports whether e reads the variable of reduction r.
func usesVar(e ir.Expr, r *ir.Reduce) bool {
	found := false
	ir.Walk(e, func(x ir.Expr) bool {
		if v, ok := x.(*ir.Var); ok && v.BoundBy(r) {
			found = true
		}
		return !found
	})
	return found
}

// frontLayout sets up the front kernel: the hyperplane, the block sizes,
// which reductions are split and their bounds, and which references read
// the transposed copy. A reference inside a split reduction whose row runs
// with the reduction's variable and whose column does not (cell[k+1][j] in
// `min(k in i..j-1: ...)`) walks down a column: consecutive lanes would
// read addresses a row apart. Reading it from a transposed copy of the grid
// makes the lanes' reads consecutive, as the hand-written interval kernels
// of bench/peers do by mirroring the triangle.
func (g *gen) frontLayout() error {
	p, pl, prog, opt := g.p, g.pl, g.prog, g.opt
	if pl.T.A == 0 && pl.T.B == 0 && pl.T.M == 0 {
		return fmt.Errorf("codegen: the %s schedule has no front function (internal planning error)", pl.Schedule)
	}
	if opt.WarpThreads%32 != 0 || opt.BlockThreads%32 != 0 || opt.BlockThreads > 1024 || opt.WarpThreads > 1024 || opt.FrontThreads > 1024 {
		return fmt.Errorf("codegen: front kernel blocks of %d, %d and %d threads (want multiples of 32 up to 1024 for warps and blocks)", opt.FrontThreads, opt.WarpThreads, opt.BlockThreads)
	}
	prog.Kernel = KernelFront
	prog.Front = pl.T
	prog.FrontThreads, prog.WarpThreads, prog.BlockThreads = opt.FrontThreads, opt.WarpThreads, opt.BlockThreads
	prog.Spread = opt.Spread
	prog.SplitUnroll, prog.FillThreads = opt.SplitUnroll, opt.FillThreads
	prog.cases = casesOf(p)
	g.refMirror = make([]bool, len(p.CellRefs))
	mirror := false
	outerReductions(p, func(r *ir.Reduce) {
		if !splitReduction(r) {
			return
		}
		prog.Split = true
		var sp redSpan
		lo, ok1 := analysis.AffineOf(r.Lo, nil)
		hi, ok2 := analysis.AffineOf(r.Hi, nil)
		if ok1 && ok2 {
			var ok3, ok4 bool
			sp.lo, ok3 = lo.Form()
			sp.hi, ok4 = hi.Form()
			sp.ok = ok3 && ok4
		}
		prog.spans = append(prog.spans, sp)
		ir.Walk(r.Body, func(x ir.Expr) bool {
			ref, ok := x.(*ir.CellRef)
			// The plan says which references walk a column
			// (plan.Dependency.Column); of those, the ones whose row
			// runs with this reduction's lanes read the copy.
			if ok && ref.ID >= 0 && ref.ID < len(g.refMirror) && ref.ID < len(pl.Deps) && pl.Deps[ref.ID].Column && usesVar(ref.I, r) {
				g.refMirror[ref.ID] = true
				mirror = true
			}
			return true
		})
	})
	prog.Mirror = mirror && pl.Transposed && !opt.NoMirror
	if !prog.Split && opt.Spread != SpreadAuto && opt.Spread != SpreadThread {
		// Nothing to split: every lane would compute the whole cell.
		prog.Spread = SpreadThread
	}
	return nil
}

// ReductionLength is the most iterations a split reduction of cell (i, j)
// runs (0 for none), or -1 when its bounds depend on data.
func (p *Program) ReductionLength(i, j int64) int64 {
	var most int64
	for _, s := range p.spans {
		if !s.ok {
			return -1
		}
		lo := s.lo.I*i + s.lo.J*j + s.lo.K
		hi := s.hi.I*i + s.hi.J*j + s.hi.K
		most = max(most, hi-lo+1)
	}
	return most
}

// FrontSpread chooses how the front kernel maps a front of cells cells to
// threads, the longest split reduction of its cells having terms
// iterations (-1: unknown), on a device of sms multiprocessors: the spread
// and the threads that compute one cell (1, 32, or the block's size). A
// forced Spread (Options.Spread) wins.
func (p *Program) FrontSpread(cells, terms int64, sms int) (Spread, int) {
	switch {
	case p.Spread == SpreadThread || p.Spread == SpreadAuto && !p.Split:
		return SpreadThread, 1
	case p.Spread == SpreadWarp:
		return SpreadWarp, 32
	case p.Spread == SpreadBlock:
		return SpreadBlock, p.BlockThreads
	case terms < 0:
		// Bounds that depend on data: a warp per cell is never far off.
		return SpreadWarp, 32
	case terms < splitMin:
		return SpreadThread, 1
	}
	lanes := 32
	want := int64(max(sms, 1)) * int64(p.FillThreads) / max(cells, 1)
	for lanes*2 <= p.BlockThreads && int64(lanes*2) <= want && int64(lanes*2*minTerms) <= terms {
		lanes *= 2
	}
	if lanes == 32 {
		return SpreadWarp, 32
	}
	return SpreadBlock, lanes
}

// FrontGrid is the launch geometry of a front of cells cells with spread s
// and lanes threads per cell (FrontSpread): blocks and threads per block.
func (p *Program) FrontGrid(s Spread, lanes int, cells int64) (blocks int64, threads int) {
	switch s {
	case SpreadWarp:
		per := int64(p.WarpThreads / 32)
		return (cells + per - 1) / per, p.WarpThreads
	case SpreadBlock:
		return cells, lanes
	}
	t := int64(p.FrontThreads)
	return (cells + t - 1) / t, p.FrontThreads
}

// ---- fronts whose cells read no other cell ----
//
// Interval DP computes a whole triangle of cells that read nothing (`0 when
// i >= j`): half the fronts, each a launch for a few microseconds of work.
// Where a front's cells all take a case that reads no cell, they depend on
// nothing and may be computed at any time: the sweep computes runs of such
// fronts first, in one launch each (dp_front_range). Which case a cell takes
// is decided on the host only for conditions that are linear comparisons of
// i and j (and &&, ||, ! of them): on the segment of a front they hold
// everywhere, nowhere, or are not decided, by their values at its ends.

// tri is a three-valued truth: decided true or false, or not decided.
type tri uint8

const (
	triUnknown tri = iota
	triTrue
	triFalse
)

func (t tri) not() tri {
	switch t {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triUnknown
}

// linCond is a case condition as the host decides it over a front: a
// comparison f(i, j) op 0 with f linear, &&, ||, !, a constant, or unknown.
type linCond struct {
	op   ir.Op // a comparison, OpAnd, OpOr, OpNot; 0: unknown (or constant: val)
	val  tri
	f    analysis.Form
	x, y *linCond
}

func condOf(e ir.Expr) *linCond {
	switch n := e.(type) {
	case *ir.Const:
		if n.T == ir.Bool {
			if n.V.I != 0 {
				return &linCond{val: triTrue}
			}
			return &linCond{val: triFalse}
		}
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return &linCond{op: ir.OpNot, x: condOf(n.X)}
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd, ir.OpOr:
			return &linCond{op: n.Op, x: condOf(n.X), y: condOf(n.Y)}
		case ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe, ir.OpEq, ir.OpNe:
			if !n.X.Type().IsInteger() || !n.Y.Type().IsInteger() {
				break
			}
			x, ok1 := analysis.Linear(n.X)
			y, ok2 := analysis.Linear(n.Y)
			if ok1 && ok2 && small(x) && small(y) {
				return &linCond{op: n.Op, f: analysis.Form{I: x.I - y.I, J: x.J - y.J, K: x.K - y.K}}
			}
		}
	}
	return &linCond{}
}

// small keeps the forms' arithmetic on grid coordinates far from overflow.
func small(f analysis.Form) bool {
	const lim = 1 << 30
	in := func(v int64) bool { return v > -lim && v < lim }
	return in(f.I) && in(f.J) && in(f.K)
}

// decide is c over the cells of the segment from (i0, j0) to (i1, j1).
func (c *linCond) decide(i0, j0, i1, j1 int64) tri {
	switch c.op {
	case 0:
		return c.val
	case ir.OpNot:
		return c.x.decide(i0, j0, i1, j1).not()
	case ir.OpAnd, ir.OpOr:
		x, y := c.x.decide(i0, j0, i1, j1), c.y.decide(i0, j0, i1, j1)
		stop := triFalse // && is false once a side is
		if c.op == ir.OpOr {
			stop = triTrue
		}
		switch {
		case x == stop || y == stop:
			return stop
		case x == triUnknown || y == triUnknown:
			return triUnknown
		}
		return stop.not()
	}
	a := c.f.I*i0 + c.f.J*j0 + c.f.K
	b := c.f.I*i1 + c.f.J*j1 + c.f.K
	lo, hi := min(a, b), max(a, b)
	var all, none bool // f op 0 holds at every cell, at none
	switch c.op {
	case ir.OpLt:
		all, none = hi < 0, lo >= 0
	case ir.OpLe:
		all, none = hi <= 0, lo > 0
	case ir.OpGt:
		all, none = lo > 0, hi <= 0
	case ir.OpGe:
		all, none = lo >= 0, hi < 0
	case ir.OpEq:
		all, none = lo == 0 && hi == 0, hi < 0 || lo > 0
	case ir.OpNe:
		all, none = hi < 0 || lo > 0, lo == 0 && hi == 0
	}
	switch {
	case all:
		return triTrue
	case none:
		return triFalse
	}
	return triUnknown
}

// caseInfo is a case as the host sees it: its condition (nil for
// `otherwise`) and whether its value reads a cell.
type caseInfo struct {
	cond  *linCond
	reads bool
}

func casesOf(p *ir.Problem) []caseInfo {
	out := make([]caseInfo, len(p.Cases))
	for k, c := range p.Cases {
		if c.Cond != nil {
			out[k].cond = condOf(c.Cond)
		}
		ir.Walk(c.Value, func(x ir.Expr) bool {
			if _, ok := x.(*ir.CellRef); ok {
				out[k].reads = true
			}
			return !out[k].reads
		})
	}
	return out
}

// ReadsNoCell reports whether every cell of the front segment from (i0,
// j0) to (i1, j1) provably takes a case whose value reads no cell.
func (p *Program) ReadsNoCell(i0, j0, i1, j1 int64) bool {
	for _, c := range p.cases {
		truth := triTrue
		if c.cond != nil {
			truth = c.cond.decide(i0, j0, i1, j1)
		}
		switch truth {
		case triTrue:
			return !c.reads
		case triUnknown:
			return false
		}
	}
	return false
}

// FrontLaunch is one launch of a generic sweep: front T alone (its I0 the
// first cell's row, Cells its cells) with Spread, or with Range the fronts
// T..T1, whose cells read no other cell, a thread per cell
// (FuncFrontRange).
type FrontLaunch struct {
	Func      string
	Spread    Spread
	Range     bool
	T, T1, I0 int64
	// Cells is the launch's count of cells: of a 3-D hyperplane's front,
	// its slots (a line's width for each k-plane from I0); Computed is how
	// many of them are cells of the grid, for progress.
	Cells, Computed int64
	Blocks          int64
	Threads         int
}

// rangeMin is how much of the grid a run of fronts that read no cell must
// hold to be computed in one launch: dp_front_range scans the whole grid.
const rangeMin = 8

// FrontLaunches calls f with every launch of the sweep, in order, on a
// device of sms multiprocessors: first one launch for each long run of
// fronts whose cells read no other cell, then the other fronts by
// increasing t, each with the spread FrontSpread picks. Running the cells
// that read nothing first is always allowed; a front of cells that read
// others runs after every front they may read.
func (p *Program) FrontLaunches(sms int, f func(FrontLaunch) error) error {
	h := p.Front
	if h.Three() {
		return p.frontLaunches3(sms, f)
	}
	first, last := h.Range(p.Rows, p.Cols)
	grid := p.Rows * p.Cols
	// Runs of fronts that read nothing, and how many cells each holds.
	type run struct{ t0, t1, cells int64 }
	var runs []run
	for t := first; t <= last; t++ {
		fr := h.Front(t, p.Rows, p.Cols)
		n := fr.Len()
		if n == 0 {
			continue
		}
		i0, j0 := fr.Cell(0)
		i1, j1 := fr.Cell(n - 1)
		if !p.ReadsNoCell(i0, j0, i1, j1) {
			continue
		}
		if k := len(runs) - 1; k >= 0 && runs[k].t1 == t-1 {
			runs[k].t1, runs[k].cells = t, runs[k].cells+n
		} else {
			runs = append(runs, run{t, t, n})
		}
	}
	batched := func(t int64) bool { return false }
	var big []run
	for _, r := range runs {
		if r.t1 > r.t0 && r.cells*rangeMin >= grid {
			big = append(big, r)
		}
	}
	if len(big) > 0 {
		batched = func(t int64) bool {
			for _, r := range big {
				if t >= r.t0 && t <= r.t1 {
					return true
				}
			}
			return false
		}
	}
	threads := int64(p.FrontThreads)
	for _, r := range big {
		blocks := min((grid+threads-1)/threads, int64(max(sms, 1))*32)
		if err := f(FrontLaunch{Func: FuncFrontRange, Spread: SpreadThread, Range: true, T: r.t0, T1: r.t1, Cells: r.cells, Computed: r.cells, Blocks: blocks, Threads: p.FrontThreads}); err != nil {
			return err
		}
	}
	for t := first; t <= last; t++ {
		if batched(t) {
			continue
		}
		fr := h.Front(t, p.Rows, p.Cols)
		n := fr.Len()
		if n == 0 {
			continue
		}
		i0, j0 := fr.Cell(0)
		i1, j1 := fr.Cell(n - 1)
		terms := max(p.ReductionLength(i0, j0), p.ReductionLength(i1, j1))
		sp, lanes := p.FrontSpread(n, terms, sms)
		blocks, th := p.FrontGrid(sp, lanes, n)
		if err := f(FrontLaunch{Func: sp.Func(), Spread: sp, T: t, T1: t, I0: i0, Cells: n, Computed: n, Blocks: blocks, Threads: th}); err != nil {
			return err
		}
	}
	return nil
}

// frontLaunches3 is FrontLaunches for a 3-D hyperplane over the grid's
// three axes: front t is launched as LineWidth slots for each k-plane it
// may cross (plan.Hyperplane.Planes; templates/front.cu dp_front_cell), a
// slot past its plane's line computing nothing, so that the host finds a
// launch in O(1) instead of enumerating the front. Computed shares the
// grid's cells out in proportion to the slots, for progress.
func (p *Program) frontLaunches3(sms int, f func(FrontLaunch) error) error {
	h := p.Front
	first, last := h.Range(p.Rows, p.Cols)
	width := h.LineWidth(p.Cols/h.Inner, h.Inner)
	var slots int64
	for t := first; t <= last; t++ {
		if k0, k1 := h.Planes(t, p.Rows, p.Cols); k0 <= k1 {
			slots += (k1 - k0 + 1) * width
		}
	}
	grid := p.Rows * p.Cols
	var done, slotsDone int64
	for t := first; t <= last; t++ {
		k0, k1 := h.Planes(t, p.Rows, p.Cols)
		if k0 > k1 {
			continue
		}
		n := (k1 - k0 + 1) * width
		slotsDone += n
		computed := int64(float64(slotsDone)/float64(max(slots, 1))*float64(grid)) - done
		if slotsDone == slots {
			computed = grid - done
		}
		done += computed
		terms := max(p.ReductionLength(k0, 0), p.ReductionLength(k1, p.Cols-1))
		sp, lanes := p.FrontSpread(n, terms, sms)
		blocks, th := p.FrontGrid(sp, lanes, n)
		if err := f(FrontLaunch{Func: sp.Func(), Spread: sp, T: t, T1: t, I0: k0, Cells: n, Computed: computed, Blocks: blocks, Threads: th}); err != nil {
			return err
		}
	}
	return nil
}

// frontRefTable writes dp_ref<ID> for the front kernel: whether the
// reference is proved inside the grid, whether warps and blocks read it
// from the transposed copy, and whether each read must be checked to lie
// on an earlier front (plan.Dependency.Checked).
func (g *gen) frontRefTable() string {
	var b strings.Builder
	b.WriteString("\n// ---- cell references: proved in the grid, read transposed, front checked ----\n")
	b.WriteString("template <int ID> struct dp_ref;\n")
	for k, ref := range g.p.CellRefs {
		safe := k < len(g.refSafe) && g.refSafe[k]
		mirror := g.prog.Mirror && k < len(g.refMirror) && g.refMirror[k]
		order := k < len(g.pl.Deps) && g.pl.Deps[k].Checked
		fmt.Fprintf(&b, "template <> struct dp_ref<%d> { static constexpr bool safe = %t, mirror = %t, order = %t; }; // %s\n",
			k, safe, mirror, order, cComment(ref.Text))
	}
	return b.String()
}
