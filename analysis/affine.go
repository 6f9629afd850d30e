package analysis

import (
	"math"
	"sort"

	"github.com/dpgpu/dpgpu/ir"
)

// Affine is an integer expression written as I*i + J*j + Σ Red[k]*k + K +
// Rest: a linear form in the grid's index variables i and j and the
// reduction variables in scope, plus a part that is not linear (a read of
// an input, a product of variables) of which only a range is known.
//
// It is how the planner sees a cell reference's index: `k+1` inside
// `min(k in i..j-1: …)` is {Red: {k: 1}, K: 1}; `w - wt[i-1]` is {J: 1,
// Rest: -range(wt)}.
type Affine struct {
	I, J, K int64
	// M is the coefficient of a 3-D grid's middle index variable i (the
	// user's cell[k][i][j], seen through Columns with Inner set: I is then
	// k's and J the user's j's); 0 elsewhere.
	M    int64
	Red  map[*ir.Var]int64 // coefficients of reduction variables (no zeros)
	Rest Range             // the non-linear part; Point(0) when there is none
	// Data: some part of the expression is not linear (Rest stands for
	// it), even where what is known of it is one value.
	Data bool
}

// Opaque bounds a sub-expression that is not linear (its value in the
// context the caller analyses); Full() when nothing is known.
type Opaque func(e ir.Expr) Range

// AffineOf writes e as an Affine. Sub-expressions that are not linear go to
// Rest, bounded by opaque (nil: Full()). ok is false only where a
// coefficient would overflow; a Rest of Full() says e is not known to be
// linear at all.
func AffineOf(e ir.Expr, opaque Opaque) (Affine, bool) {
	return AffineIn(e, opaque, Columns{})
}

// Columns is how the cases of one table of a recurrence of several tables
// see the flat column J of sema's lowering (J = j*T + t holds table t's
// cell [i][j]; inside table t's cases the user's j is J / T, and J % T ==
// t holds): J is T*u + Table for the user's column u, J / T is u and J % T
// is Table. In those terms the offsets of a table's references are linear
// (`T[i][k]` with k in i..j-1 reads J - (k*T + t') >= T + t - t'), where
// over J they go through the quotient J / T. The zero value (T of 0 or 1)
// is the flat column itself.
//
// Inner, when not 0, is C of a 3-D grid K x R x C instead (T is then 0):
// sema's flat column J = i*C + j holds the user's cell[k][i][j], the user's
// i is J / C (the Affine's M) and j is J % C (its J), so that a
// reference's offsets along each of the three axes are linear in the
// user's variables.
type Columns struct{ T, Table, Inner int64 }

// Tabled reports whether c maps the flat column to the user's.
func (c Columns) Tabled() bool { return c.T > 1 }

// User is the range of the user's column u over the flat columns r of
// table Table (those J in r with J % T == Table).
func (c Columns) User(r Range) Range {
	if !c.Tabled() || r.IsEmpty() || r.IsFull() {
		return r
	}
	// (J - Table) / T, rounded inwards; an open side stays open.
	lo, hi := r.Lo, r.Hi
	if lo > math.MinInt64/2 {
		lo = CeilDiv(r.Lo-c.Table, c.T)
	}
	if hi < math.MaxInt64/2 {
		hi = FloorDiv(r.Hi-c.Table, c.T)
	}
	return Span(lo, hi)
}

// Cell is the flat column of the cell being computed, T*u + Table (J
// itself where c is the identity).
func (c Columns) Cell() Affine {
	if c.Inner > 0 {
		return Affine{M: c.Inner, J: 1, Rest: Point(0)}
	}
	if !c.Tabled() {
		return Affine{J: 1, Rest: Point(0)}
	}
	return Affine{J: c.T, K: c.Table, Rest: Point(0)}
}

// FloorDiv is a / b rounded down (b != 0).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// CeilDiv is a / b rounded up (b != 0).
func CeilDiv(a, b int64) int64 { return -FloorDiv(-a, b) }

// AffineIn is AffineOf with the column seen through cols (Columns).
func AffineIn(e ir.Expr, opaque Opaque, cols Columns) (Affine, bool) {
	var b affineBuilder
	b.opaque, b.cols = opaque, cols
	a := b.of(e)
	return a, !b.overflow
}

// IsLinear reports whether a has no non-linear part.
func (a Affine) IsLinear() bool { return !a.Data }

// Vars lists a's reduction variables in a fixed order (by position).
func (a Affine) Vars() []*ir.Var {
	vs := make([]*ir.Var, 0, len(a.Red))
	for v := range a.Red {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(x, y int) bool {
		px, py := vs[x].Pos, vs[y].Pos
		if px.Line != py.Line {
			return px.Line < py.Line
		}
		if px.Col != py.Col {
			return px.Col < py.Col
		}
		return vs[x].Name < vs[y].Name
	})
	return vs
}

// Form is a's linear form in i and j when a has neither reduction
// variables nor a non-linear part.
func (a Affine) Form() (Form, bool) {
	if len(a.Red) != 0 || !a.IsLinear() || a.M != 0 {
		return Form{}, false
	}
	return Form{I: a.I, J: a.J, K: a.K}, true
}

// Add is a + s*b for s = ±1, and false on overflow.
func (a Affine) Add(b Affine, s int64) (Affine, bool) {
	var bl affineBuilder
	r := bl.add(a, b, s)
	return r, !bl.overflow
}

// Scale is c*a, and false on overflow.
func (a Affine) Scale(c int64) (Affine, bool) {
	var bl affineBuilder
	r := bl.scale(a, c)
	return r, !bl.overflow
}

// Without is a with reduction variable v's term removed.
func (a Affine) Without(v *ir.Var) Affine {
	red := make(map[*ir.Var]int64, len(a.Red))
	for w, c := range a.Red {
		if w != v {
			red[w] = c
		}
	}
	a.Red = red
	return a
}

type affineBuilder struct {
	opaque   Opaque
	cols     Columns
	overflow bool
}

// flatJ reports whether e is the flat column variable J.
func flatJ(e ir.Expr) bool {
	v, ok := stripIntConv(e).(*ir.Var)
	return ok && v.Kind == ir.VarJ && v.Reduce == nil
}

func (b *affineBuilder) rest(e ir.Expr) Affine {
	r := Full()
	if b.opaque != nil {
		r = b.opaque(e)
	}
	return Affine{Rest: r, Data: true}
}

func (b *affineBuilder) of(e ir.Expr) Affine {
	switch n := e.(type) {
	case *ir.Var:
		if n.Reduce != nil || n.Kind == ir.VarReduce {
			return Affine{Red: map[*ir.Var]int64{canonVar(n): 1}, Rest: Point(0)}
		}
		switch n.Kind {
		case ir.VarI:
			return Affine{I: 1, Rest: Point(0)}
		case ir.VarJ:
			return b.cols.Cell()
		}
	case *ir.Const:
		if v, ok := constInt(n); ok {
			return Affine{K: v, Rest: Point(0)}
		}
	case *ir.ScalarRef:
		if n.Scalar.Value.T.IsInteger() {
			return Affine{K: n.Scalar.Value.I, Rest: Point(0)}
		}
	case *ir.Convert:
		if n.T.IsInteger() && n.X.Type().IsInteger() {
			return b.of(n.X)
		}
	case *ir.Unary:
		if n.Op == ir.OpNeg {
			return b.scale(b.of(n.X), -1)
		}
	case *ir.Binary:
		if n.Saturate {
			break
		}
		if b.cols.Inner > 0 && (n.Op == ir.OpDiv || n.Op == ir.OpRem) && flatJ(n.X) {
			// J / C and J % C: a 3-D grid's i and j (Columns).
			if k, ok := stripIntConv(n.Y).(*ir.Const); ok {
				if v, ok := constInt(k); ok && v == b.cols.Inner {
					if n.Op == ir.OpDiv {
						return Affine{M: 1, Rest: Point(0)}
					}
					return Affine{J: 1, Rest: Point(0)}
				}
			}
		}
		if b.cols.Tabled() && (n.Op == ir.OpDiv || n.Op == ir.OpRem) && flatJ(n.X) {
			// J / T and J % T in table Table's cases (Columns).
			if k, ok := stripIntConv(n.Y).(*ir.Const); ok {
				if v, ok := constInt(k); ok && v == b.cols.T {
					if n.Op == ir.OpDiv {
						return Affine{J: 1, Rest: Point(0)}
					}
					return Affine{K: b.cols.Table, Rest: Point(0)}
				}
			}
		}
		switch n.Op {
		case ir.OpAdd:
			return b.add(b.of(n.X), b.of(n.Y), 1)
		case ir.OpSub:
			return b.add(b.of(n.X), b.of(n.Y), -1)
		case ir.OpMul:
			x, y := b.of(n.X), b.of(n.Y)
			if x.isConst() {
				return b.scale(y, x.K)
			}
			if y.isConst() {
				return b.scale(x, y.K)
			}
		}
	}
	return b.rest(e)
}

// canonVar is the variable a reduction binds (every use of it shares it).
func canonVar(v *ir.Var) *ir.Var {
	if v.Reduce != nil && v.Reduce.Var != nil {
		return v.Reduce.Var
	}
	return v
}

func (a Affine) isConst() bool {
	return a.I == 0 && a.J == 0 && a.M == 0 && len(a.Red) == 0 && a.IsLinear()
}

func (b *affineBuilder) mul(x, y int64) int64 {
	r, ok := ir.Mul64(x, y)
	if !ok {
		b.overflow = true
	}
	return r
}

func (b *affineBuilder) plus(x, y int64) int64 {
	r, ok := ir.Add64(x, y)
	if !ok {
		b.overflow = true
	}
	return r
}

func (b *affineBuilder) scale(a Affine, c int64) Affine {
	r := Affine{I: b.mul(a.I, c), J: b.mul(a.J, c), K: b.mul(a.K, c), M: b.mul(a.M, c), Rest: a.Rest.Mul(Point(c)), Data: a.Data && c != 0}
	for v, k := range a.Red {
		if m := b.mul(k, c); m != 0 {
			if r.Red == nil {
				r.Red = map[*ir.Var]int64{}
			}
			r.Red[v] = m
		}
	}
	return r
}

func (b *affineBuilder) add(x, y Affine, s int64) Affine {
	y = b.scale(y, s)
	r := Affine{I: b.plus(x.I, y.I), J: b.plus(x.J, y.J), K: b.plus(x.K, y.K), M: b.plus(x.M, y.M), Rest: x.Rest.Add(y.Rest), Data: x.Data || y.Data}
	for _, m := range []map[*ir.Var]int64{x.Red, y.Red} {
		for v, k := range m {
			if r.Red == nil {
				r.Red = map[*ir.Var]int64{}
			}
			r.Red[v] = b.plus(r.Red[v], k)
			if r.Red[v] == 0 {
				delete(r.Red, v)
			}
		}
	}
	return r
}
