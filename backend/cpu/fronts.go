package cpu

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// This file runs the generic schedules (plan.Interval, plan.Hyperplanar):
// the whole grid is in memory, and the fronts of the plan's hyperplane run
// one after the other, each split among the workers. The cells are
// computed by an eval.CellProgram, one at a time, straight in the grid: the
// grid the run keeps (Options.Maintain, --grid, --traceback) is the one it
// computed in.

// newFrontRun prepares a run of a generic plan: the memory check, the grid,
// the compiled recurrence and a machine per worker.
func newFrontRun(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options, threads int, tune tuning) (*run, error) {
	r := &run{ctx: ctx, p: p, pl: pl, opt: opt, threads: max(threads, 1), tune: tune, isF: p.CellType.IsFloat()}
	r.sleep = newSleeper(&r.stop)
	if err := r.checkFrontMemory(); err != nil {
		return nil, err
	}
	g := opt.NewGrid(p)
	r.bytes += plan.GridBytes(p)
	prog, err := eval.CompileCells(p, pl, g)
	if err != nil {
		return nil, err
	}
	r.cells, r.work = prog, g
	if opt.KeepGrid(p) {
		r.grid = g
	}
	r.workers = make([]*worker, r.threads)
	r.machines = make([]*eval.CellMachine, r.threads)
	for k := range r.workers {
		w := &worker{r: r}
		w.region.init(pl.Answer, p.CellType)
		r.workers[k] = w
		r.machines[k] = prog.NewMachine()
		r.bytes += plan.RegisterBytes // what the estimate allows; the registers take a few kilobytes
	}
	return r, nil
}

// checkFrontMemory refuses, before anything is allocated, a generic run
// whose grid and registers do not fit in the available memory (a grid the
// caller allocated in advance is not counted again).
func (r *run) checkFrontMemory() error {
	p := r.p
	need := plan.CPUWork(p, r.pl, plan.CPUShape{Threads: r.threads})
	what := fmt.Sprintf("solving %s on %d CPU threads", p.Name, r.threads)
	if !r.opt.Grid.Fits(p.CellType, p.Rows, p.Cols) {
		need += plan.GridBytes(p)
		what = fmt.Sprintf("keeping the whole %s of %s (%s), which the %s schedule reads over ranges of fronts, while solving %s",
			p.GridText(), p.CellType, hostmem.Bytes(plan.GridBytes(p)), r.pl.Schedule, p.Name)
	}
	if avail, ok := available(); ok && need > avail {
		return hostmem.TooLarge(what, need, avail, "", "use a smaller instance")
	}
	return nil
}

// fronts sweeps the fronts of the plan's hyperplane in increasing order.
// A front whose cells take, by the time the cells of the last fronts took,
// more than tune.frontSpawn is cut into chunks that the workers take from a
// counter; a smaller one runs on the first machine alone, which splits a
// long min or max reduction among the workers instead (one cell per front:
// a 1-D look-back). The workers of a front are joined before the next
// starts: a front reads only cells of earlier fronts. An error stops the
// run at the end of its front, with the error of the front's first failing
// cell in front order, whatever the number of workers.
func (r *run) fronts() error {
	p, pl := r.p, r.pl
	first, last := pl.T.Range(p.Rows, p.Cols)
	var perCell float64 // nanoseconds per cell, averaged over recent fronts
	for t := first; t <= last; t++ {
		// The context is looked at every so many fronts: a 1-D
		// look-back has millions of fronts of one cell.
		if r.stop.Load() || (t-first)%256 == 0 && r.stopped() {
			break
		}
		f := pl.T.Front(t, p.Rows, p.Cols)
		n := f.Len()
		if n == 0 {
			continue
		}
		var err error
		if r.threads == 1 || n == 1 {
			err = r.frontSerial(f, n)
		} else {
			start := time.Now()
			if perCell*float64(n) >= float64(r.tune.frontSpawn) {
				err = r.frontParallel(f, n)
			} else {
				err = r.frontSerial(f, n)
			}
			ns := float64(time.Since(start)) / float64(n)
			if perCell == 0 {
				perCell = ns
			} else {
				perCell = 0.75*perCell + 0.25*ns
			}
		}
		if err != nil {
			r.fail(err)
			break
		}
		r.progress(n)
	}
	if err := r.result(); err != nil {
		return err
	}
	r.collect()
	return nil
}

// frontSerial computes the cells of front f on the first machine, in
// order, stopping at the first error.
func (r *run) frontSerial(f plan.Front, n int64) error {
	// The first machine computes the fronts too small to share, and
	// spreads a long reduction inside one cell over every worker.
	m := r.machines[0]
	m.Split(r.threads)
	var err error
	r.safely(func() {
		for q := int64(0); q < n; q++ {
			if q%4096 == 4095 && r.stopped() {
				return
			}
			i, j := f.Cell(q)
			if err = m.Compute(i, j); err != nil {
				return
			}
		}
	})
	return err
}

// frontParallel computes the cells of front f on every worker: chunks of
// consecutive cells taken from a counter. A worker stops at its first
// error; the error returned is that of the first failing cell in front
// order (every cell before it was computed by some worker).
func (r *run) frontParallel(f plan.Front, n int64) error {
	workers := int64(r.threads)
	chunk := max(1, n/(4*workers))
	r.machines[0].Split(1) // every worker is busy with cells of its own
	var next atomic.Int64
	type failure struct {
		q   int64
		err error
	}
	fails := make([]failure, workers)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := r.machines[k]
			r.safely(func() {
				for {
					q0 := (next.Add(1) - 1) * chunk
					if q0 >= n || r.stopped() {
						return
					}
					for q := q0; q < min(q0+chunk, n); q++ {
						i, j := f.Cell(q)
						if err := m.Compute(i, j); err != nil {
							fails[k] = failure{q, err}
							return
						}
					}
				}
			})
		}()
	}
	wg.Wait()
	var first *failure
	for k := range fails {
		if fl := &fails[k]; fl.err != nil && (first == nil || fl.q < first.q) {
			first = fl
		}
	}
	if first != nil {
		return first.err
	}
	return nil
}

// collect hands the answer to answer (run.go) as the other schedules do:
// the cells the answer reads, or the region's reduction over the grid in
// row-major order.
func (r *run) collect() {
	p, a, g := r.p, r.pl.Answer, r.work
	w := r.workers[0]
	at := func(i, j int64) {
		if i >= 0 && i < p.Rows && j >= 0 && j < p.Cols {
			w.got = append(w.got, captured{i, j, g.At(i, j)})
		}
	}
	switch a.Kind {
	case plan.AnswerCell:
		at(a.I, a.J)
	case plan.AnswerExpr:
		for _, c := range a.Cells {
			at(c[0], c[1])
		}
	case plan.AnswerRegion:
		i0, i1 := max(a.I0, 0), min(a.I1, p.Rows-1)
		j0, j1 := max(a.J0, 0), min(a.J1, p.Cols-1)
		if j0 > j1 {
			return
		}
		line := eval.Line{Base: j0}
		if r.isF {
			line.F = make([]float64, j1-j0+1)
		} else {
			line.I = make([]int64, j1-j0+1)
		}
		for i := i0; i <= i1; i++ {
			for j := j0; j <= j1; j++ {
				v := g.At(i, j)
				if r.isF {
					line.F[j-j0] = v.F
				} else {
					line.I[j-j0] = v.I
				}
			}
			w.region.add(eval.AlongJ, &eval.Batch{Step: i, Lane0: j0, N: int(j1 - j0 + 1)}, &line)
		}
	}
}
