package mathtab

import (
	"math"
	"testing"
)

// TestBudget: MaxBytes, and a quarter of the least room given.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		room []int64
		want int64
	}{
		{nil, MaxBytes},
		{[]int64{400}, 100},
		{[]int64{math.MaxInt64}, MaxBytes},
		{[]int64{8 << 30, 400 << 20}, 100 << 20},
		{[]int64{400 << 20, 8 << 30}, 100 << 20},
		{[]int64{0}, 0},
	} {
		if got := Budget(c.room...); got != c.want {
			t.Errorf("Budget(%v) = %d, want %d", c.room, got, c.want)
		}
	}
}
