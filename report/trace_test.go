package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/plan"
)

// TestTraceLine: the traceback line says where the grid is kept — whole,
// in GPU memory, bands on the host or the GPU, two levels, transposed —
// and how many bands solve recomputed.
func TestTraceLine(t *testing.T) {
	for _, c := range []struct {
		lay        plan.TraceLayout
		recomputed int
		want       []string
		not        []string
	}{
		{plan.TraceLayout{Whole: true, Bytes: 1 << 20, Why: "fits"}, -1, []string{"whole grid, 1.0 MiB: fits"}, nil},
		{plan.TraceLayout{Device: true, Bytes: 1 << 30, Why: "on the GPU"}, -1, []string{"GPU memory, 1.0 GiB"}, nil},
		{plan.TraceLayout{Band: 10, Bands: 5, Reach: 1, Recompute: 2.1}, 3, []string{"5 bands of 10 rows", "3 band(s) recomputed"}, []string{"GPU", "two levels", "near its path"}},
		{plan.TraceLayout{Band: 10, Bands: 5, Reach: 1, Recompute: 3.1, Narrow: true}, -1, []string{"up to the column it enters at, keeping the columns near its path (at most 3.10x"}, nil},
		{plan.TraceLayout{Band: 10, Bands: 5, Reach: 2, DeviceBands: true, Nested: true, SubSwapped: true}, -1,
			[]string{"each band in GPU memory", "transposed from checkpoints of its own (two levels)", "the last 2 row(s)"}, []string{"recomputed\n"}},
		{plan.TraceLayout{Band: 10, Bands: 5, Reach: 1, Nested: true}, -1, []string{"each traced back from checkpoints of its own (two levels)"}, []string{"transposed", "GPU"}},
		{plan.TraceLayout{Blocks: true, DeviceBlocks: true, Band: 64, Bands: 5, Reach: 1, BlockCols: 70, ColBlocks: 4, ColReach: 2, Recompute: 1.05}, 7,
			[]string{"blocks of 64 x 70 cells (5 x 4)", "1 row(s) and 2 column(s)", "in GPU memory the blocks it enters (at most 1.05x", "7 block(s) recomputed"}, []string{"band"}},
		{plan.TraceLayout{Blocks: true, Band: 512, Bands: 59, Reach: 1, BlockCols: 512, ColBlocks: 59, ColReach: 1, Recompute: 1.03}, 117,
			[]string{"blocks of 512 x 512 cells (59 x 59)", "recomputes the blocks it enters (at most 1.03x", "117 block(s) recomputed"}, []string{"band", "GPU"}},
	} {
		var b bytes.Buffer
		Trace(&b, c.lay, c.recomputed)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%+v: %q lacks %q", c.lay, b.String(), w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%+v: %q has %q", c.lay, b.String(), w)
			}
		}
	}
}

// TestTraceObject: the JSON record says one or two levels, on the device
// or not, transposed or not; a whole grid has no levels.
func TestTraceObject(t *testing.T) {
	two := TraceObject(plan.TraceLayout{Band: 10, Bands: 5, Reach: 1, DeviceBands: true, Nested: true, SubSwapped: true}, 2)
	if two.Layout != "checkpoints" || two.Levels != 2 || !two.Transposed || !two.OnDevice || two.Recomputed == nil || *two.Recomputed != 2 {
		t.Errorf("two levels: %+v", two)
	}
	one := TraceObject(plan.TraceLayout{Band: 10, Bands: 5, Reach: 1}, -1)
	if one.Levels != 1 || one.Transposed || one.OnDevice || one.Recomputed != nil {
		t.Errorf("one level: %+v", one)
	}
	blocks := TraceObject(plan.TraceLayout{Blocks: true, DeviceBlocks: true, Band: 64, Bands: 5, Reach: 1, BlockCols: 70, ColBlocks: 4, ColReach: 2}, 3)
	if blocks.Layout != "blocks" || blocks.BlockCols != 70 || blocks.ColBlocks != 4 || blocks.ColReach != 2 || blocks.BandRows != 64 || !blocks.OnDevice {
		t.Errorf("blocks: %+v", blocks)
	}
	if host := TraceObject(plan.TraceLayout{Blocks: true, Band: 64, Bands: 5, Reach: 1, BlockCols: 70, ColBlocks: 4, ColReach: 2}, 3); host.Layout != "blocks" || host.OnDevice {
		t.Errorf("blocks on the host: %+v", host)
	}
	if whole := TraceObject(plan.TraceLayout{Whole: true}, -1); whole.Levels != 0 || whole.Layout != "whole grid" {
		t.Errorf("whole: %+v", whole)
	}
}
