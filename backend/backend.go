// Package backend defines what an executor is — the last stage of the
// pipeline, which runs a planned problem on some hardware — and what it
// returns. The CPU executor lives in backend/cpu and the CUDA one in
// backend/gpu (over the driver bindings of backend/cuda); both are checked
// against each other. (It was called runtime, which shadowed the standard
// library's package of that name.)
package backend

import (
	"context"
	"errors"
	"strconv"
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
	// KeepRows (sorted, distinct) asks an executor that implements
	// RowKeeper to keep those rows of the grid, and no others, in
	// Result.Rows: the checkpoint rows of a traceback in linear memory,
	// from one run at full speed. Maintain must be off.
	KeepRows []int64
	// KeepColumns (sorted, distinct) asks an executor that implements
	// ColumnSetKeeper to keep those columns of the grid too, whole, in
	// Result.Columns (with KeepRows, which may be empty): the checkpoint
	// columns of a traceback in blocks (plan.TraceLayout.Blocks), CUDAlign's
	// special columns. Maintain must be off.
	KeepColumns []int64
	// KeepOnDevice asks an executor that implements OnDevice to keep the
	// whole grid in its device's memory instead of copying it back
	// (Result.DeviceGrid): a traceback then reads the cells it walks
	// through, tile by tile. An executor that cannot, for this problem,
	// fails with ErrNotOnDevice.
	KeepOnDevice bool
	// DeviceBudget caps the device memory a grid kept on the device may
	// take (0: what the device has free): a grid over it is refused with
	// hostmem.ErrTooLarge, as one over the device's memory is.
	DeviceBudget int64
	// TraceMemory is what a traceback may keep, in bytes (0:
	// plan.DefaultTraceMemory): the whole grid when it fits, else
	// checkpoint rows and one band recomputed at a time (plan.Traceback).
	// Only the engine reads it; executors keep what Maintain says.
	TraceMemory int64
	// Progress, when not nil, is called from time to time with the cells
	// done so far and the total. It must be cheap and safe for concurrent use.
	Progress func(done, total int64)
	// Grid, when it fits the problem, receives the kept grid instead of a
	// new allocation: a caller can allocate it (NewGrid) while the executor
	// starts, so that the page faults of a grid of gigabytes overlap the
	// GPU driver's start-up. Its contents are overwritten. Without a
	// kept grid, it receives the kept rows (KeepRows) where it fits them:
	// a traceback recomputing band after band reuses one buffer.
	Grid *Grid
	// NoSpecial runs the schedule even where the plan found a better
	// algorithm (plan.Plan.Special): `--no-special`, for comparisons.
	NoSpecial bool
	// KeepCols, when KeepCols[1] > KeepCols[0] >= 0, asks an executor
	// that implements ColumnKeeper to keep columns KeepCols[0] ..
	// KeepCols[1]-1 of every row, and no other cell, in Result.Window: the
	// columns of a traceback's band near its walk. The caller promises
	// that no cell reads a column to its right (plan.TraceLayout.Narrow):
	// the executor may stop before the columns after the window, whose
	// cells, the answer among them, are undefined then. Maintain must be
	// off.
	KeepCols [2]int64
	// ProgramCells is how many cells runs of this problem's shape are
	// expected to compute between them (0: this run's own): a back end
	// that compiles a program per shape decides by it whether compiling
	// pays — a traceback's bands recompute one shape many times.
	ProgramCells int64
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
	// Rows holds the rows of Options.KeepRows, in that order, whole.
	Rows *Grid
	// Window holds the columns Options.KeepCols of every row (rows x
	// their number).
	Window *Grid
	// Columns holds the columns of Options.KeepColumns, in that order,
	// whole: column k of them is row k of Columns (their number x rows).
	Columns *Grid
	// DeviceGrid is the whole grid kept in device memory
	// (Options.KeepOnDevice), else nil. The caller closes it.
	DeviceGrid DeviceGrid
	// Special is the algorithm that ran instead of the schedule
	// (plan.Plan.Special), nil when the schedule ran: the report says
	// which one gave the answer.
	Special *plan.Special

	Backend string
	Device  string
	Stats   Stats
}

// RowKeeper is implemented by executors that can keep chosen rows of a
// grid planned as pl (Options.KeepRows).
type RowKeeper interface {
	KeepsRows(pl *plan.Plan) bool
}

// ColumnSetKeeper is implemented by executors that can keep chosen
// columns of a grid planned as pl, with its chosen rows
// (Options.KeepColumns, Options.KeepRows).
type ColumnSetKeeper interface {
	KeepsColumns(pl *plan.Plan) bool
}

// Instancer is implemented by executors that run many instances of one
// problem faster for being told so: Instances returns an executor, sharing
// what the receiver holds (its compiler, its threads), that makes one
// program for all the instances of a shape — sizes, scalars, the bounds of
// the inputs' values — rather than one for each. Every problem it runs
// must be an instance of the same recurrence: a batch's, or a traceback's
// blocks of one kind.
type Instancer interface {
	Instances() Executor
}

// ColumnKeeper is implemented by executors that can keep a window of
// columns of a grid planned as pl (Options.KeepCols).
type ColumnKeeper interface {
	KeepsCols(pl *plan.Plan) bool
}

// Window reports whether o asks for a window of columns (KeepCols).
func (o Options) Window() bool { return o.KeepCols[1] > o.KeepCols[0] && o.KeepCols[0] >= 0 }

// NewWindow is opt.Grid where it fits the window KeepCols of p's rows,
// else a new grid for it (Result.Window).
func (o Options) NewWindow(p *ir.Problem) *Grid {
	return o.grid(p.CellType, p.Rows, o.KeepCols[1]-o.KeepCols[0])
}

// OnDevice is implemented by executors that can keep a whole grid in
// their device's memory (Options.KeepOnDevice).
type OnDevice interface {
	// DeviceFree is the device memory free now, in bytes.
	DeviceFree() int64
}

// ErrNoKeptRows is what an executor's error wraps when a run asked to keep
// chosen rows (Options.KeepRows) of a grid its RowKeeper allows cannot
// after all — a CPU's cells' wavefront of several tables on the Go
// evaluator, which keeps the whole grid — before computing anything: the
// caller runs the grid in bands instead.
var ErrNoKeptRows = errors.New("the run cannot keep chosen rows")

// ErrNotOnDevice is what an executor's error wraps when it cannot keep
// this problem's grid on its device (its kernel does not lay the grid out
// whole); the caller keeps it otherwise.
var ErrNotOnDevice = errors.New("the grid cannot be kept on the device")

// DeviceGrid is a grid in device memory, read cell by cell through a
// host cache. At returns any value once an error stopped it, and Err says
// which; Close frees the device memory. Reads is how many tiles were
// copied to the host.
type DeviceGrid interface {
	At(i, j int64) ir.Value
	Err() error
	Close() error
	Reads() int
}

// Stats are the measurements of a run.
type Stats struct {
	Cells          int64   // cells (or a solver's states) computed
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

// Grid is a whole scoring grid, row-major, in the problem's cell type T.
// It is one block of memory whatever the type — T.Size() bytes per cell in
// the machine's byte order — read and written through At and Set, the bulk
// stores PutInts and PutFloats, and the typed view Cells; none of them
// names a cell type, so a new type needs nothing here.
type Grid struct {
	Rows, Cols int64
	T          ir.Type
	data       []byte // Rows*Cols*T.Size() bytes, 8-byte aligned
}

// NewGrid allocates a rows x cols grid of type t. A grid of 64 MB or more
// asks for transparent huge pages and has its pages touched in parallel
// now (package hostmem says why): filling it later then runs at memory
// speed.
func NewGrid(t ir.Type, rows, cols int64) *Grid {
	g := &Grid{Rows: rows, Cols: cols, T: t}
	n := rows * cols * int64(t.Size())
	if n > 0 {
		// Allocated as words so that every typed view is aligned.
		words := make([]uint64, (n+7)/8)
		g.data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)
	}
	if len(g.data) >= 64<<20 {
		hostmem.Advise(g.data)
		hostmem.Touch(g.data)
	}
	return g
}

// Fits reports whether g is a grid of rows x cols cells of type t.
func (g *Grid) Fits(t ir.Type, rows, cols int64) bool {
	return g != nil && g.T == t && g.Rows == rows && g.Cols == cols && int64(len(g.data)) == rows*cols*int64(t.Size())
}

// Bytes is the grid's memory as bytes (row-major cells in the machine's
// byte order), for copying whole rows in and writing the grid out.
func (g *Grid) Bytes() []byte { return g.data }

// Cells is the grid's memory as a slice of T, which must have the size of
// the grid's cell type (int16 for short, float32 for float, or an unsigned
// type of that size to move cells without reading them). It panics
// otherwise.
func Cells[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](g *Grid) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if size != g.T.Size() {
		panic("backend.Cells: a view of " + strconv.Itoa(size) + "-byte elements on a grid of " + g.T.String())
	}
	if len(g.data) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(g.data))), len(g.data)/size)
}

// Reshaped is a grid of rows x cols cells of g's type over g's memory
// (its first cells), or nil when g is too small: a caller that runs
// problems of different sizes one after another (the bands of
// backend/checkpoint) allocates, and faults in, the memory once.
func (g *Grid) Reshaped(rows, cols int64) *Grid {
	if g == nil || rows < 0 || cols < 0 || rows*cols*int64(g.T.Size()) > int64(len(g.data)) {
		return nil
	}
	n := rows * cols * int64(g.T.Size())
	return &Grid{Rows: rows, Cols: cols, T: g.T, data: g.data[:n:n]}
}

// RowsOf is rows r0 .. r0+n-1 of g as a grid of its own that shares g's
// memory (a write to one is a write to the other), or nil where g has no
// such rows: the checkpoint rows a traceback keeps, taken from the rows a
// run kept, without copying them.
func (g *Grid) RowsOf(r0, n int64) *Grid {
	if g == nil || r0 < 0 || n < 0 || r0+n > g.Rows {
		return nil
	}
	row := g.Cols * int64(g.T.Size())
	return &Grid{Rows: n, Cols: g.Cols, T: g.T, data: g.data[r0*row : (r0+n)*row : (r0+n)*row]}
}

// NewGrid is opt.Grid where it fits p, else a new grid for p.
func (o Options) NewGrid(p *ir.Problem) *Grid { return o.grid(p.CellType, p.Rows, p.Cols) }

// NewRows is opt.Grid where it fits the rows of KeepRows of p, else a new
// grid for them (Result.Rows).
func (o Options) NewRows(p *ir.Problem) *Grid {
	return o.grid(p.CellType, int64(len(o.KeepRows)), p.Cols)
}

// grid is o.Grid where it is a rows x cols grid of t, else a new one.
func (o Options) grid(t ir.Type, rows, cols int64) *Grid {
	if o.Grid.Fits(t, rows, cols) {
		return o.Grid
	}
	return NewGrid(t, rows, cols)
}

// At returns cell [i][j] as a Value.
func (g *Grid) At(i, j int64) ir.Value {
	k := i*g.Cols + j
	if g.T.IsFloat() {
		return ir.Value{T: g.T, F: g.float(k)}
	}
	return ir.Value{T: g.T, I: g.int(k)}
}

// Set stores v, which must already be of the grid's type (integer values
// within its range), in cell [i][j].
func (g *Grid) Set(i, j int64, v ir.Value) {
	k := i*g.Cols + j
	if g.T.IsFloat() {
		g.PutFloats(k, 1, []float64{v.F})
		return
	}
	g.PutInts(k, 1, []int64{v.I})
}

// PutInts stores src in the cells at flat (row-major) indices at,
// at+stride, at+2*stride, ...: the values of an integer grid, as the
// evaluator holds them (int64), narrowed to the cell's size. The values
// have been checked to fit.
func (g *Grid) PutInts(at, stride int64, src []int64) {
	switch g.T.Size() {
	case 1:
		put(Cells[int8](g), at, stride, src)
	case 2:
		put(Cells[int16](g), at, stride, src)
	case 4:
		put(Cells[int32](g), at, stride, src)
	default:
		if stride == 1 {
			copy(Cells[int64](g)[at:at+int64(len(src))], src)
			return
		}
		put(Cells[int64](g), at, stride, src)
	}
}

// PutFloats is PutInts for a floating grid: float64 values rounded to the
// cell's size.
func (g *Grid) PutFloats(at, stride int64, src []float64) {
	if g.T.Size() == 4 {
		put(Cells[float32](g), at, stride, src)
		return
	}
	if stride == 1 {
		copy(Cells[float64](g)[at:at+int64(len(src))], src)
		return
	}
	put(Cells[float64](g), at, stride, src)
}

// put stores src, converted to the cell type T, at dst[at], dst[at+stride],
// ...: the loop of PutInts (S int64) and of PutFloats (S float64).
func put[T int8 | int16 | int32 | int64 | float32 | float64, S int64 | float64](dst []T, at, stride int64, src []S) {
	if stride == 1 {
		dst = dst[at : at+int64(len(src))]
		for k, v := range src {
			dst[k] = T(v)
		}
		return
	}
	for _, v := range src {
		dst[at] = T(v)
		at += stride
	}
}

// int is the integer cell at flat index k.
func (g *Grid) int(k int64) int64 {
	switch g.T.Size() {
	case 1:
		return int64(Cells[int8](g)[k])
	case 2:
		return int64(Cells[int16](g)[k])
	case 4:
		return int64(Cells[int32](g)[k])
	}
	return Cells[int64](g)[k]
}

// float is the floating cell at flat index k.
func (g *Grid) float(k int64) float64 {
	if g.T.Size() == 4 {
		return float64(Cells[float32](g)[k])
	}
	return Cells[float64](g)[k]
}
