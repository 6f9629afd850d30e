package cpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

var allTypes = []string{"short", "int", "long", "float", "double"}

var refProblems = []struct {
	name  string
	gen   func(r *rand.Rand, n, m int) refCase
	types []string
}{
	{"lcs", lcsCase, allTypes},
	{"editdistance", editCase, allTypes},
	{"manhattan", manhattanCase, allTypes},
	{"knapsack", knapsackCase, allTypes},
	{"knapsack-bounded", boundedCase, allTypes},
	{"backward", backwardCase, []string{"short", "int", "long"}},
	{"backward-max", backwardMaxCase, allTypes},
	{"cols", colsCase(false), allTypes},
	{"cols-backward", colsCase(true), allTypes},
	{"minplus", minPlusCase, allTypes},
	{"smith-waterman", swCase, allTypes},
	{"lookback", lookbackCase, []string{"double"}},
	{"rows2", rows2Case, []string{"short", "int", "long"}},
	{"wave2", wave2Case, allTypes},
}

// matches compares a cell or answer with the reference value; infinities
// stand for the integer sentinels.
func matches(v ir.Value, want float64, tol float64) bool {
	if math.IsInf(want, 0) && !v.T.IsFloat() {
		pos, neg := ir.InfSentinel(v.T)
		if want > 0 {
			return v.I == pos
		}
		return v.I == neg
	}
	got := v.Float64()
	if tol > 0 {
		return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
	}
	return got == want
}

// TestAgainstReferences runs every problem, at awkward sizes, with every
// cell type, 1, 2 and 7 threads, keeping the grid and not, and compares the
// answer (and the grid, cell by cell) with the plain-Go reference.
func TestAgainstReferences(t *testing.T) {
	r := dptest.Rand(t)
	sizes := [][2]int{{0, 0}, {0, 9}, {9, 0}, {1, 1}, {16, 32}, {33, 17}, {100, 130}}
	covered := map[string]bool{}
	for _, pr := range refProblems {
		for _, sz := range sizes {
			rc := pr.gen(r, sz[0], sz[1])
			for _, ct := range pr.types {
				src := withCell(rc.src, ct)
				p, pl := dptest.Load(t, pr.name+".dp", src)
				covered[fmt.Sprintf("%s %s", pl.Schedule, pl.Direction)] = true
				for _, threads := range []int{1, 2, 7} {
					for _, keep := range []bool{false, true} {
						name := fmt.Sprintf("%s %dx%d %s threads=%d keep=%v (%s %s)", pr.name, p.Rows, p.Cols, ct, threads, keep, pl.Schedule, pl.Direction)
						run := solve
						if keep {
							// Keeping the grid, cut it into tiny tiles,
							// batches and shares: every seam is checked.
							run = solveTiny
						}
						res, err := run(t, p, pl, backend.Options{Threads: threads, Maintain: keep})
						if err != nil {
							t.Fatalf("%s: %v\n%s", name, err, src)
						}
						checkResult(t, name, src, rc, res, keep)
					}
				}
			}
		}
	}
	for _, want := range []string{"wavefront forward", "wavefront backward", "rows forward", "rows backward", "cols forward", "cols backward"} {
		if !covered[want] {
			t.Errorf("no test problem ran the %s schedule", want)
		}
	}
}

func checkResult(t *testing.T, name, src string, rc refCase, res *backend.Result, keep bool) {
	t.Helper()
	want := rc.answer
	if !matches(res.Answer, want, rc.tol) {
		t.Fatalf("%s: answer %v, want %v\n%s", name, res.Answer, want, src)
	}
	if res.AnswerIsCell != rc.ansIsCell || (rc.ansIsCell && (res.AnswerI != rc.ansI || res.AnswerJ != rc.ansJ)) {
		t.Fatalf("%s: answer cell %v [%d][%d], want %v [%d][%d]", name, res.AnswerIsCell, res.AnswerI, res.AnswerJ, rc.ansIsCell, rc.ansI, rc.ansJ)
	}
	if !keep {
		if res.Grid != nil {
			t.Fatalf("%s: a grid came back without maintain", name)
		}
		return
	}
	g := res.Grid
	if g == nil || g.Rows != int64(len(rc.grid)) || g.Cols != int64(len(rc.grid[0])) {
		t.Fatalf("%s: no grid of the right size", name)
	}
	for i := range rc.grid {
		for j, w := range rc.grid[i] {
			if v := g.At(int64(i), int64(j)); !matches(v, w, rc.tol) {
				t.Fatalf("%s: cell[%d][%d] = %v, want %v\n%s", name, i, j, v, w, src)
			}
		}
	}
}

// TestLarge runs two problems at 1000x999 on a few threads: sizes that are
// no multiple of the tiles, with many tiles and waves.
func TestLarge(t *testing.T) {
	r := dptest.Rand(t)
	for _, c := range []refCase{lcsCase(r, 999, 998), editCase(r, 999, 1200), knapsackCase(r, 120, 5000)} {
		p, pl := dptest.Load(t, "large.dp", c.src)
		for _, threads := range []int{2, 7} {
			res, err := solve(t, p, pl, backend.Options{Threads: threads, Maintain: threads == 7})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, fmt.Sprintf("%s threads=%d", p.Name, threads), "", c, res, threads == 7)
		}
	}
}

// TestPublishedValues checks the answers the language contract and the
// textbooks give.
func TestPublishedValues(t *testing.T) {
	knap := dptest.Knapsack([]int{2, 3, 4, 5, 9}, []int{3, 4, 5, 8, 10}, 20)
	for _, tc := range []struct {
		name, src string
		want      float64
		tol       float64
	}{
		{"INTENTION to EXECUTION", dptest.EditDistance("INTENTION", "EXECUTION", 1, 1, 2), 8, 0},
		{"knapsack of the contract", knap, 26, 0},
		{"lookback put of the contract", dptest.Lookback(3), 5.470181, 5e-7},
		{"LCS of Cormen et al.", dptest.LCS("ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "GTCGTTCGGAATGCCGTTGCTCTGTAAA"), 20, 0},
	} {
		p, pl := dptest.Load(t, "t.dp", tc.src)
		for _, threads := range []int{1, 2} {
			res, err := solve(t, p, pl, backend.Options{Threads: threads})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got := res.Answer.Float64(); math.Abs(got-tc.want) > tc.tol {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}

// runErrorCases are recurrences that fail at run time, with the words of
// the error (also run with compiled code, compiled_test.go).
var runErrorCases = []struct {
	name, src, want string
}{
	{"wavefront reads left of the grid", `problem lcs
char 1x? A = "ACGTA"
char 1x? B = "CGTAAG"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                  when i == 0
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`, "lcs.dp:6:32: cell[i][j-1] reads cell[1][-1], outside the 6x7 grid"},
	{"rows reads left of the grid", `problem knapsack
int 1x? wt  = 4,3,4
int 1x? val = 3,4,5
int cap = 9
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                     when i == 0
           | max(cell[i-1][w], cell[i-1][w-wt[i-1]] + val[i-1])   otherwise
`, "knapsack.dp:7:32: cell[i-1][w-wt[i-1]] reads cell[0][-4], outside the 4x10 grid"},
	{"input read past its end", `problem p
int 1x? A = 1,2,3
4 x 5
cell[i][j] = A[j]  when i == 0
           | cell[i-1][j] + A[i]  otherwise
`, "p.dp:4:14: A[3] is outside A, which has 3 elements (0..2)"},
	{"division by zero", `problem p
int 1x? A = 1,2,0,4
4 x 4
cell[i][j] = A[j]  when i == 0
           | cell[i-1][j] / A[j]  otherwise
`, "p.dp:5:27: division by zero"},
	{"int overflow", `problem binomial
20 x 20
cell[i][j] = 1  when i == 0 || j == 0
           | cell[i-1][j] + cell[i][j-1]  otherwise
`, "does not fit in int (finite range ±2,147,483,646); use cell: long"},
}

func TestRunErrors(t *testing.T) {
	for _, tc := range runErrorCases {
		p, pl := dptest.Load(t, strings.Fields(tc.src)[1]+".dp", tc.src)
		for _, threads := range []int{1, 2, 7} {
			_, err := solve(t, p, pl, backend.Options{Threads: threads})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, %d threads: error %v, want %q", tc.name, threads, err, tc.want)
			}
		}
	}
}

// TestOverflowFitsLong: the int overflow above is fine in long cells and
// gives the binomial coefficient.
func TestOverflowFitsLong(t *testing.T) {
	p, pl := dptest.Load(t, "binomial.dp", `problem binomial
cell: long
20 x 20
cell[i][j] = 1  when i == 0 || j == 0
           | cell[i-1][j] + cell[i][j-1]  otherwise
`)
	res, err := solve(t, p, pl, backend.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer.I != 35345263800 { // C(38, 19)
		t.Errorf("C(38,19) = %d, want 35345263800", res.Answer.I)
	}
}

func TestTracebackThroughRun(t *testing.T) {
	r := dptest.Rand(t)
	for k := 0; k < 20; k++ {
		a, b := dptest.DNA(r, r.IntN(60)), dptest.DNA(r, r.IntN(60))
		p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(a, b))
		res, err := solve(t, p, pl, backend.Options{Threads: 2, Traceback: true})
		if err != nil {
			t.Fatal(err)
		}
		var s strings.Builder
		for _, v := range res.Emitted {
			s.WriteByte(byte(v.I))
		}
		if int64(s.Len()) != res.Answer.I || !dptest.IsSubsequence(s.String(), a) || !dptest.IsSubsequence(s.String(), b) {
			t.Fatalf("LCS %q of %q and %q: length %d, answer %d", s.String(), a, b, s.Len(), res.Answer.I)
		}
		if len(res.Path) == 0 || res.Path[len(res.Path)-1] != [2]int64{p.Rows - 1, p.Cols - 1} {
			t.Fatalf("path does not end at the answer cell: %v", res.Path)
		}
	}
	// The answer of a sum is not one cell: no traceback.
	p, pl := dptest.Load(t, "sum.dp", `problem sum
3 x 3
cell[i][j] = i + j
answer: sum(i in 0..2: sum(j in 0..2: cell[i][j]))
`)
	res, err := solve(t, p, pl, backend.Options{})
	if err != nil || res.Answer.I != 18 || res.AnswerIsCell {
		t.Fatalf("sum answer %v (cell %v), error %v; want 18", res.Answer, res.AnswerIsCell, err)
	}
	if _, err := solve(t, p, pl, backend.Options{Traceback: true}); err == nil {
		t.Errorf("traceback from a sum: no error")
	}
}

func TestProgress(t *testing.T) {
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 3000), dptest.DNA(r, 3000)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(a, b))
	var mu sync.Mutex
	var calls []int64
	res, err := solve(t, p, pl, backend.Options{Threads: 2, Progress: func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if total != p.Cells() {
			t.Errorf("progress total %d, want %d", total, p.Cells())
		}
		calls = append(calls, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer.I != int64(dptest.LCSLength(a, b)) {
		t.Errorf("answer %d", res.Answer.I)
	}
	if len(calls) < 2 || calls[len(calls)-1] != p.Cells() {
		t.Errorf("progress calls %v, want several ending with %d", calls, p.Cells())
	}
}

// TestCancel: a run cancelled while it computes (from its first progress
// report, so that no clock is involved) ends with the context's error, well
// before the end of the grid, and nothing of it runs on after Run returns.
func TestCancel(t *testing.T) {
	r := dptest.Rand(t)
	big := []string{
		dptest.LCS(dptest.DNA(r, 40000), dptest.DNA(r, 40000)),
		dptest.Knapsack(dptest.Ints(r, 2000, 1, 1000), dptest.Ints(r, 2000, 1, 1000), 2000000),
	}
	for _, src := range big {
		p, pl := dptest.Load(t, "big.dp", src)
		for _, threads := range []int{1, 2} {
			checkCancelled(t, p, pl, threads, fmt.Sprintf("%s, %d threads", pl.Schedule, threads), p.Cells()/2)
		}
	}
}

// checkCancelled runs p on threads workers, cancelling from the first
// progress report: the run must end with context.Canceled and no result,
// having reported some cells but fewer than stopBy, and report nothing
// after it returned.
func checkCancelled(t *testing.T, p *ir.Problem, pl *plan.Plan, threads int, what string, stopBy int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var maxDone int64
	returned, late := false, false
	progress := func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		late = late || returned
		maxDone = max(maxDone, done)
		cancel()
	}
	res, err := New(threads).Run(ctx, p, pl, backend.Options{Progress: progress})
	mu.Lock()
	returned = true
	mu.Unlock()
	cancel()
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("%s: result %v, error %v; want no result and context.Canceled", what, res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if maxDone == 0 || maxDone >= stopBy {
		t.Errorf("%s: %d of %d cells reported done; want a report, then a stop well before the end", what, maxDone, p.Cells())
	}
	if late {
		t.Errorf("%s: progress reported after Run returned", what)
	}
}

// TestGridTooBig: keeping a grid larger than the memory fails before the
// run (no cell is computed) and says how much it needs.
func TestGridTooBig(t *testing.T) {
	p, pl := dptest.Load(t, "huge.dp", `problem huge
maintain: 1
int n = 3000000
n x n
cell[i][j] = i + j
`)
	var calls atomic.Int64
	_, err := solve(t, p, pl, backend.Options{Progress: func(int64, int64) { calls.Add(1) }})
	if err == nil || !strings.Contains(err.Error(), "needs 32.7 TiB") && !strings.Contains(err.Error(), "needs") {
		t.Fatalf("error %v, want one saying what the grid needs", err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the refusal came after %d progress reports, want before any cell", n)
	}
}

func TestDevice(t *testing.T) {
	ex := New(3)
	if ex.Name() != "cpu" || !strings.HasPrefix(ex.Device(), "3 CPU threads") {
		t.Errorf("Name %q Device %q", ex.Name(), ex.Device())
	}
}
