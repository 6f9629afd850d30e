// Package codegen turns a checked, planned problem into CUDA C: the
// recurrence becomes a typed __device__ function, and a kernel template
// (package templates) chosen by the schedule sweeps the grid with it. The
// result, a Program, carries the source and everything the CUDA executor
// (backend/gpu) needs to run it: kernel names, where each input lives,
// the tile geometry and the table of check sites that device errors refer to.
//
// The generated code is deterministic: the same problem and options give the
// same source byte for byte, so the compile cache (keyed by the source) hits.
//
// Scalars, ROWS, COLS and the input sizes are compile-time constants in the
// source rather than kernel parameters. sema already folds ROWS, COLS and
// len() into constants, and constants let NVRTC fold the index arithmetic,
// the bounds checks and the boundary cases (`i == 0`) of the hot loops; the
// price is a compile (about a second, once, then cached) for each new size
// or `--set` value, while new data of the same size reuses the cached CUBIN.
package codegen

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
	"github.com/dpgpu/dpgpu/templates"
)

// KernelKind is how a program sweeps the grid.
type KernelKind string

const (
	// KernelLine computes one row (rows schedule) or column (cols) per
	// launch, every cell of it in parallel; prev+1 lines rotate in device
	// memory.
	KernelLine KernelKind = "line"
	// KernelTile computes the tiles of one tile anti-diagonal per launch,
	// each tile by one block with an in-tile wavefront in shared memory.
	// It runs any wavefront recurrence, and copies tiles back for maintain.
	KernelTile KernelKind = "tile"
	// KernelStrip is the fast wavefront: one persistent launch in which each
	// warp sweeps a strip of 32*RowsPerThread rows across all columns with
	// the cells in registers, following the strip above through progress
	// flags.
	KernelStrip KernelKind = "strip"
	// KernelFront runs the generic schedules (plan.Kind.Generic): one
	// launch per front of the plan's hyperplane, over the whole grid kept
	// in device memory, each cell by a thread, a warp or a block (Spread,
	// chosen per front by FrontSpread).
	KernelFront KernelKind = "front"
	// KernelHost is not a GPU kernel: the program GenerateHost writes for
	// the CPU (templates/host.cu), compiled by the system's C++ compiler.
	KernelHost KernelKind = "host"
	// KernelBatch computes many instances of one shape in one launch
	// (Options.Batch): one warp an instance, its rows in the lanes'
	// registers as in the strip kernel, strips of the instance one after
	// another through shared memory.
	KernelBatch KernelKind = "batch"
)

// stripSync is DP_SYNC of templates/strip.cu: the steps a warp of the strip
// kernel takes between looks at its neighbours (and, with Keep, between
// writes of its cells).
const stripSync = 8

// Kernel entry points (extern "C", so the names are not mangled).
const (
	FuncLine  = "dp_line"
	FuncLines = "dp_lines" // a run of lines in one launch, a grid barrier between them
	// FuncLineTiles: a run of lines in one launch dealt to tiles of
	// columns, each waiting only for the tiles whose cells it reads.
	FuncLineTiles = "dp_linetiles"
	// FuncLinePass: a pass of lines in shared memory, each block over its
	// positions widened by what the pass's later lines read (no waits).
	FuncLinePass = "dp_linepass"
	// FuncLineChain computes one row whose recurrence chains a reduction
	// (Program.Chain): a thread takes a residue class of the columns
	// modulo the row's step, in order (templates/line.cu).
	FuncLineChain = "dp_linechain"
	FuncGather    = "dp_gather"
	FuncTile      = "dp_tile"
	FuncStrip     = "dp_strip"
	FuncBatch     = "dp_batch"
	// The front kernel's entry points, one per Spread, and the reduction
	// of a region answer over the finished grid.
	FuncFrontThread = "dp_front_thread"
	FuncFrontWarp   = "dp_front_warp"
	FuncFrontBlock  = "dp_front_block"
	FuncFrontRange  = "dp_front_range" // fronts whose cells read no other cell
	FuncRegion      = "dp_region"
)

// Module globals.
const (
	SymError   = "dp_err"   // struct dp_error_t (40 bytes)
	SymAbort   = "dp_abort" // int: non-zero stops the strip kernel
	SymAnswer  = "dp_ans"   // cell_t: the answer cell
	SymCapture = "dp_capv"  // cell_t[MaxStripCaptures]: captured answer cells (strip)
)

// Device error codes (dp_err.code).
const (
	ErrCell     = 1
	ErrLoad     = 2
	ErrOverflow = 3
	ErrDivZero  = 4
	ErrNaN      = 5 // NaN converted to an integer, or a NaN cell (SiteNaNCell)
	ErrInfOp    = 6 // inf - inf, inf * 0, inf / inf or inf % x (SiteInf)
	// ErrOrder: a reference the planner could not prove to read an earlier
	// front (plan.Dependency.Checked) read a cell of the same or a later
	// front; site is the reference's ID, as for ErrCell.
	ErrOrder = 7
)

// PartBytes is the size of one partial result of a region answer
// (struct dp_part_t: idx int64, iv int64, fv float64, any int32, pad int32).
const PartBytes = 32

// MaxStripCaptures is how many answer cells the strip kernel captures
// itself; answers that read more cells use the tile kernel.
const MaxStripCaptures = 4

// Placement says where an input lives on the device.
type Placement uint8

const (
	Constant Placement = iota // __constant__ array, filled by the host
	Global                    // read-only global memory, pointer in a __constant__ symbol
	Texture                   // texture object, handle in a __constant__ symbol
)

func (p Placement) String() string {
	return [...]string{"constant", "global", "texture"}[p]
}

// Input is one input of the problem as the program expects it.
type Input struct {
	In     *ir.Input
	Symbol string // module global to fill: the array, the pointer or the texture handle
	Place  Placement
	// Unsigned is set for char data with codes above 127: stored as
	// unsigned char (else signed char).
	Unsigned bool
	Len      int64
	Rows     int64
	Cols     int64
	// PerInstance: a batch program (Options.Batch) reads this input per
	// instance: its launch pointer (BatchPointers) is at every instance's
	// elements, Len apart, in launch order. A batch program reads every
	// input through such a pointer and has no symbol for it.
	PerInstance bool
}

// Options tune the generated program.
type Options struct {
	// Maintain asks for a program that copies every cell back (strips or
	// tiles for wavefronts, staged lines for rows and cols).
	Maintain bool
	// KeepRows asks the strip kernel to write chosen rows of the grid
	// (those whose entry in the kernel's keepSlot table is not -1) to a
	// buffer as it sweeps (backend.Options.KeepRows); only a wavefront
	// that StripFits has it.
	KeepRows bool
	// KeepCols asks the strip kernel to write chosen columns as well
	// (backend.Options.KeepColumns; the columns of the kernel's table
	// after the rows'): with KeepRows only.
	KeepCols bool
	// Slabs asks for a strip kernel that sweeps one column slab of the
	// grid, given at launch, and passes its last columns to the next slab
	// (DP_SLABS: one grid over several GPUs, or several slabs on one). Not
	// with Maintain or KeepRows; other kernels ignore it.
	Slabs bool
	// Bands asks for a strip kernel whose launch is one of several that
	// share the strips in row bands dealt round-robin, given at launch,
	// each band's last strip passing its rows to the next launch (DP_BANDS:
	// one grid over several GPUs, or several launches on one). Not with
	// Maintain, KeepRows or Slabs; other kernels ignore it.
	Bands bool
	// Mem overrides the problem's `mem:` (MemFromProblem keeps it).
	Mem MemChoice
	// ConstantBytes is the room for inputs in __constant__ memory
	// (default 60 KiB of the 64 KiB, leaving room for the symbols).
	ConstantBytes int64
	// TextureMax is the largest texture (elements) the device supports;
	// larger inputs fall back to global memory (default 1<<27).
	TextureMax int64
	// Kernel forces KernelTile or KernelStrip for a wavefront ("" chooses).
	Kernel KernelKind
	// TileH and TileW are the tile kernel's tile size (default 64x64, and
	// 128x128 with Maintain).
	TileH, TileW int
	// RowsPerThread is the strip kernel's rows per thread (default 4).
	RowsPerThread int
	// StripWarps is the strip kernel's warps per block (default 8).
	StripWarps int

	// LineThreads is the line kernel's block size (default 256).
	LineThreads int
	// NoLineChain keeps a rows program's reductions in their loops (no
	// FuncLineChain): `DPGPU_LINE_CHAIN=off`, to compare.
	NoLineChain bool
	// LineInlineChecks makes the line kernels report a failed check where
	// it happens (a branch around a call) instead of computing a thread's
	// cells with the checks as a flag first (measurements).
	LineInlineChecks bool

	// Spread forces how the front kernel maps a cell to threads
	// (SpreadAuto: per front, by FrontSpread).
	Spread Spread
	// FrontThreads and WarpThreads are the front kernel's block sizes with
	// one thread and one warp per cell, BlockThreads the largest block that
	// computes one cell (defaults 128, 128 and 1024; WarpThreads and
	// BlockThreads multiples of 32, at most 1024).
	FrontThreads, WarpThreads, BlockThreads int
	// NoMirror leaves out the front kernel's transposed copy of the grid
	// (half the device memory; column walks then read the grid itself).
	NoMirror bool
	// SplitUnroll is how many iterations of a split reduction issue their
	// reads together (default 4); FillThreads how many threads per
	// multiprocessor FrontSpread aims to give a front (default 2048). For
	// tuning.
	SplitUnroll, FillThreads int

	// FMA lets NVRTC contract a*b+c into fused multiply-adds. Off by
	// default so that floating results match the CPU's.
	FMA bool

	// Batch asks for a batch program (KernelBatch): one launch computes
	// many instances of the problem's shape (sizes, scalars and the inputs
	// not in BatchInputs equal), each by one warp. Generate fails with
	// ErrNotBatchable where the problem does not suit it.
	Batch bool
	// BatchInputs names the inputs that vary between the instances of a
	// batch (the problem's positional arguments); the others are shared.
	BatchInputs []string
	// BatchColumns asks for a batch program whose instances may have fewer
	// columns than the problem it is generated for (a column input
	// shorter than the problem's; Program.BatchColumns): each instance's
	// column count and answer column come with the launch. Only for
	// forward sweeps, where a cell reads no column right of its own, so
	// that the columns an instance lacks never reach the ones it has; the
	// caller makes sure the recurrence does not depend on the column
	// count (engine: the instances' lowered recurrences are equal).
	BatchColumns bool
	// For tuning batch programs: rows per thread (default: the fewest
	// strips of at most 8), warps per block (default 8, fewer where the
	// rows between strips need the shared memory) and the blocks per
	// multiprocessor the compiler must leave registers for (default 1).
	BatchRowsPerThread, BatchWarps, BatchMinBlocks int
	// BatchGlobalRows puts the rows a batch program's strips pass each
	// other in global memory even where shared memory would hold them
	// (for tests and tuning).
	BatchGlobalRows bool
	// BatchNoPack keeps a batch program to 32-bit cells, one instance a
	// warp, where two instances in 16-bit halves would serve
	// (Program.BatchPacked): for comparisons and tests.
	BatchNoPack bool
}

// ErrNotBatchable is Generate's error (wrapped, with the reason) for
// Options.Batch where no batch program runs the problem: those instances
// run one at a time.
var ErrNotBatchable = errors.New("no batch kernel for this problem")

// MemChoice says where inputs go, overriding the problem's `mem:`.
type MemChoice uint8

const (
	MemFromProblem MemChoice = iota // as the problem's `mem:` says
	Mem0                            // `mem: 0`: constant memory, or read-only global
	Mem1                            // `mem: 1`: textures
)

// AnswerMode is how a program delivers the answer.
type AnswerMode uint8

const (
	AnswerCell    AnswerMode = iota + 1 // dp_ans holds the answer cell
	AnswerRegion                        // partial results in the part buffer
	AnswerCapture                       // the cells the answer expression reads
)

// Program is generated CUDA C with what it takes to run it.
type Program struct {
	Name    string   // file name NVRTC reports, e.g. "lcs.cu"
	Source  string   // the CUDA C
	Options []string // NVRTC options, besides the architecture

	Kernel   KernelKind
	Schedule plan.Kind
	Backward bool
	Cell     ir.Type
	Rows     int64
	Cols     int64

	Inputs []Input
	Sites  []Site // indexed by dp_err.site for every code but ErrCell
	// Refs are the cell references: dp_err.site for ErrCell indexes it.
	Refs []*ir.CellRef

	// Line kernel: lines (rows or columns) in sweep order, their width,
	// how many lines back a cell reads.
	Lines, Width int64
	Reach        int
	LineThreads  int
	// LineLeft and LineRight: how far before and after its own position
	// in the line a cell may read in the earlier lines (over every value
	// of the data and the reduction variables, as the plan's ranges prove
	// them); -1 when nothing bounds it. The executor deals the lines of a
	// run to tiles of columns (dp_linetiles) only where both are bounded.
	LineLeft, LineRight int64
	// Chain: the line program's recurrence runs its chained reduction
	// (analysis.FirstChain; chain.go) where the column S before it is the
	// thread's last, and has FuncLineChain.
	Chain bool

	// Wavefront: how far back (up, left, in sweep order) cells read.
	PI, PJ int
	// Tables > 1: the strip kernel sweeps the wavefront of the cells of
	// a recurrence of Tables tables (plan.Plan.Cells), computing a cell's
	// tables in file order (dp_rec_t); its register window holds flat
	// columns, Tables a step, and PJ counts flat columns back from the
	// last table of the cell being computed (cellReach).
	Tables int
	// Tile kernel geometry.
	TileH, TileW    int
	TilesI, TilesJ  int64
	TileSharedBytes int
	// Strip kernel geometry.
	RowsPerThread, StripWarps int
	Strips                    int64
	// Keep is set when the strip kernel writes every cell out (Maintain):
	// strip s to slot s % nslots of a buffer of StripRows() x Cols cells per
	// slot, in real coordinates, the slot's lowest real row first. It then
	// launches with StripSharedBytes of dynamic shared memory.
	Keep             bool
	StripSharedBytes int
	// KeepRows: the strip kernel writes the rows keepSlot names
	// (Options.KeepRows).
	KeepRows bool
	// KeepCols: and the columns its table names (Options.KeepCols).
	KeepCols bool
	// Slabs: the strip kernel sweeps the column slab of its launch
	// arguments (Options.Slabs).
	Slabs bool
	// Bands: the strip kernel sweeps the row bands of its launch
	// arguments (Options.Bands).
	Bands bool

	// Front kernel (generic schedules): the plan's front function; Mirror
	// is set when a transposed copy of the grid (Cols x Rows, cell (i, j)
	// at j*Rows + i) is kept beside it, written with every cell, for the
	// references whose row runs with a split reduction's variable; Split
	// when some reduction can be split across the lanes of a warp or block
	// (else every front runs a thread per cell). The block sizes are those
	// of Options.
	Front                                   plan.Hyperplane
	Mirror, Split                           bool
	FrontThreads, WarpThreads, BlockThreads int
	Spread                                  Spread // forced by Options.Spread; SpreadAuto otherwise
	SplitUnroll, FillThreads                int
	spans                                   []redSpan  // the split reductions' bounds, for ReductionLength
	cases                                   []caseInfo // for ReadsNoCell

	Answer   AnswerMode
	Captures [][2]int64 // AnswerCapture: the cells, sorted (row-major)
	// Region answer operation (AnswerRegion).
	RegionOp ir.ReduceOp

	// Bitpar is what a KernelBitpar program was generated for
	// (GenerateBitpar).
	Bitpar Bitpar

	// BatchWarps is a batch program's warps per block (one instance
	// each), BatchMinBlocks its __launch_bounds__ blocks per
	// multiprocessor. BatchColumns: each instance's columns (at most
	// Cols) and answer column are launch arguments (Options.BatchColumns).
	BatchWarps, BatchMinBlocks int
	BatchColumns               bool
	// BatchRowBytes is what a batch launch gives each instance in global
	// memory for the rows its strips pass each other (batch.cu's grows,
	// DP_BGLOBAL), where they are too wide for shared memory; 0 where
	// they fit there.
	BatchRowBytes int64
	// BatchProfiles is how many of a batch program's input reads come from
	// profiles in shared memory (codegen/profile.go).
	BatchProfiles int
	// BatchValueOnly: the program's region min or max is the value, not
	// the cell that holds it (a batch reports answers; keeping each row's
	// best column cost a third of the protein search's kernel).
	BatchValueOnly bool
	// BatchPacked: a warp of the batch program computes two instances,
	// 2p and 2p+1, in the 16-bit halves of its registers (codegen/pack16.go,
	// templates/batch16.cu); a launch of n instances has (n+1)/2 warps.
	// BatchUnpacked says why a batch program is not packed.
	BatchPacked   bool
	BatchUnpacked string
}

// StripRows is the height of one strip of the strip kernel (one block's
// rows: 32 per warp and RowsPerThread per lane).
func (p *Program) StripRows() int64 { return 32 * int64(p.RowsPerThread) * int64(p.StripWarps) }

type gen struct {
	p    *ir.Problem
	pl   *plan.Plan
	opt  Options
	prog *Program

	sites   []Site
	refSafe []bool
	// refDJ[ID] bounds j minus the column the reference reads, over the
	// cells that read it (Empty: none; Full: not known), in the ranges
	// the program is specialised to: where the host's rows sweep may keep
	// one line (hostInPlace).
	refDJ []analysis.Range
	errs  source.ErrorList

	rowSlot map[*ir.Load]int
	colSlot map[*ir.Load]int
	// pfSlot: the reads a batch program's profiles serve (profile.go).
	pfSlot   map[*ir.Load]int
	profiles []*profile
	rowLds   []*ir.Load
	colLds   []*ir.Load

	cellRange analysis.Range
	// runCells bounds the cells of a run that stops at its first failure
	// (analysis.Stops): what mayBeInf and deferredAdd may rely on, where
	// cellRange holds after a failure too (a GPU sweep goes on after one,
	// and the proofs that keep its reads in memory must hold then).
	runCells analysis.Range
	// finCells bounds the finite values of the cells of a run that stops
	// at its first failure, where inf values are possible (finitePart):
	// what satOperands relies on. Full where nothing is proved.
	finCells analysis.Range
	// cellInf: the infinities each table may hold (analysis.TableInfSigns),
	// for the inf forms that test one sentinel (emitter.satOffset).
	cellInf analysis.CellSigns
	// hostScan: a host program's wavefront runs row by row (HostProgram.Scan).
	hostScan bool
	// recChecks: the recurrence has a check that may report (source).
	recChecks bool
	// hostChain: where the recurrence of a host program or of a rows
	// program on the GPU has a chained reduction (chain.go; DP_CHAIN),
	// else no position.
	hostChain source.Pos
	// hostFront: a host program runs the fronts of a generic schedule
	// (HostProgram.Fronts).
	hostFront bool
	// inputRanges caches the walker's bounds of each input's values.
	inputRanges map[*ir.Input]analysis.Range
	// refMirror[ID]: the front kernel's warps and blocks read the reference
	// from the transposed copy of the grid.
	refMirror []bool
}

func (g *gen) fail(n ir.Expr, format string, args ...any) {
	g.errs.Add(n.Position(), "code generation: "+format, args...)
}

func (g *gen) input(in *ir.Input) *Input {
	for k := range g.prog.Inputs {
		if g.prog.Inputs[k].In == in {
			return &g.prog.Inputs[k]
		}
	}
	return nil
}

// Generate writes the CUDA program for p planned as pl.
func Generate(p *ir.Problem, pl *plan.Plan, opt Options) (*Program, error) {
	if p.Rows <= 0 || p.Cols <= 0 {
		return nil, fmt.Errorf("codegen: empty %dx%d grid", p.Rows, p.Cols)
	}
	if !p.CellType.Is(ir.IsCell) {
		return nil, fmt.Errorf("codegen: unsupported cell type %s", p.CellType)
	}
	if opt.ConstantBytes == 0 {
		opt.ConstantBytes = 60 << 10
	}
	if opt.TextureMax == 0 {
		opt.TextureMax = 1 << 27
	}
	if opt.TileH == 0 {
		// Larger tiles copy back in longer rows (maintain).
		opt.TileH = 64
		if opt.Maintain {
			opt.TileH = 128
		}
	}
	if opt.TileW == 0 {
		opt.TileW = 64
		if opt.Maintain {
			opt.TileW = 128
		}
	}
	if opt.RowsPerThread == 0 {
		opt.RowsPerThread = 4
		if pl.Cells > 1 {
			// A cell's tables are several cells' work a row: 2 rows a
			// lane ran Gotoh's three tables fastest on the H100 (312 ms
			// at 262,144^2 against 334 with 4, and NVRTC 0.83 s
			// against 1.27-1.50; backend/gpu TestPerfTables).
			opt.RowsPerThread = 2
		}
	}
	if opt.StripWarps == 0 {
		opt.StripWarps = 8
	}

	if opt.LineThreads == 0 {
		opt.LineThreads = 256
	}
	if opt.FrontThreads == 0 {
		opt.FrontThreads = 128
	}
	if opt.WarpThreads == 0 {
		opt.WarpThreads = 128
	}
	if opt.BlockThreads == 0 {
		opt.BlockThreads = 1024
	}
	if opt.SplitUnroll <= 0 {
		opt.SplitUnroll = 4
	}
	if opt.FillThreads <= 0 {
		opt.FillThreads = 2048
	}
	g := &gen{p: p, pl: pl, opt: opt, rowSlot: map[*ir.Load]int{}, colSlot: map[*ir.Load]int{}, pfSlot: map[*ir.Load]int{}}
	prog := &Program{
		Name:     programName(p),
		Schedule: pl.Schedule,
		Backward: pl.Direction == plan.Backward,
		Cell:     p.CellType,
		Rows:     p.Rows,
		Cols:     p.Cols,
		Refs:     p.CellRefs,
		Options:  []string{"--std=c++17", "-default-device"},
	}
	if !opt.FMA {
		prog.Options = append(prog.Options, "--fmad=false")
	}
	g.prog = prog
	if err := g.layout(); err != nil {
		return nil, err
	}
	g.placeInputs()
	g.classifyLoads()
	g.classifyProfiles()
	prog.BatchProfiles = len(g.profiles)
	g.cellRange, g.runCells = g.inferCellRange(analysis.Wraps), g.inferCellRange(analysis.Stops)
	g.finCells, g.cellInf = g.finitePart(), analysis.TableInfSigns(g.p, g.inputInf)
	src, err := g.source()
	if err != nil {
		return nil, err
	}
	if err := g.errs.Err(); err != nil {
		return nil, err
	}
	prog.Source = src
	prog.Sites = g.sites
	return prog, nil
}

func programName(p *ir.Problem) string {
	name := p.Name
	if name == "" {
		name = "problem"
	}
	return cIdent(name) + ".cu"
}

// lineSpread is how far left and right of its own position in the line
// (column for rows, row for columns) a cell of a line schedule reads in the
// earlier lines: the widest of the references' offset ranges across the
// line, -1 for a side nothing bounds.
func lineSpread(pl *plan.Plan) (left, right int64) {
	for _, d := range pl.Deps {
		r := d.RangeJ
		if pl.Schedule == plan.Cols {
			r = d.RangeI
		}
		if r.Lo > r.Hi {
			continue // the reference is never read
		}
		// An offset o = j - col reads o positions to the left.
		if r.Hi == math.MaxInt64 || left < 0 {
			left = -1
		} else {
			left = max(left, r.Hi)
		}
		if r.Lo == math.MinInt64 || right < 0 {
			right = -1
		} else {
			right = max(right, -r.Lo)
		}
	}
	return left, right
}

// layout chooses the kernel and its geometry.
func (g *gen) layout() error {
	p, pl, prog, opt := g.p, g.pl, g.prog, g.opt
	sign := int64(1)
	if prog.Backward {
		sign = -1
	}
	switch pl.Schedule {
	case plan.Rows, plan.Cols:
		prog.Kernel = KernelLine
		prog.LineThreads = opt.LineThreads
		prog.Lines, prog.Width = p.Rows, p.Cols
		if pl.Schedule == plan.Cols {
			prog.Lines, prog.Width = p.Cols, p.Rows
		}
		for _, d := range pl.Deps {
			off := d.DI
			if pl.Schedule == plan.Cols {
				off = d.DJ
			}
			if off == nil || *off*sign < 1 {
				return fmt.Errorf("codegen: %s does not read an earlier line (internal planning error)", d.Ref.Text)
			}
			prog.Reach = max(prog.Reach, int(*off*sign))
		}
		prog.LineLeft, prog.LineRight = lineSpread(pl)
	case plan.Wavefront:
		var bad *plan.Dependency
		if prog.PI, prog.PJ, bad = wavefrontReach(pl); bad != nil {
			return fmt.Errorf("codegen: %s has no constant backward offset (internal planning error)", bad.Ref.Text)
		}
		prog.Kernel = g.chooseWavefront()
		switch prog.Kernel {
		case KernelTile:
			prog.TileH, prog.TileW = opt.TileH, opt.TileW
			for prog.TileH < prog.PI {
				prog.TileH *= 2
			}
			for prog.TileW < prog.PJ {
				prog.TileW *= 2
			}
			if prog.TileH > 1024 {
				return fmt.Errorf("codegen: a cell reads %d rows back; the tile kernel supports at most 1024", prog.PI)
			}
			prog.TilesI = (p.Rows + int64(prog.TileH) - 1) / int64(prog.TileH)
			prog.TilesJ = (p.Cols + int64(prog.TileW) - 1) / int64(prog.TileW)
			prog.TileSharedBytes = (prog.TileH + prog.PI) * (prog.TileW + prog.PJ) * p.CellType.Size()
		case KernelStrip:
			prog.RowsPerThread = max(opt.RowsPerThread, prog.PI)
			prog.StripWarps = opt.StripWarps
			prog.Strips = (p.Rows + prog.StripRows() - 1) / prog.StripRows()
			prog.KeepRows = opt.KeepRows && !opt.Maintain
			prog.KeepCols = prog.KeepRows && opt.KeepCols && max(prog.Tables, 1) == 1 && !prog.Backward
			prog.Slabs = opt.Slabs && !opt.Maintain && !opt.KeepRows
			prog.Bands = opt.Bands && !opt.Slabs && !opt.Maintain && !opt.KeepRows
			if opt.Maintain {
				prog.Keep = true
				prog.StripSharedBytes = prog.StripWarps * 32 * prog.RowsPerThread * stripSync * p.CellType.Size()
			}
		}
	case plan.Interval, plan.Hyperplanar:
		switch {
		case opt.Batch && pl.Cells > 1:
			// A batch of the wavefront of cells: batchLayout below.
			prog.Tables = int(pl.Cells)
			prog.PI, prog.PJ = cellReach(pl)
		case g.cellStrip():
			prog.Tables = int(pl.Cells)
			prog.PI, prog.PJ = cellReach(pl)
			prog.Kernel = KernelStrip
			prog.RowsPerThread = max(opt.RowsPerThread, prog.PI)
			prog.StripWarps = opt.StripWarps
			prog.Strips = (p.Rows + prog.StripRows() - 1) / prog.StripRows()
			prog.Bands = opt.Bands
		default:
			if err := g.frontLayout(); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("codegen: unknown schedule %q", pl.Schedule)
	}
	if opt.Batch && pl.Schedule != plan.Wavefront && prog.Tables < 2 {
		return fmt.Errorf("%w: the %s schedule has none (only wavefronts do)", ErrNotBatchable, pl.Schedule)
	}
	switch pl.Answer.Kind {
	case plan.AnswerCell:
		prog.Answer = AnswerCell
	case plan.AnswerRegion:
		prog.Answer = AnswerRegion
		prog.RegionOp = pl.Answer.Op
	default:
		prog.Answer = AnswerCapture
		prog.Captures = append([][2]int64(nil), pl.Answer.Cells...)
		sort.Slice(prog.Captures, func(a, b int) bool {
			x, y := prog.Captures[a], prog.Captures[b]
			return x[0] < y[0] || (x[0] == y[0] && x[1] < y[1])
		})
	}
	if opt.Batch {
		return g.batchLayout()
	}
	return nil
}

// batchSharedBytes bounds the shared memory of a batch block: the rows
// an instance's strips pass each other (2 x PI rows of the instance a
// warp, double-buffered).
const batchSharedBytes = 40 << 10

// batchLayout makes a wavefront program a batch program (Options.Batch),
// or says why it cannot be one.
func (g *gen) batchLayout() error {
	p, pl, prog, opt := g.p, g.pl, g.prog, g.opt
	why := ""
	switch {
	case prog.PI > 8 || prog.PJ > 8:
		why = fmt.Sprintf("its cells read %d rows and %d columns back (at most 8)", prog.PI, prog.PJ)
	case prog.Answer == AnswerCapture:
		why = "its answer is an expression over several cells"
	case prog.Answer == AnswerRegion && pl.Answer.Op == ir.ReduceSum && p.CellType.IsFloat():
		why = "its answer is a floating sum, whose rounding would follow the order of the additions"
	case opt.Maintain || opt.KeepRows:
		why = "the run keeps the grid"
	case opt.BatchColumns && prog.Backward:
		why = "it sweeps backward: instances of fewer columns cannot share a program"
	case opt.BatchColumns && prog.Answer == AnswerRegion && !pl.Answer.EveryColumn(p.Cols, int64(max(prog.Tables, 1))):
		why = "its answer region does not span every column: instances of fewer columns cannot share a program"
	}
	if why != "" {
		return fmt.Errorf("%w: %s", ErrNotBatchable, why)
	}
	// The fewest strips of at most 8 rows a lane (4 for a cell's several
	// tables: their window is that many columns wider), the rows spread
	// evenly.
	maxRPT := int64(8)
	if prog.Tables > 1 {
		maxRPT = 4
	}
	strips := (p.Rows + 32*maxRPT - 1) / (32 * maxRPT)
	rpt := int((p.Rows + 32*strips - 1) / (32 * strips))
	if opt.BatchRowsPerThread > 0 {
		rpt = opt.BatchRowsPerThread
	}
	prog.RowsPerThread = max(rpt, prog.PI, 1)
	prog.Kernel = KernelBatch
	if err := g.batchWarps(); err != nil {
		return err
	}
	prog.BatchMinBlocks = max(opt.BatchMinBlocks, 1)
	prog.BatchColumns = opt.BatchColumns
	prog.BatchValueOnly = prog.Answer == AnswerRegion && prog.RegionOp != ir.ReduceSum && !p.CellType.IsFloat()
	return nil
}

// batchStripBytes is the shared memory of a batch block a warp for the rows
// its strips pass each other (batch.cu's bnd: two slots of DP_PI rows, a
// cell each where one strip holds the rows).
func (g *gen) batchStripBytes() int64 {
	p, prog := g.p, g.prog
	var cols int64 = 1
	if p.Rows > 32*int64(prog.RowsPerThread) {
		cols = p.Cols
	}
	return 2 * int64(max(prog.PI, 1)) * cols * int64(p.CellType.Size())
}

// batchWarps sets a batch program's warps a block for its rows a lane:
// Options.BatchWarps or 8, fewer where the rows its strips pass each
// other would not fit the block's shared memory. Where they would fit
// only with fewer than batchMinSharedWarps (by default; any fewer than
// one where BatchWarps is given), they go to global memory (BatchRowBytes
// an instance) and the block keeps its warps: measured on an H100, the
// affine protein search (three tables, a 350-residue query against
// 50,000 proteins up to 1,600) kept 1 or 2 warps a block for its longer
// proteins at 636-661 GCUPS, and ran at 775-826 with 8 warps and global
// rows.
func (g *gen) batchWarps() error {
	perWarp := g.batchStripBytes()
	warps, least := 8, batchMinSharedWarps
	if g.opt.BatchWarps > 0 {
		warps, least = min(g.opt.BatchWarps, 32), 1
	}
	fit := warps
	for fit > 1 && perWarp*int64(fit) > batchSharedBytes {
		fit /= 2
	}
	if perWarp*int64(fit) > batchSharedBytes || fit < min(least, warps) || g.opt.BatchGlobalRows {
		g.prog.BatchWarps = warps
		g.prog.BatchRowBytes = perWarp
		return nil
	}
	g.prog.BatchWarps = fit
	return nil
}

// batchMinSharedWarps is the fewest warps a batch block keeps to pass its
// rows through shared memory (batchWarps).
const batchMinSharedWarps = 4

// chooseWavefront picks the strip kernel where it applies: small offsets,
// few captured answer cells.
func (g *gen) chooseWavefront() KernelKind {
	switch g.opt.Kernel {
	case KernelTile, KernelStrip:
		if g.opt.Kernel == KernelStrip && g.stripFits() {
			return KernelStrip
		}
		return KernelTile
	}
	if g.stripFits() {
		return KernelStrip
	}
	return KernelTile
}

func (g *gen) stripFits() bool { return stripFits(g.pl, g.prog.PI, g.prog.PJ) }

// cellStrip reports whether the strip kernel sweeps the plan's wavefront
// of the cells of several tables (plan.Plan.Cells): a run that keeps no
// grid, rows or slabs (those keep the generic fronts' whole grid), on one
// GPU launch of the whole grid, with offsets the window holds.
func (g *gen) cellStrip() bool {
	opt := g.opt
	// (A host program's layout runs with Kernel = KernelHost: it sweeps
	// the generic fronts.)
	if g.pl.Cells < 2 || g.prog.Kernel == KernelHost || opt.Maintain || opt.KeepRows || opt.Slabs || opt.Batch || opt.Kernel == KernelFront || opt.Kernel == KernelTile {
		return false
	}
	pi, pj := cellReach(g.pl)
	return stripFits(g.pl, pi, pj)
}

// scanAhead is how far right of its own column (in sweep order) a cell of
// the host scan reads in a row above: how far ahead of a row the row above
// must be (templates/host.cu, DP_SCAN_AHEAD).
func (g *gen) scanAhead() int64 {
	sign := int64(1)
	if g.pl.Direction == plan.Backward {
		sign = -1
	}
	var ahead int64
	for _, d := range g.pl.Deps {
		if d.DI != nil && d.DJ != nil && *d.DI*sign >= 1 {
			ahead = max(ahead, -*d.DJ*sign)
		}
	}
	return ahead
}

// cellReach is how many rows (pi) and flat columns (pj) back the window of
// a cells' wavefront (plan.Plan.Cells = T) holds: a cell's T tables are
// computed at one step, so that, counted from the last table's column of
// the cell, a reference of table `from` reading dj flat columns back is
// dj + T-1-from columns back (cellRef).
func cellReach(pl *plan.Plan) (pi, pj int) {
	for _, d := range pl.Deps {
		di, dj := cellRef(pl, d)
		pi, pj = max(pi, int(di)), max(pj, int(dj))
	}
	return pi, max(pj, int(pl.Cells)-1)
}

// cellRef is d's offset in the window of a cells' wavefront (cellReach).
func cellRef(pl *plan.Plan, d plan.Dependency) (di, dj int64) {
	return *d.DI, *d.DJ + pl.Cells - 1 - int64(d.Ref.From)
}

// inputInf is what an input may hold, for the inf forms that test one
// sentinel (analysis.SignSource.Inputs): its data's infinities, but of a
// batch program's varying input only what the batch key says of every
// instance's (codegen.BatchKey: whether it holds inf, of either sign).
func (g *gen) inputInf(in *ir.Input) analysis.InfSigns {
	if g.opt.Batch && g.varies(in) {
		if in.HoldsInf() {
			return analysis.InfSigns{Pos: true, Neg: true}
		}
		return analysis.InfSigns{}
	}
	return analysis.InputInfSigns(in)
}

// tablesFromAbove is the mask of the tables of a cell that some reference
// reads in a row above (bit t: table t), for the strip and batch kernels,
// whose lanes pass a lane below only those (DP_UPT; one shuffle a table
// and step): an affine-gap alignment reads Y and H from the row above, not
// X. A reference of table From reading DJ flat columns back reads table
// (From - DJ) mod T, as the window's column cellRef gives. Every table
// where the plan is not the cells' wavefront.
func (g *gen) tablesFromAbove() string {
	t := int64(max(g.prog.Tables, 1))
	all := fmt.Sprintf("0x%xULL", uint64(1)<<t-1)
	if t == 1 || t > 63 || g.pl.Cells != t || len(g.pl.Deps) != len(g.p.CellRefs) {
		return all
	}
	var mask uint64
	for _, d := range g.pl.Deps {
		if d.DI == nil || d.DJ == nil || d.Ref == nil {
			return all
		}
		if *d.DI > 0 {
			mask |= 1 << (((int64(d.Ref.From)-*d.DJ)%t + t) % t)
		}
	}
	return fmt.Sprintf("0x%xULL", mask)
}

func stripFits(pl *plan.Plan, pi, pj int) bool {
	if pi > 8 || pj > 8 {
		return false
	}
	if pl.Answer.Kind == plan.AnswerExpr && len(pl.Answer.Cells) > MaxStripCaptures {
		return false
	}
	return true
}

// StripFits reports whether the strip kernel runs pl, a wavefront (unless
// Options.Kernel forces the tile kernel): offsets of at most 8 back, few
// answer cells.
func StripFits(pl *plan.Plan) bool {
	if pl.Schedule != plan.Wavefront {
		return false
	}
	pi, pj, bad := wavefrontReach(pl)
	return bad == nil && stripFits(pl, pi, pj)
}

// wavefrontReach is how many rows (pi) and columns (pj) back, in the
// sweep's direction, a wavefront's cells read; bad is a dependency whose
// offset is not constant or points forward (a planning error).
func wavefrontReach(pl *plan.Plan) (pi, pj int, bad *plan.Dependency) {
	sign := int64(1)
	if pl.Direction == plan.Backward {
		sign = -1
	}
	for k := range pl.Deps {
		d := &pl.Deps[k]
		if d.DI == nil || d.DJ == nil || *d.DI*sign < 0 || *d.DJ*sign < 0 {
			return 0, 0, d
		}
		pi, pj = max(pi, int(*d.DI*sign)), max(pj, int(*d.DJ*sign))
	}
	return pi, pj, nil
}

// placeInputs decides where each input lives: mem 0 puts all inputs in
// __constant__ memory when they fit together, else in read-only global
// memory; mem 1 uses textures (global memory for inputs too large for one).
func (g *gen) placeInputs() {
	mem := g.p.Mem
	switch g.opt.Mem {
	case Mem0:
		mem = 0
	case Mem1:
		mem = 1
	}
	var total int64
	for _, in := range g.p.Inputs {
		total += int64(in.Len()) * int64(storeSize(in.T))
	}
	for k, in := range g.p.Inputs {
		pi := Input{In: in, Len: int64(in.Len()), Rows: int64(in.Rows), Cols: int64(in.Cols)}
		if in.T == ir.Char {
			for _, v := range in.I {
				if v > 127 {
					pi.Unsigned = true
					break
				}
			}
		}
		switch {
		case g.opt.Batch:
			// Every input of a batch program is read through a pointer
			// the launch passes (dp_bptr, preamble.cu), so that launches
			// of one program may run at once; the read-only cache
			// serves the lanes' reads of a shared input (a scoring
			// matrix) at their own instances' indices, which
			// __constant__ memory would serialise. No module symbol.
			pi.Place = Global
			pi.PerInstance = g.varies(in)
		case mem == 1 && int64(in.Len()) <= g.opt.TextureMax:
			pi.Place = Texture
			pi.Symbol = fmt.Sprintf("dp_in%d_tex", k)
		case mem == 0 && total <= g.opt.ConstantBytes && g.prog.Kernel != KernelFront:
			// (The front kernel's lanes read inputs at different indices
			// (d[k+1] in a split reduction), which __constant__ memory
			// serialises: it reads them through the read-only cache.)
			pi.Place = Constant
			pi.Symbol = fmt.Sprintf("dp_in%d_data", k)
		default:
			pi.Place = Global
			pi.Symbol = fmt.Sprintf("dp_in%d_ptr", k)
		}
		g.prog.Inputs = append(g.prog.Inputs, pi)
	}
}

// storeSize is the bytes per element of an input on the device.
func storeSize(t ir.Type) int {
	if t == ir.Bool {
		return 1
	}
	return t.Size()
}

// elemCType is the C type of an input's elements in device memory.
func elemCType(in *Input) string {
	switch in.In.T {
	case ir.Char:
		if in.Unsigned {
			return "unsigned char"
		}
		return "signed char"
	case ir.Bool:
		return "unsigned char"
	}
	return ctype(in.In.T)
}

// loadFuncName is the device function that reads element k of input in.
func loadFuncName(k int) string { return fmt.Sprintf("dp_in%d", k) }

// inferCellRange bounds the values int cells can take, to spare overflow
// checks: cells at depth d (the longest chain of cell reads below them) lie
// in X_d = X_{d-1} joined with F(X_{d-1}), F being the case values with
// every cell read in X_{d-1}. The depth is bounded by the sweep (each read
// goes at least one line or anti-diagonal back), so iterating to a fixed
// point or to that bound is sound. It gives up when the range leaves 32
// bits or the iteration would cost too much: then the cells are bounded by
// their type's finite range where finiteCells proves them finite, else not
// at all. Other integer cell types get finiteCells' bound alone.
func (g *gen) inferCellRange(f analysis.Failure) analysis.Range {
	fin := g.finiteCells(typeRange(g.p.CellType))
	r := g.iterateCellRange(fin, f)
	if !fin.IsFull() && !r.IsFull() && !r.IsEmpty() {
		return r.Meet(fin)
	}
	return r
}

// iterateCellRange is inferCellRange's iteration; full is what it gives
// when it gives up.
func (g *gen) iterateCellRange(full analysis.Range, f analysis.Failure) analysis.Range {
	return g.iterateCells(full, f, analysis.Full())
}

// iterateCells is iterateCellRange, each case's values met with keep
// (Full: all of them).
func (g *gen) iterateCells(full analysis.Range, f analysis.Failure, keep analysis.Range) analysis.Range {
	t := g.p.CellType
	if t != ir.Int {
		return full
	}
	var depth int64
	switch g.pl.Schedule {
	case plan.Rows:
		depth = g.p.Rows
	case plan.Cols:
		depth = g.p.Cols
	case plan.Interval, plan.Hyperplanar:
		// Every read goes at least one front back.
		depth = g.pl.Fronts
	default:
		depth = g.p.Rows + g.p.Cols
	}
	nodes := 0
	for _, c := range g.p.Cases {
		ir.Walk(c.Value, func(ir.Expr) bool { nodes++; return true })
		if c.Cond != nil {
			ir.Walk(c.Cond, func(ir.Expr) bool { nodes++; return true })
		}
	}
	const budget = 2_000_000
	slope1 := slopeOne(g.p)
	en0 := g.gridEnv(analysis.Full())
	x := analysis.Empty()
	for d := int64(0); d <= depth; d++ {
		if int64(nodes)*(d+1) > budget {
			return full
		}
		nx := x
		for k, c := range g.p.Cases {
			en := en0
			if c.Cond != nil {
				en = g.refine(c.Cond, true, en)
			}
			for m := 0; m < k; m++ {
				en = g.refine(g.p.Cases[m].Cond, false, en)
			}
			nx = nx.Hull(g.rangeFail(c.Value, en.WithCells(x), f).Meet(keep))
		}
		if !nx.Within(math.MinInt32, math.MaxInt32) {
			return full
		}
		if nx == x {
			return x
		}
		if slope1 && !x.IsEmpty() && d >= 1 {
			// The increments never grow (see slopeOne): extrapolating the
			// last one to the full depth bounds every later step.
			left := depth - d
			lo, ok1 := ir.Mul64(x.Lo-nx.Lo, left)
			hi, ok2 := ir.Mul64(nx.Hi-x.Hi, left)
			if ok1 && ok2 && nx.Lo-lo >= math.MinInt32 && nx.Hi+hi <= math.MaxInt32 {
				return analysis.Span(nx.Lo-lo, nx.Hi+hi)
			}
		}
		x = nx
	}
	return x
}

// finitePart bounds the finite values of int cells that may be inf, in a
// run that stops at its first failure: an affine-gap alignment's tables
// start at -inf, yet their finite values stay within a few times the
// sequences' lengths. Where the recurrence's inf operations are + and -
// only (a finite value never comes from an inf operand: inf + x and inf -
// x are inf, min and max give an operand; not so x / inf = 0 or x % inf =
// x, nor abs or a conversion to floating), the finite
// cells come from finite operands alone, so iterating over the cases with
// the cells' finite values and keeping the finite values of each case
// bounds them (iterateCellRange's induction). Full where that gives up.
func (g *gen) finitePart() analysis.Range {
	t := g.p.CellType
	if t != ir.Int || !t.HasInf() {
		return analysis.Full()
	}
	ok := true
	for _, c := range g.p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				switch n := x.(type) {
				case *ir.Binary:
					ok = ok && (!n.Saturate || n.Op == ir.OpAdd || n.Op == ir.OpSub)
				case *ir.Call:
					ok = ok && (n.Fn == ir.FnMin || n.Fn == ir.FnMax)
				case *ir.Convert:
					ok = ok && n.T.IsInteger() && n.X.Type().IsInteger()
				}
				return ok
			})
		}
	}
	if !ok {
		return analysis.Full()
	}
	lo, hi := ir.FiniteRange(t)
	r := g.iterateCells(analysis.Full(), analysis.Stops, analysis.Span(lo, hi))
	if r.IsEmpty() || !r.Within(lo, hi) {
		return analysis.Full()
	}
	return r
}

// finiteCells is the finite range of an integer cell type when every case
// value is finite wherever the cells it reads are (no inf literal, no inf
// in the data, no min or max over a range that may be empty): then, by
// induction over the schedule, no cell is ever inf, and + - * of cells
// need not follow the inf rules (a failed operation stops the run with an
// error, so what it leaves in a cell does not matter). Else it is full.
func (g *gen) finiteCells(full analysis.Range) analysis.Range {
	t := g.p.CellType
	if !t.IsInteger() || !t.HasInf() || len(g.p.Cases) == 0 {
		return full
	}
	lo, hi := ir.FiniteRange(t)
	fin := analysis.Span(lo, hi)
	w := g.walker()
	w.Failure = analysis.Stops
	en0 := g.gridEnv(fin)
	for k, c := range g.p.Cases {
		en := en0
		for m := 0; m < k; m++ {
			en = w.Assume(g.p.Cases[m].Cond, false, en)
		}
		if c.Cond != nil {
			en = w.Assume(c.Cond, true, en)
		}
		if en.IsEmpty() {
			continue
		}
		if !w.Range(c.Value, en).Within(lo, hi) {
			return full
		}
	}
	return fin
}

// slopeOne reports whether every case value depends on the cells it reads
// through max, min, choices and additions of cell-free terms only. Then the
// upper bound of a case value is a piecewise-linear function of the cells'
// upper bound with slopes 0 and 1 (likewise the lower bound), so the
// increments of inferCellRange's iteration never grow once it is under way,
// and extrapolating the current increment over-approximates.
func slopeOne(p *ir.Problem) bool {
	for _, c := range p.Cases {
		if _, ok := cellDep(c.Value); !ok {
			return false
		}
	}
	return true
}

// cellDep reports whether e's value depends on cell values (dep) and
// whether it does so with slope at most one (ok).
func cellDep(e ir.Expr) (dep, ok bool) {
	switch n := e.(type) {
	case *ir.CellRef:
		return true, true
	case *ir.Const, *ir.Inf, *ir.ScalarRef, *ir.Var, *ir.Load:
		return false, true
	case *ir.Unary:
		d, ok := cellDep(n.X)
		if n.Op == ir.OpNot {
			return false, ok
		}
		return d, ok && !d
	case *ir.Binary:
		dx, okx := cellDep(n.X)
		dy, oky := cellDep(n.Y)
		if !okx || !oky {
			return false, false
		}
		switch n.Op {
		case ir.OpAdd:
			return dx || dy, !(dx && dy)
		case ir.OpSub:
			return dx, !dy
		case ir.OpMul, ir.OpDiv, ir.OpRem:
			return false, !dx && !dy
		}
		return false, true // comparisons and logic: 0 or 1
	case *ir.Select:
		_, okc := cellDep(n.Cond)
		dt, okt := cellDep(n.Then)
		de, oke := cellDep(n.Else)
		return dt || de, okc && okt && oke
	case *ir.Convert:
		d, ok := cellDep(n.X)
		if n.T == ir.Bool {
			return false, ok
		}
		return d, ok && (!d || (n.T.IsInteger() && n.X.Type().IsInteger()))
	case *ir.Call:
		any := false
		for _, a := range n.Args {
			d, ok := cellDep(a)
			if !ok {
				return false, false
			}
			any = any || d
		}
		if n.Fn == ir.FnMin || n.Fn == ir.FnMax {
			return any, true
		}
		return false, !any
	case *ir.Reduce:
		_, okl := cellDep(n.Lo)
		_, okh := cellDep(n.Hi)
		d, ok := cellDep(n.Body)
		if n.Op == ir.ReduceSum {
			return false, okl && okh && ok && !d
		}
		return d, okl && okh && ok
	}
	return false, false
}

// lineFlagChecks reports whether the line kernels compute a thread's cells
// with dp_fast's recurrence, the checks as a flag, first (see source). Where
// a cell reads a line at a position the plan does not prove inside the grid
// and its cells are integers, the branches around dp_fail on the cell's
// chain cost more than the flag and the second copy of the recurrence: 0/1
// knapsack 10,000 x 1,000,000 in a launch a line 73.4 -> 65.5 ms, 10,000
// items at capacity 49,877 in tiles 22.65 -> 20.85 ms (H200). Elsewhere they
// did not: the lookback lattice (double cells, reads proved) 19.9 -> 20.7
// ms, the bounded knapsack (a reduction in every cell) 6.2 -> 7.7 ms at
// 1,000 items (which vary 5.4-6.6 ms from run to run); and in dp_linepass
// (its lines in shared memory: 60.1 ms inline, 66.6 with the flag), which
// always reports inline.
func (g *gen) lineFlagChecks() bool {
	if g.prog.Kernel != KernelLine || g.opt.LineInlineChecks || g.p.CellType.IsFloat() || !slices.Contains(g.refSafe, false) {
		return false
	}
	reduces := false
	outerReductions(g.p, func(*ir.Reduce) { reduces = true })
	return !reduces
}

// source assembles the CUDA C.
func (g *gen) source() (string, error) {
	var b bytes.Buffer
	b.Grow(96 << 10) // a program's source is some 60-90 KB: grown once, not doubled from nothing
	p, prog := g.p, g.prog
	fmt.Fprintf(&b, "// Generated by dpgpu from %s: do not edit.\n", srcName(p))
	fmt.Fprintf(&b, "// problem %s: %dx%d %s cells, schedule %s %s, kernel %s\n", p.Name, p.Rows, p.Cols, p.CellType, prog.Schedule, g.pl.Direction, prog.Kernel)
	var rec strings.Builder
	sites := len(g.sites)
	g.recurrence(&rec)
	// Every check the recurrence may report is a site: without one, a
	// cell outside the grid (a batch strip's rows past the last) computes
	// harmlessly (a reference not proved inside reports by its own id:
	// DP_REFS_SAFE).
	g.recChecks = len(g.sites) > sites
	var rec16 strings.Builder
	if prog.Kernel == KernelBatch {
		prog.BatchUnpacked, prog.BatchPacked = g.recurrence16(&rec16)
	}
	b.WriteString(g.defines())
	data := g.templateData()
	for _, name := range []string{"preamble.cu"} {
		if err := templates.Execute(&b, name, data); err != nil {
			return "", err
		}
	}
	if prog.BatchPacked {
		if err := templates.Execute(&b, "simd16.cu", data); err != nil {
			return "", err
		}
	}
	b.WriteString(g.inputDecls())
	b.WriteString(g.invariantDecls())
	if prog.Kernel == KernelStrip || prog.Kernel == KernelBatch {
		b.WriteString(g.profileDecls())
	}
	b.WriteString(rec.String())
	if prog.BatchPacked {
		b.WriteString(rec16.String())
	}
	if g.lineFlagChecks() {
		// The recurrence again in namespace dp_fast, its checks setting a
		// flag (templates/line.cu): the line kernels compute a thread's
		// cells so and again with the checks that report where one is set.
		b.WriteString("#define DP_AGAIN 1 // the preamble's helpers only (preamble.cu)\n")
		if err := checksNamespace(&b, "dp_fast", flagFail, data, rec.String()); err != nil {
			return "", err
		}
		b.WriteString("#undef DP_AGAIN\n#undef DP_LIVE_T\n#undef DP_FAIL_IF\n#define DP_LINE_FAST 1\n")
	}
	b.WriteString(g.refTable())
	if prog.Kernel == KernelLine && g.hostChain.IsValid() {
		prog.Chain = true
		b.WriteString("#define DP_CHAIN 1\n")
	}
	if prog.Kernel == KernelStrip || prog.Kernel == KernelBatch {
		if err := templates.Execute(&b, "window.cu", data); err != nil {
			return "", err
		}
	}
	kernel := map[KernelKind]string{KernelLine: "line.cu", KernelTile: "tile.cu", KernelStrip: "strip.cu", KernelFront: "front.cu", KernelBatch: "batch.cu"}[prog.Kernel]
	if prog.BatchPacked {
		kernel = "batch16.cu"
	}
	if err := templates.Execute(&b, kernel, data); err != nil {
		return "", err
	}
	return resetLines(b.String(), prog.Name), nil
}

func srcName(p *ir.Problem) string {
	if p.File != "" {
		return p.File
	}
	if p.RecurPos.File != "" {
		return p.RecurPos.File
	}
	return "<input>"
}

// lineReset marks where the generated text goes back to its own line
// numbers after the recurrence's `#line` directives; resetLines replaces it.
const lineReset = "//@dpgpu-line-reset\n"

// It copies the text between the markers whole and counts lines rather
// than splitting the program (hundreds of kilobytes) into lines: half of
// the generator's time went to the split.
func resetLines(src, name string) string {
	var b strings.Builder
	b.Grow(len(src) + 256)
	line, done := 0, 0 // lines before src[done:]; what is copied
	for from := 0; ; {
		k := strings.Index(src[from:], lineReset)
		if k < 0 {
			break
		}
		k += from
		if k > 0 && src[k-1] != '\n' {
			from = k + 1 // the marker's text inside a line: not a marker
			continue
		}
		line += strings.Count(src[done:k], "\n")
		b.WriteString(src[done:k])
		fmt.Fprintf(&b, "#line %d %q\n", line+2, name)
		line++ // the marker's own line
		done, from = k+len(lineReset), k+len(lineReset)
	}
	b.WriteString(src[done:])
	return b.String()
}

func (g *gen) defines() string {
	p, prog := g.p, g.prog
	var b strings.Builder
	def := func(name string, v any) { fmt.Fprintf(&b, "#define %s %v\n", name, v) }
	def("DP_CELL_T", ctype(p.CellType))
	def("DP_CELL_FLOAT", b2i(p.CellType.IsFloat()))
	// An integer cell type narrower than long maps its inf sentinels to
	// long's in the region reductions.
	cell := p.CellType.Info()
	def("DP_CELL_WIDEN", b2i(p.CellType.HasInf() && cell.Bytes < 8))
	def("DP_CELL_POS", intLit(cell.InfPos, ir.Long))
	def("DP_CELL_NEG", intLit(cell.InfNeg, ir.Long))
	def("DP_IDX_T", g.idxType())
	def("DP_ROWS", fmt.Sprintf("%dLL", p.Rows))
	def("DP_COLS", fmt.Sprintf("%dLL", p.Cols))
	def("DP_BACK", b2i(prog.Backward))
	jt := "int"
	if p.Cols+64 > math.MaxInt32 {
		jt = "long long"
	}
	def("DP_JT", jt)
	switch prog.Answer {
	case AnswerCell:
		def("DP_ANS_KIND", 1)
		def("DP_ANS_I", intLit(g.pl.Answer.I, ir.Int))
		def("DP_ANS_J", intLit(g.pl.Answer.J, ir.Int))
	case AnswerRegion:
		a := g.pl.Answer
		def("DP_ANS_KIND", 2)
		def("DP_REG_OP", int(a.Op))
		if T := int64(prog.Tables); T > 1 {
			// The cells' strip kernel asks by cell column and table
			// (a compile-time constant): one table's cells need no
			// division by the step.
			if a.JStep == T {
				def("DP_IN_REGION_T(i, jc, tb)", fmt.Sprintf("((tb) == %d && (i) >= %dLL && (i) <= %dLL && (jc) >= %dLL && (jc) <= %dLL)", a.J0%T, a.I0, a.I1, a.J0/T, a.J1/T))
			} else {
				def("DP_IN_REGION_T(i, jc, tb)", fmt.Sprintf("DP_IN_REGION(i, (long long)(jc) * %d + (tb))", T))
			}
		}
		switch {
		case a.JStep > 1:
			def("DP_IN_REGION(i, j)", fmt.Sprintf("((i) >= %dLL && (i) <= %dLL && (j) >= %dLL && (j) <= %dLL && ((j) - %dLL) %% %dLL == 0)", a.I0, a.I1, a.J0, a.J1, a.J0, a.JStep))
		case a.I0 == 0 && a.J0 == 0 && a.I1 == p.Rows-1 && a.J1 == p.Cols-1:
			def("DP_IN_REGION(i, j)", "true")
		default:
			def("DP_IN_REGION(i, j)", fmt.Sprintf("((i) >= %dLL && (i) <= %dLL && (j) >= %dLL && (j) <= %dLL)", a.I0, a.I1, a.J0, a.J1))
		}
	default:
		def("DP_ANS_KIND", 3)
	}
	if prog.Answer != AnswerRegion {
		def("DP_REG_OP", 0)
	}
	switch prog.Kernel {
	case KernelLine:
		def("DP_SWEEP_ROWS", b2i(prog.Schedule == plan.Rows))
		def("DP_NLINES", fmt.Sprintf("%dLL", prog.Lines))
		def("DP_WIDTH", fmt.Sprintf("%dLL", prog.Width))
		def("DP_REACH", prog.Reach)
		def("DP_LINE_THREADS", prog.LineThreads)
	case KernelTile:
		def("DP_PI", prog.PI)
		def("DP_PJ", prog.PJ)
		def("DP_TH", prog.TileH)
		def("DP_TW", prog.TileW)
		def("DP_SW", prog.TileW+prog.PJ)
	case KernelStrip:
		def("DP_PI", prog.PI)
		def("DP_PJ", prog.PJ)
		def("DP_T", max(prog.Tables, 1))
		def("DP_UPT", g.tablesFromAbove())
		def("DP_RPT", prog.RowsPerThread)
		def("DP_STRIP_WARPS", prog.StripWarps)
		def("DP_NSTRIPS", fmt.Sprintf("%dLL", prog.Strips))
		def("DP_KEEP", b2i(prog.Keep))
		def("DP_KEEPROWS", b2i(prog.KeepRows))
		def("DP_KEEPCOLS", b2i(prog.KeepCols))
		def("DP_SLABS", b2i(prog.Slabs))
		def("DP_BANDS", b2i(prog.Bands))
		def("DP_NROWV", len(g.rowLds))
		def("DP_NCOLV", len(g.colLds))
		if prog.Answer == AnswerCapture {
			def("DP_NCAPS", len(prog.Captures))
			var c strings.Builder
			c.WriteString("do {")
			for k, cell := range prog.Captures {
				fmt.Fprintf(&c, " if ((i) == %dLL && (j) == %dLL) dp_capv[%d] = (v);", cell[0], cell[1], k)
			}
			c.WriteString(" } while (0)")
			def("DP_CAPTURE(i, j, v)", c.String())
		}
	case KernelBatch:
		def("DP_BATCH", 1)
		def("DP_T", max(prog.Tables, 1))
		def("DP_UPT", g.tablesFromAbove())
		def("DP_PI", prog.PI)
		def("DP_PJ", prog.PJ)
		def("DP_RPT", prog.RowsPerThread)
		def("DP_BW", prog.BatchWarps)
		def("DP_BMINB", prog.BatchMinBlocks)
		def("DP_BGLOBAL", b2i(prog.BatchRowBytes > 0))
		def("DP_BGEN", b2i(prog.BatchColumns))
		def("DP_NBPTR", len(p.Inputs)+1)
		def("DP_NROWV", len(g.rowLds))
		def("DP_NCOLV", len(g.colLds))
		g.batchRegionDefs(def)
		def("DP_REC_CHECKS", b2i(g.recChecks))
		def("DP_REFS_SAFE", b2i(!slices.Contains(g.refSafe, false)))
	case KernelHost:
		def("DP_HOST_ROWS", b2i(prog.Schedule == plan.Rows))
		def("DP_HOST_SCAN", b2i(g.hostScan))
		def("DP_HOST_FRONT", b2i(g.hostFront))
		def("DP_T", max(prog.Tables, 1))
		if g.hostScan {
			def("DP_SCAN_AHEAD", g.scanAhead())
		}
		if g.hostFront {
			frontDefines(def, prog.Front, p.Cols)
			def("DP_MIRROR", b2i(prog.Mirror))
			def("DP_SERIAL", b2i(g.pl.Serial))
			// Several workers run the rows of a Serial plan as a pipeline
			// where it pays (plan.Plan.SerialLag).
			lag := int64(-1)
			if g.pl.Serial {
				lag = g.pl.SerialLag
			}
			def("DP_PIPE_LAG", fmt.Sprintf("%dLL", lag))
			def("DP_PIPE_CHUNK", fmt.Sprintf("%dLL", pipeChunk))
		}
		def("DP_NLINES", fmt.Sprintf("%dLL", prog.Lines))
		def("DP_WIDTH", fmt.Sprintf("%dLL", prog.Width))
		def("DP_REACH", max(prog.Reach, 1))
		def("DP_PI", prog.PI)
		def("DP_PJ", prog.PJ)
		def("DP_HL", HostLanes)
		def("DP_NREFS_REAL", len(p.CellRefs))
	case KernelFront:
		frontDefines(def, prog.Front, p.Cols)
		def("DP_MIRROR", b2i(prog.Mirror))
		def("DP_FRONT_THREADS", prog.FrontThreads)
		def("DP_WARP_THREADS", prog.WarpThreads)
		def("DP_BLOCK_THREADS", prog.BlockThreads)
	}
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// idxType is the C type of the index variables: the IR's (int unless the
// grid needs long).
func (g *gen) idxType() string {
	t := ir.Int
	if g.p.Rows > math.MaxInt32 || g.p.Cols > math.MaxInt32 {
		t = ir.Long
	}
	for _, c := range g.p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				if v, ok := x.(*ir.Var); ok && (v.Kind == ir.VarI || v.Kind == ir.VarJ) && v.T == ir.Long {
					t = ir.Long
				}
				return true
			})
		}
	}
	return ctype(t)
}

// templateData is what the kernel templates see.
type templateData struct {
	Prog       *Program
	HasRowVals bool
	HasColVals bool
}

func (g *gen) templateData() templateData {
	return templateData{Prog: g.prog, HasRowVals: len(g.rowLds) > 0, HasColVals: len(g.colLds) > 0}
}

// inputDecls declares the inputs and a reader for each.
func (g *gen) inputDecls() string {
	var b strings.Builder
	b.WriteString("\n// ---- inputs ----\n")
	for k := range g.prog.Inputs {
		in := &g.prog.Inputs[k]
		et := elemCType(in)
		rt := ctype(in.In.T)
		if in.In.T == ir.Char || in.In.T == ir.Bool {
			rt = "int"
		}
		fmt.Fprintf(&b, "// %s: %s %dx%d, %s memory\n", cComment(in.In.Name), in.In.T, in.Rows, in.Cols, in.Place)
		f := loadFuncName(k)
		switch in.Place {
		case Constant:
			fmt.Fprintf(&b, "__constant__ %s %s[%d];\n", et, in.Symbol, max(in.Len, 1))
			fmt.Fprintf(&b, "__device__ __forceinline__ %s %s(long long k) { return %s[k]; }\n", rt, f, in.Symbol)
		case Global:
			if g.prog.Kernel == KernelBatch {
				at := "k"
				if in.PerInstance {
					at = fmt.Sprintf("dp_binst() * %dLL + k", max(in.Len, 1))
				}
				fmt.Fprintf(&b, "__device__ __forceinline__ %s %s(long long k) { return __ldg((const %s *)dp_bptr[%d] + %s); }\n", rt, f, et, k, at)
				if g.prog.BatchPacked {
					// The reader of a given instance: a packed program's
					// warp computes two (templates/batch16.cu).
					at = "k"
					if in.PerInstance {
						at = fmt.Sprintf("inst * %dLL + k", max(in.Len, 1))
					}
					fmt.Fprintf(&b, "__device__ __forceinline__ %s %s_at(long long inst, long long k) { (void)inst; return __ldg((const %s *)dp_bptr[%d] + %s); }\n", rt, f, et, k, at)
				}
				break
			}
			fmt.Fprintf(&b, "__constant__ const %s *%s;\n", et, in.Symbol)
			fmt.Fprintf(&b, "__device__ __forceinline__ %s %s(long long k) { return __ldg(%s + k); }\n", rt, f, in.Symbol)
		case Texture:
			fmt.Fprintf(&b, "__constant__ unsigned long long %s;\n", in.Symbol)
			var fetch string
			// Integers of up to 4 bytes are fetched as 32-bit (backend/gpu
			// uploads a short texture widened to int).
			switch t := in.In.T; {
			case t.IsFloat() && t.Size() == 4:
				fetch = "dp_tex_f32"
			case t.IsFloat():
				fetch = "dp_tex_f64"
			case t.Size() <= 4:
				fetch = "dp_tex_s32"
			default:
				fetch = "dp_tex_s64"
			}
			fmt.Fprintf(&b, "__device__ __forceinline__ %s %s(long long k) { return %s(%s, (int)k); }\n", rt, f, fetch, in.Symbol)
		}
		if g.prog.BatchPacked && in.Place != Global {
			fmt.Fprintf(&b, "__device__ __forceinline__ %s %s_at(long long inst, long long k) { (void)inst; return %s(k); }\n", rt, f, f)
		}
	}
	return b.String()
}

// inputIndex is the position of in among the problem's inputs.
func (g *gen) inputIndex(in *ir.Input) int {
	for k := range g.prog.Inputs {
		if g.prog.Inputs[k].In == in {
			return k
		}
	}
	return -1
}

// refTable writes dp_ref<ID>: each reference's offset in sweep order and
// whether it is proved inside the grid wherever it is evaluated.
func (g *gen) refTable() string {
	var b strings.Builder
	b.WriteString("\n// ---- cell references: sweep offsets, proved in the grid ----\n")
	b.WriteString("template <int ID> struct dp_ref;\n")
	sign := int64(1)
	if g.prog.Backward {
		sign = -1
	}
	if g.prog.Kernel == KernelFront || g.hostFront {
		return g.frontRefTable()
	}
	for k, ref := range g.p.CellRefs {
		var di, dj int64
		if k < len(g.pl.Deps) {
			d := g.pl.Deps[k]
			switch {
			case g.prog.Tables > 1 && (g.prog.Kernel == KernelStrip || g.prog.Kernel == KernelBatch):
				di, dj = cellRef(g.pl, d)
			case g.prog.Schedule == plan.Rows:
				di = *d.DI * sign
			case g.prog.Schedule == plan.Cols:
				di = *d.DJ * sign
			default:
				di, dj = *d.DI*sign, *d.DJ*sign
			}
		}
		safe := k < len(g.refSafe) && g.refSafe[k]
		fmt.Fprintf(&b, "template <> struct dp_ref<%d> { static constexpr int di = %d, dj = %d; static constexpr bool safe = %t; }; // %s\n",
			k, di, dj, safe, cComment(ref.Text))
	}
	return b.String()
}

// CellRange bounds the values of p's int cells, as the generated code
// relies on to spare overflow checks, for the bounds of p's data (their
// powers of two, as a program is specialised to them; declared bounds,
// ir.Input.Bounded, as they are); ok is false where no
// bound is proven (other cell types, inputs that reach the cells). A
// checkpoint band is given rows of p's grid as data: within this range.
func CellRange(p *ir.Problem, pl *plan.Plan) (lo, hi int64, ok bool) {
	if p.CellType != ir.Int {
		return 0, 0, false
	}
	g := &gen{p: p, pl: pl, rowSlot: map[*ir.Load]int{}, colSlot: map[*ir.Load]int{}}
	r := g.inferCellRange(analysis.Wraps)
	if r.IsFull() || r.IsEmpty() || !r.Within(math.MinInt32, math.MaxInt32) || r == typeRange(p.CellType) {
		return 0, 0, false
	}
	return r.Lo, r.Hi, true
}

// frontDefines writes the front function h of a grid of cols flat columns
// for templates/front.cu and host.cu: t = DP_TA*i + DP_TB*j, a front's cells
// every DP_TSTEP rows; or with DP_T3 the 3-D hyperplane t = DP_TA*k +
// DP_TM*i + DP_TB*j over DP_TMID x DP_TINNER planes, whose line in one
// k-plane is DP_LA*i + DP_LB*j == u / DP_LG (the whole plane with
// DP_LWHOLE), at most DP_TW cells (plan.Hyperplane.Line, LineWidth).
func frontDefines(def func(string, any), h plan.Hyperplane, cols int64) {
	def("DP_TA", fmt.Sprintf("%dLL", h.A))
	def("DP_TB", fmt.Sprintf("%dLL", h.B))
	def("DP_TSTEP", fmt.Sprintf("%dLL", max(h.B, -h.B)))
	def("DP_T3", b2i(h.Three()))
	if !h.Three() {
		return
	}
	mid := cols / h.Inner
	def("DP_TM", fmt.Sprintf("%dLL", h.M))
	def("DP_TMID", fmt.Sprintf("%dLL", mid))
	def("DP_TINNER", fmt.Sprintf("%dLL", h.Inner))
	whole := h.M == 0 && h.B == 0
	g := int64(1)
	if !whole {
		g = gcdAbs(h.M, h.B)
	}
	def("DP_LWHOLE", b2i(whole))
	def("DP_LG", fmt.Sprintf("%dLL", g))
	def("DP_LA", fmt.Sprintf("%dLL", h.M/g))
	def("DP_LB", fmt.Sprintf("%dLL", h.B/g))
	def("DP_TW", fmt.Sprintf("%dLL", h.LineWidth(mid, h.Inner)))
}

// gcdAbs is the greatest common divisor of |a| and |b| (not both 0).
func gcdAbs(a, b int64) int64 {
	a, b = max(a, -a), max(b, -b)
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// pipeChunk is how many columns of a row the host pipeline
// (templates/host.cu dp_front_pipeline) computes between two looks at the
// row before: enough to amortise the look, few enough that the next row's
// worker starts soon after.
const pipeChunk = 2048

// KeptTable is the strip kernel's keepSlot table (templates/strip.cu):
// each row's slot among rows (-1: not kept) and, where the program keeps
// columns, each column's slot among cols, the chunk flags of the kept
// columns (a chunk of the sweep's columns g0-31 .. g0+31 for g0 a
// multiple of 32 holding one), and the kept columns' offset in cells
// after the kept rows, as a long long at an even index.
func (pr *Program) KeptTable(rows, cols []int64) []int32 {
	n := pr.Rows
	nch := (pr.Cols+31)/32 + 2
	if pr.KeepCols {
		n += pr.Cols + nch
		n += n & 1
		n += 2
	}
	t := make([]int32, n)
	for k := range pr.Rows {
		t[k] = -1
	}
	for k, i := range rows {
		t[i] = int32(k)
	}
	if !pr.KeepCols {
		return t
	}
	col, ch := t[pr.Rows:pr.Rows+pr.Cols], t[pr.Rows+pr.Cols:pr.Rows+pr.Cols+nch]
	for k := range col {
		col[k] = -1
	}
	for k, j := range cols {
		col[j] = int32(k)
		js := j
		if pr.Backward {
			js = pr.Cols - 1 - j
		}
		// Chunks g0 = 32q with g0-31 <= js <= g0+31.
		for q := max(0, (js-31+31)/32); q*32 <= js+31 && q < nch; q++ {
			ch[q] = 1
		}
	}
	off := int64(len(rows)) * pr.Cols
	t[n-2], t[n-1] = int32(uint32(off)), int32(uint32(off>>32))
	return t
}
