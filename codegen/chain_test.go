package codegen

import (
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestChainRecognised: the host's rows program chains a reduction over
// copies of an item written in any order of its terms and factors, with
// any bound, and only that form (backend/cpu's TestCompiledChain checks
// the values and errors it gives).
func TestChainRecognised(t *testing.T) {
	for _, tc := range []struct {
		name, red string
		want      bool
	}{
		{"unbounded", "max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*val[i-1])", true},
		{"factors swapped", "max(c in 0..w / wt[i-1]: val[i-1]*c + cell[i-1][w - wt[i-1]*c])", true},
		{"min, any bound", "min(k in 0..min(3, w / wt[i-1]): cell[i-1][w - k*wt[i-1]] + k*val[i-1])", true},
		{"a constant step", "max(k in 0..w / 4: cell[i-1][w - k*4] + k*val[i-1])", true},
		{"starts at 1", "max(k in 1..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*val[i-1])", false},
		{"step of the column", "max(k in 0..w / (w + 1): cell[i-1][w - k*(w+1)] + k*val[i-1])", false},
		{"increment of the column", "max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*w)", false},
		{"no increment", "max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]])", false},
		{"a sum", "sum(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*val[i-1])", false},
		{"increment squared", "max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*k*val[i-1])", false},
	} {
		src := fmt.Sprintf(`int 1x? wt = 2,3,4
int 1x? val = 3,4,5
int cap = 20
(len(wt)+1) x (cap+1)
cell[i][w] = 0 when i == 0
           | %s otherwise
`, tc.red)
		p, pl := dptest.Load(t, "chain.dp", src)
		hp, err := GenerateHost(p, pl)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if hp.Chain != tc.want {
			t.Errorf("%s: chained %v, want %v", tc.name, hp.Chain, tc.want)
		}
	}
}
