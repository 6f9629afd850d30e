package gpu

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// One grid over several GPUs (issue #15). By default the strip kernel's
// strips are dealt to the launches in row bands (stripbands.go); with
// SlabOptions.Columns, kept to compare, the wavefront's columns, in sweep
// order, are cut into slabs, one strip-kernel launch each (DP_SLABS in
// templates/strip.cu), all running at once. A slab waits, strip by strip,
// for the slab on its left, which writes the strip's rows of its last PJ
// columns straight into the right slab's memory — device memory of the
// right slab's GPU through peer access (NVLink or PCIe), or pinned host
// memory mapped into both where the GPUs cannot reach each other — and
// flags the strip with a system-scope release. The right slab thus starts
// one strip later than its left neighbour: the pipeline fills in a strip's
// time per slab, like CUDAlign's and MASA's column split.
//
// A problem the bit-parallel kernel takes is split into row bands of its
// own (bitparbands.go).
//
// Several slabs may share one GPU (each its own stream and share of the
// multiprocessors: all blocks of all its slabs are resident together, so
// that a waiting slab never holds the multiprocessors its left slab
// needs); that is how the splitting, the border streaming and the answer
// assembly are tested on one GPU.

// SlabOptions says how RunSlabs splits a grid.
type SlabOptions struct {
	// PerGPU is the number of launches (bands' launches or slabs) on each
	// GPU (default 1).
	PerGPU int
	// HostBorders makes the borders go through mapped host memory even
	// where peer access (or one device) would serve: the fallback path, for
	// tests.
	HostBorders bool
	// Always runs the split kernel even for one part (the whole grid): to
	// measure what it costs against the plain one.
	Always bool
	// Columns splits the strip kernel's grid into column slabs, each
	// waiting a strip sweep for its left neighbour, instead of row bands
	// dealt round-robin (the default; stripbands.go): kept to compare.
	Columns bool
	// Chunk is the strips a row band (0: chosen from the GPUs' resident
	// blocks); tests set it to deal many small bands.
	Chunk int64
}

// minSlabCols is the narrowest slab: narrower ones do not pay for their
// pipeline delay.
const minSlabCols = 64

// splitWhyNot is why p as planned cannot be split over the GPUs on the
// strip kernel ("" when it can): only a wavefront on the strip kernel is
// (in row bands also the wavefront of several tables' cells), score only
// (no kept grid or rows), and not a floating sum (whose value would depend
// on the split).
func (e *Executor) splitWhyNot(p *ir.Problem, pl *plan.Plan, opt backend.Options, columns bool) string {
	cells := pl.Cells > 1 && !columns
	switch {
	case pl.Schedule != plan.Wavefront && !cells:
		return fmt.Sprintf("its %s schedule is not split (only wavefronts are)", pl.Schedule)
	case (!cells && !codegen.StripFits(pl)) || e.cfg.codegen.Kernel == codegen.KernelTile:
		return "its wavefront reads too far back for the strip kernel, the one that is split"
	case opt.KeepGrid(p) || len(opt.KeepRows) > 0 || opt.KeepOnDevice:
		return "it keeps the grid (traceback, --grid, maintain), which one GPU does"
	case pl.Answer.Kind == plan.AnswerRegion && pl.Answer.Op == ir.ReduceSum && p.CellType.IsFloat():
		return "its answer is a floating sum, whose rounding would depend on the split"
	}
	return ""
}

// slabPart is one slab: its launch, columns and borders.
type slabPart struct {
	part
	c0, cw     int64
	bnd, prog  cuda.DevicePtr
	partials   cuda.DevicePtr // its warps' partial answers (region answers)
	nPartials  int
	blocks     int64
	lin, lflag cuda.DevicePtr // from the left slab (0 for the first)
	lout, rfl  cuda.DevicePtr // to the right slab (0 for the last)
}

// RunSlabs solves p as planned by pl with its grid split into column slabs
// over the GPUs of exs (so.PerGPU slabs on each, widths in proportion to
// the GPUs' multiprocessors times clock). Where the grid cannot be split
// (slabsWhyNot), or is too narrow for two slabs, it runs on exs[0] and the
// result's Device says why.
func RunSlabs(ctx context.Context, exs []*Executor, p *ir.Problem, pl *plan.Plan, opt backend.Options, so SlabOptions) (*backend.Result, error) {
	if len(exs) == 0 {
		return nil, errors.New("gpu: no GPU to split the grid over")
	}
	per := max(so.PerGPU, 1)
	one := func(why string) (*backend.Result, error) {
		res, err := exs[0].Run(ctx, p, pl, opt)
		if err == nil && len(exs)*per > 1 {
			res.Device += " (one GPU: " + why + ")"
		}
		return res, err
	}
	if len(exs)*per == 1 && !so.Always {
		return one("")
	}
	if job := bitparFor(p, pl, opt); job != nil {
		// The bit-parallel kernel splits into row bands (bitparbands.go).
		if len(job.rows) == 0 || len(job.cols) == 0 || (len(bandBounds(exs, per, int64(job.in.Strips))) < 3 && !so.Always) {
			return one(fmt.Sprintf("%d rows are too few to split (2,048 a band at least)", len(job.rows)))
		}
		return runBitparBands(ctx, exs, p, pl, opt, so, job)
	}
	if (pl.Schedule == plan.Rows || pl.Schedule == plan.Cols) && !so.Columns {
		// Slabs of the lines' positions, in passes (lineslabs.go).
		return runLineSlabs(ctx, exs, p, pl, opt, so, one)
	}
	if why := exs[0].splitWhyNot(p, pl, opt, so.Columns); why != "" {
		return one(why)
	}
	start := time.Now()
	if err := backend.Start(ctx, p); err != nil {
		return nil, err
	}
	compileStart := time.Now()
	trace := phases.Start(p.Name)
	o := exs[0].codegenOptions(p, opt)
	o.Slabs, o.Bands = so.Columns, !so.Columns
	prog, err := codegen.Generate(p, pl, o)
	if err != nil {
		return nil, err
	}
	if prog.Kernel != codegen.KernelStrip || !(prog.Slabs || prog.Bands) {
		return one(fmt.Sprintf("the %s kernel is not split", prog.Kernel))
	}
	pj := int64(max(prog.PJ, 1))
	if so.Columns && len(slabBounds(exs, per, p.Cols, pj)) < 3 && !so.Always {
		return one(fmt.Sprintf("%d columns are too few to split", p.Cols))
	}
	if !so.Columns && (prog.Strips < 2 && !so.Always || prog.Strips < 1) {
		return one(fmt.Sprintf("%d rows are one strip of the strip kernel (%d rows), too few to split", p.Rows, prog.StripRows()))
	}
	trace.Mark("generate")
	runs, stats, closeRuns, err := openRuns(ctx, exs, p, pl, opt, prog, trace, compileStart)
	if err != nil {
		return nil, err
	}
	defer closeRuns()
	var res *backend.Result
	var compute float64
	if so.Columns {
		sr := &slabRun{ctx: ctx, p: p, pl: pl, prog: prog, runs: runs, so: so, abort: map[*run]*cuda.HostBuffer{}}
		defer sr.close()
		res, err = sr.run(exs, slabBounds(exs, per, p.Cols, pj), opt)
		compute = sr.compute
	} else {
		br := &bandRun{ctx: ctx, p: p, pl: pl, opt: opt, prog: prog, runs: runs, so: so, abort: map[*run]*cuda.HostBuffer{}}
		defer br.close()
		res, err = br.run()
		compute = br.compute
	}
	if err != nil {
		return nil, err
	}
	trace.Mark("sweep+answer")
	return splitStats(res, stats, runs, p, compute, start), nil
}

// run sweeps the grid in the column slabs of bounds and assembles the
// result.
func (s *slabRun) run(exs []*Executor, bounds []int64, opt backend.Options) (*backend.Result, error) {
	if err := s.prepare(bounds); err != nil {
		return nil, splitError(s.ctx, s.runs, err)
	}
	if err := s.sweep(); err != nil {
		return nil, splitError(s.ctx, s.runs, err)
	}
	if err := runsError(s.runs); err != nil {
		return nil, err
	}
	res := &backend.Result{Backend: "cuda", Device: splitDevice(exs, len(s.parts), "column slabs")}
	if err := backend.Finish(s.p, opt, res, s.answer, traceback.Trace); err != nil {
		return nil, err
	}
	return res, nil
}

// slabBounds cuts cols sweep columns into slabs: per on each GPU, at least
// minSlabCols and pj wide, boundaries at multiples of 32. It returns the
// n+1 boundaries of n slabs, fewer slabs where the grid is narrow (two
// boundaries: no split).
//
// Widths follow the GPUs' speeds (multiprocessors x clock). A slab cannot
// run ahead of the slab on its left (it starts strip s when that one has
// finished strip s), so making later slabs narrower to make up for their
// late start only lets them wait: measured on two H100s, LCS 1,048,576²,
// 0.63 s of kernel with equal widths, 0.68 s with the right slab 43%
// of the columns.
func slabBounds(exs []*Executor, per int, cols, pj int64) []int64 {
	return splitWeighted(exs, per, cols, max(int64(minSlabCols), pj), 32)
}

// slabRun is the state of one split sweep.
type slabRun struct {
	ctx     context.Context
	p       *ir.Problem
	pl      *plan.Plan
	prog    *codegen.Program
	runs    []*run // by GPU
	so      SlabOptions
	parts   []*slabPart
	shared  []*cuda.HostBuffer // host-memory borders
	abort   map[*run]*cuda.HostBuffer
	compute float64
}

func (s *slabRun) close() {
	closeParts(s.launches())
	for _, h := range s.shared {
		h.Free()
	}
}

// launches is the slabs' launches.
func (s *slabRun) launches() []*part {
	ps := make([]*part, len(s.parts))
	for k, sp := range s.parts {
		ps[k] = &sp.part
	}
	return ps
}

// runOf is the run of slab k's GPU (slabs are spread over the GPUs in
// order, per to a GPU, the last GPU taking any shortfall).
func (s *slabRun) runOf(k, n int) *run {
	g := k * len(s.runs) / n
	return s.runs[g]
}

// prepare allocates every slab's buffers and borders.
func (s *slabRun) prepare(bounds []int64) error {
	pr, p := s.prog, s.p
	cs := int64(p.CellType.Size())
	n := len(bounds) - 1
	// Blocks: all slabs of a GPU resident at once.
	fnOcc := map[*run]int{}
	slabsOn := map[*run]int{}
	for k := 0; k < n; k++ {
		slabsOn[s.runOf(k, n)]++
	}
	threads := 32 * pr.StripWarps
	for _, r := range s.runs {
		fn := r.mod.funcs[codegen.FuncStrip]
		occ, err := fn.MaxActiveBlocksPerSM(threads, pr.StripSharedBytes)
		if err != nil {
			return err
		}
		if occ < 1 {
			return fmt.Errorf("the strip kernel of %s cannot run a block of %d threads on %s", p.Name, threads, r.e.dev.Name)
		}
		fnOcc[r] = occ
		h, err := r.hostAlloc(4)
		if err != nil {
			return err
		}
		s.abort[r] = h
		if err := r.zeroStripCaptures(); err != nil {
			return err
		}
	}
	// The borders and flags: rows x PJ cells and a flag per strip, where
	// the right slab runs.
	borderBytes := p.Rows*int64(max(pr.PJ, 1))*cs + 4*pr.Strips
	for k := 0; k < n; k++ {
		r := s.runOf(k, n)
		sp := &slabPart{c0: bounds[k], cw: bounds[k+1] - bounds[k]}
		sp.r = r
		s.parts = append(s.parts, sp)
		free, _, err := r.e.ctx.MemInfo()
		need := 2*int64(max(pr.PI, 1))*sp.cw*cs + 4*(pr.Strips+1) + borderBytes
		if err == nil && need > free {
			return hostmem.TooLarge(fmt.Sprintf("slab %d of %s", k, p.Name), need, free, "GPU memory on "+r.e.dev.Name, "")
		}
		if sp.bnd, err = r.alloc("strip edges", 2*int64(max(pr.PI, 1))*sp.cw*cs); err != nil {
			return err
		}
		if sp.prog, err = r.alloc("strip progress", 4*(pr.Strips+1)); err != nil {
			return err
		}
		if err := r.e.ctx.Memset32(sp.prog, 0, pr.Strips+1); err != nil {
			return err
		}
		sp.blocks = max(min(int64(fnOcc[r]*r.e.dev.SMs/slabsOn[r]), pr.Strips), 1)
		if pr.Answer == codegen.AnswerRegion {
			sp.nPartials = int(sp.blocks) * pr.StripWarps
			if sp.partials, err = r.allocPartials(sp.nPartials); err != nil {
				return err
			}
		}
		if err := sp.open(r, pr.Strips+1); err != nil {
			return err
		}
		if k == 0 {
			continue
		}
		// The border from slab k-1 into slab k.
		left := s.parts[k-1]
		if sp.lin, err = border(left.r, r, borderBytes, s.so.HostBorders, &s.shared); err != nil {
			return err
		}
		sp.lflag = sp.lin + cuda.DevicePtr(p.Rows*int64(max(pr.PJ, 1))*cs)
		left.lout, left.rfl = sp.lin, sp.lflag
	}
	return nil
}

// sweep launches every slab, left to right, and waits for all, with
// progress and cancellation.
func (s *slabRun) sweep() error {
	pr := s.prog
	fnOf := func(r *run) *cuda.Function { return r.mod.funcs[codegen.FuncStrip] }
	threads := uint32(32 * pr.StripWarps)
	for _, sp := range s.parts {
		r := sp.r
		if err := sp.start.Record(sp.stream); err != nil {
			return err
		}
		if err := r.e.ctx.Launch(fnOf(r), [3]uint32{uint32(sp.blocks), 1, 1}, [3]uint32{threads, 1, 1}, uint32(pr.StripSharedBytes), sp.stream,
			sp.bnd, sp.prog, sp.prog+cuda.DevicePtr(4*pr.Strips), sp.partials, cuda.DevicePtr(0), int64(0), cuda.DevicePtr(0), cuda.DevicePtr(0),
			cuda.DevicePtr(0), cuda.DevicePtr(0), sp.c0, sp.cw, sp.lin, sp.lflag, sp.lout, sp.rfl,
			int64(0), int32(0), int32(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0)); err != nil {
			return err
		}
		if err := sp.end.Record(sp.stream); err != nil {
			return err
		}
	}
	// stop makes every slab's kernel end early (through a second stream:
	// the kernels' streams are busy).
	stop := func() { stopAll(s.runs, s.abort) }
	tick := func() error {
		var done int64 // columns finished, summed over the strips of every slab
		for _, sp := range s.parts {
			cols, err := sp.counts(sp.prog, pr.Strips)
			if err != nil {
				return err
			}
			for _, c := range cols {
				done += int64(c)
			}
		}
		s.runs[0].progress(stripCells(pr, done)) // (without the tables' factor before: a third for Gotoh)
		return nil
	}
	if err := awaitParts(s.launches(), tick, stop); err != nil {
		return err
	}
	var err error
	s.compute, err = kernelSeconds(s.launches())
	return err
}

// owner is the run whose slab computes real column j.
func (s *slabRun) owner(j int64) *run {
	js := j
	if s.prog.Backward {
		js = s.p.Cols - 1 - j
	}
	for _, sp := range s.parts {
		if js >= sp.c0 && js < sp.c0+sp.cw {
			return sp.r
		}
	}
	return s.runs[0]
}

// answer assembles the answer from the slabs.
func (s *slabRun) answer(res *backend.Result) error {
	var parts []partialsOn
	for _, sp := range s.parts {
		parts = append(parts, partialsOn{sp.r, sp.partials, sp.nPartials})
	}
	return splitAnswer(s.p, s.pl, s.prog, res, func(_, j int64) *run { return s.owner(j) }, parts)
}
