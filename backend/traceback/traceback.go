// Package traceback recovers a solution from a kept grid. Starting at the
// answer cell, it finds at every step which case produced the cell (the
// first whose condition holds), records what that case emits, and moves to
// the cells that produced the value: for min and max (calls and reductions)
// the winning argument (the first of equals, as the evaluators pick it), for
// ?: the branch taken.
//
// What a step emits is the emit of the min or max argument that won, when
// the argument has one (`max(cell[i-1][j] emit '-', cell[i][j-1] emit
// '|')`, contract v2 §7.4), else the emit of the case (stepEmit says which
// when several arguments with emits win).
//
// Two walks share those rules. Trace follows one cell per step, the first
// cell reference of the value left to right, and returns a path: what the
// recurrences of contract v1 (LCS, alignments, knapsacks) need. Tree follows
// every cell reference of the winning term (contract v2 §7.4): when the
// value adds several cells, as interval DP does (cell[i][k] + cell[k+1][j]),
// the solution is a tree. Both stop at a case whose value reads no cell.
package traceback

import (
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// Trace walks back from cell [i][j] of grid g of problem p. It returns the
// cells visited and the values emitted, both in path order: from the start
// of the grid to the answer cell.
func Trace(p *ir.Problem, g *backend.Grid, i, j int64) (path [][2]int64, emitted []ir.Value, err error) {
	if err := wholeGrid(p, g); err != nil {
		return nil, nil, err
	}
	t, err := newTracer(p, gridSource{g}, i, j)
	if err != nil {
		return nil, nil, err
	}
	seen := map[[2]int64]bool{}
	for {
		at := [2]int64{i, j}
		if seen[at] {
			return nil, nil, &source.Error{Pos: p.RecurPos, Msg: fmt.Sprintf("traceback: the recurrence leads back to %s, a cycle", p.CellText(i, j))}
		}
		seen[at] = true
		path = append(path, at)
		c, _, err := t.whichCase(i, j)
		if err != nil {
			return nil, nil, err
		}
		next, v, err := t.step(c, i, j, false)
		if err != nil {
			return nil, nil, err
		}
		if v != nil {
			emitted = append(emitted, *v)
		}
		if len(next) == 0 {
			break
		}
		if err := t.inside(i, j, next[0]); err != nil {
			return nil, nil, err
		}
		i, j = next[0].i, next[0].j
	}
	reverse(path)
	reverse(emitted)
	return path, emitted, nil
}

// Node is one cell of a traceback tree.
type Node struct {
	I, J int64
	// Case is the case that produced the cell: its index in the
	// recurrence, 0 for the first.
	Case int
	// Value is the cell's value in the grid.
	Value ir.Value
	// Emit is what the step emits: the emit of the winning argument of a
	// min or max when it has one, else the case's; nil when neither has.
	Emit *ir.Value
	// Children are the cells the winning term read, in the order the
	// recurrence reads them (left to right; a sum reduction by increasing
	// index). A leaf's case reads no cell.
	Children []*Node
}

// Tree walks back from cell [i][j] of grid g of problem p, following every
// cell reference of the term that produced each value (Trace follows only
// the first). Its errors are positioned: a read outside the grid at the
// reference that makes it, a cycle at the recurrence.
//
// A cell reached twice, through two branches, is two nodes: the tree of an
// interval DP shares no cells, but a recurrence whose terms share cells
// (cell[j-1] + cell[j-2]) has a tree exponentially larger than its grid.
// Tree refuses one of more nodes than the grid has cells (p.Cells()).
func Tree(p *ir.Problem, g *backend.Grid, i, j int64) (*Node, error) {
	if err := wholeGrid(p, g); err != nil {
		return nil, err
	}
	return TreeFrom(p, gridSource{g}, i, j)
}

// Source is what a walk reads cells from: a kept grid, or a grid kept as
// checkpoints that recomputes what is read (backend/checkpoint). At
// returns the value of cell [i][j]; when it cannot (the recomputation
// failed), it returns any value and Err says why, and the walk stops
// with that error.
type Source interface {
	At(i, j int64) ir.Value
	Err() error
}

// GridSource is the Source of a kept grid.
func GridSource(g *backend.Grid) Source { return gridSource{g} }

type gridSource struct{ g *backend.Grid }

func (s gridSource) At(i, j int64) ir.Value { return s.g.At(i, j) }
func (gridSource) Err() error               { return nil }

// TreeFrom is Tree over the cells of src, which holds p's grid.
func TreeFrom(p *ir.Problem, src Source, i, j int64) (*Node, error) {
	t, err := newTracer(p, src, i, j)
	if err != nil {
		return nil, err
	}
	limit := p.Cells()
	count := int64(0)
	// An explicit stack rather than recursion: a tree may be a path as
	// long as the grid is wide (LIS over a million values).
	type frame struct {
		n    *Node
		next []ref // children not yet built
	}
	// Where every reference reads a cell before its own in row-major
	// order, no walk can return to a cell: no set of the cells on the
	// path (a path through two genomes has millions), and a node whose
	// last child is being built leaves the stack.
	acyclic := backward(p)
	onPath := map[[2]int64]bool{}
	var slab []Node
	var kids []*Node
	build := func(i, j int64) (*Node, []ref, error) {
		count++
		if count > limit {
			return nil, nil, &source.Error{Pos: p.RecurPos, Msg: fmt.Sprintf("traceback: the tree has more nodes than the %s has cells (%d): the terms of the recurrence read shared cells, so the solution is not a tree of its cells (a DAG, counted once per path through it); traceback is for recurrences whose terms read disjoint cells", p.GridText(), limit)}
		}
		c, k, err := t.whichCase(i, j)
		if err := t.failed(err); err != nil {
			return nil, nil, err
		}
		next, emit, err := t.step(c, i, j, true)
		if err := t.failed(err); err != nil {
			return nil, nil, err
		}
		// Nodes, and their first child pointers, from slabs: a path of
		// millions of nodes is a few thousand allocations.
		if len(slab) == 0 {
			slab = make([]Node, 4096)
		}
		n := &slab[0]
		slab = slab[1:]
		*n = Node{I: i, J: j, Case: k, Value: src.At(i, j), Emit: emit}
		if len(next) > 0 {
			if len(kids) < len(next) {
				kids = make([]*Node, max(4096, len(next)))
			}
			n.Children, kids = kids[:0:len(next)], kids[len(next):]
		}
		if err := t.failed(nil); err != nil {
			return nil, nil, err
		}
		for _, r := range next {
			if err := t.inside(i, j, r); err != nil {
				return nil, nil, err
			}
			if acyclic {
				continue
			}
			if onPath[[2]int64{r.i, r.j}] || (r.i == i && r.j == j) {
				return nil, nil, &source.Error{Pos: r.pos, Msg: fmt.Sprintf("traceback: %s reads %s through %s, which leads back to it: a cycle", p.CellText(i, j), p.CellText(r.i, r.j), r.text)}
			}
		}
		return n, next, nil
	}
	root, next, err := build(i, j)
	if err != nil {
		return nil, err
	}
	if !acyclic {
		onPath[[2]int64{i, j}] = true
	}
	stack := []frame{{root, next}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.next) == 0 {
			if !acyclic {
				delete(onPath, [2]int64{top.n.I, top.n.J})
			}
			stack = stack[:len(stack)-1]
			continue
		}
		r := top.next[0]
		top.next = top.next[1:]
		child, next, err := build(r.i, r.j)
		if err != nil {
			return nil, err
		}
		top.n.Children = append(top.n.Children, child)
		if acyclic && len(top.next) == 0 {
			// Its last child: nothing left to build for it.
			stack = stack[:len(stack)-1]
		} else if !acyclic {
			onPath[[2]int64{r.i, r.j}] = true
		}
		stack = append(stack, frame{child, next})
	}
	return root, nil
}

// backward reports whether every reference of p's recurrence reads a cell
// before its own in row-major order, by constant offsets: cell[i-d][..]
// with d >= 1, or cell[i][j-d] with d >= 1 (a 2-D grid of one table).
// A walk back through such a recurrence cannot return to a cell.
func backward(p *ir.Problem) bool {
	if p.Dims != 2 || len(p.Tables) > 1 || len(p.CellRefs) == 0 {
		return false
	}
	for _, r := range p.CellRefs {
		di, okI := analysis.Offset(r.I, ir.VarI)
		dj, okJ := analysis.Offset(r.J, ir.VarJ)
		if !okI || !okJ || di < 0 || (di == 0 && dj <= 0) {
			return false
		}
	}
	return true
}

// Path returns the tree as Trace returns a path — its cells and emitted
// values from the deepest cell up to the root — when every node has at
// most one child; ok is false for a tree that branches.
func (n *Node) Path() (path [][2]int64, emitted []ir.Value, ok bool) {
	for at := n; at != nil; {
		path = append(path, [2]int64{at.I, at.J})
		if at.Emit != nil {
			emitted = append(emitted, *at.Emit)
		}
		switch len(at.Children) {
		case 0:
			at = nil
		case 1:
			at = at.Children[0]
		default:
			return nil, nil, false
		}
	}
	reverse(path)
	reverse(emitted)
	return path, emitted, true
}

// Walk calls f for n and its descendants in pre-order (a node before its
// children, children in order), with each node's depth (0 for n), without
// recursion.
func (n *Node) Walk(f func(m *Node, depth int)) {
	type item struct {
		m     *Node
		depth int
	}
	stack := []item{{n, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f(it.m, it.depth)
		for k := len(it.m.Children) - 1; k >= 0; k-- {
			stack = append(stack, item{it.m.Children[k], it.depth + 1})
		}
	}
}

func reverse[T any](s []T) {
	for a, b := 0, len(s)-1; a < b; a, b = a+1, b-1 {
		s[a], s[b] = s[b], s[a]
	}
}

type tracer struct {
	p     *ir.Problem
	src   Source
	cells eval.CellFunc

	// The argument emit of the step being walked (nil: none yet), and
	// how many emitting winning arguments enclose it (argDepth) and the
	// walk now (depth); see stepEmit.
	argEmit  *ir.Value
	argDepth int
	depth    int
}

// step walks one cell's case c: the cells its value read (all of them, or
// the first, as follow does) and what the step emits (stepEmit).
func (t *tracer) step(c *ir.Case, i, j int64, all bool) ([]ref, *ir.Value, error) {
	t.argEmit, t.argDepth, t.depth = nil, 0, 0
	next, err := t.follow(c.Value, i, j, nil, all, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("traceback at %s: %w", t.p.CellText(i, j), err)
	}
	emit, err := t.stepEmit(c, i, j)
	if err != nil {
		return nil, nil, fmt.Errorf("traceback at %s: %w", t.p.CellText(i, j), err)
	}
	return next, emit, nil
}

// stepEmit is what a step through case c emits. The emit of a winning
// min or max argument wins over the case's (which says what the case
// contributes when no argument says more). When several winning arguments
// have one, the innermost wins: `max(max(a emit 1, b) emit 2, c)` emits
// 1 when a wins, 2 when b does; and of arguments side by side, which only
// a tree's step follows (`max(a emit 1, b) + max(c emit 2, d)`), the first
// in reading order.
func (t *tracer) stepEmit(c *ir.Case, i, j int64) (*ir.Value, error) {
	if t.argEmit != nil {
		return t.argEmit, nil
	}
	if c.Emit == nil {
		return nil, nil
	}
	v, err := eval.EvalAt(c.Emit, i, j, t.cells)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// wholeGrid checks that g is p's whole grid.
func wholeGrid(p *ir.Problem, g *backend.Grid) error {
	if g == nil {
		return fmt.Errorf("traceback needs the whole grid, and it was not kept")
	}
	if g.Rows != p.Rows || g.Cols != p.Cols {
		return fmt.Errorf("traceback: the grid is %dx%d, the problem's %dx%d", g.Rows, g.Cols, p.Rows, p.Cols)
	}
	return nil
}

// newTracer checks that [i][j] lies in p's grid.
func newTracer(p *ir.Problem, src Source, i, j int64) (*tracer, error) {
	if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols {
		return nil, &source.Error{Pos: p.RecurPos, Msg: fmt.Sprintf("traceback: it starts at %s, outside the %s", p.CellText(i, j), p.GridText())}
	}
	return &tracer{p: p, src: src, cells: eval.GridCells(p.Rows, p.Cols, src.At)}, nil
}

// failed is the source's error when it has one (what the walk computed
// from its values means nothing then), else err.
func (t *tracer) failed(err error) error {
	if e := t.src.Err(); e != nil {
		return e
	}
	return err
}

// ref is a cell the walk moves to, with the reference that reads it.
type ref struct {
	i, j int64
	pos  source.Pos
	text string
}

// inside checks that the cell r, read by [i][j], lies in the grid.
func (t *tracer) inside(i, j int64, r ref) error {
	p := t.p
	if r.i < 0 || r.i >= p.Rows || r.j < 0 || r.j >= p.Cols {
		return &source.Error{Pos: r.pos, Msg: fmt.Sprintf("traceback: %s reads %s through %s, outside the %s", p.CellText(i, j), p.CellText(r.i, r.j), r.text, p.GridText())}
	}
	return nil
}

// whichCase returns the first case whose condition holds at [i][j], and
// its index.
func (t *tracer) whichCase(i, j int64) (*ir.Case, int, error) {
	for k, c := range t.p.Cases {
		if c.Cond == nil {
			return c, k, nil
		}
		v, err := eval.EvalAt(c.Cond, i, j, t.cells)
		if err != nil {
			return nil, 0, fmt.Errorf("traceback at %s: %w", t.p.CellText(i, j), err)
		}
		if v.I != 0 {
			return c, k, nil
		}
	}
	return nil, 0, &source.Error{Pos: t.p.RecurPos, Msg: fmt.Sprintf("traceback at %s: no case applies", t.p.CellText(i, j))}
}

// follow appends to out the cells whose values produced e at [i][j]: for
// min and max the winning argument's, for ?: the branch taken's. Beyond
// those, with all it follows every operand (every term of a sum
// reduction, both sides of + - * ...; && and || only as far as they are
// evaluated); without it only the first operand that reads a cell (the
// first term of a sum reduction), so that the walk is a path.
func (t *tracer) follow(e ir.Expr, i, j int64, binds []eval.Binding, all bool, out []ref) ([]ref, error) {
	evalAt := func(x ir.Expr) (ir.Value, error) { return eval.EvalWith(x, i, j, binds, t.cells) }
	switch n := e.(type) {
	case *ir.CellRef:
		ri, err := evalAt(n.I)
		if err != nil {
			return nil, err
		}
		rj, err := evalAt(n.J)
		if err != nil {
			return nil, err
		}
		return append(out, ref{ri.I, rj.I, n.Pos, n.Text}), nil
	case *ir.Call:
		if n.Fn == ir.FnMin || n.Fn == ir.FnMax {
			vals := make([]ir.Value, len(n.Args))
			for k, a := range n.Args {
				v, err := evalAt(a)
				if err != nil {
					return nil, err
				}
				vals[k] = v
			}
			k := eval.WinningArg(n.Fn == ir.FnMin, vals)
			if k < 0 {
				return out, nil
			}
			if k >= len(n.Emits) || n.Emits[k] == nil {
				return t.follow(n.Args[k], i, j, binds, all, out)
			}
			// The winning argument has an emit: the step's, unless one
			// inside it wins too (stepEmit).
			t.depth++
			if t.argEmit == nil || t.depth > t.argDepth {
				v, err := eval.EvalWith(n.Emits[k], i, j, binds, t.cells)
				if err != nil {
					return nil, err
				}
				t.argEmit, t.argDepth = &v, t.depth
			}
			out, err := t.follow(n.Args[k], i, j, binds, all, out)
			t.depth--
			return out, err
		}
	case *ir.Select:
		c, err := evalAt(n.Cond)
		if err != nil {
			return nil, err
		}
		if c.I != 0 {
			return t.follow(n.Then, i, j, binds, all, out)
		}
		return t.follow(n.Else, i, j, binds, all, out)
	case *ir.Binary:
		if all && (n.Op == ir.OpAnd || n.Op == ir.OpOr) {
			// Only what is evaluated produced the value.
			x, err := evalAt(n.X)
			if err != nil {
				return nil, err
			}
			if out, err = t.follow(n.X, i, j, binds, all, out); err != nil {
				return nil, err
			}
			if (n.Op == ir.OpAnd) == (x.I != 0) {
				return t.follow(n.Y, i, j, binds, all, out)
			}
			return out, nil
		}
	case *ir.Reduce:
		lo, err := evalAt(n.Lo)
		if err != nil {
			return nil, err
		}
		hi, err := evalAt(n.Hi)
		if err != nil {
			return nil, err
		}
		if lo.I > hi.I {
			return out, nil
		}
		if n.Op == ir.ReduceSum {
			if !all {
				return t.follow(n.Body, i, j, bind(binds, n, lo.I), all, out)
			}
			if !readsCell(n.Body) {
				return out, nil
			}
			for k := lo.I; ; k++ {
				if out, err = t.follow(n.Body, i, j, bind(binds, n, k), all, out); err != nil {
					return nil, err
				}
				if k == hi.I {
					return out, nil
				}
			}
		}
		win := lo.I
		var best []ir.Value
		for k := lo.I; ; k++ {
			v, err := eval.EvalWith(n.Body, i, j, bind(binds, n, k), t.cells)
			if err != nil {
				return nil, err
			}
			if best == nil {
				best = []ir.Value{v, v}
			}
			best[1] = v
			if eval.WinningArg(n.Op == ir.ReduceMin, best) == 1 {
				best[0], win = v, k
			}
			if k == hi.I {
				break
			}
		}
		return t.follow(n.Body, i, j, bind(binds, n, win), all, out)
	case *ir.Load, *ir.Const, *ir.Inf, *ir.ScalarRef, *ir.Var:
		return out, nil
	}
	var err error
	for _, x := range operands(e) {
		if !readsCell(x) {
			continue
		}
		if !all {
			// The first operand (left to right) that reads a cell.
			return t.follow(x, i, j, binds, all, out)
		}
		if out, err = t.follow(x, i, j, binds, all, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func bind(binds []eval.Binding, r *ir.Reduce, v int64) []eval.Binding {
	out := make([]eval.Binding, len(binds), len(binds)+1)
	copy(out, binds)
	return append(out, eval.Binding{Reduce: r, Value: v})
}

// operands are the value operands of e (not the indices of reads).
func operands(e ir.Expr) []ir.Expr {
	switch n := e.(type) {
	case *ir.Unary:
		return []ir.Expr{n.X}
	case *ir.Binary:
		return []ir.Expr{n.X, n.Y}
	case *ir.Convert:
		return []ir.Expr{n.X}
	case *ir.Call:
		return n.Args
	case *ir.Select:
		return []ir.Expr{n.Then, n.Else}
	case *ir.Reduce:
		return []ir.Expr{n.Body}
	}
	return nil
}

// readsCell reports whether e's value reads a cell.
func readsCell(e ir.Expr) bool {
	if _, ok := e.(*ir.CellRef); ok {
		return true
	}
	for _, x := range operands(e) {
		if readsCell(x) {
			return true
		}
	}
	return false
}

// Outline writes the tree on one line, each cell as name gives it followed
// by its children in parentheses: "cell[0][3](cell[0][1](cell[0][0]
// cell[1][1]) cell[2][3])". It is the solution of a tree traceback where
// nothing renders it (a batch's solution column).
func (n *Node) Outline(name func(i, j int64) string) string {
	var b strings.Builder
	// An explicit stack (a tree may be as deep as the grid is long): a
	// node is entered, then its children, then closed.
	type item struct {
		m     *Node
		close bool
		first bool
	}
	stack := []item{{m: n, first: true}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.close {
			b.WriteByte(')')
			continue
		}
		if !it.first {
			b.WriteByte(' ')
		}
		b.WriteString(name(it.m.I, it.m.J))
		if len(it.m.Children) == 0 {
			continue
		}
		b.WriteByte('(')
		stack = append(stack, item{m: it.m, close: true})
		for k := len(it.m.Children) - 1; k >= 0; k-- {
			stack = append(stack, item{m: it.m.Children[k], first: k == 0})
		}
	}
	return b.String()
}
