package codegen

import (
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// floatGrid is g as the emulated cases' float64 grid.
func floatGrid(g [][]int64) [][]float64 {
	f := make([][]float64, len(g))
	for i, row := range g {
		f[i] = make([]float64, len(row))
		for j, v := range row {
			f[i][j] = float64(v)
		}
	}
	return f
}

// chainCase is a reduction over copies of items that chains (Program.Chain:
// dp_linechain beside dp_line in the harness), weights 1..maxWt over a
// capacity many times larger, so that a residue class is long and cut into
// segments: max with gains >= 0, min with gains <= 0, max with some gains
// negative (where the chain must run the loop), all against the plain DP;
// with backward, the sweep from the last row up.
func chainCase(name string, items, capacity int, maxWt int64, gain func(r *rng) int64, isMin, backward bool, seed uint64) emuCase {
	r := &rng{seed}
	wt, g := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], g[k] = 1+r.intn(maxWt), gain(r)
	}
	op := "max"
	if isMin {
		op = "min"
	}
	src := dptest.Copies(op, wt, g, capacity, backward)
	if !backward {
		want := floatGrid(dptest.CopiesGrid(wt, g, capacity, isMin))
		return emuCase{name: name, src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: want, ans: want[items][capacity], chain: true}
	}
	// The forward DP over the items in reverse order, upside down.
	rw, rg := make([]int64, items), make([]int64, items)
	for k := range wt {
		rw[k], rg[k] = wt[items-1-k], g[items-1-k]
	}
	fwd := floatGrid(dptest.CopiesGrid(rw, rg, capacity, isMin))
	want := make([][]float64, items+1)
	for i := range want {
		want[i] = fwd[items-i]
	}
	return emuCase{name: name, src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: want, ans: want[0][capacity], chain: true}
}

// TestEmulatedChain runs dp_linechain (in 1, 2, 3, 7 and 40 segments, one
// block and three, one launch a row and two) against dp_line on reductions
// over copies, and overflows that both must report.
func TestEmulatedChain(t *testing.T) {
	emuCompiler(t)
	cases := []emuCase{
		chainCase("chain-max", 6, 301, 13, func(r *rng) int64 { return 1 + r.intn(50) }, false, false, 1),
		chainCase("chain-min", 5, 250, 9, func(r *rng) int64 { return -r.intn(40) }, true, false, 2),
		chainCase("chain-mixed", 5, 199, 7, func(r *rng) int64 { return r.intn(41) - 20 }, false, false, 3),
		// Steps of up to 120 residues, more than a block's 32 threads:
		// threads take several classes one after another (the class of
		// residue S - 1, whose column S before is -1, among them).
		chainCase("chain-many-classes", 6, 400, 120, func(r *rng) int64 { return 1 + r.intn(60) }, false, false, 4),
		// From the last row up: each line's step is its real row's.
		chainCase("chain-backward", 6, 260, 11, func(r *rng) int64 { return 1 + r.intn(30) }, false, true, 5),
		insideCase(),
		{name: "chain-overflow", kern: KernelLine, opt: Options{LineThreads: 32}, chain: true, src: dptest.Copies("max", []int64{3, 2}, []int64{1000, 700000000}, 8, false),
			err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{2, 8}},
		// Long cells: a copy's gain of 2^61, whose fourth copy leaves
		// long at cell[2][8] alone; the two launches' sums of segments
		// cannot take it (their tests fail), and the loop reports it.
		{name: "chain-long-overflow", kern: KernelLine, opt: Options{LineThreads: 32}, chain: true, src: `problem bigl
long 1x? wt = 1,2
long 1x? g = 1,2305843009213693952
int cap = 8
cell: long
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                                  when i == 0
           | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*g[i-1])   otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{2, 8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// insideCase chains a reduction that is not a case's whole value (one
// launch a row: segments' first columns run the loop), computed at some
// columns only (a select skips it at w % 7 == 3, where the thread's chain
// has no column S back for the next), against the plain DP.
func insideCase() emuCase {
	r := &rng{6}
	items, capacity := 5, 230
	wt, g := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], g[k] = 1+r.intn(9), r.intn(20)
	}
	src := fmt.Sprintf(`problem inside
int 1x? wt = %s
int 1x? g = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                                      when i == 0
           | w %% 7 == 3 ? cell[i-1][w] : 1 + max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*g[i-1])   otherwise
`, dptest.Join(wt), dptest.Join(g), capacity)
	want := grid(items+1, capacity+1)
	for i := 1; i <= items; i++ {
		for w := 0; w <= capacity; w++ {
			if w%7 == 3 {
				want[i][w] = want[i-1][w]
				continue
			}
			best := want[i-1][w]
			for k := 1; k <= w/int(wt[i-1]); k++ {
				best = max(best, want[i-1][w-k*int(wt[i-1])]+float64(int64(k)*g[i-1]))
			}
			want[i][w] = 1 + best
		}
	}
	return emuCase{name: "chain-inside", src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: want, ans: want[items][capacity], chain: true}
}
