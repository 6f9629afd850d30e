package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// GPUSet is the GPUs of `solve --gpus 0,1,...`: Held-Karp spreads every
// layer over all of them (heldkarp.SolveGPUs, NCCL); a wavefront's grid
// (also several tables' cells) is split into row bands dealt round-robin
// to one strip-kernel launch a GPU (gpu.RunSlabs); a rows or cols schedule
// in passes of lines into slabs of the lines' positions, where the passes
// are large enough; other grid problems run on the first, and the result's
// device line says why.
type GPUSet struct {
	exs []*gpu.Executor
}

// NewGPUSet opens the GPUs of ordinals.
func NewGPUSet(ordinals []int) (*GPUSet, error) {
	s := &GPUSet{}
	for _, d := range ordinals {
		ex, err := gpu.New(gpu.WithDevice(d))
		if err != nil {
			if errors.Is(err, cuda.ErrNoDriver) {
				err = InputError(err)
			}
			return nil, fmt.Errorf("GPU %d: %w", d, err)
		}
		s.exs = append(s.exs, ex)
	}
	if len(s.exs) == 0 {
		return nil, InputError(errors.New("--gpus names no GPU"))
	}
	return s, nil
}

func (s *GPUSet) Name() string { return "cuda" }

// Device lists the GPUs.
func (s *GPUSet) Device() string {
	var names []string
	for _, ex := range s.exs {
		names = append(names, ex.Device())
	}
	return fmt.Sprintf("%d GPUs: %s", len(s.exs), strings.Join(names, "; "))
}

// DeviceFree is the first GPU's free memory: it runs grid problems
// (backend.OnDevice).
func (s *GPUSet) DeviceFree() int64 { return s.exs[0].DeviceFree() }

// Run runs a grid problem over the GPUs: row bands (or slabs of lines)
// where it can be split, else on the first GPU.
func (s *GPUSet) Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	return gpu.RunSlabs(ctx, s.exs, p, pl, opt, gpu.SlabOptions{})
}

// CUDAs are the contexts of the GPUs and the first one's NVRTC, for the
// Held-Karp solver.
func (s *GPUSet) CUDAs() ([]*cuda.Context, *cuda.NVRTC) {
	var ctxs []*cuda.Context
	var nv *cuda.NVRTC
	for k, ex := range s.exs {
		c, n := ex.CUDA()
		if k == 0 {
			nv = n
		}
		ctxs = append(ctxs, c)
	}
	return ctxs, nv
}
