package dptest

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// The textbook dynamic programs of contract v2 (docs/language.md, §7 of
// the contract): interval DP and 1-D look-back, each as the `.dp` source a
// user writes from the textbook's definition (no flattening) and a plain-Go
// reference written from the same definition with loops. Inputs are given
// inline, so that a source stands alone.

// MatrixChain is the fewest scalar multiplications that multiply the chain
// of len(d)-1 matrices, matrix k being d[k] x d[k+1] (CLRS 15.2):
// cell[i][j] is the cost of matrices i..j, an interval DP over
// split points k. The answer is cell[0][n-1].
func MatrixChain(d []int64) string {
	return fmt.Sprintf(`problem matrix-chain
long 1x? d = %s
cell: long
(len(d)-1) x (len(d)-1)
cell[i][j] = 0                                                                  when i >= j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1])   otherwise
answer: cell[0][COLS-1]
`, Join(d))
}

// MatrixChainCost is the reference of MatrixChain: the O(n³) loop by
// increasing chain length.
func MatrixChainCost(d []int64) int64 {
	n := len(d) - 1
	m := square(n)
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			best := int64(-1)
			for k := i; k < j; k++ {
				if c := m[i][k] + m[k+1][j] + d[i]*d[k+1]*d[j+1]; best < 0 || c < best {
					best = c
				}
			}
			m[i][j] = best
		}
	}
	return m[0][n-1]
}

// Nussinov is the most base pairs of a secondary structure of the RNA s
// without pseudoknots (Nussinov and Jacobson 1980; Durbin et al., section
// 10.2): pairs AU, GC and, with wobble, GU, enclosing a hairpin of more
// than minloop bases. cell[i][j] covers s[i..j].
func Nussinov(s string, minloop int, wobble bool) string {
	w := 0
	if wobble {
		w = 1
	}
	return fmt.Sprintf(`problem nussinov
char 1x? s = "%s"
int minloop = %d
int wobble = %d
len(s) x len(s)
cell[i][j] = 0                                                                  when j - i <= minloop
           | max(cell[i+1][j], cell[i][j-1], cell[i+1][j-1] + ((s[i] == 'A' && s[j] == 'U') || (s[i] == 'U' && s[j] == 'A') || (s[i] == 'G' && s[j] == 'C') || (s[i] == 'C' && s[j] == 'G') || (wobble != 0 && ((s[i] == 'G' && s[j] == 'U') || (s[i] == 'U' && s[j] == 'G'))) ? 1 : 0), max(k in i+1..j-1: cell[i][k] + cell[k+1][j]))   otherwise
answer: cell[0][COLS-1]
`, s, minloop, w)
}

// Pairs reports whether RNA bases a and b may pair: Watson-Crick, and G-U
// with wobble.
func Pairs(a, b byte, wobble bool) bool {
	switch string([]byte{a, b}) {
	case "AU", "UA", "GC", "CG":
		return true
	case "GU", "UG":
		return wobble
	}
	return false
}

// NussinovPairs is the reference of Nussinov.
func NussinovPairs(s string, minloop int, wobble bool) int64 {
	n := len(s)
	m := square(n)
	for l := minloop + 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			best := max(m[i+1][j], m[i][j-1])
			inner := m[i+1][j-1]
			if Pairs(s[i], s[j], wobble) {
				inner++
			}
			best = max(best, inner)
			for k := i + 1; k < j; k++ {
				best = max(best, m[i][k]+m[k+1][j])
			}
			m[i][j] = best
		}
	}
	if n == 0 {
		return 0
	}
	return m[0][n-1]
}

// RNA is a random RNA sequence of n bases.
func RNA(r *rand.Rand, n int) string { return String(r, n, "ACGU") }

// Palindrome is the longest palindromic subsequence of s: cell[i][j]
// covers s[i..j].
func Palindrome(s string) string {
	return fmt.Sprintf(`problem lps
char 1x? s = "%s"
len(s) x len(s)
cell[i][j] = 0                                  when i > j
           | 1                                  when i == j
           | cell[i+1][j-1] + 2                 when s[i] == s[j]
           | max(cell[i+1][j], cell[i][j-1])    otherwise
answer: cell[0][COLS-1]
`, s)
}

// PalindromeLength is the reference of Palindrome.
func PalindromeLength(s string) int64 {
	n := len(s)
	m := square(n + 1)
	for i := n - 1; i >= 0; i-- {
		m[i][i] = 1
		for j := i + 1; j < n; j++ {
			if s[i] == s[j] {
				m[i][j] = m[i+1][j-1] + 2
			} else {
				m[i][j] = max(m[i+1][j], m[i][j-1])
			}
		}
	}
	if n == 0 {
		return 0
	}
	return m[0][n-1]
}

// LIS is the length of the longest strictly increasing subsequence of a: a
// 1-D grid, cell[j] the longest ending at a[j], each cell looking back over
// all earlier ones. The answer is the best cell.
func LIS(a []int64) string {
	return fmt.Sprintf(`problem lis
int 1x? a = %s
len(a)
cell[j] = 1                                               when j == 0
        | 1 + max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0)   otherwise
answer: max(j in 0..len(a)-1: cell[j])
`, Join(a))
}

// LISLength is the reference of LIS, by patience sorting (O(n log n)): a
// different algorithm from the recurrence's.
func LISLength(a []int64) int64 {
	var tails []int64
	for _, v := range a {
		k := sort.Search(len(tails), func(q int) bool { return tails[q] >= v })
		if k == len(tails) {
			tails = append(tails, v)
		} else {
			tails[k] = v
		}
	}
	return int64(len(tails))
}

// CoinChange is the fewest coins of values c that make amount (inf when
// none do): a 1-D grid over the amounts s, cell[s - c[k]] a data-dependent
// look-back that the coins' values (all >= 1) keep strictly earlier.
func CoinChange(c []int64, amount int) string {
	return fmt.Sprintf(`problem coin-change
int 1x? c = %s
int amount = %d
(amount+1)
cell[s] = 0                                                      when s == 0
        | min(k in 0..len(c)-1: c[k] <= s ? cell[s - c[k]] + 1 : inf)   otherwise
`, Join(c), amount)
}

// CoinChangeFewest is the reference of CoinChange; -1 when amount cannot be
// made.
func CoinChangeFewest(c []int64, amount int) int64 {
	best := make([]int64, amount+1)
	for s := 1; s <= amount; s++ {
		best[s] = -1
		for _, v := range c {
			if v <= int64(s) && best[int64(s)-v] >= 0 && (best[s] < 0 || best[int64(s)-v]+1 < best[s]) {
				best[s] = best[int64(s)-v] + 1
			}
		}
	}
	return best[amount]
}

// CoinChangeWays is the number of ways (as multisets: the order of the
// coins does not count) to make amount from coins of values c:
// cell[i][s] counts those that use the first i coin values only, so that a
// way is counted once, by its largest coin index.
func CoinChangeWays(c []int64, amount int) string {
	return fmt.Sprintf(`problem coin-change-ways
int 1x? c = %s
int amount = %d
cell: long
(len(c)+1) x (amount+1)
cell[i][s] = 1                                                   when s == 0
           | 0                                                   when i == 0
           | cell[i-1][s] + (c[i-1] <= s ? cell[i][s - c[i-1]] : 0)   otherwise
answer: cell[ROWS-1][COLS-1]
`, Join(c), amount)
}

// CoinWays is the reference of CoinChangeWays, by enumerating how many of
// each coin (exponential: small instances only).
func CoinWays(c []int64, amount int) int64 {
	var count func(k int, left int64) int64
	count = func(k int, left int64) int64 {
		if left == 0 {
			return 1
		}
		if k == len(c) {
			return 0
		}
		total := int64(0)
		for used := int64(0); used*c[k] <= left; used++ {
			total += count(k+1, left-used*c[k])
		}
		return total
	}
	return count(0, int64(amount))
}

// RodCutting is the best price of a rod of length n = len(price) cut into
// pieces, a piece of length k selling for price[k-1] (CLRS 15.1).
func RodCutting(price []int64) string {
	return fmt.Sprintf(`problem rod-cutting
int 1x? price = %s
(len(price)+1)
cell[n] = 0                                          when n == 0
        | max(k in 1..n: price[k-1] + cell[n-k])      otherwise
`, Join(price))
}

// RodCut is the reference of RodCutting.
func RodCut(price []int64) int64 {
	n := len(price)
	r := make([]int64, n+1)
	for l := 1; l <= n; l++ {
		r[l] = -1
		for k := 1; k <= l; k++ {
			r[l] = max(r[l], price[k-1]+r[l-k])
		}
	}
	return r[n]
}

// Interval is a job of weighted interval scheduling: [Start, End) and its
// weight.
type Interval struct{ Start, End, Weight int64 }

// Intervals draws n random jobs in 0..horizon, sorted by end (as the
// recurrence needs), and the predecessor of each: pred[j] is how many jobs
// end no later than job j starts (the jobs before it that it is compatible
// with, Kleinberg and Tardos 6.1).
func Intervals(r *rand.Rand, n int, horizon int64) (jobs []Interval, pred []int64) {
	for range n {
		s := r.Int64N(horizon)
		jobs = append(jobs, Interval{s, s + 1 + r.Int64N(horizon/4+1), 1 + r.Int64N(50)})
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].End < jobs[b].End })
	for _, job := range jobs {
		k := sort.Search(len(jobs), func(q int) bool { return jobs[q].End > job.Start })
		pred = append(pred, int64(k))
	}
	return jobs, pred
}

// WeightedInterval is the heaviest set of compatible jobs of weights w,
// sorted by end, p[j] jobs being compatible with job j: cell[j] is the
// best over the first j jobs, which leaves job j-1 or takes it and the best
// of its predecessors, cell[p[j-1]] — an offset that only the data bound.
func WeightedInterval(w, p []int64) string {
	return fmt.Sprintf(`problem weighted-interval
int 1x? w = %s
int 1x? p = %s
(len(w)+1)
cell[j] = 0                                          when j == 0
        | max(cell[j-1], w[j-1] + cell[p[j-1]])      otherwise
`, Join(w), Join(p))
}

// WeightedIntervalBest is the reference of WeightedInterval: every subset
// of compatible jobs (exponential: n <= 20), or the same recurrence by
// loops for more.
func WeightedIntervalBest(jobs []Interval) int64 {
	n := len(jobs)
	if n <= 16 {
		best := int64(0)
		for set := 0; set < 1<<n; set++ {
			total, ok := int64(0), true
			for a := 0; a < n && ok; a++ {
				if set&(1<<a) == 0 {
					continue
				}
				total += jobs[a].Weight
				for b := a + 1; b < n; b++ {
					if set&(1<<b) != 0 && jobs[a].Start < jobs[b].End && jobs[b].Start < jobs[a].End {
						ok = false
						break
					}
				}
			}
			if ok {
				best = max(best, total)
			}
		}
		return best
	}
	opt := make([]int64, n+1)
	for j := 1; j <= n; j++ {
		k := sort.Search(n, func(q int) bool { return jobs[q].End > jobs[j-1].Start })
		opt[j] = max(opt[j-1], jobs[j-1].Weight+opt[k])
	}
	return opt[n]
}

// OptimalBST is the least expected search cost of a binary search tree
// over keys with frequencies p[0..n-1] and misses (the gaps between keys)
// with frequencies q[0..n] (CLRS 15.5, in integer frequencies):
// cell[i][j] is the cost of a tree over keys i..j-1 and gaps i..j, the
// cheapest root r plus the weight of the whole range (every node one level
// deeper).
func OptimalBST(p, q []int64) string {
	return fmt.Sprintf(`problem optimal-bst
int 1x? p = %s
int 1x? q = %s
(len(p)+1) x (len(p)+1)
cell[i][j] = 0                                                             when i > j
           | q[i]                                                          when i == j
           | min(r in i..j-1: cell[i][r] + cell[r+1][j]) + sum(k in i..j-1: p[k]) + sum(k in i..j: q[k])   otherwise
answer: cell[0][COLS-1]
`, Join(p), Join(q))
}

// OptimalBSTCost is the reference of OptimalBST: CLRS's OPTIMAL-BST with
// its tables e and w.
func OptimalBSTCost(p, q []int64) int64 {
	n := len(p)
	e, w := square(n+2), square(n+2)
	for i := 1; i <= n+1; i++ {
		e[i][i-1], w[i][i-1] = q[i-1], q[i-1]
	}
	for l := 1; l <= n; l++ {
		for i := 1; i <= n-l+1; i++ {
			j := i + l - 1
			e[i][j] = -1
			w[i][j] = w[i][j-1] + p[j-1] + q[j]
			for r := i; r <= j; r++ {
				if t := e[i][r-1] + e[r+1][j] + w[i][j]; e[i][j] < 0 || t < e[i][j] {
					e[i][j] = t
				}
			}
		}
	}
	return e[1][n]
}

// Int64s is n integers drawn from lo..hi (both included).
func Int64s(r *rand.Rand, n int, lo, hi int64) []int64 {
	v := make([]int64, n)
	for k := range v {
		v[k] = lo + r.Int64N(hi-lo+1)
	}
	return v
}

func square(n int) [][]int64 {
	m := make([][]int64, n)
	for i := range m {
		m[i] = make([]int64, n)
	}
	return m
}

// NussinovGrid is the whole grid of the simplest Nussinov recurrence: the
// most nested base pairs (Watson-Crick and G-U) of s[i..j], no minimum loop
// length, 0 on and below the diagonal.
func NussinovGrid(s string) [][]float64 {
	n := len(s)
	g := NewGrid(n, n)
	for d := 1; d < n; d++ {
		for i := 0; i+d < n; i++ {
			j := i + d
			best := 0.0
			for k := i; k < j; k++ {
				best = max(best, g[i][k]+g[k+1][j])
			}
			if Pairs(s[i], s[j], true) {
				best = max(best, g[i+1][j-1]+1)
			}
			g[i][j] = best
		}
	}
	return g
}
