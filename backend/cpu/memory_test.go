package cpu

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestLCSMemory checks the memory model: LCS of two 200,000-character
// strings without keeping the grid stays under 50 MB resident. It takes a
// minute, so it runs only with DPGPU_MEMTEST set (to the string length,
// or 1 for 200,000):
//
//	DPGPU_MEMTEST=1 go test -run TestLCSMemory -v ./backend/cpu
func TestLCSMemory(t *testing.T) {
	env := os.Getenv("DPGPU_MEMTEST")
	if env == "" {
		t.Skip("set DPGPU_MEMTEST=1 to run (about a minute on 2 cores)")
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 1000 {
		n = 200000
	}
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, n), dptest.DNA(r, n)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(a, b))
	start := time.Now()
	res, err := solve(t, p, pl, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hwm := vmHWM(t)
	t.Logf("LCS %dx%d = %d in %v (%.2f GCUPS), VmHWM %.1f MB, PeakHostBytes %.1f MB",
		n, n, res.Answer.I, time.Since(start), res.Stats.CellsPerSecond()/1e9, float64(hwm)/1e6, float64(res.Stats.PeakHostBytes)/1e6)
	if hwm > 50e6 {
		t.Errorf("resident memory peaked at %.1f MB, over 50 MB", float64(hwm)/1e6)
	}
}

// vmHWM is the process's peak resident memory, in bytes.
func vmHWM(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb * 1024
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// TestTileBufZeroed checks that a pooled tile buffer comes back as make
// would give it: zeroed, of the length asked, whatever it held.
func TestTileBufZeroed(t *testing.T) {
	var pool sync.Pool
	for _, n := range []int64{100, 40, 100, 300, 7} {
		b := tileBuf[int64](&pool, n)
		if int64(len(b)) != n {
			t.Fatalf("len %d, want %d", len(b), n)
		}
		for k, v := range b {
			if v != 0 {
				t.Fatalf("n=%d: cell %d holds %d", n, k, v)
			}
			b[k] = int64(k) + 1
		}
		pool.Put(&b)
	}
}
