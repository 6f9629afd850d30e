package bind

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// parse parses src as a file called name, failing the test on a syntax
// error (these tests are about well-formed files).
func parse(t testing.TB, name, src string) *dsl.File {
	t.Helper()
	f, err := dsl.Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", name, err, src)
	}
	return f
}

// mustCheck parses, binds and checks src, failing on any error.
func mustCheck(t *testing.T, src string, cfg Config) *ir.Problem {
	t.Helper()
	p, err := Check(parse(t, "t.dp", src), cfg)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, src)
	}
	return p
}

// checkErrs binds and checks f and returns the errors, failing when there
// are none or when they are not a sorted source.ErrorList.
func checkErrs(t *testing.T, f *dsl.File, cfg Config) source.ErrorList {
	t.Helper()
	p, err := Check(f, cfg)
	if err == nil {
		t.Fatalf("no error; want one\n%s", f.Source)
	}
	if p != nil {
		t.Errorf("Check returned a problem along with an error")
	}
	var list source.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, not source.ErrorList", err)
	}
	for k := 1; k < len(list); k++ {
		a, b := list[k-1].Pos, list[k].Pos
		if a.Line > b.Line || (a.Line == b.Line && a.Col > b.Col) {
			t.Errorf("errors not sorted: %v before %v", a, b)
		}
	}
	return list
}

// wantErrs checks that list holds exactly the wanted errors, each given as
// "LINE:COL: substring" (LINE:COL "0:0" for errors with no line).
func wantErrs(t *testing.T, list source.ErrorList, want ...string) {
	t.Helper()
	var got []string
	for _, e := range list {
		got = append(got, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg))
	}
	if len(got) != len(want) {
		t.Errorf("got %d errors, want %d:\n  got:  %s\n  want: %s", len(got), len(want), strings.Join(got, "\n        "), strings.Join(want, "\n        "))
		return
	}
	for k, w := range want {
		at, sub, _ := strings.Cut(w, ": ")
		if g := got[k]; !strings.HasPrefix(g, at+": ") || !strings.Contains(g, sub) {
			t.Errorf("error %d:\n  got  %s\n  want %s", k, g, w)
		}
	}
}

func chars(s string) []int64 {
	out := make([]int64, len(s))
	for k := range s {
		out[k] = int64(s[k])
	}
	return out
}
