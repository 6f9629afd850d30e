package report

import (
	"fmt"
	"io"
	"math"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The analysis of a generic schedule (contract v2 §7.3): references over
// ranges of offsets, the hyperplane whose fronts run them, how far back
// they reach.

// rangeText writes an offset range: "3", "1..16", ">= 1", "<= -1", or "?"
// when nothing bounds it.
func rangeText(r analysis.Range) string {
	lo, hi := r.Lo != math.MinInt64, r.Hi != math.MaxInt64
	switch {
	case r.IsEmpty():
		return "none"
	case r.IsPoint():
		return fmt.Sprint(r.Lo)
	case lo && hi:
		return fmt.Sprintf("%d..%d", r.Lo, r.Hi)
	case lo:
		return fmt.Sprintf(">=%d", r.Lo)
	case hi:
		return fmt.Sprintf("<=%d", r.Hi)
	}
	return "?"
}

// rangeJSON is [lo, hi] with null for an unbounded side.
func rangeJSON(r analysis.Range) []*int64 {
	side := func(v, unbounded int64) *int64 {
		if v == unbounded {
			return nil
		}
		return &v
	}
	return []*int64{side(r.Lo, math.MinInt64), side(r.Hi, math.MaxInt64)}
}

// rangeDeps writes the dependencies with the range of each offset: a
// reference over a reduction variable reaches a range of cells. A 1-D
// grid has one offset.
func rangeDeps(w io.Writer, p *ir.Problem, pl *plan.Plan) {
	switch p.Dims {
	case 1:
		fmt.Fprintf(w, "dependencies (offset d back from cell[%s], lo..hi over every cell and reduction value; ? = unbounded)\n", p.JVar)
	case 3:
		v := p.Vars3
		fmt.Fprintf(w, "dependencies (offsets dk, di, dj back from cell[%s][%s][%s], lo..hi over every cell and reduction value; ? = unbounded)\n", v[0], v[1], v[2])
	default:
		fmt.Fprintf(w, "dependencies (offsets di, dj back from cell[%s][%s], lo..hi over every cell and reduction value; ? = unbounded)\n", p.IVar, p.JVar)
	}
	for _, d := range pl.Deps {
		var off string
		switch p.Dims {
		case 1:
			off = "d=" + rangeText(d.RangeJ)
		case 3:
			off = fmt.Sprintf("dk=%-5s di=%-5s dj=%s", rangeText(d.Range3[0]), rangeText(d.Range3[1]), rangeText(d.Range3[2]))
		default:
			off = fmt.Sprintf("di=%-7s dj=%s", rangeText(d.RangeI), rangeText(d.RangeJ))
		}
		if d.Checked {
			off = fmt.Sprintf("%-18s checked at run time", off)
		}
		fmt.Fprintf(w, "  line %-4d %-28s %s\n", d.Ref.Pos.Line, d.Ref.Text, off)
	}
}

// frontsFacts are the fronts of a generic plan over p's grid: how many,
// the widest, and the range of t.
type frontsFacts struct {
	first, last, widest int64
}

func frontsOf(p *ir.Problem, pl *plan.Plan) frontsFacts {
	f := frontsFacts{}
	f.first, f.last = pl.T.Range(p.Rows, p.Cols)
	for t := f.first; t <= f.last; t++ {
		f.widest = max(f.widest, pl.T.Count(t, p.Rows, p.Cols))
	}
	return f
}

// fronts writes the hyperplane, its fronts and how far back a reference
// reads, in place of v1's prev line.
func fronts(w io.Writer, p *ir.Problem, pl *plan.Plan) {
	f := frontsOf(p, pl)
	cells := "cells"
	if f.widest == 1 {
		cells = "cell"
	}
	fmt.Fprintf(w, "fronts     %s: %s fronts (t = %d..%d), at most %s %s each, computed in parallel\n",
		hyperplaneText(p, pl), Count(pl.Fronts), f.first, f.last, Count(f.widest), cells)
	switch {
	case pl.Serial && pl.SerialLag >= 0:
		rows := "rows"
		if p.Dims == 3 {
			rows = "k-planes"
		}
		fmt.Fprintf(w, "           row-major order is legal too: a CPU run takes it, compiled code on several threads with its %s pipelined (a cell once the one before has passed its column + %d)\n", rows, pl.SerialLag)
	case pl.Serial:
		fmt.Fprintf(w, "           row-major order is legal too: a CPU run on one thread takes it\n")
	}
	if pl.Cells > 0 {
		fmt.Fprintf(w, "prev       %s; swept as the cells' anti-diagonals keeping a window (GPU: the strip kernel; CPU: row by row), the whole grid only where a run keeps it\n", reachText(pl))
		return
	}
	fmt.Fprintf(w, "prev       the whole grid stays in memory: %s\n", reachText(pl))
}

// hyperplaneText writes the front function in the problem's own index
// variables: "t = j - i"; in a 1-D grid over s, "t = s".
func hyperplaneText(p *ir.Problem, pl *plan.Plan) string { return pl.T.In(p) }

// reachText says how far back the references read.
func reachText(pl *plan.Plan) string {
	switch {
	case !pl.ReachBounded:
		return "a reference may read any earlier front"
	case pl.Reach == 1:
		return "references read up to 1 front back"
	}
	return fmt.Sprintf("references read up to %s fronts back", Count(pl.Reach))
}

// FrontsJSON is the fronts of a generic schedule.
type FrontsJSON struct {
	// Hyperplane is the front function, "t = j - i"; A and B its
	// coefficients of i and j.
	Hyperplane string `json:"hyperplane"`
	A          int64  `json:"a"`
	B          int64  `json:"b"`
	// Coefficients are the front function's, one per axis of the grid as
	// the user writes it: [a, b] of t = a*i + b*j, [a, b, c] of t = a*k +
	// b*i + c*j on a 3-D grid (whose A and B above are then k's and j's),
	// [b] of t = b*j on a 1-D grid.
	Coefficients []int64 `json:"coefficients"`
	// Count is the number of fronts, First and Last their values of t,
	// Widest the most cells of one front.
	Count  int64 `json:"count"`
	First  int64 `json:"first"`
	Last   int64 `json:"last"`
	Widest int64 `json:"widest"`
	// Reach is how many fronts back a reference may read; null when only
	// the grid bounds it. The whole grid stays in memory (a generic schedule).
	Reach   *int64 `json:"reach"`
	KeepAll bool   `json:"keep_all"`
	// Cells is the tables of a cell where the fronts are the wavefront of
	// the cells of several tables (plan.Plan.Cells: a window is kept, not
	// the grid; KeepAll false); omitted otherwise.
	Cells int64 `json:"cells,omitempty"`
	// Serial: row-major order is legal too (plan.Plan.Serial), which one
	// CPU worker runs instead of the fronts.
	Serial bool `json:"serial,omitempty"`
}

func frontsObject(p *ir.Problem, pl *plan.Plan) *FrontsJSON {
	f := frontsOf(p, pl)
	o := &FrontsJSON{Hyperplane: hyperplaneText(p, pl), A: pl.T.A, B: pl.T.B, Count: pl.Fronts,
		First: f.first, Last: f.last, Widest: f.widest, KeepAll: pl.Schedule.Generic() && pl.Cells == 0, Cells: pl.Cells, Serial: pl.Serial}
	switch h := pl.T; {
	case h.Three():
		o.Coefficients = []int64{h.A, h.M, h.B}
	case p.Dims == 1:
		o.Coefficients = []int64{h.B}
	default:
		o.Coefficients = []int64{h.A, h.B}
	}
	if pl.ReachBounded {
		r := pl.Reach
		o.Reach = &r
	}
	return o
}
