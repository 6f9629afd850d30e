package native

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/genrun"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// ctl mirrors struct dp_host_ctl of templates/host_prelude.cu.
type ctl struct {
	Done    int64
	Abort   int32
	Threads int32
	Code    int32
	Site    int32
	I, J    int64
	A, B    int64
	PIdx    int64
	PIv     int64
	PFv     float64
	PAny    int32
	PFl     int32
	WinLo   int64
	WinHi   int64
	Ran     int32 // the workers that ran (0: not said)
	Force   int32 // Run.ForceRows
	InPlace int32 // the rows sweep kept one line (DP_INPLACE)
}

var _ [120 - unsafe.Sizeof(ctl{})]struct{} // the C layout is 120 bytes
var _ [unsafe.Sizeof(ctl{}) - 120]struct{}

// watchCells is the size from which a run is watched (progress, Ctrl-C).
const watchCells = 1 << 22

// Return codes of dp_host_run.
const (
	rcDone    = 0
	rcError   = 1
	rcStopped = 2
	rcMemory  = 3
)

// Run is one run of a library over a problem's data.
type Run struct {
	Threads int
	// Before and After are the lanes (columns) a cell of the rows
	// schedule reads before and after its own, bounded by the data
	// (eval.Recurrence.LaneReach): the padding of the rows it keeps.
	Before, After int64
	Progress      func(done, total int64)
	// Grid, when not nil, receives every cell (a rows x cols grid of the
	// cell type), or with Window columns Window[0] .. Window[1]-1 of every
	// row (rows x their number; a forward wavefront then stops after
	// them: backend.Options.KeepCols); Keep, when not nil, the rows of
	// KeepRows (sorted), one row of Keep each.
	Grid *backend.Grid
	// ForceRows (tests) makes the rows sweep's probe keep all its
	// workers (1), which then take tickets from the line after the
	// probe's second phase as if one starved (2); the scan's workers
	// stall 2 ms before leaving every 16th row (3), as a descheduled
	// worker would.
	ForceRows int
	Window    [2]int64
	KeepRows  []int64
	Keep      *backend.Grid
	// KeepColumns (sorted; a wavefront of one table: the strips keep
	// them forward, the scan either way): column KeepColumns[k] of every
	// row is row k of Columns.
	KeepColumns []int64
	Columns     *backend.Grid
}

// Bytes is the memory a run takes besides the inputs and the cells it
// keeps (Grid, Keep), for the memory check before it starts.
func (l *Library) Bytes(r Run) int64 {
	hp := l.Prog
	cs := int64(hp.Cell.Size())
	threads := int64(max(r.Threads, 1))
	lanes := int64(hp.Lanes)
	b := 8 * int64(4) * (hp.Cols + 2*lanes) // column caches (a bound: up to 4 slots)
	if len(r.KeepRows) > 0 {
		b += 4 * hp.Rows // the row -> kept slot table
	}
	if hp.Fronts {
		// The whole grid (the caller's when it keeps one: counted here
		// all the same) and its transpose.
		g := hp.Rows * hp.Cols * cs
		if hp.Mirror {
			g *= 2
		}
		return g + threads*256
	}
	if hp.Schedule == plan.Rows {
		// The ring, and two rows of block sums (a floating sum answer),
		// and each worker's chained reductions.
		if hp.Chain {
			b += threads * 16 * hp.Cols
		}
		return b + int64(hp.Reach+1)*(r.Before+hp.Cols+r.After)*cs + 16*(hp.Cols/4096+1)
	}
	if hp.Scan {
		// The ring of threads+DP_PI+1 rows, and each row's progress
		// (templates/host.cu's scan).
		return b + (threads+int64(hp.PI)+1)*((int64(hp.PJ)+hp.Cols)*cs+64)
	}
	strips := (hp.Rows + lanes - 1) / lanes
	b += (threads + 1) * int64(max(hp.PI, 1)) * hp.Cols * cs
	b += strips*65 + hp.Rows*8 // progress (a cache line a strip), and a floating sum answer's row sums
	return b + threads*(int64(hp.PI+hp.PJ+1)*int64(hp.PI+hp.Lanes)*cs+lanes*40)
}

// Exec runs the library on p (the caller has checked that Bytes fit): the
// problem its program was generated for, or another of the same shape
// (sizes, scalars, inputs' value bounds). It returns what sets a result's
// answer from what the run left (for backend.Finish), and stops early with
// ctx.Err() when ctx is cancelled.
func (l *Library) Exec(ctx context.Context, p *ir.Problem, pl *plan.Plan, r Run) (func(*backend.Result) error, error) {
	hp := l.Prog
	need := l.Bytes(r)
	// The inputs as the loader holds them (int64 or float64 elements, read
	// in place by the library) and the table of pointers to them.
	var dummy [1]int64
	table := make([]uintptr, max(len(hp.Inputs), 1))
	if len(p.Inputs) != len(hp.Inputs) {
		return nil, fmt.Errorf("internal error: %d inputs for a program of %d", len(p.Inputs), len(hp.Inputs))
	}
	// p's own inputs (the library may have been generated for another
	// instance of the same shape), in the program's order, which is p's.
	for k, in := range p.Inputs {
		table[k] = uintptr(unsafe.Pointer(&dummy[0]))
		switch {
		case in.T.IsFloat() && len(in.F) > 0:
			table[k] = uintptr(unsafe.Pointer(&in.F[0]))
		case !in.T.IsFloat() && len(in.I) > 0:
			table[k] = uintptr(unsafe.Pointer(&in.I[0]))
		}
	}
	var grid, keep, slots uintptr
	var keepSlot []int32
	window := r.Window[1] > r.Window[0]
	if window && (r.Window[0] < 0 || r.Window[1] > hp.Cols || r.Grid == nil || hp.Fronts) {
		return nil, fmt.Errorf("internal error: a window of columns %d..%d of a %dx%d problem", r.Window[0], r.Window[1]-1, hp.Rows, hp.Cols)
	}
	if r.Grid != nil {
		cols := hp.Cols
		if window {
			cols = r.Window[1] - r.Window[0]
		}
		if !r.Grid.Fits(hp.Cell, hp.Rows, cols) {
			return nil, fmt.Errorf("internal error: a %dx%d grid of %s for %dx%d cells of %s", r.Grid.Rows, r.Grid.Cols, r.Grid.T, hp.Rows, cols, hp.Cell)
		}
		grid = uintptr(unsafe.Pointer(&r.Grid.Bytes()[0]))
	}
	if r.Keep != nil && len(r.KeepRows) > 0 {
		if !r.Keep.Fits(hp.Cell, int64(len(r.KeepRows)), hp.Cols) {
			return nil, fmt.Errorf("internal error: kept rows of the wrong shape")
		}
		keepSlot = make([]int32, hp.Rows)
		for k := range keepSlot {
			keepSlot[k] = -1
		}
		for k, i := range r.KeepRows {
			keepSlot[i] = int32(k)
		}
		keep, slots = uintptr(unsafe.Pointer(&r.Keep.Bytes()[0])), uintptr(unsafe.Pointer(&keepSlot[0]))
	}
	var kcols, kcol uintptr
	if len(r.KeepColumns) > 0 {
		if !hp.KeepsColumns() || !r.Columns.Fits(hp.Cell, int64(len(r.KeepColumns)), hp.Rows) ||
			!slices.IsSorted(r.KeepColumns) || r.KeepColumns[0] < 0 || r.KeepColumns[len(r.KeepColumns)-1] >= hp.Cols {
			return nil, fmt.Errorf("internal error: kept columns of the wrong shape, or of a sweep that keeps none")
		}
		kcols, kcol = uintptr(unsafe.Pointer(&r.KeepColumns[0])), uintptr(unsafe.Pointer(&r.Columns.Bytes()[0]))
	}
	nans := max(len(hp.Captures), 1)
	ans := backend.NewGrid(hp.Cell, 1, int64(nans))
	c := &ctl{Threads: int32(max(r.Threads, 1)), Force: int32(r.ForceRows)}
	if window {
		c.WinLo, c.WinHi = r.Window[0], r.Window[1]
	}
	if hp.Fronts && widestFront(hp) < 16 {
		// Fronts of a few cells (a 1-D look-back: one each) leave
		// nothing to share: workers would only hand each front to the
		// next (measured: 10x slower on two threads).
		c.Threads = 1
	}

	// Watch for Ctrl-C and report progress while the library runs: not for
	// a small run (well under a millisecond), where the watcher's start and
	// wake-ups would cost more than the run (a batch runs thousands).
	var wg sync.WaitGroup
	stop := make(chan struct{})
	watch := p.Cells() >= watchCells
	if !watch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	} else {
		wg.Add(1)
		go func() {
			defer wg.Done()
			total := l.units()
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					atomic.StoreInt32(&c.Abort, 1)
					return
				case <-t.C:
					if r.Progress != nil {
						r.Progress(min(atomic.LoadInt64(&c.Done), total)*p.Cells()/max(total, 1), p.Cells())
					}
				}
			}
		}()
	}
	var rc uintptr
	if hp.Fronts {
		// The plan's fronts, which the library enumerates as
		// plan.Hyperplane.Front does (TestHostFronts).
		first, last := hp.Front.Range(hp.Rows, hp.Cols)
		rc, _, _ = purego.SyscallN(l.run, uintptr(unsafe.Pointer(c)), uintptr(unsafe.Pointer(&table[0])),
			uintptr(unsafe.Pointer(&ans.Bytes()[0])), grid, slots, keep, uintptr(first), uintptr(last))
	} else {
		rc, _, _ = purego.SyscallN(l.run, uintptr(unsafe.Pointer(c)), uintptr(unsafe.Pointer(&table[0])),
			uintptr(unsafe.Pointer(&ans.Bytes()[0])), uintptr(r.Before), uintptr(r.After), grid, slots, keep,
			kcols, uintptr(len(r.KeepColumns)), kcol)
	}
	close(stop)
	wg.Wait()
	runtime.KeepAlive(p.Inputs)
	runtime.KeepAlive(&dummy)
	runtime.KeepAlive(r.Grid)
	runtime.KeepAlive(r.Keep)
	runtime.KeepAlive(keepSlot)
	runtime.KeepAlive(r.KeepColumns)
	runtime.KeepAlive(r.Columns)
	runtime.KeepAlive(table)
	runtime.KeepAlive(c)
	switch int32(rc) {
	case rcDone:
	case rcError:
		return nil, genrun.Describe(p, pl, hp.Sites, "the compiled code", int(c.Code), int(c.Site), c.I, c.J, c.A, c.B)
	case rcStopped:
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("internal error: the compiled code stopped with no reason")
	case rcMemory:
		return nil, hostmem.TooLarge(fmt.Sprintf("solving %s with compiled code", p.Name), need, need-1, "", "use a smaller instance")
	default:
		return nil, fmt.Errorf("internal error: the compiled code returned %d", int32(rc))
	}
	return func(res *backend.Result) error {
		if why := fewerWorkers(hp, int(c.Ran), max(r.Threads, 1), int(c.Threads), c.InPlace != 0); why != "" {
			res.Device += "; " + why
		}
		if c.InPlace != 0 {
			res.Device += "; one row in memory, each computed over the one before"
		}
		if hp.Fronts && hp.Pipeline && c.Threads > 1 && hp.Rows >= 2*int64(c.Threads) {
			res.Device += "; the grid in row-major order, its rows pipelined over the workers"
		}
		return l.answer(p, pl, c, ans, res)
	}, nil
}

// fewerWorkers says why a run of threads workers ran on fewer (ran, as the
// library said; asked, what Exec asked of it; inPlace, the rows sweep kept
// one line), "" where all of them ran.
func fewerWorkers(hp *codegen.HostProgram, ran, threads, asked int, inPlace bool) string {
	switch {
	case asked < threads:
		return fmt.Sprintf("%d of them ran it (fronts of a few cells)", asked)
	case ran <= 0 || ran >= threads:
		return ""
	case inPlace:
		return fmt.Sprintf("%d of them ran it (one worker computing two rows a pass outruns two)", ran)
	case hp.Schedule == plan.Rows:
		return fmt.Sprintf("%d of them ran it (timed on the first rows, one was as fast as all of them)", ran)
	case hp.Scan:
		return fmt.Sprintf("%d of them ran it (a worker for every block of a row at most)", ran)
	}
	return fmt.Sprintf("%d of them ran it (the others could not start)", ran)
}

// widestFront bounds the cells of one front of a Fronts program: a front
// t = A*i + B*j holds at most one cell in every |B|-th row and, where A is
// not 0, one in every |A|-th column (plan.Hyperplane.Front).
func widestFront(hp *codegen.HostProgram) int64 {
	if h := hp.Front; h.Three() {
		// At most a line of every k-plane.
		return hp.Rows * h.LineWidth(hp.Cols/h.Inner, h.Inner)
	}
	a, b := hp.Front.A, hp.Front.B
	w := hp.Cols
	if b != 0 {
		w = (hp.Rows + abs(b) - 1) / abs(b)
	}
	if a != 0 {
		w = min(w, (hp.Cols+abs(a)-1)/abs(a))
	}
	return w
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// units is what ctl.Done counts when the run is over: cells of the rows
// sweep, lanes times steps of the strips.
func (l *Library) units() int64 {
	hp := l.Prog
	if hp.Schedule == plan.Rows || hp.Fronts {
		return hp.Rows * hp.Cols
	}
	lanes := int64(hp.Lanes)
	return (hp.Rows + lanes - 1) / lanes * (hp.Cols + lanes - 1) * lanes
}

// answer sets res's answer from what the run left: the answer cell, the
// captured cells or the region's partial result.
func (l *Library) answer(p *ir.Problem, pl *plan.Plan, c *ctl, ans *backend.Grid, res *backend.Result) error {
	hp, a := l.Prog, pl.Answer
	switch hp.Answer {
	case codegen.AnswerRegion:
		acc := genrun.Part{Idx: c.PIdx, Iv: c.PIv, Fv: c.PFv, Any: c.PAny != 0, Fl: c.PFl}
		if err := genrun.RegionAnswer(p, a, acc, res); err != nil {
			return err
		}
		return eval.CheckAnswer(p, res.Answer)
	case codegen.AnswerCell:
		v := ans.At(0, 0)
		res.AnswerI, res.AnswerJ, res.AnswerIsCell = a.I, a.J, true
		if a.Expr != nil {
			got := map[[2]int64]ir.Value{{a.I, a.J}: v}
			var err error
			if v, err = eval.Eval(a.Expr, backend.Captured(p, got)); err != nil {
				return err
			}
		}
		res.Answer = v
		return eval.CheckAnswer(p, v)
	}
	got := map[[2]int64]ir.Value{}
	for k, cell := range hp.Captures {
		got[cell] = ans.At(0, int64(k))
	}
	v, err := eval.Eval(a.Expr, backend.Captured(p, got))
	if err != nil {
		return err
	}
	res.Answer = v
	return eval.CheckAnswer(p, v)
}
