package dptest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// The 3-D grids of contract v2 §7.1 (`K x R x C`, cell[k][i][j]): sources
// written as the textbook states them, and plain-Go references written
// from the same definitions with loops.

// NoEdge marks a missing edge in the matrices of FloydWarshall and
// ShortestPaths, and an unreachable pair in ShortestPaths' result.
const NoEdge = math.MaxInt64

// FloydWarshall is all-pairs shortest paths over the weighted digraph w
// (w[i][j] the weight of edge i -> j, NoEdge where there is none; written
// inf in the data) in its natural 3-D form (CLRS 25.2): cell[k][i][j] is
// the shortest path from i to j through intermediate vertices among the
// first k. answer is the source's answer: line ("" for the default, the
// last cell).
func FloydWarshall(w [][]int64, answer string) string {
	rows := make([]string, len(w))
	for i, r := range w {
		cells := make([]string, len(r))
		for j, v := range r {
			if v == NoEdge {
				cells[j] = "inf"
			} else {
				cells[j] = fmt.Sprint(v)
			}
		}
		rows[i] = strings.Join(cells, ", ")
	}
	if answer != "" {
		answer = "answer: " + answer + "\n"
	}
	return fmt.Sprintf(`problem floyd-warshall
long ?x? w = %s
cell: long
(rows(w)+1) x rows(w) x rows(w)
cell[k][i][j] = w[i][j]                                                       when k == 0
              | min(cell[k-1][i][j], cell[k-1][i][k-1] + cell[k-1][k-1][j])    otherwise
%s`, strings.Join(rows, " & "), answer)
}

// ShortestPaths is the reference of FloydWarshall: the distance matrix
// (NoEdge where j cannot be reached from i), by the textbook's triple loop
// over one matrix updated in place.
func ShortestPaths(w [][]int64) [][]int64 {
	n := len(w)
	d := make([][]int64, n)
	for i := range d {
		d[i] = append([]int64(nil), w[i]...)
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			if d[i][k] == NoEdge {
				continue
			}
			for j := 0; j < n; j++ {
				if d[k][j] != NoEdge && d[i][k]+d[k][j] < d[i][j] {
					d[i][j] = d[i][k] + d[k][j]
				}
			}
		}
	}
	return d
}

// Graph is a random weighted digraph of n vertices for FloydWarshall: each
// edge i -> j (i != j) is missing with probability missing, else weighs
// a value in 0..maxW plus a potential difference h[i] - h[j], so that
// edges may be negative but no cycle is (every cycle weighs the sum of its
// non-negative parts). w[i][i] is 0.
func Graph(r *rand.Rand, n int, missing float64, maxW int) [][]int64 {
	h := make([]int64, n)
	for i := range h {
		h[i] = int64(r.IntN(maxW + 1))
	}
	w := make([][]int64, n)
	for i := range w {
		w[i] = make([]int64, n)
		for j := range w[i] {
			switch {
			case i == j:
			case r.Float64() < missing:
				w[i][j] = NoEdge
			default:
				w[i][j] = int64(r.IntN(maxW+1)) + h[i] - h[j]
			}
		}
	}
	return w
}

// LCS3 is the longest common subsequence of three strings over the 3-D
// grid (len(A)+1) x (len(B)+1) x (len(C)+1). The answer is the last cell.
func LCS3(a, b, c string) string {
	return fmt.Sprintf(`problem lcs3
char 1x? A = "%s"
char 1x? B = "%s"
char 1x? C = "%s"
(len(A)+1) x (len(B)+1) x (len(C)+1)
cell[k][i][j] = 0                                  when k == 0 || i == 0 || j == 0
              | cell[k-1][i-1][j-1] + 1            when A[k-1] == B[i-1] && B[i-1] == C[j-1]
              | max(cell[k-1][i][j], cell[k][i-1][j], cell[k][i][j-1])   otherwise
`, a, b, c)
}

// LCS3Length is the reference of LCS3: the three nested loops.
func LCS3Length(a, b, c string) int {
	return int(lcs3Grid(a, b, c)[len(a)][len(b)][len(c)])
}
