package analysis

import (
	"math"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

func TestLinear(t *testing.T) {
	i := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarI, Name: "i"}
	j := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarJ, Name: "j"}
	red := &ir.Reduce{}
	k := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarReduce, Name: "k", Reduce: red}
	c := func(v int64) ir.Expr { return &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Int, I: v}} }
	bin := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: ir.Int}, Op: op, X: x, Y: y}
	}
	neg := func(x ir.Expr) ir.Expr { return &ir.Unary{Node: ir.Node{T: ir.Int}, Op: ir.OpNeg, X: x} }
	long := func(x ir.Expr) ir.Expr { return &ir.Convert{Node: ir.Node{T: ir.Long}, X: x} }
	sat := &ir.Binary{Node: ir.Node{T: ir.Int}, Op: ir.OpSub, X: i, Y: c(1), Saturate: true}
	floatC := &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Double, F: 2.75}}
	cases := []struct {
		name string
		e    ir.Expr
		want Form
		ok   bool
	}{
		{"i", i, Form{I: 1}, true},
		{"i - 1", bin(ir.OpSub, i, c(1)), Form{I: 1, K: -1}, true},
		{"2*i + 3*j - 4", bin(ir.OpSub, bin(ir.OpAdd, bin(ir.OpMul, c(2), i), bin(ir.OpMul, j, c(3))), c(4)), Form{I: 2, J: 3, K: -4}, true},
		{"-(j - i)", neg(bin(ir.OpSub, j, i)), Form{I: 1, J: -1}, true},
		{"long(i) + 2", bin(ir.OpAdd, long(i), c(2)), Form{I: 1, K: 2}, true},
		{"a truncated floating literal", bin(ir.OpSub, i, floatC), Form{I: 1, K: -2}, true},
		{"i * j", bin(ir.OpMul, i, j), Form{}, false},
		{"i / 2", bin(ir.OpDiv, i, c(2)), Form{}, false},
		{"a reduction variable", bin(ir.OpAdd, i, k), Form{}, false},
		{"an operation on inf", sat, Form{}, false},
		{"an overflowing coefficient", bin(ir.OpMul, bin(ir.OpMul, i, c(math.MaxInt64)), c(2)), Form{}, false},
	}
	for _, tc := range cases {
		f, ok := Linear(tc.e)
		if ok != tc.ok || (ok && f != tc.want) {
			t.Errorf("%s: Linear = %+v, %v; want %+v, %v", tc.name, f, ok, tc.want, tc.ok)
		}
	}
	offsets := []struct {
		e    ir.Expr
		v    ir.VarKind
		d    int64
		ok   bool
		name string
	}{
		{bin(ir.OpSub, i, c(1)), ir.VarI, 1, true, "i-1 along i"},
		{bin(ir.OpAdd, j, c(2)), ir.VarJ, -2, true, "j+2 along j"},
		{bin(ir.OpSub, i, c(1)), ir.VarJ, 0, false, "i-1 along j"},
		{bin(ir.OpAdd, i, j), ir.VarI, 0, false, "i+j along i"},
		{bin(ir.OpMul, c(2), i), ir.VarI, 0, false, "2*i along i"},
	}
	for _, tc := range offsets {
		d, ok := Offset(tc.e, tc.v)
		if ok != tc.ok || d != tc.d {
			t.Errorf("%s: Offset = %d, %v; want %d, %v", tc.name, d, ok, tc.d, tc.ok)
		}
	}
}
