package sema

import (
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
)

// FuzzCheck feeds the checker whatever the parser accepts: it must return a
// problem or errors, never panic, and a problem must satisfy the type
// invariants. Run with `go test -fuzz FuzzCheck ./sema`; the seeds run with
// every `go test`.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{knapsackSrc, lookbackSrc, thesisSrc, lowerHeader + "4x5\ncell[i][j] = min(k in 0..i: wt[k] + A[k]) + M[1][2]\n",
		"3x3\ncell[i][j] = inf when i == 0\n  | min(cell[i-1][j] + 1, -inf) otherwise emit 'c'\nanswer: sum(i in 0..2: cell[i][2])\n",
		"schedule: held-karp\nint ?x? dist = 0,1 & 1,0\n",
		lisSrc, "int n = 3\nschedule: t = n*i - j\n(n+1) x 4\ncell[i][j] = cell[i-1][j] when i > 0\n  | j otherwise\n",
		"7\nschedule: t = k\ncell[k] = k == 0 ? 0 : cell[k-1] + DIM0\nanswer: cell[DIM0-1]\n",
		// Contract v2 §7.4 and §7.5: argument emits, scalar reductions,
		// inf in data, expressions over several lines.
		"int 2x2 D = 0, inf & -inf, 3\nint H = sum(k in 0..rows(D)-1: max(j in 0..1: D[k][j] < inf ? D[k][j] : 0)) / 2\n" +
			"(H + 2) x 2\ncell[i][j] = 0 when i == 0\n  | max(cell[i-1][j] emit 'u',\n        cell[i-1][1-j] + D[j][j] emit cell[i-1][j] - 1) otherwise emit 'c'\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := dsl.Parse("f.dp", []byte(src))
		if err != nil {
			return
		}
		p, err := Check(file, nil)
		if (p == nil) == (err == nil) {
			t.Fatalf("Check returned problem %v and error %v", p != nil, err)
		}
		if p != nil {
			checkProblemTypes(t, p)
		}
	})
}
