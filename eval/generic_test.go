package eval

import (
	"math"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

// TestCellRules pins the one store rule the int and float paths share: an
// integer cell refuses what is outside its store range (the sentinels
// included in it), a floating cell refuses only NaN, and only when the
// problem does not allow it.
func TestCellRules(t *testing.T) {
	for _, tc := range []struct {
		cell  ir.Type
		nanOK bool
		v     any
		bad   bool
	}{
		{ir.Int, false, int64(0), false},
		{ir.Int, false, int64(1<<31 - 1), false}, // inf
		{ir.Int, false, int64(-(1<<31 - 1)), false},
		{ir.Int, false, int64(1 << 31), true},
		{ir.Int, false, int64(-1 << 31), true},
		{ir.Long, false, int64(math.MaxInt64), false},
		{ir.Long, false, int64(math.MinInt64), true},
		{ir.Double, false, math.Inf(1), false},
		{ir.Double, false, math.Inf(-1), false},
		{ir.Double, false, math.NaN(), true},
		{ir.Double, true, math.NaN(), false},
		{ir.Float, false, 1.5, false},
	} {
		r := &Recurrence{rules: newCellRules(&ir.Problem{CellType: tc.cell, AllowNaN: tc.nanOK})}
		var got bool
		switch v := tc.v.(type) {
		case int64:
			got = ruleOf[int64](r).refuses(v)
		case float64:
			got = ruleOf[float64](r).refuses(v)
		}
		if got != tc.bad {
			t.Errorf("%s cell (nan allowed %v): refuses(%v) = %v, want %v", tc.cell, tc.nanOK, tc.v, got, tc.bad)
		}
	}
}

// TestRegisterAccess checks that the typed views of the registers and of a
// line are the fields they stand for and cost no allocation: the kernels
// take them once per instruction.
func TestRegisterAccess(t *testing.T) {
	m := &Machine{}
	if bankOf[int64](m) != &m.ints || bankOf[float64](m) != &m.floats || bankOf[bool](m) != &m.bools {
		t.Fatal("bankOf returns the wrong bank")
	}
	l := &Line{I: []int64{1, 2}, F: []float64{3}}
	if got := cellsOf[int64](l); len(got) != 2 || &got[0] != &l.I[0] {
		t.Errorf("cellsOf[int64] = %v, want l.I", got)
	}
	if got := cellsOf[float64](l); len(got) != 1 || &got[0] != &l.F[0] {
		t.Errorf("cellsOf[float64] = %v, want l.F", got)
	}
	if n := testing.AllocsPerRun(100, func() {
		_ = bankOf[float64](m)
		_ = cellsOf[float64](l)
		_ = ruleOf[int64](&Recurrence{})
	}); n != 0 {
		t.Errorf("%v allocations per access, want 0", n)
	}
}
