package gpu

import "github.com/dpgpu/dpgpu/backend/cuda"

// CUDA returns the executor's context and NVRTC so that solvers outside the
// generated-kernel path (Held-Karp) run on the same GPU without opening a
// second context.
func (e *Executor) CUDA() (*cuda.Context, *cuda.NVRTC) { return e.ctx, e.nvrtc }
