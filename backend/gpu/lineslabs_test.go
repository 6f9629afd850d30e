package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestLineSlabs: rows and cols schedules split into slabs of the lines'
// positions (lineslabs.go), 1, 2 and 3 launches on one GPU, give the plain
// DP's answer: 0/1 knapsacks of 1, 2 and 17 items at widths that are odd,
// a power of two and over a million, the answer cell, the best of the last
// row (a region's partials from every slab), and the knapsack transposed
// (a cols schedule, the positions rows); items too heavy for passes run
// on one launch and say why.
func TestLineSlabs(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	for _, c := range []struct {
		items, capacity int
		heaviest        int64
		split           bool // false: items too heavy for passes, one launch
	}{{1, 300_000, 200, true}, {2, 524_287, 300, true}, {17, 1_000_002, 300, true}, {17, 300_000, 3_000, false}} {
		wt, val := make([]int64, c.items), make([]int64, c.items)
		for k := range wt {
			wt[k], val[k] = 1+r.Int64N(c.heaviest), 1+r.Int64N(1000)
		}
		best := make([]int64, c.capacity+1)
		for k := range wt {
			for w := c.capacity; int64(w) >= wt[k]; w-- {
				best[w] = max(best[w], best[w-int(wt[k])]+val[k])
			}
		}
		want := best[c.capacity]
		text := dptest.Knapsack(wt, val, c.capacity)
		transposed := fmt.Sprintf(`problem knapsack_t
int 1x? wt  = %s
int 1x? val = %s
(%d) x (len(wt)+1)
cell[w][i] = 0                                   when i == 0
           | cell[w-wt[i-1]][i-1] + val[i-1]     when wt[i-1] <= w && cell[w-wt[i-1]][i-1] + val[i-1] > cell[w][i-1]
           | cell[w][i-1]                        otherwise
`, strings.ReplaceAll(joinInts(wt), " ", ","), strings.ReplaceAll(joinInts(val), " ", ","), c.capacity+1)
		for _, prob := range []struct{ name, src string }{
			{"rows", text},
			{"rows-last-line-max", text + "answer: max(w in 0..COLS-1: cell[ROWS-1][w])\n"},
			{"cols", transposed},
		} {
			p, pl := dptest.Load(t, prob.name+".dp", prob.src)
			for _, so := range []SlabOptions{{Always: true}, {PerGPU: 2}, {PerGPU: 3}} {
				name := fmt.Sprintf("%d-items-%d/%s/%d", c.items, c.capacity, prob.name, max(so.PerGPU, 1))
				t.Run(name, func(t *testing.T) {
					res, err := RunSlabs(context.Background(), []*Executor{e}, p, pl, backend.Options{}, so)
					if err != nil {
						t.Fatal(err)
					}
					if got := answerOf(res); got != float64(want) {
						t.Errorf("answer %v, want %d (%s)", got, want, res.Device)
					}
					if got := strings.Contains(res.Device, "slabs of the lines' positions"); got != c.split {
						t.Errorf("device %q: split %v, want %v", res.Device, got, c.split)
					}
					if !c.split && so.PerGPU > 1 && !strings.Contains(res.Device, "do not run in passes") {
						t.Errorf("device %q: no reason", res.Device)
					}
				})
			}
		}
	}
}

// TestPerfLineSlabs measures a 0/1 knapsack of 10,000 light items at
// capacity 1,000,000 split into DPGPU_LS_PER launches on one GPU (kernel
// time, median of 3 after a warm-up): what the exchange between slabs
// costs where no second GPU shares the work; the answer the unsplit run's.
func TestPerfLineSlabs(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	r := dptest.Rand(t)
	items, capacity := 10_000/int(scale), 1_000_000/int(scale)
	wt, val := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k] = 1+r.Int64N(1000), 1+r.Int64N(1000)
	}
	p, pl := dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt, val, capacity))
	per := envInt("DPGPU_LS_PER", 2)
	var ks []float64
	var res *backend.Result
	for rep := range 4 {
		var err error
		res, err = RunSlabs(context.Background(), []*Executor{e}, p, pl, backend.Options{}, SlabOptions{PerGPU: per, Always: true})
		if err != nil {
			t.Fatal(err)
		}
		if rep > 0 {
			ks = append(ks, res.Stats.ComputeSeconds)
		}
	}
	want, err := e.Run(context.Background(), p, pl, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != want.Answer {
		t.Errorf("%d launches: answer %v, unsplit %v", per, res.Answer, want.Answer)
	}
	k := median(ks)
	t.Logf("perf: %d launches: kernel %.2f ms (%.0f GCUPS), answer %v, %s", per, k*1e3, float64(p.Cells())/k/1e9, res.Answer, res.Device)
}

// TestLineSlabsCancel: a split line sweep stops when its context ends
// (once progress shows), and the GPU runs the next problem.
func TestLineSlabsCancel(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	items, capacity := 3000, 1_000_000
	wt, val := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k] = 1+r.Int64N(1000), 1+r.Int64N(1000)
	}
	p, pl := dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt, val, capacity))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := backend.Options{Progress: func(done, total int64) {
		if done > 0 && done < total {
			cancel()
		}
	}}
	if _, err := RunSlabs(ctx, []*Executor{e}, p, pl, opt, SlabOptions{PerGPU: 2}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	small, spl := dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt[:3], val[:3], 300_000))
	res, err := RunSlabs(context.Background(), []*Executor{e}, small, spl, backend.Options{}, SlabOptions{PerGPU: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := dptest.KnapsackGrid(wt[:3], val[:3], 300_000)[3][300_000]
	if got := answerOf(res); got != want {
		t.Errorf("after the cancel: answer %v, want %v", got, want)
	}
}
