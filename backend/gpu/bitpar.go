package gpu

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// bitparPackCW is the columns per step B's codes are padded for: the
// most the kernel takes (codegen.BitparCW picks 8 or 16 per grid).
const bitparPackCW = 16

// bitparJob is a plan.Special as the bit-parallel kernel runs it: rows and
// cols are the sequences along the kernel's rows and columns (the
// problem's A and B, or B and A when the answer is over the last column,
// which the three distances, being symmetric, allow); with track the
// answer is the best of the kernel's last row over columns lo..hi.
type bitparJob struct {
	sp         *plan.Special
	rows, cols []int64
	track      bool
	transposed bool
	lo, hi     int64
	in         codegen.BitparInput
}

// bitparFor is the bit-parallel job for a run, or nil when the run takes
// the schedule: no Special, --no-special, a kept grid (traceback, --grid,
// maintain: the kernel computes no cells), or an answer the kernel does not
// give (anything but the last cell, or the min — max for LCS — over a part
// of the last row or column), or too many distinct characters.
func bitparFor(p *ir.Problem, pl *plan.Plan, opt backend.Options) *bitparJob {
	sp := pl.Special
	if sp == nil || opt.NoSpecial || opt.KeepGrid(p) || sp.A == nil || sp.B == nil || p.CellType.IsFloat() {
		return nil
	}
	n, m := int64(sp.A.Len()), int64(sp.B.Len())
	if p.Rows != n+1 || p.Cols != m+1 {
		return nil
	}
	j := &bitparJob{sp: sp, rows: sp.A.I, cols: sp.B.I}
	a := pl.Answer
	best := ir.ReduceMin
	if sp.Kind == plan.BitLCS {
		best = ir.ReduceMax
	}
	switch {
	case a.Kind == plan.AnswerCell && a.I == n && a.J == m:
	case a.Kind == plan.AnswerRegion && a.Op == best && a.I0 == n && a.I1 == n:
		j.track, j.lo, j.hi = true, a.J0, a.J1 // (a.JStep > 1 is no bit-parallel problem's: plan.recognise)
	case a.Kind == plan.AnswerRegion && a.Op == best && a.J0 == m && a.J1 == m:
		j.track, j.transposed, j.lo, j.hi = true, true, a.I0, a.I1
		j.rows, j.cols = j.cols, j.rows
	default:
		return nil
	}
	if j.lo < 0 || j.hi < j.lo || j.hi > int64(len(j.cols)) {
		return nil
	}
	j.in = codegen.PackBitpar(j.rows, j.cols, bitparPackCW)
	if j.in.Sigma > codegen.MaxBitparSigma {
		return nil
	}
	return j
}

// emptyRow is the kernel's last row when a sequence is empty (no kernel
// runs): row 0 (cell[0][j] = j, or 0 for LCS) or, with no columns, the
// one cell cell[n][0] (n, or 0 for LCS).
func (j *bitparJob) emptyRow() []int64 {
	row := make([]int64, len(j.cols)+1)
	if j.sp.Kind == plan.BitLCS {
		return row
	}
	for k := range row {
		row[k] = int64(len(j.rows) + k)
	}
	return row
}

// runBitpar solves p with the bit-parallel kernel (e.mu held).
func (e *Executor) runBitpar(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options, job *bitparJob, start time.Time) (*backend.Result, error) {
	n, m := int64(len(job.rows)), int64(len(job.cols))
	r := &run{e: e, ctx: ctx, p: p, pl: pl, opt: opt, trace: phases.Start(p.Name)}
	defer r.release()
	var best, bestJ, last int64
	if n == 0 || m == 0 {
		row := job.emptyRow()
		last = row[m]
		bestJ = job.lo
		for k := job.lo; k <= job.hi; k++ {
			if (job.sp.Kind == plan.BitLCS && row[k] > row[bestJ]) || (job.sp.Kind != plan.BitLCS && row[k] < row[bestJ]) {
				bestJ = k
			}
		}
		best = row[bestJ]
	} else {
		var err error
		if last, best, bestJ, err = r.bitpar(job); err != nil {
			if derr := ctx.Err(); derr != nil {
				return nil, derr
			}
			return nil, err
		}
	}
	r.trace.Mark("sweep")
	res := &backend.Result{Backend: "cuda", Device: e.Device(), Special: job.sp}
	return r.finish(res, bitparAnswer(p, pl, job, last, best, bestJ), start)
}

// bitparAnswer is the answer of a bit-parallel run from the last cell, or
// with job.track the best of the last row and its column.
func bitparAnswer(p *ir.Problem, pl *plan.Plan, job *bitparJob, last, best, bestJ int64) func(*backend.Result) error {
	n := int64(len(job.rows))
	return func(res *backend.Result) error {
		a := pl.Answer
		v := ir.Value{T: p.CellType}
		var err error
		if !job.track {
			v.I = last
			res.AnswerI, res.AnswerJ, res.AnswerIsCell = a.I, a.J, true
			if a.Expr != nil {
				cells := func(i, jj int64) (ir.Value, error) {
					if i != a.I || jj != a.J {
						return ir.Value{}, fmt.Errorf("internal error: %s was not computed", p.CellText(i, jj))
					}
					return v, nil
				}
				if v, err = eval.Eval(a.Expr, cells); err != nil {
					return err
				}
			}
		} else {
			v.I = best
			res.AnswerI, res.AnswerJ, res.AnswerIsCell = n, bestJ, true
			if job.transposed {
				res.AnswerI, res.AnswerJ = bestJ, n
			}
			if v, err = eval.ConvertChain(a.Expr, v); err != nil {
				return err
			}
		}
		res.Answer = v
		return eval.CheckAnswer(p, v)
	}
}

// bitpar runs the kernel: the last cell, and with track the best of the
// last row over lo..hi and its column.
func (r *run) bitpar(job *bitparJob) (last, best, bestJ int64, err error) {
	e, in := r.e, job.in
	n, m := int64(len(job.rows)), int64(len(job.cols))
	compileStart := time.Now()
	cw := codegen.BitparCW(int64(in.Strips), e.dev.SMs)
	chunks := max((m+int64(cw)-1)/int64(cw), 1) // steps of cw columns (Codes is padded for them)
	prog, err := codegen.GenerateBitpar(r.p.Name, codegen.Bitpar{Kind: job.sp.Kind, Sigma: in.Sigma, Track: job.track, CW: cw})
	if err != nil {
		return 0, 0, 0, err
	}
	r.trace.Mark("generate")
	mod, cached, err := e.loadTraced(prog, r.trace)
	if err != nil {
		return 0, 0, 0, err
	}
	r.prog, r.mod = prog, mod
	r.stats.CompileSeconds = time.Since(compileStart).Seconds()
	r.stats.CompileCached = cached

	strips := int64(in.Strips)
	need := int64(len(in.Peq))*8 + int64(len(in.Codes)) + 8*chunks + 4*(strips+1) + 24
	if free, _, err := e.ctx.MemInfo(); err == nil && need > free {
		return 0, 0, 0, hostmem.TooLarge(fmt.Sprintf("solving %s on the GPU (%s)", r.p.Name, job.sp.Kind), need, free, "GPU memory on "+e.dev.Name,
			"use a smaller instance, or solve it on the CPU (--backend cpu)")
	}
	zero := int32(0)
	if err := e.ctx.CopyHtoD(mod.globals[codegen.SymAbort], unsafe.Pointer(&zero), 4); err != nil {
		return 0, 0, 0, err
	}
	peq, err := r.alloc("match masks", int64(len(in.Peq))*8)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := cuda.CopyToDevice(e.ctx, peq, in.Peq); err != nil {
		return 0, 0, 0, err
	}
	codes, err := r.alloc("column codes", int64(len(in.Codes)))
	if err != nil {
		return 0, 0, 0, err
	}
	if err := cuda.CopyToDevice(e.ctx, codes, in.Codes); err != nil {
		return 0, 0, 0, err
	}
	cbuf, err := r.alloc("strip links", 8*chunks)
	if err != nil {
		return 0, 0, 0, err
	}
	// prog (one int per strip), the ticket, then acc and track (8-aligned).
	progBytes := (4*(strips+1) + 7) &^ 7
	state, err := r.alloc("strip progress", progBytes+24)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := e.ctx.Memset8(state, 0, progBytes+24); err != nil {
		return 0, 0, 0, err
	}
	progP, ticket := state, state+cuda.DevicePtr(4*strips)
	accP := state + cuda.DevicePtr(progBytes)
	trackP := accP + 8
	r.trace.Mark("upload")

	fn := mod.funcs[codegen.FuncBitpar]
	threads := 32 * prog.Bitpar.Warps
	occ, err := fn.MaxActiveBlocksPerSM(threads, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	if occ < 1 {
		return 0, 0, 0, fmt.Errorf("the bit-parallel kernel cannot run a block of %d threads", threads)
	}
	blocks := min(int64(occ*e.dev.SMs), (strips+int64(prog.Bitpar.Warps)-1)/int64(prog.Bitpar.Warps))
	poll, err := r.hostAlloc(4 * (strips + 1))
	if err != nil {
		return 0, 0, 0, err
	}
	tm, err := r.startTiming()
	if err != nil {
		return 0, 0, 0, err
	}
	tw := (n - 1) / 64
	if err := e.ctx.Launch(fn, [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(threads), 1, 1}, 0, e.s1,
		peq, codes, cbuf, progP, ticket, accP, trackP, n, m, int32(strips), int32(chunks), tw, job.lo, job.hi, int32(0), int32(strips), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0)); err != nil {
		return 0, 0, 0, err
	}
	if err := tm.end.Record(e.s1); err != nil {
		return 0, 0, 0, err
	}
	if r.opt.Progress != nil || r.ctx.Done() != nil {
		flags := cuda.HostSlice[int32](poll)
		stop := func() {
			flags[0] = 1
			if err := e.ctx.CopyHtoDAsync(mod.globals[codegen.SymAbort], poll.Ptr(), 4, e.s2); err == nil {
				tm.end.Synchronize()
			}
		}
		tick := func() error {
			if err := e.ctx.CopyDtoHAsync(poll.Ptr(), progP, 4*strips, e.s2); err != nil {
				return err
			}
			if err := e.s2.Synchronize(); err != nil {
				return fmt.Errorf("running %s on %s: %w", r.p.Name, e.dev.Name, err)
			}
			var steps int64
			for _, c := range flags[:strips] {
				steps += int64(c)
			}
			r.progress(steps * int64(cw) * 2048)
			return nil
		}
		if err := r.awaitKernel(tm.end, tick, stop); err != nil {
			return 0, 0, 0, err
		}
	}
	if err := tm.end.Synchronize(); err != nil {
		return 0, 0, 0, fmt.Errorf("running %s on %s: %w", r.p.Name, e.dev.Name, err)
	}
	ms, err := cuda.Elapsed(tm.start, tm.end)
	if err != nil {
		return 0, 0, 0, err
	}
	r.stats.ComputeSeconds = float64(ms) / 1e3
	out := make([]int64, 3)
	if err := cuda.CopyFromDevice(e.ctx, out, accP); err != nil {
		return 0, 0, 0, err
	}
	last = codegen.BitparAnswer(job.sp.Kind, n, m, out[0])
	if job.track && out[2] < 0 {
		return 0, 0, 0, fmt.Errorf("internal error: the bit-parallel kernel of %s did not report row %d", r.p.Name, n)
	}
	return last, out[1], out[2], nil
}
