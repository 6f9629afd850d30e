package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/gputest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// End-to-end tests of contract v2 (interval DP and 1-D look-back): the
// natural `.dp` forms of dptest solved through the engine at awkward sizes
// on random data, against dptest's plain-Go references, with the
// traceback's tree or path checked by recomputing the answer from it.

// v2Sizes are the instance sizes: a chain, sequence or value count, a rod
// length, an amount.
var v2Sizes = []int{1, 2, 3, 17, 100}

// v2Case makes an instance of size n: its source, the reference answer
// (ok false: the answer is inf) and a check of the traceback.
type v2Case struct {
	name string
	make func(r *rand.Rand, n int) (src string, want int64, trace func(t *testing.T, l *engine.Loaded, res *engine.Result))
}

var v2Cases = []v2Case{
	{"matrix-chain", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		d := dptest.Int64s(r, n+1, 1, 100)
		return dptest.MatrixChain(d), dptest.MatrixChainCost(d), func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			if cost := chainCost(t, res.Tree, d); cost != res.Answer().I {
				t.Errorf("the parenthesisation costs %d, the answer is %d", cost, res.Answer().I)
			}
		}
	}},
	{"nussinov", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		s, minloop, wobble := dptest.RNA(r, n), r.IntN(4), r.IntN(2) == 1
		return dptest.Nussinov(s, minloop, wobble), dptest.NussinovPairs(s, minloop, wobble), func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			if pairs := foldPairs(t, res.Tree, s, minloop, wobble); pairs != res.Answer().I {
				t.Errorf("the structure has %d pairs, the answer is %d", pairs, res.Answer().I)
			}
		}
	}},
	{"palindrome", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		s := dptest.String(r, n, "ab")
		if r.IntN(2) == 0 {
			s = dptest.DNA(r, n)
		}
		return dptest.Palindrome(s), dptest.PalindromeLength(s), func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			if got := palindrome(t, res.Tree, s); int64(len(got)) != res.Answer().I {
				t.Errorf("the traceback spells the palindrome %q, the answer is %d", got, res.Answer().I)
			}
		}
	}},
	{"lis", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		a := dptest.Int64s(r, n, -int64(n), int64(n))
		return dptest.LIS(a), dptest.LISLength(a), func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			path := columns(t, res)
			for k := 1; k < len(path); k++ {
				if a[path[k]] <= a[path[k-1]] {
					t.Fatalf("path %v: a[%d] = %d does not increase on a[%d] = %d", path, path[k], a[path[k]], path[k-1], a[path[k-1]])
				}
			}
			if int64(len(path)) != res.Answer().I {
				t.Errorf("path %v of %d values, the answer is %d", path, len(path), res.Answer().I)
			}
		}
	}},
	{"coin-change", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		c := dptest.Int64s(r, 1+r.IntN(4), 2, 9)
		if r.IntN(3) == 0 {
			c = append(c, 1)
		}
		want := dptest.CoinChangeFewest(c, n)
		return dptest.CoinChange(c, n), want, func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			if want < 0 {
				return // no coins to check
			}
			path := columns(t, res)
			if path[0] != 0 || path[len(path)-1] != int64(n) {
				t.Fatalf("path %v does not go from 0 to %d", path, n)
			}
			for k := 1; k < len(path); k++ {
				if !contains(c, path[k]-path[k-1]) {
					t.Fatalf("path %v: %d is no coin of %v", path, path[k]-path[k-1], c)
				}
			}
			if int64(len(path)-1) != res.Answer().I {
				t.Errorf("path %v uses %d coins, the answer is %d", path, len(path)-1, res.Answer().I)
			}
		}
	}},
	{"coin-change-ways", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		c := dptest.Int64s(r, 1+r.IntN(4), 1, 9)
		amount := min(n, 40) // the reference enumerates
		return dptest.CoinChangeWays(c, amount), dptest.CoinWays(c, amount), nil
	}},
	{"rod-cutting", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		price := dptest.Int64s(r, n, 1, 30)
		return dptest.RodCutting(price), dptest.RodCut(price), func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			path := columns(t, res)
			total := int64(0)
			for k := 1; k < len(path); k++ {
				total += price[path[k]-path[k-1]-1]
			}
			if path[0] != 0 || path[len(path)-1] != int64(n) || total != res.Answer().I {
				t.Errorf("path %v: pieces worth %d, the answer is %d", path, total, res.Answer().I)
			}
		}
	}},
	{"weighted-interval", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		jobs, pred := dptest.Intervals(r, n, int64(4*n+1))
		w := make([]int64, n)
		for k, job := range jobs {
			w[k] = job.Weight
		}
		return dptest.WeightedInterval(w, pred), dptest.WeightedIntervalBest(jobs), func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			// Each step down the path leaves job j-1 (to cell[j-1]) or
			// takes it (to cell[pred[j-1]]); the jobs taken must not
			// overlap and must weigh the answer.
			var taken []dptest.Interval
			total := int64(0)
			for n := res.Tree; len(n.Children) > 0; n = n.Children[0] {
				j, next := n.J, n.Children[0]
				if next.J == pred[j-1] && n.Value.I == w[j-1]+next.Value.I {
					taken = append(taken, jobs[j-1])
					total += w[j-1]
				} else if next.J != j-1 || n.Value.I != next.Value.I {
					t.Fatalf("cell[%d] = %v steps to cell[%d] = %v", j, n.Value, next.J, next.Value)
				}
			}
			for a := range taken {
				for b := a + 1; b < len(taken); b++ {
					if taken[a].Start < taken[b].End && taken[b].Start < taken[a].End {
						t.Fatalf("jobs %v and %v overlap", taken[a], taken[b])
					}
				}
			}
			if total != res.Answer().I {
				t.Errorf("jobs %v weigh %d, the answer is %d", taken, total, res.Answer().I)
			}
		}
	}},
	{"optimal-bst", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		p, q := dptest.Int64s(r, n, 1, 100), dptest.Int64s(r, n+1, 1, 100)
		return dptest.OptimalBST(p, q), dptest.OptimalBSTCost(p, q), func(t *testing.T, _ *engine.Loaded, res *engine.Result) {
			if cost := bstCost(t, res.Tree, p, q, 0); cost != res.Answer().I {
				t.Errorf("the tree costs %d, the answer is %d", cost, res.Answer().I)
			}
		}
	}},
}

// v2Cases3D are the 3-D grids (contract v2 §7.1), answers without a
// traceback check.
var v2Cases3D = []v2Case{
	{"floyd-warshall", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		w := dptest.Graph(r, n, 0.3, 50)
		d := dptest.ShortestPaths(w)[0][n-1]
		// inf + x stays inf: an unreachable pair answers inf (want -1).
		want := int64(-1)
		if d != dptest.NoEdge {
			want = d + 1_000_000
		}
		return dptest.FloydWarshall(w, "cell[DIM0-1][0][ROWS-1] + 1000000"), want, nil
	}},
	{"lcs3", func(r *rand.Rand, n int) (string, int64, func(*testing.T, *engine.Loaded, *engine.Result)) {
		a, b, c := dptest.String(r, n, "ab"), dptest.String(r, n+1, "ab"), dptest.String(r, max(n-1, 1), "ab")
		return dptest.LCS3(a, b, c), int64(dptest.LCS3Length(a, b, c)), nil
	}},
}

func init() { v2Cases = append(v2Cases, v2Cases3D...) }

// TestV2CPU solves every case at every size on the CPU executor.
func TestV2CPU(t *testing.T) { runV2(t, cpu.New(4)) }

// TestV2GPU solves them on the GPU when one is present (DPGPU_REQUIRE_GPU=1:
// fails without one).
func TestV2GPU(t *testing.T) { withGPU(t, runV2) }

var gpuOnce = sync.OnceValues(func() (backend.Executor, error) { return gpu.New() })

// withGPU runs f with the GPU executor the tests share, or skips the test
// where there is no GPU (fails it with DPGPU_REQUIRE_GPU=1).
func withGPU(t *testing.T, f func(*testing.T, backend.Executor)) {
	ex, err := gpuOnce()
	if err != nil {
		gputest.NoGPU(t, err)
		return
	}
	f(t, ex)
}

func runV2(t *testing.T, ex backend.Executor) {
	r := dptest.Rand(t)
	for _, c := range v2Cases {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range v2Sizes {
				src, want, check := c.make(r, n)
				name := fmt.Sprintf("%s-%d.dp", c.name, n)
				l, res := solveV2(t, ex, name, src, check != nil)
				if res == nil {
					continue
				}
				got := res.Answer().I
				if inf, _ := ir.InfSentinel(res.Answer().T); (want < 0 && got != inf) || (want >= 0 && got != want) {
					t.Errorf("n = %d: answer %v, reference %d (-1: none)\n%s", n, res.Answer(), want, src)
					continue
				}
				if check != nil {
					if res.Tree == nil {
						t.Fatalf("n = %d: no traceback tree", n)
					}
					check(t, l, res)
				}
			}
		})
	}
}

// solveV2 loads src and runs it on ex, with a traceback when trace is set.
// A failure fails the test with the positioned error, and returns a nil
// result.
func solveV2(t *testing.T, ex backend.Executor, name, src string, trace bool) (*engine.Loaded, *engine.Result) {
	t.Helper()
	s := &engine.Source{Name: name, Path: name, Text: []byte(src)}
	l, err := engine.Load(s, bind.Config{BaseDir: "."})
	if err != nil {
		t.Errorf("%s: %s\n%s", name, engine.FormatError(err, s), src)
		return nil, nil
	}
	res, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: trace})
	if err != nil {
		t.Errorf("%s on %s: %s", name, ex.Name(), source.Format(err, s.Text))
		return l, nil
	}
	return l, res
}

// --- what the traceback must show ---

// chainCost is the cost of the parenthesisation a matrix-chain tree
// stands for, from the dimensions alone.
func chainCost(t *testing.T, n *traceback.Node, d []int64) int64 {
	t.Helper()
	if len(n.Children) == 0 {
		if n.I != n.J {
			t.Fatalf("leaf cell[%d][%d] is not one matrix", n.I, n.J)
		}
		return 0
	}
	l, r := split(t, n)
	return chainCost(t, l, d) + chainCost(t, r, d) + d[n.I]*d[l.J+1]*d[n.J+1]
}

// split returns the two halves of node n, which must cover it: [i..k] and
// [k+1..j].
func split(t *testing.T, n *traceback.Node) (l, r *traceback.Node) {
	t.Helper()
	if len(n.Children) != 2 {
		t.Fatalf("cell[%d][%d] has %d children, want 2", n.I, n.J, len(n.Children))
	}
	l, r = n.Children[0], n.Children[1]
	if l.I != n.I || r.J != n.J || l.J+1 != r.I || l.J < n.I || r.I > n.J {
		t.Fatalf("cell[%d][%d] splits into cell[%d][%d] and cell[%d][%d]", n.I, n.J, l.I, l.J, r.I, r.J)
	}
	return l, r
}

// foldPairs counts the base pairs of a Nussinov tree, checking each: a
// node whose one child is [i+1][j-1] and whose value is one more pairs i
// with j.
func foldPairs(t *testing.T, n *traceback.Node, s string, minloop int, wobble bool) int64 {
	t.Helper()
	switch len(n.Children) {
	case 0:
		if n.Value.I != 0 {
			t.Fatalf("leaf cell[%d][%d] = %v", n.I, n.J, n.Value)
		}
		return 0
	case 2:
		l, r := split(t, n)
		return foldPairs(t, l, s, minloop, wobble) + foldPairs(t, r, s, minloop, wobble)
	}
	c := n.Children[0]
	pair := int64(0)
	switch {
	case c.I == n.I+1 && c.J == n.J-1 && n.Value.I == c.Value.I+1:
		if !dptest.Pairs(s[n.I], s[n.J], wobble) || n.J-n.I <= int64(minloop) {
			t.Fatalf("%s: %c%d pairs with %c%d", s, s[n.I], n.I, s[n.J], n.J)
		}
		pair = 1
	case (c.I == n.I+1 && c.J == n.J) || (c.I == n.I && c.J == n.J-1) || (c.I == n.I+1 && c.J == n.J-1):
		if n.Value.I != c.Value.I {
			t.Fatalf("cell[%d][%d] = %v from cell[%d][%d] = %v", n.I, n.J, n.Value, c.I, c.J, c.Value)
		}
	default:
		t.Fatalf("cell[%d][%d] steps to cell[%d][%d]", n.I, n.J, c.I, c.J)
	}
	return pair + foldPairs(t, c, s, minloop, wobble)
}

// palindrome spells the palindromic subsequence a longest-palindrome path
// stands for: each step to [i+1][j-1] that adds 2 takes s[i] and s[j].
func palindrome(t *testing.T, n *traceback.Node, s string) string {
	t.Helper()
	var left, right []byte
	for {
		if len(n.Children) == 0 {
			if n.I == n.J {
				left = append(left, s[n.I])
			}
			break
		}
		c := n.Children[0]
		if len(n.Children) != 1 {
			t.Fatalf("cell[%d][%d] has %d children", n.I, n.J, len(n.Children))
		}
		if c.I == n.I+1 && c.J == n.J-1 && n.Value.I == c.Value.I+2 {
			if s[n.I] != s[n.J] {
				t.Fatalf("%s: pairs %c with %c", s, s[n.I], s[n.J])
			}
			left, right = append(left, s[n.I]), append([]byte{s[n.J]}, right...)
		} else if n.Value.I != c.Value.I {
			t.Fatalf("cell[%d][%d] = %v from cell[%d][%d] = %v", n.I, n.J, n.Value, c.I, c.J, c.Value)
		}
		n = c
	}
	p := string(left) + string(right)
	for a, b := 0, len(p)-1; a < b; a, b = a+1, b-1 {
		if p[a] != p[b] {
			t.Fatalf("%q is no palindrome", p)
		}
	}
	if !dptest.IsSubsequence(p, s) {
		t.Fatalf("%q is no subsequence of %q", p, s)
	}
	return p
}

// columns is a 1-D traceback's path as column indices, increasing.
func columns(t *testing.T, res *engine.Result) []int64 {
	t.Helper()
	if res.Grid.Path == nil {
		t.Fatalf("no path: the tree branches")
	}
	var js []int64
	for k, c := range res.Grid.Path {
		if c[0] != 0 || (k > 0 && c[1] <= js[k-1]) {
			t.Fatalf("path %v is not a 1-D path forwards", res.Grid.Path)
		}
		js = append(js, c[1])
	}
	return js
}

// bstCost is the expected cost of an optimal-bst tree at depth, from the
// frequencies alone: a gap [i][i] weighs q[i], a key r+1 p[r], each times
// its depth plus one.
func bstCost(t *testing.T, n *traceback.Node, p, q []int64, depth int64) int64 {
	t.Helper()
	if n.I == n.J {
		if len(n.Children) != 0 {
			t.Fatalf("gap cell[%d][%d] has children", n.I, n.J)
		}
		return q[n.I] * (depth + 1)
	}
	l, r := split(t, n)
	return p[l.J]*(depth+1) + bstCost(t, l, p, q, depth+1) + bstCost(t, r, p, q, depth+1)
}

func contains(v []int64, x int64) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// TestTracebackStarts: a traceback starts at the cell an answer selects —
// a reduction's winner, an expression's one cell — and is refused with
// the answer's position where the answer selects none.
func TestTracebackStarts(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		root      [2]int64
		err       string
	}{
		{"one cell in an expression", `3 x 3
cell[i][j] = 1                  when i == 0
           | 2 * cell[i-1][j]   otherwise
answer: 10 * cell[2][1] + 1
`, [2]int64{2, 1}, ""},
		{"the winner of a max", `int 1x4 A = 3,9,2,9
(4)
cell[j] = A[j]
answer: max(j in 0..3: cell[j])
`, [2]int64{0, 1}, ""},
		{"two cells", `3 x 3
cell[i][j] = i + j
answer: cell[0][0] + cell[2][2]
`, [2]int64{}, "t.dp:3:1: traceback starts at the cell the answer selects, but the answer of t selects none"},
	} {
		s := &engine.Source{Name: "t.dp", Path: "t.dp", Text: []byte(tc.src)}
		l, err := engine.Load(s, bind.Config{BaseDir: "."})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		res, err := engine.Run(context.Background(), l, cpu.New(2), backend.Options{Traceback: true})
		if tc.err != "" {
			if err == nil || !strings.Contains(source.Format(err, s.Text), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Tree == nil || res.Tree.I != tc.root[0] || res.Tree.J != tc.root[1] {
			t.Errorf("%s: tree %+v, want it to start at %v", tc.name, res.Tree, tc.root)
		}
	}
}
