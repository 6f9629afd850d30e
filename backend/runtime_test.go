package backend

import (
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

func TestGridBytesAndFits(t *testing.T) {
	for _, tc := range []struct {
		t    ir.Type
		size int
	}{{ir.Short, 2}, {ir.Int, 4}, {ir.Long, 8}, {ir.Float, 4}, {ir.Double, 8}} {
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
	for k := 0; k < len(Cells[int32](g)); k += 4099 {
		if Cells[int32](g)[k] != 0 {
			t.Fatalf("cell %d of a new grid = %d", k, Cells[int32](g)[k])
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

// TestGridTypes stores and reads back values, the inf sentinels included,
// through Set, PutInts/PutFloats and At for every cell type.
func TestGridTypes(t *testing.T) {
	for _, ty := range ir.Types() {
		if !ty.Is(ir.IsCell) {
			continue
		}
		g := NewGrid(ty, 3, 4)
		if len(g.Bytes()) != 12*ty.Size() {
			t.Fatalf("%s: %d bytes", ty, len(g.Bytes()))
		}
		lo, hi := ir.FiniteRange(ty)
		pos, neg := ir.InfSentinel(ty)
		ints := []int64{lo, hi, pos, neg, 0, -1}
		floats := []float64{-1.5, 2.25, 1e30, -0.0, 7, 3}
		if ty.IsFloat() {
			g.PutFloats(0, 1, floats)     // row 0 and half of row 1
			g.PutFloats(3, 4, floats[:3]) // column 3
			g.Set(2, 1, ir.Value{T: ty, F: 42})
		} else {
			g.PutInts(0, 1, ints)
			g.PutInts(3, 4, ints[:3])
			g.Set(2, 1, ir.Value{T: ty, I: 42})
		}
		for k := 0; k < 6; k++ {
			i, j := int64(k/4), int64(k%4)
			if k == 3 {
				continue // overwritten by the column
			}
			v := g.At(i, j)
			if v.T != ty || (ty.IsFloat() && v.F != float64(float32(floats[k])) && ty.Size() == 4) ||
				(ty.IsFloat() && ty.Size() == 8 && v.F != floats[k]) || (!ty.IsFloat() && v.I != ints[k]) {
				t.Errorf("%s: cell %d = %v", ty, k, v)
			}
		}
		for r := int64(0); r < 3; r++ {
			v := g.At(r, 3)
			if (ty.IsFloat() && v.F != float64(float32(floats[r])) && v.F != floats[r]) || (!ty.IsFloat() && v.I != ints[r]) {
				t.Errorf("%s: cell[%d][3] = %v", ty, r, v)
			}
		}
		if v := g.At(2, 1); v.Float64() != 42 {
			t.Errorf("%s: Set/At gave %v", ty, v)
		}
	}
	g := NewGrid(ir.Short, 2, 2)
	Cells[int16](g)[3] = -32767
	if v := g.At(1, 1); v.I != -32767 {
		t.Errorf("short view: %v", v)
	}
	defer func() {
		if recover() == nil {
			t.Error("a 4-byte view of a short grid did not panic")
		}
	}()
	Cells[int32](g)
}

// TestGridRowsOf: rows of a grid as a grid of their own share its memory;
// rows outside it are nil.
func TestGridRowsOf(t *testing.T) {
	g := NewGrid(ir.Short, 5, 3)
	for i := range int64(5) {
		for j := range int64(3) {
			g.Set(i, j, ir.Value{T: ir.Short, I: 10*i + j})
		}
	}
	v := g.RowsOf(2, 2)
	if v == nil || v.Rows != 2 || v.Cols != 3 || v.At(1, 2).I != 32 || v.At(0, 0).I != 20 {
		t.Fatalf("rows 2..3: %+v", v)
	}
	v.Set(0, 1, ir.Value{T: ir.Short, I: -7})
	if g.At(2, 1).I != -7 {
		t.Errorf("a write to the rows is not the grid's")
	}
	if g.RowsOf(4, 2) != nil || g.RowsOf(-1, 1) != nil || g.RowsOf(0, -1) != nil {
		t.Errorf("rows outside the grid")
	}
	if e := g.RowsOf(5, 0); e == nil || e.Rows != 0 {
		t.Errorf("no rows at the end: %+v", e)
	}
}
