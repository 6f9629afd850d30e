package codegen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The front kernel's tests run each generic-schedule program on the
// emulation several times, once per spread (a thread, a warp or a block
// per cell for every front, and the host's own choice per front), and
// compare every cell with a plain-Go DP written here. The spread is the
// host's choice at launch time, so one compiled program serves all of
// them.

// frontSpreads are the sweeps each program runs: every front with one
// spread, then as FrontSpread picks (with emuSMs multiprocessors).
var frontSpreads = []Spread{SpreadThread, SpreadWarp, SpreadBlock, SpreadAuto}

// emuSMs is the multiprocessor count FrontSpread assumes in the emulation.
const emuSMs = 1

// emuFrontOpt keeps the emulated blocks small: every GPU thread is a host
// thread.
var emuFrontOpt = Options{FrontThreads: 32, WarpThreads: 64, BlockThreads: 64}

// frontHarness writes main() for a front program: one sweep per spread,
// each on a poisoned grid, printing RUN k before what emulate parses.
func frontHarness(prog *Program, spreads []Spread) string {
	var b strings.Builder
	b.WriteString("\nint main() {\n")
	b.WriteString(inputSetup(prog))
	b.WriteString("\tconst long long R = DP_ROWS, C = DP_COLS;\n\tstd::vector<cell_t> G(R * C), GT(R * C);\n\tstatic dp_part_t parts[64];\n")
	b.WriteString(captureDecls(prog))
	for r, s := range spreads {
		fmt.Fprintf(&b, "\t{ // sweep %d: %s\n", r, s)
		b.WriteString("\t\tmemset(&dp_err, 0, sizeof dp_err);\n\t\tmemset(&dp_ans, 0, sizeof dp_ans);\n\t\tmemset(parts, 0, sizeof parts);\n")
		b.WriteString("\t\tmemset(G.data(), 0x5a, G.size() * sizeof(cell_t));\n\t\tmemset(GT.data(), 0xa5, GT.size() * sizeof(cell_t));\n")
		// The host's launch sequence, with this sweep's spread.
		sweep := *prog
		sweep.Spread = s
		sweep.FrontLaunches(emuSMs, func(l FrontLaunch) error {
			if l.Range {
				fmt.Fprintf(&b, "\t\temu_launch_fibers(%d, %d, [&] { %s(%dLL, %dLL, G.data(), GT.data()); });\n", l.Blocks, l.Threads, l.Func, l.T, l.T1)
			} else {
				fmt.Fprintf(&b, "\t\temu_launch_fibers(%d, %d, [&] { %s(%dLL, %dLL, %dLL, G.data(), GT.data()); });\n", l.Blocks, l.Threads, l.Func, l.T, l.I0, l.Cells)
			}
			return nil
		})
		b.WriteString(`#if DP_ANS_KIND == 2
		emu_launch_fibers(2, 64, [&] { dp_region(G.data(), parts); });
#endif
		if (ncap > 0)
			emu_launch_fibers((unsigned)((ncap + 63) / 64), 64, [&] { dp_gather(G.data(), cap, capv, ncap); });
#if DP_MIRROR
		for (long long i = 0; i < R; ++i)
			for (long long j = 0; j < C; ++j)
				if (memcmp(&G[i * C + j], &GT[j * R + i], sizeof(cell_t)) != 0) {
					printf("MIRROR %lld %lld\n", i, j);
					i = R;
					break;
				}
#endif
`)
		fmt.Fprintf(&b, "\t\tprintf(\"RUN %d\\n\");\n", r)
		b.WriteString(`		printf("ANS %.17g\n", (double)dp_ans);
#if !DP_CELL_FLOAT
		printf("ANSI %lld\n", (long long)dp_ans);
#endif
		printf("ERR %d %d %lld %lld %lld %lld\n", dp_err.code, dp_err.site, dp_err.i, dp_err.j, dp_err.a, dp_err.b);
		printf("PARTS");
		for (int k = 0; k < 64; ++k)
			if (parts[k].any)
				printf(" %lld %lld %.17g", parts[k].idx, parts[k].iv, parts[k].fv);
		printf("\nCAP");
		for (int k = 0; k < ncap; ++k)
			printf(" %.17g", (double)capv[k]);
		printf("\nGRID");
		for (long long k = 0; k < R * C; ++k)
			printf(" %.17g", (double)G[k]);
		printf("\n");
	}
`)
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}

// frontCase is a generic-schedule problem and what every sweep must give.
type frontCase struct {
	name string
	src  string
	opt  Options
	// want is the whole grid; ans the answer (dp_ans, the region's best
	// value or the captured cells' first).
	want [][]float64
	ans  float64
	tol  float64
	// A device error every sweep must report instead (code 0: none): its
	// code, site (-1: any site of errKind) and the cell being computed.
	err     [2]int64
	errAt   [2]int64
	errRead [2]int64 // ErrCell, ErrOrder: the cell read
	errKind SiteKind
	// schedule, when set, is the plan the problem must get.
	schedule plan.Kind
}

// run generates the program, emulates every sweep and checks them.
func (c frontCase) run(t *testing.T) *Program {
	t.Helper()
	opt := c.opt
	if opt.FrontThreads == 0 {
		opt.FrontThreads, opt.WarpThreads, opt.BlockThreads = emuFrontOpt.FrontThreads, emuFrontOpt.WarpThreads, emuFrontOpt.BlockThreads
	}
	p, pl := dptest.Load(t, c.name+".dp", c.src)
	if !pl.Schedule.Generic() || (c.schedule != "" && pl.Schedule != c.schedule) {
		t.Fatalf("schedule %s (%s), want a generic one %s", pl.Schedule, pl.T, c.schedule)
	}
	prog, err := Generate(p, pl, opt)
	if err != nil {
		t.Fatal(err)
	}
	if prog.Kernel != KernelFront {
		t.Fatalf("kernel %s, want %s", prog.Kernel, KernelFront)
	}
	out := runEmu(t, prog.Name, prog.Source+frontHarness(prog, frontSpreads))
	if strings.Contains(out, "MIRROR") {
		t.Errorf("the transposed copy differs from the grid: %s", out[strings.Index(out, "MIRROR"):][:40])
	}
	runs := strings.Split(out, "RUN ")[1:]
	if len(runs) != len(frontSpreads) {
		t.Fatalf("%d sweeps ran, want %d:\n%s", len(runs), len(frontSpreads), out)
	}
	for k, text := range runs {
		name := c.name + "/" + frontSpreads[k].String()
		res := parseEmu(t, text[strings.IndexByte(text, '\n')+1:])
		if c.err[0] != 0 {
			siteOK := res.err[1] == c.err[1]
			if c.err[1] < 0 {
				site := int(res.err[1])
				siteOK = site >= 0 && site < len(prog.Sites) && prog.Sites[site].Kind == c.errKind
			}
			readOK := c.errRead == [2]int64{} || (res.err[4] == c.errRead[0] && res.err[5] == c.errRead[1])
			if res.err[0] != c.err[0] || !siteOK || res.err[2] != c.errAt[0] || res.err[3] != c.errAt[1] || !readOK {
				t.Errorf("%s: device error %v, want code %d site %d at %v reading %v", name, res.err, c.err[0], c.err[1], c.errAt, c.errRead)
			}
			continue
		}
		if res.err[0] != 0 {
			t.Errorf("%s: device error %v", name, res.err)
			continue
		}
		switch prog.Answer {
		case AnswerCell:
			if !close(res.ans, c.ans, c.tol) {
				t.Errorf("%s: answer %v, want %v", name, res.ans, c.ans)
			}
		case AnswerRegion:
			var best [4]float64
			for k, p := range res.parts {
				if k == 0 || p[1] > best[1] || (p[1] == best[1] && p[0] < best[0]) {
					best = p
				}
			}
			if len(res.parts) == 0 || best[1] != c.ans {
				t.Errorf("%s: region best %v (parts %v), want %v", name, best[1], res.parts, c.ans)
			}
		case AnswerCapture:
			if len(res.caps) == 0 || !close(res.caps[0], c.ans, c.tol) {
				t.Errorf("%s: captured %v, want %v first", name, res.caps, c.ans)
			}
		}
		compareGrid(t, name, res.grid, c.want, c.tol)
	}
	return prog
}

// ---- plain-Go references ----

// refMatrixChain is the matrix-chain grid of dims (matrix t is dims[t] x
// dims[t+1]): cell (i, j) the fewest multiplications for matrices i..j, 0
// on and below the diagonal.
func refMatrixChain(dims []int64) [][]float64 {
	n := len(dims) - 1
	g := grid(n, n)
	c := make([][]int64, n)
	for i := range c {
		c[i] = make([]int64, n)
	}
	for d := 1; d < n; d++ {
		for i := 0; i+d < n; i++ {
			j := i + d
			best := int64(math.MaxInt64)
			for k := i; k < j; k++ {
				best = min(best, c[i][k]+c[k+1][j]+dims[i]*dims[k+1]*dims[j+1])
			}
			c[i][j] = best
			g[i][j] = float64(best)
		}
	}
	return g
}

func matrixChainCase(n int, seed uint64) frontCase { return matrixChainTyped(n, seed, "long") }

// matrixChainTyped is matrix chain with cells of type cell (long or
// double: every cost is an integer below 2^53).
func matrixChainTyped(n int, seed uint64, cell string) frontCase {
	r := &rng{seed}
	dims := make([]int64, n+1)
	for k := range dims {
		dims[k] = 1 + r.intn(100)
	}
	g := refMatrixChain(dims)
	src := fmt.Sprintf(`problem matrixchain
%[2]s 1x? d = %[1]s
(len(d)-1) x (len(d)-1)
cell: %[2]s
cell[i][j] = 0                                                        when i >= j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1])   otherwise
`, ints(dims), cell)
	name := fmt.Sprintf("matrixchain-%d", n)
	if cell != "long" {
		name = fmt.Sprintf("matrixchain-%s-%d", cell, n)
	}
	return frontCase{name: name, src: src, want: g, ans: g[0][n-1], schedule: intervalFrom(n)}
}

// intervalFrom is the schedule an n x n interval DP must get: interval
// order, except on grids so small that other orders serve as well.
func intervalFrom(n int) plan.Kind {
	if n < 4 {
		return ""
	}
	return plan.Interval
}

func rnaSeq(n int, seed uint64) string {
	r := &rng{seed}
	b := make([]byte, n)
	for k := range b {
		b[k] = "ACGU"[r.intn(4)]
	}
	return string(b)
}

func nussinovCase(n int, seed uint64) frontCase {
	s := rnaSeq(n, seed)
	g := dptest.NussinovGrid(s)
	src := fmt.Sprintf(`problem nussinov
char 1x? s = %q
len(s) x len(s)
cell[i][j] = 0                                                         when j <= i
           | max(max(k in i..j-1: cell[i][k] + cell[k+1][j]), (s[i] == 'A' && s[j] == 'U') || (s[i] == 'U' && s[j] == 'A') || (s[i] == 'G' && s[j] == 'C') || (s[i] == 'C' && s[j] == 'G') || (s[i] == 'G' && s[j] == 'U') || (s[i] == 'U' && s[j] == 'G') ? cell[i+1][j-1] + 1 : 0)   otherwise
answer: cell[0][COLS-1]
`, s)
	return frontCase{name: fmt.Sprintf("nussinov-%d", n), src: src, want: g, ans: g[0][n-1], schedule: intervalFrom(n)}
}

// refLIS is the longest increasing subsequence ending at each element.
func refLIS(a []int64) [][]float64 {
	g := grid(1, len(a))
	for j := range a {
		g[0][j] = 1
		for k := 0; k < j; k++ {
			if a[k] < a[j] {
				g[0][j] = math.Max(g[0][j], g[0][k]+1)
			}
		}
	}
	return g
}

func lisCase(n int, seed uint64) frontCase {
	r := &rng{seed}
	a := make([]int64, n)
	for k := range a {
		a[k] = r.intn(50)
	}
	g := refLIS(a)
	best := 0.0
	for _, v := range g[0] {
		best = math.Max(best, v)
	}
	src := fmt.Sprintf(`problem lis
int 1x? a = %s
1 x len(a)
cell[i][j] = 1                                                      when j == 0
           | 1 + max(k in 0..j-1: a[k] < a[j] ? cell[i][k] : 0)     otherwise
answer: max(j in 0..COLS-1: cell[0][j])
`, ints(a))
	return frontCase{name: fmt.Sprintf("lis-%d", n), src: src, want: g, ans: best}
}

// refCoins is the fewest coins of c summing to s (inf, as int's sentinel
// 2^31-1, where none do).
func refCoins(c []int64, amount int) [][]float64 {
	const inf = math.MaxInt32
	g := grid(1, amount+1)
	for s := 1; s <= amount; s++ {
		best := float64(inf)
		for _, x := range c {
			if x <= int64(s) && g[0][s-int(x)] != inf {
				best = math.Min(best, g[0][s-int(x)]+1)
			}
		}
		g[0][s] = best
	}
	return g
}

func coinCase(n int, seed uint64) frontCase {
	r := &rng{seed}
	c := []int64{3 + r.intn(3), 7 + r.intn(5), 13 + r.intn(9), 4}
	g := refCoins(c, n-1)
	src := fmt.Sprintf(`problem coins
int 1x? c = %s
int amount = %d
1 x (amount+1)
cell[i][s] = 0                                                       when s == 0
           | min(k in 0..len(c)-1: c[k] <= s ? cell[i][s-c[k]] + 1 : inf)   otherwise
answer: cell[0][COLS-1] + 0
`, ints(c), n-1)
	return frontCase{name: fmt.Sprintf("coins-%d", n), src: src, want: g, ans: g[0][n-1]}
}

func rowsCase(n int, seed uint64) frontCase {
	r := &rng{seed}
	w := make([]int64, n+3)
	for k := range w {
		w[k] = r.intn(1000)
	}
	g := dptest.RowSums(w, n)
	src := fmt.Sprintf("problem rowsums\nint 1x? w = %s\n%d x len(w)\n", ints(w), n) + dptest.RowSumsRecurrence
	return frontCase{name: fmt.Sprintf("rows-%d", n), src: src, want: g, ans: g[n-1][len(w)-1]}
}

// TestEmulatedFronts runs the generic schedules' problems at awkward sizes
// with every spread. Each case compiles a C++ program (seconds): by
// default a few sizes of each run; DPGPU_EMU_ALL=1 runs every problem at
// 1, 2, 3, 17 and 100.
func TestEmulatedFronts(t *testing.T) {
	emuCompiler(t)
	all := os.Getenv("DPGPU_EMU_ALL") != ""
	quick := map[string]bool{"matrixchain-1": true, "matrixchain-17": true, "matrixchain-100": true, "nussinov-2": true, "nussinov-100": true,
		"rows-3": true, "rows-17": true, "lis-17": true, "coins-2": true, "matrixchain-double-40": true,
		"boolparen-17": true, "tableschain-17": true, "far-17": true, "nlis-17": true}
	var cases []frontCase
	for k, n := range []int{1, 2, 3, 17, 100} {
		seed := uint64(k + 1)
		cases = append(cases, matrixChainCase(n, seed), nussinovCase(n, seed), rowsCase(n, seed), lisCase(n, seed), coinCase(n, seed))
	}
	cases = append(cases, matrixChainTyped(40, 9, "double"), matrixChainTyped(100, 12, "double"))
	// Interval DP over several tables (flat fronts t = J - T*i).
	for _, n := range []int{1, 17} {
		r := rand.New(rand.NewPCG(uint64(n), 5))
		src, g, ans := dptest.BoolParen(r, n)
		cases = append(cases, frontCase{name: fmt.Sprintf("boolparen-%d", n), src: src, want: g, ans: ans})
		src, g, ans = dptest.TablesChain(r, n, 4)
		cases = append(cases, frontCase{name: fmt.Sprintf("tableschain-%d", n), src: src, want: g, ans: ans})
	}
	// Reads past the small coefficients (t = (k+1)*i + j), and a 1-D grid
	// of two tables.
	for _, n := range []int{2, 17} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		src, g, ans := dptest.FarReads(r, max(n/2, 1), n+3)
		cases = append(cases, frontCase{name: fmt.Sprintf("far-%d", n), src: src, want: g, ans: ans})
		// The harness checks an answer of one cell: the last count.
		tc := dptest.NumberOfLIS(r, n)
		src = regexp.MustCompile(`(?m)^answer:.*$`).ReplaceAllString(tc.Src, "answer: N[len(a)-1]")
		cases = append(cases, frontCase{name: fmt.Sprintf("nlis-%d", n), src: src, want: tc.Flat, ans: tc.Flat[0][2*n-1]})
	}
	if !all {
		var some []frontCase
		for _, c := range cases {
			if quick[c.name] {
				some = append(some, c)
			}
		}
		if len(some) != len(quick) {
			t.Fatalf("%d quick cases found, want %d", len(some), len(quick))
		}
		cases = some
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// sumReturns is the grid of the sum-returns case below: cell j > 0 is the
// sum of j terms +2e9, -2e9, ... (2e9 for odd j), plus 1 where an earlier
// cell is above 5.
func sumReturns(n int) [][]float64 {
	g := grid(1, n)
	for j := 1; j < n; j++ {
		v := 0.0
		if j%2 == 1 {
			v = 2e9
		}
		best := math.Inf(-1)
		for q := 0; q < j; q++ {
			best = math.Max(best, g[0][q])
		}
		if best > 5 {
			v++
		}
		g[0][j] = v
	}
	return g
}

// TestEmulatedFrontErrors: an overflow inside a reduction split over the
// lanes, a read outside the grid inside one, and a read that the planner
// could not prove to be of an earlier front, are reported with the cell
// by every spread.
func TestEmulatedFrontErrors(t *testing.T) {
	emuCompiler(t)
	cases := []frontCase{
		{
			// Ordered ways to pay s with coins 1 and 2: cell s is
			// fib(s+1), which leaves int at s = 46, where the lanes' two
			// partial sums are folded.
			name: "ways-overflow", src: `problem ways
int 1x? c = 1,2
1 x 61
cell[i][s] = 1                                                         when s == 0
           | sum(k in 0..len(c)-1: c[k] <= s ? cell[i][s-c[k]] : 0)     otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteInf, errAt: [2]int64{0, 46},
		},
		{
			// Interval cells of length L hold L * 3e8, past int at L = 8:
			// the front j - i = 7 overflows in the max of sums, whose
			// terms are summed unchecked and checked once (deferredAdd).
			name: "split-overflow", src: `problem split
int n = 12
n x n
cell[i][j] = 300000000                                                        when i == j
           | 0                                                                when i > j
           | max(cell[i][j-1], max(k in i..j-1: cell[i][k] + cell[k+1][j]))  otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{0, 7},
		},
		{
			// Terms of both signs, +2e9 then -2e9 in turn: in order the sum
			// never leaves int, but a warp's lane 0 takes k = 0, 32, 64,
			// ... (all +2e9): the lanes add unchecked and the sum is the
			// CPU's value, not an overflow (orderedSum).
			name: "sum-returns", src: `problem sumret
1 x 80
cell[i][j] = 0                                                                   when j == 0
           | sum(k in 0..j-1: k % 2 == 0 ? 2000000000 : -2000000000) + (max(q in 0..j-1: cell[i][q]) > 5 ? 1 : 0)   otherwise
answer: cell[0][COLS-1]
`, want: sumReturns(80), ans: sumReturns(80)[0][79],
		},
		{
			// +2e9, +2e9, -2e9, -2e9, ...: in order the second term
			// overflows (cell 2 on), whatever order the lanes add in.
			name: "sum-leaves", src: `problem sumleave
1 x 80
cell[i][j] = 0                                                                   when j == 0
           | sum(k in 0..j-1: k % 4 < 2 ? 2000000000 : -2000000000) + (max(q in 0..j-1: cell[i][q]) > 5 ? 1 : 0)   otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteInf, errAt: [2]int64{0, 2},
		},
		{
			// No guard: cell 1 reads before the first cell.
			name: "coins-outside", src: `problem coins
int 1x? c = 3,5
1 x 12
cell[i][s] = 0                                                   when s == 0
           | min(k in 0..len(c)-1: cell[i][s-c[k]] + 1)          otherwise
`, err: [2]int64{ErrCell, 0}, errAt: [2]int64{0, 1},
		},
		{
			// p[5] = 7: cell 5 reads cell 7, which is not computed yet.
			name: "order", src: `problem order
int 1x? p = 0,0,1,2,3,7,4,5,6
1 x len(p)
cell[i][j] = 1                         when j == 0
           | cell[i][p[j]] + 1         otherwise
`, err: [2]int64{ErrOrder, 0}, errAt: [2]int64{0, 5}, errRead: [2]int64{0, 7},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			prog := c.run(t)
			if c.name == "order" && !strings.Contains(prog.Source, "order = true") {
				t.Error("the data-dependent reference is not checked for its front")
			}
			if c.name == "split-overflow" && !strings.Contains(prog.Source, "unsigned acc") {
				t.Error("the max of sums is not checked once (deferredAdd)")
			}
		})
	}
}

// TestEmulatedFronts1D runs LIS written on a 1-D grid (contract v2 §7.1:
// `len(a)`, `cell[j]`), lowered to a 1 x N grid; it skips while the front
// end does not read 1-D grids.
func TestEmulatedFronts1D(t *testing.T) {
	emuCompiler(t)
	r := &rng{21}
	a := make([]int64, 37)
	for k := range a {
		a[k] = r.intn(30)
	}
	src := fmt.Sprintf(`problem lis1d
int 1x? a = %s
len(a)
cell[j] = 1                                              when j == 0
        | 1 + max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0)  otherwise
answer: max(j in 0..len(a)-1: cell[j])
`, ints(a))
	if _, _, err := dptest.TryLoad(t, "lis1d.dp", src); err != nil {
		t.Skipf("the front end does not run 1-D grids yet: %v", err)
	}
	g := refLIS(a)
	best := 0.0
	for _, v := range g[0] {
		best = math.Max(best, v)
	}
	frontCase{name: "lis1d", src: src, want: g, ans: best}.run(t)
}

// TestEmulatedFronts3: the front kernel runs 3-D grids on hyperplanes over
// the three axes (dptest.Hyper3Cases: a front launched as a line's width
// of slots for each k-plane, lines with a gcd, of one row, the whole
// plane, negative coefficients), with every spread, and gives the plain
// loops' whole grid.
func TestEmulatedFronts3(t *testing.T) {
	emuCompiler(t)
	inf, _ := ir.ArithSentinels(ir.Long)
	var cases []frontCase
	for _, n := range []int{2, 5} {
		r := rand.New(rand.NewPCG(uint64(n), 33))
		for _, hc := range dptest.Hyper3Cases(r, n) {
			_, pl := dptest.Load(t, "h3.dp", hc.Src)
			flat := hc.Flat()
			want := grid(len(flat), len(flat[0]))
			for k, row := range flat {
				for J, v := range row {
					if v == dptest.NoEdge {
						v = inf
					}
					want[k][J] = float64(v)
				}
			}
			if pl.Answer.Kind != plan.AnswerCell {
				t.Fatalf("%s: answer %v, want the last cell", hc.Name, pl.Answer.Kind)
			}
			cases = append(cases, frontCase{name: fmt.Sprintf("%s-%d", strings.ReplaceAll(hc.Name, " ", "_"), n), src: hc.Src, want: want, ans: want[pl.Answer.I][pl.Answer.J]})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			prog := c.run(t)
			if !prog.Front.Three() {
				t.Errorf("fronts %+v, not over the three axes", prog.Front)
			}
		})
	}
}

// TestEmulatedFronts3Enumerate: the front kernel's own line arithmetic
// (templates/front.cu dp_line) reaches every cell of a 3-D grid once under
// schedules forced on cells that read nothing — coefficients the recurrences
// of TestEmulatedFronts3 do not give: a line over j alone (M = 0), negative
// B, a gcd in a plane's line with negative terms.
func TestEmulatedFronts3Enumerate(t *testing.T) {
	emuCompiler(t)
	var cases []frontCase
	for _, h := range [][3]int{{1, 0, 1}, {0, 0, -1}, {-1, 3, -2}, {2, -3, 1}, {0, 2, 1}, {1, 2, -2}} {
		for _, sz := range [][3]int{{2, 3, 4}, {3, 1, 5}} {
			K, R, C := sz[0], sz[1], sz[2]
			want := grid(K, R*C)
			for k := 0; k < K; k++ {
				for x := 0; x < R*C; x++ {
					want[k][x] = float64(k*10000 + (x/C)*100 + x%C + 1)
				}
			}
			src := fmt.Sprintf("problem fill\nschedule: t = %d*k + %d*i + %d*j\n%d x %d x %d\ncell[k][i][j] = k * 10000 + i * 100 + j + 1\nanswer: cell[0][0][0]\n", h[0], h[1], h[2], K, R, C)
			cases = append(cases, frontCase{name: fmt.Sprintf("fill-%d_%d_%d-%dx%dx%d", h[0], h[1], h[2], K, R, C), src: src, want: want, ans: 1})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if prog := c.run(t); !prog.Front.Three() {
				t.Errorf("fronts %+v, not over the three axes", prog.Front)
			}
		})
	}
}
