package peers

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/internal/gputest"
)

// The GPU is opened once for the test binary: a context costs time.
var shared struct {
	once sync.Once
	gpu  *GPU
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.gpu != nil {
		if err := shared.gpu.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the GPU: %v\n", err)
			code = 1
		}
	}
	if emuBuilds.dir != "" {
		os.RemoveAll(emuBuilds.dir)
	}
	os.Exit(code)
}

// gpuDevice returns the GPU, or skips the test where there is no CUDA driver
// (fails instead with DPGPU_REQUIRE_GPU set: gputest.NoGPU). A driver that is found but fails
// is a failure.
func gpuDevice(t testing.TB) *GPU {
	t.Helper()
	shared.once.Do(func() {
		shared.gpu, shared.err = OpenGPU()
		if shared.err == nil {
			shared.gpu.Log = func(s string) { fmt.Println(s) }
		}
	})
	if errors.Is(shared.err, cuda.ErrNoDriver) {
		gputest.NoGPU(t, shared.err)
	}
	if shared.err != nil {
		t.Fatalf("a CUDA driver is present but opening the GPU failed: %v", shared.err)
	}
	return shared.gpu
}

// testSeed is $DPGPU_SEED, or a fresh seed; it is logged to rerun a failure.
func testSeed(t testing.TB) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("DPGPU_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("DPGPU_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("random seed %d (DPGPU_SEED=%d reproduces)", seed, seed)
	return seed
}

// seeded is a generator for stream k of seed (one per goroutine).
func seeded(seed, k uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, k*0x9e3779b97f4a7c15+1))
}

// randSeq is n bytes from the first sigma letters of "ACGT...".
func randSeq(r *rand.Rand, n, sigma int) []byte {
	const letters = "ACGTDEFHIKLMNPQRSVWY"
	b := make([]byte, n)
	for k := range b {
		b[k] = letters[r.IntN(sigma)]
	}
	return b
}

func randRNA(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = "ACGU"[r.IntN(4)]
	}
	return b
}

// randDims is n+1 dimensions in 1..hi.
func randDims(r *rand.Rand, n int, hi int64) []int64 {
	d := make([]int64, n+1)
	for k := range d {
		d[k] = 1 + r.Int64N(hi)
	}
	return d
}

// firstDiff is the first index where got and want differ, or -1.
func firstDiff[T comparable](got, want []T) int {
	for k := range min(len(got), len(want)) {
		if got[k] != want[k] {
			return k
		}
	}
	if len(got) != len(want) {
		return min(len(got), len(want))
	}
	return -1
}

// sameInts reports the first difference of got and want (values 1-based
// positions, as the DP's rows and columns are).
func sameInts(t testing.TB, what string, got, want []int32) {
	t.Helper()
	if k := firstDiff(got, want); k >= 0 {
		g, w := "none", "none"
		if k < len(got) {
			g = strconv.Itoa(int(got[k]))
		}
		if k < len(want) {
			w = strconv.Itoa(int(want[k]))
		}
		t.Errorf("%s: %d values, want %d; first difference at %d: %s, want %s", what, len(got), len(want), k+1, g, w)
	}
}

// lcsKernel is what checkLCS needs of a peer LCS kernel.
type lcsKernel interface {
	Run() (Result, error)
	LastColumn() ([]int32, error)
	Close() error
}

// checkLCS runs x runs times on a, b and compares the answer, the last
// column and, where x has one (lcs_tiled), the last row with RefLCS; it
// closes x.
func checkLCS(t testing.TB, what string, x lcsKernel, a, b []byte, runs int) {
	t.Helper()
	defer func() {
		if err := x.Close(); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}()
	row, col := RefLCS(a, b)
	for k := range runs {
		res, err := x.Run()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if want := int64(row[len(row)-1]); res.Answer != want {
			t.Errorf("%s run %d: answer %d, want %d", what, k+1, res.Answer, want)
		}
	}
	if xr, ok := x.(interface{ LastRow() ([]int32, error) }); ok {
		got, err := xr.LastRow()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		sameInts(t, what+" last row", got, row)
	}
	got, err := x.LastColumn()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	sameInts(t, what+" last column", got, col)
}

// checkLCSTiled runs lcs_tiled runs times on a, b (checkLCS).
func checkLCSTiled(t testing.TB, dev Device, a, b []byte, cfg TiledConfig, runs int) {
	t.Helper()
	what := fmt.Sprintf("lcs_tiled %s %dx%d", cfg, len(a), len(b))
	x, err := NewLCSTiled(dev, a, b, cfg)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	checkLCS(t, what, x, a, b, runs)
}

// checkLCSBitpar runs lcs_bitpar runs times on a, b (checkLCS).
func checkLCSBitpar(t testing.TB, dev Device, a, b []byte, cfg BitparConfig, runs int) {
	t.Helper()
	what := fmt.Sprintf("lcs_bitpar %s %dx%d", cfg, len(a), len(b))
	x, err := NewLCSBitpar(dev, a, b, cfg)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	checkLCS(t, what, x, a, b, runs)
}

// checkTable runs x runs times and compares the answer and the whole
// mirrored table with want.
func checkTable(t testing.TB, x *Interval, want []int64, runs int) {
	t.Helper()
	n := x.N()
	what := fmt.Sprintf("%s n=%d", x.Kernel(), n)
	for k := range runs {
		res, err := x.Run()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if res.Answer != want[n-1] {
			t.Errorf("%s run %d: answer %d, want %d", what, k+1, res.Answer, want[n-1])
		}
	}
	got, err := x.Table()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if k := firstDiff(got, want); k >= 0 {
		t.Errorf("%s: cell (%d, %d) = %d, want %d", what, k/n, k%n, got[k], want[k])
	}
}

func checkNussinov(t testing.TB, dev Device, seq []byte, v Variant, runs int) {
	t.Helper()
	x, err := NewNussinov(dev, seq, v)
	if err != nil {
		t.Fatalf("nussinov %s n=%d: %v", v, len(seq), err)
	}
	defer func() {
		if err := x.Close(); err != nil {
			t.Errorf("nussinov: %v", err)
		}
	}()
	checkTable(t, x, RefNussinov(seq), runs)
}

func checkMatrixChain(t testing.TB, dev Device, dims []int64, v Variant, runs int) {
	t.Helper()
	x, err := NewMatrixChain(dev, dims, v)
	if err != nil {
		t.Fatalf("matrix chain %s n=%d: %v", v, len(dims)-1, err)
	}
	defer func() {
		if err := x.Close(); err != nil {
			t.Errorf("matrix chain: %v", err)
		}
	}()
	checkTable(t, x, RefMatrixChain(dims), runs)
}

// Small shapes that exercise the tiling (partial, single, many tiles),
// besides the default ones.
var (
	smallTiled  = TiledConfig{R: 2, CW: 2, TW: 8, WarpsPerBlock: 2}
	smallBitpar = []BitparConfig{{CW: 1, TW: 32, WarpsPerBlock: 1}, {CW: 32, TW: 64, WarpsPerBlock: 2}}
)

// TestPeers checks every kernel on the GPU, compiled by NVRTC for its
// architecture, on random instances at awkward sizes against the Go
// references: answers, and the last row/column or the whole table. Each
// instance runs twice, so that a run that leaves state behind is caught.
func TestPeers(t *testing.T) {
	g := gpuDevice(t)
	major, minor := g.NVRTCVersion()
	t.Logf("device %s, NVRTC %d.%d", g.Device(), major, minor)
	r := seeded(testSeed(t), 0)
	t.Run("lcs_tiled", func(t *testing.T) {
		for _, sz := range [][2]int{{1, 1}, {1, 5000}, {5000, 1}, {63, 64}, {64, 65}, {255, 257}, {256, 512}, {1000, 4097}, {4097, 1000}, {3000, 3000}} {
			checkLCSTiled(t, g, randSeq(r, sz[0], 4), randSeq(r, sz[1], 4), DefaultTiled, 2)
		}
		for _, sz := range [][2]int{{1, 1}, {63, 64}, {65, 9}, {1000, 777}, {129, 1}} {
			checkLCSTiled(t, g, randSeq(r, sz[0], 2), randSeq(r, sz[1], 2), smallTiled, 2)
		}
		checkLCSTiled(t, g, randSeq(r, 2000, 20), randSeq(r, 3000, 20), DefaultTiled, 1)
	})
	t.Run("lcs_bitpar", func(t *testing.T) {
		for _, sz := range [][2]int{{1, 1}, {63, 64}, {64, 65}, {2047, 100}, {2048, 3000}, {2049, 1}, {4097, 4097}, {10000, 3000}} {
			checkLCSBitpar(t, g, randSeq(r, sz[0], 4), randSeq(r, sz[1], 4), DefaultBitpar, 2)
		}
		for _, cfg := range smallBitpar {
			for _, sz := range [][2]int{{1, 1}, {65, 33}, {2049, 100}, {5000, 300}} {
				checkLCSBitpar(t, g, randSeq(r, sz[0], 2), randSeq(r, sz[1], 2), cfg, 2)
			}
		}
	})
	for _, v := range []Variant{Warp, Thread} {
		t.Run("interval-"+v.String(), func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 17, 100, 1000} {
				checkNussinov(t, g, randRNA(r, n), v, 2)
				checkMatrixChain(t, g, randDims(r, n, 1000), v, 2)
			}
		})
	}
}
