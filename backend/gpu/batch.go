package gpu

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/genrun"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// BatchProgram generates the batch program of p's shape (codegen
// KernelBatch): one launch of it computes many instances of p that differ
// only in the inputs vary names (RunBatch); with columns, also instances
// of fewer columns (codegen Options.BatchColumns). The error wraps
// codegen.ErrNotBatchable where no batch kernel runs p; those instances
// run one at a time.
func (e *Executor) BatchProgram(p *ir.Problem, pl *plan.Plan, vary []string, columns bool) (*codegen.Program, error) {
	o := e.codegenOptions(p, backend.Options{})
	o.Batch, o.BatchInputs, o.BatchColumns = true, vary, columns
	// For measurements (docs/performance.md): the rows between strips in
	// global memory whatever their size.
	o.BatchGlobalRows = os.Getenv("DPGPU_BATCH_GLOBAL_ROWS") == "1"
	// And 32-bit cells where 16-bit pairs would serve.
	o.BatchNoPack = os.Getenv("DPGPU_BATCH16") == "off"
	return codegen.Generate(p, pl, o)
}

// BatchInstance is one instance of a batch launch.
type BatchInstance struct {
	P    *ir.Problem
	Plan *plan.Plan
}

// BatchOutcome is what RunBatch found for one instance: its result, or
// Failed when the device reported an error in it (the caller runs the
// instance alone, which says where and why), or Err for an answer the
// rules refuse (a NaN answer).
type BatchOutcome struct {
	Result *backend.Result
	Failed bool
	Err    error
}

// BatchStats are one RunBatch's times.
type BatchStats struct {
	Cells int64
	// Kernel is the event-timed launch; Copies the rest of the time on
	// the GPU's side (the copies up and down, and waiting for the launches
	// before it on the GPU); Host packing the inputs and decoding the
	// answers.
	Kernel, Copies, Host time.Duration
	Compiled             bool // the program was compiled (not in the cache)
	// Start and End are the kernel's on the executor's batch clock (CUDA
	// events, from the executor's first batch launch): launches run at
	// once, so the GPU's busy time is the union of these spans, not the
	// sum of Kernel.
	Start, End time.Duration
}

// batchSlots is how many batch launches an executor runs at once, each
// with its own stream and buffers (batchSlot): a launch of a few hundred
// long instances leaves most of the GPU to the next one.
const batchSlots = 3

// batchSlot is what one batch launch in flight holds: a stream, pinned
// memory for what goes up and what comes back, and one device buffer
// (inputs, the launch's pointers, columns, error codes, answers). Kept
// and grown, never freed before the executor closes: freeing device
// memory would wait for the other launches.
type batchSlot struct {
	stream *cuda.Stream
	up, dn *cuda.HostBuffer
	dev    cuda.DevicePtr
	devLen int64
}

// batchClock is the event batch launches time themselves from
// (BatchStats.Start), recorded at the first.
func (e *Executor) batchClock() (*cuda.Event, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bclock == nil {
		ev, err := e.ctx.NewEvent()
		if err != nil {
			return nil, err
		}
		if err := ev.Record(e.s2); err != nil {
			ev.Destroy()
			return nil, err
		}
		if err := ev.Synchronize(); err != nil {
			ev.Destroy()
			return nil, err
		}
		e.bclock = ev
	}
	return e.bclock, nil
}

func (e *Executor) takeSlot(ctx context.Context) (*batchSlot, error) {
	e.mu.Lock()
	if e.bslots == nil {
		e.bslots = make(chan *batchSlot, batchSlots)
		for range batchSlots {
			e.bslots <- &batchSlot{}
		}
	}
	slots := e.bslots
	e.mu.Unlock()
	select {
	case sl := <-slots:
		return sl, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// grow makes sure the slot has a stream and at least up and dn bytes of
// pinned memory and dev bytes of device memory.
func (sl *batchSlot) grow(e *Executor, up, dn, dev int64) error {
	var err error
	if sl.stream == nil {
		if sl.stream, err = e.ctx.NewStream(); err != nil {
			return err
		}
	}
	pinned := func(h **cuda.HostBuffer, n int64) error {
		if *h != nil && (*h).Len() >= n {
			return nil
		}
		if *h != nil {
			(*h).Free()
			*h = nil
		}
		b, err := e.ctx.HostAlloc(n + n/4)
		if err != nil {
			return outOfMemory(fmt.Errorf("pinning %s of host memory for a batch launch: %w", mb(n), err))
		}
		*h = b
		return nil
	}
	if err := pinned(&sl.up, up); err != nil {
		return err
	}
	if err := pinned(&sl.dn, dn); err != nil {
		return err
	}
	if sl.devLen < dev {
		if sl.dev != 0 {
			e.ctx.Free(sl.dev)
			sl.dev, sl.devLen = 0, 0
		}
		n := dev + dev/4
		p, err := e.ctx.Alloc(n)
		if err != nil {
			free, total, _ := e.ctx.MemInfo()
			return outOfMemory(fmt.Errorf("allocating %s for a batch launch on %s (%s free of %s): %w", mb(n), e.dev.Name, mb(free), mb(total), err))
		}
		sl.dev, sl.devLen = p, n
	}
	return nil
}

func (sl *batchSlot) free() {
	if sl.stream != nil {
		sl.stream.Synchronize()
		sl.stream.Destroy()
	}
	if sl.up != nil {
		sl.up.Free()
	}
	if sl.dn != nil {
		sl.dn.Free()
	}
}

// RunBatch computes insts, every one of prog's shape (BatchProgram of the
// first made prog, and the others have the same sizes, scalars and shared
// inputs; with BatchColumns, as many rows and at most its columns), in
// one launch: their inputs go up in one copy, their answers come back in
// one. Up to batchSlots calls run at once, their launches overlapping on
// the GPU. It fails as a whole only for the device's reasons (memory, a
// launch error, ctx); an instance's own error is its outcome.
func (e *Executor) RunBatch(ctx context.Context, prog *codegen.Program, insts []BatchInstance) ([]BatchOutcome, BatchStats, error) {
	if !prog.BatchPacked || !prog.BatchColumns || len(insts) < 3 {
		return e.runBatch(ctx, prog, insts)
	}
	// A packed program's warp computes two instances for as many columns
	// as the wider has (templates/batch16.cu): neighbours in column order
	// share a warp.
	order := make([]int, len(insts))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(insts[a].P.Cols, insts[b].P.Cols) })
	sorted := make([]BatchInstance, len(insts))
	for s, k := range order {
		sorted[s] = insts[k]
	}
	outs, st, err := e.runBatch(ctx, prog, sorted)
	if err != nil {
		return nil, st, err
	}
	back := make([]BatchOutcome, len(outs))
	for s, k := range order {
		back[k] = outs[s]
	}
	return back, st, nil
}

// runBatch is RunBatch in the order of insts.
func (e *Executor) runBatch(ctx context.Context, prog *codegen.Program, insts []BatchInstance) ([]BatchOutcome, BatchStats, error) {
	var st BatchStats
	if prog.Kernel != codegen.KernelBatch {
		return nil, st, fmt.Errorf("gpu: RunBatch of a %s program", prog.Kernel)
	}
	n := int64(len(insts))
	if n == 0 {
		return nil, st, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, st, err
	}
	first := insts[0]
	e.mu.Lock()
	if e.ctx == nil {
		e.mu.Unlock()
		return nil, st, errors.New("gpu: the executor is closed")
	}
	mod, cached, err := e.load(prog)
	if err == nil {
		mod.inUse++
	}
	e.mu.Unlock()
	if err != nil {
		return nil, st, err
	}
	defer func() {
		e.mu.Lock()
		mod.inUse--
		e.mu.Unlock()
	}()
	st.Compiled = !cached
	sl, err := e.takeSlot(ctx)
	if err != nil {
		return nil, st, err
	}
	defer func() { e.bslots <- sl }()

	t0 := time.Now()
	cs := int64(first.P.CellType.Size())
	outBytes := cs
	if prog.Answer == codegen.AnswerRegion {
		outBytes = codegen.PartBytes
	}
	round := func(x int64) int64 { return (x + 255) &^ 255 }
	// What goes up: each input (n instances' elements, Len apart, or the
	// shared one once), the launch's pointers, the columns and answer
	// columns (BatchColumns); what comes back: error codes, answers.
	offs := make([]int64, len(prog.Inputs))
	var at int64
	for k, in := range prog.Inputs {
		offs[k] = at
		elems := max(in.Len, 1)
		if in.PerInstance {
			elems *= n
		}
		at += round(elems * elemSize(in))
	}
	nptr := int64(len(prog.Inputs) + 1)
	ptrAt := at
	colsAt := round(ptrAt + 8*nptr)
	upLen := colsAt
	if prog.BatchColumns {
		upLen = round(colsAt + 8*n)
	}
	codesAt := upLen
	ansAt := round(codesAt + 4*n)
	devLen := ansAt + outBytes*n
	// Rows passed between an instance's strips, where shared memory is too
	// small for them (codegen Program.BatchRowBytes): after the answers,
	// device memory only.
	rowsAt := round(devLen)
	if prog.BatchRowBytes > 0 {
		devLen = rowsAt + prog.BatchRowBytes*n
	}
	if free, _, err := e.ctx.MemInfo(); err == nil && devLen > free*3/4 {
		return nil, st, hostmem.TooLarge(fmt.Sprintf("a batch launch of %d instances of %s", n, first.P.Name), devLen, free*3/4, "three quarters of the free GPU memory", "")
	}
	if err := sl.grow(e, upLen, ansAt+outBytes*n-codesAt, devLen); err != nil {
		return nil, st, err
	}
	host := sl.up.Bytes()
	var packErr atomic.Pointer[error]
	parallel(n, func(lo, hi int64) {
		for m := lo; m < hi; m++ {
			if err := packInstance(prog, insts[m].P, host, offs, m); err != nil {
				err = fmt.Errorf("instance %d of the batch: %w", m, err)
				packErr.CompareAndSwap(nil, &err)
				return
			}
		}
	})
	if perr := packErr.Load(); perr != nil {
		return nil, st, *perr
	}
	for k, in := range prog.Inputs {
		if !in.PerInstance {
			data, err := elemBytes(codegen.Input{In: first.P.Inputs[k], Place: in.Place, Len: in.Len})
			if err != nil {
				return nil, st, fmt.Errorf("input %s: %w", in.In.Name, err)
			}
			copy(host[offs[k]:], data)
		}
	}
	ptrs := unsafe.Slice((*uint64)(unsafe.Pointer(&host[ptrAt])), nptr)
	for k := range prog.Inputs {
		ptrs[k] = uint64(sl.dev) + uint64(offs[k])
	}
	ptrs[nptr-1] = uint64(sl.dev) + uint64(codesAt)
	var colsDev, ansjDev uint64
	if prog.BatchColumns {
		cj := unsafe.Slice((*int32)(unsafe.Pointer(&host[colsAt])), 2*n)
		for m, x := range insts {
			if x.P.Rows != prog.Rows || x.P.Cols > prog.Cols || x.P.Cols < 1 {
				return nil, st, fmt.Errorf("gpu: instance %d (%s) does not fit its batch program (%dx%d)", m, x.P.GridText(), prog.Rows, prog.Cols)
			}
			cj[m], cj[n+int64(m)] = int32(x.P.Cols), int32(x.Plan.Answer.J)
		}
		colsDev, ansjDev = uint64(sl.dev)+uint64(colsAt), uint64(sl.dev)+uint64(colsAt+4*n)
	}
	st.Host += time.Since(t0)

	t1 := time.Now()
	if err := e.ctx.CopyHtoDAsync(sl.dev, sl.up.Ptr(), upLen, sl.stream); err != nil {
		return nil, st, err
	}
	if err := e.ctx.Memset32Async(sl.dev+cuda.DevicePtr(codesAt), 0, n, sl.stream); err != nil {
		return nil, st, err
	}
	start, err := e.ctx.NewEvent()
	if err != nil {
		return nil, st, err
	}
	defer start.Destroy()
	end, err := e.ctx.NewEvent()
	if err != nil {
		return nil, st, err
	}
	defer end.Destroy()
	ref, err := e.batchClock() // recorded before any launch's start
	if err != nil {
		return nil, st, err
	}
	if err := start.Record(sl.stream); err != nil {
		return nil, st, err
	}
	var ans, part uint64
	if prog.Answer == codegen.AnswerRegion {
		part = uint64(sl.dev) + uint64(ansAt)
	} else {
		ans = uint64(sl.dev) + uint64(ansAt)
	}
	fn := mod.funcs[codegen.FuncBatch]
	warps := n
	if prog.BatchPacked {
		warps = (n + 1) / 2 // two instances a warp (templates/batch16.cu)
	}
	blocks := (warps + int64(prog.BatchWarps) - 1) / int64(prog.BatchWarps)
	if blocks > 1<<31-1 {
		return nil, st, fmt.Errorf("gpu: a batch launch of %d instances is too large", n)
	}
	bptr := uint64(sl.dev) + uint64(ptrAt)
	var grows uint64
	if prog.BatchRowBytes > 0 {
		grows = uint64(sl.dev) + uint64(rowsAt)
	}
	if err := e.ctx.Launch(fn, [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(32 * prog.BatchWarps), 1, 1}, 0, sl.stream, n, ans, part, colsDev, ansjDev, bptr, grows); err != nil {
		return nil, st, fmt.Errorf("launching the batch kernel of %s: %w", first.P.Name, err)
	}
	if err := end.Record(sl.stream); err != nil {
		return nil, st, err
	}
	if err := e.ctx.CopyDtoHAsync(sl.dn.Ptr(), sl.dev+cuda.DevicePtr(codesAt), ansAt+outBytes*n-codesAt, sl.stream); err != nil {
		return nil, st, err
	}
	if err := sl.stream.Synchronize(); err != nil {
		return nil, st, fmt.Errorf("running the batch kernel of %s on %s: %w", first.P.Name, e.dev.Name, err)
	}
	ms, err := cuda.Elapsed(start, end)
	if err != nil {
		return nil, st, err
	}
	kernel := float64(ms) / 1e3
	st.Kernel = time.Duration(kernel * float64(time.Second))
	if a, err := cuda.Elapsed(ref, start); err == nil {
		st.Start = time.Duration(float64(a) * float64(time.Millisecond))
		st.End = st.Start + st.Kernel
	}
	st.Copies = time.Since(t1) - st.Kernel
	raw := sl.dn.Bytes()
	codes, vals := raw[:4*n], raw[ansAt-codesAt:ansAt-codesAt+outBytes*n]

	t3 := time.Now()
	outs := make([]BatchOutcome, n)
	share := kernel / float64(n)
	parallel(n, func(lo, hi int64) {
		for m := lo; m < hi; m++ {
			x := insts[m]
			if binary.LittleEndian.Uint32(codes[4*m:]) != 0 {
				outs[m].Failed = true
				continue
			}
			res := &backend.Result{Backend: "cuda", Device: e.dev.String()}
			res.Stats.Cells = x.P.Cells()
			res.Stats.ComputeSeconds, res.Stats.Seconds = share, share
			a := x.Plan.Answer
			var err error
			if prog.Answer == codegen.AnswerRegion {
				err = genrun.RegionAnswer(x.P, a, genrun.DecodePart(vals[m*outBytes:]), res)
				if prog.BatchValueOnly { // the value, not where it is
					res.AnswerI, res.AnswerJ, res.AnswerIsCell = 0, 0, false
				}
			} else {
				err = cellAnswer(x.P, a, decodeCell(x.P.CellType, vals[m*outBytes:]), res)
			}
			if err == nil {
				err = eval.CheckAnswer(x.P, res.Answer)
			}
			if err != nil {
				outs[m].Err = err
				continue
			}
			outs[m].Result = res
		}
	})
	for _, x := range insts {
		st.Cells += x.P.Cells()
	}
	st.Host += time.Since(t3)
	return outs, st, nil
}

// packInstance writes p's varying inputs (prog's PerInstance ones) into
// host as instance m of the launch: input k's elements at offs[k] + m *
// Len * element size, in the device representation.
func packInstance(prog *codegen.Program, p *ir.Problem, host []byte, offs []int64, m int64) error {
	for k, in := range prog.Inputs {
		if !in.PerInstance {
			continue
		}
		got := p.Inputs[k]
		short := prog.BatchColumns && got.Rows <= 1 && int64(got.Len()) < in.Len // a column input of fewer columns
		if got.Name != in.In.Name || (int64(got.Len()) != in.Len && !short) || got.T != in.In.T {
			return fmt.Errorf("not of its program's shape (input %s)", in.In.Name)
		}
		size := elemSize(in)
		at := offs[k] + m*max(in.Len, 1)*size
		if got.T.Size() == 1 {
			dst := host[at : at+int64(got.Len())]
			hi := int64(255)
			if got.T == ir.Char && !in.Unsigned {
				hi = 127 // a char over 127 would need another program
			}
			for x, v := range got.I {
				if v < -128 || v > hi {
					return fmt.Errorf("input %s: element %d = %d does not fit its program's elements", in.In.Name, x, v)
				}
				dst[x] = byte(v)
			}
			continue
		}
		data, err := elemBytes(codegen.Input{In: got, Place: in.Place, Len: in.Len})
		if err != nil {
			return fmt.Errorf("input %s: %w", in.In.Name, err)
		}
		copy(host[at:], data)
	}
	return nil
}
