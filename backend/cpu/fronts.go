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
	var gT *backend.Grid
	if r.transposed {
		gT = backend.NewGrid(p.CellType, p.Cols, p.Rows)
		r.bytes += plan.GridBytes(p)
	}
	prog, err := eval.CompileCells(p, pl, g, gT)
	if err != nil {
		return nil, err
	}
	r.work = g
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
//
// The transposed copy the plan asks for (plan.Plan.Transposed, counted in
// plan.CPUWork) is left out when only the run without it fits: it speeds
// up reductions that walk columns, and is not needed to compute.
func (r *run) checkFrontMemory() error {
	r.transposed = r.pl.Transposed
	err := r.checkFrontMemory1()
	if err != nil && r.transposed {
		r.transposed = false
		if r.checkFrontMemory1() == nil {
			return nil
		}
	}
	return err
}

func (r *run) checkFrontMemory1() error {
	p := r.p
	need := plan.CPUWork(p, r.pl, plan.CPUShape{Threads: r.threads})
	if r.pl.Transposed && !r.transposed {
		need -= plan.GridBytes(p)
	}
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
// more than tune.frontShare is cut into chunks that the workers (the crew)
// take from a counter; a smaller one runs on the first machine alone,
// which shares a long min or max reduction with the crew instead (one cell
// per front: a 1-D look-back). Every worker is done with a front before
// the next starts: a front reads only cells of earlier fronts. An error
// stops the run at the end of its front, with the error of the front's
// first failing cell in front order, whatever the number of workers.
func (r *run) fronts() error {
	p, pl := r.p, r.pl
	r.crew = newCrew(r.threads-1, r.safely)
	defer r.crew.close()
	if r.threads == 1 && pl.Serial {
		// One worker and an order of neighbouring cells (plan.Plan.Serial).
		// A failing cell sends the run back to the fronts, from the start,
		// so that the error is the one of the front order, as every other
		// run reports it.
		if r.serial() {
			if err := r.result(); err != nil {
				return err
			}
			r.collect()
			return nil
		}
		r.done.Store(0)
	}
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
			if perCell*float64(n) >= float64(r.tune.frontShare) {
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

// serial computes every cell in row-major order on the first machine
// (plan.Plan.Serial); done is false where a cell failed or the run was
// stopped (the caller goes back to the fronts, which stop at once when
// the run is).
func (r *run) serial() (done bool) {
	p := r.p
	m := r.machines[0]
	m.Split(1, r.crew.run)
	failed := false
	r.safely(func() {
		// The context and progress every 4,096 cells: a 1-D grid is one
		// row of millions.
		var since int64
		for i := int64(0); i < p.Rows; i++ {
			for j := int64(0); j < p.Cols; j++ {
				if since++; since == 4096 {
					r.progress(since)
					since = 0
					if r.stopped() {
						failed = true
						return
					}
				}
				if m.Compute(i, j) != nil {
					failed = true
					return
				}
			}
		}
		r.progress(since)
	})
	return !failed
}

// frontSerial computes the cells of front f on the first machine, in
// order, stopping at the first error.
func (r *run) frontSerial(f plan.Front, n int64) error {
	// The first machine computes the fronts too small to share, and
	// spreads a long reduction inside one cell over every worker.
	m := r.machines[0]
	m.Split(r.threads, r.crew.run)
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

// frontParallel computes the cells of front f on every worker that is
// free: chunks of consecutive cells taken from a counter. A worker stops at
// its first error; the error returned is that of the first failing cell in
// front order (every cell before it was computed by some worker).
func (r *run) frontParallel(f plan.Front, n int64) error {
	workers := int64(r.threads)
	chunk := max(1, n/(4*workers))
	r.machines[0].Split(1, nil) // every worker is busy with cells of its own
	var next atomic.Int64
	type failure struct {
		q   int64
		err error
	}
	fails := make([]failure, workers)
	r.crew.run(func(k int) {
		m := r.machines[k]
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

// crew is the workers of a generic run besides the one that sweeps the
// fronts: goroutines started once per run that wait, spinning briefly and
// then blocked (a sleeper), for work to share: the cells of a front, the
// chunks of a split reduction. The work is pieces taken from a counter, and
// the sweeping worker takes them too: a helper that is asleep when the work
// is posted and wakes late finds less or none left, and nobody waits for
// it. (A 1-D look-back posts work for each of its cells, tens of
// microseconds each; waiting for a helper to wake from a futex takes as
// long again on a virtual machine.)
type crew struct {
	helpers int
	safely  func(func())
	sleep   *sleeper
	quit    atomic.Bool
	posted  atomic.Int64 // jobs posted
	left    atomic.Int64 // helpers' calls returned, over every job

	mu     sync.Mutex
	job    int64 // the current job,
	open   bool  // whether helpers may still join it,
	work   func(w int)
	joined int64 // and how many did
	wg     sync.WaitGroup
}

// newCrew starts helpers goroutines; safely runs each call of the work
// (run.safely: a panic stops the run with an error, not the process).
func newCrew(helpers int, safely func(func())) *crew {
	c := &crew{helpers: helpers, safely: safely}
	c.sleep = newSleeper(&c.quit)
	for h := 1; h <= helpers; h++ {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for seen := int64(0); c.sleep.wait(&c.posted, seen+1); {
				c.mu.Lock()
				seen = c.job
				work := c.work
				if !c.open {
					work = nil
				} else {
					c.joined++
				}
				c.mu.Unlock()
				if work != nil {
					c.safely(func() { work(h) })
					c.sleep.add(&c.left, 1)
				}
			}
		}()
	}
	return c
}

// run calls work(0) on the caller's goroutine and work(h) on each helper
// that is free to join before it returns, and returns when every call has
// returned.
func (c *crew) run(work func(w int)) {
	if c.helpers == 0 {
		c.safely(func() { work(0) })
		return
	}
	c.mu.Lock()
	c.job++
	c.open, c.work, c.joined = true, work, 0
	base := c.left.Load() // every call of the jobs before has returned
	c.mu.Unlock()
	c.sleep.add(&c.posted, 1)
	c.safely(func() { work(0) })
	c.mu.Lock()
	c.open = false
	joined := c.joined
	c.mu.Unlock()
	c.sleep.wait(&c.left, base+joined)
}

// close stops the helpers and waits for them to end.
func (c *crew) close() {
	c.quit.Store(true)
	c.sleep.wakeAll()
	c.wg.Wait()
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
			w.region.add(eval.AlongJ, &eval.Batch{Step: i, Lane0: j0, N: int(j1 - j0 + 1)}, &line) // add keeps the region's columns (JStep)
		}
	}
}
