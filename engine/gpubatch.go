package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems/formats"
	"github.com/dpgpu/dpgpu/sema"
)

// BatchChunk is how many instances of one shape a batch launch on a GPU
// takes at most (BatchOptions.Devices): enough to fill the device many
// times over with small instances (one warp each), few enough that the
// instances waiting for it hold little memory.
const BatchChunk = 16384

// Instances wait for more of their shape until none has come for
// batchIdle (a shape is rare, the reader paused, the batch ends), or for
// batchWaitMost at most: launches stay large, which the GPU needs (a
// launch of a few thousand small instances does not fill it), while no
// instance waits long.
const (
	batchIdle     = 5 * time.Millisecond
	batchWaitMost = 250 * time.Millisecond
)

// BatchDevice is a GPU that runs batch launches (BatchOptions.Devices):
// *gpu.Executor. It runs the instances no launch takes one at a time, as
// an executor.
type BatchDevice interface {
	backend.Executor
	// BatchProgram generates the batch program of p's shape (with columns,
	// a column template's); its error wraps codegen.ErrNotBatchable
	// where none runs p.
	BatchProgram(p *ir.Problem, pl *plan.Plan, vary []string, columns bool) (*codegen.Program, error)
	// RunBatch runs instances of prog's shape in one launch.
	RunBatch(ctx context.Context, prog *codegen.Program, insts []gpu.BatchInstance) ([]gpu.BatchOutcome, gpu.BatchStats, error)
}

var _ BatchDevice = (*gpu.Executor)(nil)

// gpuBatcher collects the instances of a batch whose shape has a batch
// program (codegen.KernelBatch) and runs them many to a launch on the GPUs
// of BatchOptions.Devices: the workers bind and plan instances on the CPU
// cores and hand them over (add); a shape's instances launch when they are
// BatchChunk, when none has come for batchIdle or the first has waited
// batchWaitMost, and at the end. Each GPU takes launches from one queue,
// several at once. An instance whose shape has no batch
// program, or which fails on the device, runs alone through the ordinary
// executor (which gives the error its place in the `.dp` file).
type gpuBatcher struct {
	b       *batch
	devs    []BatchDevice
	vary    []string
	chunk   int
	deliver func(*BatchResult)

	// shapes (by codegen.BatchKey: *gpuShape) are written once a key and
	// read by every instance: a sync.Map, so that the workers' reads
	// (300,000 instances a second on 16 cores) do not queue on mu.
	shapes sync.Map
	// adoptions (by adoptKey: *adoption) are what adopt found for a
	// shape's instances, found again by one key.
	adoptions sync.Map

	mu     sync.Mutex
	keys   codegen.KeyCache
	groups map[[32]byte]*gpuGroup
	// columnGroups: the group of each column template's BatchKey.
	columnGroups map[string]*gpuGroup
	rowCounts    map[int64]bool // of the programs made (noteRows)
	pending      int
	oldest       time.Time // the first pending instance's arrival
	latest       time.Time // the last one's
	queue        chan gpuLaunch
	stop         chan struct{}
	devWG        sync.WaitGroup
	tickWG       sync.WaitGroup

	launches, batched, adopted atomic.Int64
	cells                      atomic.Int64                       // of the batched instances
	spans                      map[BatchDevice][][2]time.Duration // each launch's kernel (under mu)
	kernel, copies, host       atomic.Int64                       // nanoseconds
	compiled                   atomic.Int64
}

// gpuShape is one BatchKey's program group, or nil where none runs it;
// columns: the group's program is a template's (batchcols.go). ready is
// closed once group is set (prepare). tmpl is an instance of the shape
// checked in full, whose recurrence later instances adopt.
type gpuShape struct {
	ready   chan struct{}
	group   *gpuGroup
	columns bool
	full    int // instances added checked in full (not adopted)
	tmpl    *ir.Problem
	// adoptable is tmpl while group is set: what adopt reads without
	// the batcher's lock (written under it).
	adoptable atomic.Pointer[ir.Problem]
}

// adoption is what an instance of a shape adopts: the shape's plan and its
// batch program's shape (gpuBatcher.adoptions).
type adoption struct {
	pl *plan.Plan
	sh *gpuShape
}

// prepare finds sh's program group for its first instance l (items its
// arguments): a column template's (batchcols.go) where one runs it, else
// the shape's own program; none where no batch kernel runs it.
func (g *gpuBatcher) prepare(sh *gpuShape, l *Loaded, items []batchItem) {
	group := func(prog *codegen.Program) *gpuGroup {
		digest := sha256.Sum256([]byte(prog.Source))
		g.mu.Lock()
		defer g.mu.Unlock()
		grp := g.groups[digest]
		if grp == nil {
			grp = &gpuGroup{prog: prog}
			g.groups[digest] = grp
			g.noteRows(prog.Rows)
		}
		return grp
	}
	if t := g.b.columnTemplate(items, l); t != nil {
		tkey := codegen.BatchKey(t.Problem, t.Plan, g.vary, &g.keys)
		g.mu.Lock()
		grp := g.columnGroups[tkey]
		g.mu.Unlock()
		if grp == nil {
			if prog, err := g.devs[0].BatchProgram(t.Problem, t.Plan, g.vary, true); err == nil {
				grp = group(prog)
				g.mu.Lock()
				g.columnGroups[tkey] = grp
				g.mu.Unlock()
			}
		}
		if grp != nil {
			sh.group, sh.columns = grp, true
			return
		}
	}
	if prog, err := g.devs[0].BatchProgram(l.Problem, l.Plan, g.vary, false); err == nil {
		sh.group = group(prog)
	}
}

// manyRowCounts is how many row counts among a batch's programs make
// noteRows say once why each is a program of its own.
const manyRowCounts = 16

// noteRows counts the row counts of the batch programs made (under mu)
// and, at manyRowCounts of them, says on BatchOptions.Notice that only
// column counts share programs: a database given as the argument whose
// sequences fill the rows compiles a program for every length.
func (g *gpuBatcher) noteRows(rows int64) {
	if g.rowCounts == nil {
		g.rowCounts = map[int64]bool{}
	}
	if g.rowCounts[rows] {
		return
	}
	g.rowCounts[rows] = true
	if len(g.rowCounts) == manyRowCounts && g.b.opt.Notice != nil {
		fmt.Fprintf(g.b.opt.Notice, "dpgpu: the instances have %d or more row counts so far, each a GPU program of its own "+
			"(compiled once, about a second each); instances that differ only in their column count share programs. "+
			"Against a database, give the database as the argument whose sequence runs along the columns "+
			"(`dpgpu check` shows the grid: (len(A)+1) x (len(B)+1) puts B's along the columns)\n", manyRowCounts)
	}
}

// gpuGroup is the instances waiting for one batch program.
type gpuGroup struct {
	prog  *codegen.Program
	items []gpuItem
}

type gpuItem struct {
	r     *BatchResult
	l     *Loaded
	how   itemKind
	items []batchItem // itemAdopted: the arguments, to bind again
}

// itemKind is how an instance came to the batcher: what of its problem
// and plan is its own.
type itemKind uint8

const (
	itemOwn        itemKind = iota // bound, checked and planned
	itemSharedPlan                 // bound and checked; the plan is the shape's (planFor)
	itemAdopted                    // data checked (sema.CheckData); recurrence and plan the shape's (adopt)
)

type gpuLaunch struct {
	prog  *codegen.Program
	items []gpuItem
}

// varyingInputs are the names the `args:` lines of f fill from the
// arguments args that hold several instances: what differs between a
// batch's instances. An argument of one record (a query against a
// database) fills inputs that every instance shares, which a batch
// program reads as shared data (codegen profiles its reads of a scoring
// matrix at their letters). A guess only: BatchKey holds the shared
// inputs' data, so instances that differ in one run other programs.
func varyingInputs(f *dsl.File, args []*BatchArg) []string {
	var names []string
	k := 0
	for _, d := range f.Decls {
		if d, ok := d.(*dsl.ArgsDecl); ok {
			for _, it := range d.Items {
				if k >= len(args) || !args[k].single() {
					for _, n := range it.Names {
						names = append(names, n.Name)
					}
				}
				k++
			}
		}
	}
	return names
}

func newGPUBatcher(ctx context.Context, b *batch, args []*BatchArg, devs []BatchDevice, chunk int, deliver func(*BatchResult)) *gpuBatcher {
	g := &gpuBatcher{b: b, devs: devs, vary: varyingInputs(b.file, args), chunk: chunk, deliver: deliver,
		groups: map[[32]byte]*gpuGroup{}, columnGroups: map[string]*gpuGroup{},
		queue: make(chan gpuLaunch, len(devs)), stop: make(chan struct{})}
	// Launchers per GPU: a GPU runs that many launches at once (its
	// executor's batch slots), so that a launch that does not fill it —
	// a few long instances, a rare shape — leaves the rest to another.
	launchers := 3
	if v, err := strconv.Atoi(os.Getenv("DPGPU_BATCH_LAUNCHERS")); err == nil && v >= 1 && v <= 3 {
		launchers = v // for measurements (docs/performance.md)
	}
	for _, d := range devs {
		for range launchers {
			g.devWG.Add(1)
			go func() {
				defer g.devWG.Done()
				for job := range g.queue {
					g.launch(ctx, d, job)
				}
			}()
		}
	}
	g.tickWG.Add(1)
	go func() {
		defer g.tickWG.Done()
		t := time.NewTicker(batchIdle / 2)
		defer t.Stop()
		for {
			select {
			case <-g.stop:
				return
			case <-t.C:
				g.mu.Lock()
				if g.pending > 0 && (time.Since(g.latest) >= batchIdle || time.Since(g.oldest) >= batchWaitMost) {
					g.flushLocked()
				}
				g.mu.Unlock()
			}
		}
	}()
	return g
}

// planFor is the plan of p's shape where an earlier instance of it was
// planned (batch.sharedPlan): a launch reads only the plan's answer (its
// cell or region, set by the sizes), so p need not be planned. Nil
// otherwise.
func (g *gpuBatcher) planFor(p *ir.Problem) *plan.Plan {
	if p.Maintain {
		return nil
	}
	return g.b.sharedPlan(p)
}

// adopt completes q, an instance checked by sema.CheckData, with the
// recurrence of its shape's first instance and the shape's plan, where the
// shape runs in batch launches; nil otherwise (the caller checks it in
// full).
func (g *gpuBatcher) adopt(q *ir.Problem) (*ir.Problem, *plan.Plan, *gpuShape) {
	if q.Maintain {
		return nil, nil, nil
	}
	// The instances of a shape find its plan and program by one key and
	// one lookup (they were two keys, two maps and the batcher's lock).
	key := adoptKey(q, g.vary, &g.keys)
	if v, ok := g.adoptions.Load(key); ok {
		a := v.(*adoption)
		if tmpl := a.sh.adoptable.Load(); tmpl != nil {
			return sema.Adopt(q, tmpl), a.pl, a.sh
		}
		return nil, nil, nil
	}
	pl := g.planFor(q)
	if pl == nil {
		return nil, nil, nil
	}
	v, ok := g.shapes.Load(codegen.BatchKey(q, pl, g.vary, &g.keys))
	if !ok {
		return nil, nil, nil
	}
	sh := v.(*gpuShape)
	select {
	case <-sh.ready: // prepare has set sh.group
	default:
		return nil, nil, nil
	}
	tmpl := sh.adoptable.Load()
	if tmpl == nil {
		return nil, nil, nil
	}
	g.adoptions.Store(key, &adoption{pl: pl, sh: sh})
	return sema.Adopt(q, tmpl), pl, sh
}

// adoptKey names what an instance's plan and batch program depend on:
// its shape (shapeKey: the plan's key) and its inputs as codegen.BatchKey
// has them (the varying ones' data bits, the shared ones' digests).
func adoptKey(q *ir.Problem, vary []string, keys *codegen.KeyCache) string {
	return string(codegen.AppendInputsKey(appendShapeKey(make([]byte, 0, 192), q), q, vary, keys))
}

// add takes the bound and planned instance r, l for a batch launch; false
// when its shape has no batch program (the caller runs it alone). how
// says what of l is the instance's own; items are its arguments; sh is
// its shape where the caller has it (adopt's; nil: add finds it).
func (g *gpuBatcher) add(r *BatchResult, l *Loaded, how itemKind, items []batchItem, sh *gpuShape) bool {
	p, pl := l.Problem, l.Plan
	if p == nil || pl == nil || p.Maintain {
		return false
	}
	if sh == nil {
		key := codegen.BatchKey(p, pl, g.vary, &g.keys)
		v, ok := g.shapes.Load(key)
		if !ok {
			mine := &gpuShape{ready: make(chan struct{})}
			if v, ok = g.shapes.LoadOrStore(key, mine); !ok {
				// The first instance of the shape finds its program
				// (binding a column template, generating: a
				// millisecond); the shape's other instances wait for it.
				g.prepare(mine, l, items)
				close(mine.ready)
			}
		}
		sh = v.(*gpuShape)
	}
	<-sh.ready
	g.mu.Lock()
	defer g.mu.Unlock()
	if sh.group == nil {
		return false
	}
	if how != itemAdopted {
		sh.full++
	}
	if !sh.columns && how != itemAdopted && (sh.full == 2 || sh.full%4096 == 0) {
		// The key stands for the program: check it now and then on
		// another instance; where it does not hold, the shape's
		// instances run alone from here on.
		prog, err := g.devs[0].BatchProgram(p, pl, g.vary, false)
		if err != nil || prog.Source != sh.group.prog.Source {
			sh.group = nil
			sh.adoptable.Store(nil)
			return false
		}
	}
	grp := sh.group
	if how != itemAdopted && sh.tmpl == nil {
		sh.tmpl = p
		sh.adoptable.Store(p)
	}
	g.latest = time.Now()
	if g.pending == 0 {
		g.oldest = g.latest
	}
	it := gpuItem{r: r, l: l, how: how}
	if how == itemAdopted {
		it.items = items
		g.adopted.Add(1)
	}
	grp.items = append(grp.items, it)
	g.pending++
	if len(grp.items) >= launchSize(grp.prog, g.chunk) {
		g.sendLocked(grp)
	}
	return true
}

// launchRowBytes bounds the global memory a launch gives its instances for
// the rows their strips pass each other (codegen Program.BatchRowBytes:
// instances too wide for shared memory, e.g. long proteins against a query
// of over 128 residues with several tables): 256 MiB, several thousand
// instances of a few thousand cells.
const launchRowBytes = 256 << 20

// launchSize is how many instances a launch of prog takes: chunk, fewer
// where their rows between strips would pass launchRowBytes (at least
// 1,024, enough to fill a GPU).
func launchSize(prog *codegen.Program, chunk int) int {
	if prog.BatchRowBytes <= 0 {
		return chunk
	}
	return int(min(int64(chunk), max(launchRowBytes/prog.BatchRowBytes, 1024)))
}

// sendLocked queues grp's instances as one launch.
func (g *gpuBatcher) sendLocked(grp *gpuGroup) {
	if len(grp.items) == 0 {
		return
	}
	job := gpuLaunch{prog: grp.prog, items: grp.items}
	g.pending -= len(grp.items)
	grp.items = nil
	g.oldest = time.Now()
	g.mu.Unlock()
	g.queue <- job // a GPU takes it (the lock is free meanwhile)
	g.mu.Lock()
}

func (g *gpuBatcher) flushLocked() {
	for _, grp := range g.groups {
		g.sendLocked(grp)
	}
}

// close launches what waits and returns when every launch is done.
func (g *gpuBatcher) close() {
	close(g.stop)
	g.tickWG.Wait()
	g.mu.Lock()
	g.flushLocked()
	g.mu.Unlock()
	close(g.queue)
	g.devWG.Wait()
}

// launch runs job on d and delivers its results; instances the device
// reported an error in (or whose answer the rules refuse) run again alone
// on d, which words the error as `dpgpu solve` does.
func (g *gpuBatcher) launch(ctx context.Context, d BatchDevice, job gpuLaunch) {
	start := time.Now()
	// Longest first: a warp's time is its instance's, a block keeps its
	// place until its longest warp is done, and blocks start in order, so
	// the long ones start first and short ones fill in behind them.
	slices.SortStableFunc(job.items, func(a, b gpuItem) int {
		return cmp.Compare(b.l.Problem.Cells(), a.l.Problem.Cells())
	})
	insts := make([]gpu.BatchInstance, len(job.items))
	for k, it := range job.items {
		insts[k] = gpu.BatchInstance{P: it.l.Problem, Plan: it.l.Plan}
	}
	outs, st, err := d.RunBatch(ctx, job.prog, insts)
	g.launches.Add(1)
	g.batched.Add(int64(len(insts)))
	g.cells.Add(st.Cells)
	g.kernel.Add(int64(st.Kernel))
	g.copies.Add(int64(st.Copies))
	g.host.Add(int64(st.Host))
	if st.Compiled {
		g.compiled.Add(1)
	}
	if err == nil {
		g.mu.Lock()
		if g.spans == nil {
			g.spans = map[BatchDevice][][2]time.Duration{}
		}
		g.spans[d] = append(g.spans[d], [2]time.Duration{st.Start, st.End})
		g.mu.Unlock()
	}
	g.b.run.Add(int64(time.Since(start)))
	opt := backend.Options{Threads: 1, NoSpecial: g.b.opt.NoSpecial}
	for k, it := range job.items {
		r := it.r
		switch {
		case err != nil:
			r.Err = err
			if ctx.Err() != nil {
				r.Err = ctx.Err()
			}
		case outs[k].Result == nil:
			// Alone, the instance needs its own problem and plan.
			l, err := g.own(it)
			if err != nil {
				r.Err = err
				break
			}
			r = g.b.run1(ctx, d, r, l, opt)
		default:
			res := outs[k].Result
			r.Answer = res.Answer
			r.Cells, r.Seconds = res.Stats.Cells, res.Stats.Seconds
		}
		g.deliver(r)
	}
}

// own is it's problem and plan made for it alone: bound and checked again
// where it adopted its shape's recurrence, planned where it took the
// shape's plan.
func (g *gpuBatcher) own(it gpuItem) (*Loaded, error) {
	p := it.l.Problem
	switch it.how {
	case itemOwn:
		return it.l, nil
	case itemAdopted:
		cfg := g.b.cfg
		cfg.Args = make([]string, len(it.items))
		cfg.ArgData = make([]*formats.Table, len(it.items))
		for k, x := range it.items {
			cfg.Args[k] = x.label
			if x.data != nil {
				cfg.ArgData[k] = x.data
			}
		}
		var err error
		if p, err = g.b.check(cfg); err != nil {
			return nil, InputError(err)
		}
	}
	return loadChecked(g.b.src, g.b.file, p)
}

// busy is the GPUs' busy time: the union of each GPU's kernel spans
// (launches overlap), summed over the GPUs.
func (g *gpuBatcher) busy() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	var total time.Duration
	for _, spans := range g.spans {
		spans = slices.Clone(spans)
		slices.SortFunc(spans, func(a, b [2]time.Duration) int { return cmp.Compare(a[0], b[0]) })
		var end time.Duration
		for k, s := range spans {
			if k == 0 || s[0] > end {
				total += s[1] - s[0]
				end = s[1]
			} else if s[1] > end {
				total += s[1] - end
				end = s[1]
			}
		}
	}
	return total
}
