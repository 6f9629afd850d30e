package codegen

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestPack16Decisions: which batch programs compute two instances a warp
// in 16-bit halves (codegen/pack16.go), and why the others do not. The
// emulated batch tests (TestEmulatedBatch) check the packed programs'
// answers.
func TestPack16Decisions(t *testing.T) {
	nw := func(n, m int, match, mismatch, gap string) string {
		return `problem nw
char 1x? A = "` + strings.Repeat("ACGT", n)[:n] + `"
char 1x? B = "` + strings.Repeat("GATC", m)[:m] + `"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = i * ` + gap + ` when j == 0
           | j * ` + gap + ` when i == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? ` + match + ` : ` + mismatch + `), cell[i-1][j] + ` + gap + `, cell[i][j-1] + ` + gap + `) otherwise
`
	}
	for _, c := range []struct {
		name, src string
		opt       Options
		why       string // "" where packed
		has       []string
	}{
		{name: "nw-150", src: nw(150, 150, "1", "-1", "-2"), has: []string{"dp_h2_seleq_nc(", "dp_h2_addmax("}},
		// b - a's 16 bits carry into the high half when added to a's:
		// no multiply-add.
		{name: "nw-carry", src: nw(40, 40, "-1", "1", "-2"), has: []string{"dp_h2_seleq("}},
		// Cells down to -3,000 x 300 rows and columns: not 16 bits.
		{name: "nw-wide-range", src: nw(300, 300, "1", "-1", "-3000"), why: "may not fit 16 bits"},
		// Comparisons of cells as masks, selects by them, a subtraction
		// of two cells, a negation (TestEmulatedBatch runs it).
		{name: "masks", src: masksCase("ACGTTGCA", "TTGACG").src, has: []string{"dp_h2_gt(", "dp_h2_ge(", "dp_h2_sel(", "dp_h2_sub(", "dp_h2_neg(", "dp_h2_ne("}},
		{name: "nw-asked-not", src: nw(20, 20, "1", "-1", "-2"), opt: Options{BatchNoPack: true}, why: "not asked for"},
		{name: "float", src: `problem f
cell: double
char 1x? A = "ACGT"
char 1x? B = "ACG"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0.5 when i == 0 || j == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 1.5 : -1.0), cell[i-1][j] - 2.0, cell[i][j-1] - 2.0) otherwise
`, why: "not integers"},
		{name: "sum", src: `problem s
char 1x? A = "ACGT"
char 1x? B = "ACG"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == 0 || j == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 1 : 0), cell[i-1][j], cell[i][j-1]) otherwise
answer: sum(j in 0..COLS-1: cell[ROWS-1][j])
`, why: "answer is a sum"},
		{name: "division", src: `problem d
int 1x20 D = 1,2,3,4,5,1,2,3,4,5,1,2,3,4,5,1,2,3,4,5
args: D
20 x 30
cell[i][j] = max((i > 0 ? cell[i-1][j] : 0) + 1000 / D[i], j > 0 ? cell[i][j-1] : 0)
`, why: "may report"},
		{name: "multiply", src: `problem m
char 1x? A = "ACGT"
char 1x? B = "ACG"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == 0 || j == 0
           | max(cell[i-1][j-1] * 2, cell[i][j-1] + 1, cell[i-1][j]) otherwise
`, why: "is not packed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, pl := dptest.Load(t, c.name+".dp", c.src)
			opt := c.opt
			opt.Batch, opt.BatchInputs = true, []string{"A", "B"}
			if c.name == "division" {
				opt.BatchInputs = []string{"D"}
			}
			prog, err := Generate(p, pl, opt)
			if err != nil {
				t.Fatal(err)
			}
			if prog.BatchPacked != (c.why == "") || (c.why != "" && !strings.Contains(prog.BatchUnpacked, c.why)) {
				t.Fatalf("packed %v (%q), want packed %v or a reason with %q", prog.BatchPacked, prog.BatchUnpacked, c.why == "", c.why)
			}
			for _, h := range c.has {
				if !strings.Contains(prog.Source, h) {
					t.Errorf("the program has no %s", h)
				}
			}
			if prog.BatchPacked != strings.Contains(prog.Source, "dp_rec16") {
				t.Errorf("packed %v, but the source's dp_rec16 says otherwise", prog.BatchPacked)
			}
		})
	}
}
