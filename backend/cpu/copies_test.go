package cpu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestCompiledKnapsackCopies: the unbounded and bounded knapsacks, whose
// cells reduce over the copies of an item (`cell[i-1][w - k*wt[i-1]]`, k
// up to w / wt[i-1]), run compiled: the analysis keeps k*wt[i-1] within
// w (analysis.Walker's quotient bound), so the rows' padding is the row,
// not the capacity times the heaviest item ("a reference reads far
// outside the row", the Go evaluator at 0.002 GCUPS before), and their
// work counts the reduction. Answers against plain Go loops at awkward
// sizes.
func TestCompiledKnapsackCopies(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	for _, bounded := range []bool{false, true} {
		for _, size := range [][2]int{{1, 0}, {1, 1}, {2, 17}, {17, 1000}, {40, 3001}} {
			n, capacity := size[0], size[1]
			wt, val, cnt := dptest.Ints(r, n, 1, capacity/3+2), dptest.Ints(r, n, 0, 50), dptest.Ints(r, n, 0, 4)
			src := fmt.Sprintf(`int 1x? wt = %s
int 1x? val = %s
int 1x? cnt = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0 when i == 0
           | max(k in 0..%s: cell[i-1][w - k*wt[i-1]] + k*val[i-1]) otherwise
`, dptest.Join(wt), dptest.Join(val), dptest.Join(cnt), capacity, map[bool]string{
				false: "w / wt[i-1]",
				true:  "(wt[i-1] == 0 ? cnt[i-1] : min(cnt[i-1], w / wt[i-1]))",
			}[bounded])
			p, pl := dptest.Load(t, "copies.dp", src)
			hp, err := codegen.GenerateHost(p, pl)
			if err != nil {
				t.Fatal(err)
			}
			if got := work(p, hp); capacity > 3 && got <= p.Cells() {
				t.Errorf("%d items, capacity %d: work %d, not more than its cells", n, capacity, got)
			}
			// Plain Go: the best value within each capacity, item by item.
			best := make([]int64, capacity+1)
			for i := range n {
				next := make([]int64, capacity+1)
				for w := range next {
					for k := 0; k*wt[i] <= w && (!bounded || k <= cnt[i]); k++ {
						next[w] = max(next[w], best[w-k*wt[i]]+int64(k*val[i]))
					}
				}
				best = next
			}
			res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: 2})
			name := fmt.Sprintf("bounded=%v %d items, capacity %d", bounded, n, capacity)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !strings.Contains(res.Device, "compiled by") {
				t.Errorf("%s: not compiled: %s", name, res.Device)
			}
			if res.Answer.I != best[capacity] {
				t.Errorf("%s: answer %d, want %d\n%s", name, res.Answer.I, best[capacity], src)
			}
		}
	}
}
