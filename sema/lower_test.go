package sema

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

// lowerHeader declares one of everything for the lowering tests.
const lowerHeader = `int 1x5 wt = 2,3,4,5,9
char 1x? A = "ACGT"
double 2x3 M = 1.5, 2, 3 & 4, 5, 6.25
long 1x2 L = 1, 5000000000
long big = 5000000000
float f = 1.5
int k = 3
char ch = 'x'
`

// lowered checks a file made of lowerHeader, `cell: TYPE`, a 4x5 grid and
// `cell[i][j] = VALUE`, and returns the lowered value.
func lowered(t *testing.T, cellType, value string) (ir.Expr, *ir.Problem) {
	t.Helper()
	src := lowerHeader + "cell: " + cellType + "\n4 x 5\ncell[i][j] = " + value + "\n"
	p := mustCheck(t, src, nil)
	checkProblemTypes(t, p)
	return p.Cases[0].Value, p
}

func TestLowerTypes(t *testing.T) {
	tests := []struct {
		cell, value, want string
	}{
		// literals and folding
		{"int", "1 + 2 * 3", "7:int"},
		{"int", "7 / 2", "3:int"},
		{"int", "-7 / 2", "-3:int"},
		{"int", "-7 % 3", "-1:int"},
		{"int", "(1 < 2) && !(3 == 4)", "1:int"},
		{"double", "7", "7:double"},
		{"double", "7 / 2", "3:double"}, // integer division, then the conversion
		{"int", "2.7", "2:int"},         // C truncation
		{"int", "-2.7", "-2:int"},
		{"long", "3000000000", "3000000000:long"},
		{"int", "'A'", "65:int"},
		{"int", "'A' + 1", "66:int"},
		{"double", "1.5 * 2", "3:double"},
		{"double", "1 / -0.0", "-Inf:double"},     // negation keeps the sign of zero
		{"int", "-2147483646", "-2147483646:int"}, // the smallest finite int (§6.1)
		{"int", "ROWS * COLS", "20:int"},
		{"int", "len(A) + len(wt) + rows(M) + cols(M)", "14:int"},
		{"int", "min(3, 1, 2) + max(4, 9) + abs(-5)", "15:int"},
		{"double", "max(1, 2.5)", "2.5:double"},
		// index variables and arithmetic promotions
		{"int", "i + j", "(i + j):int"},
		{"int", "i - 1", "(i - 1:int):int"},
		{"long", "i * j", "long((i * j):int)"},
		{"int", "A[i] + 1", "(int(A[i]:char) + 1:int):int"},
		{"int", "A[i]", "int(A[i]:char)"},
		{"int", "-A[i]", "(-int(A[i]:char)):int"},
		{"int", "+A[i]", "int(A[i]:char)"},
		{"int", "wt[i] * k", "(wt[i]:int * $k:int):int"},
		{"long", "wt[i] + big", "(long(wt[i]:int) + $big:long):long"},
		{"long", "L[j] + k", "(L[j]:long + long($k:int)):long"},
		{"double", "wt[i] + f", "double((float(wt[i]:int) + $f:float):float)"},
		{"float", "f * 2", "($f:float * 2:float):float"},
		{"double", "f * 2.0", "(double($f:float) * 2:double):double"},
		{"double", "M[i][j] / wt[j]", "(M[i][j]:double / double(wt[j]:int)):double"},
		{"int", "wt[i] / 2", "(wt[i]:int / 2:int):int"},
		{"int", "wt[i] % k", "(wt[i]:int % $k:int):int"},
		{"int", "ch", "int($ch:char)"},
		// subscripts: chars promoted, longs kept
		{"int", "wt[A[0] - 65]", "wt[(int(A[0:int]:char) - 65:int):int]:int"},
		{"int", "wt[ch]", "wt[int($ch:char)]:int"},
		{"long", "L[big - 4999999999]", "L[($big:long - 4999999999:long):long]:long"},
		// conditions and selects
		{"int", "i < j ? 1 : 0", "((i < j):bool ? 1:int : 0:int):int"},
		{"int", "k ? 1 : 2", "(bool($k:int) ? 1:int : 2:int):int"},
		{"int", "A[i] == A[j] ? 1 : 2", "((int(A[i]:char) == int(A[j]:char)):bool ? 1:int : 2:int):int"},
		{"int", "A[i] == 'C'", "int((int(A[i]:char) == 67:int):bool)"},
		{"int", "i > 0 ? A[i] : A[0]", "int(((i > 0:int):bool ? A[i]:char : A[0:int]:char):char)"},
		{"double", "i > 0 ? wt[i] : f", "double(((i > 0:int):bool ? float(wt[i]:int) : $f:float):float)"},
		{"int", "!(i < j) || k && j", "int(((!(i < j):bool):bool || (bool($k:int) && bool(j)):bool):bool)"},
		// functions
		{"double", "sqrt(k)", "sqrt(double($k:int)):double"},
		{"float", "sqrt(f)", "sqrt($f:float):float"},
		{"double", "pow(f, 2)", "pow(double($f:float), 2:double):double"},
		{"double", "exp(1) + log(2.0) + floor(f) + ceil(1.5)", "(((exp(1:double):double + log(2:double):double):double + double(floor($f:float):float)):double + ceil(1.5:double):double):double"},
		{"int", "abs(i - j)", "abs((i - j):int):int"},
		{"int", "abs(A[i])", "abs(int(A[i]:char)):int"},
		{"int", "min(A[i], A[j])", "int(min(A[i]:char, A[j]:char):char)"},
		{"int", "max(i, wt[j], k)", "max(i, wt[j]:int, $k:int):int"},
		{"double", "max(i, f)", "double(max(float(i), $f:float):float)"},
		{"long", "max(i, big)", "max(long(i), $big:long):long"},
		// reductions
		{"int", "max(k2 in 0..i: wt[k2])", "max(k2 in 0:int..i: wt[k2]:int):int"},
		{"int", "sum(m in 0..len(wt)-1: wt[m])", "sum(m in 0:int..4:int: wt[m]:int):int"},
		{"int", "sum(m in 0..3: A[m])", "sum(m in 0:int..3:int: int(A[m]:char)):int"},
		{"long", "sum(m in 0..big: m)", "sum(m in 0:long..$big:long: m):long"},
		{"double", "min(m in 1..j: M[0][m] * 2)", "min(m in 1:int..j: (M[0:int][m]:double * 2:double):double):double"},
		{"int", "sum(a in 0..i: sum(b in a..j: a * b))", "sum(a in 0:int..i: sum(b in a..j: (a * b):int):int):int"},
		// scalars stay references
		{"int", "k", "$k:int"},
		{"double", "f", "double($f:float)"},
	}
	for _, tc := range tests {
		got, _ := lowered(t, tc.cell, tc.value)
		if s := show(got); s != tc.want {
			t.Errorf("cell: %s, %s\n  got  %s\n  want %s", tc.cell, tc.value, s, tc.want)
		}
	}
}

func TestLowerInf(t *testing.T) {
	tests := []struct {
		cell, value, want string
	}{
		{"int", "inf", "inf:int"},
		{"int", "-inf", "-inf:int"},
		{"int", "--inf", "inf:int"},
		{"double", "inf", "inf:double"},
		{"double", "-inf", "-inf:double"},
		{"long", "inf", "inf:long"},
		// inf takes the type of the other operand
		{"double", "wt[i] + inf", "double((wt[i]:int +sat inf:int):int)"},
		{"int", "f < inf ? 1 : 0", "((($f:float < inf:float):bool ? 1:int : 0:int):int)"},
		{"int", "min(A[i], inf)", "min(int(A[i]:char), inf:int):int"},
		{"int", "min(inf, -inf)", "min(inf:int, -inf:int):int"},
		{"int", "i == 0 ? inf : wt[i]", "((i == 0:int):bool ? inf:int : wt[i]:int):int"},
		{"long", "big + inf", "($big:long +sat inf:long):long"},
		{"int", "inf + inf", "(inf:int +sat inf:int):int"},
		{"int", "inf * 2", "(inf:int *sat 2:int):int"},
		{"int", "abs(-inf)", "abs(-inf:int):int"},
		{"int", "i + 1 - inf", "((i + 1:int):int -sat inf:int):int"},
	}
	for _, tc := range tests {
		got, _ := lowered(t, tc.cell, tc.value)
		if s := show(got); strings.Trim(s, "()") != strings.Trim(tc.want, "()") {
			t.Errorf("cell: %s, %s\n  got  %s\n  want %s", tc.cell, tc.value, s, tc.want)
		}
	}
}

// TestSaturate checks the "may be inf" analysis: integer + and - saturate
// exactly where an operand may carry the sentinel, including through cell
// references when some case may produce inf.
func TestSaturate(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		cases []string // show() of each case value
	}{
		{"no inf: plain adds",
			"3x3\ncell[i][j] = 0 when i == 0\n  | cell[i-1][j] + 1 otherwise\n",
			[]string{"0:int", "(cell#0[(i - 1:int):int][j] + 1:int):int"}},
		{"an inf case makes every cell reference saturate",
			"3x3\ncell[i][j] = inf when i == 0\n  | cell[i-1][j] + 1 - j otherwise\n",
			[]string{"inf:int", "((cell#0[(i - 1:int):int][j] +sat 1:int):int -sat j):int"}},
		{"inf only through min",
			"3x3\ncell[i][j] = min(inf, i) when i == 0\n  | cell[i-1][j] + 1 otherwise\n",
			[]string{"min(inf:int, i):int", "(cell#0[(i - 1:int):int][j] +sat 1:int):int"}},
		{"a product of a possibly-inf cell is inf-carrying",
			"3x3\ncell[i][j] = inf when i == 0\n  | cell[i-1][j] * 2 + 1 otherwise\n",
			[]string{"inf:int", "((cell#0[(i - 1:int):int][j] *sat 2:int):int +sat 1:int):int"}},
		{"a remainder of inf is finite (or an error)",
			"3x3\ncell[i][j] = inf when i == 0\n  | cell[i-1][j] % 2 + 1 otherwise\n",
			[]string{"inf:int", "((cell#0[(i - 1:int):int][j] %sat 2:int):int + 1:int):int"}},
		{"subscripts saturate only when they may be inf",
			"3x3\ncell[i][j] = -inf when j == 0\n  | cell[i][j-1] + 2 otherwise\n",
			[]string{"-inf:int", "(cell#0[i][(j - 1:int):int] +sat 2:int):int"}},
		{"a min reduction may be empty: inf",
			"3x3\ncell[i][j] = min(k in 1..i: cell[i-k][j]) + 1\n",
			[]string{"(min(k in 1:int..i: cell#0[(i - k):int][j]):int +sat 1:int):int"}},
		{"a constant non-empty reduction of finite values is finite",
			"3x3\ncell[i][j] = max(k in 0..2: k) + 1\n",
			[]string{"(max(k in 0:int..2:int: k):int + 1:int):int"}},
		{"a sum of a possibly-inf body",
			"3x3\ncell[i][j] = inf when i == 0\n  | sum(k in 0..j: cell[i-1][k]) - 1 otherwise\n",
			[]string{"inf:int", "(sum(k in 0:int..j: cell#0[(i - 1:int):int][k]):int -sat 1:int):int"}},
		{"floating cells never saturate",
			"cell: double\n3x3\ncell[i][j] = inf when i == 0\n  | cell[i-1][j] + 1 otherwise\n",
			[]string{"inf:double", "(cell#0[(i - 1:int):int][j] + 1:double):double"}},
		{"a select carries inf from a branch",
			"3x3\ncell[i][j] = (i == 0 ? inf : 0) + j\n",
			[]string{"(((i == 0:int):bool ? inf:int : 0:int):int +sat j):int"}},
		{"a converted double inf stays inf",
			"3x3\ncell[i][j] = 1.0 / 0.0 + 0 when i == 0\n  | cell[i-1][j] + 1 otherwise\n",
			[]string{"inf:int", "(cell#0[(i - 1:int):int][j] +sat 1:int):int"}},
		{"an infinite double scalar carries inf",
			"double x = -1.0 / 0.0\n3x3\ncell[i][j] = x when i == 0\n  | cell[i-1][j] + 1 otherwise\n",
			[]string{"int($x:double)", "(cell#0[(i - 1:int):int][j] +sat 1:int):int"}},
		{"an infinite element of a double input carries inf",
			"double 1x2 D = 1, inf\n3x3\ncell[i][j] = D[j] when i == 0\n  | cell[i-1][j] + 1 otherwise\n",
			[]string{"int(D[j]:double)", "(cell#0[(i - 1:int):int][j] +sat 1:int):int"}},
		{"a finite double input does not",
			"double 1x2 D = 1, 2\n3x3\ncell[i][j] = D[j] when i == 0\n  | cell[i-1][j] + 1 otherwise\n",
			[]string{"int(D[j]:double)", "(cell#0[(i - 1:int):int][j] + 1:int):int"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustCheck(t, tc.src, nil)
			checkProblemTypes(t, p)
			if len(p.Cases) != len(tc.cases) {
				t.Fatalf("%d cases", len(p.Cases))
			}
			for k, c := range p.Cases {
				if got := show(c.Value); got != tc.cases[k] {
					t.Errorf("case %d\n  got  %s\n  want %s", k, got, tc.cases[k])
				}
			}
		})
	}
}

func TestCellRefs(t *testing.T) {
	src := `int 1x4 wt = 1,2,3,4
5 x 6
cell[i][j] = 0 when i == 0 || cell[i-1][j] > 3
           | cell[ i-1 ][j-wt[i-1]] + cell [i-1] [j] when j >= wt[i-1] emit cell[i-1][0]
           | max(cell[i-1][cell[i-1][j] % 6], cell[i-1][j]) otherwise
answer: cell[ROWS-1][COLS-1] + max(r in 0..ROWS-1: cell[r][0])
`
	p := mustCheck(t, src, nil)
	checkProblemTypes(t, p)
	want := []struct {
		text      string
		line, col int
	}{
		{"cell[i-1][j]", 3, 31},
		{"cell[ i-1 ][j-wt[i-1]]", 4, 14},
		{"cell [i-1] [j]", 4, 39},
		{"cell[i-1][0]", 4, 77},
		{"cell[i-1][cell[i-1][j] % 6]", 5, 18},
		{"cell[i-1][j]", 5, 28},
		{"cell[i-1][j]", 5, 47},
	}
	if len(p.CellRefs) != len(want) {
		t.Fatalf("%d refs", len(p.CellRefs))
	}
	for k, w := range want {
		r := p.CellRefs[k]
		if r.ID != k || r.Text != w.text || r.Pos.Line != w.line || r.Pos.Col != w.col {
			t.Errorf("ref %d: ID %d %q at %d:%d, want %q at %d:%d", k, r.ID, r.Text, r.Pos.Line, r.Pos.Col, w.text, w.line, w.col)
		}
	}
	if got := show(p.Answer); got != "(cell#-1[4:int][5:int] + max(r in 0:int..4:int: cell#-1[r][0:int]):int):int" {
		t.Errorf("answer = %s", got)
	}
	var texts []string
	ir.Walk(p.Answer, func(e ir.Expr) bool {
		if r, ok := e.(*ir.CellRef); ok {
			texts = append(texts, r.Text)
		}
		return true
	})
	if strings.Join(texts, " ") != "cell[ROWS-1][COLS-1] cell[r][0]" {
		t.Errorf("answer refs %q", texts)
	}
}

// TestAnswerReduction checks that i and j may be reduction variables in the
// answer and are then shared with their reduction (the planner relies on
// the pointer).
func TestAnswerReduction(t *testing.T) {
	src := "3x4\ncell[i][j] = i * j\nanswer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))\n"
	p := mustCheck(t, src, nil)
	outer, ok := p.Answer.(*ir.Reduce)
	if !ok {
		t.Fatalf("answer %s", show(p.Answer))
	}
	inner := outer.Body.(*ir.Reduce)
	ref := inner.Body.(*ir.CellRef)
	if ref.I != ir.Expr(outer.Var) || ref.J != ir.Expr(inner.Var) || outer.Var.Kind != ir.VarReduce {
		t.Errorf("reduction variables not shared: %s", show(p.Answer))
	}
	if show(p.Answer) != "max(i in 0:int..2:int: max(j in 0:int..3:int: cell#-1[i][j]):int):int" {
		t.Errorf("answer %s", show(p.Answer))
	}
}

func TestIndexVarTypes(t *testing.T) {
	p := mustCheck(t, "2 x 3000000000\ncell: long\ncell[i][j] = i + j + ROWS\n", nil)
	if got := show(p.Cases[0].Value); got != "((i + j):long + 2:long):long" {
		t.Errorf("long grid: %s", got)
	}
	ir.Walk(p.Cases[0].Value, func(e ir.Expr) bool {
		if v, ok := e.(*ir.Var); ok && v.T != ir.Long {
			t.Errorf("%s is %s", v.Name, v.T)
		}
		return true
	})
	p = mustCheck(t, "2 x 3\ncell[i][j] = i\n", nil)
	if v := p.Cases[0].Value.(*ir.Var); v.T != ir.Int || v.Kind != ir.VarI {
		t.Errorf("i: %+v", v)
	}
}

func TestUnnamedInputs(t *testing.T) {
	src := "int 1x2 1,2\nint 1x2 x = 3,4\nchar 1x3 A,B,C\nint 2x2 5,6 & 7,8\n2x2\ncell[i][j] = in0[j] + x[i] + in1[j] + in2[i][j]\n"
	p := mustCheck(t, src, nil)
	var names []string
	for _, in := range p.Inputs {
		names = append(names, in.Name)
	}
	if strings.Join(names, " ") != "in0 x in1 in2" {
		t.Errorf("names %v", names)
	}
	if in2 := p.Input("in2"); in2.Rows != 2 || in2.Cols != 2 || in2.Vector || in2.I[3] != 8 {
		t.Errorf("in2 %+v", in2)
	}
}
