package sema

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/internal/errtest"
	"github.com/dpgpu/dpgpu/ir"
)

// The smaller additions of contract v2 (§7.5) and the emits of min's and
// max's arguments (§7.4), as the checker sees them.

func intList(xs []int64) string {
	s := make([]string, len(xs))
	for k, x := range xs {
		s[k] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

func scalarOf(t *testing.T, p *ir.Problem, name string) ir.Value {
	t.Helper()
	s := p.Scalar(name)
	if s == nil {
		t.Fatalf("no scalar %s", name)
	}
	return s.Value
}

// TestScalarReductions computes scalars that reduce over random inputs and
// compares them with plain Go loops over the same data.
func TestScalarReductions(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 75))
	t.Logf("seed %d", seed)
	for trial := 0; trial < 50; trial++ {
		n := 1 + r.IntN(12)
		p := make([]int64, n)
		for k := range p {
			p[k] = r.Int64N(2001) - 1000
		}
		rows, cols := 2+r.IntN(3), 1+r.IntN(4) // two rows or more: a matrix
		m := make([]int64, rows*cols)
		for k := range m {
			m[k] = r.Int64N(100)
		}
		var mrows []string
		for i := 0; i < rows; i++ {
			mrows = append(mrows, intList(m[i*cols:(i+1)*cols]))
		}
		cut := r.IntN(n + 1) // a bound from a scalar; cut-1 may be -1: empty
		src := fmt.Sprintf(`int 1x? p = %s
int %dx%d M = %s
int cut = %d
int H = sum(k in 0..len(p)-1: p[k]) / 2
double avg = sum(k in 0..len(p)-1: p[k]) / len(p)
int sq = max(k in 0..len(p)-1: p[k] * p[k])
int lo = min(k in 0..len(p)-1: abs(p[k] - 3))
int head = sum(k in 0..cut-1: p[k])
double emptymin = min(k in 0..cut-1: p[k])
int up = sum(a in 0..len(p)-1: sum(b in a+1..len(p)-1: p[a] < p[b] ? 1 : 0))
int tr = sum(k in 0..min(rows(M), cols(M))-1: M[k][k])
long total = sum(i in 0..rows(M)-1: sum(j in 0..cols(M)-1: M[i][j] * (p[0] < 0 || i > j ? 1 : 2)))
3x3
cell[i][j] = H + tr
`, intList(p), rows, cols, strings.Join(mrows, " & "), cut)
		pr := mustCheck(t, src, nil)

		var sum, sq, up, head int64
		lo := int64(math.MaxInt64)
		emptymin := math.Inf(1)
		for k, x := range p {
			sum += x
			sq = max(sq, x*x)
			d := x - 3
			if d < 0 {
				d = -d
			}
			lo = min(lo, d)
			if k < cut {
				head += x
				emptymin = math.Min(emptymin, float64(x))
			}
			for _, y := range p[k+1:] {
				if x < y {
					up++
				}
			}
		}
		var tr, total int64
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				x := m[i*cols+j]
				if i == j {
					tr += x
				}
				if p[0] < 0 || i > j {
					total += x
				} else {
					total += 2 * x
				}
			}
		}
		// The scalar's expression is computed in double precision and
		// truncated by the final conversion (int H = 7.5 is 7).
		want := map[string]ir.Value{
			"H":        {T: ir.Int, I: int64(math.Trunc(float64(sum) / 2))},
			"avg":      {T: ir.Double, F: float64(sum) / float64(n)},
			"sq":       {T: ir.Int, I: sq},
			"lo":       {T: ir.Int, I: lo},
			"head":     {T: ir.Int, I: head},
			"emptymin": {T: ir.Double, F: emptymin},
			"up":       {T: ir.Int, I: up},
			"tr":       {T: ir.Int, I: tr},
			"total":    {T: ir.Long, I: total},
		}
		for name, w := range want {
			if got := scalarOf(t, pr, name); got != w {
				t.Fatalf("seed %d, trial %d: %s = %v (%s), want %v\n%s", seed, trial, name, got, got.T, w, src)
			}
		}
	}
}

// TestScalarReductionExact: a scalar that is one reduction takes its value
// exactly, beyond the 2^53 that a double holds.
func TestScalarReductionExact(t *testing.T) {
	big := []int64{1<<60 + 1, 1<<58 + 3, -(1 << 55) + 7}
	p := mustCheck(t, "long 1x3 b = "+intList(big)+"\nlong s = sum(k in 0..2: b[k])\nlong m = max(k in 0..2: b[k] - 1)\n3x3\ncell[i][j] = 0\n", nil)
	if got, want := scalarOf(t, p, "s").I, big[0]+big[1]+big[2]; got != want {
		t.Errorf("s = %d, want %d", got, want)
	}
	if got, want := scalarOf(t, p, "m").I, big[0]-1; got != want {
		t.Errorf("m = %d, want %d", got, want)
	}
}

// TestScalarReductionOverrides: a scalar that reduces over an input is
// computed again from the data the command line gives (--input, --set),
// as every derived scalar is.
func TestScalarReductionOverrides(t *testing.T) {
	src := "int 1x? p = 1,2,3\nint n = 2\nint s = sum(k in 0..n-1: p[k])\nsum(k in 0..len(p)-1: p[k]) x 2\ncell[i][j] = s\n"
	f := parse(t, "t.dp", src)
	var decl *dsl.InputDecl
	for _, nm := range Names(f) {
		if nm.Input != nil {
			decl = nm.Input
		}
	}
	p := mustCheck(t, src, nil)
	if got := scalarOf(t, p, "s").I; got != 3 || p.Rows != 6 {
		t.Errorf("s = %d and %d rows, want 3 and 6", got, p.Rows)
	}
	data := setData(f, override{"n", "3"})
	data.Inputs = map[*dsl.InputDecl]*Datum{decl: {Origin: "--input", Values: [][]dsl.Value{{{Text: "10"}, {Text: "20"}, {Text: "30"}, {Text: "40"}}}}}
	p, err := Check(f, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := scalarOf(t, p, "s").I; got != 60 || p.Rows != 100 {
		t.Errorf("after --set n=3 --input p=10,20,30,40: s = %d and %d rows, want 60 and 100", got, p.Rows)
	}
}

// TestInfInData: inf and -inf in the data of any numeric input (contract
// v2 §7.5) are the type's sentinels (short, int, long) or IEEE's
// infinities, inline, in the tables loaders give, and as values of a
// program; they make the arithmetic that reads them saturate.
func TestInfInData(t *testing.T) {
	grid := "3x3\ncell[i][j] = 0\n"
	for _, typ := range []ir.Type{ir.Short, ir.Int, ir.Long, ir.Float, ir.Double} {
		p := mustCheck(t, fmt.Sprintf("%s 2x3 M = 1, inf, -inf & +inf, -Inf, infinity\n%s", typ, grid), nil)
		in := p.Inputs[0]
		for k, want := range []int{0, 1, -1, 1, -1, 1} {
			var got int
			if typ.IsFloat() {
				if math.IsInf(in.F[k], 0) {
					got = int(math.Copysign(1, in.F[k]))
				}
			} else {
				info := typ.Info()
				switch in.I[k] {
				case info.InfPos:
					got = 1
				case info.InfNeg:
					got = -1
				}
			}
			if got != want {
				t.Errorf("%s element %d: %v%v, want inf sign %d", typ, k, in.I, in.F, want)
			}
		}
		if !typ.IsFloat() && in.I[0] != 1 {
			t.Errorf("%s element 0 is %d", typ, in.I[0])
		}
	}
	// A loader's table marks inf with the long sentinels.
	f := parse(t, "t.dp", "int 1x? d = @\"d.txt\"\n"+grid)
	decl := Names(f)[0].Input
	tab := []int64{5, math.MaxInt64, -math.MaxInt64}
	p, err := Check(f, &Data{Inputs: map[*dsl.InputDecl]*Datum{decl: {Origin: "d.txt", Table: &Table{Rows: 1, Cols: 3, I: tab}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Inputs[0].I; got[0] != 5 || got[1] != math.MaxInt32 || got[2] != -math.MaxInt32 {
		t.Errorf("int input from a table %v: %v", tab, got)
	}
	if tab[1] != math.MaxInt64 {
		t.Errorf("the loader's table was changed: %v", tab)
	}
	// Arithmetic on an input that holds inf saturates; on one that does
	// not, it is only checked.
	for _, tc := range []struct{ data, want string }{
		{"1, inf", "(D[j]:int +sat 1:int):int"},
		{"1, 2", "(D[j]:int + 1:int):int"},
	} {
		p := mustCheck(t, "int 1x2 D = "+tc.data+"\n1x2\ncell[i][j] = D[j] + 1\n", nil)
		if got := show(p.Cases[0].Value); got != tc.want {
			t.Errorf("D = %s: %s, want %s", tc.data, got, tc.want)
		}
	}
	// Errors: char has no inf; words that are not inf are not numbers.
	for _, tc := range []struct{ src, want string }{
		{"char 1x2 c = a, inf\n" + grid, "1:17: c: char value \"inf\" must be a single character"},
		{"int 1x2 d = 1, infinite\n" + grid, "1:16: d: \"infinite\" is not a number (element 1)"},
		{"int 1x2 d = 1, 1e999\n" + grid, "1:16: d: \"1e999\" is not a number"},
		{"int 1x2 d = 1, 9223372036854775807\n" + grid, "1:16: d: 9223372036854775807 does not fit int"},
	} {
		errtest.Want(t, checkErrs(t, parse(t, "t.dp", tc.src), nil), tc.want)
	}
	f = parse(t, "t.dp", "char 1x? c = @\"c.txt\"\n"+grid)
	list := checkErrs(t, f, &Data{Inputs: map[*dsl.InputDecl]*Datum{Names(f)[0].Input: {Origin: "c.txt", Table: &Table{Rows: 1, Cols: 2, I: []int64{'a', math.MaxInt64}}}}})
	errtest.Want(t, list, "0:0: input c: element 1: char has no inf")
}

// TestArgumentEmits: an emit after an argument of min or max is lowered
// per argument into ir.Call.Emits; it is no part of the value (its cell
// references are not the recurrence's), and calls with emits are not
// folded away.
func TestArgumentEmits(t *testing.T) {
	src := `char 1x? A = "ACG"
char 1x? B = "AG"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0 when i == 0 || j == 0
  | cell[i-1][j-1] + 1 when A[i-1] == B[j-1] emit A[i-1]
  | max(cell[i-1][j] emit '-', cell[i][j-1] emit cell[i][j-1] + i, 0, 1 emit 7) otherwise
`
	p := mustCheck(t, src, nil)
	checkProblemTypes(t, p)
	want := "max(cell#1[(i - 1:int):int][j] emit '-':char, cell#2[i][(j - 1:int):int] emit (cell#-1[i][(j - 1:int):int] + i):int, 0:int, 1:int emit 7:int):int"
	if got := show(p.Cases[2].Value); got != want {
		t.Errorf("case 2:\n  got  %s\n  want %s", got, want)
	}
	if len(p.CellRefs) != 3 {
		t.Errorf("%d cell references, want 3: those of the emits are not dependencies", len(p.CellRefs))
	}
	for k, ref := range p.CellRefs {
		if ref.ID != k {
			t.Errorf("reference %d has ID %d", k, ref.ID)
		}
	}
	// Constant arguments with emits stay a call: which one wins is the
	// traceback's to see.
	p = mustCheck(t, "3x3\ncell[i][j] = max(1 emit 'a', 2 emit 'b')\n", nil)
	if got, want := show(p.Cases[0].Value), "max(1:int emit 'a':char, 2:int emit 'b':char):int"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// An emit may read an input that holds inf: its arithmetic saturates.
	p = mustCheck(t, "int 1x3 D = 1, inf, 3\n3x3\ncell[i][j] = min(cell[i][j-1] emit D[j] + 1, 0) when j > 0\n | 0 otherwise\n", nil)
	if got, want := show(p.Cases[0].Value), "min(cell#0[i][(j - 1:int):int] emit (D[j]:int +sat 1:int):int, 0:int):int"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestArgumentEmitErrors: an argument's emit stands only in a case's value,
// after an argument of min or max.
func TestArgumentEmitErrors(t *testing.T) {
	grid := "int 1x3 A = 1,2,3\n3x3\n"
	tests := []struct{ src, want string }{
		{"cell[i][j] = abs(i emit 1)", "3:25: `emit` may follow only an argument of min or max, whose winning argument a traceback step follows; not of abs"},
		{"cell[i][j] = pow(i, j emit 1)", "3:28: `emit` may follow only an argument of min or max"},
		{"cell[i][j] = 0 when max(i emit 1, j) > 0\n | 1 otherwise", "3:32: `emit` after an argument stands only in a case's value, where it says what a traceback step emits when the argument wins; not in a case's condition"},
		{"cell[i][j] = 0 otherwise emit max(i emit 1, j)", "3:42: not in the case's emit"},
		{"cell[i][j] = max(i emit max(i emit 1, j), j)", "3:36: not in the emit of an argument"},
		{"cell[i][j] = cell[max(i emit 1, 0)][j]", "3:30: not in a subscript"},
		{"cell[i][j] = A[max(i emit 1, 0)]", "3:27: not in a subscript"},
		{"cell[i][j] = max(i emit 1, j) > 0 ? 1 : 2", "3:25: not in the condition of ?:"},
		{"cell[i][j] = sum(k in 0..max(i emit 1, 0): k)", "3:37: not in the bounds of a reduction"},
		{"cell[i][j] = 0\nanswer: max(cell[0][0] emit 1, 2)", "4:29: not in answer:"},
		{"int n = max(1 emit 1, 2)\ncell[i][j] = n", "3:20: not in scalar n"},
		{"cell[i][j] = max(i emit i == 0, j)", "3:25: emit needs a number or a character, but i == 0 is a condition (bool)"},
		{"cell[i][j] = max(i emit zz, j)", "3:25: unknown name zz"},
	}
	for _, tc := range tests {
		f := parse(t, "t.dp", grid+tc.src+"\n")
		errtest.Want(t, checkErrs(t, f, nil), tc.want)
	}
	// Where the traceback follows the winning argument, an emit may stand:
	// inside a reduction's body, the branches of ?:, an operator's operands
	// and other functions' arguments.
	for _, src := range []string{
		"cell[i][j] = max(k in 0..i: max(k emit k, 0))",
		"cell[i][j] = i > 0 ? max(i emit 1, j) : 0",
		"cell[i][j] = 1 + abs(min(i emit 1, j emit 2))",
		"cell[i][j] = 0 when i == 0\n | max(cell[i-1][j] emit A[j], 0) otherwise emit 'x'",
	} {
		mustCheck(t, grid+src+"\n", nil)
	}
}
