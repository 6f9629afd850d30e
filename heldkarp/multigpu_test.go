package heldkarp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend/cuda"
)

// openGPUs opens every GPU and NCCL, or skips: without a CUDA driver (as
// every GPU test), with fewer than two GPUs, or without NCCL, saying which.
// DPGPU_REQUIRE_MULTIGPU=1 makes the last two failures.
func openGPUs(t *testing.T) ([]*cuda.Context, *cuda.NVRTC, *cuda.NCCL) {
	t.Helper()
	drv := openDriver(t)
	skip := t.Skipf
	if os.Getenv("DPGPU_REQUIRE_MULTIGPU") != "" {
		skip = t.Fatalf
	}
	if n := len(drv.Devices()); n < 2 {
		skip("one GPU here (%d): the multi-GPU Held-Karp needs two or more", n)
	}
	nccl, err := cuda.OpenNCCL()
	if err != nil {
		skip("several GPUs but no NCCL: %v", err)
	}
	var devs []*cuda.Context
	for _, d := range drv.Devices() {
		dev, err := drv.NewContext(d.Ordinal)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		devs = append(devs, dev)
	}
	nv, err := cuda.OpenNVRTC()
	if err != nil {
		t.Fatalf("a CUDA driver is present but NVRTC is not: %v", err)
	}
	return devs, nv, nccl
}

// TestSolveGPUsRandom: Held-Karp over two GPUs (and over all of them)
// gives the CPU solver's length and tour, at sizes whose layers split
// unevenly, including layers of fewer states than GPUs.
func TestSolveGPUsRandom(t *testing.T) {
	devs, nv, nccl := openGPUs(t)
	rng := rand.New(rand.NewPCG(12, uint64(time.Now().UnixNano())))
	for _, use := range [][]*cuda.Context{devs[:2], devs} {
		for _, n := range []int{1, 2, 3, 4, 5, 9, 13, 17, 20} {
			t.Run(fmt.Sprintf("%d GPUs/n=%d", len(use), n), func(t *testing.T) {
				d := randomMatrix(rng, n, n%2 == 0, 1, 1000)
				want, err := SolveCPU(context.Background(), d, n, 0, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := SolveGPUs(context.Background(), use, nv, nccl, d, n, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got.Length != want.Length || !slices.Equal(got.Tour, want.Tour) {
					t.Fatalf("%d GPUs %d %v, CPU %d %v", len(use), got.Length, got.Tour, want.Length, want.Tour)
				}
			})
		}
	}
}

// TestSolveGPUsTime times n = 26 on one GPU and on all (DPGPU_PERF=1;
// HK_N sets n), for docs/performance.md.
func TestSolveGPUsTime(t *testing.T) {
	if os.Getenv("DPGPU_PERF") == "" {
		t.Skip("set DPGPU_PERF=1 to time Held-Karp on one GPU and on all")
	}
	devs, nv, nccl := openGPUs(t)
	n := 26
	if s := os.Getenv("HK_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	d := randomMatrix(rand.New(rand.NewPCG(3, 4)), n, false, 1, 1000)
	var one *Result
	for _, use := range [][]*cuda.Context{devs[:1], devs} {
		var best *Result
		for range 2 {
			res, err := SolveGPUs(context.Background(), use, nv, nccl, d, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if best == nil || res.ComputeSeconds < best.ComputeSeconds {
				best = res
			}
		}
		if one == nil {
			one = best
		} else if best.Length != one.Length || !slices.Equal(best.Tour, one.Tour) {
			t.Fatalf("%d GPUs: %d %v, one GPU %d %v", len(use), best.Length, best.Tour, one.Length, one.Tour)
		}
		t.Logf("Held-Karp n = %d on %d GPU(s): compute %.3f s, wall %.3f s, length %d (speed-up %.2fx)", n, len(use), best.ComputeSeconds, best.Seconds, best.Length, one.ComputeSeconds/best.ComputeSeconds)
	}
}
