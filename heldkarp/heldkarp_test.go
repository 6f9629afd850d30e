package heldkarp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/problems/formats"
)

// randomMatrix is an n x n matrix of distances in [lo, hi]; symmetric when
// asked. The diagonal holds a large value that no tour may use.
func randomMatrix(rng *rand.Rand, n int, symmetric bool, lo, hi int64) []int64 {
	d := make([]int64, n*n)
	for i := range n {
		for j := range n {
			switch {
			case i == j:
				d[i*n+j] = 1 << 40
			case symmetric && j < i:
				d[i*n+j] = d[j*n+i]
			default:
				d[i*n+j] = lo + rng.Int64N(hi-lo+1)
			}
		}
	}
	return d
}

// bruteForce is the shortest tour over every order of cities 1..n-1.
func bruteForce(d []int64, n int) int64 {
	if n == 1 {
		return 0
	}
	best := int64(math.MaxInt64)
	used := make([]bool, n)
	var walk func(at, count int, length int64)
	walk = func(at, count int, length int64) {
		if count == n {
			best = min(best, length+d[at*n])
			return
		}
		for c := 1; c < n; c++ {
			if !used[c] {
				used[c] = true
				walk(c, count+1, length+d[at*n+c])
				used[c] = false
			}
		}
	}
	walk(0, 1, 0)
	return best
}

// plainHeldKarp is Held-Karp over a full 2^n table indexed by the bit mask
// of the visited cities (city 0 included), with no ranking and no layers.
func plainHeldKarp(d []int64, n int) int64 {
	if n == 1 {
		return 0
	}
	const inf = int64(math.MaxInt64)
	full := 1 << n
	s := make([]int64, full*n)
	for i := range s {
		s[i] = inf
	}
	s[1*n+0] = 0
	for mask := 1; mask < full; mask += 2 {
		for i := range n {
			v := s[mask*n+i]
			if v == inf {
				continue
			}
			for j := 1; j < n; j++ {
				if mask&(1<<j) != 0 {
					continue
				}
				next := mask | 1<<j
				s[next*n+j] = min(s[next*n+j], v+d[i*n+j])
			}
		}
	}
	best := inf
	for i := 1; i < n; i++ {
		best = min(best, s[(full-1)*n+i]+d[i*n])
	}
	return best
}

// checkTour fails unless tour is a permutation of 0..n-1 starting at 0
// whose length, summed from the matrix, is want.
func checkTour(t *testing.T, d []int64, n int, tour []int, want int64) {
	t.Helper()
	if len(tour) != n || tour[0] != 0 {
		t.Fatalf("tour %v: want %d cities starting at 0", tour, n)
	}
	seen := make([]bool, n)
	for _, c := range tour {
		if c < 0 || c >= n || seen[c] {
			t.Fatalf("tour %v is not a permutation of 0..%d", tour, n-1)
		}
		seen[c] = true
	}
	var length int64 // a single city's tour has no edge
	for i := 0; n > 1 && i < n; i++ {
		length += d[tour[i]*n+tour[(i+1)%n]]
	}
	if length != want {
		t.Fatalf("tour %v has length %d, want %d", tour, length, want)
	}
}

func TestSolveCPURandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	tests := []struct {
		n         int
		symmetric bool
		lo, hi    int64
		threads   int
	}{
		{1, true, 1, 100, 1},
		{2, false, 1, 100, 1},
		{3, false, 1, 100, 2},
		{4, true, 1, 100, 1},
		{5, false, 1, 100, 3},
		{6, true, 0, 5, 2}, // many ties
		{7, false, -50, 50, 4},
		{8, true, 1, 1000, 0},
		{9, false, 1, 1 << 20, 3},
		{10, true, 1, 100, 2},
		{10, false, 1e12, 1e13, 2}, // 64-bit values
		{11, false, 1, 1000, 0},
		{12, true, 1, 1000, 5},
		{13, false, 0, 3, 2},
		{13, false, 1, 1e15, 3},
		{14, true, 1, 10000, 0},
		{14, false, 1, 10000, 7},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("n=%d/sym=%v/d=%d..%d/threads=%d", tc.n, tc.symmetric, tc.lo, tc.hi, tc.threads)
		t.Run(name, func(t *testing.T) {
			d := randomMatrix(rng, tc.n, tc.symmetric, tc.lo, tc.hi)
			var want int64
			if tc.n <= 11 {
				want = bruteForce(d, tc.n)
			} else {
				want = plainHeldKarp(d, tc.n)
			}
			res, err := SolveCPU(context.Background(), d, tc.n, tc.threads, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Length != want {
				t.Fatalf("length %d, want %d", res.Length, want)
			}
			checkTour(t, d, tc.n, res.Tour, want)
			if m := int64(tc.n - 1); tc.n > 1 && res.States != m<<(m-1) {
				t.Errorf("States = %d, want m*2^(m-1) = %d", res.States, m<<(m-1))
			}
		})
	}
}

// TestReferences checks the two references against each other, so that a
// bug in one cannot hide a bug in the solver.
func TestReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 9; n++ {
		d := randomMatrix(rng, n, n%2 == 0, 1, 50)
		if a, b := bruteForce(d, n), plainHeldKarp(d, n); a != b {
			t.Errorf("n = %d: brute force %d, plain Held-Karp %d", n, a, b)
		}
	}
	// A known tour: cities on a line cost |i-j|; the best tour goes out
	// and back, 2*(n-1).
	n := 8
	d := make([]int64, n*n)
	for i := range n {
		for j := range n {
			d[i*n+j] = abs(int64(i - j))
		}
	}
	if got := bruteForce(d, n); got != 14 {
		t.Errorf("line of 8 cities: brute force %d, want 14", got)
	}
}

// TestThreadsAgree solves one instance with several thread counts; the
// tie-breaking (first minimum) makes the tour itself deterministic.
func TestThreadsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 15
	d := randomMatrix(rng, n, false, 0, 20)
	want, err := SolveCPU(context.Background(), d, n, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{2, 3, 8} {
		got, err := SolveCPU(context.Background(), d, n, threads, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Length != want.Length || fmt.Sprint(got.Tour) != fmt.Sprint(want.Tour) {
			t.Errorf("threads %d: %d %v, one thread: %d %v", threads, got.Length, got.Tour, want.Length, want.Tour)
		}
	}
}

// TestRanking checks the combinadic against a plain enumeration: Gosper's
// successor visits the k-subsets in increasing numeric (colex) order, rank
// numbers them 0, 1, 2, ... densely, and unrank inverts rank.
func TestRanking(t *testing.T) {
	for _, m := range []int{1, 2, 5, 11, 16} {
		l := newLayout(m + 1)
		for k := 1; k <= m; k++ {
			var want []uint64
			for mask := uint64(1); mask < 1<<m; mask++ {
				if bits.OnesCount64(mask) == k {
					want = append(want, mask)
				}
			}
			if int64(len(want)) != l.binom[m][k] {
				t.Fatalf("m=%d k=%d: %d subsets, C = %d", m, k, len(want), l.binom[m][k])
			}
			mask := l.unrank(0, k)
			for r, w := range want {
				if mask != w {
					t.Fatalf("m=%d k=%d rank %d: Gosper gives %b, want %b", m, k, r, mask, w)
				}
				if got := l.rank(w); got != int64(r) {
					t.Fatalf("m=%d k=%d: rank(%b) = %d, want %d", m, k, w, got, r)
				}
				if got := l.unrank(int64(r), k); got != w {
					t.Fatalf("m=%d k=%d: unrank(%d) = %b, want %b", m, k, r, got, w)
				}
				if r+1 < len(want) {
					mask = nextColex(mask)
				}
			}
		}
	}
	// The largest masks: 63 non-start cities.
	l := newLayout(64)
	for _, k := range []int{1, 31, 62, 63} {
		last := l.binom[63][k] - 1
		mask := l.unrank(last, k)
		if want := (uint64(1)<<k - 1) << (63 - k); mask != want {
			t.Errorf("m=63 k=%d: last subset %b, want %b", k, mask, want)
		}
		if got := l.rank(mask); got != last {
			t.Errorf("m=63 k=%d: rank of last = %d, want %d", k, got, last)
		}
	}
}

func TestRequirements(t *testing.T) {
	var prevHost, prevDev int64
	for n := 2; n <= 30; n++ {
		l := newLayout(n)
		m := int64(n - 1)
		if got := l.states(); got != m<<(m-1) {
			t.Errorf("n=%d: states %d, want m*2^(m-1) = %d", n, got, m<<(m-1))
		}
		var ml int64
		for k := int64(1); k <= m; k++ {
			ml = max(ml, binomial(m, k)*k)
		}
		host, dev := Requirements(n)
		nn := int64(n * n)
		if want := m<<(m-1) + 8*ml + 4*nn; host != want {
			t.Errorf("n=%d: host %d, want %d", n, host, want)
		}
		if want := 8*ml + 2*ml + 4*nn + 8*(m+1)*(m+1); dev != want {
			t.Errorf("n=%d: device %d, want %d", n, dev, want)
		}
		if host <= prevHost || dev <= prevDev {
			t.Errorf("n=%d: requirements %d, %d do not grow", n, host, dev)
		}
		prevHost, prevDev = host, dev
		if got := MaxN(host); got != n {
			t.Errorf("MaxN(%d) = %d, want %d", host, got, n)
		}
		if got := MaxN(host - 1); got != n-1 {
			t.Errorf("MaxN(%d) = %d, want %d", host-1, got, n-1)
		}
	}
	if got := MaxN(0); got != 1 {
		t.Errorf("MaxN(0) = %d, want 1", got)
	}
	if h, d := Requirements(MaxCities); h != math.MaxInt64 || d != math.MaxInt64 {
		t.Errorf("Requirements(%d) = %d, %d: want saturation", MaxCities, h, d)
	}
	top := MaxN(math.MaxInt64)
	if h, _ := Requirements(top + 1); top >= MaxCities || h != math.MaxInt64 {
		t.Errorf("MaxN(MaxInt64) = %d, but Requirements(%d) = %d does not saturate", top, top+1, h)
	}
}

// binomial is C(n, k) by the multiplicative formula.
func binomial(n, k int64) int64 {
	r := int64(1)
	for i := int64(1); i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	big := make([]int64, 65*65)
	tests := []struct {
		name string
		dist []int64
		n    int
		want string
	}{
		{"no cities", nil, 0, "at least 1"},
		{"short matrix", make([]int64, 8), 3, "want n*n = 9"},
		{"too many cities", big, 65, "at most 64"},
		{"min int64", []int64{0, math.MinInt64, 1, 0}, 2, "cannot be summed"},
		{"overflow", []int64{0, math.MaxInt64/2 + 1, 1, 0}, 2, "overflow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SolveCPU(ctx, tc.dist, tc.n, 0, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one that says %q", err, tc.want)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	ctx := context.Background()
	// 40 cities need 39*2^38 bytes (about 10 TiB) of predecessors alone.
	n := 40
	d := randomMatrix(rand.New(rand.NewPCG(5, 6)), n, true, 1, 100)
	_, err := SolveCPU(ctx, d, n, 0, nil)
	if hostAvailable() >= 0 && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("40 cities: error %v, want ErrTooLarge", err)
	}
	// With the memory given: 12 cities need a little over 11*2^10 bytes.
	n = 12
	d = randomMatrix(rand.New(rand.NewPCG(5, 6)), n, true, 1, 100)
	host, _ := Requirements(n)
	_, err = solveCPU(ctx, d, n, 0, nil, host-1)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
	for _, s := range []string{"12 cities", "11264 states", "at most 11 cities"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if _, err := solveCPU(ctx, d, n, 0, nil, host); err != nil {
		t.Errorf("exactly enough memory: %v", err)
	}
}

func TestCancel(t *testing.T) {
	d := randomMatrix(rand.New(rand.NewPCG(8, 9)), 10, false, 1, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SolveCPU(ctx, d, 10, 0, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: error %v, want context.Canceled", err)
	}

	// Cancel from the first progress report of a solve that takes far
	// longer than one report interval.
	n := 22
	d = randomMatrix(rand.New(rand.NewPCG(8, 9)), n, false, 1, 100)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	// No clock: the solve must stop before its last state, however slow
	// the machine.
	calls, finished := 0, false
	_, err := SolveCPU(ctx, d, n, 0, func(done, total int64) {
		calls++
		finished = finished || done == total
		cancel()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during: error %v after %d progress calls, want context.Canceled", err, calls)
	}
	if finished {
		t.Errorf("the cancelled solve reported all its states done")
	}
}

func TestProgress(t *testing.T) {
	n := 19
	d := randomMatrix(rand.New(rand.NewPCG(10, 11)), n, true, 1, 1000)
	var last, total int64
	calls := 0
	res, err := SolveCPU(context.Background(), d, n, 0, func(done, tot int64) {
		if done < last || done > tot || (total != 0 && tot != total) {
			t.Errorf("progress %d of %d after %d of %d", done, tot, last, total)
		}
		last, total = done, tot
		calls++
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != total || total != res.States {
		t.Errorf("progress: %d calls, last %d of %d, want a final call with %d", calls, last, total, res.States)
	}
}

// tsplib is one TSPLIB instance of the shared test data with its proven
// optimum.
type tsplib struct {
	name, file string
	optimum    int64
}

// readOptima reads tsplib/OPTIMA.txt: "name file type n weights... optimum".
func readOptima(t testing.TB) map[string]tsplib {
	f, err := os.Open(dptest.Path("tsplib/OPTIMA.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]tsplib{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		opt, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if err != nil {
			continue
		}
		out[fields[0]] = tsplib{fields[0], fields[1], opt}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// From the TSPLIB best-known list (tsplib-more has no OPTIMA file).
	out["bays29"] = tsplib{"bays29", "bays29.tsp", 2020}
	out["bayg29"] = tsplib{"bayg29", "bayg29.tsp", 1610}
	return out
}

func loadTSPLIB(t testing.TB, file string) *formats.TSPInstance {
	f, err := os.Open(dptest.Path("tsplib/" + file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inst, err := formats.ReadTSPLIB(f, file)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// longTests gates the solves that take minutes on a small machine.
func longTests(t *testing.T) {
	if os.Getenv("DPGPU_LONG") == "" {
		t.Skip("set DPGPU_LONG=1 to run the long CPU solves")
	}
}

func TestTSPLIB(t *testing.T) {
	optima := readOptima(t)
	for _, name := range []string{"ulysses16", "gr17", "br17", "gr21", "fri26", "bays29"} {
		t.Run(name, func(t *testing.T) {
			inst, ok := optima[name]
			if !ok {
				t.Fatalf("%s is not in OPTIMA.txt", name)
			}
			if name == "fri26" || name == "bays29" {
				longTests(t) // 2 cores: fri26 6 s, bays29 about a minute and 8 GiB
			}
			tsp := loadTSPLIB(t, inst.file)
			res, err := SolveCPU(context.Background(), tsp.Dist, tsp.N, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Length != inst.optimum {
				t.Fatalf("%s: length %d, want the optimum %d", name, res.Length, inst.optimum)
			}
			checkTour(t, tsp.Dist, tsp.N, res.Tour, inst.optimum)
			t.Logf("%s: %d cities, %d in %.2fs", name, tsp.N, res.Length, res.Seconds)
		})
	}
}

func BenchmarkSolveCPU(b *testing.B) {
	for n := 16; n <= 21; n++ {
		d := randomMatrix(rand.New(rand.NewPCG(uint64(n), 1)), n, false, 1, 1000)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var states int64
			for b.Loop() {
				res, err := SolveCPU(context.Background(), d, n, 0, nil)
				if err != nil {
					b.Fatal(err)
				}
				states = res.States
			}
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mstates/s")
		})
	}
}

// TestPackedMinimum: values whose 256 multiples fit take a branch-free
// minimum over value*256 + city (subsets); it must pick what the first
// strict minimum picks otherwise, ties included (distances of few values,
// negative ones), in both value widths.
func TestPackedMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		n      int
		lo, hi int64
	}{{3, 0, 1}, {6, 0, 2}, {9, -3, 3}, {12, 0, 4}, {13, -1000, 1000}} {
		d := randomMatrix(rng, tc.n, false, tc.lo, tc.hi)
		in, err := check(d, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		lay := newLayout(tc.n)
		unpacked := *in
		unpacked.bound = math.MaxInt64
		want, err := sweepCPU[int64](context.Background(), lay, &unpacked, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := sweepCPU[int32](context.Background(), lay, in, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sweepCPU[int64](context.Background(), lay, in, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range []*Result{a, b} {
			if got.Length != want.Length || !slices.Equal(got.Tour, want.Tour) {
				t.Errorf("n=%d, d in %d..%d: packed %d %v, unpacked %d %v", tc.n, tc.lo, tc.hi, got.Length, got.Tour, want.Length, want.Tour)
			}
		}
	}
}
