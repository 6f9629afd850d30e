package ir

import (
	"math"
	"math/big"
	"testing"
)

// TestExact64 checks Add64, Sub64 and Mul64 against big integers at the
// edges of int64.
func TestExact64(t *testing.T) {
	vals := []int64{0, 1, -1, 2, -2, 3, 1 << 31, -(1 << 32), math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MinInt64 / 2, 3037000499, -3037000500}
	fits := func(b *big.Int) bool { return b.IsInt64() }
	for _, a := range vals {
		for _, b := range vals {
			x, y := big.NewInt(a), big.NewInt(b)
			check := func(name string, v int64, ok bool, want *big.Int) {
				if ok != fits(want) || (ok && v != want.Int64()) {
					t.Errorf("%s(%d, %d) = %d, %v; want %v", name, a, b, v, ok, want)
				}
			}
			v, ok := Add64(a, b)
			check("Add64", v, ok, new(big.Int).Add(x, y))
			v, ok = Sub64(a, b)
			check("Sub64", v, ok, new(big.Int).Sub(x, y))
			v, ok = Mul64(a, b)
			check("Mul64", v, ok, new(big.Int).Mul(x, y))
		}
	}
}

func TestArith(t *testing.T) {
	p, n := InfSentinel(Int)
	fin := Int.Info().FiniteHi
	cases := []struct {
		op    Op
		t     Type
		sat   bool
		x, y  int64
		want  int64
		fault Fault
	}{
		{OpAdd, Int, false, fin, 1, 0, FaultOverflow},
		{OpAdd, Int, false, fin - 1, 1, fin, FaultNone},
		{OpSub, Long, false, -Long.Info().FiniteHi, 1, 0, FaultOverflow},
		{OpMul, Int, false, 46341, 46341, 0, FaultOverflow},
		{OpDiv, Int, false, 7, 0, 0, FaultDivZero},
		{OpRem, Int, false, -7, 3, -1, FaultNone},
		{OpAdd, Int, true, p, 5, p, FaultNone},
		{OpAdd, Int, true, p, n, 0, FaultInfSub},
		{OpSub, Int, true, 5, p, n, FaultNone},
		{OpMul, Int, true, n, 0, 0, FaultInfMul},
		{OpMul, Int, true, n, -3, p, FaultNone},
		{OpDiv, Int, true, p, p, 0, FaultInfDiv},
		{OpDiv, Int, true, 9, n, 0, FaultNone},
		{OpRem, Int, true, p, 4, 0, FaultInfRem},
		{OpRem, Int, true, 4, p, 4, FaultNone},
		{OpAdd, Char, false, 127, 127, 254, FaultNone}, // char computes as int
	}
	for _, c := range cases {
		v, f := Arith(c.op, c.t, c.sat, c.x, c.y)
		if f != c.fault || (f == FaultNone && v != c.want) {
			t.Errorf("Arith(%s, %s, sat %v, %d, %d) = %d, fault %d; want %d, fault %d", c.op, c.t, c.sat, c.x, c.y, v, f, c.want, c.fault)
		}
	}
}
