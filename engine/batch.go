package engine

// Batches: many instances of one problem in one run (issue #14). The .dp
// file is parsed once; every instance is bound, checked and planned on its
// own (its sizes come from its data) and run single-threaded, as many at
// once as there are workers. Instances are read lazily from their
// arguments and their results handed back in input order through a
// bounded reorder window, so a batch far larger than memory streams.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/heldkarp"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/formats"
	"github.com/dpgpu/dpgpu/problems/render"
	"github.com/dpgpu/dpgpu/sema"
	"github.com/dpgpu/dpgpu/source"
)

// BatchArg is one positional argument of a batch. An argument that holds
// several instances is iterated: a FASTA file (.fa, .fasta, .fna) gives
// one instance per record, a directory one per regular file (sorted by
// name, hidden files left out), and "@LIST" one per path listed in the
// text file LIST (one a line; relative paths are relative to LIST's
// directory). Any other file is one value that every instance shares.
type BatchArg struct {
	Spec string // as typed
	kind argKind
	path string

	once sync.Once
	one  bool // single's answer
}

type argKind uint8

const (
	argFile argKind = iota
	argFASTA
	argDir
	argList
)

// OpenBatchArg classifies spec. It checks that the path exists, so that a
// typo is refused before anything runs; records are read only as the
// batch goes.
func OpenBatchArg(spec string) (*BatchArg, error) {
	if list, ok := strings.CutPrefix(spec, "@"); ok {
		if st, err := os.Stat(list); err != nil || !st.Mode().IsRegular() {
			return nil, InputError(fmt.Errorf("%s: no such list of paths (write ./%s for a file whose name begins with @)", list, spec))
		}
		return &BatchArg{Spec: spec, kind: argList, path: list}, nil
	}
	st, err := os.Stat(spec)
	if err != nil {
		return nil, InputError(fmt.Errorf("%s: no such file or directory", spec))
	}
	switch {
	case st.IsDir():
		return &BatchArg{Spec: spec, kind: argDir, path: spec}, nil
	case formats.IsFASTA(spec):
		return &BatchArg{Spec: spec, kind: argFASTA, path: spec}, nil
	}
	return &BatchArg{Spec: spec, kind: argFile, path: spec}, nil
}

// Multi reports whether the argument holds several instances.
func (a *BatchArg) Multi() bool { return a.kind != argFile }

// single reports whether the argument holds one instance: a file, or a
// FASTA file of one record (read up to its second record, once).
func (a *BatchArg) single() bool {
	a.once.Do(func() {
		switch a.kind {
		case argFile:
			a.one = true
		case argFASTA:
			n := 0
			for _, err := range formats.Records(a.path) {
				if n++; err != nil {
					n = 0 // unreadable: the batch says so
				}
				if err != nil || n > 1 {
					break
				}
			}
			a.one = n == 1
		}
	})
	return a.one
}

// batchItem is one instance's value of one argument: a file to bind
// (path), or a record read already (data, named label in messages).
type batchItem struct {
	name  string // for the output: the record's ID or the file
	label string // for bind's messages: the path, or path#k
	data  *formats.Table
	err   error // the record cannot be used
}

// items iterates the argument's values; the error ends the iteration (the
// argument itself cannot be read).
func (a *BatchArg) items() iter.Seq2[batchItem, error] {
	return func(yield func(batchItem, error) bool) {
		switch a.kind {
		case argFile:
			yield(batchItem{name: a.path, label: a.path}, nil)
		case argFASTA:
			k := 0
			var chars formats.CharArena
			for r, err := range formats.Records(a.path) {
				if err != nil {
					yield(batchItem{}, InputError(err))
					return
				}
				k++
				it := batchItem{name: r.Name, label: a.path + "#" + strconv.Itoa(k), err: r.Err}
				if r.Err == nil {
					it.data = chars.Char(r)
				}
				if !yield(it, nil) {
					return
				}
			}
		case argDir:
			entries, err := os.ReadDir(a.path)
			if err != nil {
				yield(batchItem{}, InputError(err))
				return
			}
			for _, e := range entries { // sorted by name
				if strings.HasPrefix(e.Name(), ".") {
					continue
				}
				p := filepath.Join(a.path, e.Name())
				if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
					continue
				}
				if !yield(batchItem{name: e.Name(), label: p}, nil) {
					return
				}
			}
		case argList:
			dir := filepath.Dir(a.path)
			for p, err := range formats.PathList(a.path) {
				if err != nil {
					yield(batchItem{}, InputError(err))
					return
				}
				full := p
				if !filepath.IsAbs(p) {
					full = filepath.Join(dir, p)
				}
				if !yield(batchItem{name: p, label: full}, nil) {
					return
				}
			}
		}
	}
}

// BatchOptions say how a batch runs.
type BatchOptions struct {
	// Config is bound to every instance: --input and --set. Its Args and
	// ArgData are the batch's own.
	Config bind.Config
	// Workers is the number of instances run at once (0: one per core),
	// each on one thread.
	Workers int
	// NewExecutor makes each worker's executor; nil means the CPU
	// executor with one thread. An executor that cannot run instances
	// concurrently (the GPU's) wants Workers = 1.
	NewExecutor func() (backend.Executor, error)
	// Notice, where not nil, takes advice for the person running the batch
	// (one line each, at most once): a batch whose instances compile many
	// GPU programs.
	Notice io.Writer
	// Notes, where not nil, takes the checker's notes on the recurrence
	// (ir.Problem.Notes), once for the batch.
	Notes func(source.ErrorList)
	// Pairs pairs the multi-instance arguments record by record; otherwise
	// every record of each is run against every record of the others (the
	// first argument outermost).
	Pairs bool
	// Traceback renders each instance's solution (BatchResult.Solution,
	// Path, Emitted).
	Traceback bool
	// FailFast stops at the first failed instance in input order.
	FailFast bool
	// NoSpecial runs the schedule where the planner recognised a better
	// algorithm (backend.Options.NoSpecial): `batch --no-special`.
	NoSpecial bool
	// Window bounds the results held for reordering and the instances
	// read ahead (0: 64 per worker).
	Window int
	// Memory is what the instances running at once may hold together;
	// 0 means the available memory (hostmem) less the process's own.
	Memory int64
	// Devices are GPUs that run instances many to a launch (issue #14):
	// the workers bind and plan each instance and hand those whose shape
	// has a batch program (codegen.KernelBatch: wavefronts answering one
	// cell or a region) to the GPUs, BatchChunk of a shape at a time; the
	// others run on the workers' executors. Not with Traceback.
	Devices []BatchDevice
}

// BatchResult is one instance's outcome.
type BatchResult struct {
	Index int64    // 0-based, in input order
	Names []string // one per argument: the record's ID, the file's name, or the shared file
	// Err is why the instance failed: a bad record, an error of the
	// recurrence, a refusal for memory. The batch goes on.
	Err      error
	Answer   ir.Value
	CellType ir.Type
	Cells    int64
	Seconds  float64
	// With Traceback: the built-in's rendering of the solution ("" when
	// it has no renderer), and the path and emitted values.
	Solution string
	Path     [][2]int64
	Emitted  []ir.Value
	// Alignment is the path as an alignment record, for problems of two
	// sequences (render.AlignmentRecord); nil otherwise.
	Alignment *render.Record
}

// BatchStats are a batch's measurements. The per-step times are summed
// over instances (CPU seconds, not wall time).
type BatchStats struct {
	Instances, Failed int64
	Cells             int64
	Seconds           float64 // wall time of the whole batch
	// Bind, Plan, Run and Render are the time spent binding and checking,
	// planning, executing and rendering (with Traceback), summed over
	// instances.
	Bind, Plan, Run, Render time.Duration
	// Read is the time the reader spent reading and parsing the
	// arguments' records, Write the time emit took (formatting and
	// writing the results): each one goroutine, beside the workers.
	// Parse is the time the goroutines reading the files of --pairs
	// spent (one a file, beside the reader; summed).
	Read, Write, Parse time.Duration
	// GPU batch launches (BatchOptions.Devices): how many, the instances
	// they ran, and their kernel, copy and host (packing inputs, decoding
	// answers) times, summed; Compiled counts programs NVRTC compiled.
	Launches, Batched       int64
	Kernel, Copies, GPUHost time.Duration
	Compiled                int64
	// Programs is how many batch programs the launches used (one per
	// shape, or per column template: batchcols.go); Adopted how many
	// instances took their shape's recurrence (sema.Adopt).
	Programs, Adopted int64
	// Packed is how many of the programs compute two instances a warp in
	// 16-bit halves (codegen Program.BatchPacked).
	Packed int64
	// SharedPlans is how many instances checked in full took the plan of
	// an earlier instance of their shape (plan.Rebind) instead of
	// planning.
	SharedPlans int64
	// Busy is the GPUs' busy time: the union of the kernels' spans on
	// each GPU (launches run at once, so Kernel, their sum, counts shared
	// time twice), summed over the GPUs.
	Busy         time.Duration
	BatchedCells int64 // the cells of the batched instances
}

// ErrBatchFailed is what errors.Is finds in Batch's error when instances
// failed (each has had its line) and nothing else went wrong; it is an
// input error (exit status 2).
var ErrBatchFailed = errors.New("instances failed")

// batchFailed is Batch's error when instances failed.
type batchFailed struct{ failed, instances int64 }

func (e *batchFailed) Error() string {
	return fmt.Sprintf("%d of %d instances failed", e.failed, e.instances)
}
func (e *batchFailed) Is(target error) bool { return target == ErrBatchFailed || target == ErrInput }

// Batch runs every instance that args hold of the problem src and calls
// emit with each result in input order, from one goroutine. An emit error
// stops the batch and is returned. It returns ctx's error when ctx is
// cancelled, an input error for arguments that cannot be read or paired,
// and ErrBatchFailed (an input error) when an instance failed.
func Batch(ctx context.Context, src *Source, args []*BatchArg, opt BatchOptions, emit func(*BatchResult) error) (*BatchStats, error) {
	start := time.Now()
	cfg := opt.Config
	if cfg.Files == nil {
		cfg.Files = &bind.FileCache{} // every instance reads the same matrix file
	}
	fileName := src.Path
	if src.Builtin {
		fileName = src.Name + ".dp"
		if cfg.BaseDir == "" {
			cfg.BaseDir = "."
		}
	}
	f, err := dsl.Parse(fileName, src.Text)
	if err != nil {
		return nil, InputError(err)
	}
	if err := checkBatchArgs(f, args); err != nil {
		return nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	window := opt.Window
	if window <= 0 {
		window = 64 * workers
	}
	if opt.Traceback {
		opt.Devices = nil
	}
	if len(opt.Devices) > 0 {
		// Launches of BatchChunk instances, one filling while others run.
		window = max(window, (2+len(opt.Devices))*BatchChunk)
	}
	mem := opt.Memory
	if mem <= 0 {
		mem = 1 << 62
		if avail, ok := hostAvailable(); ok {
			mem = avail
		}
	}
	newEx := opt.NewExecutor
	if newEx == nil {
		newCPU, err := batchCPU()
		if err != nil {
			return nil, err
		}
		newEx = func() (backend.Executor, error) { return newCPU(), nil }
	}
	execs := make([]backend.Executor, workers)
	for w := range execs {
		if execs[w], err = newEx(); err != nil {
			return nil, err
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b := &batch{src: src, file: f, proto: sema.Prepare(f, nil), cfg: cfg, opt: opt, gate: newMemGate(mem)}
	type job struct {
		index int64
		items []batchItem
	}
	// Jobs travel in groups: a million short instances one at a time had
	// sixteen workers contend for the channel. A group grows only while
	// the workers are behind (the channel is full), so that a few large
	// instances still spread over all of them.
	const maxGroup = 32
	jobs := make(chan []job, 2*workers)
	results := make(chan *BatchResult, window)
	slots := make(chan struct{}, window) // read-ahead and reorder window
	var readErr error
	go func() { // the reader
		defer close(jobs)
		var group []job
		send := func() bool {
			select {
			case jobs <- group:
				group = nil
				return true
			case <-ctx.Done():
				return false
			}
		}
		var n int64
		mark := time.Now()
		for items, err := range instances(args, opt.Pairs, &b.parse) {
			b.read.Add(int64(time.Since(mark)))
			if err != nil {
				readErr = err
				break
			}
			select {
			case slots <- struct{}{}:
			default:
				// The window is full: the emitter waits for an
				// instance, perhaps one held here.
				if len(group) > 0 && !send() {
					return
				}
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
			group = append(group, job{n, items})
			n++
			if len(group) >= maxGroup {
				if !send() {
					return
				}
			} else {
				select {
				case jobs <- group:
					group = nil
				default:
				}
			}
			mark = time.Now()
		}
		if len(group) > 0 {
			send()
		}
	}()
	deliver := func(r *BatchResult) {
		select {
		case results <- r:
		case <-ctx.Done():
		}
	}
	if len(opt.Devices) > 0 {
		b.gpu = newGPUBatcher(ctx, b, args, opt.Devices, BatchChunk, deliver)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func(ex backend.Executor) {
			defer wg.Done()
			for group := range jobs {
				for _, j := range group {
					if r := b.solve(ctx, ex, j.index, j.items); r != nil {
						deliver(r)
					}
				}
			}
		}(execs[w])
	}
	go func() {
		wg.Wait()
		if b.gpu != nil {
			b.gpu.close()
		}
		close(results)
	}()

	st := &b.stats
	pending := map[int64]*BatchResult{}
	var next int64
	var stop error
	for r := range results {
		if stop != nil {
			continue // drain
		}
		pending[r.Index] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-slots
			if ctx.Err() != nil {
				break
			}
			st.Instances++
			st.Cells += r.Cells
			if r.Err != nil {
				st.Failed++
			}
			t := time.Now()
			err := emit(r)
			b.write.Add(int64(time.Since(t)))
			if err != nil {
				stop = err
				cancel()
				break
			}
			if r.Err != nil && opt.FailFast {
				stop = InputError(fmt.Errorf("instance %d (%s) failed; stopping (--fail-fast): %w", r.Index+1, strings.Join(r.Names, ", "), ErrBatchFailed))
				cancel()
				break
			}
		}
	}
	st.Seconds = time.Since(start).Seconds()
	st.Bind, st.Plan, st.Run, st.Render = time.Duration(b.bind.Load()), time.Duration(b.plan.Load()), time.Duration(b.run.Load()), time.Duration(b.render.Load())
	st.Read, st.Write, st.Parse = time.Duration(b.read.Load()), time.Duration(b.write.Load()), time.Duration(b.parse.Load())
	st.SharedPlans = b.sharedPlans.Load()
	if g := b.gpu; g != nil {
		st.Launches, st.Batched, st.Compiled, st.Adopted = g.launches.Load(), g.batched.Load(), g.compiled.Load(), g.adopted.Load()
		g.mu.Lock()
		st.Programs = int64(len(g.groups))
		for _, grp := range g.groups {
			if grp.prog.BatchPacked {
				st.Packed++
			}
		}
		g.mu.Unlock()
		st.Busy, st.BatchedCells = g.busy(), g.cells.Load()
		st.Kernel, st.Copies, st.GPUHost = time.Duration(g.kernel.Load()), time.Duration(g.copies.Load()), time.Duration(g.host.Load())
	}
	switch {
	case stop != nil:
		return st, stop
	case ctx.Err() != nil:
		return st, ctx.Err()
	case readErr != nil:
		return st, readErr
	case st.Failed > 0:
		return st, &batchFailed{st.Failed, st.Instances}
	}
	return st, nil
}

// checkBatchArgs refuses, once for the whole batch, what would fail every
// instance: a wrong number of arguments, or FASTA records for an input
// that does not hold characters.
func checkBatchArgs(f *dsl.File, args []*BatchArg) error {
	var decl *dsl.ArgsDecl
	inputs := map[string]*dsl.InputDecl{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *dsl.ArgsDecl:
			if decl == nil {
				decl = d
			}
		case *dsl.InputDecl:
			inputs[d.Name] = d
		}
	}
	if len(args) == 0 {
		return nil // the file's own data: one instance
	}
	if decl == nil || len(decl.Items) != len(args) {
		n := 0
		if decl != nil {
			n = len(decl.Items)
		}
		return InputError(fmt.Errorf("%s takes %d positional argument%s (its `args:` line), got %d", f.Name, n, pluralS(n), len(args)))
	}
	for k, a := range args {
		if a.kind != argFASTA {
			continue
		}
		it := decl.Items[k]
		in := inputs[it.Names[0].Name]
		if it.Format != "" || in == nil || in.Type != "char" {
			return InputError(fmt.Errorf("argument %d (%s) is a FASTA file, whose records are characters, but it fills %s, which is not a char input", k+1, a.Spec, argText(it)))
		}
	}
	return nil
}

// ArgNames are the names of what each positional argument of the problem
// src fills, as its `args:` line says ("A", or "(val,wt,cap)" for a
// group): the column heads of a batch's output.
func ArgNames(src *Source) []string {
	f, err := dsl.Parse(src.Name, src.Text)
	if err != nil || f == nil {
		return nil
	}
	for _, d := range f.Decls {
		if d, ok := d.(*dsl.ArgsDecl); ok {
			var names []string
			for _, it := range d.Items {
				names = append(names, argText(it))
			}
			return names
		}
	}
	return nil
}

func argText(it *dsl.ArgItem) string {
	if len(it.Names) == 1 && it.Format == "" {
		return it.Names[0].Name
	}
	var ns []string
	for _, n := range it.Names {
		ns = append(ns, n.Name)
	}
	return "(" + strings.Join(ns, ",") + ")"
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// instances iterates the combinations of the arguments' values: one when
// no argument holds several, the records of the one that does, and for
// several either their pairs (pairs) or every combination (the first
// outermost). An inner argument is read again for every value of the
// outer ones unless its values fit in a small cache.
func instances(args []*BatchArg, pairs bool, busy *atomic.Int64) iter.Seq2[[]batchItem, error] {
	return func(yield func([]batchItem, error) bool) {
		if len(args) == 0 {
			yield(nil, nil)
			return
		}
		srcs := make([]func() iter.Seq2[batchItem, error], len(args))
		for k, a := range args {
			srcs[k] = a.items
		}
		if pairs {
			zip(args, srcs, busy, yield)
			return
		}
		// The cross product, the first argument outermost; inner ones
		// replayed from a cache where they are small.
		for k := 1; k < len(args); k++ {
			if args[k].Multi() {
				srcs[k] = cached(args[k])
			}
		}
		cur := make([]batchItem, len(args))
		var rec func(k int) bool
		rec = func(k int) bool {
			if k == len(args) {
				return yield(append([]batchItem(nil), cur...), nil)
			}
			for it, err := range srcs[k]() {
				if err != nil {
					yield(nil, err)
					return false
				}
				cur[k] = it
				if !rec(k + 1) {
					return false
				}
			}
			return true
		}
		rec(0)
	}
}

// cacheBytes bounds what an inner argument of a cross product may hold in
// memory to be replayed instead of read again.
const cacheBytes = 64 << 20

// cached returns a replayable source of a's values: all of them in memory
// when they fit in cacheBytes, else a's own iterator, read again each time.
func cached(a *BatchArg) func() iter.Seq2[batchItem, error] {
	var once sync.Once
	var all []batchItem
	fits := true
	return func() iter.Seq2[batchItem, error] {
		once.Do(func() {
			var size int64
			for it, err := range a.items() {
				if err != nil {
					fits = false // the reader reports it
					return
				}
				if it.data != nil {
					size += int64(len(it.data.I)) * 8
				}
				size += int64(len(it.name) + len(it.label) + 64)
				if size > cacheBytes {
					fits, all = false, nil
					return
				}
				all = append(all, it)
			}
		})
		if !fits {
			return a.items()
		}
		return func(yield func(batchItem, error) bool) {
			for _, it := range all {
				if !yield(it, nil) {
					return
				}
			}
		}
	}
}

// prefetch reads seq in a goroutine of its own, a step ahead of the
// caller, in runs of items (the arguments of a zip are read in parallel,
// each file by one core); stop ends it early.
func prefetch(seq iter.Seq2[batchItem, error], busy *atomic.Int64) (next func() (batchItem, error, bool), stop func()) {
	const run = 256
	type chunk struct {
		items []batchItem
		err   error
	}
	ch := make(chan chunk, 4)
	done := make(chan struct{})
	go func() {
		defer close(ch)
		items := make([]batchItem, 0, run)
		send := func(c chunk) bool {
			select {
			case ch <- c:
				return true
			case <-done:
				return false
			}
		}
		mark := time.Now()
		for it, err := range seq {
			if err != nil {
				send(chunk{items: items, err: err})
				return
			}
			items = append(items, it)
			if len(items) == run {
				if busy != nil {
					busy.Add(int64(time.Since(mark)))
				}
				if !send(chunk{items: items}) {
					return
				}
				items = make([]batchItem, 0, run)
				mark = time.Now()
			}
		}
		if len(items) > 0 {
			send(chunk{items: items})
		}
	}()
	var cur chunk
	var pos int
	next = func() (batchItem, error, bool) {
		for pos == len(cur.items) {
			if cur.err != nil {
				err := cur.err
				cur.err = nil
				return batchItem{}, err, false
			}
			c, ok := <-ch
			if !ok {
				return batchItem{}, nil, false
			}
			cur, pos = c, 0
		}
		pos++
		return cur.items[pos-1], nil, true
	}
	var once sync.Once
	stop = func() { once.Do(func() { close(done) }) }
	return next, stop
}

// zip pairs the multi-instance arguments record by record; a single-valued
// argument joins every pair. Arguments of different lengths are an error,
// reported when the shorter ends.
func zip(args []*BatchArg, srcs []func() iter.Seq2[batchItem, error], busy *atomic.Int64, yield func([]batchItem, error) bool) {
	fixed := make([]batchItem, len(args))
	var nexts []func() (batchItem, error, bool)
	var multi []int
	for k, a := range args {
		if !a.Multi() {
			for it, err := range srcs[k]() {
				if err != nil {
					yield(nil, err)
					return
				}
				fixed[k] = it
			}
			continue
		}
		next, stop := prefetch(srcs[k](), busy)
		defer stop()
		nexts = append(nexts, next)
		multi = append(multi, k)
	}
	if len(multi) == 0 {
		yield(fixed, nil)
		return
	}
	for n := 0; ; n++ {
		cur := append([]batchItem(nil), fixed...)
		var done []string
		for m, next := range nexts {
			it, err, ok := next()
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				done = append(done, args[multi[m]].Spec)
				continue
			}
			cur[multi[m]] = it
		}
		switch {
		case len(done) == len(nexts):
			return
		case len(done) > 0:
			yield(nil, InputError(fmt.Errorf("--pairs: %s ended after %d instances, the other arguments hold more", strings.Join(done, " and "), n)))
			return
		}
		if !yield(cur, nil) {
			return
		}
	}
}

// batch is the state the workers share.
type batch struct {
	src  *Source
	file *dsl.File
	// proto is file's declarations checked once (nil where they hold an
	// error): the instances check only their data and recurrence.
	proto *sema.Prototype
	noted sync.Once // the checker's notes printed (check)
	cfg   bind.Config
	opt   BatchOptions
	gate  *memGate
	gpu   *gpuBatcher // BatchOptions.Devices

	bind, plan, run, render atomic.Int64 // nanoseconds
	// plans: by shapeKey, a plan that serves the shape's instances
	// (load); sharedPlans counts the instances that took one.
	plans       sync.Map
	sharedPlans atomic.Int64
	read, write atomic.Int64 // the reader's and the writer's busy time
	parse       atomic.Int64 // zip's file readers' busy time (beside the reader)
	stats       BatchStats
}

// solve runs one instance on ex, or hands it to the GPU batcher and
// returns nil (the batcher delivers its result).
func (b *batch) solve(ctx context.Context, ex backend.Executor, index int64, items []batchItem) *BatchResult {
	r := &BatchResult{Index: index, Names: make([]string, len(items))}
	cfg := b.cfg
	if len(items) > 0 {
		cfg.Args = make([]string, len(items))
		cfg.ArgData = make([]*formats.Table, len(items))
	}
	for k, it := range items {
		r.Names[k] = it.name
		cfg.Args[k] = it.label
		if it.err != nil && r.Err == nil {
			r.Err = InputError(it.err)
		}
		if it.data != nil {
			cfg.ArgData[k] = it.data
		}
	}
	if r.Err != nil {
		return r
	}
	t0 := time.Now()
	if b.gpu != nil {
		// An instance of a shape already running in batch launches: its
		// data checked, the shape's recurrence and plan will do.
		if q, err := b.checkData(cfg); err == nil {
			if p, pl, sh := b.gpu.adopt(q); p != nil {
				t1 := time.Now()
				b.bind.Add(int64(t1.Sub(t0)))
				r.CellType = p.CellType
				ok := b.gpu.add(r, &Loaded{Source: b.src, File: b.file, Problem: p, Plan: pl}, itemAdopted, items, sh)
				b.plan.Add(int64(time.Since(t1)))
				if ok {
					return nil
				}
				t0 = time.Now()
			}
		}
	}
	p, err := b.check(cfg)
	t1 := time.Now()
	b.bind.Add(int64(t1.Sub(t0)))
	if err != nil {
		r.Err = InputError(err)
		return r
	}
	if b.gpu != nil {
		// A shape already running in batch launches: its plan will do.
		if pl := b.gpu.planFor(p); pl != nil {
			r.CellType = p.CellType
			ok := b.gpu.add(r, &Loaded{Source: b.src, File: b.file, Problem: p, Plan: pl}, itemSharedPlan, items, nil)
			b.plan.Add(int64(time.Since(t1)))
			if ok {
				return nil
			}
		}
	}
	l, err := b.load(p)
	b.plan.Add(int64(time.Since(t1)))
	if err != nil {
		r.Err = err
		return r
	}
	r.CellType = p.CellType
	if b.gpu != nil && b.gpu.add(r, l, itemOwn, items, nil) {
		return nil
	}
	return b.run1(ctx, ex, r, l, backend.Options{Threads: 1, Traceback: b.opt.Traceback, NoSpecial: b.opt.NoSpecial})
}

// check is bind.Check(b.file, cfg), through the batch's Prototype where
// it has one.
func (b *batch) check(cfg bind.Config) (p *ir.Problem, err error) {
	if b.proto == nil {
		p, err = bind.Check(b.file, cfg)
	} else {
		p, err = b.proto.Check(bind.Bind(b.file, cfg))
	}
	if p != nil && len(p.Notes) > 0 && b.opt.Notes != nil {
		// The checker's notes are the recurrence's, the same for every
		// instance: said once.
		b.noted.Do(func() { b.opt.Notes(p.Notes) })
	}
	return p, err
}

// checkData is bind.CheckData(b.file, cfg), through the batch's
// Prototype where it has one.
func (b *batch) checkData(cfg bind.Config) (*ir.Problem, error) {
	if b.proto == nil {
		return bind.CheckData(b.file, cfg)
	}
	return b.proto.CheckData(bind.Bind(b.file, cfg))
}

// load plans p: with the plan of an earlier instance of the same shape
// (sizes, scalars, input shapes, inf in the data) where that plan did not
// depend on its instance's data (plan.Rebind), else in full — which then
// serves the shape's later instances. Planning a 150 x 150 alignment costs
// a third of its whole run on one core.
func (b *batch) load(p *ir.Problem) (*Loaded, error) {
	if p.Schedule == heldkarp.Schedule {
		return loadChecked(b.src, b.file, p)
	}
	key := shapeKey(p)
	if v, ok := b.plans.Load(key); ok {
		if pl, ok := plan.Rebind(v.(*plan.Plan), p); ok {
			b.sharedPlans.Add(1)
			return &Loaded{Source: b.src, File: b.file, Problem: p, Plan: pl}, nil
		}
	}
	l, err := loadChecked(b.src, b.file, p)
	if err == nil && l.Plan != nil && !l.Plan.DataBound {
		b.plans.LoadOrStore(key, l.Plan)
	}
	return l, err
}

// sharedPlan is the plan load keeps for p's shape, as it is (its
// references an earlier instance's: for a batch program, which reads the
// plan's schedule and answer only), where its answer reads no inputs; nil
// where there is none.
func (b *batch) sharedPlan(p *ir.Problem) *plan.Plan {
	if p.Schedule == heldkarp.Schedule {
		return nil
	}
	v, ok := b.plans.Load(shapeKey(p))
	if !ok {
		return nil
	}
	pl := v.(*plan.Plan)
	if pl.Answer.Expr != nil && plan.ReadsInput(pl.Answer.Expr) {
		return nil
	}
	return pl
}

// shapeKey names what a plan depends on: the problem's structure (one
// `.dp` file), sizes, scalars, input shapes and whether each input holds
// inf (which the checker's lowering looks for), never the data otherwise.
func shapeKey(p *ir.Problem) string {
	return string(appendShapeKey(make([]byte, 0, 128), p))
}

// appendShapeKey appends shapeKey(p) to b.
func appendShapeKey(b []byte, p *ir.Problem) []byte {
	b = strconv.AppendInt(b, p.Rows, 10)
	b = append(b, 'x')
	b = strconv.AppendInt(b, p.Cols, 10)
	b = append(b, ' ')
	b = append(b, p.CellType.String()...)
	b = append(b, p.Schedule...)
	for _, sc := range p.Scalars {
		b = append(b, ';')
		b = append(b, sc.Name...)
		b = append(b, '=')
		b = strconv.AppendInt(b, sc.Value.I, 10)
		b = strconv.AppendUint(b, math.Float64bits(sc.Value.F), 16)
		b = append(b, sc.Value.T.String()...)
	}
	for _, in := range p.Inputs {
		b = append(b, ';')
		b = append(b, in.Name...)
		b = append(b, ' ')
		b = append(b, in.T.String()...)
		b = strconv.AppendInt(b, int64(in.Rows), 10)
		b = append(b, 'x')
		b = strconv.AppendInt(b, int64(in.Cols), 10)
		b = append(b, " inf:"...)
		b = strconv.AppendBool(b, in.HoldsInf())
	}
	return b
}

// run1 runs the bound and planned instance r, l alone on ex.
func (b *batch) run1(ctx context.Context, ex backend.Executor, r *BatchResult, l *Loaded, opt backend.Options) *BatchResult {
	p := l.Problem
	var need int64
	if l.Plan != nil {
		m := plan.CPUMemory(p, l.Plan, 1, opt.KeepGrid(p))
		need = m.HostInputs + m.Work + m.Grid
	}
	if err := b.gate.acquire(ctx, need); err != nil {
		r.Err = err
		return r
	}
	t2 := time.Now()
	res, err := Run(ctx, l, ex, opt)
	t3 := time.Now()
	b.run.Add(int64(t3.Sub(t2)))
	b.gate.release(need)
	if err != nil {
		r.Err = err
		return r
	}
	r.Answer = res.Answer()
	st := res.Stats()
	r.Cells, r.Seconds = st.Cells, st.Seconds
	if res.Tour != nil {
		r.CellType = res.Tour.Answer().T
	}
	if b.opt.Traceback && res.Grid != nil {
		if s, ok := problems.Solution(p.Name, p, res.Grid, res.Tree); ok {
			r.Solution = s
		} else if res.Tree != nil && (res.Grid.Path == nil || p.Dims != 2) {
			// A tree that branches, or a path of a grid that [i][j]
			// would misname (1-D, 3-D): each cell as the user names it.
			// A path of a 2-D grid is written as solve writes it.
			r.Solution = res.Tree.Outline(p.CellText)
		}
		r.Path, r.Emitted = res.Grid.Path, res.Grid.Emitted
		if a, ok := render.AlignmentRecord(p, r.Path, render.LeadGap(res.Tree)); ok {
			r.Alignment = &a
		}
		res.Grid.Grid = nil
		b.render.Add(int64(time.Since(t3)))
	}
	return r
}

// loadChecked is loadParsed after the check: the Held-Karp instance or the
// plan.
func loadChecked(src *Source, f *dsl.File, p *ir.Problem) (*Loaded, error) {
	l, err := finishLoad(src, f, p)
	if err != nil {
		return nil, InputError(err)
	}
	return l, nil
}

// memGate lets instances run while the memory they hold together stays
// within a budget: a large instance waits for smaller ones to finish, and
// one larger than the whole budget is refused (hostmem.ErrTooLarge).
type memGate struct {
	mu     sync.Mutex
	free   int64
	budget int64
	wake   chan struct{} // closed and replaced when memory is released
}

func newMemGate(budget int64) *memGate {
	return &memGate{free: budget, budget: budget, wake: make(chan struct{})}
}

func (g *memGate) acquire(ctx context.Context, n int64) error {
	if n > g.budget {
		return InputError(fmt.Errorf("the instance needs %s, more than the %s available: %w", hostmem.Bytes(n), hostmem.Bytes(g.budget), hostmem.ErrTooLarge))
	}
	for {
		g.mu.Lock()
		if n <= g.free {
			g.free -= n
			g.mu.Unlock()
			return nil
		}
		wake := g.wake
		g.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (g *memGate) release(n int64) {
	g.mu.Lock()
	g.free += n
	close(g.wake)
	g.wake = make(chan struct{})
	g.mu.Unlock()
}
