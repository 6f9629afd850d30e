package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/render"
)

// The gotoh-local and semiglobal built-ins: an answer over one table of
// three (every third flat column of the grid), against plain-Go
// references, and the traceback's alignment record re-scored with the
// affine costs to the answer — on the CPU, and on the GPU when there is
// one.

func TestAffineBuiltinsCPU(t *testing.T) { runAffine(t, cpu.New(2)) }

func TestAffineBuiltinsGPU(t *testing.T) { withGPU(t, runAffine) }

func runAffine(t *testing.T, ex backend.Executor) {
	r := dptest.Rand(t)
	for _, name := range []string{"gotoh-local", "semiglobal"} {
		b, ok := problems.Lookup(name)
		if !ok {
			t.Fatalf("no built-in %s", name)
		}
		for _, n := range []int{1, 2, 3, 17, 100} {
			a, bs := dptest.DNA(r, n), dptest.DNA(r, n+r.IntN(2*n+1))
			o, e := int64(r.IntN(8)+1), int64(r.IntN(3)+1)
			src := strings.NewReplacer(
				`char 1x? A = "`, fmt.Sprintf("char 1x? A = %q\n# ", a),
				`char 1x? B = "`, fmt.Sprintf("char 1x? B = %q\n# ", bs),
				"int o = 5", fmt.Sprintf("int o = %d", o),
				"int e = 2", fmt.Sprintf("int e = %d", e),
			).Replace(string(b.Source))
			l, res := solveV2(t, ex, fmt.Sprintf("%s-%d.dp", name, n), src, true)
			if res == nil {
				continue
			}
			want := dptest.GotohLocalScore(a, bs, o, e, dptest.DNAPair)
			if name == "semiglobal" {
				want = dptest.SemiGlobalScore(a, bs, o, e, dptest.DNAPair)
			}
			if got := res.Answer().I; got != want {
				t.Errorf("%s n=%d: answer %d, reference %d\n%s", name, n, got, want, src)
				continue
			}
			rec, ok := render.AlignmentRecord(l.Problem, res.Grid.Path, render.LeadGap(res.Tree))
			if !ok {
				t.Fatalf("%s n=%d: no alignment record from the path %v", name, n, res.Grid.Path)
			}
			if score := affineScore(t, rec, o, e); score != want {
				t.Errorf("%s n=%d: the CIGAR %s (A %d..%d, B %d..%d) scores %d, the answer is %d", name, n, rec.CIGAR, rec.QStart, rec.QEnd, rec.TStart, rec.TEnd, score, want)
			}
			if testing.Verbose() {
				t.Logf("%s n=%d: %d, %s", name, n, want, rec.CIGAR)
			}
			if name == "semiglobal" && (rec.QStart != 0 || rec.QEnd != int64(len(a))) {
				t.Errorf("semiglobal n=%d: the alignment covers A %d..%d, not all of it", n, rec.QStart, rec.QEnd)
			}
		}
	}
}

// affineScore scores a record's CIGAR over its sequences: match 2,
// mismatch -3 (dptest.DNAPair), a run of L gap letters -(o + e*L).
func affineScore(t *testing.T, r render.Record, o, e int64) int64 {
	t.Helper()
	var score, k int64
	qi, ti := r.QStart, r.TStart
	for _, c := range []byte(r.CIGAR) {
		if c >= '0' && c <= '9' {
			k = 10*k + int64(c-'0')
			continue
		}
		switch c {
		case '=', 'X':
			for x := int64(0); x < k; x++ {
				score += dptest.DNAPair(r.Query[qi+x], r.Target[ti+x])
				if (r.Query[qi+x] == r.Target[ti+x]) != (c == '=') {
					t.Fatalf("CIGAR %s: %c at %d, %d", r.CIGAR, c, qi+x, ti+x)
				}
			}
			qi, ti = qi+k, ti+k
		case 'I':
			score, qi = score-o-e*k, qi+k
		case 'D':
			score, ti = score-o-e*k, ti+k
		default:
			t.Fatalf("CIGAR %s: %c", r.CIGAR, c)
		}
		k = 0
	}
	if qi != r.QEnd || ti != r.TEnd {
		t.Fatalf("CIGAR %s ends at %d, %d, the record at %d, %d", r.CIGAR, qi, ti, r.QEnd, r.TEnd)
	}
	return score
}
