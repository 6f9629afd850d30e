package plan_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// Every cell of a 3-D grid is in exactly one front of a 3-D hyperplane,
// the front its T says, by increasing k (and within a k-plane in the
// line's order), for every coprime triple of coefficients in -3..3 and
// awkward sides (one of 1, a plane of one row or column).
func TestFronts3CoverTheGrid(t *testing.T) {
	sizes := [][3]int64{{1, 1, 1}, {1, 1, 7}, {1, 6, 1}, {5, 1, 1}, {2, 3, 4}, {4, 4, 1}, {3, 5, 7}, {7, 2, 5}}
	n := 0
	for a := int64(-3); a <= 3; a++ {
		for m := int64(-3); m <= 3; m++ {
			for b := int64(-3); b <= 3; b++ {
				if gcd(gcd(a, m), b) != 1 {
					continue
				}
				for _, sz := range sizes {
					K, R, C := sz[0], sz[1], sz[2]
					h := plan.Hyperplane{A: a, M: m, B: b, Inner: C}
					rows, cols := K, R*C
					seen := make([]int, rows*cols)
					first, last := h.Range(rows, cols)
					for tt := first - 2; tt <= last+2; tt++ {
						f := h.Front(tt, rows, cols)
						if (tt < first || tt > last) && f.Len() != 0 {
							t.Fatalf("%v %v: front %d outside %d..%d has %d cells", h, sz, tt, first, last, f.Len())
						}
						pk := int64(-1)
						for q := int64(0); q < f.Len(); q++ {
							k, J := f.Cell(q)
							if k < 0 || k >= rows || J < 0 || J >= cols || h.T(k, J) != tt || a*k+m*(J/C)+b*(J%C) != tt {
								t.Fatalf("%v %v front %d: cell %d is (%d, %d)", h, sz, tt, q, k, J)
							}
							if k < pk {
								t.Fatalf("%v %v front %d: plane %d after %d", h, sz, tt, k, pk)
							}
							pk = k
							seen[k*cols+J]++
						}
						// The pieces hold the cells, one line per plane.
						var count int64
						for _, p := range f.Pieces() {
							if p.Start != count || p.Line.Len() == 0 || p.Line.Len() > h.LineWidth(R, C) {
								t.Fatalf("%v %v front %d: piece %+v after %d cells (line width %d)", h, sz, tt, p, count, h.LineWidth(R, C))
							}
							count += p.Line.Len()
						}
						if count != f.Len() || h.Count(tt, rows, cols) != f.Len() {
							t.Fatalf("%v %v front %d: pieces hold %d cells of %d", h, sz, tt, count, f.Len())
						}
					}
					for x, c := range seen {
						if c != 1 {
							t.Fatalf("%v %v: flat cell %d in %d fronts", h, sz, x, c)
						}
					}
					n++
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("%d hyperplanes and sizes tried", n)
	}
}

func TestHyperplane3String(t *testing.T) {
	for h, want := range map[plan.Hyperplane]string{
		{A: 1, M: 1, B: 1, Inner: 4}:   "t = k + i + j",
		{A: 0, M: -1, B: 1, Inner: 4}:  "t = j - i",
		{A: 1, M: -1, B: 1, Inner: 4}:  "t = k - i + j",
		{A: -1, M: 1, B: 0, Inner: 4}:  "t = i - k",
		{A: 1, M: 0, B: 0, Inner: 4}:   "t = k",
		{A: 0, M: 0, B: -1, Inner: 4}:  "t = -j",
		{A: -2, M: 3, B: -1, Inner: 4}: "t = 3*i - 2*k - j",
	} {
		if got := h.Format3("k", "i", "j"); got != want {
			t.Errorf("%+v: %q, want %q", h, got, want)
		}
	}
}

// The planner's 3-D choices: the fronts over the three axes with the
// fewest fronts that put every reference earlier, forced ones as asked;
// the plan's front function, kind and the reach in fronts.
func TestHyperplane3Choice(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, c := range dptest.Hyper3Cases(r, 6) {
		p, pl := dptest.Load(t, "h3.dp", c.Src)
		if !pl.Schedule.Generic() && c.Front != "t = k" {
			t.Errorf("%s: schedule %s, want a generic one", c.Name, pl.Schedule)
			continue
		}
		if got := pl.T.In(p); got != c.Front || !pl.T.Three() {
			t.Errorf("%s: fronts %s (%+v), want %s over the three axes (%s)", c.Name, got, pl.T, c.Front, pl.Reason)
		}
		lo, hi := pl.T.Range(p.Rows, p.Cols)
		if pl.Fronts != hi-lo+1 {
			t.Errorf("%s: %d fronts, the range says %d", c.Name, pl.Fronts, hi-lo+1)
		}
	}
	// LCS of three strings reads one step back along each axis: reach 3
	// fronts (the diagonal), the fronts k + i + j.
	_, pl := dptest.Load(t, "lcs3.dp", dptest.LCS3("ACGTACGTA", "ACCGTAG", "AGCTAC"))
	if pl.Reach != 3 || !pl.ReachBounded || pl.Fronts != 10+8+7-2 {
		t.Errorf("lcs3: reach %d (bounded %v), %d fronts, want 3 and %d", pl.Reach, pl.ReachBounded, pl.Fronts, 10+8+7-2)
	}
	for _, d := range pl.Deps {
		if d.Checked {
			t.Errorf("lcs3: %s checked at run time", d.Ref.Text)
		}
	}
	// `schedule: wavefront` on a 3-D grid is t = k + i + j where it fits.
	_, pl = dptest.Load(t, "lcs3w.dp", "schedule: wavefront\n"+dptest.LCS3("ACG", "AC", "GTA"))
	if pl.T != (plan.Hyperplane{A: 1, M: 1, B: 1, Inner: 4}) {
		t.Errorf("forced wavefront on a 3-D grid: %s %+v", pl.Schedule, pl.T)
	}
	// Interval order in every plane is the interval kind.
	_, pl = dptest.Load(t, "i3.dp", "schedule: interval\n3 x 5 x 5\ncell[k][i][j] = 0 when j <= i\n | min(m in i..j-1: cell[k][i][m] + cell[k][m+1][j]) + 1 otherwise\n")
	if pl.Schedule != plan.Interval || pl.T != (plan.Hyperplane{A: 0, M: -1, B: 1, Inner: 5}) {
		t.Errorf("forced interval on a 3-D grid: %s %+v", pl.Schedule, pl.T)
	}
}

// Forced 3-D schedules that cannot run the recurrence, and recurrences no
// 3-D order runs, are errors at the reference that breaks them.
func TestHyperplane3Rejections(t *testing.T) {
	lcs3 := dptest.LCS3("ACG", "AC", "GTA")
	tests := []struct {
		name      string
		src       string
		line, col int
		contains  []string
	}{
		{"t = k + i on lcs3", "schedule: t = k + i\n" + lcs3, 9, 55, []string{"schedule: t = k + i", "cell[k][i][j-1]", "own front"}},
		{"t = k - i + j on lcs3", "schedule: t = k - i + j\n" + lcs3, 9, 38, []string{"schedule: t = k - i + j", "cell[k][i-1][j]", "a cell 1 front ahead (offset dk = 0, di = 1, dj = 0)"}},
		{"not linear", "schedule: t = k*i\n" + lcs3, 1, 16, []string{"must be linear", "t = k + i + j"}},
		{"both sides in a plane", "3 x 4 x 9\ncell[k][i][j] = 0 when j == 0 || j == 8\n | cell[k][i][j-1] + cell[k][i][j+1] otherwise\n", 3, 22,
			[]string{"no schedule", "cell[k][i][j+1]", "cell[k][i][j-1]", "dk = 0, di = 0, dj = -1", "t = a*k + b*i + c*j"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRejection(t, tt.src, tt.line, tt.col, tt.contains) })
	}
}

// The 3-D planner is sound: for random recurrences of a 3-D grid whose
// references have constant offsets and ranges over a reduction, every
// cell a reference can read from a cell is on an earlier front (brute
// force over the grid and the reduction's values).
func TestPlanner3IsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 3))
	plans := 0
	for n := 0; n < 300; n++ {
		refs, terms := dptest.RandomRefs3(r)
		// A range read along one axis: m in the interval between i and j.
		rng := r.IntN(3)
		red := ""
		switch rng {
		case 1:
			red = " + min(m in i..j-1: cell[k][i][m])"
		case 2:
			red = " + min(m in i+1..j: cell[k][m][j])"
		}
		src := fmt.Sprintf("5 x 6 x 6\ncell[k][i][j] = 0 when k < 2 || i < 2 || j < 2 || k > 2 || i > 3 || j > 3\n | %s%s otherwise\n", joinPlus(terms), red)
		p, pl, err := dptest.TryLoad(t, "s3.dp", src)
		if err != nil || !pl.Schedule.Generic() || !pl.T.Three() {
			continue
		}
		plans++
		h := pl.T
		T := func(k, i, j int) int64 { return h.A*int64(k) + h.M*int64(i) + h.B*int64(j) }
		for k := 2; k <= 2; k++ {
			for i := 2; i <= 3; i++ {
				for j := 2; j <= 3; j++ {
					for x, o := range refs {
						if T(k+o[0], i+o[1], j+o[2]) >= T(k, i, j) && !checkedRef(pl, terms[x]) {
							t.Fatalf("%s\nplan %s: cell[%d][%d][%d] reads cell[%d][%d][%d] of a front not earlier", src, h.In(p), k, i, j, k+o[0], i+o[1], j+o[2])
						}
					}
					for m := i; m <= j-1 && rng == 1; m++ {
						if T(k, i, m) >= T(k, i, j) {
							t.Fatalf("%s\nplan %s: cell[%d][%d][%d] reads cell[%d][%d][%d]", src, h.In(p), k, i, j, k, i, m)
						}
					}
					for m := i + 1; m <= j && rng == 2; m++ {
						if T(k, m, j) >= T(k, i, j) {
							t.Fatalf("%s\nplan %s: cell[%d][%d][%d] reads cell[%d][%d][%d]", src, h.In(p), k, i, j, k, m, j)
						}
					}
				}
			}
		}
	}
	if plans < 30 {
		t.Errorf("only %d random recurrences got a 3-D plan", plans)
	}
}

func joinPlus(s []string) string {
	out := s[0]
	for _, x := range s[1:] {
		out += " + " + x
	}
	return out
}

func checkedRef(pl *plan.Plan, text string) bool {
	for _, d := range pl.Deps {
		if d.Ref.Text == text {
			return d.Checked
		}
	}
	return false
}

// Plan.Serial: row-major order is legal where every reference reads a
// cell before its own in it (three-string LCS, a 1-D look-back), not where
// one reads a later row (interval DP reads the row below) or a later
// column of its row, nor where a read is checked at run time.
func TestSerial(t *testing.T) {
	for _, c := range []struct {
		name, src string
		serial    bool
	}{
		{"lcs3", dptest.LCS3("ACGT", "AGT", "CGTA"), true},
		{"lis", lis1xN, true},
		// An earlier row read 2 columns to the right: lag 2.
		{"lag 2", "5 x 40\ncell[i][j] = 1 when i == 0 || j > 35\n | cell[i-1][j+2] + cell[i][j-1] otherwise\n", true},
		{"matrix chain", matrixChain, false},
		{"next plane", "4 x 3 x 3\ncell[k][i][j] = 1 when i == 0 || k == 3 || j == 2\n | cell[k+1][i-1][j] + cell[k][i-1][j+1] otherwise\n", false},
		{"interval in planes", "3 x 5 x 5\ncell[k][i][j] = 0 when j <= i\n | min(m in i..j-1: cell[k][i][m] + cell[k][m+1][j]) + 1 otherwise\n", false},
		{"checked", "int 1x? w = 1, 0, 2, 1, 3, 0\n6 x 6 x 6\ncell[k][i][j] = 1 when k == 0 || i == 0 || j == 0\n | cell[k-1][i][j] + cell[k][i-1][j] + cell[k][i][j-1] + cell[k][i][min(j, w[j] + j - 1)] otherwise\n", false},
	} {
		_, pl := dptest.Load(t, "s.dp", c.src)
		if !pl.Schedule.Generic() || pl.Serial != c.serial {
			t.Errorf("%s: schedule %s, serial %v, want a generic one, serial %v", c.name, pl.Schedule, pl.Serial, c.serial)
		}
		// SerialLag: how far right an earlier row is read; none for one
		// row (LIS's 1 x N grid).
		want := map[string]int64{"lcs3": 0, "lis": -1, "lag 2": 2}
		if w, ok := want[c.name]; ok && pl.SerialLag != w {
			t.Errorf("%s: serial lag %d, want %d", c.name, pl.SerialLag, w)
		}
	}
}
