package sema

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/source"
)

// TestErrors checks every error of the checker: its message and the
// position of the node at fault. Each source has exactly the listed errors
// and no others (so cascades are tested too).
func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		// names
		{"unknown name with a suggestion",
			"int 1x3 wt = 1,2,3\n3x3\ncell[i][j] = wgt[i]\n",
			[]string{"3:14: unknown name wgt (did you mean wt?)"}},
		{"unknown name in a case-insensitive near miss",
			"3x3\ncell[i][j] = Rows\n",
			[]string{"2:14: unknown name Rows (did you mean ROWS?)"}},
		{"a function name used as a value, lower case",
			"3x3\ncell[i][j] = rows\n",
			[]string{"2:14: rows is a built-in function: call it, rows(...)"}},
		{"unknown name without a suggestion",
			"3x3\ncell[i][j] = zebra + 1\n",
			[]string{"2:14: unknown name zebra"}},
		{"unknown index variable suggests the bound one",
			"3x3\ncell[i][w] = wx + 1\n",
			[]string{"2:14: unknown name wx (did you mean w?)"}},
		{"duplicate input",
			"int 1x2 A = 1,2\nint 1x2 A = 3,4\n3x3\ncell[i][j] = A[0]\n",
			[]string{"2:1: duplicate name A: input A is already declared at line 1"}},
		{"duplicate scalar vs input",
			"int 1x2 A = 1,2\nint A = 3\n3x3\ncell[i][j] = A[0]\n",
			[]string{"2:1: duplicate name A: input A is already declared at line 1"}},
		{"explicit in0 collides with an unnamed input",
			"int 1x2 1,2\nint 1x2 in0 = 3,4\n3x3\ncell[i][j] = in0[0]\n",
			[]string{"2:1: duplicate name in0"}},
		{"reserved names",
			"int ROWS = 3\nint 1x2 max = 1,2\n3x3\ncell[i][j] = 0\n",
			[]string{"1:1: a scalar cannot be named ROWS: ROWS is the number of grid rows", "2:1: an input cannot be named max: max is a built-in function"}},
		{"a function name used as a value",
			"3x3\ncell[i][j] = sqrt + 1\n",
			[]string{"2:14: sqrt is a built-in function: call it, sqrt(...)"}},

		// types
		{"% on a floating operand",
			"double x = 2.5\n3x3\ncell[i][j] = i % x\n",
			[]string{"3:16: operator % needs integer operands, but x is double"}},
		{"% on a floating literal",
			"3x3\ncell[i][j] = 7.0 % i\n",
			[]string{"2:18: operator % needs integer operands, but 7.0 is double"}},
		{"% in a scalar",
			"double x = 2.5\nint y = 7 % x\n3x3\ncell[i][j] = y\n",
			[]string{"2:11: operator % needs integer operands, but x is double"}},
		{"indexing a scalar",
			"int cap = 3\n3x3\ncell[i][j] = cap[i]\n",
			[]string{"3:14: cap is a scalar and cannot be indexed"}},
		{"a vector with two subscripts",
			"int 1x3 v = 1,2,3\n3x3\ncell[i][j] = v[i][j]\n",
			[]string{"3:14: v is a vector: it takes one subscript, v[k], not 2"}},
		{"a matrix with one subscript",
			"int 2x2 M = 1,2 & 3,4\n3x3\ncell[i][j] = M[i]\n",
			[]string{"3:14: M is a matrix: it takes two subscripts, M[r][c], not 1"}},
		{"cell with one subscript",
			"3x3\ncell[i][j] = cell[i-1] + 1\n",
			[]string{"2:14: cell needs two subscripts, cell[i][j], not 1"}},
		{"cell alone",
			"3x3\ncell[i][j] = cell\n",
			[]string{"2:14: cell needs two subscripts"}},
		{"an input used as a number",
			"int 1x3 v = 1,2,3\n3x3\ncell[i][j] = v + 1\n",
			[]string{"3:14: v is a vector: index it, v[k], or use len(v)"}},
		{"a floating subscript",
			"int 1x3 v = 1,2,3\n3x3\ncell[i][j] = v[i / 2.0]\n",
			[]string{"3:16: a subscript must be an integer, but i / 2.0 is double"}},
		{"a bool subscript",
			"int 1x3 v = 1,2,3\n3x3\ncell[i][j] = v[i < j]\n",
			[]string{"3:16: a subscript must be an integer, but i < j is a condition (bool)"}},
		{"an index variable indexed",
			"3x3\ncell[i][j] = i[0]\n",
			[]string{"2:14: i is an index variable and cannot be indexed"}},
		{"a floating reduction bound",
			"3x3\ncell[i][j] = sum(k in 0..1.5: k)\n",
			[]string{"2:26: reduction bounds must be integers, but 1.5 is double"}},
		{"a reduction variable that shadows an input",
			"int 1x3 v = 1,2,3\n3x3\ncell[i][j] = sum(v in 0..2: 1)\n",
			[]string{"3:18: reduction variable v shadows the input v (line 1)"}},
		{"a reduction variable that shadows an index variable",
			"3x3\ncell[i][j] = sum(j in 0..2: 1)\n",
			[]string{"2:18: reduction variable j shadows an index variable of the recurrence"}},
		{"an emit that is a condition",
			"3x3\ncell[i][j] = 0 when i == 0\n  | 1 otherwise emit i < j\n",
			[]string{"3:22: emit needs a number or a character, but i < j is a condition (bool)"}},
		{"an answer that is a condition",
			"3x3\ncell[i][j] = 0\nanswer: cell[0][0] > 1\n",
			[]string{"3:9: answer: needs a number, but cell[0][0] > 1 is a condition (bool)"}},
		{"constant overflow",
			"3x3\ncell[i][j] = 2147483646 + 1\n",
			[]string{"2:25: constant expression 2147483646 + 1 overflows int (finite range ±2147483646)"}},
		{"an int literal at the sentinel is a long, too big for an int cell",
			"3x3\ncell[i][j] = 2147483647\n",
			[]string{"2:14: constant 2147483647 does not fit int (finite range -2147483646..2147483646; write inf for infinity)"}},
		{"a literal beyond long's finite range",
			"cell: long\n3x3\ncell[i][j] = 9223372036854775807\n",
			[]string{"3:14: 9223372036854775807 is outside the finite range of long (±9,223,372,036,854,775,806); write inf for infinity"}},
		{"constant negation overflow",
			"cell: long\n3x3\ncell[i][j] = -(-9223372036854775806 - 1)\n",
			[]string{"3:37: constant expression -9223372036854775806 - 1 overflows long (finite range ±9223372036854775806)"}},
		{"constant division by zero",
			"3x3\ncell[i][j] = i + 1 / 0\n",
			[]string{"2:20: division by zero"}},
		{"a constant that does not fit the cell",
			"3x3\ncell[i][j] = 3000000000\n",
			[]string{"2:14: constant 3000000000 does not fit int (finite range -2147483646..2147483646; write inf for infinity)"}},

		// calls
		{"min with one argument",
			"3x3\ncell[i][j] = min(i)\n",
			[]string{"2:14: min needs at least 2 arguments, not 1"}},
		{"abs with two arguments",
			"3x3\ncell[i][j] = abs(i, j)\n",
			[]string{"2:14: abs takes 1 argument, not 2"}},
		{"pow with one argument",
			"3x3\ncell[i][j] = pow(i)\n",
			[]string{"2:14: pow takes 2 arguments, not 1"}},
		{"sqrt with two",
			"cell: double\n3x3\ncell[i][j] = sqrt(i, j)\n",
			[]string{"3:14: sqrt takes 1 argument, not 2"}},
		{"len with two",
			"int 1x2 A = 1,2\nint 1x2 B = 1,2\n3x3\ncell[i][j] = len(A, B)\n",
			[]string{"4:14: len takes 1 input, not 2 arguments"}},
		{"len of an expression",
			"int 1x2 A = 1,2\n3x3\ncell[i][j] = len(A[0])\n",
			[]string{"3:18: len needs the name of an input, not A[0]"}},
		{"len of a scalar",
			"int n = 2\n3x3\ncell[i][j] = len(n)\n",
			[]string{"3:18: len needs an input, but n is a scalar"}},
		{"len of a matrix",
			"int 2x2 M = 1,2 & 3,4\n3x3\ncell[i][j] = len(M)\n",
			[]string{"3:14: len needs a vector, but M is a matrix: use rows(M) or cols(M)"}},
		{"unknown function with a suggestion",
			"3x3\ncell[i][j] = sqr(i)\n",
			[]string{"2:14: unknown function sqr (did you mean sqrt?)"}},
		{"unknown function",
			"3x3\ncell[i][j] = frobnicate(i)\n",
			[]string{"2:14: unknown function frobnicate (functions: abs, ceil"}},
		{"an input called",
			"int 1x2 A = 1,2\n3x3\ncell[i][j] = A(0)\n",
			[]string{"3:14: A is an input, not a function"}},
		{"sum called",
			"3x3\ncell[i][j] = sum(i, j)\n",
			[]string{"2:14: sum is a reduction: sum(k in LO..HI: EXPR)"}},
		{"a reduction of an unknown operation",
			"3x3\ncell[i][j] = avg(k in 0..2: k)\n",
			[]string{"2:14: only min, max and sum reduce over a range, not avg"}},

		// data
		{"declared length vs values",
			"int 1x5 wt = 2,3,4,5\n3x3\ncell[i][j] = wt[0]\n",
			[]string{"1:1: wt is declared 1x5 but has 4 values"}},
		{"declared matrix vs data",
			"int 3x2 M = 1,2 & 3,4\n3x3\ncell[i][j] = M[0][0]\n",
			[]string{"1:1: M is declared 3x2 but the data is 2x2"}},
		{"ragged matrix rows",
			"int ?x? M = 1,2,3 & 4,5\n3x3\ncell[i][j] = M[0][0]\n",
			[]string{"1:21: row 2 of M has 2 values, but row 1 has 3"}},
		{"rows for a vector",
			"int 1x? v = 1,2 & 3,4\n3x3\ncell[i][j] = v[0]\n",
			[]string{"1:19: v is declared 1x?, a vector, but its data has 2 rows"}},
		{"a char value of two characters",
			"char 1x? A = X,AB,C\n3x3\ncell[i][j] = A[0]\n",
			[]string{"1:16: A: char value \"AB\" must be a single character"}},
		{"an int out of range",
			"int 1x? v = 1, 3000000000\n3x3\ncell[i][j] = v[0]\n",
			[]string{"1:16: v: 3000000000 does not fit int; declare it long"}},
		{"a fraction for an int",
			"int 1x? v = 1, 2.5\n3x3\ncell[i][j] = v[0]\n",
			[]string{"1:16: v: 2.5 is not an integer"}},
		{"not a number",
			"double 1x? v = 1, x2\n3x3\ncell[i][j] = v[0]\n",
			[]string{"1:19: v: \"x2\" is not a number"}},
		{"a string for an int input",
			"int 1x? v = \"ACGT\"\n3x3\ncell[i][j] = v[0]\n",
			[]string{"1:13: a string gives characters, but v is declared int"}},
		{"a missing file",
			"int 1x? v = @\"no-such-file.txt\"\n3x3\ncell[i][j] = v[0]\n",
			[]string{"1:13: input v: ", "no-such-file.txt"}},
		{"a required input",
			"int ?x? dist\nargs: dist\n3x3\ncell[i][j] = dist[i][j]\n",
			[]string{"1:1: input dist needs data: give a file as an argument or --input dist=@FILE"}},
		{"a required input without args",
			"int ?x? dist\n3x3\ncell[i][j] = dist[i][j]\n",
			[]string{"1:1: input dist needs data: give --input dist=@FILE"}},
		{"constant index outside a vector",
			"int 1x5 A = 1,2,3,4,5\n3x3\ncell[i][j] = A[7] + A[i-1] + A[len(A)-1]\n",
			[]string{"3:14: index 7 is outside A (5 elements: 0..4)"}},
		{"negative constant index",
			"int 1x5 A = 1,2,3,4,5\n3x3\ncell[i][j] = A[2-3]\n",
			[]string{"3:14: index -1 is outside A"}},
		{"constant index outside a matrix",
			"int 2x3 M = 1,2,3 & 4,5,6\n3x3\ncell[i][j] = M[1][3]\n",
			[]string{"3:14: index [1][3] is outside M (2x3)"}},
		{"constant cell outside the grid",
			"3x4\ncell[i][j] = cell[3][0]\n",
			[]string{"2:14: cell[3][0] is outside the 3x4 grid"}},
		{"folded constant cell outside the grid",
			"3x4\ncell[i][j] = cell[ROWS-1][COLS]\n",
			[]string{"2:14: cell[ROWS-1][COLS] reads cell[2][4], outside the 3x4 grid"}},

		// recurrence shape
		{"missing otherwise",
			"3x3\ncell[i][j] = 0 when i == 0\n  | 1 when i == 1\n",
			[]string{"3:5: the last case must be `otherwise`"}},
		{"a case after otherwise",
			"3x3\ncell[i][j] = 0 when i == 0\n  | 1 otherwise\n  | 2 when j == 0\n",
			[]string{"4:5: this case comes after `otherwise` (line 3) and can never be used"}},
		{"recurrence target not cell",
			"3x3\nfoo[i][j] = 0\n",
			[]string{"2:1: the recurrence must define cell[...][...], not foo"}},
		{"index variables that shadow",
			"int 1x3 w = 1,2,3\nint i = 2\n3x3\ncell[i][w] = 0\n",
			[]string{"4:6: index variable i shadows the scalar i (line 2)", "4:9: index variable w shadows the input w (line 1)"}},
		{"index variables that are reserved",
			"3x3\ncell[ROWS][j] = 0\n",
			[]string{"2:6: index variable ROWS shadows ROWS, the number of grid rows"}},
		{"the same index variable twice",
			"3x3\ncell[i][i] = 0\n",
			[]string{"2:9: the two index variables must differ: cell[i][i]"}},
		{"the recurrence uses a later name",
			"3x3\ncell[i][j] = wt[i] + wt[j] + cap\nint 1x3 wt = 1,2,3\nint cap = 4\n",
			[]string{"2:14: the recurrence uses wt, which is declared after it (line 3)", "2:30: the recurrence uses cap, which is declared after it (line 4)"}},
		{"no recurrence",
			"3x3\n",
			[]string{"0:0: no recurrence"}},
		{"two recurrences",
			"3x3\ncell[i][j] = 0\ncell[i][j] = 1\n",
			[]string{"3:1: duplicate recurrence (the first is at line 2)"}},

		// answer
		{"i in the answer outside a reduction",
			"3x3\ncell[i][j] = 0\nanswer: cell[i][0]\n",
			[]string{"3:14: i is an index variable of the recurrence; in answer: it exists only as the variable of a reduction, e.g. max(i in 0..ROWS-1: ...)"}},
		{"j in the answer",
			"3x3\ncell[i][j] = 0\nanswer: j + 1\n",
			[]string{"3:9: j is an index variable of the recurrence; in answer: it exists only as the variable of a reduction, e.g. max(j in 0..COLS-1: ...)"}},

		// scalars
		{"a scalar that uses a later one",
			"double a = b * 2\ndouble b = 3\n3x3\ncell[i][j] = 0\n",
			[]string{"1:12: scalar a uses b, which is declared later (line 2); declare b first"}},
		{"circular scalars",
			"double a = b * 2\ndouble b = c + 1\ndouble c = a\n3x3\ncell[i][j] = 0\n",
			[]string{"1:12: scalar a is defined in a circle: a -> b -> c -> a", "2:12: scalar b is defined in a circle: b -> c -> a -> b"}},
		{"a scalar that uses itself",
			"int n = n + 1\n3x3\ncell[i][j] = 0\n",
			[]string{"1:9: scalar n refers to itself"}},
		{"a scalar that reads the grid size",
			"int n = ROWS\n3x3\ncell[i][j] = 0\n",
			[]string{"1:9: scalar n cannot use ROWS"}},
		{"a scalar that reads an input element",
			"int 1x2 v = 1,2\nint n = v[0]\n3x3\ncell[i][j] = 0\n",
			[]string{"2:9: scalar n cannot read elements of input v (it may use len(v), rows(v) and cols(v))"}},
		{"a scalar out of range",
			"int n = 1e10\n3x3\ncell[i][j] = 0\n",
			[]string{"1:1: scalar n: 1e+10 does not fit int; declare it long"}},
		{"a scalar that is NaN",
			"double x = sqrt(-1)\n3x3\ncell[i][j] = 0\n",
			[]string{"1:1: scalar x: the value is NaN"}},
		{"a scalar divided by zero",
			"int a = 0\nint n = 3 / a\n3x3\ncell[i][j] = 0\n",
			[]string{"2:11: scalar n: division by zero"}},
		{"a reduction in a scalar",
			"int n = sum(k in 0..3: k)\n3x3\ncell[i][j] = 0\n",
			[]string{"1:9: scalar n cannot use a reduction"}},

		// header
		{"duplicate header lines",
			"problem a\nproblem b\nprev: 1\nprev: 2\nmem: 0\nmem: 1\n3x3\ncell[i][j] = 0\nanswer: cell[0][0]\nanswer: cell[1][1]\n",
			[]string{"2:1: duplicate `problem` line (the first is at line 1)", "4:1: duplicate `prev:` line (the first is at line 3)", "6:1: duplicate `mem:` line (the first is at line 5)", "10:1: duplicate `answer:` line (the first is at line 9)"}},
		{"bad setting values",
			"prev: x\nmem: 2\nmaintain: yes\ncell: char\nschedule: diagonal\n3x3\ncell[i][j] = 0\n",
			[]string{"1:7: prev: wants a non-negative integer", "2:6: mem: wants 0 or 1, not \"2\"", "3:11: maintain: wants 0 or 1, not \"yes\"", "4:7: cell: wants short or int or long or float or double, not \"char\"", "5:11: schedule: wants wavefront or rows or cols or held-karp, not \"diagonal\""}},
		{"an unknown setting",
			"shedule: rows\nfoo: 1\n3x3\ncell[i][j] = 0\n",
			[]string{"1:1: unknown setting shedule: (did you mean schedule:?)", "2:1: unknown setting foo: (settings: prev, mem, maintain, cell, schedule, nan)"}},
		{"no grid line",
			"cell[i][j] = 0\n",
			[]string{"0:0: no grid line"}},
		{"two grid lines",
			"3x3\n4 x 4\ncell[i][j] = 0\n",
			[]string{"2:1: a second grid line: the grid is already given at line 1"}},
		{"a zero grid side",
			"int 1x? A = 1\n(len(A)-1) x 3\ncell[i][j] = 0\n",
			[]string{"2:1: the grid's rows must be a positive integer, but (len(A) - 1) is 0"}},
		{"a fractional grid side",
			"double T = 2.5\n4 x (T)\ncell[i][j] = 0\n",
			[]string{"2:5: the grid's columns must be a positive integer, but (T) is 2.5"}},
		{"a grid side that reads a cell",
			"(cell[0][0]) x 3\ncell[i][j] = 0\n",
			[]string{"1:2: the grid size cannot read the grid"}},
		{"held-karp without a distance matrix",
			"schedule: held-karp\nint 1x3 v = 1,2,3\n",
			[]string{"1:1: schedule: held-karp needs a square int or long matrix input of distances, named dist"}},
		{"held-karp with floating distances",
			"schedule: held-karp\ndouble 2x2 dist = 0,1 & 1,0\n",
			[]string{"2:1: schedule: held-karp needs integer distances: declare dist as int or long, not double"}},
		{"held-karp with a non-square matrix",
			"schedule: held-karp\nint ?x? dist = 0,1,2 & 1,0,2\n",
			[]string{"2:1: schedule: held-karp needs a square distance matrix, but dist is 2x3"}},
		{"args naming an unknown input",
			"int 1x? A = 1,2\nargs: A, Bee\n3x3\ncell[i][j] = 0\n",
			[]string{"2:10: args: unknown name Bee"}},
		{"several errors at once, sorted",
			"int 1x3 v = 1,2\n3x3\ncell[i][j] = foo + v[0][1] when i == 1\n  | 2 when i == 0\nmem: 7\n",
			[]string{"1:1: v is declared 1x3 but has 2 values", "3:14: unknown name foo", "3:20: v is a vector", "4:5: the last case must be `otherwise`", "5:6: mem: wants 0 or 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list := checkErrs(t, parse(t, "t.dp", tc.src), Config{})
			if tc.name == "a missing file" {
				// The loader's message is its own; the position and the
				// path are ours.
				if len(list) != 1 || list[0].Pos.Line != 1 || list[0].Pos.Col != 13 || !strings.Contains(list[0].Msg, "no-such-file.txt") {
					t.Errorf("got %v", list)
				}
				return
			}
			wantErrs(t, list, tc.want...)
		})
	}
}

// TestErrorsHandBuilt covers checks that the parser makes unreachable from
// text (a string in an expression, a negative prev), on trees built by hand.
func TestErrorsHandBuilt(t *testing.T) {
	pos := func(line, col int) source.Pos { return source.Pos{File: "h.dp", Line: line, Col: col} }
	grid := &dsl.GridDecl{Pos: pos(1, 1), Rows: &dsl.IntLit{Pos: pos(1, 1), Value: 3}, Cols: &dsl.IntLit{Pos: pos(1, 3), Value: 3}}
	rec := func(value dsl.Expr) *dsl.RecurrenceDecl {
		return &dsl.RecurrenceDecl{Pos: pos(3, 1), Target: "cell",
			I: &dsl.Ident{Pos: pos(3, 6), Name: "i"}, J: &dsl.Ident{Pos: pos(3, 9), Name: "j"},
			Cases: []*dsl.Case{{Pos: pos(3, 14), Value: value}}}
	}
	tests := []struct {
		name  string
		decls []dsl.Decl
		want  []string
	}{
		{"a string where a number is needed", []dsl.Decl{grid, rec(&dsl.Binary{Pos: pos(3, 16), Op: "+",
			X: &dsl.Ident{Pos: pos(3, 14), Name: "i"}, Y: &dsl.StringLit{Pos: pos(3, 18), Value: "x"}})},
			[]string{"3:18: a string cannot be used in an expression: a number is needed here"}},
		{"a negative prev", []dsl.Decl{grid, &dsl.SettingDecl{Pos: pos(2, 1), Key: "prev", Value: "-1", ValuePos: pos(2, 7)}, rec(&dsl.IntLit{Pos: pos(3, 14), Value: 0})},
			[]string{"2:7: prev: wants a non-negative integer (how many previous rows or diagonals to keep), not \"-1\""}},
		{"a missing expression", []dsl.Decl{grid, rec(nil)},
			[]string{"3:14: missing expression in the recurrence"}},
		{"a case with neither when nor otherwise", []dsl.Decl{grid, &dsl.RecurrenceDecl{Pos: pos(3, 1), Target: "cell",
			I: &dsl.Ident{Pos: pos(3, 6), Name: "i"}, J: &dsl.Ident{Pos: pos(3, 9), Name: "j"},
			Cases: []*dsl.Case{{Pos: pos(3, 14), Value: &dsl.IntLit{Value: 1}}, {Pos: pos(4, 5), Value: &dsl.IntLit{Value: 2}, Otherwise: true}}}},
			[]string{"3:14: a case needs `when COND` or `otherwise` when the recurrence has several cases"}},
		{"an unknown type", []dsl.Decl{grid, &dsl.ScalarDecl{Pos: pos(2, 1), Type: "quad", Name: "s", Expr: &dsl.IntLit{Value: 1}}, rec(&dsl.IntLit{Pos: pos(3, 14), Value: 0})},
			[]string{"2:1: unknown type \"quad\""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &dsl.File{Name: "h.dp", Decls: tc.decls}
			wantErrs(t, checkErrs(t, f, Config{}), tc.want...)
		})
	}
	// A nil file is an error, not a panic.
	if _, err := Check(nil, Config{}); err == nil {
		t.Error("Check(nil) gave no error")
	}
}
