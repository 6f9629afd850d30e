package plan

import (
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"

	"github.com/dpgpu/dpgpu/ir"
)

// Hyperplane is the front function t = A*i + B*j of a schedule: the cells
// with equal t form a front, computed in parallel, and fronts run by
// increasing t. Every schedule is one: rows (1,0), rows backward (-1,0),
// cols (0,±1), wavefront (1,1) or (-1,-1), interval (-1,1). A and B are
// coprime (or one of them is 0 and the other ±1), so that consecutive
// values of t are consecutive fronts.
type Hyperplane struct{ A, B int64 }

// T is the front of cell (i, j).
func (h Hyperplane) T(i, j int64) int64 { return h.A*i + h.B*j }

// String writes the front function, e.g. "t = j - i".
func (h Hyperplane) String() string { return h.Format("i", "j") }

// In writes the front function in p's own index variables ("t = w - i"
// for cell[i][w]; "t = s" in a 1-D grid over s, whose one row has no
// variable).
func (h Hyperplane) In(p *ir.Problem) string {
	iv, jv := p.IVar, p.JVar
	if iv == "" {
		iv = "i"
	}
	if jv == "" {
		jv = "j"
	}
	if p.Dims == 1 {
		h.A = 0
	}
	if T := int64(len(p.Tables)); T > 1 && h.A%T == 0 && (h.B == 1 || h.B == -1) {
		// Over the flat columns J = j*T + table: T times the user's
		// order, the tables of a cell apart by ±1 — "t = 2*(j - i) +
		// table".
		if name := p.TableJVar; name != "" {
			user := strings.TrimPrefix(Hyperplane{h.A / T, h.B}.Format(iv, name), "t = ")
			sign := " + "
			if h.B < 0 {
				sign = " - "
			}
			if strings.ContainsAny(user, " ") {
				user = "(" + user + ")"
			}
			return fmt.Sprintf("t = %d*%s%stable", T, user, sign)
		}
	}
	return h.Format(iv, jv)
}

// Format writes the front function with the index variables named i and j.
func (h Hyperplane) Format(i, j string) string {
	term := func(c int64, v string, first bool) string {
		switch {
		case c == 0:
			return ""
		case c == 1 && first:
			return v
		case c == -1 && first:
			return "-" + v
		case c == 1:
			return " + " + v
		case c == -1:
			return " - " + v
		case first:
			return fmt.Sprintf("%d*%s", c, v)
		case c < 0:
			return fmt.Sprintf(" - %d*%s", -c, v)
		}
		return fmt.Sprintf(" + %d*%s", c, v)
	}
	if h.A < 0 && h.B > 0 {
		return "t = " + term(h.B, j, true) + term(h.A, i, false)
	}
	s := term(h.A, i, true)
	s += term(h.B, j, s == "")
	if s == "" {
		s = "0"
	}
	return "t = " + s
}

// Range is the first and last front of a rows x cols grid.
func (h Hyperplane) Range(rows, cols int64) (tFirst, tLast int64) {
	tFirst, tLast = 0, 0
	for n, c := range [4][2]int64{{0, 0}, {0, cols - 1}, {rows - 1, 0}, {rows - 1, cols - 1}} {
		t := h.T(c[0], c[1])
		if n == 0 || t < tFirst {
			tFirst = t
		}
		if n == 0 || t > tLast {
			tLast = t
		}
	}
	return tFirst, tLast
}

// Front is the cells of one front of a grid: Len cells, the n-th at Cell(n),
// in increasing row order (increasing column for a front of one row).
type Front struct {
	h        Hyperplane
	t        int64
	row      bool  // B == 0: the front is the whole row I0
	i0, step int64 // B != 0: rows i0, i0+step, ...
	n        int64
	cols     int64
}

// Front is front t of a rows x cols grid (empty when t is outside Range).
func (h Hyperplane) Front(t, rows, cols int64) Front {
	f := Front{h: h, t: t, cols: cols}
	if h.B == 0 {
		// A is ±1: the front is row t/A.
		i := t * h.A
		f.row, f.i0 = true, i
		if i >= 0 && i < rows {
			f.n = cols
		}
		return f
	}
	// Rows i with j = (t - A*i)/B an integer in [0, cols): the bounds on
	// j give an interval of i, the divisibility a residue mod |B|.
	lo, hi := int64(0), rows-1
	jBound := func(jv int64) (int64, bool) { // A*i = t - B*jv  → i
		return t - h.B*jv, true
	}
	if h.A != 0 {
		// j in [0, cols-1]  <=>  A*i in [t - B*(cols-1), t] (B > 0) or
		// [t, t - B*(cols-1)] (B < 0).
		x, _ := jBound(0)
		y, _ := jBound(cols - 1)
		aLo, aHi := min(x, y), max(x, y)
		var iLo, iHi int64
		if h.A > 0 {
			iLo, iHi = ceilDiv(aLo, h.A), floorDiv(aHi, h.A)
		} else {
			iLo, iHi = ceilDiv(aHi, h.A), floorDiv(aLo, h.A)
		}
		lo, hi = max(lo, iLo), min(hi, iHi)
	} else if t%h.B != 0 || t/h.B < 0 || t/h.B >= cols {
		return f
	}
	step := abs64(h.B)
	for lo <= hi && (t-h.A*lo)%h.B != 0 {
		lo++
	}
	if lo > hi {
		return f
	}
	f.i0, f.step = lo, step
	f.n = (hi-lo)/step + 1
	return f
}

// Len is the number of cells of the front.
func (f Front) Len() int64 { return f.n }

// Cell is the n-th cell of the front, 0 <= n < Len().
func (f Front) Cell(n int64) (i, j int64) {
	if f.row {
		return f.i0, n
	}
	i = f.i0 + n*f.step
	return i, (f.t - f.h.A*i) / f.h.B
}

func floorDiv(a, b int64) int64 { return analysis.FloorDiv(a, b) }

func ceilDiv(a, b int64) int64 { return analysis.CeilDiv(a, b) }
