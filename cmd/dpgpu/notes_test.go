package main

import (
	"strings"
	"testing"
)

// TestFractionNote: a floating value stored in integer cells is C's
// conversion, as documented, but solve, check and batch say so once, with
// the line and a caret, and go on; floor(...), ceil(...) and whole values
// are no such case.
func TestFractionNote(t *testing.T) {
	dir := t.TempDir()
	src := func(value string) string {
		return "double 1x? a = 0.5, 1.25, 2\n(len(a)+1) x 3\ncell[i][j] = 0 when i == 0\n | cell[i-1][j] + " + value + " otherwise\n"
	}
	noted := writeIn(t, dir, "noted.dp", src("a[i-1] * 3"))
	for _, args := range [][]string{{"solve", "-b", "cpu", noted}, {"check", noted}} {
		out, errs, code := dpgpu(t, args...)
		if code != 0 || strings.Count(errs, "note:") != 1 || !strings.Contains(errs, "noted.dp:4:4: note: this value is double, stored in int cells") ||
			!strings.Contains(errs, "declare `cell: double`") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, errs, out)
		}
	}
	if out, _, _ := dpgpu(t, "check", "--json", noted); !strings.Contains(out, `"notes": [`) || !strings.Contains(out, `"line": 4,`) {
		t.Errorf("check --json has no note:\n%s", out)
	}
	if out, _, _ := dpgpu(t, "solve", "-b", "cpu", noted); !strings.Contains(out, "answer     10") { // 0 + 1.5 -> 1, 1 + 3.75 -> 4, 4 + 6 -> 10
		t.Errorf("answer:\n%s", out)
	}
	// batch: once, not once an instance.
	inst := writeIn(t, dir, "a.txt", "0.5 1.25 2\n")
	args := writeIn(t, dir, "args.dp", "args: a\n"+strings.Replace(src("a[i-1] * 3"), "double 1x? a = 0.5, 1.25, 2", "double 1x? a", 1))
	list := writeIn(t, dir, "list.txt", inst+"\n"+inst+"\n"+inst+"\n")
	if _, errs, code := dpgpu(t, "batch", "-b", "cpu", "-q", args, "@"+list); code != 0 || strings.Count(errs, "note:") != 1 {
		t.Errorf("batch: exit %d, %s", code, errs)
	}
	for _, value := range []string{"floor(a[i-1] * 3)", "ceil(a[i-1]) + 1.0", "(a[i-1] > 1 ? 2.0 : -inf)", "abs(floor(a[i-1]))"} {
		quiet := writeIn(t, dir, "quiet.dp", src(value))
		if _, errs, code := dpgpu(t, "solve", "-b", "cpu", quiet); code != 0 || strings.Contains(errs, "note:") {
			t.Errorf("%s: exit %d, %s", value, code, errs)
		}
	}
	withCell := writeIn(t, dir, "double.dp", "cell: double\n"+src("a[i-1] * 3"))
	if _, errs, _ := dpgpu(t, "solve", "-b", "cpu", withCell); strings.Contains(errs, "note:") {
		t.Errorf("cell: double noted: %s", errs)
	}
}
