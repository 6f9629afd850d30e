// Package render prints the solution of a built-in problem in the problem's
// own terms, from a run's traceback (backend.Result's Path and Emitted): the
// common subsequence of LCS, the alignment of two sequences, the items of a
// knapsack, the route of a Manhattan tourist.
//
// A renderer trusts nothing: a file may call itself `problem lcs` and
// compute something else. Each one checks that the inputs it needs exist with
// the right types and that every step of the path is one its problem can
// take, and otherwise reports that it has no rendering, so that the caller
// falls back to printing the raw emitted values.
package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/ir"
)

// width is the number of characters per line of a long sequence, alignment
// or move string.
const width = 60

// Renderer renders the traceback of the problem p: the path and emitted
// values in res (a traceback whose steps read one cell each), or tree (one
// that branches; also set for a path, and nil without a traceback). It
// returns false when there is no traceback or when the problem, path or
// tree does not have the shape the rendering expects. The text has one or
// more lines, without a trailing newline. Each built-in problem names its
// renderer in the problems registry; the ones below are those of the
// built-ins.
type Renderer func(p *ir.Problem, res *backend.Result, tree *traceback.Node) (string, bool)

// pathRenderer renders a traceback that is a path (res.Path, res.Emitted).
type pathRenderer func(p *ir.Problem, res *backend.Result) (string, bool)

// traced is r behind the check that there is a path to render: a
// problem, a result, and a path in it.
func traced(r pathRenderer) Renderer {
	return func(p *ir.Problem, res *backend.Result, _ *traceback.Node) (string, bool) {
		if p == nil || res == nil || len(res.Path) == 0 {
			return "", false
		}
		return r(p, res)
	}
}

// treeRenderer renders a traceback tree.
type treeRenderer func(p *ir.Problem, tree *traceback.Node) (string, bool)

// treed is r behind the check that there is a tree to render.
func treed(r treeRenderer) Renderer {
	return func(p *ir.Problem, _ *backend.Result, tree *traceback.Node) (string, bool) {
		if p == nil || tree == nil {
			return "", false
		}
		return r(p, tree)
	}
}

// aligned is the renderer of an alignment of the given kind.
func aligned(kind alignKind) pathRenderer {
	return func(p *ir.Problem, res *backend.Result) (string, bool) {
		return alignment(p, res, kind)
	}
}

// The renderers of the built-ins.
var (
	// LCS renders a longest common subsequence: the emitted characters.
	LCS = traced(lcs)

	// EditDistance renders an edit-distance alignment with its edits and
	// their cost (scalars ins, del, sub).
	EditDistance = traced(aligned(editDistance))

	// GlobalAlignment renders a global alignment with its matches,
	// mismatches, gaps and score (scalars match, mismatch, gap).
	GlobalAlignment = traced(aligned(global))

	// LocalAlignment renders a local alignment: the aligned stretch, where
	// it lies in each sequence, and its score.
	LocalAlignment = traced(aligned(local))

	// Knapsack renders the items a knapsack takes (inputs wt, val), with
	// their counts when one is taken more than once, and the totals.
	Knapsack = traced(knapsack)

	// Manhattan renders a Manhattan tourist's route (inputs down, right)
	// and its weight.
	Manhattan = traced(manhattan)
)

// lcs prints the emitted characters, which spell the common subsequence,
// and its length.
func lcs(_ *ir.Problem, res *backend.Result) (string, bool) {
	s := make([]byte, len(res.Emitted))
	for i, v := range res.Emitted {
		if v.T != ir.Char {
			return "", false
		}
		s[i] = byte(v.I)
	}
	var b strings.Builder
	if len(s) == 0 {
		b.WriteString("(empty)\n")
	}
	for _, line := range chunks(string(s), width) {
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "length %d", len(s))
	return b.String(), true
}

// chunks splits s into pieces of at most n bytes (none for an empty s).
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// intInput returns the named input when it holds integers (char, int, long).
func intInput(p *ir.Problem, name string) *ir.Input {
	in := p.Input(name)
	if in == nil || !in.T.IsInteger() || len(in.I) != in.Len() {
		return nil
	}
	return in
}

// plural is "1 deletion", "2 deletions", "0 matches".
func plural(n int, word string) string {
	switch {
	case n == 1:
		return "1 " + word
	case strings.HasSuffix(word, "ch"):
		return strconv.Itoa(n) + " " + word + "es"
	}
	return strconv.Itoa(n) + " " + word + "s"
}
