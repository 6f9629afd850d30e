package plan_test

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/plan"
)

const matrixChain = `long 1x? d = 30,35,15,5,10,20,25
(len(d)-1) x (len(d)-1)
cell: long
cell[i][j] = 0 when i >= j
           | min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1]) otherwise
answer: cell[0][COLS-1]
`

const nussinov = `char 1x? s = "GGGAAAUCC"
len(s) x len(s)
cell[i][j] = 0 when j - i < 4
           | max(cell[i+1][j], cell[i][j-1], cell[i+1][j-1] + ((s[i] == 'A' && s[j] == 'U') || (s[i] == 'U' && s[j] == 'A') || (s[i] == 'G' && s[j] == 'C') || (s[i] == 'C' && s[j] == 'G') ? 1 : 0), max(k in i+1..j-1: cell[i][k] + cell[k+1][j])) otherwise
answer: cell[0][COLS-1]
`

// lis1xN is the longest increasing subsequence on a 1 x N grid.
const lis1xN = `int 1x? a = 3,1,4,1,5,9,2,6
1 x len(a)
cell[i][j] = 1 + max(k in 0..j-1: a[k] < a[j] ? cell[i][k] : 0)
answer: max(j in 0..COLS-1: cell[0][j])
`

func coinChange(coins string) string {
	return `int 1x? c = ` + coins + `
int amount = 11
1 x (amount+1)
cell[i][s] = 0 when s == 0
           | min(k in 0..len(c)-1: c[k] <= s ? cell[i][s-c[k]] + 1 : inf) otherwise
`
}

// twoTables is an interval DP of two tables that read each other over
// ranges of shorter intervals, after the header lines head.
func twoTables(head string) string {
	return head + `int 1x? v = 1,2,3,4,5,6
len(v) x len(v)
cell: long
T[i][j] = 1   when i == j
        | 0   when i > j
        | sum(k in i..j-1: T[i][k] + F[k+1][j])  otherwise
F[i][j] = 1   when i == j
        | 0   when i > j
        | sum(k in i..j-1: T[i][k] + F[k+1][j]) + T[i][j]  otherwise
answer: T[0][COLS-1]
`
}

// fourTables needs fronts t = J - 4*i, beyond the one-table candidates.
const fourTables = `int 1x? A = 3,-1,4,1,5
len(A) x len(A)
cell: long
X0[i][j] = A[i]   when i == j
         | 0   when i > j
         | min(k in i..j-1: X0[i][k] + X3[k+1][j]) + 1   otherwise
X1[i][j] = A[i] + 1   when i == j
         | 0   when i > j
         | min(k in i..j-1: X1[i][k] + X0[k+1][j]) + X0[i][j] % 5   otherwise
X2[i][j] = A[i] + 2   when i == j
         | 0   when i > j
         | min(k in i..j-1: X2[i][k] + X1[k+1][j]) + X1[i][j] % 5   otherwise
X3[i][j] = A[i] + 3   when i == j
         | 0   when i > j
         | min(k in i..j-1: X3[i][k] + X2[k+1][j]) + X2[i][j] % 5   otherwise
answer: X3[0][COLS-1]
`

func TestHyperplaneChoice(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		kind     plan.Kind
		h        plan.Hyperplane
		bounded  bool
		reach    int64
		lastI    int64
		lastJ    int64
		fronts   int64
		contains string // in Reason
	}{
		{"matrix chain", matrixChain, plan.Interval, plan.Hyperplane{A: -1, B: 1}, true, 5, 0, 5, 11, "interval"},
		{"nussinov", nussinov, plan.Interval, plan.Hyperplane{A: -1, B: 1}, true, 8, 0, 8, 17, "interval"},
		{"lis", lis1xN, plan.Hyperplanar, plan.Hyperplane{A: 0, B: 1}, true, 7, 0, 7, 8, "t = j"},
		{"coin change", coinChange("1,2,5"), plan.Hyperplanar, plan.Hyperplane{A: 0, B: 1}, true, 5, 0, 11, 12, "t = s"},
		{"range over earlier rows", "4x5\ncell[i][j] = 1 when i == 0\n | sum(k in 0..i-1: cell[k][j]) otherwise\n",
			plan.Hyperplanar, plan.Hyperplane{A: 1, B: 0}, true, 3, 3, 4, 4, "t = i"},
		{"mixed directions", "4x4\ncell[i][j] = 0 when i == 0 || j == 3\n | cell[i][j+1] + cell[i-1][j] otherwise\n",
			plan.Hyperplanar, plan.Hyperplane{A: 1, B: -1}, true, 1, 3, 0, 7, "t = i - j"},
		{"anti-diagonal neighbour", "4x4\ncell[i][j] = 0 when i == 0 || j == 0 || j == 3\n | cell[i-1][j+1] + cell[i][j-1] otherwise\n",
			plan.Hyperplanar, plan.Hyperplane{A: 2, B: 1}, true, 1, 3, 3, 10, "t = 2*i + j"},
		// Past the small coefficients (plan.stretched): a read four
		// columns ahead in the row above needs t = 5*i + j; a read seven
		// rows ahead in the column to the left t = i + 8*j.
		{"four ahead in the row above", "4x9\ncell[i][j] = 0 when i == 0 || j == 0 || j >= 5\n | cell[i-1][j+4] + cell[i][j-1] otherwise\n",
			plan.Hyperplanar, plan.Hyperplane{A: 5, B: 1}, true, 1, 3, 8, 24, "t = 5*i + j"},
		{"seven ahead in the column to the left", "9x4\ncell[i][j] = 0 when j == 0 || i == 0 || i >= 2\n | cell[i+7][j-1] + cell[i-1][j] otherwise\n",
			plan.Hyperplanar, plan.Hyperplane{A: 1, B: 8}, true, 1, 8, 3, 33, "t = i + 8*j"},
		{"diagonal reads under i < j", "6x6\ncell[i][j] = 1 when i >= j\n | min(k in i..j: cell[k][k]) + 1 otherwise\n",
			plan.Interval, plan.Hyperplane{A: -1, B: 1}, true, 5, 0, 5, 11, "interval"},
		{"forced interval", "schedule: interval\n" + "5x5\ncell[i][j] = 0 when i >= j\n | cell[i+1][j] + cell[i][j-1] otherwise\n",
			plan.Interval, plan.Hyperplane{A: -1, B: 1}, true, 1, 0, 4, 9, "forced"},
		{"forced rows over a range", "schedule: rows\n4x5\ncell[i][j] = 1 when i == 0\n | max(k in 0..i-1: cell[k][j]) otherwise\n",
			plan.Hyperplanar, plan.Hyperplane{A: 1, B: 0}, true, 3, 3, 4, 4, "forced"},
		// Several tables: fronts over the flat columns J = j*T + t.
		{"interval over two tables", twoTables(""), plan.Interval, plan.Hyperplane{A: -2, B: 1}, true, 11, 0, 10, 22, "interval order (by increasing interval length j - i, the 2 tables of a cell in file order: t = 2*(j - i) + table)"},
		{"forced interval over two tables", twoTables("schedule: interval\n"), plan.Interval, plan.Hyperplane{A: -2, B: 1}, true, 11, 0, 10, 22, "forced"},
		{"t = j - i over two tables", twoTables("schedule: t = j - i\n"), plan.Interval, plan.Hyperplane{A: -2, B: 1}, true, 11, 0, 10, 22, "forced"},
		{"t = 2*j - 3*i over two tables", twoTables("schedule: t = 2*j - 3*i\n"), plan.Hyperplanar, plan.Hyperplane{A: -3, B: 1}, true, 15, 0, 10, 27, "forced"},
		{"interval over four tables", fourTables, plan.Interval, plan.Hyperplane{A: -4, B: 1}, true, 17, 0, 19, 36, "t = 4*(j - i) + table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := analyze(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Schedule != tt.kind || pl.T != tt.h {
				t.Fatalf("schedule %s %v, want %s %v (%s)", pl.Schedule, pl.T, tt.kind, tt.h, pl.Reason)
			}
			if pl.ReachBounded != tt.bounded || pl.Reach != tt.reach || pl.Fronts != tt.fronts {
				t.Errorf("bounded %v reach %d fronts %d, want %v %d %d", pl.ReachBounded, pl.Reach, pl.Fronts, tt.bounded, tt.reach, tt.fronts)
			}
			if pl.Answer.Kind == plan.AnswerCell && (pl.Answer.I != tt.lastI || pl.Answer.J != tt.lastJ) {
				t.Errorf("default answer cell[%d][%d], want cell[%d][%d]", pl.Answer.I, pl.Answer.J, tt.lastI, tt.lastJ)
			}
			if !strings.Contains(pl.Reason, tt.contains) {
				t.Errorf("reason %q does not mention %q", pl.Reason, tt.contains)
			}
			if !pl.Schedule.Generic() || pl.Memory.Grid == 0 || pl.Memory.Device < pl.Memory.Grid {
				t.Errorf("a generic schedule keeps the grid: memory %+v", pl.Memory)
			}
		})
	}
}

func TestHyperplaneRejections(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		contains  []string
	}{
		{"a coin of 0", coinChange("1,0,5"), 5, 48, []string{"no schedule", "cell[i][s-c[k]]", "dj in 0..5", "may read the cell being computed or cells on every side"}},
		{"both sides", "1x9\ncell[i][j] = 0 when j == 0 || j == 8\n | cell[i][j-1] + cell[i][j+1] otherwise\n", 3, 19,
			[]string{"no schedule", "cell[i][j+1]", "cell[i][j-1]", "opposite directions"}},
		{"forced interval on LCS", "schedule: interval\n" + lcs, 7, 14, []string{"schedule: interval", "cell[i-1][j-1]", "own front"}},
		{"forced wavefront on matrix chain", "schedule: wavefront\n" + matrixChain, 6, 44, []string{"schedule: wavefront (t = i + j)", "cell[k+1][j]", "di in -5..-1"}},
		{"prev too small", "prev: 3\n" + matrixChain, 1, 1, []string{"prev: 3 is too small", "reads 5 fronts back", "prev: 5"}},
		// Far reads that no order puts first: the stretched coefficients
		// are tried too, and the message says so.
		{"no order, far reads", "5x9\ncell[i][j] = 0 when i == 0 || i == 4 || j < 5\n | cell[i-1][j-5] + cell[i+1][j-5] + cell[i][j-1] + cell[i][j+1] otherwise\n", 3, 53,
			[]string{"no schedule", "opposite directions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRejection(t, tt.src, tt.line, tt.col, tt.contains) })
	}
}

// Every cell of the grid is in exactly one front, the front its T says,
// fronts in increasing row order; awkward sizes and every candidate.
func TestFrontsCoverTheGrid(t *testing.T) {
	sizes := [][2]int64{{1, 1}, {1, 17}, {17, 1}, {2, 2}, {3, 5}, {17, 4}, {6, 13}}
	var hs []plan.Hyperplane
	for a := int64(-3); a <= 3; a++ {
		for b := int64(-3); b <= 3; b++ {
			if (a != 0 || b != 0) && gcd(a, b) == 1 {
				hs = append(hs, plan.Hyperplane{A: a, B: b})
			}
		}
	}
	for _, sz := range sizes {
		rows, cols := sz[0], sz[1]
		for _, h := range hs {
			seen := make([]int, rows*cols)
			first, last := h.Range(rows, cols)
			for tt := first - 2; tt <= last+2; tt++ {
				f := h.Front(tt, rows, cols)
				if (tt < first || tt > last) && f.Len() != 0 {
					t.Fatalf("%v %dx%d: front %d outside %d..%d has %d cells", h, rows, cols, tt, first, last, f.Len())
				}
				pi, pj := int64(-1), int64(-1)
				for n := int64(0); n < f.Len(); n++ {
					i, j := f.Cell(n)
					if i < 0 || i >= rows || j < 0 || j >= cols || h.T(i, j) != tt {
						t.Fatalf("%v %dx%d front %d: cell (%d,%d)", h, rows, cols, tt, i, j)
					}
					if i < pi || (i == pi && j <= pj) {
						t.Fatalf("%v %dx%d front %d: (%d,%d) after (%d,%d)", h, rows, cols, tt, i, j, pi, pj)
					}
					pi, pj = i, j
					seen[i*cols+j]++
				}
			}
			for k, n := range seen {
				if n != 1 {
					t.Fatalf("%v %dx%d: cell (%d,%d) in %d fronts", h, rows, cols, int64(k)/cols, int64(k)%cols, n)
				}
			}
		}
	}
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func TestHyperplaneString(t *testing.T) {
	for h, want := range map[plan.Hyperplane]string{
		{A: 1, B: 0}: "t = i", {A: 0, B: -1}: "t = -j", {A: -1, B: 1}: "t = j - i", {A: 1, B: 1}: "t = i + j",
		{A: 2, B: -3}: "t = 2*i - 3*j", {A: -1, B: -1}: "t = -i - j",
	} {
		if got := h.String(); got != want {
			t.Errorf("%v: %q, want %q", h, got, want)
		}
	}
}

// A reference guarded by its case (never read where it would not be
// earlier) and data that is one value everywhere: weighted interval
// scheduling with every predecessor 0, at n = 1, 2 and 5.
func TestHyperplaneGuardsAndConstantData(t *testing.T) {
	for _, p := range []string{"0", "0,0", "0,0,1,2,2"} {
		src := "int 1x? p = " + p + "\nint 1x? w = " + p + "\n(len(p)+1)\ncell[j] = 0 when j == 0\n | max(cell[j-1], w[j-1] + cell[p[j-1]]) otherwise\n"
		pl, err := analyze(t, src)
		if err != nil {
			t.Fatalf("p = %s: %v", p, err)
		}
		if pl.T != (plan.Hyperplane{A: 0, B: 1}) {
			t.Errorf("p = %s: %v", p, pl.T)
		}
	}
	// Guarded by ?: : cell[j-1] is read only when j > 0.
	pl, err := analyze(t, "1x6\ncell[i][j] = j > 0 ? cell[i][j-1] + 1 : 0\n")
	if err != nil || pl.Schedule != plan.Cols {
		t.Fatalf("guarded read: %v %v", pl, err)
	}
}
