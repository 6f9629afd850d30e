package codegen

import (
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// copiesRef is the grid of cell[i][w] = op over k in 0..w / wt[i-1] of
// cell[i-1][w - k*wt[i-1]] + k*gain[i-1], row 0 zero: the plain DP.
func copiesRef(wt, gain []int64, capacity int64, isMin bool) [][]float64 {
	g := grid(len(wt)+1, int(capacity)+1)
	for i := 1; i <= len(wt); i++ {
		for w := int64(0); w <= capacity; w++ {
			best := g[i-1][w]
			for k := int64(1); k <= w/wt[i-1]; k++ {
				v := g[i-1][w-k*wt[i-1]] + float64(k*gain[i-1])
				if (isMin && v < best) || (!isMin && v > best) {
					best = v
				}
			}
			g[i][w] = best
		}
	}
	return g
}

// chainCase is a reduction over copies of items that chains (Program.Chain:
// dp_linechain beside dp_line in the harness), weights 1..maxWt over a
// capacity many times larger, so that a residue class is long and cut into
// segments: max with gains >= 0, min with gains <= 0, max with some gains
// negative (where the chain must run the loop), all against the plain DP.
func chainCase(name string, items int, capacity, maxWt int64, gain func(r *rng) int64, isMin bool, seed uint64) emuCase {
	r := &rng{seed}
	wt, g := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], g[k] = 1+r.intn(maxWt), gain(r)
	}
	op := "max"
	if isMin {
		op = "min"
	}
	src := fmt.Sprintf(`problem copies
int 1x? wt = %s
int 1x? g = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                                  when i == 0
           | %s(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*g[i-1])   otherwise
`, dptest.Join(wt), dptest.Join(g), capacity, op)
	want := copiesRef(wt, g, capacity, isMin)
	return emuCase{name: name, src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: want, ans: want[items][capacity], chain: true}
}

// TestEmulatedChain runs dp_linechain (in 1, 2, 3 and 7 segments, one block
// and three) against dp_line on reductions over copies, and an overflow that
// both must report.
func TestEmulatedChain(t *testing.T) {
	emuCompiler(t)
	cases := []emuCase{
		chainCase("chain-max", 6, 301, 13, func(r *rng) int64 { return 1 + r.intn(50) }, false, 1),
		chainCase("chain-min", 5, 250, 9, func(r *rng) int64 { return -r.intn(40) }, true, 2),
		chainCase("chain-mixed", 5, 199, 7, func(r *rng) int64 { return r.intn(41) - 20 }, false, 3),
		// Steps of up to 120 residues, more than a block's 32 threads:
		// threads take several classes one after another (the class of
		// residue S - 1, whose column S before is -1, among them).
		chainCase("chain-many-classes", 6, 400, 120, func(r *rng) int64 { return 1 + r.intn(60) }, false, 4),
		{name: "chain-overflow", kern: KernelLine, opt: Options{LineThreads: 32}, chain: true, src: `problem big
int 1x? wt = 3,2
int 1x? g = 1000,700000000
int cap = 8
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                                  when i == 0
           | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*g[i-1])   otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{2, 8}},
		backwardChainCase(),
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

// backwardChainCase sweeps its rows from the last up: row i takes item i's
// copies on top of row i+1 (the executor evaluates each line's step at
// its real row).
func backwardChainCase() emuCase {
	r := &rng{5}
	items, capacity := 6, int64(260)
	wt, g := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], g[k] = 1+r.intn(11), 1+r.intn(30)
	}
	src := fmt.Sprintf(`problem back
int 1x? wt = %s
int 1x? g = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                                  when i == ROWS-1
           | max(k in 0..w / wt[i]: cell[i+1][w - k*wt[i]] + k*g[i])   otherwise
answer: cell[0][COLS-1]
`, dptest.Join(wt), dptest.Join(g), capacity)
	// The same values as the forward DP over the items in reverse order.
	rw, rg := make([]int64, items), make([]int64, items)
	for k := range wt {
		rw[k], rg[k] = wt[items-1-k], g[items-1-k]
	}
	fwd := copiesRef(rw, rg, capacity, false)
	want := grid(items+1, int(capacity)+1)
	for i := range want {
		want[i] = fwd[items-i]
	}
	return emuCase{name: "chain-backward", src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: want, ans: want[0][capacity], chain: true}
}
