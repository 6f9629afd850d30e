package traceback_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// check parses and checks src; it need not have a plan.
func check(t *testing.T, src string) *ir.Problem {
	t.Helper()
	p, _, err := dptest.TryLoad(t, "t.dp", src)
	if p == nil {
		t.Fatalf("check: %v\n%s", err, src)
	}
	return p
}

// solve runs src on the CPU, keeping the grid.
func solve(t *testing.T, src string) (*ir.Problem, *backend.Result) {
	t.Helper()
	p, pl := dptest.Load(t, "t.dp", src)
	res, err := cpu.New(2).Run(context.Background(), p, pl, backend.Options{Maintain: true})
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

// checkPath checks that a path is made of steps to earlier cells (or later
// ones for a backward sweep) and ends at the answer cell.
func checkPath(t *testing.T, path [][2]int64, end [2]int64) {
	t.Helper()
	if len(path) == 0 || path[len(path)-1] != end {
		t.Fatalf("path %v does not end at %v", path, end)
	}
	for k := 1; k < len(path); k++ {
		a, b := path[k-1], path[k]
		if a[0] > b[0] || a[1] > b[1] || a == b {
			t.Fatalf("step %v -> %v goes backwards", a, b)
		}
	}
}

func TestLCS(t *testing.T) {
	r := dptest.Rand(t)
	for k := 0; k < 30; k++ {
		a, b := dptest.DNA(r, r.IntN(80)), dptest.DNA(r, r.IntN(80))
		p, res := solve(t, dptest.LCS(a, b))
		path, emitted, err := traceback.Trace(p, res.Grid, p.Rows-1, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		var s strings.Builder
		for _, v := range emitted {
			if v.T != ir.Char {
				t.Fatalf("emitted a %s, want char", v.T)
			}
			s.WriteByte(byte(v.I))
		}
		got := s.String()
		if int64(len(got)) != res.Answer.I || !dptest.IsSubsequence(got, a) || !dptest.IsSubsequence(got, b) {
			t.Fatalf("%q is not a common subsequence of %q and %q of length %d", got, a, b, res.Answer.I)
		}
		checkPath(t, path, [2]int64{p.Rows - 1, p.Cols - 1})
		if path[0][0] != 0 && path[0][1] != 0 {
			t.Fatalf("path starts at %v, not on the edge of the grid", path[0])
		}
	}
}

func TestKnapsack(t *testing.T) {
	r := dptest.Rand(t)
	for k := 0; k < 30; k++ {
		n, capacity := 1+r.IntN(12), r.IntN(60)
		w, v := make([]int64, n), make([]int64, n)
		for q := range w {
			w[q], v[q] = int64(1+r.IntN(20)), int64(1+r.IntN(30))
		}
		p, res := solve(t, dptest.Knapsack(w, v, capacity))
		path, emitted, err := traceback.Trace(p, res.Grid, p.Rows-1, p.Cols-1)
		if err != nil {
			t.Fatal(err)
		}
		checkPath(t, path, [2]int64{p.Rows - 1, p.Cols - 1})
		var weight, value int64
		seen := map[int64]bool{}
		for q, e := range emitted {
			if seen[e.I] || (q > 0 && e.I <= emitted[q-1].I) {
				t.Fatalf("items %v are not distinct and in order", emitted)
			}
			seen[e.I] = true
			weight += w[e.I]
			value += v[e.I]
		}
		if weight > int64(capacity) || value != res.Answer.I {
			t.Fatalf("items %v weigh %d (capacity %d) and are worth %d, answer %d", emitted, weight, capacity, value, res.Answer.I)
		}
	}
}

// TestFollows checks what is followed: the first of equal min arguments,
// the branch ?: takes, the winning term of a reduction, and that a case
// reading no cell stops the walk.
func TestFollows(t *testing.T) {
	cases := []struct {
		name string
		src  string
		at   [2]int64
		want [][2]int64
	}{
		{"ties go to the first argument", `4 x 4
cell[i][j] = 0                                  when i == 0 || j == 0
           | min(cell[i-1][j], cell[i][j-1])    otherwise
`, [2]int64{3, 3}, [][2]int64{{0, 3}, {1, 3}, {2, 3}, {3, 3}}},
		{"?: follows the branch taken", `int 1x4 A = 1,0,1,0
4 x 4
cell[i][j] = 0                                  when i == 0 || j == 0
           | A[j] > 0 ? cell[i-1][j] : cell[i][j-1]    otherwise
`, [2]int64{3, 3}, [][2]int64{{0, 2}, {1, 2}, {2, 2}, {3, 2}, {3, 3}}},
		{"reductions follow the winning term", `int 1x5 A = 3,9,9,1,4
3 x 5
cell[i][j] = A[j]                                when i == 0
           | max(k in 0..COLS-1: cell[i-1][k]) + 1  otherwise
`, [2]int64{2, 4}, [][2]int64{{0, 1}, {1, 0}, {2, 4}}},
		{"otherwise the first cell read", `3 x 3
cell[i][j] = 7                                   when i == 0
           | 2 * (cell[i-1][2] + cell[i-1][j])   otherwise
`, [2]int64{2, 0}, [][2]int64{{0, 2}, {1, 2}, {2, 0}}},
	}
	for _, tc := range cases {
		p, res := solve(t, tc.src)
		path, _, err := traceback.Trace(p, res.Grid, tc.at[0], tc.at[1])
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if fmt.Sprint(path) != fmt.Sprint(tc.want) {
			t.Errorf("%s: path %v, want %v", tc.name, path, tc.want)
		}
	}
}

func TestErrors(t *testing.T) {
	// A grid that walks in a circle: cell[0][0] -> [1][0] -> [2][0] -> [0][0].
	p := check(t, `3 x 3
cell[i][j] = cell[(i+1) % ROWS][j] + 1
`)
	g := backend.NewGrid(p.CellType, p.Rows, p.Cols)
	if _, _, err := traceback.Trace(p, g, 0, 0); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: error %v", err)
	}
	if _, _, err := traceback.Trace(p, nil, 0, 0); err == nil {
		t.Errorf("no grid: no error")
	}
	if _, _, err := traceback.Trace(p, backend.NewGrid(p.CellType, 2, 3), 0, 0); err == nil {
		t.Errorf("grid of another size: no error")
	}
	if _, _, err := traceback.Trace(p, g, 3, 0); err == nil {
		t.Errorf("start outside the grid: no error")
	}
	// A read outside the grid during the walk is an error with its position.
	q := check(t, `3 x 3
cell[i][j] = cell[i-1][j] + 1
`)
	_, _, err := traceback.Trace(q, backend.NewGrid(q.CellType, 3, 3), 2, 2)
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("walk off the grid: error %v", err)
	}
}
