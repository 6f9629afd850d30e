package gpu

import "testing"

// TestChooseLineTiles: which line schedules go to dp_linetiles, and how,
// from the facts planLineTiles gathers (an H100's 132 multiprocessors,
// eight blocks of 256 resident on each); no GPU needed.
func TestChooseLineTiles(t *testing.T) {
	h100 := func(f tileFacts) tileFacts {
		if f.threads == 0 {
			f.threads = 256
		}
		f.sms, f.resident = 132, 132*8
		if f.budget == 0 {
			f.budget = ringBudget
		}
		if f.reach == 0 {
			f.reach = 1
		}
		return f
	}
	type want struct {
		mode             int32
		n, left, right   int
		tw, depth, lines int64
		blocks           int
	}
	cases := []struct {
		name string
		f    tileFacts
		cfg  config
		want *want // nil: a launch a line
	}{
		// The lookback lattice N = 30,000: narrow, one position each
		// side, steps of 64 lines (half a tile of widening).
		{"lattice", h100(tileFacts{width: 30002, lines: 30001, left: 1, right: 1, cellBytes: 8}), config{},
			&want{mode: 2, n: 118, tw: 256, left: 1, right: 1, depth: 64, lines: ringBudget/(30002*8) - 1, blocks: 118}},
		// Pisinger's knapPI_1_10000_1000_1: wide, but the items reach
		// four tiles back; a line a step.
		{"pisinger", h100(tileFacts{width: 49878, lines: 10001, left: 995, right: 0, cellBytes: 4}), config{},
			&want{mode: 2, n: 195, tw: 256, left: 4, right: 0, depth: 1, lines: ringBudget/(49878*4) - 1, blocks: 195}},
		{"knapsack-1M-heavy", h100(tileFacts{width: 1000001, lines: 10001, left: 100000, cellBytes: 4}), config{}, nil},
		{"knapsack-1M-light", h100(tileFacts{width: 1000001, lines: 10001, left: 1000, cellBytes: 4}), config{}, nil},
		// Forced on wide lines: every block resident at 4 cells a
		// thread (977 tiles), waiting for one tile.
		{"knapsack-1M-light-forced", h100(tileFacts{width: 1000001, lines: 10001, left: 1000, cellBytes: 4}), config{tileWide: true},
			&want{mode: 2, n: 977, tw: 1024, left: 1, depth: 1, lines: ringBudget/(1000001*4) - 1, blocks: 977}},
		{"unbounded-left", h100(tileFacts{width: 5000, lines: 100, left: -1, right: 0, cellBytes: 4}), config{}, nil},
		{"unbounded-right", h100(tileFacts{width: 5000, lines: 100, left: 0, right: -1, cellBytes: 4}), config{}, nil},
		{"one-line", h100(tileFacts{width: 5000, lines: 1, left: 1, right: 1, cellBytes: 4}), config{}, nil},
		// More positions than resident blocks hold at 16 cells a
		// thread: tickets where the reach is one-sided, in its order
		// (a 20 MB line: two lines a launch fit the ring).
		{"too-wide-both-sides", h100(tileFacts{width: 5_000_000, lines: 100, left: 3, right: 3, cellBytes: 4}), config{tileWide: true}, nil},
		{"too-wide-left", h100(tileFacts{width: 5_000_000, lines: 100, left: 3, right: 0, cellBytes: 4}), config{tileWide: true},
			&want{mode: 0, n: 1221, tw: 4096, left: 1, depth: 2, lines: 2, blocks: 1056}},
		{"too-wide-right", h100(tileFacts{width: 5_000_000, lines: 100, left: 0, right: 3, cellBytes: 4}), config{tileWide: true},
			&want{mode: 1, n: 1221, tw: 4096, right: 1, depth: 2, lines: 2, blocks: 1056}},
		// Tickets forced (tests) where the reach is one-sided.
		{"tickets", h100(tileFacts{width: 3000, lines: 100, left: 2, right: 0, cellBytes: 4}), config{tileTickets: true},
			&want{mode: 0, n: 12, tw: 256, left: 1, depth: 64, lines: 100, blocks: 1056}},
		// No position but its own: tiles never wait, a step is the run.
		{"columns-alone", h100(tileFacts{width: 20000, lines: 500, left: 0, right: 0, cellBytes: 4}), config{},
			&want{mode: 2, n: 79, tw: 256, depth: 500, lines: 500, blocks: 79}},
		// maintain's staging fixes the lines a launch.
		{"staging", h100(tileFacts{width: 20000, lines: 500, left: 1, right: 1, cellBytes: 4, slotLimit: 40}), config{},
			&want{mode: 2, n: 79, tw: 256, left: 1, right: 1, depth: 40, lines: 40, blocks: 79}},
		// A ring of fewer than two lines a launch does not pay.
		{"no-room", h100(tileFacts{width: 20000, lines: 500, left: 1, right: 1, cellBytes: 4, budget: 2 * 20000 * 4}), config{}, nil},
		// A narrow line whose cells read far on both sides: more
		// tiles to wait for than a tile polls.
		{"narrow-far", h100(tileFacts{width: 30000, lines: 500, threads: 32, left: 29999, right: 29999, cellBytes: 4}), config{}, nil},
		// Forced geometry (the tests' variants).
		{"forced", h100(tileFacts{width: 1000, lines: 50, threads: 32, left: 5, right: 0, cellBytes: 4}), config{tileCells: 1, tileLines: 7, tileDepth: 3},
			&want{mode: 2, n: 32, tw: 32, left: 1, depth: 3, lines: 7, blocks: 32}},
	}
	for _, c := range cases {
		got := chooseLineTiles(c.f, &c.cfg)
		switch {
		case c.want == nil && got != nil:
			t.Errorf("%s: tiles %+v, want a launch a line", c.name, *got)
		case c.want != nil && got == nil:
			t.Errorf("%s: a launch a line, want tiles %+v", c.name, *c.want)
		case c.want != nil:
			w := want{mode: got.mode, n: got.n, left: got.left, right: got.right, tw: got.tw, depth: got.depth, lines: got.lines, blocks: got.blocks}
			if w != *c.want {
				t.Errorf("%s: tiles %+v, want %+v", c.name, w, *c.want)
			}
		}
	}
}

// TestChooseLinePass pins when lines go to passes in shared memory and
// their shape, on an H100's 132 multiprocessors and 227 KB a block.
func TestChooseLinePass(t *testing.T) {
	h100 := func(f passFacts) passFacts {
		f.sms, f.sharedBlock, f.sharedSM = 132, 227<<10, 228<<10
		if f.reach == 0 {
			f.reach = 1
		}
		if f.cellBytes == 0 {
			f.cellBytes = 4
		}
		if f.lines == 0 {
			f.lines = 10001
		}
		return f
	}
	cases := []struct {
		name string
		f    passFacts
		cfg  config
		k    int64 // 0: no passes
		tw   int64
	}{
		// Capacity 1,000,000, items up to 1,000: a block owns 7,576
		// positions; 8 lines widen the first by 7,000.
		{name: "knapsack 1M light", f: passFacts{width: 1000001, left: 1000}, k: 8, tw: 7576},
		{name: "knapsack 1M light, 3 forced", f: passFacts{width: 1000001, left: 1000}, cfg: config{passLines: 3}, k: 3, tw: 7576},
		// Items up to a tenth of the capacity: a pass would widen a
		// block's positions 13 times over.
		{name: "knapsack 1M heavy", f: passFacts{width: 1000001, left: 100000}},
		{name: "knapsack 1M heavy, forced", f: passFacts{width: 1000001, left: 100000}, cfg: config{passLines: 4}},
		// Pisinger's knapPI_1_10000_1000_1: 378 positions a block.
		{name: "pisinger 50k", f: passFacts{width: 49878, left: 1000}},
		{name: "unbounded", f: passFacts{width: 1000001, left: -1}},
		{name: "off", f: passFacts{width: 1000001, left: 1000}, cfg: config{passOff: true}},
		{name: "one line", f: passFacts{width: 1000001, left: 1000, lines: 1}},
		// A cell that reads only its own position: as many lines as the
		// ring's 64 MiB hold, less the line before.
		{name: "no spread", f: passFacts{width: 1000001}, k: 15, tw: 7576},
		// Longs, three lines back: the lines in shared memory bound k.
		{name: "shared bound", f: passFacts{width: 4000000, left: 10, right: 10, reach: 3, cellBytes: 8}, k: 0},
		{name: "shared bound, narrower", f: passFacts{width: 800000, left: 10, right: 10, reach: 3, cellBytes: 8}, k: 7, tw: 6061},
		{name: "shared bound, narrower, more ring", f: passFacts{width: 800000, left: 10, right: 10, reach: 3, cellBytes: 8, budget: 1 << 30}, k: 16, tw: 6061},
		// Forced tiles (tests): any width.
		{name: "forced tile", f: passFacts{width: 700, left: 60}, cfg: config{passLines: 5, passTile: 50}, k: 5, tw: 50},
		{name: "short grid", f: passFacts{width: 1000001, left: 1000, lines: 5}, k: 5, tw: 7576},
		// The lookback lattice N = 30,000: 228 positions a block, too
		// few for a block of 1,024 threads (tiles win).
		{name: "lattice", f: passFacts{width: 30002, left: 1, right: 1}},
		{name: "lattice, forced lines", f: passFacts{width: 30002, left: 1, right: 1}, cfg: config{passLines: 4}},
		{name: "just wide enough", f: passFacts{width: 132 * 2048, left: 100}, k: 16, tw: 2048},
		{name: "just wide enough, far reads", f: passFacts{width: 132 * 2048, left: 100, right: 200}, k: 7, tw: 2048},
		{name: "just too narrow", f: passFacts{width: 132*2048 - 132, left: 100}},
		// The ring of lines in global memory: a pass's lines and the
		// Reach before within the budget.
		{name: "ring budget", f: passFacts{width: 1000001, left: 1000, budget: 5 * 4000004}, k: 4, tw: 7576},
		{name: "ring budget too small", f: passFacts{width: 1000001, left: 1000, budget: 2 * 4000004}},
	}
	for _, c := range cases {
		p := chooseLinePass(h100(c.f), &c.cfg)
		if c.k == 0 {
			if p != nil {
				t.Errorf("%s: passes of %d lines, want none", c.name, p.k)
			}
			continue
		}
		if p == nil {
			t.Errorf("%s: no passes, want %d lines", c.name, c.k)
			continue
		}
		f := h100(c.f)
		if p.k != c.k || p.tw != c.tw || p.sw != p.tw+p.k*(f.left+f.right) || int64(p.blocks) != ceilDiv(f.width, p.tw) ||
			int64(p.shared) != (f.reach+1)*p.sw*f.cellBytes || int64(p.shared) > f.sharedBlock {
			t.Errorf("%s: %+v, want %d lines, %d positions a block", c.name, *p, c.k, c.tw)
		}
	}
}
