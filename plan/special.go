package plan

import (
	"fmt"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// SpecialKind is an algorithm better than sweeping the recurrence cell by
// cell that the planner recognised in it (issue #13: the user should not
// have to know them).
type SpecialKind string

const (
	// BitLCS: the length of a longest common subsequence (match: the
	// diagonal + 1, else the max of up and left), computed 64 cells per
	// word operation (Allison-Dix / Hyyrö).
	BitLCS SpecialKind = "lcs"
	// BitLevenshtein: unit-cost edit distance (Myers 1999 / Hyyrö).
	BitLevenshtein SpecialKind = "levenshtein"
	// BitIndel: edit distance with insertions and deletions only.
	BitIndel SpecialKind = "indel"
)

// Special is the recognised algorithm and what it needs. Executors run it
// instead of the schedule unless asked not to (backend.Options.NoSpecial,
// `--no-special`), and only for what it computes: the answer, score only
// (a traceback, --grid or maintain runs the schedule).
type Special struct {
	Kind SpecialKind
	// Name says it for a person: "bit-parallel LCS (Hyyrö 2004)".
	Name string
	// Why says what in the recurrence matched, for `dpgpu check`.
	Why string
	// A is the sequence along the rows (cell[i][.] follows A[i-1]: the grid
	// has len(A)+1 rows, and only its first rows-1 elements are read) and
	// B the one along the columns. All three recognised recurrences are
	// symmetric (the grid transposed is the same recurrence with the
	// sequences swapped), so an answer over the last column is recognised
	// as one over the last row with A and B swapped (Transposed).
	A, B *ir.Input
	// SemiGlobal: the answer is the min (max for LCS) over the last row,
	// i.e. B's end gaps are free; else it is the last cell.
	SemiGlobal bool
	// Transposed (SemiGlobal only): the user's answer reduces the last
	// column; A is the user's column sequence and B the row sequence, and
	// the winning position along B is a row of the user's grid.
	Transposed bool
}

// recognise looks for a Special in p as planned; nil when none matches
// exactly (anything that does not match runs the schedule).
//
// It works on the checked recurrence, not on its text: the grid's cells
// fall into four classes (cell[0][0], the rest of row 0, the rest of
// column 0, and the interior, where the interior splits into cells whose
// characters match and those whose characters differ). For each class the
// cases are evaluated abstractly in order: every condition must be decided
// for the whole class (a linear comparison of i and j over the class's
// range of cells, or the comparison of the two sequences' characters), and
// the value of the case taken must reduce to a constant, a linear form in
// i and j, or a min or max of neighbours plus constants. The recurrence is
// recognised only when every class gives exactly what one of the three
// algorithms computes there.
func recognise(p *ir.Problem, pl *Plan) *Special {
	if p.Dims != 2 || (p.CellType != ir.Int && p.CellType != ir.Long) || p.Rows < 1 || p.Cols < 1 {
		return nil
	}
	// The largest value any of the three reaches is rows + cols.
	if _, hi := ir.FiniteRange(p.CellType); p.Rows+p.Cols >= hi {
		return nil
	}
	r := &recogniser{p: p}
	iHi, jHi := max(p.Rows-1, 1), max(p.Cols-1, 1)
	corner := r.class(box{0, 0, 0, 0}, matchNone)
	row0 := r.class(box{0, 0, 1, jHi}, matchNone)
	col0 := r.class(box{1, iHi, 0, 0}, matchNone)
	same := r.class(box{1, iHi, 1, jHi}, matchYes)
	differ := r.class(box{1, iHi, 1, jHi}, matchNo)
	if r.failed || r.a == nil || r.b == nil {
		return nil
	}
	if !corner.isConst(0) {
		return nil
	}
	var kind SpecialKind
	switch {
	case same.is(max1, diag(1)) || same.is(ir.FnMax, diag(1), up(0), left(0)):
		if !differ.is(ir.FnMax, up(0), left(0)) && !differ.is(ir.FnMax, diag(0), up(0), left(0)) {
			return nil
		}
		if !row0.isConst(0) && !row0.is(max1, left(0)) || !col0.isConst(0) && !col0.is(max1, up(0)) {
			return nil
		}
		kind = BitLCS
	case same.is(max1, diag(0)) || same.is(ir.FnMin, diag(0), up(1), left(1)):
		switch {
		case differ.is(ir.FnMin, diag(1), up(1), left(1)):
			kind = BitLevenshtein
		case differ.is(ir.FnMin, up(1), left(1)) || differ.isIndelSub():
			kind = BitIndel
		default:
			return nil
		}
		if !row0.isIndex(0, 1) && !row0.is(max1, left(1)) || !col0.isIndex(1, 0) && !col0.is(max1, up(1)) {
			return nil
		}
	default:
		return nil
	}
	// The inputs: vectors of characters at least as long as the grid reads.
	if !r.a.T.Is(ir.IsInteger) || r.a.T != ir.Char || r.b.T != ir.Char ||
		int64(len(r.a.I)) < p.Rows-1 || int64(len(r.b.I)) < p.Cols-1 {
		return nil
	}
	s := &Special{Kind: kind, A: r.a, B: r.b}
	best := ir.ReduceMin
	if kind == BitLCS {
		best = ir.ReduceMax
	}
	a := pl.Answer
	var answer string
	switch {
	case a.Kind == AnswerCell && a.I == p.Rows-1 && a.J == p.Cols-1:
		answer = "the answer is the last cell"
	case a.Kind == AnswerRegion && a.JStep <= 1 && a.Op == best && a.I0 == p.Rows-1 && a.I1 == p.Rows-1 && a.J0 == 0 && a.J1 == p.Cols-1:
		s.SemiGlobal = true
		answer = fmt.Sprintf("the answer is the %s over the last row (semi-global: %s's end is free)", best, r.b.Name)
	case a.Kind == AnswerRegion && a.JStep <= 1 && a.Op == best && a.J0 == p.Cols-1 && a.J1 == p.Cols-1 && a.I0 == 0 && a.I1 == p.Rows-1:
		s.SemiGlobal, s.Transposed = true, true
		answer = fmt.Sprintf("the answer is the %s over the last column (semi-global: %s's end is free)", best, r.a.Name)
		s.A, s.B = r.b, r.a
	default:
		return nil
	}
	c := fmt.Sprintf("cell[%s][%s]", p.IVar, p.JVar)
	i1, j1 := p.IVar+"-1", p.JVar+"-1"
	d, u, l := "cell["+i1+"]["+j1+"]", "cell["+i1+"]["+p.JVar+"]", "cell["+p.IVar+"]["+j1+"]"
	eq := fmt.Sprintf("%s[%s] == %s[%s]", r.a.Name, i1, r.b.Name, j1)
	switch kind {
	case BitLCS:
		s.Name = "bit-parallel LCS (Hyyrö 2004)"
		s.Why = fmt.Sprintf("%s is 0 on row 0 and column 0, %s + 1 where %s, else max(%s, %s): the length of a longest common subsequence of %s and %s; %s",
			c, d, eq, u, l, r.a.Name, r.b.Name, answer)
	case BitLevenshtein:
		s.Name = "bit-parallel Levenshtein distance (Myers 1999, Hyyrö's blocks)"
		s.Why = fmt.Sprintf("%s is %s on row 0 and %s on column 0, %s where %s, else 1 + min(%s, %s, %s): unit-cost edit distance of %s and %s; %s",
			c, p.JVar, p.IVar, d, eq, d, u, l, r.a.Name, r.b.Name, answer)
	default:
		s.Name = "bit-parallel indel distance (through LCS, Hyyrö 2004)"
		s.Why = fmt.Sprintf("%s is %s on row 0 and %s on column 0, %s where %s, else 1 + min(%s, %s) (a substitution costs no less than a deletion and an insertion): the insertion-deletion distance of %s and %s, len + len - 2*LCS; %s",
			c, p.JVar, p.IVar, d, eq, u, l, r.a.Name, r.b.Name, answer)
	}
	return s
}

// max1 marks a single neighbour (no min or max around it).
const max1 ir.Func = 255

// box is a class's range of cells: rows i0..i1, columns j0..j1.
type box struct{ i0, i1, j0, j1 int64 }

// constOver is the value of f over b when it is one value there.
func (b box) constOver(f analysis.Form) (int64, bool) {
	if (f.I != 0 && b.i0 != b.i1) || (f.J != 0 && b.j0 != b.j1) {
		return 0, false
	}
	return f.I*b.i0 + f.J*b.j0 + f.K, true
}

// rangeOver is the least and greatest value of f over b (no overflow:
// the grid's sides and the coefficients are checked small).
func (b box) rangeOver(f analysis.Form) (lo, hi int64, ok bool) {
	const lim = 1 << 40
	if f.I > lim || f.I < -lim || f.J > lim || f.J < -lim || f.K > lim || f.K < -lim || b.i1 > lim || b.j1 > lim {
		return 0, 0, false
	}
	lo, hi = f.K, f.K
	for _, t := range [2][3]int64{{f.I, b.i0, b.i1}, {f.J, b.j0, b.j1}} {
		x, y := t[0]*t[1], t[0]*t[2]
		lo += min(x, y)
		hi += max(x, y)
	}
	return lo, hi, true
}

// match is what a class knows of the characters compared.
type match uint8

const (
	matchNone match = iota // not an interior cell: A[i-1] or B[j-1] is not there
	matchYes
	matchNo
)

// term is a neighbour cell[i-di][j-dj] plus c.
type term struct{ di, dj, c int64 }

func diag(c int64) term { return term{1, 1, c} }
func up(c int64) term   { return term{1, 0, c} }
func left(c int64) term { return term{0, 1, c} }

// value is the abstract value of an expression over a class: a linear
// form in i and j (lin), or op (FnMin, FnMax or max1) over terms.
type value struct {
	lin   bool
	f     analysis.Form
	op    ir.Func
	terms []term
	b     box
}

// isConst reports whether v is the constant c over its class.
func (v value) isConst(c int64) bool {
	x, ok := v.b.constOver(v.f)
	return v.lin && ok && x == c
}

// isIndex reports whether v is ci*i + cj*j over its class (an axis fixed
// at 0 makes its coefficient free).
func (v value) isIndex(ci, cj int64) bool {
	if !v.lin || v.f.K != 0 {
		return false
	}
	return (v.f.I == ci || v.b.i0 == 0 && v.b.i1 == 0) && (v.f.J == cj || v.b.j0 == 0 && v.b.j1 == 0)
}

// is reports whether v is op over exactly the set ts (max1: one term).
func (v value) is(op ir.Func, ts ...term) bool {
	if v.lin || len(v.terms) == 0 {
		return false
	}
	if len(v.terms) == 1 && len(ts) == 1 {
		return v.terms[0] == ts[0]
	}
	if v.op != op {
		return false
	}
	return sameSet(v.terms, ts)
}

// isIndelSub: min(diag + s, up + 1, left + 1) with s >= 2, where a
// substitution is never better than a deletion and an insertion.
func (v value) isIndelSub() bool {
	if v.lin || v.op != ir.FnMin {
		return false
	}
	for _, t := range v.terms {
		if t.di == 1 && t.dj == 1 && t.c >= 2 {
			return sameSet(v.terms, []term{t, up(1), left(1)})
		}
	}
	return false
}

func sameSet(a, b []term) bool {
	in := func(t term, s []term) bool {
		for _, x := range s {
			if x == t {
				return true
			}
		}
		return false
	}
	for _, t := range a {
		if !in(t, b) {
			return false
		}
	}
	for _, t := range b {
		if !in(t, a) {
			return false
		}
	}
	return true
}

// recogniser holds what the classes found: the sequences compared, and
// whether anything did not fit.
type recogniser struct {
	p      *ir.Problem
	a, b   *ir.Input // A[i-1] and B[j-1]
	failed bool
	b0     box
	m      match
}

// class evaluates the recurrence over the cells of b (with what is known
// of their characters): the value of the first case whose condition holds
// over all of b.
func (r *recogniser) class(b box, m match) value {
	r.b0, r.m = b, m
	for _, c := range r.p.Cases {
		if c.Cond != nil {
			t, ok := r.decide(c.Cond)
			if !ok {
				r.failed = true
				return value{}
			}
			if !t {
				continue
			}
		}
		v, ok := r.eval(c.Value)
		if !ok {
			r.failed = true
		}
		return v
	}
	r.failed = true
	return value{}
}

// decide evaluates a condition over the class; ok is false when it is not
// one value there.
func (r *recogniser) decide(e ir.Expr) (t, ok bool) {
	switch n := e.(type) {
	case *ir.Const:
		if n.T == ir.Bool {
			return n.V.I != 0, true
		}
	case *ir.Unary:
		if n.Op == ir.OpNot {
			t, ok := r.decide(n.X)
			return !t, ok
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd, ir.OpOr:
			x, ok := r.decide(n.X)
			if !ok {
				return false, false
			}
			if x == (n.Op == ir.OpOr) {
				return x, true
			}
			return r.decide(n.Y)
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			if t, ok, isChars := r.chars(n); isChars {
				return t, ok
			}
			fx, okx := analysis.Linear(n.X)
			fy, oky := analysis.Linear(n.Y)
			if !okx || !oky {
				return false, false
			}
			lo, hi, ok := r.b0.rangeOver(analysis.Form{I: fx.I - fy.I, J: fx.J - fy.J, K: fx.K - fy.K})
			if !ok {
				return false, false
			}
			// x - y over the class is lo..hi.
			var all, none bool
			switch n.Op {
			case ir.OpEq:
				all, none = lo == 0 && hi == 0, lo > 0 || hi < 0
			case ir.OpNe:
				all, none = lo > 0 || hi < 0, lo == 0 && hi == 0
			case ir.OpLt:
				all, none = hi < 0, lo >= 0
			case ir.OpLe:
				all, none = hi <= 0, lo > 0
			case ir.OpGt:
				all, none = lo > 0, hi <= 0
			case ir.OpGe:
				all, none = lo >= 0, hi < 0
			}
			return all, all || none
		}
	}
	return false, false
}

// chars decides A[i-1] == B[j-1] (or !=, either side first) in an interior
// class, recording the two sequences; isChars is false when n compares
// something else.
func (r *recogniser) chars(n *ir.Binary) (t, ok, isChars bool) {
	x, okx := ir.StripConversions(n.X).(*ir.Load)
	y, oky := ir.StripConversions(n.Y).(*ir.Load)
	if !okx || !oky {
		return false, false, false
	}
	if r.m == matchNone || (n.Op != ir.OpEq && n.Op != ir.OpNe) || len(x.Index) != 1 || len(y.Index) != 1 || !x.In.Vector || !y.In.Vector {
		return false, false, true
	}
	fx, okx := analysis.Linear(x.Index[0])
	fy, oky := analysis.Linear(y.Index[0])
	if !okx || !oky {
		return false, false, true
	}
	along := func(f analysis.Form) ir.VarKind {
		switch f {
		case analysis.Form{I: 1, K: -1}:
			return ir.VarI
		case analysis.Form{J: 1, K: -1}:
			return ir.VarJ
		}
		return ir.VarReduce
	}
	switch {
	case along(fx) == ir.VarI && along(fy) == ir.VarJ:
	case along(fx) == ir.VarJ && along(fy) == ir.VarI:
		x, y = y, x
	default:
		return false, false, true
	}
	if (r.a != nil && r.a != x.In) || (r.b != nil && r.b != y.In) {
		return false, false, true
	}
	r.a, r.b = x.In, y.In
	return (r.m == matchYes) == (n.Op == ir.OpEq), true, true
}

// eval is the abstract value of e over the class.
func (r *recogniser) eval(e ir.Expr) (value, bool) {
	b := r.b0
	if f, ok := analysis.Linear(e); ok {
		return value{lin: true, f: f, b: b}, true
	}
	switch n := e.(type) {
	case *ir.Convert:
		if n.X.Type() == ir.Bool {
			t, ok := r.decide(n.X)
			if !ok {
				return value{}, false
			}
			k := int64(0)
			if t {
				k = 1
			}
			return value{lin: true, f: analysis.Form{K: k}, b: b}, true
		}
		if !n.T.IsInteger() || !n.X.Type().IsInteger() {
			return value{}, false
		}
		return r.eval(n.X)
	case *ir.Select:
		t, ok := r.decide(n.Cond)
		if !ok {
			return value{}, false
		}
		if t {
			return r.eval(n.Then)
		}
		return r.eval(n.Else)
	case *ir.CellRef:
		fi, oki := analysis.Linear(n.I)
		fj, okj := analysis.Linear(n.J)
		if !oki || !okj {
			return value{}, false
		}
		di, oki := b.constOver(analysis.Form{I: 1 - fi.I, J: -fi.J, K: -fi.K})
		dj, okj := b.constOver(analysis.Form{I: -fj.I, J: 1 - fj.J, K: -fj.K})
		if !oki || !okj {
			return value{}, false
		}
		return value{op: max1, terms: []term{{di, dj, 0}}, b: b}, true
	case *ir.Binary:
		if n.Op != ir.OpAdd && n.Op != ir.OpSub {
			return value{}, false
		}
		x, okx := r.eval(n.X)
		y, oky := r.eval(n.Y)
		if !okx || !oky {
			return value{}, false
		}
		if x.lin && n.Op == ir.OpAdd {
			x, y = y, x
		}
		c, ok := b.constOver(y.f)
		if x.lin || !y.lin || !ok || c > 1<<40 || c < -(1<<40) {
			return value{}, false
		}
		if n.Op == ir.OpSub {
			c = -c
		}
		ts := make([]term, len(x.terms))
		for k, t := range x.terms {
			ts[k] = term{t.di, t.dj, t.c + c}
		}
		x.terms = ts
		return x, true
	case *ir.Call:
		if n.Fn != ir.FnMin && n.Fn != ir.FnMax {
			return value{}, false
		}
		v := value{op: n.Fn, b: b}
		for _, a := range n.Args {
			x, ok := r.eval(a)
			if !ok || x.lin || (x.op != max1 && x.op != n.Fn) {
				return value{}, false
			}
			v.terms = append(v.terms, x.terms...)
		}
		return v, true
	}
	return value{}, false
}
