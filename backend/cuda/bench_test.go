package cuda

import (
	"strings"
	"testing"
)

// BenchmarkPackArgs is the host-side cost of laying out a launch's arguments.
func BenchmarkPackArgs(b *testing.B) {
	args := []any{float32(2), DevicePtr(1 << 40), DevicePtr(2 << 40), int32(1000)}
	params := []int{4, 8, 8, 4}
	for b.Loop() {
		if _, err := packArgs("saxpy", params, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchEmpty is the host cost of queueing a kernel without
// arguments. The queue is drained every 100 launches, outside the timing, so
// that a full queue never blocks the launch.
func BenchmarkLaunchEmpty(b *testing.B) {
	g := openGPU(b)
	g.mod = g.load(b, kernelsSrc)
	f, err := g.mod.Function("empty")
	if err != nil {
		b.Fatal(err)
	}
	benchLaunch(b, g, f)
}

// BenchmarkLaunchSaxpy queues a four-argument kernel over one block.
func BenchmarkLaunchSaxpy(b *testing.B) {
	g := openGPU(b)
	g.mod = g.load(b, kernelsSrc)
	f, err := g.mod.Function("saxpy")
	if err != nil {
		b.Fatal(err)
	}
	p, err := g.ctx.Alloc(1024)
	if err != nil {
		b.Fatal(err)
	}
	defer g.ctx.Free(p)
	benchLaunch(b, g, f, float32(2), p, p, int32(256))
}

// BenchmarkLaunchRaw calls cuLaunchKernel directly on a bound thread, without
// the per-call context switch and argument packing of Context.Launch: the
// difference to BenchmarkLaunchEmpty is this package's overhead.
func BenchmarkLaunchRaw(b *testing.B) {
	g := openGPU(b)
	g.mod = g.load(b, kernelsSrc)
	f, err := g.mod.Function("empty")
	if err != nil {
		b.Fatal(err)
	}
	s, err := g.ctx.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	if err := g.ctx.Bind(); err != nil {
		b.Fatal(err)
	}
	defer g.ctx.Unbind()
	api := g.ctx.api
	launchLoop(b, s, func() error {
		if st := api.call(api.cuLaunchKernel, f.h, 1, 1, 1, 256, 1, 1, 0, s.h, 0, 0); st != Success {
			return api.check("cuLaunchKernel", st)
		}
		return nil
	})
}

// BenchmarkMakeCurrent is what every method pays to be callable from any
// goroutine: locking the thread and cuCtxSetCurrent.
func BenchmarkMakeCurrent(b *testing.B) {
	g := openGPU(b)
	for b.Loop() {
		if err := g.ctx.enter(); err != nil {
			b.Fatal(err)
		}
		g.ctx.exit()
	}
}

func benchLaunch(b *testing.B, g *gpu, f *Function, args ...any) {
	s, err := g.ctx.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	launchLoop(b, s, func() error {
		return g.ctx.Launch(f, [3]uint32{1, 1, 1}, [3]uint32{256, 1, 1}, 0, s, args...)
	})
}

// launchLoop times launch, draining s every 100 launches outside the timing
// so that a full queue never blocks a launch, and once at the end.
func launchLoop(b *testing.B, s *Stream, launch func() error) {
	i := 0
	for b.Loop() {
		if err := launch(); err != nil {
			b.Fatal(err)
		}
		if i++; i%100 == 0 {
			b.StopTimer()
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	if err := s.Synchronize(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCompileSaxpy is one NVRTC compilation of a small kernel to CUBIN.
func BenchmarkCompileSaxpy(b *testing.B) {
	g := openGPU(b)
	src := kernelsSrc[:strings.Index(kernelsSrc, "extern \"C\" __global__ void daxpy")]
	for b.Loop() {
		if _, _, err := g.nv.Compile(src, "saxpy.cu", g.ctx.Device().Arch(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCacheHit is a CompileCached that finds its CUBIN on disk.
func BenchmarkCacheHit(b *testing.B) {
	g := openGPU(b)
	c, err := OpenCache(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	arch := g.ctx.Device().Arch()
	if _, _, _, err := c.Compile(g.nv, kernelsSrc, "kernels.cu", arch, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, hit, err := c.Compile(g.nv, kernelsSrc, "kernels.cu", arch, nil); err != nil || !hit {
			b.Fatalf("hit=%v err=%v", hit, err)
		}
	}
}
