package engine

import (
	"errors"
	"fmt"
	"io"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/gpu"
)

// Backends lists the names --backend accepts.
var Backends = []string{"auto", "cpu", "cuda"}

// NewExecutor returns the executor for a backend name. "auto" takes the GPU
// when a CUDA driver and device are present and otherwise the CPU, saying so
// in one line on notice (which may be nil).
func NewExecutor(backend string, threads int, notice io.Writer) (backend.Executor, error) {
	switch backend {
	case "cpu":
		return cpu.New(threads), nil
	case "cuda", "gpu":
		ex, err := gpu.New()
		if err != nil {
			return nil, fmt.Errorf("--backend cuda: %w", err)
		}
		return ex, nil
	case "", "auto":
		ex, err := gpu.New()
		if err == nil {
			return ex, nil
		}
		if notice != nil {
			reason := err.Error()
			if errors.Is(err, cuda.ErrNoDriver) {
				reason = "no CUDA driver or GPU found"
			}
			fmt.Fprintf(notice, "dpgpu: %s; running on the CPU\n", reason)
		}
		return cpu.New(threads), nil
	}
	return nil, InputError(fmt.Errorf("unknown backend %q (want auto, cpu or cuda)", backend))
}
