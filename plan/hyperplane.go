package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// reach is what the planner knows of one reference: its offsets di = i - I
// and dj = j - J as affine forms in i, j and the reduction variables in
// scope (contract v2 §7.3: a reference over a reduction variable covers a
// range of offsets), the ranges of i and j where it can be read (the grid,
// narrowed by the cases before it and the conditions that guard it), and
// how to bound what is not linear.
type reach struct {
	dep    *Dependency
	di, dj analysis.Affine
	ok     bool // both forms were written without overflow
	never  bool // no cell ever evaluates the reference
	i, j   analysis.Range
	planes []halfPlane // what the conditions on the way say of i and j
	bound  func(v *ir.Var) (lo, hi analysis.Affine, ok bool)
	rows   int64
	cols   int64
	// three: the reach over a 3-D grid's own axes (reaches3): di is the
	// offset along k, dm along the user's i, dj along the user's j; i, m
	// and j are their ranges, a box (planes are not used).
	three bool
	dm    analysis.Affine
	m     analysis.Range
}

// reaches derives the reach of every reference of pl.Deps in p, noting in
// pl.DataBound where the input values bound one (now or when a reach is
// asked later).
func reaches(p *ir.Problem, pl *Plan) []reach { return reachesIn(p, pl, false) }

// reaches3 is reaches over a 3-D grid's three axes k, i, j (the user's,
// from each reference's I and CellRef.Sub3), for the 3-D hyperplanes t =
// a*k + b*i + c*j. Where the flat column J = i*C + j is one axis, a read of
// cell[k][i-1][j] is C columns back; over the three axes it is one step
// back along i.
func reaches3(p *ir.Problem, pl *Plan) []reach { return reachesIn(p, pl, true) }

func reachesIn(p *ir.Problem, pl *Plan, three bool) []reach {
	deps := pl.Deps
	bounds := analysis.NewInputBounds(p)
	w := &analysis.Walker{Config: analysis.Config{
		Failure: analysis.Stops, Rows: p.Rows, Cols: p.Cols, Refine: true,
		Input: func(n *ir.Load, idx []analysis.Range, inside bool) analysis.Range {
			pl.DataBound = true
			return bounds.Load(n, idx, inside)
		},
	}}
	envs := refEnvs(p, w)
	out := make([]reach, len(deps))
	for n := range deps {
		d := &deps[n]
		at, seen := envs[d.Ref]
		en := at.en
		r := &out[n]
		r.dep, r.rows, r.cols, r.three = d, p.Rows, p.Cols, three
		if !seen || en.IsEmpty() {
			r.never, r.ok = true, true
			continue
		}
		opaque := func(e ir.Expr) analysis.Range {
			if !e.Type().IsInteger() {
				return analysis.Full()
			}
			return w.Range(e, en)
		}
		if three {
			r.reach3(d.Ref, en, p.Mid, p.Inner, opaque)
			continue
		}
		// Over a table's cases the column is the user's (refAt.cols).
		r.i, r.j, r.planes = en.I, at.cols.User(en.J), at.planes
		if _, ok := polygonExtremum(0, 0, r.i, r.j, r.planes, false); !ok {
			r.never, r.ok = true, true
			continue
		}
		col := readColumn(d.Ref, w, en)
		I, ok1 := analysis.AffineIn(d.Ref.I, opaque, at.cols)
		J, ok2 := analysis.AffineIn(col, opaque, at.cols)
		di, ok3 := analysis.Affine{I: 1, Rest: analysis.Point(0)}.Add(I, -1)
		dj, ok4 := at.cols.Cell().Add(J, -1)
		r.di, r.dj, r.ok = di, dj, ok1 && ok2 && ok3 && ok4
		r.bound = func(v *ir.Var) (lo, hi analysis.Affine, ok bool) {
			if v.Reduce == nil {
				return lo, hi, false
			}
			lo, ok1 := analysis.AffineIn(v.Reduce.Lo, opaque, at.cols)
			hi, ok2 := analysis.AffineIn(v.Reduce.Hi, opaque, at.cols)
			return lo, hi, ok1 && ok2
		}
	}
	return out
}

// reach3 fills r over a 3-D grid's axes: k's range is en's rows, i's and
// j's those of the flat columns en allows (J / C, and J % C where J stays
// within one plane row; every j otherwise).
func (r *reach) reach3(ref *ir.CellRef, en analysis.Env, mid, inner int64, opaque analysis.Opaque) {
	r.three = true
	cols := analysis.Columns{Inner: inner}
	lo, hi := max(en.J.Lo, 0), min(en.J.Hi, mid*inner-1)
	if lo > hi || en.I.IsEmpty() {
		r.never, r.ok = true, true
		return
	}
	r.i = en.I
	r.m = analysis.Span(lo/inner, hi/inner)
	r.j = analysis.Span(0, inner-1)
	if lo/inner == hi/inner {
		r.j = analysis.Span(lo%inner, hi%inner)
	}
	if ref.Sub3[0] == nil || ref.Sub3[1] == nil {
		return // r.ok stays false: nothing is known of the reference
	}
	K, ok1 := analysis.AffineIn(ref.I, opaque, cols)
	I, ok2 := analysis.AffineIn(ref.Sub3[0], opaque, cols)
	J, ok3 := analysis.AffineIn(ref.Sub3[1], opaque, cols)
	dk, ok4 := analysis.Affine{I: 1, Rest: analysis.Point(0)}.Add(K, -1)
	dm, ok5 := analysis.Affine{M: 1, Rest: analysis.Point(0)}.Add(I, -1)
	dj, ok6 := analysis.Affine{J: 1, Rest: analysis.Point(0)}.Add(J, -1)
	r.di, r.dm, r.dj = dk, dm, dj
	r.ok = ok1 && ok2 && ok3 && ok4 && ok5 && ok6
	r.bound = func(v *ir.Var) (lo, hi analysis.Affine, ok bool) {
		if v.Reduce == nil {
			return lo, hi, false
		}
		lo, ok1 := analysis.AffineIn(v.Reduce.Lo, opaque, cols)
		hi, ok2 := analysis.AffineIn(v.Reduce.Hi, opaque, cols)
		return lo, hi, ok1 && ok2
	}
}

// readColumn is the column ref reads where en holds: its J, or for a
// reference of a 3-D grid whose guard (sema's lowering: `b` and `c` of
// cell[a][b][c] inside their sides, else a column outside the grid that
// fails the read) holds wherever en does, the column of the guard's true
// branch — cell[k][i][j-1] under `j == 0` false is J - 1, a constant
// offset, and the read that fails is never made.
func readColumn(ref *ir.CellRef, w *analysis.Walker, en analysis.Env) ir.Expr {
	s, ok := ref.J.(*ir.Select)
	if !ok || ref.Mid == 0 || w.Decide(s.Cond, en) != analysis.True {
		return ref.J
	}
	return s.Then
}

// refEnvs maps every cell reference of the recurrence to what is known
// where it is read: inside the reductions that enclose it, in the case that
// holds it (earlier cases false, its own condition true) and under the
// conditions of the ?:, && and || that guard it.
func refEnvs(p *ir.Problem, w *analysis.Walker) map[*ir.CellRef]refAt {
	out := map[*ir.CellRef]refAt{}
	with := func(planes []halfPlane, more ...halfPlane) []halfPlane {
		return append(append([]halfPlane(nil), planes...), more...)
	}
	var visit func(e ir.Expr, at refAt)
	visit = func(e ir.Expr, at refAt) {
		switch n := e.(type) {
		case nil:
			return
		case *ir.CellRef:
			if old, ok := out[n]; ok {
				// One node is reached once; this only keeps the map safe.
				at = refAt{hullEnv(old.en, at.en), nil, at.cols}
			}
			out[n] = at
			visit(n.I, at)
			visit(n.J, at)
			return
		case *ir.Reduce:
			visit(n.Lo, at)
			visit(n.Hi, at)
			in := refAt{w.BodyEnv(n, at.en), at.planes, at.cols}
			if h, ok := reductionPlane(n, at.cols); ok {
				in.planes = with(at.planes, h)
			}
			visit(n.Body, in)
			return
		case *ir.Select:
			visit(n.Cond, at)
			visit(n.Then, refAt{w.Assume(n.Cond, true, at.en), with(at.planes, conditionPlanes(n.Cond, true, at.cols)...), at.cols})
			visit(n.Else, refAt{w.Assume(n.Cond, false, at.en), with(at.planes, conditionPlanes(n.Cond, false, at.cols)...), at.cols})
			return
		case *ir.Binary:
			switch n.Op {
			case ir.OpAnd, ir.OpOr:
				visit(n.X, at)
				truth := n.Op == ir.OpAnd
				visit(n.Y, refAt{w.Assume(n.X, truth, at.en), with(at.planes, conditionPlanes(n.X, truth, at.cols)...), at.cols})
				return
			}
		}
		for _, c := range children(e) {
			visit(c, at)
		}
	}
	at := refAt{en: analysis.NewEnv(analysis.Span(0, p.Rows-1), analysis.Span(0, p.Cols-1))}
	if T := int64(len(p.Tables)); T > 1 {
		// Several tables: a case of table t (its condition starts with
		// the lowering's J % T == t test, ir.SplitTableTest) sees the
		// user's column (analysis.Columns), and its planes come from its
		// own condition and those of the table's earlier cases. A case no
		// one table owns (a later stage's, for every table) sees the flat
		// column, with the planes of every earlier case as one table
		// would; what its condition being false says of i alone holds in
		// every table's terms too. The walker's env follows the flat list
		// of cases as before.
		tabled := make([][]halfPlane, T)
		var flat []halfPlane
		for k, c := range p.Cases {
			t, own, owned := ir.SplitTableTest(c.Cond, int(T), k == len(p.Cases)-1)
			in := refAt{en: at.en}
			if owned {
				in.cols = analysis.Columns{T: T, Table: int64(t)}
				in.planes = tabled[t]
			} else {
				in.planes = flat
			}
			if c.Cond != nil {
				visit(c.Cond, in)
				in.en = w.Assume(c.Cond, true, at.en)
				at.en = w.Assume(c.Cond, false, at.en)
				if owned {
					if own != nil {
						in.planes = with(tabled[t], conditionPlanes(own, true, in.cols)...)
						tabled[t] = with(tabled[t], conditionPlanes(own, false, in.cols)...)
					}
				} else {
					in.planes = with(flat, conditionPlanes(c.Cond, true, in.cols)...)
					for _, h := range conditionPlanes(c.Cond, false, in.cols) {
						if h.J == 0 {
							for x := range tabled {
								tabled[x] = with(tabled[x], h)
							}
						}
					}
				}
				flat = with(flat, conditionPlanes(c.Cond, false, analysis.Columns{})...)
			}
			visit(c.Value, in)
			visit(c.Emit, in)
		}
		return out
	}
	for _, c := range p.Cases {
		in := at
		if c.Cond != nil {
			visit(c.Cond, at)
			in = refAt{w.Assume(c.Cond, true, at.en), with(at.planes, conditionPlanes(c.Cond, true, at.cols)...), at.cols}
			at = refAt{w.Assume(c.Cond, false, at.en), with(at.planes, conditionPlanes(c.Cond, false, at.cols)...), at.cols}
		}
		visit(c.Value, in)
		visit(c.Emit, in)
	}
	return out
}

// refAt is what is known where a reference is read. The planes are over
// i and the column cols sees: the user's column in a case of one of
// several tables (analysis.Columns), whose offsets are linear in it.
type refAt struct {
	en     analysis.Env
	planes []halfPlane
	cols   analysis.Columns
}

// hullEnv is what holds at a reference reached in a and in b (a
// reference is one node, reached once; this only keeps the map safe).
func hullEnv(a, b analysis.Env) analysis.Env {
	switch {
	case a.IsEmpty():
		return b
	case b.IsEmpty():
		return a
	}
	return analysis.NewEnv(a.I.Hull(b.I), a.J.Hull(b.J))
}

// extremum is the least (or, with most, the greatest) value of f over every
// point the reference can be read at: each reduction variable is replaced
// by the bound that extremises f (innermost first), then i and j by the
// corner of the grid. ok is false where it is unbounded or unknown. A
// reduction over an empty range reads nothing, so taking its bounds as if
// the range were not empty only makes the answer safer.
func (r *reach) extremum(f analysis.Affine, most bool) (int64, bool) {
	if !r.ok {
		return 0, false
	}
	if r.never {
		// Never read: nothing to order. Say "as good as can be".
		if most {
			return 0, true
		}
		return 1, true
	}
	for steps := 0; len(f.Red) > 0; steps++ {
		if steps > 64 {
			return 0, false
		}
		v := r.innermost(f)
		if v == nil {
			return 0, false
		}
		lo, hi, ok := r.bound(v)
		if !ok {
			return 0, false
		}
		c := f.Red[v]
		sub := lo
		if (c > 0) == most {
			sub = hi
		}
		sc, ok1 := sub.Scale(c)
		g, ok2 := f.Without(v).Add(sc, 1)
		if !ok1 || !ok2 {
			return 0, false
		}
		f = g
	}
	if f.Rest.IsFull() || f.Rest.IsEmpty() {
		return 0, false
	}
	ij, feasible := polygonExtremum(f.I, f.J, r.i, r.j, r.planes, most)
	if feasible && r.three && f.M != 0 {
		// The middle axis: the box's side that extremises it.
		x := r.m.Lo
		if (f.M > 0) == most {
			x = r.m.Hi
		}
		mx, ok1 := ir.Mul64(f.M, x)
		sum, ok2 := ir.Add64(ij, mx)
		if !ok1 || !ok2 {
			return 0, false
		}
		ij = sum
	}
	if !feasible {
		if most {
			return 0, true
		}
		return 1, true
	}
	total := []int64{f.K, ij}
	if most {
		total = append(total, f.Rest.Hi)
	} else {
		total = append(total, f.Rest.Lo)
	}
	s := int64(0)
	for _, x := range total {
		var ok bool
		if s, ok = ir.Add64(s, x); !ok {
			return 0, false
		}
	}
	return s, true
}

// innermost is a reduction variable of f that no other variable of f has
// in its bounds (so substituting its bounds brings in only outer ones).
func (r *reach) innermost(f analysis.Affine) *ir.Var {
	vars := f.Vars()
	for _, v := range vars {
		inner := false
		for _, w := range vars {
			if w == v || w.Reduce == nil {
				continue
			}
			lo, hi, ok := r.bound(w)
			if !ok {
				continue
			}
			if _, in := lo.Red[v]; in {
				inner = true
			}
			if _, in := hi.Red[v]; in {
				inner = true
			}
		}
		if !inner {
			return v
		}
	}
	return nil
}

// step is t(cell) - t(referenced cell) for hyperplane h, as an affine form.
func (r *reach) step(h Hyperplane) (analysis.Affine, bool) {
	if r.three != h.Three() {
		return analysis.Affine{}, false // the reach of the other axes
	}
	a, ok1 := r.di.Scale(h.A)
	b, ok2 := r.dj.Scale(h.B)
	s, ok3 := a.Add(b, 1)
	if !r.three {
		return s, ok1 && ok2 && ok3
	}
	m, ok4 := r.dm.Scale(h.M)
	s, ok5 := s.Add(m, 1)
	return s, ok1 && ok2 && ok3 && ok4 && ok5
}

// earlier reports whether the reference always reads a cell of an earlier
// front under h, and how far back it may reach (ok false: unbounded).
func (r *reach) earlier(h Hyperplane) (yes bool, far int64, bounded bool) {
	s, ok := r.step(h)
	if !ok {
		return false, 0, false
	}
	lo, ok := r.extremum(s, false)
	if !ok || lo < 1 {
		return false, 0, false
	}
	hi, ok := r.extremum(s, true)
	return true, hi, ok
}

// offsetRange is the least and greatest offset along one axis, for reports.
func (r *reach) offsetRange(f analysis.Affine) (lo, hi int64, loOK, hiOK bool) {
	lo, loOK = r.extremum(f, false)
	hi, hiOK = r.extremum(f, true)
	return
}

// candidates are the hyperplanes the planner tries: small coprime
// coefficients, fewest fronts first (more cells per front), then the
// named schedules, then a fixed order. With T > 1 tables (flat columns J =
// j*T + t) it adds t = T*a*i + b*J for b = ±1, the user's a*i + b*j times
// T plus b times the table: the user's interval order is t = J - T*i,
// which takes the tables of a cell in file order.
func candidates(rows, cols, tables int64) []Hyperplane {
	var hs []Hyperplane
	for a := int64(-3); a <= 3; a++ {
		for b := int64(-3); b <= 3; b++ {
			if (a == 0 && b == 0) || gcd(abs64(a), abs64(b)) != 1 {
				continue
			}
			hs = append(hs, Hyperplane{A: a, B: b})
		}
	}
	if tables > 1 {
		for a := int64(-3); a <= 3; a++ {
			for _, b := range []int64{-1, 1} {
				if h := (Hyperplane{A: tables * a, B: b}); abs64(h.A) > 3 {
					hs = append(hs, h)
				}
			}
		}
	}
	rank := func(h Hyperplane) int {
		// An axis of one cell has no order to give: a coefficient on it
		// would only rename the same fronts (a 1 x N grid's t = j).
		switch {
		case rows == 1 && h == Hyperplane{A: 0, B: 1}, cols == 1 && h == Hyperplane{A: 1, B: 0}:
			return -1
		}
		if tables > 1 && h == (Hyperplane{A: -tables, B: 1}) {
			return 0
		}
		switch h {
		case Hyperplane{A: -1, B: 1}:
			return 0
		case Hyperplane{A: 1, B: 0}, Hyperplane{A: 0, B: 1}:
			return 1
		case Hyperplane{A: 1, B: 1}:
			return 2
		}
		return 3 + int(abs64(h.A)+abs64(h.B))
	}
	sortByFronts(hs, rows, cols, rank)
	return hs
}

// candidates3 are the 3-D hyperplanes t = a*k + b*i + c*j of a K x R x C
// grid (sema's rows x cols flat grid, cols = R*C) the planner tries, with
// small coprime coefficients, fewest fronts first; on a tie the k-planes
// (1, 0, 0), in-plane interval order (0, -1, 1), then the smaller
// coefficients.
func candidates3(rows, cols, inner int64) []Hyperplane {
	var hs []Hyperplane
	for a := int64(-3); a <= 3; a++ {
		for m := int64(-3); m <= 3; m++ {
			for b := int64(-3); b <= 3; b++ {
				if gcd(gcd(abs64(a), abs64(m)), abs64(b)) != 1 {
					continue
				}
				hs = append(hs, Hyperplane{A: a, M: m, B: b, Inner: inner})
			}
		}
	}
	sortByFronts(hs, rows, cols, func(h Hyperplane) int {
		switch {
		case h.A == 1 && h.M == 0 && h.B == 0:
			return 0
		case h.A == 0 && h.M == -1 && h.B == 1:
			return 1
		}
		return 2 + int(abs64(h.A)+abs64(h.M)+abs64(h.B))
	})
	return hs
}

// sortByFronts orders hs by their number of fronts over a rows x cols
// grid, fewest first (more cells a front), and by rank on a tie.
func sortByFronts(hs []Hyperplane, rows, cols int64, rank func(Hyperplane) int) {
	fronts := func(h Hyperplane) int64 {
		lo, hi := h.Range(rows, cols)
		return hi - lo + 1
	}
	sort.SliceStable(hs, func(x, y int) bool {
		fx, fy := fronts(hs[x]), fronts(hs[y])
		if fx != fy {
			return fx < fy
		}
		return rank(hs[x]) < rank(hs[y])
	})
}

// planeCandidates are every hyperplane the planner tries on p's grid, in
// order: on a 3-D grid those over the flat column (candidates) merged with
// those over the three axes (candidates3) by their number of fronts, the
// flat one first on a tie (the same fronts, enumerated more simply).
func planeCandidates(p *ir.Problem) []Hyperplane {
	hs := candidates(p.Rows, p.Cols, int64(len(p.Tables)))
	if p.Dims != 3 || p.Inner <= 0 {
		return hs
	}
	h3 := candidates3(p.Rows, p.Cols, p.Inner)
	fronts := func(h Hyperplane) int64 {
		lo, hi := h.Range(p.Rows, p.Cols)
		return hi - lo + 1
	}
	out := make([]Hyperplane, 0, len(hs)+len(h3))
	for len(hs) > 0 || len(h3) > 0 {
		if len(h3) == 0 || len(hs) > 0 && fronts(hs[0]) <= fronts(h3[0]) {
			out, hs = append(out, hs[0]), hs[1:]
		} else {
			out, h3 = append(out, h3[0]), h3[1:]
		}
	}
	return out
}

// planeReaches holds the reaches of a problem's references over the
// grid's two axes and, on a 3-D grid, over its three; of picks those a
// hyperplane is tested against.
type planeReaches struct{ flat, three []reach }

func newPlaneReaches(p *ir.Problem, pl *Plan) planeReaches {
	rs := planeReaches{flat: reaches(p, pl)}
	if p.Dims == 3 && p.Inner > 0 {
		rs.three = reaches3(p, pl)
	}
	return rs
}

func (rs planeReaches) of(h Hyperplane) []reach {
	if h.Three() {
		return rs.three
	}
	return rs.flat
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// hyperplaneFits tests h against every reference; on failure it returns
// the first reference that breaks it. With checks, a reference whose step
// has a data-dependent part that the loaded data does not bound well enough
// is accepted as checked (Dependency.Checked: the executors verify each
// such read at run time) when nothing else is wrong with it.
func hyperplaneFits(rs []reach, h Hyperplane, checks bool) (ok bool, far int64, bounded bool, checked []int, breaker *reach) {
	bounded = true
	for n := range rs {
		yes, f, b := rs[n].earlier(h)
		if !yes {
			if checks && rs[n].checkable(h) {
				checked = append(checked, n)
				bounded = false
				continue
			}
			return false, 0, false, nil, &rs[n]
		}
		far = max(far, f)
		bounded = bounded && b
	}
	return true, far, bounded, checked, nil
}

// checkable reports whether the reference's order under h depends on data
// only: its step has a data-dependent part, and the linear part alone is at
// least 1 somewhere (so that some data makes the read legal).
func (r *reach) checkable(h Hyperplane) bool {
	s, ok := r.step(h)
	if !ok || s.IsLinear() {
		return false
	}
	s.Rest = analysis.Point(0)
	hi, ok := r.extremum(s, true)
	return !ok || hi >= 1
}

// chooseHyperplane finds the schedule of a recurrence that no v1 schedule
// runs (a reference over a range of offsets), or the one forced by
// `schedule: interval` / `schedule: t = EXPR` / a v1 name whose test failed.
func chooseHyperplane(p *ir.Problem, pl *Plan, forced *Hyperplane, forcedText string) error {
	all := newPlaneReaches(p, pl)
	rs := all.flat
	accept := func(h Hyperplane, far int64, bounded bool, checked []int) {
		rs := all.of(h)
		for _, n := range checked {
			rs[n].dep.Checked = true
		}
		pl.Schedule = Hyperplanar
		if isInterval(p, h) {
			pl.Schedule = Interval
		}
		pl.T, pl.Direction = h, Forward
		pl.Transposed = false
		for _, d := range pl.Deps {
			pl.Transposed = pl.Transposed || (p.Rows > 1 && d.Column)
		}
		lo, hi := h.Range(p.Rows, p.Cols)
		pl.Fronts = hi - lo + 1
		pl.Serial = len(checked) == 0 && serialFits(all.flat, p)
		pl.SerialLag = serialLag(p, pl.Deps)
		if bounded {
			pl.Reach = far
		} else {
			pl.Reach = pl.Fronts - 1
		}
		pl.ReachBounded = bounded
	}
	if forced != nil {
		ok, far, bounded, checked, br := hyperplaneFits(all.of(*forced), *forced, true)
		if !ok {
			var errs source.ErrorList
			what := forcedText
			if what != forced.In(p) {
				what += " (" + forced.In(p) + ")"
			}
			errs.Add(br.dep.Ref.Pos, "`schedule: %s` cannot run this recurrence: %s", what, br.why(*forced))
			return errs
		}
		accept(*forced, far, bounded, checked)
		pl.Reason = fmt.Sprintf("forced by `schedule: %s`: fronts %s, every reference reads an earlier front", forcedText, forced.In(p))
		return nil
	}
	hs := planeCandidates(p)
	for _, checks := range []bool{false, true} {
		for _, h := range hs {
			rs := all.of(h)
			ok, far, bounded, checked, _ := hyperplaneFits(rs, h, checks)
			if !ok {
				continue
			}
			accept(h, far, bounded, checked)
			why := "some reference reaches over a range of cells"
			if !overRange(rs) {
				why = "no rotating sweep fits the references' offsets"
			}
			pl.Reason = fmt.Sprintf("%s; the fronts %s are the first hyperplane that puts every reference on an earlier front: the cells of one front are independent, and the whole grid stays in memory", why, h.In(p))
			if isInterval(p, h) {
				pl.Reason = "some reference reaches over a range of cells; interval order (t = j - i, by increasing interval length) puts every reference on an earlier front: the cells of one front are independent, and the whole grid stays in memory"
				if T := len(p.Tables); T > 1 {
					pl.Reason = fmt.Sprintf("some reference reaches over a range of cells; interval order (by increasing interval length j - i, the %d tables of a cell in file order: %s) puts every reference on an earlier front: the cells of one front are independent, and the whole grid stays in memory", T, h.In(p))
				}
			}
			if len(checked) > 0 {
				var names []string
				for _, n := range checked {
					names = append(names, rs[n].dep.Ref.Text)
				}
				pl.Reason += fmt.Sprintf("; the loaded data does not prove that %s reads an earlier front, so every such read is checked at run time", strings.Join(names, ", "))
			}
			return nil
		}
	}
	if all.three != nil {
		return noSchedule(all.three, candidates3(p.Rows, p.Cols, p.Inner), p, fmt.Sprintf("coefficients -%d..%d", maxSmallCoefficient, maxSmallCoefficient))
	}
	// Coefficients past 3 (cell[i-1][j+4] beside cell[i][j-1] needs t =
	// 5*i + j): tried only where no small one fits, so that they never
	// replace a plan the small ones give.
	far := stretched(p, pl)
	for _, checks := range []bool{false, true} {
		for _, h := range far {
			ok, reach, bounded, checked, _ := hyperplaneFits(all.of(h), h, checks)
			if !ok {
				continue
			}
			accept(h, reach, bounded, checked)
			pl.Reason = fmt.Sprintf("a reference reads %d or more cells across the order of the small coefficients; the fronts %s are the first hyperplane that puts every reference on an earlier front: the cells of one front are independent, and the whole grid stays in memory", maxSmallCoefficient+1, h.In(p))
			if len(checked) > 0 {
				pl.Reason += "; some reads are checked at run time"
			}
			return nil
		}
	}
	tried := fmt.Sprintf("coefficients -%d..%d", maxSmallCoefficient, maxSmallCoefficient)
	if len(far) > 0 {
		top := abs64(far[len(far)-1].A) + abs64(far[len(far)-1].B) - 1
		tried += fmt.Sprintf(", or one of them +-1 and the other up to +-%d", top)
	}
	return noSchedule(rs, append(candidates(p.Rows, p.Cols, int64(len(p.Tables))), far...), p, tried)
}

// maxSmallCoefficient bounds the coefficients of the hyperplanes the
// planner tries first (candidates).
const maxSmallCoefficient = 3

// maxStretch bounds the larger coefficient of the hyperplanes tried after
// the small ones (stretched).
const maxStretch = 1024

// stretched are the 2-D hyperplanes t = a*i + b*j with one coefficient
// +-1 and the other past maxSmallCoefficient, up to one more than the
// farthest constant offset of pl's references (at most maxStretch): a
// reference k columns ahead in the row above needs a >= k+1 with b = 1.
// Fewest fronts first.
func stretched(p *ir.Problem, pl *Plan) []Hyperplane {
	far := int64(0)
	for _, d := range pl.Deps {
		for _, r := range []analysis.Range{d.RangeI, d.RangeJ} {
			if r.IsEmpty() {
				continue
			}
			if r.Lo > math.MinInt64 {
				far = max(far, abs64(r.Lo))
			}
			if r.Hi < math.MaxInt64 {
				far = max(far, abs64(r.Hi))
			}
		}
	}
	top := min(far+1, maxStretch)
	var hs []Hyperplane
	for m := int64(maxSmallCoefficient + 1); m <= top; m++ {
		for _, s := range []int64{1, -1} {
			for _, u := range []int64{1, -1} {
				hs = append(hs, Hyperplane{A: s * m, B: u}, Hyperplane{A: u, B: s * m})
			}
		}
	}
	sortByFronts(hs, p.Rows, p.Cols, func(h Hyperplane) int { return int(abs64(h.A) + abs64(h.B)) })
	return hs
}

// serialFits reports whether the grid's row-major order computes every
// cell after all the cells it reads (Plan.Serial): the hyperplane t =
// cols*i + j, whose fronts are single cells in that order, fits without
// a check at run time.
func serialFits(rs []reach, p *ir.Problem) bool {
	if p.Cols <= 0 {
		return false
	}
	ok, _, _, checked, _ := hyperplaneFits(rs, Hyperplane{A: p.Cols, B: 1}, false)
	return ok && len(checked) == 0
}

// serialLag is Plan.SerialLag: the farthest right of its cell a reference
// that may read an earlier row reads; -1 where that is unbounded, half a
// row or more (a row would wait for most of the one before), or the grid
// has one row.
func serialLag(p *ir.Problem, deps []Dependency) int64 {
	if p.Rows <= 1 {
		return -1
	}
	lag := int64(0)
	for _, d := range deps {
		if d.RangeI.Hi < 1 {
			continue // reads its own row only (or nothing)
		}
		if d.RangeJ.Lo == math.MinInt64 || d.RangeJ.Lo == math.MinInt64+1 {
			return -1
		}
		lag = max(lag, -d.RangeJ.Lo)
	}
	if lag >= p.Cols/2 {
		return -1
	}
	return lag
}

// overRange reports whether some reference of rs reaches over a range.
func overRange(rs []reach) bool {
	for n := range rs {
		if rs[n].overRange() {
			return true
		}
	}
	return false
}

// isInterval reports whether h is interval order: t = j - i, or over
// the flat columns of T tables t = J - T*i (candidates).
func isInterval(p *ir.Problem, h Hyperplane) bool {
	if h.Three() {
		return h.A == 0 && h.M == -1 && h.B == 1
	}
	T := int64(len(p.Tables))
	return h == (Hyperplane{A: -1, B: 1}) || (T > 1 && h == Hyperplane{A: -T, B: 1})
}

// why says why the reference breaks h.
func (r *reach) why(h Hyperplane) string {
	s, ok := r.step(h)
	if ok && isZero(s) {
		return r.dep.Ref.Text + " reads a cell of its own front"
	}
	lo, ok := r.extremum(s, false)
	if !ok {
		return fmt.Sprintf("%s may read a cell of a front that is not earlier (its offset %s)", r.dep.Ref.Text, r.offsetText())
	}
	if lo == 0 {
		return fmt.Sprintf("%s may read a cell of its own front (offset %s)", r.dep.Ref.Text, r.offsetText())
	}
	fronts := "fronts"
	if lo == -1 {
		fronts = "front"
	}
	return fmt.Sprintf("%s may read a cell %d %s ahead (offset %s)", r.dep.Ref.Text, -lo, fronts, r.offsetText())
}

// axisRange is offsetRange as an analysis.Range, unbounded sides open.
func (r *reach) axisRange(f analysis.Affine) analysis.Range {
	out := analysis.Full()
	lo, hi, lok, hok := r.offsetRange(f)
	if lok {
		out.Lo = lo
	}
	if hok {
		out.Hi = hi
	}
	return out
}

// offsetText writes the reference's offsets, e.g. "di = 0, dj in 1..16".
func (r *reach) offsetText() string {
	one := func(name string, f analysis.Affine) string {
		lo, hi, lok, hok := r.offsetRange(f)
		switch {
		case lok && hok && lo == hi:
			return fmt.Sprintf("%s = %d", name, lo)
		case lok && hok:
			return fmt.Sprintf("%s in %d..%d", name, lo, hi)
		case lok:
			return fmt.Sprintf("%s >= %d", name, lo)
		case hok:
			return fmt.Sprintf("%s <= %d", name, hi)
		}
		return name + " unknown"
	}
	if r.three {
		return one("dk", r.di) + ", " + one("di", r.dm) + ", " + one("dj", r.dj)
	}
	if r.rows == 1 {
		return one("dj", r.dj)
	}
	return one("di", r.di) + ", " + one("dj", r.dj)
}

// noSchedule explains why no hyperplane runs the recurrence: a reference no
// hyperplane can order by itself, else two that no hyperplane orders
// together.
func noSchedule(rs []reach, hs []Hyperplane, p *ir.Problem, tried string) error {
	order := "t = a*i + b*j"
	if p.Dims == 3 {
		order = "t = a*k + b*i + c*j"
	}
	fits := make([][]bool, len(rs))
	for n := range rs {
		fits[n] = make([]bool, len(hs))
		any := false
		for k, h := range hs {
			yes, _, _ := rs[n].earlier(h)
			fits[n][k] = yes
			any = any || yes
		}
		if !any {
			var errs source.ErrorList
			errs.Add(rs[n].dep.Ref.Pos, "no schedule can run this recurrence: %s", rs[n].alone())
			return errs
		}
	}
	for a := range rs {
		for b := a + 1; b < len(rs); b++ {
			both := false
			for k := range hs {
				both = both || (fits[a][k] && fits[b][k])
			}
			if !both {
				var errs source.ErrorList
				errs.Add(rs[b].dep.Ref.Pos, "no schedule can run this recurrence: %s (offset %s) and %s (line %d, offset %s) need the fronts to advance in opposite directions; no order %s computes both cells before the cell that reads them",
					rs[b].dep.Ref.Text, rs[b].offsetText(), rs[a].dep.Ref.Text, rs[a].dep.Ref.Pos.Line, rs[a].offsetText(), order)
				return errs
			}
		}
	}
	var texts []string
	for _, r := range rs {
		texts = append(texts, r.dep.Ref.Text+" ("+r.offsetText()+")")
	}
	var errs source.ErrorList
	errs.Add(rs[0].dep.Ref.Pos, "no schedule can run this recurrence: no order %s (%s) puts all of %s on earlier fronts", order, tried, strings.Join(texts, ", "))
	return errs
}

// alone says why no hyperplane orders one reference.
func (r *reach) alone() string {
	if !r.ok || (r.di.Rest.IsFull() && r.dj.Rest.IsFull()) {
		return r.dep.Ref.Text + " has data-dependent offsets along both axes; nothing proves it reads a finished cell"
	}
	if isZero(r.di) && isZero(r.dj) {
		return r.dep.Ref.Text + " reads the cell being computed"
	}
	return fmt.Sprintf("%s (offset %s) may read the cell being computed or cells on every side of it", r.dep.Ref.Text, r.offsetText())
}

func isZero(a analysis.Affine) bool {
	return a.I == 0 && a.J == 0 && a.K == 0 && len(a.Red) == 0 && a.IsLinear()
}

// overRange reports whether the reference's index uses a reduction
// variable (it covers a range of offsets).
func (r *reach) overRange() bool { return len(r.di.Red) > 0 || len(r.dj.Red) > 0 }

// walksColumn reports whether the reference's row moves with a reduction
// variable while its column does not (Dependency.Column).
func (r *reach) walksColumn() bool {
	if r.never || !r.ok {
		return false
	}
	return len(r.di.Red) > 0 && len(r.dj.Red) == 0 && r.dj.IsLinear()
}
