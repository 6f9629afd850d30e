package sema

import (
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/internal/errtest"
	"github.com/dpgpu/dpgpu/ir"
)

// evalIdx evaluates an integer (or boolean) subscript of the lowered IR at
// row I, column J: an evaluator of the few node kinds a 3-D lowering
// builds, written here so that the lowering is checked against plain
// arithmetic rather than against itself.
func evalIdx(t *testing.T, e ir.Expr, I, J int64, in map[*ir.Input][]int64) int64 {
	b2i := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	switch n := e.(type) {
	case *ir.Const:
		return n.V.I
	case *ir.Var:
		if n.Kind == ir.VarI {
			return I
		}
		return J
	case *ir.Convert:
		return evalIdx(t, n.X, I, J, in)
	case *ir.Load:
		return in[n.In][evalIdx(t, n.Index[0], I, J, in)]
	case *ir.Select:
		if evalIdx(t, n.Cond, I, J, in) != 0 {
			return evalIdx(t, n.Then, I, J, in)
		}
		return evalIdx(t, n.Else, I, J, in)
	case *ir.Binary:
		x := evalIdx(t, n.X, I, J, in)
		if n.Op == ir.OpAnd && x == 0 {
			return 0
		}
		y := evalIdx(t, n.Y, I, J, in)
		switch n.Op {
		case ir.OpAdd:
			return x + y
		case ir.OpSub:
			return x - y
		case ir.OpMul:
			return x * y
		case ir.OpDiv:
			return x / y
		case ir.OpRem:
			return x % y
		case ir.OpLt:
			return b2i(x < y)
		case ir.OpGe:
			return b2i(x >= y)
		case ir.OpAnd:
			return b2i(y != 0)
		}
	}
	t.Fatalf("evalIdx: unexpected %s", show(e))
	return 0
}

// TestGrid3Lowering: a 3-D grid is the K x R*C grid; at every cell each
// reference's lowered subscripts give the flat cell b*C + c of what the
// reference names, and a column outside the grid (naming the cell being
// computed) wherever an inner subscript leaves its side.
func TestGrid3Lowering(t *testing.T) {
	const K, R, C = 4, 3, 5
	src := fmt.Sprintf(`int 1x? d = 2, -1, 0, 7, 1
%d x %d x %d
cell[k][i][j] = 0 when k == 0
              | cell[k-1][i-1][j+2] + cell[k-1][j%%ROWS][i] + cell[k-1][2][1] + cell[k-1][i][d[j]] + cell[k-1][i][j] + ROWS*100 + COLS*10 + DIM0 + DIM1 + DIM2 otherwise
`, K, R, C)
	p := mustCheck(t, src, nil)
	checkProblemTypes(t, p)
	if p.Dims != 3 || p.Rows != K || p.Cols != R*C || p.Mid != R || p.Inner != C || p.IVar != "k" || p.JVar != "(i*5 + j)" {
		t.Fatalf("Dims %d, grid %dx%d, Mid %d, Inner %d, IVar %q, JVar %q", p.Dims, p.Rows, p.Cols, p.Mid, p.Inner, p.IVar, p.JVar)
	}
	if got := p.CellText(3, 14); got != "cell[3][2][4]" {
		t.Errorf("CellText(3, 14) = %s", got)
	}
	if got := p.GridText(); got != "4x3x5 grid" {
		t.Errorf("GridText = %s", got)
	}
	d := []int64{2, -1, 0, 7, 1}
	in := map[*ir.Input][]int64{p.Input("d"): d}
	// The references as a user reads them: (a, b, c) at cell (k, i, j).
	want := []func(k, i, j int64) [3]int64{
		func(k, i, j int64) [3]int64 { return [3]int64{k - 1, i - 1, j + 2} },
		func(k, i, j int64) [3]int64 { return [3]int64{k - 1, j % R, i} },
		func(k, i, j int64) [3]int64 { return [3]int64{k - 1, 2, 1} },
		func(k, i, j int64) [3]int64 { return [3]int64{k - 1, i, d[j]} },
		func(k, i, j int64) [3]int64 { return [3]int64{k - 1, i, j} },
	}
	if len(p.CellRefs) != len(want) {
		t.Fatalf("%d references, want %d", len(p.CellRefs), len(want))
	}
	for n, ref := range p.CellRefs {
		if ref.Mid != R || ref.Inner != C {
			t.Errorf("%s: Mid %d Inner %d", ref.Text, ref.Mid, ref.Inner)
		}
		for k := int64(1); k < K; k++ {
			for i := int64(0); i < R; i++ {
				for j := int64(0); j < C; j++ {
					J := i*C + j
					w := want[n](k, i, j)
					gi, gj := evalIdx(t, ref.I, k, J, in), evalIdx(t, ref.J, k, J, in)
					inside := w[1] >= 0 && w[1] < R && w[2] >= 0 && w[2] < C
					// Sub3 keeps the second and third subscripts as written
					// (the planner's offsets along i and j).
					if b, c := evalIdx(t, ref.Sub3[0], k, J, in), evalIdx(t, ref.Sub3[1], k, J, in); b != w[1] || c != w[2] {
						t.Errorf("%s at cell[%d][%d][%d]: Sub3 %d, %d, want %d, %d", ref.Text, k, i, j, b, c, w[1], w[2])
					}
					switch {
					case gi != w[0]:
						t.Errorf("%s at cell[%d][%d][%d]: row %d, want %d", ref.Text, k, i, j, gi, w[0])
					case inside && gj != w[1]*C+w[2]:
						t.Errorf("%s at cell[%d][%d][%d]: column %d, want %d", ref.Text, k, i, j, gj, w[1]*C+w[2])
					case !inside && gj != ir.OutsideColumn3(k*R*C+J):
						t.Errorf("%s at cell[%d][%d][%d]: column %d, want the outside column %d", ref.Text, k, i, j, gj, ir.OutsideColumn3(k*R*C+J))
					}
				}
			}
		}
	}
	// ROWS, COLS keep their meaning for the last two sides; DIM0..2 name all.
	if got, want := show(p.Cases[1].Value), "+ 300:int):int + 50:int):int + 4:int):int + 3:int):int + 5:int):int"; !contains1(got, want) {
		t.Errorf("sizes: %s\nwant it to end in %s", got, want)
	}
}

// TestGrid3Schedule: `schedule: t = EXPR` on a 3-D grid is lowered over
// k and the user's i and j (J / C, J % C), for the planner to read.
func TestGrid3Schedule(t *testing.T) {
	p := mustCheck(t, "schedule: t = 2*k - i + 3*j\n3 x 4 x 5\ncell[k][i][j] = 0\n", nil)
	if p.Schedule != "t" || p.ScheduleExpr == nil {
		t.Fatalf("schedule %q, expression %v", p.Schedule, p.ScheduleExpr)
	}
	for _, c := range [][3]int64{{0, 0, 0}, {1, 2, 3}, {2, 3, 4}} {
		J := c[1]*5 + c[2]
		if got, want := evalIdx(t, p.ScheduleExpr, c[0], J, nil), 2*c[0]-c[1]+3*c[2]; got != want {
			t.Errorf("t at cell[%d][%d][%d] = %d, want %d", c[0], c[1], c[2], got, want)
		}
	}
}

func contains1(s, sub string) bool {
	return len(s) >= len(sub) && s[len(s)-len(sub):] == sub
}

// TestGrid3Errors: errors of 3-D grids are positioned at the .dp text.
func TestGrid3Errors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"two subscripts", "3 x 4 x 5\ncell[k][i][j] = cell[k][i]\n",
			"2:17: cell needs three subscripts, cell[k][i][j], not 2: the grid is 3-D (line 1 gives three sides)"},
		{"two variables", "3 x 4 x 5\ncell[i][j] = 0\n",
			"2:1: the grid is 3-D (line 1 gives three sides): the left side takes three index variables, as in cell[k][i][j]"},
		{"four variables", "3 x 4 x 5\ncell[a][k][i][j] = 0\n",
			"2:1: the recurrence's left side has 4 index variables: a grid has at most three, cell[k][i][j]"},
		{"same variable", "3 x 4 x 5\ncell[k][i][k] = 0\n",
			"2:12: the three index variables must differ: cell[k][i][k]"},
		{"constant inner subscript outside", "3 x 4 x 5\ncell[k][i][j] = cell[0][4][0]\n",
			"2:25: cell[0][4][0]: subscript 2 is 4, outside 0..3 (DIM1 = 4): the grid is 3x4x5"},
		{"constant subscript in the answer", "3 x 4 x 5\ncell[k][i][j] = 0\nanswer: cell[2][0][5]\n",
			"3:20: cell[2][0][5]: subscript 3 is 5, outside 0..4 (DIM2 = 5): the grid is 3x4x5"},
		{"index variable in the answer", "3 x 4 x 5\ncell[k][i][j] = 0\nanswer: cell[k][0][0]\n",
			"3:14: k is an index variable of the recurrence; in answer: it exists only as the variable of a reduction, e.g. max(k in 0..DIM0-1: ...)"},
		{"too large", "3000000000 x 3000000000 x 3000000000\ncell[k][i][j] = 0\n",
			"1:1: the grid of 3000000000 x 3000000000 x 3000000000 cells is too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := checkErrs(t, parse(t, "t.dp", tc.src), nil)
			errtest.Want(t, list, tc.want)
		})
	}
}
