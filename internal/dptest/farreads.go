package dptest

import (
	"fmt"
	"math/rand/v2"
)

// FarReads is a 2-D recurrence that reads the row above k columns ahead
// (k = 4..7) beside the cell to its left, which only the hyperplanes past
// the small coefficients order (t = (k+1)*i + j): cells on the first row
// and column are w[j]; where j+k is past the last column the cell adds w[j]
// to the one above; the others (cell[i-1][j+k] + cell[i][j-1] + w[j]) mod
// 1000003.
func FarReads(r *rand.Rand, rows, cols int) (src string, grid [][]float64, answer float64) {
	k := 4 + r.IntN(4)
	w := Ints(r, cols, 0, 1000)
	g := make([][]int64, rows)
	grid = NewGrid(rows, cols)
	for i := range g {
		g[i] = make([]int64, cols)
		for j := range g[i] {
			switch {
			case i == 0 || j == 0:
				g[i][j] = int64(w[j])
			case j+k >= cols:
				g[i][j] = g[i-1][j] + int64(w[j])
			default:
				g[i][j] = (g[i-1][j+k] + g[i][j-1] + int64(w[j])) % 1000003
			}
			grid[i][j] = float64(g[i][j])
		}
	}
	src = fmt.Sprintf(`problem far
int 1x? w = %s
%d x len(w)
cell: long
cell[i][j] = w[j]                                               when i == 0 || j == 0
           | cell[i-1][j] + w[j]                                when j + %d >= COLS
           | (cell[i-1][j+%d] + cell[i][j-1] + w[j]) %% 1000003   otherwise
`, Join(w), rows, k, k)
	return src, grid, grid[rows-1][cols-1]
}
