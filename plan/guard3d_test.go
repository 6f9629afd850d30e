package plan_test

import (
	"testing"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestGuard3DOffsets: a reference of a 3-D grid is lowered with a guard
// (its subscripts inside their sides, else a read that fails); where the
// cases before it prove the guard (LCS of three strings: `i == 0 || j ==
// 0` false), its offsets are the constants of the flat column — dj = C+1,
// C, 1 — not a range over the grid, and nothing is checked at run time.
func TestGuard3DOffsets(t *testing.T) {
	p, pl := dptest.Load(t, "lcs3.dp", dptest.LCS3("ACGTACGTA", "ACCGTAG", "AGCTAC"))
	c := p.Inner // the third side: len(C)+1
	want := map[string][2]int64{
		"cell[k-1][i-1][j-1]": {1, c + 1},
		"cell[k-1][i][j]":     {1, 0},
		"cell[k][i-1][j]":     {0, c},
		"cell[k][i][j-1]":     {0, 1},
	}
	for _, d := range pl.Deps {
		w, ok := want[d.Ref.Text]
		if !ok {
			t.Fatalf("unexpected reference %s", d.Ref.Text)
		}
		if d.RangeI != analysis.Point(w[0]) || d.RangeJ != analysis.Point(w[1]) {
			t.Errorf("%s: di %v, dj %v, want %d and %d", d.Ref.Text, d.RangeI, d.RangeJ, w[0], w[1])
		}
		if d.Checked {
			t.Errorf("%s: checked at run time, though its guard is proven", d.Ref.Text)
		}
	}
	// Without a case that proves it, cell[k-1][i][j-1] at j = 0 would
	// read the flat cell before it: the guard stays (the read fails at
	// run time), and the offset is a range.
	_, pl2 := dptest.Load(t, "open3.dp", `problem open3
3 x 4 x 5
cell[k][i][j] = 0 when k == 0
              | cell[k-1][i][j-1] + 1 otherwise
`)
	if r := pl2.Deps[0].RangeJ; r.IsPoint() {
		t.Errorf("cell[k-1][i][j-1] without a case for j == 0: dj %v, want a range (the guard is not proven)", r)
	}
}
