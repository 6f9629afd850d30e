package codegen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// The front kernel's layout: which reductions are split, their bounds,
// which references read the transposed copy, where inputs live.
func TestFrontLayout(t *testing.T) {
	mc := matrixChainCase(6, 1)
	prog := generate(t, "mc.dp", mc.src, Options{})
	if prog.Kernel != KernelFront || prog.Front != (plan.Hyperplane{A: -1, B: 1}) || !prog.Split || !prog.Mirror {
		t.Fatalf("matrix chain: kernel %s front %v split %v mirror %v", prog.Kernel, prog.Front, prog.Split, prog.Mirror)
	}
	// k in i..j-1: j - i terms.
	for _, c := range [][3]int64{{0, 5, 5}, {2, 3, 1}, {3, 3, 0}, {4, 1, 0}} {
		if got := prog.ReductionLength(c[0], c[1]); got != c[2] {
			t.Errorf("reduction length at (%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
	for _, s := range []string{
		"struct dp_ref<0> { static constexpr bool safe = true, mirror = false, order = false; }; // cell[i][k]",
		"struct dp_ref<1> { static constexpr bool safe = true, mirror = true, order = false; }; // cell[k+1][j]",
		"#define DP_MIRROR 1", "#define DP_TA -1LL", "#define DP_TB 1LL",
	} {
		if !strings.Contains(prog.Source, s) {
			t.Errorf("matrix chain's program lacks %q", s)
		}
	}
	for _, in := range prog.Inputs {
		if in.Place == Constant {
			t.Errorf("%s in constant memory: the lanes of a split reduction read it at different indices", in.In.Name)
		}
	}
	// Without the copy, nothing reads it.
	flat := generate(t, "mc.dp", mc.src, Options{NoMirror: true})
	if flat.Mirror || !strings.Contains(flat.Source, "#define DP_MIRROR 0") || strings.Contains(flat.Source, "mirror = true") {
		t.Error("NoMirror keeps the transposed copy")
	}

	// A floating sum is not split (another order rounds otherwise); a
	// recurrence with nothing to split runs a thread per cell whatever
	// is asked.
	fsum := generate(t, "fsum.dp", "cell: double\n5 x 4\ncell[i][j] = 1 when i == 0\n | sum(k in 0..i-1: cell[k][j]) * 0.5 otherwise\n", Options{Spread: SpreadWarp})
	if fsum.Kernel != KernelFront || fsum.Split || fsum.Mirror || fsum.Spread != SpreadThread {
		t.Errorf("double sum: kernel %s split %v mirror %v spread %s", fsum.Kernel, fsum.Split, fsum.Mirror, fsum.Spread)
	}
	if sp, _ := fsum.FrontSpread(1, 100, 132); sp != SpreadThread {
		t.Error("a program with no split reduction runs a spread other than a thread per cell")
	}
	// Data-dependent bounds: unknown length.
	db := generate(t, "db.dp", "int 1x? lo = 0,0,1,1,2\n1 x len(lo)\ncell[i][j] = 1 when j == 0\n | max(k in lo[j]..j-1: cell[i][k]) + 1 otherwise\n", Options{})
	if db.Kernel != KernelFront || db.ReductionLength(0, 3) != -1 {
		t.Errorf("data-dependent bounds: kernel %s length %d, want -1", db.Kernel, db.ReductionLength(0, 3))
	}
}

// FrontSpread: a thread per cell for short reductions, else as many lanes
// per cell as fill the device (a warp at least, a block at most, a few
// terms each); a forced spread wins.
func TestFrontSpread(t *testing.T) {
	prog := generate(t, "mc.dp", matrixChainCase(6, 1).src, Options{})
	if prog.BlockThreads != 1024 || prog.WarpThreads != 128 || prog.FrontThreads != 128 {
		t.Fatalf("default blocks %d %d %d", prog.FrontThreads, prog.WarpThreads, prog.BlockThreads)
	}
	tests := []struct {
		cells, terms int64
		sms          int
		want         Spread
		lanes        int
	}{
		{8000, 1, 132, SpreadThread, 1},
		{8000, 7, 132, SpreadThread, 1},
		{8000, 8, 132, SpreadWarp, 32},
		{8000, 4000, 132, SpreadWarp, 32},
		{4096, 4096, 132, SpreadBlock, 64},
		{527, 4000, 132, SpreadBlock, 512},
		{1, 2048, 132, SpreadBlock, 512},
		{1, 100, 132, SpreadWarp, 32},
		{1, 100000, 132, SpreadBlock, 1024},
		{1, -1, 132, SpreadWarp, 32},
		{3, 5000, 0, SpreadBlock, 512},
	}
	for _, tt := range tests {
		if got, lanes := prog.FrontSpread(tt.cells, tt.terms, tt.sms); got != tt.want || lanes != tt.lanes {
			t.Errorf("%d cells, %d terms, %d SMs: %s of %d, want %s of %d", tt.cells, tt.terms, tt.sms, got, lanes, tt.want, tt.lanes)
		}
	}
	forced := generate(t, "mc.dp", matrixChainCase(6, 1).src, Options{Spread: SpreadBlock, BlockThreads: 256})
	if got, lanes := forced.FrontSpread(8000, 1, 132); got != SpreadBlock || lanes != 256 {
		t.Errorf("forced block: %s of %d", got, lanes)
	}
	for _, c := range []struct {
		s       Spread
		lanes   int
		cells   int64
		blocks  int64
		threads int
	}{{SpreadThread, 1, 300, 3, 128}, {SpreadWarp, 32, 9, 3, 128}, {SpreadBlock, 64, 9, 9, 64}} {
		b, th := prog.FrontGrid(c.s, c.lanes, c.cells)
		if b != c.blocks || th != c.threads {
			t.Errorf("%s, %d cells: %d blocks of %d, want %d of %d", c.s, c.cells, b, th, c.blocks, c.threads)
		}
	}
	p, pl := dptest.Load(t, "mc.dp", matrixChainCase(4, 1).src)
	if _, err := Generate(p, pl, Options{WarpThreads: 48}); err == nil {
		t.Error("warps of 48 threads generated")
	}
}

// The front programs compile as C++ against stand-ins for CUDA, with every
// answer kind, and generate deterministically.
func TestFrontHostCompiles(t *testing.T) {
	for _, c := range []frontCase{matrixChainCase(9, 1), nussinovCase(9, 2), lisCase(9, 3), coinCase(9, 4), rowsCase(9, 5)} {
		prog := generate(t, c.name+".dp", c.src, Options{})
		hostCheck(t, prog)
		again := generate(t, c.name+".dp", c.src, Options{})
		if again.Source != prog.Source {
			t.Errorf("%s: two generations differ", c.name)
		}
	}
}

// The sweep computes the runs of fronts whose cells read no other cell in
// one launch each, first, and the other fronts in order.
func TestFrontLaunches(t *testing.T) {
	type launch struct {
		rng    bool
		t, t1  int64
		cells  int64
		spread Spread
	}
	tests := []struct {
		name, src string
		want      []launch
	}{
		{"matrix chain", matrixChainCase(6, 1).src, []launch{
			{true, -5, 0, 21, SpreadThread},
			{false, 1, 1, 5, SpreadThread}, {false, 2, 2, 4, SpreadThread}, {false, 3, 3, 3, SpreadThread},
			{false, 4, 4, 2, SpreadThread}, {false, 5, 5, 1, SpreadThread},
		}},
		// j - i < 3 || i == 0 && j == 5 reads nothing: fronts -5..2 and
		// (not decided from its ends) not front 5.
		{"conditions", "6 x 6\ncell[i][j] = 1 when j - i < 3 || i == 0 && j == 5\n | max(k in i..j-1: cell[i][k] + cell[k+1][j]) otherwise\n", []launch{
			{true, -5, 2, 30, SpreadThread},
			{false, 3, 3, 3, SpreadThread}, {false, 4, 4, 2, SpreadThread}, {false, 5, 5, 1, SpreadThread},
		}},
		// One front that reads nothing is no run.
		{"lis", lisCase(5, 1).src, []launch{
			{false, 0, 0, 1, SpreadThread}, {false, 1, 1, 1, SpreadThread}, {false, 2, 2, 1, SpreadThread},
			{false, 3, 3, 1, SpreadThread}, {false, 4, 4, 1, SpreadThread},
		}},
	}
	for _, tt := range tests {
		prog := generate(t, "x.dp", tt.src, Options{})
		var got []launch
		prog.FrontLaunches(132, func(l FrontLaunch) error {
			got = append(got, launch{l.Range, l.T, l.T1, l.Cells, l.Spread})
			if l.Range != (l.Func == FuncFrontRange) || l.Func != FuncFrontRange && l.Func != l.Spread.Func() {
				t.Errorf("%s: launch %+v", tt.name, l)
			}
			return nil
		})
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: launches\n%v, want\n%v", tt.name, got, tt.want)
		}
	}
}
