package plan

import (
	"fmt"
	"sort"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// MaxAnswerCells bounds how many cells an `answer:` expression that is not a
// plain cell or rectangle reduction may read: executors capture them one by
// one while the grid is swept.
const MaxAnswerCells = 1 << 20

// Analyze derives the plan of a checked problem. Errors are a source.ErrorList
// positioned at the `.dp` line at fault.
func Analyze(p *ir.Problem) (*Plan, error) {
	switch Kind(p.Schedule) {
	case "", Rows, Cols, Wavefront, Interval, scheduleExpr:
	default:
		// A schedule the checker accepts that sweeps no grid selects a
		// solver the engine runs instead: nothing here to plan.
		var errs source.ErrorList
		errs.Add(p.SchedulePos, "`schedule: %s` sweeps no grid: it has no plan", p.Schedule)
		return nil, errs
	}
	pl := &Plan{}
	for _, ref := range p.CellRefs {
		d := Dependency{Ref: ref}
		if c, ok := analysis.Offset(ref.I, ir.VarI); ok {
			d.DI = &c
		}
		if c, ok := analysis.Offset(ref.J, ir.VarJ); ok {
			d.DJ = &c
		}
		pl.Deps = append(pl.Deps, d)
	}
	for _, r := range reaches(p, pl) {
		r.dep.RangeI = r.axisRange(r.di)
		r.dep.RangeJ = r.axisRange(r.dj)
		r.dep.Column = r.walksColumn()
	}
	if p.Dims == 3 && p.Inner > 0 {
		for _, r := range reaches3(p, pl) {
			r.dep.Range3 = [3]analysis.Range{r.axisRange(r.di), r.axisRange(r.dm), r.axisRange(r.dj)}
		}
	}
	if err := choose(p, pl); err != nil {
		return nil, err
	}
	cellWavefront(p, pl)
	if err := setPrev(p, pl); err != nil {
		return nil, err
	}
	pl.Memory = memory(p, pl)
	ans, err := answerSpec(p, pl)
	if err != nil {
		return nil, err
	}
	pl.Answer = ans
	pl.Special = recognise(p, pl)
	return pl, nil
}

// schedTest says whether one schedule/direction can run the dependencies and,
// if not, which reference breaks it and why.
type schedTest struct {
	kind    Kind
	dir     Direction
	ok      bool
	breaker *Dependency
	why     string
}

func testSchedule(kind Kind, dir Direction, deps []Dependency) schedTest {
	t := schedTest{kind: kind, dir: dir, ok: true}
	sign := int64(1)
	if dir == Backward {
		sign = -1
	}
	for i := range deps {
		d := &deps[i]
		var bad string
		switch kind {
		case Rows:
			switch {
			case d.DI == nil:
				bad = "has a data-dependent row"
			case *d.DI*sign < 1:
				bad = fmt.Sprintf("reads row %s, not an earlier row", relText("i", -*d.DI))
			}
		case Cols:
			switch {
			case d.DJ == nil:
				bad = "has a data-dependent column"
			case *d.DJ*sign < 1:
				bad = fmt.Sprintf("reads column %s, not an earlier column", relText("j", -*d.DJ))
			}
		case Wavefront:
			switch {
			case d.DI == nil || d.DJ == nil:
				bad = "has a data-dependent offset"
			case *d.DI == 0 && *d.DJ == 0:
				bad = "reads the cell being computed"
			case *d.DI*sign < 0 || *d.DJ*sign < 0:
				if dir == Forward {
					bad = "reads a cell below or to the right"
				} else {
					bad = "reads a cell above or to the left"
				}
			}
		}
		if bad != "" {
			t.ok, t.breaker, t.why = false, d, bad
			return t
		}
	}
	return t
}

func relText(v string, c int64) string {
	switch {
	case c == 0:
		return v
	case c > 0:
		return fmt.Sprintf("%s+%d", v, c)
	}
	return fmt.Sprintf("%s-%d", v, -c)
}

// scheduleExpr is ir.Problem.Schedule for `schedule: t = EXPR`.
const scheduleExpr Kind = "t"

// v1Hyperplane is the front function of a v1 schedule.
func v1Hyperplane(k Kind, d Direction) Hyperplane {
	s := int64(1)
	if d == Backward {
		s = -1
	}
	switch k {
	case Rows:
		return Hyperplane{A: s, B: 0}
	case Cols:
		return Hyperplane{A: 0, B: s}
	}
	return Hyperplane{A: s, B: s}
}

func choose(p *ir.Problem, pl *Plan) error {
	if err := choose1(p, pl); err != nil {
		return err
	}
	if !pl.Schedule.Generic() {
		pl.T = v1Hyperplane(pl.Schedule, pl.Direction)
		lo, hi := pl.T.Range(p.Rows, p.Cols)
		pl.Fronts = hi - lo + 1
		// A grid of one row (a 1-D grid) by columns is its cells left to
		// right: the row-major order.
		pl.Serial = pl.Schedule == Cols && pl.Direction == Forward && p.Rows == 1
		pl.SerialLag = -1
	}
	return nil
}

// forcedHyperplane is the hyperplane `schedule: interval` or `schedule: t =
// EXPR` asks for.
func forcedHyperplane(p *ir.Problem) (*Hyperplane, string, error) {
	switch Kind(p.Schedule) {
	case Interval:
		if p.Dims == 3 && p.Inner > 0 {
			// Interval order in every k-plane: t = j - i.
			return &Hyperplane{A: 0, M: -1, B: 1, Inner: p.Inner}, "interval", nil
		}
		if T := int64(len(p.Tables)); T > 1 {
			// Over the flat columns of several tables (candidates).
			return &Hyperplane{A: -T, B: 1}, "interval", nil
		}
		return &Hyperplane{A: -1, B: 1}, "interval", nil
	case scheduleExpr:
		var errs source.ErrorList
		if p.Dims == 3 && p.Inner > 0 {
			// Over the user's k, i and j (J / C and J % C).
			a, ok := analysis.AffineIn(p.ScheduleExpr, nil, analysis.Columns{Inner: p.Inner})
			if !ok || len(a.Red) != 0 || !a.IsLinear() || (a.I == 0 && a.M == 0 && a.J == 0) {
				errs.Add(p.ScheduleExpr.Position(), "schedule: t = EXPR must be linear in the index variables with constant integer coefficients, e.g. `t = k + i + j`")
				return nil, "", errs
			}
			g := gcd(gcd(abs64(a.I), abs64(a.M)), abs64(a.J))
			h := Hyperplane{A: a.I / g, M: a.M / g, B: a.J / g, Inner: p.Inner}
			return &h, h.In(p), nil
		}
		// With several tables EXPR is in the user's j (J / T): a*i + b*j
		// orders the flat columns as T*a*i + b*J, the user's fronts times
		// T, a cell's tables apart by b (candidates).
		T := int64(len(p.Tables))
		a, ok := analysis.AffineIn(p.ScheduleExpr, nil, analysis.Columns{T: T})
		f, fok := a.Form()
		ok = ok && fok
		if ok && T > 1 {
			var ok1 bool
			f.I, ok1 = ir.Mul64(f.I, T)
			ok = ok && ok1
		}
		if !ok || (f.I == 0 && f.J == 0) {
			errs.Add(p.ScheduleExpr.Position(), "schedule: t = EXPR must be linear in the index variables with constant integer coefficients, e.g. `t = j - i`")
			return nil, "", errs
		}
		if p.Dims == 1 && f.J == 0 {
			errs.Add(p.ScheduleExpr.Position(), "schedule: t = EXPR must use the grid's index variable")
			return nil, "", errs
		}
		g := gcd(abs64(f.I), abs64(f.J))
		h := Hyperplane{A: f.I / g, B: f.J / g}
		return &h, h.In(p), nil
	}
	return nil, "", nil
}

func choose1(p *ir.Problem, pl *Plan) error {
	if h, text, err := forcedHyperplane(p); err != nil {
		return err
	} else if h != nil {
		return chooseHyperplane(p, pl, h, text)
	}
	if len(pl.Deps) == 0 {
		kind := Rows
		if p.Schedule != "" {
			kind = Kind(p.Schedule)
		}
		pl.Schedule, pl.Direction = kind, Forward
		pl.Reason = "the recurrence reads no other cell: every cell is independent"
		return nil
	}
	var tests []schedTest
	for _, k := range []Kind{Rows, Cols, Wavefront} {
		for _, d := range []Direction{Forward, Backward} {
			tests = append(tests, testSchedule(k, d, pl.Deps))
		}
	}
	pick := func(t schedTest) {
		pl.Schedule, pl.Direction = t.kind, t.dir
		switch t.kind {
		case Rows, Cols:
			axis, order := "row", "ascending"
			if t.kind == Cols {
				axis = "column"
			}
			if t.dir == Backward {
				order = "descending"
			}
			pl.Reason = fmt.Sprintf("every reference reads an earlier %s (%ss run %s), so all cells of a %s are independent", axis, axis, order, axis)
		case Wavefront:
			from := "top-left"
			if t.dir == Backward {
				from = "bottom-right"
			}
			pl.Reason = fmt.Sprintf("every offset is constant and points %s, but some reference reads the same row or column: cells of one anti-diagonal are independent, swept from the %s corner", map[Direction]string{Forward: "up or left", Backward: "down or right"}[t.dir], from)
		}
	}
	if p.Schedule == string(Wavefront) && p.Dims == 3 && p.Inner > 0 {
		// A 3-D grid's wavefront is t = k + i + j (the flat grid's
		// anti-diagonals, k + (i*C + j), hold a cell of each plane at most).
		h := Hyperplane{A: 1, M: 1, B: 1, Inner: p.Inner}
		if ok, _, _, _, _ := hyperplaneFits(reaches3(p, pl), h, true); ok {
			return chooseHyperplane(p, pl, &h, p.Schedule)
		}
	}
	if p.Schedule != "" {
		for _, t := range tests {
			if string(t.kind) == p.Schedule && t.ok {
				pick(t)
				pl.Reason = "forced by `schedule: " + p.Schedule + "`; " + pl.Reason
				return nil
			}
		}
		var t schedTest
		for _, x := range tests {
			if string(x.kind) == p.Schedule {
				t = x
				break
			}
		}
		// A v1 name whose rotating sweep cannot run the references (they
		// reach over ranges) may still be the right order with the whole
		// grid kept.
		rs := reaches(p, pl)
		for _, d := range []Direction{Forward, Backward} {
			h := v1Hyperplane(Kind(p.Schedule), d)
			if ok, _, _, _, _ := hyperplaneFits(rs, h, true); ok {
				return chooseHyperplane(p, pl, &h, p.Schedule)
			}
		}
		var errs source.ErrorList
		h := v1Hyperplane(Kind(p.Schedule), Forward)
		if _, _, _, _, br := hyperplaneFits(rs, h, true); br != nil && br.overRange() {
			// The references reach over ranges: say where the order
			// fails rather than that the offset is not constant.
			errs.Add(br.dep.Ref.Pos, "`schedule: %s (%s)` cannot run this recurrence: %s", p.Schedule, h, br.why(h))
			return errs
		}
		errs.Add(t.breaker.Ref.Pos, "`schedule: %s` cannot run this recurrence: %s %s", p.Schedule, t.breaker.Ref.Text, t.why)
		return errs
	}
	// Rows or columns give a whole row (column) of parallel work per step;
	// prefer the one with the wider step. Wavefront is the fallback.
	var rows, cols *schedTest
	for i := range tests {
		t := &tests[i]
		if !t.ok {
			continue
		}
		if t.kind == Rows && rows == nil {
			rows = t
		}
		if t.kind == Cols && cols == nil {
			cols = t
		}
	}
	switch {
	case rows != nil && (cols == nil || p.Cols >= p.Rows):
		pick(*rows)
		return nil
	case cols != nil:
		pick(*cols)
		return nil
	}
	for _, t := range tests {
		if t.kind == Wavefront && t.ok {
			pick(t)
			return nil
		}
	}
	// No rotating sweep fits: look for a hyperplane, keeping the grid.
	return chooseHyperplane(p, pl, nil, "")
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func setPrev(p *ir.Problem, pl *Plan) error {
	if pl.Schedule.Generic() {
		need := pl.Reach
		if p.Prev >= 0 && int64(p.Prev) < need {
			var errs source.ErrorList
			if !pl.ReachBounded {
				errs.Add(p.PrevPos, "prev: %d is too small: a reference reaches back over a range as long as the grid (%d fronts); leave the line out", p.Prev, need)
			} else {
				errs.Add(p.PrevPos, "prev: %d is too small: a reference reads %d fronts back; use prev: %d or leave the line out", p.Prev, need, need)
			}
			return errs
		}
		pl.Prev, pl.PrevInferred = int(min(need, 1<<31-1)), p.Prev < 0
		if p.Prev >= 0 {
			pl.Prev = p.Prev
		}
		return nil
	}
	need := int64(0)
	var needBy *Dependency
	for i := range pl.Deps {
		d := &pl.Deps[i]
		var k int64
		switch pl.Schedule {
		case Rows:
			k = abs64(*d.DI)
		case Cols:
			k = abs64(*d.DJ)
		case Wavefront:
			k = abs64(*d.DI + *d.DJ)
		}
		if k > need {
			need, needBy = k, d
		}
	}
	unit := map[Kind]string{Rows: "rows", Cols: "columns", Wavefront: "anti-diagonals"}[pl.Schedule]
	if p.Prev >= 0 {
		if int64(p.Prev) < need {
			var errs source.ErrorList
			errs.Add(p.PrevPos, "prev: %d is too small: %s (line %d) reads %d %s back; use prev: %d or leave the line out", p.Prev, needBy.Ref.Text, needBy.Ref.Pos.Line, need, unit, need)
			return errs
		}
		pl.Prev = p.Prev
		return nil
	}
	pl.Prev, pl.PrevInferred = int(need), true
	return nil
}

// LastCell is the cell a sweep computes last: its default answer.
func LastCell(p *ir.Problem, pl *Plan) (i, j int64) {
	if pl.Schedule.Generic() {
		_, t := pl.T.Range(p.Rows, p.Cols)
		f := pl.T.Front(t, p.Rows, p.Cols)
		return f.Cell(f.Len() - 1)
	}
	if pl.Direction == Backward {
		return 0, 0
	}
	return p.Rows - 1, p.Cols - 1
}

func answerSpec(p *ir.Problem, pl *Plan) (AnswerSpec, error) {
	var errs source.ErrorList
	if p.Answer == nil {
		i, j := LastCell(p, pl)
		return AnswerSpec{Kind: AnswerCell, I: i, J: j}, nil
	}
	e := ir.StripConversions(p.Answer)
	if ref, ok := e.(*ir.CellRef); ok {
		i, iok := analysis.Int(ref.I, nil)
		j, jok := analysis.Int(ref.J, nil)
		if iok && jok {
			if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols {
				errs.Add(ref.Pos, "answer reads %s, outside the %s", p.CellText(i, j), p.GridText())
				return AnswerSpec{}, errs
			}
			return AnswerSpec{Kind: AnswerCell, I: i, J: j, Expr: p.Answer}, nil
		}
	}
	if spec, ok := regionSpec(p, e); ok {
		spec.Expr = p.Answer
		if spec.I0 < 0 || spec.I1 >= p.Rows || spec.J0 < 0 || spec.J1 >= p.Cols {
			cells := fmt.Sprintf("cells [%d..%d][%d..%d]", spec.I0, spec.I1, spec.J0, spec.J1)
			if p.Dims == 1 {
				cells = fmt.Sprintf("cells [%d..%d]", spec.J0, spec.J1)
			}
			errs.Add(p.Answer.Position(), "answer reads %s, outside the %s", cells, p.GridText())
			return AnswerSpec{}, errs
		}
		return spec, nil
	}
	set := map[[2]int64]bool{}
	if err := collectCells(p, p.Answer, map[*ir.Var]int64{}, set); err != nil {
		return AnswerSpec{}, err
	}
	cells := make([][2]int64, 0, len(set))
	for c := range set {
		cells = append(cells, c)
	}
	sort.Slice(cells, func(a, b int) bool {
		if cells[a][0] != cells[b][0] {
			return cells[a][0] < cells[b][0]
		}
		return cells[a][1] < cells[b][1]
	})
	return AnswerSpec{Kind: AnswerExpr, Expr: p.Answer, Cells: cells}, nil
}

// regionSpec recognises op(a in ..: op(b in ..: cell[a][b])) and
// op(a in ..: cell[a][K]) / op(b in ..: cell[K][b]) with constant bounds.
func regionSpec(p *ir.Problem, e ir.Expr) (AnswerSpec, bool) {
	outer, ok := e.(*ir.Reduce)
	if !ok {
		return AnswerSpec{}, false
	}
	lo1, ok1 := analysis.Int(outer.Lo, nil)
	hi1, ok2 := analysis.Int(outer.Hi, nil)
	if !ok1 || !ok2 || lo1 > hi1 {
		return AnswerSpec{}, false
	}
	body := ir.StripConversions(outer.Body)
	vars := map[*ir.Var][2]int64{outer.Var: {lo1, hi1}}
	if inner, ok := body.(*ir.Reduce); ok {
		if inner.Op != outer.Op {
			return AnswerSpec{}, false
		}
		lo2, ok1 := analysis.Int(inner.Lo, nil)
		hi2, ok2 := analysis.Int(inner.Hi, nil)
		if !ok1 || !ok2 || lo2 > hi2 {
			return AnswerSpec{}, false
		}
		vars[inner.Var] = [2]int64{lo2, hi2}
		body = ir.StripConversions(inner.Body)
	}
	ref, ok := body.(*ir.CellRef)
	if !ok {
		return AnswerSpec{}, false
	}
	axis := func(x ir.Expr) (lo, hi int64, used *ir.Var, ok bool) {
		if v, isVar := x.(*ir.Var); isVar {
			if r, bound := vars[v]; bound {
				return r[0], r[1], v, true
			}
			return 0, 0, nil, false
		}
		k, isConst := analysis.Int(x, nil)
		return k, k, nil, isConst
	}
	i0, i1, vi, ok1 := axis(ir.StripConversions(ref.I))
	j0, j1, vj, ok2 := axis(ir.StripConversions(ref.J))
	step := int64(1)
	if !ok2 && len(p.Tables) > 1 {
		// One table of several: J = T*v + t over the variable v.
		if a, ok := analysis.AffineOf(ir.StripConversions(ref.J), nil); ok && a.IsLinear() && a.I == 0 && a.J == 0 && len(a.Red) == 1 {
			for v, c := range a.Red {
				if r, bound := vars[v]; bound && c > 0 {
					j0, j1, vj, step, ok2 = c*r[0]+a.K, c*r[1]+a.K, v, c, true
				}
			}
		}
	}
	if !ok1 || !ok2 || (vi != nil && vi == vj) {
		return AnswerSpec{}, false
	}
	// Every bound variable must index the cell, else the reduction repeats
	// cells (a sum would count them twice).
	for v := range vars {
		if v != vi && v != vj {
			return AnswerSpec{}, false
		}
	}
	return AnswerSpec{Kind: AnswerRegion, Op: outer.Op, I0: i0, I1: i1, J0: j0, J1: j1, JStep: step}, true
}

// collectCells adds every cell e reads to set, iterating reductions.
func collectCells(p *ir.Problem, e ir.Expr, env map[*ir.Var]int64, set map[[2]int64]bool) error {
	var errs source.ErrorList
	switch n := e.(type) {
	case nil:
		return nil
	case *ir.CellRef:
		i, ok1 := analysis.Int(n.I, env)
		j, ok2 := analysis.Int(n.J, env)
		if !ok1 || !ok2 {
			errs.Add(n.Pos, "answer: the indices of %s must be constants or reduction variables", n.Text)
			return errs
		}
		if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols {
			errs.Add(n.Pos, "answer reads %s, outside the %s", p.CellText(i, j), p.GridText())
			return errs
		}
		set[[2]int64{i, j}] = true
		if len(set) > MaxAnswerCells {
			errs.Add(n.Pos, "answer reads more than %d cells; write it as a min, max or sum over a rectangle of cells whose body is the cell alone (max(i in ..: max(j in ..: cell[i][j])), not an expression of it), which runs as the cells are computed", MaxAnswerCells)
			return errs
		}
		return nil
	case *ir.Reduce:
		lo, ok1 := analysis.Int(n.Lo, env)
		hi, ok2 := analysis.Int(n.Hi, env)
		if !ok1 || !ok2 {
			if !refsCells(n.Body) {
				return nil
			}
			errs.Add(n.Pos, "answer: a reduction over cells needs constant bounds")
			return errs
		}
		for v := lo; v <= hi; v++ {
			env[n.Var] = v
			if err := collectCells(p, n.Body, env, set); err != nil {
				return err
			}
		}
		delete(env, n.Var)
		return nil
	}
	for _, c := range children(e) {
		if err := collectCells(p, c, env, set); err != nil {
			return err
		}
	}
	return nil
}

func refsCells(e ir.Expr) bool {
	return ir.Any(e, func(x ir.Expr) bool { _, ok := x.(*ir.CellRef); return ok })
}

func children(e ir.Expr) []ir.Expr {
	switch n := e.(type) {
	case *ir.Load:
		return n.Index
	case *ir.Unary:
		return []ir.Expr{n.X}
	case *ir.Binary:
		return []ir.Expr{n.X, n.Y}
	case *ir.Select:
		return []ir.Expr{n.Cond, n.Then, n.Else}
	case *ir.Convert:
		return []ir.Expr{n.X}
	case *ir.Call:
		return n.Args
	}
	return nil
}
