package analysis_test

import (
	"context"
	"testing"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// TestTableInfSigns: the infinities each table of a recurrence may hold,
// and that no cell of its grid (the Go evaluator's) holds one the analysis
// excludes — an excluded sign is a test left out of generated code.
func TestTableInfSigns(t *testing.T) {
	neg, pos, both, none := analysis.InfSigns{Neg: true}, analysis.InfSigns{Pos: true}, analysis.InfSigns{Pos: true, Neg: true}, analysis.InfSigns{}
	seq := "char 1x? A = \"GATTACAGAT\"\nchar 1x? B = \"GCATGCUA\"\n(len(A)+1) x (len(B)+1)\n"
	for _, tc := range []struct {
		name, src string
		want      analysis.InfSigns
		tables    []analysis.InfSigns // of several tables
	}{
		{"gotoh: X and Y start at -inf, H's max of them and a finite term is finite", "", neg, []analysis.InfSigns{neg, neg, none}},
		{"a table of max(-inf, -inf)", "4 x 4\nX[i][j] = -inf when j == 0\n        | max(X[i][j-1] - 1, H[i][j-1] - 2) otherwise\nH[i][j] = max(X[i][j], -inf) when i == 0\n        | 3 otherwise\n",
			neg, []analysis.InfSigns{neg, neg}},
		{"min-plus from inf borders", seq + `cell[i][j] = inf when j == 0 && i > 0
           | 0 when i == 0
           | min(cell[i-1][j] + 2, cell[i][j-1] - 1, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : 3)) otherwise
`, pos, nil},
		{"finite: edit distance", seq + `cell[i][j] = i + j when i == 0 || j == 0
           | min(cell[i-1][j] + 1, cell[i][j-1] + 1, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : 1)) otherwise
`, none, nil},
		{"a cell subtracted from a constant turns -inf into inf", seq + `cell[i][j] = -inf when j == 0
           | 0 when i == 0
           | max(cell[i-1][j-1] - 1, 0 - cell[i][j-1]) otherwise
`, both, nil},
		{"negation", seq + `cell[i][j] = -inf when j == 0
           | 0 when i == 0
           | -cell[i-1][j] otherwise
`, both, nil},
		{"an empty min is inf", seq + `cell[i][j] = 0 when i == 0
           | max(cell[i-1][j], min(k in 1..j-1: cell[i-1][k])) otherwise
`, pos, nil},
		{"an empty max is -inf", seq + `cell[i][j] = 0 when i == 0
           | max(k in 1..j-1: cell[i-1][k] + 1) otherwise
`, neg, nil},
		{"inf from data", "int 1x4 W = 3, inf, 5, 1\n4 x 4\ncell[i][j] = W[j] when i == 0\n           | min(cell[i-1][j] - 1, 7) otherwise\n", pos, nil},
	} {
		src := tc.src
		if src == "" {
			src = dptest.Affine("GATTACAGAT", "GCATGCA", 5, 2, "global")
		}
		p, pl := dptest.Load(t, "signs.dp", src)
		signs := analysis.TableInfSigns(p, nil)
		if got := signs.All(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		for k, w := range tc.tables {
			if got := signs.Table(k); got != w {
				t.Errorf("%s: table %d %+v, want %+v", tc.name, k, got, w)
			}
		}
		res, err := cpu.New(1).WithNative(nil).Run(context.Background(), p, pl, backend.Options{Threads: 1, Maintain: true})
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, src)
		}
		infPos, infNeg := ir.InfSentinel(p.CellType)
		for i := int64(0); i < p.Rows; i++ {
			for j := int64(0); j < p.Cols; j++ {
				v, w := res.Grid.At(i, j).I, signs.Table(int(j)%max(1, len(p.Tables)))
				if (v == infPos && !w.Pos) || (v == infNeg && !w.Neg) {
					t.Errorf("%s: cell [%d][%d] is %d, an infinity the analysis excludes", tc.name, i, j, v)
				}
			}
		}
	}
}
