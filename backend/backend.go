// Package backend defines what an executor is — the last stage of the
// pipeline, which runs a planned problem on some hardware — and what it
// returns. The CPU executor lives in backend/cpu and the CUDA one in
// backend/gpu (over the driver bindings of backend/cuda); both are checked
// against each other. (It was called runtime, which shadowed the standard
// library's package of that name.)
package backend

import (
	"context"
	"unsafe"

	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// Options are the knobs of one run.
type Options struct {
	// Threads is the number of CPU workers (0: one per core). The CUDA
	// executor ignores it.
	Threads int
	// Maintain keeps the whole grid (overrides the problem's `maintain: 0`).
	// Traceback implies it.
	Maintain bool
	// Traceback follows the winning references back from the answer cell and
	// collects the emitted values.
	Traceback bool
	// Progress, when not nil, is called from time to time with the cells
	// done so far and the total. It must be cheap and safe for concurrent use.
	Progress func(done, total int64)
	// Grid, when it fits the problem, receives the kept grid instead of a
	// new allocation: a caller can allocate it (NewGrid) while the executor
	// starts, so that the page faults of a grid of gigabytes overlap the
	// GPU driver's start-up. Its contents are overwritten.
	Grid *Grid
}

// KeepGrid reports whether the run must keep the whole grid.
func (o Options) KeepGrid(p *ir.Problem) bool { return o.Maintain || o.Traceback || p.Maintain }

// Executor runs a planned problem.
type Executor interface {
	// Name is the backend's name: "cpu" or "cuda".
	Name() string
	// Device describes the hardware, e.g. "8 CPU threads" or
	// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)".
	Device() string
	// Run solves the problem. It stops early with ctx.Err() when ctx is
	// cancelled.
	Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt Options) (*Result, error)
}

// Result is what a run produces.
type Result struct {
	Answer ir.Value
	// AnswerCell is the cell the answer was read from, when it is one cell
	// (the start of the traceback); ok is false otherwise.
	AnswerI, AnswerJ int64
	AnswerIsCell     bool
	// Emitted holds the traceback's emitted values in path order (from the
	// start of the grid to the answer cell); Path the cells visited in the same
	// order. Both are nil unless a traceback was asked for.
	Emitted []ir.Value
	Path    [][2]int64
	// Grid is the whole grid when it was kept, else nil.
	Grid *Grid
	// Tour is the optimal tour (0-based cities, starting at 0) for held-karp.
	Tour []int

	Backend string
	Device  string
	Stats   Stats
}

// Stats are the measurements of a run.
type Stats struct {
	Cells          int64   // cells (or Held-Karp states) computed
	Seconds        float64 // wall time of the run, setup included
	ComputeSeconds float64 // time of the computation alone (CUDA: event-timed kernels)
	CompileSeconds float64 // code generation and compilation (CUDA)
	CompileCached  bool    // the compiled module came from the cache
	PeakHostBytes  int64   // largest host memory the run held (estimate from its allocations)
	DeviceBytes    int64   // device memory the run allocated
}

// CellsPerSecond is Cells over Seconds (0 when Seconds is 0).
func (s Stats) CellsPerSecond() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return float64(s.Cells) / s.Seconds
}

// Grid is a whole scoring grid, row-major, in the problem's cell type:
// exactly one of I32, I64, F32, F64 is set.
type Grid struct {
	Rows, Cols int64
	T          ir.Type
	I32        []int32
	I64        []int64
	F32        []float32
	F64        []float64
}

// NewGrid allocates a rows x cols grid of type t. A grid of 64 MB or more
// asks for transparent huge pages and has its pages touched in parallel
// now (package hostmem says why): filling it later then runs at memory
// speed.
func NewGrid(t ir.Type, rows, cols int64) *Grid {
	g := &Grid{Rows: rows, Cols: cols, T: t}
	n := rows * cols
	switch t {
	case ir.Int:
		g.I32 = make([]int32, n)
	case ir.Long:
		g.I64 = make([]int64, n)
	case ir.Float:
		g.F32 = make([]float32, n)
	default:
		g.F64 = make([]float64, n)
	}
	if b := g.Bytes(); len(b) >= 64<<20 {
		hostmem.Advise(b)
		hostmem.Touch(b)
	}
	return g
}

// Fits reports whether g is a grid of rows x cols cells of type t.
func (g *Grid) Fits(t ir.Type, rows, cols int64) bool {
	return g != nil && g.T == t && g.Rows == rows && g.Cols == cols && int64(len(g.Bytes())) == rows*cols*int64(t.Size())
}

// Bytes is the grid's memory as bytes (row-major cells in the machine's
// byte order), for copying whole rows in.
func (g *Grid) Bytes() []byte {
	var p unsafe.Pointer
	var n int
	switch {
	case g.I32 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.I32)), len(g.I32)*4
	case g.I64 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.I64)), len(g.I64)*8
	case g.F32 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.F32)), len(g.F32)*4
	case g.F64 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.F64)), len(g.F64)*8
	}
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// NewGrid is opt.Grid where it fits p, else a new grid for p.
func (o Options) NewGrid(p *ir.Problem) *Grid {
	if o.Grid.Fits(p.CellType, p.Rows, p.Cols) {
		return o.Grid
	}
	return NewGrid(p.CellType, p.Rows, p.Cols)
}

// At returns cell [i][j] as a Value.
func (g *Grid) At(i, j int64) ir.Value {
	k := i*g.Cols + j
	switch g.T {
	case ir.Int:
		return ir.Value{T: ir.Int, I: int64(g.I32[k])}
	case ir.Long:
		return ir.Value{T: ir.Long, I: g.I64[k]}
	case ir.Float:
		return ir.Value{T: ir.Float, F: float64(g.F32[k])}
	}
	return ir.Value{T: ir.Double, F: g.F64[k]}
}
