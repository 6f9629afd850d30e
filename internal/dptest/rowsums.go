package dptest

import "math"

// RowSumsRecurrence is a recurrence over ranges of earlier rows (fronts
// t = i, every reference reaching back over a reduction): each cell sums its
// column above it and adds the largest cell of another column above it,
// modulo 1000. It follows a grid line `ROWS x len(w)` over an input w;
// RowSums is its reference.
const RowSumsRecurrence = `cell[i][j] = w[j]                                                               when i == 0
           | (sum(k in 0..i-1: cell[k][j]) + max(k in 0..i-1: cell[k][(j*7+1) % COLS])) % 1000   otherwise
`

// RowSums is the grid of RowSumsRecurrence with rows rows over w.
func RowSums(w []int64, rows int) [][]float64 {
	cols := len(w)
	g := NewGrid(rows, cols)
	for j := range w {
		g[0][j] = float64(w[j])
	}
	for i := 1; i < rows; i++ {
		for j := 0; j < cols; j++ {
			var sum int64
			best := int64(math.MinInt64)
			for k := 0; k < i; k++ {
				sum += int64(g[k][j])
				best = max(best, int64(g[k][(j*7+1)%cols]))
			}
			g[i][j] = float64((sum + best) % 1000)
		}
	}
	return g
}
