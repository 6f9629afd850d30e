package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/genrun"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// What the ways of spreading one grid over several GPUs share — row bands
// (stripbands.go) or column slabs (slabs.go) of the strip kernel, row bands
// of the bit-parallel kernel (bitparbands.go): holding the executors,
// cutting by speed, the
// borders between GPUs, one launch per part on its own stream, waiting,
// stopping, timing, and the result's device line and statistics.

// lockAll locks the executors in order, each once (RunSlabs holds them all
// for its run).
func lockAll(exs []*Executor) (unlock func(), err error) {
	seen := map[*Executor]bool{}
	for _, e := range exs {
		if seen[e] {
			return nil, errors.New("gpu: RunSlabs was given one GPU twice; use SlabOptions.PerGPU")
		}
		seen[e] = true
	}
	var held []*Executor
	unlock = func() {
		for _, e := range held {
			e.mu.Unlock()
		}
	}
	for _, e := range exs {
		e.mu.Lock()
		held = append(held, e)
		if e.ctx == nil {
			unlock()
			return nil, errors.New("gpu: the executor is closed")
		}
	}
	return unlock, nil
}

// openRuns locks exs (lockAll) and opens one run of prog on each: its
// module (compiled or from the cache), inputs and allocations; stats has
// the compile's figures since compileStart. closeRuns releases the runs
// and unlocks.
func openRuns(ctx context.Context, exs []*Executor, p *ir.Problem, pl *plan.Plan, opt backend.Options, prog *codegen.Program, trace *phases.Timer,
	compileStart time.Time) (runs []*run, stats backend.Stats, closeRuns func(), err error) {
	unlock, err := lockAll(exs)
	if err != nil {
		return nil, stats, nil, err
	}
	closeRuns = func() {
		for k := len(runs) - 1; k >= 0; k-- {
			if runs[k] != nil {
				runs[k].release()
			}
		}
		unlock()
	}
	runs = make([]*run, len(exs))
	cached := true
	for g, e := range exs {
		mod, hit, err := e.load(prog)
		if err != nil {
			closeRuns()
			return nil, stats, nil, err
		}
		cached = cached && hit
		r := &run{e: e, ctx: ctx, p: p, pl: pl, opt: opt, prog: prog, mod: mod, trace: trace}
		runs[g] = r
		if err := r.setup(); err != nil {
			closeRuns()
			return nil, stats, nil, fmt.Errorf("GPU %d: %w", g, err)
		}
	}
	trace.Mark("compile+load")
	stats.CompileSeconds = time.Since(compileStart).Seconds()
	stats.CompileCached = cached
	return runs, stats, closeRuns, nil
}

// splitWeighted cuts 0 .. total-1 into parts, per on each GPU of exs, sized
// in proportion to the GPUs' speeds (multiprocessors x clock), each at
// least minW, inner boundaries at multiples of align; fewer parts where
// total is short. It returns the n+1 boundaries of n parts.
func splitWeighted(exs []*Executor, per int, total, minW, align int64) []int64 {
	var weights []float64
	var sum float64
	for _, e := range exs {
		speed := float64(e.dev.SMs) * float64(max(e.dev.ClockKHz, 1))
		for k := 0; k < per; k++ {
			weights = append(weights, speed)
			sum += speed
		}
	}
	n := len(weights)
	for n > 1 && int64(n)*minW > total {
		n--
	}
	if n < len(weights) {
		weights = weights[:n]
		sum = 0
		for _, w := range weights {
			sum += w
		}
	}
	b := []int64{0}
	acc := 0.0
	for k := 0; k < n-1; k++ {
		acc += weights[k]
		c := int64(float64(total)*acc/sum) / align * align
		c = max(c, b[len(b)-1]+minW)
		c = min(c, total-int64(n-1-k)*minW)
		b = append(b, c)
	}
	return append(b, total)
}

// border allocates bytes, zeroed, that the kernel on from's GPU writes and
// the kernel on to's GPU reads: device memory of to's GPU where from's can
// reach it (or is the same GPU) and hostOnly is not set, else pinned host
// memory mapped into both, added to *hosts for the caller to free.
func border(from, to *run, bytes int64, hostOnly bool, hosts *[]*cuda.HostBuffer) (cuda.DevicePtr, error) {
	peer := !hostOnly
	if peer && from.e != to.e {
		ok, err := from.e.ctx.EnablePeer(to.e.ctx)
		if err != nil {
			return 0, err
		}
		peer = ok
	}
	if peer {
		p, err := to.alloc("border between GPUs", bytes)
		if err != nil {
			return 0, err
		}
		return p, to.e.ctx.Memset8(p, 0, bytes)
	}
	h, err := to.e.ctx.HostAllocShared(bytes)
	if err != nil {
		return 0, outOfMemory(fmt.Errorf("pinning %s of host memory for a border between GPUs: %w", mb(bytes), err))
	}
	*hosts = append(*hosts, h)
	clear(h.Bytes())
	return h.DevicePtr()
}

// stopAll makes the kernels on the GPUs of runs end early: dp_abort set from
// each run's pinned word in aborts, through the GPU's second stream (the
// kernels' own streams are busy).
func stopAll(runs []*run, aborts map[*run]*cuda.HostBuffer) {
	for _, r := range runs {
		h := aborts[r]
		cuda.HostSlice[int32](h)[0] = 1
		r.e.ctx.CopyHtoDAsync(r.mod.globals[codegen.SymAbort], h.Ptr(), 4, r.e.s2)
		r.e.s2.Synchronize()
	}
}

// part is one launch of a split run: its GPU's run, its stream, the events
// around it and a pinned buffer the host reads its progress into.
type part struct {
	r          *run
	stream     *cuda.Stream
	start, end *cuda.Event
	poll       *cuda.HostBuffer
}

// open gives p a stream, its events and pollInts ints of pinned memory on
// r's GPU.
func (p *part) open(r *run, pollInts int64) error {
	p.r = r
	var err error
	if p.stream, err = r.e.ctx.NewStream(); err != nil {
		return err
	}
	if p.start, err = r.event(); err != nil {
		return err
	}
	if p.end, err = r.event(); err != nil {
		return err
	}
	p.poll, err = r.hostAlloc(4 * pollInts)
	return err
}

// counts copies n ints from src on p's GPU into p.poll (through the GPU's
// second stream, the kernels' being busy) and returns them.
func (p *part) counts(src cuda.DevicePtr, n int64) ([]int32, error) {
	e := p.r.e
	if err := e.ctx.CopyDtoHAsync(p.poll.Ptr(), src, 4*n, e.s2); err != nil {
		return nil, err
	}
	if err := e.s2.Synchronize(); err != nil {
		return nil, fmt.Errorf("running %s on %s: %w", p.r.p.Name, e.dev.Name, err)
	}
	return cuda.HostSlice[int32](p.poll)[:n], nil
}

// closeParts waits for the parts' streams and destroys them.
func closeParts(ps []*part) {
	for _, p := range ps {
		if p.stream != nil {
			p.stream.Synchronize()
			p.stream.Destroy()
		}
	}
}

// awaitParts waits for every part, the last first (it ends last), calling
// tick for progress; on cancellation or a failed tick it calls stop and
// returns the reason.
func awaitParts(ps []*part, tick func() error, stop func()) error {
	for k := len(ps) - 1; k >= 0; k-- {
		if err := ps[k].r.awaitKernel(ps[k].end, tick, stop); err != nil {
			if cerr := ps[k].r.ctx.Err(); cerr != nil {
				return cerr
			}
			return err
		}
	}
	return nil
}

// kernelSeconds is the longest span of the parts: from the first part's
// start to each part's end on the first part's GPU, a part's own span on
// another GPU (events of different GPUs do not compare).
func kernelSeconds(ps []*part) (float64, error) {
	var longest float64
	for _, p := range ps {
		from := ps[0].start
		if p.r.e != ps[0].r.e {
			from = p.start
		}
		ms, err := cuda.Elapsed(from, p.end)
		if err != nil {
			return 0, err
		}
		longest = max(longest, float64(ms)/1e3)
	}
	return longest, nil
}

// splitDevice is the result's device line of a run split into n parts
// (what: "column slabs", "launches of row bands", ...) over exs.
func splitDevice(exs []*Executor, n int, what string) string {
	if len(exs) == 1 {
		return fmt.Sprintf("%s, %d %s", exs[0].Device(), n, what)
	}
	var names []string
	for _, e := range exs {
		names = append(names, e.dev.Name)
	}
	return fmt.Sprintf("%d GPUs, %d %s: %s", len(exs), n, what, strings.Join(names, "; "))
}

// splitStats completes res with stats (the compile's figures already in
// it) and the split run's: the runs' device and host memory, the kernels'
// time compute, the cells and the wall time since start.
func splitStats(res *backend.Result, stats backend.Stats, runs []*run, p *ir.Problem, compute float64, start time.Time) *backend.Result {
	for _, r := range runs {
		stats.DeviceBytes += r.devBytes
		stats.PeakHostBytes += r.hostBytes
	}
	stats.ComputeSeconds = compute
	stats.Cells = p.Cells()
	stats.Seconds = time.Since(start).Seconds()
	res.Stats = stats
	return res
}

// partialsOn is one launch's partial answers (region answers): n slots at
// ptr on r's GPU.
type partialsOn struct {
	r   *run
	ptr cuda.DevicePtr
	n   int
}

// splitAnswer assembles the answer of a split run: the answer cell from
// the GPU whose part computed it (owner of its real row and column), a
// region's partials from every part, captured cells each from the GPU that
// computed it.
func splitAnswer(p *ir.Problem, pl *plan.Plan, pr *codegen.Program, res *backend.Result, owner func(i, j int64) *run, parts []partialsOn) error {
	a := pl.Answer
	switch pr.Answer {
	case codegen.AnswerCell:
		return owner(a.I, a.J).answer(res)
	case codegen.AnswerRegion:
		var acc genrun.Part
		for _, pt := range parts {
			raw, err := pt.r.readDevice(pt.ptr, int64(pt.n)*codegen.PartBytes)
			if err != nil {
				return err
			}
			for k := 0; k < pt.n; k++ {
				acc = genrun.Fold(a.Op, p.CellType.IsFloat(), acc, genrun.DecodePart(raw[k*codegen.PartBytes:]))
			}
		}
		if err := genrun.RegionAnswer(p, a, acc, res); err != nil {
			return err
		}
		return eval.CheckAnswer(p, res.Answer)
	}
	cs := int64(p.CellType.Size())
	raws := map[*run][]byte{}
	got := map[[2]int64]ir.Value{}
	for k, c := range pr.Captures {
		r := owner(c[0], c[1])
		raw, ok := raws[r]
		if !ok {
			var err error
			if raw, err = r.readDevice(r.mod.globals[codegen.SymCapture], int64(len(pr.Captures))*cs); err != nil {
				return err
			}
			raws[r] = raw
		}
		got[c] = r.value(raw[int64(k)*cs:])
	}
	v, err := eval.Eval(a.Expr, backend.Captured(p, got))
	if err != nil {
		return err
	}
	res.Answer = v
	return eval.CheckAnswer(p, v)
}

// splitError prefers, to err, a device error of runs (the first, in GPU
// order) and then the run's cancellation, which err may only follow from.
func splitError(ctx context.Context, runs []*run, err error) error {
	if derr := runsError(runs); derr != nil {
		return derr
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// runsError is the first device error of runs, in GPU order.
func runsError(runs []*run) error {
	for _, r := range runs {
		if err := r.deviceError(); err != nil {
			return err
		}
	}
	return nil
}
