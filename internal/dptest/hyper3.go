package dptest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Recurrences of 3-D grids that run on hyperplanes over the grid's three
// axes, t = a*k + b*i + c*j (contract v2 §7.3), each with its whole grid
// computed by plain loops in an order of the reader's choosing: the
// three-string LCS (t = k + i + j), an interval DP in every k-plane that
// also reads the plane before (t = k - i + j), the same without it (t = j
// - i, interval order in every plane), a recurrence that reads the next
// plane (t = i, or forced t = i - k), and Floyd-Warshall forced to whole
// k-planes (t = k). Forced variants give other coefficients (gcds in a
// plane's line, negative ones) the same grid.

// Hyper3 is one such problem: its source, the front function the planner
// must pick (as check writes it), and the K x R x C grid.
type Hyper3 struct {
	Name  string
	Src   string
	Front string
	Want  [][][]int64
}

// Flat is h's grid as sema lays it out: K rows of R*C cells.
func (h Hyper3) Flat() [][]int64 {
	out := make([][]int64, len(h.Want))
	for k, plane := range h.Want {
		for _, row := range plane {
			out[k] = append(out[k], row...)
		}
	}
	return out
}

func grid3(k, r, c int) [][][]int64 {
	g := make([][][]int64, k)
	for x := range g {
		g[x] = make([][]int64, r)
		for y := range g[x] {
			g[x][y] = make([]int64, c)
		}
	}
	return g
}

// Hyper3Cases are the problems at sides near n (n >= 1), with random data
// from r.
func Hyper3Cases(r *rand.Rand, n int) []Hyper3 {
	var out []Hyper3
	// Three-string LCS, as the planner picks it and forced.
	a, b, c := String(r, n, "AB"), String(r, n+1, "AB"), String(r, max(n-1, 1), "AB")
	lcs := lcs3Grid(a, b, c)
	out = append(out, Hyper3{"lcs3", LCS3(a, b, c), "t = k + i + j", lcs})
	for _, f := range []string{"k + 2*i + 2*j", "2*k + i + 3*j", "3*k + 2*i + j"} {
		out = append(out, Hyper3{"lcs3 t = " + f, "schedule: t = " + f + "\n" + LCS3(a, b, c), "t = " + f, lcs})
	}
	// Interval DP in every plane, reading the plane before too.
	d := make([]int64, n+1)
	for x := range d {
		d[x] = int64(1 + r.IntN(9))
	}
	K := 2 + r.IntN(3)
	out = append(out, Hyper3{"interval3", interval3(d, K, true), "t = k - i + j", interval3Grid(d, K, true)})
	out = append(out, Hyper3{"interval3 t = 2*k - i + j", "schedule: t = 2*k - i + j\n" + interval3(d, K, true), "t = 2*k - i + j", interval3Grid(d, K, true)})
	out = append(out, Hyper3{"interval3 planes", interval3(d, K, false), "t = j - i", interval3Grid(d, K, false)})
	out = append(out, Hyper3{"interval3 planes forced", "schedule: interval\n" + interval3(d, K, false), "t = j - i", interval3Grid(d, K, false)})
	// Reading the next plane.
	w := make([]int64, 1+r.IntN(5))
	for x := range w {
		w[x] = int64(r.IntN(20) - 5)
	}
	K, R, C := 2+r.IntN(n+1), n, max(n-1, 1)+r.IntN(2)
	out = append(out, Hyper3{"next plane", nextPlane(w, K, R, C), "t = i", nextPlaneGrid(w, K, R, C)})
	out = append(out, Hyper3{"next plane t = i - k", "schedule: t = i - k\n" + nextPlane(w, K, R, C), "t = i - k", nextPlaneGrid(w, K, R, C)})
	// Floyd-Warshall by whole k-planes, forced over the three axes.
	g := Graph(r, n, 0.3, 30)
	fw := strings.Replace(FloydWarshall(g, ""), "cell: long\n", "cell: long\nschedule: t = k + 0*i\n", 1)
	out = append(out, Hyper3{"floyd t = k", fw, "t = k", floydGrid(g)})
	return out
}

// lcs3Grid is LCS3's grid by the triple loop.
func lcs3Grid(a, b, c string) [][][]int64 {
	L := grid3(len(a)+1, len(b)+1, len(c)+1)
	for k := 1; k <= len(a); k++ {
		for i := 1; i <= len(b); i++ {
			for j := 1; j <= len(c); j++ {
				if a[k-1] == b[i-1] && b[i-1] == c[j-1] {
					L[k][i][j] = L[k-1][i-1][j-1] + 1
				} else {
					L[k][i][j] = max(L[k-1][i][j], L[k][i-1][j], L[k][i][j-1])
				}
			}
		}
	}
	return L
}

// interval3 is a matrix chain over the dimensions d in each of K planes,
// plane k adding k to every split; with prev, a split also pays the plane
// before's cost of the same interval.
func interval3(d []int64, K int, prev bool) string {
	extra := ""
	if prev {
		extra = " + (k > 0 ? cell[k-1][i][j] : 0)"
	}
	n := len(d) - 1
	return fmt.Sprintf(`problem interval3
long 1x? d = %s
cell: long
%d x %d x %d
cell[k][i][j] = 0 when j <= i
              | min(m in i..j-1: cell[k][i][m] + cell[k][m+1][j] + d[i]*d[m+1]*d[j+1] + k)%s otherwise
`, Join(d), K, n, n, extra)
}

func interval3Grid(d []int64, K int, prev bool) [][][]int64 {
	n := len(d) - 1
	g := grid3(K, n, n)
	for k := 0; k < K; k++ {
		for l := 1; l < n; l++ {
			for i := 0; i+l < n; i++ {
				j := i + l
				best := int64(-1)
				for m := i; m < j; m++ {
					v := g[k][i][m] + g[k][m+1][j] + d[i]*d[m+1]*d[j+1] + int64(k)
					if best < 0 || v < best {
						best = v
					}
				}
				if prev && k > 0 {
					best += g[k-1][i][j]
				}
				g[k][i][j] = best
			}
		}
	}
	return g
}

// nextPlane reads the plane after (k+1) one row up, and its own plane one
// row up and one column right: by increasing i every read is earlier.
func nextPlane(w []int64, K, R, C int) string {
	return fmt.Sprintf(`problem next-plane
int 1x? w = %s
%d x %d x %d
cell[k][i][j] = (k*7 + i*3 + j) %% 5 when i == 0 || k == DIM0-1 || j == DIM2-1
              | max(cell[k+1][i-1][j], cell[k][i-1][j+1]) + w[(k + i + j) %% len(w)] otherwise
`, Join(w), K, R, C)
}

func nextPlaneGrid(w []int64, K, R, C int) [][][]int64 {
	g := grid3(K, R, C)
	for i := 0; i < R; i++ {
		for k := K - 1; k >= 0; k-- {
			for j := C - 1; j >= 0; j-- {
				if i == 0 || k == K-1 || j == C-1 {
					g[k][i][j] = int64((k*7 + i*3 + j) % 5)
					continue
				}
				g[k][i][j] = max(g[k+1][i-1][j], g[k][i-1][j+1]) + w[(k+i+j)%len(w)]
			}
		}
	}
	return g
}

// floydGrid is FloydWarshall's whole grid (inf as LongInf).
func floydGrid(w [][]int64) [][][]int64 {
	n := len(w)
	g := grid3(n+1, n, n)
	for i := range w {
		for j, v := range w[i] {
			g[0][i][j] = v
		}
	}
	for k := 1; k <= n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := g[k-1][i][j]
				if x, y := g[k-1][i][k-1], g[k-1][k-1][j]; x != NoEdge && y != NoEdge && x+y < v {
					v = x + y
				}
				g[k][i][j] = v
			}
		}
	}
	return g
}
