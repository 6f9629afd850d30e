package heldkarp

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend/cuda"
)

// kernelSource is the CUDA C of the layer kernels; the solver prepends the
// value type and the block size.
//
//go:embed kernel.cu
var kernelSource string

// gpuBlock is the threads per block of hk_layer: one state per thread.
const gpuBlock = 256

// SolveGPU is SolveCPU on the GPU of dev, compiling the layer kernels with
// nv. Each layer is one kernel launch on a compute stream, one thread per
// state (blocks loop over tiles of states); the values of the previous and
// the current layer stay on the device, and the predecessor bytes of each
// layer go back to pinned host memory on a second stream while the next
// layer computes (the layers' arg buffers alternate, and a layer waits for
// the copy of the one two before it). Before allocating it checks the
// device's free memory and the host's MemAvailable and refuses with
// ErrTooLarge. progress, when not nil, is called from the calling
// goroutine after each layer; ctx is checked there too.
// Result.ComputeSeconds is the layer sweep timed with CUDA events,
// Result.DeviceBytes what was allocated on the device.
func SolveGPU(ctx context.Context, dev *cuda.Context, nv *cuda.NVRTC, dist []int64, n int, progress func(done, total int64)) (*Result, error) {
	return SolveGPUs(ctx, []*cuda.Context{dev}, nv, nil, dist, n, progress)
}

// SolveGPUs is SolveGPU over the GPUs of devs (one context each, of one
// process): each GPU computes a contiguous share of every layer — the
// states r*chunk .. (r+1)*chunk-1 of an even split — and an NCCL
// all-gather, queued on the compute streams, gives every GPU the whole
// layer before the next (nccl: from cuda.OpenNCCL; nil is fine for one
// GPU). Each GPU copies the predecessor bytes of its shares to its own
// pinned host buffer; the tour is read back across them. Every GPU holds
// two whole layers of values, as SolveGPU's one does: several GPUs share
// the work, not the memory. Result.DeviceBytes is the sum over the GPUs.
func SolveGPUs(ctx context.Context, devs []*cuda.Context, nv *cuda.NVRTC, nccl *cuda.NCCL, dist []int64, n int, progress func(done, total int64)) (*Result, error) {
	start := time.Now()
	if len(devs) == 0 || nv == nil {
		return nil, errors.New("heldkarp: SolveGPU needs a CUDA context and NVRTC")
	}
	for _, d := range devs {
		if d == nil {
			return nil, errors.New("heldkarp: SolveGPU needs a CUDA context and NVRTC")
		}
	}
	if len(devs) > 1 && nccl == nil {
		return nil, errors.New("heldkarp: several GPUs need NCCL")
	}
	in, done, err := begin(ctx, dist, n, start)
	if done != nil || err != nil {
		return done, err
	}
	lay := newLayout(n)
	mem := lay.memory(in.width)
	// Every GPU holds whole layers, rounded up to a multiple of the GPUs.
	P := int64(len(devs))
	padded := (mem.maxLayer + P - 1) / P * P
	need := mem.device + 2*in.width*(padded-mem.maxLayer)
	for _, dev := range devs {
		free, _, err := dev.MemInfo()
		if err != nil {
			return nil, fmt.Errorf("heldkarp: reading free device memory: %w", err)
		}
		if need > free {
			return nil, fmt.Errorf("heldkarp: %d cities need %s of device memory on each GPU (two layers of %d-byte values and predecessor bytes, %d states in the largest layer), only %s free on %s; at most %d cities fit: %w",
				n, byteSize(need), in.width, mem.maxLayer, byteSize(free), dev.Device().Name, maxFitting(free, in.width, true), ErrTooLarge)
		}
	}
	if avail := hostAvailable(); avail >= 0 && mem.gpuHost > avail {
		return nil, fmt.Errorf("heldkarp: %d cities need %s of host memory for the predecessor bytes of %d states, only %s available: %w",
			n, byteSize(mem.gpuHost), lay.states(), byteSize(avail), ErrTooLarge)
	}
	g := &gpuSolve{lay: lay, in: in, mem: mem, padded: padded}
	for _, dev := range devs {
		g.parts = append(g.parts, &gpuPart{dev: dev})
	}
	defer g.release()
	if len(devs) > 1 {
		if g.comms, err = nccl.InitAll(devs); err != nil {
			return nil, fmt.Errorf("heldkarp: %w", err)
		}
	}
	res, err := g.run(ctx, nv, progress)
	if err != nil {
		return nil, fmt.Errorf("heldkarp: %d cities on %s: %w", n, g.deviceNames(), err)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// gpuSolve holds the device resources of one solve; release frees whatever
// was made.
type gpuSolve struct {
	parts  []*gpuPart
	comms  *cuda.Comms // several GPUs
	lay    *layout
	in     *instance
	mem    memory
	padded int64 // values a layer buffer holds: the largest layer, rounded up to a multiple of the GPUs
}

// gpuPart is one GPU's share of a solve.
type gpuPart struct {
	dev             *cuda.Context
	mod             *cuda.Module
	first, layer    *cuda.Function
	shared          int               // hk_layer's dynamic shared memory
	maxGrid         int64             // blocks that fit on the device at once
	vals            [2]cuda.DevicePtr // previous and current layer's values
	args            [2]cuda.DevicePtr // predecessor bytes of this GPU's share, alternating layers
	ct, binom       cuda.DevicePtr
	host            *cuda.HostBuffer // predecessor bytes of this GPU's share of every layer
	offset          []int64          // where layer k's share starts in host
	compute, copier *cuda.Stream
	done, copied    []*cuda.Event // layer k computed; its predecessors on the host
	events          []*cuda.Event
	deviceBytes     int64
}

// share is the states lo .. hi-1 of layer k that GPU r of parts computes.
// Layer 1 (m states, hk_first) is computed whole on every GPU and owned
// by the first.
func (g *gpuSolve) share(k, r int) (lo, hi int64) {
	states := g.lay.layerStates(k)
	if k == 1 {
		if r == 0 {
			return 0, states
		}
		return states, states
	}
	chunk := g.chunk(k)
	return min(int64(r)*chunk, states), min(int64(r+1)*chunk, states)
}

// chunk is the states of layer k each GPU computes (the last fewer).
func (g *gpuSolve) chunk(k int) int64 {
	P := int64(len(g.parts))
	return (g.lay.layerStates(k) + P - 1) / P
}

func (g *gpuSolve) deviceNames() string {
	if len(g.parts) == 1 {
		return g.parts[0].dev.Device().Name
	}
	return fmt.Sprintf("%d GPUs (%s, ...)", len(g.parts), g.parts[0].dev.Device().Name)
}

func (p *gpuPart) alloc(bytes int64) (cuda.DevicePtr, error) {
	d, err := p.dev.Alloc(bytes)
	if err == nil {
		p.deviceBytes += bytes
	}
	return d, err
}

func (p *gpuPart) event() (*cuda.Event, error) {
	e, err := p.dev.NewEvent()
	if err == nil {
		p.events = append(p.events, e)
	}
	return e, err
}

// release frees everything after waiting for the queued work; errors are
// dropped, as the solve has either failed already or read its results.
func (g *gpuSolve) release() {
	for _, p := range g.parts {
		if p.compute != nil {
			_ = p.compute.Synchronize()
		}
		if p.copier != nil {
			_ = p.copier.Synchronize()
		}
	}
	if g.comms != nil {
		g.comms.Destroy()
	}
	for _, p := range g.parts {
		for _, e := range p.events {
			_ = e.Destroy()
		}
		if p.compute != nil {
			_ = p.compute.Destroy()
		}
		if p.copier != nil {
			_ = p.copier.Destroy()
		}
		for _, d := range []cuda.DevicePtr{p.vals[0], p.vals[1], p.args[0], p.args[1], p.ct, p.binom} {
			_ = p.dev.Free(d)
		}
		if p.host != nil {
			_ = p.host.Free()
		}
		if p.mod != nil {
			_ = p.mod.Unload()
		}
	}
}

// compile builds the kernels for p's device and the value width.
func (g *gpuSolve) compile(p *gpuPart, nv *cuda.NVRTC) error {
	typ := "int"
	if g.in.width == 8 {
		typ = "long long"
	}
	src := fmt.Sprintf("typedef %s val_t;\n#define HK_BLOCK %d\n#line 1 \"heldkarp/kernel.cu\"\n%s", typ, gpuBlock, kernelSource)
	cubin, _, err := nv.Compile(src, "heldkarp.cu", p.dev.Device().Arch(), nil)
	if err != nil {
		return err
	}
	if p.mod, err = p.dev.LoadModule(cubin); err != nil {
		return err
	}
	if p.first, err = p.mod.Function("hk_first"); err != nil {
		return err
	}
	p.layer, err = p.mod.Function("hk_layer")
	return err
}

// setup compiles p's kernels, uploads the tables and allocates its
// buffers, streams and events; r is p's rank.
func (g *gpuSolve) setup(p *gpuPart, r int, nv *cuda.NVRTC) error {
	lay, n, m, width := g.lay, g.lay.n, g.lay.m, g.in.width
	if err := g.compile(p, nv); err != nil {
		return err
	}
	// hk_layer's shared memory: the block's subset masks, the binomials
	// and the matrix.
	p.shared = 8*(gpuBlock+1) + 8*(m+1)*(m+1) + int(width)*n*n
	devInfo := p.dev.Device()
	if p.shared > devInfo.MaxSharedPerBlock {
		if p.shared > devInfo.MaxSharedPerBlockOptin {
			return fmt.Errorf("the layer kernel needs %d bytes of shared memory, the device gives at most %d", p.shared, devInfo.MaxSharedPerBlockOptin)
		}
		if err := p.layer.SetMaxDynamicShared(p.shared); err != nil {
			return err
		}
	}
	// Blocks loop over tiles of gpuBlock states: launch as many as fit on
	// the device at once, so each loads its tables once.
	perSM, err := p.layer.MaxActiveBlocksPerSM(gpuBlock, p.shared)
	if err != nil {
		return err
	}
	if perSM < 1 {
		return fmt.Errorf("the layer kernel does not fit on a multiprocessor (%d bytes of shared memory)", p.shared)
	}
	p.maxGrid = int64(perSM) * int64(devInfo.SMs)

	// The transposed matrix in value width, and the binomials.
	if p.ct, err = p.alloc(width * int64(n*n)); err != nil {
		return err
	}
	if width == 4 {
		ct := make([]int32, n*n)
		for i := range n {
			for j := range n {
				ct[i*n+j] = int32(g.in.dist[j*n+i])
			}
		}
		err = cuda.CopyToDevice(p.dev, p.ct, ct)
	} else {
		ct := make([]int64, n*n)
		for i := range n {
			for j := range n {
				ct[i*n+j] = g.in.dist[j*n+i]
			}
		}
		err = cuda.CopyToDevice(p.dev, p.ct, ct)
	}
	if err != nil {
		return err
	}
	binom := make([]int64, (m+1)*(m+1))
	for a := range m + 1 {
		copy(binom[a*(m+1):], lay.binom[a])
	}
	if p.binom, err = p.alloc(8 * int64(len(binom))); err != nil {
		return err
	}
	if err := cuda.CopyToDevice(p.dev, p.binom, binom); err != nil {
		return err
	}
	var maxShare int64
	p.offset = make([]int64, m+2)
	for k := 1; k <= m; k++ {
		lo, hi := g.share(k, r)
		maxShare = max(maxShare, hi-lo)
		p.offset[k+1] = p.offset[k] + hi - lo
	}
	for b := range 2 {
		if p.vals[b], err = p.alloc(width * g.padded); err != nil {
			return err
		}
		if p.args[b], err = p.alloc(max(maxShare, int64(m))); err != nil { // hk_first writes m
			return err
		}
	}
	if p.host, err = p.dev.HostAlloc(max(p.offset[m+1], 1)); err != nil {
		return err
	}
	if p.compute, err = p.dev.NewStream(); err != nil {
		return err
	}
	if p.copier, err = p.dev.NewStream(); err != nil {
		return err
	}
	p.done = make([]*cuda.Event, m+1)
	p.copied = make([]*cuda.Event, m+1)
	for k := 1; k <= m; k++ {
		if p.done[k], err = p.event(); err != nil {
			return err
		}
		if p.copied[k], err = p.event(); err != nil {
			return err
		}
	}
	return nil
}

// layer queues layer k (values into vals[cur], reading vals[1-cur]) on
// p's streams: its share's kernel, then the copy of its predecessor bytes.
func (g *gpuSolve) layer(p *gpuPart, r, k, cur int) error {
	n := g.lay.n
	lo, hi := g.share(k, r)
	buf := p.args[k%2]
	if k >= 3 { // buf held layer k-2's predecessors
		if err := p.compute.WaitEvent(p.copied[k-2]); err != nil {
			return err
		}
	}
	var err error
	switch {
	case k == 1:
		// Every GPU computes the m values; the first keeps the predecessors.
		err = p.dev.Launch(p.first, [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, 0, p.compute,
			p.ct, p.vals[cur], buf, int32(n))
	case hi > lo:
		blocks := uint32(min((hi-lo+gpuBlock-1)/gpuBlock, p.maxGrid))
		err = p.dev.Launch(p.layer, [3]uint32{blocks, 1, 1}, [3]uint32{gpuBlock, 1, 1}, uint32(p.shared), p.compute,
			p.vals[1-cur], p.vals[cur], buf, p.ct, p.binom, int32(n), int32(k), lo, hi)
	}
	if err != nil {
		return err
	}
	if err := p.done[k].Record(p.compute); err != nil {
		return err
	}
	if err := p.copier.WaitEvent(p.done[k]); err != nil {
		return err
	}
	if hi > lo {
		dst := unsafe.Pointer(&p.host.Bytes()[p.offset[k]])
		if err := p.dev.CopyDtoHAsync(dst, buf, hi-lo, p.copier); err != nil {
			return err
		}
	}
	return p.copied[k].Record(p.copier)
}

func (g *gpuSolve) run(ctx context.Context, nv *cuda.NVRTC, progress func(done, total int64)) (*Result, error) {
	lay, n, m, width := g.lay, g.lay.n, g.lay.m, g.in.width
	for r, p := range g.parts {
		if err := g.setup(p, r, nv); err != nil {
			return nil, err
		}
	}
	p0 := g.parts[0]
	begin, err := p0.event()
	if err != nil {
		return nil, err
	}
	end, err := p0.event()
	if err != nil {
		return nil, err
	}
	offset := make([]int64, m+2) // start of layer k among all states
	for k := 1; k <= m; k++ {
		offset[k+1] = offset[k] + lay.layerStates(k)
	}
	total := lay.states()
	if err := begin.Record(p0.compute); err != nil {
		return nil, err
	}
	cur := 0
	vals := make([]cuda.DevicePtr, len(g.parts))
	streams := make([]*cuda.Stream, len(g.parts))
	for k := 1; k <= m; k++ {
		for r, p := range g.parts {
			if err := g.layer(p, r, k, cur); err != nil {
				return nil, err
			}
			vals[r], streams[r] = p.vals[cur], p.compute
		}
		if g.comms != nil && k > 1 {
			// Every GPU's share into every GPU's layer, before the next.
			if err := g.comms.AllGatherInPlace(vals, g.chunk(k)*width, streams); err != nil {
				return nil, fmt.Errorf("layer %d: %w", k, err)
			}
		}
		// Keep one layer queued ahead while reporting the one before.
		if k >= 2 {
			if err := p0.done[k-1].Synchronize(); err != nil {
				return nil, fmt.Errorf("layer %d: %w", k-1, err)
			}
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("stopped in layer %d of %d: %w", k, m, err)
			}
			if progress != nil {
				progress(offset[k], total)
			}
		}
		cur = 1 - cur
	}
	last := 1 - cur // the buffer the last layer was written to
	if err := end.Record(p0.compute); err != nil {
		return nil, err
	}
	for _, p := range g.parts {
		if err := p.compute.Synchronize(); err != nil {
			return nil, fmt.Errorf("layer %d: %w", m, err)
		}
		if err := p.copier.Synchronize(); err != nil {
			return nil, fmt.Errorf("copying predecessors: %w", err)
		}
	}
	ms, err := cuda.Elapsed(begin, end)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(total, total)
	}

	// Close the tour on the host from the last layer's m values.
	final := make([]int64, m)
	if width == 4 {
		v := make([]int32, m)
		if err := cuda.CopyFromDevice(p0.dev, v, p0.vals[last]); err != nil {
			return nil, err
		}
		for i, x := range v {
			final[i] = int64(x)
		}
	} else if err := cuda.CopyFromDevice(p0.dev, final, p0.vals[last]); err != nil {
		return nil, err
	}
	d := g.in.dist
	best, lastCity := final[0]+d[1*n], 1
	for p := 1; p < m; p++ {
		if v := final[p] + d[(p+1)*n]; v < best {
			best, lastCity = v, p+1
		}
	}
	tour, err := lay.readTour(lastCity, func(k int, idx int64) byte {
		r := 0
		if k > 1 {
			r = int(idx / g.chunk(k))
		}
		lo, _ := g.share(k, r)
		p := g.parts[r]
		return p.host.Bytes()[p.offset[k]+idx-lo]
	})
	if err != nil {
		return nil, err
	}
	if got, err := tourLength(d, n, tour); err != nil || got != best {
		return nil, fmt.Errorf("internal error: tour %v has length %d, the GPU's values say %d (%v)", tour, got, best, err)
	}
	var devBytes int64
	for _, p := range g.parts {
		devBytes += p.deviceBytes
	}
	return &Result{
		Length: best, Tour: tour, States: total,
		ComputeSeconds: float64(ms) / 1000,
		PeakBytes:      g.mem.gpuHost,
		DeviceBytes:    devBytes,
	}, nil
}
