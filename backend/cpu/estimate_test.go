package cpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/plan"
)

// TestEstimateIsWhatRunsAllocate checks that the plan's memory estimate
// (plan.CPUMemory, what `dpgpu check` prints) is what the Go evaluator
// allocates (compiled code takes less: a bound for it), byte for byte, on every schedule and direction, cell type,
// thread count and with or without the kept grid: the estimate tracks the
// sizes because it is the executor's own arithmetic.
func TestEstimateIsWhatRunsAllocate(t *testing.T) {
	r := dptest.Rand(t)
	for _, pr := range refProblems {
		for _, sz := range [][2]int{{1, 1}, {33, 17}, {130, 700}, {300, 40}} {
			rc := pr.gen(r, sz[0], sz[1])
			for _, ct := range []string{pr.types[0], pr.types[len(pr.types)-1]} {
				p, pl := dptest.Load(t, pr.name+".dp", withCell(rc.src, ct))
				for _, threads := range []int{1, 3} {
					for _, keep := range []bool{false, true} {
						name := fmt.Sprintf("%s %dx%d %s threads=%d keep=%v (%s %s)", pr.name, p.Rows, p.Cols, ct, threads, keep, pl.Schedule, pl.Direction)
						res, err := solveGo(t, p, pl, backend.Options{Threads: threads, Maintain: keep})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						m := plan.CPUMemory(p, pl, threads, keep || p.Maintain)
						if got, want := res.Stats.PeakHostBytes, m.Work+m.Grid; got != want {
							t.Errorf("%s: the run allocated %d bytes, the plan estimates %d (work %d, grid %d)", name, got, want, m.Work, m.Grid)
						}
					}
				}
			}
		}
	}
}

// withAvailable makes the executor see avail bytes of available memory
// for the rest of the test.
func withAvailable(t *testing.T, avail int64) {
	old := available
	available = func() (int64, bool) { return avail, true }
	t.Cleanup(func() { available = old })
}

// TestMemoryRefusal: a run whose buffers and grid do not fit is refused
// before allocating, with hostmem.ErrTooLarge and the numbers; a grid the
// caller allocated in advance (engine.StartGrid) is not counted against
// the memory it already took from MemAvailable.
func TestMemoryRefusal(t *testing.T) {
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(strings.Repeat("ACGT", 250), strings.Repeat("GATC", 250))) // 1001x1001 int
	grid := plan.GridBytes(p)
	work := plan.CPUMemory(p, pl, 2, false).Work
	held := backend.NewGrid(p.CellType, p.Rows, p.Cols)
	ref, err := solve(t, p, pl, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		avail  int64
		opt    backend.Options
		refuse string // "" when the run must go ahead
	}{
		{"fits", work + grid, backend.Options{Threads: 2, Maintain: true}, ""},
		{"grid does not fit", work + grid - 1, backend.Options{Threads: 2, Maintain: true},
			"keeping the whole 1001x1001 grid of int (3.8 MiB) while solving lcs needs 4.9 MiB, but only 4.9 MiB of memory is available; run without maintain, --grid and --traceback, which keep the whole grid"},
		// The schedule's buffers (the bit-parallel LCS that runs
		// without NoSpecial holds a few words per 64 rows).
		{"buffers do not fit", work - 1, backend.Options{Threads: 2, NoSpecial: true},
			"solving lcs on 2 CPU threads needs"},
		// The grid is already allocated: only the buffers remain to be.
		{"held grid not counted twice", work, backend.Options{Threads: 2, Maintain: true, Grid: held}, ""},
		{"held grid, buffers do not fit", work - 1, backend.Options{Threads: 2, Traceback: true, Grid: held},
			"solving lcs on 2 CPU threads needs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withAvailable(t, tc.avail)
			res, err := New(2).WithNative(nil).Run(context.Background(), p, pl, tc.opt)
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("refused with %d bytes available (work %d, grid %d): %v", tc.avail, work, grid, err)
				}
				if res.Answer != ref.Answer {
					t.Errorf("answer %v, want %v", res.Answer, ref.Answer)
				}
				return
			}
			if !errors.Is(err, hostmem.ErrTooLarge) {
				t.Fatalf("got %v, want a refusal wrapping hostmem.ErrTooLarge", err)
			}
			if !strings.HasPrefix(err.Error(), tc.refuse) {
				t.Errorf("got  %q\nwant %q...", err, tc.refuse)
			}
		})
	}
}

// TestWaveWorkersSaid: a wavefront whose rows hold fewer than three tiles
// runs on one worker (plan.CPUShape.WaveWorkers), and the result says so;
// a wider one does not.
func TestWaveWorkersSaid(t *testing.T) {
	r := dptest.Rand(t)
	for _, tc := range []struct {
		cols int
		one  bool
	}{{600, true}, {2000, false}} {
		p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(string(dptest.DNA(r, 300)), string(dptest.DNA(r, tc.cols))))
		if pl.Schedule != plan.Wavefront {
			t.Fatalf("lcs planned as %v", pl.Schedule)
		}
		res, err := New(2).WithNative(nil).Run(context.Background(), p, pl, backend.Options{Threads: 2, NoSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(res.Device, "one of them ran it"); said != tc.one {
			t.Errorf("300 x %d on 2 threads: %q; want one worker said: %v", tc.cols, res.Device, tc.one)
		}
	}
}
