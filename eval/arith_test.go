package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// arithCase is a problem run through the general evaluator (reference)
// and the batch kernels at several widths, with and without per-batch
// specialisation (which turns the fast scan loops on): both must give err
// exactly, or, when err is "", no error and the cell values of want.
type arithCase struct {
	name, src string
	err       string
	want      map[[2]int64]float64 // cell -> value (integers exact)
	nan       [][2]int64           // cells that must hold NaN
}

func runArith(t *testing.T, tc arithCase) {
	t.Helper()
	p, pl := dptest.Load(t, "t.dp", tc.src)
	axis, stepDesc, laneDesc := scheduleOf(pl)
	ref, refErr := reference(p, axis, stepDesc, laneDesc)
	check := func(what string, g *grid, err error) {
		t.Helper()
		if errText(err) != tc.err && !(err == nil && tc.err == "") {
			t.Errorf("%s: error\n  %s\nwant\n  %s", what, errText(err), tc.err)
			return
		}
		if err != nil {
			return
		}
		at := func(c [2]int64) float64 {
			k := c[0]*p.Cols + c[1]
			if g.F != nil {
				return g.F[k]
			}
			return float64(g.I[k])
		}
		for c, v := range tc.want {
			if got := at(c); got != v {
				t.Errorf("%s: cell[%d][%d] = %v, want %v", what, c[0], c[1], got, v)
			}
		}
		for _, c := range tc.nan {
			if got := at(c); got == got {
				t.Errorf("%s: cell[%d][%d] = %v, want NaN", what, c[0], c[1], got)
			}
		}
	}
	check("reference", ref, refErr)
	for _, width := range []int{1, 3, 64} {
		for _, perBatch := range []bool{false, true} {
			g, _, err := batched(p, axis, stepDesc, laneDesc, width, perBatch)
			check("kernels width "+string(rune('0'+width%10))+map[bool]string{true: " per batch", false: ""}[perBatch], g, err)
		}
	}
}

const (
	ip = float64(math.MaxInt32)
	lp = float64(math.MaxInt64)
)

// TestArithmetic is section 6.1 of docs/language.md end to end: overflow
// of every kind, the inf rules and NaN, each in the general evaluator and
// in the batch kernels (vector loops, lane loops, the scan loops and the
// scalar closures of the sequential cases).
func TestArithmetic(t *testing.T) {
	for _, tc := range []arithCase{
		// Overflow. Issue 16: `cell: long` with a doubling row answered 0.
		{name: "long doubling row", src: `cell: long
70 x 1
cell[i][j] = 1  when i == 0
           | cell[i-1][j] * 2  otherwise
`, err: "t.dp:4:27: overflow computing cell[63][0]: 4611686018427387904 * 2 does not fit in long (finite range ±9,223,372,036,854,775,806)"},
		{name: "long doubling by addition", src: `cell: long
70 x 1
cell[i][j] = 1  when i == 0
           | cell[i-1][j] + cell[i-1][j]  otherwise
`, err: "t.dp:4:27: overflow computing cell[63][0]: 4611686018427387904 + 4611686018427387904 does not fit in long (finite range ±9,223,372,036,854,775,806)"},
		{name: "long doubling along a row (sequential closure)", src: `cell: long
1 x 70
cell[i][j] = 1  when j == 0
           | cell[i][j-1] * 2  otherwise
`, err: "t.dp:4:27: overflow computing cell[0][63]: 4611686018427387904 * 2 does not fit in long (finite range ±9,223,372,036,854,775,806)"},
		{name: "long negative doubling", src: `cell: long
70 x 1
cell[i][j] = -1  when i == 0
           | cell[i-1][j] - -cell[i-1][j]  otherwise
`, err: "t.dp:4:27: overflow computing cell[63][0]: -4611686018427387904 - 4611686018427387904 does not fit in long (finite range ±9,223,372,036,854,775,806)"},
		// Issue 16: int intermediates were computed in 64 bits.
		{name: "int chain", src: `int 1x3 X = 2,2,3
1 x 3
cell[i][j] = X[j] * 2000000000 * 2000000000 / 2000000000 / 2000000000
`, err: "t.dp:3:19: overflow computing cell[0][0]: 2 * 2000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{name: "long chain", src: `long 1x3 X = 1,2,3
cell: long
1 x 3
cell[i][j] = X[j] * 2000000000 * 2000000000 / 2000000000 / 2000000000
`, err: "t.dp:4:32: overflow computing cell[0][2]: 6000000000 * 2000000000 does not fit in long (finite range ±9,223,372,036,854,775,806)"},
		{name: "long chain that fits", src: `long 1x2 X = 1,2
cell: long
1 x 2
cell[i][j] = X[j] * 2000000000 * 2000000000 / 2000000000 / 2000000000
`, want: map[[2]int64]float64{{0, 0}: 1, {0, 1}: 2}},
		// Issue 16: the largest int read back as inf.
		{name: "int cell holding the sentinel", src: `int 1x3 X = 2147483645,2147483646,0
1 x 3
cell[i][j] = inf  when j == 2
           | X[j] + 1  otherwise
`, err: "t.dp:4:19: overflow computing cell[0][1]: 2147483646 + 1 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{name: "int at the edge of the range", src: `int 1x3 X = 2147483645,-2147483645,0
1 x 3
cell[i][j] = inf  when j == 2
           | X[j] + (X[j] > 0 ? 1 : -1)  otherwise
`, want: map[[2]int64]float64{{0, 0}: 2147483646, {0, 1}: -2147483646, {0, 2}: ip}},
		{name: "sum reduction", src: `int 1x4 A = 1000000000,1000000000,1000000000,5
2 x 2
cell[i][j] = sum(k in 0..j+2: A[k])
`, err: "t.dp:3:14: overflow computing cell[0][0]: 2000000000 + 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{name: "sum reduction per lane", src: `int 1x4 A = 1000000000,1000000000,1000000000,5
2 x 2
cell[i][j] = sum(k in i..j+1: A[k])  when i == 0
           | 0  otherwise
`, err: "t.dp:3:14: overflow computing cell[0][1]: 2000000000 + 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{name: "double to int", src: `double 1x3 D = 1.5,3e9,2
1 x 3
cell[i][j] = D[j] * 1.0
`, err: "t.dp:3:19: overflow computing cell[0][1]: converting 3e+09 to int does not fit (finite range ±2,147,483,646); use cell: long"},
		{name: "double to long", src: `double 1x3 D = 1.5,1e30,2
cell: long
1 x 3
cell[i][j] = D[j] * 1.0
`, err: "t.dp:4:19: overflow computing cell[0][1]: converting 1e+30 to long does not fit (finite range ±9,223,372,036,854,775,806)"},
		{name: "double to int, too big for long too", src: `double 1x3 D = 1.5,-1e30,2
1 x 3
cell[i][j] = D[j] * 1.0
`, err: "t.dp:3:19: overflow computing cell[0][1]: converting -1e+30 to int does not fit (finite range ±2,147,483,646)"},
		{name: "double inf to int is inf", src: `double 1x3 D = 1.5,2,2
1 x 3
cell[i][j] = j == 1 ? -D[j] / 0.0 : D[j]
`, want: map[[2]int64]float64{{0, 0}: 1, {0, 1}: -ip, {0, 2}: 2}},
		{name: "long to int", src: `long 1x3 L = 1,3000000000,2
1 x 3
cell[i][j] = L[j]
`, err: "t.dp:3:14: overflow computing cell[0][1]: converting 3000000000 to int does not fit (finite range ±2,147,483,646); use cell: long"},
		// Only the lanes of the case taken may fail.
		{name: "overflow in a case not taken", src: `int 1x4 A = 1,2,3,2000000000
2 x 4
cell[i][j] = A[j] * 2  when A[j] < 1000
           | -1  otherwise
`, want: map[[2]int64]float64{{0, 2}: 6, {1, 3}: -1}},
		{name: "overflow in a branch not taken", src: `int 1x4 A = 1,2,3,2000000000
2 x 4
cell[i][j] = A[j] < 1000 ? A[j] * 2 : -1
`, want: map[[2]int64]float64{{0, 2}: 6, {1, 3}: -1}},
		{name: "overflow after && not evaluated", src: `int 1x4 A = 1,2,3,2000000000
2 x 4
cell[i][j] = 5  when A[j] < 1000 && A[j] + A[j] > 3
           | -1  otherwise
`, want: map[[2]int64]float64{{0, 1}: 5, {0, 0}: -1, {1, 3}: -1}},
		{name: "uniform overflow in a case not taken", src: `int 1x4 A = 1,2,3,4
int big = 2000000000
3 x 4
cell[i][j] = A[j]  when i < 2
           | big * i + cell[i-1][j]  otherwise
`, err: "t.dp:5:18: overflow computing cell[2][0]: 2000000000 * 2 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{name: "overflow in the taken case of a pair", src: `int 1x4 A = 1,2,3,2000000000
2 x 4
cell[i][j] = A[j] * 2  when A[j] > 2
           | -1  otherwise
`, err: "t.dp:3:19: overflow computing cell[0][3]: 2000000000 * 2 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		// The scan loops: cell[i][j-1] + Y, and the blended case before it.
		{name: "scan term", src: `3 x 6
cell[i][j] = 0  when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1] + 1000000000)  otherwise
`, err: "t.dp:3:45: overflow computing cell[1][3]: 2000000000 + 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{name: "scan term subtracted", src: `3 x 6
cell[i][j] = 0  when i == 0 || j == 0
           | min(cell[i-1][j], cell[i][j-1] - 1000000000)  otherwise
`, err: "t.dp:3:45: overflow computing cell[1][3]: -2000000000 - 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{name: "scan term long", src: `cell: long
3 x 6
cell[i][j] = 0  when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1] + 4000000000000000000)  otherwise
`, err: "t.dp:4:45: overflow computing cell[1][3]: 8000000000000000000 + 4000000000000000000 does not fit in long (finite range ±9,223,372,036,854,775,806)"},
		{name: "blended case", src: `char 1x? A = "AAAAAA"
char 1x? B = "AAAAAA"
int big = 1000000000
(len(A)+1) x (len(B)+1)
cell[i][j] = 0  when i == 0 || j == 0
           | cell[i-1][j-1] + big  when A[i-1] == B[j-1]
           | max(cell[i-1][j], cell[i][j-1])  otherwise
`, err: "t.dp:6:29: overflow computing cell[3][3]: 2000000000 + 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		// inf.
		{name: "inf - inf", src: `2 x 3
cell[i][j] = inf  when i == 0
           | cell[i-1][j] - inf  otherwise
`, err: "t.dp:3:27: inf - inf is undefined computing cell[1][0]"},
		{name: "inf + -inf", src: `2 x 3
cell[i][j] = inf  when i == 0
           | cell[i-1][j] + -inf  otherwise
`, err: "t.dp:3:27: inf - inf is undefined computing cell[1][0]"},
		{name: "inf * 0", src: `int 1x3 A = 2,0,1
2 x 3
cell[i][j] = inf  when i == 0
           | cell[i-1][j] * A[j]  otherwise
`, err: "t.dp:4:27: inf * 0 is undefined computing cell[1][1]"},
		{name: "inf / inf", src: `2 x 3
cell[i][j] = -inf  when i == 0
           | cell[i-1][j] / cell[i-1][j]  otherwise
`, err: "t.dp:3:27: inf / inf is undefined computing cell[1][0]"},
		{name: "inf % x", src: `2 x 3
cell[i][j] = inf  when i == 0
           | cell[i-1][j] % 3  otherwise
`, err: "t.dp:3:27: inf % x is undefined computing cell[1][0]"},
		{name: "inf in a scan term", src: `2 x 3
cell[i][j] = inf  when j == 0
           | cell[i][j-1] - inf  otherwise
`, err: "t.dp:3:27: inf - inf is undefined computing cell[0][1]"},
		{name: "inf sum", src: `2 x 2
cell[i][j] = sum(k in 0..1: k == 0 ? inf : -inf)
`, err: "t.dp:2:14: inf - inf is undefined computing cell[0][0]"},
		{name: "inf rules that give numbers", src: `int 1x3 A = 7,-7,5
3 x 3
cell[i][j] = inf  when i == 0
           | cell[i-1][j] * -3  when i == 1 && j == 0
           | A[j] / cell[i-1][j]  when i == 1 && j == 1
           | A[j] % cell[i-1][j]  when i == 1 && j == 2
           | -cell[i-1][j] / 2  when j == 0
           | abs(cell[i-1][j] - inf) + 5  when j == 1
           | cell[i-1][j] - -inf  otherwise
`, want: map[[2]int64]float64{{1, 0}: -ip, {1, 1}: 0, {1, 2}: 5, {2, 0}: ip, {2, 1}: ip, {2, 2}: ip}},
		{name: "long inf * -3", src: `cell: long
2 x 2
cell[i][j] = -inf  when i == 0
           | cell[i-1][j] * (j - 3)  otherwise
`, want: map[[2]int64]float64{{1, 0}: lp, {1, 1}: lp}},
		// NaN.
		{name: "NaN cell", src: `double 1x3 D = 1,-1,4
cell: double
2 x 3
cell[i][j] = sqrt(D[j])
`, err: "t.dp:4:14: cell[0][1] is NaN; add `nan: allow` to the header to keep NaN values"},
		{name: "NaN cell allowed", src: `double 1x3 D = 1,-1,4
cell: double
nan: allow
2 x 3
cell[i][j] = sqrt(D[j])
`, want: map[[2]int64]float64{{1, 2}: 2}, nan: [][2]int64{{0, 1}, {1, 1}}},
		{name: "NaN in the second case", src: `double 1x3 D = 1,-1,4
cell: float
2 x 3
cell[i][j] = 1  when i == 0
           | cell[i-1][j] * sqrt(D[j])  otherwise
`, err: "t.dp:5:27: cell[1][1] is NaN; add `nan: allow` to the header to keep NaN values"},
		{name: "NaN in a scan", src: `double 1x4 D = 1,4,-1,9
cell: double
2 x 4
cell[i][j] = 0  when j == 0 || i == 0
           | cell[i][j-1] + sqrt(D[j])  otherwise
`, err: "t.dp:5:27: cell[1][2] is NaN; add `nan: allow` to the header to keep NaN values"},
		{name: "NaN in a scan allowed", src: `double 1x4 D = 1,4,-1,9
cell: double
nan: allow
2 x 4
cell[i][j] = 0  when j == 0 || i == 0
           | cell[i][j-1] + sqrt(D[j])  otherwise
`, want: map[[2]int64]float64{{1, 1}: 2}, nan: [][2]int64{{1, 2}, {1, 3}}},
		{name: "NaN in a blended case", src: `double 1x4 D = 1,4,-1,9
cell: double
2 x 4
cell[i][j] = 0  when j == 0 || i == 0
           | cell[i-1][j-1] + sqrt(D[j])  when D[j] < 2
           | max(cell[i-1][j], cell[i][j-1])  otherwise
`, err: "t.dp:5:29: cell[1][2] is NaN; add `nan: allow` to the header to keep NaN values"},
		{name: "NaN to int", src: `double 1x3 D = 1,-1,4
2 x 3
cell[i][j] = sqrt(D[j])
`, err: "t.dp:3:14: NaN converted to int"},
	} {
		t.Run(tc.name, func(t *testing.T) { runArith(t, tc) })
	}
}

// TestEvalArithmetic checks the rules in Eval, which has no cell: the
// messages name the answer.
func TestEvalArithmetic(t *testing.T) {
	src := `int 1x3 A = 2000000000,0,-7
double 1x2 D = -1,3e9
1 x 1
cell[i][j] = 1
answer: %s
`
	cells := GridCells(1, 1, func(i, j int64) ir.Value { return ir.Value{T: ir.Int, I: 1} })
	for _, c := range []struct{ expr, err string }{
		{"A[0] + A[0]", "t.dp:5:14: overflow computing the answer: 2000000000 + 2000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{"(A[1] + inf) * A[1]", "t.dp:5:22: inf * 0 is undefined computing the answer"},
		{"sum(k in 0..2: A[0])", "t.dp:5:9: overflow computing the answer: 2000000000 + 2000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{"A[2] + 1", ""},
	} {
		p, _ := dptest.Load(t, "t.dp", strings.Replace(src, "%s", c.expr, 1))
		_, err := Eval(p.Answer, cells)
		if errText(err) != c.err && !(err == nil && c.err == "") {
			t.Errorf("%s: error %q, want %q", c.expr, errText(err), c.err)
		}
	}
	p, _ := dptest.Load(t, "t.dp", strings.Replace(src, "%s", "D[1]", 1))
	if _, err := Convert(ir.Value{T: ir.Double, F: 3e9}, ir.Int); errText(err) != "overflow computing the answer: converting 3e+09 to int does not fit (finite range ±2,147,483,646); use cell: long" {
		t.Errorf("Convert: %v", errText(err))
	}
	_ = p
}

// TestCheckAnswer is the NaN rule for the answer.
func TestCheckAnswer(t *testing.T) {
	src := "double 1x1 D = -1\ncell: double\n%s1 x 1\ncell[i][j] = 1\nanswer: sqrt(D[0]) + cell[0][0]\n"
	p, _ := dptest.Load(t, "t.dp", strings.Replace(src, "%s", "", 1))
	v, err := Eval(p.Answer, GridCells(1, 1, func(i, j int64) ir.Value { return ir.Value{T: ir.Double, F: 1} }))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckAnswer(p, v); errText(err) != "t.dp:5:1: the answer is NaN; add `nan: allow` to the header to keep NaN values" {
		t.Errorf("NaN answer: %v", errText(err))
	}
	if err := CheckAnswer(p, ir.Value{T: ir.Double, F: math.Inf(1)}); err != nil {
		t.Errorf("inf answer: %v", err)
	}
	p, _ = dptest.Load(t, "t.dp", strings.Replace(src, "%s", "nan: allow\n", 1))
	if err := CheckAnswer(p, v); err != nil {
		t.Errorf("nan: allow: %v", err)
	}
	p, _ = dptest.Load(t, "t.dp", "1 x 1\ncell: double\ncell[i][j] = 1\n")
	if err := CheckAnswer(p, ir.Value{T: ir.Double, F: math.NaN()}); err == nil || err.Error() != "the answer is NaN; add `nan: allow` to the header to keep NaN values" {
		t.Errorf("no answer line: %v", err)
	}
}
