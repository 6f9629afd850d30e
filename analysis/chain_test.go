package analysis_test

import (
	"testing"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestChainAlone: the chain reduction is a case's whole value (the
// unbounded knapsack), or it is not (added to, or read by a condition).
func TestChainAlone(t *testing.T) {
	const head = "problem c\nint 1x? wt = 2,3\nint 1x? v = 4,5\nint cap = 9\n(len(wt)+1) x (cap+1)\n"
	red := "max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*v[i-1])"
	for _, c := range []struct {
		name, rec string
		want      bool
	}{
		{"alone", "cell[i][w] = 0 when i == 0\n | " + red + " otherwise\n", true},
		{"plus-one", "cell[i][w] = 0 when i == 0\n | " + red + " + 1 otherwise\n", false},
		{"in-a-condition", "cell[i][w] = 0 when i == 0\n | 1 when " + red + " > 50\n | " + red + " otherwise\n", false},
	} {
		p, _ := dptest.Load(t, c.name+".dp", head+c.rec)
		r := analysis.FirstChain(p)
		if r == nil {
			t.Fatalf("%s: no chain", c.name)
		}
		if got := analysis.ChainAlone(p, r); got != c.want {
			t.Errorf("%s: ChainAlone %v, want %v", c.name, got, c.want)
		}
	}
}

// TestClassChain: a bound of exactly j / S is a class chain; a capped
// one (the bounded knapsack's) is a chain, but not one by classes.
func TestClassChain(t *testing.T) {
	const head = "problem c\nint 1x? wt = 2,3\nint 1x? v = 4,5\nint cap = 9\n(len(wt)+1) x (cap+1)\ncell[i][w] = 0 when i == 0\n"
	for _, c := range []struct {
		name, bound string
		want        bool
	}{
		{"quotient", "w / wt[i-1]", true},
		{"capped", "min(2, w / wt[i-1])", false},
	} {
		p, _ := dptest.Load(t, c.name+".dp", head+" | max(k in 0.."+c.bound+": cell[i-1][w - k*wt[i-1]] + k*v[i-1]) otherwise\n")
		if analysis.FirstChain(p) == nil {
			t.Fatalf("%s: no chain", c.name)
		}
		if red, _, ok := analysis.ClassChain(p); ok != c.want || (ok && red != analysis.FirstChain(p)) {
			t.Errorf("%s: ClassChain %v, want %v", c.name, ok, c.want)
		}
	}
}
