// Package checkpoint runs a problem for a traceback in linear memory: it
// keeps checkpoint rows instead of the grid, and recomputes, from them,
// the band of rows that a traceback walks through (CUDAlign and edlib do
// this for one alignment algorithm each; here it is generic over the
// recurrence, plan.Traceback decides when it applies).
//
// The forward pass runs the grid band by band (plan.TraceLayout.Band rows
// each) on the executor it is given — each band is a problem of its own
// (band), whose first rows are the given rows of the band above — and
// keeps the last Reach rows of each band: the rows the next band reads.
// The answer is read from the bands as they are computed, by the rules
// the executors follow (the first of equals in row-major order). The walk
// back then reads cells through Grid, which recomputes a band, on the
// same executor, when the walk enters it: a GPU recomputes on the GPU.
// Memory is the checkpoints plus one band; time at most twice the grid.
//
// In blocks (plan.TraceLayout.Blocks: a forward 2-D wavefront of one
// table) the forward pass is one run that keeps checkpoint columns as
// well as rows, and the walk recomputes only the blocks it enters (block),
// in GPU memory or on the host: about (rows + columns) x the blocks' side
// cells more than the grid, where bands recompute about the grid once
// more.
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// Grid is a problem's grid kept as checkpoint rows. At reads any cell,
// recomputing the band that holds it when it is not the band in memory;
// an error stops the reads (At returns zero values) and Err reports it.
// It is what backend/traceback walks (traceback.Source).
type Grid struct {
	ctx context.Context
	ex  backend.Executor
	opt backend.Options // of the band runs
	p   *ir.Problem
	lay plan.TraceLayout

	// tops[b] holds the Reach rows above band b (b >= 1), full width:
	// rows b*Band - Reach .. b*Band - 1 of p's grid; in spill instead
	// where the layout keeps them in a temporary file (lay.Spill).
	tops  []*backend.Grid
	spill *spillFile
	// kcols[k] holds the ColReach columns left of column block k (k >=
	// 1), whole, one a row (lay.Blocks).
	kcols []*backend.Grid
	// pf is the block being computed ahead of the walk (lay.Blocks), nil
	// when none is; entry is the cell the walk entered the block in
	// memory at, entered whether it has. spare holds the memory of
	// blocks computed on the host that the walk has left, for the next.
	pf    *prefetched
	spare []*backend.Grid
	// kinds are the executors of the four kinds of blocks
	// (blockExecutor).
	kinds   [4]backend.Executor
	entry   [2]int64
	entered bool

	// The band in memory: band cur, computed for p's rows base ..
	// base+height-1 (its given rows first), columns 0 .. cols-1, its grid
	// holding columns lo .. hi-1 of those rows (all of them, or the
	// window the walk needs: see window); stored transposed (columns as
	// rows) when swapped.
	cur                int64
	base, height, cols int64
	lo, hi             int64
	swapped            bool
	// enterJ is the column the walk entered band cur at, minJ the least
	// it has read there: how wide the next band's window must be (once
	// walked: a band loaded for the forward pass says nothing).
	enterJ, minJ int64
	walked       bool
	g            *backend.Grid
	// dev is the band in memory when it is kept in the GPU's memory
	// (lay.DeviceBands), read through its tiles; g is nil then.
	dev backend.DeviceGrid
	// sub is the band in memory when it is itself kept as checkpoints
	// (lay.Nested): its cells are read, and its bands recomputed, through
	// it; g and dev are nil then.
	sub *Grid
	// user is the run's options, for the nested bands' runs.
	user backend.Options
	// buf is the memory every band is computed in (Reshaped to its
	// size; bands kept on the host, in one level): allocated when a band
	// first needs more, so that the kernel faults its pages in once, and
	// only as many as the windows the walk keeps need.
	buf *backend.Grid

	err error
	// progress is the run's Progress (nil: none), called with the cells
	// computed so far against twice the grid's.
	progress func(done, total int64)
	// Cells counts the cells computed, forward pass and recomputations.
	Cells int64
	// Recomputed counts the bands recomputed for the walk, Ahead the
	// blocks of them computed ahead of it (lay.Blocks).
	Recomputed, Ahead int
	// cells bounds p's cell values: the data of the rows every band is
	// given.
	cells cellBounds
}

// Run runs p, planned as pl, band by band as lay says on ex, keeping the
// checkpoint rows, and returns the run's result (answer, answer cell,
// statistics; no grid) and the Grid to trace back through. opt's
// Progress sees the forward pass as the first half of the work; the
// walk's recomputations report through the Grid (their total is not
// known in advance).
func Run(ctx context.Context, ex backend.Executor, p *ir.Problem, pl *plan.Plan, opt backend.Options, lay plan.TraceLayout) (*backend.Result, *Grid, error) {
	if lay.Whole || lay.Band <= 0 {
		return nil, nil, fmt.Errorf("internal error: checkpoint.Run with a layout that keeps the whole grid")
	}
	if lay.Blocks && (lay.Spill || lay.Nested || !KeepsCheckpoints(ex, pl)) {
		return nil, nil, fmt.Errorf("internal error: a layout in blocks for an executor that keeps no columns, or in a temporary file")
	}
	start := time.Now()
	bandOpt := opt
	bandOpt.Maintain, bandOpt.Traceback, bandOpt.Grid, bandOpt.NoSpecial = true, false, nil, true
	bandOpt.Progress = nil
	// The bands share a few shapes, recomputed band after band: as many
	// cells between them as the grid (a back end compiles their programs
	// as for the grid).
	bandOpt.ProgramCells = max(opt.ProgramCells, p.Cells())
	g := &Grid{ctx: ctx, ex: ex, opt: bandOpt, p: p, lay: lay, tops: make([]*backend.Grid, lay.Bands), cur: -1, progress: opt.Progress}
	g.user = opt
	g.user.Progress = nil
	g.user.ProgramCells = bandOpt.ProgramCells
	g.cells.lo, g.cells.hi, g.cells.ok = codegen.CellRange(p, pl)
	switch {
	case lay.Blocks:
		// In GPU memory (plan.DeviceBlocks), else on the host
		// (plan.HostBlocks).
		g.opt.KeepOnDevice = lay.DeviceBlocks
		g.kcols = make([]*backend.Grid, lay.ColBlocks)
	case lay.DeviceBands:
		// Also for two levels: a band small enough to be kept whole
		// (the first may be) is kept on the device like the others.
		g.opt.KeepOnDevice = true
	case lay.Nested:
		// Each band is a Grid of its own (load).
	}
	if lay.Spill {
		sp, err := newSpill(p, lay)
		if err != nil {
			return nil, nil, err
		}
		g.spill = sp
	} else if keepsRows(ex, pl) {
		// (An executor keeping the rows holds them all at once.)
		res, kg, err := g.keptRows(pl, opt, start)
		if !errors.Is(err, backend.ErrNoKeptRows) || lay.Blocks {
			return res, kg, err
		}
		// The run it chose cannot keep them: band by band.
	}
	ans := newAnswer(pl.Answer)
	res := &backend.Result{}
	for b := int64(0); b < lay.Bands; b++ {
		r, err := g.load(b, p.Cols, span{})
		if err != nil {
			g.Close()
			return nil, nil, err
		}
		res.Backend, res.Device = r.Backend, r.Device
		res.Stats.CompileSeconds += r.Stats.CompileSeconds
		res.Stats.ComputeSeconds += r.Stats.ComputeSeconds
		res.Stats.DeviceBytes = max(res.Stats.DeviceBytes, r.Stats.DeviceBytes)
		r0, rows := g.bandRows(b)
		ans.take(g.at, r0, r0+rows, p.Cols)
		if b+1 < lay.Bands {
			if err := g.putTop(b+1, g.rows(r0+rows-lay.Reach, lay.Reach)); err != nil {
				g.Close()
				return nil, nil, err
			}
		}
		if err := g.Err(); err != nil {
			g.Close()
			return nil, nil, err
		}
	}
	if err := ans.finish(p, res); err != nil {
		return nil, nil, err
	}
	res.Stats.Cells = g.Cells
	res.Stats.Seconds = time.Since(start).Seconds()
	res.Stats.PeakHostBytes = lay.Bytes
	return res, g, nil
}

// keptRows is the forward pass of an executor that keeps chosen rows
// (backend.RowKeeper): one run of the whole grid at full speed — every
// worker busy, the executor's own answer — keeping the rows above every
// band but the first.
func (g *Grid) keptRows(pl *plan.Plan, opt backend.Options, start time.Time) (*backend.Result, *Grid, error) {
	var rows []int64
	for b := int64(1); b < g.lay.Bands; b++ {
		r0, _ := g.bandRows(b)
		for i := r0 - g.lay.Reach; i < r0; i++ {
			rows = append(rows, i)
		}
	}
	var cols []int64
	if g.lay.Blocks {
		for k := int64(1); k < g.lay.ColBlocks; k++ {
			c0, _ := g.colBlock(k)
			for j := c0 - g.lay.ColReach; j < c0; j++ {
				cols = append(cols, j)
			}
		}
	}
	run := opt
	run.Maintain, run.Traceback, run.Grid, run.NoSpecial, run.KeepRows, run.KeepColumns = false, false, nil, true, rows, cols
	if g.progress != nil {
		total := g.progressTotal()
		run.Progress = func(d, _ int64) { g.progress(min(d, total), total) }
	}
	res, err := g.ex.Run(g.ctx, g.p, pl, run)
	if err != nil {
		return nil, nil, err
	}
	if len(rows) > 0 && (res.Rows == nil || res.Rows.Rows != int64(len(rows)) || res.Rows.Cols != g.p.Cols) {
		return nil, nil, fmt.Errorf("internal error: the %s backend kept no checkpoint rows", res.Backend)
	}
	if len(cols) > 0 && (res.Columns == nil || res.Columns.Rows != int64(len(cols)) || res.Columns.Cols != g.p.Rows) {
		return nil, nil, fmt.Errorf("internal error: the %s backend kept no checkpoint columns", res.Backend)
	}
	for k := int64(1); k < g.lay.ColBlocks; k++ {
		g.kcols[k] = res.Columns.RowsOf((k-1)*g.lay.ColReach, g.lay.ColReach)
	}
	res.Columns = nil
	// Views of the kept rows and columns, not copies (two genomes' took
	// seconds to copy, their pages faulted in anew).
	for b := int64(1); b < g.lay.Bands; b++ {
		g.tops[b] = res.Rows.RowsOf((b-1)*g.lay.Reach, g.lay.Reach)
	}
	res.Rows = nil
	g.Cells = g.p.Cells()
	res.Stats.Cells = g.Cells
	res.Stats.Seconds = time.Since(start).Seconds()
	res.Stats.PeakHostBytes = g.lay.Bytes
	return res, g, nil
}

// bandRows is the first row of band b in p's grid and how many it has.
// The first band takes what is left over, so that every other band has
// Band rows: one program, where the back end compiles one.
func (g *Grid) bandRows(b int64) (r0, rows int64) { return part(g.p.Rows, g.lay.Bands, g.lay.Band, b) }

// bandOf is the band that holds row i.
func (g *Grid) bandOf(i int64) int64 { return partOf(g.p.Rows, g.lay.Bands, g.lay.Band, i) }

// colBlock is the first column of column block k (lay.Blocks) and how
// many it has, as bandRows is for rows.
func (g *Grid) colBlock(k int64) (c0, cols int64) {
	return part(g.p.Cols, g.lay.ColBlocks, g.lay.BlockCols, k)
}

// colBlockOf is the column block that holds column j.
func (g *Grid) colBlockOf(j int64) int64 {
	return partOf(g.p.Cols, g.lay.ColBlocks, g.lay.BlockCols, j)
}

// part is where part k of n things cut into parts of size starts and how
// many it has: the first part takes what is left over.
func part(n, parts, size, k int64) (start, count int64) {
	first := n - (parts-1)*size
	if k == 0 {
		return 0, first
	}
	return first + (k-1)*size, size
}

// partOf is the part (see part) that holds thing x.
func partOf(n, parts, size, x int64) int64 {
	first := n - (parts-1)*size
	if x < first {
		return 0
	}
	return 1 + (x-first)/size
}

// span is a range lo .. hi-1 of a band's columns to keep; the zero
// span keeps them all.
type span struct{ lo, hi int64 }

// load computes band b, columns 0 .. cols-1, into memory, keeping only
// the columns of keep (a non-zero span) where the executor can: as they
// are (backend.ColumnKeeper, which may also stop after them), or from the
// band transposed, whose rows are p's columns (backend.RowKeeper). What
// the walk reads of a band is near its path, and keeping the whole band
// costs more than computing it (the writes of the kept cells).
func (g *Grid) load(b, cols int64, keep span) (*backend.Result, error) {
	if err := g.ctx.Err(); err != nil {
		return nil, err
	}
	r0, rows := g.bandRows(b)
	trace := phases.Start(fmt.Sprintf("checkpoint band %d of %d (rows %d, columns %d)", b, g.lay.Bands, rows, cols))
	defer trace.Print(os.Stderr)
	g.g = nil // the band in memory goes before the next one is allocated
	if err := g.freeBand(); err != nil {
		return nil, err
	}
	top, err := g.top(b)
	if err != nil {
		return nil, err
	}
	// A band of several tables stays as it is on a CPU (an executor
	// that keeps columns), where a short band is no slower: transposed,
	// its flat columns (j*T + table) become rows, a grid of single cells
	// (gotoh, SARS-CoV-2 x SARS-CoV, --traceback: 44.5 s transposed,
	// 10.5 s not); given its rows table by table, it plans as the
	// tables' cells and runs on the compiled scan (4.6-5.6 s -> 3.7-4.0 s
	// with the walk's bands narrowed to the column it entered at).
	ck, cpu := g.ex.(backend.ColumnKeeper)
	tablesAsTheyAre := cpu && len(g.p.Tables) > 1 && !g.lay.Nested
	bp, err := band(g.p, r0, rows, cols, g.lay.Reach, top, g.cells, tablesAsTheyAre)
	if err != nil {
		return nil, err
	}
	trace.Mark("band")
	// A band of fewer rows than columns runs transposed: a GPU sweeps
	// strips of rows in parallel, and a short band has few of them. (A
	// band of a transposed band stays as it is: its rows are already
	// the long side.) A band traced back in bands of its own is
	// transposed where the layout says (plan.TraceLayout.SubSwapped).
	swap := bp.Dims == 2 && bp.Rows < bp.Cols && !bp.Swapped
	if g.lay.Nested {
		swap = g.lay.SubSwapped
	}
	if tablesAsTheyAre {
		swap = false
	}
	// A window of the band's columns is kept as it is where the executor
	// keeps columns (a CPU sweeps a short band as fast as a tall one),
	// else from the band transposed, as rows (KeepRows).
	window := keep.hi > keep.lo && keep.lo >= 0 && keep.hi <= cols && keep.hi-keep.lo < cols && !g.lay.Nested && !g.lay.DeviceBands
	var bpl *plan.Plan
	byCols := false
	if cpu && window {
		if pl, err := plan.Analyze(bp); err == nil && ck.KeepsCols(pl) {
			bpl, byCols, swap = pl, true, false
		}
	}
	if swap {
		if bp, err = transposed(bp); err != nil {
			return nil, err
		}
	}
	if bpl == nil {
		if bpl, err = plan.Analyze(bp); err != nil {
			return nil, fmt.Errorf("internal error: planning band %d (rows %d..%d): %w", b, r0, r0+rows-1, err)
		}
	}
	trace.Mark("plan")
	if g.lay.Nested {
		lay, err := g.subLayout(bp, bpl)
		if err != nil {
			return nil, fmt.Errorf("internal error: band %d of a two-level traceback: %w", b, err)
		}
		if !lay.Whole {
			defer trace.Mark("nested")
			return g.loadNested(b, r0, rows, cols, swap, bp, bpl, lay)
		}
		// A band this small (the first) is kept whole.
	}
	opt := g.opt
	byRows := window && !byCols && swap && keepsRows(g.ex, bpl)
	if !byCols && !byRows {
		keep = span{0, cols}
	}
	switch {
	case byCols:
		opt.Maintain, opt.KeepCols = false, [2]int64{keep.lo, keep.hi}
		opt.Grid = g.buffer(bp.Rows, keep.hi-keep.lo)
	case byRows:
		opt.Maintain, opt.KeepRows = false, make([]int64, 0, keep.hi-keep.lo)
		for c := keep.lo; c < keep.hi; c++ {
			opt.KeepRows = append(opt.KeepRows, c)
		}
		opt.Grid = g.buffer(keep.hi-keep.lo, bp.Cols)
	case !g.lay.DeviceBands && !g.lay.Nested:
		opt.Grid = g.buffer(bp.Rows, bp.Cols)
	}
	if g.progress != nil {
		// The run counts bp's cells, its given rows among them; the band
		// counts its own rows*cols (g.Cells, below): in proportion, so that
		// the next band's start is not behind this one's end.
		done, total, scale := g.Cells, 2*g.p.Cells(), float64(rows*cols)/float64(max(bp.Cells(), 1))
		opt.Progress = func(d, _ int64) { g.progress(min(done+int64(float64(d)*scale), total), total) }
	}
	r, err := g.ex.Run(g.ctx, bp, bpl, opt)
	if err != nil {
		return nil, err
	}
	trace.Mark("run")
	kept := r.Grid
	switch {
	case byCols:
		kept = r.Window
		if !kept.Fits(g.p.CellType, bp.Rows, keep.hi-keep.lo) {
			return nil, fmt.Errorf("internal error: the %s backend kept no columns %d..%d of band %d", r.Backend, keep.lo, keep.hi-1, b)
		}
	case byRows:
		kept = r.Rows
		if !kept.Fits(g.p.CellType, keep.hi-keep.lo, bp.Cols) {
			return nil, fmt.Errorf("internal error: the %s backend kept no columns %d..%d of band %d", r.Backend, keep.lo, keep.hi-1, b)
		}
	case g.lay.DeviceBands && r.DeviceGrid != nil:
		g.dev = r.DeviceGrid
	case g.lay.DeviceBands || r.Grid == nil || !r.Grid.Fits(g.p.CellType, bp.Rows, bp.Cols):
		return nil, fmt.Errorf("internal error: the %s backend kept no grid of band %d", r.Backend, b)
	}
	height := bp.Rows
	if swap {
		height = bp.Cols
	}
	g.cur, g.base, g.height, g.cols, g.swapped, g.g = b, r0-(height-rows), height, cols, swap, kept
	g.lo, g.hi = keep.lo, keep.hi
	g.Cells += rows * cols
	return r, nil
}

// loadBlock makes block (b, k) — band b's rows, column block k's columns,
// with the rows above and the columns left of them that it is given — the
// one in memory (lay.Blocks): the block computed ahead of the walk
// where it is that one, else computed now. Then it starts computing the
// block the walk will enter next, seen from cell [i][j], where it entered
// this one (nextBlock), while the walk crosses this one: the GPU is idle
// while the host walks, the host while the GPU computes.
func (g *Grid) loadBlock(b, k, i, j int64) error {
	if err := g.ctx.Err(); err != nil {
		return err
	}
	_, rows := g.bandRows(b)
	_, cols := g.colBlock(k)
	trace := phases.Start(fmt.Sprintf("checkpoint block [%d][%d] of %d x %d (%d x %d cells)", b, k, g.lay.Bands, g.lay.ColBlocks, rows, cols))
	defer trace.Print(os.Stderr)
	pf := g.takePrefetched(b, k)
	trace.Mark("wait")
	if err := g.freeBand(); err != nil {
		if pf != nil {
			g.release(pf.res)
		}
		return err
	}
	if g.g != nil {
		// The block the walk leaves, on the host: memory for the next.
		g.spare = append(g.spare, g.g)
		g.g = nil
	}
	trace.Mark("free")
	if pf == nil {
		var err error
		opt := g.opt
		opt.Grid = g.spareGrid()
		if pf, err = g.computeBlock(b, k, opt); err != nil {
			return err
		}
		trace.Mark("run")
	} else {
		trace.Mark("computed ahead")
		g.Ahead++
	}
	bp := pf.bp
	g.dev, g.g = pf.res.DeviceGrid, nil
	if g.dev == nil {
		g.g = pf.res.Grid
	}
	g.cur = b
	g.base, g.height, g.cols, g.swapped = bp.RowBase, bp.Rows, bp.Cols, false
	g.lo, g.hi = bp.ColBase, bp.ColBase+bp.Cols
	g.Cells += rows * cols
	if g.progress != nil {
		total := g.progressTotal()
		g.progress(min(g.Cells, total), total)
	}
	if nb, nk, ok := g.nextBlock(b, k, i, j); ok {
		g.prefetch(nb, nk)
	}
	g.entry, g.entered = [2]int64{i, j}, true
	return nil
}

// progressTotal is the cells a traceback's progress counts to: the forward
// pass and, with bands, about as many again for the walk's, with blocks
// the share of the grid its blocks recompute at most (lay.Recompute).
// Done reports the work finished to the run's Progress (the walk is over):
// its total is an upper bound (the blocks the layout allows for, twice the
// grid for bands), which the walk's recomputations seldom reach, so that a
// progress bar would otherwise stop short of its end.
func (g *Grid) Done() {
	if g.progress != nil {
		t := g.progressTotal()
		g.progress(t, t)
	}
}

func (g *Grid) progressTotal() int64 {
	if g.lay.Blocks {
		return int64(float64(g.p.Cells()) * max(g.lay.Recompute, 1))
	}
	return 2 * g.p.Cells()
}

// prefetched is a block computed on a goroutine of its own (Grid.prefetch).
type prefetched struct {
	b, k int64
	done chan struct{}
	bp   *ir.Problem
	res  *backend.Result
	err  error
}

// computeBlock runs block (b, k) with opt, keeping its grid in GPU memory
// (opt.KeepOnDevice) or on the host. It reads only what the forward pass left (the checkpoints, the layout),
// so that it may run beside the walk.
func (g *Grid) computeBlock(b, k int64, opt backend.Options) (*prefetched, error) {
	r0, rows := g.bandRows(b)
	c0, cols := g.colBlock(k)
	bp, err := block(g.p, r0, rows, c0, cols, g.lay.Reach, g.lay.ColReach, g.tops[b], g.kcols[k], g.cells)
	if err != nil {
		return nil, err
	}
	bpl, err := plan.Analyze(bp)
	if err != nil {
		return nil, fmt.Errorf("internal error: planning block [%d][%d] (rows %d.., columns %d..): %w", b, k, r0, c0, err)
	}
	r, err := g.blockExecutor(b, k).Run(g.ctx, bp, bpl, opt)
	if err != nil {
		return nil, err
	}
	switch {
	case opt.KeepOnDevice && r.DeviceGrid == nil:
		return nil, fmt.Errorf("internal error: the %s backend kept no grid of block [%d][%d] on its device", r.Backend, b, k)
	case !opt.KeepOnDevice && (r.DeviceGrid != nil || !r.Grid.Fits(bp.CellType, bp.Rows, bp.Cols)):
		if r.DeviceGrid != nil {
			r.DeviceGrid.Close()
		}
		return nil, fmt.Errorf("internal error: the %s backend kept no grid of block [%d][%d]", r.Backend, b, k)
	}
	return &prefetched{b: b, k: k, bp: bp, res: r}, nil
}

// blockExecutor is the executor block (b, k) runs on: where the
// executor makes one program for instances of a problem
// (backend.Instancer), one such for each kind of block — in the first
// band or not, in the first column of blocks or not: the same recurrence
// given the same inputs, where the blocks of one kind differ only in
// their data (and the first band's and column's sizes) — so that the
// program of a block is made once, not for every block the walk enters
// (a block of 1,024² cells runs in about the time its program took to
// make). Blocks are computed one at a time (computeBlock), so the
// executors are not shared between goroutines.
func (g *Grid) blockExecutor(b, k int64) backend.Executor {
	in, ok := g.ex.(backend.Instancer)
	if !ok {
		return g.ex
	}
	kind := 0
	if b == 0 {
		kind |= 1
	}
	if k == 0 {
		kind |= 2
	}
	if g.kinds[kind] == nil {
		g.kinds[kind] = in.Instances()
	}
	return g.kinds[kind]
}

// release frees what a block's run kept: its grid in GPU memory, or its
// grid on the host, kept for the next block (spare).
func (g *Grid) release(r *backend.Result) {
	switch {
	case r.DeviceGrid != nil:
		r.DeviceGrid.Close()
	case r.Grid != nil:
		g.spare = append(g.spare, r.Grid)
	}
}

// spareGrid is the memory of a block the walk has left, for the next
// block to be computed in (blocks on the host): nil when there is none.
func (g *Grid) spareGrid() *backend.Grid {
	if n := len(g.spare); n > 0 {
		sp := g.spare[n-1]
		g.spare = g.spare[:n-1]
		return sp
	}
	return nil
}

// prefetch starts computing block (b, k) on a goroutine of its own.
func (g *Grid) prefetch(b, k int64) {
	pf := &prefetched{b: b, k: k, done: make(chan struct{})}
	g.pf = pf
	opt := g.opt
	opt.Progress = nil
	opt.Grid = g.spareGrid() // (taken here: the goroutine does not touch g.spare)
	go func() {
		defer close(pf.done)
		got, err := g.computeBlock(b, k, opt)
		if err != nil {
			pf.err = err
			return
		}
		pf.bp, pf.res = got.bp, got.res
	}()
}

// takePrefetched waits for the block being computed ahead, if any, and
// returns it where it is block (b, k) and was computed; another one, or
// one that failed (the walk computes it again, and reports its error
// then), is given back.
func (g *Grid) takePrefetched(b, k int64) *prefetched {
	pf := g.pf
	if pf == nil {
		return nil
	}
	<-pf.done
	g.pf = nil
	if pf.err == nil && pf.b == b && pf.k == k {
		return pf
	}
	if pf.err == nil {
		g.release(pf.res)
	}
	return nil
}

// nextBlock is the block a walk that entered block (b, k) at cell [i][j]
// is likely to enter next: where a line from [i][j] back along the walk's
// slope leaves the block — through its top, its left side, or within a
// cell of its corner, into the block diagonally above (a path along a
// diagonal crosses corners). The slope is the walk's from the block it
// entered before, else the grid's (its columns over its rows). ok is false
// at the grid's first block.
func (g *Grid) nextBlock(b, k, i, j int64) (nb, nk int64, ok bool) {
	switch {
	case b == 0 && k == 0:
		return 0, 0, false
	case b == 0:
		return 0, k - 1, true
	case k == 0:
		return b - 1, 0, true
	}
	slope := float64(g.p.Cols) / float64(g.p.Rows)
	if di, dj := g.entry[0]-i, g.entry[1]-j; g.entered && di > 0 && dj > 0 {
		slope = float64(dj) / float64(di)
	}
	r0, _ := g.bandRows(b)
	c0, _ := g.colBlock(k)
	up, left := float64(i-r0+1), float64(j-c0+1)
	switch reach := up * slope; {
	case left > reach+1:
		return b - 1, k, true
	case left < reach-1:
		return b, k - 1, true
	}
	return b - 1, k - 1, true
}

// subLayout is how a band of a two-level layout is traced back: whole
// when it fits the second level's budget (the first band may be small),
// else in bands of its own — never a third level.
func (g *Grid) subLayout(bp *ir.Problem, bpl *plan.Plan) (plan.TraceLayout, error) {
	// Whole where it fits the second level's budget and, for bands kept
	// on the GPU, a band's share of its memory (plan.DeviceBands: half).
	if n := plan.GridBytes(bp); n <= g.lay.SubBudget && (!g.lay.DeviceBands || n <= g.lay.DeviceFree/2) {
		return plan.TraceLayout{Whole: true}, nil
	}
	var lay plan.TraceLayout
	var err error
	if g.lay.DeviceBands {
		lay, err = plan.DeviceBands(bp, bpl, g.lay.DeviceFree, g.lay.SubBudget)
	} else {
		lay, err = plan.Traceback(bp, bpl, g.lay.SubBudget)
	}
	if err == nil && (lay.Whole || lay.Nested) {
		err = fmt.Errorf("the band needs more than one level: %s", lay.Why)
	}
	return lay, err
}

// loadNested traces band b (the problem bp: rows r0 .. r0+rows-1, cols
// columns) back from checkpoints of its own, as the layout's second level
// says, and makes it the band in memory.
func (g *Grid) loadNested(b, r0, rows, cols int64, swap bool, bp *ir.Problem, bpl *plan.Plan, lay plan.TraceLayout) (*backend.Result, error) {
	opt := g.user
	if g.progress != nil {
		done, total := g.Cells, 2*g.p.Cells()
		opt.Progress = func(d, _ int64) { g.progress(min(done+d/2, total), total) }
	}
	res, sub, err := Run(g.ctx, g.ex, bp, bpl, opt, lay)
	if err != nil {
		return nil, err
	}
	height := bp.Rows
	if swap {
		height = bp.Cols
	}
	g.cur, g.base, g.height, g.cols, g.swapped, g.sub = b, r0-(height-rows), height, cols, swap, sub
	g.lo, g.hi = 0, cols
	g.Cells += sub.Cells
	return res, nil
}

// at is cell [i][j] of p's grid from the band in memory, which holds it.
func (g *Grid) at(i, j int64) ir.Value {
	var band interface{ At(i, j int64) ir.Value } = g.g
	switch {
	case g.sub != nil:
		band = g.sub
	case g.dev != nil:
		band = g.dev
	}
	if g.swapped {
		return band.At(j-g.lo, i-g.base)
	}
	return band.At(i-g.base, j-g.lo)
}

// rows copies n rows of the band in memory, from p's row r0, whole.
func (g *Grid) rows(r0, n int64) *backend.Grid {
	out := backend.NewGrid(g.p.CellType, n, g.cols)
	if !g.swapped && g.g != nil {
		size := int64(g.p.CellType.Size())
		at := (r0 - g.base) * g.cols * size
		copy(out.Bytes(), g.g.Bytes()[at:at+n*g.cols*size])
		return out
	}
	// In the order the band is stored — column by column from a
	// transposed one — so that a band kept as bands of its own
	// recomputes each of them once.
	if g.swapped {
		for j := int64(0); j < g.cols; j++ {
			for i := int64(0); i < n; i++ {
				out.Set(i, j, g.at(r0+i, j))
			}
		}
		return out
	}
	for i := int64(0); i < n; i++ {
		for j := int64(0); j < g.cols; j++ {
			out.Set(i, j, g.at(r0+i, j))
		}
	}
	return out
}

// At is cell [i][j] of p's grid. A cell of the band in memory is read
// from it; one of the rows a band was given, from the checkpoint; any
// other recomputes its band, as wide as it must be: up to column j where
// references read no column to the right (the walk only moves left), the
// whole row otherwise.
func (g *Grid) At(i, j int64) ir.Value {
	if g.err != nil {
		return ir.Value{T: g.p.CellType}
	}
	if (g.g != nil || g.dev != nil || g.sub != nil) && i >= g.base && i < g.base+g.height && j >= g.lo && j < g.hi {
		g.minJ = min(g.minJ, j)
		return g.at(i, j)
	}
	b := g.bandOf(i)
	if b+1 < int64(len(g.tops)) {
		next, _ := g.bandRows(b + 1)
		if top := g.tops[b+1]; top != nil && i >= next-g.lay.Reach && j < top.Cols {
			return top.At(i-(next-g.lay.Reach), j)
		}
	}
	if g.lay.Blocks {
		k := g.colBlockOf(j)
		if k+1 < g.lay.ColBlocks {
			if next, _ := g.colBlock(k + 1); j >= next-g.lay.ColReach {
				return g.kcols[k+1].At(j-(next-g.lay.ColReach), i)
			}
		}
		if err := g.loadBlock(b, k, i, j); err != nil {
			g.err = err
			return ir.Value{T: g.p.CellType}
		}
		g.Recomputed++
		return g.at(i, j)
	}
	cols, keep := g.p.Cols, span{}
	if g.lay.Narrow {
		cols = g.roundCols(j + 1)
		if b == g.cur {
			cols = max(cols, g.cols)
		}
		keep = g.window(b, j, cols)
	}
	if _, err := g.load(b, cols, keep); err != nil {
		g.err = err
		return ir.Value{T: g.p.CellType}
	}
	g.Recomputed++
	return g.at(i, j)
}

// window is the span of band b's columns to keep for a walk that reads
// its column j and then only columns to the left (TraceLayout.Narrow):
// twice the band's height and its given rows (a path that runs
// diagonally crosses about as many columns as rows), and when the walk
// leaves that window to the left within the band, all of the band left
// of it (the zero span): a band is computed twice at most
// (TraceLayout.Recompute).
//
// The walk may read a few columns right of j before it moves on (it
// reads the cells a winning term refers to, the one at j last): the span
// ends a little past j, within the cols computed.
//
// Where the walk crossed a band before, the window is as wide per row as
// it needed there, with a quarter to spare, when that is narrower: the
// path of two similar sequences crosses a band of h rows in about h
// columns, and every kept cell costs a write.
func (g *Grid) window(b, j, cols int64) span {
	if b == g.cur {
		return span{}
	}
	_, rows := g.bandRows(b)
	width := 2*(rows+g.lay.Reach) + 64
	if g.walked && g.height > 0 && g.enterJ >= g.minJ {
		need := (g.enterJ - g.minJ + 1) * (rows + g.lay.Reach) / g.height
		width = min(width, need+need/4+128+2*g.lay.Reach)
	}
	g.enterJ, g.minJ, g.walked = j, j, true
	hi := min(cols, j+1+64)
	return span{max(0, hi-width), hi}
}

// buffer is buf as a grid of rows x cols, allocated anew when it is
// smaller: twice as large, up to a whole band with its given rows (what
// the layout counted), since the windows of the bands differ a little in
// width and each new buffer is faulted in again.
func (g *Grid) buffer(rows, cols int64) *backend.Grid {
	if b := g.buf.Reshaped(rows, cols); b != nil {
		return b
	}
	// Room for the tallest band, whole (what the layout counts), at once:
	// the first band is the shortest, and a buffer grown from it left its
	// memory to the collector — a traceback of affine alignments of two
	// virus genomes held 552 MB within 192 MiB. Pages not written are not
	// the process's.
	g.buf = backend.NewGrid(g.p.CellType, 1, max(rows*cols, (g.lay.Band+g.lay.Reach)*g.p.Cols))
	return g.buf.Reshaped(rows, cols)
}

// KeepsCheckpoints reports whether ex keeps the checkpoints of blocks —
// chosen columns with chosen rows — of a grid planned as pl in one run
// (backend.ColumnSetKeeper and backend.RowKeeper): what a layout in
// blocks needs.
func KeepsCheckpoints(ex backend.Executor, pl *plan.Plan) bool {
	k, ok := ex.(backend.ColumnSetKeeper)
	return ok && k.KeepsColumns(pl) && keepsRows(ex, pl)
}

// keepsRows reports whether ex keeps chosen rows of problems planned as
// pl (backend.RowKeeper).
func keepsRows(ex backend.Executor, pl *plan.Plan) bool {
	k, ok := ex.(backend.RowKeeper)
	return ok && k.KeepsRows(pl)
}

// widths is how many widths a band recomputed for the walk may have:
// the width is rounded up to a multiple of a quarter of the grid's, so
// that a back end that compiles a program per shape compiles a few (the
// walk crosses up to widths of them), for a quarter more cells at most.
const widths = 4

// roundCols is the width of a band that holds columns 0..n-1: n rounded
// up to a multiple of the step of widths, and to whole cells of every
// table of a recurrence of several tables.
func (g *Grid) roundCols(n int64) int64 {
	step := (g.p.Cols + widths - 1) / widths
	if t := int64(len(g.p.Tables)); t > 1 {
		step = (step + t - 1) / t * t
	}
	return min(g.p.Cols, (n+step-1)/step*step)
}

// Err is the error that stopped the reads, nil when none did.
func (g *Grid) Err() error {
	switch {
	case g.err != nil:
		return g.err
	case g.dev != nil:
		return g.dev.Err()
	case g.sub != nil:
		return g.sub.Err()
	}
	return nil
}

// Close frees the band kept in the GPU's memory, if one is (and a block
// computed ahead of the walk), and the temporary file of the checkpoint
// rows.
func (g *Grid) Close() error {
	g.takePrefetched(-1, -1) // (no block is (-1, -1): one computed ahead is closed)
	err := g.freeBand()
	if g.spill != nil {
		if e := g.spill.close(); err == nil {
			err = e
		}
		g.spill = nil
	}
	return err
}

// putTop keeps the given rows of band b.
func (g *Grid) putTop(b int64, rows *backend.Grid) error {
	if g.spill != nil {
		return g.spill.put(b, rows)
	}
	g.tops[b] = rows
	return nil
}

// top is the given rows of band b (nil for the first).
func (g *Grid) top(b int64) (*backend.Grid, error) {
	if g.spill != nil && b > 0 {
		return g.spill.get(b)
	}
	return g.tops[b], nil
}

// freeBand frees the band kept in the GPU's memory, if one is.
func (g *Grid) freeBand() error {
	var err error
	if g.dev != nil {
		err = g.dev.Close()
		g.dev = nil
	}
	if g.sub != nil {
		if e := g.sub.Close(); err == nil {
			err = e
		}
		g.sub = nil
	}
	return err
}

// answer collects the cells the answer reads as the bands are computed.
type answer struct {
	a   plan.AnswerSpec
	got map[[2]int64]ir.Value
	// region: the best cell so far, the first of equals in row-major
	// order (as the executors pick it).
	has    bool
	best   ir.Value
	bi, bj int64
}

func newAnswer(a plan.AnswerSpec) *answer {
	return &answer{a: a, got: map[[2]int64]ir.Value{}}
}

// take reads what the answer needs from rows r0 .. r1-1 of p's grid,
// of cols columns, through at.
func (s *answer) take(at func(i, j int64) ir.Value, r0, r1, cols int64) {
	a := s.a
	switch a.Kind {
	case plan.AnswerRegion:
		isMin := a.Op == ir.ReduceMin
		for i := max(r0, a.I0); i <= min(r1-1, a.I1); i++ {
			for j := a.J0; j <= a.J1 && j < cols; j += max(a.JStep, 1) {
				v := at(i, j)
				if !s.has || better(v, s.best, isMin) {
					s.has, s.best, s.bi, s.bj = true, v, i, j
				}
			}
		}
	case plan.AnswerCell:
		if a.I >= r0 && a.I < r1 {
			s.got[[2]int64{a.I, a.J}] = at(a.I, a.J)
		}
	default:
		for _, c := range a.Cells {
			if c[0] >= r0 && c[0] < r1 && c[1] >= 0 && c[1] < cols {
				s.got[c] = at(c[0], c[1])
			}
		}
	}
}

func better(v, best ir.Value, isMin bool) bool {
	if v.T.IsFloat() {
		return (isMin && v.F < best.F) || (!isMin && v.F > best.F)
	}
	return (isMin && v.I < best.I) || (!isMin && v.I > best.I)
}

// finish computes the answer from what take collected, as the executors
// do (backend/cpu's answer).
func (s *answer) finish(p *ir.Problem, res *backend.Result) error {
	a := s.a
	switch a.Kind {
	case plan.AnswerRegion:
		if a.Op == ir.ReduceSum {
			return fmt.Errorf("internal error: a traceback from a sum")
		}
		v := s.best
		if !s.has {
			v = ir.Value{T: p.CellType}
		} else {
			res.AnswerI, res.AnswerJ, res.AnswerIsCell = s.bi, s.bj, true
		}
		var err error
		if res.Answer, err = eval.ConvertChain(a.Expr, v); err != nil {
			return err
		}
		return eval.CheckAnswer(p, res.Answer)
	case plan.AnswerCell:
		cells := backend.Captured(p, s.got)
		v, err := cells(a.I, a.J)
		if err != nil {
			return fmt.Errorf("answer %s: %w", p.CellText(a.I, a.J), err)
		}
		res.AnswerI, res.AnswerJ, res.AnswerIsCell = a.I, a.J, true
		if a.Expr != nil {
			if v, err = eval.Eval(a.Expr, cells); err != nil {
				return err
			}
		}
		res.Answer = v
		return eval.CheckAnswer(p, v)
	}
	v, err := eval.Eval(a.Expr, backend.Captured(p, s.got))
	if err != nil {
		return err
	}
	res.Answer = v
	return eval.CheckAnswer(p, v)
}
