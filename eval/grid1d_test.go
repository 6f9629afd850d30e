package eval

import (
	"testing"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// TestOutsideGridWording checks how a read outside the grid is worded, for
// a 2-D grid and for a 1-D one (lowered to 1 x N, its references marked
// OneD): directly, and through the reference evaluator's CellFunc.
func TestOutsideGridWording(t *testing.T) {
	at := source.Pos{File: "t.dp", Line: 3, Col: 11}
	intC := func(v int64) ir.Expr { return &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Int, I: v}} }
	j := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarJ, Name: "j"}
	jMinus1 := &ir.Binary{Node: ir.Node{T: ir.Int}, Op: ir.OpSub, X: j, Y: intC(1)}
	tests := []struct {
		ref        *ir.CellRef
		rows, cols int64
		want       string
	}{
		{&ir.CellRef{Node: ir.Node{T: ir.Int, Pos: at}, I: intC(0), J: jMinus1, Text: "cell[j-1]", OneD: true}, 1, 8,
			"t.dp:3:11: cell[j-1] reads cell[-1], outside the 1-D grid of 8 cells"},
		{&ir.CellRef{Node: ir.Node{T: ir.Int, Pos: at}, I: intC(0), J: jMinus1, Text: "cell[0][j-1]"}, 1, 8,
			"t.dp:3:11: cell[0][j-1] reads cell[0][-1], outside the 1x8 grid"},
		{&ir.CellRef{Node: ir.Node{T: ir.Int, Pos: at}, I: intC(0), J: jMinus1, OneD: true}, 1, 8,
			"t.dp:3:11: cell[..] reads cell[-1], outside the 1-D grid of 8 cells"},
	}
	for _, tc := range tests {
		if got := OutsideGrid(tc.ref, 0, -1, tc.rows, tc.cols).Error(); got != tc.want {
			t.Errorf("OutsideGrid:\n got %s\nwant %s", got, tc.want)
		}
		cells := GridCells(tc.rows, tc.cols, func(i, j int64) ir.Value { return ir.Value{T: ir.Int} })
		_, err := EvalAt(tc.ref, 0, 0, cells)
		if err == nil || err.Error() != tc.want {
			t.Errorf("EvalAt:\n got %v\nwant %s", err, tc.want)
		}
	}
	_, err := EvalAt(tests[0].ref, 0, 3, nil)
	if want := "t.dp:3:11: cell[j-1]: no grid to read cell[2] from"; err == nil || err.Error() != want {
		t.Errorf("without a grid:\n got %v\nwant %s", err, want)
	}
}
