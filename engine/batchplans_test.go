package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// digitKnapsack is a 0/1 knapsack whose weights are the digits of a
// record: cell[i-1][j - w] reaches back as far as the heaviest item, so
// its plan depends on its instance's data (plan.DataBound).
const digitKnapsack = `problem digits
char 1x? W = "123"
args: W
(len(W)+1) x 30
cell[i][j] = 0                                                                       when i == 0
           | max(cell[i-1][j], j >= W[i-1] - 48 ? cell[i-1][j - (W[i-1] - 48)] + 1 : 0)   otherwise
`

// TestBatchSharedPlans: a CPU batch plans the first instance of a shape
// and gives the others its plan rebound to their own references and
// sequences (plan.Rebind) — the bit-parallel LCS reads each instance's
// own sequences, Needleman-Wunsch its own — but plans every instance
// whose plan depends on its data (a knapsack's reach): every answer equal
// to the instance solved alone.
func TestBatchSharedPlans(t *testing.T) {
	dir := t.TempDir()
	r := dptest.Rand(t)
	var as, bs, ws []record
	for k := range 24 {
		as = append(as, record{name: fmt.Sprintf("a%d", k), seq: dptest.DNA(r, 40)})
		bs = append(bs, record{name: fmt.Sprintf("b%d", k), seq: dptest.DNA(r, 33)})
		w := make([]byte, 12)
		for x := range w {
			w[x] = byte('1' + r.IntN(9))
			if k == 0 {
				w[x] = byte('1' + r.IntN(2)) // the first reaches 2 back, the others 9
			}
		}
		ws = append(ws, record{name: fmt.Sprintf("w%d", k), seq: string(w)})
	}
	writeFASTA(t, filepath.Join(dir, "a.fa"), as)
	writeFASTA(t, filepath.Join(dir, "b.fa"), bs)
	writeFASTA(t, filepath.Join(dir, "w.fa"), ws)
	knap := filepath.Join(dir, "digits.dp")
	if err := os.WriteFile(knap, []byte(digitKnapsack), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		specs  []string
		shared bool
	}{
		{"lcs", []string{filepath.Join(dir, "a.fa"), filepath.Join(dir, "b.fa")}, true},
		{"needleman-wunsch", []string{filepath.Join(dir, "a.fa"), filepath.Join(dir, "b.fa")}, true},
		{knap, []string{filepath.Join(dir, "w.fa")}, false},
	} {
		t.Run(filepath.Base(c.name), func(t *testing.T) {
			got, st, err := runBatch(t, context.Background(), c.name, c.specs, BatchOptions{Workers: 2, Pairs: len(c.specs) == 2})
			if err != nil {
				t.Fatal(err)
			}
			if c.shared != (st.SharedPlans > 0) || st.SharedPlans >= st.Instances {
				t.Errorf("%d of %d instances took a shared plan; want some (and not all): %v", st.SharedPlans, st.Instances, c.shared)
			}
			src, err := Resolve(c.name)
			if err != nil {
				t.Fatal(err)
			}
			for k, g := range got {
				vals := []bind.Value{{Name: "A", Text: as[k].seq}, {Name: "B", Text: bs[k].seq}}
				if !c.shared {
					vals = []bind.Value{{Name: "W", Text: ws[k].seq}}
				}
				l, err := Load(src, bind.Config{Values: vals})
				if err != nil {
					t.Fatal(err)
				}
				res, err := Run(context.Background(), l, cpu.New(1), backend.Options{Threads: 1})
				if err != nil {
					t.Fatal(err)
				}
				if g.Err != nil || g.Answer.String() != res.Answer().String() {
					t.Errorf("instance %d: %v (%v), alone %v", k, g.Answer, g.Err, res.Answer())
				}
			}
		})
	}
}
