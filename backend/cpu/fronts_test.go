package cpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The generic schedules (fronts.go) against plain-Go dynamic programs
// written here from the textbook definitions.

var genericProblems = []struct {
	name string
	gen  func(r *rand.Rand, n int) refCase
}{
	{"matrix-chain", matrixChainCase},
	{"nussinov", nussinovCase},
	{"palindrome", palindromeCase},
	{"lis-1xN", lisCase(false)},
	{"lis-1d", lisCase(true)},
	{"coin-fewest", coinFewestCase},
	{"coin-ways", coinWaysCase},
	{"coin-combinations", coinCombinationsCase},
	{"rod-cutting", rodCase},
	{"interval-double", intervalFloatCase("double")},
	{"interval-float", intervalFloatCase("float")},
	{"rows-over-ranges", rowsRangeCase},
	{"boolparen-2-tables", boolParenCase},
	{"chain-3-tables", tablesChainCase(3)},
	{"chain-4-tables", tablesChainCase(4)},
	{"updown-2-tables", upDownCase},
	{"far-reads", farReadsCase},
}

// farReadsCase: reads k = 4..7 columns ahead in the row above
// (dptest.FarReads), ordered by t = (k+1)*i + j.
func farReadsCase(r *rand.Rand, n int) refCase {
	src, g, ans := dptest.FarReads(r, max(n/2, 1), n+3)
	return refCase{src: src, grid: g, answer: ans, ansI: int64(len(g) - 1), ansJ: int64(n + 2), ansIsCell: true}
}

// upDownCase: a 1-D look-back over two tables (dptest.UpDown).
func upDownCase(r *rand.Rand, n int) refCase {
	src, g, ans := dptest.UpDown(r, n)
	return refCase{src: src, grid: g, answer: ans}
}

// boolParenCase: interval DP over two tables that read each other over
// ranges (dptest.BoolParen), at most 30 symbols (the counts stay finite).
func boolParenCase(r *rand.Rand, n int) refCase {
	n = min(n, 30)
	src, g, ans := dptest.BoolParen(r, n)
	return refCase{src: src, grid: g, answer: ans, ansI: 0, ansJ: int64(2 * (n - 1)), ansIsCell: true}
}

// tablesChainCase: interval DP over T tables (dptest.TablesChain).
func tablesChainCase(tables int) func(r *rand.Rand, n int) refCase {
	return func(r *rand.Rand, n int) refCase {
		src, g, ans := dptest.TablesChain(r, n, tables)
		return refCase{src: src, grid: g, answer: ans, ansI: 0, ansJ: int64(tables*(n-1) + tables - 1), ansIsCell: true}
	}
}

// TestGenericAgainstReferences runs every generic problem at awkward sizes
// on 1 and 4 threads, keeping the grid (cut into one-cell shares, every
// front split among the workers) and not, and compares the answer and
// every cell with the reference.
func TestGenericAgainstReferences(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for _, pr := range genericProblems {
		for _, n := range []int{1, 2, 3, 17, 100} {
			rc := pr.gen(r, n)
			p, pl := dptest.Load(t, pr.name+".dp", rc.src)
			if !pl.Schedule.Generic() {
				t.Fatalf("%s n=%d: planned %s, want a generic schedule", pr.name, n, pl.Schedule)
			}
			eachThreadsKeep(t, fmt.Sprintf("%s n=%d", pr.name, n), p, pl, rc, solve, nil)
		}
	}
}

// intervalGrid runs an interval DP by increasing length: cells with i > j
// hold below, the diagonal diag(i), the others cell(i, j, m).
func intervalGrid(n int, below float64, diag func(i int) float64, cell func(i, j int, m [][]float64) float64) [][]float64 {
	m := dptest.NewGrid(n, n)
	for i := range m {
		for j := range m[i] {
			if i > j {
				m[i][j] = below
			}
		}
		m[i][i] = diag(i)
	}
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			m[i][i+l] = cell(i, i+l, m)
		}
	}
	return m
}

func cellAnswer(g [][]float64, i, j int) refCase {
	return refCase{grid: g, answer: g[i][j], ansI: int64(i), ansJ: int64(j), ansIsCell: true}
}

// matrixChainCase: the fewest scalar multiplications of a chain of n
// matrices, d[k] x d[k+1] (CLRS 15.2), in long.
func matrixChainCase(r *rand.Rand, n int) refCase {
	d := dptest.Ints(r, n+1, 1, 100)
	g := intervalGrid(n, 0, func(int) float64 { return 0 }, func(i, j int, m [][]float64) float64 {
		best := math.Inf(1)
		for k := i; k < j; k++ {
			best = min(best, m[i][k]+m[k+1][j]+float64(d[i]*d[k+1]*d[j+1]))
		}
		return best
	})
	rc := cellAnswer(g, 0, n-1)
	rc.src = fmt.Sprintf(`problem matrixchain
long 1x? d = %s
(len(d)-1) x (len(d)-1)
cell: long
cell[i][j] = 0 when i >= j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1]) otherwise
answer: cell[0][COLS-1]
`, dptest.Join(d))
	return rc
}

// nussinovCase: the most base pairs of an RNA without pseudoknots
// (Nussinov), the pairs given as a matrix over the bases' codes.
func nussinovCase(r *rand.Rand, n int) refCase {
	b := dptest.Ints(r, n, 0, 3) // A C G U
	pair := [][]int{{0, 0, 0, 1}, {0, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 1, 0}}
	g := intervalGrid(n, 0, func(int) float64 { return 0 }, func(i, j int, m [][]float64) float64 {
		best := max(m[i+1][j], m[i][j-1], m[i+1][j-1]+float64(pair[b[i]][b[j]]))
		for k := i + 1; k < j; k++ {
			best = max(best, m[i][k]+m[k+1][j])
		}
		return best
	})
	rc := cellAnswer(g, 0, n-1)
	rc.src = fmt.Sprintf(`problem nussinov
int 1x? b = %s
int 4x4 pair = %s
len(b) x len(b)
cell[i][j] = 0 when j <= i
           | max(cell[i+1][j], cell[i][j-1], cell[i+1][j-1] + pair[b[i]][b[j]],
                 max(k in i+1..j-1: cell[i][k] + cell[k+1][j])) otherwise
answer: cell[0][COLS-1]
`, dptest.Join(b), dptest.JoinMatrix(pair))
	return rc
}

// palindromeCase: the longest palindromic subsequence, whose references
// are constant offsets, in interval order by request.
func palindromeCase(r *rand.Rand, n int) refCase {
	s := dptest.Ints(r, n, 0, 2)
	g := intervalGrid(n, 0, func(int) float64 { return 1 }, func(i, j int, m [][]float64) float64 {
		if s[i] == s[j] {
			return m[i+1][j-1] + 2
		}
		return max(m[i+1][j], m[i][j-1])
	})
	rc := cellAnswer(g, 0, n-1)
	rc.src = fmt.Sprintf(`problem palindrome
schedule: interval
int 1x? s = %s
len(s) x len(s)
cell[i][j] = 0 when i > j
           | 1 when i == j
           | cell[i+1][j-1] + 2 when s[i] == s[j]
           | max(cell[i+1][j], cell[i][j-1]) otherwise
answer: cell[0][COLS-1]
`, dptest.Join(s))
	return rc
}

// lisCase: the longest strictly increasing subsequence, cell[j] the
// longest ending at a[j]; the answer is the best cell (a region answer).
// oneD writes it as a 1-D grid, else as a 1 x N one.
func lisCase(oneD bool) func(r *rand.Rand, n int) refCase {
	return func(r *rand.Rand, n int) refCase {
		a := dptest.Ints(r, n, 0, n/2+1)
		g := dptest.NewGrid(1, n)
		best, at := 0.0, 0
		for j := range a {
			g[0][j] = 1
			for k := 0; k < j; k++ {
				if a[k] < a[j] {
					g[0][j] = max(g[0][j], g[0][k]+1)
				}
			}
			if g[0][j] > best {
				best, at = g[0][j], j
			}
		}
		rc := refCase{grid: g, answer: best, ansI: 0, ansJ: int64(at), ansIsCell: true}
		if oneD {
			rc.src = fmt.Sprintf(`problem lis
int 1x? a = %s
len(a)
cell[j] = 1 when j == 0
        | 1 + max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0) otherwise
answer: max(j in 0..len(a)-1: cell[j])
`, dptest.Join(a))
		} else {
			rc.src = fmt.Sprintf(`problem lis
int 1x? a = %s
1 x len(a)
cell[i][j] = 1 when j == 0
           | 1 + max(k in 0..j-1: a[k] < a[j] ? cell[i][k] : 0) otherwise
answer: max(j in 0..COLS-1: cell[0][j])
`, dptest.Join(a))
		}
		return rc
	}
}

// coins are n coin values (a few, some repeated), not all reaching every
// amount.
func coins(r *rand.Rand, n int) []int {
	return dptest.Ints(r, 1+r.IntN(min(n, 6)+1), 2, max(3, n/2))
}

// coinFewestCase: the fewest coins that make each amount (inf when none
// does), a 1-D look-back over the coins.
func coinFewestCase(r *rand.Rand, n int) refCase {
	c := coins(r, n)
	g := dptest.NewGrid(1, n)
	for s := range n {
		g[0][s] = math.Inf(1)
		if s == 0 {
			g[0][s] = 0
		}
		for _, v := range c {
			if s >= v {
				g[0][s] = min(g[0][s], g[0][s-v]+1)
			}
		}
	}
	rc := refCase{grid: g}
	rc.answer, rc.ansI, rc.ansJ = last(g)
	rc.ansIsCell = true
	rc.src = fmt.Sprintf(`problem coins
int 1x? c = %s
%d
cell[s] = 0 when s == 0
        | min(k in 0..len(c)-1: s >= c[k] ? cell[s - c[k]] + 1 : inf) otherwise
`, dptest.Join(c), n)
	return rc
}

// coinWaysCase: the number of ordered ways to make each amount, in long
// (1-D: the last coin of the sequence ranges over the coins); the answer
// is their sum over every amount (a region sum).
func coinWaysCase(r *rand.Rand, n int) refCase {
	c := coins(r, n)
	w := make([]int64, n)
	g := dptest.NewGrid(1, n)
	for s := range n {
		if s == 0 {
			w[s] = 1
		}
		for _, v := range c {
			if s >= v && s > 0 {
				w[s] += w[s-v]
			}
		}
		g[0][s] = float64(w[s])
	}
	rc := refCase{grid: g}
	for _, v := range g[0] {
		rc.answer += v
	}
	rc.src = fmt.Sprintf(`problem ways
cell: long
int 1x? c = %s
%d
cell[s] = 1 when s == 0
        | sum(k in 0..len(c)-1: s >= c[k] ? cell[s - c[k]] : 0) otherwise
answer: sum(s in 0..%d: cell[s])
`, dptest.Join(c), n, n-1)
	return rc
}

// coinCombinationsCase: the number of ways to make each amount with the
// first i coins (combinations), in long.
func coinCombinationsCase(r *rand.Rand, n int) refCase {
	c := coins(r, n)
	g := dptest.NewGrid(len(c)+1, n)
	for i := range g {
		for s := range n {
			switch {
			case s == 0:
				g[i][s] = 1
			case i == 0:
				g[i][s] = 0
			default:
				g[i][s] = g[i-1][s]
				if s >= c[i-1] {
					g[i][s] += g[i][s-c[i-1]]
				}
			}
		}
	}
	rc := refCase{grid: g}
	rc.answer, rc.ansI, rc.ansJ = last(g)
	rc.ansIsCell = true
	rc.src = fmt.Sprintf(`problem combinations
cell: long
int 1x? c = %s
(len(c)+1) x %d
cell[i][s] = 1 when s == 0
           | 0 when i == 0
           | cell[i-1][s] + (s >= c[i-1] ? cell[i][s - c[i-1]] : 0) otherwise
`, dptest.Join(c), n)
	return rc
}

// rodCase: the best price of a rod of each length cut into pieces of
// priced lengths (CLRS 15.1); the answer is an expression of two cells.
func rodCase(r *rand.Rand, n int) refCase {
	price := dptest.Ints(r, n, 1, 30)
	g := dptest.NewGrid(1, n+1)
	for j := 1; j <= n; j++ {
		for k := 1; k <= j; k++ {
			g[0][j] = max(g[0][j], float64(price[k-1])+g[0][j-k])
		}
	}
	rc := refCase{grid: g, answer: g[0][n] - g[0][n/2]}
	rc.src = fmt.Sprintf(`problem rod
int 1x? p = %s
(len(p)+1)
cell[j] = 0 when j == 0
        | max(k in 1..j: p[k-1] + cell[j-k]) otherwise
answer: cell[len(p)] - cell[len(p)/2]
`, dptest.Join(price))
	return rc
}

// intervalFloatCase: an interval DP over floating weights, in double or
// float (whose every operation is rounded to float32, as Go's float32
// arithmetic is).
func intervalFloatCase(ct string) func(r *rand.Rand, n int) refCase {
	return func(r *rand.Rand, n int) refCase {
		f := make([]float64, n)
		for k := range f {
			f[k] = math.Round(r.Float64()*1000) / 64
		}
		round := func(x float64) float64 { return x }
		if ct == "float" {
			round = func(x float64) float64 { return float64(float32(x)) }
		}
		g := intervalGrid(n, 0, func(i int) float64 { return round(f[i]) }, func(i, j int, m [][]float64) float64 {
			best := math.Inf(1)
			for k := i; k < j; k++ {
				best = min(best, round(m[i][k]+m[k+1][j]))
			}
			return round(best + round(round(round(f[i])+round(f[j]))*0.5))
		})
		rc := cellAnswer(g, 0, n-1)
		vals := make([]string, n)
		for k, v := range f {
			vals[k] = fmt.Sprint(v)
		}
		rc.src = fmt.Sprintf(`problem weights
cell: %s
%s 1x? f = %s
len(f) x len(f)
cell[i][j] = 0 when i > j
           | f[i] when i == j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j]) + (f[i] + f[j]) * 0.5 otherwise
answer: cell[0][COLS-1]
`, ct, ct, strings.Join(vals, ","))
		return rc
	}
}

// rowsRangeCase: each row reads a range of the row before, in fronts
// t = i by request (every front split among the workers).
func rowsRangeCase(r *rand.Rand, n int) refCase {
	a := dptest.Ints(r, n, -9, 9)
	g := dptest.NewGrid(n+1, n)
	for i := range g {
		for j := range g[i] {
			if i == 0 {
				g[i][j] = float64(a[j])
				continue
			}
			best := math.Inf(-1)
			for k := max(0, j-3); k <= min(n-1, j+3); k++ {
				best = max(best, g[i-1][k]+float64(a[k]))
			}
			g[i][j] = best - float64(a[j])
		}
	}
	rc := refCase{grid: g}
	rc.answer, rc.ansI, rc.ansJ = last(g)
	rc.ansIsCell = true
	rc.src = fmt.Sprintf(`problem rowsrange
schedule: t = i
int 1x? a = %s
(len(a)+1) x len(a)
cell[i][j] = a[j] when i == 0
           | max(k in max(0, j-3)..min(COLS-1, j+3): cell[i-1][k] + a[k]) - a[j] otherwise
`, dptest.Join(a))
	return rc
}

// TestGenericThreadsAgree: matrix chain at n = 300 gives the same grid on
// 1, 2 and 4 threads, with the default tuning (fronts split when worth it,
// long reductions split on the first machine).
func TestGenericThreadsAgree(t *testing.T) {
	rc := matrixChainCase(rand.New(rand.NewPCG(3, 3)), 300)
	p, pl := dptest.Load(t, "mc.dp", rc.src)
	var first *backend.Grid
	for _, threads := range []int{1, 2, 4} {
		res, err := solve(t, p, pl, backend.Options{Threads: threads, Maintain: true})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, fmt.Sprintf("threads=%d", threads), "", rc, res, true)
		if first == nil {
			first = res.Grid
		} else if string(first.Bytes()) != string(res.Grid.Bytes()) {
			t.Errorf("threads=%d: the grid differs from 1 thread's", threads)
		}
	}
}

// TestGenericLongLookback: LIS at n = 30,000 puts one cell on each front,
// whose reductions are long enough to be split among the workers.
func TestGenericLongLookback(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	a := dptest.Ints(rand.New(rand.NewPCG(4, 4)), 30000, 0, 1000000)
	// The reference, by patience sorting: the length and where the first
	// longest subsequence ends.
	tails, end, at := []int{}, make([]int, len(a)), 0
	for j, x := range a {
		k, _ := slicesSearch(tails, x)
		if k == len(tails) {
			tails = append(tails, x)
		} else {
			tails[k] = x
		}
		end[j] = k + 1
		if end[j] > end[at] {
			at = j
		}
	}
	p, pl := dptest.Load(t, "lis.dp", fmt.Sprintf(`problem lis
int 1x? a = %s
len(a)
cell[j] = 1 when j == 0
        | 1 + max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0) otherwise
answer: max(j in 0..len(a)-1: cell[j])
`, dptest.Join(a)))
	for _, threads := range []int{1, 4} {
		res, err := solve(t, p, pl, backend.Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if res.Answer.I != int64(len(tails)) || res.AnswerJ != int64(at) {
			t.Errorf("threads=%d: LIS %d ending at cell[%d], want %d at cell[%d]", threads, res.Answer.I, res.AnswerJ, len(tails), at)
		}
	}
}

// slicesSearch is the first k with s[k] >= x.
func slicesSearch(s []int, x int) (int, bool) {
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		if s[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s) && s[lo] == x
}

// TestGenericErrors: what stops a generic run names the `.dp` line and
// the cell, the same whatever the number of workers: the first failing
// cell of the first failing front, in front order.
func TestGenericErrors(t *testing.T) {
	wis := func(p []int) string {
		return fmt.Sprintf(`problem wis
int 1x? p = %s
int 1x? w = %s
(len(p)+1)
cell[j] = 0 when j == 0
        | max(cell[j-1], w[j-1] + cell[p[j-1]]) otherwise
`, dptest.Join(p), dptest.Join(dptest.Ints(rand.New(rand.NewPCG(1, 1)), len(p), 1, 9)))
	}
	mc := matrixChainCase(rand.New(rand.NewPCG(5, 5)), 40).src
	// Matrices of 1000 x 1000 in int cells: cell[1][3] is 2e9, and
	// cell[0][3] overflows adding the third term to it.
	thousands := make([]int, 41)
	for k := range thousands {
		thousands[k] = 1000
	}
	big := strings.Replace(matrixChainCase(rand.New(rand.NewPCG(5, 5)), 40).src, "cell: long\n", "", 1)
	big = strings.Replace(big, big[strings.Index(big, "long 1x?"):strings.Index(big, "\n(len")], "int 1x? d = "+dptest.Join(thousands), 1)
	cases := []struct {
		name, file, src, want string
	}{
		{"overflow inside a reduction", "mc.dp", big,
			"mc.dp:5:57: overflow computing cell[0][3]: 2000000000 + 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{"a checked read of a cell not computed yet", "wis.dp", wis([]int{0, 0, 1, 2, 5, 3, 4, 0}),
			"wis.dp:6:35: cell[5] reads cell[5] (p[4] = 5), which is not computed yet: both are on front t = j = 5, whose cells are computed at the same time"},
		{"a checked read ahead", "wis.dp", wis([]int{0, 1, 1, 2, 3, 7, 4, 0}),
			"wis.dp:6:35: cell[6] reads cell[7] (p[5] = 7), which is not computed yet: it is on front t = j = 7, after the front of cell[6] (6); fronts are computed in increasing order"},
		{"a read before the grid", "mc.dp", strings.Replace(mc, "cell[i][k] +", "cell[i][k-1] +", 1),
			"mc.dp:6:31: cell[i][k-1] reads cell[0][-1], outside the 40x40 grid"},
	}
	runs := []func(testing.TB, *ir.Problem, *plan.Plan, backend.Options) (*backend.Result, error){solve, solveTiny}
	if c, err := compiler(); err == nil {
		// The compiled fronts (templates/host.cu) word and place every
		// error as the evaluator does, whatever the threads.
		runs = append(runs, func(t testing.TB, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
			if _, err := codegen.GenerateHost(p, pl); err != nil {
				t.Errorf("%s: no host program (%v): the error would come from the evaluator", p.Name, err)
			}
			res, err := solveCompiled(t, c, p, pl, opt)
			if err == nil && !strings.Contains(res.Device, "compiled by") {
				t.Errorf("%s ran %s, not compiled code", p.Name, res.Device)
			}
			return res, err
		})
	}
	for _, tc := range cases {
		p, pl := dptest.Load(t, tc.file, tc.src)
		for _, threads := range []int{1, 2, 4} {
			for _, run := range runs {
				_, err := run(t, p, pl, backend.Options{Threads: threads})
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Errorf("%s, %d threads: error\n  %v\nwant\n  %s...", tc.name, threads, err, tc.want)
				}
			}
		}
	}
	// The legal weighted interval scheduling runs, against its reference.
	p := []int{0, 0, 1, 2, 2, 3, 4, 0}
	w := dptest.Ints(rand.New(rand.NewPCG(1, 1)), len(p), 1, 9)
	best := make([]int, len(p)+1)
	for j := 1; j <= len(p); j++ {
		best[j] = max(best[j-1], w[j-1]+best[p[j-1]])
	}
	prob, pl := dptest.Load(t, "wis.dp", wis(p))
	res, err := solve(t, prob, pl, backend.Options{Threads: 2})
	if err != nil || res.Answer.I != int64(best[len(p)]) {
		t.Errorf("weighted interval scheduling: %v, %v; want %d", res, err, best[len(p)])
	}
}

// TestGenericCancel: a run cancelled from its first progress report ends
// with the context's error well before the end, on fronts of one cell (on
// the first machine) and on fronts split among the workers.
func TestGenericCancel(t *testing.T) {
	srcs := []string{
		// Reductions of 100 and 1000 terms: long enough that compiled code
		// reports progress before it ends.
		"problem chain\n1 x 10000000\ncell[i][j] = j when j < 2\n           | max(k in max(0, j-100)..j-1: cell[i][k]) + 1 otherwise\n",
		"problem rows\nschedule: t = i\n3000 x 3000\ncell[i][j] = j when i == 0\n           | max(k in max(0, j-1000)..j: cell[i-1][k]) otherwise\n",
	}
	for _, src := range srcs {
		p, pl := dptest.Load(t, "big.dp", src)
		if !pl.Schedule.Generic() {
			t.Fatalf("planned %s, want a generic schedule", pl.Schedule)
		}
		for _, threads := range []int{1, 2} {
			checkCancelled(t, p, pl, threads, fmt.Sprintf("%s, %d threads", pl.T, threads), p.Cells()*3/4)
		}
	}
}

// TestGenericMemory: a generic run allocates what the plan estimates (the
// whole grid and the workers' registers), computes in a grid the caller
// allocated in advance, and refuses before allocating when the grid does
// not fit.
func TestGenericMemory(t *testing.T) {
	rc := matrixChainCase(rand.New(rand.NewPCG(6, 6)), 50)
	p, pl := dptest.Load(t, "mc.dp", rc.src)
	for _, threads := range []int{1, 3} {
		for _, keep := range []bool{false, true} {
			res, err := solve(t, p, pl, backend.Options{Threads: threads, Maintain: keep})
			if err != nil {
				t.Fatal(err)
			}
			m := plan.CPUMemory(p, pl, threads, keep)
			if got, want := res.Stats.PeakHostBytes, m.Work+m.Grid; got != want {
				t.Errorf("threads=%d keep=%v: the run allocated %d bytes, the plan estimates %d (work %d, grid %d)", threads, keep, got, want, m.Work, m.Grid)
			}
		}
	}
	held := backend.NewGrid(p.CellType, p.Rows, p.Cols)
	res, err := solve(t, p, pl, backend.Options{Threads: 2, Maintain: true, Grid: held})
	if err != nil || res.Grid != held {
		t.Fatalf("with a grid allocated in advance: grid %p (want %p), error %v", res.Grid, held, err)
	}
	checkResult(t, "held grid", rc.src, rc, res, true)

	grid := plan.GridBytes(p)
	work := plan.CPUMemory(p, pl, 2, true).Work
	if !pl.Transposed {
		t.Fatal("matrix chain walks columns: the plan should keep a transposed copy")
	}
	// Room for everything but the transposed copy: the run goes on
	// without it.
	withAvailable(t, work+grid-1)
	res, err = New(2).Run(context.Background(), p, pl, backend.Options{})
	if err != nil || res.Stats.PeakHostBytes != work {
		t.Fatalf("without room for the transposed copy: %v, peak %d, want %d", err, res.Stats.PeakHostBytes, work)
	}
	checkResult(t, "no transposed copy", rc.src, rc, res, false)
	withAvailable(t, work-1)
	_, err = New(2).Run(context.Background(), p, pl, backend.Options{})
	if !errors.Is(err, hostmem.ErrTooLarge) || !strings.HasPrefix(err.Error(), "keeping the whole 50x50 grid of long (19.5 KiB), which the interval schedule reads over ranges of fronts, while solving matrixchain needs") {
		t.Errorf("refusal: %v", err)
	}
	// The grid allocated in advance is not counted again.
	if _, err := New(2).Run(context.Background(), p, pl, backend.Options{Grid: held}); err != nil {
		t.Errorf("with the grid held: %v", err)
	}
}

// TestGenericTraceback follows LIS back from its best cell: an increasing
// subsequence of the answer's length, ending at the answer cell.
func TestGenericTraceback(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 2, 17, 100} {
		rc := lisCase(false)(r, n)
		p, pl := dptest.Load(t, "lis.dp", rc.src)
		res, err := solve(t, p, pl, backend.Options{Threads: 2, Traceback: true})
		if err != nil {
			t.Fatal(err)
		}
		a := strings.Split(rc.src[strings.Index(rc.src, "= ")+2:strings.Index(rc.src, "\n1 x")], ",")
		if int64(len(res.Path)) != res.Answer.I || res.Path[len(res.Path)-1] != [2]int64{res.AnswerI, res.AnswerJ} {
			t.Fatalf("n=%d: path %v for LIS %d ending at cell[%d][%d]", n, res.Path, res.Answer.I, res.AnswerI, res.AnswerJ)
		}
		for k := 1; k < len(res.Path); k++ {
			var x, y int
			fmt.Sscan(a[res.Path[k-1][1]], &x)
			fmt.Sscan(a[res.Path[k][1]], &y)
			if x >= y {
				t.Fatalf("n=%d: path %v is not increasing in a = %v", n, res.Path, a)
			}
		}
	}
}

// TestTables1D runs the 1-D problems of several tables (dptest.Tables1DCases)
// at awkward sizes on the Go evaluator (1 and 4 threads, the grid kept and
// not) and compiled where a compiler exists: the answer and, kept, every
// table's every cell equal the plain-Go references.
func TestTables1D(t *testing.T) {
	r := dptest.Rand(t)
	c, cerr := compiler()
	for _, n := range []int{1, 2, 3, 17, 100} {
		for _, tc := range dptest.Tables1DCases(r, n) {
			p, pl := dptest.Load(t, tc.Name+".dp", tc.Src)
			if p.Dims != 1 || len(p.Tables) < 2 {
				t.Fatalf("%s: %d dimensions, tables %v: want a 1-D grid of several tables", tc.Name, p.Dims, p.Tables)
			}
			rc := refCase{src: tc.Src, grid: tc.Flat, answer: tc.Answer, tol: tc.Tol}
			var compiled func(string, backend.Options)
			if cerr == nil {
				compiled = func(name string, opt backend.Options) {
					res, err := solveCompiled(t, c, p, pl, opt)
					if err != nil {
						t.Fatalf("%s compiled: %v\n%s", name, err, tc.Src)
					}
					checkResult(t, name+" compiled", tc.Src, rc, res, opt.Maintain)
				}
			}
			eachThreadsKeep(t, fmt.Sprintf("%s n=%d", tc.Name, n), p, pl, rc, solveGo, compiled)
		}
	}
}

// eachThreadsKeep runs p on 1 and 4 threads, keeping the grid (the tiny
// tuning: many tiles and shares) and not (run), and checks each result
// against rc; more, when not nil, then runs the same options its own way.
func eachThreadsKeep(t *testing.T, label string, p *ir.Problem, pl *plan.Plan, rc refCase,
	run func(testing.TB, *ir.Problem, *plan.Plan, backend.Options) (*backend.Result, error), more func(string, backend.Options)) {
	t.Helper()
	for _, threads := range []int{1, 4} {
		for _, keep := range []bool{false, true} {
			name := fmt.Sprintf("%s threads=%d keep=%v (%s %s)", label, threads, keep, pl.Schedule, pl.T)
			opt := backend.Options{Threads: threads, Maintain: keep}
			solveIt := run
			if keep {
				solveIt = solveTiny
			}
			res, err := solveIt(t, p, pl, opt)
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, rc.src)
			}
			checkResult(t, name, rc.src, rc, res, keep)
			if more != nil {
				more(name, opt)
			}
		}
	}
}

// TestErrorsName1DCells: the Go evaluator's errors name a 1-D grid's cells
// as written, cell[3], as the compiled code's do (not cell[0][3]).
func TestErrorsName1DCells(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"int 1x? v = 2,7,0,3\nlen(v)\ncell[i] = 100 when i == 0\n        | cell[i-1] / v[i-1] otherwise\n", "division by zero (computing cell[3])"},
		{"int n = 60\nn\ncell: long\ncell[i] = 1 when i == 0\n        | cell[i-1] * 3 otherwise\n", "overflow computing cell[40]"},
		{"int 1x? p = 1,2,0,4\nlen(p)\nA[i] = 1 when i == 0\n     | B[i-1] / p[i-1] otherwise\nB[i] = A[i] + 1\n", "(computing A[3])"},
	} {
		p, pl := dptest.Load(t, "e.dp", tc.src)
		for _, threads := range []int{1, 2} {
			_, err := solveGo(t, p, pl, backend.Options{Threads: threads})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%d threads: %v, want %q\n%s", threads, err, tc.want, tc.src)
			}
		}
	}
}
