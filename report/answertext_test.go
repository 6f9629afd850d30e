package report

import (
	"testing"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// TestAnswerTextDims checks that where the answer comes from is worded in
// the grid's own dimensions: a 1-D grid, lowered to 1 x N, shows no row.
func TestAnswerTextDims(t *testing.T) {
	one := &ir.Problem{Dims: 1, Rows: 1, Cols: 8}
	two := &ir.Problem{Dims: 2, Rows: 5, Cols: 8}
	cell := plan.AnswerSpec{Kind: plan.AnswerCell, I: 0, J: 7}
	region := plan.AnswerSpec{Kind: plan.AnswerRegion, Op: ir.ReduceMax, I0: 0, I1: 0, J0: 0, J1: 7}
	tests := []struct {
		p    *ir.Problem
		a    plan.AnswerSpec
		want string
	}{
		{one, cell, "cell[7]"},
		{two, cell, "cell[0][7]"},
		{one, region, "max over cells [0..7] (streamed)"},
		{two, region, "max over cells [0..0][0..7] (streamed)"},
	}
	for _, tc := range tests {
		if got := answerText(tc.p, tc.a); got != tc.want {
			t.Errorf("Dims %d: %q, want %q", tc.p.Dims, got, tc.want)
		}
	}
	if got := AnswerText(cell); got != "cell[0][7]" {
		t.Errorf("AnswerText: %q", got)
	}
}
