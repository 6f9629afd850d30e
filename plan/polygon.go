package plan

import (
	"math"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// halfPlane is the constraint I*i + J*j + K >= 0 on the cell being
// computed: what a case's condition, a guard or a reduction's bounds say of
// the cells where a reference is read (`when i >= j` before an `otherwise`
// says i - j - 1 >= 0 is false there, i.e. j - i >= 0).
type halfPlane struct{ I, J, K int64 }

// conditionPlanes is what cond evaluating to truth says of i and j, as far
// as it is linear comparisons of i and j joined by &&, || and !; anything
// else says nothing (no planes), which only makes the planner safer. The
// column is the one cols sees (the user's j in a table's cases).
func conditionPlanes(cond ir.Expr, truth bool, cols analysis.Columns) []halfPlane {
	switch n := ir.StripConversions(cond).(type) {
	case *ir.Unary:
		if n.Op == ir.OpNot {
			return conditionPlanes(n.X, !truth, cols)
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd, ir.OpOr:
			// a && b true, a || b false: both sides hold (negated).
			if (n.Op == ir.OpAnd) == truth {
				return append(conditionPlanes(n.X, truth, cols), conditionPlanes(n.Y, truth, cols)...)
			}
			return nil
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			x, ok1 := linearIJ(n.X, cols)
			y, ok2 := linearIJ(n.Y, cols)
			if !ok1 || !ok2 {
				return nil
			}
			d := analysis.Form{I: x.I - y.I, J: x.J - y.J, K: x.K - y.K} // x - y
			op := n.Op
			if !truth {
				op = map[ir.Op]ir.Op{ir.OpEq: ir.OpNe, ir.OpNe: ir.OpEq, ir.OpLt: ir.OpGe, ir.OpLe: ir.OpGt, ir.OpGt: ir.OpLe, ir.OpGe: ir.OpLt}[op]
			}
			pos := halfPlane{d.I, d.J, d.K}    // x - y >= 0
			neg := halfPlane{-d.I, -d.J, -d.K} // y - x >= 0
			switch op {
			case ir.OpEq:
				return []halfPlane{pos, neg}
			case ir.OpGe:
				return []halfPlane{pos}
			case ir.OpGt:
				return []halfPlane{{pos.I, pos.J, pos.K - 1}}
			case ir.OpLe:
				return []halfPlane{neg}
			case ir.OpLt:
				return []halfPlane{{neg.I, neg.J, neg.K - 1}}
			}
		}
	}
	return nil
}

// linearIJ is e as a linear form in i and j with small coefficients (so
// that the planes' arithmetic cannot overflow).
func linearIJ(e ir.Expr, cols analysis.Columns) (analysis.Form, bool) {
	a, ok := analysis.AffineIn(e, nil, cols)
	if !ok {
		return analysis.Form{}, false
	}
	f, ok := a.Form()
	const big = 1 << 40
	if !ok || f.I > big || f.I < -big || f.J > big || f.J < -big || f.K > big || f.K < -big {
		return analysis.Form{}, false
	}
	return f, true
}

// reductionPlane says that a reduction reads anything only when its range
// is not empty: Hi - Lo >= 0, where both bounds are linear in i and j.
func reductionPlane(r *ir.Reduce, cols analysis.Columns) (halfPlane, bool) {
	lo, ok1 := linearIJ(r.Lo, cols)
	hi, ok2 := linearIJ(r.Hi, cols)
	if !ok1 || !ok2 {
		return halfPlane{}, false
	}
	return halfPlane{hi.I - lo.I, hi.J - lo.J, hi.K - lo.K}, true
}

// polygonExtremum is the least (most: greatest) value of ci*i + cj*j over
// the integer points of the box i in bi, j in bj cut by the half-planes,
// bounded by the linear relaxation: the extremum lies on a vertex of the
// polygon, and the integer one is at least the ceiling of the real one (at
// most its floor). feasible is false when no real point satisfies them
// all: the reference is never read.
func polygonExtremum(ci, cj int64, bi, bj analysis.Range, planes []halfPlane, most bool) (v int64, feasible bool) {
	lines := []halfPlane{
		{1, 0, -bi.Lo}, {-1, 0, bi.Hi}, {0, 1, -bj.Lo}, {0, -1, bj.Hi},
	}
	lines = append(lines, planes...)
	const eps = 1e-7
	inside := func(x, y float64) bool {
		for _, h := range lines {
			if float64(h.I)*x+float64(h.J)*y+float64(h.K) < -eps*(1+math.Abs(float64(h.I)*x)+math.Abs(float64(h.J)*y)+math.Abs(float64(h.K))) {
				return false
			}
		}
		return true
	}
	best, found := 0.0, false
	for a := 0; a < len(lines); a++ {
		for b := a + 1; b < len(lines); b++ {
			p, q := lines[a], lines[b]
			det := float64(p.I)*float64(q.J) - float64(p.J)*float64(q.I)
			if det == 0 {
				continue
			}
			// p.I*x + p.J*y = -p.K, q.I*x + q.J*y = -q.K.
			x := (float64(-p.K)*float64(q.J) - float64(p.J)*float64(-q.K)) / det
			y := (float64(p.I)*float64(-q.K) - float64(-p.K)*float64(q.I)) / det
			if !inside(x, y) {
				continue
			}
			val := float64(ci)*x + float64(cj)*y
			if !found || (most && val > best) || (!most && val < best) {
				best, found = val, true
			}
		}
	}
	if !found {
		return 0, false
	}
	if most {
		return int64(math.Floor(best + eps*(1+math.Abs(best)))), true
	}
	return int64(math.Ceil(best - eps*(1+math.Abs(best)))), true
}
