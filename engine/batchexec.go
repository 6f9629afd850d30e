package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// GPUMinCells is the size from which a batch on `--backend auto` runs an
// instance on a GPU rather than on one CPU core. A GPU run of one instance
// costs about 4 ms whatever its size (measured on the H100: 2,000
// Needleman-Wunsch pairs of 150 bp took 7.6 s one after another on the
// GPU, 0.17 s on 16 cores), and one core computes a few hundred million
// cells a second: below a few million cells the core is faster, above it
// the GPU, and it runs beside the cores.
const GPUMinCells = 4 << 20

// AutoBatchBytes is the input from which a batch on `--backend auto` opens
// the GPUs for launches of many instances (SetupBatch): the driver's start
// and a program's first compile (about a second together) against the
// CPU's 27,000 pairs of 150 bp a second on 2 cores (docs/performance.md);
// 8 MB is some 50,000 such reads.
const AutoBatchBytes = 8 << 20

// BatchInputBytes is the size of the files args name (a directory's files
// counted, a list of paths not), for SetupBatch's choice.
func BatchInputBytes(args []*BatchArg) int64 {
	var n int64
	for _, a := range args {
		switch a.kind {
		case argFile, argFASTA:
			if st, err := os.Stat(a.path); err == nil {
				n += st.Size()
			}
		case argDir:
			entries, _ := os.ReadDir(a.path)
			for _, e := range entries {
				if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
					n += info.Size()
				}
			}
		}
	}
	return n
}

// SetupBatch fills opt's Workers, NewExecutor and Devices for a batch on
// backend name:
//
//   - "cpu": threads workers (0: one per core), each instance on one core.
//   - "cuda": threads workers bind, check and plan the instances, and the
//     GPUs of gpus (nil: GPU 0) run them many to a launch
//     (BatchOptions.Devices); an instance no batch kernel runs goes to a
//     GPU alone.
//   - "auto": threads CPU workers; where GPUs are present, an instance of
//     GPUMinCells cells or more runs on the first GPU free (it waits for
//     one), smaller ones on the worker's core. Without a GPU, the CPU
//     alone, said in one line on notice when the first large instance
//     comes. A batch of AutoBatchBytes of input or more (inputBytes,
//     BatchInputBytes) opens the GPUs at once and runs its instances many
//     to a launch as "cuda" does, where a GPU opens (quietly the CPU where
//     there is no driver): the driver's start is paid for.
//
// gpus are device ordinals (GPUs parses --gpus).
func SetupBatch(opt *BatchOptions, name string, threads int, gpus []int, inputBytes int64, notice io.Writer) error {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	newCPU, err := batchCPU()
	if err != nil {
		return err
	}
	if gpus == nil {
		gpus = []int{0}
	}
	open := func() ([]*gpu.Executor, error) {
		var exs []*gpu.Executor
		for _, d := range gpus {
			ex, err := gpu.New(gpu.WithDevice(d))
			if err != nil {
				return nil, fmt.Errorf("GPU %d: %w", d, err)
			}
			exs = append(exs, ex)
		}
		return exs, nil
	}
	opt.Workers = threads
	switch name {
	case "cpu":
		opt.NewExecutor = func() (backend.Executor, error) { return newCPU(), nil }
		return nil
	case "cuda", "gpu":
		exs, err := open()
		if err != nil {
			err = fmt.Errorf("--backend cuda: %w", err)
			if errors.Is(err, cuda.ErrNoDriver) {
				err = InputError(err)
			}
			return err
		}
		opt.Devices = nil
		for _, ex := range exs {
			opt.Devices = append(opt.Devices, ex)
		}
		var next atomic.Int64
		opt.NewExecutor = func() (backend.Executor, error) { return exs[int(next.Add(1)-1)%len(exs)], nil }
		return nil
	case "", "auto":
		// The GPUs open when the first large instance comes: a batch of
		// small ones never pays for the driver's start (most of a second
		// with two GPUs). A large batch opens them now, for launches.
		var eager []*gpu.Executor
		if inputBytes >= AutoBatchBytes {
			exs, err := open()
			switch {
			case err == nil:
				eager = exs
				opt.Devices = nil
				for _, ex := range exs {
					opt.Devices = append(opt.Devices, ex)
				}
			case !errors.Is(err, cuda.ErrNoDriver) && notice != nil:
				fmt.Fprintf(notice, "dpgpu: %v; the batch runs on the CPU\n", err)
			}
		}
		pool := &gpuPool{open: func() ([]backend.Executor, error) {
			exs, err := eager, error(nil)
			if exs == nil {
				exs, err = open()
			}
			out := make([]backend.Executor, len(exs))
			for k, ex := range exs {
				out[k] = ex
			}
			return out, err
		}, notice: notice}
		opt.NewExecutor = func() (backend.Executor, error) {
			return &bySize{cpu: newCPU(), pool: pool, min: GPUMinCells}, nil
		}
		return nil
	}
	return InputError(fmt.Errorf("unknown backend %q (want auto, cpu or cuda)", name))
}

// gpuPool is the GPUs of an auto batch, opened on first use and shared
// by every worker: free holds those not running an instance.
type gpuPool struct {
	open   func() ([]backend.Executor, error)
	notice io.Writer
	once   sync.Once
	free   chan backend.Executor // nil: no GPU could be opened
}

// take waits for a free GPU; nil when there is none at all.
func (g *gpuPool) take(ctx context.Context) (backend.Executor, error) {
	g.once.Do(func() {
		exs, err := g.open()
		if err != nil {
			if g.notice != nil {
				reason := err.Error()
				if errors.Is(err, cuda.ErrNoDriver) {
					reason = "no CUDA driver or GPU found"
				}
				fmt.Fprintf(g.notice, "dpgpu: %s; large instances run on the CPU too\n", reason)
			}
			return
		}
		g.free = make(chan backend.Executor, len(exs))
		for _, ex := range exs {
			g.free <- ex
		}
	})
	if g.free == nil {
		return nil, nil
	}
	select {
	case ex := <-g.free:
		return ex, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// bySize runs an instance of min cells or more on a free GPU of pool
// (waiting for one), a smaller one — or any, where there is no GPU — on
// its own CPU core.
type bySize struct {
	cpu  backend.Executor
	pool *gpuPool
	min  int64
}

func (b *bySize) Name() string { return "auto" }

func (b *bySize) Device() string {
	return fmt.Sprintf("one CPU core, and a GPU for instances of %s cells or more", strconv.FormatInt(b.min, 10))
}

func (b *bySize) Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	if p.Cells() < b.min {
		return b.cpu.Run(ctx, p, pl, opt)
	}
	ex, err := b.pool.take(ctx)
	if err != nil {
		return nil, err
	}
	if ex == nil {
		return b.cpu.Run(ctx, p, pl, opt)
	}
	defer func() { b.pool.free <- ex }()
	return ex.Run(ctx, p, pl, opt)
}

// GPUs parses --gpus: "all" (every GPU present), or device ordinals
// separated by commas ("0,1"). "" is nil: the backend's default.
func GPUs(spec string) ([]int, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	if spec == "all" {
		drv, err := cuda.Open()
		if err != nil {
			return nil, InputError(fmt.Errorf("--gpus all: %w", err))
		}
		var out []int
		for _, d := range drv.Devices() {
			out = append(out, d.Ordinal)
		}
		if len(out) == 0 {
			return nil, InputError(fmt.Errorf("--gpus all: no GPU present"))
		}
		return out, nil
	}
	seen := map[int]bool{}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return nil, InputError(fmt.Errorf("--gpus %q: want all, or device numbers such as 0,1", spec))
		}
		if seen[d] {
			return nil, InputError(fmt.Errorf("--gpus %q: GPU %d twice", spec, d))
		}
		seen[d] = true
		out = append(out, d)
	}
	return out, nil
}
