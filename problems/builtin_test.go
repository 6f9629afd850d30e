package problems_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/heldkarp"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/formats"
	"github.com/dpgpu/dpgpu/problems/gen"
	"github.com/dpgpu/dpgpu/source"
)

// These tests take every built-in through the real pipeline (dsl, sema,
// plan, the CPU executor) and check the answers their comments promise, on
// their default data and on instance files given through `args:`.

// builtinSource is a built-in's `.dp` text.
func builtinSource(t *testing.T, name string) string {
	t.Helper()
	b, ok := problems.Lookup(name)
	if !ok {
		t.Fatalf("no built-in %q", name)
	}
	return string(b.Source)
}

// load parses, checks and plans a built-in with positional files args,
// returning the front end's error.
func load(t *testing.T, name string, args ...string) (*ir.Problem, *plan.Plan, error) {
	t.Helper()
	return dptest.TryLoad(t, name+".dp", builtinSource(t, name), dptest.Args(args...))
}

func mustLoad(t *testing.T, name string, args ...string) (*ir.Problem, *plan.Plan) {
	t.Helper()
	return dptest.Load(t, name+".dp", builtinSource(t, name), dptest.Args(args...))
}

func solve(t *testing.T, p *ir.Problem, pl *plan.Plan, traceback bool) *backend.Result {
	t.Helper()
	res, err := cpu.New(2).Run(context.Background(), p, pl, backend.Options{Traceback: traceback})
	if err != nil {
		t.Fatalf("%s: run: %v", p.Name, source.Format(err, p.Src))
	}
	return res
}

// The answers the comments of the built-ins promise, and the solution that
// reaches them, as render prints it.
func TestDefaults(t *testing.T) {
	tests := []struct {
		name     string
		answer   float64
		schedule plan.Kind
		solution string // a line the rendered solution must contain ("" when none)
	}{
		{"lcs", 20, plan.Wavefront, "length 20"},
		{"editdistance", 8, plan.Wavefront, "cost 8 (ins 1, del 1, sub 2)"},
		{"needleman-wunsch", -1, plan.Wavefront, "score -1 (match 1, mismatch -1, gap -2)"},
		{"smith-waterman", 13, plan.Wavefront, "score 13 (match 3, mismatch -3, gap -2)"},
		// By hand: AWGHE-E over AW-HEAE, 4 + 11 - 4 + 8 + 5 - 4 + 5.
		{"protein-local", 25, plan.Wavefront, "AW-HEAE"},
		{"manhattan", 34, plan.Wavefront, "4 south, 4 east, total weight 34"},
		{"knapsack", 26, plan.Rows, "weight 20 of 20, value 26"},
		{"knapsack-bounded", 30, plan.Rows, "value 30"},
		{"knapsack-unbounded", 32, plan.Rows, "items 4 (x4)\nweight 20 of 20, value 32"},
		{"lookback-put", 5.470181, plan.Rows, ""},
		// dptest.GotohScore("GATTACA", "GCATGCU", 5, 2): the three-matrix reference.
		{"gotoh", -6, plan.Hyperplanar, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, pl := mustLoad(t, tt.name)
			if p.Name != tt.name {
				t.Errorf("problem name %q, want %q", p.Name, tt.name)
			}
			if pl.Schedule != tt.schedule {
				t.Errorf("schedule %s, want %s (%s)", pl.Schedule, tt.schedule, pl.Reason)
			}
			res := solve(t, p, pl, tt.solution != "")
			if got := res.Answer.Float64(); math.Abs(got-tt.answer) > 5e-7 {
				t.Errorf("answer %v, want %v", got, tt.answer)
			}
			text, ok := problems.Solution(p.Name, p, res, nil)
			if tt.solution == "" {
				if ok {
					t.Errorf("rendered %q; want no rendering", text)
				}
				return
			}
			if !ok || !strings.Contains(text, tt.solution) {
				t.Errorf("solution (%v)\n%s\nwant it to contain %q", ok, text, tt.solution)
			}
			if tt.name == "lcs" {
				// The emitted characters are a common subsequence of both strands.
				common := strings.SplitN(text, "\n", 2)[0]
				if !dptest.IsSubsequence(common, inputString(p, "A")) || !dptest.IsSubsequence(common, inputString(p, "B")) {
					t.Errorf("emitted %q is not a common subsequence", common)
				}
			}
			if tt.name == "lookback-put" && pl.Direction != plan.Backward {
				t.Errorf("lookback rows run %s, want backward", pl.Direction)
			}
		})
	}
}

// tsp has no default data: its distance matrix is required.
func TestTSP(t *testing.T) {
	if _, _, err := load(t, "tsp"); err == nil || !strings.Contains(err.Error(), "dist") {
		t.Errorf("tsp without a distance matrix: err %v, want one naming dist", err)
	}
	for _, tc := range []struct {
		file string
		opt  int64
	}{{"gr17.tsp", 2085}, {"ulysses16.tsp", 6859}} {
		// The engine takes it out of the grid pipeline: no plan, the
		// distances for the Held-Karp solver.
		src, err := engine.Resolve("tsp")
		if err != nil {
			t.Fatal(err)
		}
		l, err := engine.Load(src, bind.Config{Args: []string{dptest.Path("tsplib/" + tc.file)}})
		if err != nil {
			t.Fatal(err)
		}
		if l.Plan != nil || l.TSP == nil || l.TSP.Input != "dist" {
			t.Fatalf("%s: plan %v, TSP %v; want no plan and the distances of dist", tc.file, l.Plan, l.TSP)
		}
		res, err := heldkarp.SolveCPU(context.Background(), l.TSP.Dist, l.TSP.N, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Length != tc.opt {
			t.Errorf("%s: tour %d, want %d", tc.file, res.Length, tc.opt)
		}
	}
}

// Each args: line takes exactly its files.
func TestArgsCount(t *testing.T) {
	kp := filepath.Join("testdata", "knapPI_1_100_1000_1")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"knapsack-bounded", []string{kp}},
		{"knapsack", []string{kp, kp}},
		{"lcs", []string{kp}},
	} {
		if _, _, err := load(t, tc.name, tc.args...); err == nil {
			t.Errorf("%s with %d files: no error", tc.name, len(tc.args))
		}
	}
}

// Pisinger's instances with n <= 1000 through `args: (val, wt, cap) =
// pisinger`, against their published optima (testdata/README: copied from
// the instance set's README).
func TestPisinger(t *testing.T) {
	optima := map[string]int64{
		"knapPI_1_100_1000_1": 9147, "knapPI_1_500_1000_1": 28857, "knapPI_1_1000_1000_1": 54503,
		"knapPI_2_100_1000_1": 1514, "knapPI_2_500_1000_1": 4566, "knapPI_2_1000_1000_1": 9052,
		"knapPI_3_100_1000_1": 2397, "knapPI_3_500_1000_1": 7117, "knapPI_3_1000_1000_1": 14390,
	}
	for file, opt := range optima {
		path := filepath.Join("testdata", file)
		p, pl := mustLoad(t, "knapsack", path)
		traceback := strings.Contains(file, "_100_")
		res := solve(t, p, pl, traceback)
		if res.Answer.I != opt {
			t.Errorf("%s: %d, want %d", file, res.Answer.I, opt)
		}
		if traceback {
			// The rendered items reach the optimum within the capacity.
			k := readPisinger(t, path)
			text, ok := problems.Solution(p.Name, p, res, nil)
			if !ok {
				t.Fatalf("%s: no rendering", file)
			}
			w, v := itemTotals(t, text, k.Weights, k.Profits)
			if v != opt || w > k.Capacity {
				t.Errorf("%s: rendered items weigh %d (capacity %d) and are worth %d, want %d\n%s", file, w, k.Capacity, v, opt, text)
			}
		}
	}
	// The bounded and unbounded knapsacks on the same files, against the
	// plain DP below (counts for the bounded one from the generator).
	dir := t.TempDir()
	for _, file := range []string{"knapPI_1_100_1000_1", "knapPI_3_100_1000_1"} {
		path := filepath.Join("testdata", file)
		k := readPisinger(t, path)
		unb := make([]int64, k.N)
		for i := range unb {
			unb[i] = -1
		}
		p, pl := mustLoad(t, "knapsack-unbounded", path)
		if got, want := solve(t, p, pl, false).Answer.I, knapsackDP(k.Weights, k.Profits, unb, k.Capacity); got != want {
			t.Errorf("unbounded %s: %d, want %d", file, got, want)
		}
		_, counts := gen.Knapsack(gen.NewRand(9), k.N, k.Capacity, true)
		cpath := filepath.Join(dir, file+".cnt.txt")
		if err := gen.WriteCounts(cpath, counts); err != nil {
			t.Fatal(err)
		}
		p, pl = mustLoad(t, "knapsack-bounded", path, cpath)
		if got, want := solve(t, p, pl, false).Answer.I, knapsackDP(k.Weights, k.Profits, counts, k.Capacity); got != want {
			t.Errorf("bounded %s: %d, want %d", file, got, want)
		}
	}
}

// The generator's instances, written by its Write layer and read back
// through args:, solved and traced back at awkward sizes.
func TestGenerated(t *testing.T) {
	dir := t.TempDir()
	r := gen.NewRand(2017)
	write := func(name string, f func(string) error) string {
		path := filepath.Join(dir, name)
		if err := f(path); err != nil {
			t.Fatal(err)
		}
		return path
	}

	for _, sz := range [][2]int{{1, 1}, {97, 61}, {250, 253}, {3, 17}} {
		a, b, common := gen.LCSPair(r, sz[0], sz[1], 0.5)
		pa := write("a.fa", func(p string) error { return gen.WriteSequence(p, "a", a) })
		pb := write("b.txt", func(p string) error { return gen.WriteSequence(p, "b", b) })

		p, pl := mustLoad(t, "lcs", pa, pb)
		res := solve(t, p, pl, true)
		if want := int64(dptest.LCSLength(a, b)); res.Answer.I != want || want < int64(len(common)) {
			t.Errorf("lcs %v: %d, want %d (planted %d)", sz, res.Answer.I, want, len(common))
		}
		if text, ok := problems.Solution(p.Name, p, res, nil); !ok || !strings.HasSuffix(text, "length "+strconv.FormatInt(res.Answer.I, 10)) {
			t.Errorf("lcs %v: rendering %v %q", sz, ok, text)
		}

		p, pl = mustLoad(t, "editdistance", pa, pb)
		if got, want := solve(t, p, pl, false).Answer.I, align(a, b, 0, 2, 1, true); got != want {
			t.Errorf("editdistance %v: %d, want %d", sz, got, want)
		}
		p, pl = mustLoad(t, "needleman-wunsch", pa, pb)
		if got, want := solve(t, p, pl, false).Answer.I, align(a, b, 1, -1, -2, false); got != want {
			t.Errorf("needleman-wunsch %v: %d, want %d", sz, got, want)
		}
		p, pl = mustLoad(t, "smith-waterman", pa, pb)
		res = solve(t, p, pl, true)
		if got, want := res.Answer.I, localScore(a, b, 3, -3, -2); got != want {
			t.Errorf("smith-waterman %v: %d, want %d", sz, got, want)
		}
		if text, ok := problems.Solution(p.Name, p, res, nil); !ok || !strings.Contains(text, "score "+strconv.FormatInt(res.Answer.I, 10)+" ") {
			t.Errorf("smith-waterman %v: rendering %v\n%s", sz, ok, text)
		}
	}

	for _, n := range []int{1, 2, 37} {
		down, right := gen.Manhattan(r, n)
		path := write("city.txt", func(p string) error { return gen.WriteManhattan(p, n, down, right) })
		p, pl := mustLoad(t, "manhattan", path)
		res := solve(t, p, pl, true)
		want := manhattanDP(n, down, right)
		if res.Answer.I != want {
			t.Errorf("manhattan %d: %d, want %d", n, res.Answer.I, want)
		}
		if text, ok := problems.Solution(p.Name, p, res, nil); !ok || !strings.HasSuffix(text, "total weight "+strconv.FormatInt(want, 10)) {
			t.Errorf("manhattan %d: rendering %v\n%s", n, ok, text)
		}
	}

	for _, n := range []int{1, 29, 113} {
		k, counts := gen.Knapsack(r, n, 331, true)
		path := write("items.kp", func(p string) error { return gen.WriteKnapsack(p, k) })
		ones := make([]int64, n)
		for i := range ones {
			ones[i] = 1
		}
		p, pl := mustLoad(t, "knapsack", path)
		if got, want := solve(t, p, pl, false).Answer.I, knapsackDP(k.Weights, k.Profits, ones, k.Capacity); got != want {
			t.Errorf("knapsack %d: %d, want %d", n, got, want)
		}
		cpath := write("counts.txt", func(p string) error { return gen.WriteCounts(p, counts) })
		p, pl = mustLoad(t, "knapsack-bounded", path, cpath)
		res := solve(t, p, pl, true)
		want := knapsackDP(k.Weights, k.Profits, counts, k.Capacity)
		if res.Answer.I != want {
			t.Errorf("knapsack-bounded %d: %d, want %d", n, res.Answer.I, want)
		}
		text, ok := problems.Solution(p.Name, p, res, nil)
		if !ok {
			t.Fatalf("knapsack-bounded %d: no rendering", n)
		}
		if w, v := itemTotals(t, text, k.Weights, k.Profits); v != want || w > k.Capacity {
			t.Errorf("knapsack-bounded %d: items weigh %d and are worth %d, want %d\n%s", n, w, v, want, text)
		}
	}
}

// --- plain-Go references and helpers ---

func readPisinger(t *testing.T, path string) *formats.Knapsack {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k, err := formats.ReadPisinger(f)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// itemTotals reads a rendered knapsack solution's items back and totals
// their weight and value.
func itemTotals(t *testing.T, text string, wt, val []int64) (weight, value int64) {
	t.Helper()
	body, _, _ := strings.Cut(text, "\nweight ")
	body = strings.TrimPrefix(body, "items ")
	if body == "no items" {
		return 0, 0
	}
	for _, f := range strings.Split(strings.ReplaceAll(body, "\n", " "), ",") {
		fields := strings.Fields(f)
		for i := 0; i < len(fields); i++ {
			item, err := strconv.Atoi(fields[i])
			if err != nil || item < 1 || item > len(wt) {
				t.Fatalf("bad item %q in\n%s", fields[i], text)
			}
			c := int64(1)
			if i+1 < len(fields) && strings.HasPrefix(fields[i+1], "(x") {
				c, _ = strconv.ParseInt(strings.Trim(fields[i+1], "(x)"), 10, 64)
				i++
			}
			weight += c * wt[item-1]
			value += c * val[item-1]
		}
	}
	return weight, value
}

func inputString(p *ir.Problem, name string) string {
	in := p.Input(name)
	b := make([]byte, len(in.I))
	for i, c := range in.I {
		b[i] = byte(c)
	}
	return string(b)
}

// align is a global alignment score with the same cost for every gap:
// minimised (edit distance) or maximised (Needleman-Wunsch).
func align(a, b string, same, diff, gap int64, minimise bool) int64 {
	best := func(x, y int64) int64 {
		if minimise {
			return min(x, y)
		}
		return max(x, y)
	}
	c := make([][]int64, len(a)+1)
	for i := range c {
		c[i] = make([]int64, len(b)+1)
		for j := range c[i] {
			switch {
			case i == 0:
				c[i][j] = int64(j) * gap
			case j == 0:
				c[i][j] = int64(i) * gap
			default:
				s := diff
				if a[i-1] == b[j-1] {
					s = same
				}
				c[i][j] = best(c[i-1][j-1]+s, best(c[i-1][j]+gap, c[i][j-1]+gap))
			}
		}
	}
	return c[len(a)][len(b)]
}

func localScore(a, b string, ma, mi, gap int64) int64 {
	c := make([][]int64, len(a)+1)
	var top int64
	for i := range c {
		c[i] = make([]int64, len(b)+1)
		for j := range c[i] {
			if i > 0 && j > 0 {
				s := mi
				if a[i-1] == b[j-1] {
					s = ma
				}
				c[i][j] = max(0, c[i-1][j-1]+s, c[i-1][j]+gap, c[i][j-1]+gap)
				top = max(top, c[i][j])
			}
		}
	}
	return top
}

// knapsackDP: item k may be taken up to cnt[k] times (cnt[k] < 0: without
// limit; weights are positive).
func knapsackDP(wt, val, cnt []int64, capacity int64) int64 {
	best := make([]int64, capacity+1)
	for k := range wt {
		next := make([]int64, capacity+1)
		for w := int64(0); w <= capacity; w++ {
			for c := int64(0); c*wt[k] <= w && (cnt[k] < 0 || c <= cnt[k]); c++ {
				next[w] = max(next[w], best[w-c*wt[k]]+c*val[k])
			}
		}
		best = next
	}
	return best[capacity]
}

func manhattanDP(n int, down, right []int64) int64 {
	c := make([][]int64, n)
	for i := range c {
		c[i] = make([]int64, n)
		for j := range c[i] {
			switch {
			case i == 0 && j == 0:
			case i == 0:
				c[i][j] = c[i][j-1] + right[i*(n-1)+j-1]
			case j == 0:
				c[i][j] = c[i-1][j] + down[(i-1)*n+j]
			default:
				c[i][j] = max(c[i-1][j]+down[(i-1)*n+j], c[i][j-1]+right[i*(n-1)+j-1])
			}
		}
	}
	return c[n-1][n-1]
}
