package analysis

import (
	"math"
	"math/rand"
	"testing"
)

// TestRangeOps checks every operation against brute force: each value of
// the result of an operation on small ranges lies in the computed range.
func TestRangeOps(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	pick := func() Range {
		a, b := rnd.Int63n(21)-10, rnd.Int63n(21)-10
		return Span(min(a, b), max(a, b))
	}
	type op struct {
		name string
		f    func(r, s Range) Range
		v    func(x, y int64) (int64, bool)
	}
	ops := []op{
		{"add", Range.Add, func(x, y int64) (int64, bool) { return x + y, true }},
		{"sub", Range.Sub, func(x, y int64) (int64, bool) { return x - y, true }},
		{"mul", Range.Mul, func(x, y int64) (int64, bool) { return x * y, true }},
		{"quo", Range.Quo, func(x, y int64) (int64, bool) { return safeDiv(x, y, false) }},
		{"rem", Range.Rem, func(x, y int64) (int64, bool) { return safeDiv(x, y, true) }},
		{"min", Range.Min, func(x, y int64) (int64, bool) { return min(x, y), true }},
		{"max", Range.Max, func(x, y int64) (int64, bool) { return max(x, y), true }},
		{"hull", Range.Hull, func(x, y int64) (int64, bool) { return x, true }},
	}
	for range 2000 {
		r, s := pick(), pick()
		for _, o := range ops {
			got := o.f(r, s)
			for x := r.Lo; x <= r.Hi; x++ {
				for y := s.Lo; y <= s.Hi; y++ {
					if v, ok := o.v(x, y); ok && !got.Has(v) {
						t.Fatalf("%s(%v, %v) = %v, misses %d (%d, %d)", o.name, r, s, got, v, x, y)
					}
				}
			}
		}
		for x := r.Lo; x <= r.Hi; x++ {
			if n, a := r.Neg(), r.Abs(); !n.Has(-x) || !a.Has(max(x, -x)) {
				t.Fatalf("neg/abs of %v: %v, %v miss %d", r, n, a, x)
			}
		}
	}
}

func TestRangeEdges(t *testing.T) {
	cases := []struct {
		name      string
		got, want Range
	}{
		{"overflowing add is full", Point(math.MaxInt64).Add(Point(1)), Full()},
		{"overflowing mul is full", Span(2, 3).Mul(Point(math.MaxInt64 / 2)), Full()},
		{"neg of MinInt64 is full", Point(math.MinInt64).Neg(), Full()},
		{"abs of MinInt64 is full", Span(math.MinInt64, 0).Abs(), Full()},
		{"empty is absorbing", Point(3).Add(Empty()), Empty()},
		{"empty is the hull's identity", Empty().Hull(Point(4)), Point(4)},
		{"disjoint meet is empty", Point(1).Meet(Point(2)), Empty()},
		{"zero times anything is zero", Point(0).Mul(Full()), Point(0)},
		{"quotient of unknown by 2", Full().Quo(Point(2)), Span(math.MinInt64/2, math.MaxInt64/2)},
		{"quotient by a negative divisor", Span(1, 9).Quo(Point(-2)), Span(-4, 0)},
		{"quotient by a range", Span(1, 9).Quo(Span(1, 2)), Span(0, 9)},
		{"quotient of both signs by a range", Span(-9, 9).Quo(Span(2, 4)), Span(-4, 4)},
		{"quotient by negatives", Span(-9, 7).Quo(Span(-4, -2)), Span(-3, 4)},
		{"quotient by a range holding 0", Span(1, 9).Quo(Span(-1, 2)), Full()},
		{"MinInt64 by -1 wraps", Span(math.MinInt64, 0).Quo(Span(-3, -1)), Full()},
		{"MinInt64 by -2 does not", Point(math.MinInt64).Quo(Point(-2)), Point(math.MinInt64 / -2)},
		{"remainder by 0", Span(1, 9).Rem(Point(0)), Full()},
		{"remainder of a negative range", Span(-9, -1).Rem(Point(4)), Span(-3, 0)},
		{"remainder of a small range", Span(0, 2).Rem(Point(-7)), Span(0, 2)},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if !Empty().Within(0, 0) || Full().Within(math.MinInt64+1, math.MaxInt64) || !Full().IsFull() || !Span(2, 1).IsEmpty() {
		t.Error("Within, IsFull or IsEmpty is wrong")
	}
}

// safeDiv is x / y or x % y, ok false for y == 0.
func safeDiv(x, y int64, rem bool) (int64, bool) {
	switch {
	case y == 0:
		return 0, false
	case rem:
		return x % y, true
	}
	return x / y, true
}
