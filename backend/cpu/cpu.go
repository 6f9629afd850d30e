// Package cpu is the CPU executor: it runs a planned problem on all cores
// with the batch kernels of package eval. It is the default backend and the
// reference the GPU executor is checked against.
//
// Schedules:
//
//   - wavefront: the grid is cut into tiles; the workers take whole tile
//     rows (strips) in turn from a counter and sweep them tile by tile, a
//     tile waiting (a short spin, then blocked) until the strip above has
//     finished the tile after it, so the workers run as a pipeline with no
//     barrier. Only the edges a strip hands to the next are kept, in three
//     rotating sets, so the memory is O((rows + cols) * offset) plus one
//     tile per worker.
//
//   - rows and cols: each row (column) is cut into chunks that the workers
//     take in turn from one ticket counter; a chunk waits (a short spin,
//     then blocked) until every chunk of the rows before it is done. Only
//     the rows the recurrence reads back (`prev`) plus the one being
//     computed are kept.
//
//   - interval and hyperplane (the generic schedules, fronts.go): the whole
//     grid is in memory and computed in place, front after front of the
//     plan's hyperplane; the cells of a front are shared among the workers,
//     and a front of one cell (a 1-D look-back) shares its long reductions
//     instead.
//
// Wavefront, rows and cols run forward or backward as the plan says. With
// backend.Options that keep the grid, every computed cell is also copied
// into a backend.Grid (the generic schedules compute in it).
package cpu

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/bitpar"
	"github.com/dpgpu/dpgpu/backend/native"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// Executor runs problems on the CPU.
type Executor struct {
	threads int
	tune    tuning
	// native, when set, compiles the problems it can (the rows and
	// wavefront schedules) to machine code; the others, and the runs
	// that keep the grid or chosen rows, run on the Go evaluator.
	native *native.Compiler
	// compileMin: problems of fewer cells run compiled code only when it
	// is in the cache (CompileMinCells; 0 compiles whatever it can).
	compileMin int64
	// shapes, for an executor that runs instances of one problem
	// (OneProblem: a batch), keeps a program per shape; checkShapes
	// (tests) generates every instance's program again and compares.
	shapes      map[string]*shape
	checkShapes bool
	// forceRows (tests): native.Run.ForceRows.
	forceRows int
}

// shape is the host program of one shape of a batch's instances: made
// from the first, compiled once the instances of the shape hold
// compileMin cells (or at once, from the cache).
type shape struct {
	hp    *codegen.HostProgram
	lib   *native.Library
	cells int64
	why   string // set when it cannot be compiled
}

// CompileMinCells is the size from which a problem whose program is not in
// the cache is compiled: below it the compiler's half second costs more
// than the Go evaluator takes (16M cells take it some 10-40 ms).
const CompileMinCells = 1 << 24

// CodeEnv names the environment variable that chooses, for executors made
// by New, the code that computes the cells: "c" (compiled, where
// supported, when a compiler is found) or "go" (the Go evaluator, the
// default of New; the command line compiles by default, WithNative).
const CodeEnv = "DPGPU_CPU_CODE"

// tuning are the sizes that shape a run. The defaults suit the hardware;
// the tests shrink them to reach many tiles, batches and workers on small
// grids.
type tuning struct {
	tileW, tileH   int64 // wavefront tile
	lanes          int64 // widest batch
	lanesPerWorker int64 // narrowest share of a row worth a worker
	kernelCells    int64 // cells that share one kernel lookup (rows, cols)
	// frontShare is how much work (by the time the cells of the fronts
	// before took) a front of a generic schedule must hold to be shared
	// among the workers: posting it and waiting for the last chunk cost a
	// few microseconds.
	frontShare time.Duration
}

var defaultTuning = tuning{tileW: plan.CPUTileW, tileH: plan.CPUTileH, lanes: plan.CPULanes, lanesPerWorker: 2048, kernelCells: 1 << 15,
	frontShare: 40 * time.Microsecond}

// New returns a CPU executor with the given number of worker threads
// (0: one per core).
func New(threads int) *Executor {
	e := &Executor{threads: threads, tune: defaultTuning}
	if os.Getenv(CodeEnv) == "c" {
		if c, err := native.Find(); err == nil {
			e.native = c // compiling every size: the tests' setting
		}
	}
	return e
}

// WithNative makes e run what it can with code compiled by c (nil: the Go
// evaluator only): problems of CompileMinCells cells or more, and smaller
// ones whose program is in the cache.
func (e *Executor) WithNative(c *native.Compiler) *Executor {
	e.native, e.compileMin = c, CompileMinCells
	return e
}

// OneProblem tells e that every problem it will run is an instance of one
// `.dp` file (a batch): instances of the same shape — sizes, scalars, the
// bounds of their inputs' values — then share one compiled program, made
// without generating it again, compiled once the shape's instances hold
// CompileMinCells cells between them.
func (e *Executor) OneProblem() *Executor {
	e.shapes = map[string]*shape{}
	return e
}

// Instances is a copy of e for instances of one problem, as OneProblem
// makes it (backend.Instancer); e itself is left as it is.
func (e *Executor) Instances() backend.Executor {
	c := *e
	return c.OneProblem()
}

// shapeKey names p's shape as OneProblem groups instances: everything a
// host program of one `.dp` file depends on.
func shapeKey(p *ir.Problem, pl *plan.Plan) string {
	// Appended, not formatted: a batch makes one an instance (formatted,
	// it was 12% of the profile of a one-vs-many CPU batch).
	a := pl.Answer
	b := make([]byte, 0, 160)
	num := func(v int64, sep byte) {
		b = append(strconv.AppendInt(b, v, 10), sep)
	}
	num(p.Rows, 'x')
	num(p.Cols, ' ')
	b = append(append(b, p.CellType.String()...), ' ')
	b = append(append(b, pl.Schedule...), ' ')
	b = append(append(b, pl.Direction...), '|')
	for _, v := range []int64{int64(a.Kind), a.I, a.J, int64(a.Op), a.I0, a.I1, a.J0, a.J1, a.JStep} {
		num(v, ' ')
	}
	b = append(b, '|')
	for _, c := range a.Cells {
		num(c[0], ',')
		num(c[1], ';')
	}
	for _, sc := range p.Scalars {
		b = append(append(append(b, sc.Name...), '='), sc.Value.String()...)
		b = append(b, ';')
	}
	for _, in := range p.Inputs {
		r := codegen.HostInputRange(in)
		b = append(append(b, in.T.String()...), ' ')
		num(int64(in.Rows), 'x')
		num(int64(in.Cols), ' ')
		num(r.Lo, '.')
		num(r.Hi, ';')
	}
	return string(b)
}

// CompileAllSizes makes e compile small problems too (DPGPU_CPU_CODE=c,
// the tests).
func (e *Executor) CompileAllSizes() *Executor {
	e.compileMin = 0
	return e
}

// Native is the compiler e uses, nil when it runs the Go evaluator only.
func (e *Executor) Native() *native.Compiler { return e.native }

// Name is "cpu".
func (e *Executor) Name() string { return "cpu" }

// Device describes the threads and, when /proc/cpuinfo says, the processor.
func (e *Executor) Device() string {
	n := e.threadsFor(backend.Options{})
	s := fmt.Sprintf("%d CPU threads", n)
	if n == 1 {
		s = "1 CPU thread"
	}
	if model := cpuModel(); model != "" {
		s += " (" + model + ")"
	}
	return s
}

func (e *Executor) threadsFor(opt backend.Options) int {
	switch {
	case opt.Threads > 0:
		return opt.Threads
	case e.threads > 0:
		return e.threads
	}
	return runtime.NumCPU()
}

// KeepsRows: the rows and wavefront sweeps keep chosen rows
// (backend.Options.KeepRows) as their batches pass; the generic sweeps
// keep their whole grid anyway, and the cols sweep's batches run down
// columns.
//
// So does the compiled rows scan of the cells' wavefront of several
// tables (plan.Plan.Cells), a row at a time; where it does not run (no
// compiler, a program it cannot make), the Go evaluator would keep the
// whole grid, and the run fails with backend.ErrNoKeptRows before
// computing anything (a traceback then runs in bands).
func (e *Executor) KeepsRows(pl *plan.Plan) bool {
	return pl.Schedule == plan.Rows || pl.Schedule == plan.Wavefront || pl.Cells > 1 && e.native != nil
}

// KeepsCols: the rows and wavefront sweeps keep a window of columns too
// (backend.Options.KeepCols), as their batches pass; the compiled forward
// wavefront stops after it.
func (e *Executor) KeepsCols(pl *plan.Plan) bool {
	return pl.Schedule == plan.Rows || pl.Schedule == plan.Wavefront
}

// KeepsColumns: the wavefront sweeps keep chosen columns with their
// chosen rows (backend.Options.KeepColumns), forward — a traceback's
// checkpoints in blocks — on compiled code as its strips pass the
// columns (or its rows scan, a row at a time), on the Go evaluator as its
// batches do.
func (e *Executor) KeepsColumns(pl *plan.Plan) bool {
	return pl.Schedule == plan.Wavefront && pl.Direction != plan.Backward
}

// Run solves p as planned by pl.
func (e *Executor) Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	start := time.Now()
	if err := backend.Start(ctx, p); err != nil {
		return nil, err
	}
	if opt.Window() && !opt.KeepGrid(p) && (!e.KeepsCols(pl) || opt.KeepCols[1] > p.Cols) {
		return nil, fmt.Errorf("internal error: the CPU executor keeps no window of columns %d..%d of a %dx%d grid of a %s schedule", opt.KeepCols[0], opt.KeepCols[1]-1, p.Rows, p.Cols, pl.Schedule)
	}
	if len(opt.KeepColumns) > 0 && !opt.KeepGrid(p) && !e.KeepsColumns(pl) {
		return nil, fmt.Errorf("internal error: the CPU executor keeps no chosen columns of a %s schedule", pl.Schedule)
	}
	if pl.Special != nil && !opt.NoSpecial && !opt.KeepGrid(p) {
		return e.special(ctx, p, pl, opt, start)
	}
	threads := e.threadsFor(opt)
	device := e.Device()
	// q is what runs: p, or p with its math of one index from tables.
	q := withTables(p)
	if e.native != nil {
		res, why, err := e.runNative(ctx, p, q, pl, opt, threads, start)
		if why == "" {
			return res, err
		}
		device += ", Go evaluator (not compiled: " + why + ")"
	}
	if len(opt.KeepRows) > 0 && !opt.KeepGrid(p) && pl.Schedule.Generic() {
		// (KeepsRows: the compiled scan of several tables alone.)
		return nil, fmt.Errorf("%w: the %s schedule on the Go evaluator (%s)", backend.ErrNoKeptRows, pl.Schedule, device)
	}
	r, err := newRun(ctx, q, pl, opt, threads, e.tune)
	if err != nil {
		return nil, err
	}
	if red := r.rec.Chain(); red != nil {
		device += chainSaid(red.Pos)
	}
	if pl.Schedule == plan.Wavefront && threads > 1 && r.shape().WaveWorkers(p.Rows, p.Cols) == 1 {
		device += "; one of them ran it (a row of fewer than three tiles: the strips would run one after another)"
	}
	computeStart := time.Now()
	switch pl.Schedule {
	case plan.Wavefront:
		err = r.wavefront()
	case plan.Rows, plan.Cols:
		err = r.lines()
	case plan.Interval, plan.Hyperplanar:
		err = r.fronts()
	default:
		err = fmt.Errorf("the CPU executor has no %q schedule", pl.Schedule)
	}
	compute := time.Since(computeStart).Seconds()
	if err != nil {
		return nil, err
	}
	res := &backend.Result{Backend: "cpu", Device: device, Grid: r.grid, Rows: r.rows, Window: r.window, Columns: r.columns}
	if err := backend.Finish(p, opt, res, r.answer, traceback.Trace); err != nil {
		return nil, err
	}
	res.Stats = backend.Stats{
		Cells:          p.Cells(),
		Seconds:        time.Since(start).Seconds(),
		ComputeSeconds: compute,
		PeakHostBytes:  r.bytes,
	}
	return res, nil
}

// special runs the algorithm the planner recognised (pl.Special, package
// bitpar) instead of the schedule: the answer only, on opt.Threads workers
// (strips of words across cores where the pattern is long enough).
func (e *Executor) special(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options, start time.Time) (*backend.Result, error) {
	sp := pl.Special
	rows, cols := p.Rows, p.Cols
	if sp.Transposed {
		rows, cols = cols, rows
	}
	// What the solver allocates, checked before anything is: the two
	// sequences as bytes, the pattern's masks (per distinct character),
	// the carries between strips.
	seen := [256]bool{}
	sigma := 0
	for _, in := range []*ir.Input{sp.A, sp.B} {
		for _, c := range in.I {
			if c >= 0 && c < 256 && !seen[c] {
				seen[c] = true
				sigma++
			}
		}
	}
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	need := bitpar.Bytes(rows-1, cols-1, sigma, threads)
	if avail, ok := available(); ok && need > avail {
		return nil, hostmem.TooLarge(fmt.Sprintf("solving %s with the %s", p.Name, sp.Name), need, avail, "", "use a smaller instance")
	}
	chars := func(in *ir.Input, n int64) []byte {
		b := make([]byte, n)
		for k := range b {
			b[k] = byte(in.I[k])
		}
		return b
	}
	a, b := chars(sp.A, rows-1), chars(sp.B, cols-1)
	var progress func(done, total int64)
	if opt.Progress != nil {
		progress = func(done, total int64) {
			opt.Progress(int64(float64(p.Cells())*float64(done)/float64(max(total, 1))), p.Cells())
		}
	}
	computeStart := time.Now()
	got, err := bitpar.Solve(ctx, sp.Kind, a, b, sp.SemiGlobal, opt.Threads, progress)
	compute := time.Since(computeStart).Seconds()
	if err != nil {
		return nil, err
	}
	res := &backend.Result{Backend: "cpu", Device: e.Device(), Special: sp}
	v := ir.Value{T: p.CellType, I: got.Score}
	answer := func(res *backend.Result) error {
		ans := pl.Answer
		if !sp.SemiGlobal {
			res.AnswerI, res.AnswerJ, res.AnswerIsCell = p.Rows-1, p.Cols-1, true
			res.Answer = v
			if ans.Expr != nil {
				if res.Answer, err = eval.Eval(ans.Expr, backend.Captured(p, map[[2]int64]ir.Value{{p.Rows - 1, p.Cols - 1}: v})); err != nil {
					return err
				}
			}
			return eval.CheckAnswer(p, res.Answer)
		}
		res.AnswerI, res.AnswerJ, res.AnswerIsCell = p.Rows-1, got.At, true
		if sp.Transposed {
			res.AnswerI, res.AnswerJ = got.At, p.Cols-1
		}
		if res.Answer, err = eval.ConvertChain(ans.Expr, v); err != nil {
			return err
		}
		return eval.CheckAnswer(p, res.Answer)
	}
	if err := backend.Finish(p, opt, res, answer, traceback.Trace); err != nil {
		return nil, err
	}
	res.Stats = backend.Stats{
		Cells:          p.Cells(),
		Seconds:        time.Since(start).Seconds(),
		ComputeSeconds: compute,
		PeakHostBytes:  need,
	}
	return res, nil
}

// runNative runs p with compiled code — the code computes q, p with its
// math of one index from tables (withTables) — keeping the grid or the
// rows the options ask for. why, when not empty, says why it did not (the caller
// then runs the Go evaluator): a schedule or function the host programs
// lack, a compiler that failed.
func (e *Executor) runNative(ctx context.Context, p, q *ir.Problem, pl *plan.Plan, opt backend.Options, threads int, start time.Time) (res *backend.Result, why string, err error) {
	if err := codegen.HostSupports(q, pl); err != nil {
		return nil, err.Error(), nil
	}
	trace := phases.Start(p.Name + " (compiled)")
	defer trace.Print(os.Stderr)
	var before, after int64
	if pl.Schedule == plan.Rows {
		// The padding of the rows: the columns a cell reads before and
		// after its own (the planner bounds data-dependent offsets by the
		// loaded data), so that every read stays in the row's memory.
		for _, d := range pl.Deps {
			r := d.RangeJ
			if r.Lo == math.MinInt64 || r.Hi == math.MaxInt64 {
				return nil, "a reference reads anywhere in a row", nil
			}
			before, after = max(before, r.Hi), max(after, -r.Lo)
		}
		if before+after > 4*p.Cols+(1<<20) {
			return nil, "a reference reads far outside the row", nil
		}
	}
	lib, why := e.library(q, pl, opt)
	if why != "" {
		return nil, why, nil
	}
	if len(opt.KeepRows) > 0 && !opt.KeepGrid(p) && lib.Prog.Fronts {
		// The fronts keep the whole grid: not for a traceback's
		// checkpoints.
		return nil, "the compiled fronts keep the whole grid, not chosen rows", nil
	}
	keepColumns := len(opt.KeepColumns) > 0 && !opt.KeepGrid(p)
	if keepColumns && !lib.Prog.KeepsColumns() {
		return nil, "the compiled sweep keeps no chosen columns", nil
	}
	trace.Mark("program")
	run := native.Run{Threads: threads, Before: before, After: after, Progress: opt.Progress, KeepRows: opt.KeepRows, ForceRows: e.forceRows}
	need, what, advice := lib.Bytes(run), fmt.Sprintf("solving %s with compiled code on %d CPU threads", p.Name, threads), "use a smaller instance"
	keepGrid := opt.KeepGrid(p)
	if lib.Prog.Fronts && pl.Schedule.Generic() {
		// What the plan says the generic schedules take (the whole grid,
		// the transposed copy, the workers), less a grid the caller holds.
		// Where it does not fit, the Go evaluator runs: it can do without
		// the transposed copy.
		m := plan.CPUMemory(p, pl, threads, keepGrid)
		need = m.Work + m.Grid
		if opt.Grid.Fits(p.CellType, p.Rows, p.Cols) {
			need -= m.Grid
		}
		if avail, ok := available(); ok && need > avail {
			return nil, "the compiled fronts and the transposed copy do not fit in memory", nil
		}
	}
	if keepGrid && !opt.Grid.Fits(p.CellType, p.Rows, p.Cols) {
		if !lib.Prog.Fronts { // counted above (lib.Bytes counts the fronts' grid)
			need += plan.GridBytes(p)
		}
		what = fmt.Sprintf("keeping the whole %dx%d grid of %s (%s) while solving %s", p.Rows, p.Cols, p.CellType, hostmem.Bytes(plan.GridBytes(p)), p.Name)
		advice = "run without maintain, --grid and --traceback, which keep the whole grid"
	}
	if len(opt.KeepRows) > 0 && !keepGrid {
		need += int64(len(opt.KeepRows)) * p.Cols * int64(p.CellType.Size())
	}
	if keepColumns {
		need += int64(len(opt.KeepColumns)) * p.Rows * int64(p.CellType.Size())
	}
	// An answer over more cells than the program captures: the rows
	// holding them are kept (or read from the kept grid).
	var answerRows []int64
	if lib.Prog.AnswerRows && !keepGrid {
		if len(opt.KeepRows) > 0 || opt.Window() || keepColumns {
			return nil, fmt.Sprintf("an answer that reads %d cells, in a run that keeps chosen rows", len(pl.Answer.Cells)), nil
		}
		answerRows = cellRows(pl.Answer.Cells)
		need += int64(len(answerRows)) * p.Cols * int64(p.CellType.Size())
	}
	if !keepGrid && opt.Window() {
		need += p.Rows * (opt.KeepCols[1] - opt.KeepCols[0]) * int64(p.CellType.Size())
	}
	if avail, ok := available(); ok && need > avail {
		return nil, "", hostmem.TooLarge(what, need, avail, "", advice)
	}
	switch {
	case keepGrid:
		run.Grid, run.KeepRows = opt.NewGrid(p), nil
	case len(opt.KeepRows) > 0:
		run.Keep = opt.NewRows(p)
	case len(answerRows) > 0:
		run.KeepRows, run.Keep = answerRows, backend.NewGrid(p.CellType, int64(len(answerRows)), p.Cols)
	}
	if !keepGrid && opt.Window() {
		run.Grid, run.Window = opt.NewWindow(p), [2]int64{opt.KeepCols[0], opt.KeepCols[1]}
	}
	if keepColumns {
		run.KeepColumns, run.Columns = opt.KeepColumns, backend.NewGrid(p.CellType, int64(len(opt.KeepColumns)), p.Rows)
	}
	trace.Mark("memory")
	computeStart := time.Now()
	answer, err := lib.Exec(ctx, q, pl, run)
	compute := time.Since(computeStart).Seconds()
	if err != nil {
		return nil, "", err
	}
	trace.Mark("exec")
	if lib.Prog.AnswerRows {
		answer = answerFromRows(p, pl, run)
	}
	rows := run.Keep
	if len(answerRows) > 0 {
		rows = nil // kept for the answer alone
	}
	device := e.Device() + ", code compiled by " + e.native.String()
	if pos := lib.Prog.ChainPos; pos.IsValid() {
		device += chainSaid(pos)
	}
	res = &backend.Result{Backend: "cpu", Device: device, Grid: run.Grid, Rows: rows, Columns: run.Columns}
	if run.Window[1] > run.Window[0] {
		res.Grid, res.Window = nil, run.Grid
	}
	if err := backend.Finish(p, opt, res, answer, traceback.Trace); err != nil {
		return nil, "", err
	}
	res.Stats = backend.Stats{
		Cells:          p.Cells(),
		Seconds:        time.Since(start).Seconds(),
		ComputeSeconds: compute,
		PeakHostBytes:  need,
	}
	return res, "", nil
}

// work is what p costs in cells of a sweep, for the choice to compile: a
// cell that runs a reduction (interval DP, look-back) runs a third of the
// longest on average, so a 1000 x 1000 matrix chain costs as much as a
// 1000 x 333,000 grid of cells without them; one whose bounds read the
// data (the unbounded knapsack's copies of an item, w / wt[i-1]) the mean
// over a sample of cells, each term laneTermCost. A cell of several
// tables (each table's cell counted) costs tablesCost: the evaluator has
// no vector form for them.
func work(p *ir.Problem, hp *codegen.HostProgram) int64 {
	cells := p.Cells()
	if len(p.Tables) > 1 {
		cells = satMul(cells, tablesCost)
	}
	if hp == nil {
		return cells
	}
	terms := int64(1)
	for _, c := range p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			if e != nil {
				ir.Walk(e, func(x ir.Expr) bool {
					if r, ok := x.(*ir.Reduce); ok {
						if mean, ok := sampledLength(p, r); ok {
							terms = max(terms, satMul(mean, laneTermCost))
						} else {
							terms = max(terms, reductionLength(p, r)/3)
						}
					}
					return true
				})
			}
		}
	}
	if hp.Fronts && p.Dims == 1 {
		// A 1-D grid's fronts are one cell each (t = s): the evaluator
		// runs them one by one, every cell at the cost of a lane-by-lane
		// term per term (coin change, 10M amounts of 4 coins: 1.47 s on
		// the evaluator, 0.07 s compiled).
		return satMul(cells, satMul(terms, laneTermCost))
	}
	return satMul(cells, terms)
}

// laneTermCost is what a term of a reduction whose bounds differ from cell
// to cell costs the Go evaluator, in cells of a sweep: it runs such a
// reduction lane by lane (eval's perLane), about 60 ns a term where a
// vector pass costs 2-4 ns a cell (the unbounded knapsack, 300 items x
// 4,321: 0.41 s on the evaluator for 6.5M terms).
const laneTermCost = 16

// sampledLength is the mean number of values r's variable takes over a
// sample of p's cells (8 rows of 64 columns, evenly spread), for bounds
// that read the data (the unbounded knapsack's w / wt[i-1]: from one to
// the capacity, its mean up to the data): bounds of i, j, inputs and
// scalars only. ok is false where they read anything else or fail at every
// sampled cell.
func sampledLength(p *ir.Problem, r *ir.Reduce) (mean int64, ok bool) {
	plain := func(e ir.Expr) bool {
		return !ir.Any(e, func(x ir.Expr) bool {
			switch x := x.(type) {
			case *ir.CellRef, *ir.Reduce:
				return true
			case *ir.Var:
				return x.Kind == ir.VarReduce || x.Reduce != nil
			}
			return false
		})
	}
	if !plain(r.Lo) || !plain(r.Hi) || !ir.Any(r.Hi, func(x ir.Expr) bool { _, ok := x.(*ir.Load); return ok }) {
		return 0, false
	}
	var total, n int64
	for a := int64(0); a < 8; a++ {
		i := min(p.Rows-1, a*p.Rows/8+p.Rows/16)
		for b := int64(0); b < 64; b++ {
			j := min(p.Cols-1, b*p.Cols/64+p.Cols/128)
			lo, err1 := eval.EvalAt(r.Lo, i, j, nil)
			hi, err2 := eval.EvalAt(r.Hi, i, j, nil)
			if err1 != nil || err2 != nil {
				continue // (a bound that fails there: another case's cell)
			}
			total += max(hi.I-lo.I+1, 0)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return max(total/n, 1), true
}

// chainSaid is what a run's backend line says of its chained reduction.
func chainSaid(pos source.Pos) string {
	return fmt.Sprintf("; line %d's reduction reuses the one a step back along the row (one term a cell)", pos.Line)
}

// satMul is a*b, or math.MaxInt64 where that overflows.
func satMul(a, b int64) int64 {
	if w, ok := ir.Mul64(a, b); ok {
		return w
	}
	return math.MaxInt64
}

// tablesCost is what a cell of several tables costs the Go evaluator in
// cells of one table, for the choice to compile (work): gotoh 2,000^2
// (12M cells of its three tables) took the evaluator 0.85-0.97 s on one
// thread, about what compiling takes (0.3 s) for every 4M of them, where
// 16M cells of one table take it 10-40 ms.
const tablesCost = 4

// reductionLength bounds how many values r's variable takes in a cell of
// p's grid: hi - lo + 1 of its bounds' linear forms at the grid's corners,
// or a side of the grid where they are not linear.
func reductionLength(p *ir.Problem, r *ir.Reduce) int64 {
	side := max(p.Rows, p.Cols)
	lo, ok1 := analysis.AffineOf(r.Lo, nil)
	hi, ok2 := analysis.AffineOf(r.Hi, nil)
	if !ok1 || !ok2 || !lo.IsLinear() || !hi.IsLinear() || len(lo.Red) > 0 || len(hi.Red) > 0 {
		return side
	}
	var most int64
	for _, c := range [4][2]int64{{0, 0}, {0, p.Cols - 1}, {p.Rows - 1, 0}, {p.Rows - 1, p.Cols - 1}} {
		n := (hi.I-lo.I)*c[0] + (hi.J-lo.J)*c[1] + hi.K - lo.K + 1
		most = max(most, n)
	}
	return min(max(most, 1), side)
}

// library is the compiled program for p: made for p, or, for a batch
// (OneProblem), the one of p's shape.
func (e *Executor) library(p *ir.Problem, pl *plan.Plan, opt backend.Options) (*native.Library, string) {
	small := func(cells int64) string {
		return fmt.Sprintf("%d cells, fewer than compiling pays for (%d, or a program in the cache)", cells, e.compileMin)
	}
	if e.shapes == nil {
		hp, err := codegen.GenerateHost(p, pl)
		if err != nil {
			return nil, err.Error()
		}
		if cells := max(work(p, hp), opt.ProgramCells); cells < e.compileMin && !e.native.Cached(hp) {
			return nil, small(cells)
		}
		lib, err := e.native.Load(hp)
		if err != nil {
			return nil, err.Error()
		}
		return lib, ""
	}
	key := shapeKey(p, pl)
	sh := e.shapes[key]
	if sh == nil {
		sh = &shape{}
		e.shapes[key] = sh
		hp, err := codegen.GenerateHost(p, pl)
		if err != nil {
			sh.why = err.Error()
		} else if sh.hp = hp; e.native.Cached(hp) {
			sh.lib, err = e.native.Load(hp)
			if err != nil {
				sh.why = err.Error()
			}
		}
	} else if e.checkShapes && sh.hp != nil {
		if hp, err := codegen.GenerateHost(p, pl); err != nil || hp.Source != sh.hp.Source {
			panic(fmt.Sprintf("two instances of shape %q have different host programs (%v)", key, err))
		}
	}
	if sh.why != "" {
		return nil, sh.why
	}
	sh.cells += max(work(p, sh.hp), opt.ProgramCells)
	if sh.lib == nil {
		if sh.cells < e.compileMin {
			return nil, small(sh.cells)
		}
		lib, err := e.native.Load(sh.hp)
		if err != nil {
			sh.why = err.Error()
			return nil, sh.why
		}
		sh.lib = lib
	}
	return sh.lib, ""
}

// cellRows is the distinct rows of cells, ascending.
func cellRows(cells [][2]int64) []int64 {
	seen := map[int64]bool{}
	var rows []int64
	for _, c := range cells {
		if !seen[c[0]] {
			seen[c[0]] = true
			rows = append(rows, c[0])
		}
	}
	slices.Sort(rows)
	return rows
}

// answerFromRows evaluates an answer expression over more cells than the
// compiled program captures (codegen.HostProgram.AnswerRows) from the rows
// the run kept, or its whole grid.
func answerFromRows(p *ir.Problem, pl *plan.Plan, run native.Run) func(*backend.Result) error {
	cell := func(i, j int64) (ir.Value, error) {
		if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols {
			return ir.Value{}, fmt.Errorf("outside the %s", p.GridText())
		}
		if run.Grid != nil && run.Window[1] <= run.Window[0] {
			return run.Grid.At(i, j), nil
		}
		if k, ok := slices.BinarySearch(run.KeepRows, i); ok && run.Keep != nil {
			return run.Keep.At(int64(k), j), nil
		}
		return ir.Value{}, fmt.Errorf("internal error: row %d of the answer was not kept", i)
	}
	return func(res *backend.Result) error {
		v, err := eval.Eval(pl.Answer.Expr, cell)
		if err != nil {
			return err
		}
		res.Answer = v
		return eval.CheckAnswer(p, v)
	}
}
