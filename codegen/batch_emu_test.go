package codegen

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// batchCase is a batch of instances of one shape: their sources (the same
// problem with other data), the inputs that vary, and each instance's
// expected answer or device error code.
type batchCase struct {
	name    string
	srcs    []string
	vary    []string
	opt     Options
	ans     []float64
	errCode []int64 // 0: no error
	rpt     int     // the rows per thread the layout must choose (0: any)
	// profiles is how many input reads the program's profiles serve.
	profiles int
	// widest (with opt.BatchColumns) is the instance whose program runs
	// them all: the others have as many rows and at most its columns.
	widest int
	// globalRows: the program passes the rows between strips through
	// global memory (Program.BatchRowBytes).
	globalRows bool
	// packed: the program computes two instances a warp in 16-bit halves
	// (Program.BatchPacked; codegen/pack16.go), unless opt.BatchNoPack.
	packed bool
}

// batchHarness writes main() for the batch program prog over the
// instances ps (planned as pls): every instance's varying inputs one after
// another (padded to the program's lengths), the shared ones once, one
// launch, and a line per instance: its error code and its answer (the
// cell, or the region's partial result).
func batchHarness(prog *Program, ps []*ir.Problem, pls []*plan.Plan) string {
	n := len(ps)
	var b strings.Builder
	b.WriteString("\nint main() {\n")
	b.WriteString("\tstatic unsigned long long bptr[DP_NBPTR];\n")
	for k := range prog.Inputs {
		in := &prog.Inputs[k]
		et := elemCType(in)
		if !in.PerInstance {
			fmt.Fprintf(&b, "\tstatic const %s in%d[] = {%s};\n\tbptr[%d] = (unsigned long long)(uintptr_t)in%d;\n", et, k, cLiteral(in), k, k)
			continue
		}
		var all []string
		for _, p := range ps {
			mine := &Input{In: p.Inputs[k], Len: int64(p.Inputs[k].Len())}
			var vals []string
			if mine.Len > 0 {
				vals = append(vals, cLiteral(mine))
			}
			// 'A': were the columns past the instance's computed, their
			// matches would change a local alignment's best cell.
			for x := mine.Len; x < max(in.Len, 1); x++ {
				vals = append(vals, "65")
			}
			all = append(all, strings.Join(vals, ","))
		}
		fmt.Fprintf(&b, "\tstatic const %s in%d[] = {%s};\n\tbptr[%d] = (unsigned long long)(uintptr_t)in%d;\n", et, k, strings.Join(all, ","), k, k)
	}
	var cols, ansj []string
	for k, p := range ps {
		cols = append(cols, strconv.FormatInt(p.Cols, 10))
		ansj = append(ansj, strconv.FormatInt(pls[k].Answer.J, 10))
	}
	fmt.Fprintf(&b, "\tconst long long N = %d;\n", n)
	fmt.Fprintf(&b, "\tstatic const int cols[] = {%s};\n\tstatic const int ansj[] = {%s};\n", strings.Join(cols, ","), strings.Join(ansj, ","))
	b.WriteString(`	static int berr[N];
	static cell_t ans[N];
	static dp_part_t part[N];
	for (long long k = 0; k < N; ++k) dp_part_init(part[k]);
	bptr[DP_NBPTR - 1] = (unsigned long long)(uintptr_t)berr;
	static cell_t grows[DP_BGLOBAL ? N * 2 * DP_PI1 * DP_BCOLS : 1];
	emu_launch((unsigned)((N + DP_BW - 1) / DP_BW), DP_BW * 32, [&] { dp_batch(N, ans, part, cols, ansj, bptr, grows); });
	for (long long k = 0; k < N; ++k) {
#if DP_ANS_KIND == 1
		printf("INST %lld %d %.17g\n", k, berr[k], (double)ans[k]);
#else
		printf("INST %lld %d %.17g\n", k, berr[k], (double)DP_PART_V(part[k]));
#endif
	}
	return 0;
}
`)
	return b.String()
}

func (c batchCase) run(t *testing.T) {
	opt := c.opt
	opt.Batch, opt.BatchInputs = true, c.vary
	var prog *Program
	var ps []*ir.Problem
	var pls []*plan.Plan
	for k, src := range c.srcs {
		p, pl := dptest.Load(t, c.name+".dp", src)
		ps, pls = append(ps, p), append(pls, pl)
		if opt.BatchColumns && k != c.widest {
			continue // the widest instance's program runs them all
		}
		got, err := Generate(p, pl, opt)
		if err != nil {
			t.Fatalf("generate %s: %v", c.name, err)
		}
		if got.Kernel != KernelBatch {
			t.Fatalf("kernel %s, want batch", got.Kernel)
		}
		if prog != nil && got.Source != prog.Source {
			t.Fatalf("instance %d of one shape has another program", k)
		}
		prog = got
	}
	if c.rpt > 0 && prog.RowsPerThread != c.rpt {
		t.Fatalf("%d rows per thread, want %d", prog.RowsPerThread, c.rpt)
	}
	if (prog.BatchRowBytes > 0) != c.globalRows {
		t.Fatalf("rows between strips in global memory: %v, want %v", prog.BatchRowBytes > 0, c.globalRows)
	}
	if want := c.packed && !opt.BatchNoPack; prog.BatchPacked != want {
		t.Fatalf("packed %v (%s), want %v", prog.BatchPacked, prog.BatchUnpacked, want)
	}
	if prog.BatchProfiles != c.profiles {
		t.Fatalf("%d profiles, want %d", prog.BatchProfiles, c.profiles)
	}
	out := runEmu(t, prog.Name, prog.Source+batchHarness(prog, ps, pls))
	seen := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "INST" {
			continue
		}
		k, _ := strconv.Atoi(f[1])
		code, _ := strconv.ParseInt(f[2], 10, 64)
		v, _ := strconv.ParseFloat(f[3], 64)
		seen++
		var wantCode int64
		if c.errCode != nil {
			wantCode = c.errCode[k]
		}
		if code != wantCode {
			t.Errorf("instance %d: error code %d, want %d", k, code, wantCode)
			continue
		}
		if code == 0 && v != c.ans[k] {
			t.Errorf("instance %d: answer %v, want %v", k, v, c.ans[k])
		}
	}
	if seen != len(c.srcs) {
		t.Fatalf("%d instances reported, want %d:\n%s", seen, len(c.srcs), out)
	}
}

// TestEmulatedBatch runs batch programs in the emulation against the
// plain-Go references: one strip and several (rows over 256), rows per
// thread from 1 to 8, a region answer, a backward sweep, offsets of three
// columns, more instances than a block's warps, and instances that fail
// while their neighbours do not.
func TestEmulatedBatch(t *testing.T) {
	emuCompiler(t)
	family := func(name string, n int, opt Options, vary []string, mk func(k int) emuCase) batchCase {
		c := batchCase{name: name, opt: opt, vary: vary}
		for k := range n {
			e := mk(k)
			c.srcs = append(c.srcs, e.src)
			c.ans = append(c.ans, e.ans)
		}
		return c
	}
	ab := []string{"A", "B"}
	cases := []batchCase{
		family("edit-45x70", 11, Options{}, ab, func(k int) emuCase {
			return editCase(randSeq(45, uint64(100+k)), randSeq(70, uint64(200+k)), KernelStrip)
		}),
		family("edit-1x1", 3, Options{}, ab, func(k int) emuCase {
			return editCase(randSeq(1, uint64(10+k)), randSeq(1, uint64(20+k)), KernelStrip)
		}),
		family("edit-0x5", 2, Options{}, ab, func(k int) emuCase {
			return editCase("", randSeq(5, uint64(30+k)), KernelStrip)
		}),
		// 301 rows: two strips of 160 rows (5 a lane).
		family("lcs-300x97", 9, Options{}, ab, func(k int) emuCase {
			a, b := randSeq(300, uint64(300+k)), randSeq(97, uint64(400+k))
			return emuCase{src: lcsText(a, b), ans: refLCS(a, b)[300][97]}
		}),
		// 600 rows: three strips of 224 rows (7 a lane).
		family("lcs-599x40", 3, Options{}, ab, func(k int) emuCase {
			a, b := randSeq(599, uint64(500+k)), randSeq(40, uint64(600+k))
			return emuCase{src: lcsText(a, b), ans: refLCS(a, b)[599][40]}
		}),
		family("sw-60x33", 10, Options{}, ab, func(k int) emuCase {
			return swCase(randSeq(60, uint64(700+k)), randSeq(33, uint64(800+k)), KernelStrip)
		}),
		family("backward-40x300", 2, Options{}, nil, func(k int) emuCase { return backwardCase(40, 300, KernelStrip) }),
		family("wide-67x41", 3, Options{}, []string{"W"}, func(k int) emuCase { return wideCase(67, 41, uint64(900+k)) }),
		family("wide-300x20", 2, Options{}, []string{"W"}, func(k int) emuCase { return wideCase(300, 20, uint64(950+k)) }),
		// Gotoh's three tables a cell (Program.Tables): a cell answer, one
		// in a table other than the last, regions of one table; one strip
		// and two (rows over 128: at most 4 a lane).
		family("gotoh-45x70", 9, Options{}, ab, func(k int) emuCase {
			return affineCase(randSeq(45, uint64(1000+k)), randSeq(70, uint64(1100+k)), "global", 0, 0)
		}),
		family("gotohY-200x33", 3, Options{}, ab, func(k int) emuCase {
			return affineCase(randSeq(200, uint64(1200+k)), randSeq(33, uint64(1300+k)), "globalY", 0, 0)
		}),
		family("gotoh-local-150x60", 5, Options{}, ab, func(k int) emuCase {
			return affineCase(randSeq(150, uint64(1400+k)), randSeq(60, uint64(1500+k)), "local", 0, 0)
		}),
		family("semiglobal-30x90", 4, Options{}, ab, func(k int) emuCase {
			return affineCase(randSeq(30, uint64(1600+k)), randSeq(90, uint64(1700+k)), "semi", 0, 0)
		}),
	}
	cases[0].rpt, cases[3].rpt, cases[4].rpt = 2, 5, 7
	// A division by an input value: the instances whose divisor is 0
	// fail, their neighbours in the same warps' block do not.
	div := batchCase{name: "div", vary: []string{"D"}}
	for k := range 12 {
		d := make([]int64, 20)
		for x := range d {
			d[x] = int64(x%5 + 1)
		}
		code := int64(0)
		if k%4 == 1 {
			d[7+k%3] = 0
			code = ErrDivZero
		}
		g := grid(20, 30)
		for i := range 20 {
			for j := range 30 {
				v := 0.0
				if d[i] != 0 {
					v = float64(1000 / d[i])
				}
				if i > 0 {
					v += g[i-1][j]
				}
				if j > 0 {
					v = max(v, g[i][j-1])
				}
				g[i][j] = v
			}
		}
		div.srcs = append(div.srcs, fmt.Sprintf(`problem div
int 1x20 D = %s
20 x 30
cell[i][j] = max((i > 0 ? cell[i-1][j] : 0) + 1000 / D[i], j > 0 ? cell[i][j-1] : 0)
`, ints(d)))
		div.ans = append(div.ans, g[19][29])
		div.errCode = append(div.errCode, code)
	}
	cases = append(cases, div)
	// Instances of other column counts than the program's (BatchColumns):
	// one B of each length from 0 to 70 against a 45-character A, the
	// 70-character one's program running them all; a local alignment
	// (a region answer) of 33 rows against 1 to 300 columns.
	cols := batchCase{name: "edit-columns", opt: Options{BatchColumns: true}, vary: ab}
	for k := 0; k <= 70; k += 3 {
		e := editCase(randSeq(45, 1000), randSeq(k, uint64(1100+k)), KernelStrip)
		cols.srcs, cols.ans = append(cols.srcs, e.src), append(cols.ans, e.ans)
		if k == 69 {
			cols.widest = len(cols.srcs) - 1
		}
	}
	swCols := batchCase{name: "sw-columns", opt: Options{BatchColumns: true}, vary: ab}
	for k, m := range []int{300, 1, 17, 31, 32, 33, 150, 299} {
		e := swCase(randSeq(33, uint64(1200+k)), randSeq(m, uint64(1300+k)), KernelStrip)
		swCols.srcs, swCols.ans = append(swCols.srcs, e.src), append(swCols.ans, e.ans)
	}
	tallCols := batchCase{name: "lcs-columns-300rows", opt: Options{BatchColumns: true}, vary: ab}
	for k, m := range []int{5, 64, 97, 40} {
		a, b := randSeq(300, uint64(1400+k)), randSeq(m, uint64(1500+k))
		tallCols.srcs, tallCols.ans = append(tallCols.srcs, lcsText(a, b)), append(tallCols.ans, refLCS(a, b)[300][m])
	}
	tallCols.widest = 2
	// Several tables (three flat columns a cell): a cell answer, a
	// region of one table, one strip and two.
	var tableCols []batchCase
	for _, mode := range []string{"global", "local", "semi", "globalY"} {
		c := batchCase{name: mode + "-tables-columns", opt: Options{BatchColumns: true}, vary: ab}
		for k, m := range []int{90, 1, 31, 32, 33, 64, 0} {
			e := affineCase(randSeq(150, uint64(2100+k)), randSeq(m, uint64(2200+k)), mode, 0, 0)
			c.srcs, c.ans = append(c.srcs, e.src), append(c.ans, e.ans)
		}
		tableCols = append(tableCols, c)
	}
	cases = append(cases, cols, swCols, tallCols)
	cases = append(cases, tableCols...)
	// The rows between strips in global memory (Program.BatchRowBytes):
	// forced, and where an instance's rows are too wide for shared memory
	// (1,800 cells of three tables, 200 rows: two strips).
	for _, c := range []batchCase{cases[3], tallCols, tableCols[1], cases[10]} {
		c.name += "/global-rows"
		c.opt.BatchGlobalRows = true
		c.globalRows = true
		cases = append(cases, c)
	}
	wideTables := batchCase{name: "gotoh-wide-rows", vary: ab, globalRows: true}
	for k := range 3 {
		e := affineCase(randSeq(200, uint64(2300+k)), randSeq(1800, uint64(2400+k)), "global", 0, 0)
		wideTables.srcs, wideTables.ans = append(wideTables.srcs, e.src), append(wideTables.ans, e.ans)
	}
	cases = append(cases, wideTables)
	// Rows that shared memory holds only for 2 warps a block go to global
	// memory (batchMinSharedWarps); for 4 warps they stay shared.
	for _, w := range []struct {
		name   string
		cols   int
		global bool
	}{{"gotoh-two-warps-rows", 600, true}, {"gotoh-four-warps-rows", 300, false}} {
		c := batchCase{name: w.name, vary: ab, globalRows: w.global}
		for k := range 2 {
			e := affineCase(randSeq(200, uint64(2500+k)), randSeq(w.cols, uint64(2600+k)), "local", 0, 0)
			c.srcs, c.ans = append(c.srcs, e.src), append(c.ans, e.ans)
		}
		cases = append(cases, c)
	}
	// A region min (the last row's least cell): its value (a batch
	// program's region answer, Program.BatchValueOnly).
	lastMin := batchCase{name: "edit-lastrow-min", opt: Options{BatchColumns: true}, vary: ab}
	for k, m := range []int{40, 1, 33, 64, 7} {
		a, b := randSeq(70, uint64(1800+k)), randSeq(m, uint64(1900+k))
		e := editCase(a, b, KernelStrip)
		best := 0
		for j := range e.want[70] {
			if e.want[70][j] < e.want[70][best] {
				best = j
			}
		}
		lastMin.srcs = append(lastMin.srcs, e.src+"answer: min(j in 0..COLS-1: cell[ROWS-1][j])\n")
		lastMin.ans = append(lastMin.ans, e.want[70][best])
		if m == 64 {
			lastMin.widest = k
		}
	}
	cases = append(cases, lastMin)
	// A region inside the grid (rows 4..20, columns 6..33), one instance
	// whose region cells are all inf (the row's best keeps its start, the
	// greatest int).
	inner := batchCase{name: "region-inner-min", vary: []string{"D"}}
	for k := range 6 {
		r := rng{uint64(2000 + k)}
		d := make([]int64, 30)
		for x := range d {
			d[x] = r.intn(11) - 5
			if k == 0 && x >= 4 && x <= 20 {
				d[x] = 0
			}
		}
		const inf = math.MaxInt32
		plus1 := func(x int64) int64 {
			if x == inf {
				return inf
			}
			return x + 1
		}
		var g [30][40]int64
		for i := range 30 {
			for j := range 40 {
				switch {
				case d[i] == 0:
					g[i][j] = inf
				default:
					up, left := int64(100), int64(100)
					if i > 0 {
						up = g[i-1][j]
					}
					if j > 0 {
						left = g[i][j-1]
					}
					g[i][j] = min(d[i]*int64(j%7)-int64(j), plus1(up), plus1(left))
				}
			}
		}
		best := int64(inf)
		for i := 4; i <= 20; i++ {
			for j := 6; j <= 33; j++ {
				best = min(best, g[i][j])
			}
		}
		inner.srcs = append(inner.srcs, fmt.Sprintf(`problem reg
int 1x30 D = %s
30 x 40
cell[i][j] = D[i] == 0 ? inf : min(D[i] * (j %% 7) - j, (i > 0 ? cell[i-1][j] : 100) + 1, (j > 0 ? cell[i][j-1] : 100) + 1)
answer: min(i in 4..20: min(j in 6..33: cell[i][j]))
`, ints(d)))
		inner.ans = append(inner.ans, float64(best))
	}
	cases = append(cases, inner)
	// Rows past the grid's last would overflow (each row three times the
	// one above): a recurrence that may report checks them in every
	// chunk (DP_REC_CHECKS), so that no instance fails for them.
	grow := batchCase{name: "dead-rows-overflow", vary: []string{"D"}}
	for k := range 3 {
		d := int64(k % 2)
		var g [20][100]int64
		for i := range 20 {
			for j := range 100 {
				switch {
				case i == 0:
					g[i][j] = d
				default:
					g[i][j] = g[i-1][j]*3 + 1
					if j > 0 {
						g[i][j] = max(g[i][j], g[i][j-1])
					}
				}
			}
		}
		grow.srcs = append(grow.srcs, fmt.Sprintf(`problem grow
int 1x1 D = %d
20 x 100
cell[i][j] = i == 0 ? D[0] : max(cell[i-1][j] * 3 + 1, j > 0 ? cell[i][j-1] : 0)
`, d))
		grow.ans = append(grow.ans, float64(g[19][99]))
	}
	cases = append(cases, grow)
	// A query (shared) against instances of other letters, scored by a
	// 128 x 128 matrix read through a profile: its 16-bit and 32-bit
	// elements, 1, 2, 4, 8 and 10 rows a lane, one strip and two,
	// the matrix read either way round, instances of other column counts.
	for _, pc := range []struct {
		name           string
		rows           int
		cols           []int
		big, transpose bool
		rpt            int
	}{
		{"profile-40", 40, []int{1, 9, 33, 70, 0, 64}, false, false, 2},
		{"profile-100-32bit", 100, []int{50, 7, 100}, true, false, 4},
		{"profile-255-transposed", 255, []int{40, 3}, false, true, 8},
		{"profile-255-32bit-transposed", 255, []int{31, 66}, true, true, 8},
		{"profile-600", 600, []int{45, 2, 80}, false, false, 10},
		{"profile-20", 20, []int{20, 5}, false, false, 1},
	} {
		c := batchCase{name: pc.name, opt: Options{BatchColumns: true}, vary: []string{"B"}, profiles: 1, rpt: pc.rpt}
		score := scoreMatrix(uint64(pc.rows), pc.big)
		a := randLetters(pc.rows, uint64(1600+pc.rows))
		for k, m := range pc.cols {
			e := matrixCase(a, randLetters(m, uint64(1700+k)), score, pc.transpose)
			c.srcs, c.ans = append(c.srcs, e.src), append(c.ans, e.ans)
			if m == slices.Max(pc.cols) {
				c.widest = k
			}
		}
		cases = append(cases, c)
	}
	// Global alignment with negative scores, odd and even counts of
	// instances (a warp's pair, and the last warp's one), and values at
	// the edge of 16 bits.
	for _, n := range []int{1, 2, 7} {
		c := batchCase{name: fmt.Sprintf("nw-negative-%d", n), vary: ab}
		for k := range n {
			e := nwCase(randSeq(70, uint64(3000+k)), randSeq(90, uint64(3100+k)), 2, -3, -4)
			c.srcs, c.ans = append(c.srcs, e.src), append(c.ans, e.ans)
		}
		cases = append(cases, c)
	}
	cases = append(cases, edge16Case(t))
	// A backward sweep (the suffix form of LCS, answer cell[0][0]): one
	// strip and two.
	for _, sz := range [][2]int{{40, 70}, {300, 45}} {
		c := batchCase{name: fmt.Sprintf("lcs-suffix-%dx%d", sz[0], sz[1]), vary: ab}
		for k := range 5 {
			e := suffixLCSCase(randSeq(sz[0], uint64(3400+k)), randSeq(sz[1], uint64(3500+k)))
			c.srcs, c.ans = append(c.srcs, e.src), append(c.ans, e.ans)
		}
		cases = append(cases, c)
	}
	// Comparisons of cells (masks), && of them, selects by mask, min,
	// a subtraction of two cells and a negation: the packed recurrence's
	// other operations.
	masks := batchCase{name: "masks", vary: ab}
	for k := range 5 {
		e := masksCase(randSeq(37, uint64(3600+k)), randSeq(53, uint64(3700+k)))
		masks.srcs, masks.ans = append(masks.srcs, e.src), append(masks.ans, e.ans)
	}
	cases = append(cases, masks)
	packed := map[string]bool{"masks": true, "edit-45x70": true, "lcs-300x97": true, "lcs-599x40": true, "sw-60x33": true,
		"edit-columns": true, "sw-columns": true, "lcs-columns-300rows": true, "edit-lastrow-min": true,
		"profile-40": true, "profile-255-transposed": true, "profile-600": true, "profile-20": true,
		"lcs-300x97/global-rows": true, "lcs-columns-300rows/global-rows": true, "edit-1x1": true, "edit-0x5": true,
		"nw-negative-1": true, "nw-negative-2": true, "nw-negative-7": true, "edge16": true,
		"lcs-suffix-40x70": true, "lcs-suffix-300x45": true}
	for k := range cases {
		cases[k].packed = packed[cases[k].name]
		if cases[k].packed {
			// The same instances on the 32-bit program.
			c := cases[k]
			c.name += "/32bit"
			c.opt.BatchNoPack = true
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// nwCase is Needleman-Wunsch of a against b with the given match,
// mismatch and gap scores, and its plain-Go answer.
func nwCase(a, b string, match, mismatch, gap int) emuCase {
	g := grid(len(a)+1, len(b)+1)
	for i := range g {
		for j := range g[i] {
			switch {
			case i == 0:
				g[i][j] = float64(j * gap)
			case j == 0:
				g[i][j] = float64(i * gap)
			default:
				s := mismatch
				if a[i-1] == b[j-1] {
					s = match
				}
				g[i][j] = max(g[i-1][j-1]+float64(s), g[i-1][j]+float64(gap), g[i][j-1]+float64(gap))
			}
		}
	}
	src := fmt.Sprintf(`problem nw
char 1x? A = %q
char 1x? B = %q
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = i * %d when j == 0
           | j * %d when i == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? %d : %d), cell[i-1][j] + %d, cell[i][j-1] + %d) otherwise
`, a, b, gap, gap, match, mismatch, gap, gap)
	return emuCase{src: src, ans: g[len(a)][len(b)]}
}

// masksCase is a recurrence of comparisons between cells and selects by
// them over a and b (clamped to -100..100, so that it stays within 16
// bits), and its plain-Go answer.
func masksCase(a, b string) emuCase {
	n, m := len(a), len(b)
	g := grid(n+1, m+1)
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			up, left, diag := g[i-1][j], g[i][j-1], g[i-1][j-1]
			var v float64
			if up > left && a[i-1] != b[j-1] {
				v = up - left - 1
			} else {
				v = -diag + 2
				if left < up {
					v = -diag - 3
				}
			}
			g[i][j] = min(max(v, -100), 100)
		}
	}
	src := fmt.Sprintf(`problem masks
char 1x? A = %q
char 1x? B = %q
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == 0 || j == 0
           | min(max(cell[i-1][j] > cell[i][j-1] && A[i-1] != B[j-1] ? cell[i-1][j] - cell[i][j-1] - 1 : -cell[i-1][j-1] + (cell[i][j-1] >= cell[i-1][j] ? 2 : -3), -100), 100) otherwise
`, a, b)
	return emuCase{src: src, ans: g[n][m]}
}

// suffixLCSCase is the LCS of a and b in its suffix form (a backward
// sweep from the last cell to cell[0][0]) and its plain-Go answer.
func suffixLCSCase(a, b string) emuCase {
	n, m := len(a), len(b)
	g := grid(n+1, m+1)
	for i := n; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			if i == n || j == m {
				continue
			}
			d := g[i+1][j+1]
			if a[i] == b[j] {
				d++
			}
			g[i][j] = max(d, g[i+1][j], g[i][j+1])
		}
	}
	src := fmt.Sprintf(`problem lcs_suffix
char 1x? A = %q
char 1x? B = %q
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == ROWS-1 || j == COLS-1
           | max(cell[i+1][j+1] + (A[i] == B[j] ? 1 : 0), cell[i+1][j], cell[i][j+1]) otherwise
answer: cell[0][0]
`, a, b)
	return emuCase{src: src, ans: g[0][0]}
}

// edge16Case is a batch whose cells reach close to 32767, the most a
// packed program's half holds: the greatest step c (each cell the larger
// of its neighbours above and left plus c, or plus the letters' codes'
// difference) whose program is still packed, found by generating it.
func edge16Case(t *testing.T) batchCase {
	const n = 40
	text := func(a, b string, c int) string {
		return fmt.Sprintf(`problem edge16
char 1x? A = %q
char 1x? B = %q
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == 0 && j == 0
           | cell[i][j-1] + %d when i == 0
           | cell[i-1][j] + %d when j == 0
           | max(cell[i-1][j], cell[i][j-1]) + (A[i-1] == B[j-1] ? %d : %d) otherwise
`, a, b, c, c, c, c-1)
	}
	best := 0
	for c := 300; c < 500; c++ {
		p, pl := dptest.Load(t, "edge16.dp", text(randSeq(n, 1), randSeq(n, 2), c))
		prog, err := Generate(p, pl, Options{Batch: true, BatchInputs: []string{"A", "B"}})
		if err != nil {
			t.Fatal(err)
		}
		if !prog.BatchPacked {
			break
		}
		best = c
	}
	if best == 0 || best == 499 {
		t.Fatalf("edge16: packed up to step %d", best)
	}
	c := batchCase{name: "edge16", vary: []string{"A", "B"}}
	for k := range 5 {
		a, b := randSeq(n, uint64(3200+k)), randSeq(n, uint64(3300+k))
		g := grid(n+1, n+1)
		for i := range g {
			for j := range g[i] {
				switch {
				case i == 0 && j == 0:
				case i == 0:
					g[i][j] = g[i][j-1] + float64(best)
				case j == 0:
					g[i][j] = g[i-1][j] + float64(best)
				default:
					s := best - 1
					if a[i-1] == b[j-1] {
						s = best
					}
					g[i][j] = max(g[i-1][j], g[i][j-1]) + float64(s)
				}
			}
		}
		if g[n][n] < 30000 || g[n][n] > 32767 {
			t.Fatalf("edge16: the last cell is %v, not close to 32767", g[n][n])
		}
		c.srcs, c.ans = append(c.srcs, text(a, b, best)), append(c.ans, g[n][n])
	}
	return c
}

// TestBatchNotBatchable: what no batch program runs says why.
func TestBatchNotBatchable(t *testing.T) {
	for _, c := range []struct{ name, src, why string }{
		{"rows", `problem knap
int 1x3 w = 1,2,3
3 x 10
cell[i][j] = i == 0 ? 0 : max(cell[i-1][j], j >= w[i] ? cell[i-1][j - w[i]] + 1 : 0)
`, "schedule"},
		{"captures", lcsText("ACGT", "AGT") + "answer: cell[4][3] + cell[3][2]\n", "expression over several cells"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, pl := dptest.Load(t, c.name+".dp", c.src)
			_, err := Generate(p, pl, Options{Batch: true})
			if err == nil || !strings.Contains(err.Error(), c.why) || !errors.Is(err, ErrNotBatchable) {
				t.Fatalf("error %v, want ErrNotBatchable saying %q", err, c.why)
			}
		})
	}
}

// TestBatchKey: instances of one shape share a key whatever their varying
// data; sizes and shared data part them.
func TestBatchKey(t *testing.T) {
	key := func(src string) string {
		p, pl := dptest.Load(t, "k.dp", src)
		return BatchKey(p, pl, []string{"A", "B"}, nil)
	}
	nw := func(a, b string, gap int) string {
		return fmt.Sprintf(`problem nw
char 1x? A = %q
char 1x? B = %q
int 1x2 W = 1, %d
(len(A)+1) x (len(B)+1)
cell[i][j] = i == 0 || j == 0 ? 0 : max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? W[0] : -1), cell[i-1][j] + W[1], cell[i][j-1] + W[1])
`, a, b, gap)
	}
	base := key(nw("ACGT", "GATTACA", -2))
	if k := key(nw("TTTT", "ACGTACG", -2)); k != base {
		t.Errorf("other data of one shape: key %q, want %q", k, base)
	}
	for name, src := range map[string]string{
		"sizes":       nw("ACGTA", "GATTACA", -2),
		"shared data": nw("ACGT", "GATTACA", -3),
	} {
		if key(src) == base {
			t.Errorf("%s: the same key", name)
		}
	}
}

// proteinLetters are the letters of matrixCase's sequences: the amino
// acids, one lower case (scored as upper case), an unknown letter and
// a digit (scored as the matrix's default).
const proteinLetters = "ACDEFGHIKLMNPQRSTVWYaJ7"

// randLetters is n random letters of proteinLetters.
func randLetters(n int, seed uint64) string {
	r := rng{seed}
	b := make([]byte, n)
	for k := range b {
		b[k] = proteinLetters[r.intn(int64(len(proteinLetters)))]
	}
	return string(b)
}

// scoreMatrix is a random 128 x 128 scoring matrix by ASCII code: random
// scores (up to 40,000 with big, beyond 16 bits) for pairs of upper-case
// letters, lower case scoring as upper case, every other code as '*'.
func scoreMatrix(seed uint64, big bool) [][]int64 {
	r := rng{seed}
	span := int64(15)
	if big {
		span = 40000
	}
	canon := func(c int) int {
		switch {
		case c >= 'a' && c <= 'z':
			return c - 32
		case c >= 'A' && c <= 'Z':
			return c
		}
		return '*'
	}
	base := map[[2]int]int64{}
	m := make([][]int64, 128)
	for x := range m {
		m[x] = make([]int64, 128)
		for y := range m[x] {
			k := [2]int{canon(x), canon(y)}
			v, ok := base[k]
			if !ok {
				v = r.intn(2*span+1) - span
				base[k] = v
			}
			m[x][y] = v
		}
	}
	return m
}

// matrixCase is a local alignment of a and b scored by s at S[A[i-1]][B[j-1]]
// (S[B[j-1]][A[i-1]] transposed), gap 3, with its plain-Go answer.
func matrixCase(a, b string, s [][]int64, transpose bool) emuCase {
	g := grid(len(a)+1, len(b)+1)
	best := 0.0
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sc := s[a[i-1]][b[j-1]]
			if transpose {
				sc = s[b[j-1]][a[i-1]]
			}
			g[i][j] = max(0, g[i-1][j-1]+float64(sc), g[i-1][j]-3, g[i][j-1]-3)
			best = max(best, g[i][j])
		}
	}
	read := "S[A[i-1]][B[j-1]]"
	if transpose {
		read = "S[B[j-1]][A[i-1]]"
	}
	src := fmt.Sprintf(`problem matrix-local
char 1x? A = %q
char 1x? B = %q
int 128x128 S = %s
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + %s, cell[i-1][j] - 3, cell[i][j-1] - 3) otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`, a, b, matrixText(s), read)
	return emuCase{name: "sw/matrix", src: src, ans: best}
}
