package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// countingExecutor counts its runs and the most it ran at once.
type countingExecutor struct {
	name           string
	runs, now, max atomic.Int64
}

func (c *countingExecutor) Name() string   { return c.name }
func (c *countingExecutor) Device() string { return c.name }
func (c *countingExecutor) Run(context.Context, *ir.Problem, *plan.Plan, backend.Options) (*backend.Result, error) {
	c.runs.Add(1)
	n := c.now.Add(1)
	for m := c.max.Load(); n > m && !c.max.CompareAndSwap(m, n); m = c.max.Load() {
	}
	defer c.now.Add(-1)
	return &backend.Result{Backend: c.name}, nil
}

// TestBySize: instances of GPUMinCells cells or more go to a GPU, one at a
// time on each, the rest to the worker's core; a cancelled wait for a GPU
// returns the context's error.
func TestBySize(t *testing.T) {
	cpu := &countingExecutor{name: "cpu"}
	g0, g1 := &countingExecutor{name: "gpu0"}, &countingExecutor{name: "gpu1"}
	pool := &gpuPool{open: func() ([]backend.Executor, error) { return []backend.Executor{g0, g1}, nil }}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &bySize{cpu: cpu, pool: pool, min: 100}
			for k := int64(0); k < 50; k++ {
				p := &ir.Problem{Rows: 1 + k%20, Cols: 10} // 10..200 cells
				if _, err := b.Run(context.Background(), p, nil, backend.Options{}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	small := int64(0)
	for k := int64(0); k < 50; k++ {
		if (1+k%20)*10 < 100 {
			small++
		}
	}
	if cpu.runs.Load() != 8*small || g0.runs.Load()+g1.runs.Load() != 8*(50-small) {
		t.Errorf("cpu ran %d, the GPUs %d + %d; want %d and %d", cpu.runs.Load(), g0.runs.Load(), g1.runs.Load(), 8*small, 8*(50-small))
	}
	if g0.max.Load() > 1 || g1.max.Load() > 1 {
		t.Errorf("a GPU ran %d, %d instances at once", g0.max.Load(), g1.max.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	busy := &gpuPool{open: func() ([]backend.Executor, error) { return nil, nil }}
	b := &bySize{cpu: cpu, pool: busy, min: 1}
	busy.once.Do(func() { busy.free = make(chan backend.Executor) })
	if _, err := b.Run(ctx, &ir.Problem{Rows: 2, Cols: 2}, nil, backend.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v", err)
	}
	// No GPU at all: large instances run on the core.
	none := &gpuPool{open: func() ([]backend.Executor, error) { return nil, errors.New("no GPU") }}
	before := cpu.runs.Load()
	if _, err := (&bySize{cpu: cpu, pool: none, min: 1}).Run(context.Background(), &ir.Problem{Rows: 2, Cols: 2}, nil, backend.Options{}); err != nil || cpu.runs.Load() != before+1 {
		t.Errorf("without a GPU: %v, %d runs", err, cpu.runs.Load()-before)
	}
}

func TestGPUsFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"", nil, true},
		{"0", []int{0}, true},
		{"0,1", []int{0, 1}, true},
		{" 2 , 0 ", []int{2, 0}, true},
		{"0,0", nil, false},
		{"-1", nil, false},
		{"x", nil, false},
		{"1,", nil, false},
	} {
		got, err := GPUs(c.in)
		if (err == nil) != c.ok || (c.ok && len(got) != len(c.want)) {
			t.Errorf("GPUs(%q) = %v, %v", c.in, got, err)
			continue
		}
		for k := range got {
			if got[k] != c.want[k] {
				t.Errorf("GPUs(%q) = %v, want %v", c.in, got, c.want)
			}
		}
		if err != nil && !errors.Is(err, ErrInput) {
			t.Errorf("GPUs(%q): %v is not an input error", c.in, err)
		}
	}
}

// TestSetupBatchCPU: the CPU backend runs threads workers of one core
// each, and no GPU batch launches.
func TestSetupBatchCPU(t *testing.T) {
	var opt BatchOptions
	if err := SetupBatch(&opt, "cpu", 3, nil, 0, nil); err != nil || opt.Workers != 3 || opt.Devices != nil {
		t.Fatalf("cpu: %d workers, %d devices, %v", opt.Workers, len(opt.Devices), err)
	}
	if ex, err := opt.NewExecutor(); err != nil || ex.Name() != "cpu" {
		t.Fatalf("cpu: %v, %v", ex, err)
	}
	if err := SetupBatch(&BatchOptions{}, "tpu", 1, nil, 0, nil); !errors.Is(err, ErrInput) {
		t.Errorf("tpu: %v", err)
	}
}

// TestSetupBatchAuto: auto opens the GPUs for launches only for a large
// batch (quietly the CPU where there is no GPU), and BatchInputBytes
// counts the files of the arguments.
func TestSetupBatchAuto(t *testing.T) {
	var small BatchOptions
	if err := SetupBatch(&small, "auto", 2, nil, AutoBatchBytes-1, nil); err != nil || small.Devices != nil {
		t.Fatalf("small batch: %d devices, %v", len(small.Devices), err)
	}
	var large BatchOptions
	var notice strings.Builder
	if err := SetupBatch(&large, "auto", 2, nil, AutoBatchBytes, &notice); err != nil {
		t.Fatal(err)
	}
	_, gerr := gpu.New()
	switch {
	case gerr == nil && len(large.Devices) == 0:
		t.Error("a GPU opens, but the large batch has no devices")
	case gerr != nil && len(large.Devices) != 0:
		t.Errorf("no GPU (%v), but %d devices", gerr, len(large.Devices))
	case errors.Is(gerr, cuda.ErrNoDriver) && notice.Len() > 0:
		t.Errorf("no driver: said %q (auto on a machine without a GPU says nothing)", notice.String())
	}
	if ex, err := large.NewExecutor(); err != nil || ex.Name() != "auto" {
		t.Fatalf("auto: %v, %v", ex, err)
	}

	dir := t.TempDir()
	fa := filepath.Join(dir, "a.fa")
	if err := os.WriteFile(fa, []byte(">a\nACGT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "d")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "x.txt"), make([]byte, 100), 0o644)
	os.WriteFile(filepath.Join(sub, "y.txt"), make([]byte, 20), 0o644)
	var args []*BatchArg
	for _, p := range []string{fa, sub} {
		a, err := OpenBatchArg(p)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, a)
	}
	if n := BatchInputBytes(args); n != 8+120 {
		t.Errorf("BatchInputBytes %d, want 128", n)
	}
}
