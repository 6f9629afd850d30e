package plan_test

import (
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// FuzzAnalyze plans whatever the front end accepts: a plan or an error,
// never a panic, and a generic plan's fronts cover the grid once. Seeds:
// the hyperplane tests' recurrences, several tables over ranges and 3-D
// hyperplanes among them. Run with `go test -fuzz FuzzAnalyze ./plan`; the seeds run with
// every `go test`.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{matrixChain, nussinov, lis1xN, coinChange("1,2,5"), lcs, twoTables(""), twoTables("schedule: interval\n"),
		twoTables("schedule: t = 2*j - 3*i\n"), fourTables,
		"4x4\ncell[i][j] = 0 when i == 0 || j == 0 || j == 3\n | cell[i-1][j+1] + cell[i][j-1] otherwise\n",
		"3 x 4 x 5\ncell[k][i][j] = 0 when k == 0\n | cell[k-1][i][j-1] + 1 otherwise\n",
		"1 x 6\nX[i][j] = 1 + max(0, max(k in 0..j-1: X[i][k] + Y[i][k]))\nY[i][j] = max(k in 0..j-1: X[i][k]) + X[i][j]\n",
		// 3-D hyperplanes over the three axes, found and forced.
		"3 x 4 x 5\ncell[k][i][j] = 0 when k == 0 || i == 0 || j == 0\n | cell[k-1][i][j] + cell[k][i-1][j] + cell[k][i][j-1] otherwise\n",
		"schedule: t = 2*k - i + 3*j\n2 x 3 x 4\ncell[k][i][j] = k + i + j\n",
		"3 x 5 x 5\ncell[k][i][j] = 0 when j <= i\n | min(m in i..j-1: cell[k][i][m] + cell[k][m+1][j]) + (k > 0 ? cell[k-1][i][j] : 0) otherwise\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, pl, err := dptest.TryLoad(t, "f.dp", src)
		if err != nil || pl == nil || !pl.Schedule.Generic() || p.Cells() > 1<<16 {
			return
		}
		lo, hi := pl.T.Range(p.Rows, p.Cols)
		var n int64
		for tt := lo; tt <= hi; tt++ {
			fr := pl.T.Front(tt, p.Rows, p.Cols)
			for q := int64(0); q < fr.Len(); q++ {
				i, j := fr.Cell(q)
				if i < 0 || i >= p.Rows || j < 0 || j >= p.Cols || pl.T.T(i, j) != tt {
					t.Fatalf("front %d cell %d is (%d, %d)", tt, q, i, j)
				}
				n++
			}
		}
		if n != p.Cells() {
			t.Fatalf("fronts hold %d cells of %d", n, p.Cells())
		}
	})
}
