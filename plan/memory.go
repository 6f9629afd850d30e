package plan

import (
	"runtime"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// The CPU executor's sizes that its memory depends on (backend/cpu's
// default tuning uses them; its tests check that the estimate below is
// what it allocates).
const (
	// CPUTileH and CPUTileW are the wavefront tile: a tile with its halo
	// fits in a core's L2 cache.
	CPUTileH, CPUTileW = 128, 512
	// CPULanes is the widest batch a worker's registers hold.
	CPULanes = 1024
)

// RegisterBytes is what one CPU worker's registers (a batch of CPULanes
// lanes in a few dozen registers) and goroutine stack take, a generous
// round figure: a few hundred kilobytes, noise beside the buffers.
const RegisterBytes = 256 << 10

// BaselineBytes is the resident memory of a dpgpu process before any
// problem data: the Go runtime, the program's code and its tables. It was
// measured as the maximum RSS of `dpgpu solve -b cpu lcs` on the built-in
// example (17.9 MB) and of `dpgpu check lcs` (17.3 MB), on linux/amd64.
const BaselineBytes = 18 << 20

// CPUShape is what the CPU executor's working buffers depend on besides
// the grid's size: the workers, the range of line offsets a batch reads
// (eval.Recurrence.Steps: offset d is the line d steps back, StepLo <= 0 <=
// StepHi), how many lanes before and after a cell it reads
// (eval.Recurrence.LaneReach) and the wavefront tile.
type CPUShape struct {
	Threads        int
	StepLo, StepHi int64
	Before, After  int64
	TileH, TileW   int64
}

// Tile is the wavefront tile (th rows by tw columns) for a grid of rows by
// cols: TileH by TileW cut to the grid, no smaller than the halo. One worker
// whose grid holds no more cells than a tile runs it as one tile: tile
// rows only serve the pipeline between workers, and each costs kernels of
// its own (what dominated a batch of small instances).
func (s CPUShape) Tile(rows, cols int64) (th, tw int64) {
	hD := max(s.StepHi, 0) + max(-s.StepLo, 0)
	tw = max(min(s.TileW, cols), s.Before+s.After, 1)
	th = max(min(s.TileH, rows), hD, 1)
	if s.Threads <= 1 && rows*tw <= s.TileH*s.TileW {
		th = max(rows, hD, 1)
	}
	return th, tw
}

// WaveWorkers is how many workers a wavefront of rows by cols runs: all
// of them, but one on a row of fewer than three tiles. A strip's tile
// waits for the strip above to finish the tile after it, so there the
// strips run one after another and more workers only add hand-offs (LCS
// 20,001 x 685 on 2 threads: 33 ms, on one worker 26 ms).
func (s CPUShape) WaveWorkers(rows, cols int64) int {
	_, tw := s.Tile(rows, cols)
	if (cols+tw-1)/tw < 3 {
		return 1
	}
	return max(s.Threads, 1)
}

// CPUShapeOf derives the shape from the plan's dependency offsets, for a
// run with threads workers and the default tile: what the CPU executor
// will find when it compiles the recurrence.
func CPUShapeOf(p *ir.Problem, pl *Plan, threads int) CPUShape {
	s := CPUShape{Threads: max(threads, 1), TileH: CPUTileH, TileW: CPUTileW}
	for _, d := range pl.Deps {
		step, lane := d.DI, d.DJ
		if pl.Schedule == Cols {
			step, lane = d.DJ, d.DI
		}
		if step == nil {
			continue // the executor refuses such a recurrence
		}
		s.StepLo, s.StepHi = min(s.StepLo, *step), max(s.StepHi, *step)
		if lane == nil {
			continue // data-dependent: the lines hold the whole extent
		}
		if *lane > 0 {
			s.Before = max(s.Before, *lane)
		} else {
			s.After = max(s.After, -*lane)
		}
	}
	return s
}

// CPUWork is the memory of the CPU executor's working buffers for p as
// planned, with shape s: for rows and cols, StepHi-StepLo+1 lines of
// Before+width+After 8-byte cells; for the wavefront, three rotating sets
// of the rows and columns tiles hand on, and one tile with its halo per
// worker it runs (WaveWorkers); plus RegisterBytes per worker. backend/cpu allocates exactly the
// buffers (its tests check it) and checks this figure against the
// available memory before allocating them.
func CPUWork(p *ir.Problem, pl *Plan, s CPUShape) int64 {
	threads := int64(max(s.Threads, 1))
	regs := threads * RegisterBytes
	switch pl.Schedule {
	case Rows, Cols:
		lanes := p.Cols
		if pl.Schedule == Cols {
			lanes = p.Rows
		}
		ring := s.StepHi - s.StepLo + 1
		if pl.Schedule == Rows && analysis.FirstChain(p) != nil {
			// Each worker's chained reduction (ChainColumnBytes).
			regs += threads * ChainColumnBytes * lanes
		}
		return 8*ring*(s.Before+lanes+s.After) + regs
	case Wavefront:
		hTop, hBot := max(s.StepHi, 0), max(-s.StepLo, 0)
		hD, vD := hTop+hBot, s.Before+s.After
		th, tw := s.Tile(p.Rows, p.Cols)
		edges := 3 * 8 * (hD*p.Cols + p.Rows*vD)
		tiles := int64(s.WaveWorkers(p.Rows, p.Cols)) * 8 * (hTop + th + hBot) * (s.Before + tw + s.After)
		ntr, ntc := (p.Rows+th-1)/th, (p.Cols+tw-1)/tw
		return edges + tiles + 8*(ntr+ntc-1) + regs
	}
	if pl.Cells > 0 {
		// The scan of the cells' wavefront (backend/native's Bytes): a
		// ring of threads+DP_PI+1 rows padded by DP_PJ, and a progress
		// line each, and the column caches (up to 4 slots of 8 bytes a
		// column, padded by at most CPULanes each side: a bound).
		pi, pj := pl.FlatReach()
		return regs + (threads+pi+1)*((pj+p.Cols)*int64(p.CellType.Size())+64) + 8*4*(p.Cols+2*CPULanes)
	}
	// Generic schedules work in the grid itself, and in its transposed
	// copy when they keep one; several workers in row-major order keep
	// each row's progress (Plan.SerialLag).
	if pl.Serial && pl.SerialLag >= 0 && threads > 1 {
		regs += 8 * p.Rows
	}
	if pl.Transposed {
		return regs + GridBytes(p)
	}
	return regs
}

// ChainColumnBytes is what a CPU worker keeps a column for a chained
// reduction (analysis.FirstChain): the Go evaluator's value, bound and row
// (eval's chainFn); the host program's value and bound fit within.
const ChainColumnBytes = 24

// GridBytes is the size of p's whole grid in its cell type: what keeping
// it (maintain, --grid, --traceback) costs.
func GridBytes(p *ir.Problem) int64 { return p.Cells() * int64(p.CellType.Size()) }

// InputHostBytes is what the inputs take on the host once checked,
// measured rather than derived: 9 bytes an element, plus 2 MiB for each
// input read from a file. problems/formats parses straight into typed
// arrays of 8 bytes a value, and checking takes that array itself (it
// copies only to convert, e.g. integers into a float input); reading a
// file costs a fixed amount besides (buffers the heap keeps). Peak RSS less
// the 18 MiB baseline: Manhattan 10,000² (199,980,000 weights) 8.0 bytes
// an element; LCS of two 50,000,000-character FASTA files 9.0; LCS of
// 200,000 characters against 2,000 to 200,000 (two files) measured 4.2–4.5
// MB above the element figure whatever the sizes, i.e. ~2 MiB a file.
func InputHostBytes(p *ir.Problem) int64 {
	var n int64
	for _, in := range p.Inputs {
		n += inputElementBytes * int64(in.Len())
		if in.Origin != "inline" && in.Origin != "" {
			n += inputFileBytes
		}
	}
	return n
}

// inputElementBytes and inputFileBytes make up InputHostBytes.
const (
	inputElementBytes = 9
	inputFileBytes    = 2 << 20
)

// CPUMemory is the estimate for a `solve -b cpu` run of p as planned with
// threads workers (0: one per core), keeping the whole grid when keep is
// set (maintain, --grid, --traceback).
func CPUMemory(p *ir.Problem, pl *Plan, threads int, keep bool) Memory {
	keepIn := keep
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	var m Memory
	for _, in := range p.Inputs {
		m.Inputs += int64(in.Len()) * int64(in.T.Size())
	}
	cell := int64(p.CellType.Size())
	var width int64
	switch pl.Schedule {
	case Rows:
		width = p.Cols
	case Cols:
		width = p.Rows
	case Wavefront:
		width = min(p.Rows, p.Cols)
	}
	m.Device = int64(pl.Prev+1)*width*cell + m.Inputs
	if pl.Schedule == Rows {
		// A reduction over an item's copies that is a case's whole value
		// may run in two launches a row on the GPU, the first's sums of
		// segments kept for the second (backend/gpu linechain.go).
		if red, _, ok := analysis.ClassChain(p); ok && analysis.ChainAlone(p, red) {
			m.Device += 8 * (2*width + 16)
		}
	}
	if pl.Schedule.Generic() {
		// The whole grid is read over ranges of fronts: it stays in
		// memory on the device and on the host.
		m.Device = GridBytes(p) + m.Inputs
		if pl.Transposed {
			m.Device += GridBytes(p)
		}
		keep = true
		if pl.Cells > 0 {
			// The cells' wavefront: the GPU's strip kernel keeps the
			// bottom rows of a strip for the next, twice; the CPU's scan
			// a few rows (CPUWork). Only runs that keep the grid keep it.
			pi, _ := pl.FlatReach()
			m.Device = 2*max(pi, 1)*p.Cols*cell + m.Inputs
			keep = keepIn
		}
	}
	m.Threads = threads
	m.Baseline = BaselineBytes
	m.HostInputs = InputHostBytes(p)
	m.Work = CPUWork(p, pl, CPUShapeOf(p, pl, threads))
	if keep {
		m.Grid = GridBytes(p)
	}
	m.Host = m.Baseline + m.HostInputs + m.Work + m.Grid
	return m
}

// memory is the plan's estimate: a run on all cores, keeping the grid
// when the problem says maintain: 1.
func memory(p *ir.Problem, pl *Plan) Memory {
	return CPUMemory(p, pl, 0, p.Maintain)
}

// FlatReach is how many rows and flat columns back the references of a
// cells' wavefront read (Plan.Cells; every offset is constant there).
func (pl *Plan) FlatReach() (pi, pj int64) {
	for _, d := range pl.Deps {
		pi, pj = max(pi, *d.DI), max(pj, *d.DJ)
	}
	return pi, pj
}
