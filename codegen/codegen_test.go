package codegen

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// The canonical sources: CLRS's LCS strands, the README's knapsack, the
// thesis's lookback lattice.
var (
	lcsSrc  = dptest.LCS("ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "GTCGTTCGGAATGCCGTTGCTCTGTAAA")
	knapSrc = dptest.Knapsack([]int{2, 3, 4, 5, 9}, []int{3, 4, 5, 8, 10}, 20)
	// knapWide's data bounds nothing: a value near 2^30 (six rows of it
	// overflow an int) and a negative weight (w - wt[i-1] may pass the
	// last column).
	knapWide    = dptest.Knapsack([]int{2, 3, -4, 5, 9}, []int{3, 4, 5, 8, 1 << 30}, 20)
	lookbackSrc = dptest.Lookback(3)
)

// Every kernel's program compiles as C++ against stand-ins for CUDA.
func TestHostCompiles(t *testing.T) {
	cases := []struct {
		name, src string
		opt       Options
		kernel    KernelKind
	}{
		{"lcs", lcsSrc, Options{Kernel: KernelStrip}, KernelStrip},
		{"lcs", lcsSrc, Options{Kernel: KernelTile}, KernelTile},
		{"lcs", lcsSrc, Options{Maintain: true}, KernelStrip},
		{"lcs", lcsSrc, Options{Maintain: true, Kernel: KernelTile}, KernelTile},
		{"lcs", lcsSrc, Options{Mem: Mem1}, KernelStrip},
		{"knapsack", knapSrc, Options{}, KernelLine},
		{"knapsack", knapSrc, Options{Mem: Mem1}, KernelLine},
		{"lookback", lookbackSrc, Options{}, KernelLine},
	}
	for _, c := range cases {
		prog := generate(t, c.name+".dp", c.src, c.opt)
		if prog.Kernel != c.kernel {
			t.Errorf("%s %+v: kernel %s, want %s", c.name, c.opt, prog.Kernel, c.kernel)
		}
		hostCheck(t, prog)
	}
}

// The same problem gives the same source, byte for byte (the compile
// cache's key); a different size gives another.
func TestDeterministic(t *testing.T) {
	a := generate(t, "lcs.dp", lcsSrc, Options{})
	for k := 0; k < 5; k++ {
		b := generate(t, "lcs.dp", lcsSrc, Options{})
		if a.Source != b.Source {
			t.Fatal("two generations of the same problem differ")
		}
	}
	c := generate(t, "lcs.dp", strings.Replace(lcsSrc, `"ACCG`, `"ACG`, 1), Options{})
	if c.Source == a.Source {
		t.Error("a different grid size gave the same source")
	}
	// New data of the same size reuses the program.
	d := generate(t, "lcs.dp", strings.Replace(lcsSrc, `"ACCG`, `"TTTT`, 1), Options{})
	if d.Source != a.Source {
		t.Error("new data of the same size changed the source")
	}
}

// The recurrence carries #line directives to its `.dp` lines, and the
// template code after it goes back to the program's own line numbers.
func TestLineDirectives(t *testing.T) {
	prog := generate(t, "lcs.dp", lcsSrc, Options{})
	for _, line := range []int{5, 6, 7} {
		if !strings.Contains(prog.Source, fmt.Sprintf("#line %d \"lcs.dp\"\n", line)) {
			t.Errorf("no #line %d \"lcs.dp\" in the source", line)
		}
	}
	lines := strings.Split(prog.Source, "\n")
	found := false
	for k, l := range lines {
		var n int
		if _, err := fmt.Sscanf(l, "#line %d \"lcs.cu\"", &n); err == nil {
			found = true
			if n != k+2 {
				t.Errorf("line %d resets to %d, want %d", k+1, n, k+2)
			}
		}
	}
	if !found {
		t.Error("no #line back to lcs.cu after the recurrence")
	}
}

// Checks are left out where the ranges prove them unnecessary and kept
// where they do not.
func TestChecksElided(t *testing.T) {
	lcs := generate(t, "lcs.dp", lcsSrc, Options{})
	rec := recurrenceText(lcs.Source)
	for _, s := range []string{"dp_chk", "dp_addi", "dp_fail"} {
		if strings.Contains(rec, s) {
			t.Errorf("LCS recurrence has a check %s:\n%s", s, rec)
		}
	}
	if !strings.Contains(lcs.Source, "struct dp_ref<0> { static constexpr int di = 1, dj = 1; static constexpr bool safe = true; }") {
		t.Error("cell[i-1][j-1] of LCS is not proved inside the grid")
	}
	// A program is specialised to its inputs' bounds (powers of two): with
	// the weights in 0..16 and values in 0..16, the guarded read
	// cell[i-1][w-wt[i-1]] stays inside the grid and the sums within 6 x
	// 16: no check at all.
	knap := generate(t, "knapsack.dp", knapSrc, Options{})
	if rec := recurrenceText(knap.Source); strings.Contains(rec, "dp_addi(") || strings.Contains(rec, "dp_subi(") {
		t.Errorf("knapsack's sums of small values are checked:\n%s", rec)
	}
	if strings.Contains(knap.Source, "safe = false") {
		t.Error("knapsack's guarded reference with weights >= 0 is checked")
	}
	// Data that bounds nothing: cell[i-1][w-wt[i-1]] depends on it,
	// checked; cell[i-1][w] is safe; cell + val[i-1] may overflow an int.
	wide := generate(t, "knapsack.dp", knapWide, Options{})
	if !strings.Contains(wide.Source, "struct dp_ref<0> { static constexpr int di = 1, dj = 0; static constexpr bool safe = false; }") {
		t.Error("knapsack's data-dependent reference is not checked")
	}
	if !strings.Contains(wide.Source, "struct dp_ref<2> { static constexpr int di = 1, dj = 0; static constexpr bool safe = true; }") {
		t.Error("knapsack's cell[i-1][w] is checked")
	}
	if !strings.Contains(recurrenceText(wide.Source), "dp_addi(") {
		t.Error("knapsack's additions of int values near 2^30 are not checked for overflow")
	}
	// A read with no guard keeps its check.
	bad := generate(t, "bad.dp", "10 x 10\ncell[i][j] = cell[i-1][j] + cell[i][j-1]\n", Options{})
	if !strings.Contains(bad.Source, "safe = false") {
		t.Error("an unguarded cell[i-1][j] is proved safe")
	}
	if !strings.Contains(bad.Source, "dp_addi(") {
		t.Error("an unbounded sum is not checked for overflow")
	}
}

// TestSpecialisedToData: a program is specialised to its inputs' bounds
// (powers of two and their sign), so data of one magnitude shares a
// program and data of another does not; data that changes from run to run
// (ir.Input.PerRun: a checkpoint band's given rows) never specialises it.
func TestSpecialisedToData(t *testing.T) {
	src := func(val []int, perRun bool) string {
		p, pl := dptest.Load(t, "knapsack.dp", dptest.Knapsack([]int{2, 3, 4, 5, 9}, val, 20))
		for _, in := range p.Inputs {
			in.PerRun = perRun
		}
		prog, err := Generate(p, pl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return prog.Source
	}
	small, same, large := []int{3, 4, 5, 8, 10}, []int{1, 2, 16, 7, 9}, []int{3, 4, 5, 8, 1 << 29}
	if src(small, false) != src(same, false) {
		t.Error("values within the same powers of two gave two programs")
	}
	if src(small, false) == src(large, false) {
		t.Error("values 2^25 times larger gave the same program")
	}
	if src(small, true) != src(large, true) {
		t.Error("per-run data specialised the program")
	}
	if strings.Contains(recurrenceText(src(small, false)), "dp_addi(") || !strings.Contains(recurrenceText(src(small, true)), "dp_addi(") {
		t.Error("the checks of a sum do not follow the data's bounds")
	}
}

// TestCopiesProved: with weights >= 1 (a program specialised to their
// sign), the knapsacks' read of an item's copies, cell[i-1][w -
// k*wt[i-1]] for k in 0..w / wt[i-1], is proved inside the row, and the
// copies' products and the quotient need no check (bounded and unbounded;
// TestEmulatedProblems runs them against a plain DP).
func TestCopiesProved(t *testing.T) {
	for _, c := range []emuCase{copiesCase(7, 40, true, 7), copiesCase(9, 63, false, 9)} {
		prog := generate(t, c.name+".dp", c.src, Options{})
		if !strings.Contains(prog.Source, "struct dp_ref<0> { static constexpr int di = 1, dj = 0; static constexpr bool safe = true; }") {
			t.Errorf("%s: the copies' read is checked", c.name)
		}
		if rec := recurrenceText(prog.Source); strings.Contains(rec, "dp_muli(") || strings.Contains(rec, "dp_divi(") {
			t.Errorf("%s: the copies' products or the quotient are checked:\n%s", c.name, rec)
		}
	}
}

// TestInputRangeHoldsData: the bound a program is specialised to holds
// every value of its input, up to the largest finite long and down to the
// least, and keeps a sign the data all has.
func TestInputRangeHoldsData(t *testing.T) {
	lfin := int64(math.MaxInt64 - 1)
	for _, c := range []struct {
		vals   []int64
		lo, hi int64 // the bound wanted
	}{
		{[]int64{3, 10}, 1, 16},
		{[]int64{0, 10}, 0, 16},
		{[]int64{-3, 10}, -4, 16},
		{[]int64{-1000, -3}, -1024, -1},
		{[]int64{1 << 62}, 1, 1 << 62},
		{[]int64{1<<62 + 5}, 1, math.MaxInt64},
		{[]int64{lfin - 1, 7}, 1, math.MaxInt64},
		{[]int64{-(1<<62 + 5), 0}, -math.MaxInt64, 0},
	} {
		in := &ir.Input{Name: "A", T: ir.Long, Rows: 1, Cols: len(c.vals), Vector: true, I: c.vals}
		r := inputRange(in)
		for _, v := range c.vals {
			if !r.Has(v) {
				t.Errorf("%v: bound %+v misses %d", c.vals, r, v)
			}
		}
		if r.Lo != c.lo || r.Hi != c.hi {
			t.Errorf("%v: bound %+v, want [%d, %d]", c.vals, r, c.lo, c.hi)
		}
	}
}

func recurrenceText(src string) string {
	a := strings.Index(src, "dp_rec(const DP_IDX_T")
	b := strings.Index(src, lineReset[:10])
	if b < 0 {
		b = strings.Index(src[a:], "\n}\n") + a
	}
	return src[a:b]
}

// Inputs go to constant memory when they fit, global memory when not, and
// textures for mem: 1.
func TestPlacement(t *testing.T) {
	prog := generate(t, "lcs.dp", lcsSrc, Options{})
	for _, in := range prog.Inputs {
		if in.Place != Constant {
			t.Errorf("%s in %s memory, want constant", in.In.Name, in.Place)
		}
	}
	prog = generate(t, "lcs.dp", lcsSrc, Options{ConstantBytes: 40})
	for _, in := range prog.Inputs {
		if in.Place != Global {
			t.Errorf("with 40 bytes of constant memory, %s in %s memory, want global", in.In.Name, in.Place)
		}
	}
	prog = generate(t, "lcs.dp", strings.Replace(lcsSrc, "problem lcs", "problem lcs\nmem: 1", 1), Options{})
	for _, in := range prog.Inputs {
		if in.Place != Texture {
			t.Errorf("mem: 1 put %s in %s memory", in.In.Name, in.Place)
		}
	}
	prog = generate(t, "lcs.dp", lcsSrc, Options{Mem: Mem1, TextureMax: 28})
	if prog.Inputs[0].Place != Global || prog.Inputs[1].Place != Texture {
		t.Errorf("a texture too large for the device: placements %v, %v", prog.Inputs[0].Place, prog.Inputs[1].Place)
	}
}

// Kernels and geometry by schedule.
func TestLayout(t *testing.T) {
	knap := generate(t, "knapsack.dp", knapSrc, Options{})
	if knap.Kernel != KernelLine || knap.Reach != 1 || knap.Lines != 6 || knap.Width != 21 {
		t.Errorf("knapsack: kernel %s reach %d lines %d width %d", knap.Kernel, knap.Reach, knap.Lines, knap.Width)
	}
	lb := generate(t, "lookback.dp", lookbackSrc, Options{})
	if lb.Kernel != KernelLine || !lb.Backward || lb.Answer != AnswerCapture || len(lb.Captures) != 1 {
		t.Errorf("lookback: kernel %s backward %v answer %v captures %v", lb.Kernel, lb.Backward, lb.Answer, lb.Captures)
	}
	lcs := generate(t, "lcs.dp", lcsSrc, Options{})
	if lcs.Kernel != KernelStrip || lcs.PI != 1 || lcs.PJ != 1 || lcs.Strips != 1 {
		t.Errorf("lcs: kernel %s PI %d PJ %d strips %d", lcs.Kernel, lcs.PI, lcs.PJ, lcs.Strips)
	}
	keep := generate(t, "lcs.dp", lcsSrc, Options{Maintain: true})
	if keep.Kernel != KernelStrip || !keep.Keep || keep.StripSharedBytes != 8*32*4*8*4 {
		t.Errorf("lcs maintain: kernel %s keep %v shared %d", keep.Kernel, keep.Keep, keep.StripSharedBytes)
	}
	if lcs.Keep || lcs.StripSharedBytes != 0 {
		t.Errorf("lcs: keep %v shared %d without maintain", lcs.Keep, lcs.StripSharedBytes)
	}
	tile := generate(t, "lcs.dp", lcsSrc, Options{Maintain: true, Kernel: KernelTile, TileH: 16, TileW: 8})
	if tile.Kernel != KernelTile || tile.TilesI != 2 || tile.TilesJ != 4 {
		t.Errorf("lcs maintain: kernel %s tiles %dx%d", tile.Kernel, tile.TilesI, tile.TilesJ)
	}
}

// The cell range inference bounds LCS by ROWS+COLS, a knapsack by its rows
// times its values' bound (16 for values up to 10); on sums of inputs that
// a program's data does not bound it falls back to the finite range of
// the cell type where no cell can be inf (finiteCells), and to nothing
// where one can: an inf literal, a reduction that may be empty, inf in the
// data.
func TestCellRange(t *testing.T) {
	p, pl := dptest.Load(t, "lcs.dp", lcsSrc)
	g := &gen{p: p, pl: pl, prog: &Program{}}
	r := g.inferCellRange(analysis.Wraps)
	if r.IsFull() || r.Lo != 0 || r.Hi > p.Rows+p.Cols {
		t.Errorf("LCS cells in %+v, want within [0, %d]", r, p.Rows+p.Cols)
	}
	lo, hi := ir.FiniteRange(ir.Int)
	llo, lhi := ir.FiniteRange(ir.Long)
	for _, tc := range []struct {
		name, src string
		lo, hi    int64
		known     bool
	}{
		{"knapsack", knapSrc, 0, 6 * 16, true},
		{"knapsack, wide data", knapWide, lo, hi, true},
		{"inf in val", strings.Replace(knapSrc, "int 1x? val = 3,4,5,8,10", "int 1x? val = 3,4,inf,8,10", 1), 0, 0, false},
		{"matrix chain", "long 1x? d = 30,35,15,5,10,20,25\ncell: long\n(len(d)-1) x (len(d)-1)\n" +
			"cell[i][j] = 0 when i >= j\n| min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1]) otherwise\n", llo, lhi, true},
		// Over i..j-1 with i > j possible, the min may be empty: inf.
		{"empty min", "long 1x? d = 30,35,15,5,10,20,25\ncell: long\n(len(d)-1) x (len(d)-1)\n" +
			"cell[i][j] = 0 when i == j\n| min(k in i..j-1: cell[i][k] + d[k]) otherwise\n", 0, 0, false},
		{"inf case", "int 1x? a = 1,2,3\n3 x 3\ncell[i][j] = inf when i == 0\n| cell[i-1][j] + a[j] otherwise\n", 0, 0, false},
	} {
		p, pl := dptest.Load(t, tc.name+".dp", tc.src)
		g := &gen{p: p, pl: pl, prog: &Program{}}
		r := g.inferCellRange(analysis.Wraps)
		if tc.known && (r.IsFull() || r.Lo != tc.lo || r.Hi != tc.hi) {
			t.Errorf("%s: cells in %+v, want [%d, %d]", tc.name, r, tc.lo, tc.hi)
		}
		if flo, fhi := ir.FiniteRange(p.CellType); !tc.known && !r.IsFull() && r.Within(flo, fhi) {
			t.Errorf("%s: cells in %+v, want no bound short of the sentinels", tc.name, r)
		}
	}
}

func TestMapLog(t *testing.T) {
	log := "lcs.dp(6): error: identifier \"Q\" is undefined\n" +
		"lcs.cu(612): warning #177-D: variable \"x\" was declared but never referenced\n" +
		"\n2 errors detected in the compilation of \"lcs.cu\".\n"
	got := MapLog(log)
	want := "lcs.dp:6: error: identifier \"Q\" is undefined\n" +
		"lcs.cu:612: warning #177-D: variable \"x\" was declared but never referenced\n" +
		"\n2 errors detected in the compilation of \"lcs.cu\"."
	if got != want {
		t.Errorf("MapLog:\n%s\nwant:\n%s", got, want)
	}
	if m := LogMentions(got, "lcs.dp"); len(m) != 1 || m[0] != "lcs.dp:6" {
		t.Errorf("LogMentions = %v", m)
	}
}

func TestGenerateErrors(t *testing.T) {
	p, pl := dptest.Load(t, "lcs.dp", lcsSrc)
	pl2 := *pl
	pl2.Schedule = "diagonal"
	if _, err := Generate(p, &pl2, Options{}); err == nil {
		t.Error("an unknown schedule generated")
	}
	p2 := *p
	p2.Rows = 0
	if _, err := Generate(&p2, pl, Options{}); err == nil {
		t.Error("an empty grid generated")
	}
}

// TestLineFlagChecks pins which line programs compute with the checks as a
// flag first (lineFlagChecks: integer cells, a reference not proved inside
// the grid, no reduction), and that the switch turns it off.
func TestLineFlagChecks(t *testing.T) {
	bounded := dptest.BoundedKnapsack([]int64{2, 3}, []int64{3, 4}, []int64{1, 2}, 10)
	safe := "problem safe\n30 x 40\ncell[i][j] = cell[i-1][j] + 1   when i > 0\n           | 0                otherwise\n"
	for _, c := range []struct {
		name, src string
		opt       Options
		want      bool
	}{
		{"knapsack", knapWide, Options{}, true},
		{"knapsack, inline", knapWide, Options{LineInlineChecks: true}, false},
		{"knapsack, small data", knapSrc, Options{}, false}, // every reference proved
		{"lookback", lookbackSrc, Options{}, false},         // double cells
		{"bounded", bounded, Options{}, false},              // a reduction
		{"safe", safe, Options{}, false},                    // every reference proved
	} {
		prog := generate(t, c.name+".dp", c.src, c.opt)
		if prog.Kernel != KernelLine {
			t.Fatalf("%s: kernel %s", c.name, prog.Kernel)
		}
		if got := strings.Contains(prog.Source, "namespace dp_fast {"); got != c.want {
			t.Errorf("%s: the recurrence with its checks as a flag: %v, want %v", c.name, got, c.want)
		}
	}
}
