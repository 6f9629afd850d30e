package plan

import "testing"

func TestCPUShapeTile(t *testing.T) {
	for _, c := range []struct {
		s                  CPUShape
		rows, cols, th, tw int64
	}{
		{CPUShape{Threads: 1, TileH: 128, TileW: 512}, 151, 151, 151, 151},          // one worker, a tile's cells: one tile
		{CPUShape{Threads: 2, TileH: 128, TileW: 512}, 151, 151, 128, 151},          // two workers pipeline tile rows
		{CPUShape{Threads: 1, TileH: 128, TileW: 512}, 1000, 1000, 128, 512},        // larger than a tile
		{CPUShape{Threads: 1, TileH: 128, TileW: 512}, 200, 512, 128, 512},          // more cells than a tile
		{CPUShape{Threads: 1, StepHi: 3, TileH: 2, TileW: 4}, 2, 2, 3, 2},           // no smaller than the halo
		{CPUShape{Threads: 1, Before: 5, After: 1, TileH: 4, TileW: 4}, 3, 2, 3, 6}, // nor the lanes read
	} {
		th, tw := c.s.Tile(c.rows, c.cols)
		if th != c.th || tw != c.tw {
			t.Errorf("%+v %dx%d: tile %dx%d, want %dx%d", c.s, c.rows, c.cols, th, tw, c.th, c.tw)
		}
	}
}
