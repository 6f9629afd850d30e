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
// state (blocks loop over tiles of states); the values of the previous and the current layer stay on the
// device, and the predecessor bytes of each layer go back to pinned host
// memory on a second stream while the next layer computes (the layers' arg
// buffers alternate, and a layer waits for the copy of the one two before
// it). Before allocating it checks the device's free memory and the host's
// MemAvailable and refuses with ErrTooLarge. progress, when not nil, is
// called from the calling goroutine after each layer; ctx is checked there
// too. Result.ComputeSeconds is the layer sweep timed with CUDA events,
// Result.DeviceBytes what was allocated on the device.
func SolveGPU(ctx context.Context, dev *cuda.Context, nv *cuda.NVRTC, dist []int64, n int, progress func(done, total int64)) (*Result, error) {
	start := time.Now()
	if dev == nil || nv == nil {
		return nil, errors.New("heldkarp: SolveGPU needs a CUDA context and NVRTC")
	}
	in, done, err := begin(ctx, dist, n, start)
	if done != nil || err != nil {
		return done, err
	}
	lay := newLayout(n)
	mem := lay.memory(in.width)
	free, _, err := dev.MemInfo()
	if err != nil {
		return nil, fmt.Errorf("heldkarp: reading free device memory: %w", err)
	}
	if mem.device > free {
		return nil, fmt.Errorf("heldkarp: %d cities need %s of device memory (two layers of %d-byte values and predecessor bytes, %d states in the largest layer), only %s free; at most %d cities fit: %w",
			n, byteSize(mem.device), in.width, mem.maxLayer, byteSize(free), maxFitting(free, in.width, true), ErrTooLarge)
	}
	if avail := hostAvailable(); avail >= 0 && mem.gpuHost > avail {
		return nil, fmt.Errorf("heldkarp: %d cities need %s of host memory for the predecessor bytes of %d states, only %s available: %w",
			n, byteSize(mem.gpuHost), lay.states(), byteSize(avail), ErrTooLarge)
	}
	g := &gpuSolve{dev: dev, lay: lay, in: in, mem: mem}
	defer g.release()
	res, err := g.run(ctx, nv, progress)
	if err != nil {
		return nil, fmt.Errorf("heldkarp: %d cities on %s: %w", n, dev.Device().Name, err)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// gpuSolve holds the device resources of one solve; release frees whatever
// was made.
type gpuSolve struct {
	dev *cuda.Context
	lay *layout
	in  *instance
	mem memory

	mod             *cuda.Module
	first, layer    *cuda.Function
	vals            [2]cuda.DevicePtr // previous and current layer's values
	args            [2]cuda.DevicePtr // predecessor bytes, alternating layers
	ct, binom       cuda.DevicePtr
	host            *cuda.HostBuffer // predecessor bytes of every layer
	compute, copier *cuda.Stream
	events          []*cuda.Event
	deviceBytes     int64
}

func (g *gpuSolve) alloc(bytes int64) (cuda.DevicePtr, error) {
	p, err := g.dev.Alloc(bytes)
	if err == nil {
		g.deviceBytes += bytes
	}
	return p, err
}

func (g *gpuSolve) event() (*cuda.Event, error) {
	e, err := g.dev.NewEvent()
	if err == nil {
		g.events = append(g.events, e)
	}
	return e, err
}

// release frees everything after waiting for the queued work; errors are
// dropped, as the solve has either failed already or read its results.
func (g *gpuSolve) release() {
	if g.compute != nil {
		_ = g.compute.Synchronize()
	}
	if g.copier != nil {
		_ = g.copier.Synchronize()
	}
	for _, e := range g.events {
		_ = e.Destroy()
	}
	if g.compute != nil {
		_ = g.compute.Destroy()
	}
	if g.copier != nil {
		_ = g.copier.Destroy()
	}
	for _, p := range []cuda.DevicePtr{g.vals[0], g.vals[1], g.args[0], g.args[1], g.ct, g.binom} {
		_ = g.dev.Free(p)
	}
	if g.host != nil {
		_ = g.host.Free()
	}
	if g.mod != nil {
		_ = g.mod.Unload()
	}
}

// compile builds the kernels for this device and value width.
func (g *gpuSolve) compile(nv *cuda.NVRTC) error {
	typ := "int"
	if g.in.width == 8 {
		typ = "long long"
	}
	src := fmt.Sprintf("typedef %s val_t;\n#define HK_BLOCK %d\n#line 1 \"heldkarp/kernel.cu\"\n%s", typ, gpuBlock, kernelSource)
	cubin, _, err := nv.Compile(src, "heldkarp.cu", g.dev.Device().Arch(), nil)
	if err != nil {
		return err
	}
	if g.mod, err = g.dev.LoadModule(cubin); err != nil {
		return err
	}
	if g.first, err = g.mod.Function("hk_first"); err != nil {
		return err
	}
	g.layer, err = g.mod.Function("hk_layer")
	return err
}

func (g *gpuSolve) run(ctx context.Context, nv *cuda.NVRTC, progress func(done, total int64)) (*Result, error) {
	lay, n, m, width := g.lay, g.lay.n, g.lay.m, g.in.width
	if err := g.compile(nv); err != nil {
		return nil, err
	}
	// hk_layer's shared memory: the block's subset masks, the binomials
	// and the matrix.
	shared := 8*(gpuBlock+1) + 8*(m+1)*(m+1) + int(width)*n*n
	devInfo := g.dev.Device()
	if shared > devInfo.MaxSharedPerBlock {
		if shared > devInfo.MaxSharedPerBlockOptin {
			return nil, fmt.Errorf("the layer kernel needs %d bytes of shared memory, the device gives at most %d", shared, devInfo.MaxSharedPerBlockOptin)
		}
		if err := g.layer.SetMaxDynamicShared(shared); err != nil {
			return nil, err
		}
	}
	// Blocks loop over tiles of gpuBlock states: launch as many as fit on
	// the device at once, so each loads its tables once.
	perSM, err := g.layer.MaxActiveBlocksPerSM(gpuBlock, shared)
	if err != nil {
		return nil, err
	}
	if perSM < 1 {
		return nil, fmt.Errorf("the layer kernel does not fit on a multiprocessor (%d bytes of shared memory)", shared)
	}
	maxGrid := int64(perSM) * int64(devInfo.SMs)

	// The transposed matrix in value width, and the binomials.
	if g.ct, err = g.alloc(width * int64(n*n)); err != nil {
		return nil, err
	}
	if width == 4 {
		ct := make([]int32, n*n)
		for i := range n {
			for j := range n {
				ct[i*n+j] = int32(g.in.dist[j*n+i])
			}
		}
		err = cuda.CopyToDevice(g.dev, g.ct, ct)
	} else {
		ct := make([]int64, n*n)
		for i := range n {
			for j := range n {
				ct[i*n+j] = g.in.dist[j*n+i]
			}
		}
		err = cuda.CopyToDevice(g.dev, g.ct, ct)
	}
	if err != nil {
		return nil, err
	}
	binom := make([]int64, (m+1)*(m+1))
	for a := range m + 1 {
		copy(binom[a*(m+1):], lay.binom[a])
	}
	if g.binom, err = g.alloc(8 * int64(len(binom))); err != nil {
		return nil, err
	}
	if err := cuda.CopyToDevice(g.dev, g.binom, binom); err != nil {
		return nil, err
	}
	for b := range 2 {
		if g.vals[b], err = g.alloc(width * g.mem.maxLayer); err != nil {
			return nil, err
		}
		if g.args[b], err = g.alloc(g.mem.maxLayer); err != nil {
			return nil, err
		}
	}
	if g.host, err = g.dev.HostAlloc(lay.states()); err != nil {
		return nil, err
	}
	if g.compute, err = g.dev.NewStream(); err != nil {
		return nil, err
	}
	if g.copier, err = g.dev.NewStream(); err != nil {
		return nil, err
	}
	// done[k]: layer k computed; copied[k]: its predecessors are on the host.
	done := make([]*cuda.Event, m+1)
	copied := make([]*cuda.Event, m+1)
	for k := 1; k <= m; k++ {
		if done[k], err = g.event(); err != nil {
			return nil, err
		}
		if copied[k], err = g.event(); err != nil {
			return nil, err
		}
	}
	var begin, end *cuda.Event
	if begin, err = g.event(); err != nil {
		return nil, err
	}
	if end, err = g.event(); err != nil {
		return nil, err
	}

	offset := make([]int64, m+2) // start of layer k in the host buffer
	for k := 1; k <= m; k++ {
		offset[k+1] = offset[k] + lay.layerStates(k)
	}
	total := lay.states()
	hostArgs := g.host.Bytes()
	if err := begin.Record(g.compute); err != nil {
		return nil, err
	}
	cur := 0
	for k := 1; k <= m; k++ {
		states := lay.layerStates(k)
		buf := g.args[k%2]
		if k >= 3 { // buf held layer k-2's predecessors
			if err := g.compute.WaitEvent(copied[k-2]); err != nil {
				return nil, err
			}
		}
		if k == 1 {
			err = g.dev.Launch(g.first, [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, 0, g.compute,
				g.ct, g.vals[cur], buf, int32(n))
		} else {
			blocks := uint32(min((states+gpuBlock-1)/gpuBlock, maxGrid))
			err = g.dev.Launch(g.layer, [3]uint32{blocks, 1, 1}, [3]uint32{gpuBlock, 1, 1}, uint32(shared), g.compute,
				g.vals[1-cur], g.vals[cur], buf, g.ct, g.binom, int32(n), int32(k), states)
		}
		if err != nil {
			return nil, err
		}
		if err := done[k].Record(g.compute); err != nil {
			return nil, err
		}
		if err := g.copier.WaitEvent(done[k]); err != nil {
			return nil, err
		}
		dst := unsafe.Pointer(&hostArgs[offset[k]])
		if err := g.dev.CopyDtoHAsync(dst, buf, states, g.copier); err != nil {
			return nil, err
		}
		if err := copied[k].Record(g.copier); err != nil {
			return nil, err
		}
		// Keep one layer queued ahead while reporting the one before.
		if k >= 2 {
			if err := done[k-1].Synchronize(); err != nil {
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
	if err := end.Record(g.compute); err != nil {
		return nil, err
	}
	if err := end.Synchronize(); err != nil {
		return nil, fmt.Errorf("layer %d: %w", m, err)
	}
	if err := g.copier.Synchronize(); err != nil {
		return nil, fmt.Errorf("copying predecessors: %w", err)
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
		if err := cuda.CopyFromDevice(g.dev, v, g.vals[last]); err != nil {
			return nil, err
		}
		for i, x := range v {
			final[i] = int64(x)
		}
	} else if err := cuda.CopyFromDevice(g.dev, final, g.vals[last]); err != nil {
		return nil, err
	}
	d := g.in.dist
	best, lastCity := final[0]+d[1*n], 1
	for p := 1; p < m; p++ {
		if v := final[p] + d[(p+1)*n]; v < best {
			best, lastCity = v, p+1
		}
	}
	tour, err := lay.readTour(lastCity, func(k int, idx int64) byte { return hostArgs[offset[k]+idx] })
	if err != nil {
		return nil, err
	}
	if got, err := tourLength(d, n, tour); err != nil || got != best {
		return nil, fmt.Errorf("internal error: tour %v has length %d, the GPU's values say %d (%v)", tour, got, best, err)
	}
	return &Result{
		Length: best, Tour: tour, States: total,
		ComputeSeconds: float64(ms) / 1000,
		PeakBytes:      g.mem.gpuHost,
		DeviceBytes:    g.deviceBytes,
	}, nil
}
