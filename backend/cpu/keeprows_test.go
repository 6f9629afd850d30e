package cpu

import (
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestKeepRows: the rows Options.KeepRows names come back in Result.Rows
// as the whole grid has them, for the rows and wavefront sweeps, int and
// float cells, awkward sizes, tiny tiles and batches; the grid itself is
// not kept.
func TestKeepRows(t *testing.T) {
	r := dptest.Rand(t)
	for _, n := range []int{1, 2, 17, 100} {
		for _, c := range []struct{ name, src string }{
			{"lcs", dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, n+3))},
			{"knapsack", dptest.Knapsack(dptest.Ints(r, n, 0, 9), dptest.Ints(r, n, 0, 20), 2*n+1)},
			{"lookback-free-float", fmt.Sprintf("double 1x? w = %s\ncell: double\n(len(w)+1) x 9\ncell[i][j] = 0.5 * j  when i == 0 || j == 0\n           | min(cell[i-1][j] + w[i-1], cell[i][j-1] + 0.25)   otherwise\n", dptest.Join(dptest.Ints(r, n, 0, 9)))},
		} {
			p, pl := dptest.Load(t, c.name+".dp", c.src)
			e := New(3)
			if n%2 == 1 {
				e.tune = tiny // many tiles and batches
			}
			if !e.KeepsRows(pl) {
				t.Fatalf("%s: %s schedule keeps no rows", c.name, pl.Schedule)
			}
			whole, err := solve(t, p, pl, backend.Options{Maintain: true, NoSpecial: true})
			if err != nil {
				t.Fatal(err)
			}
			var keep []int64
			for i := int64(0); i < p.Rows; i += 1 + int64(r.IntN(3)) {
				keep = append(keep, i)
			}
			got, err := e.Run(t.Context(), p, pl, backend.Options{KeepRows: keep, NoSpecial: true})
			if err != nil {
				t.Fatal(err)
			}
			dptest.KeptRows(t, fmt.Sprintf("%s n=%d", c.name, n), got, whole, keep)
		}
	}
}

// TestSweepRows: with Options.SweepRows the compiled wavefront may stop
// after the first rows, and those rows are as the whole grid has them:
// the last of them kept, at sizes around a strip's rows (a strip of 64
// lanes computed, or not, whole), on one thread and on three.
func TestSweepRows(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(dptest.DNA(r, 200), dptest.DNA(r, 150)))
	whole, err := solveGo(t, p, pl, backend.Options{Maintain: true, NoSpecial: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range []int64{1, 2, 63, 64, 65, 128, 129, 200, 201} {
		for _, threads := range []int{1, 3} {
			keep := []int64{rows - 1}
			got, err := solveCompiled(t, c, p, pl, backend.Options{KeepRows: keep, SweepRows: rows, NoSpecial: true, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			// The answer cell is in the last row: not computed when
			// the sweep stops before it.
			got.Answer = whole.Answer
			dptest.KeptRows(t, fmt.Sprintf("rows %d, %d threads", rows, threads), got, whole, keep)
		}
	}
}
