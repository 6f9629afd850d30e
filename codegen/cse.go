package codegen

import (
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// A case written as a branch, `if (cond) return value;`, often computes
// in value what cond computed already: the knapsack's
// `cell[i-1][w-wt[i-1]] + val[i-1]` is both the candidate compared and the
// value returned. Where the subexpression's checks may report (an
// addition that may overflow, a reference not proved inside the grid), the
// compiler cannot merge the two copies (each may call dp_fail); the
// generator does: cond assigns the shared value to a temporary, which the
// value reads. Only where cond being true means cond computed it (either
// side of the &&s cond's truth needs, the left of any other && or ||, the
// operands of operators and calls, indices: not the right of an || or of
// an && that may be false, a select's branches or a reduction's body), so
// the temporary is always set when read.

// cseEntry is one shared subexpression: its temporary, and whether the
// node is cond's (assign it) or value's (read it).
type cseEntry struct {
	name   string
	assign bool
}

// cseCase finds the subexpressions c's value shares with c's condition,
// declares their temporaries in b and records them in m.cse; k numbers
// the case (the temporaries' names).
func (m *emitter) cseCase(b *strings.Builder, c *ir.Case, k int) {
	m.cse = nil
	if c.Cond == nil {
		return
	}
	// always collects the nodes of cond computed whenever cond is true:
	// where e must be true (the root, either side of an && that must be),
	// both sides of &&; elsewhere only its left (the right may be skipped
	// whatever the value); never the right of ||, the inside of !'s &&
	// beyond its left, a select's branches, a reduction's body.
	var conds []ir.Expr
	var always func(e ir.Expr, mustBeTrue bool)
	always = func(e ir.Expr, mustBeTrue bool) {
		if cseWorth(e) {
			conds = append(conds, e)
		}
		switch n := e.(type) {
		case *ir.Binary:
			switch n.Op {
			case ir.OpAnd:
				always(n.X, mustBeTrue)
				if mustBeTrue {
					always(n.Y, true)
				}
			case ir.OpOr:
				always(n.X, false)
			default:
				always(n.X, false)
				always(n.Y, false)
			}
		case *ir.Unary:
			always(n.X, false)
		case *ir.Convert:
			always(n.X, false)
		case *ir.Call:
			for _, a := range n.Args {
				always(a, false)
			}
		case *ir.Select:
			always(n.Cond, false)
		case *ir.CellRef:
			always(n.I, false)
			always(n.J, false)
		case *ir.Load:
			for _, x := range n.Index {
				always(x, false)
			}
		}
	}
	always(c.Cond, true)
	if len(conds) == 0 {
		return
	}
	n := 0
	var visit func(e ir.Expr)
	visit = func(e ir.Expr) {
		if cseWorth(e) {
			for _, y := range conds {
				if _, taken := m.cse[y]; !taken && analysis.SameExpr(e, y) {
					name := fmt.Sprintf("dp_cse%d_%d", k, n)
					n++
					if m.cse == nil {
						m.cse = map[ir.Expr]cseEntry{}
					}
					m.cse[y] = cseEntry{name: name, assign: true}
					m.cse[e] = cseEntry{name: name}
					fmt.Fprintf(b, "\t%s %s;\n", ctype(e.Type()), name)
					return
				}
			}
		}
		switch x := e.(type) {
		case *ir.Binary:
			visit(x.X)
			visit(x.Y)
		case *ir.Unary:
			visit(x.X)
		case *ir.Convert:
			visit(x.X)
		case *ir.Call:
			for _, a := range x.Args {
				visit(a)
			}
		case *ir.Select:
			visit(x.Cond)
			visit(x.Then)
			visit(x.Else)
		}
	}
	visit(c.Value)
}

// cseWorth reports whether sharing e saves work that may report: an
// arithmetic operation or a call over a cell read (not a read alone, which
// the kernels serve from registers).
func cseWorth(e ir.Expr) bool {
	switch n := e.(type) {
	case *ir.Binary:
		if n.Op == ir.OpAnd || n.Op == ir.OpOr || n.T == ir.Bool {
			return false
		}
	case *ir.Call:
	default:
		return false
	}
	if e.Type().IsFloat() {
		// Floating cells keep their text (no built-in repeats one; left
		// alone rather than untested).
		return false
	}
	reads, reduces := false, false
	ir.Walk(e, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.CellRef:
			reads = true
		case *ir.Reduce:
			reduces = true // its variables make equal text mean other values
		}
		return !reduces
	})
	return reads && !reduces
}
