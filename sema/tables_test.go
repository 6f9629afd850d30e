package sema

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

const tablesSrc = `5x4
X[i][j] = 0 when j == 0
        | X[i][j-1] + H[i][j-1] + COLS otherwise
H[i][j] = X[i][j] + H[0][2] when i > 0
        | 1 otherwise
answer: H[4][3] + X[1][0]
`

// TestTablesLowering checks the flat grid: C*T columns, the table tests,
// the user's j as J / T, constant column offsets d*T + t' - t, constant
// references b*T + t', COLS as the user's C.
func TestTablesLowering(t *testing.T) {
	p := mustCheck(t, tablesSrc, nil)
	if p.Rows != 5 || p.Cols != 8 || strings.Join(p.Tables, ",") != "X,H" {
		t.Fatalf("grid %dx%d tables %v, want 5x8 X,H", p.Rows, p.Cols, p.Tables)
	}
	want := []string{"X[i][j-1]", "H[i][j-1]", "X[i][j]", "H[0][2]"}
	wantJ := []string{"J - 2", "J - 1", "J - 1", "5"}
	if len(p.CellRefs) != len(want) {
		t.Fatalf("%d refs", len(p.CellRefs))
	}
	for k, r := range p.CellRefs {
		if r.Text != want[k] || r.Table != map[string]int{"X": 0, "H": 1}[r.Text[:1]] {
			t.Errorf("ref %d: %s table %d", k, r.Text, r.Table)
		}
		if got := flatText(r.J); got != wantJ[k] {
			t.Errorf("%s: J is %s, want %s", r.Text, got, wantJ[k])
		}
	}
	// Every case but H's otherwise tests its table.
	if len(p.Cases) != 4 || p.Cases[3].Cond != nil {
		t.Fatalf("cases %d, last cond %v", len(p.Cases), p.Cases[len(p.Cases)-1].Cond)
	}
	for k, tb := range []int64{0, 0, 1} {
		c := p.Cases[k].Cond
		if b, ok := c.(*ir.Binary); ok && b.Op == ir.OpAnd {
			c = b.X
		}
		eq, ok := c.(*ir.Binary)
		if !ok || eq.Op != ir.OpEq || eq.Y.(*ir.Const).V.I != tb || eq.X.(*ir.Binary).Op != ir.OpRem {
			t.Errorf("case %d: condition does not start with J %% 2 == %d", k, tb)
		}
	}
	if p.CellText(3, 7) != "H[3][3]" || p.CellText(0, -1) != "H[0][-1]" || p.CellText(0, 8) != "X[0][4]" || p.GridText() != "5x4 grid" {
		t.Errorf("CellText %s %s %s, GridText %s", p.CellText(3, 7), p.CellText(0, -1), p.CellText(0, 8), p.GridText())
	}
}

// TestTables1DLowering: a 1-D grid of N cells and T tables is the one
// flat row of N*T cells, table t's cell [j] at column j*T + t; references
// are marked OneD and named as written.
func TestTables1DLowering(t *testing.T) {
	p := mustCheck(t, `int 1x? p = 3,1,4,1,5
len(p)
hold[i] = -p[0] when i == 0
        | max(hold[i-1], rest[i-1] - p[i]) otherwise
rest[i] = hold[i] + 1 when i == 0
        | max(rest[i-1], hold[i-1] + p[i]) otherwise
answer: rest[len(p)-1] + hold[2]
`, nil)
	if p.Dims != 1 || p.Rows != 1 || p.Cols != 10 || strings.Join(p.Tables, ",") != "hold,rest" || p.IVar != "" {
		t.Fatalf("dims %d grid %dx%d tables %v IVar %q, want a 1-D 1x10 hold,rest", p.Dims, p.Rows, p.Cols, p.Tables, p.IVar)
	}
	want := []string{"hold[i-1]", "rest[i-1]", "hold[i]", "rest[i-1]", "hold[i-1]"}
	wantJ := []string{"J - 2", "J - 1", "J - 1", "J - 2", "J - 3"}
	if len(p.CellRefs) != len(want) {
		t.Fatalf("%d refs", len(p.CellRefs))
	}
	for k, r := range p.CellRefs {
		if r.Text != want[k] || !r.OneD || flatText(r.I) != "0" || flatText(r.J) != wantJ[k] {
			t.Errorf("ref %d: %s (OneD %v) at [%s][%s], want %s at [0][%s]", k, r.Text, r.OneD, flatText(r.I), flatText(r.J), want[k], wantJ[k])
		}
	}
	if p.CellText(0, 7) != "rest[3]" || p.CellText(0, -1) != "rest[-1]" || p.GridText() != "1-D grid of 5 cells" {
		t.Errorf("CellText %s %s, GridText %s", p.CellText(0, 7), p.CellText(0, -1), p.GridText())
	}
}

// flatText writes J's lowering in a small notation.
func flatText(e ir.Expr) string {
	switch n := e.(type) {
	case *ir.Const:
		return ir.Value{T: ir.Long, I: n.V.I}.String()
	case *ir.Var:
		return "J"
	case *ir.Convert:
		return flatText(n.X)
	case *ir.Binary:
		return flatText(n.X) + " " + n.Op.String() + " " + flatText(n.Y)
	}
	return "?"
}

// TestTablesOutside checks the claim that needs no guard: for every table
// t' read from every table t, a column b*T + t' is inside 0..C*T-1 exactly
// when b is inside 0..C-1, and J + (d*T + t' - t) equals it for J = j*T + t.
func TestTablesOutside(t *testing.T) {
	for T := int64(1); T <= 4; T++ {
		for C := int64(1); C <= 5; C++ {
			for b := -2; b <= int(C)+1; b++ {
				for tp := int64(0); tp < T; tp++ {
					flat := int64(b)*T + tp
					if in := flat >= 0 && flat < C*T; in != (b >= 0 && int64(b) < C) {
						t.Fatalf("T=%d C=%d b=%d t'=%d: flat %d inside %v", T, C, b, tp, flat, in)
					}
					if tt, jj := ir.TableOf(flat, int(T)); int64(tt) != tp || jj != int64(b) {
						t.Fatalf("TableOf(%d, %d) = %d, %d", flat, T, tt, jj)
					}
					for j := int64(0); j < C; j++ {
						for tc := int64(0); tc < T; tc++ {
							d := int64(b) - j
							if j*T+tc+(d*T+tp-tc) != flat {
								t.Fatalf("offset form differs")
							}
						}
					}
				}
			}
		}
	}
}

func TestTablesErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"same cell, later table",
			"3x3\nX[i][j] = H[i][j] + 1\nH[i][j] = 0\n",
			"2:11: H[i][j] reads table H at the same cell, but H (line 3) comes after X (line 2)"},
		{"unknown table",
			"3x3\nX[i][j] = 0\nH[i][j] = Z[i][j-1] when j > 0\n  | 0 otherwise\n",
			"3:11: unknown table Z (the tables are X, H)"},
		{"cell among named tables",
			"3x3\nX[i][j] = 0\nH[i][j] = cell[i][0]\n",
			"3:11: unknown table cell"},
		{"arity",
			"3x3\nX[i][j] = 0\nH[i][j] = X[i]\n",
			"3:11: X needs two subscripts, X[i][j], not 1"},
		{"a table without subscripts",
			"3x3\nX[i][j] = 0\nH[i][j] = X\n",
			"3:11: X is a table: it needs two subscripts"},
		{"1-D grid, same cell, later table",
			"4\nX[i] = H[i] + 1\nH[i] = 0\n",
			"2:8: H[i] reads table H at the same cell, but H (line 3) comes after X (line 2)"},
		{"1-D grid, arity",
			"4\nX[i] = 0\nH[i] = X[i][0]\n",
			"3:8: X takes one subscript, X[k], not 2: the grid is 1-D"},
		{"1-D grid, a table without subscripts",
			"4\nX[i] = 0\nH[i] = X\n",
			"3:8: X is a table: it needs a subscript, X[k]"},
		{"1-D grid, outside",
			"4\nX[i] = 0\nH[i] = X[4]\n",
			"3:8: X[4] is outside the 1-D grid of 4 cells"},
		{"3-D grid",
			"2x2x2\nX[k][i][j] = 0\nH[k][i][j] = 1\n",
			"3:1: several tables are not supported yet on a 3-D grid"},
		{"table named as an input",
			"int 1x2 A = 1,2\n3x3\nA[i][j] = 0\nH[i][j] = 1\n",
			"3:1: A is the input declared at line 1"},
		{"duplicate table",
			"3x3\nX[i][j] = 0\nX[i][j] = 1\n",
			"3:1: duplicate recurrence of table X (the first is at line 2)"},
		{"last case of a table",
			"3x3\nX[i][j] = 0 when i == 0\nH[i][j] = 1\n",
			"2:11: the last case must be `otherwise`"},
		{"constant reference outside",
			"3x3\nX[i][j] = 0\nH[i][j] = X[1][3]\n",
			"3:11: X[1][3] is outside the 3x3 grid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check(parse(t, "t.dp", tc.src), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
