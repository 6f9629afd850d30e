package cpu

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/native"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
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
				for _, x := range pathRuns(t, c, cerr, p, pl, opt, false) {
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

// TestKeepColumns: with Options.KeepColumns (and KeepRows, or not) the
// chosen columns come back in Result.Columns, one a row, as the whole
// grid has them — on compiled code, whose strips store them as their
// lanes pass (and which must not fall back to the Go evaluator for it),
// and on the Go evaluator, tiny tiles and batches included; columns
// dense and sparse, at the grid's edges, sizes around a strip's 64 lanes,
// one thread and three, int and float cells.
func TestKeepColumns(t *testing.T) {
	r := dptest.Rand(t)
	c, cerr := compiler()
	for _, n := range []int{1, 2, 17, 63, 64, 65, 200} {
		for _, s := range []struct{ name, src string }{
			{"lcs", dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, n+3))},
			{"edit-double", strings.Replace(dptest.EditDistance(dptest.DNA(r, n+1), dptest.DNA(r, n), 1, 1, 2), "\n", "\ncell: double\n", 1)},
			{"scan", gathers(r, n+1, n+3)}, // (a 2-D input: two rows at least)
		} {
			p, pl := dptest.Load(t, s.name+".dp", s.src)
			if !New(1).KeepsColumns(pl) {
				t.Fatalf("%s: the %s schedule keeps no chosen columns", s.name, pl.Schedule)
			}
			if hp, err := codegen.GenerateHost(p, pl); err != nil || hp.Scan != (s.name == "scan") {
				t.Fatalf("%s: the compiled code's scan %v (%v)", s.name, hp != nil && hp.Scan, err)
			}
			whole, err := solveGo(t, p, pl, backend.Options{Maintain: true, NoSpecial: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range []int{1, 40} {
				var rows, cols []int64
				for i := int64(0); i < p.Rows && step > 1; i += 1 + int64(r.IntN(30)) {
					rows = append(rows, i)
				}
				for j := int64(r.IntN(int(min(3, p.Cols)))); j < p.Cols; j += 1 + int64(r.IntN(step)) {
					cols = append(cols, j)
				}
				if step > 1 && cols[len(cols)-1] != p.Cols-1 {
					cols = append(cols, p.Cols-1) // the last column too
				}
				for _, threads := range []int{1, 3} {
					opt := backend.Options{KeepRows: rows, KeepColumns: cols, NoSpecial: true, Threads: threads}
					for _, x := range pathRuns(t, c, cerr, p, pl, opt, true) {
						what := fmt.Sprintf("%s n=%d %s, %d rows, %d columns, %d threads", s.name, n, x.name, len(rows), len(cols), threads)
						got, err := x.run()
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						if x.name == "compiled" && !strings.Contains(got.Device, "compiled by") {
							t.Fatalf("%s: not compiled: %s", what, got.Device)
						}
						if got.Grid != nil || got.Columns == nil || got.Columns.Rows != int64(len(cols)) || got.Columns.Cols != p.Rows {
							t.Fatalf("%s: grid %v, columns %v", what, got.Grid != nil, got.Columns)
						}
						if len(rows) > 0 {
							dptest.KeptRows(t, what, got, whole, rows)
						}
						for k, j := range cols {
							for i := range p.Rows {
								if a, b := got.Columns.At(int64(k), i), whole.Grid.At(i, j); a != b {
									t.Fatalf("%s: kept column %d, cell [%d][%d] is %v, the grid's %v", what, j, i, j, a, b)
								}
							}
						}
					}
				}
			}
		}
	}
}

// pathRun is a run of a problem on one of the CPU executor's paths.
type pathRun struct {
	name string
	run  func() (*backend.Result, error)
}

// pathRuns are runs of p with opt on the Go evaluator (and with tiny
// tiles and batches, with tiny) and, where the system has a compiler
// (cerr nil), on compiled code.
func pathRuns(t *testing.T, c *native.Compiler, cerr error, p *ir.Problem, pl *plan.Plan, opt backend.Options, tiny bool) []pathRun {
	runs := []pathRun{{"go", func() (*backend.Result, error) { return solveGo(t, p, pl, opt) }}}
	if tiny {
		runs = append(runs, pathRun{"go-tiny", func() (*backend.Result, error) { return solveTiny(t, p, pl, opt) }})
	}
	if cerr == nil {
		runs = append(runs, pathRun{"compiled", func() (*backend.Result, error) { return solveCompiled(t, c, p, pl, opt) }})
	}
	return runs
}

// gathers is a forward wavefront of n x m cells that reads a 2-D input at
// its own cell: compiled, the rows scan (codegen.HostProgram.Scan), whose
// strips' lanes would gather it.
func gathers(r *rand.Rand, n, m int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = dptest.Join(dptest.Ints(r, m, -3, 9))
	}
	return fmt.Sprintf("int %dx%d W = %s\n%d x %d\ncell[i][j] = W[i][j] + max(i >= 1 ? cell[i-1][j] : 0, j >= 1 ? cell[i][j-1] - 1 : 0, i >= 1 && j >= 1 ? cell[i-1][j-1] + 1 : 0)\n",
		n, m, strings.Join(w, " & "), n, m)
}

// TestKeepRowsTables: the compiled scan of several tables' cells keeps
// chosen rows (whole rows of the flat grid, every table), as the whole
// grid has them; on the Go evaluator, which would keep the whole grid,
// the run refuses with backend.ErrNoKeptRows before computing, and the
// executor without a compiler does not offer to keep them.
func TestKeepRowsTables(t *testing.T) {
	r := dptest.Rand(t)
	c, cerr := compiler()
	for _, n := range []int{1, 2, 17, 64, 150} {
		p, pl := dptest.Load(t, "gotoh.dp", dptest.Gotoh(dptest.DNA(r, n), dptest.DNA(r, n+5), 5, 2))
		if pl.Cells < 2 {
			t.Fatalf("gotoh is planned without its cells (%d)", pl.Cells)
		}
		if New(1).WithNative(nil).KeepsRows(pl) {
			t.Errorf("n=%d: the Go evaluator offers to keep rows of several tables", n)
		}
		whole, err := solveGo(t, p, pl, backend.Options{Maintain: true, NoSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		var keep []int64
		for i := int64(0); i < p.Rows; i += 1 + int64(r.IntN(9)) {
			keep = append(keep, i)
		}
		opt := backend.Options{KeepRows: keep, NoSpecial: true, Threads: 2}
		if _, err := solveGo(t, p, pl, opt); !errors.Is(err, backend.ErrNoKeptRows) {
			t.Errorf("n=%d: the Go evaluator asked to keep rows of several tables: %v", n, err)
		}
		if cerr != nil {
			continue
		}
		if !compiling(New(2), c).KeepsRows(pl) {
			t.Fatalf("n=%d: the compiled scan keeps no rows of several tables", n)
		}
		got, err := solveCompiled(t, c, p, pl, opt)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !strings.Contains(got.Device, "compiled by") {
			t.Fatalf("n=%d: not compiled: %s", n, got.Device)
		}
		dptest.KeptRows(t, fmt.Sprintf("gotoh n=%d", n), got, whole, keep)
	}
}
