package dptest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// TestFloydWarshallCPU: the natural 3-D Floyd-Warshall plans as rows (one
// k-plane at a time, prev 1) and its last plane is the reference's
// distance matrix, on random graphs with missing and negative edges.
func TestFloydWarshallCPU(t *testing.T) {
	r := dptest.Rand(t)
	inf, _ := ir.ArithSentinels(ir.Long)
	for _, n := range []int{1, 2, 3, 17, 100} {
		for _, missing := range []float64{0, 0.3, 0.9} {
			w := dptest.Graph(r, n, missing, 50)
			src := dptest.FloydWarshall(w, "")
			p, pl := dptest.Load(t, "fw.dp", src)
			if pl.Schedule != plan.Rows || pl.Prev != 1 {
				t.Fatalf("n=%d: schedule %v prev %d, want rows prev 1", n, pl.Schedule, pl.Prev)
			}
			res, err := cpu.New(4).Run(context.Background(), p, pl, backend.Options{Maintain: true})
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			want := dptest.ShortestPaths(w)
			bad := 0
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					got := res.Grid.At(int64(n), int64(i*n+j)).I
					exp := want[i][j]
					if exp == dptest.NoEdge {
						exp = inf
					}
					if got != exp && bad < 5 {
						bad++
						t.Errorf("n=%d missing=%.1f: dist[%d][%d] = %d, want %d", n, missing, i, j, got, exp)
					}
				}
			}
			// The default answer is the last cell, cell[n][n-1][n-1].
			exp := want[n-1][n-1]
			if exp == dptest.NoEdge {
				exp = inf
			}
			if res.Answer.I != exp || !res.AnswerIsCell || res.AnswerI != int64(n) || res.AnswerJ != int64(n*n-1) {
				t.Errorf("n=%d: answer %d at [%d][%d], want %d at cell[%d][%d][%d]", n, res.Answer.I, res.AnswerI, res.AnswerJ, exp, n, n-1, n-1)
			}
		}
	}
}

// TestFloydWarshallAnswers: answer: lines over 3-D cells (one pair, a sum
// over the last plane) agree with the reference.
func TestFloydWarshallAnswers(t *testing.T) {
	r := dptest.Rand(t)
	n := 9
	w := dptest.Graph(r, n, 0.4, 20)
	d := dptest.ShortestPaths(w)
	var sum int64
	for i := range d {
		for j := range d[i] {
			if d[i][j] != dptest.NoEdge {
				sum += d[i][j]
			}
		}
	}
	pair := d[2][7]
	if pair == dptest.NoEdge {
		pair, _ = ir.ArithSentinels(ir.Long)
	}
	for _, c := range []struct {
		answer string
		want   int64
	}{
		{"cell[DIM0-1][2][7]", pair},
		{"sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[DIM0-1][i][j] < inf ? cell[DIM0-1][i][j] : 0))", sum},
	} {
		got := answer(t, "fw.dp", dptest.FloydWarshall(w, c.answer))
		if int64(got) != c.want {
			t.Errorf("answer: %s = %v, want %d", c.answer, got, c.want)
		}
	}
}

// TestLCS3CPU: the longest common subsequence of three strings over a
// 3-D grid agrees with the triple loop; it reports what the planner picks.
func TestLCS3CPU(t *testing.T) {
	r := dptest.Rand(t)
	for _, n := range []int{1, 2, 5, 13, 60} {
		a, b, c := dptest.String(r, n, "AB"), dptest.String(r, n+1, "AB"), dptest.String(r, max(n-1, 1), "AB")
		src := dptest.LCS3(a, b, c)
		p, pl := dptest.Load(t, "lcs3.dp", src)
		start := time.Now()
		res, err := cpu.New(0).Run(context.Background(), p, pl, backend.Options{})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if n == 60 {
			t.Logf("lcs3 %dx%dx%d: schedule %v (%s), %d fronts, %d checked references, %v",
				p.Rows, p.Mid, p.Inner, pl.Schedule, pl.T.In(p), pl.Fronts, checked(pl), time.Since(start))
		}
		if got, want := res.Answer.I, int64(dptest.LCS3Length(a, b, c)); got != want {
			t.Errorf("lcs3(%q, %q, %q) = %d, want %d", a, b, c, got, want)
		}
	}
}

func checked(pl *plan.Plan) int {
	n := 0
	for _, d := range pl.Deps {
		if d.Checked {
			n++
		}
	}
	return n
}

// TestOutside3CPU: a 3-D reference whose inner subscript leaves its side
// fails at run time naming the reference and the cell being computed,
// never reading another cell of the flat grid.
func TestOutside3CPU(t *testing.T) {
	for _, c := range []struct{ rec, want string }{
		{"cell[k][i][j] = 0 when k == 0\n | cell[k-1][i][j+1] + 1 otherwise",
			"fw.dp:5:4: cell[k-1][i][j+1] reads outside the 3x2x4 grid: its second or third subscript is outside (0..1, 0..3), computing cell[1][0][3]"},
		{"cell[k][i][j] = 0 when k == 0\n | cell[k-1][i+1][j] + 1 otherwise",
			"fw.dp:5:4: cell[k-1][i+1][j] reads outside the 3x2x4 grid: its second or third subscript is outside (0..1, 0..3), computing cell[1][1][0]"},
		{"cell[k][i][j] = 0 when k == 0\n | cell[k-1][i][j-w[0]] + 1 otherwise",
			"fw.dp:5:4: cell[k-1][i][j-w[0]] reads outside the 3x2x4 grid: its second or third subscript is outside (0..1, 0..3), computing cell[1][0][0]"},
		{"cell[k][i][j] = 0 when k == 0\n | cell[k-2][i][j] + 1 otherwise",
			"fw.dp:5:4: cell[k-2][i][j] reads cell[-1][0][0], outside the 3x2x4 grid"},
	} {
		src := "int 1x? w = 1\nint u = 0\n3 x 2 x 4\n" + c.rec + "\n"
		p, pl := dptest.Load(t, "fw.dp", src)
		_, err := cpu.New(2).Run(context.Background(), p, pl, backend.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.rec, err, c.want)
		}
	}
}

// TestHyper3CPU: recurrences of 3-D grids on hyperplanes over the three
// axes (dptest.Hyper3Cases: the planner's and forced ones) give the plain
// loops' whole grid on the Go evaluator, on one thread and on three.
func TestHyper3CPU(t *testing.T) {
	r := dptest.Rand(t)
	inf, _ := ir.ArithSentinels(ir.Long)
	for _, n := range []int{1, 2, 3, 5, 17} {
		for _, c := range dptest.Hyper3Cases(r, n) {
			p, pl := dptest.Load(t, "h3.dp", c.Src)
			if n >= 5 && pl.T.In(p) != c.Front {
				t.Errorf("%s n=%d: fronts %s, want %s", c.Name, n, pl.T.In(p), c.Front)
			}
			for _, threads := range []int{1, 3} {
				res, err := cpu.New(threads).WithNative(nil).Run(context.Background(), p, pl, backend.Options{Maintain: true, Threads: threads})
				if err != nil {
					t.Fatalf("%s n=%d threads=%d: %v", c.Name, n, threads, err)
				}
				for k, row := range c.Flat() {
					for J, want := range row {
						if want == dptest.NoEdge {
							want = inf
						}
						if got := res.Grid.At(int64(k), int64(J)).I; got != want {
							t.Fatalf("%s n=%d threads=%d (%s): cell[%d][%d][%d] = %d, want %d\n%s", c.Name, n, threads, pl.T.In(p), k, J/int(p.Inner), J%int(p.Inner), got, want, c.Src)
						}
					}
				}
			}
		}
	}
}
