package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// within fails the test when count is more than 6 standard deviations from
// the binomial expectation n*p: a correct generator passes with probability
// about 1 - 2e-9 per check.
func within(t *testing.T, what string, count, n int, p float64) {
	t.Helper()
	mean := float64(n) * p
	sd := math.Sqrt(float64(n) * p * (1 - p))
	if math.Abs(float64(count)-mean) > 6*sd+1e-9 {
		t.Errorf("%s: %d of %d, want about %.1f (p = %.4f, sd %.1f)", what, count, n, mean, p, sd)
	}
}

func TestLCSPair(t *testing.T) {
	tests := []struct {
		lenA, lenB int
		planted    float64
	}{
		{0, 0, 0.5},
		{0, 7, 1},
		{1, 1, 1},
		{13, 13, 0},
		{100, 100, 0.5},
		{1000, 250, 0.25},
		{250, 1000, 0.75},
		{999, 749, 1},
		{1001, 1001, 0.29}, // 0.29*1001 = 290.29: rounds to 290
		{100, 100, 0.29},   // 0.29*100 is 28.999...96 in floating point: rounds to 29
	}
	r := NewRand(1)
	for _, tt := range tests {
		a, b, c := LCSPair(r, tt.lenA, tt.lenB, tt.planted)
		want := int(math.Round(tt.planted * float64(min(tt.lenA, tt.lenB))))
		if len(a) != tt.lenA || len(b) != tt.lenB || len(c) != want {
			t.Errorf("LCSPair(%d, %d, %v): lengths %d, %d, %d; want %d, %d, %d",
				tt.lenA, tt.lenB, tt.planted, len(a), len(b), len(c), tt.lenA, tt.lenB, want)
			continue
		}
		for _, s := range []string{a, b, c} {
			if strings.Trim(s, Alphabet) != "" {
				t.Errorf("LCSPair(%d, %d, %v): letters outside %s in %q", tt.lenA, tt.lenB, tt.planted, Alphabet, s)
			}
		}
		if !dptest.IsSubsequence(c, a) || !dptest.IsSubsequence(c, b) {
			t.Errorf("LCSPair(%d, %d, %v): planted %q is not a subsequence of both strings", tt.lenA, tt.lenB, tt.planted, c)
		}
		if tt.lenA <= 1000 && tt.lenB <= 1000 {
			if l := dptest.LCSLength(a, b); l < len(c) {
				t.Errorf("LCSPair(%d, %d, %v): LCS %d < planted %d", tt.lenA, tt.lenB, tt.planted, l, len(c))
			}
		}
		if tt.planted == 1 && tt.lenA == tt.lenB && (a != b || a != c) {
			t.Errorf("LCSPair(%d, %d, 1): want a == b == common", tt.lenA, tt.lenB)
		}
	}
}

// A planted fraction raises the LCS well above that of unrelated strings
// (about 0.65 n for random ACGT): the planting is not a no-op.
func TestLCSPairPlantingMatters(t *testing.T) {
	r := NewRand(2)
	a, b, _ := LCSPair(r, 600, 600, 0)
	free := dptest.LCSLength(a, b)
	a, b, _ = LCSPair(r, 600, 600, 0.9)
	planted := dptest.LCSLength(a, b)
	if free > 450 || planted < 540 {
		t.Errorf("LCS of unrelated strings %d (want about 390), of 90%% planted %d (want >= 540)", free, planted)
	}
}

func TestLCSPairLetters(t *testing.T) {
	a, b, _ := LCSPair(NewRand(3), 100000, 100000, 0.5)
	s := a + b
	for _, l := range Alphabet {
		within(t, "letter "+string(l), strings.Count(s, string(l)), len(s), 0.25)
	}
}

// plant must choose every set of positions with the same probability. With
// a letter outside the alphabet the chosen positions show in the result.
func TestPlantUniform(t *testing.T) {
	const n, k, trials = 8, 3, 56000 // C(8,3) = 56 subsets, 1000 draws each
	r := NewRand(4)
	counts := map[string]int{}
	for range trials {
		s := plant(r, n, []byte("XXX"))
		mask := make([]byte, n)
		for i := range mask {
			mask[i] = '0'
			if s[i] == 'X' {
				mask[i] = '1'
			}
		}
		if strings.Count(string(mask), "1") != k {
			t.Fatalf("plant placed %d letters, want %d: %q", strings.Count(string(mask), "1"), k, s)
		}
		counts[string(mask)]++
	}
	if len(counts) != 56 {
		t.Errorf("%d distinct position sets, want 56", len(counts))
	}
	for m, c := range counts {
		within(t, "positions "+m, c, trials, 1.0/56)
	}
}

func TestDeterminism(t *testing.T) {
	type instance struct {
		a, b, c     string
		wt, pr, cnt []int64
		down, right []int64
	}
	make1 := func(seed uint64) instance {
		r := NewRand(seed)
		var in instance
		in.a, in.b, in.c = LCSPair(r, 300, 200, 0.5)
		k, cnt := Knapsack(r, 100, 1000, true)
		in.wt, in.pr, in.cnt = k.Weights, k.Profits, cnt
		in.down, in.right = Manhattan(r, 20)
		return in
	}
	x, y, z := make1(42), make1(42), make1(43)
	same := func(p, q instance) bool {
		return p.a == q.a && p.b == q.b && p.c == q.c && slices.Equal(p.wt, q.wt) && slices.Equal(p.pr, q.pr) &&
			slices.Equal(p.cnt, q.cnt) && slices.Equal(p.down, q.down) && slices.Equal(p.right, q.right)
	}
	if !same(x, y) {
		t.Error("the same seed gave different instances")
	}
	if x.a == z.a || slices.Equal(x.wt, z.wt) || slices.Equal(x.down, z.down) {
		t.Error("different seeds gave the same instance")
	}
}

func TestKnapsackWeights(t *testing.T) {
	const n = 200000
	for _, capacity := range []int64{10000, 997, 37} {
		k, counts := Knapsack(NewRand(uint64(capacity)), n, capacity, false)
		if k.N != n || k.Capacity != capacity || len(k.Weights) != n || len(k.Profits) != n || k.Solution != nil || counts != nil {
			t.Fatalf("C=%d: N %d, Capacity %d, %d weights, %d profits, solution %v, counts %v",
				capacity, k.N, k.Capacity, len(k.Weights), len(k.Profits), k.Solution, counts != nil)
		}
		// The probability of each weight under the thesis's mixture,
		// worked out independently of the generator's code.
		pct := func(c int64, p int64, up bool) int64 {
			if up {
				return int64(math.Ceil(float64(c*p) / 100))
			}
			return int64(math.Floor(float64(c*p) / 100))
		}
		type class struct {
			share  float64
			lo, hi int64
		}
		classes := []class{
			{0.1, max(1, pct(capacity, 0, true)), pct(capacity, 10, false)},
			{0.8, pct(capacity, 5, true), pct(capacity, 20, false)},
			{0.1, pct(capacity, 20, true), pct(capacity, 30, false)},
		}
		prob := map[int64]float64{}
		for _, c := range classes {
			c.lo = max(c.lo, 1)
			c.hi = max(c.hi, c.lo)
			for w := c.lo; w <= c.hi; w++ {
				prob[w] += c.share / float64(c.hi-c.lo+1)
			}
		}
		// Compare on bins cut at every class boundary, where a wrong mix
		// or a wrong range shows.
		cuts := []int64{1}
		for _, c := range classes {
			cuts = append(cuts, c.lo, c.hi+1)
		}
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		observed := map[int]int{}
		bin := func(w int64) int {
			i, _ := slices.BinarySearch(cuts, w+1)
			return i - 1
		}
		for _, w := range k.Weights {
			if prob[w] == 0 {
				t.Fatalf("C=%d: weight %d cannot occur", capacity, w)
			}
			observed[bin(w)]++
		}
		expected := map[int]float64{}
		for w, p := range prob {
			expected[bin(w)] += p
		}
		for b, p := range expected {
			within(t, "weights from "+itoa(cuts[b]), observed[b], n, p)
		}
		pc := make([]int, 101)
		for _, p := range k.Profits {
			if p < 0 || p > 100 {
				t.Fatalf("profit %d outside 0..100", p)
			}
			pc[p]++
		}
		if capacity == 10000 {
			for v, c := range pc {
				within(t, "profit "+itoa(int64(v)), c, n, 1.0/101)
			}
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// The thesis's classes on C = 1000 are exactly these ranges.
func TestWeightRange(t *testing.T) {
	tests := []struct {
		c        int64
		lo, hi   int
		wlo, whi int64
	}{
		{1000, 0, 10, 1, 100},
		{1000, 5, 20, 50, 200},
		{1000, 20, 30, 200, 300},
		{995, 5, 20, 50, 199},
		{10, 5, 20, 1, 2},
		{1, 20, 30, 1, 1},
	}
	for _, tt := range tests {
		lo, hi := weightRange(tt.c, tt.lo, tt.hi)
		if lo != tt.wlo || hi != tt.whi {
			t.Errorf("weightRange(%d, %d, %d) = %d, %d; want %d, %d", tt.c, tt.lo, tt.hi, lo, hi, tt.wlo, tt.whi)
		}
	}
}

func TestKnapsackCounts(t *testing.T) {
	const n = 100000
	k, counts := Knapsack(NewRand(5), n, 500, true)
	if len(counts) != n || k.N != n {
		t.Fatalf("%d counts for %d items", len(counts), k.N)
	}
	c := make([]int, 11)
	for _, x := range counts {
		if x < 1 || x > 10 {
			t.Fatalf("count %d outside 1..10", x)
		}
		c[x]++
	}
	for v := 1; v <= 10; v++ {
		within(t, "count "+itoa(int64(v)), c[v], n, 0.1)
	}
}

func TestManhattan(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		down, right := Manhattan(NewRand(6), n)
		if len(down) != (n-1)*n || len(right) != n*(n-1) {
			t.Errorf("Manhattan(%d): %d down, %d right; want %d each", n, len(down), len(right), (n-1)*n)
		}
	}
	const n = 300
	down, right := Manhattan(NewRand(7), n)
	all := append(slices.Clone(down), right...)
	c := make([]int, 101)
	for _, v := range all {
		if v < 0 || v > 100 {
			t.Fatalf("weight %d outside 0..100", v)
		}
		c[v]++
	}
	for v := range c {
		within(t, "weight "+itoa(int64(v)), c[v], len(all), 1.0/101)
	}
	if slices.Equal(down, right) {
		t.Error("down and right are the same draws")
	}
}

func TestPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"negative length", func() { LCSPair(r, -1, 3, 0.5) }, "negative length"},
		{"planted > 1", func() { LCSPair(r, 3, 3, 1.5) }, "not in [0, 1]"},
		{"planted NaN", func() { LCSPair(r, 3, 3, math.NaN()) }, "not in [0, 1]"},
		{"negative n", func() { Knapsack(r, -1, 10, false) }, "negative item count"},
		{"capacity 0", func() { Knapsack(r, 5, 0, false) }, "capacity 0"},
		{"capacity huge", func() { Knapsack(r, 5, MaxCapacity+1, false) }, "is not in"},
		{"manhattan 0", func() { Manhattan(r, 0) }, "want at least 1"},
	}
	for _, tt := range tests {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, tt.want) {
					t.Errorf("%s: panic %q, want one containing %q", tt.name, msg, tt.want)
				}
			}()
			tt.f()
		}()
	}
}

func BenchmarkLCSPair100k(b *testing.B) {
	r := NewRand(1)
	b.SetBytes(200000)
	for b.Loop() {
		LCSPair(r, 100000, 100000, 0.5)
	}
}

func BenchmarkKnapsack10k(b *testing.B) {
	r := NewRand(1)
	for b.Loop() {
		Knapsack(r, 10000, 100000, true)
	}
}

func BenchmarkManhattan1k(b *testing.B) {
	r := NewRand(1)
	for b.Loop() {
		Manhattan(r, 1000)
	}
}

// TestProteinPairInstance: residues only, sizes near size, related but not
// equal (a plain count of equal positions up to the first gap would be
// fragile; the identity over the common length is checked loosely).
func TestProteinPairInstance(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 17, 1000} {
		in, err := ProteinPairInstance(r, n, nil)
		if err != nil || len(in.Inputs) != 2 || in.Inputs[0].Name != "A" || in.Inputs[1].Name != "B" {
			t.Fatalf("n = %d: %+v, %v", n, in, err)
		}
		a, b := in.Inputs[0].Text, in.Inputs[1].Text
		if len(a) != n || len(b) < n*8/10 || len(b) > n*12/10+2 {
			t.Errorf("n = %d: lengths %d and %d", n, len(a), len(b))
		}
		for _, s := range []string{a, b} {
			if strings.Trim(s, "ACDEFGHIKLMNPQRSTVWY") != "" {
				t.Errorf("n = %d: %q holds a letter that is no residue", n, s)
			}
		}
		if n == 1000 && a == b {
			t.Error("B is a plain copy of A")
		}
	}
}
