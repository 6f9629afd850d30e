package gpu

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The bit-parallel kernel over row bands (templates/bitpar.cu): each band
// a launch over a run of strips, its first strip following the last strip
// of the band above through the links that strip writes into this band's
// memory. Column bands, as the strip kernel splits, would gain nothing:
// measured on two H200s, LCS 4,194,304², 0.66 s against 0.72 s on one —
// a GPU holds all its strips at once, and a slab cannot start strip s
// before the slab on its left has finished it.

// bitparBand is one band of a split bit-parallel run.
type bitparBand struct {
	part
	s0, s1     int64 // strips
	cbuf       cuda.DevicePtr
	state      cuda.DevicePtr // progress per strip, ticket, acc, track
	blocks     int64
	lin, lflag cuda.DevicePtr // links from the band above (0 for the first)
	lout, rfl  cuda.DevicePtr // links to the band below (0 for the last)
}

// runBitparBands runs job (both sequences non-empty) over the GPUs of exs
// in row bands.
func runBitparBands(ctx context.Context, exs []*Executor, p *ir.Problem, pl *plan.Plan, opt backend.Options, so SlabOptions, job *bitparJob) (*backend.Result, error) {
	start := time.Now()
	if err := backend.Start(ctx, p); err != nil {
		return nil, err
	}
	per := max(so.PerGPU, 1)
	n, m := int64(len(job.rows)), int64(len(job.cols))
	in := job.in
	strips := int64(in.Strips)
	bounds := bandBounds(exs, per, strips)
	unlock, err := lockAll(exs)
	if err != nil {
		return nil, err
	}
	defer unlock()
	trace := phases.Start(p.Name)
	compileStart := time.Now()
	cw := codegen.BitparCW(strips, exs[0].dev.SMs)
	prog, err := codegen.GenerateBitpar(p.Name, codegen.Bitpar{Kind: job.sp.Kind, Sigma: in.Sigma, Track: job.track, CW: cw, Bands: true})
	if err != nil {
		return nil, err
	}
	chunks := max((m+int64(cw)-1)/int64(cw), 1)
	borderBytes := 4*chunks + 4 // the links of a strip and their count
	progBytes := (4*(strips+1) + 7) &^ 7
	nbands := len(bounds) - 1
	var stats backend.Stats
	runs := make([]*run, len(exs))
	cached := true
	bandsOn := map[*run]int{}
	for g, e := range exs {
		r := &run{e: e, ctx: ctx, p: p, pl: pl, opt: opt, trace: trace}
		runs[g] = r
		defer r.release()
		mod, hit, err := e.load(prog)
		if err != nil {
			return nil, err
		}
		cached = cached && hit
		r.prog, r.mod = prog, mod
	}
	stats.CompileSeconds = time.Since(compileStart).Seconds()
	stats.CompileCached = cached
	trace.Mark("generate+compile+load")
	runOf := func(k int) *run { return runs[k*len(runs)/nbands] }
	for k := 0; k < nbands; k++ {
		bandsOn[runOf(k)]++
	}
	// Memory on each GPU, before allocating: the masks and codes, and per
	// band its links, progress and border.
	for _, r := range runs {
		k := int64(bandsOn[r])
		need := int64(len(in.Peq))*8 + int64(len(in.Codes)) + k*(8*chunks+progBytes+24+borderBytes)
		if free, _, err := r.e.ctx.MemInfo(); err == nil && need > free {
			return nil, hostmem.TooLarge(fmt.Sprintf("solving %s on the GPUs (%s, %d row bands)", p.Name, job.sp.Kind, nbands), need, free, "GPU memory on "+r.e.dev.Name, "")
		}
	}
	peqs, codes := map[*run]cuda.DevicePtr{}, map[*run]cuda.DevicePtr{}
	aborts := map[*run]*cuda.HostBuffer{}
	for _, r := range runs {
		e := r.e
		zero := int32(0)
		if err := e.ctx.CopyHtoD(r.mod.globals[codegen.SymAbort], unsafe.Pointer(&zero), 4); err != nil {
			return nil, err
		}
		if peqs[r], err = r.alloc("match masks", int64(len(in.Peq))*8); err != nil {
			return nil, err
		}
		if err := cuda.CopyToDevice(e.ctx, peqs[r], in.Peq); err != nil {
			return nil, err
		}
		if codes[r], err = r.alloc("column codes", int64(len(in.Codes))); err != nil {
			return nil, err
		}
		if err := cuda.CopyToDevice(e.ctx, codes[r], in.Codes); err != nil {
			return nil, err
		}
		if aborts[r], err = r.hostAlloc(4); err != nil {
			return nil, err
		}
	}
	var shared []*cuda.HostBuffer
	defer func() {
		for _, h := range shared {
			h.Free()
		}
	}()
	threads := 32 * prog.Bitpar.Warps
	var bands []*bitparBand
	var launches []*part
	defer func() { closeParts(launches) }()
	occ := map[*run]int{}
	for _, r := range runs {
		k, err := r.mod.funcs[codegen.FuncBitpar].MaxActiveBlocksPerSM(threads, 0)
		if err != nil {
			return nil, err
		}
		if k < 1 {
			return nil, fmt.Errorf("the bit-parallel kernel cannot run a block of %d threads on %s", threads, r.e.dev.Name)
		}
		occ[r] = k
	}
	for k := 0; k < nbands; k++ {
		r := runOf(k)
		e := r.e
		sl := &bitparBand{s0: bounds[k], s1: bounds[k+1]}
		sl.r = r
		bands = append(bands, sl)
		launches = append(launches, &sl.part)
		if sl.cbuf, err = r.alloc("strip links", 8*chunks); err != nil {
			return nil, err
		}
		if sl.state, err = r.alloc("strip progress", progBytes+24); err != nil {
			return nil, err
		}
		if err := e.ctx.Memset8(sl.state, 0, progBytes+24); err != nil {
			return nil, err
		}
		sl.blocks = max(min(int64(occ[r]*e.dev.SMs/bandsOn[r]), (sl.s1-sl.s0+int64(prog.Bitpar.Warps)-1)/int64(prog.Bitpar.Warps)), 1)
		if err := sl.open(r, strips+1); err != nil {
			return nil, err
		}
		if k == 0 {
			continue
		}
		left := bands[k-1]
		if sl.lin, err = border(left.r, r, borderBytes, so.HostBorders, &shared); err != nil {
			return nil, err
		}
		sl.lflag = sl.lin + cuda.DevicePtr(4*chunks)
		left.lout, left.rfl = sl.lin, sl.lflag
	}
	trace.Mark("upload")
	tw := (n - 1) / 64
	for _, sl := range bands {
		r := sl.r
		if err := sl.start.Record(sl.stream); err != nil {
			return nil, err
		}
		progP, ticket := sl.state, sl.state+cuda.DevicePtr(4*strips)
		accP := sl.state + cuda.DevicePtr(progBytes)
		if err := r.e.ctx.Launch(r.mod.funcs[codegen.FuncBitpar], [3]uint32{uint32(sl.blocks), 1, 1}, [3]uint32{uint32(threads), 1, 1}, 0, sl.stream,
			peqs[r], codes[r], sl.cbuf, progP, ticket, accP, accP+8, n, m, int32(strips), int32(chunks), tw,
			job.lo, job.hi, int32(sl.s0), int32(sl.s1), sl.lin, sl.lflag, sl.lout, sl.rfl); err != nil {
			return nil, err
		}
		if err := sl.end.Record(sl.stream); err != nil {
			return nil, err
		}
	}
	stop := func() { stopAll(runs, aborts) }
	tick := func() error {
		var steps int64 // steps finished, summed over the strips of every band
		for _, sl := range bands {
			done, err := sl.counts(sl.state, strips)
			if err != nil {
				return err
			}
			for _, c := range done[sl.s0:sl.s1] {
				steps += int64(c)
			}
		}
		runs[0].progress(steps * int64(cw) * 2048)
		return nil
	}
	if err := awaitParts(launches, tick, stop); err != nil {
		return nil, err
	}
	compute, err := kernelSeconds(launches)
	if err != nil {
		return nil, err
	}
	trace.Mark("sweep")
	// The last column's sum over all bands; the best of row n from the
	// band holding it.
	var sum, best, bestJ int64
	for _, sl := range bands {
		out := make([]int64, 3)
		if err := cuda.CopyFromDevice(sl.r.e.ctx, out, sl.state+cuda.DevicePtr(progBytes)); err != nil {
			return nil, err
		}
		sum += out[0]
		if s := tw / 32; s >= sl.s0 && s < sl.s1 {
			best, bestJ = out[1], out[2]
		}
	}
	if job.track && bestJ < 0 {
		return nil, fmt.Errorf("internal error: the bit-parallel kernel of %s did not report row %d", p.Name, n)
	}
	last := codegen.BitparAnswer(job.sp.Kind, n, m, sum)
	res := &backend.Result{Backend: "cuda", Special: job.sp, Device: splitDevice(exs, nbands, "row bands")}
	if err := backend.Finish(p, opt, res, bitparAnswer(p, pl, job, last, best, bestJ), traceback.Trace); err != nil {
		return nil, err
	}
	return splitStats(res, stats, runs, p, compute, start), nil
}

// bandBounds cuts strips into row bands: per on each GPU, in proportion to
// the GPUs' speeds, at least a strip each; fewer where there are fewer
// strips. It returns the n+1 boundaries of n bands.
func bandBounds(exs []*Executor, per int, strips int64) []int64 {
	return splitWeighted(exs, per, strips, 1, 1)
}
