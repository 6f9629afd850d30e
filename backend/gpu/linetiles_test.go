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
