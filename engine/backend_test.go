package engine_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestOneAtATime: `--backend auto` leaves to the CPU the plans whose fronts
// are single cells without reductions, and only those.
func TestOneAtATime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	fib := "int n = 50\nn\ncell: long\ncell[j] = j when j < 2\n        | (cell[j-1] + cell[j-2]) % 1000000007 otherwise\n"
	for _, tc := range []struct {
		name, src string
		cpu       bool
	}{
		{"fib", fib, true},
		{"stock", dptest.StockCooldown(r, 40).Src, true},
		{"one cell", "1\ncell[j] = 7\n", false},
		{"lis look-back", dptest.NumberOfLIS(r, 40).Src, false},
		{"lcs", "char 1x? A = \"GATTACA\"\nchar 1x? B = \"GCATGCU\"\n(len(A)+1) x (len(B)+1)\ncell[i][j] = 0 when i == 0 || j == 0\n | cell[i-1][j-1] + 1 when A[i-1] == B[j-1]\n | max(cell[i-1][j], cell[i][j-1]) otherwise\n", false},
		{"one column by rows", "40 x 1\ncell[i][j] = 1 when i == 0\n | cell[i-1][j] * 2 % 1000 otherwise\n", true},
	} {
		p, pl := dptest.Load(t, tc.name+".dp", tc.src)
		why := engine.OneAtATime(p, pl)
		if (why != "") != tc.cpu || tc.cpu && !strings.Contains(why, "one after another") {
			t.Errorf("%s (%s, %d fronts of %d cells): %q, want the CPU: %v", tc.name, pl.Schedule, pl.Fronts, p.Cells(), why, tc.cpu)
		}
	}
}
