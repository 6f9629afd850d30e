package traceback_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// Emits after the arguments of min and max (contract v2 §7.4): a step emits
// the emit of the argument that won, else its case's.

// lcsMoves is an LCS whose steps emit the move they make: the common
// character on a match, '-' when the row above wins, '|' when the column
// to the left does. If other is set, the second argument has no emit and
// the case emits other instead.
func lcsMoves(a, b string, other byte) string {
	left := "cell[i][j-1] emit '|')   otherwise"
	if other != 0 {
		left = fmt.Sprintf("cell[i][j-1])   otherwise   emit '%c'", other)
	}
	return fmt.Sprintf(`char 1x? A = "%s"
char 1x? B = "%s"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                           when i == 0 || j == 0
           | cell[i-1][j-1] + 1          when A[i-1] == B[j-1]   emit A[i-1]
           | max(cell[i-1][j] emit '-',
                 %s
`, a, b, left)
}

// lcsMovesRef walks the LCS table of a and b back from its last cell in
// plain Go, as the recurrence above says: it returns the cells and the
// moves, in path order (from the edge of the grid to the last cell).
func lcsMovesRef(a, b string, other byte) ([][2]int64, string) {
	g := dptest.LCSGrid(a, b)
	var path [][2]int64
	var moves []byte
	i, j := len(a), len(b)
	for {
		path = append(path, [2]int64{int64(i), int64(j)})
		if i == 0 || j == 0 {
			break
		}
		switch {
		case a[i-1] == b[j-1]:
			moves = append(moves, a[i-1])
			i, j = i-1, j-1
		case g[i-1][j] >= g[i][j-1]: // ties: the first argument
			moves = append(moves, '-')
			i--
		default:
			if other != 0 {
				moves = append(moves, other)
			} else {
				moves = append(moves, '|')
			}
			j--
		}
	}
	for x, y := 0, len(path)-1; x < y; x, y = x+1, y-1 {
		path[x], path[y] = path[y], path[x]
	}
	for x, y := 0, len(moves)-1; x < y; x, y = x+1, y-1 {
		moves[x], moves[y] = moves[y], moves[x]
	}
	return path, string(moves)
}

func emittedText(t *testing.T, vals []ir.Value) string {
	t.Helper()
	var s strings.Builder
	for _, v := range vals {
		if v.T != ir.Char {
			t.Fatalf("emitted a %s (%v), want char", v.T, v)
		}
		s.WriteByte(byte(v.I))
	}
	return s.String()
}

// TestArgumentEmitsLCS: the moves of an LCS, emitted by max's arguments,
// are those of a plain Go walk over the same table; the path and the tree
// (a path here) agree. The executor ignores the emits: its answer is the
// LCS length.
func TestArgumentEmitsLCS(t *testing.T) {
	r := dptest.Rand(t)
	for k := 0; k < 40; k++ {
		a, b := dptest.DNA(r, r.IntN(30)), dptest.DNA(r, r.IntN(30))
		var other byte
		if k%2 == 1 {
			other = '<' // the case's emit, where the argument has none
		}
		p, res := solve(t, lcsMoves(a, b, other))
		if want := int64(dptest.LCSLength(a, b)); res.Answer.I != want {
			t.Fatalf("%q, %q: answer %d, want %d", a, b, res.Answer.I, want)
		}
		wantPath, wantMoves := lcsMovesRef(a, b, other)
		path, emitted, err := traceback.Trace(p, res.Grid, p.Rows-1, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		if got := emittedText(t, emitted); got != wantMoves || fmt.Sprint(path) != fmt.Sprint(wantPath) {
			t.Fatalf("%q, %q: Trace emits %q along %v\nwant %q along %v", a, b, got, path, wantMoves, wantPath)
		}
		tree, err := traceback.Tree(p, res.Grid, p.Rows-1, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		tpath, temitted, ok := tree.Path()
		if !ok || emittedText(t, temitted) != wantMoves || fmt.Sprint(tpath) != fmt.Sprint(wantPath) {
			t.Fatalf("%q, %q: Tree emits %q along %v, want %q", a, b, emittedText(t, temitted), tpath, wantMoves)
		}
	}
}

// TestArgumentEmitRules: a winning argument that reads no cell still
// emits (and ends the walk); of nested winning arguments the innermost
// emit wins; an argument without one leaves the case's. Each is checked
// against a plain Go walk of the same recurrence.
func TestArgumentEmitRules(t *testing.T) {
	r := dptest.Rand(t)
	for trial := 0; trial < 30; trial++ {
		n := 1 + r.IntN(15)
		w := make([]int64, n)
		for k := range w {
			w[k] = int64(r.IntN(21) - 10)
		}
		// The best sum of a run of w ending at j (Kadane): each step says
		// whether the run goes on ('+': from cell[j-1]; '=' when w[j] > 0
		// by the innermost emit) or starts afresh (the constant 0 wins:
		// 's', which reads no cell, so the walk ends there).
		src := fmt.Sprintf(`int 1x%d w = %s
%d
cell[j] = max(max(cell[j-1] + w[j] emit '=', cell[j-1] + w[j] - 1) emit '+', w[j] emit 's', 0 emit '0')   when j > 0
        | max(w[0], 0)   otherwise   emit 'f'
answer: cell[DIM0-1]
`, n, dptest.Join(w), n)
		p, res := solve(t, src)
		// The reference: the same recurrence and walk in plain Go.
		cell := make([]int64, n)
		cell[0] = max(w[0], 0)
		for j := 1; j < n; j++ {
			cell[j] = max(max(cell[j-1]+w[j], cell[j-1]+w[j]-1), w[j], 0)
		}
		var want []byte
		for j := n - 1; ; j-- {
			if j == 0 {
				want = append(want, 'f')
				break
			}
			inner := cell[j-1] + w[j] // the first argument of the inner max wins a tie, and always here
			switch {
			case inner >= w[j] && inner >= 0:
				want = append(want, '=') // the innermost emit: the inner max's winner has one
				continue
			case w[j] >= 0:
				want = append(want, 's')
			default:
				want = append(want, '0')
			}
			break
		}
		for x, y := 0, len(want)-1; x < y; x, y = x+1, y-1 {
			want[x], want[y] = want[y], want[x]
		}
		if res.Answer.I != cell[n-1] {
			t.Fatalf("w = %v: answer %d, want %d", w, res.Answer.I, cell[n-1])
		}
		_, emitted, err := traceback.Trace(p, res.Grid, 0, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		if got := emittedText(t, emitted); got != string(want) {
			t.Fatalf("w = %v, cells %v: emits %q, want %q", w, cell, got, want)
		}
	}
}

// TestArgumentEmitsTree: in a tree, every node emits what its winning
// argument says: the split of each interval of a matrix chain, which must
// be where its two children meet.
func TestArgumentEmitsTree(t *testing.T) {
	r := dptest.Rand(t)
	for trial := 0; trial < 20; trial++ {
		d := make([]int64, 2+r.IntN(8))
		for k := range d {
			d[k] = int64(1 + r.IntN(30))
		}
		src := fmt.Sprintf(`long 1x? d = %s
cell: long
(len(d)-1) x (len(d)-1)
cell[i][j] = 0                                                                        when i >= j
           | min(k in i..j-1: min(cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1] emit k, inf))   otherwise
answer: cell[0][COLS-1]
`, dptest.Join(d))
		p, g := sweep(t, src)
		tree, err := traceback.Tree(p, g, 0, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		text, cost := parens(t, tree, d)
		if want := g.At(0, p.Cols-1).I; cost != want {
			t.Fatalf("d = %v: %s costs %d, the grid says %d", d, text, cost, want)
		}
		tree.Walk(func(n *traceback.Node, depth int) {
			switch {
			case len(n.Children) == 0 && n.Emit != nil:
				t.Fatalf("d = %v: leaf cell[%d][%d] emits %v", d, n.I, n.J, *n.Emit)
			case len(n.Children) == 2 && (n.Emit == nil || n.Emit.I != n.Children[0].J):
				t.Fatalf("d = %v: cell[%d][%d] splits after %d, but emits %v", d, n.I, n.J, n.Children[0].J, n.Emit)
			}
		})
	}
}

// TestArgumentEmitReadsCells: an argument's emit may read cells (and
// inputs): it is computed at the step's cell from the kept grid.
func TestArgumentEmitReadsCells(t *testing.T) {
	w := []int64{3, -1, 4, -1, -5, 9, 2, -6}
	src := fmt.Sprintf(`int 1x? w = %s
len(w)
cell[j] = max(cell[j-1] + w[j] emit cell[j-1] * 100 + w[j], w[j] emit -w[j])   when j > 0
        | w[0]   otherwise
`, dptest.Join(w))
	p, res := solve(t, src)
	// Plain Go: the best run ending at each j, and the walk back from the
	// last cell, emitting what the winning argument says.
	cell := make([]int64, len(w))
	cell[0] = w[0]
	for j := 1; j < len(w); j++ {
		cell[j] = max(cell[j-1]+w[j], w[j])
	}
	var want []int64
	for j := len(w) - 1; j > 0; j-- {
		if cell[j-1]+w[j] >= w[j] {
			want = append(want, cell[j-1]*100+w[j])
			continue
		}
		want = append(want, -w[j])
		break
	}
	for x, y := 0, len(want)-1; x < y; x, y = x+1, y-1 {
		want[x], want[y] = want[y], want[x]
	}
	_, emitted, err := traceback.Trace(p, res.Grid, 0, p.Cols-1)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, v := range emitted {
		got = append(got, v.I)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("emits %v, want %v (cells %v)", got, want, cell)
	}
}
