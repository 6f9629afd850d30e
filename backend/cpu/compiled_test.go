package cpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/native"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The tests of this file run the compiled path (backend/native) against
// the plain-Go references and against the Go evaluator, which stays the
// reference: the whole suite runs compiled with DPGPU_CPU_CODE=c.

var compiler = sync.OnceValues(native.Find)

func withCompiler(t *testing.T) *native.Compiler {
	t.Helper()
	c, err := compiler()
	if err != nil {
		t.Skipf("no compiled path: %v", err)
	}
	return c
}

func solveCompiled(t testing.TB, c *native.Compiler, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	t.Helper()
	return compiling(New(opt.Threads), c).Run(context.Background(), p, pl, opt)
}

// compiling makes e compile every problem it can, whatever its size.
func compiling(e *Executor, c *native.Compiler) *Executor {
	return e.WithNative(c).CompileAllSizes()
}

func solveGo(t testing.TB, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	t.Helper()
	return New(opt.Threads).WithNative(nil).Run(context.Background(), p, pl, opt)
}

var answerLine = regexp.MustCompile(`(?m)^answer:.*$`)

// sumAnswer makes the answer of src the sum of every cell: a wrong cell
// anywhere changes it.
func sumAnswer(src string) string {
	const sum = "answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))"
	if answerLine.MatchString(src) {
		return answerLine.ReplaceAllString(src, sum)
	}
	return strings.TrimRight(src, "\n") + "\n" + sum + "\n"
}

// sameOutcome fails unless a and b (the compiled and the evaluator's runs)
// gave the same answer and answer cell, or the same error (the compiled
// code's may add the cell it was computing, as the GPU's does).
func sameOutcome(t *testing.T, name string, a *backend.Result, errA error, b *backend.Result, errB error) {
	t.Helper()
	switch {
	case errA != nil || errB != nil:
		if errA == nil || errB == nil || !strings.HasPrefix(errA.Error(), errB.Error()) {
			t.Fatalf("%s: compiled error %v, evaluator error %v", name, errA, errB)
		}
	case a.Answer != b.Answer || a.AnswerIsCell != b.AnswerIsCell || a.AnswerI != b.AnswerI || a.AnswerJ != b.AnswerJ:
		t.Fatalf("%s: compiled %v [%d][%d], evaluator %v [%d][%d]", name, a.Answer, a.AnswerI, a.AnswerJ, b.Answer, b.AnswerI, b.AnswerJ)
	}
}

// TestCompiledAgainstReferences runs the reference problems (rows and
// wavefront, forward and backward, every cell type on one problem) at
// awkward sizes — one cell, sizes around the 64 lanes of a strip — on 1
// and 3 threads: the answer must be the reference's, and kept, every cell;
// the sum of all cells the evaluator's; and the run must have been
// compiled where the host programs support the schedule.
func TestCompiledAgainstReferences(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	sizes := [][2]int{{1, 1}, {2, 70}, {65, 3}, {130, 101}}
	compiled := 0
	for _, pr := range refProblems {
		types := []string{"int", "double"}
		if pr.name == "smith-waterman" || pr.name == "knapsack" {
			types = allTypes
		}
		for _, sz := range sizes {
			rc := pr.gen(r, sz[0], sz[1])
			for _, ct := range types {
				if !containsType(pr.types, ct) {
					continue
				}
				src := withCell(rc.src, ct)
				p, pl := dptest.Load(t, pr.name+".dp", src)
				_, notCompiled := hostProblem(p, pl)
				want := notCompiled == nil
				for _, threads := range []int{1, 3} {
					name := fmt.Sprintf("%s %dx%d %s threads=%d (%s %s)", pr.name, p.Rows, p.Cols, ct, threads, pl.Schedule, pl.Direction)
					opt := backend.Options{Threads: threads, NoSpecial: true}
					for _, keep := range []bool{false, true} {
						opt.Maintain = keep
						res, err := solveCompiled(t, c, p, pl, opt)
						if err != nil {
							t.Fatalf("%s keep=%v: %v\n%s", name, keep, err, src)
						}
						if got := strings.Contains(res.Device, "compiled by"); got != want {
							t.Fatalf("%s: compiled %v, want %v (%s)", name, got, want, res.Device)
						}
						if want {
							compiled++
						}
						// Kept, every cell is compared with the reference.
						checkResult(t, fmt.Sprintf("%s keep=%v", name, keep), src, rc, res, keep)
					}
					opt.Maintain = false

					sp, spl := dptest.Load(t, pr.name+".dp", sumAnswer(src))
					a, errA := solveCompiled(t, c, sp, spl, opt)
					b, errB := solveGo(t, sp, spl, opt)
					// Floating sums too: both add in the grid's order.
					sameOutcome(t, name+" (sum of all cells)", a, errA, b, errB)
				}
			}
		}
	}
	if compiled == 0 {
		t.Fatal("nothing ran compiled")
	}
}

func containsType(types []string, t string) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// TestCompiledErrors: the compiled code reports the errors the evaluator
// reports, in the same words, naming the same `.dp` position and cell
// (the first failing cell in row-major order), on any number of threads.
func TestCompiledErrors(t *testing.T) {
	c := withCompiler(t)
	cases := []struct{ name, src string }{
		{"int overflow in a wavefront", `problem binomial
70 x 90
cell[i][j] = 1  when i == 0 || j == 0
           | cell[i-1][j] + cell[i][j-1]  otherwise
`},
		{"int overflow in rows", `problem doubling
int 1x? A = 1,2,3
40 x 3
cell[i][j] = A[j]  when i == 0
           | cell[i-1][j] * 2 + 1  otherwise
`},
		{"long overflow", `problem binomial
cell: long
140 x 150
cell[i][j] = 1  when i == 0 || j == 0
           | cell[i-1][j] + cell[i][j-1]  otherwise
`},
		{"NaN cell", `problem nan
cell: double
double 1x? A = 1,0,2
3 x 80
cell[i][j] = 1.0  when i == 0 || j == 0
           | (cell[i-1][j] - cell[i][j-1]) / A[i] + cell[i-1][j-1]  otherwise
`},
		{"both arguments of a max overflow", `problem two
int 1x4 A = 1,2,3,4
int 1x4 B = 5,6,7,8
40 x 40
cell[i][j] = max(A[i % 4] * 1000000000, B[j % 4] * 1000000000)   when i == 2 && j == 1
           | max(cell[i-1][j], cell[i][j-1]) + 1                 when i > 0 && j > 0
           | 0                                                   otherwise
`},
		{"both operands of a sum overflow", `problem twosum
int 1x4 A = 1,2,3,4
40 x 40
cell[i][j] = A[i % 4] * 1000000000 + A[j % 4] * 1000000000   when i == 2 && j == 1
           | max(cell[i-1][j], cell[i][j-1]) + 1              when i > 0 && j > 0
           | 0                                                otherwise
`},
		{"both operands of a difference overflow", `problem twodiff
int 1x4 A = 1,2,3,4
40 x 40
cell[i][j] = A[i % 4] * 1000000000 - A[j % 4] * -1000000000 * (i + 1)   when i == 2 && j == 1
           | max(cell[i-1][j], cell[i][j-1]) + 1              when i > 0 && j > 0
           | 0                                                otherwise
`},
		{"a max and a product overflow", `problem maxprod
int 1x4 A = 1,2,3,4
40 x 40
cell[i][j] = max(A[i % 4] * 1000000000, 7) + A[j % 4] * 1500000000   when i == 2 && j == 1
           | max(cell[i-1][j], cell[i][j-1]) + 1              when i > 0 && j > 0
           | 0                                                otherwise
`},
		// A long input above 2^62: the program's bound of it must hold
		// it (capped at 2^62, the sum went unchecked and answered inf).
		{"long input above 2^62", dptest.LongAbove62},
		{"float sum", `problem fl
cell: float
66 x 70
cell[i][j] = 0.5  when i == 0 || j == 0
           | (cell[i-1][j] + cell[i][j-1]) * 0.75 + cell[i-1][j-1] / 3.0  otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))
`},
	}
	for _, tc := range runErrorCases {
		cases = append(cases, struct{ name, src string }{tc.name, tc.src})
	}
	for _, tc := range cases {
		p, pl := dptest.Load(t, strings.Fields(tc.src)[1]+".dp", tc.src)
		if err := codegen.HostSupports(p, pl); err != nil {
			t.Fatalf("%s: not compiled: %v", tc.name, err)
		}
		for _, threads := range []int{1, 2, 5} {
			opt := backend.Options{Threads: threads}
			a, errA := solveCompiled(t, c, p, pl, opt)
			b, errB := solveGo(t, p, pl, opt)
			sameOutcome(t, fmt.Sprintf("%s, %d threads", tc.name, threads), a, errA, b, errB)
			if errA == nil && !strings.Contains(a.Device, "compiled by") {
				t.Errorf("%s: not compiled: %s", tc.name, a.Device)
			}
		}
	}
}

// TestCompiledCancel stops a long compiled run.
func TestCompiledCancel(t *testing.T) {
	c := withCompiler(t)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(strings.Repeat("ACGTA", 8000), strings.Repeat("TGCA", 10000)))
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	opt := backend.Options{Threads: 2, NoSpecial: true, Progress: func(done, total int64) {
		if done > 0 && done < total {
			once.Do(cancel)
		}
	}}
	_, err := compiling(New(2), c).Run(ctx, p, pl, opt)
	if err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestCompiledMemoryRefusal: a compiled run checks its memory first.
func TestCompiledMemoryRefusal(t *testing.T) {
	c := withCompiler(t)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(strings.Repeat("ACGTA", 200), strings.Repeat("TGCA", 300)))
	withAvailable(t, 1000)
	_, err := compiling(New(2), c).Run(context.Background(), p, pl, backend.Options{Threads: 2, NoSpecial: true})
	if !errors.Is(err, hostmem.ErrTooLarge) || !strings.Contains(err.Error(), "with compiled code") {
		t.Fatalf("got %v, want a refusal of the compiled run", err)
	}
}

// TestCompileThreshold: a small problem whose program is not in the cache
// runs on the Go evaluator, saying why; a large one is compiled.
func TestCompileThreshold(t *testing.T) {
	c := withCompiler(t)
	// A size no other test uses, so that its program is not cached.
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(strings.Repeat("ACGTA", 61)+"AC", strings.Repeat("TGCA", 59)+"G"))
	res, err := New(1).WithNative(c).Run(context.Background(), p, pl, backend.Options{Threads: 1, NoSpecial: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Cached(mustHost(t, p, pl)) {
		t.Skip("the program is in the cache already")
	}
	if !strings.Contains(res.Device, "Go evaluator (not compiled: ") || !strings.Contains(res.Device, "fewer than compiling pays for") {
		t.Errorf("small problem: %s", res.Device)
	}
}

// TestCompileProgramCells: a small problem runs on the Go evaluator, but
// compiled when its shape is said to be shared by many runs
// (Options.ProgramCells: a traceback's bands). An empty cache, so that
// nothing is compiled already.
func TestCompileProgramCells(t *testing.T) {
	withCompiler(t) // skips without a compiler
	t.Setenv("DPGPU_CACHE_DIR", t.TempDir())
	c, err := native.Find()
	if err != nil {
		t.Fatal(err)
	}
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(strings.Repeat("ACGTA", 63)+"A", strings.Repeat("TGCA", 57)+"GC"))
	for _, cells := range []int64{0, CompileMinCells} {
		opt := backend.Options{Threads: 1, NoSpecial: true, ProgramCells: cells}
		res, err := New(1).WithNative(c).Run(context.Background(), p, pl, opt)
		if err != nil {
			t.Fatal(err)
		}
		if compiled := strings.Contains(res.Device, "compiled by"); compiled != (cells > 0) {
			t.Errorf("ProgramCells %d: %s", cells, res.Device)
		}
	}
}

func mustHost(t *testing.T, p *ir.Problem, pl *plan.Plan) *codegen.HostProgram {
	t.Helper()
	hp, err := codegen.GenerateHost(p, pl)
	if err != nil {
		t.Fatal(err)
	}
	return hp
}

// TestCompiledBatchShapes runs instances of one problem through one
// executor (OneProblem, as a batch does): instances of a shape share the
// program made for the first — checkShapes generates each instance's
// program again and fails if they differ — and every answer is the
// evaluator's.
func TestCompiledBatchShapes(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	ex := compiling(New(1), c).OneProblem()
	ex.checkShapes = true
	type gen func(n, m int) string
	problems := map[string]gen{
		"lcs": func(n, m int) string { return dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, m)) },
		"knapsack": func(n, m int) string {
			return dptest.Knapsack(dptest.Ints(r, n, 1, 1+r.IntN(40)), dptest.Ints(r, n, 0, 100), m)
		},
	}
	for name, g := range problems {
		for k := 0; k < 24; k++ {
			n, m := 5+r.IntN(3), 7+r.IntN(2) // few shapes, each seen several times
			src := g(n, m)
			p, pl := dptest.Load(t, name+".dp", src)
			opt := backend.Options{Threads: 1, NoSpecial: true}
			a, errA := ex.Run(context.Background(), p, pl, opt)
			b, errB := solveGo(t, p, pl, opt)
			sameOutcome(t, fmt.Sprintf("%s #%d %dx%d", name, k, p.Rows, p.Cols), a, errA, b, errB)
			if errA == nil && !strings.Contains(a.Device, "compiled by") {
				t.Fatalf("%s: not compiled: %s", name, a.Device)
			}
		}
		ex = compiling(New(1), c).OneProblem() // the next problem: a new batch
		ex.checkShapes = true
	}
}

// TestCompiledFronts runs the generic schedules' reference problems
// (interval DP, look-back, 1-D and 3-D grids) compiled (templates/host.cu,
// DP_HOST_FRONT) at awkward sizes on 1 and 3 threads: the answer and, kept,
// every cell must be the reference's, and the run compiled.
func TestCompiledFronts(t *testing.T) {
	c := withCompiler(t)
	r := rand.New(rand.NewPCG(12, 12))
	for _, pr := range genericProblems {
		for _, n := range []int{1, 2, 3, 17, 100} {
			rc := pr.gen(r, n)
			p, pl := dptest.Load(t, pr.name+".dp", rc.src)
			if err := codegen.HostSupports(p, pl); err != nil {
				t.Fatalf("%s n=%d: no host program: %v", pr.name, n, err)
			}
			for _, threads := range []int{1, 3} {
				for _, keep := range []bool{false, true} {
					name := fmt.Sprintf("%s n=%d threads=%d keep=%v (%s)", pr.name, n, threads, keep, pl.T)
					res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads, Maintain: keep})
					if err != nil {
						t.Fatalf("%s: %v\n%s", name, err, rc.src)
					}
					if !strings.Contains(res.Device, "compiled by") {
						t.Fatalf("%s: not compiled (%s)", name, res.Device)
					}
					checkResult(t, name, rc.src, rc, res, keep)
				}
			}
		}
	}
}

// TestCompiledFrontsEnumerate: the compiled sweep enumerates the fronts of
// any hyperplane as plan.Hyperplane.Front does, every cell once: a grid
// whose cells read nothing, under schedules t = A*i + B*j forced on it,
// comes back whole.
func TestCompiledFrontsEnumerate(t *testing.T) {
	c := withCompiler(t)
	generic := 0
	for _, h := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}, {2, 1}, {1, 2}, {-1, 2}, {3, -2}, {-2, -3}} {
		for _, sz := range [][2]int{{1, 1}, {2, 3}, {17, 5}, {6, 17}} {
			src := fmt.Sprintf("problem fill\nschedule: t = %d*i + %d*j\n%d x %d\ncell[i][j] = i * 1000 + j + 1\n", h[0], h[1], sz[0], sz[1])
			p, pl, err := dptest.TryLoad(t, "fill.dp", src)
			if err != nil {
				t.Fatalf("t = %d*i + %d*j: %v", h[0], h[1], err)
			}
			if !pl.Schedule.Generic() {
				continue // a v1 name (rows, cols, ...): its own sweeps
			}
			generic++
			for _, threads := range []int{1, 3} {
				res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads, Maintain: true})
				if err != nil || !strings.Contains(res.Device, "compiled by") {
					t.Fatalf("%s: %v (%v)", src, err, res)
				}
				for i := int64(0); i < p.Rows; i++ {
					for j := int64(0); j < p.Cols; j++ {
						if v := res.Grid.At(i, j); v.I != i*1000+j+1 {
							t.Fatalf("t = %d*i + %d*j, %dx%d, %d threads: cell[%d][%d] = %v, want %d", h[0], h[1], p.Rows, p.Cols, threads, i, j, v, i*1000+j+1)
						}
					}
				}
			}
		}
	}
	if generic < 30 {
		t.Errorf("%d runs of a generic schedule, want 30 or more", generic)
	}
}

// TestCompiledTables: recurrences of several tables, whose plan is the
// wavefront of cells (plan.Plan.Cells), run compiled as the scan (a cell's
// tables in file order, DP_PI+1 rows kept, not the grid) and equal Gotoh's
// plain matrices and the Go evaluator (which sweeps the generic fronts),
// global, local and semi-global, at awkward sizes; the answer of a table
// other than the last too.
func TestCompiledTables(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	for _, n := range [][2]int{{1, 1}, {0, 5}, {17, 40}, {64, 33}, {130, 7}} {
		a, b := dptest.DNA(r, n[0]), dptest.DNA(r, n[1])
		for _, mode := range []string{"global", "local", "semi", "globalY"} {
			name := fmt.Sprintf("%s %dx%d", mode, n[0], n[1])
			p, pl := dptest.Load(t, "affine.dp", dptest.Affine(a, b, 5, 2, mode))
			if pl.Cells != 3 {
				t.Fatalf("%s: plan of %d tables a cell, want 3", name, pl.Cells)
			}
			res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: 2})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !strings.Contains(res.Device, "compiled by") {
				t.Fatalf("%s: not compiled: %s", name, res.Device)
			}
			ref, err := solveGo(t, p, pl, backend.Options{Threads: 1})
			if err != nil {
				t.Fatalf("%s: Go evaluator: %v", name, err)
			}
			want := ref.Answer.I
			switch mode {
			case "global":
				want = dptest.GotohScore(a, b, 5, 2)
			case "local":
				want = dptest.GotohLocalScore(a, b, 5, 2, dptest.DNAPair)
			case "semi":
				want = dptest.SemiGlobalScore(a, b, 5, 2, dptest.DNAPair)
			}
			if res.Answer.I != want || ref.Answer.I != want {
				t.Errorf("%s: compiled %d, evaluator %d, want %d", name, res.Answer.I, ref.Answer.I, want)
			}
			if res.AnswerIsCell != ref.AnswerIsCell || res.AnswerI != ref.AnswerI || res.AnswerJ != ref.AnswerJ {
				t.Errorf("%s: answer cell [%d][%d], evaluator's [%d][%d]", name, res.AnswerI, res.AnswerJ, ref.AnswerI, ref.AnswerJ)
			}
		}
	}
}

// TestCompiledScanLateRows: a scan's worker that leaves its row late
// (stalled 2 ms on every 16th row, as a descheduled worker is: ForceRows
// 3) while the others go on must still find its ring row intact, and the
// next row of that ring slot must wait for it: the kept grid of Gotoh's
// tables and the sum of every cell equal the evaluator's on 2 to 5
// workers. Without the wait (dp_scan_release) rows several tickets on
// overwrote rows still being copied out: wrong cells, a wrong sum.
func TestCompiledScanLateRows(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	// Rows of 2,601 cells: the scan gives a worker a block of 512 cells
	// of a row at least, so up to five workers run.
	a, b := dptest.DNA(r, 70), dptest.DNA(r, 2600)
	src := dptest.Affine(a, b, 5, 2, "global")
	p, pl := dptest.Load(t, "affine.dp", src)
	if pl.Cells != 3 {
		t.Fatalf("plan of %d tables a cell, want 3", pl.Cells)
	}
	ref, err := solveGo(t, p, pl, backend.Options{Threads: 1, Maintain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{2, 3, 5} {
		e := compiling(New(threads), c)
		e.forceRows = 3
		res, err := e.Run(context.Background(), p, pl, backend.Options{Threads: threads, Maintain: true})
		if err != nil {
			t.Fatalf("%d threads: %v", threads, err)
		}
		if !strings.Contains(res.Device, "compiled by") || strings.Contains(res.Device, "of them ran it") {
			t.Fatalf("not compiled on every worker: %s", res.Device)
		}
		bad := 0
		for i := int64(0); i < p.Rows; i++ {
			for j := int64(0); j < p.Cols; j++ {
				if res.Grid.At(i, j) != ref.Grid.At(i, j) {
					if bad == 0 {
						t.Errorf("%d threads: %s = %v, the evaluator's %v", threads, p.CellText(i, j), res.Grid.At(i, j), ref.Grid.At(i, j))
					}
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("%d threads: %d cells differ", threads, bad)
		}
	}
	sum, sumPl := dptest.Load(t, "affine.dp", regexp.MustCompile(`(?m)^answer:.*$`).ReplaceAllString(src, "")+
		"answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: H[i][j]))\n")
	want, err := solveGo(t, sum, sumPl, backend.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{2, 4} {
		e := compiling(New(threads), c)
		e.forceRows = 3
		got, err := e.Run(context.Background(), sum, sumPl, backend.Options{Threads: threads})
		sameOutcome(t, fmt.Sprintf("sum of H, %d threads", threads), got, err, want, nil)
	}
}

// TestCompiledScanThreads: the host scan pipelines rows over several
// workers (a block of 256 units of a row after the row above has passed
// it): Gotoh's tables on rows wide enough for 1..5 workers equal the plain
// matrices, and an overflow is reported at the same cell and site whatever
// the workers (the first in row-major order).
func TestCompiledScanThreads(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 37), dptest.DNA(r, 1500)
	for _, mode := range []string{"global", "local"} {
		p, pl := dptest.Load(t, "affine.dp", dptest.Affine(a, b, 5, 2, mode))
		want, _, _ := dptest.AffineAnswer(a, b, 5, 2, mode)
		for _, threads := range []int{1, 2, 3, 5} {
			res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads})
			if err != nil {
				t.Fatalf("%s, %d threads: %v", mode, threads, err)
			}
			if res.Answer.I != want {
				t.Errorf("%s, %d threads: %d, want %d", mode, threads, res.Answer.I, want)
			}
		}
	}
	// Two rows fail, the lower one at an earlier column: the upper one's
	// error is the first in row-major order, whatever the workers (a
	// worker whose row failed waits for the rows above to finish).
	w := make([][]int64, 4)
	for i := range w {
		w[i] = make([]int64, 1200)
		for j := range w[i] {
			w[i][j] = 1
		}
	}
	w[1][900], w[2][100] = 0, 0
	src := fmt.Sprintf(`problem two
int 4x1200 W = %s
4 x 1200
X[i][j] = 0 when j == 0
        | max(X[i][j-1], i > 0 ? H[i-1][j] - H[i-1][j] : 0) + 1 otherwise
H[i][j] = 0 when i == 0
        | H[i-1][j] + X[i][j] + 100 / W[i][j] otherwise
`, dptest.JoinMatrix(w))
	p2, pl2 := dptest.Load(t, "two.dp", src)
	if pl2.Cells != 2 {
		t.Fatalf("two tables: plan of %d tables a cell, want 2", pl2.Cells)
	}
	for _, threads := range []int{1, 2, 3, 4} {
		_, err := solveCompiled(t, c, p2, pl2, backend.Options{Threads: threads})
		if err == nil || !strings.Contains(err.Error(), "H[1][900]") {
			t.Errorf("%d threads: %v, want the division by zero at H[1][900]", threads, err)
		}
	}
	// e = 2,000,000: row 0 passes int's range near column 1,074; every
	// worker count reports the Go evaluator's cell.
	p, pl := dptest.Load(t, "affine.dp", dptest.Affine(a, b, 5, 2000000, "global"))
	_, errGo := solveGo(t, p, pl, backend.Options{Threads: 1})
	if errGo == nil {
		t.Fatal("no overflow on the Go evaluator")
	}
	cellOf := func(e error) string {
		s := e.Error()
		if k := strings.Index(s, "computing "); k >= 0 {
			s = s[k:]
			if end := strings.Index(s, ":"); end >= 0 {
				return s[:end]
			}
		}
		return s
	}
	for _, threads := range []int{1, 2, 3, 5} {
		_, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads})
		if err == nil {
			t.Fatalf("%d threads: no overflow", threads)
		}
		if cellOf(err) != cellOf(errGo) {
			t.Errorf("%d threads: %v; the Go evaluator: %v", threads, err, errGo)
		}
	}
}

// TestWorkWeighsTables: a cell of several tables weighs tablesCost cells
// of one in the choice to compile (the evaluator has no vector form for
// them), so that gotoh 2,000^2 compiles where lcs 2,000^2 does not.
func TestWorkWeighsTables(t *testing.T) {
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 2000), dptest.DNA(r, 2000)
	p, _ := dptest.Load(t, "affine.dp", dptest.Affine(a, b, 5, 2, "global"))
	if got, want := work(p, nil), tablesCost*p.Cells(); got != want || got < CompileMinCells {
		t.Errorf("affine 2000x2000: work %d, want %d (at least CompileMinCells %d)", got, want, CompileMinCells)
	}
	q, _ := dptest.Load(t, "lcs.dp", dptest.LCS(string(a), string(b)))
	if got := work(q, nil); got != q.Cells() || got >= CompileMinCells {
		t.Errorf("lcs 2000x2000: work %d, want its %d cells (under CompileMinCells)", got, q.Cells())
	}
}

// TestCompiledRowsProbe: a rows sweep of 1,024 lines or more on several
// workers times one worker against all of them, each its own chunk,
// before it goes on with the faster, falling back to tickets where a
// worker starves (templates/host.cu dp_work, dp_rows_static): whatever it
// picks, every cell (a sum of all of them) and an overflow's cell and text
// — in the lines one worker probes, in those all of them probe, after the
// probe — equal the Go evaluator's, on 1 to 3 threads, and on 5 and 8 (more
// than the cores: workers descheduled, the fallback likely).
func TestCompiledRowsProbe(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	const items, capacity = 1100, 9001 // 1,101 lines (a probe of 17), two chunks a line
	wt, val := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k] = 1+r.Int64N(300), r.Int64N(1000)
	}
	src := sumAnswer(dptest.Knapsack(wt, val, capacity))
	p, pl := dptest.Load(t, "knapsack.dp", src)
	if pl.Schedule != plan.Rows {
		t.Fatalf("knapsack planned as %v, want rows", pl.Schedule)
	}
	// force: as timed; all workers kept; and from line 3*probe tickets.
	solve := func(p *ir.Problem, pl *plan.Plan, threads, force int) (*backend.Result, error) {
		e := compiling(New(threads), c)
		e.forceRows = force
		return e.Run(context.Background(), p, pl, backend.Options{Threads: threads})
	}
	for _, threads := range []int{1, 2, 3, 5, 8} {
		for force := range 3 {
			opt := backend.Options{Threads: threads}
			a, errA := solve(p, pl, threads, force)
			b, errB := solveGo(t, p, pl, opt)
			sameOutcome(t, fmt.Sprintf("knapsack, %d threads, force %d", threads, force), a, errA, b, errB)
			if force > 0 && threads > 1 && errA == nil && strings.Contains(a.Device, "of them ran it") {
				t.Errorf("knapsack, %d threads, force %d: %s; want every worker", threads, force, a.Device)
			}
		}
	}
	for _, row := range []int{5, 25, 40, 60, 900} {
		src := fmt.Sprintf(`problem late
int 1x? A = 1,2,3
1100 x 9000
cell[i][j] = A[j %% 3]                                     when i == 0
           | cell[i-1][j] + (i == %d && j == 7000 ? 2147483647 : 1)  otherwise
`, row)
		p, pl := dptest.Load(t, "late.dp", src)
		for _, threads := range []int{2, 3, 8} {
			for force := range 3 {
				opt := backend.Options{Threads: threads}
				a, errA := solve(p, pl, threads, force)
				b, errB := solveGo(t, p, pl, opt)
				if errA == nil || errB == nil {
					t.Fatalf("overflow at row %d, %d threads, force %d: compiled %v, evaluator %v; want errors", row, threads, force, errA, errB)
				}
				sameOutcome(t, fmt.Sprintf("overflow at row %d, %d threads, force %d", row, threads, force), a, errA, b, errB)
			}
		}
	}
}

// TestCompiledFronts3: 3-D grids on hyperplanes over the three axes
// (dptest.Hyper3Cases) run compiled, on one worker and on three, and give
// the plain loops' whole grid; and a grid whose cells read nothing comes
// back whole under 3-D schedules forced on it (every cell once, as
// plan.Hyperplane.Front enumerates them: a plane's line with a gcd, of one
// row, the whole plane, negative coefficients).
func TestCompiledFronts3(t *testing.T) {
	c := withCompiler(t)
	r := rand.New(rand.NewPCG(3, 33))
	inf, _ := ir.ArithSentinels(ir.Long)
	for _, n := range []int{1, 2, 5, 17} {
		for _, hc := range dptest.Hyper3Cases(r, n) {
			p, pl := dptest.Load(t, "h3.dp", hc.Src)
			// One worker and three run a serial plan in row-major order
			// (TestSerialOrder); nine run its fronts.
			for _, threads := range []int{1, 3, 9} {
				name := fmt.Sprintf("%s n=%d threads=%d (%s)", hc.Name, n, threads, pl.T.In(p))
				res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads, Maintain: true})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !strings.Contains(res.Device, "compiled by") {
					t.Fatalf("%s: not compiled (%s)", name, res.Device)
				}
				for k, row := range hc.Flat() {
					for J, want := range row {
						if want == dptest.NoEdge {
							want = inf
						}
						if got := res.Grid.At(int64(k), int64(J)).I; got != want {
							t.Fatalf("%s: flat cell [%d][%d] = %d, want %d\n%s", name, k, J, got, want, hc.Src)
						}
					}
				}
			}
		}
	}
	for _, h := range [][3]int{{1, 1, 1}, {0, -1, 1}, {1, 2, 2}, {-2, 1, 3}, {1, 1, 0}, {1, 0, 0}, {0, 0, -1}, {-1, 3, -2}, {0, 2, 1}} {
		for _, sz := range [][3]int{{1, 1, 1}, {2, 3, 4}, {5, 1, 3}, {3, 4, 1}} {
			src := fmt.Sprintf("problem fill\nschedule: t = %d*k + %d*i + %d*j\n%d x %d x %d\ncell[k][i][j] = k * 10000 + i * 100 + j + 1\n", h[0], h[1], h[2], sz[0], sz[1], sz[2])
			p, pl := dptest.Load(t, "fill.dp", src)
			if !pl.T.Three() {
				t.Fatalf("%s: fronts %+v, not over the three axes", src, pl.T)
			}
			for _, threads := range []int{1, 3} {
				res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads, Maintain: true})
				if err != nil || !strings.Contains(res.Device, "compiled by") {
					t.Fatalf("%s: %v (%v)", src, err, res)
				}
				for k := 0; k < sz[0]; k++ {
					for i := 0; i < sz[1]; i++ {
						for j := 0; j < sz[2]; j++ {
							want := int64(k*10000 + i*100 + j + 1)
							if v := res.Grid.At(int64(k), int64(i*sz[2]+j)); v.I != want {
								t.Fatalf("%s, %d threads: cell[%d][%d][%d] = %v, want %d", src, threads, k, i, j, v, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestSerialOrder: one worker computes a plan that allows it in row-major
// order (plan.Plan.Serial), compiled and on the Go evaluator, and several
// workers do too in compiled code, its rows pipelined where there are two
// rows a worker at least (the backend line says so); the values are the
// fronts'. A failing cell sends the run back
// to the fronts, so that the error is the front order's first, as on any
// number of workers: here cell[1][1][1] (front 3), not cell[0][0][5] (front
// 5), which row-major order meets first.
func TestSerialOrder(t *testing.T) {
	c := withCompiler(t)
	a, b, cc := "ACGTTGCAAC", "AGTTCGAT", "CGTAGCATTA"
	p, pl := dptest.Load(t, "lcs3.dp", dptest.LCS3(a, b, cc))
	if !pl.Serial {
		t.Fatalf("lcs3: not serial (%s)", pl.Reason)
	}
	want := int64(dptest.LCS3Length(a, b, cc))
	for _, threads := range []int{1, 2, 9} {
		res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads})
		if err != nil || res.Answer.I != want {
			t.Fatalf("compiled, %d threads: %v %v, want %d", threads, res, err, want)
		}
		if pipe := strings.Contains(res.Device, "rows pipelined"); pipe != (threads > 1 && p.Rows >= 2*int64(threads)) {
			t.Errorf("compiled, %d threads: %s", threads, res.Device)
		}
		res, err = solveGo(t, p, pl, backend.Options{Threads: threads})
		if err != nil || res.Answer.I != want {
			t.Fatalf("Go, %d threads: %v %v, want %d", threads, res, err, want)
		}
	}
	src := `int 1x? big = 2147483646
3 x 4 x 7
cell[k][i][j] = big[0] + 5 when (k == 0 && i == 0 && j == 5) || (k == 1 && i == 1 && j == 1)
              | 0 when k == 0 || i == 0 || j == 0
              | max(cell[k-1][i][j], cell[k][i-1][j], cell[k][i][j-1]) otherwise
`
	p, pl = dptest.Load(t, "fail.dp", src)
	if !pl.Serial || !pl.T.Three() {
		t.Fatalf("fail.dp: serial %v, fronts %s", pl.Serial, pl.T.In(p))
	}
	for _, threads := range []int{1, 2, 3} {
		for name, run := range map[string]func() (*backend.Result, error){
			"compiled": func() (*backend.Result, error) { return solveCompiled(t, c, p, pl, backend.Options{Threads: threads}) },
			"Go":       func() (*backend.Result, error) { return solveGo(t, p, pl, backend.Options{Threads: threads}) },
		} {
			_, err := run()
			if err == nil || !strings.Contains(err.Error(), "cell[1][1][1]") || strings.Contains(err.Error(), "cell[0][0][5]") {
				t.Errorf("%s, %d threads: %v, want the overflow at cell[1][1][1]", name, threads, err)
			}
		}
	}
}

// TestInputReadErrorsNameTheCell: a read past an input's end names the
// cell being computed on the Go evaluator too, in the compiled code's words
// (it named only the input).
func TestInputReadErrorsNameTheCell(t *testing.T) {
	c := withCompiler(t)
	for _, tc := range []struct{ src, want string }{
		{"int 1x3 W = 5, 5, 5\n4 x 5\ncell[i][j] = 0 when j == 0 || i == 0\n           | max(cell[i][j-1] - W[j], cell[i-1][j] - 1) otherwise\n",
			"W[3] is outside W, which has 3 elements (0..2) (computing cell[1][3])"},
		{"int 2x3 M = 1, 2, 3 & 4, 5, 6\n3 x 4\ncell[i][j] = 0 when i == 0\n           | cell[i-1][j] + M[i-1][j] otherwise\n",
			"M[0][3] is outside the 2x3 input M (computing cell[1][3])"},
		{"int 1x3 W = 5, 5, 5\n6\ncell[i] = 0 when i == 0\n        | cell[i-1] + W[i] otherwise\n",
			"W[3] is outside W, which has 3 elements (0..2) (computing cell[3])"},
	} {
		p, pl := dptest.Load(t, "r.dp", tc.src)
		for _, threads := range []int{1, 2} {
			opt := backend.Options{Threads: threads}
			_, goErr := solveGo(t, p, pl, opt)
			_, cErr := solveCompiled(t, c, p, pl, opt)
			for _, err := range []error{goErr, cErr} {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%d threads: %v (evaluator), %v (compiled); want both to say %q", threads, goErr, cErr, tc.want)
					break
				}
			}
		}
	}
}
