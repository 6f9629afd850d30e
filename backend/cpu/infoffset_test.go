package cpu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestInfOffsets: + and - of a constant or a value on cells that may be
// inf of one sign, of the other, or of both — the one-sided forms and the
// folded offsets of codegen (emitter.satOffset: `(x - 5) - 1` as x - 6,
// clamped rather than tested where x may be -inf only) — compiled, against
// the Go evaluator, cell by cell, with infinities on the borders and
// flowing through the grid. The generated code is checked to use each form,
// so that a case which stopped exercising one says so.
func TestInfOffsets(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	for _, tc := range []struct {
		name  string
		body  string
		forms []string // in the host program
	}{
		{"-inf only", `cell[i][j] = -inf                          when j == 0 && i > 0
           | -inf                          when i == 0 && j % 3 == 1
           | 0                             when i == 0
           | max(cell[i][j-1] - 2, (cell[i-1][j] - 5) - 1, (cell[i-1][j-1] + 5) - 2, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3))   otherwise`,
			[]string{"dp_xdown<int>(", "dp_xadd<int, 1>("}},
		{"inf only", `cell[i][j] = inf                           when j == 0 && i > 0
           | inf                           when i == 0 && j % 4 == 2
           | 0                             when i == 0
           | min(cell[i][j-1] + 2, (cell[i-1][j] + 5) + 1, (cell[i-1][j] - 7) + 3, cell[i-1][j-1] - (A[i-1] == B[j-1] ? 2 : -3))   otherwise`,
			[]string{"dp_xup<int>(", "dp_xadd<int, 2>(", "dp_xsub<int, 2>("}},
		{"both", `cell[i][j] = inf                           when j == 0 && i > 0
           | -inf                          when i == 0 && j % 2 == 1
           | j                             when i == 0
           | min(cell[i-1][j] - 2, (cell[i][j-1] + 3) - 1)                     when (i + j) % 2 == 0
           | max(cell[i-1][j-1] - 1, cell[i-1][j] + (A[i-1] == B[j-1] ? 1 : -1), cell[i][j-1] - (A[i-1] == B[j-1] ? 2 : 0))   otherwise`,
			[]string{"dp_xadd<int>(", "dp_xsub<int>("}},
		// Two offsets, one of a table never inf: GPU kernels write
		// max(X - 2, (H - 4) - 3) as max(X, H - 5) - 2 (emitter.offsetPair,
		// emulated in codegen's TestEmulatedOffsetPairs), host programs not.
		{"pair -inf", `X[i][j] = -inf                                  when j == 0 || (i == 2 && j == 1)
        | max(X[i][j-1] - 2, (H[i][j-1] - 4) - 3)   otherwise
H[i][j] = i - j                                 when i == 0 || j == 0
        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], H[i-1][j] - 6)   otherwise`,
			[]string{"dp_xdown<int>(a.template ref<0>(i, (j - 2), i, j), -2)"}},
		{"pair inf", `Y[i][j] = inf                                   when i == 0 || (i == 1 && j == 3)
        | min(Y[i-1][j] + 3, H[i-1][j] + 1)         otherwise
H[i][j] = i + j                                 when i == 0 || j == 0
        | min(H[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : 2), Y[i][j], H[i][j-1] + 4)   otherwise`,
			[]string{"dp_xup<int>(a.template ref<0>((i - 1), j, i, j), 3)"}},
		// max(Z - 2, H - 7) where Z may be inf (on the GPU max(Z, H - 5) is
		// inf where Z is, and the outer - 2 keeps it).
		{"pair keeps inf", `Z[i][j] = inf                                   when j == 0 && i % 2 == 1
        | i                                     when j == 0
        | max(Z[i][j-1] - 2, (H[i][j-1] - 4) - 3)   otherwise
H[i][j] = i - j                                 when i == 0 || j == 0
        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), H[i-1][j] - 6)   otherwise`,
			[]string{"dp_xadd<int, 2>(a.template ref<0>(i, (j - 2), i, j), -2)"}},
	} {
		for _, n := range [][2]int{{1, 1}, {2, 17}, {17, 2}, {33, 70}, {70, 45}} {
			a, b := dptest.DNA(r, n[0]), dptest.DNA(r, n[1])
			src := fmt.Sprintf("problem infoffsets\nchar 1x? A = %q\nchar 1x? B = %q\n(len(A)+1) x (len(B)+1)\n%s\n", a, b, tc.body)
			p, pl := dptest.Load(t, "inf.dp", src)
			if n == [2]int{33, 70} {
				h, err := codegen.GenerateHost(p, pl)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range tc.forms {
					if !strings.Contains(h.Source, f) {
						t.Errorf("%s: the host program has no %s", tc.name, f)
					}
				}
			}
			for _, keep := range []bool{true, false} {
				for _, threads := range []int{1, 3} {
					opt := backend.Options{Threads: threads, Maintain: keep}
					name := fmt.Sprintf("%s %dx%d threads=%d keep=%v", tc.name, n[0], n[1], threads, keep)
					want, err := solveGo(t, p, pl, opt)
					if err != nil {
						t.Fatalf("%s, evaluator: %v\n%s", name, err, src)
					}
					got, err := solveCompiled(t, c, p, pl, opt)
					if err != nil {
						t.Fatalf("%s, compiled: %v\n%s", name, err, src)
					}
					if got.Answer != want.Answer {
						t.Errorf("%s: answer %v, the evaluator's %v", name, got.Answer, want.Answer)
					}
					if !keep {
						continue
					}
					for i := int64(0); i < p.Rows; i++ {
						for j := int64(0); j < p.Cols; j++ {
							if g, w := got.Grid.At(i, j), want.Grid.At(i, j); g != w {
								t.Fatalf("%s: cell[%d][%d] = %v, the evaluator's %v\n%s", name, i, j, g, w, src)
							}
						}
					}
				}
			}
		}
	}
}

// TestInfOffsetKeepsChecks: an operand of one value that may still report
// an error (W[j] * 0 + 5 reads past the input's end) is not
// folded into an offset: the compiled run reports the evaluator's error.
func TestInfOffsetKeepsChecks(t *testing.T) {
	c := withCompiler(t)
	p, pl := dptest.Load(t, "w.dp", `problem w
int 1x3 W = 5, 5, 5
4 x 5
cell[i][j] = -inf                                   when j == 0
           | 0                                      when i == 0
           | max(cell[i][j-1] - (W[j] * 0 + 5), cell[i-1][j] - 1)   otherwise
`)
	opt := backend.Options{Threads: 1}
	_, want := solveGo(t, p, pl, opt)
	_, got := solveCompiled(t, c, p, pl, opt)
	const msg = "W[3] is outside W"
	if want == nil || got == nil || !strings.Contains(got.Error(), msg) || !strings.Contains(want.Error(), msg) {
		t.Fatalf("compiled: %v; the evaluator: %v; want both to say %q", got, want, msg)
	}
}
