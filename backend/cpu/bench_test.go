package cpu

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
)

func lcsSource(a, b string) string {
	return fmt.Sprintf(`problem lcs
char 1x? A = "%s"
char 1x? B = "%s"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                  when i == 0 || j == 0
           | cell[i-1][j-1] + 1                 when A[i-1] == B[j-1]   emit A[i-1]
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`, a, b)
}

// BenchmarkLCS solves LCS of two random ACGT strings; it reports cells per
// second (GCUPS = 1e9 cells/s) for 1 and 2 threads.
func BenchmarkLCS(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		r := rand.New(rand.NewSource(1))
		p, pl := load(b, "lcs.dp", lcsSource(randString(r, n, "ACGT"), randString(r, n, "ACGT")))
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/threads=%d", n, threads), func(b *testing.B) {
				ex := New(threads)
				for b.Loop() {
					if _, err := ex.Run(context.Background(), p, pl, backend.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				cells := float64(p.Cells()) * float64(b.N)
				b.ReportMetric(cells/b.Elapsed().Seconds()/1e9, "GCUPS")
				b.ReportMetric(b.Elapsed().Seconds()*1e9/cells, "ns/cell")
			})
		}
	}
}

// BenchmarkKinds solves 4000x4000 instances of other problems and cell
// types on 2 threads, for a view beyond LCS.
func BenchmarkKinds(b *testing.B) {
	const n = 4000
	srcs := []struct {
		name string
		src  func(r *rand.Rand) string
	}{
		{"lcs-int", func(r *rand.Rand) string { return lcsCase(r, n, n).src }},
		{"lcs-long", func(r *rand.Rand) string { return withCell(lcsCase(r, n, n).src, "long") }},
		{"lcs-float", func(r *rand.Rand) string { return withCell(lcsCase(r, n, n).src, "float") }},
		{"lcs-double", func(r *rand.Rand) string { return withCell(lcsCase(r, n, n).src, "double") }},
		{"editdistance", func(r *rand.Rand) string { return editCase(r, n, n).src }},
		{"knapsack", func(r *rand.Rand) string {
			return knapsackSource(randInts(r, n/10, 1, 2000), randInts(r, n/10, 1, 1000), 10*n)
		}},
		{"smith-waterman", func(r *rand.Rand) string { return swCase(r, n, n).src }},
		{"manhattan", func(r *rand.Rand) string { return manhattanCase(r, n, n).src }},
		{"backward", func(r *rand.Rand) string { return backwardCase(r, n, n).src }},
		{"cols", func(r *rand.Rand) string { return colsCase(false)(r, n, n).src }},
	}
	for _, c := range srcs {
		b.Run(c.name, func(b *testing.B) {
			p, pl := load(b, c.name+".dp", c.src(rand.New(rand.NewSource(1))))
			runtime.GC()
			ex := New(2)
			for b.Loop() {
				if _, err := ex.Run(context.Background(), p, pl, backend.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/(float64(p.Cells())*float64(b.N)), "ns/cell")
		})
	}
}
