package backend

import (
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

func TestGridBytesAndFits(t *testing.T) {
	for _, tc := range []struct {
		t    ir.Type
		size int
	}{{ir.Int, 4}, {ir.Long, 8}, {ir.Float, 4}, {ir.Double, 8}} {
		g := NewGrid(tc.t, 3, 5)
		if got := len(g.Bytes()); got != 15*tc.size {
			t.Errorf("%s: %d bytes, want %d", tc.t, got, 15*tc.size)
		}
		if !g.Fits(tc.t, 3, 5) || g.Fits(tc.t, 5, 3) || g.Fits(tc.t, 3, 4) {
			t.Errorf("%s: Fits is wrong", tc.t)
		}
		other := ir.Int
		if tc.t == ir.Int {
			other = ir.Long
		}
		if g.Fits(other, 3, 5) {
			t.Errorf("%s grid fits %s", tc.t, other)
		}
		// Bytes aliases the cells.
		g.Bytes()[len(g.Bytes())-1] = 0x40
		if v := g.At(2, 4); v.Float64() == 0 {
			t.Errorf("%s: Bytes does not alias the cells", tc.t)
		}
	}
	var none *Grid
	if none.Fits(ir.Int, 1, 1) {
		t.Error("a nil grid fits")
	}
	// A large grid (huge pages, touched in parallel) is zeroed.
	g := NewGrid(ir.Int, 4096, 4097)
	for k := 0; k < len(g.I32); k += 4099 {
		if g.I32[k] != 0 {
			t.Fatalf("cell %d of a new grid = %d", k, g.I32[k])
		}
	}
}

func TestOptionsNewGrid(t *testing.T) {
	p := &ir.Problem{Rows: 3, Cols: 4, CellType: ir.Long}
	given := NewGrid(ir.Long, 3, 4)
	if g := (Options{Grid: given}).NewGrid(p); g != given {
		t.Error("a fitting grid was not used")
	}
	if g := (Options{Grid: NewGrid(ir.Int, 3, 4)}).NewGrid(p); g.T != ir.Long || g.Rows != 3 || g.Cols != 4 {
		t.Errorf("for a grid of another type: %+v", g)
	}
	if g := (Options{}).NewGrid(p); !g.Fits(ir.Long, 3, 4) {
		t.Errorf("without a grid: %+v", g)
	}
}
