package cpu

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// progressEvery is how many cells pass between progress calls.
const progressEvery = 1 << 22

// run is the state of one Run.
type run struct {
	ctx     context.Context
	p       *ir.Problem
	pl      *plan.Plan
	opt     backend.Options
	threads int
	tune    tuning
	axis    eval.Axis
	rec     *eval.Recurrence
	isF     bool
	grid    *backend.Grid // nil unless the grid is kept
	bytes   int64         // memory allocated, for Stats.PeakHostBytes
	// rows holds the rows of opt.KeepRows (rowSlot: row -> its row in
	// rows), when they are kept without the grid.
	rows    *backend.Grid
	rowSlot map[int64]int64
	// window holds columns winLo .. winHi-1 of every row (opt.KeepCols).
	window       *backend.Grid
	winLo, winHi int64
	// columns holds the columns of opt.KeepColumns (sorted), one a row,
	// when they are kept without the grid.
	columns *backend.Grid

	stop  atomic.Bool
	sleep *sleeper // where workers wait for each other
	mu    sync.Mutex
	err   error

	done atomic.Int64 // cells computed, for progress

	capture map[int64][]int64 // step -> sorted lanes of the cells the answer reads
	workers []*worker
	// fs takes a floating sum answer in the grid's order (lines and
	// wavefront; nil otherwise).
	fs *fsums

	// The generic schedules (fronts.go): a machine per worker of the
	// compiled recurrence, the grid computed in (also grid when kept), and
	// the workers besides the sweeping one.
	machines []*eval.CellMachine
	work     *backend.Grid
	// transposed: a generic run keeps the plan's transposed copy of the
	// grid (it fits in memory).
	transposed bool
	crew       *crew
}

// worker is one goroutine's machine and what it collected.
type worker struct {
	r      *run
	m      *eval.Machine
	region region
	got    []captured
	cache  [16]cachedKernel
	next   int
}

type cachedKernel struct {
	key kernelKey
	k   *eval.Kernel
}

type captured struct {
	i, j int64
	v    ir.Value
}

// kernelKey is the region a worker's current kernel was made for.
type kernelKey struct {
	iLo, iHi, jLo, jHi int64
	ok                 bool
}

func newRun(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options, threads int, tune tuning) (*run, error) {
	if pl.Schedule.Generic() {
		return newFrontRun(ctx, p, pl, opt, threads, tune)
	}
	r := &run{ctx: ctx, p: p, pl: pl, opt: opt, threads: max(threads, 1), tune: tune, isF: p.CellType.IsFloat()}
	r.sleep = newSleeper(&r.stop)
	if pl.Schedule == plan.Cols {
		r.axis = eval.AlongI
	}
	// The recurrence compiled for the plan's sweep, with the plan's
	// offsets.
	rec, err := eval.CompilePlan(p, pl)
	if err != nil {
		return nil, err
	}
	r.rec = rec
	if err := r.checkMemory(); err != nil {
		return nil, err
	}
	if opt.KeepGrid(p) {
		r.grid = opt.NewGrid(p)
		r.bytes += plan.GridBytes(p)
	} else if len(opt.KeepRows) > 0 {
		r.rows = opt.NewRows(p)
		r.rowSlot = make(map[int64]int64, len(opt.KeepRows))
		for k, i := range opt.KeepRows {
			r.rowSlot[i] = int64(k)
		}
		r.bytes += r.rows.Rows * p.Cols * int64(p.CellType.Size())
	}
	if !opt.KeepGrid(p) && len(opt.KeepColumns) > 0 {
		r.columns = backend.NewGrid(p.CellType, int64(len(opt.KeepColumns)), p.Rows)
		r.bytes += r.columns.Rows * p.Rows * int64(p.CellType.Size())
	}
	if !opt.KeepGrid(p) && opt.Window() {
		r.winLo, r.winHi = opt.KeepCols[0], opt.KeepCols[1]
		r.window = opt.NewWindow(p)
		r.bytes += p.Rows * (r.winHi - r.winLo) * int64(p.CellType.Size())
	}
	r.capture = map[int64][]int64{}
	switch pl.Answer.Kind {
	case plan.AnswerCell:
		r.addCapture(pl.Answer.I, pl.Answer.J)
	case plan.AnswerExpr:
		for _, c := range pl.Answer.Cells {
			r.addCapture(c[0], c[1])
		}
	}
	for _, lanes := range r.capture {
		sort.Slice(lanes, func(a, b int) bool { return lanes[a] < lanes[b] })
	}
	// No batch is wider than the axis its lanes run along: a small grid's
	// registers need not be tune.lanes wide (in a batch of many small
	// instances they were most of what each run allocated).
	lanes := min(tune.lanes, max(p.Rows, p.Cols, 1))
	r.workers = make([]*worker, r.threads)
	for k := range r.workers {
		w := &worker{r: r, m: rec.NewMachine(int(lanes))}
		w.region.init(pl.Answer, p.CellType)
		r.workers[k] = w
		r.bytes += plan.RegisterBytes // what the estimate allows; w.m.Bytes() grows with the kernels
		r.bytes += rec.ChainBytes()
	}
	return r, nil
}

func (r *run) addCapture(i, j int64) {
	step, lane := i, j
	if r.axis == eval.AlongI {
		step, lane = j, i
	}
	r.capture[step] = append(r.capture[step], lane)
}

// fail records the first error and stops the run.
func (r *run) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.stop.Store(true)
	r.sleep.wakeAll()
}

// stopped reports whether the run should stop: an error, or ctx done.
func (r *run) stopped() bool {
	if r.stop.Load() {
		return true
	}
	if r.ctx.Err() != nil {
		r.fail(r.ctx.Err())
		return true
	}
	return false
}

func (r *run) result() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// progress adds n computed cells and calls the callback when a multiple of
// progressEvery is crossed.
func (r *run) progress(n int64) {
	d := r.done.Add(n)
	if r.opt.Progress != nil && d/progressEvery != (d-n)/progressEvery {
		r.opt.Progress(d, r.p.Cells())
	}
}

// kernel returns the kernel for a region, remembering the last few.
func (w *worker) kernel(iLo, iHi, jLo, jHi int64) (*eval.Kernel, error) {
	key := kernelKey{iLo, iHi, jLo, jHi, true}
	for k := range w.cache {
		if w.cache[k].key == key {
			return w.cache[k].k, nil
		}
	}
	k, err := w.r.rec.Kernel(iLo, iHi, jLo, jHi)
	if err != nil {
		return nil, err
	}
	w.cache[w.next] = cachedKernel{key, k}
	w.next = (w.next + 1) % len(w.cache)
	return k, nil
}

// segs are up to three ranges of indices.
type segs struct {
	s [3][2]int64
	n int
}

// split cuts lo..hi (inclusive) of an axis of n indices into the first
// index of the axis, the last and the rest, when the range holds them and
// is at least wide long: boundary conditions (i == 0, j == COLS-1) are
// usually about those, so the rest gets a kernel without them.
func split(lo, hi, n, wide int64) segs {
	var out segs
	if hi-lo+1 < wide {
		out.s[0], out.n = [2]int64{lo, hi}, 1
		return out
	}
	a, b := lo, hi
	if a == 0 {
		out.s[out.n] = [2]int64{0, 0}
		out.n++
		a = 1
	}
	last := b == n-1
	if last {
		b = n - 2
	}
	if a <= b {
		out.s[out.n] = [2]int64{a, b}
		out.n++
	}
	if last {
		out.s[out.n] = [2]int64{n - 1, n - 1}
		out.n++
	}
	return out
}

// seg returns the range of s holding x.
func (s segs) seg(x int64) [2]int64 {
	for k := 0; k < s.n; k++ {
		if x >= s.s[k][0] && x <= s.s[k][1] {
			return s.s[k]
		}
	}
	return s.s[0]
}

// safely runs one unit of a worker's work (a tile, a row segment),
// turning a panic into an error, so that a bug stops the run with a
// message rather than the process, and the workers waiting for this one
// are woken (fail stops the run and wakes them).
func (r *run) safely(f func()) {
	defer func() {
		if v := recover(); v != nil {
			buf := make([]byte, 4096)
			buf = buf[:runtime.Stack(buf, false)]
			r.fail(fmt.Errorf("internal error in the CPU executor: %v\n%s", v, buf))
		}
	}()
	f()
}

// sink takes a computed batch: copies it to the kept grid, captures the
// cells the answer reads and feeds the region reduction.
func (w *worker) sink(b *eval.Batch, out *eval.Line) {
	r := w.r
	s := b.Lane0 - out.Base
	n := int64(b.N)
	if g := r.grid; g != nil {
		at, stride := b.Step*g.Cols+b.Lane0, int64(1)
		if r.axis != eval.AlongJ {
			at, stride = b.Lane0*g.Cols+b.Step, g.Cols
		}
		if r.isF {
			g.PutFloats(at, stride, out.F[s:s+n])
		} else {
			g.PutInts(at, stride, out.I[s:s+n])
		}
	}
	if g := r.window; g != nil {
		if r.axis == eval.AlongJ {
			// Row b.Step, columns Lane0 .. Lane0+n-1: those in the window.
			a, z := max(b.Lane0, r.winLo), min(b.Lane0+n, r.winHi)
			if a < z {
				if r.isF {
					g.PutFloats(b.Step*g.Cols+a-r.winLo, 1, out.F[s+a-b.Lane0:s+z-b.Lane0])
				} else {
					g.PutInts(b.Step*g.Cols+a-r.winLo, 1, out.I[s+a-b.Lane0:s+z-b.Lane0])
				}
			}
		} else if b.Step >= r.winLo && b.Step < r.winHi {
			// Column b.Step, rows Lane0 .. Lane0+n-1.
			if r.isF {
				g.PutFloats(b.Lane0*g.Cols+b.Step-r.winLo, g.Cols, out.F[s:s+n])
			} else {
				g.PutInts(b.Lane0*g.Cols+b.Step-r.winLo, g.Cols, out.I[s:s+n])
			}
		}
	}
	if r.rows != nil {
		// Rows along the lanes (KeepsRows: not the cols schedule).
		if slot, ok := r.rowSlot[b.Step]; ok {
			if r.isF {
				r.rows.PutFloats(slot*r.rows.Cols+b.Lane0, 1, out.F[s:s+n])
			} else {
				r.rows.PutInts(slot*r.rows.Cols+b.Lane0, 1, out.I[s:s+n])
			}
		}
	}
	if g := r.columns; g != nil && r.axis == eval.AlongJ {
		// Row b.Step's cells in the kept columns (KeepsColumns: the
		// wavefront, whose batches run along rows).
		kc := r.opt.KeepColumns
		for k := sort.Search(len(kc), func(k int) bool { return kc[k] >= b.Lane0 }); k < len(kc) && kc[k] < b.Lane0+n; k++ {
			x := s + kc[k] - b.Lane0
			if r.isF {
				g.PutFloats(int64(k)*g.Cols+b.Step, 1, out.F[x:x+1])
			} else {
				g.PutInts(int64(k)*g.Cols+b.Step, 1, out.I[x:x+1])
			}
		}
	}
	if lanes, ok := r.capture[b.Step]; ok {
		k0 := sort.Search(len(lanes), func(k int) bool { return lanes[k] >= b.Lane0 })
		for _, x := range lanes[k0:] {
			if x >= b.Lane0+n {
				break
			}
			i, j := b.Step, x
			if r.axis == eval.AlongI {
				i, j = x, b.Step
			}
			v := ir.Value{T: r.p.CellType}
			if r.isF {
				v.F = out.F[x-out.Base]
			} else {
				v.I = out.I[x-out.Base]
			}
			w.got = append(w.got, captured{i, j, v})
		}
	}
	if w.region.on {
		w.region.add(r.axis, b, out)
	}
}

// region is a worker's part of a streaming min, max or sum over a
// rectangle of cells.
type region struct {
	on             bool
	op             ir.ReduceOp
	i0, i1, j0, j1 int64
	has            bool
	bi, bj         int64 // the winning cell
	vi             int64
	vf             float64
	sumI           backend.IntSum
	sumF           float64
	t              ir.Type // the cell type
	jstep          int64   // the region's columns are jstep apart (plan.AnswerSpec.JStep)
	// fs, when not nil, takes a floating sum in the grid's order.
	fs *fsums
}

func (g *region) init(a plan.AnswerSpec, t ir.Type) {
	if a.Kind != plan.AnswerRegion {
		return
	}
	g.on, g.op = true, a.Op
	g.i0, g.i1, g.j0, g.j1 = a.I0, a.I1, a.J0, a.J1
	g.jstep = max(a.JStep, 1)
	g.t = t
}

// addStrided is add for a region whose columns are jstep apart (one
// table of several): cell by cell, the first of equals in row-major
// order.
func (g *region) addStrided(axis eval.Axis, b *eval.Batch, out *eval.Line) {
	isMin := g.op == ir.ReduceMin
	take := func(i, j int64, x int64) {
		if (j-g.j0)%g.jstep != 0 || i < g.i0 || i > g.i1 || j < g.j0 || j > g.j1 {
			return
		}
		if out.F != nil {
			v := out.F[x-out.Base]
			if g.op == ir.ReduceSum {
				g.addFloats(b.Step, x, out.F[x-out.Base:x-out.Base+1])
				g.has = true
				return
			}
			if !g.has || (isMin && v < g.vf) || (!isMin && v > g.vf) || (v == g.vf && before(i, j, g.bi, g.bj)) {
				g.has, g.vf, g.bi, g.bj = true, v, i, j
			}
			return
		}
		v := out.I[x-out.Base]
		if g.op == ir.ReduceSum {
			g.sumI.Add(v, g.t)
			g.has = true
			return
		}
		if !g.has || (isMin && v < g.vi) || (!isMin && v > g.vi) || (v == g.vi && before(i, j, g.bi, g.bj)) {
			g.has, g.vi, g.bi, g.bj = true, v, i, j
		}
	}
	for x := b.Lane0; x < b.Lane0+int64(b.N); x++ {
		if axis == eval.AlongJ {
			take(b.Step, x, x)
		} else {
			take(x, b.Step, x)
		}
	}
}

// fsums is a floating sum answer added up in an order the grid fixes,
// whatever the workers do (host.cu's DP_FSUM does the same in compiled
// code): the lines sweep sums each block of fsumBlock lanes of a step on
// its own and adds the blocks, and the steps, in sweep order (chunks are
// whole blocks); the wavefront sums each row in sweep order (one worker
// computes a row, tile after tile) and adds the rows top to bottom. A sum
// per worker rounded by which chunks the worker happened to take.
type fsums struct {
	blocks [2][]float64 // lines: the block sums of the last two steps, by step parity
	rows   []float64    // wavefront: each row's sum, its cells in sweep order
	back   bool         // wavefront: the sweep runs right to left
	total  float64
}

const fsumBlock = 4096

// foldStep adds the block sums of step to the total, in order, and clears
// them for the step after next.
func (f *fsums) foldStep(step int64) {
	bl := f.blocks[step&1]
	for k, v := range bl {
		f.total += v
		bl[k] = 0
	}
}

// addFloats adds vals, the cells of lanes lane0, lane0+1, ... of step, to
// the sum: the worker's own, the row's, or their blocks'.
func (g *region) addFloats(step, lane0 int64, vals []float64) {
	switch {
	case g.fs == nil:
		for _, v := range vals {
			g.sumF += v
		}
	case g.fs.rows != nil:
		// In sweep order: a backward wavefront sweeps a row right to
		// left, its batches right to left.
		s := g.fs.rows[step]
		if g.fs.back {
			for k := len(vals) - 1; k >= 0; k-- {
				s += vals[k]
			}
		} else {
			for _, v := range vals {
				s += v
			}
		}
		g.fs.rows[step] = s
	default:
		bl := g.fs.blocks[step&1]
		for k := 0; k < len(vals); {
			b := (lane0 + int64(k)) / fsumBlock
			end := min(len(vals), int((b+1)*fsumBlock-lane0))
			s := bl[b]
			for _, v := range vals[k:end] {
				s += v
			}
			bl[b] = s
			k = end
		}
	}
}

// before reports whether (i, j) comes before (bi, bj) in row-major order.
func before(i, j, bi, bj int64) bool { return i < bi || (i == bi && j < bj) }

func (g *region) add(axis eval.Axis, b *eval.Batch, out *eval.Line) {
	if g.jstep > 1 {
		g.addStrided(axis, b, out)
		return
	}
	step0, step1, lane0, lane1 := g.i0, g.i1, g.j0, g.j1
	if axis == eval.AlongI {
		step0, step1, lane0, lane1 = g.j0, g.j1, g.i0, g.i1
	}
	if b.Step < step0 || b.Step > step1 {
		return
	}
	lo, hi := max(b.Lane0, lane0), min(b.Lane0+int64(b.N)-1, lane1)
	if lo > hi {
		return
	}
	coords := func(x int64) (int64, int64) {
		if axis == eval.AlongJ {
			return b.Step, x
		}
		return x, b.Step
	}
	isMin := g.op == ir.ReduceMin
	if out.F != nil {
		vals := out.F[lo-out.Base : hi-out.Base+1]
		if g.op == ir.ReduceSum {
			g.addFloats(b.Step, lo, vals)
			g.has = true
			return
		}
		// The best of the batch first (the first of equals in lane
		// order), then against the worker's best in row-major order.
		best := 0
		for k := 1; k < len(vals); k++ {
			if (isMin && vals[k] < vals[best]) || (!isMin && vals[k] > vals[best]) {
				best = k
			}
		}
		v := vals[best]
		i, j := coords(lo + int64(best))
		if !g.has || (isMin && v < g.vf) || (!isMin && v > g.vf) || (v == g.vf && before(i, j, g.bi, g.bj)) {
			g.has, g.vf, g.bi, g.bj = true, v, i, j
		}
		return
	}
	vals := out.I[lo-out.Base : hi-out.Base+1]
	if g.op == ir.ReduceSum {
		for _, v := range vals {
			g.sumI.Add(v, g.t)
		}
		g.has = true
		return
	}
	best := 0
	if isMin {
		for k := 1; k < len(vals); k++ {
			if vals[k] < vals[best] {
				best = k
			}
		}
	} else {
		for k := 1; k < len(vals); k++ {
			if vals[k] > vals[best] {
				best = k
			}
		}
	}
	v := vals[best]
	i, j := coords(lo + int64(best))
	if !g.has || (isMin && v < g.vi) || (!isMin && v > g.vi) || (v == g.vi && before(i, j, g.bi, g.bj)) {
		g.has, g.vi, g.bi, g.bj = true, v, i, j
	}
}

// merge folds another worker's region into g.
func (g *region) merge(o *region, isF bool) {
	if !o.has {
		return
	}
	if g.op == ir.ReduceSum {
		g.sumF += o.sumF
		g.sumI.Merge(o.sumI)
		g.has = true
		return
	}
	isMin := g.op == ir.ReduceMin
	if isF {
		if !g.has || (isMin && o.vf < g.vf) || (!isMin && o.vf > g.vf) || (o.vf == g.vf && before(o.bi, o.bj, g.bi, g.bj)) {
			g.has, g.vf, g.bi, g.bj = true, o.vf, o.bi, o.bj
		}
		return
	}
	if !g.has || (isMin && o.vi < g.vi) || (!isMin && o.vi > g.vi) || (o.vi == g.vi && before(o.bi, o.bj, g.bi, g.bj)) {
		g.has, g.vi, g.bi, g.bj = true, o.vi, o.bi, o.bj
	}
}

// floatSum makes r.fs when the answer sums floating cells, and points the
// workers' regions at it.
func (r *run) floatSum() *fsums {
	a := r.pl.Answer
	if a.Kind != plan.AnswerRegion || a.Op != ir.ReduceSum || !r.isF {
		return nil
	}
	r.fs = &fsums{}
	for _, w := range r.workers {
		w.region.fs = r.fs
	}
	return r.fs
}

// answer fills in the result's answer from what the workers collected.
func (r *run) answer(res *backend.Result) error {
	p, a := r.p, r.pl.Answer
	if a.Kind == plan.AnswerRegion {
		var g region
		g.init(a, p.CellType)
		for _, w := range r.workers {
			g.merge(&w.region, r.isF)
		}
		v := ir.Value{T: p.CellType}
		switch {
		case g.op == ir.ReduceSum && r.isF && r.fs != nil:
			v.F = r.fs.total
			if p.CellType == ir.Float {
				v.F = float64(float32(v.F))
			}
		case g.op == ir.ReduceSum && r.isF:
			v.F = g.sumF
			if p.CellType == ir.Float {
				v.F = float64(float32(v.F))
			}
		case g.op == ir.ReduceSum:
			var err error
			if v.I, err = g.sumI.Value(p, a.Expr); err != nil {
				return err
			}
		case r.isF:
			v.F = g.vf
		default:
			v.I = g.vi
		}
		if g.op != ir.ReduceSum {
			res.AnswerI, res.AnswerJ, res.AnswerIsCell = g.bi, g.bj, true
		}
		var err error
		if res.Answer, err = eval.ConvertChain(a.Expr, v); err != nil {
			return err
		}
		return eval.CheckAnswer(p, res.Answer)
	}
	got := map[[2]int64]ir.Value{}
	for _, w := range r.workers {
		for _, c := range w.got {
			got[[2]int64{c.i, c.j}] = c.v
		}
	}
	cells := backend.Captured(p, got)
	if a.Kind == plan.AnswerCell {
		v, err := cells(a.I, a.J)
		if err != nil {
			return fmt.Errorf("answer cell[%d][%d]: %w", a.I, a.J, err)
		}
		res.AnswerI, res.AnswerJ, res.AnswerIsCell = a.I, a.J, true
		if a.Expr != nil {
			v, err = eval.Eval(a.Expr, cells)
			if err != nil {
				return err
			}
		}
		res.Answer = v
		return eval.CheckAnswer(p, v)
	}
	v, err := eval.Eval(a.Expr, cells)
	if err != nil {
		return err
	}
	res.Answer = v
	return eval.CheckAnswer(p, v)
}

// sleeper lets workers wait for counters that other workers advance (the
// tiles a strip has finished, the chunks of a row): a waiter spins for a
// few microseconds, then blocks on a condition variable, so that a worker
// that waits never holds a core that the worker it waits for needs (the
// rows schedule took 20-40 times longer with a spinning barrier while
// another process used one core of two). One sleeper serves all the
// counters of a run; advancing one wakes every sleeper, which look again.
type sleeper struct {
	mu       sync.Mutex
	cond     sync.Cond
	sleeping atomic.Int32
	stop     *atomic.Bool
}

// spinFor is how long a waiter spins before it blocks: about the cost of
// a futex wake-up, and short against a tile or a chunk of a row.
const spinFor = 20 * time.Microsecond

func newSleeper(stop *atomic.Bool) *sleeper {
	s := &sleeper{stop: stop}
	s.cond.L = &s.mu
	return s
}

// add advances c by n and wakes the waiters, if any.
func (s *sleeper) add(c *atomic.Int64, n int64) {
	c.Add(n)
	// A waiter counts itself in sleeping before it looks at c (under
	// mu), so either it sees the new value or this sees it sleeping.
	if s.sleeping.Load() > 0 {
		s.wakeAll()
	}
}

// wakeAll wakes every waiter: on an advance, and when the run stops.
func (s *sleeper) wakeAll() {
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
}

// wait returns true once c reaches target, or false as soon as the run
// stops.
func (s *sleeper) wait(c *atomic.Int64, target int64) bool {
	if c.Load() >= target {
		return !s.stop.Load()
	}
	var t0 time.Time
	for spins := 1; ; spins++ {
		if c.Load() >= target {
			return !s.stop.Load()
		}
		if s.stop.Load() {
			return false
		}
		if spins%64 == 0 {
			if t0.IsZero() {
				t0 = time.Now()
			} else if time.Since(t0) > spinFor {
				break
			}
		}
	}
	s.mu.Lock()
	s.sleeping.Add(1)
	for c.Load() < target && !s.stop.Load() {
		s.cond.Wait()
	}
	s.sleeping.Add(-1)
	s.mu.Unlock()
	return !s.stop.Load()
}

// parallel runs f(0..n-1) on n goroutines and waits for them.
func parallel(n int, f func(k int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < n; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k)
		}()
	}
	wg.Wait()
}

// checkMemory refuses, before anything is allocated, a run whose working
// buffers and kept grid do not fit in the available memory. A grid the
// caller allocated in advance (Options.Grid, from engine.StartGrid) is
// already missing from MemAvailable, so it is not counted again: counting
// it would refuse a run that fits.
// shape is what the run's working buffers depend on (plan.CPUWork).
func (r *run) shape() plan.CPUShape {
	dLo, dHi := r.rec.Steps()
	before, after := r.rec.LaneReach()
	return plan.CPUShape{Threads: r.threads, StepLo: dLo, StepHi: dHi, Before: before, After: after, TileH: r.tune.tileH, TileW: r.tune.tileW}
}

func (r *run) checkMemory() error {
	p := r.p
	work := plan.CPUWork(p, r.pl, r.shape())
	need, what, advice := work, fmt.Sprintf("solving %s on %d CPU threads", p.Name, r.threads), "use a smaller instance"
	if r.opt.KeepGrid(p) {
		advice = "run without maintain, --grid and --traceback, which keep the whole grid"
		if !r.opt.Grid.Fits(p.CellType, p.Rows, p.Cols) {
			need += plan.GridBytes(p)
			what = fmt.Sprintf("keeping the whole %dx%d grid of %s (%s) while solving %s", p.Rows, p.Cols, p.CellType, hostmem.Bytes(plan.GridBytes(p)), p.Name)
		}
	} else {
		// The rows and columns kept (a traceback's checkpoints).
		need += (int64(len(r.opt.KeepRows))*p.Cols + int64(len(r.opt.KeepColumns))*p.Rows) * int64(p.CellType.Size())
	}
	if avail, ok := available(); ok && need > avail {
		return hostmem.TooLarge(what, need, avail, "", advice)
	}
	return nil
}

// available is the host memory a run may take (hostmem.Available); the
// tests replace it.
var available = recentAvailable

// availableFresh is how long a reading of the available memory is used
// again: reading /proc/meminfo took a tenth of a small instance's run in a
// batch of thousands, and the memory available changes little in this
// time (engine.Batch reserves what its instances hold besides).
const availableFresh = 50 * time.Millisecond

var lastAvailable struct {
	sync.Mutex
	at    time.Time
	bytes int64
	ok    bool
}

// recentAvailable is hostmem.Available, read at most once per
// availableFresh.
func recentAvailable() (int64, bool) {
	la := &lastAvailable
	la.Lock()
	defer la.Unlock()
	if now := time.Now(); la.at.IsZero() || now.Sub(la.at) >= availableFresh || now.Before(la.at) {
		la.bytes, la.ok = hostmem.Available()
		la.at = now
	}
	return la.bytes, la.ok
}
