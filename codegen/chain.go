package codegen

import (
	"fmt"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// A reduction of the chain form
//
//	max(k in 0..H: cell[I][j - k*S] + k*V)      (or min)
//
// with I, S and V free of j and k (they depend on the row: the unbounded
// knapsack's wt[i-1] and val[i-1]) takes, at column j, the terms the one
// at column j - S took, each V more, and one more: the term k = 0. Where
// the bound at j - S was H - 1, the reduction at j is
//
//	max(cell[I][j] + 0*V, R(j - S) + V)
//
// one term and one addition instead of H + 1 terms (an unbounded knapsack
// of n items and capacity W costs n*W cells, not n*W*W/weight). The host's
// rows sweep computes a chunk's columns in order and keeps each column's R
// and H (templates/host.cu, dp_rows_acc::chain); a column whose R(j - S)
// is not in its chunk, or where the step could differ from the loop, runs
// the loop. It gives the loop's value and the loop's first error:
//
//   - for max, V >= 0 (min: V <= 0), so no term leaves the finite range
//     downwards (upwards for min) without the running one doing so; an
//     addition R(j - S) + V outside the finite range, or R(j - S)
//     infinite, runs the loop, which reports the overflow as it would;
//   - H * |V| must fit, else the loop (and its k*V overflow) runs;
//   - the reads the loop would make at j beyond k = 0 are those of the
//     column j - S, made there (and an out-of-grid one fails the chain's
//     first column, which runs the loop, as every column of the chain
//     reads it).
//
// Other back ends run the loop.

// chainOf reports whether n has the chain form, returning S and V and
// the type k*V is computed in.
func chainOf(n *ir.Reduce) (s, v ir.Expr, mul ir.Type, ok bool) {
	if (n.Op != ir.ReduceMax && n.Op != ir.ReduceMin) || (n.T != ir.Int && n.T != ir.Long) || !n.Var.T.IsInteger() {
		return nil, nil, 0, false
	}
	if lo, ok := analysis.Int(n.Lo, nil); !ok || lo != 0 {
		return nil, nil, 0, false
	}
	add, ok := n.Body.(*ir.Binary)
	if !ok || add.Op != ir.OpAdd || add.T != n.T {
		return nil, nil, 0, false
	}
	for _, side := range [2][2]ir.Expr{{add.X, add.Y}, {add.Y, add.X}} {
		// (Integer conversions of either side: the loop converts each
		// term's read where the chain converts it, at k = 0 of some
		// column, and k*V as written, whose type bounds H*|V|.)
		ref, ok := stripIntConv(side[0]).(*ir.CellRef)
		if !ok || ref.Mid != 0 || len(ref.Tables) > 1 || !rowFree(ref.I, n) {
			continue
		}
		prod := stripIntConv(side[1])
		v, ok := timesVar(prod, n)
		if !ok {
			continue
		}
		sub, ok := ref.J.(*ir.Binary)
		if !ok || sub.Op != ir.OpSub || !isColumnVar(sub.X) {
			continue
		}
		s, ok := timesVar(sub.Y, n)
		if !ok {
			continue
		}
		return s, v, prod.Type(), true
	}
	return nil, nil, 0, false
}

// timesVar sees k*x or x*k for n's variable k and an x free of j and k;
// it returns x.
func timesVar(e ir.Expr, n *ir.Reduce) (ir.Expr, bool) {
	m, ok := e.(*ir.Binary)
	if !ok || m.Op != ir.OpMul || !m.T.IsInteger() {
		return nil, false
	}
	for _, side := range [2][2]ir.Expr{{m.X, m.Y}, {m.Y, m.X}} {
		if k, ok := stripIntConv(side[0]).(*ir.Var); ok && k.BoundBy(n) && side[1].Type().IsInteger() && rowFree(side[1], n) {
			return side[1], true
		}
	}
	return nil, false
}

// rowFree reports whether e reads neither the column variable, nor n's
// variable, nor a cell (its value is the row's: the same at every column).
func rowFree(e ir.Expr, n *ir.Reduce) bool {
	return !ir.Any(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Var:
			return x.Kind == ir.VarJ || x.Kind == ir.VarReduce || x.Reduce != nil || x.BoundBy(n)
		case *ir.CellRef, *ir.Reduce:
			return true
		}
		return false
	})
}

func isColumnVar(e ir.Expr) bool {
	v, ok := stripIntConv(e).(*ir.Var)
	return ok && v.Kind == ir.VarJ && v.Reduce == nil
}

func stripIntConv(e ir.Expr) ir.Expr { return analysis.StripIntConv(e) }

// chainReduce writes n, of the chain form with step s and increment v,
// as the accessor's chain: the loop (reduceLoop) where the chain cannot
// serve, else the term k = 0 against the column j - S's value plus V.
func (m *emitter) chainReduce(n *ir.Reduce, en env, s, v ir.Expr, mul ir.Type) string {
	ct := ctype(n.T)
	loop := m.reduceLoop(n, en)
	hi := m.expr(n.Hi, en)
	sc, vc := m.expr(s, en), m.expr(v, en)
	// The term k = 0, in the body's env (0 is one of the variable's
	// values wherever the chain runs it: H >= 1).
	m.nred++
	name := fmt.Sprintf("r%d_%s", m.nred, cIdent(n.Var.Name))
	m.reds = append(m.reds, redVar{r: n, name: name, t: ir.Long})
	term0 := m.expr(n.Body, m.g.bodyEnv(n, en))
	m.reds = m.reds[:len(m.reds)-1]
	_, fhi := finiteRange(n.T)
	_, mhi := finiteRange(mul)
	// A bound of exactly j / S is one more than the bound S columns
	// before: the chain need not divide.
	q, ok := stripIntConv(n.Hi).(*ir.Binary)
	quotient := ok && q.Op == ir.OpDiv && !q.Saturate && isColumnVar(q.X) && analysis.SameExpr(stripIntConv(q.Y), stripIntConv(s))
	return fmt.Sprintf("a.template chain<%[1]s, %[2]t, %[11]t>(j, %[3]dLL, %[10]dLL, [&]() -> long long { return (long long)(%[4]s); }, [&]() -> long long { return (long long)(%[5]s); }, [&]() -> long long { return (long long)(%[6]s); }, "+
		"[&]() -> %[1]s { return %[7]s; }, [&]() -> %[1]s { const long long %[8]s = 0; (void)%[8]s; return (%[1]s)(%[9]s); })",
		ct, n.Op == ir.ReduceMax, fhi, hi, sc, vc, loop, name, term0, mhi, quotient)
}
