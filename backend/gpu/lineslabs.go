package gpu

import (
	"context"
	"fmt"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/mathtab"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// Rows and cols schedules over several GPUs (issue #15), or several
// launches on one: the line's positions are cut into slabs, one a launch,
// each with a ring of lines of its own, and the lines are computed in
// passes of k lines (dp_linepass, linepass.go) on every slab at once. A
// pass reads, around its slab's positions, those that its k lines reach
// (k times the reach on each side); after each pass, each slab's ring
// receives them, in the pass's last Reach lines, from the rings of the
// slabs that own them: a device-to-device copy on one GPU, a peer copy
// between two (cuMemcpyPeerAsync over NVLink or PCIe, staged by the driver
// where the GPUs cannot reach each other). No slab's next pass starts
// before every slab's copies of the pass before have ended, so that no
// pass overwrites lines another slab still copies. The 0/1 knapsack's
// lines go through the devices' memory once a pass, and only the slabs'
// edges between the GPUs, k reaches wide, once a pass.

// minPassCellsPerGPU is the fewest cells a pass gives each GPU for the
// lines to be split over several (SlabOptions.Always splits anyway). After
// every pass the GPUs wait for each other and copy their slabs' edges: on
// one H200 a pass's events alone cost some 4 us (10,000 x 1,000,000 knapsack,
// passes of 6 lines: 41.3 ms unsplit, 47.3 ms as one slab), and a peer copy
// and a wait across GPUs more (not measured), against some 25 us of compute a
// pass of 6 million cells on one GPU. Not measured on several GPUs (none
// was lent when this was written): an estimate that keeps the split to
// passes of about a hundred microseconds or more a GPU.
const minPassCellsPerGPU = 1 << 25

// lineSlab is one slab's launch.
type lineSlab struct {
	part
	qb, qe       int64 // its positions
	lp           linePass
	ring         cuda.DevicePtr
	partials     cuda.DevicePtr // its blocks' partial answers (region answers)
	nPartials    int
	done, copied *cuda.Event // its pass has ended; its copies in have
}

// lineSlabRun is the state of one split line sweep.
type lineSlabRun struct {
	ctx     context.Context
	p       *ir.Problem
	pl      *plan.Plan
	prog    *codegen.Program
	runs    []*run
	slabs   []*lineSlab
	k       int64 // lines a pass
	slots   int   // lines in each ring
	marks   [2]*cuda.Event
	compute float64
}

// passesAhead is how many passes the host queues before it waits for the
// group before (sweep).
const passesAhead = 32

// lineSplitWhyNot is why p's rows or cols schedule is not split over
// launches before its program is known ("" where it may be): the run
// keeps the grid or chosen rows (runLineSlabs checks the program's
// answer and reach).
func lineSplitWhyNot(p *ir.Problem, opt backend.Options) string {
	switch {
	case opt.KeepGrid(p) || len(opt.KeepRows) > 0 || opt.KeepOnDevice:
		return "it keeps the grid (traceback, --grid, maintain), which one GPU does"
	}
	return ""
}

// runLineSlabs solves p, a rows or cols schedule, in slabs of its lines'
// positions over exs (per launches on each); one(why) runs it on the
// first GPU where it is not split.
func runLineSlabs(ctx context.Context, exs []*Executor, p *ir.Problem, pl *plan.Plan, opt backend.Options, so SlabOptions, one func(string) (*backend.Result, error)) (*backend.Result, error) {
	per := max(so.PerGPU, 1)
	if why := lineSplitWhyNot(p, opt); why != "" {
		return one(why)
	}
	start := time.Now()
	if err := backend.Start(ctx, p); err != nil {
		return nil, err
	}
	// Math of one index from tables, as one GPU's run does (gpu.go).
	if q, ok := mathtab.Tables(p, exs[0].tableBudget()); ok {
		p = q
	}
	compileStart := time.Now()
	trace := phases.Start(p.Name)
	prog, err := exs[0].generate(p, pl, opt)
	if err != nil {
		return nil, err
	}
	switch {
	case prog.Kernel != codegen.KernelLine:
		return one(fmt.Sprintf("the %s kernel is not split", prog.Kernel))
	case prog.Answer == codegen.AnswerCapture:
		return one("its answer is an expression over several cells")
	case prog.Answer == codegen.AnswerRegion && prog.RegionOp == ir.ReduceSum:
		return one("its answer is a sum over a region, whose cells around the slabs' edges two slabs compute")
	case prog.LineLeft < 0 || prog.LineRight < 0:
		return one("its cells read anywhere in the line before")
	}
	bounds, tws, k, why := lineSlabShapes(exs, per, prog, int64(p.CellType.Size()))
	if why != "" {
		return one(why)
	}
	if cells := k * prog.Width / int64(len(exs)); len(exs) > 1 && cells < minPassCellsPerGPU && !so.Always {
		return one(fmt.Sprintf("a pass of %d lines is %d cells a GPU, too few to pay for the exchange between GPUs after each", k, cells))
	}
	trace.Mark("generate")
	runs, stats, closeRuns, err := openRuns(ctx, exs, p, pl, opt, prog, trace, compileStart)
	if err != nil {
		return nil, err
	}
	defer closeRuns()
	s := &lineSlabRun{ctx: ctx, p: p, pl: pl, prog: prog, runs: runs, k: k}
	defer s.close()
	if err := s.prepare(bounds, tws); err != nil {
		return nil, splitError(ctx, runs, err)
	}
	if err := s.sweep(); err != nil {
		return nil, splitError(ctx, runs, err)
	}
	if err := runsError(runs); err != nil {
		return nil, err
	}
	res := &backend.Result{Backend: "cuda", Device: splitDevice(exs, len(s.slabs), fmt.Sprintf("slabs of the lines' positions (passes of %d lines)", s.k))}
	if err := backend.Finish(p, opt, res, s.answer, traceback.Trace); err != nil {
		return nil, err
	}
	trace.Mark("sweep+answer")
	return splitStats(res, stats, runs, p, s.compute, start), nil
}

func (s *lineSlabRun) close() {
	closeParts(s.launches())
}

func (s *lineSlabRun) launches() []*part {
	ps := make([]*part, len(s.slabs))
	for k, sl := range s.slabs {
		ps[k] = &sl.part
	}
	return ps
}

// lineSlabShapes cuts the lines' positions into slabs, per on each GPU of
// exs, and gives each the positions a block of its passes owns (tws: its
// share of its GPU's multiprocessors); the passes, run together, are all
// of k lines, the least any slab allows; why says why the lines are not
// split (too narrow for passes on every slab).
func lineSlabShapes(exs []*Executor, per int, pr *codegen.Program, cs int64) (bounds, tws []int64, k int64, why string) {
	bounds = splitWeighted(exs, per, pr.Width, minPassTile, 32)
	n := len(bounds) - 1
	if n < 2 && len(exs)*per > 1 {
		return nil, nil, 0, fmt.Sprintf("lines of %d positions are too narrow to split", pr.Width)
	}
	on := map[*Executor]int{}
	for g := 0; g < n; g++ {
		on[exs[g*len(exs)/n]]++
	}
	k = maxPassLines
	for g := 0; g < n; g++ {
		e := exs[g*len(exs)/n]
		w := bounds[g+1] - bounds[g]
		// The ring (every slab's holds the whole width) within the budget
		// of one run's ring on that GPU.
		if e.ctx == nil {
			return nil, nil, 0, "the executor is closed"
		}
		budget := e.lineRingBudget()
		lp := chooseLinePass(passFacts{
			width: w, lines: pr.Lines, reach: int64(pr.Reach), left: pr.LineLeft, right: pr.LineRight,
			cellBytes: cs, sms: max(e.dev.SMs/on[e], 1), sharedBlock: int64(e.dev.MaxSharedPerBlockOptin), sharedSM: int64(e.dev.MaxSharedPerSM),
			budget: max(budget*w/(pr.Width*int64(on[e])), 1),
		}, &e.cfg)
		if lp == nil {
			return nil, nil, 0, "its lines do not run in passes on every slab (too narrow, or reading too far across the line)"
		}
		tws = append(tws, lp.tw)
		k = min(k, lp.k)
	}
	return bounds, tws, k, ""
}

// prepare allocates each slab's ring, partials and events for the slabs
// of bounds, whose passes (of s.k lines) have blocks owning tws positions.
func (s *lineSlabRun) prepare(bounds, tws []int64) error {
	pr := s.prog
	cs := int64(s.p.CellType.Size())
	n := len(bounds) - 1
	runOf := func(g int) *run { return s.runs[g*len(s.runs)/n] }
	s.slots = pr.Reach + int(s.k) // nothing a pass reads is overwritten in it
	need := int64(s.slots) * pr.Width * cs
	shared := map[*run]int{}
	for g := 0; g < n; g++ {
		r := runOf(g)
		lp := newLinePass(passFacts{width: bounds[g+1] - bounds[g], reach: int64(pr.Reach), left: pr.LineLeft, right: pr.LineRight, cellBytes: cs},
			tws[g], s.k)
		lp.fn = r.mod.funcs[codegen.FuncLinePass]
		if lp.fn == nil {
			return fmt.Errorf("gpu: the line program of %s has no pass kernel", s.p.Name)
		}
		shared[r] = max(shared[r], lp.shared)
		sl := &lineSlab{qb: bounds[g], qe: bounds[g+1], lp: lp}
		if free, _, err := r.e.ctx.MemInfo(); err == nil && need > free {
			return hostmem.TooLarge(fmt.Sprintf("slab %d of the lines of %s", g, s.p.Name), need, free, "GPU memory on "+r.e.dev.Name, "")
		}
		var err error
		if sl.ring, err = r.alloc("line buffers", need); err != nil {
			return err
		}
		if pr.Answer == codegen.AnswerRegion {
			sl.nPartials = lp.blocks
			if sl.partials, err = r.allocPartials(sl.nPartials); err != nil {
				return err
			}
		}
		if err := sl.open(r, 1); err != nil {
			return err
		}
		if sl.done, err = r.waitEvent(); err != nil {
			return err
		}
		if sl.copied, err = r.waitEvent(); err != nil {
			return err
		}
		s.slabs = append(s.slabs, sl)
	}
	for r, b := range shared {
		if err := r.mod.funcs[codegen.FuncLinePass].SetMaxDynamicShared(b); err != nil {
			return err
		}
	}
	return nil
}

// sweep queues every pass on every slab and the copies between them, then
// waits for all.
func (s *lineSlabRun) sweep() error {
	pr := s.prog
	cs := int64(s.p.CellType.Size())
	for _, sl := range s.slabs {
		if err := sl.start.Record(sl.stream); err != nil {
			return err
		}
	}
	for k := range s.marks {
		var err error
		if s.marks[k], err = s.slabs[0].r.waitEvent(); err != nil {
			return err
		}
		if err := s.marks[k].Record(s.slabs[0].stream); err != nil {
			return err
		}
	}
	passes := 0
	for L := int64(0); L < pr.Lines; L += s.k {
		end := min(L+s.k, pr.Lines)
		for _, sl := range s.slabs {
			if L > 0 {
				for _, o := range s.slabs {
					if err := sl.stream.WaitEvent(o.copied); err != nil {
						return err
					}
				}
			}
			r := sl.r
			grid, block := [3]uint32{uint32(sl.lp.blocks), 1, 1}, [3]uint32{passThreads, 1, 1}
			if err := r.e.ctx.Launch(sl.lp.fn, grid, block, uint32(sl.lp.shared), sl.stream, L, int32(end-L), sl.ring, int32(s.slots), sl.partials,
				sl.lp.tw, sl.lp.sw, pr.LineLeft, pr.LineRight, sl.qb, sl.qe); err != nil {
				return err
			}
			if err := sl.done.Record(sl.stream); err != nil {
				return err
			}
		}
		next := min(s.k, pr.Lines-end) // the next pass's lines
		if next > 0 {
			if err := s.exchange(end, next, cs); err != nil {
				return err
			}
		}
		passes++
		if passes%passesAhead == 0 {
			// At most two groups of passes queued: the host waits for the
			// group before this one, so that progress is the GPUs' and
			// Ctrl-C waits for no more than that.
			m := s.marks[(passes/passesAhead)%2]
			if err := m.Record(s.slabs[0].stream); err != nil {
				return err
			}
			if err := s.marks[(passes/passesAhead+1)%2].Synchronize(); err != nil {
				return err
			}
			if err := s.ctx.Err(); err != nil {
				return err
			}
			s.runs[0].progress(max(end-passesAhead*s.k, 0) * pr.Width)
		}
	}
	for _, sl := range s.slabs {
		if err := sl.end.Record(sl.stream); err != nil {
			return err
		}
	}
	tick := func() error { return nil }
	if err := awaitParts(s.launches(), tick, func() {}); err != nil {
		return err
	}
	s.runs[0].progress(s.p.Cells())
	var err error
	s.compute, err = kernelSeconds(s.launches())
	return err
}

// exchange queues, on each slab's stream, the copies of the positions
// around it that the next pass (of next lines) reads, from the slabs that
// computed them in the pass that ended at line end, and records its copied
// event.
func (s *lineSlabRun) exchange(end, next, cs int64) error {
	pr := s.prog
	for _, sl := range s.slabs {
		lo, hi := max(sl.qb-next*pr.LineLeft, 0), min(sl.qe+next*pr.LineRight, pr.Width)
		for _, o := range s.slabs {
			a, b := max(lo, o.qb), min(hi, o.qe)
			if o == sl || a >= b {
				continue
			}
			if err := sl.stream.WaitEvent(o.done); err != nil {
				return err
			}
			for d := int64(0); d < int64(pr.Reach) && d < s.k; d++ {
				L := end - 1 - d
				if L < 0 {
					break
				}
				off := cuda.DevicePtr(((L%int64(s.slots))*pr.Width + a) * cs)
				if err := sl.r.e.ctx.CopyAsync(sl.ring+off, o.ring+off, o.r.e.ctx, (b-a)*cs, sl.stream); err != nil {
					return err
				}
			}
		}
		if err := sl.copied.Record(sl.stream); err != nil {
			return err
		}
	}
	return nil
}

// answer assembles the answer: the answer cell from the slab that owns
// its position, a region's partials from every slab.
func (s *lineSlabRun) answer(res *backend.Result) error {
	var parts []partialsOn
	for _, sl := range s.slabs {
		parts = append(parts, partialsOn{sl.r, sl.partials, sl.nPartials})
	}
	owner := func(i, j int64) *run {
		q := j
		if s.pl.Schedule == plan.Cols {
			q = i
		}
		for _, sl := range s.slabs {
			if q >= sl.qb && q < sl.qe {
				return sl.r
			}
		}
		return s.runs[0]
	}
	return splitAnswer(s.p, s.pl, s.prog, res, owner, parts)
}
