package gen

import (
	"math"
	"path/filepath"
	"testing"
)

func TestChecks(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"lcs defaults", CheckLCS(1000, 1, 0.5), true},
		{"lcs empty", CheckLCS(0, 0, 0), true},
		{"lcs negative length", CheckLCS(-1, 1, 0.5), false},
		{"lcs absurd length", CheckLCS(MaxLength+1, 1, 0.5), false},
		{"lcs NaN ratio", CheckLCS(10, nan, 0.5), false},
		{"lcs NaN planted", CheckLCS(10, 1, nan), false},
		{"lcs inf ratio", CheckLCS(10, inf, 0.5), false},
		{"lcs ratio above 1", CheckLCS(10, 1.5, 0.5), false},
		{"lcs negative planted", CheckLCS(10, 1, -0.1), false},
		{"ext fa", CheckSequenceExt(".fa"), true},
		{"ext TXT", CheckSequenceExt(".TXT"), true},
		{"ext png", CheckSequenceExt(".png"), false},
		{"ext none", CheckSequenceExt(""), false},
		{"knapsack", CheckKnapsack(100, 1000), true},
		{"knapsack no items", CheckKnapsack(0, 1000), false},
		{"knapsack negative items", CheckKnapsack(-5, 1000), false},
		{"knapsack absurd items", CheckKnapsack(MaxItems+1, 1000), false},
		{"knapsack zero capacity", CheckKnapsack(10, 0), false},
		{"knapsack absurd capacity", CheckKnapsack(10, MaxCapacity+1), false},
		{"manhattan", CheckManhattan(100), true},
		{"manhattan zero", CheckManhattan(0), false},
		{"manhattan absurd", CheckManhattan(MaxSide + 1), false},
		{"output here", CheckOutput("x.txt"), true},
		{"output empty", CheckOutput(""), false},
		{"output missing directory", CheckOutput(filepath.Join(t.TempDir(), "no", "x.txt")), false},
		{"output is a directory", CheckOutput(t.TempDir()), false},
	}
	for _, tt := range tests {
		if (tt.err == nil) != tt.ok {
			t.Errorf("%s: got %v, want ok=%v", tt.name, tt.err, tt.ok)
		}
	}
}

// FuzzGenDataFlags: whatever the flag values, the checks never panic, and
// values they accept (at sizes small enough to build here) never make a
// generator panic or produce an instance that breaks its own promises.
func FuzzGenDataFlags(f *testing.F) {
	f.Add(1000, 1.0, 0.5, 100, int64(1000), 100)
	f.Add(0, 0.0, 0.0, 0, int64(0), 0)
	f.Add(-1, math.NaN(), math.NaN(), -1, int64(-1), -1)
	f.Add(5, math.Inf(1), math.Inf(-1), 1, int64(MaxCapacity), 1)
	f.Add(3, 0.25, 1.0, 2, int64(1), 2)
	f.Fuzz(func(t *testing.T, n int, ratio, planted float64, items int, capacity int64, side int) {
		if CheckLCS(n, ratio, planted) == nil && n <= 4096 {
			m := SecondLength(n, ratio)
			if m < 0 || m > n {
				t.Fatalf("second length %d of %d at ratio %v", m, n, ratio)
			}
			a, b, common := LCSPair(NewRand(1), n, m, planted)
			if len(a) != n || len(b) != m || len(common) > min(n, m) {
				t.Fatalf("lengths %d %d %d for n=%d m=%d", len(a), len(b), len(common), n, m)
			}
		}
		if CheckKnapsack(items, capacity) == nil && items <= 4096 {
			k, _ := Knapsack(NewRand(1), items, capacity, true)
			for _, w := range k.Weights {
				if w < 1 || w > max(capacity, 1) {
					t.Fatalf("weight %d for capacity %d", w, capacity)
				}
			}
		}
		if CheckManhattan(side) == nil && side <= 256 {
			down, right := Manhattan(NewRand(1), side)
			if len(down) != (side-1)*side || len(right) != side*(side-1) {
				t.Fatalf("city of side %d: %d, %d weights", side, len(down), len(right))
			}
		}
	})
}
