package gpu

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// module is a loaded program: its kernels and globals. inUse counts the
// batch launches running it (under Executor.mu): those may run beside
// other work, and the module must outlive them.
type module struct {
	mod     *cuda.Module
	funcs   map[string]*cuda.Function
	globals map[string]cuda.DevicePtr
	inUse   int
}

// maxModules bounds the loaded modules an executor keeps (tests run many
// problems through one executor).
const maxModules = 32

// CompileError is a program NVRTC rejected. Log is NVRTC's log with
// locations in file:line form; the recurrence's lines name the `.dp` file.
type CompileError struct {
	Program string
	Log     string
	Err     error
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("compiling the generated CUDA program %s (see `dpgpu gen`):\n%s", e.Program, e.Log)
}

func (e *CompileError) Unwrap() error { return e.Err }

// load compiles prog (through the CUBIN cache) and loads it; cached reports
// that no compilation was needed.
func (e *Executor) load(prog *codegen.Program) (*module, bool, error) {
	return e.loadTraced(prog, nil)
}

// loadTraced is load, marking its steps on tr (DPGPU_TRACE).
func (e *Executor) loadTraced(prog *codegen.Program, tr *phases.Timer) (*module, bool, error) {
	h := sha256.New()
	h.Write([]byte(prog.Source))
	for _, o := range prog.Options {
		h.Write([]byte{0})
		h.Write([]byte(o))
	}
	key := hex.EncodeToString(h.Sum(nil))
	if m, ok := e.modules[key]; ok {
		return m, true, nil
	}
	cubin, log, hit, err := e.cache.Compile(e.nvrtc, prog.Source, prog.Name, e.dev.Arch(), prog.Options)
	if err != nil {
		if log != "" {
			return nil, false, &CompileError{Program: prog.Name, Log: codegen.MapLog(log), Err: err}
		}
		return nil, false, fmt.Errorf("compiling %s: %w", prog.Name, err)
	}
	tr.Mark(fmt.Sprintf("program from the cache (hit %v, %d bytes)", hit, len(cubin)))
	mod, err := e.ctx.LoadModule(cubin)
	tr.Mark("cuModuleLoadData")
	if err != nil {
		return nil, false, fmt.Errorf("loading %s: %w", prog.Name, err)
	}
	m := &module{mod: mod, funcs: map[string]*cuda.Function{}, globals: map[string]cuda.DevicePtr{}}
	var names []string
	switch prog.Kernel {
	case codegen.KernelLine:
		names = []string{codegen.FuncLine, codegen.FuncLines, codegen.FuncLineTiles, codegen.FuncLinePass, codegen.FuncGather}
		if prog.Chain {
			names = append(names, codegen.FuncLineChain)
		}
	case codegen.KernelTile:
		names = []string{codegen.FuncTile}
	case codegen.KernelStrip:
		names = []string{codegen.FuncStrip}
	case codegen.KernelFront:
		names = []string{codegen.FuncFrontThread, codegen.FuncFrontWarp, codegen.FuncFrontBlock, codegen.FuncFrontRange, codegen.FuncRegion, codegen.FuncGather}
	case codegen.KernelBitpar:
		names = []string{codegen.FuncBitpar}
	case codegen.KernelBatch:
		names = []string{codegen.FuncBatch}
	}
	for _, n := range names {
		f, err := mod.Function(n)
		if err != nil {
			mod.Unload()
			return nil, false, fmt.Errorf("%s: %w", prog.Name, err)
		}
		m.funcs[n] = f
	}
	globals := []string{codegen.SymError, codegen.SymAbort, codegen.SymAnswer, codegen.SymCapture}
	for _, in := range prog.Inputs {
		globals = append(globals, in.Symbol)
	}
	if prog.Kernel == codegen.KernelBitpar {
		globals = []string{codegen.SymAbort} // no recurrence, no preamble
	}
	if prog.Kernel == codegen.KernelBatch {
		globals = []string{codegen.SymError, codegen.SymAbort} // inputs through the launch's pointers
	}
	for _, g := range globals {
		p, _, err := mod.Global(g)
		if err != nil {
			mod.Unload()
			return nil, false, fmt.Errorf("%s: global %s: %w", prog.Name, g, err)
		}
		m.globals[g] = p
	}
	if prog.Kernel == codegen.KernelTile && prog.TileSharedBytes > 48<<10 {
		if err := m.funcs[codegen.FuncTile].SetMaxDynamicShared(prog.TileSharedBytes); err != nil {
			mod.Unload()
			return nil, false, err
		}
	}
	if prog.Kernel == codegen.KernelStrip && prog.StripSharedBytes > 48<<10 {
		if err := m.funcs[codegen.FuncStrip].SetMaxDynamicShared(prog.StripSharedBytes); err != nil {
			mod.Unload()
			return nil, false, err
		}
	}
	if len(e.modules) >= maxModules {
		for k, old := range e.modules {
			if old.inUse > 0 {
				continue
			}
			old.mod.Unload()
			delete(e.modules, k)
		}
	}
	e.modules[key] = m
	tr.Mark("functions and globals")
	return m, hit, nil
}

// run is one Run: the program, its device memory and the grid.
type run struct {
	e    *Executor
	ctx  context.Context
	p    *ir.Problem
	pl   *plan.Plan
	opt  backend.Options
	prog *codegen.Program
	mod  *module
	keep bool
	// onDevice: keep the grid in device memory (Options.KeepOnDevice)
	// rather than on the host; devGrid is it after the sweep.
	onDevice bool
	devGrid  *deviceGrid

	grid      *backend.Grid
	rows      *backend.Grid // Options.KeepRows: the kept rows (strip kernel)
	cols      *backend.Grid // Options.KeepColumns: the kept columns, one a row (strip kernel)
	serial    uint64        // the executor's count of runs when it started (keptInputs)
	st        *stager
	trace     *phases.Timer // DPGPU_TRACE
	allocs    []cuda.DevicePtr
	textures  []cuda.TexObject
	hostBufs  []*cuda.HostBuffer
	pooled    []pooled // small buffers from the executor's scratch
	events    []*cuda.Event
	devBytes  int64
	hostBytes int64
	stats     backend.Stats
	chained   int64 // rows dp_linechain computed

	part   cuda.DevicePtr // region answer partials
	parts  int
	capV   cuda.DevicePtr // captured answer cells (tile, line kernels)
	capN   int
	capLn  map[int64][]int // line kernel: capture indices by sweep line
	capPos cuda.DevicePtr
}

func (r *run) alloc(what string, bytes int64) (cuda.DevicePtr, error) {
	if bytes <= 0 {
		bytes = 8
	}
	var p cuda.DevicePtr
	var err error
	if bytes <= scratchMax {
		var class int64
		if p, class, err = r.e.scratch.takeDev(r.e.ctx, scratchClass(bytes)); err == nil {
			r.pooled = append(r.pooled, pooled{class: class, dev: p})
		}
	} else if p, err = r.e.ctx.Alloc(bytes); err == nil {
		r.allocs = append(r.allocs, p)
	}
	if err != nil {
		free, total, _ := r.e.ctx.MemInfo()
		return 0, outOfMemory(fmt.Errorf("allocating %s (%s) on %s (%s free of %s): %w", what, mb(bytes), r.e.dev.Name, mb(free), mb(total), err))
	}
	r.devBytes += bytes
	return p, nil
}

// awaitKernel waits for the kernel that records end when it finishes. It
// returns as soon as end completes — a goroutine waits on it, so that a
// kernel of 4 ms is not read 3 ms late by a doubling poll — and meanwhile
// calls tick (progress) after 1 ms, then at doubling intervals up to
// 50 ms. When the run's context ends, or tick fails, it calls stop (which
// makes the kernel end early) and returns the reason.
func (r *run) awaitKernel(end *cuda.Event, tick func() error, stop func()) error {
	done := make(chan error, 1)
	go func() { done <- end.Synchronize() }()
	wait := time.Millisecond
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("running %s on %s: %w", r.p.Name, r.e.dev.Name, err)
			}
			return nil
		case <-r.ctx.Done():
			stop()
			<-done
			return r.ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
		if err := tick(); err != nil {
			stop()
			<-done
			return err
		}
	}
}

// event is an event that records timing, released with the run.
func (r *run) event() (*cuda.Event, error) { return r.track(r.e.ctx.NewEvent()) }

// waitEvent is an event for the host or a stream to wait on (no timing;
// the host sleeps while it waits), released with the run.
func (r *run) waitEvent() (*cuda.Event, error) { return r.track(r.e.ctx.NewWaitEvent()) }

func (r *run) track(ev *cuda.Event, err error) (*cuda.Event, error) {
	if err != nil {
		return nil, err
	}
	r.events = append(r.events, ev)
	return ev, nil
}

// hostAlloc pins bytes of host memory for the run (Len may be more: small
// buffers come from the executor's scratch, zeroed).
func (r *run) hostAlloc(bytes int64) (*cuda.HostBuffer, error) {
	var h *cuda.HostBuffer
	var err error
	if bytes <= scratchMax {
		var class int64
		if h, class, err = r.e.scratch.takeHost(r.e.ctx, scratchClass(bytes)); err == nil {
			r.pooled = append(r.pooled, pooled{class: class, host: h})
		}
	} else if h, err = r.e.ctx.HostAlloc(bytes); err == nil {
		r.hostBufs = append(r.hostBufs, h)
	}
	if err != nil {
		return nil, outOfMemory(fmt.Errorf("pinning %s of host memory: %w", mb(bytes), err))
	}
	r.hostBytes += bytes
	return h, nil
}

// release frees what the run allocated, after the streams are idle.
func (r *run) release() {
	r.e.s1.Synchronize()
	r.e.s2.Synchronize()
	if r.st != nil {
		// CPU workers may still read the pinned buffers after an error.
		r.st.scatter[0].Wait()
		r.st.scatter[1].Wait()
	}

	for _, t := range r.textures {
		r.e.ctx.DestroyTexture(t)
	}
	for _, p := range r.allocs {
		r.e.ctx.Free(p)
	}
	for _, b := range r.pooled {
		r.e.scratch.give(r.e.ctx, b)
	}
	r.pooled = nil
	for _, h := range r.hostBufs {
		h.Free()
	}
	for _, ev := range r.events {
		ev.Destroy()
	}
}

// outOfMemory marks err with hostmem.ErrTooLarge when the driver ran out
// of memory: the estimate checked before allocating let the run through,
// but the machine still could not hold it, which is the instance's size
// and not an internal failure.
func outOfMemory(err error) error {
	if errors.Is(err, cuda.OutOfMemory) && !errors.Is(err, hostmem.ErrTooLarge) {
		return fmt.Errorf("%w (%w)", err, hostmem.ErrTooLarge)
	}
	return err
}

func mb(b int64) string {
	switch {
	case b >= 10<<30:
		return fmt.Sprintf("%.0f GB", float64(b)/(1<<30))
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (b+1023)/1024)
}

// setup checks memory, uploads the inputs and resets the module's globals.
func (r *run) setup() error {
	if err := r.checkMemory(); err != nil {
		return err
	}
	ctx := r.e.ctx
	for _, in := range r.prog.Inputs {
		if err := r.upload(in); err != nil {
			return fmt.Errorf("input %s: %w", in.In.Name, err)
		}
	}
	zero := make([]byte, 48)
	for _, g := range []string{codegen.SymError, codegen.SymAbort} {
		if err := ctx.CopyHtoD(r.mod.globals[g], unsafe.Pointer(&zero[0]), map[string]int64{codegen.SymError: 40, codegen.SymAbort: 4}[g]); err != nil {
			return err
		}
	}
	cs := int64(r.p.CellType.Size())
	if err := ctx.CopyHtoD(r.mod.globals[codegen.SymAnswer], unsafe.Pointer(&zero[0]), cs); err != nil {
		return err
	}
	r.trace.Mark("upload")
	if r.keep && !r.onDevice {
		r.grid = r.opt.NewGrid(r.p)
		r.hostBytes += r.p.Cells() * cs
	}
	return nil
}

// elemSize is the bytes of one element of an input on the device: its
// type's size, except in a texture, which has no 16-bit format here (2-byte
// integers go up as 4-byte ones).
func elemSize(in codegen.Input) int64 {
	size := int64(max(in.In.T.Size(), 1))
	if in.Place == codegen.Texture && size == 2 {
		size = 4
	}
	return size
}

// elemBytes converts an input to its device representation: elements of
// the type's size (codegen's element C type), except in a texture, which
// has no 16-bit format here: 2-byte integers go up as 4-byte ones
// (codegen fetches them as such).
func elemBytes(in codegen.Input) ([]byte, error) {
	src := in.In
	n := src.Len()
	size := int(elemSize(in))
	if src.T.Size() == 1 {
		b := make([]byte, n)
		for k, v := range src.I {
			if v < -128 || v > 255 {
				return nil, fmt.Errorf("element %d = %d does not fit in a char", k, v)
			}
			b[k] = byte(v)
		}
		return b, nil
	}
	// The values are those of an input of type src.T (sema checked them):
	// an element holds them in size bytes.
	g := backend.NewGrid(src.T, 1, int64(n))
	if src.T.IsFloat() {
		g.PutFloats(0, 1, src.F)
	} else {
		g.PutInts(0, 1, src.I)
	}
	if size == src.T.Size() {
		return g.Bytes(), nil
	}
	s := make([]int32, n)
	for k, v := range src.I {
		s[k] = int32(v)
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*n), nil
}

func (r *run) upload(in codegen.Input) error {
	ctx := r.e.ctx
	sym := r.mod.globals[in.Symbol]
	// A large input the executor kept from an earlier run (runs of Run
	// only: split runs share an executor between goroutines).
	keep := r.serial != 0 && keepable(in)
	var kept cuda.DevicePtr
	if keep {
		kept = r.e.inputs.get(in, r.serial)
	}
	var data []byte
	if kept == 0 {
		var err error
		if data, err = elemBytes(in); err != nil {
			return err
		}
		if len(data) == 0 {
			if in.Place == codegen.Constant {
				return nil
			}
			data = make([]byte, 8)
		}
	}
	switch in.Place {
	case codegen.Constant:
		return ctx.CopyHtoD(sym, unsafe.Pointer(&data[0]), int64(len(data)))
	case codegen.Global, codegen.Texture:
		p := kept
		if p == 0 && keep {
			p = r.e.inputs.put(ctx, in, data, r.serial)
		}
		if p == 0 {
			var err error
			if p, err = r.alloc("input "+in.In.Name, int64(len(data))); err != nil {
				return err
			}
			if err := ctx.CopyHtoD(p, unsafe.Pointer(&data[0]), int64(len(data))); err != nil {
				return err
			}
		}
		size := int64(len(data))
		if kept != 0 {
			size = int64(in.In.Len()) * elemSize(in)
		}
		handle := uint64(p)
		if in.Place == codegen.Texture {
			var f cuda.TexFormat
			switch t := in.In.T; {
			case t.Size() == 1:
				f = cuda.TexInt8
				if in.Unsigned || t.Is(ir.IsBoolean) {
					f = cuda.TexUint8
				}
			case t.IsFloat() && t.Size() == 4:
				f = cuda.TexFloat32
			case t.Size() <= 4:
				f = cuda.TexInt32 // int, and short widened by elemBytes
			default:
				f = cuda.TexInt2
			}
			t, err := ctx.NewTexture(p, size, f)
			if err != nil {
				return err
			}
			r.textures = append(r.textures, t)
			handle = uint64(t)
		}
		return ctx.CopyHtoD(sym, unsafe.Pointer(&handle), 8)
	}
	return fmt.Errorf("unknown placement %v", in.Place)
}

// checkMemory compares what the run will allocate with what the device
// and the host have free, and fails before allocating anything when it
// cannot fit.
func (r *run) checkMemory() error {
	need := r.deviceNeed()
	free, _, err := r.e.ctx.MemInfo()
	if err == nil && need > free && r.e.spare.ptr != 0 {
		// The spare grid's memory, which this run may not take.
		if err := r.e.freeSpare(); err != nil {
			return err
		}
		free, _, err = r.e.ctx.MemInfo()
	}
	if err == nil && need > free {
		what := fmt.Sprintf("solving %s on the GPU", r.p.Name)
		if r.prog.Kernel == codegen.KernelFront {
			// The generic schedules read back over ranges of fronts: the
			// whole grid stays on the device.
			what = fmt.Sprintf("keeping the whole %s of %s in GPU memory (its %s schedule reads back over ranges of cells)", r.p.GridText(), r.p.Name, r.pl.Schedule)
		}
		return hostmem.TooLarge(what, need, free, "GPU memory on "+r.e.dev.Name,
			"use a smaller instance, or solve it on the CPU (--backend cpu)")
	}
	if host := r.hostNeed(); host > 0 {
		if avail, ok := hostmem.Available(); ok && host > avail {
			return hostmem.TooLarge(fmt.Sprintf("keeping the %dx%d grid of %s (with its staging buffers)", r.p.Rows, r.p.Cols, r.p.Name), host, avail, "",
				"drop --grid, --traceback and maintain, or use `cell:` with a smaller type")
		}
	}
	return nil
}

// hostNeed is the host memory the run has still to allocate: the kept grid
// and the two pinned staging buffers. A grid the caller allocated in
// advance (Options.Grid, from engine.StartGrid) is already missing from
// MemAvailable and is not counted again.
func (r *run) hostNeed() int64 {
	if !r.keep || r.onDevice {
		return 0
	}
	host := 2 * r.stageBytes()
	if !r.opt.Grid.Fits(r.p.CellType, r.p.Rows, r.p.Cols) {
		host += r.p.Cells() * int64(r.p.CellType.Size())
	}
	return host
}

// inputBytes is what a program's inputs take in device memory outside
// __constant__ memory.
func inputBytes(pr *codegen.Program) int64 {
	var n int64
	for _, in := range pr.Inputs {
		if in.Place != codegen.Constant {
			n += in.Len * elemSize(in)
		}
	}
	return n
}

// deviceNeed estimates the run's device memory.
func (r *run) deviceNeed() int64 {
	pr := r.prog
	cs := int64(r.p.CellType.Size())
	n := inputBytes(pr)
	switch pr.Kernel {
	case codegen.KernelLine:
		n += int64(r.ringSlots()) * pr.Width * cs
	case codegen.KernelTile:
		n += (3*int64(pr.PI)*pr.Cols + int64(pr.PJ)*pr.Rows) * cs
		if r.keep {
			n += 2 * r.stageBytes()
		}
	case codegen.KernelStrip:
		n += 2*int64(pr.PI)*pr.Cols*cs + 4*pr.Strips
		if pr.KeepRows {
			n += 4*pr.Rows + int64(len(r.opt.KeepRows))*pr.Cols*cs
		}
		if pr.KeepCols {
			n += 4*(pr.Cols+pr.Cols/32+5) + int64(len(r.opt.KeepColumns))*pr.Rows*cs
		}
		switch {
		case r.onDevice:
			n += pr.Strips * slotBytes(pr) // the whole grid stays
		case pr.Keep:
			n += 2 * slotBytes(pr) // at least; more slots where there is room
		}
	case codegen.KernelFront:
		n += frontBytes(pr, pr.Mirror) + frontAnswerBytes(pr)
	}
	return n
}

// stageBytes is the size of one of the two maintain staging buffers.
func (r *run) stageBytes() int64 {
	if !r.keep {
		return 0
	}
	pr := r.prog
	cs := int64(r.p.CellType.Size())
	target := r.e.cfg.stageMB << 20
	switch pr.Kernel {
	case codegen.KernelTile:
		diag := min(pr.TilesI, pr.TilesJ) * int64(pr.TileH*pr.TileW) * cs
		return max(target, diag)
	case codegen.KernelLine:
		return int64(r.batchLines()) * pr.Width * cs
	case codegen.KernelStrip:
		return min(target, slotBytes(pr))
	case codegen.KernelFront:
		return max(min(target, frontBytes(pr, false)), 1)
	}
	return 0
}

// batchLines is how many lines one maintain batch copies.
func (r *run) batchLines() int {
	pr := r.prog
	line := pr.Width * int64(r.p.CellType.Size())
	b := (r.e.cfg.stageMB << 20) / max(line, 1)
	b = max(b, int64(pr.Reach), 1)
	b = min(b, pr.Lines)
	return int(b)
}

// ringSlots is the number of lines kept on the device by the line kernel.
func (r *run) ringSlots() int {
	if r.keep {
		return 2 * r.batchLines()
	}
	return r.prog.Reach + 1
}

// cellBytes is the size of a cell.
func (r *run) cellBytes() int64 { return int64(r.p.CellType.Size()) }

// progress reports done cells.
func (r *run) progress(done int64) {
	if r.opt.Progress != nil {
		r.opt.Progress(min(done, r.p.Cells()), r.p.Cells())
	}
}
