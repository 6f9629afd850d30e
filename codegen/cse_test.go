package codegen

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestCSE: a branch case's value reads the sum its condition computed
// (cse.go) only where the condition being true means it was computed: not
// on the right of an || or of an && whose truth is not the condition's.
// A value near 2^30 keeps the sums checked (the program is specialised to
// its data's bounds).
func TestCSE(t *testing.T) {
	const head = `problem k
int 1x? wt  = 2,3,4,5,9
int 1x? val = 3,4,5,8,1000000000
int cap = 20
(len(wt)+1) x (cap+1)
`
	for _, c := range []struct {
		name, rec string
		shared    int // temporaries
		adds      int // dp_addi calls left in dp_rec
	}{
		{"knapsack", `cell[i][w] = 0 when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1] when wt[i-1] <= w && cell[i-1][w-wt[i-1]] + val[i-1] > cell[i-1][w]
           | cell[i-1][w] otherwise
`, 1, 1},
		// Under ||, the condition may hold without computing the sum.
		{"or", `cell[i][w] = 0 when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1] when wt[i-1] <= w && (val[i-1] > 7 || cell[i-1][w-wt[i-1]] + val[i-1] > cell[i-1][w])
           | cell[i-1][w] otherwise
`, 0, 2},
		// Under ! of a comparison: both sides computed whatever its value.
		{"not", `cell[i][w] = 0 when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1] when wt[i-1] <= w && !(cell[i-1][w-wt[i-1]] + val[i-1] <= cell[i-1][w])
           | cell[i-1][w] otherwise
`, 1, 1},
		// Under ! of a &&: its right side may not be computed.
		{"not-and", `cell[i][w] = 0 when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1] when wt[i-1] <= w && !(val[i-1] > 7 && cell[i-1][w-wt[i-1]] + val[i-1] <= cell[i-1][w])
           | cell[i-1][w] otherwise
`, 0, 2},
		// Under == of a &&: the condition may hold with the && false,
		// its right side not computed.
		{"and-compared", `cell[i][w] = 0 when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1] when wt[i-1] <= w && ((val[i-1] > 7 && cell[i-1][w-wt[i-1]] + val[i-1] > cell[i-1][w]) == (val[i-1] > 3))
           | cell[i-1][w] otherwise
`, 0, 2},
		// Another sum: nothing shared.
		{"other", `cell[i][w] = 0 when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1] when wt[i-1] <= w && cell[i-1][w-wt[i-1]] + wt[i-1] > cell[i-1][w]
           | cell[i-1][w] otherwise
`, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, pl := dptest.Load(t, c.name+".dp", head+c.rec)
			prog, err := Generate(p, pl, Options{})
			if err != nil {
				t.Fatal(err)
			}
			src := prog.Source
			at := strings.Index(src, "// ---- the recurrence ----")
			rec := src[at : at+strings.Index(src[at:], "\n}\n")]
			if got := strings.Count(rec, "int dp_cse"); got != c.shared {
				t.Errorf("%d temporaries, want %d:\n%s", got, c.shared, rec)
			}
			if got := strings.Count(rec, "dp_addi("); got != c.adds {
				t.Errorf("%d checked additions, want %d:\n%s", got, c.adds, rec)
			}
		})
	}
}
