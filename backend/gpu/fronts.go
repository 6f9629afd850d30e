package gpu

import (
	"fmt"
	"math"

	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
)

// The generic schedules (plan.Kind.Generic) run on the front kernel of
// templates/front.cu: the plan's hyperplane t = A*i + B*j orders the cells
// in fronts whose cells read only earlier fronts, over ranges that reach
// back as far as the grid goes, so the whole grid stays in device memory
// (with a transposed copy beside it, codegen.Program.Mirror, for reductions
// that walk down columns). One launch computes one front; for each the host
// picks a thread, a warp or a block per cell (codegen.Program.FrontSpread)
// from the front's size and the length of its cells' reductions: an
// interval DP's first fronts have many cells with short reductions, its
// last ones few cells with long ones, and a 1-D look-back has one cell per
// front. A persistent kernel that runs every front in one launch is left
// for later: launches cost a few microseconds each, small beside the
// fronts of the large problems this kernel exists for.

// frontBytes is the front kernel's grid on the device, with its
// transposed copy when mirror is set.
func frontBytes(pr *codegen.Program, mirror bool) int64 {
	g := pr.Rows * pr.Cols * int64(pr.Cell.Size())
	if mirror {
		return 2 * g
	}
	return g
}

// regionBlocks is how many blocks fold a region answer over the finished
// grid (one partial result each).
const regionBlocks = 256

// frontAnswerBytes is what the front kernel's answer takes on the device
// besides the grid: region partials, or the captured cells and their
// positions.
func frontAnswerBytes(pr *codegen.Program) int64 {
	switch pr.Answer {
	case codegen.AnswerRegion:
		return regionBlocks * codegen.PartBytes
	case codegen.AnswerCapture:
		return int64(len(pr.Captures)) * (8 + int64(pr.Cell.Size()))
	}
	return 0
}

// fronts runs a generic schedule: every front of the plan in order, then
// the answer, then (maintain, --grid, --traceback) the grid back to the
// host.
func (r *run) fronts() error {
	pr, e, p := r.prog, r.e, r.p
	gridBytes := frontBytes(pr, false)
	G, err := r.alloc("the grid", gridBytes)
	if err != nil {
		return err
	}
	GT := G // unused without the transposed copy
	if pr.Mirror {
		if GT, err = r.alloc("the transposed grid", gridBytes); err != nil {
			return err
		}
	}
	if err := r.setupAnswer(regionBlocks); err != nil {
		return err
	}
	r.trace.Mark("grid")
	tm, err := r.startTiming()
	if err != nil {
		return err
	}
	var done, launches int64
	var spreads [4]int64 // fronts run with each spread, for DPGPU_TRACE
	ranges := 0
	err = pr.FrontLaunches(e.dev.SMs, func(l codegen.FrontLaunch) error {
		if l.Blocks > math.MaxInt32 {
			return fmt.Errorf("gpu: front %d of %s has %d cells, more than one launch can hold", l.T, p.Name, l.Cells)
		}
		grid, block := [3]uint32{uint32(l.Blocks), 1, 1}, [3]uint32{uint32(l.Threads), 1, 1}
		fn := r.mod.funcs[l.Func]
		var err error
		if l.Range {
			err = e.ctx.Launch(fn, grid, block, 0, e.s1, l.T, l.T1, G, GT)
			ranges++
		} else {
			err = e.ctx.Launch(fn, grid, block, 0, e.s1, l.T, l.I0, l.Cells, G, GT)
			spreads[l.Spread]++
		}
		if err != nil {
			return err
		}
		done += l.Computed
		launches++
		if launches%checkEvery == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			r.progress(done)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.trace.Mark(fmt.Sprintf("%d launches queued (%d of fronts that read no cell; %d fronts a thread per cell, %d a warp, %d a block)", launches, ranges,
		spreads[codegen.SpreadThread], spreads[codegen.SpreadWarp], spreads[codegen.SpreadBlock]))
	switch pr.Answer {
	case codegen.AnswerRegion:
		if err := e.ctx.Launch(r.mod.funcs[codegen.FuncRegion], [3]uint32{regionBlocks, 1, 1}, [3]uint32{256, 1, 1}, 0, e.s1,
			G, r.part); err != nil {
			return err
		}
	case codegen.AnswerCapture:
		if n := r.capN; n > 0 {
			if err := e.ctx.Launch(r.mod.funcs[codegen.FuncGather], [3]uint32{uint32((n + 127) / 128), 1, 1}, [3]uint32{128, 1, 1}, 0, e.s1,
				G, r.capPos, r.capV, int32(n)); err != nil {
				return err
			}
		}
	}
	if err := r.stopTiming(tm); err != nil {
		return err
	}
	r.trace.Mark("fronts")
	if r.onDevice {
		r.devGrid = r.keepOnDevice(G, gridBytes)
		return nil
	}
	if !r.keep {
		return nil
	}
	return r.copyGrid(G, gridBytes)
}

// copyGrid copies the finished grid at G (bytes long, row-major, the
// host grid's layout) into the host grid, in pieces through the pinned
// staging buffers, CPU workers moving each piece while the next is copied.
func (r *run) copyGrid(G cuda.DevicePtr, bytes int64) error {
	piece := r.stageBytes()
	st, err := r.newStager(piece, false)
	if err != nil {
		return err
	}
	n := 0
	for at := int64(0); at < bytes; at += piece {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		b := min(piece, bytes-at)
		if err := st.end(n, G+cuda.DevicePtr(at), b, r.rowsScatter(at)); err != nil {
			return err
		}
		n++
	}
	return st.finish()
}
