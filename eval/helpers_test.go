package eval

import (
	"fmt"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// grid is a whole grid of values in the evaluation classes.
type grid struct {
	rows, cols int64
	I          []int64
	F          []float64
}

func newGrid(p *ir.Problem) *grid {
	g := &grid{rows: p.Rows, cols: p.Cols}
	if classOf(p.CellType) == ir.ClassFloat {
		g.F = make([]float64, p.Rows*p.Cols)
	} else {
		g.I = make([]int64, p.Rows*p.Cols)
	}
	return g
}

func (g *grid) at(t ir.Type) func(i, j int64) ir.Value {
	return func(i, j int64) ir.Value {
		if g.F != nil {
			return ir.Value{T: t, F: g.F[i*g.cols+j]}
		}
		return ir.Value{T: t, I: g.I[i*g.cols+j]}
	}
}

// order lists the cells in an order the dependencies allow: along axis, the
// steps ascending unless stepDesc and the lanes ascending unless laneDesc.
func order(p *ir.Problem, axis Axis, stepDesc, laneDesc bool, visit func(i, j int64) error) error {
	stepN, laneN := p.Rows, p.Cols
	if axis == AlongI {
		stepN, laneN = p.Cols, p.Rows
	}
	for s := int64(0); s < stepN; s++ {
		step := s
		if stepDesc {
			step = stepN - 1 - s
		}
		for l := int64(0); l < laneN; l++ {
			lane := l
			if laneDesc {
				lane = laneN - 1 - l
			}
			i, j := step, lane
			if axis == AlongI {
				i, j = lane, step
			}
			if err := visit(i, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// reference computes the grid cell by cell with the general evaluator.
func reference(p *ir.Problem, axis Axis, stepDesc, laneDesc bool) (*grid, error) {
	g := newGrid(p)
	cells := GridCells(p.Rows, p.Cols, g.at(p.CellType))
	err := order(p, axis, stepDesc, laneDesc, func(i, j int64) error {
		return refCell(p, g, cells, i, j)
	})
	return g, err
}

// batched computes the grid with kernels over batches of at most width
// lanes. Each line is stored with pad cells on both sides. perBatch asks
// for a kernel specialised to each batch, else one for the whole grid.
func batched(p *ir.Problem, axis Axis, stepDesc, laneDesc bool, width int, perBatch bool) (*grid, *Recurrence, error) {
	rec, err := Compile(p, axis, laneDesc)
	if err != nil {
		return nil, nil, err
	}
	stepN, laneN := p.Rows, p.Cols
	if axis == AlongI {
		stepN, laneN = p.Cols, p.Rows
	}
	before, after := rec.LaneReach()
	pad := max(before, after) + 1
	isF := classOf(p.CellType) == ir.ClassFloat
	lines := make([]Line, stepN)
	for s := range lines {
		lines[s].Base = -pad
		if isF {
			lines[s].F = make([]float64, laneN+2*pad)
		} else {
			lines[s].I = make([]int64, laneN+2*pad)
		}
	}
	dummy := Line{Base: -pad, I: make([]int64, laneN+2*pad), F: make([]float64, laneN+2*pad)}
	lo, hi := rec.Steps()
	m := rec.NewMachine(width)
	whole, err := rec.Kernel(0, p.Rows-1, 0, p.Cols-1)
	if err != nil {
		return nil, nil, err
	}
	b := &Batch{Lines: make([]Line, hi-lo+1)}
	for s := int64(0); s < stepN; s++ {
		step := s
		if stepDesc {
			step = stepN - 1 - s
		}
		b.Step = step
		for d := lo; d <= hi; d++ {
			if at := step - d; at >= 0 && at < stepN {
				b.Lines[d-lo] = lines[at]
			} else {
				b.Lines[d-lo] = dummy
			}
		}
		nb := (laneN + int64(width) - 1) / int64(width)
		for q := int64(0); q < nb; q++ {
			bq := q
			if laneDesc {
				bq = nb - 1 - q
			}
			l0 := bq * int64(width)
			l1 := min(l0+int64(width), laneN)
			b.Lane0, b.N = l0, int(l1-l0)
			k := whole
			if perBatch {
				i0, i1, j0, j1 := step, step, l0, l1-1
				if axis == AlongI {
					i0, i1, j0, j1 = l0, l1-1, step, step
				}
				if k, err = rec.Kernel(i0, i1, j0, j1); err != nil {
					return nil, nil, err
				}
			}
			if err := m.Run(k, b); err != nil {
				return nil, rec, err
			}
		}
	}
	g := newGrid(p)
	for s := int64(0); s < stepN; s++ {
		for l := int64(0); l < laneN; l++ {
			i, j := s, l
			if axis == AlongI {
				i, j = l, s
			}
			if isF {
				g.F[i*p.Cols+j] = lines[s].F[l+pad]
			} else {
				g.I[i*p.Cols+j] = lines[s].I[l+pad]
			}
		}
	}
	return g, rec, nil
}

// sameGrid reports the first difference between two grids.
func sameGrid(a, b *grid) error {
	for k := range a.I {
		if a.I[k] != b.I[k] {
			return fmt.Errorf("cell[%d][%d] = %d, want %d", int64(k)/a.cols, int64(k)%a.cols, b.I[k], a.I[k])
		}
	}
	for k := range a.F {
		x, y := a.F[k], b.F[k]
		if x != y && !(x != x && y != y) {
			return fmt.Errorf("cell[%d][%d] = %g, want %g", int64(k)/a.cols, int64(k)%a.cols, y, x)
		}
	}
	return nil
}

// scheduleOf maps a plan to the batch axis and directions.
func scheduleOf(pl *plan.Plan) (axis Axis, stepDesc, laneDesc bool) {
	back := pl.Direction == plan.Backward
	switch pl.Schedule {
	case plan.Cols:
		return AlongI, back, false
	case plan.Wavefront:
		return AlongJ, back, back
	}
	return AlongJ, back, false
}

// errText is err's message with source.Error positions.
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	if e, ok := err.(*source.Error); ok {
		return e.Error()
	}
	return err.Error()
}
