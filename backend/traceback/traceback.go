// Package traceback recovers a solution from a kept grid. Starting at the
// answer cell, it finds at every step which case produced the cell (the
// first whose condition holds), records what that case emits, and moves to
// the cell that produced the value: for min and max (calls and reductions)
// the winning argument (the first of equals, as the evaluators pick it), for
// ?: the branch taken, otherwise the first cell reference of the value, left
// to right. It stops at a case whose value reads no cell.
package traceback

import (
	"fmt"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// Trace walks back from cell [i][j] of grid g of problem p. It returns the
// cells visited and the values emitted, both in path order: from the start
// of the grid to the answer cell.
func Trace(p *ir.Problem, g *backend.Grid, i, j int64) (path [][2]int64, emitted []ir.Value, err error) {
	if g == nil {
		return nil, nil, fmt.Errorf("traceback needs the whole grid, and it was not kept")
	}
	if g.Rows != p.Rows || g.Cols != p.Cols {
		return nil, nil, fmt.Errorf("traceback: the grid is %dx%d, the problem's %dx%d", g.Rows, g.Cols, p.Rows, p.Cols)
	}
	t := &tracer{p: p, cells: eval.GridCells(g.Rows, g.Cols, g.At)}
	seen := map[[2]int64]bool{}
	for {
		if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols {
			return nil, nil, &source.Error{Pos: p.RecurPos, Msg: fmt.Sprintf("traceback: the recurrence leads to cell[%d][%d], outside the %dx%d grid", i, j, p.Rows, p.Cols)}
		}
		at := [2]int64{i, j}
		if seen[at] {
			return nil, nil, &source.Error{Pos: p.RecurPos, Msg: fmt.Sprintf("traceback: the recurrence leads back to cell[%d][%d], a cycle", i, j)}
		}
		seen[at] = true
		path = append(path, at)
		c, err := t.whichCase(i, j)
		if err != nil {
			return nil, nil, fmt.Errorf("traceback at cell[%d][%d]: %w", i, j, err)
		}
		if c.Emit != nil {
			v, err := eval.EvalAt(c.Emit, i, j, t.cells)
			if err != nil {
				return nil, nil, fmt.Errorf("traceback at cell[%d][%d]: %w", i, j, err)
			}
			emitted = append(emitted, v)
		}
		next, ok, err := t.producer(c.Value, i, j, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("traceback at cell[%d][%d]: %w", i, j, err)
		}
		if !ok {
			break
		}
		i, j = next[0], next[1]
	}
	reverse(path)
	reverse(emitted)
	return path, emitted, nil
}

func reverse[T any](s []T) {
	for a, b := 0, len(s)-1; a < b; a, b = a+1, b-1 {
		s[a], s[b] = s[b], s[a]
	}
}

type tracer struct {
	p     *ir.Problem
	cells eval.CellFunc
}

// whichCase returns the first case whose condition holds at [i][j].
func (t *tracer) whichCase(i, j int64) (*ir.Case, error) {
	for _, c := range t.p.Cases {
		if c.Cond == nil {
			return c, nil
		}
		v, err := eval.EvalAt(c.Cond, i, j, t.cells)
		if err != nil {
			return nil, err
		}
		if v.I != 0 {
			return c, nil
		}
	}
	return nil, &source.Error{Pos: t.p.RecurPos, Msg: "traceback: no case applies"}
}

// producer returns the cell whose value produced e at [i][j]; ok is false
// when e reads no cell.
func (t *tracer) producer(e ir.Expr, i, j int64, binds []eval.Binding) ([2]int64, bool, error) {
	evalAt := func(x ir.Expr) (ir.Value, error) { return eval.EvalWith(x, i, j, binds, t.cells) }
	switch n := e.(type) {
	case *ir.CellRef:
		ri, err := evalAt(n.I)
		if err != nil {
			return [2]int64{}, false, err
		}
		rj, err := evalAt(n.J)
		if err != nil {
			return [2]int64{}, false, err
		}
		return [2]int64{ri.I, rj.I}, true, nil
	case *ir.Call:
		if n.Fn == ir.FnMin || n.Fn == ir.FnMax {
			vals := make([]ir.Value, len(n.Args))
			for k, a := range n.Args {
				v, err := evalAt(a)
				if err != nil {
					return [2]int64{}, false, err
				}
				vals[k] = v
			}
			k := eval.WinningArg(n.Fn == ir.FnMin, vals)
			if k < 0 {
				return [2]int64{}, false, nil
			}
			return t.producer(n.Args[k], i, j, binds)
		}
	case *ir.Select:
		c, err := evalAt(n.Cond)
		if err != nil {
			return [2]int64{}, false, err
		}
		if c.I != 0 {
			return t.producer(n.Then, i, j, binds)
		}
		return t.producer(n.Else, i, j, binds)
	case *ir.Reduce:
		lo, err := evalAt(n.Lo)
		if err != nil {
			return [2]int64{}, false, err
		}
		hi, err := evalAt(n.Hi)
		if err != nil {
			return [2]int64{}, false, err
		}
		if lo.I > hi.I {
			return [2]int64{}, false, nil
		}
		win := lo.I
		if n.Op != ir.ReduceSum {
			var best []ir.Value
			for k := lo.I; k <= hi.I; k++ {
				v, err := eval.EvalWith(n.Body, i, j, bind(binds, n, k), t.cells)
				if err != nil {
					return [2]int64{}, false, err
				}
				if best == nil {
					best = []ir.Value{v, v}
				}
				best[1] = v
				if eval.WinningArg(n.Op == ir.ReduceMin, best) == 1 {
					best[0], win = v, k
				}
				if k == hi.I {
					break
				}
			}
		}
		return t.producer(n.Body, i, j, bind(binds, n, win))
	case *ir.Load, *ir.Const, *ir.Inf, *ir.ScalarRef, *ir.Var:
		return [2]int64{}, false, nil
	}
	// Anything else: the first operand (left to right) that reads a cell.
	for _, x := range operands(e) {
		if readsCell(x) {
			return t.producer(x, i, j, binds)
		}
	}
	return [2]int64{}, false, nil
}

func bind(binds []eval.Binding, r *ir.Reduce, v int64) []eval.Binding {
	out := make([]eval.Binding, len(binds), len(binds)+1)
	copy(out, binds)
	return append(out, eval.Binding{Reduce: r, Value: v})
}

// operands are the value operands of e (not the indices of reads).
func operands(e ir.Expr) []ir.Expr {
	switch n := e.(type) {
	case *ir.Unary:
		return []ir.Expr{n.X}
	case *ir.Binary:
		return []ir.Expr{n.X, n.Y}
	case *ir.Convert:
		return []ir.Expr{n.X}
	case *ir.Call:
		return n.Args
	case *ir.Select:
		return []ir.Expr{n.Then, n.Else}
	case *ir.Reduce:
		return []ir.Expr{n.Body}
	}
	return nil
}

// readsCell reports whether e's value reads a cell.
func readsCell(e ir.Expr) bool {
	if _, ok := e.(*ir.CellRef); ok {
		return true
	}
	for _, x := range operands(e) {
		if readsCell(x) {
			return true
		}
	}
	return false
}
