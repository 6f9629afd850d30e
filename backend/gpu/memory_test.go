package gpu

import (
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
)

// TestHostNeedCountsTheGridOnce: the host memory a keeping run checks
// before allocating is the grid and the two staging buffers, but a grid
// the caller allocated in advance (engine.StartGrid) is already gone from
// MemAvailable and must not be counted again, or a run that fits is
// refused. It needs no GPU.
func TestHostNeedCountsTheGridOnce(t *testing.T) {
	p := &ir.Problem{Name: "g", Rows: 3000, Cols: 5000, CellType: ir.Int}
	prog := &codegen.Program{Kernel: codegen.KernelLine, Width: 5000, Lines: 3000, Reach: 1}
	grid := int64(3000 * 5000 * 4)
	held := backend.NewGrid(ir.Int, 3000, 5000)
	tests := []struct {
		name string
		keep bool
		opt  backend.Options
		want func(stage int64) int64
	}{
		{"not kept", false, backend.Options{}, func(int64) int64 { return 0 }},
		{"kept", true, backend.Options{Maintain: true}, func(s int64) int64 { return grid + 2*s }},
		{"kept, grid held", true, backend.Options{Maintain: true, Grid: held}, func(s int64) int64 { return 2 * s }},
		{"kept, a held grid of another shape", true, backend.Options{Maintain: true, Grid: backend.NewGrid(ir.Int, 3000, 4999)},
			func(s int64) int64 { return grid + 2*s }},
	}
	for _, tc := range tests {
		r := &run{e: &Executor{cfg: config{stageMB: 32}}, p: p, prog: prog, keep: tc.keep, opt: tc.opt}
		stage := r.stageBytes()
		if tc.keep && stage <= 0 {
			t.Fatalf("%s: stage %d", tc.name, stage)
		}
		if got, want := r.hostNeed(), tc.want(stage); got != want {
			t.Errorf("%s: host need %d, want %d (grid %d, stage %d)", tc.name, got, want, grid, stage)
		}
	}
}
