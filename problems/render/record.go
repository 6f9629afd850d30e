package render

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/ir"
)

// Record is an alignment as the interchange formats (SAM, PAF) give it:
// the rows' sequence (A) is the query, the columns' (B) the target.
// Coordinates are 0-based, ends exclusive: the path covers A[QStart:QEnd]
// and B[TStart:TEnd] (a global alignment all of both, a local one what
// its path crosses).
type Record struct {
	QName, TName               string
	Query, Target              []byte
	QStart, QEnd, TStart, TEnd int64
	// CIGAR is SAM's, with = for a match and X for a mismatch: I a letter
	// of the query against a gap, D one of the target.
	CIGAR string
	// Matches counts the = columns, Length all of them; NM is the edit
	// distance of the aligned parts (X, I and D letters).
	Matches, Length, NM int64
}

// Identity is Matches over Length (0 for an empty alignment).
func (r Record) Identity() float64 {
	if r.Length == 0 {
		return 0
	}
	return float64(r.Matches) / float64(r.Length)
}

// AlignmentRecord is the record of path (a traceback through the grid of
// an alignment problem: cells (i, j) over A's first i letters and B's
// first j) for p's two sequences (the char inputs named A and B, or the
// first two char vectors). leadGap says the letters before the path's
// first cell, where the walk stopped on row 0 or column 0, are a gap of
// the alignment (LeadGap tells from the walk). ok is false when p has no
// such sequences or the path takes a step that is not an alignment's
// (down, right, diagonal).
func AlignmentRecord(p *ir.Problem, path [][2]int64, leadGap bool) (Record, bool) {
	aName, bName, a, b, ok := sequences(p)
	if !ok || len(path) == 0 || !prefixGrid(p, a, b) {
		return Record{}, false
	}
	path = userCells(p, path)
	if leadGap {
		path = leadingGap(path)
	}
	r := Record{QName: seqName(p, aName), TName: seqName(p, bName), Query: a, Target: b}
	first, last := path[0], path[len(path)-1]
	r.QStart, r.TStart, r.QEnd, r.TEnd = first[0], first[1], last[0], last[1]
	if r.QStart < 0 || r.TStart < 0 || r.QEnd > int64(len(a)) || r.TEnd > int64(len(b)) {
		return Record{}, false
	}
	cols, ok := alignColumns(path, a, b, false)
	if !ok {
		return Record{}, false
	}
	var cigar []byte
	var op byte
	n := 0
	flush := func() {
		if n > 0 {
			cigar = append(strconv.AppendInt(cigar, int64(n), 10), op)
		}
	}
	for _, c := range cols {
		var o byte
		switch {
		case c.a == gap:
			o = 'D'
		case c.b == gap:
			o = 'I'
		case c.a == c.b:
			o = '='
			r.Matches++
		default:
			o = 'X'
		}
		if o != '=' {
			r.NM++
		}
		if o != op {
			flush()
			op, n = o, 0
		}
		n++
	}
	flush()
	r.CIGAR, r.Length = string(cigar), int64(len(cols))
	return r, true
}

// LeadGap reports whether a walk (its tree, a path) stopped on row 0 or
// column 0 at a cell that costs something: there the value of a cell that
// reads no other is the cost of the gap of the letters before it (a
// global or semi-global alignment's border, -o - e*i), and those letters
// belong to the alignment; a border cell worth 0 (a local alignment's,
// the free end of a semi-global one, LCS's) starts it afresh.
func LeadGap(tree *traceback.Node) bool {
	if tree == nil {
		return false
	}
	n := tree
	for len(n.Children) == 1 {
		n = n.Children[0]
	}
	if len(n.Children) != 0 {
		return false
	}
	zero := n.Value.I == 0
	if n.Value.T.IsFloat() {
		zero = n.Value.F == 0
	}
	return !zero
}

// leadingGap is path led back to cell [0][0] along the grid's border when
// it starts on row 0 or column 0 elsewhere: the letters before the start
// are a run of I (down column 0) or D (along row 0).
func leadingGap(path [][2]int64) [][2]int64 {
	first := path[0]
	if (first[0] != 0 && first[1] != 0) || first == [2]int64{0, 0} {
		return path
	}
	var lead [][2]int64
	for i := int64(0); i < first[0]; i++ {
		lead = append(lead, [2]int64{i, 0})
	}
	for j := int64(0); j < first[1]; j++ {
		lead = append(lead, [2]int64{0, j})
	}
	return append(lead, path...)
}

// userCells is path in the user's cells: a recurrence of several tables
// (Gotoh's X, Y, H) walks the flat columns j*T + t, and moves between
// tables within one cell of the alignment; those moves are no column.
func userCells(p *ir.Problem, path [][2]int64) [][2]int64 {
	if len(p.Tables) < 2 {
		return path
	}
	out := make([][2]int64, 0, len(path))
	for _, c := range path {
		_, j := ir.TableOf(c[1], len(p.Tables))
		u := [2]int64{c[0], j}
		if n := len(out); n == 0 || out[n-1] != u {
			out = append(out, u)
		}
	}
	return out
}

// seqName names an input's sequence: the file it came from (its base
// name without the extension), else the input's name.
func seqName(p *ir.Problem, name string) string {
	in := p.Input(name)
	if in == nil || in.Origin == "" || in.Origin == "inline" || strings.HasPrefix(in.Origin, "--input") {
		return name
	}
	base := filepath.Base(in.Origin)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || strings.ContainsAny(base, " \t") {
		return name
	}
	return base
}
