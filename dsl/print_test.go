package dsl

import (
	"os"
	"path/filepath"
	"testing"
)

// roundTrip checks that ExprString(e) parses back to the same tree.
func roundTrip(tb testing.TB, e Expr) {
	tb.Helper()
	roundTripAs(tb, e, sexpr)
}

// roundTripAs is roundTrip comparing trees as shape prints them.
func roundTripAs(tb testing.TB, e Expr, shape func(Expr) string) {
	tb.Helper()
	s := ExprString(e)
	src := "answer: " + s
	f, err := Parse("rt.dp", []byte(src))
	if err != nil {
		tb.Fatalf("ExprString gave %q, which does not parse:\n%s", s, Format(err, []byte(src)))
	}
	if len(f.Decls) != 1 {
		tb.Fatalf("ExprString gave %q, which parses to %d declarations", s, len(f.Decls))
	}
	a, ok := f.Decls[0].(*AnswerDecl)
	if !ok {
		tb.Fatalf("ExprString gave %q, which parses to %T", s, f.Decls[0])
	}
	if got, want := shape(a.Expr), shape(e); got != want {
		tb.Fatalf("ExprString gave %q, which parses to\n\t%s\nnot\n\t%s", s, got, want)
	}
	if again := ExprString(a.Expr); again != s {
		tb.Fatalf("ExprString not stable: %q, then %q", s, again)
	}
}

func TestExprString(t *testing.T) {
	tests := []struct{ src, want string }{
		{"cell[i - 1][j-1]+1", "cell[i-1][j-1] + 1"},
		{"cell[ i-1 ][ w - wt[ i - 1 ] ]", "cell[i-1][w-wt[i-1]]"},
		{"A[2*i+1]", "A[2 * i + 1]"},
		{"A[(i+1)]", "A[(i + 1)]"},
		{"A[f(i)-1]", "A[f(i) - 1]"},
		{"A[i- -1]", "A[i - -1]"},
		{"A[i+1.-2.5+'a'-inf]", "A[i+1.-2.5+'a'-inf]"},
		{"a+b*c", "a + b * c"},
		{"(a+b)*c", "(a + b) * c"},
		{"a-(b-c)", "a - (b - c)"},
		{"a ?b: c?d :e", "a ? b : c ? d : e"},
		{"(a ? b : c) ? d : e", "(a ? b : c) ? d : e"},
		{"a ? x ? 1 : 2 : 3", "a ? x ? 1 : 2 : 3"},
		{"- - x", "--x"},
		{"-(-x)", "-(-x)"},
		{"!(a&&b)||!c", "!(a && b) || !c"},
		{"a<=b==c>=d", "a <= b == c >= d"},
		{"-inf", "-inf"},
		{"f( a ,b )", "f(a, b)"},
		{"f( )", "f()"},
		{"max(k in 0 .. COLS - 1 : cell[ROWS-1][k])", "max(k in 0..COLS-1: cell[ROWS-1][k])"},
		{"sum(k in i * 2..n / 2: A[k])", "sum(k in i * 2..n / 2: A[k])"},
		{"min(k in 2. .. .5: k)", "min(k in 2. ...5: k)"},
		{"min(k in x-2. .. 3: k)", "min(k in x-2. ..3: k)"},
		{"1e-9 + .5 + 2. + 007", "1e-9 + .5 + 2. + 007"},
		{`'\'' + '\\' + '\n' + '\x7f' + '\xe9' + '"' + ' '`, `'\'' + '\\' + '\n' + '\x7f' + '\xe9' + '"' + ' '`},
	}
	for _, tt := range tests {
		f := parseOK(t, "answer: "+tt.src)
		e := f.Decls[0].(*AnswerDecl).Expr
		if got := ExprString(e); got != tt.want {
			t.Errorf("ExprString(%q) = %q, want %q", tt.src, got, tt.want)
		}
		roundTrip(t, e)
	}
}

// TestExprStringBuilt prints trees made by hand, without Paren nodes:
// parentheses appear where the structure needs them.
func TestExprStringBuilt(t *testing.T) {
	id := func(n string) *Ident { return &Ident{Name: n} }
	bin := func(op string, x, y Expr) *Binary { return &Binary{Op: op, X: x, Y: y} }
	a, b, c := id("a"), id("b"), id("c")
	tests := []struct {
		e    Expr
		want string
	}{
		{bin("*", bin("+", a, b), c), "(a + b) * c"},
		{bin("+", a, bin("*", b, c)), "a + b * c"},
		{bin("-", a, bin("-", b, c)), "a - (b - c)"},
		{bin("-", bin("-", a, b), c), "a - b - c"},
		{bin("&&", bin("||", a, b), c), "(a || b) && c"},
		{&Unary{Op: "-", X: bin("+", a, b)}, "-(a + b)"},
		{&Unary{Op: "!", X: &Unary{Op: "-", X: a}}, "!-a"},
		{&Ternary{Cond: &Ternary{Cond: a, T: b, F: c}, T: a, F: b}, "(a ? b : c) ? a : b"},
		{&Ternary{Cond: bin("||", a, b), T: &Ternary{Cond: a, T: b, F: c}, F: c}, "a || b ? a ? b : c : c"},
		{bin("+", &Ternary{Cond: a, T: b, F: c}, a), "(a ? b : c) + a"},
		{&Index{Name: id("M"), Indices: []Expr{bin("-", id("i"), &IntLit{Value: 1}), &IntLit{Value: 0}}}, "M[i-1][0]"},
		{&Call{Func: id("max"), Args: []Expr{a, &FloatLit{Value: 2}, &FloatLit{Value: 0.25}}}, "max(a, 2.0, 0.25)"},
		{&Reduce{Func: id("sum"), Var: id("k"), Lo: &IntLit{Value: 0}, Hi: id("N"), Body: &CharLit{Value: 0}}, `sum(k in 0..N: '\0')`},
		{&Unary{Op: "-", X: &Inf{}}, "-inf"},
	}
	for _, tt := range tests {
		if got := ExprString(tt.e); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		// The parentheses added come back as Paren nodes.
		roundTripAs(t, tt.e, func(e Expr) string { return sexpr(stripParens(e)) })
	}
	if got := ExprString(nil); got != "<nil>" {
		t.Errorf("ExprString(nil) = %q", got)
	}
	if got := ExprString(&StringLit{Value: `a"b\c`}); got != `"a\"b\\c"` {
		t.Errorf("string printed as %s", got)
	}
}

// TestExprStringFiles round-trips every expression of the example files.
func TestExprStringFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.dp"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	n := 0
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(name, src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range exprs(f) {
			roundTrip(t, e)
			n++
		}
	}
	if n < 50 {
		t.Errorf("only %d expressions in the example files", n)
	}
}

// stripParens returns a copy of e without Paren nodes.
func stripParens(e Expr) Expr {
	switch e := e.(type) {
	case *Paren:
		return stripParens(e.X)
	case *Unary:
		return &Unary{Pos: e.Pos, Op: e.Op, X: stripParens(e.X)}
	case *Binary:
		return &Binary{Pos: e.Pos, Op: e.Op, X: stripParens(e.X), Y: stripParens(e.Y)}
	case *Ternary:
		return &Ternary{Pos: e.Pos, Cond: stripParens(e.Cond), T: stripParens(e.T), F: stripParens(e.F)}
	case *Index:
		ix := &Index{Pos: e.Pos, Name: e.Name}
		for _, x := range e.Indices {
			ix.Indices = append(ix.Indices, stripParens(x))
		}
		return ix
	case *Call:
		c := &Call{Pos: e.Pos, Func: e.Func}
		for _, x := range e.Args {
			c.Args = append(c.Args, stripParens(x))
		}
		return c
	case *Reduce:
		return &Reduce{Pos: e.Pos, Func: e.Func, Var: e.Var, Lo: stripParens(e.Lo), Hi: stripParens(e.Hi), Body: stripParens(e.Body)}
	}
	return e
}
