package dsl

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestContinuationLines: a newline inside an open `(` or `[` does not end
// the declaration (contract v2 §7.5); everywhere else it still does.
func TestContinuationLines(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"answer: max(a,\n  b)", []string{"answer (call max a b)"}},
		{"answer: max(a,\n\n  # a comment\n\n  b)\n5x5", []string{"answer (call max a b)", "grid 5 5"}},
		{"answer: cell[0][\nCOLS-1]", []string{"answer (idx cell 0 (- COLS 1))"}},
		{"answer: (a\n+ b)\n* c", nil}, // `* c` is a line of its own: an error, below
		{"int n = (1 +\n 2) * 3\n", []string{"scalar int n (* (paren (+ 1 2)) 3)"}},
		{"int H = sum(k in 0..len(p)-1:\n p[k]) / 2", []string{"scalar int H (/ (sum k 0 (- (call len p) 1) (idx p k)) 2)"}},
		{"(n +\n 1) x (m\n + 1)", []string{"grid (paren (+ n 1)) (paren (+ m 1))"}},
		{"schedule: t = (j -\n i)", []string{"set schedule=t = (paren (- j i))"}},
		// In a recurrence: the first line, a case line, a condition and an emit.
		{"cell[i][j] = max(cell[i-1][j],\n                 cell[i][j-1])", []string{"rec cell[i][j] {(call max (idx cell (- i 1) j) (idx cell i (- j 1)))}"}},
		{"cell[i][j] = 0 when (i == 0 ||\n j == 0)\n | max(1,\n 2) otherwise emit (i\n)",
			[]string{"rec cell[i][j] {0 when (paren (|| (== i 0) (== j 0)))} {(call max 1 2) otherwise emit (paren i)}"}},
		// The example of the issue.
		{"cell[i][j] = 0 when j - i < 4\n" +
			"           | max(cell[i+1][j], cell[i][j-1],\n" +
			"                 max(k in i+1..j-1: cell[i][k] + cell[k+1][j])) otherwise",
			[]string{"rec cell[i][j] {0 when (< (- j i) 4)}" +
				" {(call max (idx cell (+ i 1) j) (idx cell i (- j 1)) (max k (+ i 1) (- j 1) (+ (idx cell i k) (idx cell (+ k 1) j)))) otherwise}"}},
		// A `|` inside the brackets is not a case line.
		{"cell[i][j] = max(1,\n| 2)", nil},
		// Input data: brackets are not tokens there, and `&` still joins rows.
		{"int 1x3 v = (1,2,3\n5x5", []string{"input int 1x3 name=v values=[(1 2 3]", "grid 5 5"}}, // sema refuses `(1`
		{"int 2x2 M = 1,2 &\n 3,4\nanswer: M[0][\n1]", []string{"input int 2x2 name=M values=[1 2] [3 4]", "answer (idx M 0 1)"}},
	}
	for _, tt := range tests {
		f, err := Parse("t.dp", []byte(tt.src))
		checkPositions(t, f)
		if tt.want == nil {
			if err == nil {
				t.Errorf("%q parsed: %q; want an error", tt.src, dumpFile(f))
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q):\n%s", tt.src, Format(err, []byte(tt.src)))
			continue
		}
		if got := dumpFile(f); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

// TestContinuationErrors: errors in continued expressions point at the
// physical line and column of the token at fault; a bracket the file never
// closes is reported where it was opened.
func TestContinuationErrors(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"answer: max(a,\n  b c)", []string{"2:5: unexpected `c`, expected `)`"}},
		{"answer: max(a,\n  b\n c)", []string{"3:2: unexpected `c`, expected `)` (this line continues the expression of line 1, whose `(` at column 12 is still open)"}},
		{"answer: (a\n+ b)\n* c", []string{"3:1: unexpected `*` at the start of a line: expected a declaration (grid size, setting, input, scalar or recurrence)"}},
		// Never closed: named where opened, and the lines swallowed are not
		// reported on their own.
		{"answer: max(a, b\n5x5\ncell[i][j] = 1\n", []string{"1:12: this `(` is never closed: the file ends before its `)`"}},
		{"5x5\ncell[i][j] = cell[i-1][j\n", []string{"2:23: this `[` is never closed: the file ends before its `]`"}},
		{"answer: f(g(x,\n  (y)\n", []string{"1:12: this `(` is never closed: the file ends before its `)`"}},
		{"5x5\ncell[i][j] = 0 when i == 0\n  | max(1,\n  2 otherwise", []string{"3:8: this `(` is never closed: the file ends before its `)`"}},
		// A bad character, or a string not terminated, is the error rather
		// than the bracket after it.
		{"5x5\ncell[i][j] = \x1b[2J nope\n", []string{"2:14: unexpected character \"\\x1b\""}},
		{"answer: max(a, \"b\n", []string{"1:16: string not terminated"}},
		// Closed only later: the first line the continuation cannot take
		// says which bracket is open.
		{"answer: max(a, b\nint n = (3))", []string{"2:1: unexpected `int`, expected `)` (this line continues the expression of line 1, whose `(` at column 12 is still open)"}},
		// A closing bracket without an opening one ends nothing.
		{"answer: a)\n5x5", []string{"1:10: unexpected `)`"}},
		// A good line after a bad one is still parsed on its own.
		{"answer: a b\nint n = (1 +\n 2 3)", []string{"1:11: unexpected `b`", "3:4: unexpected `3`, expected `)`"}},
	}
	for _, tt := range tests {
		f, err := Parse("t.dp", []byte(tt.src))
		checkPositions(t, f)
		if got := errorStrings(t, err); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

// TestReflowedFiles lays every expression of the example files out over
// several lines, breaking after random `(`, `[` and `,` inside brackets
// (with blank lines and comments among them), and checks that each file
// parses to the same declarations as written on one line per declaration.
func TestReflowedFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.dp"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 7))
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(name, src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := dumpFile(f)
		for trial := 0; trial < 20; trial++ {
			re := reflow(r, src)
			g, err := Parse(name, re)
			if err != nil {
				t.Fatalf("seed %d: %s reflowed does not parse:\n%s\n%s", seed, name, re, Format(err, re))
			}
			checkPositions(t, g)
			if got := dumpFile(g); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d: %s reflowed:\n%s\nparses to\n\t%s\nnot\n\t%s", seed, name, re, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		}
	}
}

// reflow breaks lines after some `(`, `[` and `,` that stand inside
// brackets of an expression (not in data rows, strings, characters or
// comments), which the parser must read as one line.
func reflow(r *rand.Rand, src []byte) []byte {
	var out []byte
	depth := 0
	data := false // the rest of the line is an input's data
	for k := 0; k < len(src); k++ {
		c := src[k]
		out = append(out, c)
		switch {
		case c == '\n':
			depth, data = 0, false
			continue
		case c == '#':
			for k+1 < len(src) && src[k+1] != '\n' {
				k++
				out = append(out, src[k])
			}
			continue
		case c == '\'' || c == '"':
			for k+1 < len(src) && src[k+1] != c && src[k+1] != '\n' {
				k++
				out = append(out, src[k])
				if src[k] == '\\' && k+1 < len(src) {
					k++
					out = append(out, src[k])
				}
			}
			continue
		case isDimsAt(src, k):
			data = true
		}
		if data {
			continue
		}
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		}
		if depth > 0 && (c == '(' || c == '[' || c == ',') && r.IntN(3) == 0 {
			out = append(out, []string{"\n", "\n\n   ", "  # note\n\t", "\r\n  "}[r.IntN(4)]...)
		}
	}
	return out
}

// isDimsAt reports whether an input's dimensions (`1x?`, `5x5`) start at
// src[k], after which a line holds data.
func isDimsAt(src []byte, k int) bool {
	if k > 0 && (isWordByte(src[k-1]) || src[k-1] == '.') {
		return false
	}
	j := k
	for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '?') {
		j++
	}
	return j > k && j < len(src) && src[j] == 'x' && j+1 < len(src) && (src[j+1] >= '0' && src[j+1] <= '9' || src[j+1] == '?')
}

func isWordByte(b byte) bool {
	return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// TestArgumentEmits: `emit EXPR` after an argument of a call (contract v2
// §7.4) is kept per argument; the printer writes it back.
func TestArgumentEmits(t *testing.T) {
	tests := []struct{ src, want, print string }{
		{"max(a emit 'M', b emit 'I')", "(call max a emit c:77 b emit c:73)", "max(a emit 'M', b emit 'I')"},
		{"max(a, b emit 1)", "(call max a b emit 1)", "max(a, b emit 1)"},
		{"min(a + 1 emit i - 1, c ? d : e emit k)", "(call min (+ a 1) emit (- i 1) (? c d e) emit k)", "min(a + 1 emit i - 1, c ? d : e emit k)"},
		{"max(max(a emit 1, b) emit 2, c)", "(call max (call max a emit 1 b) emit 2 c)", "max(max(a emit 1, b) emit 2, c)"},
		{"max(a emit max(x emit 1, y), b)", "(call max a emit (call max x emit 1 y) b)", "max(a emit max(x emit 1, y), b)"},
		{"abs(a emit 1)", "(call abs a emit 1)", "abs(a emit 1)"}, // sema refuses it
		{"max(k in 0..N: cell[0][k])", "(max k 0 N (idx cell 0 k))", "max(k in 0..N: cell[0][k])"},
	}
	for _, tt := range tests {
		f := parseOK(t, "answer: "+tt.src)
		e := f.Decls[0].(*AnswerDecl).Expr
		if got := sexpr(e); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.src, got, tt.want)
		}
		if got := ExprString(e); got != tt.print {
			t.Errorf("%q prints as %q, want %q", tt.src, got, tt.print)
		}
		roundTrip(t, e)
	}
	// Emits has an entry per argument, nil where there is none; a call
	// without emits has none at all.
	f := parseOK(t, "answer: max(a, b emit 1, c)")
	if c := f.Decls[0].(*AnswerDecl).Expr.(*Call); len(c.Emits) != 3 || c.Emits[0] != nil || c.Emits[1] == nil || c.Emits[2] != nil {
		t.Errorf("Emits = %v, want [nil 1 nil]", c.Emits)
	}
	f = parseOK(t, "answer: max(a, b)")
	if c := f.Decls[0].(*AnswerDecl).Expr.(*Call); c.Emits != nil {
		t.Errorf("Emits = %v, want nil", c.Emits)
	}
	// The case's own emit still follows the case.
	f = parseOK(t, "cell[i][j] = max(a emit 1, b) otherwise emit 2")
	if got := dumpDecl(f.Decls[0]); got != "rec cell[i][j] {(call max a emit 1 b) otherwise emit 2}" {
		t.Errorf("got %s", got)
	}
	errs := []struct{ src, want string }{
		{"answer: max(a emit, b)", "1:19: unexpected `,`, expected an expression"},
		{"answer: max(a emit)", "1:19: unexpected `)`, expected an expression"},
		{"answer: max(a emit 1 emit 2, b)", "1:22: unexpected `emit`, expected `)`"},
		{"answer: max(emit 1, b)", "1:13: unexpected `emit`, expected `)`"},
	}
	for _, tt := range errs {
		_, err := Parse("t.dp", []byte(tt.src))
		if got := errorStrings(t, err); len(got) != 1 || got[0] != tt.want {
			t.Errorf("Parse(%q): got %q, want %q", tt.src, got, tt.want)
		}
	}
}
