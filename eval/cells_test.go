package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// refFronts computes the grid of a generic plan with the general evaluator,
// front by front: the reference for CellProgram.
func refFronts(p *ir.Problem, pl *plan.Plan) (*grid, error) {
	g := newGrid(p)
	cells := GridCells(p.Rows, p.Cols, g.at(p.CellType))
	first, last := pl.T.Range(p.Rows, p.Cols)
	for t := first; t <= last; t++ {
		f := pl.T.Front(t, p.Rows, p.Cols)
		for q := int64(0); q < f.Len(); q++ {
			i, j := f.Cell(q)
			if err := refCell(p, g, cells, i, j); err != nil {
				return g, err
			}
		}
	}
	return g, nil
}

// refCell computes one cell with the general evaluator.
func refCell(p *ir.Problem, g *grid, cells CellFunc, i, j int64) error {
	for _, c := range p.Cases {
		if c.Cond != nil {
			ok, err := EvalAt(c.Cond, i, j, cells)
			if err != nil {
				return err
			}
			if ok.I == 0 {
				continue
			}
		}
		v, err := EvalAt(toCellType(c.Value, p.CellType), i, j, cells)
		if err != nil {
			return err
		}
		if err := StoreCheck(p, c.Value.Position(), i, j, v); err != nil {
			return err
		}
		if g.F != nil {
			g.F[i*p.Cols+j] = v.F
		} else {
			g.I[i*p.Cols+j] = v.I
		}
		return nil
	}
	return fmt.Errorf("no case for cell[%d][%d]", i, j)
}

// cellMode is how a test runs a CellProgram: the shortest reduction that
// takes the vector form, and how a machine splits long ones.
type cellMode struct {
	name       string
	minLanes   int64
	splitLanes int64
	split      int
	transposed bool // keep the transposed copy where the plan asks for one
}

var cellModes = []cellMode{
	{"scalar", math.MaxInt64, math.MaxInt64, 1, false},
	{"vector", 1, math.MaxInt64, 1, false},
	{"split", 1, 2, 3, false},
	{"default", kMinLanes, kSplitLanes, 2, false},
	{"vector transposed", 1, math.MaxInt64, 1, true},
	{"split transposed", 1, 2, 3, true},
}

// cellStats is what a run of runCells says of the vector forms: how many
// reductions have one, and how many times one gave up.
type cellStats struct{ vectorised, gaveUp int64 }

// runCells computes p's grid with a CellProgram in mode m, front by front,
// every cell of a front on one machine.
func runCells(p *ir.Problem, pl *plan.Plan, m cellMode) (out *grid, st cellStats, err error) {
	g := backend.NewGrid(p.CellType, p.Rows, p.Cols)
	var gT *backend.Grid
	if m.transposed && pl.Transposed {
		gT = backend.NewGrid(p.CellType, p.Cols, p.Rows)
	}
	prog, err := CompileCells(p, pl, g, gT)
	if err != nil {
		return nil, st, err
	}
	st.vectorised = int64(len(prog.vectorised))
	prog.minLanes, prog.splitLanes = m.minLanes, m.splitLanes
	mach := prog.NewMachine()
	mach.Split(m.split, nil)
	first, last := pl.T.Range(p.Rows, p.Cols)
	out = newGrid(p)
	for t := first; t <= last && err == nil; t++ {
		f := pl.T.Front(t, p.Rows, p.Cols)
		for q := int64(0); q < f.Len() && err == nil; q++ {
			err = mach.Compute(f.Cell(q))
		}
	}
	for i := int64(0); i < p.Rows; i++ {
		for j := int64(0); j < p.Cols; j++ {
			v := g.At(i, j)
			if out.F != nil {
				out.F[i*p.Cols+j] = v.F
			} else {
				out.I[i*p.Cols+j] = v.I
			}
		}
	}
	if gT != nil && err == nil {
		// The copy is the grid, transposed, cell for cell.
		for i := int64(0); i < p.Rows; i++ {
			for j := int64(0); j < p.Cols; j++ {
				if a, b := g.At(i, j), gT.At(j, i); a != b && !(a.F != a.F && b.F != b.F) {
					return nil, st, fmt.Errorf("transposed copy: cell[%d][%d] = %v, copy %v", i, j, a, b)
				}
			}
		}
	}
	st.gaveUp = mach.gaveUp
	for _, h := range mach.helpers {
		st.gaveUp += h.gaveUp
	}
	return out, st, err
}

// checkModes runs src in every mode and compares with the reference: the
// same grid, or in every mode the same error (the vector form never
// decides one) and an error from the reference too. It returns what the
// vector mode says of the vector forms, and the error.
func checkModes(t *testing.T, name, src string) (vec cellStats, first error) {
	t.Helper()
	p, pl := dptest.Load(t, name, src)
	if !pl.Schedule.Generic() {
		t.Fatalf("%s: planned %s, want a generic schedule\n%s", name, pl.Schedule, src)
	}
	want, wantErr := refFronts(p, pl)
	for k, m := range cellModes {
		got, st, err := runCells(p, pl, m)
		if m.name == "vector" {
			vec = st
		}
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s, %s: error %v, reference %v\n%s", name, m.name, errText(err), errText(wantErr), src)
		}
		if k == 0 {
			first = err
		} else if errText(err) != errText(first) {
			t.Fatalf("%s, %s: error\n  %s\nscalar loops:\n  %s\n%s", name, m.name, errText(err), errText(first), src)
		}
		if err == nil {
			if d := sameGrid(want, got); d != nil {
				t.Fatalf("%s, %s: %v\n%s", name, m.name, d, src)
			}
		}
	}
	return vec, first
}

// TestCellProgramCases runs recurrences whose reductions reach over
// ranges, chosen for what the vector form must get exactly right: masks
// (a read or an operation that only a case or a ?: not taken would make
// fail), inf in saturating sums, overflow in the middle of a sum, ties of
// min and max, float rounding, NaN and -0, data-dependent reads, nested
// reductions.
func TestCellProgramCases(t *testing.T) {
	interval := func(n int, cell, value string) string {
		if !strings.Contains(value, "cell[") {
			// A read over a range, for a generic schedule.
			value = "(" + value + ") + (max(q in i..j-1: cell[i][q]) > 12345 ? 1 : 0)"
		}
		return fmt.Sprintf("cell: %s\nint 1x%d A = %s\n%d x %d\ncell[i][j] = A[i] when i >= j\n           | %s otherwise\n",
			cell, n+3, dptest.Join(mixed(n+3)), n, n, value)
	}
	lookback := func(n int, cell, value string) string {
		return fmt.Sprintf("cell: %s\nint 1x%d A = %s\n1 x %d\ncell[i][j] = A[0] when j == 0\n           | %s otherwise\n",
			cell, n+3, dptest.Join(mixed(n+3)), n, value)
	}
	cases := []struct {
		name, src string
		err       string // "" when it must succeed
	}{
		{"matrix chain", interval(17, "long", "min(k in i..j-1: cell[i][k] + cell[k+1][j] + A[i]*A[k+1]*A[j+1])"), ""},
		{"two terms max", interval(17, "int", "max(k in i..j-1: cell[i][k] + cell[k+1][j])"), ""},
		{"scaled first term", interval(17, "int", "max(k in i..j-1: A[i]*A[k+1]*A[j+1] + cell[i][k] + cell[k+1][j])"), ""},
		{"scaled second of two", interval(17, "int", "min(k in i..j-1: cell[i][k] + 7 * A[k] * A[j])"), ""},
		{"minus and products", interval(17, "long", "min(k in i..j-1: cell[i][k] - 3*cell[k+1][j] * A[k])"), ""},
		{"guarded read before the row", interval(12, "int", "max(k in i..j-1: k > i ? cell[i][k-1] + 1 : A[k])"), ""},
		{"guarded input before its start", interval(12, "int", "min(k in i..j-1: k > i && A[k-i-1] > 0 ? A[k-i-1] + cell[i][k] : -k)"), ""},
		{"guarded division", interval(12, "int", "sum(k in i..j-1: A[k] != 0 ? 100 / A[k] + cell[i][k] : 7)"), ""},
		{"inf in a saturating min", interval(12, "int", "min(k in i..j-1: A[k] > 2 ? inf : cell[i][k] + cell[k+1][j] + 1)"), ""},
		{"inf plus inf", interval(12, "long", "min(k in i..j-1: (A[k] > 0 ? inf : 1) + (A[k+1] > 0 ? inf : 2))"), ""},
		{"empty range", interval(9, "int", "max(k in i..i-1: A[k] + 1)"), ""},
		{"ties of max over -inf", interval(9, "int", "max(-inf, max(k in i..j-1: A[k] > 100 ? 1 : -inf))"), ""},
		{"data-dependent column", interval(12, "int", "max(k in i..j-1: cell[i][i + abs(A[k]) % (j - i)] + k)"), ""},
		{"nested reduction over k", interval(10, "int", "max(k in i..j-1: sum(q in i..k: A[q]) + cell[k+1][j])"), ""},
		{"nested reduction apart from k", interval(10, "int", "max(k in i..j-1: sum(q in 0..2: A[q + j]) * cell[i][k])"), ""},
		{"comparisons and logic", interval(12, "int", "sum(k in i..j-1: (A[k] < A[j] || !(k % 3 == 0)) && A[k] >= -2 ? 1 : 0)"), ""},
		{"conversions", interval(12, "long", "max(k in i..j-1: cell[i][k] % 1000 * 3 + floor(A[k] * 0.75) + (A[k] > 0 ? 0.5 : -0.5))"), ""},
		{"double", interval(17, "double", "min(k in i..j-1: cell[i][k] * 0.5 + cell[k+1][j] + sqrt(abs(A[k])) / 3)"), ""},
		{"float rounding", interval(17, "float", "max(k in i..j-1: cell[i][k] * 0.1 + cell[k+1][j] / 3 + 0.7)"), ""},
		{"float minus zero", interval(9, "double", "max(k in i..j-1: (A[k] > 0 ? -0.0 : 0.0) + (A[k] > 3 ? 0.0 : -0.0))"), ""},
		{"float pow and mod", interval(9, "double", "sum(k in i..j-1: pow(1.5, A[k] % 4) + exp(A[k] / 4.0) + log(abs(A[k]) + 1) + ceil(k / 3.0))"), ""},
		{"look-back", lookback(40, "int", "max(k in 0..j-1: A[k % 5] < A[j % 5] ? cell[i][k] + 1 : 1)"), ""},
		{"look-back reversed", lookback(40, "long", "max(k in 1..j: A[k % 7] + cell[i][j-k])"), ""},
		{"look-back data-dependent", lookback(40, "int", "max(k in 0..j-1: cell[i][abs(A[k % 9]) % j] + 1)"), ""},
		// Errors: every mode must report the first one in evaluation order.
		{"read before the row", interval(9, "int", "max(k in i..j-1: cell[i][k-1] + 1)"), "cell[i][k-1] reads cell[0][-1], outside the 9x9 grid"},
		{"input past its end", interval(9, "int", "max(k in i..j-1: A[k + 5 * j])"), "A[15] is outside A, which has 12 elements (0..11)"},
		{"division by zero", interval(9, "int", "sum(k in i..j-1: 10 / (A[k] - A[k]))"), "division by zero (computing cell[0][1])"},
		{"overflow in a product", interval(9, "int", "max(k in i..j-1: A[k] * 1000000000 + cell[i][k])"), "overflow computing cell[0][2]: 4 * 1000000000 does not fit in int"},
		{"overflow in the middle of a sum", interval(9, "int", "sum(k in i..j-1: k % 4 < 2 ? 2000000000 : -2000000000)"), "overflow computing cell[0][2]: 2000000000 + 2000000000 does not fit in int"},
		// A long sum whose addition wraps around int64 to a finite value
		// (the Catalan numbers past C(35) once did so, silently).
		{"long sum wrapping upwards", interval(9, "long", "sum(k in i..j-1: k % 4 < 2 ? 6000000000000000000 : -6000000000000000000)"), "overflow computing cell[0][2]: 6000000000000000000 + 6000000000000000000 does not fit in long"},
		{"long sum wrapping downwards", interval(9, "long", "sum(k in i..j-1: k % 4 < 2 ? -6000000000000000000 : 6000000000000000000)"), "overflow computing cell[0][2]: -6000000000000000000 + -6000000000000000000 does not fit in long"},
		{"long sum of products wrapping", "cell: long\n37\ncell[m] = 1 when m == 0\n        | sum(k in 0..m-1: cell[k] * cell[m-1-k]) otherwise\n", "overflow computing cell[36]: 8843512890953152230 + 3116285494907301262 does not fit in long"},
		{"overflow in a fused sum", interval(9, "int", "max(k in i..j-1: cell[i][k] + 2000000000 + A[k] * 100000000)"), "overflow computing cell["},
		{"inf minus inf", interval(9, "long", "min(k in i..j-1: (A[k] >= 0 ? inf : 1) - (A[k] >= -10 ? inf : 1))"), "inf - inf is undefined computing cell[0][1]"},
		{"NaN cell", interval(9, "double", "sum(k in i..j-1: sqrt(-1 - A[k] * A[k]))"), "cell[0][1] is NaN"},
		{"inf stored", interval(9, "int", "max(k in i..j-1: inf)"), ""},
		// + and - outside reductions (the scalar closures' own checks).
		{"overflow in a scalar add", interval(9, "int", "2147483646 + (j > i ? 1 : 0)"), "overflow computing cell[0][1]: 2147483646 + 1 does not fit in int"},
		{"overflow in a scalar subtraction", interval(9, "int", "-2147483646 - (j > i ? 1 : 0)"), "overflow computing cell[0][1]: -2147483646 - 1 does not fit in int"},
		{"long overflow in a scalar add", interval(9, "long", "9223372036854775806 + (j > i ? A[i] * 0 + 1 : 0)"), "overflow computing cell[0][1]"},
		{"inf plus and minus a number", interval(9, "int", "((j > i + 1 ? inf : 5) + 1) - ((j > i + 2 ? -inf : 3) - 2)"), ""},
		{"inf minus inf in a scalar", interval(9, "long", "(j > i ? inf : 1) - (j > i ? inf : 0)"), "inf - inf is undefined computing cell[0][1]"},
		{"scalar division and remainder", interval(12, "int", "(A[i] * 7 - 3) / (j - i) + (A[j] - 5) % (j - i + 1)"), ""},
		{"division by zero in a scalar", interval(9, "int", "100 / (j - i - 1)"), "division by zero (computing cell[0][1])"},
		{"remainder by zero in a scalar", interval(9, "long", "100 % (j - i - 1)"), "by zero (computing cell[0][1])"},
		// Constant right operands (the closures hold them).
		{"constant right operands", interval(12, "int", "(A[i] - 7) / 3 + (A[j] - 9) % 4 + (A[i] > 2 ? 1 : 0) + (A[j] <= -3 ? 2 : 0) + (A[i] != 0 ? 4 : 0) + (A[j] >= 5 ? 8 : 0) + (A[i] < -1 ? 16 : 0) + (A[j] == 1 ? 32 : 0)"), ""},
		{"overflow adding a constant", interval(9, "int", "(j > i ? 2147483640 : 0) + 7"), "overflow computing cell[0][1]: 2147483640 + 7 does not fit in int"},
		{"overflow subtracting a constant", interval(9, "int", "(j > i ? -2147483640 : 0) - 7"), "overflow computing cell[0][1]: -2147483640 - 7 does not fit in int"},
		{"inf and a constant", interval(9, "int", "((j > i + 1 ? -inf : 4) - 3) + ((j > i + 2 ? -inf : 1) + 2)"), ""},
		{"constant inf operand", interval(9, "long", "(j > i + 1 ? A[i] : 4) + (A[j] > 0 ? inf : 1) - inf"), "inf - inf is undefined"},
	}
	for _, tc := range cases {
		st, err := checkModes(t, tc.name+".dp", tc.src)
		if tc.err == "" && (st.vectorised == 0 || st.gaveUp > 0) {
			t.Errorf("%s: %d reductions vectorised, which gave up %d times; want the vector form throughout", tc.name, st.vectorised, st.gaveUp)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v\n%s", tc.name, errText(err), tc.src)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q\n%s", tc.name, errText(err), tc.err, tc.src)
		}
	}
}

// mixed is n small integers of both signs, fixed.
func mixed(n int) []int64 {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	out := make([]int64, n)
	for k := range out {
		out[k] = int64(r.IntN(13) - 4)
	}
	return out
}

// kGen writes random bodies of reductions over k of an interval
// recurrence: reads of the row and the column a reduction walks, of the
// diagonal and of earlier cells guarded or not, inputs at k and at
// data-dependent places, and the operations of the language.
type kGen struct {
	r     *rand.Rand
	depth int
	oneD  bool
}

func (g *kGen) leaf() string {
	if g.oneD {
		switch g.r.IntN(9) {
		case 0:
			return fmt.Sprint(g.r.IntN(21) - 10)
		case 1:
			return "k"
		case 2:
			return "j"
		case 3:
			return "cell[i][k]"
		case 4:
			return "cell[i][j-1-k]"
		case 5:
			return "(k > 0 ? cell[i][k-1] : 4)"
		case 6:
			return "cell[i][abs(A[k % 7]) % j]"
		case 7:
			return "A[(k * 3 + j) % len(A)]"
		}
		return "A[k % len(A)]"
	}
	switch g.r.IntN(12) {
	case 0:
		return fmt.Sprint(g.r.IntN(21) - 10)
	case 1:
		return "k"
	case 2:
		return "i"
	case 3:
		return "cell[i][k]"
	case 4:
		return "cell[k+1][j]"
	case 5:
		return "cell[i][i]"
	case 6:
		return "(k > i ? cell[i][k-1] : 3)"
	case 7:
		return "A[k]"
	case 8:
		return "A[(k * 3 + j) % len(A)]"
	case 9:
		return "cell[i][i + abs(A[k]) % (j - i)]"
	case 10:
		if g.r.IntN(3) == 0 {
			return "cell[i][k-1]" // outside the grid for k = 0
		}
		return "A[j - k]"
	}
	return "j"
}

func (g *kGen) expr() string {
	if g.depth > 3 || g.r.IntN(3) == 0 {
		return g.leaf()
	}
	g.depth++
	defer func() { g.depth-- }()
	x, y := g.expr(), g.expr()
	switch g.r.IntN(12) {
	case 0, 1:
		return "(" + x + " + " + y + ")"
	case 2:
		return "(" + x + " - " + y + ")"
	case 3:
		return "(" + x + " * " + y + " % 100)"
	case 4:
		return "(" + x + " / " + y + ")" // may divide by zero
	case 5:
		return "(" + x + " % (abs(" + y + ") + 1))"
	case 6:
		return "(" + g.cond() + " ? " + x + " : " + y + ")"
	case 7:
		return "min(" + x + ", " + y + ")"
	case 8:
		return "max(" + x + ", " + y + ", " + g.expr() + ")"
	case 9:
		return "abs(" + x + ")"
	case 10:
		return "-" + x
	}
	return "(" + g.cond() + " && " + g.cond() + " ? " + x + " : -1)"
}

func (g *kGen) cond() string {
	x, y := g.leaf(), g.leaf()
	op := []string{"==", "!=", "<", "<=", ">", ">="}[g.r.IntN(6)]
	c := x + " " + op + " " + y
	if g.r.IntN(3) == 0 {
		return "!(" + c + " || " + g.leaf() + " > 3)"
	}
	return c
}

// TestCellProgramRandom compares every mode of CellProgram with the
// general evaluator on random interval and look-back recurrences.
func TestCellProgramRandom(t *testing.T) {
	r := dptest.Rand(t)
	nErr := 0
	defer func() { t.Logf("%d of the recurrences failed in every mode", nErr) }()
	for n := 0; n < 120; n++ {
		g := &kGen{r: r, oneD: n%3 == 2}
		op := []string{"min", "max", "sum"}[r.IntN(3)]
		size := 1 + r.IntN(13)
		ct := []string{"int", "long"}[r.IntN(2)]
		a := dptest.Join(dptest.Ints(r, size+3, -5, 9))
		var src string
		if g.oneD {
			src = fmt.Sprintf("cell: %s\nint 1x%d A = %s\n1 x %d\ncell[i][j] = A[0] when j == 0\n           | %s(k in 0..j-1: %s) %% 1000 otherwise\n",
				ct, size+3, a, size, op, g.expr())
		} else {
			src = fmt.Sprintf("cell: %s\nint 1x%d A = %s\n%d x %d\ncell[i][j] = A[i] when i >= j\n           | %s(k in i..j-1: %s) %% 1000 + A[j] otherwise\n",
				ct, size+3, a, size, size, op, g.expr())
		}
		if _, pl, err := dptest.TryLoad(t, "random.dp", src); err != nil || !pl.Schedule.Generic() {
			if err == nil || strings.Contains(err.Error(), "division by zero") || strings.Contains(err.Error(), "overflows") ||
				strings.Contains(err.Error(), "no schedule can run") {
				continue // a v1 schedule, a constant sema refuses, a data-dependent read the planner cannot place
			}
			t.Fatalf("%v\n%s", err, src)
		}
		if _, err := checkModes(t, "random.dp", src); err != nil {
			nErr++
		}
	}
}

// TestCheckedRead: a reference the planner cannot order from the data
// (cell[P[j-1]], cell[Q[k]]) is checked on every read, by the closures and
// by the vector form; a legal input runs, and an illegal one stops at the
// first cell that reads ahead, naming both cells and the input value, in
// every mode.
func TestCheckedRead(t *testing.T) {
	wis := func(p []int64) string {
		return fmt.Sprintf("int 1x%d P = %s\nint 1x%d W = %s\n1 x %d\ncell[i][j] = 0 when j == 0\n           | max(cell[i][j-1], W[j-1] + cell[i][P[j-1]]) otherwise\n",
			len(p), dptest.Join(p), len(p), dptest.Join(mixed(len(p))), len(p)+1)
	}
	look := func(q []int64) string {
		return fmt.Sprintf("int 1x%d Q = %s\n1 x %d\ncell[i][j] = 1 when j == 0\n           | max(k in 0..j-1: cell[i][Q[k]] + k) %% 1000 otherwise\n",
			len(q), dptest.Join(q), len(q)+1)
	}
	legalQ := []int64{0, 1, 0, 2, 4, 5, 1, 0, 8, 3, 10, 2, 12, 13, 0, 15, 9, 17, 18, 19}
	illegalQ := append([]int64(nil), legalQ...)
	illegalQ[14] = 16
	for _, tc := range []struct {
		name, legal, illegal, want string
		vectorised                 int64
	}{
		{"weighted intervals", wis([]int64{0, 0, 1, 3, 2, 4, 0, 7, 5}), wis([]int64{0, 0, 1, 3, 5, 4, 9, 7, 5}),
			"wis.dp:5:41: cell[0][5] reads cell[0][5] (P[4] = 5), which is not computed yet: both are on front t = j = 5, whose cells are computed at the same time", 0},
		{"a look-back", look(legalQ), look(illegalQ),
			"wis.dp:4:31: cell[0][15] reads cell[0][16] (Q[14] = 16), which is not computed yet: it is on front t = j = 16, after the front of cell[0][15] (15); fronts are computed in increasing order", 1},
	} {
		p, pl := dptest.Load(t, "wis.dp", tc.legal)
		checked := 0
		for _, d := range pl.Deps {
			if d.Checked {
				checked++
			}
		}
		if checked != 1 {
			t.Fatalf("%s: %d checked references, want 1", tc.name, checked)
		}
		want, err := refFronts(p, pl)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cellModes {
			got, st, err := runCells(p, pl, m)
			if err != nil || st.vectorised != tc.vectorised || st.gaveUp > 0 {
				t.Fatalf("%s, %s: %v (%d reductions vectorised, which gave up %d times)", tc.name, m.name, err, st.vectorised, st.gaveUp)
			}
			if d := sameGrid(want, got); d != nil {
				t.Fatalf("%s, %s: %v", tc.name, m.name, d)
			}
		}
		p, pl = dptest.Load(t, "wis.dp", tc.illegal)
		for _, m := range cellModes {
			_, _, err := runCells(p, pl, m)
			if errText(err) != tc.want {
				t.Errorf("%s, %s: error\n  %s\nwant\n  %s", tc.name, m.name, errText(err), tc.want)
			}
		}
	}
}
