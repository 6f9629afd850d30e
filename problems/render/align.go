package render

import (
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// alignKind is which alignment problem is rendered.
type alignKind int

const (
	editDistance alignKind = iota // global; counts edits and their cost
	global                        // global; counts matches, mismatches and gaps and the score
	local                         // local: only the path's cells, and where they lie
)

// gap marks a gap in one row of an alignment.
const gap = '-'

// column is one column of an alignment: a letter of each sequence, or gap.
type column struct{ a, b byte }

// sequences returns the two sequences of an alignment problem: the char
// vectors named A and B, or else the first two char vectors in file order.
func sequences(p *ir.Problem) (aName, bName string, a, b []byte, ok bool) {
	var found []*ir.Input
	if in, in2 := p.Input("A"), p.Input("B"); in != nil && in2 != nil {
		found = []*ir.Input{in, in2}
	} else {
		for _, in := range p.Inputs {
			if in.T == ir.Char && in.Rows == 1 && len(found) < 2 {
				found = append(found, in)
			}
		}
	}
	if len(found) != 2 {
		return "", "", nil, nil, false
	}
	seqs := make([][]byte, 2)
	for k, in := range found {
		if in.T != ir.Char || in.Rows != 1 || len(in.I) != in.Cols {
			return "", "", nil, nil, false
		}
		seqs[k] = make([]byte, in.Cols)
		for i, c := range in.I {
			seqs[k][i] = byte(c)
		}
	}
	return found[0].Name, found[1].Name, seqs[0], seqs[1], true
}

// prefixGrid reports whether p's grid is that of an alignment of a and b:
// their prefixes, (len(a)+1) x (len(b)+1) cells (each table's, for
// several). Two char inputs of another grid (a parenthesization over a
// string and its operators) are no alignment.
func prefixGrid(p *ir.Problem, a, b []byte) bool {
	cols := p.Cols
	if T := int64(len(p.Tables)); T > 1 {
		cols /= T
	}
	return p.Dims != 1 && p.Dims != 3 && p.Rows == int64(len(a))+1 && cols == int64(len(b))+1
}

// alignColumns turns a path through the grid of a (rows) against b
// (columns) into the alignment's columns. A step into cell (i, j) is
// diagonal: a[i-1] over b[j-1]; down: a[i-1] over a gap; right: a gap over
// b[j-1]. For a global alignment the letters before the path's first cell
// and after its last are aligned with gaps, so that the alignment covers
// both sequences whole.
func alignColumns(path [][2]int64, a, b []byte, isGlobal bool) ([]column, bool) {
	n, m := int64(len(a)), int64(len(b))
	for _, c := range path {
		if c[0] < 0 || c[0] > n || c[1] < 0 || c[1] > m {
			return nil, false
		}
	}
	var cols []column
	first, last := path[0], path[len(path)-1]
	if isGlobal {
		for i := int64(0); i < first[0]; i++ {
			cols = append(cols, column{a[i], gap})
		}
		for j := int64(0); j < first[1]; j++ {
			cols = append(cols, column{gap, b[j]})
		}
	}
	for k := 1; k < len(path); k++ {
		i, j := path[k][0], path[k][1]
		switch [2]int64{i - path[k-1][0], j - path[k-1][1]} {
		case [2]int64{1, 1}:
			cols = append(cols, column{a[i-1], b[j-1]})
		case [2]int64{1, 0}:
			cols = append(cols, column{a[i-1], gap})
		case [2]int64{0, 1}:
			cols = append(cols, column{gap, b[j-1]})
		default:
			return nil, false
		}
	}
	if isGlobal {
		for i := last[0]; i < n; i++ {
			cols = append(cols, column{a[i], gap})
		}
		for j := last[1]; j < m; j++ {
			cols = append(cols, column{gap, b[j]})
		}
	}
	return cols, true
}

// counts are the kinds of column of an alignment.
type counts struct {
	match, mismatch int
	gapInA, gapInB  int // a gap in A is an insertion (of a letter of B), one in B a deletion
}

func count(cols []column) counts {
	var c counts
	for _, col := range cols {
		switch {
		case col.a == gap:
			c.gapInA++
		case col.b == gap:
			c.gapInB++
		case col.a == col.b:
			c.match++
		default:
			c.mismatch++
		}
	}
	return c
}

// intScalar returns the value of an integer scalar, if the problem has it.
func intScalar(p *ir.Problem, name string) (int64, bool) {
	s := p.Scalar(name)
	if s == nil || !s.Value.T.IsInteger() {
		return 0, false
	}
	return s.Value.I, true
}

func alignment(p *ir.Problem, res *backend.Result, kind alignKind) (string, bool) {
	aName, bName, a, b, ok := sequences(p)
	if !ok {
		return "", false
	}
	cols, ok := alignColumns(userCells(p, res.Path), a, b, kind != local)
	if !ok {
		return "", false
	}
	var out strings.Builder
	c := count(cols)
	if kind == local {
		path := userCells(p, res.Path)
		first, last := path[0], path[len(path)-1]
		if len(cols) == 0 {
			out.WriteString("empty alignment: no pair of letters scores above 0\n")
		} else {
			// The path's first cell is where the alignment starts: the
			// letters aligned are a[first.i .. last.i-1], 1-based
			// first.i+1 .. last.i.
			fmt.Fprintf(&out, "%s %d..%d against %s %d..%d\n", aName, first[0]+1, last[0], bName, first[1]+1, last[1])
		}
	}
	writeRows(&out, aName, bName, cols)
	switch kind {
	case editDistance:
		fmt.Fprintf(&out, "%s, %s, %s, %s", plural(c.gapInA, "insertion"), plural(c.gapInB, "deletion"),
			plural(c.mismatch, "substitution"), plural(c.match, "match"))
		ins, ok1 := intScalar(p, "ins")
		del, ok2 := intScalar(p, "del")
		sub, ok3 := intScalar(p, "sub")
		if ok1 && ok2 && ok3 {
			fmt.Fprintf(&out, "\ncost %d (ins %d, del %d, sub %d)", int64(c.gapInA)*ins+int64(c.gapInB)*del+int64(c.mismatch)*sub, ins, del, sub)
		}
	default:
		fmt.Fprintf(&out, "%d columns: %s, %s, %s", len(cols), plural(c.match, "match"), plural(c.mismatch, "mismatch"), plural(c.gapInA+c.gapInB, "gap"))
		ma, ok1 := intScalar(p, "match")
		mi, ok2 := intScalar(p, "mismatch")
		g, ok3 := intScalar(p, "gap")
		if ok1 && ok2 && ok3 {
			fmt.Fprintf(&out, "\nscore %d (match %d, mismatch %d, gap %d)", int64(c.match)*ma+int64(c.mismatch)*mi+int64(c.gapInA+c.gapInB)*g, ma, mi, g)
		}
	}
	return out.String(), true
}

// writeRows writes the alignment as blocks of three rows, width columns
// each: A's letters, '|' under each match, B's letters; '-' marks gaps.
func writeRows(out *strings.Builder, aName, bName string, cols []column) {
	label := max(len(aName), len(bName)) + 2
	pad := func(s string) string { return s + strings.Repeat(" ", label-len(s)) }
	for start := 0; start < len(cols); start += width {
		if start > 0 {
			out.WriteString("\n")
		}
		block := cols[start:min(start+width, len(cols))]
		top, mid, bot := make([]byte, len(block)), make([]byte, len(block)), make([]byte, len(block))
		for k, c := range block {
			top[k], bot[k], mid[k] = c.a, c.b, ' '
			if c.a == c.b && c.a != gap {
				mid[k] = '|'
			}
		}
		out.WriteString(pad(aName) + string(top) + "\n")
		out.WriteString(strings.TrimRight(pad("")+string(mid), " ") + "\n")
		out.WriteString(pad(bName) + string(bot) + "\n")
	}
}
