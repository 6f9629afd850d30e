package render

import (
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/ir"
)

// The renderers of traceback trees (contract v2 §7.4): interval DP, whose
// cell [i][j] splits into two shorter intervals.

// The tree renderers of the built-ins.
var (
	// MatrixChain renders the optimal order of a matrix chain (input d of
	// dimensions) as a parenthesisation, ((A1(A2A3))((A4A5)A6)), with its
	// cost recomputed from the tree.
	MatrixChain = treed(matrixChain)

	// Nussinov renders an RNA secondary structure (input s, scalars
	// minloop and wobble) in dot-bracket notation under the sequence.
	Nussinov = treed(nussinov)

	// OptimalBST renders an optimal binary search tree (inputs p and q of
	// key and gap frequencies) as each root with its left and right
	// subtrees, k2(k1, k5(k4(k3, -), -)), with its cost recomputed.
	OptimalBST = treed(optimalBST)
)

// splits reads node n of an interval tree over [i..j] that splits into
// [i..k] and [k+off..j]; ok is false for any other shape. off is 1 for
// closed intervals (matrix chain), and for half-open ones (the keys of a
// BST) too: [i, r) and [r+1, j) around key r.
func splits(n *traceback.Node, off int64) (l, r *traceback.Node, ok bool) {
	if len(n.Children) != 2 {
		return nil, nil, false
	}
	l, r = n.Children[0], n.Children[1]
	return l, r, l.I == n.I && r.J == n.J && r.I == l.J+off && l.J >= n.I && r.I <= n.J
}

// matrixChain writes the parenthesisation and its cost.
func matrixChain(p *ir.Problem, tree *traceback.Node) (string, bool) {
	d := intInput(p, "d")
	if d == nil || p.Rows != p.Cols || int64(d.Len()) != p.Rows+1 {
		return "", false
	}
	var b strings.Builder
	var walk func(n *traceback.Node) (int64, bool)
	walk = func(n *traceback.Node) (int64, bool) {
		if len(n.Children) == 0 {
			if n.I != n.J {
				return 0, false
			}
			fmt.Fprintf(&b, "A%d", n.I+1)
			return 0, true
		}
		l, r, ok := splits(n, 1)
		if !ok {
			return 0, false
		}
		b.WriteByte('(')
		lc, ok1 := walk(l)
		rc, ok2 := walk(r)
		b.WriteByte(')')
		m, ok3 := ir.Mul64(d.I[n.I], d.I[l.J+1])
		m, ok4 := ir.Mul64(m, d.I[n.J+1])
		s, ok5 := ir.Add64(lc, rc)
		s, ok6 := ir.Add64(s, m)
		return s, ok1 && ok2 && ok3 && ok4 && ok5 && ok6
	}
	cost, ok := walk(tree)
	if !ok {
		return "", false
	}
	var out strings.Builder
	for _, line := range chunks(b.String(), width) {
		out.WriteString(line + "\n")
	}
	n := tree.J - tree.I + 1
	matrices := "matrices"
	if n == 1 {
		matrices = "matrix"
	}
	fmt.Fprintf(&out, "%d %s, cost %d scalar multiplications", n, matrices, cost)
	return out.String(), true
}

// rnaPairs reports whether bases a and b may pair: A-U and G-C, and G-U
// with wobble.
func rnaPairs(a, b byte, wobble bool) bool {
	switch string([]byte{a, b}) {
	case "AU", "UA", "GC", "CG":
		return true
	case "GU", "UG":
		return wobble
	}
	return false
}

// nussinov writes the sequence and its structure in dot-bracket notation,
// 60 columns a line, and the number of pairs. A node with the one child
// [i+1][j-1] pairs i with j when its value is one more than the child's;
// one child [i+1][j] or [i][j-1] leaves i or j unpaired; two children are
// two structures side by side.
func nussinov(p *ir.Problem, tree *traceback.Node) (string, bool) {
	s := intInput(p, "s")
	if s == nil || s.T != ir.Char || p.Rows != p.Cols || int64(s.Len()) != p.Rows || !tree.Value.T.IsInteger() {
		return "", false
	}
	minloop, ok := intScalar(p, "minloop")
	if !ok {
		minloop = 0
	}
	wobble, ok := intScalar(p, "wobble")
	if !ok {
		wobble = 0
	}
	seq := make([]byte, s.Len())
	for k, v := range s.I {
		seq[k] = byte(v)
	}
	dots := []byte(strings.Repeat(".", len(seq)))
	pairs := int64(0)
	var walk func(n *traceback.Node) bool
	walk = func(n *traceback.Node) bool {
		i, j := n.I, n.J
		switch len(n.Children) {
		case 0:
			return true
		case 1:
			c := n.Children[0]
			switch {
			case c.I == i+1 && c.J == j, c.I == i && c.J == j-1:
			case c.I == i+1 && c.J == j-1:
				if n.Value.I == c.Value.I+1 {
					if !rnaPairs(seq[i], seq[j], wobble != 0) || j-i <= minloop {
						return false
					}
					dots[i], dots[j] = '(', ')'
					pairs++
				}
			default:
				return false
			}
			return walk(c)
		case 2:
			l, r, ok := splits(n, 1)
			return ok && walk(l) && walk(r)
		}
		return false
	}
	if tree.I < 0 || tree.J >= int64(len(seq)) || !walk(tree) {
		return "", false
	}
	var out strings.Builder
	seqLines, dotLines := chunks(string(seq), width), chunks(string(dots), width)
	for k := range seqLines {
		out.WriteString(seqLines[k] + "\n" + dotLines[k] + "\n")
	}
	fmt.Fprintf(&out, "%s", plural(int(pairs), "base pair"))
	return out.String(), true
}

// optimalBST writes each root with its subtrees and the expected cost,
// recomputed from the tree: every key and gap weighs its frequency times
// its depth plus one.
func optimalBST(p *ir.Problem, tree *traceback.Node) (string, bool) {
	pk, qk := intInput(p, "p"), intInput(p, "q")
	if pk == nil || qk == nil || qk.Len() != pk.Len()+1 || p.Rows != p.Cols || int64(pk.Len()) != p.Rows-1 {
		return "", false
	}
	var cost int64
	add := func(f, depth int64) bool {
		m, ok1 := ir.Mul64(f, depth+1)
		s, ok2 := ir.Add64(cost, m)
		cost = s
		return ok1 && ok2
	}
	// text is the subtree over keys i+1..j and gaps i..j, its root at depth.
	var text func(n *traceback.Node, depth int64) (string, bool)
	text = func(n *traceback.Node, depth int64) (string, bool) {
		if n.I == n.J {
			return "-", len(n.Children) == 0 && add(qk.I[n.I], depth)
		}
		l, r, ok := splits(n, 1)
		if !ok {
			return "", false
		}
		root := l.J // key index r (0-based): key r+1
		if !add(pk.I[root], depth) {
			return "", false
		}
		ls, ok1 := text(l, depth+1)
		rs, ok2 := text(r, depth+1)
		if !ok1 || !ok2 {
			return "", false
		}
		name := fmt.Sprintf("k%d", root+1)
		if ls == "-" && rs == "-" {
			return name, true
		}
		return name + "(" + ls + ", " + rs + ")", true
	}
	s, ok := text(tree, 0)
	if !ok || tree.I != 0 || tree.J != p.Cols-1 {
		return "", false
	}
	var out strings.Builder
	if s == "-" {
		s = "(no keys)"
	}
	for _, line := range chunks(s, width) {
		out.WriteString(line + "\n")
	}
	fmt.Fprintf(&out, "%s, expected cost %d", plural(pk.Len(), "key"), cost)
	return out.String(), true
}
