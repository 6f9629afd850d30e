package gpu

import (
	"os"
	"strconv"

	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
)

// lineTiles is how lines() deals the lines of a run to tiles of positions.
type lineTiles struct {
	fn          *cuda.Function
	tw          int64 // positions a tile
	n           int   // tiles
	left, right int   // tiles a tile waits for before and after it
	mode        int32 // 0, 1: tiles by tickets in increasing, decreasing order; 2: a block a tile, all resident
	blocks      int
	lines       int64 // most lines a launch
	depth       int64 // lines a tile computes between waits
}

// Most tiles a tile may wait for on its two sides together (its first warp
// polls 32 at a time): past it a tile spends more of a line polling flags
// than computing.
const maxTileWaits = 256

// ringBudget bounds the ring of lines a run of dp_linetiles needs (a slot
// for each line of the run and for the Reach lines before): more lines a
// launch pay less for the launch, but wide lines would take the device's
// memory.
const ringBudget = 64 << 20

// planLineTiles decides whether and how the lines go to dp_linetiles; nil:
// they do not (the reach is unbounded on a side, a floating sum's order
// would change, or the lines are too narrow for a run to pay). slotLimit is
// how many lines a launch may hold when the ring's size is fixed (maintain's
// staging), 0 when lines() sizes the ring for the run.
func (r *run) planLineTiles(threads int, slotLimit int64) (*lineTiles, error) {
	pr, e := r.prog, r.e
	fn := r.mod.funcs[codegen.FuncLineTiles]
	if e.cfg.tilesOff || fn == nil {
		return nil, nil
	}
	if pr.Answer == codegen.AnswerRegion && pr.RegionOp == ir.ReduceSum {
		// The region's partial sums would be folded in another order
		// than a launch a line's.
		return nil, nil
	}
	occ, err := fn.MaxActiveBlocksPerSM(threads, 0)
	if err != nil {
		return nil, err
	}
	budget := r.lineRingBudget()
	t := chooseLineTiles(tileFacts{
		width: pr.Width, lines: pr.Lines, reach: int64(pr.Reach), left: pr.LineLeft, right: pr.LineRight,
		threads: threads, cellBytes: r.cellBytes(), sms: e.dev.SMs, resident: int64(occ * e.dev.SMs),
		slotLimit: slotLimit, budget: budget,
	}, &e.cfg)
	if t != nil {
		t.fn = fn
	}
	return t, nil
}

// lineRingBudget is the bytes the ring of lines of a run of dp_linetiles
// or a pass of dp_linepass may take: ringBudget, or a quarter of the
// device's free memory where that is less.
func (r *run) lineRingBudget() int64 { return r.e.lineRingBudget() }

// lineRingBudget is run.lineRingBudget on e.
func (e *Executor) lineRingBudget() int64 {
	budget := int64(ringBudget)
	if free, _, err := e.ctx.MemInfo(); err == nil {
		budget = min(budget, free/4)
	}
	return budget
}

// tileFacts is what chooseLineTiles decides from: the lines (width,
// lines, the lines back a cell reads, the positions left and right of its
// own it reads, -1 unbounded), the block size and cell size, the device's
// multiprocessors and the blocks of dp_linetiles resident on them at once,
// the ring's fixed lines a launch (0: none) and the bytes it may take.
type tileFacts struct {
	width, lines, reach, left, right int64
	threads                          int
	cellBytes                        int64
	sms                              int
	resident                         int64
	slotLimit, budget                int64
}

// chooseLineTiles is planLineTiles' decision, apart from the device so that
// tests run it anywhere: the tiles' geometry, or nil for a launch a line.
func chooseLineTiles(f tileFacts, cfg *config) *lineTiles {
	if f.left < 0 || f.right < 0 || f.lines < 2 || f.resident < 1 {
		return nil
	}
	threads := f.threads
	t := &lineTiles{}
	// The fewest cells a thread (1 to 16) that let every tile's block be
	// resident at once: a tile may then wait on both sides.
	cells := int64(0)
	for c := int64(1); c <= 16; c *= 2 {
		if ceilDiv(f.width, int64(threads)*c) <= f.resident {
			cells = c
			break
		}
	}
	if n := cfg.tileCells; n > 0 {
		cells = n
	}
	switch {
	case cells > 0 && !(cfg.tileTickets && (f.left == 0 || f.right == 0)) && ceilDiv(f.width, int64(threads)*cells) <= f.resident:
		t.mode = 2
	case f.right == 0:
		t.mode = 0
	case f.left == 0:
		t.mode = 1
	default:
		return nil
	}
	if cells == 0 {
		cells = 16
	}
	t.tw = int64(threads) * cells
	t.n = int(ceilDiv(f.width, t.tw))
	t.blocks = t.n
	if t.mode != 2 {
		t.blocks = int(f.resident)
	}
	if f.slotLimit > 0 {
		t.lines = f.slotLimit
	} else {
		t.lines = min(linesPerRun(f.width), f.budget/max(f.width*f.cellBytes, 1)-f.reach)
	}
	if n := cfg.tileLines; n > 0 {
		t.lines = min(t.lines, n)
	}
	t.lines = min(t.lines, f.lines) // no ring larger than the grid needs
	if t.lines < 2 {
		return nil
	}
	// Lines a step: the widening they add to a tile (what the later lines
	// of the step read of its neighbours' positions, computed again) at
	// most half the tile (a quarter on average over the step), so that a
	// wait every `depth` lines costs fewer cells than it saves; every
	// line of the run when a cell reads no other position. (Lookback
	// lattice N = 30,000, tiles of 256, H100: steps of 1, 8, 32 lines
	// 69.4, 46.4, 43.3 ms calling pow in every cell; with pow(u, j) from a
	// table, steps of 32 and 64 lines 20.4 and 19.9 ms.)
	spread := f.left + f.right
	switch {
	case cfg.tileDepth > 0:
		t.depth = cfg.tileDepth
	case spread == 0:
		t.depth = t.lines
	default:
		t.depth = min(max(t.tw/(2*spread), 1), maxDepth)
	}
	t.depth = min(t.depth, t.lines)
	t.left, t.right = int(ceilDiv(t.depth*f.left, t.tw)), int(ceilDiv(t.depth*f.right, t.tw))
	if t.left+t.right > maxTileWaits {
		return nil
	}
	if !cfg.tileWide && ceilDiv(f.width, int64(threads)) > int64(f.sms) && (t.left+t.right > maxWideWaits || f.width > maxTileWidth) {
		// Wide lines: where a cell reads far across the line, or the
		// line is very wide, a launch a line is faster (a line of a
		// million cells is several microseconds of work, and every
		// tile waits at about the same time). H100, 0/1 knapsack,
		// 10,000 items: capacity 1,000,000, items up to a tenth of
		// it, 69.5 ms a launch a line, 89.5 ms in tiles of 1,024
		// each waiting for 98 tiles; the same with items up to 1,000,
		// 74.7 ms against 78.4 ms waiting for one; Pisinger's
		// knapPI_1_10000_1000_1 (capacity 49,877, items up to 1,000),
		// 54.6 ms against 23.4 ms in 195 tiles waiting for 4.
		return nil
	}
	return t
}

// A tile of a wide line (more blocks of it than multiprocessors) waits for
// at most maxWideWaits tiles, and its line is at most maxTileWidth
// positions wide (see planLineTiles).
const (
	maxWideWaits = 8
	maxTileWidth = 1 << 18
)

// maxDepth bounds the lines of a step of dp_linetiles where cells read
// other positions: past it the saved waits are a small share.
const maxDepth = 64

// launch runs lines L .. end-1 (end - L <= t.lines) on the tiles; flags
// holds t.n + 1 ints.
func (t *lineTiles) launch(r *run, L, end int64, ring cuda.DevicePtr, slots int, flags cuda.DevicePtr) error {
	e := r.e
	if err := e.ctx.Memset32Async(flags, 0, int64(t.n)+1, e.s1); err != nil {
		return err
	}
	grid, block := [3]uint32{uint32(t.blocks), 1, 1}, [3]uint32{uint32(r.prog.LineThreads), 1, 1}
	return e.ctx.Launch(t.fn, grid, block, 0, e.s1, L, end, ring, int32(slots), r.part, flags, flags+cuda.DevicePtr(4*t.n),
		t.tw, int32(t.n), int32(t.left), int32(t.right), t.mode, int32(t.depth), r.prog.LineLeft, r.prog.LineRight)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// lineTilesEnv reads the measurement switches of the line tiles:
// DPGPU_LINE_TILES=off (never) or wide (wide lines too), DPGPU_LINE_TILE_CELLS
// (cells a thread), DPGPU_LINE_RUN (most lines a launch), DPGPU_LINE_DEPTH
// (lines between waits), DPGPU_LINE_THREADS
// (the line kernels' block size), DPGPU_LINE_CHECKS=inline (checks that
// report where they fail, not a flag first), DPGPU_LINE_CHAIN=off (a rows
// program's chained reduction in its loop: no dp_linechain),
// DPGPU_CHAIN_SEGS (dp_linechain's most segments a residue class),
// DPGPU_CHAIN_TAURATE (chainSegs' τ*R), DPGPU_CHAIN_TWO_FROM (the
// shortest class two launches serve; -1: never).
func lineTilesEnv(c *config) {
	switch os.Getenv("DPGPU_LINE_TILES") {
	case "off":
		c.tilesOff = true
	case "wide":
		c.tileWide = true
	}
	if n, err := strconv.ParseInt(os.Getenv("DPGPU_LINE_TILE_CELLS"), 10, 64); err == nil && n > 0 && n <= 64 {
		c.tileCells = n
	}
	if n, err := strconv.ParseInt(os.Getenv("DPGPU_LINE_RUN"), 10, 64); err == nil && n > 0 {
		c.tileLines = n
	}
	if n, err := strconv.ParseInt(os.Getenv("DPGPU_LINE_DEPTH"), 10, 64); err == nil && n > 0 {
		c.tileDepth = n
	}
	if n, err := strconv.Atoi(os.Getenv("DPGPU_LINE_THREADS")); err == nil && n >= 32 && n <= 1024 && n%32 == 0 {
		c.codegen.LineThreads = n
	}
	if os.Getenv("DPGPU_LINE_CHECKS") == "inline" {
		c.codegen.LineInlineChecks = true
	}
	if os.Getenv("DPGPU_LINE_CHAIN") == "off" {
		c.codegen.NoLineChain = true
	}
	if n, err := strconv.ParseInt(os.Getenv("DPGPU_CHAIN_SEGS"), 10, 64); err == nil && n > 0 {
		c.chainSegs = n
	}
	if x, err := strconv.ParseFloat(os.Getenv("DPGPU_CHAIN_TAURATE"), 64); err == nil && x > 0 {
		c.chainTauRate = x
	}
	if n, err := strconv.ParseInt(os.Getenv("DPGPU_CHAIN_TWO_FROM"), 10, 64); err == nil && n != 0 {
		c.chainTwoFrom = n
	}
}
