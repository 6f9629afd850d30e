package analysis

import "github.com/dpgpu/dpgpu/ir"

// Chain is a reduction of the chain form
//
//	max(k in 0..H: cell[I][j - k*S] + k*V)      (or min)
//
// with I, S and V free of j, k and cells (they are the row's: the
// unbounded knapsack's wt[i-1] and val[i-1]): at column j it takes the
// terms the one at column j - S took, each V more, and one more, k = 0.
// Where the bound at j - S was H - 1 it is
//
//	max(cell[I][j] + 0*V, R(j - S) + V)
//
// one term instead of H + 1. Executors that compute a row's columns in
// order use it (codegen/chain.go, eval's chain); their guards keep the
// loop's values and first error.
type Chain struct {
	S, V ir.Expr
	// Mul is the type k*V is computed in, which bounds H*|V|.
	Mul ir.Type
	// Quotient: H is exactly j / S, one more than at column j - S; HiS
	// is that S, the bound's own node (where the loop reads it first).
	Quotient bool
	HiS      ir.Expr
}

// ChainOf reports whether n has the chain form.
func ChainOf(n *ir.Reduce) (Chain, bool) {
	if (n.Op != ir.ReduceMax && n.Op != ir.ReduceMin) || (n.T != ir.Int && n.T != ir.Long) || !n.Var.T.IsInteger() {
		return Chain{}, false
	}
	if lo, ok := Int(n.Lo, nil); !ok || lo != 0 {
		return Chain{}, false
	}
	add, ok := n.Body.(*ir.Binary)
	if !ok || add.Op != ir.OpAdd || add.T != n.T {
		return Chain{}, false
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
		q, ok := stripIntConv(n.Hi).(*ir.Binary)
		quotient := ok && q.Op == ir.OpDiv && !q.Saturate && isColumnVar(q.X) && sameExpr(stripIntConv(q.Y), stripIntConv(s))
		ch := Chain{S: s, V: v, Mul: prod.Type(), Quotient: quotient}
		if quotient {
			ch.HiS = q.Y
		}
		return ch, true
	}
	return Chain{}, false
}

// FirstChain is the reduction of p that executors run as a chain: the
// first of the chain form, outside any other reduction, in the order of
// the cases (condition, then value); nil when there is none. One a
// recurrence: each keeps a row of values a worker.
func FirstChain(p *ir.Problem) *ir.Reduce {
	if len(p.Tables) > 1 || p.Dims == 3 {
		return nil
	}
	var found *ir.Reduce
	for _, c := range p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			if e == nil || found != nil {
				continue
			}
			ir.Walk(e, func(x ir.Expr) bool {
				if found != nil {
					return false
				}
				if r, ok := x.(*ir.Reduce); ok {
					if _, ok := ChainOf(r); ok {
						found = r
					}
					return false // not inside another reduction
				}
				return true
			})
		}
	}
	return found
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

// rowFree reports whether e reads neither the column variable, nor a
// reduction's variable, nor a cell (its value is the row's: the same at
// every column).
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

// ClassChain is p's first chain (FirstChain) where its bound is exactly
// j / S (Chain.Quotient): the one an executor computes a residue class of
// a row's columns modulo S at a time (backend/gpu's dp_linechain). Where
// the bound is capped (the bounded knapsack's min(cnt[i-1], w /
// wt[i-1])), the columns past the cap run the whole loop anyway, and a
// column a thread serves them better (10,000 x 1,000,000 on an H200:
// 0.092 s, by classes 0.129 s). ok is false where there is none.
func ClassChain(p *ir.Problem) (*ir.Reduce, Chain, bool) {
	red := FirstChain(p)
	if red == nil {
		return nil, Chain{}, false
	}
	ch, ok := ChainOf(red)
	if !ok || !ch.Quotient {
		return nil, Chain{}, false
	}
	return red, ch, true
}

// ChainAlone reports whether the chain reduction n is the whole value of
// one of p's cases (no condition of any case reads it either): what a cell
// stores is then the reduction's value, and nothing else of the recurrence
// operates on it, so that an executor may compute the reduction alone
// along a stretch of columns from a partial start (backend/gpu's
// segments of a residue class, summed up before they are computed in
// full) without an error the recurrence would not make.
func ChainAlone(p *ir.Problem, n *ir.Reduce) bool {
	alone := false
	for _, c := range p.Cases {
		if c.Cond != nil && ir.Any(c.Cond, func(x ir.Expr) bool { return x == n }) {
			return false
		}
		if c.Value == n {
			alone = true
		}
	}
	return alone
}
