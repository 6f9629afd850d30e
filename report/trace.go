package report

import (
	"fmt"
	"io"

	"github.com/dpgpu/dpgpu/plan"
)

// TraceJSON is how a traceback keeps the grid (plan.TraceLayout).
type TraceJSON struct {
	// Layout is "whole grid", "checkpoints", "blocks" (checkpoint rows
	// and columns, blocks recomputed in GPU memory) or "device" (the
	// whole grid kept in GPU memory, read back in tiles).
	Layout string `json:"layout"`
	Why    string `json:"why"`
	// Bytes is what the traceback keeps at most.
	Bytes int64 `json:"bytes"`
	// BandRows, Bands and Reach describe the checkpoints: the grid runs
	// in Bands bands of BandRows rows, keeping the last Reach rows of each.
	BandRows int64 `json:"band_rows,omitempty"`
	Bands    int64 `json:"bands,omitempty"`
	Reach    int64 `json:"reach,omitempty"`
	// Recompute is the most cells computed over the grid's; Recomputed
	// (solve) the bands the walk recomputed.
	Recompute  float64 `json:"recompute_factor"`
	Recomputed *int    `json:"bands_recomputed,omitempty"`
	// Ahead (solve, blocks) is how many of the blocks recomputed were
	// computed ahead of the walk.
	Ahead *int `json:"blocks_ahead,omitempty"`
	// OnDevice: the bands are kept in GPU memory, one at a time. Levels
	// is 2 where each band is traced back from checkpoints of its own,
	// Transposed where that second level runs the band transposed.
	OnDevice bool `json:"bands_on_device,omitempty"`
	// SpillBytes is what the checkpoint rows take in a temporary file
	// (plan.TraceLayout.Spill), 0 where they stay in memory.
	SpillBytes int64 `json:"spill_bytes,omitempty"`
	Levels     int   `json:"levels,omitempty"`
	Transposed bool  `json:"second_level_transposed,omitempty"`
	// BlockCols, ColBlocks and ColReach describe the checkpoint columns
	// of a traceback in blocks (layout "blocks"): BandRows x BlockCols
	// cells a block, the last ColReach columns of each kept.
	BlockCols int64 `json:"block_cols,omitempty"`
	ColBlocks int64 `json:"col_blocks,omitempty"`
	ColReach  int64 `json:"col_reach,omitempty"`
}

// TraceObject is lay for JSON; recomputed < 0 leaves out the count of
// bands recomputed (check, which runs nothing).
func TraceObject(lay plan.TraceLayout, recomputed int) *TraceJSON {
	t := &TraceJSON{Layout: "whole grid", Why: lay.Why, Bytes: lay.Bytes, Recompute: lay.Recompute}
	switch {
	case lay.Device:
		t.Layout = "device"
	case lay.Blocks:
		t.Layout, t.BandRows, t.Bands, t.Reach = "blocks", lay.Band, lay.Bands, lay.Reach
		t.BlockCols, t.ColBlocks, t.ColReach, t.OnDevice = lay.BlockCols, lay.ColBlocks, lay.ColReach, lay.DeviceBlocks
	case !lay.Whole:
		t.Layout, t.BandRows, t.Bands, t.Reach = "checkpoints", lay.Band, lay.Bands, lay.Reach
		t.OnDevice, t.Levels, t.SpillBytes = lay.DeviceBands, 1, lay.SpillBytes
		if lay.Nested {
			t.Levels, t.Transposed = 2, lay.SubSwapped
		}
	}
	if recomputed >= 0 {
		t.Recomputed = &recomputed
	}
	return t
}

// Trace writes the traceback line of check and solve: how the traceback
// keeps the grid, and (solve, recomputed >= 0) how many bands the walk
// recomputed.
func Trace(w io.Writer, lay plan.TraceLayout, recomputed int) {
	if lay.Device {
		fmt.Fprintf(w, "traceback  GPU memory, %s: %s\n", Bytes(lay.Bytes), lay.Why)
		return
	}
	if lay.Whole {
		fmt.Fprintf(w, "traceback  whole grid, %s: %s\n", Bytes(lay.Bytes), lay.Why)
		return
	}
	if lay.Blocks {
		where := ""
		if lay.DeviceBlocks {
			where = " in GPU memory"
		}
		fmt.Fprintf(w, "traceback  linear memory, %s: blocks of %d x %d cells (%d x %d), the last %d row(s) and %d column(s) before each kept; the walk recomputes%s the blocks it enters (at most %.2fx the grid's cells)\n",
			Bytes(lay.Bytes), lay.Band, lay.BlockCols, lay.Bands, lay.ColBlocks, lay.Reach, lay.ColReach, where, lay.Recompute)
		if recomputed >= 0 {
			fmt.Fprintf(w, "           %d block(s) recomputed\n", recomputed)
		}
		return
	}
	where := ""
	if lay.DeviceBands {
		where = ", each band in GPU memory"
	}
	switch {
	case lay.Nested && lay.SubSwapped:
		where += ", each traced back transposed from checkpoints of its own (two levels)"
	case lay.Nested:
		where += ", each traced back from checkpoints of its own (two levels)"
	}
	kept := "the last %d row(s) of each kept"
	if lay.Spill {
		kept = "the last %d row(s) of each kept in a temporary file (" + Bytes(lay.SpillBytes) + ")"
	}
	walk := "the walk recomputes the bands it crosses"
	if lay.Narrow {
		walk += " up to the column it enters at, keeping the columns near its path"
	}
	fmt.Fprintf(w, "traceback  linear memory, %s: %d bands of %d rows%s, "+kept+"; %s (at most %.2fx the grid's cells)\n",
		Bytes(lay.Bytes), lay.Bands, lay.Band, where, lay.Reach, walk, lay.Recompute)
	if recomputed >= 0 {
		fmt.Fprintf(w, "           %d band(s) recomputed\n", recomputed)
	}
}
