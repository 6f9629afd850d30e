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

// TestKeepCols: with Options.KeepCols every row's columns lo .. hi-1 come
// back in Result.Window as the whole grid has them (and no grid), on the
// Go evaluator and on compiled code, whose forward wavefront stops after
// the window: windows at the grid's edges and around a strip's 64 lanes,
// one thread and three, the rows and wavefront sweeps, int and float.
func TestKeepCols(t *testing.T) {
	r := dptest.Rand(t)
	c, cerr := compiler()
	sources := []struct{ name, src string }{
		{"lcs", dptest.LCS(dptest.DNA(r, 150), dptest.DNA(r, 200))},
		{"knapsack", dptest.Knapsack(dptest.Ints(r, 40, 0, 9), dptest.Ints(r, 40, 0, 20), 170)},
		{"float", fmt.Sprintf("double 1x? w = %s\ncell: double\n(len(w)+1) x 140\ncell[i][j] = 0.5 * j  when i == 0 || j == 0\n           | min(cell[i-1][j] + w[i-1], cell[i][j-1] + 0.25)   otherwise\n", dptest.Join(dptest.Ints(r, 70, 0, 9)))},
	}
	for _, s := range sources {
		p, pl := dptest.Load(t, s.name+".dp", s.src)
		if !New(1).KeepsCols(pl) {
			t.Fatalf("%s: the %s schedule keeps no columns", s.name, pl.Schedule)
		}
		whole, err := solveGo(t, p, pl, backend.Options{Maintain: true, NoSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range [][2]int64{{0, 1}, {0, p.Cols}, {1, 2}, {63, 65}, {60, 130}, {p.Cols - 1, p.Cols}, {5, p.Cols - 3}} {
			for _, threads := range []int{1, 3} {
				opt := backend.Options{KeepCols: w, NoSpecial: true, Threads: threads}
				runs := []struct {
					name string
					run  func() (*backend.Result, error)
				}{{"go", func() (*backend.Result, error) { return solveGo(t, p, pl, opt) }}}
				if cerr == nil {
					runs = append(runs, struct {
						name string
						run  func() (*backend.Result, error)
					}{"compiled", func() (*backend.Result, error) { return solveCompiled(t, c, p, pl, opt) }})
				}
				for _, x := range runs {
					got, err := x.run()
					what := fmt.Sprintf("%s %s, columns %d..%d, %d threads", s.name, x.name, w[0], w[1]-1, threads)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if got.Grid != nil || got.Window == nil || got.Window.Rows != p.Rows || got.Window.Cols != w[1]-w[0] {
						t.Fatalf("%s: grid %v, window %v", what, got.Grid != nil, got.Window)
					}
					for i := int64(0); i < p.Rows; i++ {
						for j := w[0]; j < w[1]; j++ {
							if a, b := got.Window.At(i, j-w[0]), whole.Grid.At(i, j); a != b {
								t.Fatalf("%s: cell [%d][%d] is %v, the grid's %v", what, i, j, a, b)
							}
						}
					}
				}
			}
		}
	}
}
