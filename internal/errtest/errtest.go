// Package errtest checks positioned error lists in tests: that an error is
// a source.ErrorList sorted by position, and that it holds exactly the
// errors a test expects. It depends on package source only, so that the
// tests of every stage (sema, bind, ...) can use it without an import cycle.
package errtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/source"
)

// List returns err as a source.ErrorList, failing the test when err is nil,
// is not such a list, or lists its errors out of position order.
func List(t testing.TB, err error) source.ErrorList {
	t.Helper()
	if err == nil {
		t.Fatal("no error; want one")
	}
	var list source.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, not source.ErrorList: %v", err, err)
	}
	for k := 1; k < len(list); k++ {
		a, b := list[k-1].Pos, list[k].Pos
		if a.Line > b.Line || (a.Line == b.Line && a.Col > b.Col) {
			t.Errorf("errors not sorted: %v before %v", a, b)
		}
	}
	return list
}

// Want checks that list holds exactly the wanted errors, in order, each
// given as "LINE:COL: substring" ("0:0" for an error with no line).
func Want(t testing.TB, list source.ErrorList, want ...string) {
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
