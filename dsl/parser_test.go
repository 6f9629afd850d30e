package dsl

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseOK(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("t.dp", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q):\n%s", src, Format(err, []byte(src)))
	}
	checkPositions(t, f)
	return f
}

func TestParseFiles(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"lcs.dp", []string{
			"problem lcs",
			`input char 1x? name=A source="a.txt"#0`,
			`input char 1x? name=B source="b.txt"#0`,
			"grid (paren (+ (call len A) 1)) (paren (+ (call len B) 1))",
			"rec cell[i][j] {0 when (|| (== i 0) (== j 0))}" +
				" {(+ (idx cell (- i 1) (- j 1)) 1) when (== (idx A (- i 1)) (idx B (- j 1))) emit (idx A (- i 1))}" +
				" {(call max (idx cell (- i 1) j) (idx cell i (- j 1))) otherwise}",
		}},
		{"knapsack.dp", []string{
			"problem knapsack01",
			"input int 1x5 name=wt values=[2 3 4 5 9]",
			"input int 1x5 name=val values=[3 4 5 8 10]",
			"scalar int cap 20",
			"grid (paren (+ (call len wt) 1)) (paren (+ cap 1))",
			"rec cell[i][w] {0 when (== i 0)}" +
				" {(+ (idx cell (- i 1) (- w (idx wt (- i 1)))) (idx val (- i 1)))" +
				" when (&& (<= (idx wt (- i 1)) w) (> (+ (idx cell (- i 1) (- w (idx wt (- i 1)))) (idx val (- i 1))) (idx cell (- i 1) w)))" +
				" emit (- i 1)}" +
				" {(idx cell (- i 1) w) otherwise}",
		}},
		{"lookback.dp", []string{
			"problem lookback-put",
			"scalar double S0 50",
			"scalar double sigma f:0.4",
			"scalar double r f:0.1",
			"scalar double T f:0.25",
			"scalar int N 3",
			"scalar double dt (/ T N)",
			"scalar double u (call exp (* sigma (call sqrt dt)))",
			"scalar double d (/ 1 u)",
			"scalar double p (/ (paren (- (call exp (* r dt)) d)) (paren (- u d)))",
			"scalar double disc (call exp (* (-u r) dt))",
			"set cell=double",
			"grid (paren (+ N 1)) (paren (+ N 2))",
			"rec cell[i][j] {(- (call pow u j) 1) when (== i N)}" +
				" {0 when (> j i)}" +
				" {(call max (- (call pow u j) 1) (* disc (paren (+ (* (* (paren (- 1 p)) d) (idx cell (+ i 1) (+ j 1))) (* (* p u) (idx cell (+ i 1) (- j 1)))))))" +
				" when (>= j 1)}" +
				" {(call max 0 (* disc (paren (+ (* (* (paren (- 1 p)) d) (idx cell (+ i 1) 1)) (* (* p u) (idx cell (+ i 1) 0)))))) otherwise}",
			"answer (* S0 (idx cell 0 0))",
		}},
		{"thesis.dp", []string{
			"grid 5 5",
			"set prev=2",
			"input char 1x5 name= values=[A B C D E]",
			"input char 1x5 name= values=[C D E F G]",
			"set mem=0",
			"set maintain=1",
			"rec cell[i][j] {0 when (|| (== i 0) (== j 0))}" +
				" {(+ (idx cell (- i 1) (- j 1)) 1) when (== (idx in0 (- i 1)) (idx in1 (- j 1)))}" +
				" {(call max (idx cell (- i 1) j) (idx cell i (- j 1))) otherwise}",
		}},
		{"manhattan.dp", []string{
			"problem manhattan",
			"input int 3x4 name=down values=[1 0 2 4] [4 6 5 2] [4 4 5 2]",
			"input int 4x3 name=right values=[3 2 4] [0 7 3] [3 3 0] [1 3 2]",
			"args (down right)=manhattan",
			"grid (call rows right) (call cols down)",
			"rec cell[i][j] {0 when (&& (== i 0) (== j 0))}" +
				" {(+ (idx cell i (- j 1)) (idx right i (- j 1))) when (== i 0)}" +
				" {(+ (idx cell (- i 1) j) (idx down (- i 1) j)) when (== j 0)}" +
				" {(call max (+ (idx cell (- i 1) j) (idx down (- i 1) j)) (+ (idx cell i (- j 1)) (idx right i (- j 1)))) otherwise}",
			"answer (idx cell (- ROWS 1) (- COLS 1))",
		}},
		{"editdistance.dp", []string{
			"problem edit-distance",
			`input char 1x? name=A text="kitten"`,
			`input char 1x? name=B text="sitting"`,
			"args A, B",
			"grid (paren (+ (call len A) 1)) (paren (+ (call len B) 1))",
			"rec cell[i][j] {j when (== i 0)} {i when (== j 0)}" +
				" {(call min (+ (idx cell (- i 1) j) 1) (+ (idx cell i (- j 1)) 1) (+ (idx cell (- i 1) (- j 1)) (paren (? (!= (idx A (- i 1)) (idx B (- j 1))) 1 0)))) otherwise}",
			"answer (idx cell (- ROWS 1) (- COLS 1))",
		}},
		{"backward.dp", []string{
			"problem backward",
			"scalar long n 6",
			"set cell=long",
			"grid n 5",
			"set schedule=wavefront",
			"rec cell[i][j] {1 when (|| (== i (- ROWS 1)) (== j (- COLS 1)))} {(+ (idx cell (+ i 1) j) (idx cell i (+ j 1))) otherwise}",
			"answer (idx cell 0 0)",
		}},
		{"extensions.dp", []string{
			"problem all-the-things",
			"input int ?x? name=dist required",
			`input char 1x? name=seq source="genome.fa"#2`,
			"input float 2x2 name=M values=[1.5 -2e3] [.25 +7]",
			"scalar double eps f:1e-9",
			"input int 1x1 name=one values=[5]",
			"args seq, (val wt cap)=pisinger",
			"set schedule=rows",
			"set cell=float",
			"grid (call rows dist) (call cols dist)",
			"rec cell[r][c] {(-u inf) when (&& (== r 0) (== c 0)) emit c:83}" +
				" {(? (> r c) (idx cell (- r 1) c) (- (idx cell r (- c 1)) 1)) otherwise emit (idx M r c)}",
			"answer (+ (max k 0 (- COLS 1) (sum t 0 (- ROWS 1) (* (idx cell t k) f:2.))) f:.5)",
		}},
		{"lis.dp", []string{
			"input int 1x? name=a values=[3 1 4 1 5 9 2 6]",
			"grid (call len a)",
			"rec cell[j] {(+ 1 (call max 0 (max k 0 (- j 1) (? (< (idx a k) (idx a j)) (idx cell k) 0))))}",
			"answer (max j 0 (- (call len a) 1) (idx cell j))",
		}},
		{"palindrome.dp", []string{
			"problem lps",
			`input char 1x? name=s text="character"`,
			"grid (call len s) (call len s)",
			"set schedule=interval",
			"rec cell[i][j] {0 when (> i j)} {1 when (== i j)}" +
				" {(+ (idx cell (+ i 1) (- j 1)) 2) when (== (idx s i) (idx s j))}" +
				" {(call max (idx cell (+ i 1) j) (idx cell i (- j 1))) otherwise}",
			"answer (idx cell 0 (- COLS 1))",
		}},
		{"continued.dp", []string{
			"input int 1x? name=p values=[3 1 4 1 5]",
			"scalar int H (/ (sum k 0 (- (call len p) 1) (idx p k)) 2)",
			"grid (call len p) (call len p)",
			"rec cell[i][j] {0 when (< (- j i) 4)}" +
				" {(call max (idx cell (+ i 1) j) (idx cell i (- j 1)) (max k (+ i 1) (- j 1) (+ (idx cell i k) (idx cell (+ k 1) j)))) otherwise}",
			"answer (idx cell 0 (- COLS 1))",
		}},
		{"lcsemit.dp", []string{
			`input char 1x? name=A text="ACCGGTCGAG"`,
			`input char 1x? name=B text="GTCGTTCGGA"`,
			"grid (paren (+ (call len A) 1)) (paren (+ (call len B) 1))",
			"rec cell[i][j] {0 when (|| (== i 0) (== j 0))}" +
				" {(+ (idx cell (- i 1) (- j 1)) 1) when (== (idx A (- i 1)) (idx B (- j 1))) emit (idx A (- i 1))}" +
				" {(call max (idx cell (- i 1) j) emit c:45 (idx cell i (- j 1)) emit c:124) otherwise}",
		}},
		{"crlf.dp", []string{
			"rec cell[i][j] {0 when (== i 0)} {(+ (idx cell (- i 1) j) 1) otherwise}",
			"grid 5 5",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(tt.file, src)
			if err != nil {
				t.Fatalf("Parse:\n%s", Format(err, src))
			}
			if f.Name != tt.file || string(f.Source) != string(src) {
				t.Errorf("File.Name %q, Source of %d bytes", f.Name, len(f.Source))
			}
			checkPositions(t, f)
			got := dumpFile(f)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

func TestParseConstructs(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		// Grid lines.
		{"5x5", []string{"grid 5 5"}},
		{"12 x 7", []string{"grid 12 7"}},
		{"N x M", []string{"grid N M"}},
		{"n x 5", []string{"grid n 5"}},
		{"5 x n", []string{"grid 5 n"}},
		{"x x y", []string{"grid x y"}},
		{"(N+1) x (N+2)", []string{"grid (paren (+ N 1)) (paren (+ N 2))"}},
		{"(len(A)+1) x (len(B)+1)", []string{"grid (paren (+ (call len A) 1)) (paren (+ (call len B) 1))"}},
		{"len(A) x 3", []string{"grid (call len A) 3"}},
		{"x x y", []string{"grid x y"}},
		// One side: a 1-D grid.
		{"5", []string{"grid 5"}},
		{"n", []string{"grid n"}},
		{"x", []string{"grid x"}},
		{"len(A)", []string{"grid (call len A)"}},
		{"len(A) # the length", []string{"grid (call len A)"}},
		{"(n+1)", []string{"grid (paren (+ n 1))"}},
		{"(len(A) - 1)", []string{"grid (paren (- (call len A) 1))"}},
		{"N\nint 1x5 v = 1,2,3,4,5", []string{"grid N", "input int 1x5 name=v values=[1 2 3 4 5]"}},
		// Settings and names.
		{"prev: 2", []string{"set prev=2"}},
		{"prev:2", []string{"set prev=2"}},
		{"mem: 0", []string{"set mem=0"}},
		{"maintain: 1", []string{"set maintain=1"}},
		{"cell: long", []string{"set cell=long"}},
		{"schedule: held-karp", []string{"set schedule=held-karp"}},
		{"schedule: interval", []string{"set schedule=interval"}},
		{"schedule: t = j - i", []string{"set schedule=t = (- j i)"}},
		{"schedule: t=2*i+j", []string{"set schedule=t = (+ (* 2 i) j)"}},
		{"schedule: t = i # 1-D", []string{"set schedule=t = i"}},
		{"schedule: t = (n - 1) * i + -j", []string{"set schedule=t = (+ (* (paren (- n 1)) i) (-u j))"}},
		{"problem lookback-put", []string{"problem lookback-put"}},
		{"problem knapsack-01-in", []string{"problem knapsack-01-in"}},
		{"problem lcs2", []string{"problem lcs2"}},
		// Inputs.
		{"char 1x5 A,B,C,D,E", []string{"input char 1x5 name= values=[A B C D E]"}},
		{"char 1x5 A, B ,C,D,  E  ", []string{"input char 1x5 name= values=[A B C D E]"}},
		{"char 1x1 A", []string{"input char 1x1 name= values=[A]"}},
		{"char 1x2 A,\u2002B", []string{"input char 1x2 name= values=[A \u2002B]"}}, // only ASCII blanks separate
		{"char 1x3 gap,-,A", []string{"input char 1x3 name= values=[gap - A]"}},
		{"int 1x5 wt = 2,3", []string{"input int 1x5 name=wt values=[2 3]"}},
		{"int 1x5 wt=2,3", []string{"input int 1x5 name=wt values=[2 3]"}},
		{"int 1x1 5", []string{"input int 1x1 name= values=[5]"}},
		{"int ?x? dist", []string{"input int ?x? name=dist required"}},
		{"int 1x3 abc", []string{"input int 1x3 name=abc required"}},
		{"char 1x? S", []string{"input char 1x? name=S required"}},
		{"int 1 x 3 v = 1,2,3", []string{"input int 1x3 name=v values=[1 2 3]"}},
		{`char 1x? A = "ACGT"`, []string{`input char 1x? name=A text="ACGT"`}},
		{`char 1x? A = "a\"b\\c\d"`, []string{`input char 1x? name=A text="a\"b\\c\\d"`}},
		{`char 1x? "ACGT"`, []string{`input char 1x? name= text="ACGT"`}},
		{`char 1x? A = ""`, []string{`input char 1x? name=A text=""`}},
		{`char 1x? A = @"x.fa"#2`, []string{`input char 1x? name=A source="x.fa"#2`}},
		{`char 1x? A = @"x.fa" #2 is a comment`, []string{`input char 1x? name=A source="x.fa"#0`}},
		{`char 1x? A = @"x.fa"# a comment`, []string{`input char 1x? name=A source="x.fa"#0`}},
		{`char 1x? A = @"dir/x #1.fa"#12 # comment`, []string{`input char 1x? name=A source="dir/x #1.fa"#12`}},
		{`int ?x? @"C:\data\d.csv"`, []string{`input int ?x? name= source="C:\\data\\d.csv"#0`}},
		{"int 2x3 M = 1,2,3 & 4,5,6", []string{"input int 2x3 name=M values=[1 2 3] [4 5 6]"}},
		{"int 2x3 M = 1,2,3 &\n 4,5,6\n5x5", []string{"input int 2x3 name=M values=[1 2 3] [4 5 6]", "grid 5 5"}},
		{"int 2x3 M = 1,2,3 & # first row\n\n  # blank and comment lines may follow `&`\n 4,5,6", []string{"input int 2x3 name=M values=[1 2 3] [4 5 6]"}},
		{"int 2x2 1,2 & 3,4", []string{"input int 2x2 name= values=[1 2] [3 4]"}},
		{"float 1x4 v = -1.5, +2, 1e-3, .5", []string{"input float 1x4 name=v values=[-1.5 +2 1e-3 .5]"}},
		{"double 1x2 x = 2.,3", []string{"input double 1x2 name=x values=[2. 3]"}},
		{"int 1x2 v = 1,2 # comment, with, commas", []string{"input int 1x2 name=v values=[1 2]"}},
		// Scalars.
		{"int cap = 18", []string{"scalar int cap 18"}},
		{"int cap = -18", []string{"scalar int cap (-u 18)"}},
		{"double u = exp(sigma * sqrt(dt))", []string{"scalar double u (call exp (* sigma (call sqrt dt)))"}},
		{"float x = -inf", []string{"scalar float x (-u inf)"}},
		{"int n = len(A) # comment", []string{"scalar int n (call len A)"}},
		{"integer n = 3", []string{"scalar integer n 3"}}, // the type is sema's business
		// Args.
		{"args: A, B", []string{"args A, B"}},
		{"args: (val, wt, cap) = pisinger", []string{"args (val wt cap)=pisinger"}},
		{"args: A, (x, y) = fmt, B", []string{"args A, (x y)=fmt, B"}},
		// Recurrences.
		{"cell[i][j] = cell[i+1][j] + cell[i][j+1]", []string{"rec cell[i][j] {(+ (idx cell (+ i 1) j) (idx cell i (+ j 1)))}"}},
		{"grid[r][c] = 1", []string{"rec grid[r][c] {1}"}},
		{"cell[i][j] = 1 emit i", []string{"rec cell[i][j] {1 emit i}"}},
		{"cell[i][w] = 0 when i == 0\n  | 1 otherwise emit i-1", []string{"rec cell[i][w] {0 when (== i 0)} {1 otherwise emit (- i 1)}"}},
		{"cell[i][j] = 0 when i == 0 emit 'x'\n\n# a comment between cases\n\t| 1 when j == 0\n| 2 otherwise",
			[]string{"rec cell[i][j] {0 when (== i 0) emit c:120} {1 when (== j 0)} {2 otherwise}"}},
		{"cell[i][j] = 0 otherwise\nanswer: cell[0][0]", []string{"rec cell[i][j] {0 otherwise}", "answer (idx cell 0 0)"}},
		{"cell[i] = 3", []string{"rec cell[i] {3}"}},
		{"cell[j] = 0 when j == 0\n | cell[j-1] + 1 otherwise", []string{"rec cell[j] {0 when (== j 0)} {(+ (idx cell (- j 1)) 1) otherwise}"}},
		{"cell[k][i][j] = 0", []string{"rec cell[k][i][j] {0}"}}, // a 3-D grid's left side
		// Answers and lines in any order.
		{"answer: cell[ROWS-1][COLS-1]\n5x5", []string{"answer (idx cell (- ROWS 1) (- COLS 1))", "grid 5 5"}},
		{"\n\n  # only comments\n\n", nil},
		{"", nil},
		{"\ufeffproblem bom", []string{"problem bom"}},
		{"5x5 # a comment\r\nprev: 1\r\n", []string{"grid 5 5", "set prev=1"}},
	}
	for _, tt := range tests {
		f := parseOK(t, tt.src)
		if got := dumpFile(f); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

func TestParseExpressions(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a + b * c", "(+ a (* b c))"},
		{"a * b + c", "(+ (* a b) c)"},
		{"a - b - c", "(- (- a b) c)"},
		{"a / b % c * d", "(* (% (/ a b) c) d)"},
		{"-a * b", "(* (-u a) b)"},
		{"- -x", "(-u (-u x))"},
		{"--x", "(-u (-u x))"},
		{"+x", "(+u x)"},
		{"!a && b || c", "(|| (&& (!u a) b) c)"},
		{"a || b && c", "(|| a (&& b c))"},
		{"a && b && c", "(&& (&& a b) c)"},
		{"a == b != c", "(!= (== a b) c)"},
		{"a < b == c > d", "(== (< a b) (> c d))"},
		{"x <= y >= z", "(>= (<= x y) z)"},
		{"a < b + c", "(< a (+ b c))"},
		{"a ? b : c", "(? a b c)"},
		{"a ? b : c ? d : e", "(? a b (? c d e))"},
		{"a ? b ? c : d : e", "(? a (? b c d) e)"},
		{"a || b ? c + 1 : d", "(? (|| a b) (+ c 1) d)"},
		{"a&&b", "(&& a b)"},
		{"a!=b", "(!= a b)"},
		{"-inf", "(-u inf)"},
		{"inf + 1", "(+ inf 1)"},
		{"'A'", "c:65"},
		{`'\n'`, "c:10"},
		{`'\''`, "c:39"},
		{`'\\'`, "c:92"},
		{`'\x41'`, "c:65"},
		{`'\0'`, "c:0"},
		{`'"'`, "c:34"},
		{"1e-9", "f:1e-9"},
		{".5", "f:.5"},
		{"2.", "f:2."},
		{"2.e3", "f:2.e3"},
		{"2.5E+3", "f:2.5E+3"},
		{"3e2", "f:3e2"},
		{"007", "007"},
		{"9223372036854775807", "9223372036854775807"},
		{"M[i][j]", "(idx M i j)"},
		{"A[B[i]]", "(idx A (idx B i))"},
		{"f()", "(call f)"},
		{"f(a, b, c)", "(call f a b c)"},
		{"max(k in 0..COLS-1: cell[ROWS-1][k])", "(max k 0 (- COLS 1) (idx cell (- ROWS 1) k))"},
		{"sum(k in i+1..j: A[k])", "(sum k (+ i 1) j (idx A k))"},
		{"min(x in 1..2.5: x)", "(min x 1 f:2.5 x)"},
		{"min(x in 1. .. .5: x)", "(min x f:1. f:.5 x)"},
		{"min(x in 0...5: x)", "(min x 0 f:.5 x)"},
		{"max(k in 0..N: c ? 1 : 2)", "(max k 0 N (? c 1 2))"},
		{"max(k in 0..x ? 1 : 2: k)", "(max k 0 (? x 1 2) k)"},
		{"(a)", "(paren a)"},
		{"((a + b)) * c", "(* (paren (paren (+ a b))) c)"},
		{"in0[0] + inf0 + when_ + emit1", "(+ (+ (+ (idx in0 0) inf0) when_) emit1)"},
	}
	for _, tt := range tests {
		f := parseOK(t, "answer: "+tt.src)
		if len(f.Decls) != 1 {
			t.Fatalf("%q: %d declarations", tt.src, len(f.Decls))
		}
		if got := sexpr(f.Decls[0].(*AnswerDecl).Expr); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestPositions checks chosen positions by hand; checkPositions, run on
// every parse in these tests, checks all of them against the source text.
func TestPositions(t *testing.T) {
	src := "problem knapsack01\n" +
		"int 1x3 wt  = 2, 3,4\n" +
		"int cap = 20\r\n" +
		"cell[i][w] = 0                 when i == 0\n" +
		"           | val[i-1]  when wt[i-1] <= w   emit i-1\n" +
		"\t| cell[i-1][w] otherwise\n" +
		"answer: max(k in 0..cap: cell[3][k])\n"
	f := parseOK(t, src)
	in := f.Decls[1].(*InputDecl)
	rec := f.Decls[3].(*RecurrenceDecl)
	c1 := rec.Cases[1]
	cond := c1.Cond.(*Binary)
	red := f.Decls[4].(*AnswerDecl).Expr.(*Reduce)
	tests := []struct {
		what string
		got  Pos
		want string
	}{
		{"problem", f.Decls[0].Position(), "1:1"},
		{"input", in.Pos, "2:1"},
		{"dims", in.Dims.Pos, "2:5"},
		{"value 2", in.Values[0][0].Pos, "2:15"},
		{"value 3", in.Values[0][1].Pos, "2:18"},
		{"value 4", in.Values[0][2].Pos, "2:20"},
		{"scalar", f.Decls[2].Position(), "3:1"},
		{"scalar expr", f.Decls[2].(*ScalarDecl).Expr.Position(), "3:11"},
		{"recurrence", rec.Pos, "4:1"},
		{"i", rec.Vars[0].Pos, "4:6"},
		{"w", rec.Vars[1].Pos, "4:9"},
		{"case 0", rec.Cases[0].Pos, "4:14"},
		{"case 1", c1.Pos, "5:14"},
		{"case 1 <=", cond.Pos, "5:37"},
		{"case 1 wt", cond.X.Position(), "5:29"},
		{"emit i", c1.Emit.(*Binary).X.Position(), "5:49"},
		{"emit -", c1.Emit.(*Binary).Pos, "5:50"},
		{"case 2", rec.Cases[2].Pos, "6:4"},
		{"answer", f.Decls[4].Position(), "7:1"},
		{"reduce", red.Pos, "7:9"},
		{"reduce var", red.Var.Pos, "7:13"},
		{"reduce hi", red.Hi.Position(), "7:21"},
	}
	for _, tt := range tests {
		got := tt.got.String()
		if want := "t.dp:" + tt.want; got != want {
			t.Errorf("%s: at %s, want %s", tt.what, got, want)
		}
	}
	// Columns count bytes, not characters.
	f = parseOK(t, "char 1x3 é,ü , x # ñ\nanswer: A[0] # é\n")
	v := f.Decls[0].(*InputDecl).Values[0]
	if got := v[1].Pos.String() + " " + v[2].Pos.String(); got != "t.dp:1:13 t.dp:1:18" {
		t.Errorf("values after multi-byte characters at %s, want t.dp:1:13 t.dp:1:18", got)
	}
	// Values of a row continued after `&` are on their own lines.
	f = parseOK(t, "int 2x2 M = 1,2 &\n  30,4")
	if got := f.Decls[0].(*InputDecl).Values[1][1].Pos.String(); got != "t.dp:2:6" {
		t.Errorf("second row's second value at %s, want t.dp:2:6", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"int cap 18", []string{"1:9: expected `=` after scalar name `cap`, found `18`"}},
		{"long x", []string{"1:7: expected `=` after scalar name `x`, found end of line"}},
		{"int = 3", []string{"1:5: expected dimensions (`1x5`) or a name after type `int`, found `=`"}},
		{"int", []string{"1:4: expected dimensions (`1x5`) or a name after type `int`, found end of line"}},
		{"int cap = ", []string{"1:10: unexpected end of line, expected an expression"}},
		{"int 1x5 wt 2,3,4", []string{"1:12: expected `=` after input name `wt`"}},
		{`char 1x? A "ACGT"`, []string{"1:12: expected `=` after input name `A`"}},
		{"int 1x3", []string{"1:8: expected a name or values after the dimensions"}},
		{"int 1x3 = 4", []string{"1:9: expected an input name before `=`"}},
		{"int 1x3 A = 1 = 2", []string{"1:15: unexpected second `=`"}},
		{"int 1x3 A =", []string{`1:12: expected values, a string or ` + "`" + `@"path"` + "`" + ` after ` + "`=`"}},
		{"int 1x3 1,2 = 3", []string{"1:9: input name `1,2` is not a name (names are letters, digits and `_`)"}},
		{"int 1x3 in = 3", []string{"1:9: input name `in` is not a name (names are letters, digits and `_`)"}},
		{"int 1x5 wt = 2,,3", []string{"1:16: missing value before `,`"}},
		{"int 1x5 wt = 2,3,", []string{"1:17: missing value after `,`"}},
		{"int 1x5 wt = ,2", []string{"1:14: missing value before `,`"}},
		{"int 1x5 wt = 2 3", []string{"1:16: expected `,` between values, found `3`"}},
		{"int 1x5 wt\t2,3", []string{"1:12: expected `=` after input name `wt`"}},
		{"char 1x2 é,ü x", []string{"1:16: expected `,` between values, found `x`"}},
		{"problem é", []string{"1:9: unexpected character `é`"}},
		{"int 2x2 M = 1,2 &", []string{"1:18: unexpected end of line, expected values"}},
		{`int 1x3 A = "x" & 1`, []string{"1:17: unexpected `&`: only inline values have rows"}},
		{`char 1x? A = "ACGT`, []string{"1:14: string not terminated"}},
		{`char 1x? A = @"x.fa`, []string{"1:14: string not terminated"}},
		{`char 1x? A = @"x.fa"#0`, []string{"1:21: record numbers start at 1, found `#0`"}},
		{`char 1x? A = @"x.fa"#x`, []string{"1:21: expected a record number after `#`, found `x`"}},
		{`char 1x? A = @"x.fa"#99999999999999999999`, []string{"1:21: record number `99999999999999999999` is too large"}},
		{"int 1x99999999999999999999 A = 1", []string{"1:7: dimension `99999999999999999999` is too large"}},
		{"?x?", []string{"1:1: the grid size cannot be `?`: give a number, a name or `(EXPR)`"}},
		{"5x?", []string{"1:3: the grid size cannot be `?`: give a number, a name or `(EXPR)`"}},
		{"N+1 x M", []string{"1:2: unexpected `+` in the grid size: put an expression side in parentheses, as in `(N+1) x M`"}},
		{"N M", []string{"1:1: unexpected `N` at the start of a line: expected a declaration (grid size, setting, input, scalar or recurrence)"}},
		{"5 M", []string{"1:3: expected `x` between the grid's sides, or the end of the line, found `M`"}},
		{"len(A) 3", []string{"1:8: expected `x` between the grid's sides, or the end of the line, found `3`"}},
		{"len(A) x", []string{"1:9: unexpected end of line, expected a number, a name or `(`"}},
		{"N - 1", []string{"1:3: unexpected `-` in the grid size: put an expression side in parentheses, as in `(N+1) x M`"}},
		{"len(A)-1", []string{"1:7: unexpected `-` in the grid size: put an expression side in parentheses, as in `(N+1) x M`"}},
		// More than three sides (three: grid3d_test.go).
		{"2x3x4x5", []string{"1:1: a grid has one side (`N`, cells cell[i]), two (`R x C`, cells cell[i][j]) or three (`K x R x C`, cells cell[k][i][j]), not 4"}},
		{"n x 3 x 4 x m", []string{"1:1: a grid has one side (`N`, cells cell[i]), two (`R x C`, cells cell[i][j]) or three (`K x R x C`, cells cell[k][i][j]), not 4"}},
		{"  (K) x R x C x 2", []string{"1:3: a grid has one side (`N`, cells cell[i]), two (`R x C`, cells cell[i][j]) or three (`K x R x C`, cells cell[k][i][j]), not 4"}},
		{"5x5 7", []string{"1:5: unexpected `7`"}},
		{"x = 3", []string{"1:1: missing type before `x` (a scalar is declared as in `int x = ...`)"}},
		{"problem", []string{"1:8: expected a name after `problem`, found end of line"}},
		{"problem my problem", []string{"1:12: unexpected `problem`"}},
		{"problem a - b", []string{"1:11: unexpected space in name (a name may contain `-` but no spaces)"}},
		{"schedule: held -karp", []string{"1:16: unexpected space in name (a name may contain `-` but no spaces)"}},
		{"prev:", []string{"1:6: expected a value after `prev:`, found end of line"}},
		{"prev: 2 3", []string{"1:9: unexpected `3`"}},
		{"prev: -1", []string{"1:7: expected a value after `prev:`, found `-`"}},
		{"schedule: t =", []string{"1:14: unexpected end of line, expected an expression"}},
		{"schedule: t = j -", []string{"1:18: unexpected end of line, expected an expression"}},
		{"schedule: t j", []string{"1:13: unexpected `j`"}},
		{"schedule: = j", []string{"1:11: expected a value after `schedule:`, found `=`"}},
		{"args: (a, b) pisinger", []string{"1:14: unexpected `pisinger`, expected `=`"}},
		{"args: A,", []string{"1:9: unexpected end of line, expected an input name or `(`"}},
		{"answer: max(a b)", []string{"1:15: unexpected `b`, expected `,` or `)`"}},
		{"answer: (a + b", []string{"1:9: this `(` is never closed: the file ends before its `)`"}},
		{"answer: )", []string{"1:9: unexpected `)`, expected an expression"}},
		{"answer: a +", []string{"1:12: unexpected end of line, expected an expression"}},
		{"answer: a ? b", []string{"1:14: unexpected end of line, expected `:`"}},
		{"answer: min(k in 0..N k)", []string{"1:23: unexpected `k`, expected `:`"}},
		{"answer: a & b", []string{"1:11: unexpected `&` (`&` separates the rows of an input's data; the logical and is `&&`)"}},
		{"answer: @", []string{"1:9: unexpected `@` (a file source is written `@\"path\"` after an input's dimensions)"}},
		{"answer: $", []string{"1:9: unexpected character `$`"}},
		{"answer: a\x01", []string{`1:10: unexpected character "\x01"`}},
		{"answer: 'AB'", []string{"1:9: a character literal holds one ASCII character, found `'AB'`"}},
		{"answer: ''", []string{"1:9: empty character literal"}},
		{"answer: 'é'", []string{"1:9: a character literal holds one ASCII character, found `'é'`"}},
		{`answer: '\q'`, []string{`1:9: bad escape in character literal ` + "`'\\q'`" + ` (known: \n \r \t \0 \\ \' \" \xHH)`}},
		{`answer: '\xZZ'`, []string{"1:9: bad escape in character literal `'\\xZZ'`"}},
		{"answer: 'A", []string{"1:9: character literal not terminated"}},
		{"answer: 99999999999999999999", []string{"1:9: integer literal `99999999999999999999` is too large"}},
		{"answer: 1e999", []string{"1:9: floating-point literal `1e999` is out of range"}},
		{"answer: when", []string{"1:9: unexpected `when`, expected an expression"}},
		{"cell[i-1][j] = 3", []string{"1:7: unexpected `-`: the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"}},
		{"cell[i][j+1] = 3", []string{"1:10: unexpected `+`: the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"}},
		{"cell[2][j] = 3", []string{"1:6: unexpected `2`: the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"}},
		{"cell[-j] = 3", []string{"1:6: unexpected `-`: the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"}},
		{"cell[i][A[j]] = 3", []string{"1:9: unexpected `A[j]`: the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"}},
		{"cell[] = 3", []string{"1:6: missing index variable in `[]`: the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"}},
		{"cell[i][ ] = 3", []string{"1:10: missing index variable in `[]`: the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"}},
		{"cell[i]] = 3", []string{"1:8: expected `=` after `cell[i]`, found `]`"}},
		{"cell = 3", []string{"1:1: missing type before `cell` (a scalar is declared as in `int cell = ...`)"}},
		{"cell[i][j] 3", []string{"1:12: expected `=` after `cell[i][j]`, found `3`"}},
		{"cell[i][j] = 1 when", []string{"1:20: unexpected end of line, expected an expression"}},
		{"cell[i][j] = 1 when i emit", []string{"1:27: unexpected end of line, expected an expression"}},
		{"cell[i][j] = 1\n | 2 when i == 0", []string{"1:15: expected `when COND` or `otherwise` after the case's value (a recurrence with several cases needs one on each)"}},
		{"cell[i][j] = 1 when i == 0\n | 2", []string{"2:5: expected `when COND` or `otherwise` after the case's value (a recurrence with several cases needs one on each)"}},
		{"cell[i][j] = 1 when i == 0\n | 2 otherwise 3", []string{"2:16: unexpected `3`"}},
		{"| 1 otherwise", []string{"1:1: a case line starting with `|` must follow a recurrence `cell[i][j] = ...`"}},
		{"5x5\n| 1 otherwise", []string{"2:1: a case line starting with `|` must follow a recurrence `cell[i][j] = ...`"}},
		{"cell[i][j] = 0 when i == 0\n| 1 otherwise\n|| 2 otherwise", []string{"3:1: unexpected `||` at the start of a line (a recurrence's case lines start with a single `|`)"}},
		{"when", []string{"1:1: unexpected `when` at the start of a line: expected a declaration (grid size, setting, input, scalar or recurrence)"}},
		{"answer: " + strings.Repeat("(", 600) + "1" + strings.Repeat(")", 600), []string{"1:509: expression nested too deeply (more than 500 levels)"}},
		{"answer: " + strings.Repeat("-", 600) + "1", []string{"1:509: expression nested too deeply (more than 500 levels)"}},
		// Several errors at once: parsing starts again on the next line.
		{"int cap 18\n5x5\nanswer: )\nprev: 2\ncell[i][j] = 1 when i ==\n  | 2 + otherwise\n  | 3 otherwise",
			[]string{
				"1:9: expected `=` after scalar name `cap`, found `18`",
				"3:9: unexpected `)`, expected an expression",
				"5:25: unexpected end of line, expected an expression",
				"6:9: unexpected `otherwise`, expected an expression",
			}},
	}
	for _, tt := range tests {
		f, err := Parse("t.dp", []byte(tt.src))
		if f == nil {
			t.Fatalf("%q: nil File", tt.src)
		}
		got := errorStrings(t, err)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%.60q):\n got %q\nwant %q", tt.src, got, tt.want)
		}
		for _, e := range err.(ErrorList) {
			if e.Pos.File != "t.dp" {
				t.Errorf("%q: error %v has file %q", tt.src, e, e.Pos.File)
			}
		}
		checkPositions(t, f)
	}
}

// TestPartialFile checks that the good lines of a file with errors are
// still returned, in order.
func TestPartialFile(t *testing.T) {
	src := "problem p\nint cap 18\n5x5\nanswer: )\nprev: 2\n"
	f, err := Parse("t.dp", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("error %v: want an ErrorList of 2", err)
	}
	want := []string{"problem p", "grid 5 5", "set prev=2"}
	if got := dumpFile(f); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTooManyErrors(t *testing.T) {
	src := strings.Repeat("answer: )\n", 100)
	_, err := Parse("t.dp", []byte(src))
	got := errorStrings(t, err)
	if len(got) != maxErrors+1 || got[maxErrors] != "21:9: too many errors" {
		t.Errorf("got %d errors, last %q", len(got), got[len(got)-1])
	}
	// Bad values in a long row count too.
	src = "int 1x? v = " + strings.Repeat("1 2,", 1000)
	_, err = Parse("t.dp", []byte(src))
	if got := errorStrings(t, err); len(got) != maxErrors+1 {
		t.Errorf("long bad row: %d errors", len(got))
	}
}

// TestParseConcurrent parses from several goroutines at once: the parsers
// are shared (run with -race).
func TestParseConcurrent(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "lookback.dp"))
	if err != nil {
		t.Fatal(err)
	}
	want := dumpFile(parseOK(t, string(src)))
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for range 20 {
				f, err := Parse("t.dp", src)
				if err == nil && !reflect.DeepEqual(dumpFile(f), want) {
					err = errors.New("different tree")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
