package dptest

import "math"

// The reference solutions compute the whole grid in float64, which holds
// every integer the tests use exactly and lets one comparison serve all
// cell types. Rows are grid rows: g[i][j] is cell[i][j].

// NewGrid returns a rows x cols grid of zeros.
func NewGrid(rows, cols int) [][]float64 {
	g := make([][]float64, rows)
	for i := range g {
		g[i] = make([]float64, cols)
	}
	return g
}

// LCSGrid is the grid of LCS(a, b).
func LCSGrid(a, b string) [][]float64 {
	g := NewGrid(len(a)+1, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				g[i][j] = g[i-1][j-1] + 1
			} else {
				g[i][j] = math.Max(g[i-1][j], g[i][j-1])
			}
		}
	}
	return g
}

// LCSLength is the length of a longest common subsequence of a and b, in
// memory linear in len(a) + len(b): for sizes whose grid would not fit.
func LCSLength(a, b string) int {
	lastRow, _ := LCSEdges(a, b)
	if len(lastRow) == 0 {
		return 0
	}
	return int(lastRow[len(lastRow)-1])
}

// LCSEdges is the last row (LCS(a, b[:j]), j = 1..len(b)) and the last
// column (LCS(a[:i], b), i = 1..len(a)) of the LCS grid of a and b, computed
// row by row in memory linear in len(a) + len(b). (bench/peers checks its
// kernels' edges with it.)
func LCSEdges[S ~string | ~[]byte](a, b S) (lastRow, lastCol []int32) {
	prev := make([]int32, len(b)+1)
	cur := make([]int32, len(b)+1)
	lastCol = make([]int32, len(a))
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		lastCol[i-1] = cur[len(b)]
		prev, cur = cur, prev
	}
	return append([]int32(nil), prev[1:]...), lastCol
}

// EditDistanceGrid is the grid of EditDistance(a, b, ins, del, sub).
func EditDistanceGrid(a, b string, ins, del, sub int) [][]float64 {
	g := NewGrid(len(a)+1, len(b)+1)
	for i := 0; i <= len(a); i++ {
		for j := 0; j <= len(b); j++ {
			switch {
			case i == 0:
				g[i][j] = float64(j * ins)
			case j == 0:
				g[i][j] = float64(i * del)
			default:
				cost := sub
				if a[i-1] == b[j-1] {
					cost = 0
				}
				g[i][j] = math.Min(g[i-1][j-1]+float64(cost), math.Min(g[i-1][j]+float64(del), g[i][j-1]+float64(ins)))
			}
		}
	}
	return g
}

// KnapsackGrid is the grid of Knapsack(wt, val, capacity): cell[i][w] is
// the best value of the first i items within weight w.
func KnapsackGrid[T Int](wt, val []T, capacity int) [][]float64 {
	g := NewGrid(len(wt)+1, capacity+1)
	for i := 1; i <= len(wt); i++ {
		for w := 0; w <= capacity; w++ {
			g[i][w] = g[i-1][w]
			if int64(wt[i-1]) <= int64(w) {
				g[i][w] = math.Max(g[i][w], g[i-1][w-int(wt[i-1])]+float64(val[i-1]))
			}
		}
	}
	return g
}

// LookbackGrid is the grid of Lookback(n) and the contract's price, S0
// times its first cell.
func LookbackGrid(n int) (grid [][]float64, price float64) {
	dt := lookbackT / float64(n)
	u := math.Exp(lookbackSigma * math.Sqrt(dt))
	d := 1 / u
	p := (math.Exp(lookbackRate*dt) - d) / (u - d)
	disc := math.Exp(-lookbackRate * dt)
	g := NewGrid(n+1, n+2)
	for i := n; i >= 0; i-- {
		for j := 0; j <= n+1; j++ {
			switch {
			case i == n:
				g[i][j] = math.Pow(u, float64(j)) - 1
			case j > i:
				g[i][j] = 0
			case j >= 1:
				g[i][j] = math.Max(math.Pow(u, float64(j))-1, disc*((1-p)*d*g[i+1][j+1]+p*u*g[i+1][j-1]))
			default:
				g[i][j] = math.Max(0, disc*((1-p)*d*g[i+1][1]+p*u*g[i+1][0]))
			}
		}
	}
	return g, LookbackS0 * g[0][0]
}

// IsSubsequence reports whether s is of with some letters deleted: what a
// traceback of LCS must emit, whatever the tie-breaking.
func IsSubsequence(s, of string) bool {
	k := 0
	for i := 0; i < len(of) && k < len(s); i++ {
		if of[i] == s[k] {
			k++
		}
	}
	return k == len(s)
}

// BoundedKnapsackGrid is the grid of BoundedKnapsack(wt, val, cnt,
// capacity): cell[i][w] is the best value of up to cnt[k] copies of each of
// the first i items within weight w.
func BoundedKnapsackGrid[T Int](wt, val, cnt []T, capacity int) [][]float64 {
	g := NewGrid(len(wt)+1, capacity+1)
	for i := 1; i <= len(wt); i++ {
		wi, vi := int64(wt[i-1]), int64(val[i-1])
		for w := 0; w <= capacity; w++ {
			hi := int64(cnt[i-1])
			if wi > 0 {
				hi = min(hi, int64(w)/wi)
			}
			best := math.Inf(-1)
			for k := int64(0); k <= hi; k++ {
				best = math.Max(best, g[i-1][int64(w)-k*wi]+float64(k*vi))
			}
			g[i][w] = best
		}
	}
	return g
}

// CopiesGrid is the grid of Copies (forward): cell[i][w] the best (min
// with isMin, else max) over k in 0..w / wt[i-1] of cell[i-1][w -
// k*wt[i-1]] + k*g[i-1], row 0 zero.
func CopiesGrid[T Int](wt, g []T, capacity int, isMin bool) [][]int64 {
	grid := make([][]int64, len(wt)+1)
	grid[0] = make([]int64, capacity+1)
	for i := 1; i <= len(wt); i++ {
		grid[i] = make([]int64, capacity+1)
		wi, gi := int64(wt[i-1]), int64(g[i-1])
		for w := range int64(capacity) + 1 {
			best := grid[i-1][w]
			for k := int64(1); k <= w/wi; k++ {
				v := grid[i-1][w-k*wi] + k*gi
				if (isMin && v < best) || (!isMin && v > best) {
					best = v
				}
			}
			grid[i][w] = best
		}
	}
	return grid
}
