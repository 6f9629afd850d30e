package traceback_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// sweep computes the grid of src with the reference evaluator, front by
// front in the plan's order: the traceback is tested apart from the
// executors (whose generic sweeps are tested on their own).
func sweep(t *testing.T, src string) (*ir.Problem, *backend.Grid) {
	t.Helper()
	p, pl := dptest.Load(t, "t.dp", src)
	g := backend.NewGrid(p.CellType, p.Rows, p.Cols)
	cells := eval.GridCells(p.Rows, p.Cols, g.At)
	first, last := pl.T.Range(p.Rows, p.Cols)
	for f := first; f <= last; f++ {
		front := pl.T.Front(f, p.Rows, p.Cols)
		for n := int64(0); n < front.Len(); n++ {
			i, j := front.Cell(n)
			var v ir.Value
			var err error
			for _, c := range p.Cases {
				if c.Cond != nil {
					ok, err := eval.EvalAt(c.Cond, i, j, cells)
					if err != nil {
						t.Fatal(source.Format(err, p.Src))
					}
					if ok.I == 0 {
						continue
					}
				}
				if v, err = eval.EvalAt(c.Value, i, j, cells); err != nil {
					t.Fatal(source.Format(err, p.Src))
				}
				break
			}
			if v, err = eval.Convert(v, p.CellType); err != nil {
				t.Fatal(err)
			}
			g.Set(i, j, v)
		}
	}
	return p, g
}

// matrixChain is the textbook recurrence over the dimensions d.
func matrixChain(d []int64) string {
	return fmt.Sprintf(`long 1x? d = %s
cell: long
(len(d)-1) x (len(d)-1)
cell[i][j] = 0                                                              when i >= j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1])   otherwise
answer: cell[0][COLS-1]
`, dptest.Join(d))
}

// parens writes the parenthesisation a matrix-chain tree stands for, and
// its cost in scalar multiplications, computed from the tree alone.
func parens(t *testing.T, n *traceback.Node, d []int64) (string, int64) {
	t.Helper()
	switch len(n.Children) {
	case 0:
		if n.I != n.J {
			t.Fatalf("leaf cell[%d][%d] is not one matrix", n.I, n.J)
		}
		return fmt.Sprintf("A%d", n.I+1), 0
	case 2:
		l, r := n.Children[0], n.Children[1]
		if l.I != n.I || r.J != n.J || l.J+1 != r.I {
			t.Fatalf("cell[%d][%d] splits into cell[%d][%d] and cell[%d][%d]", n.I, n.J, l.I, l.J, r.I, r.J)
		}
		ls, lc := parens(t, l, d)
		rs, rc := parens(t, r, d)
		return "(" + ls + rs + ")", lc + rc + d[n.I]*d[l.J+1]*d[n.J+1]
	}
	t.Fatalf("cell[%d][%d] has %d children", n.I, n.J, len(n.Children))
	return "", 0
}

// chainCost is the optimal cost by the plain O(n³) loop.
func chainCost(d []int64) int64 {
	n := len(d) - 1
	m := make([][]int64, n)
	for i := range m {
		m[i] = make([]int64, n)
	}
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			m[i][j] = -1
			for k := i; k < j; k++ {
				c := m[i][k] + m[k+1][j] + d[i]*d[k+1]*d[j+1]
				if m[i][j] < 0 || c < m[i][j] {
					m[i][j] = c
				}
			}
		}
	}
	return m[0][n-1]
}

func TestTreeMatrixChain(t *testing.T) {
	d := []int64{30, 35, 15, 5, 10, 20, 25}
	p, g := sweep(t, matrixChain(d))
	tree, err := traceback.Tree(p, g, 0, p.Cols-1)
	if err != nil {
		t.Fatal(err)
	}
	s, cost := parens(t, tree, d)
	if s != "((A1(A2A3))((A4A5)A6))" || cost != 15125 || tree.Value.I != 15125 {
		t.Errorf("CLRS chain: %s costing %d (root %v), want ((A1(A2A3))((A4A5)A6)) costing 15125", s, cost, tree.Value)
	}
	if _, _, ok := tree.Path(); ok {
		t.Errorf("a branching tree reads as a path")
	}
	r := dptest.Rand(t)
	for k := 0; k < 20; k++ {
		d := make([]int64, 2+r.IntN(12))
		for q := range d {
			d[q] = int64(1 + r.IntN(40))
		}
		p, g := sweep(t, matrixChain(d))
		tree, err := traceback.Tree(p, g, 0, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		_, cost := parens(t, tree, d)
		if want := chainCost(d); cost != want || tree.Value.I != want {
			t.Fatalf("d = %v: the tree costs %d, the root holds %v, the reference %d", d, cost, tree.Value, want)
		}
		var pre []string
		tree.Walk(func(m *traceback.Node, depth int) { pre = append(pre, fmt.Sprintf("%d:%d,%d", depth, m.I, m.J)) })
		if len(pre) != 2*(len(d)-1)-1 || pre[0] != fmt.Sprintf("0:0,%d", len(d)-2) {
			t.Fatalf("d = %v: pre-order %v, want %d nodes from the root", d, pre, 2*(len(d)-1)-1)
		}
	}
}

// TestTreeIsTraceForPaths: where every step reads one cell, the tree is a
// path and it is the one Trace finds, emitted values included.
func TestTreeIsTraceForPaths(t *testing.T) {
	r := dptest.Rand(t)
	for k := 0; k < 20; k++ {
		a, b := dptest.DNA(r, r.IntN(30)), dptest.DNA(r, r.IntN(30))
		p, g := sweep(t, dptest.LCS(a, b))
		path, emitted, err := traceback.Trace(p, g, p.Rows-1, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := traceback.Tree(p, g, p.Rows-1, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		tp, te, ok := tree.Path()
		if !ok || fmt.Sprint(tp) != fmt.Sprint(path) || fmt.Sprint(te) != fmt.Sprint(emitted) {
			t.Fatalf("LCS(%q, %q): tree path %v %v (%v), Trace %v %v", a, b, tp, te, ok, path, emitted)
		}
	}
}

// TestTreeFollows: what a tree follows at each node.
func TestTreeFollows(t *testing.T) {
	cases := []struct {
		name string
		src  string
		at   [2]int64
		want string // pre-order, a node's children in parentheses
	}{
		{"every cell of a sum", `3 x 3
cell[i][j] = 7                                   when i == 0
           | 2 * (cell[i-1][2] + cell[i-1][j])   otherwise
`, [2]int64{1, 0}, "[1][0]([0][2] [0][0])"},
		{"the winning argument of min only", `int 1x3 A = 5,1,7
3 x 3
cell[i][j] = A[j]                                   when i == 0
           | min(cell[i-1][0] + cell[i-1][2], cell[i-1][1] + 0)   otherwise
`, [2]int64{1, 2}, "[1][2]([0][1])"},
		{"a sum reduction follows every term", `4 x 1
cell[i][j] = 1                                   when i == 0
           | sum(k in 0..i-1: cell[k][0])        otherwise
`, [2]int64{2, 0}, "[2][0]([0][0] [1][0]([0][0]))"},
		{"&& follows what it evaluates", `3 x 3
cell[i][j] = 0                                   when i == 0
           | cell[i-1][j] > 5 && cell[i-1][0] > 0 ? 1 : 2   otherwise
`, [2]int64{1, 1}, "[1][1]"},
		{"emit after the case", `int 1x3 A = 4,5,6
3 x 3
cell[i][j] = 0                                   when i == 0 || j == 0
           | cell[i-1][j-1] + cell[i][j-1]       otherwise   emit A[j]
`, [2]int64{2, 2}, "[2][2]=6([1][1]=5([0][0] [1][0]) [2][1]=5([1][0] [2][0]))"},
	}
	for _, tc := range cases {
		p, g := sweep(t, tc.src)
		tree, err := traceback.Tree(p, g, tc.at[0], tc.at[1])
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := outline(tree); got != tc.want {
			t.Errorf("%s: tree %s, want %s", tc.name, got, tc.want)
		}
	}
}

// outline writes a tree as [i][j]=emit(children...).
func outline(n *traceback.Node) string {
	s := fmt.Sprintf("[%d][%d]", n.I, n.J)
	if n.Emit != nil {
		s += "=" + n.Emit.String()
	}
	if len(n.Children) > 0 {
		var cs []string
		for _, c := range n.Children {
			cs = append(cs, outline(c))
		}
		s += "(" + strings.Join(cs, " ") + ")"
	}
	return s
}

func TestTreeErrors(t *testing.T) {
	// Fibonacci: every cell reads the two before it, a tree of about
	// 1.6^n nodes over n cells.
	p, g := sweep(t, `cell: long
(40)
cell[j] = 1                   when j < 2
        | cell[j-1] + cell[j-2]   otherwise
`)
	if _, err := traceback.Tree(p, g, 0, 39); err == nil || !strings.Contains(err.Error(), "more nodes than the 1-D grid of 40 cells has cells") {
		t.Errorf("shared cells: error %v", err)
	}
	if tree, err := traceback.Tree(p, g, 0, 5); err != nil || countNodes(tree) != 15 {
		t.Errorf("cell[5] of Fibonacci: %v, want a tree of 15 nodes", err)
	}

	// A walk in a circle, on a grid not computed: cell[0][0] -> [1][0] ->
	// [2][0] -> [0][0].
	q := check(t, `3 x 3
cell[i][j] = cell[(i+1) % ROWS][j] + 1
`)
	_, err := traceback.Tree(q, backend.NewGrid(q.CellType, 3, 3), 0, 0)
	if err == nil || !strings.Contains(err.Error(), "t.dp:2:14: traceback: cell[2][0] reads cell[0][0] through cell[(i+1) % ROWS][j], which leads back to it: a cycle") {
		t.Errorf("cycle: error %v", err)
	}
	// A read outside the grid is named at its reference; 1-D cells by
	// their one index.
	o := check(t, `(5)
cell[j] = cell[j-1] + cell[j-2]
`)
	_, err = traceback.Tree(o, backend.NewGrid(o.CellType, 1, 5), 0, 4)
	if err == nil || !strings.Contains(err.Error(), "t.dp:2:23: traceback: cell[1] reads cell[-1] through cell[j-2], outside the 1-D grid of 5 cells") {
		t.Errorf("outside: error %v", err)
	}
	if _, err := traceback.Tree(o, backend.NewGrid(o.CellType, 1, 5), 0, 5); err == nil || !strings.Contains(err.Error(), "starts at cell[5], outside") {
		t.Errorf("start outside: error %v", err)
	}
	if _, err := traceback.Tree(o, nil, 0, 0); err == nil {
		t.Errorf("no grid: no error")
	}
}

func countNodes(n *traceback.Node) int {
	c := 0
	n.Walk(func(*traceback.Node, int) { c++ })
	return c
}

// TestOutline: a tree on one line, children in parentheses in the order
// the recurrence reads them; a chain as deep as a long grid needs no
// recursion.
func TestOutline(t *testing.T) {
	leaf := func(i, j int64) *traceback.Node { return &traceback.Node{I: i, J: j} }
	tree := &traceback.Node{I: 0, J: 3, Children: []*traceback.Node{
		{I: 0, J: 1, Children: []*traceback.Node{leaf(0, 0), leaf(1, 1)}},
		leaf(2, 3),
	}}
	name := func(i, j int64) string { return fmt.Sprintf("c[%d][%d]", i, j) }
	if got, want := tree.Outline(name), "c[0][3](c[0][1](c[0][0] c[1][1]) c[2][3])"; got != want {
		t.Errorf("outline %q, want %q", got, want)
	}
	if got := leaf(4, 5).Outline(name); got != "c[4][5]" {
		t.Errorf("a leaf: %q", got)
	}
	deep := leaf(0, 0)
	for k := int64(1); k <= 1_000_000; k++ {
		deep = &traceback.Node{I: 0, J: k, Children: []*traceback.Node{deep}}
	}
	got := deep.Outline(func(i, j int64) string { return "x" })
	if len(got) != 1_000_001+2*1_000_000 || !strings.HasPrefix(got, "x(x(") || strings.Count(got, "x") != 1_000_001 || !strings.HasSuffix(got, "x"+strings.Repeat(")", 1_000_000)) {
		t.Errorf("deep chain: %d bytes", len(got))
	}
}
