package gpu

import (
	"testing"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// These tests need no GPU: they check the host side of maintain, which
// moves staged lines and tiles (in sweep order) into the row-major grid.

func bytesOf(v []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

func TestScatterLines(t *testing.T) {
	for _, c := range []struct {
		sched plan.Kind
		back  bool
	}{{plan.Rows, false}, {plan.Rows, true}, {plan.Cols, false}, {plan.Cols, true}} {
		R, C := int64(7), int64(5)
		prog := &codegen.Program{Schedule: c.sched, Backward: c.back, Lines: R, Width: C}
		if c.sched == plan.Cols {
			prog.Lines, prog.Width = C, R
		}
		r := &run{p: &ir.Problem{Rows: R, Cols: C, CellType: ir.Int}, prog: prog, grid: backend.NewGrid(ir.Int, R, C)}
		// Line L of the sweep holds 1000*L + position.
		for first := int64(0); first < prog.Lines; first += 3 {
			count := min(3, prog.Lines-first)
			staged := make([]int32, count*prog.Width)
			for k := int64(0); k < count; k++ {
				for q := int64(0); q < prog.Width; q++ {
					staged[k*prog.Width+q] = int32(1000*(first+k) + q)
				}
			}
			r.lineScatter(first, count)(bytesOf(staged))
		}
		for i := int64(0); i < R; i++ {
			for j := int64(0); j < C; j++ {
				line, pos := r.lineOf(i, j)
				if got := backend.Cells[int32](r.grid)[i*C+j]; got != int32(1000*line+pos) {
					t.Errorf("%s back=%v: cell[%d][%d] = %d, want %d", c.sched, c.back, i, j, got, 1000*line+pos)
				}
			}
		}
	}
}

func TestScatterTiles(t *testing.T) {
	for _, back := range []bool{false, true} {
		R, C := int64(11), int64(13)
		TH, TW := 4, 5
		prog := &codegen.Program{Schedule: plan.Wavefront, Backward: back, TileH: TH, TileW: TW,
			TilesI: (R + 3) / 4, TilesJ: (C + 4) / 5}
		r := &run{p: &ir.Problem{Rows: R, Cols: C, CellType: ir.Int}, prog: prog, grid: backend.NewGrid(ir.Int, R, C)}
		nTI, nTJ := prog.TilesI, prog.TilesJ
		tileCells := int64(TH * TW)
		for d := int64(0); d < nTI+nTJ-1; d++ {
			tiLo, tiHi := max(0, d-(nTJ-1)), min(d, nTI-1)
			count := tiHi - tiLo + 1
			// Two launches per batch: put this diagonal after a dummy one.
			off := int64(3) * tileCells
			staged := make([]int32, off+count*tileCells)
			for k := int64(0); k < count; k++ {
				ti, tj := tiLo+k, d-tiLo-k
				for rr := int64(0); rr < int64(TH); rr++ {
					for cc := int64(0); cc < int64(TW); cc++ {
						ip, jp := ti*int64(TH)+rr, tj*int64(TW)+cc
						staged[off+k*tileCells+rr*int64(TW)+cc] = int32(ip*100 + jp)
					}
				}
			}
			r.tileScatter([]tileRun{{d: d, tiLo: tiLo, count: count, off: off * 4}})(bytesOf(staged))
		}
		for i := int64(0); i < R; i++ {
			for j := int64(0); j < C; j++ {
				ip, jp := i, j
				if back {
					ip, jp = R-1-i, C-1-j
				}
				if got := backend.Cells[int32](r.grid)[i*C+j]; got != int32(ip*100+jp) {
					t.Errorf("back=%v: cell[%d][%d] = %d, want %d", back, i, j, got, ip*100+jp)
				}
			}
		}
	}
}
