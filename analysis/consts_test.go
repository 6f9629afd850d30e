package analysis

import (
	"math"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

func TestInt(t *testing.T) {
	i := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarI, Name: "i"}
	k := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarReduce, Name: "k", Reduce: &ir.Reduce{}}
	c := func(v int64) ir.Expr { return &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Int, I: v}} }
	bin := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: ir.Int}, Op: op, X: x, Y: y}
	}
	call := func(fn ir.Func, args ...ir.Expr) ir.Expr {
		return &ir.Call{Node: ir.Node{T: ir.Int}, Fn: fn, Args: args}
	}
	n := &ir.Scalar{Name: "n", Value: ir.Value{T: ir.Int, I: 7}}
	x := &ir.Scalar{Name: "x", Value: ir.Value{T: ir.Double, F: 7}}
	floatC := &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Double, F: 2.75}}
	env := map[*ir.Var]int64{k: 5}
	for _, tc := range []struct {
		name string
		e    ir.Expr
		want int64
		ok   bool
	}{
		{"a constant", c(3), 3, true},
		{"a truncated floating literal", floatC, 2, true},
		{"a scalar", &ir.ScalarRef{Node: ir.Node{T: ir.Int}, Scalar: n}, 7, true},
		{"a floating scalar", &ir.ScalarRef{Node: ir.Node{T: ir.Double}, Scalar: x}, 0, false},
		{"a bound reduction variable", bin(ir.OpMul, k, c(2)), 10, true},
		{"an index variable", bin(ir.OpAdd, i, c(1)), 0, false},
		{"-(7 - 10) % 2", bin(ir.OpRem, &ir.Unary{Node: ir.Node{T: ir.Int}, Op: ir.OpNeg, X: bin(ir.OpSub, c(7), c(10))}, c(2)), 1, true},
		{"min and max", call(ir.FnMax, c(4), call(ir.FnMin, c(9), k)), 5, true},
		{"abs", call(ir.FnAbs, c(-4)), 0, false},
		{"a division by zero", bin(ir.OpDiv, c(1), c(0)), 0, false},
		{"an overflow", bin(ir.OpMul, c(math.MaxInt32), c(4)), 0, false},
		{"long(3)", &ir.Convert{Node: ir.Node{T: ir.Long}, X: c(3)}, 3, true},
	} {
		got, ok := Int(tc.e, env)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
