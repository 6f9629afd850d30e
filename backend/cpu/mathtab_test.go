package cpu

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestCompiledMathTables: exp, log and pow of one index run compiled,
// read from tables the evaluator computed (mathTables), and every cell
// equals the Go evaluator's bit for bit; math of a cell, or of both
// indices, keeps the problem on the evaluator, and so does a table whose
// expression fails at some index (the failure is the cells').
func TestCompiledMathTables(t *testing.T) {
	c := withCompiler(t)
	cases := []struct {
		name, src string
		compiled  bool
	}{
		{"lookback-1", dptest.Lookback(1), true},
		{"lookback-2", dptest.Lookback(2), true},
		{"lookback-17", dptest.Lookback(17), true},
		{"lookback-100", dptest.Lookback(100), true},
		{"rows-i-and-j", `cell: double
double u = 1.013
13 x 70
cell[i][j] = pow(u, j) - exp(-0.25 * i)                                   when i == 0 || j == 0
           | max(cell[i-1][j] * exp(-0.01 * i), log(j + 2.0) + cell[i-1][j-1] / 3)   when j % 3 == 1
           | cell[i-1][j] / (1 + log(i + 1.0)) + pow(1.5, -j) * (j % 2 == 0 ? 1.0 : pow(u, 2 * j))   otherwise
`, true},
		{"wavefront", `cell: float
17 x 33
cell[i][j] = exp(j / 10.0)                                      when i == 0
           | log(i + 1.0)                                         when j == 0
           | max(cell[i-1][j], cell[i][j-1]) * 0.5 + pow(0.9, j) - exp(-i / 4.0)   otherwise
`, true},
		{"math-of-a-cell", `cell: double
9 x 9
cell[i][j] = pow(1.1, j)                               when i == 0
           | exp(cell[i-1][j] / 100) + pow(1.1, j)     otherwise
`, false},
		{"math-of-both-indices", `cell: double
9 x 9
cell[i][j] = pow(1.1, i + j)                           when i == 0
           | cell[i-1][j] + pow(1.1, i * j)            otherwise
`, false},
		{"math-in-a-reduction", `cell: double
1 x 40
cell[i][j] = pow(1.1, j)                                           when j == 0
           | max(k in 0..j-1: cell[i][k] * exp(-0.1 * j)) + pow(1.1, j)   otherwise
`, false},
		{"failing-index", `cell: double
1 x 9
cell[i][j] = pow(1.0001, j * 1000000000)   when j < 3
           | 1.0                           otherwise
`, false},
	}
	for _, tc := range cases {
		p, pl := dptest.Load(t, tc.name+".dp", tc.src)
		for _, threads := range []int{1, 3} {
			name := fmt.Sprintf("%s/%d threads", tc.name, threads)
			opt := backend.Options{Threads: threads, Maintain: true}
			got, err := solveCompiled(t, c, p, pl, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if compiled := strings.Contains(got.Device, "compiled by"); compiled != tc.compiled {
				t.Fatalf("%s: ran on %q, want compiled: %v", name, got.Device, tc.compiled)
			}
			want, err := solveGo(t, p, pl, opt)
			if err != nil {
				t.Fatalf("%s: evaluator: %v", name, err)
			}
			for i := int64(0); i < p.Rows; i++ {
				for j := int64(0); j < p.Cols; j++ {
					g, w := got.Grid.At(i, j), want.Grid.At(i, j)
					if math.Float64bits(g.F) != math.Float64bits(w.F) {
						t.Fatalf("%s: cell[%d][%d] = %v compiled, %v evaluated", name, i, j, g.F, w.F)
					}
				}
			}
			if got.Answer != want.Answer {
				t.Fatalf("%s: answer %v compiled, %v evaluated", name, got.Answer, want.Answer)
			}
		}
	}
}

// TestCompiledFloatSums: a region answer that sums floating cells comes out
// the same, to the bit, whatever the threads and their timing, compiled and
// evaluated, on the rows sweep (rows wider than two blocks of lanes), the
// wavefront and the fronts, forward and backward; and the two agree to the
// bit (they add in the same order).
func TestCompiledFloatSums(t *testing.T) {
	c := withCompiler(t)
	sum := "answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))\n"
	// A 2-D input read at (i, j): the host program's scan.
	var w strings.Builder
	for i := 0; i < 70; i++ {
		if i > 0 {
			w.WriteString(" & ")
		}
		for j := 0; j < 90; j++ {
			if j > 0 {
				w.WriteString(", ")
			}
			fmt.Fprintf(&w, "%d.%d", (i*7+j*3)%11, (i+j)%7)
		}
	}
	cases := []struct{ name, src string }{
		{"scan", "cell: double\ndouble 70x90 W = " + w.String() + `
70 x 90
cell[i][j] = W[i][j] / 3                                             when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1]) * 0.5 + W[i][j] / 7     otherwise
` + sum},
		{"scan-back", "cell: double\ndouble 70x90 W = " + w.String() + `
70 x 90
cell[i][j] = W[i][j] / 3                                             when i == ROWS-1 || j == COLS-1
           | max(cell[i+1][j], cell[i][j+1]) * 0.5 + W[i][j] / 7     otherwise
` + sum},
		{"rows", `cell: double
5 x 9001
cell[i][j] = (j + 1) / 7.0                                          when i == 0
           | cell[i-1][j] * 0.9 + (j > 0 ? cell[i-1][j-1] : 0.25) / 3   otherwise
` + sum},
		{"wavefront", `cell: double
150 x 203
cell[i][j] = (i + j + 1) / 7.0                                       when i == 0 || j == 0
           | (cell[i-1][j] + cell[i][j-1]) * 0.75 + cell[i-1][j-1] / 3.0   otherwise
` + sum},
		{"rows-back", `cell: double
5 x 9001
cell[i][j] = (j + 1) / 7.0                                          when i == ROWS-1
           | cell[i+1][j] * 0.9 + (j > 0 ? cell[i+1][j-1] : 0.25) / 3   otherwise
` + sum},
		{"wavefront-back", `cell: double
150 x 203
cell[i][j] = (i + j + 1) / 7.0                                       when i == ROWS-1 || j == COLS-1
           | (cell[i+1][j] + cell[i][j+1]) * 0.75 + cell[i+1][j+1] / 3.0   otherwise
` + sum},
		{"fronts", `cell: double
90 x 90
cell[i][j] = 0.5                                                      when i >= j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j]) + (j - i) / 3.0   otherwise
` + sum},
	}
	for _, tc := range cases {
		p, pl := dptest.Load(t, tc.name+".dp", tc.src)
		var first float64
		for k, threads := range []int{1, 2, 3, 5, 2, 3} {
			res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !strings.Contains(res.Device, "compiled by") {
				t.Fatalf("%s: not compiled: %s", tc.name, res.Device)
			}
			if k == 0 {
				first = res.Answer.F
				continue
			}
			if math.Float64bits(res.Answer.F) != math.Float64bits(first) {
				t.Fatalf("%s (%s): %d threads sum to %v, one thread to %v", tc.name, pl.Schedule, threads, res.Answer.F, first)
			}
		}
		// The evaluator: the same bits whatever its threads; on the rows
		// sweep and the wavefront, the compiled code's (the same order).
		var evFirst float64
		for k, threads := range []int{1, 2, 3, 5, 2} {
			ev, err := solveGo(t, p, pl, backend.Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				evFirst = ev.Answer.F
			} else if math.Float64bits(ev.Answer.F) != math.Float64bits(evFirst) {
				t.Fatalf("%s (%s): evaluated on %d threads %v, on one %v", tc.name, pl.Schedule, threads, ev.Answer.F, evFirst)
			}
		}
		if math.Float64bits(evFirst) != math.Float64bits(first) {
			t.Errorf("%s: compiled sum %v, evaluated %v", tc.name, first, evFirst)
		}
		if math.Abs(evFirst-first) > 1e-12*math.Abs(evFirst) {
			t.Errorf("%s: compiled sum %v, evaluated %v", tc.name, first, evFirst)
		}
	}
}

// TestMathTablesBudget: no table is made beyond a quarter of the memory
// available (checked before making it); the problem then runs on the
// evaluator.
func TestMathTablesBudget(t *testing.T) {
	src := "cell: double\n1 x 40000\ncell[i][j] = pow(1.0001, j)\n"
	p, pl := dptest.Load(t, "budget.dp", src)
	if _, err := hostProblem(p, pl); err != nil {
		t.Fatalf("with the machine's memory: %v", err)
	}
	withAvailable(t, 1<<20) // a table of 40,000 doubles is over 256 KB
	if q, err := hostProblem(p, pl); err == nil {
		t.Fatalf("tables made within %d bytes: %d inputs", 1<<20, len(q.Inputs))
	}
}

// TestManyAnswerCells: an answer expression over more cells than a host
// program captures (a whole plane of a 3-D grid) runs compiled, the rows
// holding the cells kept and the answer evaluated from them: the right
// answer at 225 cells (captured), 289 and 360,000 (kept rows; a plane of
// 600 x 600 once overflowed the compiled run's stack); a floating sum
// over a plane equals the evaluator's bit for bit; the kept rows are not
// the run's Rows; a traceback-free run that also keeps chosen rows falls
// back to the evaluator.
func TestManyAnswerCells(t *testing.T) {
	c := withCompiler(t)
	for _, n := range []int{15, 17, 600} {
		src := fmt.Sprintf(`%d x %d x %d
cell[k][i][j] = i * 3 + j + k      when k == 0
              | cell[k-1][i][j] + (i + j) %% 5   otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[DIM0-1][i][j] < 1000 ? cell[DIM0-1][i][j] : 0))
`, 3, n, n)
		p, pl := dptest.Load(t, "plane.dp", src)
		var want int64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if v := int64(i*3 + j + 2*((i+j)%5)); v < 1000 {
					want += v
				}
			}
		}
		res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: 2})
		if err != nil {
			t.Fatalf("%d x %d plane: %v", n, n, err)
		}
		if res.Answer.I != want {
			t.Errorf("%d x %d plane: answer %v, want %d", n, n, res.Answer, want)
		}
		if !strings.Contains(res.Device, "compiled by") || res.Rows != nil {
			t.Errorf("%d x %d plane: ran on %q (rows %v), want compiled, no rows", n, n, res.Device, res.Rows != nil)
		}
	}
	src := `cell: double
3 x 40 x 50
cell[k][i][j] = i * 0.1 + j * 0.013 + k      when k == 0
              | cell[k-1][i][j] * 1.0001 + 0.3 / (i + j + 1)   otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[DIM0-1][i][j])) + cell[1][3][4]
`
	p, pl := dptest.Load(t, "fplane.dp", src)
	got, err := solveCompiled(t, c, p, pl, backend.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := solveGo(t, p, pl, backend.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Device, "compiled by") || math.Float64bits(got.Answer.F) != math.Float64bits(ref.Answer.F) {
		t.Errorf("floating plane: %v on %q, evaluator %v", got.Answer, got.Device, ref.Answer)
	}
	kept, err := solveCompiled(t, c, p, pl, backend.Options{Threads: 2, KeepRows: []int64{5}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(kept.Answer.F) != math.Float64bits(ref.Answer.F) || kept.Rows == nil || kept.Rows.Rows != 1 {
		t.Errorf("with a kept row: %v on %q, rows %v", kept.Answer, kept.Device, kept.Rows)
	}
}
