package dptest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// Random3 is a random recurrence of a 3-D grid for differential tests of
// the 3-D hyperplanes: a max over one to three references with offsets in
// -2..2 along each axis, sometimes with a min over a range along i or j,
// plus one, inside a border of base cells; and the grid a memoised
// recursion over the definition computes, which knows no schedule (Want[k]
// is plane k's R*C cells row after row; a cell that depends on an empty
// min — inf — is NoEdge). Cyclic is true where the definition has a cycle
// (no schedule may run it).
type Random3 struct {
	Src     string
	K, R, C int
	Want    [][]int64
	Cyclic  bool
	Terms   string
}

// RandomRefs3 is one to three references cell[k+a][i+b][j+c] with a, b, c
// in -2..2: their offsets and their text.
func RandomRefs3(r *rand.Rand) (offs [][3]int, terms []string) {
	for x := 0; x < 1+r.IntN(3); x++ {
		o := [3]int{r.IntN(5) - 2, r.IntN(5) - 2, r.IntN(5) - 2}
		offs = append(offs, o)
		terms = append(terms, fmt.Sprintf("cell[k%+d][i%+d][j%+d]", o[0], o[1], o[2]))
	}
	return offs, terms
}

// EachRandom3 calls f with up to want random recurrences (NewRandom3) whose
// plan is a 3-D hyperplane, drawn from r (at most 400 draws), and fails t
// when the plan accepts a cyclic one or fewer than want/2 came.
func EachRandom3(t testing.TB, r *rand.Rand, want int, f func(rc Random3, p *ir.Problem, pl *plan.Plan)) {
	t.Helper()
	runs := 0
	for n := 0; n < 400 && runs < want; n++ {
		rc := NewRandom3(r)
		p, pl, err := TryLoad(t, "r3.dp", rc.Src)
		if err != nil || !pl.Schedule.Generic() || !pl.T.Three() {
			continue
		}
		if rc.Cyclic {
			t.Fatalf("the plan %s accepts a cyclic recurrence:\n%s", pl.T.In(p), rc.Src)
		}
		runs++
		f(rc, p, pl)
	}
	if runs < want/2 {
		t.Errorf("only %d random recurrences got a 3-D plan", runs)
	}
}

// NewRandom3 draws one with sides 5..9.
func NewRandom3(r *rand.Rand) Random3 {
	K, R, C := 5+r.IntN(5), 5+r.IntN(5), 5+r.IntN(5)
	refs, terms := RandomRefs3(r)
	red := r.IntN(3) // 0 none, 1 a min along i, 2 along j
	switch red {
	case 1:
		terms = append(terms, "min(m in 2..i-1: cell[k][m][j])")
	case 2:
		terms = append(terms, "min(m in 2..j-1: cell[k][i][m])")
	}
	if len(terms) == 1 {
		terms = append(terms, terms[0])
	}
	out := Random3{K: K, R: R, C: C, Terms: strings.Join(terms, ", ")}
	out.Src = fmt.Sprintf("%d x %d x %d\ncell[k][i][j] = (k*7 + i*3 + j) %% 5 when k < 2 || i < 2 || j < 2 || k > DIM0-3 || i > ROWS-3 || j > COLS-3\n | max(%s) + 1 otherwise\n", K, R, C, out.Terms)
	const unset, busy = -1, -2
	const inf = int64(NoEdge)
	memo := make([]int64, K*R*C)
	for x := range memo {
		memo[x] = unset
	}
	var val func(k, i, j int) int64
	val = func(k, i, j int) int64 {
		x := (k*R+i)*C + j
		switch memo[x] {
		case busy:
			out.Cyclic = true
			return 0
		case unset:
		default:
			return memo[x]
		}
		if k < 2 || i < 2 || j < 2 || k > K-3 || i > R-3 || j > C-3 {
			memo[x] = int64((k*7 + i*3 + j) % 5)
			return memo[x]
		}
		memo[x] = busy
		best := int64(-1)
		for _, o := range refs {
			best = max(best, val(k+o[0], i+o[1], j+o[2]))
		}
		if red != 0 {
			lim := i
			if red == 2 {
				lim = j
			}
			m := inf // an empty min is inf
			for q := 2; q < lim; q++ {
				if red == 1 {
					m = min(m, val(k, q, j))
				} else {
					m = min(m, val(k, i, q))
				}
			}
			best = max(best, m)
		}
		if best != inf {
			best++ // inf + 1 is inf
		}
		memo[x] = best
		return best
	}
	for k := 0; k < K; k++ {
		for i := 0; i < R; i++ {
			for j := 0; j < C; j++ {
				val(k, i, j)
			}
		}
	}
	out.Want = make([][]int64, K)
	for k := range out.Want {
		out.Want[k] = memo[k*R*C : (k+1)*R*C]
	}
	return out
}
