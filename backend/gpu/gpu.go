// Package gpu is the CUDA executor: it generates CUDA C for a planned
// problem (package codegen), compiles it with NVRTC through the on-disk
// CUBIN cache, and sweeps the grid on the device with the kernels of
// package templates (package cuda holds the driver bindings).
//
// Kernels by schedule:
//
//   - rows and cols: one launch per line, every cell of the line in
//     parallel; the lines a cell reads rotate in device memory.
//   - wavefront: the strip kernel (one persistent launch; warps sweep strips
//     of rows with the cells in registers, following the strip above
//     through progress flags) when the offsets are small; otherwise the
//     tile kernel (one launch per tile anti-diagonal, tiles in shared
//     memory, edges in O(width) buffers).
//   - the generic schedules (interval DP, 1-D look-back, ranges over
//     earlier rows: plan.Kind.Generic): the front kernel, one launch per
//     front of the plan's hyperplane over the whole grid in device memory,
//     each cell by a thread, a warp or a block as the front's size and
//     reduction length call for (fronts.go).
//
// With maintain (backend.Options.KeepGrid), finished lines, tiles or strips
// are copied to pinned host memory on a second stream while the next ones
// are computed, and CPU workers move them into the backend.Grid. The strip
// kernel writes each strip to a slot in device memory and flags it done in
// host memory; the host copies it out and frees the slot (keep.go).
//
// The device checks every read outside the grid or an input, and int
// overflow, where the generator could not prove them impossible; the first
// such error stops the run with a message naming the `.dp` position and the
// cell (source.ErrorList, which source.Format shows with a caret).
package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/mathtab"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/templates"
)

// Option configures an Executor.
type Option func(*config)

type config struct {
	device       int
	cacheDir     string
	codegen      codegen.Options
	stageMB      int64
	maxSlots     int64   // strip slots of maintain at most (0: see keepSlots; tests, tuning)
	copyWorkers  int     // CPU workers moving staged rows into the grid (0: see copyWorkers)
	tilesOff     bool    // line schedules a launch a line (or dp_lines), never dp_linetiles
	tileCells    int64   // dp_linetiles' cells a thread (0: planLineTiles chooses)
	tileLines    int64   // dp_linetiles' most lines a launch (0: planLineTiles chooses)
	tileTickets  bool    // dp_linetiles by tickets where the reach allows it (tests)
	tileWide     bool    // dp_linetiles for wide lines too (tests, measurements)
	tileDepth    int64   // dp_linetiles' lines between waits (0: planLineTiles chooses)
	passOff      bool    // never dp_linepass
	passLines    int64   // dp_linepass' lines a pass (0: planLinePass chooses)
	passTile     int64   // dp_linepass' positions a block (0: the line over the multiprocessors; tests)
	chainSegs    int64   // dp_linechain's most segments a residue class (0: chainSegs chooses; tests, tuning)
	chainNarrow  bool    // dp_linechain for narrow lines too (tests)
	chainTauRate float64 // chainSegs' τ*R (0: chainTauRate; tuning)
	chainTwoFrom int64   // lineChain.twoFrom (0: chainTwoPassFrom; -1: never; tests, tuning)
	// keepRPT, keepWarps: the strip kernel's rows a lane and warps a block
	// for runs that keep their grid in GPU memory (0: the defaults):
	// DPGPU_DEVICE_GRID_STRIP=RPTxWARPS, for measuring a traceback's blocks
	// (a block of 91,474 rows is only 90 strips of the default 1,024 rows,
	// fewer than an H200's 132 multiprocessors).
	keepRPT, keepWarps int
}

// WithDevice selects the GPU by ordinal (default 0).
func WithDevice(ordinal int) Option { return func(c *config) { c.device = ordinal } }

// WithCacheDir puts the CUBIN cache in dir (default: cuda.DefaultCacheDir).
func WithCacheDir(dir string) Option { return func(c *config) { c.cacheDir = dir } }

// WithCodegen sets the code generator's options (tile sizes, a forced
// wavefront kernel, ...); Maintain and Mem are set per run.
func WithCodegen(o codegen.Options) Option { return func(c *config) { c.codegen = o } }

// WithStageMB sets the size of each of the two staging buffers that
// maintain copies the grid through (default 32 MB; tests use less).
func WithStageMB(mb int64) Option { return func(c *config) { c.stageMB = mb } }

// Executor runs problems on one GPU. It is safe for concurrent use; runs
// are serialised.
type Executor struct {
	cfg   config
	drv   *cuda.Driver
	ctx   *cuda.Context
	dev   cuda.Device
	nvrtc *cuda.NVRTC
	cache *cuda.Cache

	mu      sync.Mutex
	s1, s2  *cuda.Stream
	modules map[string]*module
	stage   [2]*cuda.HostBuffer // pinned staging of maintain, reused
	retired []*cuda.HostBuffer  // staging outgrown during a run (freeRetired)
	scratch scratch             // runs' small buffers, reused
	inputs  keptInputs          // large inputs kept on the device across runs
	spare   spareGrid           // a closed device grid's memory, for the next
	runs    uint64              // runs started (run.serial)
	bslots  chan *batchSlot     // batch launches' streams and buffers (RunBatch)
	bclock  *cuda.Event         // batch launches' time origin (batchClock)
}

// New opens the driver, the device's primary context, NVRTC and the CUBIN
// cache. Without a usable driver or device the error wraps cuda.ErrNoDriver.
func New(opts ...Option) (*Executor, error) {
	templates.Prewarm() // beside opening the device, which takes longer
	cfg := config{stageMB: 32}
	lineTilesEnv(&cfg)
	linePassEnv(&cfg)
	if _, err := fmt.Sscanf(os.Getenv("DPGPU_DEVICE_GRID_STRIP"), "%dx%d", &cfg.keepRPT, &cfg.keepWarps); err != nil ||
		cfg.keepRPT < 1 || cfg.keepRPT > 8 || cfg.keepWarps < 1 || cfg.keepWarps > 16 {
		cfg.keepRPT, cfg.keepWarps = 0, 0
	}
	for _, o := range opts {
		o(&cfg)
	}
	drv, err := cuda.Open()
	if err != nil {
		return nil, err
	}
	if cfg.device < 0 || cfg.device >= len(drv.Devices()) {
		return nil, fmt.Errorf("%w: no GPU %d (%d present)", cuda.ErrNoDriver, cfg.device, len(drv.Devices()))
	}
	ctx, err := drv.NewContext(cfg.device)
	if err != nil {
		return nil, fmt.Errorf("opening GPU %d: %w", cfg.device, err)
	}
	e := &Executor{cfg: cfg, drv: drv, ctx: ctx, dev: ctx.Device(), modules: map[string]*module{}}
	fail := func(err error) (*Executor, error) {
		e.Close()
		return nil, err
	}
	if e.dev.Major < 7 {
		return fail(fmt.Errorf("GPU %s has compute capability %d.%d; dpgpu needs 7.0 or later", e.dev.Name, e.dev.Major, e.dev.Minor))
	}
	if e.nvrtc, err = cuda.OpenNVRTC(); err != nil {
		return fail(err)
	}
	if e.cache, err = cuda.OpenCache(cfg.cacheDir); err != nil {
		return fail(err)
	}
	if e.s1, err = ctx.NewStream(); err != nil {
		return fail(err)
	}
	if e.s2, err = ctx.NewStream(); err != nil {
		return fail(err)
	}
	if err := e.scratch.fill(ctx); err != nil {
		return fail(outOfMemory(fmt.Errorf("opening GPU %d: %w", cfg.device, err)))
	}
	return e, nil
}

// tableBudget is the most mathtab's tables may take: they are made on the
// host and uploaded as inputs.
func (e *Executor) tableBudget() int64 {
	var room []int64
	if avail, ok := hostmem.Available(); ok {
		room = append(room, avail)
	}
	if free, _, err := e.ctx.MemInfo(); err == nil {
		room = append(room, free)
	}
	return mathtab.Budget(room...)
}

// Close releases the modules, streams and the context.
func (e *Executor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for k, m := range e.modules {
		errs = append(errs, m.mod.Unload())
		delete(e.modules, k)
	}
	for h, b := range e.stage {
		if b != nil {
			errs = append(errs, b.Free())
			e.stage[h] = nil
		}
	}
	errs = append(errs, e.freeRetired())
	errs = append(errs, e.scratch.free(e.ctx))
	errs = append(errs, e.inputs.free(e.ctx))
	errs = append(errs, e.freeSpare())
	if e.bslots != nil {
		// The slots RunBatch calls have returned (the caller waits for
		// the calls); their device memory goes with the context.
	drain:
		for {
			select {
			case sl := <-e.bslots:
				sl.free()
			default:
				break drain
			}
		}
		e.bslots = nil
	}
	if e.bclock != nil {
		e.bclock.Destroy()
		e.bclock = nil
	}
	for _, s := range []*cuda.Stream{e.s1, e.s2} {
		if s != nil {
			errs = append(errs, s.Destroy())
		}
	}
	e.s1, e.s2 = nil, nil
	if e.ctx != nil {
		errs = append(errs, e.ctx.Close())
		e.ctx = nil
	}
	return errors.Join(errs...)
}

// Name is "cuda".
func (e *Executor) Name() string { return "cuda" }

// Device is e.g. "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)".
func (e *Executor) Device() string { return e.dev.String() }

// CUDADevice is the device's properties.
func (e *Executor) CUDADevice() cuda.Device { return e.dev }

// KeepsRows: the strip kernel writes chosen rows as it sweeps
// (backend.Options.KeepRows), for wavefronts it runs.
func (e *Executor) KeepsRows(pl *plan.Plan) bool {
	return codegen.StripFits(pl) && e.cfg.codegen.Kernel != codegen.KernelTile
}

// KeepsColumns: the strip kernel writes chosen columns with its chosen
// rows (backend.Options.KeepColumns), for the wavefronts of one table it
// runs forward (a program that cannot is refused at Run).
func (e *Executor) KeepsColumns(pl *plan.Plan) bool {
	return e.KeepsRows(pl) && pl.Direction != plan.Backward
}

// Program generates the CUDA program Run would compile for p with opt.
func (e *Executor) Program(p *ir.Problem, pl *plan.Plan, opt backend.Options) (*codegen.Program, error) {
	return e.generate(p, pl, opt)
}

// generate makes the program for a run. A strip kernel that keeps the
// grid needs two strips of cells in device memory; where they do not fit
// in half of what is free, the tile kernel (whose buffers are smaller)
// takes over.
func (e *Executor) generate(p *ir.Problem, pl *plan.Plan, opt backend.Options) (*codegen.Program, error) {
	o := e.codegenOptions(p, opt)
	prog, err := codegen.Generate(p, pl, o)
	if err == nil && prog.Mirror {
		// The transposed copy makes column walks coalesced, but the grid
		// alone may still fit where both do not.
		if free, _, err := e.ctx.MemInfo(); err == nil && frontBytes(prog, true)+inputBytes(prog) > free {
			o.NoMirror = true
			return codegen.Generate(p, pl, o)
		}
	}
	if err != nil || !prog.Keep {
		return prog, err
	}
	if free, _, err := e.ctx.MemInfo(); err == nil && 2*slotBytes(prog) > free/2 {
		o.Kernel = codegen.KernelTile
		return codegen.Generate(p, pl, o)
	}
	return prog, nil
}

func (e *Executor) codegenOptions(p *ir.Problem, opt backend.Options) codegen.Options {
	o := e.cfg.codegen
	o.Maintain = opt.KeepGrid(p)
	if opt.KeepOnDevice && e.cfg.keepRPT > 0 {
		o.RowsPerThread, o.StripWarps = e.cfg.keepRPT, e.cfg.keepWarps
	}
	o.KeepCols = len(opt.KeepColumns) > 0 && !o.Maintain
	o.KeepRows = (len(opt.KeepRows) > 0 || o.KeepCols) && !o.Maintain
	if o.ConstantBytes == 0 && e.dev.TotalConstMem > 0 {
		o.ConstantBytes = int64(e.dev.TotalConstMem) - 4<<10
	}
	if o.TextureMax == 0 && e.dev.MaxTexture1DLinear > 0 {
		o.TextureMax = int64(e.dev.MaxTexture1DLinear)
	}
	return o
}

// bitparBandsOnOne is the fewest strips of the bit-parallel kernel
// (codegen.BitparInput.Strips) from which a run on one GPU is split into
// two row bands, two launches, as over two GPUs (runBitparBands): the one
// launch over all the strips is slower from there on. Measured on an H200
// (`DPGPU_PERF=1 DPGPU_SLAB_SPECIAL=1 gpu.test -test.run TestPerfSlabs`,
// kernel medians): LCS 4,194,304² one launch 0.732 s, two bands 0.541 s,
// four 0.528 s; 2,097,152² 0.182, 0.163, 0.183 s; 1,048,576² (on two
// H200s, the session before) 0.052 s, two bands 0.054 s. Why the one
// launch falls behind was not profiled.
const bitparBandsOnOne = 1024

// tidy readies e for a run with opt: open, the memory of runs retired
// since freed, and a spare grid (kept for a traceback's blocks) freed
// unless the run keeps its grid on the device too. With lock, it takes
// e.mu for it (a run that then locks e its own way); else the caller
// holds it.
func (e *Executor) tidy(opt backend.Options, lock bool) error {
	if lock {
		e.mu.Lock()
		defer e.mu.Unlock()
	}
	if e.ctx == nil {
		return errors.New("gpu: the executor is closed")
	}
	if err := e.freeRetired(); err != nil {
		return err
	}
	if !opt.KeepOnDevice {
		// The spare grid is for runs that keep theirs on the device (a
		// traceback's blocks): no other run's memory waits for it.
		if err := e.freeSpare(); err != nil {
			return err
		}
	}
	return nil
}

// Run solves p as planned by pl on the GPU.
func (e *Executor) Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	start := time.Now()
	if err := backend.Start(ctx, p); err != nil {
		return nil, err
	}
	job := bitparFor(p, pl, opt) // a recognised algorithm (plan.Special) instead of the schedule
	if job != nil && int64(job.in.Strips) >= bitparBandsOnOne {
		// In two row bands, two launches on this GPU (bitparBandsOnOne).
		if err := e.tidy(opt, true); err != nil {
			return nil, err
		}
		return runBitparBands(ctx, []*Executor{e}, p, pl, opt, SlabOptions{PerGPU: 2}, job)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.tidy(opt, false); err != nil {
		return nil, err
	}
	if job != nil {
		return e.runBitpar(ctx, p, pl, opt, job, start)
	}
	// Math of one index read from tables (a lattice's pow(u, j) once a
	// column, not once a cell), as the CPU reads it.
	if q, ok := mathtab.Tables(p, e.tableBudget()); ok {
		p = q
	}
	compileStart := time.Now()
	trace := phases.Start(p.Name)
	prog, err := e.generate(p, pl, opt)
	if err != nil {
		return nil, err
	}
	trace.Mark("generate")
	mod, cached, err := e.loadTraced(prog, trace)
	if err != nil {
		return nil, err
	}
	if len(opt.KeepRows) > 0 && !opt.KeepGrid(p) && !prog.KeepRows {
		return nil, fmt.Errorf("gpu: the %s kernel of %s cannot keep chosen rows", prog.Kernel, p.Name)
	}
	if len(opt.KeepColumns) > 0 && !opt.KeepGrid(p) && !prog.KeepCols {
		return nil, fmt.Errorf("gpu: the %s kernel of %s cannot keep chosen columns", prog.Kernel, p.Name)
	}
	e.runs++
	r := &run{e: e, ctx: ctx, p: p, pl: pl, opt: opt, prog: prog, mod: mod, keep: opt.KeepGrid(p), trace: trace, serial: e.runs}
	done := false
	if opt.KeepOnDevice {
		if !(prog.Kernel == codegen.KernelStrip && !prog.Backward) && prog.Kernel != codegen.KernelFront {
			return nil, fmt.Errorf("%w: the %s kernel of %s", backend.ErrNotOnDevice, prog.Kernel, p.Name)
		}
		if b := opt.DeviceBudget; b > 0 && plan.GridBytes(p) > b {
			return nil, hostmem.TooLarge(fmt.Sprintf("keeping the %s of %s in GPU memory", p.GridText(), p.Name), plan.GridBytes(p), b, "the device budget", "")
		}
		r.onDevice = true
		defer func() {
			if r.devGrid != nil && !done {
				// The run failed after the sweep: freed, not kept as the
				// spare (which would take e.mu, held here).
				r.devGrid.spare = nil
				r.devGrid.Close()
			}
		}()
	}
	r.stats.CompileSeconds = time.Since(compileStart).Seconds()
	r.stats.CompileCached = cached
	defer func() {
		t := phases.Start(p.Name)
		r.release()
		t.Mark("release")
		t.Print(os.Stderr)
	}()
	if err := r.setup(); err != nil {
		return nil, err
	}
	r.trace.Mark("setup")
	switch prog.Kernel {
	case codegen.KernelLine:
		err = r.lines()
	case codegen.KernelTile:
		err = r.tiles()
	case codegen.KernelStrip:
		err = r.strips()
	case codegen.KernelFront:
		err = r.fronts()
	default:
		err = fmt.Errorf("gpu: unknown kernel %q", prog.Kernel)
	}
	if err != nil {
		// A device error explains a failure better than what followed it.
		if derr := r.deviceError(); derr != nil {
			return nil, derr
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	if err := r.deviceError(); err != nil {
		return nil, err
	}
	r.trace.Mark("sweep")
	res := &backend.Result{Backend: "cuda", Device: e.Device(), Grid: r.grid, Rows: r.rows, Columns: r.cols}
	if r.chained > 0 {
		res.Device += fmt.Sprintf("; %d of %d rows by residue classes of the row's step (the reduction on line %d chained, one term a cell)", r.chained, prog.Lines, analysis.FirstChain(p).Pos.Line)
	}
	if r.devGrid != nil {
		res.DeviceGrid = r.devGrid
	}
	if res, err = r.finish(res, r.answer, start); err != nil {
		return nil, err
	}
	done = true
	return res, nil
}

// finish ends a run whose sweep is done: the answer (backend.Finish with
// answer), the trace, and the statistics from start.
func (r *run) finish(res *backend.Result, answer func(*backend.Result) error, start time.Time) (*backend.Result, error) {
	if err := backend.Finish(r.p, r.opt, res, answer, traceback.Trace); err != nil {
		return nil, err
	}
	r.trace.Mark("answer")
	r.trace.Print(os.Stderr)
	r.stats.Cells = r.p.Cells()
	r.stats.Seconds = time.Since(start).Seconds()
	r.stats.DeviceBytes = r.devBytes
	r.stats.PeakHostBytes = r.hostBytes
	res.Stats = r.stats
	return res, nil
}
