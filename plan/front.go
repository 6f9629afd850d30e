package plan

import (
	"fmt"
	"sort"
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
//
// On a 3-D grid K x R x C (sema's lowering: row k is the k-plane, the flat
// column J = i*C + j holds cell[k][i][j]) a hyperplane may instead run over
// the user's three axes, t = A*k + M*i + B*j (contract v2 §7.3): Inner is
// then C (and A, M, B coprime). With Inner 0 it is t = A*i + B*j over the
// grid's two axes, on a 3-D grid over k and the flat column.
type Hyperplane struct {
	A, B     int64
	M, Inner int64
}

// Three reports whether h runs over a 3-D grid's three axes (Inner > 0).
func (h Hyperplane) Three() bool { return h.Inner > 0 }

// T is the front of cell (i, j) (of the flat grid: row k, column J on a 3-D
// grid).
func (h Hyperplane) T(i, j int64) int64 {
	if h.Inner > 0 {
		q := floorDiv(j, h.Inner)
		return h.A*i + h.M*q + h.B*(j-h.Inner*q)
	}
	return h.A*i + h.B*j
}

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
	if h.Three() {
		return h.Format3(p.Vars3[0], p.Vars3[1], p.Vars3[2])
	}
	if T := int64(len(p.Tables)); T > 1 && h.A%T == 0 && (h.B == 1 || h.B == -1) {
		// Over the flat columns J = j*T + table: T times the user's
		// order, the tables of a cell apart by ±1 — "t = 2*(j - i) +
		// table".
		if name := p.TableJVar; name != "" {
			user := strings.TrimPrefix(Hyperplane{A: h.A / T, B: h.B}.Format(iv, name), "t = ")
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
	return formatSum([]sumTerm{{h.A, i}, {h.B, j}})
}

// Format3 writes a 3-D front function with the variables named k, i, j.
func (h Hyperplane) Format3(k, i, j string) string {
	return formatSum([]sumTerm{{h.A, k}, {h.M, i}, {h.B, j}})
}

// sumTerm is c*v in a front function.
type sumTerm struct {
	c int64
	v string
}

// formatSum writes "t = " and the terms, the first positive one first ("t =
// j - i", "t = k + i + j"), "t = 0" when every coefficient is 0.
func formatSum(ts []sumTerm) string {
	for n, x := range ts {
		if x.c > 0 {
			ts = append([]sumTerm{x}, append(ts[:n:n], ts[n+1:]...)...)
			break
		}
	}
	s := ""
	for _, x := range ts {
		s += frontTerm(x.c, x.v, s == "")
	}
	if s == "" {
		s = "0"
	}
	return "t = " + s
}

// frontTerm writes c*v as a term of a sum (the first one without its sign's
// space).
func frontTerm(c int64, v string, first bool) string {
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

// Range is the first and last front of a rows x cols grid.
func (h Hyperplane) Range(rows, cols int64) (tFirst, tLast int64) {
	if h.Three() {
		// The corners of the K x R x C box.
		mid := cols / h.Inner
		n := 0
		for _, k := range [2]int64{0, rows - 1} {
			for _, i := range [2]int64{0, mid - 1} {
				for _, j := range [2]int64{0, h.Inner - 1} {
					t := h.A*k + h.M*i + h.B*j
					if n == 0 || t < tFirst {
						tFirst = t
					}
					if n == 0 || t > tLast {
						tLast = t
					}
					n++
				}
			}
		}
		return tFirst, tLast
	}
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
// in increasing row order (increasing column for a front of one row). A
// front of a 3-D hyperplane is the lines of its k-planes (Hyperplane.Line),
// by increasing k.
type Front struct {
	h        Hyperplane
	t        int64
	row      bool  // B == 0: the front is the whole row I0
	i0, step int64 // B != 0: rows i0, i0+step, ...
	n        int64
	cols     int64
	whole    bool    // a 3-D plane's line that is the whole plane (M = B = 0)
	segs     []Piece // 3-D: the front's line in each k-plane that has one
}

// Piece is the line of one k-plane in a front of a 3-D hyperplane: the
// front's cells Start .. Start+Line.Len()-1 are, in the k-plane (row K of
// the flat grid), the cells Line enumerates over the plane's R x C grid.
type Piece struct {
	K, Start int64
	Line     Front
}

// Pieces is the lines of a front of a 3-D hyperplane, by increasing k (nil
// for a 2-D one).
func (f Front) Pieces() []Piece { return f.segs }

// Line is the cells (i, j) of an R x C plane of a 3-D grid with M*i + B*j
// == u, in increasing i (increasing j along one row): the part of a front of
// the 3-D hyperplane h in one k-plane, for u = t - A*k.
func (h Hyperplane) Line(u, mid, inner int64) Front {
	m, b := h.M, h.B
	if m == 0 && b == 0 {
		f := Front{whole: true, cols: inner}
		if u == 0 {
			f.n = mid * inner
		}
		return f
	}
	g := gcd(abs64(m), abs64(b))
	if u%g != 0 {
		return Front{cols: inner}
	}
	return Hyperplane{A: m / g, B: b / g}.Front(u/g, mid, inner)
}

// LineWidth is the most cells a Line of h can hold: one in every |B| rows
// and every |M| columns (after dividing both by their gcd).
func (h Hyperplane) LineWidth(mid, inner int64) int64 {
	m, b := h.M, h.B
	if m == 0 && b == 0 {
		return mid * inner
	}
	g := gcd(abs64(m), abs64(b))
	m, b = abs64(m/g), abs64(b/g)
	w := inner
	if b != 0 {
		w = (mid + b - 1) / b
	}
	if m != 0 {
		w = min(w, (inner+m-1)/m)
	}
	return w
}

// Planes is the k-planes k0..k1 (none when k0 > k1) that front t of a 3-D
// hyperplane over a grid of rows k-planes of cols flat columns may cross:
// those whose t - A*k lies within the range of M*i + B*j over a plane.
// (A plane in it may still hold no cell of the front, when the gcd of M
// and B does not divide t - A*k.)
func (h Hyperplane) Planes(t, rows, cols int64) (k0, k1 int64) {
	mid := cols / h.Inner
	uLo := min(0, h.M*(mid-1)) + min(0, h.B*(h.Inner-1))
	uHi := max(0, h.M*(mid-1)) + max(0, h.B*(h.Inner-1))
	if h.A == 0 {
		if t < uLo || t > uHi {
			return 0, -1
		}
		return 0, rows - 1
	}
	// A*k within [t - uHi, t - uLo].
	lo, hi := t-uHi, t-uLo
	if h.A > 0 {
		k0, k1 = ceilDiv(lo, h.A), floorDiv(hi, h.A)
	} else {
		k0, k1 = ceilDiv(hi, h.A), floorDiv(lo, h.A)
	}
	return max(k0, 0), min(k1, rows-1)
}

// Count is the number of cells of front t (Front(t, rows, cols).Len(),
// without building the front).
func (h Hyperplane) Count(t, rows, cols int64) int64 {
	if !h.Three() {
		return h.Front(t, rows, cols).Len()
	}
	mid := cols / h.Inner
	k0, k1 := h.Planes(t, rows, cols)
	var n int64
	for k := k0; k <= k1; k++ {
		n += h.Line(t-h.A*k, mid, h.Inner).Len()
	}
	return n
}

// Front is front t of a rows x cols grid (empty when t is outside Range).
func (h Hyperplane) Front(t, rows, cols int64) Front {
	f := Front{h: h, t: t, cols: cols}
	if h.Three() {
		mid := cols / h.Inner
		k0, k1 := h.Planes(t, rows, cols)
		for k := k0; k <= k1; k++ {
			line := h.Line(t-h.A*k, mid, h.Inner)
			if n := line.Len(); n > 0 {
				f.segs = append(f.segs, Piece{K: k, Start: f.n, Line: line})
				f.n += n
			}
		}
		return f
	}
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
	if f.segs != nil {
		s := sort.Search(len(f.segs), func(x int) bool { return f.segs[x].Start > n }) - 1
		p := f.segs[s]
		li, lj := p.Line.Cell(n - p.Start)
		return p.K, li*f.h.Inner + lj
	}
	if f.whole {
		return n / f.cols, n % f.cols
	}
	if f.row {
		return f.i0, n
	}
	i = f.i0 + n*f.step
	return i, (f.t - f.h.A*i) / f.h.B
}

func floorDiv(a, b int64) int64 { return analysis.FloorDiv(a, b) }

func ceilDiv(a, b int64) int64 { return analysis.CeilDiv(a, b) }
