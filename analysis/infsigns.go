package analysis

import (
	"math"

	"github.com/dpgpu/dpgpu/ir"
)

// InfSigns says which infinities an integer expression may take: inf
// (Pos), -inf (Neg). The inf rules (docs/language.md §6.1) keep the sign
// an operand brings — inf + x is inf, inf - x is inf, x - inf is -inf —
// so the signs follow from the operands' alone. An affine-gap alignment's
// tables start at -inf and never hold inf: its `x - e` then only needs the
// -inf test (codegen's one-sided inf forms), not both.
type InfSigns struct{ Pos, Neg bool }

// bothSigns is what nothing is known of: either infinity.
func bothSigns() InfSigns { return InfSigns{true, true} }

func (s InfSigns) union(o InfSigns) InfSigns { return InfSigns{s.Pos || o.Pos, s.Neg || o.Neg} }

func (s InfSigns) swapped() InfSigns { return InfSigns{s.Neg, s.Pos} }

// Any reports whether either infinity is possible.
func (s InfSigns) Any() bool { return s.Pos || s.Neg }

// SignSource says what the cells and inputs an expression reads may hold.
type SignSource struct {
	Cells func(*ir.CellRef) InfSigns
	// Inputs is InputInfSigns where nil. A program that serves other
	// data than the input's own (a batch's varying inputs) says less.
	Inputs func(*ir.Input) InfSigns
}

func (src SignSource) input(in *ir.Input) InfSigns {
	if src.Inputs != nil {
		return src.Inputs(in)
	}
	return InputInfSigns(in)
}

// InfSignsOf bounds the infinities of integer expression e, the cells and
// inputs it reads holding what src says. A floating expression, or a node
// it does not know, may be either. An operation that fails (inf - inf, an
// overflow) stops the run, so what it would leave does not count.
func InfSignsOf(e ir.Expr, src SignSource) InfSigns {
	t := e.Type()
	if t.Is(ir.IsBoolean) || (t.IsInteger() && !t.HasInf()) {
		return InfSigns{}
	}
	if !t.IsInteger() {
		return bothSigns()
	}
	switch n := e.(type) {
	case *ir.Const:
		return constSigns(n.V, t)
	case *ir.ScalarRef:
		return constSigns(n.Scalar.Value, t)
	case *ir.Inf:
		return InfSigns{Pos: !n.Neg, Neg: n.Neg}
	case *ir.Var:
		return InfSigns{}
	case *ir.CellRef:
		return src.Cells(n)
	case *ir.Load:
		return src.input(n.In)
	case *ir.Unary:
		if n.Op == ir.OpNeg {
			return InfSignsOf(n.X, src).swapped()
		}
		return bothSigns()
	case *ir.Binary:
		x, y := InfSignsOf(n.X, src), InfSignsOf(n.Y, src)
		switch {
		case !n.Saturate && (n.Op == ir.OpAdd || n.Op == ir.OpSub || n.Op == ir.OpMul || n.Op == ir.OpDiv || n.Op == ir.OpRem):
			// Finite operands (sema): a finite result, or a failure.
			return InfSigns{}
		case n.Op == ir.OpAdd:
			return x.union(y)
		case n.Op == ir.OpSub:
			return x.union(y.swapped())
		case !x.Any() && !y.Any():
			return InfSigns{}
		}
		return bothSigns()
	case *ir.Select:
		return InfSignsOf(n.Then, src).union(InfSignsOf(n.Else, src))
	case *ir.Convert:
		from := n.X.Type()
		switch {
		case from.Is(ir.IsBoolean) || (from.IsInteger() && !from.HasInf()):
			return InfSigns{}
		case from.IsInteger():
			// Sentinels map to sentinels; a finite value that does not
			// fit is an overflow.
			return InfSignsOf(n.X, src)
		}
		return bothSigns()
	case *ir.Call:
		switch n.Fn {
		case ir.FnMin, ir.FnMax:
			// max is inf where an argument is, -inf where all are;
			// min the other way round.
			s := InfSigns{Pos: n.Fn == ir.FnMin, Neg: n.Fn == ir.FnMax}
			for _, a := range n.Args {
				x := InfSignsOf(a, src)
				if n.Fn == ir.FnMax {
					s = InfSigns{Pos: s.Pos || x.Pos, Neg: s.Neg && x.Neg}
				} else {
					s = InfSigns{Pos: s.Pos && x.Pos, Neg: s.Neg || x.Neg}
				}
			}
			return s
		case ir.FnAbs:
			if InfSignsOf(n.Args[0], src).Any() {
				return InfSigns{Pos: true}
			}
			return InfSigns{}
		}
		return bothSigns()
	case *ir.Reduce:
		s := InfSignsOf(n.Body, src)
		// An empty range gives the identity: min's inf, max's -inf.
		switch n.Op {
		case ir.ReduceMin:
			s.Pos = true
		case ir.ReduceMax:
			s.Neg = true
		}
		return s
	}
	return bothSigns()
}

// constSigns is the infinity a constant of type t is, if any: an integer
// at or past a sentinel of t, or an IEEE infinity.
func constSigns(v ir.Value, t ir.Type) InfSigns {
	if v.T.IsFloat() {
		return InfSigns{Pos: math.IsInf(v.F, 1) || v.F != v.F, Neg: math.IsInf(v.F, -1) || v.F != v.F}
	}
	pos, neg := ir.InfSentinel(t)
	return InfSigns{Pos: v.I >= pos, Neg: v.I <= neg}
}

// InputInfSigns is the infinities an input's elements hold.
func InputInfSigns(in *ir.Input) InfSigns {
	if in.T.Is(ir.IsBoolean) || (in.T.IsInteger() && !in.T.HasInf()) {
		return InfSigns{}
	}
	if in.T.IsFloat() {
		var s InfSigns
		for _, f := range in.F {
			s = s.union(InfSigns{Pos: math.IsInf(f, 1), Neg: math.IsInf(f, -1)})
		}
		return s
	}
	sp := in.IntSpan()
	if !sp.Known {
		return bothSigns()
	}
	pos, neg := ir.InfSentinel(in.T)
	return InfSigns{Pos: sp.Hi >= pos, Neg: sp.Lo <= neg}
}

// CellSigns is the infinities each table of a recurrence may hold
// (TableInfSigns).
type CellSigns struct {
	tables []InfSigns
}

// All is what any cell may hold.
func (c CellSigns) All() InfSigns {
	var s InfSigns
	for _, t := range c.tables {
		s = s.union(t)
	}
	return s
}

// Table is what table t's cells may hold.
func (c CellSigns) Table(t int) InfSigns { return c.tables[t] }

// Of is what the cell r reads may hold: its table's, where the reference
// shows which table it reads; else any table's.
func (c CellSigns) Of(r *ir.CellRef) InfSigns {
	if t, ok := refTable(r, len(c.tables)); ok {
		return c.tables[t]
	}
	return c.All()
}

// refTable is the table r reads in a flat grid of n tables, where its
// column is the reading cell's plus a constant d, in the case of table
// r.From: table (From + d) mod n, which must be the r.Table sema recorded.
// ok is false where either is not known (a column computed otherwise, a
// band transposed).
func refTable(r *ir.CellRef, n int) (int, bool) {
	if n == 1 {
		return 0, true
	}
	f, ok := Linear(r.J)
	if !ok || f.I != 0 || f.J != 1 || r.From < 0 || r.From >= n || r.Table < 0 || r.Table >= n {
		return 0, false
	}
	if t := ((int64(r.From)+f.K)%int64(n) + int64(n)) % int64(n); t != int64(r.Table) {
		return 0, false
	}
	return r.Table, true
}

// TableInfSigns bounds the infinities each table of p's integer cells may
// hold: by induction over any schedule, a cell holds what a case of its
// table gives with the cells it reads holding what earlier cells hold (a
// fixed point, reached in a few rounds). A case is table t's where its
// condition starts with the lowering's test J % T == t
// (ir.SplitTableTest); one that no table owns (a checkpoint band's given
// rows) counts for every table. Floating cells may hold either infinity.
// inputs, when not nil, says what inputs hold (SignSource.Inputs).
func TableInfSigns(p *ir.Problem, inputs func(*ir.Input) InfSigns) CellSigns {
	n := max(1, len(p.Tables))
	s := make([]InfSigns, n)
	if !p.CellType.IsInteger() {
		for t := range s {
			s[t] = bothSigns()
		}
		return CellSigns{s}
	}
	if !p.CellType.HasInf() {
		return CellSigns{s}
	}
	for {
		cur := CellSigns{append([]InfSigns(nil), s...)}
		for k, c := range p.Cases {
			v := InfSignsOf(c.Value, SignSource{Cells: cur.Of, Inputs: inputs})
			t, _, ok := ir.SplitTableTest(c.Cond, n, k == len(p.Cases)-1)
			if n == 1 {
				t, ok = 0, true
			}
			for u := range s {
				if !ok || u == t {
					s[u] = s[u].union(v)
				}
			}
		}
		changed := false
		for u := range s {
			changed = changed || s[u] != cur.tables[u]
		}
		if !changed {
			return CellSigns{s}
		}
	}
}
