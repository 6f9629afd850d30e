package gpu

import (
	"context"
	"fmt"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The strip kernel over several launches in row bands (DP_BANDS in
// templates/strip.cu), the default way one grid spreads over several GPUs:
// the strips are dealt round-robin in bands of chunk strips, band b to
// launch b % n, so that every launch sweeps from the start and the
// wavefront of strips runs across all GPUs at once. A band's last strip
// writes its bottom rows and progress into the next launch's link (device
// memory of that launch's GPU through peer access, or mapped host memory),
// which that launch's next band's first strip reads where it would read a
// strip of its own. Only one strip in chunk crosses between GPUs, so the
// links carry a grid row every chunk*StripRows rows.
//
// Column slabs (slabs.go) cost a strip sweep of delay per slab: on four
// H100s, LCS 4,194,304², 0.74 per GPU. Bands cost the chain of strips,
// which the one-GPU kernel pays too.

// stripBand is one launch of a banded run.
type stripBand struct {
	part
	bnd, prog   cuda.DevicePtr // its strips' bottom rows and progress (and ticket)
	lbnd, lprog cuda.DevicePtr // its link: from the last strip of each band above its bands
	partials    cuda.DevicePtr // its warps' partial answers (region answers)
	nPartials   int
	blocks      int64
}

// bandRun is the state of one banded sweep.
type bandRun struct {
	ctx     context.Context
	p       *ir.Problem
	pl      *plan.Plan
	opt     backend.Options
	prog    *codegen.Program
	runs    []*run // by GPU
	so      SlabOptions
	bands   []*stripBand
	chunk   int64
	shared  []*cuda.HostBuffer // host-memory links
	abort   map[*run]*cuda.HostBuffer
	compute float64
}

// run sweeps the grid and assembles the result.
func (b *bandRun) run() (*backend.Result, error) {
	if err := b.prepare(); err != nil {
		return nil, splitError(b.ctx, b.runs, err)
	}
	if err := b.sweep(); err != nil {
		return nil, splitError(b.ctx, b.runs, err)
	}
	if err := runsError(b.runs); err != nil {
		return nil, err
	}
	var gpus []*Executor
	for _, r := range b.runs {
		for _, sb := range b.bands {
			if sb.r == r {
				gpus = append(gpus, r.e)
				break
			}
		}
	}
	res := &backend.Result{Backend: "cuda", Device: splitDevice(gpus, len(b.bands), fmt.Sprintf("launches of row bands (%d strips a band)", b.chunk))}
	if err := backend.Finish(b.p, b.opt, res, b.answer, traceback.Trace); err != nil {
		return nil, err
	}
	return res, nil
}

func (b *bandRun) close() {
	closeParts(b.launches())
	for _, h := range b.shared {
		h.Free()
	}
}

// launches is the bands' launches.
func (b *bandRun) launches() []*part {
	ps := make([]*part, len(b.bands))
	for k, sb := range b.bands {
		ps[k] = &sb.part
	}
	return ps
}

// bandChunk is the strips a band for n launches of blocks resident blocks
// each over strips strips: rounds of n bands, each band at most a launch's
// resident blocks (a band's strips run as one wave), as few rounds as that
// allows, the bands of equal size.
func bandChunk(strips, blocks int64, n int) int64 {
	per := int64(n) * max(blocks, 1)
	rounds := max((strips+per-1)/per, 1)
	return max((strips+int64(n)*rounds-1)/(int64(n)*rounds), 1)
}

// prepare allocates every launch's buffers and links.
func (b *bandRun) prepare() error {
	pr, p := b.prog, b.p
	cs := int64(p.CellType.Size())
	n := len(b.runs) * max(b.so.PerGPU, 1)
	n = int(min(int64(n), pr.Strips))
	threads := 32 * pr.StripWarps
	launchesOn := map[*run]int{}
	for k := 0; k < n; k++ {
		launchesOn[b.runOf(k, n)]++
	}
	occ := map[*run]int{}
	for _, r := range b.runs {
		// Every GPU's stop word (stopAll sets them all), also where fewer
		// launches than GPUs leave one without.
		h, err := r.hostAlloc(4)
		if err != nil {
			return err
		}
		b.abort[r] = h
		if launchesOn[r] == 0 {
			continue
		}
		fn := r.mod.funcs[codegen.FuncStrip]
		o, err := fn.MaxActiveBlocksPerSM(threads, pr.StripSharedBytes)
		if err != nil {
			return err
		}
		if o < 1 {
			return fmt.Errorf("the strip kernel of %s cannot run a block of %d threads on %s", p.Name, threads, r.e.dev.Name)
		}
		occ[r] = o
		if err := r.zeroStripCaptures(); err != nil {
			return err
		}
	}
	edges := 2 * int64(max(pr.PI, 1)) * pr.Cols * cs // as the one-GPU sweep: 2 x PI x COLS (flat columns)
	edges = (edges + 7) &^ 7
	progBytes := 4 * (pr.Strips + 1)
	linkBytes := edges + 4*pr.Strips
	minBlocks := pr.Strips
	for k := 0; k < n; k++ {
		r := b.runOf(k, n)
		sb := &stripBand{}
		b.bands = append(b.bands, sb)
		// All launches of a GPU resident at once: a waiting one never
		// holds the multiprocessors another needs.
		sb.blocks = max(min(int64(occ[r]*r.e.dev.SMs/launchesOn[r]), pr.Strips), 1)
		minBlocks = min(minBlocks, sb.blocks)
		need := edges + progBytes + linkBytes
		if free, _, err := r.e.ctx.MemInfo(); err == nil && need > free {
			return hostmem.TooLarge(fmt.Sprintf("launch %d of %s", k, p.Name), need, free, "GPU memory on "+r.e.dev.Name, "")
		}
		var err error
		if sb.bnd, err = r.alloc("strip edges", edges); err != nil {
			return err
		}
		if sb.prog, err = r.alloc("strip progress", progBytes); err != nil {
			return err
		}
		if err := r.e.ctx.Memset32(sb.prog, 0, pr.Strips+1); err != nil {
			return err
		}
		if pr.Answer == codegen.AnswerRegion {
			sb.nPartials = int(sb.blocks) * pr.StripWarps
			if sb.partials, err = r.allocPartials(sb.nPartials); err != nil {
				return err
			}
		}
		if err := sb.open(r, pr.Strips+1); err != nil {
			return err
		}
	}
	// Launch k's link, written by launch k-1 (the last by the first's
	// bands above: the bands go round).
	for k, sb := range b.bands {
		from := b.bands[(k+len(b.bands)-1)%len(b.bands)]
		var err error
		if sb.lbnd, err = border(from.r, sb.r, linkBytes, b.so.HostBorders, &b.shared); err != nil {
			return err
		}
		sb.lprog = sb.lbnd + cuda.DevicePtr(edges)
	}
	b.chunk = b.so.Chunk
	if b.chunk <= 0 {
		b.chunk = bandChunk(pr.Strips, minBlocks, n)
	}
	return nil
}

// runOf is the run of launch k of n (spread over the GPUs in order).
func (b *bandRun) runOf(k, n int) *run { return b.runs[k*len(b.runs)/n] }

// sweep launches every band's launch and waits for all, with progress and
// cancellation.
func (b *bandRun) sweep() error {
	pr := b.prog
	threads := uint32(32 * pr.StripWarps)
	n := len(b.bands)
	for k, sb := range b.bands {
		r := sb.r
		next := b.bands[(k+1)%n]
		if err := sb.start.Record(sb.stream); err != nil {
			return err
		}
		if err := r.e.ctx.Launch(r.mod.funcs[codegen.FuncStrip], [3]uint32{uint32(sb.blocks), 1, 1}, [3]uint32{threads, 1, 1}, uint32(pr.StripSharedBytes), sb.stream,
			sb.bnd, sb.prog, sb.prog+cuda.DevicePtr(4*pr.Strips), sb.partials, cuda.DevicePtr(0), int64(0), cuda.DevicePtr(0), cuda.DevicePtr(0),
			cuda.DevicePtr(0), cuda.DevicePtr(0), int64(0), int64(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0),
			b.chunk, int32(n), int32(k), sb.lbnd, sb.lprog, next.lbnd, next.lprog); err != nil {
			return err
		}
		if err := sb.end.Record(sb.stream); err != nil {
			return err
		}
	}
	stop := func() { stopAll(b.runs, b.abort) }
	tick := func() error {
		// Columns finished, summed over the strips: a band's last strip
		// counts in the next launch's link.
		var done int64
		for _, sb := range b.bands {
			for _, src := range []cuda.DevicePtr{sb.prog, sb.lprog} {
				cols, err := sb.counts(src, pr.Strips)
				if err != nil {
					return err
				}
				for _, c := range cols {
					done += int64(c)
				}
			}
		}
		b.runs[0].progress(stripCells(pr, done))
		return nil
	}
	if err := awaitParts(b.launches(), tick, stop); err != nil {
		return err
	}
	var err error
	b.compute, err = kernelSeconds(b.launches())
	return err
}

// owner is the run whose launch computes real row i.
func (b *bandRun) owner(i int64) *run {
	r := i
	if b.prog.Backward {
		r = b.p.Rows - 1 - i
	}
	s := r / b.prog.StripRows()
	return b.bands[(s/b.chunk)%int64(len(b.bands))].r
}

// answer assembles the answer from the launches.
func (b *bandRun) answer(res *backend.Result) error {
	var parts []partialsOn
	for _, sb := range b.bands {
		parts = append(parts, partialsOn{sb.r, sb.partials, sb.nPartials})
	}
	return splitAnswer(b.p, b.pl, b.prog, res, func(i, _ int64) *run { return b.owner(i) }, parts)
}
