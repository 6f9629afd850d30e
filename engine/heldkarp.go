package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/heldkarp"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
)

// CUDAHolder is implemented by executors that own a CUDA context; the
// Held-Karp solver borrows it to run on the same GPU.
type CUDAHolder interface {
	CUDA() (*cuda.Context, *cuda.NVRTC)
}

// Distances finds the distance matrix of a held-karp problem: the input
// named dist, else the only square matrix.
func Distances(p *ir.Problem) (*ir.Input, error) {
	if in := p.Input("dist"); in != nil {
		return in, nil
	}
	var found *ir.Input
	for _, in := range p.Inputs {
		if !in.Vector && in.Rows == in.Cols {
			if found != nil {
				return nil, InputError(fmt.Errorf("held-karp: several square matrices (%s, %s); name the distances `dist`", found.Name, in.Name))
			}
			found = in
		}
	}
	if found == nil {
		return nil, InputError(errors.New("held-karp needs a square distance matrix input named dist"))
	}
	return found, nil
}

func runHeldKarp(ctx context.Context, l *Loaded, ex backend.Executor, opt backend.Options) (*backend.Result, error) {
	in, err := Distances(l.Problem)
	if err != nil {
		return nil, err
	}
	if in.I == nil || in.Rows != in.Cols {
		return nil, InputError(fmt.Errorf("held-karp: %s must be a square integer matrix, not %dx%d %s", in.Name, in.Rows, in.Cols, in.T))
	}
	var r *heldkarp.Result
	if h, ok := ex.(CUDAHolder); ok {
		dev, nv := h.CUDA()
		r, err = heldkarp.SolveGPU(ctx, dev, nv, in.I, in.Rows, opt.Progress)
	} else {
		r, err = heldkarp.SolveCPU(ctx, in.I, in.Rows, opt.Threads, opt.Progress)
	}
	if errors.Is(err, hostmem.ErrTooLarge) {
		err = InputError(err)
	}
	if err != nil {
		return nil, err
	}
	if got, err := TourLength(in.I, in.Rows, r.Tour); err != nil || got != r.Length {
		return nil, fmt.Errorf("held-karp: internal check failed: the tour's length recomputed from %s is %d, the DP says %d (%v)", in.Name, got, r.Length, err)
	}
	return &backend.Result{
		Answer:  ir.Value{T: ir.Long, I: r.Length},
		Tour:    r.Tour,
		Backend: ex.Name(),
		Device:  ex.Device(),
		Stats: backend.Stats{
			Cells: r.States, Seconds: r.Seconds, ComputeSeconds: r.ComputeSeconds,
			PeakHostBytes: r.PeakBytes, DeviceBytes: r.DeviceBytes,
		},
	}, nil
}

// TourLength is the length of the closed tour through dist (n x n, row =
// from), checking that tour visits every city once.
func TourLength(dist []int64, n int, tour []int) (int64, error) {
	if len(tour) != n {
		return 0, fmt.Errorf("tour has %d cities, want %d", len(tour), n)
	}
	seen := make([]bool, n)
	var total int64
	for k, c := range tour {
		if c < 0 || c >= n || seen[c] {
			return 0, fmt.Errorf("tour visits city %d twice or out of range", c+1)
		}
		seen[c] = true
		total += dist[c*n+tour[(k+1)%n]]
	}
	return total, nil
}
