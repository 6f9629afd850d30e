// Package mathtab replaces the math of one index in a recurrence (exp, log
// and pow of i or j, constants and scalars: a lattice's pow(u, j)) by reads
// of tables the Go evaluator computes, once a row or column instead of once
// a cell. Both executors run the problem it returns: the CPU's compiled
// code, which does not call the C library's exp, log and pow (their last
// bit may differ from Go's), gets the evaluator's values bit for bit, and
// the GPU reads a table instead of calling pow in every cell.
package mathtab

import (
	"fmt"
	"slices"

	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/ir"
)

// MaxLen is the longest table Tables makes (64 MB of float64), MaxBytes the
// most its tables take together.
const (
	MaxLen   = 1 << 23
	MaxBytes = 1 << 28
)

// Budget is what the tables may take where they will live in memories
// with the given room: MaxBytes, and no more than a quarter of any.
func Budget(room ...int64) int64 {
	b := int64(MaxBytes)
	for _, r := range room {
		b = min(b, r/4)
	}
	return b
}

// Tables returns p with every floating subexpression of its cases that
// calls exp, log or pow and reads nothing but one index (i or j),
// constants and scalars replaced by a read of a new input: a table of its
// values over that index, computed by the evaluator. The evaluator then
// computes each value once, not once per cell (pow(u, j) was 70% of a
// lattice's run), and the host programs, which do not call the C library's
// exp, log and pow (their last bit may differ from Go's:
// codegen.HostSupports), can run a lattice's pow(u, j)
// compiled with the evaluator's values, bit for bit. ok is false when no
// such expression was found, and q is nil. A subexpression whose value
// fails at some index (an integer overflow inside it) stays as it is: the
// failure belongs to the cells that compute it. The tables are appended to
// q.Inputs. They take at most budget bytes (and MaxBytes), which the caller
// has checked against the memory they will live in.
func Tables(p *ir.Problem, budget int64) (q *ir.Problem, ok bool) {
	t := &tabler{p: p, budget: min(budget, MaxBytes)} // Budget's cap, whatever the caller passed
	cases := make([]*ir.Case, len(p.Cases))
	for k, c := range p.Cases {
		nc := *c
		nc.Cond, nc.Value = t.rewrite(c.Cond), t.rewrite(c.Value)
		cases[k] = &nc
	}
	if len(t.tables) == 0 {
		return nil, false
	}
	q = new(ir.Problem)
	*q = *p
	q.Cases = cases
	q.Inputs = append(slices.Clip(p.Inputs), t.tables...)
	return q, true
}

type tabler struct {
	p      *ir.Problem
	tables []*ir.Input
	bytes  int64
	budget int64 // the most the tables may take
}

// rewrite is e with its tabulable subexpressions replaced; the nodes of e
// that contain none are e's own (the plan keys cell references by node).
func (t *tabler) rewrite(e ir.Expr) ir.Expr {
	if e == nil {
		return nil
	}
	if ld := t.table(e); ld != nil {
		return ld
	}
	switch n := e.(type) {
	case *ir.Unary:
		if x := t.rewrite(n.X); x != n.X {
			c := *n
			c.X = x
			return &c
		}
	case *ir.Binary:
		x, y := t.rewrite(n.X), t.rewrite(n.Y)
		if x != n.X || y != n.Y {
			c := *n
			c.X, c.Y = x, y
			return &c
		}
	case *ir.Select:
		cond, th, el := t.rewrite(n.Cond), t.rewrite(n.Then), t.rewrite(n.Else)
		if cond != n.Cond || th != n.Then || el != n.Else {
			c := *n
			c.Cond, c.Then, c.Else = cond, th, el
			return &c
		}
	case *ir.Convert:
		if x := t.rewrite(n.X); x != n.X {
			c := *n
			c.X = x
			return &c
		}
	case *ir.Call:
		if args, changed := t.rewriteAll(n.Args); changed {
			c := *n
			c.Args = args
			return &c
		}
	case *ir.Reduce:
		// Left as it is: the variables of its body name the reduction
		// node they are bound by (ir.Var.Reduce), which a copy would not
		// be. Math inside a reduction keeps the problem on the evaluator.
		return e
	case *ir.Load:
		if idx, changed := t.rewriteAll(n.Index); changed {
			c := *n
			c.Index = idx
			return &c
		}
	}
	// Cell references are kept as they are: their index expressions are
	// integers, which hold nothing to tabulate.
	return e
}

// rewriteAll is rewrite of each of xs, and whether any changed.
func (t *tabler) rewriteAll(xs []ir.Expr) ([]ir.Expr, bool) {
	out := make([]ir.Expr, len(xs))
	changed := false
	for k, x := range xs {
		out[k] = t.rewrite(x)
		changed = changed || out[k] != x
	}
	return out, changed
}

// table is a read of a new table holding e's values, or nil when e is no
// floating function of one index calling exp, log or pow, or its table
// would be too long (or the tables too large together), or e fails at
// some index.
func (t *tabler) table(e ir.Expr) ir.Expr {
	if !e.Type().IsFloat() {
		return nil
	}
	var v *ir.Var
	ok, calls := true, false
	ir.Walk(e, func(x ir.Expr) bool {
		switch n := x.(type) {
		case *ir.Const, *ir.Inf, *ir.ScalarRef, *ir.Unary, *ir.Binary, *ir.Convert, *ir.Select:
		case *ir.Call:
			switch n.Fn {
			case ir.FnExp, ir.FnLog, ir.FnPow:
				calls = true
			}
		case *ir.Var:
			if n.Kind != ir.VarI && n.Kind != ir.VarJ || v != nil && v.Kind != n.Kind {
				ok = false
			}
			v = n
		default:
			ok = false
		}
		return ok
	})
	if !ok || !calls || v == nil {
		return nil
	}
	n := t.p.Cols
	if v.Kind == ir.VarI {
		n = t.p.Rows
	}
	if n <= 0 || n > MaxLen || t.bytes+8*n > t.budget {
		return nil
	}
	vals := make([]float64, n)
	for x := range n {
		i, j := x, int64(0)
		if v.Kind == ir.VarJ {
			i, j = 0, x
		}
		val, err := eval.EvalAt(e, i, j, nil)
		if err != nil {
			return nil
		}
		vals[x] = val.F
	}
	in := &ir.Input{
		Pos: e.Position(), Name: fmt.Sprintf("dp_table%d", len(t.tables)), T: e.Type(),
		Rows: 1, Cols: int(n), Vector: true, F: vals, Origin: "computed (a function of " + v.Name + " alone)",
	}
	t.tables = append(t.tables, in)
	t.bytes += 8 * n
	return &ir.Load{Node: ir.Node{T: e.Type(), Pos: e.Position()}, In: in, Index: []ir.Expr{v}}
}
