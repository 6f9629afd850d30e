package peers

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend/cuda"
)

// GPU is a [Device] on the first CUDA device, compiling with NVRTC through
// the bindings dpgpu itself uses (backend/cuda), for the device's own
// architecture and with no options beyond the kernels' definitions — the
// way dpgpu compiles its generated kernels.
type GPU struct {
	ctx   *cuda.Context
	nv    *cuda.NVRTC
	cache *cuda.Cache // nil: compile every time
	mods  map[string]*gpuModule
	start *cuda.Event
	stop  *cuda.Event
	// Log, when set, receives NVRTC's warnings.
	Log func(string)
}

type gpuModule struct {
	unit string
	mod  *cuda.Module
	fns  map[string]*cuda.Function
}

func (m *gpuModule) Unit() string { return m.unit }

// OpenGPU opens device 0. Its error wraps [cuda.ErrNoDriver] when there is
// no usable CUDA driver. With $DPGPU_CACHE_DIR set, CUBINs are kept there
// (as dpgpu does), else every Build runs NVRTC.
func OpenGPU() (*GPU, error) {
	drv, err := cuda.Open()
	if err != nil {
		return nil, err
	}
	ctx, err := drv.NewContext(0)
	if err != nil {
		return nil, err
	}
	g := &GPU{ctx: ctx, mods: map[string]*gpuModule{}}
	fail := func(err error) (*GPU, error) {
		return nil, errors.Join(err, g.Close())
	}
	if g.nv, err = cuda.OpenNVRTC(); err != nil {
		return fail(err)
	}
	if dir := os.Getenv("DPGPU_CACHE_DIR"); dir != "" {
		if g.cache, err = cuda.OpenCache(dir); err != nil {
			return fail(err)
		}
	}
	if g.start, err = ctx.NewEvent(); err != nil {
		return fail(err)
	}
	if g.stop, err = ctx.NewEvent(); err != nil {
		return fail(err)
	}
	return g, nil
}

// Device describes the GPU.
func (g *GPU) Device() cuda.Device { return g.ctx.Device() }

// NVRTCVersion is the compiler's CUDA version.
func (g *GPU) NVRTCVersion() (major, minor int) { return g.nv.Version() }

// Close unloads the modules and releases the context. Buffers must have
// been freed by their runners.
func (g *GPU) Close() error {
	var errs []error
	for _, m := range g.mods {
		errs = append(errs, m.mod.Unload())
	}
	g.mods = nil
	for _, e := range []*cuda.Event{g.start, g.stop} {
		if e != nil {
			errs = append(errs, e.Destroy())
		}
	}
	errs = append(errs, g.ctx.Close())
	return errors.Join(errs...)
}

// Build compiles unit for the device's architecture; a unit built before
// with the same definitions is reused.
func (g *GPU) Build(unit string, defines []string) (Module, error) {
	key := unit + "\x00" + strings.Join(defines, "\x00")
	if m, ok := g.mods[key]; ok {
		return m, nil
	}
	src, err := Source(unit)
	if err != nil {
		return nil, err
	}
	opts := make([]string, len(defines))
	for k, d := range defines {
		opts[k] = "-D" + d
	}
	arch := g.ctx.Device().Arch()
	var cubin []byte
	var log string
	if g.cache != nil {
		cubin, log, _, err = g.cache.Compile(g.nv, src, unit, arch, opts)
	} else {
		cubin, log, err = g.nv.Compile(src, unit, arch, opts)
	}
	if err != nil {
		return nil, err
	}
	if log = strings.TrimSpace(log); log != "" && g.Log != nil {
		g.Log(fmt.Sprintf("NVRTC %s %v: %s", unit, defines, log))
	}
	mod, err := g.ctx.LoadModule(cubin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", unit, err)
	}
	m := &gpuModule{unit: unit, mod: mod, fns: map[string]*cuda.Function{}}
	for name, sig := range kernels {
		if sig.unit != unit {
			continue
		}
		f, err := mod.Function(name)
		if err != nil {
			return nil, errors.Join(err, mod.Unload())
		}
		m.fns[name] = f
	}
	g.mods[key] = m
	return m, nil
}

// Info is what the compiler made of a kernel (registers, spills).
func (g *GPU) Info(m Module, kernel string) (cuda.FuncInfo, error) {
	gm, ok := m.(*gpuModule)
	if !ok || gm.fns[kernel] == nil {
		return cuda.FuncInfo{}, fmt.Errorf("peers: no kernel %s in this module", kernel)
	}
	return gm.fns[kernel].Info()
}

func (g *GPU) Alloc(bytes int64) (Buf, error) {
	p, err := g.ctx.Alloc(bytes)
	return Buf(p), err
}

func (g *GPU) Free(b Buf) error { return g.ctx.Free(cuda.DevicePtr(b)) }

func (g *GPU) Upload(dst Buf, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return g.ctx.CopyHtoD(cuda.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src)))
}

func (g *GPU) Memset(dst Buf, v byte, bytes int64) error {
	return g.ctx.Memset8(cuda.DevicePtr(dst), v, bytes)
}

func (g *GPU) Download(dst []byte, src Buf, off int64) error {
	if len(dst) == 0 {
		return nil
	}
	return g.ctx.CopyDtoH(unsafe.Pointer(&dst[0]), cuda.DevicePtr(src).Offset(off), int64(len(dst)))
}

func (g *GPU) Launch(m Module, kernel string, grid, block uint32, args ...any) error {
	if err := checkArgs(m, kernel, args); err != nil {
		return err
	}
	gm, ok := m.(*gpuModule)
	if !ok {
		return fmt.Errorf("peers: kernel %s: the module is not one of this GPU's", kernel)
	}
	cargs := make([]any, len(args))
	for k, a := range args {
		if b, ok := a.(Buf); ok {
			cargs[k] = cuda.DevicePtr(b)
		} else {
			cargs[k] = a
		}
	}
	return g.ctx.Launch(gm.fns[kernel], [3]uint32{grid, 1, 1}, [3]uint32{block, 1, 1}, 0, nil, cargs...)
}

func (g *GPU) StartTimer() error { return g.start.Record(nil) }

func (g *GPU) StopTimer() (float64, error) {
	if err := g.stop.Record(nil); err != nil {
		return 0, err
	}
	if err := g.stop.Synchronize(); err != nil {
		return 0, err
	}
	ms, err := cuda.Elapsed(g.start, g.stop)
	return float64(ms), err
}
