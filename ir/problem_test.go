package ir

import "testing"

// TestCellAndGridText checks how cells and grids are named in messages: a
// 1-D grid, lowered to 1 x N, never shows its row.
func TestCellAndGridText(t *testing.T) {
	tests := []struct {
		p          Problem
		cell, grid string
	}{
		{Problem{Dims: 1, Rows: 1, Cols: 17}, "cell[5]", "1-D grid of 17 cells"},
		{Problem{Dims: 2, Rows: 3, Cols: 7}, "cell[2][5]", "3x7 grid"},
		{Problem{Rows: 3, Cols: 7}, "cell[2][5]", "3x7 grid"}, // built by hand: 2-D
	}
	for _, tc := range tests {
		i := int64(2)
		if tc.p.Dims == 1 {
			i = 0
		}
		if got := tc.p.CellText(i, 5); got != tc.cell {
			t.Errorf("Dims %d: CellText %q, want %q", tc.p.Dims, got, tc.cell)
		}
		if got := tc.p.GridText(); got != tc.grid {
			t.Errorf("Dims %d: GridText %q, want %q", tc.p.Dims, got, tc.grid)
		}
	}
}
