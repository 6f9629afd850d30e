package plan

import (
	"fmt"

	"github.com/dpgpu/dpgpu/ir"
)

// Several tables computed together (contract v2 §7.2). The lowering puts
// table t's cell [i][j] at the flat column J = j*T + t of one grid
// (sema), where a table reading another at the same cell reads a column
// to its left, and one reading the row above may read a column to the
// right (Y[i][j] reading H[i-1][j], H after Y: J+1). No anti-diagonal of
// the flat grid runs that, so the planner's hyperplane search finds one
// such as t = 2*i + J, whose fronts need the whole grid.
//
// In cells, though, such a recurrence is the plain wavefront: every
// reference reads a cell above or to the left, or an earlier table of the
// same cell. Its fronts are t = T*i + J (the flat grid's hyperplane
// (T, 1): a cell's T tables are T consecutive fronts, every reference an
// earlier front), which an executor may sweep as the anti-diagonals of
// cells with the tables of a cell computed in file order, keeping a
// window of rows and columns instead of the grid: Plan.Cells.

// cellWavefront makes pl the wavefront of cells of p's T tables where
// every reference fits it (see above): a constant offset di >= 0 rows
// back, and
//   - in the same row (di = 0), an earlier flat column (dj >= 1): an
//     earlier cell, or an earlier table of the same cell;
//   - in a row above, a flat column no further right than the last table
//     of the reading cell's column (dj >= -(T-1-from), from the reading
//     table), which the row above has finished;
//
// and every case is one table's (ir.Case.OwnCond). A schedule or a `prev`
// the file gives is left as it is.
func cellWavefront(p *ir.Problem, pl *Plan) {
	T := int64(len(p.Tables))
	if T < 2 || p.Dims != 2 || p.Schedule != "" || p.Prev >= 0 || pl.Schedule != Hyperplanar || !TableCases(p) {
		return
	}
	for _, d := range pl.Deps {
		if d.DI == nil || d.DJ == nil || d.Checked {
			return
		}
		di, dj, from := *d.DI, *d.DJ, int64(d.Ref.From)
		switch {
		case di < 0, di == 0 && dj < 1, di > 0 && dj < -(T-1-from):
			return
		}
	}
	h := Hyperplane{A: T, B: 1}
	ok, far, bounded, checked, _ := hyperplaneFits(reaches(p, pl), h, false)
	if !ok || !bounded || len(checked) > 0 {
		return
	}
	lo, hi := h.Range(p.Rows, p.Cols)
	pl.T, pl.Direction, pl.Fronts = h, Forward, hi-lo+1
	pl.Reach, pl.ReachBounded = far, true
	pl.Cells = T
	pl.Reason = fmt.Sprintf("the %d tables of a cell are computed together in file order, and every reference reads a cell above or to the left, or an earlier table of the same cell: the fronts t = %d*i + J (J = j*%d + table) are the anti-diagonals of the cells, each cell's tables %d consecutive fronts; executors sweep them keeping a window of rows and columns, not the grid", T, T, T, T)
}

// TableCases reports whether every case of p, a recurrence of several
// tables, is one table's (ir.Case.OwnCond), in table order.
func TableCases(p *ir.Problem) bool {
	T := len(p.Tables)
	prev := 0
	for k, c := range p.Cases {
		if _, ok := c.OwnCond(T, k == len(p.Cases)-1); !ok || c.Table < prev || c.Table >= T {
			return false
		}
		prev = c.Table
	}
	return T > 1
}
