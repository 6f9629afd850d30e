package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/internal/gputest"
)

// kernelsSrc holds the kernels of the GPU tests. The names are extern "C" so
// that they are not mangled.
const kernelsSrc = `
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void daxpy(double a, const double* x, double* y, long long n) {
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}

// Names at global scope are not mangled, so no extern "C" is needed (and
// "extern" would make this a declaration).
__constant__ int coef[4];

extern "C" __global__ void use_const(int* out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = coef[i % 4] * i;
}

extern "C" __global__ void tex_i8(cudaTextureObject_t t, int* out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = tex1Dfetch<signed char>(t, i);
}

extern "C" __global__ void tex_i32(cudaTextureObject_t t, int* out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = tex1Dfetch<int>(t, i);
}

extern "C" __global__ void tex_f32(cudaTextureObject_t t, float* out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = tex1Dfetch<float>(t, i);
}

extern "C" __global__ void tex_i64(cudaTextureObject_t t, long long* out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int2 v = tex1Dfetch<int2>(t, i);
		out[i] = (long long)(((unsigned long long)(unsigned)v.y << 32) | (unsigned)v.x);
	}
}

extern "C" __global__ void tex_f64(cudaTextureObject_t t, double* out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int2 v = tex1Dfetch<int2>(t, i);
		out[i] = __hiloint2double(v.y, v.x);
	}
}

// spin_fill busy-waits for about cycles clock ticks, then writes v + i.
extern "C" __global__ void spin_fill(int* out, int n, long long cycles, int v) {
	long long start = clock64();
	while (clock64() - start < cycles) { }
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = v + i;
}

// big_shared fills words ints of dynamic shared memory and sums them back.
extern "C" __global__ void big_shared(long long* out, int words) {
	extern __shared__ int s[];
	for (int k = threadIdx.x; k < words; k += blockDim.x) s[k] = k;
	__syncthreads();
	if (threadIdx.x == 0) {
		long long sum = 0;
		for (int k = 0; k < words; k++) sum += s[words - 1 - k];
		out[blockIdx.x] = sum;
	}
}

// mix echoes one parameter of every supported kind.
extern "C" __global__ void mix(signed char a, short b, unsigned char c, long long d, double e,
		float f, unsigned int g, unsigned short h, unsigned long long tex, long long* out) {
	out[0] = a; out[1] = b; out[2] = c; out[3] = d; out[4] = __double_as_longlong(e);
	out[5] = __float_as_int(f); out[6] = g; out[7] = h; out[8] = (long long)tex;
}

extern "C" __global__ void empty() { }
`

// gpu is what the GPU tests share.
type gpu struct {
	drv *Driver
	ctx *Context
	nv  *NVRTC
	mod *Module
}

// openGPU skips when there is no driver and fails on any other problem.
func openGPU(tb testing.TB) *gpu {
	tb.Helper()
	drv, err := Open()
	if errors.Is(err, ErrNoDriver) {
		gputest.NoGPU(tb, err)
	}
	if err != nil {
		tb.Fatalf("opening the CUDA driver: %v", err)
	}
	ctx, err := drv.NewContext(0)
	if err != nil {
		tb.Fatalf("creating a context: %v", err)
	}
	tb.Cleanup(func() {
		if err := ctx.Close(); err != nil {
			tb.Errorf("closing the context: %v", err)
		}
	})
	nv, err := OpenNVRTC()
	if err != nil {
		tb.Fatalf("a driver is present but NVRTC is not: %v", err)
	}
	return &gpu{drv: drv, ctx: ctx, nv: nv}
}

func (g *gpu) load(tb testing.TB, src string) *Module {
	tb.Helper()
	cubin, log, err := g.nv.Compile(src, "kernels.cu", g.ctx.Device().Arch(), nil)
	if err != nil {
		tb.Fatalf("compiling: %v", err)
	}
	if log != "" {
		tb.Logf("compiler log: %s", log)
	}
	m, err := g.ctx.LoadModule(cubin)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := m.Unload(); err != nil {
			tb.Errorf("unloading: %v", err)
		}
	})
	return m
}

func (g *gpu) fn(t *testing.T, name string) *Function {
	t.Helper()
	f, err := g.mod.Function(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// alloc allocates n elements of T, freed at the end of the test.
func alloc[T Elem](t *testing.T, c *Context, n int) DevicePtr {
	t.Helper()
	var z T
	p, err := c.Alloc(int64(n) * int64(unsafe.Sizeof(z)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Free(p); err != nil {
			t.Errorf("freeing: %v", err)
		}
	})
	return p
}

func blocks(n, block int) [3]uint32 { return [3]uint32{uint32((n + block - 1) / block), 1, 1} }

var block256 = [3]uint32{256, 1, 1}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGPU(t *testing.T) {
	g := openGPU(t)
	dev := g.ctx.Device()
	major, minor := g.nv.Version()
	t.Logf("driver %d, %s, %d MB, optin shared %d, L2 %d, clock %d kHz; NVRTC %d.%d from %s",
		g.drv.Version(), dev, dev.TotalMem>>20, dev.MaxSharedPerBlockOptin, dev.L2Bytes, dev.ClockKHz, major, minor, g.nv.Path())
	if dev.Major < 3 || dev.SMs < 1 || dev.TotalMem <= 0 || dev.MaxThreadsPerBlock < 256 || dev.WarpSize != 32 ||
		dev.MaxSharedPerBlockOptin < dev.MaxSharedPerBlock || dev.TextureAlign <= 0 || dev.MaxTexture1DLinear <= 0 {
		t.Errorf("implausible device properties: %+v", dev)
	}

	start := time.Now()
	g.mod = g.load(t, kernelsSrc)
	t.Logf("compiled and loaded the test kernels in %v", time.Since(start))

	// Each subtest gets fresh random data; the seed is logged to reproduce.
	seed := uint64(time.Now().UnixNano())
	t.Logf("random seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))

	t.Run("Info", func(t *testing.T) {
		free, total, err := g.ctx.MemInfo()
		must(t, err)
		if free <= 0 || free > total || total != dev.TotalMem {
			t.Errorf("MemInfo: free %d total %d, device total %d", free, total, dev.TotalMem)
		}
		info, err := g.fn(t, "saxpy").Info()
		must(t, err)
		t.Logf("saxpy: %+v", info)
		if info.Regs <= 0 || info.MaxThreadsPerBlock <= 0 || info.BinaryVersion != 10*dev.Major+dev.Minor {
			t.Errorf("implausible kernel info %+v", info)
		}
		n, err := g.fn(t, "saxpy").MaxActiveBlocksPerSM(256, 0)
		must(t, err)
		if n < 1 || n > dev.MaxThreadsPerSM/256 {
			t.Errorf("occupancy of 256-thread blocks: %d", n)
		}
	})

	t.Run("Saxpy", func(t *testing.T) {
		f := g.fn(t, "saxpy")
		for _, n := range []int{1, 768, 1_000_003} {
			a := float32(2.5)
			x, y := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], y[i] = rng.Float32(), rng.Float32()
			}
			dx, dy := alloc[float32](t, g.ctx, n), alloc[float32](t, g.ctx, n)
			must(t, CopyToDevice(g.ctx, dx, x))
			must(t, CopyToDevice(g.ctx, dy, y))
			e0, err := g.ctx.NewEvent()
			must(t, err)
			e1, err := g.ctx.NewEvent()
			must(t, err)
			must(t, e0.Record(nil))
			must(t, g.ctx.Launch(f, blocks(n, 256), block256, 0, nil, a, dx, dy, int32(n)))
			must(t, e1.Record(nil))
			must(t, e1.Synchronize())
			ms, err := Elapsed(e0, e1)
			must(t, err)
			if ms < 0 || ms > 1000 {
				t.Errorf("n=%d: kernel took %v ms", n, ms)
			}
			t.Logf("saxpy n=%d: %.4f ms", n, ms)
			must(t, e0.Destroy())
			must(t, e1.Destroy())
			got := make([]float32, n)
			must(t, CopyFromDevice(g.ctx, got, dy))
			bad := 0
			for i := range got {
				// The device may fuse a*x+y into one rounding; allow
				// either rounding, i.e. one unit in the last place.
				want := a*x[i] + y[i]
				if got[i] != want && got[i] != math.Nextafter32(want, 0) && got[i] != math.Nextafter32(want, float32(math.Inf(1))) {
					if bad++; bad < 5 {
						t.Errorf("n=%d: y[%d] = %v, want %v", n, i, got[i], want)
					}
				}
			}
		}
	})

	t.Run("Daxpy", func(t *testing.T) {
		f := g.fn(t, "daxpy")
		n := 300_007
		a := rng.NormFloat64()
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.NormFloat64()*1e3, rng.NormFloat64()
		}
		dx, dy := alloc[float64](t, g.ctx, n), alloc[float64](t, g.ctx, n)
		must(t, CopyToDevice(g.ctx, dx, x))
		must(t, CopyToDevice(g.ctx, dy, y))
		must(t, g.ctx.Launch(f, blocks(n, 128), [3]uint32{128, 1, 1}, 0, nil, a, dx, dy, int64(n)))
		got := make([]float64, n)
		must(t, CopyFromDevice(g.ctx, got, dy))
		bad := 0
		for i := range got {
			if fused, plain := math.FMA(a, x[i], y[i]), a*x[i]+y[i]; got[i] != fused && got[i] != plain {
				if bad++; bad < 5 {
					t.Errorf("y[%d] = %v, want %v (fused) or %v", i, got[i], fused, plain)
				}
			}
		}
	})

	t.Run("ArgumentKinds", func(t *testing.T) {
		f := g.fn(t, "mix")
		if f.params == nil {
			t.Errorf("the driver (%d) did not report parameter sizes; launches go unchecked", g.drv.Version())
		} else if want := []int{1, 2, 1, 8, 8, 4, 4, 2, 8, 8}; !equalInts(f.params, want) {
			t.Errorf("parameter sizes %v, want %v", f.params, want)
		}
		out := alloc[int64](t, g.ctx, 9)
		e := -0.3125e-300
		must(t, g.ctx.Launch(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, nil,
			int8(-7), int16(-300), uint8(200), int64(-1)<<40, e, float32(-2.75), uint32(0xfedcba98), uint16(65000), TexObject(0xabcdef0123), out))
		got := make([]int64, 9)
		must(t, CopyFromDevice(g.ctx, got, out))
		want := []int64{-7, -300, 200, -1 << 40, int64(math.Float64bits(e)), int64(int32(math.Float32bits(-2.75))), 0xfedcba98, 65000, 0xabcdef0123}
		if !equalInts(got, want) {
			t.Errorf("kernel saw %v, want %v", got, want)
		}
	})

	t.Run("Memset", func(t *testing.T) {
		n := 1001
		p := alloc[uint32](t, g.ctx, n)
		must(t, g.ctx.Memset32(p, 0xdeadbeef, int64(n)))
		must(t, g.ctx.Memset8(p.Offset(4), 0x5a, 3))
		got := make([]uint32, n)
		must(t, CopyFromDevice(g.ctx, got, p))
		for i, v := range got {
			want := uint32(0xdeadbeef)
			if i == 1 {
				want = 0xde5a5a5a // little-endian: the low three bytes
			}
			if v != want {
				t.Fatalf("word %d = %#x, want %#x", i, v, want)
			}
		}
		q := alloc[uint32](t, g.ctx, n)
		must(t, g.ctx.CopyDtoD(q, p, int64(n)*4))
		got2 := make([]uint32, n)
		must(t, CopyFromDevice(g.ctx, got2, q))
		if !equalInts(got, got2) {
			t.Error("CopyDtoD changed the data")
		}
	})

	t.Run("ConstantGlobal", func(t *testing.T) {
		p, size, err := g.mod.Global("coef")
		must(t, err)
		if size != 16 {
			t.Fatalf("coef has %d bytes, want 16", size)
		}
		c := []int32{int32(rng.IntN(1000)) - 500, 3, -7, int32(rng.IntN(1000))}
		must(t, CopyToDevice(g.ctx, p, c))
		n := 999
		out := alloc[int32](t, g.ctx, n)
		must(t, g.ctx.Launch(g.fn(t, "use_const"), blocks(n, 256), block256, 0, nil, out, int32(n)))
		got := make([]int32, n)
		must(t, CopyFromDevice(g.ctx, got, out))
		for i := range got {
			if want := c[i%4] * int32(i); got[i] != want {
				t.Fatalf("out[%d] = %d, want %d", i, got[i], want)
			}
		}
		if _, _, err := g.mod.Global("no_such_global"); err == nil || !strings.Contains(err.Error(), "cuModuleGetGlobal_v2") {
			t.Errorf("missing global: %v", err)
		}
	})

	t.Run("Textures", func(t *testing.T) {
		n := 1001
		i8 := make([]int8, n)
		i32 := make([]int32, n)
		f32 := make([]float32, n)
		i64 := make([]int64, n)
		f64 := make([]float64, n)
		for i := range n {
			i8[i] = int8(rng.Uint32())
			i32[i] = int32(rng.Uint32())
			f32[i] = float32(rng.NormFloat64() * 1e6)
			i64[i] = int64(rng.Uint64())
			f64[i] = math.Float64frombits(rng.Uint64()) // any bits: NaNs, denormals, infinities
		}
		i8[0], i8[1], i32[0], i32[1] = -128, 127, math.MinInt32, math.MaxInt32
		f32[0], f32[1], f32[2] = float32(math.Inf(-1)), float32(math.Copysign(0, -1)), math.MaxFloat32
		i64[0], i64[1] = math.MinInt64, math.MaxInt64
		f64[0], f64[1], f64[2] = math.NaN(), math.SmallestNonzeroFloat64, math.Copysign(0, -1)

		type texCase struct {
			kernel string
			format TexFormat
			bytes  int64
			upload func(DevicePtr) error
			check  func(DevicePtr) error
		}
		i32Out := func(want func(i int) int32) func(DevicePtr) error {
			return func(out DevicePtr) error {
				got := make([]int32, n)
				if err := CopyFromDevice(g.ctx, got, out); err != nil {
					return err
				}
				for i := range got {
					if got[i] != want(i) {
						return fmt.Errorf("element %d = %d, want %d", i, got[i], want(i))
					}
				}
				return nil
			}
		}
		u64Out := func(want func(i int) uint64) func(DevicePtr) error {
			return func(out DevicePtr) error {
				got := make([]uint64, n)
				if err := CopyFromDevice(g.ctx, got, out); err != nil {
					return err
				}
				for i := range got {
					if got[i] != want(i) {
						return fmt.Errorf("element %d = %#x, want %#x", i, got[i], want(i))
					}
				}
				return nil
			}
		}
		cases := []texCase{
			{"tex_i8", TexInt8, int64(n),
				func(p DevicePtr) error { return CopyToDevice(g.ctx, p, i8) },
				i32Out(func(i int) int32 { return int32(i8[i]) })},
			{"tex_i32", TexInt32, int64(n) * 4,
				func(p DevicePtr) error { return CopyToDevice(g.ctx, p, i32) },
				i32Out(func(i int) int32 { return i32[i] })},
			{"tex_f32", TexFloat32, int64(n) * 4,
				func(p DevicePtr) error { return CopyToDevice(g.ctx, p, f32) },
				i32Out(func(i int) int32 { return int32(math.Float32bits(f32[i])) })},
			{"tex_i64", TexInt2, int64(n) * 8,
				func(p DevicePtr) error { return CopyToDevice(g.ctx, p, i64) },
				u64Out(func(i int) uint64 { return uint64(i64[i]) })},
			{"tex_f64", TexInt2, int64(n) * 8,
				func(p DevicePtr) error { return CopyToDevice(g.ctx, p, f64) },
				u64Out(func(i int) uint64 { return math.Float64bits(f64[i]) })},
		}
		for _, tc := range cases {
			t.Run(tc.kernel, func(t *testing.T) {
				in := alloc[uint8](t, g.ctx, int(tc.bytes))
				must(t, tc.upload(in))
				tex, err := g.ctx.NewTexture(in, tc.bytes, tc.format)
				must(t, err)
				defer func() { must(t, g.ctx.DestroyTexture(tex)) }()
				out := alloc[uint64](t, g.ctx, n)
				must(t, g.ctx.Launch(g.fn(t, tc.kernel), blocks(n, 256), block256, 0, nil, tex, out, int32(n)))
				must(t, tc.check(out))
			})
		}
		if _, err := g.ctx.NewTexture(0, 6, TexInt32); err == nil {
			t.Error("a texture of 6 bytes of int32 was accepted")
		}
	})

	t.Run("StreamsEventsPinned", func(t *testing.T) {
		n := 100_003
		out := alloc[int32](t, g.ctx, n)
		must(t, g.ctx.Memset32(out, 0, int64(n)))
		host, err := g.ctx.HostAlloc(int64(n) * 4)
		must(t, err)
		defer func() { must(t, host.Free()) }()
		view := HostSlice[int32](host)
		if len(view) != n || len(host.Bytes()) != n*4 {
			t.Fatalf("views of %d and %d elements", len(view), len(host.Bytes()))
		}
		s1, err := g.ctx.NewStream()
		must(t, err)
		defer func() { must(t, s1.Destroy()) }()
		s2, err := g.ctx.NewStream()
		must(t, err)
		defer func() { must(t, s2.Destroy()) }()
		done, err := g.ctx.NewEvent()
		must(t, err)
		defer func() { must(t, done.Destroy()) }()

		// The kernel on s1 is slow (about 10 ms); the copy on s2 sees its
		// result only if it really waits for the event.
		v := int32(rng.IntN(1 << 20))
		must(t, g.ctx.Launch(g.fn(t, "spin_fill"), blocks(n, 256), block256, 0, s1, out, int32(n), int64(20_000_000), v))
		must(t, done.Record(s1))
		must(t, s2.WaitEvent(done))
		must(t, g.ctx.CopyDtoHAsync(host.Ptr(), out, int64(n)*4, s2))
		must(t, s2.Synchronize())
		for i, got := range view {
			if got != v+int32(i) {
				t.Fatalf("element %d = %d after the event-ordered copy, want %d", i, got, v+int32(i))
			}
		}
		// And back: pinned host memory to the device on s2.
		for i := range view {
			view[i] = int32(rng.Uint32())
		}
		must(t, g.ctx.CopyHtoDAsync(out, host.Ptr(), int64(n)*4, s2))
		must(t, s2.Synchronize())
		got := make([]int32, n)
		must(t, CopyFromDevice(g.ctx, got, out))
		if !equalInts(got, view) {
			t.Error("CopyHtoDAsync from pinned memory: data differ")
		}
	})

	// A large HostAlloc (mapped and registered by this package) that a
	// kernel writes through its device address; a wait event that reports
	// the kernel's progress without blocking.
	t.Run("MappedLargeHostAllocAndWaitEvent", func(t *testing.T) {
		n := (5 << 20) / 4 // 5 MB: above largeHostBuffer
		host, err := g.ctx.HostAlloc(int64(n) * 4)
		must(t, err)
		defer func() { must(t, host.Free()) }()
		if host.mapped == nil {
			t.Log("HostAlloc fell back to cuMemHostAlloc for 5 MB")
		}
		dptr, err := host.DevicePtr()
		must(t, err)
		s1, err := g.ctx.NewStream()
		must(t, err)
		defer func() { must(t, s1.Destroy()) }()
		ev, err := g.ctx.NewWaitEvent()
		must(t, err)
		defer func() { must(t, ev.Destroy()) }()
		v := int32(rng.IntN(1 << 20))
		// About 0.1 s of spinning: the event cannot be done right away.
		must(t, g.ctx.Launch(g.fn(t, "spin_fill"), blocks(n, 256), block256, 0, s1, dptr, int32(n), int64(200_000_000), v))
		must(t, ev.Record(s1))
		if done, err := ev.Done(); err != nil || done {
			t.Errorf("Done right after the launch: %v, %v", done, err)
		}
		must(t, ev.Synchronize())
		if done, err := ev.Done(); err != nil || !done {
			t.Errorf("Done after Synchronize: %v, %v", done, err)
		}
		for i, got := range HostSlice[int32](host) {
			if got != v+int32(i) {
				t.Fatalf("element %d = %d written by the kernel into mapped host memory, want %d", i, got, v+int32(i))
			}
		}
	})

	t.Run("DynamicShared", func(t *testing.T) {
		f := g.fn(t, "big_shared")
		info, err := f.Info()
		must(t, err)
		bytes := dev.MaxSharedPerBlockOptin - info.StaticSharedBytes
		words := bytes / 4
		out := alloc[int64](t, g.ctx, 2)
		if bytes > 48<<10 {
			err := g.ctx.Launch(f, [3]uint32{2, 1, 1}, block256, uint32(words*4), nil, out, int32(words))
			if err == nil || !strings.Contains(err.Error(), "cuLaunchKernel") {
				t.Errorf("launch with %d bytes of shared memory before opting in: %v", words*4, err)
			}
		}
		must(t, f.SetMaxDynamicShared(words*4))
		must(t, g.ctx.Launch(f, [3]uint32{2, 1, 1}, block256, uint32(words*4), nil, out, int32(words)))
		got := make([]int64, 2)
		must(t, CopyFromDevice(g.ctx, got, out))
		want := int64(words) * int64(words-1) / 2
		if got[0] != want || got[1] != want {
			t.Errorf("sums %v, want %d", got, want)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		f := g.fn(t, "saxpy")
		dx := alloc[float32](t, g.ctx, 4)
		tooMany := [3]uint32{uint32(dev.MaxThreadsPerBlock) * 2, 1, 1}
		err := g.ctx.Launch(f, [3]uint32{1, 1, 1}, tooMany, 0, nil, float32(1), dx, dx, int32(4))
		if err == nil || !strings.Contains(err.Error(), "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE") || !errors.Is(err, InvalidValue) {
			t.Errorf("launch with %d threads per block: %v", tooMany[0], err)
		}
		t.Logf("too many threads: %v", err)

		_, err = g.ctx.Alloc(1 << 50)
		if err == nil || !strings.Contains(err.Error(), "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY") || !errors.Is(err, OutOfMemory) {
			t.Errorf("allocating 1 PiB: %v", err)
		}
		_, err = g.mod.Function("no_such_kernel")
		if err == nil || !strings.Contains(err.Error(), "cuModuleGetFunction") || !errors.Is(err, NotFound) {
			t.Errorf("missing kernel: %v", err)
		}
		err = g.ctx.Launch(f, [3]uint32{1, 1, 1}, block256, 0, nil, float32(1), dx, dx)
		if err == nil || !strings.Contains(err.Error(), "takes 4 parameters, got 3") {
			t.Errorf("launch with a missing argument: %v", err)
		}
		err = g.ctx.Launch(f, [3]uint32{1, 1, 1}, block256, 0, nil, 1.0, dx, dx, int32(4))
		if err == nil || !strings.Contains(err.Error(), "parameter 0 has 4 bytes") {
			t.Errorf("launch with a float64 for a float: %v", err)
		}
		if _, err := g.ctx.LoadModule([]byte("\x7fELF garbage that is no module")); err == nil || !strings.Contains(err.Error(), "cuModuleLoadData") {
			t.Errorf("loading garbage: %v", err)
		}
		// None of these errors is sticky: the context still works.
		must(t, g.ctx.Launch(f, [3]uint32{1, 1, 1}, block256, 0, nil, float32(1), dx, dx, int32(4)))
		must(t, g.ctx.Synchronize())
	})

	t.Run("CompileError", func(t *testing.T) {
		src := "extern \"C\" __global__ void k(int* p) {\n#line 7 \"test.dp\"\n\tp[0] = undefined_thing;\n}\n"
		_, log, err := g.nv.Compile(src, "broken.cu", dev.Arch(), nil)
		if err == nil {
			t.Fatal("compiling an undefined name succeeded")
		}
		var ne *NVRTCError
		if !errors.As(err, &ne) || ne.Call != "nvrtcCompileProgram" || ne.Name != "NVRTC_ERROR_COMPILATION" {
			t.Errorf("error %v is not an nvrtcCompileProgram compilation error", err)
		}
		if !strings.Contains(log, "test.dp(7)") || !strings.Contains(err.Error(), "test.dp(7)") {
			t.Errorf("log %q / error %q do not point at test.dp(7)", log, err)
		}
		if _, _, err := g.nv.Compile("__global__ void k() {}", "k.cu", dev.Arch(), []string{"-O3"}); err == nil {
			t.Error("NVRTC accepted -O3")
		} else {
			t.Logf("-O3: %v", err)
		}
		if _, _, err := g.nv.Compile("", "k.cu", "compute_90", nil); err == nil {
			t.Error("Compile accepted a virtual architecture")
		}
	})

	t.Run("PTX", func(t *testing.T) {
		ptx, _, err := g.nv.CompilePTX(kernelsSrc, "kernels.cu", "compute_"+dev.Arch()[3:], nil)
		must(t, err)
		if !strings.Contains(ptx, ".entry saxpy") {
			t.Fatalf("PTX lacks saxpy:\n%.500s", ptx)
		}
		m, err := g.ctx.LoadModule([]byte(ptx))
		must(t, err)
		defer func() { must(t, m.Unload()) }()
		if _, err := m.Function("saxpy"); err != nil {
			t.Error(err)
		}
	})

	t.Run("CompileTime", func(t *testing.T) {
		src := kernelsSrc[:strings.Index(kernelsSrc, "extern \"C\" __global__ void daxpy")]
		var times []time.Duration
		for range 3 {
			start := time.Now()
			_, _, err := g.nv.Compile(src, "saxpy.cu", dev.Arch(), nil)
			must(t, err)
			times = append(times, time.Since(start))
		}
		t.Logf("NVRTC compile of saxpy: %v", times)
	})

	t.Run("Cache", func(t *testing.T) {
		c, err := OpenCache(t.TempDir())
		must(t, err)
		start := time.Now()
		a, _, hit, err := c.Compile(g.nv, kernelsSrc, "kernels.cu", dev.Arch(), []string{"-lineinfo"})
		must(t, err)
		miss := time.Since(start)
		start = time.Now()
		b, log, hit2, err := c.Compile(g.nv, kernelsSrc, "kernels.cu", dev.Arch(), []string{"-lineinfo"})
		must(t, err)
		t.Logf("cache miss %v, hit %v", miss, time.Since(start))
		if hit || !hit2 || log != "" || !bytes.Equal(a, b) {
			t.Errorf("first hit=%v, second hit=%v, log %q, identical=%v", hit, hit2, log, bytes.Equal(a, b))
		}
		m, err := g.ctx.LoadModule(b)
		must(t, err)
		defer func() { must(t, m.Unload()) }()
		f, err := m.Function("saxpy")
		must(t, err)
		x := alloc[float32](t, g.ctx, 3)
		must(t, CopyToDevice(g.ctx, x, []float32{1, 2, 3}))
		must(t, g.ctx.Launch(f, [3]uint32{1, 1, 1}, block256, 0, nil, float32(2), x, x, int32(3)))
		got := make([]float32, 3)
		must(t, CopyFromDevice(g.ctx, got, x))
		if got[0] != 3 || got[1] != 6 || got[2] != 9 {
			t.Errorf("cached module computed %v, want [3 6 9]", got)
		}
	})

	t.Run("Bind", func(t *testing.T) {
		must(t, g.ctx.Bind())
		defer g.ctx.Unbind()
		must(t, g.ctx.Synchronize())
	})

	t.Run("Concurrent", func(t *testing.T) {
		// Several goroutines, each on its own stream, without Bind: every
		// method makes the context current on whatever thread runs it.
		f := g.fn(t, "saxpy")
		const workers, n = 8, 4097
		errs := make(chan error, workers)
		for w := range workers {
			go func() {
				errs <- func() error {
					s, err := g.ctx.NewStream()
					if err != nil {
						return err
					}
					defer s.Destroy()
					x := make([]float32, n)
					for i := range x {
						x[i] = float32(i + w)
					}
					px, err := g.ctx.Alloc(n * 4)
					if err != nil {
						return err
					}
					defer g.ctx.Free(px)
					py, err := g.ctx.Alloc(n * 4)
					if err != nil {
						return err
					}
					defer g.ctx.Free(py)
					if err := CopyToDevice(g.ctx, px, x); err != nil {
						return err
					}
					if err := g.ctx.Memset32(py, 0, n); err != nil {
						return err
					}
					const launches = 50
					for range launches {
						if err := g.ctx.Launch(f, blocks(n, 256), block256, 0, s, float32(1), px, py, int32(n)); err != nil {
							return err
						}
					}
					if err := s.Synchronize(); err != nil {
						return err
					}
					if err := CopyFromDevice(g.ctx, x, py); err != nil {
						return err
					}
					for i := range x {
						if want := float32((i + w) * launches); x[i] != want {
							return fmt.Errorf("worker %d: y[%d] = %v, want %v", w, i, x[i], want)
						}
					}
					return nil
				}()
			}()
		}
		for range workers {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	})
}

func equalInts[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
