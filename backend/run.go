package backend

import (
	"context"
	"fmt"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// What every executor does before and after its sweep, whatever the
// hardware: written once here so that the executors start, answer and trace
// back alike.

// Start checks what every executor checks before it allocates anything: a
// grid with cells, and a context not yet cancelled (ctx.Err()).
func Start(ctx context.Context, p *ir.Problem) error {
	if p.Rows <= 0 || p.Cols <= 0 {
		return fmt.Errorf("the grid is %dx%d: nothing to compute", p.Rows, p.Cols)
	}
	return ctx.Err()
}

// Tracer follows the winning references back from cell [i][j] of a kept
// grid, returning the cells visited and the values emitted in path order.
// It is traceback.Trace, which imports this package, hence a parameter of
// Finish.
type Tracer func(p *ir.Problem, g *Grid, i, j int64) (path [][2]int64, emitted []ir.Value, err error)

// Finish ends a run once every cell is computed, as every executor ends it:
// the last progress report (all cells done), the answer (answer fills it in
// res, with the answer cell when it is one), and with opt.Traceback the path
// and the emitted values from the answer cell over res.Grid (trace).
func Finish(p *ir.Problem, opt Options, res *Result, answer func(*Result) error, trace Tracer) error {
	if opt.Progress != nil {
		opt.Progress(p.Cells(), p.Cells())
	}
	if err := answer(res); err != nil {
		return err
	}
	if !opt.Traceback {
		return nil
	}
	if !res.AnswerIsCell {
		return &source.Error{Pos: p.AnswerPos, Msg: fmt.Sprintf("traceback starts at the answer cell, but the answer of %s is not one cell", p.Name)}
	}
	path, emitted, err := trace(p, res.Grid, res.AnswerI, res.AnswerJ)
	if err != nil {
		return err
	}
	res.Path, res.Emitted = path, emitted
	return nil
}

// Captured serves the cells an answer expression reads (to eval.Eval) from
// those a run captured while it computed them, got: a cell outside the grid
// or one not captured is an error.
func Captured(p *ir.Problem, got map[[2]int64]ir.Value) func(i, j int64) (ir.Value, error) {
	return func(i, j int64) (ir.Value, error) {
		v, ok := got[[2]int64{i, j}]
		if !ok {
			if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols {
				return ir.Value{}, fmt.Errorf("outside the %s", p.GridText())
			}
			return ir.Value{}, fmt.Errorf("internal error: the cell was not captured")
		}
		return v, nil
	}
}
