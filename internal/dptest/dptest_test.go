package dptest_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// answer solves src on the CPU executor.
func answer(t *testing.T, name, src string, opts ...dptest.Option) float64 {
	t.Helper()
	p, pl := dptest.Load(t, name, src, opts...)
	res, err := cpu.New(2).Run(context.Background(), p, pl, backend.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Answer.Float64()
}

func last(g [][]float64) float64 { return g[len(g)-1][len(g[0])-1] }

// TestSourcesMatchReferences: each canonical source and its reference
// agree, on the values their definitions give and on random instances.
func TestSourcesMatchReferences(t *testing.T) {
	if got := dptest.LCSLength("ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "GTCGTTCGGAATGCCGTTGCTCTGTAAA"); got != 20 {
		t.Errorf("LCSLength of CLRS's strands = %d, want 20", got)
	}
	if got := last(dptest.EditDistanceGrid("kitten", "sitting", 1, 1, 1)); got != 3 {
		t.Errorf("edit distance kitten/sitting = %v, want 3", got)
	}
	if got := last(dptest.KnapsackGrid([]int{2, 3, 4, 5, 9}, []int{3, 4, 5, 8, 10}, 20)); got != 26 {
		t.Errorf("README knapsack = %v, want 26", got)
	}
	if _, price := dptest.LookbackGrid(3); math.Abs(price-5.470181) > 5e-7 {
		t.Errorf("lookback price %v, want 5.470181", price)
	}

	r := dptest.Rand(t)
	for k := 0; k < 5; k++ {
		a, b := dptest.DNA(r, r.IntN(40)), dptest.DNA(r, r.IntN(40))
		want := dptest.LCSGrid(a, b)
		if got := answer(t, "lcs.dp", dptest.LCS(a, b)); got != last(want) {
			t.Errorf("LCS(%q, %q) = %v, reference %v", a, b, got, last(want))
		}
		if got := dptest.LCSLength(a, b); float64(got) != last(want) {
			t.Errorf("LCSLength(%q, %q) = %d, LCSGrid %v", a, b, got, last(want))
		}
		// An empty data file is the empty sequence, as "" inline is.
		files := dptest.Files(map[string]string{"a.txt": a, "b.txt": b})
		if got := answer(t, "lcs.dp", dptest.LCSFiles, files); got != last(want) {
			t.Errorf("LCSFiles(%q, %q) = %v, reference %v", a, b, got, last(want))
		}
		ins, del, sub := 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(4)
		if got, want := answer(t, "edit.dp", dptest.EditDistance(a, b, ins, del, sub)), last(dptest.EditDistanceGrid(a, b, ins, del, sub)); got != want {
			t.Errorf("EditDistance(%q, %q, %d, %d, %d) = %v, reference %v", a, b, ins, del, sub, got, want)
		}
		n, capacity := 1+r.IntN(20), r.IntN(60)
		wt, val := dptest.Ints(r, n, 1, 25), dptest.Ints(r, n, 1, 40)
		if got, want := answer(t, "knapsack.dp", dptest.Knapsack(wt, val, capacity)), last(dptest.KnapsackGrid(wt, val, capacity)); got != want {
			t.Errorf("Knapsack(%v, %v, %d) = %v, reference %v", wt, val, capacity, got, want)
		}
	}
	for _, n := range []int{1, 3, 50} {
		_, want := dptest.LookbackGrid(n)
		if got := answer(t, "lookback.dp", dptest.Lookback(n)); math.Abs(got-want) > 1e-12*want {
			t.Errorf("Lookback(%d) = %v, reference %v", n, got, want)
		}
	}
}

// TestLoadOptions: Set and Args reach the checker, and the plan is made.
func TestLoadOptions(t *testing.T) {
	p, pl := dptest.Load(t, "lookback.dp", dptest.Lookback(3), dptest.Set("N", "7"))
	if p.Rows != 8 || pl.Schedule != plan.Rows || pl.Direction != plan.Backward {
		t.Errorf("N=7: %d rows, %s %s; want 8 rows, rows backward", p.Rows, pl.Schedule, pl.Direction)
	}
	src := "problem a\nargs: V\nint 1x? V = 1,2\n1 x len(V)\ncell[i][j] = V[j]\n"
	p, _ = dptest.Load(t, "a.dp", src, dptest.Args(dptest.Path("tsplib/gr17.tsp")))
	if p.Cols != 17*17 {
		t.Errorf("V from gr17.tsp: %d columns, want %d", p.Cols, 17*17)
	}
}

// TestTryLoadErrors: each stage's error comes back, positioned.
func TestTryLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"parse", "problem p\n3 x\n", "p.dp:2:"},
		{"check", "problem p\n3 x 3\ncell[i][j] = nope\n", "p.dp:3:14: "},
		{"file", "problem p\nint 1x? A = @\"missing.txt\"\n3 x 3\ncell[i][j] = A[0]\n", "missing.txt"},
	} {
		_, _, err := dptest.TryLoad(t, "p.dp", tc.src, dptest.Files(map[string]string{}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
		}
	}
}

// TestPath: the shared data is found from any working directory inside
// the module, as from a test binary run in a copy of the tree.
func TestPath(t *testing.T) {
	want := dptest.Path("tsplib/gr17.tsp")
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
	t.Chdir("../../problems/formats")
	if got := dptest.Path("tsplib/gr17.tsp"); got != want {
		t.Errorf("from problems/formats: %s, want %s", got, want)
	}
}

// TestRandRepeats: DPGPU_SEED gives the same draws again.
func TestRandRepeats(t *testing.T) {
	t.Setenv(dptest.SeedVar, "12345")
	a := dptest.DNA(dptest.Rand(t), 50)
	if b := dptest.DNA(dptest.Rand(t), 50); a != b || strings.Trim(a, "ACGT") != "" {
		t.Errorf("two draws with one seed: %q and %q", a, b)
	}
	if got, want := dptest.JoinMatrix([][]int64{{1, -2}, {3, 4}}), "1,-2 & 3,4"; got != want {
		t.Errorf("JoinMatrix = %q, want %q", got, want)
	}
	for _, v := range dptest.Ints(dptest.Rand(t), 100, -3, 3) {
		if v < -3 || v > 3 {
			t.Fatalf("Ints drew %d outside -3..3", v)
		}
	}
}
