package gpu

import (
	"os"
	"strconv"

	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
)

// linePass is how lines() runs a rows or cols schedule in passes of lines
// held in shared memory (dp_linepass, templates/line.cu): block b owns
// positions [b*tw, (b+1)*tw) and computes k lines over them, each widened
// by what the pass's later lines read of its neighbours' positions, so that
// a line goes through the device's memory once a pass and no block waits
// for another.
type linePass struct {
	fn     *cuda.Function
	tw, sw int64 // positions a block owns; cells of a line in shared memory
	k      int64 // lines a pass
	blocks int
	shared int // bytes of dynamic shared memory a block
}

// passThreads is dp_linepass' block size (DP_PASS_THREADS): one block a
// multiprocessor, so the most threads a block has.
const passThreads = 1024

// passFacts is what chooseLinePass decides from: the lines' width and
// count, the lines back a cell reads, the positions before and after its
// own it reads (-1: unbounded), the cell size, the multiprocessors, the
// shared memory a block may have and a multiprocessor holds, and the bytes
// the ring of lines may take (a pass writes k lines' slots while it reads
// the Reach lines before).
type passFacts struct {
	width, lines, reach, left, right int64
	cellBytes                        int64
	sms                              int
	sharedBlock, sharedSM            int64
	budget                           int64 // bytes the ring of lines in global memory may take (0: ringBudget)
}

// Limits of a pass: at most maxPassLines lines (the widening grows with
// the square of k); the widening of the pass's first line at most
// passWiden of a block's own positions (0/1 knapsack 10,000 x 1,000,000,
// items up to 1,000, 7,576 positions a block, H200: passes of 3, 4, 6, 8
// lines 62.3, 60.1, 59.8, 61.9 ms with the cell's checks; without them,
// the program specialised to the data's bounds, 6, 8, 10, 12, 16 lines
// 26.95, 25.56, 25.6, 25.6, 25.9 ms; a launch a line 68.7-72.3 ms); a block's
// own positions at least minPassTile, two a thread: narrower lines go to
// dp_linetiles, whose blocks of 256 threads fit them better (lookback
// lattice N = 30,000, 228 positions a block: 22.0 ms in passes of 16 lines,
// 20.0 ms in tiles; H200).
const (
	maxPassLines = 16
	passWiden    = 1.0
	minPassTile  = 2 * passThreads
)

// chooseLinePass decides whether lines() runs passes, and their shape; nil:
// it does not (a reach unbounded on a side, lines too narrow for a block a
// multiprocessor to own minPassTile positions, a widening over passWiden of
// them at two lines, or no two lines' slots in the ring's budget).
// cfg's passLines forces k (where the shape allows a pass at all, or the
// tile is forced too), passTile the positions a block owns, passOff turns
// passes off.
func chooseLinePass(f passFacts, cfg *config) *linePass {
	if cfg.passOff || f.left < 0 || f.right < 0 || f.lines < 2 || f.sms < 1 || f.reach < 1 {
		return nil
	}
	spread := f.left + f.right
	// One block a multiprocessor: each owns the widest share of the line,
	// so that the widening is the smallest share of its work.
	tw := ceilDiv(f.width, int64(f.sms))
	if cfg.passTile > 0 {
		tw = cfg.passTile
	} else if tw < minPassTile {
		return nil
	}
	lineCells := func(k int64) int64 { return tw + k*spread }
	fits := func(k int64) bool {
		b := (f.reach + 1) * lineCells(k) * f.cellBytes
		return b <= f.sharedBlock && b <= f.sharedSM
	}
	k := int64(0)
	for c := int64(2); c <= maxPassLines; c++ {
		if float64((c-1)*spread) > passWiden*float64(tw) || !fits(c) {
			break
		}
		k = c
	}
	if n := cfg.passLines; n > 0 && (k > 0 || cfg.passTile > 0) {
		k = n
		for k > 1 && !fits(k) {
			k--
		}
	}
	budget := f.budget
	if budget <= 0 {
		budget = ringBudget
	}
	k = min(k, budget/max(f.width*f.cellBytes, 1)-f.reach, f.lines)
	if k < 2 {
		return nil
	}
	p := newLinePass(f, tw, k)
	return &p
}

// newLinePass is the pass of k lines over f's width in blocks owning tw
// positions each: the cells of a line in shared memory (its own and the
// widening), the blocks, the shared bytes a block.
func newLinePass(f passFacts, tw, k int64) linePass {
	sw := tw + k*(f.left+f.right)
	return linePass{tw: tw, sw: sw, k: k, blocks: int(ceilDiv(f.width, tw)), shared: int((f.reach + 1) * sw * f.cellBytes)}
}

// planLinePass is chooseLinePass on this run's program and device; nil
// where the run keeps its lines (maintain's staging needs every line in
// the ring) or sums a region (the widened cells are computed by two blocks).
func (r *run) planLinePass() (*linePass, error) {
	pr, e := r.prog, r.e
	fn := r.mod.funcs[codegen.FuncLinePass]
	if fn == nil || r.keep || (pr.Answer == codegen.AnswerRegion && pr.RegionOp == ir.ReduceSum) {
		return nil, nil
	}
	p := chooseLinePass(passFacts{
		width: pr.Width, lines: pr.Lines, reach: int64(pr.Reach), left: pr.LineLeft, right: pr.LineRight,
		cellBytes: r.cellBytes(), sms: e.dev.SMs, sharedBlock: int64(e.dev.MaxSharedPerBlockOptin), sharedSM: int64(e.dev.MaxSharedPerSM),
		budget: r.lineRingBudget(),
	}, &e.cfg)
	if p == nil {
		return nil, nil
	}
	if err := fn.SetMaxDynamicShared(p.shared); err != nil {
		return nil, err
	}
	occ, err := fn.MaxActiveBlocksPerSM(passThreads, p.shared)
	if err != nil {
		return nil, err
	}
	if occ < 1 {
		return nil, nil
	}
	p.fn = fn
	return p, nil
}

// launch runs the pass of lines L .. end-1 (end - L <= p.k).
func (p *linePass) launch(r *run, L, end int64, ring cuda.DevicePtr, slots int) error {
	e := r.e
	grid, block := [3]uint32{uint32(p.blocks), 1, 1}, [3]uint32{passThreads, 1, 1}
	return e.ctx.Launch(p.fn, grid, block, uint32(p.shared), e.s1, L, int32(end-L), ring, int32(slots), r.part, p.tw, p.sw, r.prog.LineLeft, r.prog.LineRight, int64(0), r.prog.Width)
}

// linePassEnv reads the measurement switches of the passes:
// DPGPU_LINE_PASS=off (never) or a number of lines a pass.
func linePassEnv(c *config) {
	switch s := os.Getenv("DPGPU_LINE_PASS"); s {
	case "":
	case "off":
		c.passOff = true
	default:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 2 && n <= maxPassLines {
			c.passLines = n
		}
	}
}
