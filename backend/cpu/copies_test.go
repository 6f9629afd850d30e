package cpu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// TestCompiledKnapsackCopies: the unbounded and bounded knapsacks, whose
// cells reduce over the copies of an item (`cell[i-1][w - k*wt[i-1]]`, k
// up to w / wt[i-1]), run compiled: the analysis keeps k*wt[i-1] within
// w (analysis.Walker's quotient bound), so the rows' padding is the row,
// not the capacity times the heaviest item ("a reference reads far
// outside the row", the Go evaluator at 0.002 GCUPS before), and their
// work counts the reduction. Answers against plain Go loops at awkward
// sizes.
func TestCompiledKnapsackCopies(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	for _, bounded := range []bool{false, true} {
		for _, size := range [][2]int{{1, 0}, {1, 1}, {2, 17}, {17, 1000}, {40, 3001}} {
			n, capacity := size[0], size[1]
			wt, val, cnt := dptest.Ints(r, n, 1, capacity/3+2), dptest.Ints(r, n, 0, 50), dptest.Ints(r, n, 0, 4)
			src := fmt.Sprintf(`int 1x? wt = %s
int 1x? val = %s
int 1x? cnt = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0 when i == 0
           | max(k in 0..%s: cell[i-1][w - k*wt[i-1]] + k*val[i-1]) otherwise
`, dptest.Join(wt), dptest.Join(val), dptest.Join(cnt), capacity, map[bool]string{
				false: "w / wt[i-1]",
				true:  "(wt[i-1] == 0 ? cnt[i-1] : min(cnt[i-1], w / wt[i-1]))",
			}[bounded])
			p, pl := dptest.Load(t, "copies.dp", src)
			hp, err := codegen.GenerateHost(p, pl)
			if err != nil {
				t.Fatal(err)
			}
			if got := work(p, hp); capacity > 3 && got <= p.Cells() {
				t.Errorf("%d items, capacity %d: work %d, not more than its cells", n, capacity, got)
			}
			// Plain Go: the best value within each capacity, item by item.
			best := make([]int64, capacity+1)
			for i := range n {
				next := make([]int64, capacity+1)
				for w := range next {
					for k := 0; k*wt[i] <= w && (!bounded || k <= cnt[i]); k++ {
						next[w] = max(next[w], best[w-k*wt[i]]+int64(k*val[i]))
					}
				}
				best = next
			}
			res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: 2})
			name := fmt.Sprintf("bounded=%v %d items, capacity %d", bounded, n, capacity)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !strings.Contains(res.Device, "compiled by") {
				t.Errorf("%s: not compiled: %s", name, res.Device)
			}
			if res.Answer.I != best[capacity] {
				t.Errorf("%s: answer %d, want %d\n%s", name, res.Answer.I, best[capacity], src)
			}
		}
	}
}

// TestCompiledChain: reductions of the chain form (analysis.Chain) run
// from the one S columns before, compiled (codegen/chain.go) and on the
// Go evaluator (eval's chainFn), and must give the loop's every cell and
// first error: those of the same recurrence that no executor chains. Random instances of
// forms the chain serves (max with values >= 0, min with values <= 0, the
// bounded knapsack's cut-off bound, a reduction in only some columns'
// case, cells at -inf: an exact-fill knapsack) and forms it must leave to
// the loop (values of the other sign, zero weights: the loop's division
// by zero; values whose k*V or sum overflows: the loop's overflow), on 1
// to 3 threads and the rows sweep's forced modes (chunks of a line by
// tickets, where a chain restarts at each chunk).
func TestCompiledChain(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	type form struct {
		name, op, hi, term, cond, first string
		rows                            string // the grid's rows: len(wt)+1 by default
		wt, val                         [2]int
		cellType                        string
	}
	forms := []form{
		{name: "unbounded max", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", wt: [2]int{1, 40}, val: [2]int{0, 60}},
		{name: "unbounded, V*k, long", op: "max", hi: "w / wt[i-1]", term: "val[i-1]*k", wt: [2]int{1, 9}, val: [2]int{0, 99}, cellType: "long"},
		{name: "fewest coins (min)", op: "min", hi: "w / wt[i-1]", term: "k*val[i-1]", wt: [2]int{1, 30}, val: [2]int{-5, 0}},
		{name: "bounded", op: "max", hi: "(wt[i-1] == 0 ? cnt[i-1] : min(cnt[i-1], w / wt[i-1]))", term: "k*val[i-1]", wt: [2]int{0, 20}, val: [2]int{0, 50}},
		{name: "some columns", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", cond: "(w + i) % 3 != 1", wt: [2]int{1, 12}, val: [2]int{0, 9}},
		{name: "exact fill (-inf)", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", first: "w == 0 ? 0 : -inf", wt: [2]int{2, 15}, val: [2]int{1, 30}},
		{name: "values of both signs", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", wt: [2]int{1, 10}, val: [2]int{-20, 20}},
		{name: "zero weights", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", wt: [2]int{0, 3}, val: [2]int{0, 9}},
		{name: "k*V overflows", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", first: "-2000000000", wt: [2]int{1, 3}, val: [2]int{5000000, 400000000}},
		{name: "terms overflow downwards", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", first: "-2000000000", wt: [2]int{1, 3}, val: [2]int{-90000000, -1000000}},
		{name: "an input too short (quotient bound)", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", rows: "(len(wt)+2)", wt: [2]int{1, 9}, val: [2]int{0, 9}},
		{name: "an input too short (min bound)", op: "max", hi: "min(cnt[i-1], w / wt[i-1])", term: "k*val[i-1]", rows: "(len(wt)+2)", wt: [2]int{1, 9}, val: [2]int{0, 9}},
		{name: "sums overflow", op: "max", hi: "w / wt[i-1]", term: "k*val[i-1]", wt: [2]int{1, 4}, val: [2]int{1000000, 90000000}},
	}
	solve := func(p *ir.Problem, pl *plan.Plan, threads, force int) (*backend.Result, error) {
		e := compiling(New(threads), c)
		e.forceRows = force
		return e.Run(context.Background(), p, pl, backend.Options{Threads: threads})
	}
	for _, f := range forms {
		// (4 x 4500: rows wide enough for every worker to take columns of
		// its own, whose chains start where another's columns end.)
		for _, size := range [][2]int{{1, 1}, {3, 17}, {12, 300}, {40, 1500}, {4, 4500}} {
			n, capacity := size[0], size[1]
			wt, val, cnt := dptest.Ints(r, n, f.wt[0], f.wt[1]), dptest.Ints(r, n, f.val[0], f.val[1]), dptest.Ints(r, n, 0, 6)
			first, cond, ct := f.first, "", f.cellType
			if first == "" {
				first = "0"
			}
			if f.cond != "" {
				cond = "           | cell[i-1][w] when !(" + f.cond + ")\n"
			}
			if ct == "" {
				ct = "int"
			}
			rows := f.rows
			if rows == "" {
				rows = "(len(wt)+1)"
			}
			src := sumAnswer(fmt.Sprintf(`cell: %s
int 1x? wt = %s
int 1x? val = %s
int 1x? cnt = %s
int cap = %d
%s x (cap+1)
cell[i][w] = %s when i == 0
%s           | %s(k in 0..%s: cell[i-1][w - k*wt[i-1]] + %s) otherwise
`, ct, dptest.Join(wt), dptest.Join(val), dptest.Join(cnt), capacity, rows, first, cond, f.op, f.hi, f.term))
			if strings.Contains(f.name, "inf") {
				// A sum of every cell would meet inf - inf: the last cell.
				src = strings.Replace(src, "answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))", "answer: cell[ROWS-1][COLS-1]", 1)
			}
			p, pl := dptest.Load(t, "chain.dp", src)
			hp, err := codegen.GenerateHost(p, pl)
			if err != nil {
				t.Fatal(err)
			}
			if !hp.Chain {
				t.Fatalf("%s: the reduction is not chained\n%s", f.name, src)
			}
			// The reference: the same recurrence with its term written
			// k*V + 0, which no executor chains (the loop everywhere),
			// with every operator where it was, so that errors name the
			// same places.
			refSrc := strings.Replace(src, f.term+") otherwise", f.term+"+0) otherwise", 1)
			rp, rpl := dptest.Load(t, "chain.dp", refSrc)
			if rhp, err := codegen.GenerateHost(rp, rpl); err != nil || rhp.Chain {
				t.Fatalf("%s: the reference is chained (%v)\n%s", f.name, err, refSrc)
			}
			b, errB := solveGo(t, rp, rpl, backend.Options{Threads: 1})
			chained := func(name string, a *backend.Result, errA error) {
				if errA == nil && !strings.Contains(a.Device, "'s reduction reuses the one a step back") {
					t.Fatalf("%s: %s: the run does not say the reduction is chained: %s", f.name, name, a.Device)
				}
			}
			// Several workers report one of the failing cells, not
			// necessarily the first (docs/language.md §6.1): with more
			// than one thread, a failure must be one too.
			same := func(threads int, what string, a *backend.Result, errA error) {
				if threads > 1 && errA != nil && errB != nil {
					return
				}
				sameOutcome(t, what, a, errA, b, errB)
			}
			for _, threads := range []int{1, 2, 3} {
				what := fmt.Sprintf("%s, %d items, capacity %d, %d threads", f.name, n, capacity, threads)
				// The Go evaluator's chain (eval's chainFn).
				g, errG := solveGo(t, p, pl, backend.Options{Threads: threads})
				chained("the Go evaluator", g, errG)
				same(threads, what+", the Go evaluator\n"+src, g, errG)
				for force := range 3 {
					a, errA := solve(p, pl, threads, force)
					if errA == nil && !strings.Contains(a.Device, "compiled by") {
						t.Fatalf("%s: not compiled: %s", f.name, a.Device)
					}
					chained("compiled", a, errA)
					same(threads, fmt.Sprintf("%s, force %d\n%s", what, force, src), a, errA)
				}
			}
		}
	}
}

// TestSampledLength: a reduction whose bound reads the data weighs in the
// choice to compile by its mean length over a sample of cells (the rows
// where the bound fails, row 0's wt[-1], left out), each term costing the
// evaluator laneTermCost cells.
func TestSampledLength(t *testing.T) {
	wt := make([]int, 12)
	for k := range wt {
		wt[k] = 10
	}
	src := fmt.Sprintf(`int 1x? wt = %s
int cap = 999
(len(wt)+1) x (cap+1)
cell[i][w] = 0 when i == 0
           | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k) otherwise
`, dptest.Join(wt))
	p, _ := dptest.Load(t, "copies.dp", src)
	var red *ir.Reduce
	ir.Walk(p.Cases[1].Value, func(x ir.Expr) bool {
		if r, ok := x.(*ir.Reduce); ok {
			red = r
		}
		return red == nil
	})
	// Columns w spread over 0..999: w/10 + 1 terms, about 50 on average.
	if mean, ok := sampledLength(p, red); !ok || mean < 45 || mean > 55 {
		t.Errorf("sampled length %d (ok %v), want about 50", mean, ok)
	}
	if got := work(p, &codegen.HostProgram{}); got < p.Cells()*45*laneTermCost {
		t.Errorf("work %d, want at least %d", got, p.Cells()*45*laneTermCost)
	}
}

// TestChainMemory: the Go evaluator's workers keep a row of the chained
// reduction's values each, and the plan's estimate counts them.
func TestChainMemory(t *testing.T) {
	src := dptest.Join([]int{3, 5, 7})
	p, pl := dptest.Load(t, "copies.dp", fmt.Sprintf(`int 1x? wt = %s
int cap = 5000
(len(wt)+1) x (cap+1)
cell[i][w] = 0 when i == 0
           | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k) otherwise
`, src))
	for _, threads := range []int{1, 3} {
		res, err := solveGo(t, p, pl, backend.Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		m := plan.CPUMemory(p, pl, threads, false)
		if got := res.Stats.PeakHostBytes; got != m.Work || got < int64(threads)*24*p.Cols {
			t.Errorf("%d threads: the run allocated %d bytes, the plan estimates %d (the chain alone %d)", threads, got, m.Work, int64(threads)*24*p.Cols)
		}
	}
}

// TestCompiledFrontsAlone: one worker runs a generic schedule's fronts one
// after another (a 1-D look-back: one cell a front) without tickets; the
// cells, and a failure at a chosen cell, are the evaluator's, and a 1-D
// grid weighs in the choice to compile as the evaluator runs it, a cell
// at a time.
func TestCompiledFrontsAlone(t *testing.T) {
	c := withCompiler(t)
	for _, fail := range []int{-1, 0, 1, 37, 4999} {
		src := fmt.Sprintf(`int 1x? c = 1,5,10,25
int amount = 4999
(amount+1)
cell[s] = 0 when s == 0
        | min(k in 0..len(c)-1: c[k] <= s ? cell[s - c[k]] + 1 : inf) * (s == %d ? 2000000000 : 1) otherwise
answer: sum(s in 0..amount: cell[s])
`, fail)
		p, pl := dptest.Load(t, "coins.dp", src)
		a, errA := solveCompiled(t, c, p, pl, backend.Options{Threads: 1})
		b, errB := solveGo(t, p, pl, backend.Options{Threads: 1})
		if errA == nil && !strings.Contains(a.Device, "compiled by") {
			t.Fatalf("fail at %d: not compiled: %s", fail, a.Device)
		}
		// (37 and 4,999 take more than one coin: their product
		// overflows; 1 takes one, and the sum of the answer overflows.)
		if want := fmt.Sprintf("computing cell[%d]", fail); (fail == 37 || fail == 4999) && (errB == nil || !strings.Contains(errB.Error(), want)) {
			t.Fatalf("fail at %d: evaluator error %v, want one %s", fail, errB, want)
		}
		sameOutcome(t, fmt.Sprintf("fail at %d", fail), a, errA, b, errB)
	}
	p, pl := dptest.Load(t, "coins.dp", "int 1x? c = 1,5,10,25\nint amount = 2000000\n(amount+1)\ncell[s] = 0 when s == 0\n        | min(k in 0..len(c)-1: c[k] <= s ? cell[s - c[k]] + 1 : inf) otherwise\n")
	hp, err := codegen.GenerateHost(p, pl)
	if err != nil {
		t.Fatal(err)
	}
	if got := work(p, hp); got < CompileMinCells {
		t.Errorf("coin change of 2,000,000: work %d, want at least CompileMinCells (%d)", got, CompileMinCells)
	}
}
