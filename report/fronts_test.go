package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestCheckGeneric: `dpgpu check` of a generic schedule shows the offset
// ranges, the hyperplane and its fronts, the reach and the memory of the
// whole grid; a reference that only the data can order is checked at run
// time.
func TestCheckGeneric(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"matrix chain", dptest.MatrixChain([]int64{30, 35, 15, 5, 10, 20, 25}), []string{
			"dependencies (offsets di, dj back from cell[i][j], lo..hi over every cell and reduction value; ? = unbounded)\n",
			"  line 6    cell[i][k]                   di=0       dj=1..5\n",
			"  line 6    cell[k+1][j]                 di=-5..-1  dj=0\n",
			"schedule   interval, forward\n",
			"fronts     t = j - i: 11 fronts (t = -5..5), at most 6 cells each, computed in parallel\n",
			"prev       the whole grid stays in memory: references read up to 5 fronts back\n",
			"memory     device 632 B (the whole grid and its transposed copy + 56 B of inputs)\n",
			"answer     cell[0][5]\n",
		}},
		{"weighted intervals", dptest.WeightedInterval([]int64{3, 2, 4, 1}, []int64{0, 0, 1, 2}), []string{
			"dependencies (offset d back from cell[j], lo..hi over every cell and reduction value; ? = unbounded)\n",
			"  line 6    cell[j-1]                    d=1\n",
			"  line 6    cell[p[j-1]]                 d=",
			"checked at run time\n",
			"prev       the whole grid stays in memory: a reference may read any earlier front\n",
			"fronts     t = j: 5 fronts (t = 0..4), at most 1 cell each, computed in parallel\n",
			"answer     cell[4]\n",
		}},
	} {
		p, pl := dptest.Load(t, "t.dp", tc.src)
		var b strings.Builder
		Check(&b, p, pl)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, b.String())
			}
		}
	}
	p, pl := dptest.Load(t, "t.dp", dptest.MatrixChain([]int64{30, 35, 15, 5, 10, 20, 25}))
	out, err := json.Marshal(CheckObject(p, pl))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"di_range":[0,0],"dj_range":[1,5]`, `"fronts":{"hyperplane":"t = j - i","a":-1,"b":1,"coefficients":[-1,1],"count":11,"first":-5,"last":5,"widest":6,"reach":5,"keep_all":true}`} {
		if !strings.Contains(string(out), w) {
			t.Errorf("JSON: no %s in %s", w, out)
		}
	}
	// A 3-D grid: offsets along the user's three axes, the fronts' three
	// coefficients.
	p, pl = dptest.Load(t, "lcs3.dp", dptest.LCS3("ACGT", "AGT", "CGTA"))
	var b3 strings.Builder
	Check(&b3, p, pl)
	for _, w := range []string{"offsets dk, di, dj back from cell[k][i][j]", "cell[k][i-1][j]              dk=0     di=1     dj=0", "fronts     t = k + i + j: 12 fronts", "row-major order is legal too"} {
		if !strings.Contains(b3.String(), w) {
			t.Errorf("lcs3: no %q in\n%s", w, b3.String())
		}
	}
	out, _ = json.Marshal(CheckObject(p, pl))
	for _, w := range []string{`"dk_range":[0,0],"di_range":[1,1],"dj_range":[0,0]`, `"hyperplane":"t = k + i + j","a":1,"b":1,"coefficients":[1,1,1],"count":12`, `"serial":true`} {
		if !strings.Contains(string(out), w) {
			t.Errorf("JSON: no %s in %s", w, out)
		}
	}
	// Several tables swept as their cells' wavefront (plan.Plan.Cells):
	// a window, not the whole grid.
	p, pl = dptest.Load(t, "gotoh.dp", dptest.Gotoh("GATTACA", "GCATGCU", 5, 2))
	var gb strings.Builder
	Check(&gb, p, pl)
	out, _ = json.Marshal(CheckObject(p, pl))
	for _, w := range []string{"the 3 tables of a cell are computed together", "swept as the cells' anti-diagonals keeping a window", "a strip's bottom rows, twice"} {
		if !strings.Contains(gb.String(), w) {
			t.Errorf("gotoh: no %q in\n%s", w, gb.String())
		}
	}
	if !strings.Contains(string(out), `"keep_all":false,"cells":3`) {
		t.Errorf("gotoh JSON: no keep_all false and 3 cells in %s", out)
	}
	// A v1 plan keeps its output: no ranges, no fronts.
	p, pl = dptest.Load(t, "t.dp", dptest.LCS("ACGT", "AGT"))
	var b strings.Builder
	Check(&b, p, pl)
	out, _ = json.Marshal(CheckObject(p, pl))
	if !strings.Contains(b.String(), "di=1   dj=1\n") || strings.Contains(b.String(), "fronts") || strings.Contains(string(out), "range") || strings.Contains(string(out), "fronts") {
		t.Errorf("LCS check changed:\n%s\n%s", b.String(), out)
	}
}

// TestCheckTables: a recurrence of several tables names its grid as the user
// wrote it, with its tables, not as the flat grid it runs on.
func TestCheckTables(t *testing.T) {
	p, pl := dptest.Load(t, "t.dp", dptest.Gotoh("GATTACA", "GCATGCU", 5, 2))
	var b strings.Builder
	Check(&b, p, pl)
	if want := "grid       8 x 8, 3 tables (X, Y, H) = 192 cells of int (columns j*3 + table)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("check output:\n%s\nwant the line %q", b.String(), want)
	}
}

// TestCheckOneD: a 1-D grid is named as written, N cells, not the 1 x N
// row it runs as.
func TestCheckOneD(t *testing.T) {
	p, pl := dptest.Load(t, "one.dp", "int 1x? p = 3,1,4\nlen(p)\ncell[i] = p[i] when i == 0\n        | max(cell[i-1], p[i]) otherwise\n")
	var b strings.Builder
	Check(&b, p, pl)
	if want := "grid       3 cells (1-D) of int\n"; !strings.Contains(b.String(), want) {
		t.Errorf("check output:\n%s\nwant the line %q", b.String(), want)
	}
}

// TestOffsetText: a data-dependent offset of a rows, cols or wavefront
// schedule shows the range the loaded data bound it to, where there is one.
func TestOffsetText(t *testing.T) {
	three := int64(3)
	for _, tc := range []struct {
		d    *int64
		r    analysis.Range
		want string
	}{
		{&three, analysis.Point(3), "3"},
		{nil, analysis.Span(0, 5002), "? (0..5002)"},
		{nil, analysis.Span(2, 2), "? (2)"},
		{nil, analysis.Full(), "?"},
		{nil, analysis.Span(1, math.MaxInt64), "?"},
		{nil, analysis.Empty(), "?"},
	} {
		if got := offsetText(tc.d, tc.r); got != tc.want {
			t.Errorf("offsetText(%v, %v) = %q, want %q", tc.d, tc.r, got, tc.want)
		}
	}
}

// TestCheckChain: `dpgpu check` says which reduction the CPU computes from
// the one a step back (analysis.FirstChain), with the steps the data
// allow, in text and JSON; a recurrence without one says nothing of it.
func TestCheckChain(t *testing.T) {
	src := `int 1x? wt = 3,7,4
int 1x? val = 1,2,3
int cap = 50
(len(wt)+1) x (cap+1)
cell[i][w] = 0 when i == 0
           | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*val[i-1]) otherwise
`
	p, pl := dptest.Load(t, "u.dp", src)
	var b strings.Builder
	Check(&b, p, pl)
	if !strings.Contains(b.String(), "reduction  line 6: from its value S = 3..7 columns back along the row") {
		t.Errorf("check:\n%s", b.String())
	}
	if c := CheckObject(p, pl).Chain; c == nil || c.Line != 6 || c.StepLo != 3 || c.StepHi != 7 || !c.GPU {
		t.Errorf("check --json chain: %+v", c)
	}
	if !strings.Contains(b.String(), "the GPU too on rows wider") {
		t.Errorf("check: the GPU's chain not said:\n%s", b.String())
	}
	// A capped bound (the bounded knapsack's): the CPU chains, the GPU not.
	bp, bpl := dptest.Load(t, "b.dp", dptest.BoundedKnapsack([]int{3, 7, 4}, []int{1, 2, 3}, []int{2, 2, 2}, 50))
	b.Reset()
	Check(&b, bp, bpl)
	if c := CheckObject(bp, bpl).Chain; c == nil || c.GPU || !strings.Contains(b.String(), "the GPU runs every term") {
		t.Errorf("bounded knapsack: check --json chain %+v\n%s", c, b.String())
	}
	q, ql := dptest.Load(t, "k.dp", dptest.Knapsack([]int{3, 7, 4}, []int{1, 2, 3}, 50))
	b.Reset()
	Check(&b, q, ql)
	if strings.Contains(b.String(), "reduction ") || CheckObject(q, ql).Chain != nil {
		t.Errorf("0/1 knapsack: a chain reported\n%s", b.String())
	}
	// The offsets are named in the file's own variables.
	if !strings.Contains(b.String(), "dependencies (offset di, dj back from cell[i][w];") {
		t.Errorf("0/1 knapsack: the offsets not named in i and w\n%s", b.String())
	}
}
