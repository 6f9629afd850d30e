package heldkarp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/internal/gputest"
)

// openGPU opens device 0 and NVRTC. It skips the test where there is no
// CUDA driver and fails where there is one but anything else goes wrong.
func openGPU(t testing.TB) (*cuda.Context, *cuda.NVRTC) {
	t.Helper()
	drv := openDriver(t)
	dev, err := drv.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dev.Close(); err != nil {
			t.Error(err)
		}
	})
	nv, err := cuda.OpenNVRTC()
	if err != nil {
		t.Fatalf("a CUDA driver is present but NVRTC is not: %v", err)
	}
	return dev, nv
}

// openDriver opens the CUDA driver; it skips the test where there is
// none and fails where opening it fails otherwise.
func openDriver(t testing.TB) *cuda.Driver {
	t.Helper()
	drv, err := cuda.Open()
	if errors.Is(err, cuda.ErrNoDriver) {
		gputest.NoGPU(t, err)
	}
	if err != nil {
		t.Fatalf("opening the CUDA driver: %v", err)
	}
	return drv
}

// TestSolveGPURandom checks the GPU against the CPU solver, which the tests
// of heldkarp_test.go check against brute force: same length and, as both
// take the first minimum, the same tour. The references are rerun here too.
func TestSolveGPURandom(t *testing.T) {
	dev, nv := openGPU(t)
	rng := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	tests := []struct {
		n         int
		symmetric bool
		lo, hi    int64
	}{
		{1, true, 1, 10}, {2, false, 1, 10}, {3, false, 1, 100}, {4, true, 1, 100},
		{5, false, -20, 20}, {7, true, 0, 3}, {9, false, 1, 1000}, {10, false, 1e12, 1e13},
		{11, true, 1, 100}, {12, false, 1, 10000}, {13, true, 0, 2}, {14, false, 1, 1e15},
		{16, false, 1, 1000}, {17, true, 1, 100}, {19, false, 0, 10}, {20, false, 1e11, 1e12},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("n=%d/sym=%v/d=%d..%d", tc.n, tc.symmetric, tc.lo, tc.hi), func(t *testing.T) {
			d := randomMatrix(rng, tc.n, tc.symmetric, tc.lo, tc.hi)
			want, err := SolveCPU(context.Background(), d, tc.n, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SolveGPU(context.Background(), dev, nv, d, tc.n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Length != want.Length || !slices.Equal(got.Tour, want.Tour) {
				t.Fatalf("GPU %d %v, CPU %d %v", got.Length, got.Tour, want.Length, want.Tour)
			}
			checkTour(t, d, tc.n, got.Tour, want.Length)
			if tc.n <= 10 {
				if ref := bruteForce(d, tc.n); ref != got.Length {
					t.Fatalf("GPU %d, brute force %d", got.Length, ref)
				}
			} else if tc.n <= 14 {
				if ref := plainHeldKarp(d, tc.n); ref != got.Length {
					t.Fatalf("GPU %d, plain Held-Karp %d", got.Length, ref)
				}
			}
			if got.States != want.States || (tc.n > 1 && got.DeviceBytes <= 0) {
				t.Errorf("States %d (CPU %d), DeviceBytes %d", got.States, want.States, got.DeviceBytes)
			}
		})
	}
}

func TestSolveGPUTSPLIB(t *testing.T) {
	dev, nv := openGPU(t)
	optima := readOptima(t)
	for _, name := range []string{"ulysses16", "gr17", "br17", "gr21", "fri26", "bays29", "bayg29"} {
		t.Run(name, func(t *testing.T) {
			inst, ok := optima[name]
			if !ok {
				t.Fatalf("no optimum for %s", name)
			}
			tsp := loadTSPLIB(t, inst.file)
			res, err := SolveGPU(context.Background(), dev, nv, tsp.Dist, tsp.N, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Length != inst.optimum {
				t.Fatalf("%s: length %d, want the optimum %d", name, res.Length, inst.optimum)
			}
			checkTour(t, tsp.Dist, tsp.N, res.Tour, inst.optimum)
			t.Logf("%s: %d cities, %d; kernels %.3fs, solve %.3fs, device %s, host %s",
				name, tsp.N, res.Length, res.ComputeSeconds, res.Seconds, byteSize(res.DeviceBytes), byteSize(res.PeakBytes))
		})
	}
}

func TestSolveGPUCancelAndRefuse(t *testing.T) {
	dev, nv := openGPU(t)
	n := 24
	d := randomMatrix(rand.New(rand.NewPCG(12, 13)), n, false, 1, 100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := SolveGPU(ctx, dev, nv, d, n, func(done, total int64) {
		calls++
		cancel()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: error %v after %d progress calls, want context.Canceled", err, calls)
	}
	// The context must still work after a cancelled solve.
	small := randomMatrix(rand.New(rand.NewPCG(14, 15)), 12, false, 1, 100)
	res, err := SolveGPU(context.Background(), dev, nv, small, 12, nil)
	if err != nil {
		t.Fatalf("after a cancelled solve: %v", err)
	}
	if want := plainHeldKarp(small, 12); res.Length != want {
		t.Fatalf("after a cancelled solve: %d, want %d", res.Length, want)
	}

	// 40 cities need terabytes.
	n = 40
	d = randomMatrix(rand.New(rand.NewPCG(16, 17)), n, true, 1, 100)
	if _, err := SolveGPU(context.Background(), dev, nv, d, n, nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("40 cities: error %v, want ErrTooLarge", err)
	}
}

// BenchmarkSolveGPU times random asymmetric instances; compute-s is the
// median of the event-timed layer sweeps (after one warm-up solve).
func BenchmarkSolveGPU(b *testing.B) {
	dev, nv := openGPU(b)
	for _, n := range []int{20, 24, 26, 29} {
		d := randomMatrix(rand.New(rand.NewPCG(uint64(n), 2)), n, false, 1, 1000)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			if _, err := SolveGPU(context.Background(), dev, nv, d, n, nil); err != nil {
				b.Fatal(err)
			}
			var compute []float64
			var res *Result
			for b.Loop() {
				var err error
				if res, err = SolveGPU(context.Background(), dev, nv, d, n, nil); err != nil {
					b.Fatal(err)
				}
				compute = append(compute, res.ComputeSeconds)
			}
			slices.Sort(compute)
			med := compute[len(compute)/2]
			b.ReportMetric(med, "compute-s")
			b.ReportMetric(float64(res.States)/med/1e9, "Gstates/s")
			b.ReportMetric(float64(res.DeviceBytes)/(1<<20), "device-MiB")
			b.ReportMetric(float64(res.PeakBytes)/(1<<20), "host-MiB")
		})
	}
}

func TestSolveGPUNeedsDevice(t *testing.T) {
	if _, err := SolveGPU(context.Background(), nil, nil, []int64{0, 1, 1, 0}, 2, nil); err == nil {
		t.Fatal("SolveGPU without a context: no error")
	}
}
