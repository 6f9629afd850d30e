package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The generic schedules on the front kernel, against plain-Go DPs written
// here (the CPU executor runs them too, but these tests must not depend on
// it): interval DP, 1-D look-back on a 1 x N grid, ranges over earlier
// rows, at awkward sizes, with every spread forced, the host's choice, the
// grid kept, and without the transposed copy.

var frontVariants = []variant{
	{name: "thread", cg: codegen.Options{Spread: codegen.SpreadThread}},
	{name: "warp", cg: codegen.Options{Spread: codegen.SpreadWarp}},
	{name: "block", cg: codegen.Options{Spread: codegen.SpreadBlock}},
	{name: "auto"},
	{name: "maintain", maintain: true},
	{name: "warp-no-mirror", cg: codegen.Options{Spread: codegen.SpreadWarp, NoMirror: true}, maintain: true},
	{name: "small-blocks", cg: codegen.Options{Spread: codegen.SpreadBlock, BlockThreads: 64, WarpThreads: 32, FrontThreads: 32}},
}

var frontSizes = []int{1, 2, 3, 17, 100, 1000}

// refMax is the largest interval problem whose plain-Go grid the tests
// compute (O(n^3)); larger ones (the speed measurements) have none: want
// is nil.
const refMax = 2000

// frontProblem is one instance: its source (with its files) and the whole
// grid a correct run computes.
type frontProblem struct {
	name  string
	src   string
	files map[string]string
	want  refGrid
	ans   float64
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for k, x := range v {
		s[k] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// matrixChainProblem: the fewest scalar multiplications for matrices i..j
// (matrix t is d[t] x d[t+1]), 0 on and below the diagonal.
func matrixChainProblem(r *rand.Rand, n int) frontProblem {
	d := make([]int64, n+1)
	for k := range d {
		d[k] = 1 + r.Int64N(100)
	}
	files := map[string]string{"d.txt": joinInts(d)}
	if n > refMax {
		return frontProblem{name: "matrixchain", src: matrixChainSrc, files: files}
	}
	g := dptest.NewGrid(n, n)
	c := make([][]int64, n)
	for i := range c {
		c[i] = make([]int64, n)
	}
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			best := int64(math.MaxInt64)
			for k := i; k < j; k++ {
				best = min(best, c[i][k]+c[k+1][j]+d[i]*d[k+1]*d[j+1])
			}
			c[i][j], g[i][j] = best, float64(best)
		}
	}
	return frontProblem{name: "matrixchain", src: matrixChainSrc, files: files, want: g, ans: g[0][n-1]}
}

const matrixChainSrc = `problem matrixchain
long 1x? d = @"d.txt"
(len(d)-1) x (len(d)-1)
cell: long
cell[i][j] = 0                                                        when i >= j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1])   otherwise
answer: cell[0][COLS-1]
`

// nussinovProblem: the most nested base pairs of s[i..j] (A-U, G-C, G-U),
// no minimum loop length, 0 on and below the diagonal.
func nussinovProblem(r *rand.Rand, n int) frontProblem {
	s := dptest.String(r, n, "ACGU")
	if n > refMax {
		return frontProblem{name: "nussinov", src: nussinovSrc, files: map[string]string{"s.txt": s}}
	}
	g := dptest.NussinovGrid(s)
	return frontProblem{name: "nussinov", src: nussinovSrc, files: map[string]string{"s.txt": s}, want: g, ans: g[0][n-1]}
}

const nussinovSrc = `problem nussinov
char 1x? s = @"s.txt"
len(s) x len(s)
cell[i][j] = 0                                                         when j <= i
           | max(max(k in i..j-1: cell[i][k] + cell[k+1][j]), (s[i] == 'A' && s[j] == 'U') || (s[i] == 'U' && s[j] == 'A') || (s[i] == 'G' && s[j] == 'C') || (s[i] == 'C' && s[j] == 'G') || (s[i] == 'G' && s[j] == 'U') || (s[i] == 'U' && s[j] == 'G') ? cell[i+1][j-1] + 1 : 0)   otherwise
answer: cell[0][COLS-1]
`

// lisProblem: the longest increasing subsequence ending at each element, on
// a 1 x N grid; the answer is the longest over the row (a region answer).
func lisProblem(r *rand.Rand, n int) frontProblem {
	a := make([]int64, n)
	for k := range a {
		a[k] = r.Int64N(int64(n) + 1)
	}
	g := dptest.NewGrid(1, n)
	best := 0.0
	for j := range a {
		g[0][j] = 1
		for k := 0; k < j; k++ {
			if a[k] < a[j] {
				g[0][j] = math.Max(g[0][j], g[0][k]+1)
			}
		}
		best = math.Max(best, g[0][j])
	}
	src := `problem lis
int 1x? a = @"a.txt"
1 x len(a)
cell[i][j] = 1                                                      when j == 0
           | 1 + max(k in 0..j-1: a[k] < a[j] ? cell[i][k] : 0)     otherwise
answer: max(j in 0..COLS-1: cell[0][j])
`
	return frontProblem{name: "lis", src: src, files: map[string]string{"a.txt": joinInts(a)}, want: g, ans: best}
}

// lis1DProblem is lisProblem written on a 1-D grid (contract v2 §7.1),
// which the front end lowers to 1 x N: the same cells.
func lis1DProblem(r *rand.Rand, n int) frontProblem {
	fp := lisProblem(r, n)
	fp.name = "lis1d"
	fp.src = `problem lis1d
int 1x? a = @"a.txt"
len(a)
cell[j] = 1 + max(0, max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0))
answer: max(j in 0..len(a)-1: cell[j])
`
	return fp
}

// coinsProblem: the fewest coins paying s (int's inf where none do), on a
// 1 x (amount+1) grid; the answer an expression of the last cell.
func coinsProblem(r *rand.Rand, n int) frontProblem {
	c := []int64{3 + r.Int64N(3), 7 + r.Int64N(5), 13 + r.Int64N(9), 4}
	const inf = math.MaxInt32
	g := dptest.NewGrid(1, n)
	for s := 1; s < n; s++ {
		best := float64(inf)
		for _, x := range c {
			if x <= int64(s) && g[0][s-int(x)] != inf {
				best = math.Min(best, g[0][s-int(x)]+1)
			}
		}
		g[0][s] = best
	}
	src := fmt.Sprintf(`problem coins
int 1x? c = @"c.txt"
int amount = %d
1 x (amount+1)
cell[i][s] = 0                                                       when s == 0
           | min(k in 0..len(c)-1: c[k] <= s ? cell[i][s-c[k]] + 1 : inf)   otherwise
answer: min(cell[0][COLS-1], 1000000000)
`, n-1)
	return frontProblem{name: "coins", src: src, files: map[string]string{"c.txt": joinInts(c)}, want: g, ans: math.Min(g[0][n-1], 1e9)}
}

// waysProblem: the ordered ways to pay s with the coins, as long: a sum
// split over the lanes.
func waysProblem(r *rand.Rand, n int) frontProblem {
	// Coins of 37 and more keep every count of n = 1000 below 2^53 (about
	// 1.036^s): exact in the float64 grid too.
	c := []int64{37 + r.Int64N(4), 41 + r.Int64N(4), 43, 53, 59}
	g := dptest.NewGrid(1, n)
	w := make([]int64, n)
	for s := 0; s < n; s++ {
		if s == 0 {
			w[0] = 1
		}
		for _, x := range c {
			if s > 0 && x <= int64(s) {
				w[s] += w[s-int(x)]
			}
		}
		g[0][s] = float64(w[s])
	}
	src := fmt.Sprintf(`problem ways
int 1x? c = @"c.txt"
1 x %d
cell: long
cell[i][s] = 1                                                         when s == 0
           | sum(k in 0..len(c)-1: c[k] <= s ? cell[i][s-c[k]] : 0)     otherwise
`, n)
	return frontProblem{name: "ways", src: src, files: map[string]string{"c.txt": joinInts(c)}, want: g, ans: g[0][n-1]}
}

// rowsProblem: each cell sums its column above it and adds the largest
// cell of another column above it (fronts t = i, reductions over earlier
// rows).
func rowsProblem(r *rand.Rand, n int) frontProblem {
	cols := n + 3
	w := make([]int64, cols)
	for k := range w {
		w[k] = r.Int64N(1000)
	}
	g := dptest.RowSums(w, n)
	src := fmt.Sprintf("problem rowsums\nint 1x? w = @\"w.txt\"\n%d x len(w)\n", n) + dptest.RowSumsRecurrence
	return frontProblem{name: "rows", src: src, files: map[string]string{"w.txt": joinInts(w)}, want: g, ans: g[n-1][cols-1]}
}

// boolParenProblem: interval DP over two tables (dptest.BoolParen), at
// most 30 symbols (the counts stay finite).
func boolParenProblem(r *rand.Rand, n int) frontProblem {
	src, g, ans := dptest.BoolParen(r, min(n, 30))
	return frontProblem{name: "boolparen", src: src, want: g, ans: ans}
}

// tablesChainProblem: interval DP over four tables (dptest.TablesChain),
// whose fronts t = J - 4*i no one-table candidate gives.
func tablesChainProblem(r *rand.Rand, n int) frontProblem {
	src, g, ans := dptest.TablesChain(r, n, 4)
	return frontProblem{name: "tableschain", src: src, want: g, ans: ans}
}

// upDownProblem: a 1-D look-back over two tables (dptest.UpDown).
func upDownProblem(r *rand.Rand, n int) frontProblem {
	src, g, ans := dptest.UpDown(r, n)
	return frontProblem{name: "updown", src: src, want: g, ans: ans}
}

// farReadsProblem: reads 4..7 columns ahead in the row above
// (dptest.FarReads), ordered by t = (k+1)*i + j.
func farReadsProblem(r *rand.Rand, n int) frontProblem {
	src, g, ans := dptest.FarReads(r, max(n/2, 1), n+3)
	return frontProblem{name: "far", src: src, want: g, ans: ans}
}

// TestFronts runs every generic problem at every size with every variant.
func TestFronts(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	makers := []func(*rand.Rand, int) frontProblem{matrixChainProblem, nussinovProblem, lisProblem, lis1DProblem, coinsProblem, waysProblem, rowsProblem,
		boolParenProblem, tablesChainProblem, upDownProblem, farReadsProblem}
	for _, n := range frontSizes {
		for _, mk := range makers {
			fp := mk(r, n)
			if (fp.name == "rows" || fp.name == "tableschain") && n == 1000 {
				continue // a 1000 x 1003 (x 4) grid of O(n) reductions: covered at 100
			}
			p, pl, err := dptest.TryLoad(t, fp.name+".dp", fp.src, dptest.Files(fp.files))
			if err != nil && fp.name == "lis1d" {
				t.Logf("1-D grids skipped: the front end does not read them: %v", err)
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", fp.name, err)
			}
			if !pl.Schedule.Generic() {
				t.Fatalf("%s: schedule %s, want a generic one", fp.name, pl.Schedule)
			}
			for _, v := range frontVariants {
				name := fmt.Sprintf("%s-%d/%s", fp.name, n, v.name)
				t.Run(name, func(t *testing.T) {
					res, err := runGPU(t, e, p, pl, v)
					if err != nil {
						t.Fatal(err)
					}
					if got := answerOf(res); got != fp.ans {
						t.Errorf("answer %v, want %v", got, fp.ans)
					}
					if v.maintain {
						checkGrid(t, name, res.Grid, fp.want, 0)
					}
				})
			}
		}
	}
}

// TestFrontAnswerCell: the answer of an interval DP is the cell the plan
// names, and the run counts the grid and its transposed copy.
func TestFrontAnswerCell(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	fp := matrixChainProblem(r, 57)
	p, pl := dptest.Load(t, "mc.dp", fp.src, dptest.Files(fp.files))
	res, err := e.Run(context.Background(), p, pl, backend.Options{Maintain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.AnswerIsCell || res.AnswerI != 0 || res.AnswerJ != 56 || answerOf(res) != fp.ans {
		t.Errorf("answer %v at cell[%d][%d] (cell %v), want %v at cell[0][56]", answerOf(res), res.AnswerI, res.AnswerJ, res.AnswerIsCell, fp.ans)
	}
	if res.Stats.DeviceBytes < 2*p.Cells()*8 {
		t.Errorf("device bytes %d: the grid and its transposed copy are %d", res.Stats.DeviceBytes, 2*p.Cells()*8)
	}
}

// TestFrontErrors: an overflow inside a reduction split over the lanes, a
// read outside the grid, and a read of a front not computed yet stop the
// run with the `.dp` position and the cells, whatever the spread.
func TestFrontErrors(t *testing.T) {
	e := executor(t)
	cases := []struct {
		name, src string
		want      []string
	}{
		{"ways", `problem ways
int 1x? c = 1,2
1 x 61
cell[i][s] = 1                                                         when s == 0
           | sum(k in 0..len(c)-1: c[k] <= s ? cell[i][s-c[k]] : 0)     otherwise
`, []string{"ways.dp:5:", "overflow computing cell[0][46]", "does not fit in int"}},
		// A max of sums checked once per cell (codegen deferredAdd): the
		// first term that overflows is reported, as on the CPU, in a cell
		// of the first front that overflows (its cells run at once, and
		// any may report first: all of them fail with these operands).
		{"split", `problem split
int n = 12
n x n
cell[i][j] = 300000000                                                        when i == j
           | 0                                                                when i > j
           | max(cell[i][j-1], max(k in i..j-1: cell[i][k] + cell[k+1][j]))  otherwise
`, []string{"split.dp:6:", "overflow computing cell[", "]: 300000000 + 2100000000 does not fit in int"}},
		// +2e9, +2e9, -2e9, -2e9, ...: the second term overflows in
		// order, whatever order the lanes add in (codegen orderedSum).
		{"sumleaves", `problem sumleaves
1 x 80
cell[i][j] = 0                                                                   when j == 0
           | sum(k in 0..j-1: k % 4 < 2 ? 2000000000 : -2000000000) + (max(q in 0..j-1: cell[i][q]) > 5 ? 1 : 0)   otherwise
`, []string{"sumleaves.dp:4:", "overflow computing cell[0][2]: 2000000000 + 2000000000 does not fit in int"}},
		{"coins", `problem coins
int 1x? c = 3,5
1 x 12
cell[i][s] = 0                                                   when s == 0
           | min(k in 0..len(c)-1: cell[i][s-c[k]] + 1)          otherwise
`, []string{"coins.dp:5:", "cell[i][s-c[k]] reads cell[0][-", "outside the 1x12 grid", "computing cell[0][1]"}},
		{"order", `problem order
int 1x? p = 0,0,1,2,3,7,4,5,6
1 x len(p)
cell[i][j] = 1                         when j == 0
           | cell[i][p[j]] + 1         otherwise
`, []string{"order.dp:5:", "cell[0][5] reads cell[0][7] (p[5] = 7), which is not computed yet: it is on front t = j = 7, after the front of cell[0][5] (5)"}},
		// The same on a 1-D grid: its cells are named as written.
		{"order1d", `problem order1d
int 1x? p = 0,0,1,2,3,7,4,5,6
len(p)
cell[j] = 1                      when j == 0
        | cell[p[j]] + 1         otherwise
`, []string{"order1d.dp:5:", "cell[5] reads cell[7] (p[5] = 7), which is not computed yet: it is on front t = j = 7, after the front of cell[5] (5)"}},
	}
	for _, c := range cases {
		p, pl, err := dptest.TryLoad(t, c.name+".dp", c.src)
		if err != nil && c.name == "order1d" {
			t.Logf("1-D grids skipped: the front end does not read them: %v", err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, v := range frontVariants {
			_, err := runGPU(t, e, p, pl, v)
			checkDeviceError(t, c.name+"/"+v.name, err, c.want)
		}
	}
	// +2e9 and -2e9 in turn never leave int in order, though a warp's
	// lane 0 takes only the +2e9 terms: the CPU's value, no overflow.
	p, pl := dptest.Load(t, "sumreturns.dp", `problem sumreturns
1 x 80
cell[i][j] = 0                                                                   when j == 0
           | sum(k in 0..j-1: k % 2 == 0 ? 2000000000 : -2000000000) + (max(q in 0..j-1: cell[i][q]) > 5 ? 1 : 0)   otherwise
answer: cell[0][COLS-1]
`)
	for _, v := range frontVariants {
		res, err := runGPU(t, e, p, pl, v)
		if err != nil || answerOf(res) != 2000000001 {
			t.Errorf("sumreturns/%s: %v, %v (want 2000000001)", v.name, res, err)
		}
	}
	// The executor keeps working after a device error.
	fp := nussinovProblem(dptest.Rand(t), 50)
	p, pl = dptest.Load(t, "nussinov.dp", fp.src, dptest.Files(fp.files))
	if res, err := e.Run(context.Background(), p, pl, backend.Options{}); err != nil || answerOf(res) != fp.ans {
		t.Errorf("after the errors: %v, %v (want %v)", res, err, fp.ans)
	}
}

// TestFrontCancel stops a generic run through its context.
func TestFrontCancel(t *testing.T) {
	e := executor(t)
	fp := matrixChainProblem(dptest.Rand(t), 3000)
	p, pl := dptest.Load(t, "mc.dp", fp.src, dptest.Files(fp.files))
	cancelMidway(t, e, p, pl, backend.Options{})
	cancelMidway(t, e, p, pl, backend.Options{Maintain: true})
}

// TestFrontDeviceNeed: the memory a generic run checks before allocating
// counts the grid and its transposed copy. It needs no GPU.
func TestFrontDeviceNeed(t *testing.T) {
	p := &ir.Problem{Name: "g", Rows: 3000, Cols: 3000, CellType: ir.Long}
	grid := int64(3000 * 3000 * 8)
	for _, tc := range []struct {
		mirror bool
		answer codegen.AnswerMode
		want   int64
	}{
		{true, codegen.AnswerCell, 2 * grid},
		{false, codegen.AnswerCell, grid},
		{false, codegen.AnswerRegion, grid + regionBlocks*codegen.PartBytes},
	} {
		prog := &codegen.Program{Kernel: codegen.KernelFront, Rows: 3000, Cols: 3000, Cell: ir.Long, Mirror: tc.mirror, Answer: tc.answer}
		r := &run{e: &Executor{cfg: config{stageMB: 32}}, p: p, prog: prog, pl: &plan.Plan{Schedule: plan.Interval}}
		if got := r.deviceNeed(); got != tc.want {
			t.Errorf("mirror %v answer %v: device need %d, want %d", tc.mirror, tc.answer, got, tc.want)
		}
	}
}

// peerSeconds are the hand-written warp-per-cell interval kernels of
// bench/peers on the H100 (the triangle mirrored; issue #10): the times the
// generated front kernel is measured against.
var peerSeconds = map[string]float64{
	"nussinov 4096": 0.032, "nussinov 8192": 0.318,
	"matrixchain 4096": 0.110, "matrixchain 8192": 0.679,
}

// TestPerfInterval times Nussinov (int) and matrix chain (long) at n =
// 4096 and 8192 on the front kernel (warm-up, median of 3), with the host
// choosing the spread per front and with a warp per cell forced, and
// prints each against the hand-written warp-per-cell kernel.
func TestPerfInterval(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	r := dptest.Rand(t)
	var rows []perfRow
	var ratios []string
	for _, n := range []int{4096, 8192} {
		n /= int(scale)
		for _, mk := range []func(*rand.Rand, int) frontProblem{nussinovProblem, matrixChainProblem} {
			fp := mk(r, n)
			p, pl := dptest.Load(t, fp.name+".dp", fp.src, dptest.Files(fp.files))
			variants := []struct {
				name string
				cg   codegen.Options
			}{{"auto", codegen.Options{}}, {"warp", codegen.Options{Spread: codegen.SpreadWarp}}}
			if os.Getenv("DPGPU_PERF_TUNE") != "" {
				// The knobs of the front kernel, for tuning.
				variants = append(variants, []struct {
					name string
					cg   codegen.Options
				}{{"unroll2", codegen.Options{SplitUnroll: 2}}, {"unroll8", codegen.Options{SplitUnroll: 8}},
					{"fill1024", codegen.Options{FillThreads: 1024}}, {"fill4096", codegen.Options{FillThreads: 4096}},
					{"blocks256", codegen.Options{BlockThreads: 256}}, {"no-mirror", codegen.Options{NoMirror: true}}}...)
			}
			for _, v := range variants {
				row := measure(t, e, fmt.Sprintf("interval %s %d %s", fp.name, n, v.name), p, pl, v.cg, backend.Options{}, 3)
				if fp.want != nil && row.answer.Float64() != fp.ans {
					t.Errorf("%s: answer %v, want %v", row.name, row.answer, fp.ans)
				}
				if v.name != "auto" && row.answer != rows[len(rows)-1].answer {
					t.Errorf("%s: answer %v, but %v with %s", row.name, row.answer, rows[len(rows)-1].answer, rows[len(rows)-1].name)
				}
				rows = append(rows, row)
				if peer, ok := peerSeconds[fmt.Sprintf("%s %d", fp.name, n)]; ok && scale == 1 {
					ratios = append(ratios, fmt.Sprintf("interval ratio %s %d %s: %.2fx the warp-per-cell peer (%.3f s against %.3f s on the H100)",
						fp.name, n, v.name, peer/row.compute, row.compute, peer))
				}
			}
		}
	}
	printTable(t, rows)
	for _, s := range ratios {
		fmt.Println(s)
	}
}

// TestFronts3 runs 3-D grids on hyperplanes over the three axes
// (dptest.Hyper3Cases: the planner's and forced fronts) with every
// variant against the plain loops' whole grid, and the three-string LCS
// at 200 (fronts of up to 30,000 cells) against the triple loop.
func TestFronts3(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	inf, _ := ir.ArithSentinels(ir.Long)
	for _, n := range []int{1, 2, 5, 17, 40} {
		for _, hc := range dptest.Hyper3Cases(r, n) {
			p, pl := dptest.Load(t, "h3.dp", hc.Src)
			if n >= 5 && !pl.T.Three() {
				t.Errorf("%s n=%d: fronts %+v, not over the three axes", hc.Name, n, pl.T)
			}
			flat := hc.Flat()
			want := dptest.NewGrid(len(flat), len(flat[0]))
			for k, row := range flat {
				for J, v := range row {
					if v == dptest.NoEdge {
						v = inf
					}
					want[k][J] = float64(v)
				}
			}
			ans := want[pl.Answer.I][pl.Answer.J]
			for _, v := range frontVariants {
				name := fmt.Sprintf("%s-%d/%s", strings.ReplaceAll(hc.Name, " ", "_"), n, v.name)
				t.Run(name, func(t *testing.T) {
					res, err := runGPU(t, e, p, pl, v)
					if err != nil {
						t.Fatal(err)
					}
					if got := answerOf(res); got != ans {
						t.Errorf("answer %v, want %v", got, ans)
					}
					if v.maintain {
						checkGrid(t, name, res.Grid, want, 0)
					}
				})
			}
		}
	}
	a, b, c := dptest.String(r, 200, "ACGT"), dptest.String(r, 190, "ACGT"), dptest.String(r, 210, "ACGT")
	p, pl := dptest.Load(t, "lcs3.dp", dptest.LCS3(a, b, c))
	res, err := e.Run(context.Background(), p, pl, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := answerOf(res), float64(dptest.LCS3Length(a, b, c)); got != want {
		t.Errorf("lcs3 200 x 190 x 210 (%s): %v, want %v", pl.T.In(p), got, want)
	}
}

// TestRandom3DFronts: random recurrences of 3-D grids (dptest.NewRandom3)
// whose plan is a 3-D hyperplane, on the front kernel with the grid kept
// (a thread per cell and a warp per cell), against the memoised
// recursion's grid.
func TestRandom3DFronts(t *testing.T) {
	e := executor(t)
	inf, _ := ir.ArithSentinels(ir.Int)
	n := 0
	dptest.EachRandom3(t, rand.New(rand.NewPCG(7, 3)), 30, func(rc dptest.Random3, p *ir.Problem, pl *plan.Plan) {
		n++
		want := dptest.NewGrid(rc.K, rc.R*rc.C)
		for k, plane := range rc.Want {
			for x, v := range plane {
				if v == dptest.NoEdge {
					v = inf
				}
				want[k][x] = float64(v)
			}
		}
		for _, v := range []variant{
			{name: "maintain", maintain: true},
			{name: "warp", cg: codegen.Options{Spread: codegen.SpreadWarp}, maintain: true},
		} {
			name := fmt.Sprintf("%d-%s", n, v.name)
			res, err := runGPU(t, e, p, pl, v)
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, rc.Src)
			}
			checkGrid(t, name+" ("+pl.T.In(p)+")\n"+rc.Src, res.Grid, want, 0)
		}
	})
}
