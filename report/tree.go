package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/ir"
)

// maxTreeLines bounds the outline of a traceback tree in the text report:
// the JSON result lists every node.
const maxTreeLines = 200

// writeTree writes a traceback tree as an indented outline in pre-order,
// one cell per line with its value and what it emits, two spaces deeper
// per level.
func writeTree(w io.Writer, p *ir.Problem, tree *traceback.Node) {
	nodes, depth := 0, 0
	tree.Walk(func(_ *traceback.Node, d int) { nodes++; depth = max(depth, d) })
	fmt.Fprintf(w, "tree       %s cells, %d levels, from %s (--json lists the nodes)\n", Count(int64(nodes)), depth+1, p.CellText(tree.I, tree.J))
	lines := 0
	tree.Walk(func(n *traceback.Node, d int) {
		lines++
		if lines > maxTreeLines {
			return
		}
		s := fmt.Sprintf("%s = %s", p.CellText(n.I, n.J), ValueText(n.Value, p.CellType))
		if n.Emit != nil {
			s += "  emit " + ValueText(*n.Emit, p.CellType)
		}
		fmt.Fprintf(w, "           %s%s\n", strings.Repeat("  ", d), s)
	})
	if lines > maxTreeLines {
		fmt.Fprintf(w, "           ... %s more cells\n", Count(int64(lines-maxTreeLines)))
	}
}

// NodeJSON is one node of a traceback tree. The tree is a list in
// pre-order (the root first, each node before its children); Children are
// the indices of a node's children in that list, in the order the
// recurrence reads them.
type NodeJSON struct {
	// Cell is the node's coordinates: [i, j], or [j] in a 1-D grid.
	Cell []int64 `json:"cell"`
	// Text names the cell as the .dp file does: "cell[0][5]", "cell[5]".
	Text string `json:"text"`
	// Case is the case that produced the value, 0 for the first.
	Case     int   `json:"case"`
	Value    any   `json:"value"`
	Emit     any   `json:"emit,omitempty"`
	Children []int `json:"children"`
}

// treeObject lists the nodes of tree in pre-order.
func treeObject(p *ir.Problem, tree *traceback.Node) []NodeJSON {
	index := map[*traceback.Node]int{}
	var out []NodeJSON
	tree.Walk(func(n *traceback.Node, _ int) {
		index[n] = len(out)
		o := NodeJSON{Cell: userCell(p, n.I, n.J), Text: p.CellText(n.I, n.J), Case: n.Case, Value: JSONValue(n.Value), Children: []int{}}
		if n.Emit != nil {
			o.Emit = JSONValue(*n.Emit)
		}
		out = append(out, o)
	})
	// A node's children come after it in pre-order: all are indexed now.
	tree.Walk(func(n *traceback.Node, _ int) {
		o := &out[index[n]]
		for _, c := range n.Children {
			o.Children = append(o.Children, index[c])
		}
	})
	return out
}

// userCell is cell (i, j) of the lowered grid in the user's coordinates:
// [j] of a 1-D grid, [k, i, j] of a 3-D one (its flat column i*C + j),
// [i, j] otherwise.
func userCell(p *ir.Problem, i, j int64) []int64 {
	switch {
	case p.Dims == 1:
		return []int64{j}
	case p.Dims == 3 && p.Inner > 0:
		return []int64{i, j / p.Inner, j % p.Inner}
	}
	return []int64{i, j}
}
