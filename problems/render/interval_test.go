package render

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/ir"
)

// The tree renderers read trees built here by hand from plain-Go dynamic
// programs, apart from the traceback package.

func longVector(name string, v []int64) *ir.Input {
	return &ir.Input{Name: name, T: ir.Long, Rows: 1, Cols: len(v), Vector: true, I: v}
}

func node(i, j, value int64, children ...*traceback.Node) *traceback.Node {
	return &traceback.Node{I: i, J: j, Value: ir.Value{T: ir.Long, I: value}, Children: children}
}

// chainTree is the optimal matrix-chain tree of d by the O(n³) loop, the
// first best split on ties.
func chainTree(d []int64) *traceback.Node {
	n := len(d) - 1
	m, s := make([][]int64, n), make([][]int, n)
	for i := range m {
		m[i], s[i] = make([]int64, n), make([]int, n)
	}
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			m[i][j] = -1
			for k := i; k < j; k++ {
				if c := m[i][k] + m[k+1][j] + d[i]*d[k+1]*d[j+1]; m[i][j] < 0 || c < m[i][j] {
					m[i][j], s[i][j] = c, k
				}
			}
		}
	}
	var build func(i, j int) *traceback.Node
	build = func(i, j int) *traceback.Node {
		if i == j {
			return node(int64(i), int64(j), 0)
		}
		k := s[i][j]
		return node(int64(i), int64(j), m[i][j], build(i, k), build(k+1, j))
	}
	return build(0, n-1)
}

func TestMatrixChain(t *testing.T) {
	d := []int64{30, 35, 15, 5, 10, 20, 25}
	p := &ir.Problem{Name: "matrix-chain", Rows: 6, Cols: 6, Inputs: []*ir.Input{longVector("d", d)}}
	text, ok := MatrixChain(p, &backend.Result{}, chainTree(d))
	if want := "((A1(A2A3))((A4A5)A6))\n6 matrices, cost 15125 scalar multiplications"; !ok || text != want {
		t.Errorf("CLRS chain: %v %q, want %q", ok, text, want)
	}
	one := &ir.Problem{Name: "matrix-chain", Rows: 1, Cols: 1, Inputs: []*ir.Input{longVector("d", []int64{3, 4})}}
	if text, ok := MatrixChain(one, nil, node(0, 0, 0)); !ok || text != "A1\n1 matrix, cost 0 scalar multiplications" {
		t.Errorf("one matrix: %v %q", ok, text)
	}
	// What it refuses: no tree, a leaf over two matrices, a split that
	// does not cover the interval, no input d.
	for name, tc := range map[string]struct {
		p    *ir.Problem
		tree *traceback.Node
	}{
		"no tree":       {p, nil},
		"wide leaf":     {p, node(0, 5, 0)},
		"bad split":     {p, node(0, 5, 1, node(0, 1, 0, node(0, 0, 0), node(1, 1, 0)), node(3, 5, 0))},
		"no dimensions": {&ir.Problem{Name: "matrix-chain", Rows: 6, Cols: 6}, chainTree(d)},
	} {
		if text, ok := MatrixChain(tc.p, nil, tc.tree); ok {
			t.Errorf("%s: rendered %q", name, text)
		}
	}
}

// nussinovTree folds s by the plain recurrence, building the tree the
// traceback follows: the first best of (i+1, j), (i, j-1), (i+1, j-1) +
// pair, then the splits by increasing k.
func nussinovTree(s string, minloop int, wobble bool) *traceback.Node {
	n := len(s)
	m := make([][]int64, n+1)
	for i := range m {
		m[i] = make([]int64, n+1)
	}
	pair := func(i, j int) int64 {
		if rnaPairs(s[i], s[j], wobble) {
			return 1
		}
		return 0
	}
	for l := minloop + 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			m[i][j] = max(m[i+1][j], m[i][j-1], m[i+1][j-1]+pair(i, j))
			for k := i + 1; k < j; k++ {
				m[i][j] = max(m[i][j], m[i][k]+m[k+1][j])
			}
		}
	}
	var build func(i, j int) *traceback.Node
	build = func(i, j int) *traceback.Node {
		v := int64(0)
		if i <= j {
			v = m[i][j]
		}
		if j-i <= minloop {
			return node(int64(i), int64(j), v)
		}
		switch {
		case v == m[i+1][j]:
			return node(int64(i), int64(j), v, build(i+1, j))
		case v == m[i][j-1]:
			return node(int64(i), int64(j), v, build(i, j-1))
		case v == m[i+1][j-1]+pair(i, j):
			return node(int64(i), int64(j), v, build(i+1, j-1))
		}
		for k := i + 1; k < j; k++ {
			if v == m[i][k]+m[k+1][j] {
				return node(int64(i), int64(j), v, build(i, k), build(k+1, j))
			}
		}
		panic("no term gives the value")
	}
	return build(0, n-1)
}

func rnaProblem(s string, minloop, wobble int) *ir.Problem {
	return &ir.Problem{Name: "nussinov", Rows: int64(len(s)), Cols: int64(len(s)), CellType: ir.Int,
		Inputs: []*ir.Input{charInput("s", s)}, Scalars: intScalars("minloop", minloop, "wobble", wobble)}
}

func TestNussinov(t *testing.T) {
	text, ok := Nussinov(rnaProblem("GGGAAAUCC", 3, 1), nil, nussinovTree("GGGAAAUCC", 3, true))
	if want := "GGGAAAUCC\n(((...)))\n3 base pairs"; !ok || text != want {
		t.Errorf("GGGAAAUCC: %v %q, want %q", ok, text, want)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 200; k++ {
		s := randomDNA(r, 1+r.IntN(150), "ACGU")
		minloop, wobble := r.IntN(4), r.IntN(2)
		tree := nussinovTree(s, minloop, wobble == 1)
		text, ok := Nussinov(rnaProblem(s, minloop, wobble), nil, tree)
		if !ok {
			t.Fatalf("%s: no rendering", s)
		}
		lines := strings.Split(text, "\n")
		var seq, dots string
		for q := 0; q+1 < len(lines)-1; q += 2 {
			seq, dots = seq+lines[q], dots+lines[q+1]
		}
		// The structure is balanced, its pairs may pair across more than
		// minloop bases, and there are as many as the fold's value.
		var open []int
		pairs := 0
		for j, c := range dots {
			switch c {
			case '(':
				open = append(open, j)
			case ')':
				i := open[len(open)-1]
				open = open[:len(open)-1]
				if !rnaPairs(s[i], s[j], wobble == 1) || j-i <= minloop {
					t.Fatalf("%s: %s pairs %d and %d", s, dots, i, j)
				}
				pairs++
			}
		}
		if seq != s || len(open) != 0 || int64(pairs) != tree.Value.I || lines[len(lines)-1] != plural(pairs, "base pair") {
			t.Fatalf("%s (minloop %d, wobble %d): %q, %d pairs, value %d", s, minloop, wobble, text, pairs, tree.Value.I)
		}
	}
	// A pair the bases cannot make is refused.
	bad := node(0, 4, 1, node(1, 3, 0))
	if text, ok := Nussinov(rnaProblem("AAAAA", 0, 1), nil, bad); ok {
		t.Errorf("A-A pair rendered: %q", text)
	}
}

// bstTree is CLRS's OPTIMAL-BST with its root table, as a tree over the
// half-open key ranges of optimal-bst.dp.
func bstTree(p, q []int64) *traceback.Node {
	n := len(p)
	e, root := make([][]int64, n+1), make([][]int, n+1)
	for i := range e {
		e[i], root[i] = make([]int64, n+1), make([]int, n+1)
		e[i][i] = q[i]
	}
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			w := int64(0)
			for k := i; k < j; k++ {
				w += p[k]
			}
			for k := i; k <= j; k++ {
				w += q[k]
			}
			e[i][j] = -1
			for r := i; r < j; r++ {
				if c := e[i][r] + e[r+1][j] + w; e[i][j] < 0 || c < e[i][j] {
					e[i][j], root[i][j] = c, r
				}
			}
		}
	}
	var build func(i, j int) *traceback.Node
	build = func(i, j int) *traceback.Node {
		if i == j {
			return node(int64(i), int64(j), e[i][j])
		}
		r := root[i][j]
		return node(int64(i), int64(j), e[i][j], build(i, r), build(r+1, j))
	}
	return build(0, n)
}

func TestOptimalBST(t *testing.T) {
	pk, qk := []int64{15, 10, 5, 10, 20}, []int64{5, 10, 5, 5, 5, 10}
	p := &ir.Problem{Name: "optimal-bst", Rows: 6, Cols: 6, Inputs: []*ir.Input{intVector("p", pk), intVector("q", qk)}}
	text, ok := OptimalBST(p, nil, bstTree(pk, qk))
	if want := "k2(k1, k5(k4(k3, -), -))\n5 keys, expected cost 275"; !ok || text != want {
		t.Errorf("CLRS: %v %q, want %q", ok, text, want)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 50; k++ {
		n := r.IntN(30)
		pk, qk := make([]int64, n), make([]int64, n+1)
		for q := range pk {
			pk[q] = int64(r.IntN(100))
		}
		for q := range qk {
			qk[q] = int64(r.IntN(100))
		}
		p := &ir.Problem{Name: "optimal-bst", Rows: int64(n + 1), Cols: int64(n + 1), Inputs: []*ir.Input{intVector("p", pk), intVector("q", qk)}}
		tree := bstTree(pk, qk)
		text, ok := OptimalBST(p, nil, tree)
		if !ok || !strings.HasSuffix(text, fmt.Sprintf("expected cost %d", tree.Value.I)) || strings.Count(text, "k") != n+strings.Count(text, "key") {
			t.Fatalf("p %v q %v: %v %q, want cost %d", pk, qk, ok, text, tree.Value.I)
		}
	}
}
