package gpu

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestChainSegs: one segment for long steps, more for short ones, never
// more than the threads need or a class has columns.
func TestChainSegs(t *testing.T) {
	for _, c := range []struct{ s, width, threads, most, want int64 }{
		{150_000, 1_000_001, 270_336, 0, 1},
		{100_000, 1_000_001, 270_336, 0, 2},
		{75_000, 1_000_001, 270_336, 0, 2},
		{1_000, 1_000_001, 270_336, 0, 17},
		{1, 1_000_001, 270_336, 0, 548},
		{1, 100, 270_336, 0, 100},         // a class's columns
		{1_000, 50_000, 8_000, 0, 8},      // the threads
		{1_000, 1_000_001, 270_336, 4, 4}, // at most
		{3_000_000, 1_000_001, 270_336, 0, 1},
	} {
		if got := chainSegs(c.s, c.width, c.threads, c.most, 0); got != c.want {
			t.Errorf("chainSegs(%d, %d, %d, %d) = %d, want %d", c.s, c.width, c.threads, c.most, got, c.want)
		}
	}
}

// TestLineChain: rows whose reduction over an item's copies chains
// (dp_linechain: a thread a residue class of the row's step, segments
// whose first column runs the loop) give the plain DP's answers and grids,
// on wide rows (the default choice) and narrow ones (forced), in 1, 2, 5
// segments or as many as chainSegs chooses, in one launch a row or two
// (sums of segments first); max with gains >= 0, min with
// gains <= 0, and gains of both signs (the chain runs the loop where a
// gain is of the wrong sign); capacities of awkward sizes.
func TestLineChain(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	type shape struct {
		name          string
		items, cap    int
		maxWt         int64
		gain          func() int64
		isMin, narrow bool
	}
	shapes := []shape{
		{"max-wide", 7, 40_001, 9_000, func() int64 { return 1 + r.Int64N(1000) }, false, false},
		{"max-wide-small-weights", 5, 35_017, 40, func() int64 { return r.Int64N(100) }, false, false},
		{"min-wide", 4, 36_000, 5_000, func() int64 { return -r.Int64N(500) }, true, false},
		{"mixed-narrow", 9, 700, 60, func() int64 { return r.Int64N(201) - 100 }, false, true},
		{"max-narrow-1", 3, 1, 2, func() int64 { return 5 }, false, true},
		{"max-narrow-17", 17, 17, 5, func() int64 { return 1 + r.Int64N(9) }, false, true},
	}
	for _, s := range shapes {
		wt, gain := make([]int64, s.items), make([]int64, s.items)
		for k := range wt {
			wt[k], gain[k] = 1+r.Int64N(s.maxWt), s.gain()
		}
		op := "max"
		if s.isMin {
			op = "min"
		}
		src := dptest.Copies(op, wt, gain, s.cap, false)
		want := dptest.CopiesGrid(wt, gain, s.cap, s.isMin)
		p, pl := dptest.Load(t, s.name+".dp", src)
		for _, v := range []variant{
			{name: "chain", chainNarrow: s.narrow, tilesOff: s.narrow},
			{name: "chain-1seg", chainNarrow: s.narrow, tilesOff: s.narrow, chainSegs: 1},
			{name: "chain-2segs", chainNarrow: s.narrow, tilesOff: s.narrow, chainSegs: 2},
			{name: "chain-5segs", chainNarrow: s.narrow, tilesOff: s.narrow, chainSegs: 5},
			{name: "chain-maintain", chainNarrow: s.narrow, tilesOff: s.narrow, maintain: true},
			{name: "chain-one-launch", chainNarrow: s.narrow, tilesOff: s.narrow, chainTwoFrom: -1},
			{name: "chain-two-launches", chainNarrow: s.narrow, tilesOff: s.narrow, chainTwoFrom: 1},
			{name: "chain-two-launches-3segs", chainNarrow: s.narrow, tilesOff: s.narrow, chainTwoFrom: 1, chainSegs: 3},
			{name: "loop", cg: codegen.Options{NoLineChain: true}},
		} {
			res, err := runGPU(t, e, p, pl, v)
			if err != nil {
				t.Fatalf("%s/%s: %v", s.name, v.name, err)
			}
			if got := res.Answer.I; got != want[s.items][s.cap] {
				t.Errorf("%s/%s: answer %d, want %d", s.name, v.name, got, want[s.items][s.cap])
			}
			chained := strings.Contains(res.Device, "residue classes")
			if chained != (v.name != "loop") {
				t.Errorf("%s/%s: device %q: chained %v", s.name, v.name, res.Device, chained)
			}
			if v.maintain {
				for i := range want {
					for w := range want[i] {
						if got := res.Grid.At(int64(i), int64(w)).I; got != want[i][w] {
							t.Fatalf("%s/%s: cell[%d][%d] = %d, want %d", s.name, v.name, i, w, got, want[i][w])
						}
					}
				}
			}
		}
	}
}

// TestLineChainBackward: a rows sweep from the last row up (row i takes
// item i's copies on top of row i+1) chains too, each line's step taken at
// its real row: the plain DP over the items in reverse order.
func TestLineChainBackward(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	items, capacity := 6, 40_003
	wt, gain := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], gain[k] = 1+r.Int64N(3_000), r.Int64N(1000)
	}
	src := dptest.Copies("max", wt, gain, capacity, true)
	rw, rg := make([]int64, items), make([]int64, items)
	for k := range wt {
		rw[k], rg[k] = wt[items-1-k], gain[items-1-k]
	}
	want := dptest.CopiesGrid(rw, rg, capacity, false)[items][capacity]
	p, pl := dptest.Load(t, "back.dp", src)
	for _, v := range []variant{{name: "chain"}, {name: "chain-two-launches", chainTwoFrom: 1}, {name: "loop", cg: codegen.Options{NoLineChain: true}}} {
		res, err := runGPU(t, e, p, pl, v)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if res.Answer.I != want {
			t.Errorf("%s: answer %d, want %d", v.name, res.Answer.I, want)
		}
		if chained := strings.Contains(res.Device, "residue classes"); chained != (v.name != "loop") {
			t.Errorf("%s: device %q", v.name, res.Device)
		}
	}
}
