package plan_test

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems"
)

// The recurrences below are written out in full so that each near miss is
// visibly one change away from a recognised form.
const (
	twoSeqs = "char 1x? A = \"GATTACAGG\"\nchar 1x? B = \"TACGAT\"\n(len(A)+1) x (len(B)+1)\n"
	lcsBody = `cell[i][j] = 0                                  when i == 0 || j == 0
           | cell[i-1][j-1] + 1                 when A[i-1] == B[j-1]
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`
	levBody = `cell[i][j] = j when i == 0
           | i when j == 0
           | min(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : 1), cell[i-1][j] + 1, cell[i][j-1] + 1) otherwise
`
)

func TestRecognise(t *testing.T) {
	builtin := func(name string) string {
		b, ok := problems.Lookup(name)
		if !ok {
			t.Fatalf("no built-in %s", name)
		}
		return string(b.Source)
	}
	type want struct {
		kind       plan.SpecialKind // "" for none
		semi, tran bool
		a          string // the name of Special.A
	}
	for _, c := range []struct {
		name string
		src  string
		sets [][2]string
		want want
	}{
		{"builtin lcs", builtin("lcs"), nil, want{plan.BitLCS, false, false, "A"}},
		// sub = 2 is a deletion plus an insertion: indel distance.
		{"builtin editdistance", builtin("editdistance"), nil, want{plan.BitIndel, false, false, "A"}},
		{"builtin editdistance sub=1", builtin("editdistance"), [][2]string{{"sub", "1"}}, want{plan.BitLevenshtein, false, false, "A"}},
		{"builtin editdistance sub=3", builtin("editdistance"), [][2]string{{"sub", "3"}}, want{plan.BitIndel, false, false, "A"}},
		{"builtin editdistance ins=2", builtin("editdistance"), [][2]string{{"ins", "2"}}, want{}},
		{"lcs", twoSeqs + lcsBody, nil, want{plan.BitLCS, false, false, "A"}},
		{"user lcs renamed, reordered", `char 1x? left = "GATTACAGG"
char 1x? right = "TACGAT"
(len(left)+1) x (len(right)+1)
cell[r][c] = cell[r-1][c-1] + 1 when r > 0 && c > 0 && right[c-1] == left[r-1]
           | 0 when r < 1 || c < 1
           | max(cell[r][c-1], cell[r-1][c]) otherwise
`, nil, want{plan.BitLCS, false, false, "left"}},
		{"lcs transposed inputs", `char 1x? A = "GATTACAGG"
char 1x? B = "TACGAT"
(len(B)+1) x (len(A)+1)
cell[i][j] = 0 when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1]) when A[j-1] != B[i-1]
           | cell[i-1][j-1] + 1 otherwise
`, nil, want{plan.BitLCS, false, false, "B"}},
		{"lcs as one max", twoSeqs + `cell[i][j] = (i == 0 || j == 0) ? 0 : max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 1 : 0), cell[i-1][j], cell[i][j-1])
`, nil, want{plan.BitLCS, false, false, "A"}},
		{"lcs long cells", strings.Replace(twoSeqs, "(len", "cell: long\n(len", 1) + lcsBody, nil, want{plan.BitLCS, false, false, "A"}},
		{"levenshtein", twoSeqs + levBody, nil, want{plan.BitLevenshtein, false, false, "A"}},
		{"levenshtein split", twoSeqs + `cell[i][j] = i + j when i == 0 || j == 0
           | cell[i-1][j-1] when A[i-1] == B[j-1]
           | 1 + min(cell[i-1][j-1], min(cell[i-1][j], cell[i][j-1])) otherwise
`, nil, want{plan.BitLevenshtein, false, false, "A"}}, // 1 + min(...) is min(... + 1)
		{"levenshtein split sum inside", twoSeqs + `cell[i][j] = i + j when i == 0 || j == 0
           | cell[i-1][j-1] when A[i-1] == B[j-1]
           | min(cell[i-1][j-1] + 1, min(cell[i-1][j] + 1, cell[i][j-1] + 1)) otherwise
`, nil, want{plan.BitLevenshtein, false, false, "A"}},
		{"levenshtein semi-global", twoSeqs + levBody + "answer: min(j in 0..COLS-1: cell[ROWS-1][j])\n", nil, want{plan.BitLevenshtein, true, false, "A"}},
		{"levenshtein semi-global column", twoSeqs + levBody + "answer: min(i in 0..ROWS-1: cell[i][COLS-1])\n", nil, want{plan.BitLevenshtein, true, true, "B"}},
		{"lcs semi-global", twoSeqs + lcsBody + "answer: max(j in 0..COLS-1: cell[ROWS-1][j])\n", nil, want{plan.BitLCS, true, false, "A"}},
		{"indel", twoSeqs + `cell[i][j] = j when i == 0
           | i when j == 0
           | cell[i-1][j-1] when A[i-1] == B[j-1]
           | min(cell[i-1][j], cell[i][j-1]) + 1 otherwise
`, nil, want{plan.BitIndel, false, false, "A"}},
		{"indel inside", twoSeqs + `cell[i][j] = j when i == 0
           | i when j == 0
           | cell[i-1][j-1] when A[i-1] == B[j-1]
           | min(cell[i-1][j] + 1, cell[i][j-1] + 1) otherwise
`, nil, want{plan.BitIndel, false, false, "A"}},
		{"answer explicit last cell", twoSeqs + lcsBody + "answer: cell[ROWS-1][COLS-1]\n", nil, want{plan.BitLCS, false, false, "A"}},

		// Near misses: one change each, none of them recognised.
		{"match + 2", twoSeqs + strings.Replace(lcsBody, "cell[i-1][j-1] + 1", "cell[i-1][j-1] + 2", 1), nil, want{}},
		{"base case 1", twoSeqs + strings.Replace(lcsBody, "= 0 ", "= 1 ", 1), nil, want{}},
		{"base case only i == 0", twoSeqs + strings.Replace(lcsBody, "when i == 0 || j == 0", "when i == 0 || j < 0", 1), nil, want{}},
		{"wrong offset in input", twoSeqs + strings.Replace(lcsBody, "A[i-1] == B[j-1]", "A[i-1] == B[j]", 1), nil, want{}},
		{"same index both sides", twoSeqs + strings.Replace(lcsBody, "A[i-1] == B[j-1]", "A[i-1] == B[i-1]", 1), nil, want{}},
		{"float cell", strings.Replace(twoSeqs, "(len", "cell: double\n(len", 1) + lcsBody, nil, want{}},
		{"reads cell[i-2][j]", twoSeqs + strings.Replace(lcsBody, "max(cell[i-1][j]", "max(cell[i-2][j]", 1), nil, want{}},
		{"min instead of max", twoSeqs + strings.Replace(lcsBody, "max(", "min(", 1), nil, want{}},
		{"lcs missing left", twoSeqs + strings.Replace(lcsBody, "max(cell[i-1][j], cell[i][j-1])", "cell[i-1][j]", 1), nil, want{}},
		{"lcs answer not last", twoSeqs + lcsBody + "answer: cell[ROWS-2][COLS-1]\n", nil, want{}},
		{"lcs semi-global min", twoSeqs + lcsBody + "answer: min(j in 0..COLS-1: cell[ROWS-1][j])\n", nil, want{}},
		{"levenshtein match + 1", twoSeqs + strings.Replace(levBody, "? 0 : 1", "? 1 : 1", 1), nil, want{}},
		{"levenshtein base j + 1", twoSeqs + strings.Replace(levBody, "= j when", "= j + 1 when", 1), nil, want{}},
		{"levenshtein up + 2", twoSeqs + strings.Replace(levBody, "cell[i-1][j] + 1", "cell[i-1][j] + 2", 1), nil, want{}},
		{"levenshtein semi-global sum", twoSeqs + levBody + "answer: sum(j in 0..COLS-1: cell[ROWS-1][j])\n", nil, want{}},
		{"levenshtein semi-global part row", twoSeqs + levBody + "answer: min(j in 1..COLS-1: cell[ROWS-1][j])\n", nil, want{}},
		{"condition on data beyond chars", `char 1x? A = "GATTACAGG"
char 1x? B = "TACGAT"
int 1x? W = 1,2,3,4,5,6,7,8,9,10
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == 0 || j == 0
           | cell[i-1][j-1] + 1 when A[i-1] == B[j-1] && W[i] > 0
           | max(cell[i-1][j], cell[i][j-1]) otherwise
`, nil, want{}},
		{"condition on j", twoSeqs + strings.Replace(lcsBody, "when A[i-1] == B[j-1]", "when A[i-1] == B[j-1] && j > 2", 1), nil, want{}},
		{"int inputs", strings.ReplaceAll(twoSeqs, "char 1x? A = \"GATTACAGG\"\nchar 1x? B = \"TACGAT\"", "int 1x? A = 1,2,3,1\nint 1x? B = 3,1,2") + lcsBody, nil, want{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var opts []dptest.Option
			for _, s := range c.sets {
				opts = append(opts, dptest.Set(s[0], s[1]))
			}
			_, pl := dptest.Load(t, "t.dp", c.src, opts...)
			s := pl.Special
			if c.want.kind == "" {
				if s != nil {
					t.Fatalf("recognised %s (%s), want nothing", s.Kind, s.Why)
				}
				return
			}
			if s == nil {
				t.Fatalf("not recognised, want %s", c.want.kind)
			}
			if s.Kind != c.want.kind || s.SemiGlobal != c.want.semi || s.Transposed != c.want.tran || s.A.Name != c.want.a {
				t.Errorf("got %s semi %v transposed %v A %s, want %+v", s.Kind, s.SemiGlobal, s.Transposed, s.A.Name, c.want)
			}
			if s.Name == "" || s.Why == "" {
				t.Errorf("Name %q, Why %q: both must say something", s.Name, s.Why)
			}
		})
	}
}
