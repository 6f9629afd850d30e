package cpu

import (
	"sync/atomic"

	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/plan"
)

// lines runs the rows schedule (each row split between the workers) or the
// cols schedule (the same with columns).
func (r *run) lines() error {
	p := r.p
	stepN, laneN := p.Rows, p.Cols
	if r.axis == eval.AlongI {
		stepN, laneN = p.Cols, p.Rows
	}
	back := r.pl.Direction == plan.Backward
	dLo, dHi := r.rec.Steps()
	before, after := r.rec.LaneReach()
	ring := dHi - dLo + 1
	width := before + laneN + after
	bufI := make([][]int64, ring)
	bufF := make([][]float64, ring)
	for k := range bufI {
		if r.isF {
			bufF[k] = make([]float64, width)
		} else {
			bufI[k] = make([]int64, width)
		}
	}
	r.bytes += 8 * ring * width
	slot := func(step int64) int64 { return ((step % ring) + ring) % ring }

	// Each step is cut into chunks of lanes, handed out in order from one
	// ticket counter (ticket t is chunk t%nc of step t/nc): a worker that
	// is slower, or that the OS has descheduled, simply takes fewer
	// chunks, and one that holds none holds nobody up. A chunk waits,
	// spinning briefly and then blocked, until every chunk of the steps
	// before it is done; the chunks of one step are then independent, and
	// the ring slot it writes was last read by a step already done. A
	// chunk narrower than tune.lanesPerWorker costs more in hand-offs
	// than it spreads; each worker specialises kernels for about
	// tune.kernelCells cells at a time.
	threads := int64(r.threads)
	nc := int64(1)
	if threads > 1 {
		nc = max(1, min(8*threads, laneN/r.tune.lanesPerWorker))
	}
	chunk := (laneN + nc - 1) / nc
	fs := r.floatSum()
	if fs != nil {
		if nc > 1 {
			chunk = (chunk + fsumBlock - 1) / fsumBlock * fsumBlock // whole blocks
		}
		nb := (laneN + fsumBlock - 1) / fsumBlock
		fs.blocks = [2][]float64{make([]float64, nb), make([]float64, nb)}
		r.bytes += 16 * nb
	}
	nc = (laneN + chunk - 1) / chunk
	n := min(threads, nc)
	group := max(1, r.tune.kernelCells/chunk)
	var next, done atomic.Int64
	parallel(int(n), func(k int) {
		wk := r.workers[k]
		b := &eval.Batch{Lines: make([]eval.Line, ring)}
		for {
			if r.stopped() {
				return
			}
			t := next.Add(1) - 1
			s, c := t/nc, t%nc
			if s >= stepN {
				return
			}
			if n > 1 && !r.sleep.wait(&done, s*nc) {
				return
			}
			step := s
			if back {
				step = stepN - 1 - s
			}
			if fs != nil && c == 0 && s > 0 {
				// Every chunk of the step before is done, and the next
				// fold waits for this chunk.
				prev := step - 1
				if back {
					prev = step + 1
				}
				fs.foldStep(prev)
			}
			l0, l1 := c*chunk, min((c+1)*chunk, laneN)
			r.safely(func() { r.line(wk, b, step, l0, l1, s, stepN, laneN, group, back, bufI, bufF, slot, dLo, before) })
			if n > 1 {
				r.sleep.add(&done, 1)
			}
		}
	})
	if err := r.result(); err != nil {
		return err
	}
	if fs != nil && stepN > 0 {
		last := stepN - 1
		if back {
			last = 0
		}
		fs.foldStep(last)
	}
	return nil
}

// line computes lanes l0..l1-1 of one step.
func (r *run) line(wk *worker, b *eval.Batch, step, l0, l1, s, stepN, laneN, group int64, back bool,
	bufI [][]int64, bufF [][]float64, slot func(int64) int64, dLo, before int64) {
	// Kernels are specialised for this worker's lanes over a group of
	// steps, the first and last step and lane apart.
	g0 := s - s%group
	g1 := min(g0+group, stepN) - 1
	if back {
		g0, g1 = stepN-1-g1, stepN-1-g0
	}
	rs := split(g0, g1, stepN, 2).seg(step)
	laneSegs := split(l0, l1-1, laneN, 64)
	b.Step = step
	for d := range b.Lines {
		sl := slot(step - (int64(d) + dLo))
		l := &b.Lines[d]
		l.Base = -before
		if r.isF {
			l.F = bufF[sl]
		} else {
			l.I = bufI[sl]
		}
	}
	out := &b.Lines[-dLo]
	for c := 0; c < laneSegs.n; c++ {
		ls := laneSegs.s[c]
		iLo, iHi, jLo, jHi := rs[0], rs[1], ls[0], ls[1]
		if r.axis == eval.AlongI {
			iLo, iHi, jLo, jHi = ls[0], ls[1], rs[0], rs[1]
		}
		kern, err := wk.kernel(iLo, iHi, jLo, jHi)
		if err != nil {
			r.fail(err)
			return
		}
		for q := ls[0]; q <= ls[1]; q += r.tune.lanes {
			b.Lane0 = q
			b.N = int(min(r.tune.lanes, ls[1]+1-q))
			if err := wk.m.Run(kern, b); err != nil {
				r.fail(err)
				return
			}
			wk.sink(b, out)
		}
	}
	r.progress(l1 - l0)
}
