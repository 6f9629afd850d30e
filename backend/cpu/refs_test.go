package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// This file holds the problems of the tests with independent references:
// plain Go, written from the textbook definitions, computing the whole grid.

// refCase is one problem instance: its `.dp` text and the reference grid
// (rows of cells; +Inf / -Inf stand for inf / -inf).
type refCase struct {
	src  string
	grid [][]float64
	// answer is the expected answer (NaN: the default, the last cell of
	// the sweep, read from the grid); cell is the expected answer cell.
	answer    float64
	ansI      int64
	ansJ      int64
	ansIsCell bool
	tol       float64 // relative tolerance for floating answers and cells
}

func last(g [][]float64) (float64, int64, int64) {
	i, j := len(g)-1, len(g[0])-1
	return g[i][j], int64(i), int64(j)
}

func lcsCase(r *rand.Rand, n, m int) refCase {
	a, b := dptest.DNA(r, n), dptest.DNA(r, m)
	g := dptest.LCSGrid(a, b)
	v, i, j := last(g)
	return refCase{src: dptest.LCS(a, b), grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}

func editCase(r *rand.Rand, n, m int) refCase {
	a, b := dptest.DNA(r, n), dptest.DNA(r, m)
	ins, del, sub := 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(4)
	g := dptest.EditDistanceGrid(a, b, ins, del, sub)
	v, i, j := last(g)
	return refCase{src: dptest.EditDistance(a, b, ins, del, sub), grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}

func manhattanCase(r *rand.Rand, n, m int) refCase {
	n, m = max(n, 1), max(m, 1)
	down := make([][]int, n-1)
	for k := range down {
		down[k] = dptest.Ints(r, m, 0, 9)
	}
	right := make([][]int, n)
	for k := range right {
		right[k] = dptest.Ints(r, m-1, 0, 9)
	}
	g := dptest.NewGrid(n, m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i == 0 && j == 0:
			case i == 0:
				g[i][j] = g[i][j-1] + float64(right[i][j-1])
			case j == 0:
				g[i][j] = g[i-1][j] + float64(down[i-1][j])
			default:
				g[i][j] = math.Max(g[i-1][j]+float64(down[i-1][j]), g[i][j-1]+float64(right[i][j-1]))
			}
		}
	}
	// A side of 1 leaves down or right without rows or columns: give them
	// a row (column) of zeros that is never read.
	if n == 1 {
		down = [][]int{make([]int, m)}
	}
	if m == 1 {
		right = make([][]int, n)
		for k := range right {
			right[k] = []int{0}
		}
	}
	downSrc, rightSrc := "int ?x? down = "+dptest.JoinMatrix(down), "int ?x? right = "+dptest.JoinMatrix(right)
	src := fmt.Sprintf(`problem manhattan
%s
%s
%d x %d
cell[i][j] = 0                                                    when i == 0 && j == 0
           | cell[i][j-1] + right[i][j-1]                         when i == 0
           | cell[i-1][j] + down[i-1][j]                          when j == 0
           | max(cell[i-1][j] + down[i-1][j], cell[i][j-1] + right[i][j-1])   otherwise
`, downSrc, rightSrc, n, m)
	v, i, j := last(g)
	return refCase{src: src, grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}

func knapsackCase(r *rand.Rand, n, m int) refCase {
	n = max(n, 1)
	wt, val := dptest.Ints(r, n, 1, m/2+3), dptest.Ints(r, n, 1, 40)
	g := dptest.KnapsackGrid(wt, val, m)
	v, i, j := last(g)
	return refCase{src: dptest.Knapsack(wt, val, m), grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}

func boundedCase(r *rand.Rand, n, m int) refCase {
	n = max(n, 1)
	wt, val, cnt := dptest.Ints(r, n, 0, m/2+3), dptest.Ints(r, n, 1, 40), dptest.Ints(r, n, 0, 4)
	g := dptest.BoundedKnapsackGrid(wt, val, cnt, m)
	v, i, j := last(g)
	return refCase{src: dptest.BoundedKnapsack(wt, val, cnt, m), grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}

// backwardCase sweeps from the bottom-right corner: lattice paths counted
// modulo a prime.
func backwardCase(r *rand.Rand, n, m int) refCase {
	n, m = max(n, 1), max(m, 1)
	w := dptest.Ints(r, m, 0, 9)
	g := dptest.NewGrid(n, m)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if i == n-1 || j == m-1 {
				g[i][j] = float64(w[j])
				continue
			}
			g[i][j] = float64((int(g[i+1][j]) + int(g[i][j+1]) + int(g[i+1][j+1])) % 10007)
		}
	}
	src := fmt.Sprintf(`problem backward
int 1x? W = %s
%d x %d
cell[i][j] = W[j]                                                   when i == ROWS-1 || j == COLS-1
           | (cell[i+1][j] + cell[i][j+1] + cell[i+1][j+1]) %% 10007   otherwise
`, dptest.Join(w), n, m)
	return refCase{src: src, grid: g, answer: g[0][0], ansI: 0, ansJ: 0, ansIsCell: true}
}

// backwardMaxCase is a backward wavefront that also runs on float cells.
func backwardMaxCase(r *rand.Rand, n, m int) refCase {
	n, m = max(n, 1), max(m, 1)
	w := dptest.Ints(r, m, 0, 9)
	g := dptest.NewGrid(n, m)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case i == n-1 && j == m-1:
				g[i][j] = float64(w[j])
			case i == n-1:
				g[i][j] = g[i][j+1] + float64(w[j])
			case j == m-1:
				g[i][j] = g[i+1][j] - 1
			default:
				g[i][j] = math.Max(math.Max(g[i+1][j]-float64(w[j]), g[i][j+1]+1), g[i+1][j+1])
			}
		}
	}
	src := fmt.Sprintf(`problem backward-max
int 1x? W = %s
%d x %d
cell[i][j] = W[j]                                                    when i == ROWS-1 && j == COLS-1
           | cell[i][j+1] + W[j]                                     when i == ROWS-1
           | cell[i+1][j] - 1                                        when j == COLS-1
           | max(cell[i+1][j] - W[j], cell[i][j+1] + 1, cell[i+1][j+1])   otherwise
`, dptest.Join(w), n, m)
	return refCase{src: src, grid: g, answer: g[0][0], ansI: 0, ansJ: 0, ansIsCell: true}
}

// colsCase can only be swept by columns: the row read depends on the data.
// back sweeps the columns right to left.
func colsCase(back bool) func(r *rand.Rand, n, m int) refCase {
	return func(r *rand.Rand, n, m int) refCase {
		n, m = max(n, 1), max(m, 1)
		a, b := dptest.Ints(r, n, -5, 20), dptest.Ints(r, m, 0, 7)
		g := dptest.NewGrid(n, m)
		for s := 0; s < m; s++ {
			j, from, first := s, s-1, 0
			if back {
				j, from, first = m-1-s, m-s, m-1
			}
			for i := 0; i < n; i++ {
				if j == first {
					g[i][j] = float64(a[i])
					continue
				}
				g[i][j] = math.Max(g[i][from], g[(i+b[j])%n][from]) - 1 + float64(b[j])
			}
		}
		first, nb := "0", "j-1"
		if back {
			first, nb = "COLS-1", "j+1"
		}
		src := fmt.Sprintf(`problem cols
int 1x? A = %s
int 1x? B = %s
%d x %d
cell[i][j] = A[i]                                                    when j == %s
           | max(cell[i][%s], cell[(i+B[j]) %% ROWS][%s]) - 1 + B[j]   otherwise
`, dptest.Join(a), dptest.Join(b), n, m, first, nb, nb)
		c := refCase{src: src, grid: g, ansIsCell: true}
		if back {
			c.answer = g[0][0]
		} else {
			c.answer, c.ansI, c.ansJ = last(g)
		}
		return c
	}
}

// minPlusCase is a cheapest path through a city with walls: inf cells and
// saturating sums.
func minPlusCase(r *rand.Rand, n, m int) refCase {
	n, m = max(n, 1), max(m, 1)
	w := make([][]int, n)
	for k := range w {
		w[k] = dptest.Ints(r, m, -3, 9)
	}
	g := dptest.NewGrid(n, m)
	inf := math.Inf(1)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i == 0 && j == 0:
				g[i][j] = 0
			case w[i][j] < 0:
				g[i][j] = inf
			default:
				up, left := inf, inf
				if i > 0 {
					up = g[i-1][j]
				}
				if j > 0 {
					left = g[i][j-1]
				}
				g[i][j] = math.Min(up, left) + float64(w[i][j])
			}
		}
	}
	src := fmt.Sprintf(`problem minplus
int ?x? W = %s
%d x %d
cell[i][j] = 0                          when i == 0 && j == 0
           | inf                        when W[i][j] < 0
           | min(i > 0 ? cell[i-1][j] : inf, j > 0 ? cell[i][j-1] : inf) + W[i][j]   otherwise
`, dptest.JoinMatrix(w), n, m)
	v, i, j := last(g)
	return refCase{src: src, grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}

// swCase is a local alignment: the answer is the best cell of the grid,
// the first in row-major order on ties.
func swCase(r *rand.Rand, n, m int) refCase {
	a, b := dptest.DNA(r, n), dptest.DNA(r, m)
	g := dptest.NewGrid(n+1, m+1)
	best, bi, bj := 0.0, 0, 0
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			if i > 0 && j > 0 {
				s := -3.0
				if a[i-1] == b[j-1] {
					s = 3
				}
				g[i][j] = math.Max(math.Max(0, g[i-1][j-1]+s), math.Max(g[i-1][j]-2, g[i][j-1]-2))
			}
			if g[i][j] > best {
				best, bi, bj = g[i][j], i, j
			}
		}
	}
	src := fmt.Sprintf(`problem smith-waterman
char 1x? A = "%s"
char 1x? B = "%s"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 3 : -3), cell[i-1][j] - 2, cell[i][j-1] - 2)   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`, a, b)
	return refCase{src: src, grid: g, answer: best, ansI: int64(bi), ansJ: int64(bj), ansIsCell: true}
}

func lookbackCase(_ *rand.Rand, n, _ int) refCase {
	n = max(n, 1)
	g, price := dptest.LookbackGrid(n)
	return refCase{src: dptest.Lookback(n), grid: g, answer: price, tol: 1e-12}
}

// withCell sets the cell type of a `.dp` text.
func withCell(src, t string) string {
	if t == "" || t == "int" || strings.Contains(src, "\ncell: ") {
		return src
	}
	nl := strings.IndexByte(src, '\n')
	return src[:nl+1] + "cell: " + t + "\n" + src[nl+1:]
}

// rows2Case reads two rows back, at data-dependent columns (prev 2).
func rows2Case(r *rand.Rand, n, m int) refCase {
	n, m = max(n, 1), max(m, 1)
	a := dptest.Ints(r, m, 0, 9)
	g := dptest.NewGrid(n, m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i < 2:
				g[i][j] = float64(a[j] + i)
			default:
				g[i][j] = float64((int(g[i-1][j]) + 2*int(g[i-2][(j+a[j])%m])) % 1009)
			}
		}
	}
	src := fmt.Sprintf(`problem rows2
int 1x? A = %s
%d x %d
cell[i][j] = A[j] + i                                           when i < 2
           | (cell[i-1][j] + 2 * cell[i-2][(j + A[j]) %% COLS]) %% 1009   otherwise
`, dptest.Join(a), n, m)
	v, i, j := last(g)
	return refCase{src: src, grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}

// wave2Case is a wavefront reaching two rows up and two columns left.
func wave2Case(r *rand.Rand, n, m int) refCase {
	n, m = max(n, 1), max(m, 1)
	a := dptest.Ints(r, m, 0, 9)
	g := dptest.NewGrid(n, m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i < 2 || j < 2:
				g[i][j] = float64(a[j] + i)
			default:
				g[i][j] = math.Max(g[i-2][j-1]+1, math.Max(g[i-1][j], g[i][j-2]+float64(a[j])-4))
			}
		}
	}
	src := fmt.Sprintf(`problem wave2
int 1x? A = %s
%d x %d
cell[i][j] = A[j] + i                                                   when i < 2 || j < 2
           | max(cell[i-2][j-1] + 1, cell[i-1][j], cell[i][j-2] + A[j] - 4)   otherwise
`, dptest.Join(a), n, m)
	v, i, j := last(g)
	return refCase{src: src, grid: g, answer: v, ansI: i, ansJ: j, ansIsCell: true}
}
