package engine

import (
	"context"
	"fmt"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/heldkarp"
)

// CUDAHolder is implemented by executors that own a CUDA context; the
// Held-Karp solver borrows it to run on the same GPU.
type CUDAHolder interface {
	CUDA() (*cuda.Context, *cuda.NVRTC)
}

// runTour solves a Held-Karp problem where ex would have run a grid: on
// its GPUs when it holds several (a GPUSet: every layer spread over them),
// on its GPU when it holds one, else on the CPU with opt's threads. The
// executor itself computes nothing; it only names where the run went.
func runTour(ctx context.Context, tsp *heldkarp.Instance, ex backend.Executor, opt backend.Options) (*Result, error) {
	var r *heldkarp.Result
	var err error
	if set, ok := ex.(*GPUSet); ok && len(set.exs) > 1 {
		nccl, err := cuda.OpenNCCL()
		if err != nil {
			return nil, InputError(fmt.Errorf("--gpus with %d GPUs: %w", len(set.exs), err))
		}
		devs, nv := set.CUDAs()
		r, err = heldkarp.SolveGPUs(ctx, devs, nv, nccl, tsp.Dist, tsp.N, opt.Progress)
	} else if set, ok := ex.(*GPUSet); ok {
		dev, nv := set.exs[0].CUDA()
		r, err = heldkarp.SolveGPU(ctx, dev, nv, tsp.Dist, tsp.N, opt.Progress)
	} else if h, ok := ex.(CUDAHolder); ok {
		dev, nv := h.CUDA()
		r, err = heldkarp.SolveGPU(ctx, dev, nv, tsp.Dist, tsp.N, opt.Progress)
	} else {
		r, err = heldkarp.SolveCPU(ctx, tsp.Dist, tsp.N, opt.Threads, opt.Progress)
	}
	if err != nil {
		return nil, err
	}
	return &Result{Tour: r, Backend: ex.Name(), Device: ex.Device()}, nil
}
