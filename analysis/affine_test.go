package analysis

import (
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

// TestAffineOf: reduction variables keep their coefficients, a part that is
// not linear goes to Rest with the range opaque gives it (and marks Data
// even where that range is one value), and cancelling terms vanish.
func TestAffineOf(t *testing.T) {
	i := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarI, Name: "i"}
	j := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarJ, Name: "j"}
	red := &ir.Reduce{}
	k := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarReduce, Name: "k", Reduce: red}
	red.Var = k
	in := &ir.Input{Name: "w", T: ir.Int, Rows: 1, Cols: 3, Vector: true, I: []int64{4, 9, 7}}
	load := &ir.Load{Node: ir.Node{T: ir.Int}, In: in, Index: []ir.Expr{k}}
	c := func(v int64) ir.Expr { return &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Int, I: v}} }
	bin := func(op ir.Op, x, y ir.Expr) ir.Expr { return &ir.Binary{Node: ir.Node{T: ir.Int}, Op: op, X: x, Y: y} }
	opaque := func(ir.Expr) Range { return Range{4, 9} }
	cases := []struct {
		name           string
		e              ir.Expr
		I, J, K, coefK int64
		rest           Range
		data           bool
	}{
		{"k + 1", bin(ir.OpAdd, k, c(1)), 0, 0, 1, 1, Point(0), false},
		{"j - k", bin(ir.OpSub, j, k), 0, 1, 0, -1, Point(0), false},
		{"2*(i - k) + 2*k", bin(ir.OpAdd, bin(ir.OpMul, c(2), bin(ir.OpSub, i, k)), bin(ir.OpMul, k, c(2))), 2, 0, 0, 0, Point(0), false},
		{"j - w[k]", bin(ir.OpSub, j, load), 0, 1, 0, 0, Range{-9, -4}, true},
		{"i * j", bin(ir.OpMul, i, j), 0, 0, 0, 0, Range{4, 9}, true},
		{"0 * w[k]", bin(ir.OpMul, c(0), load), 0, 0, 0, 0, Point(0), false},
	}
	for _, tc := range cases {
		a, ok := AffineOf(tc.e, opaque)
		if !ok || a.I != tc.I || a.J != tc.J || a.K != tc.K || a.Red[k] != tc.coefK || a.Rest != tc.rest || a.Data != tc.data {
			t.Errorf("%s: %+v (ok %v)", tc.name, a, ok)
		}
		if tc.coefK == 0 && len(a.Red) != 0 {
			t.Errorf("%s: a zero coefficient kept: %v", tc.name, a.Red)
		}
	}
	// Without opaque, nothing is known of the non-linear part.
	if a, _ := AffineOf(bin(ir.OpSub, j, load), nil); !a.Rest.IsFull() || a.IsLinear() {
		t.Errorf("no opaque: %+v", a)
	}
}

// TestInputBounds: a read pinned to one element inside the input is that
// value; any other read is the input's range; a floating input is unknown.
func TestInputBounds(t *testing.T) {
	w := &ir.Input{Name: "w", T: ir.Int, Rows: 2, Cols: 3, I: []int64{5, -2, 8, 0, 3, 1}}
	f := &ir.Input{Name: "f", T: ir.Double, Rows: 1, Cols: 2, Vector: true, F: []float64{1, 2}}
	b := NewInputBounds(&ir.Problem{Inputs: []*ir.Input{w, f}})
	lw, lf := &ir.Load{In: w}, &ir.Load{In: f}
	for _, tc := range []struct {
		n      *ir.Load
		idx    []Range
		inside bool
		want   Range
	}{
		{lw, []Range{Point(1), Point(1)}, true, Point(3)},
		{lw, []Range{Point(0), Point(2)}, true, Point(8)},
		{lw, []Range{Point(1), Point(1)}, false, Range{-2, 8}},
		{lw, []Range{Range{0, 1}, Point(1)}, true, Range{-2, 8}},
		{lf, []Range{Point(0)}, true, Full()},
	} {
		if got := b.Load(tc.n, tc.idx, tc.inside); got != tc.want {
			t.Errorf("%s%v inside=%v: %v, want %v", tc.n.In.Name, tc.idx, tc.inside, got, tc.want)
		}
	}
}
