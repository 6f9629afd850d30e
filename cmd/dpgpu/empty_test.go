package main

import (
	"strings"
	"testing"
)

// TestEmptySequences: an empty FASTA record or an empty text file is the
// empty sequence, as "" in a .dp file is and as dpgpu batch takes an empty
// record: LCS 0, a global alignment all gaps.
func TestEmptySequences(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return writeIn(t, dir, name, content) }
	empty, emptyTxt, acgt := write("e.fa", ">empty\n"), write("e.txt", "\n"), write("a.fa", ">a\nACGT\n")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"solve", "-b", "cpu", "lcs", empty, acgt}, []string{"answer     0"}},
		{[]string{"solve", "-b", "cpu", "lcs", emptyTxt, emptyTxt}, []string{"grid       1 x 1", "answer     0"}},
		{[]string{"solve", "-b", "cpu", "needleman-wunsch", acgt, empty, "--traceback"}, []string{"answer     -8", "4 columns: 0 matches, 0 mismatches, 4 gaps"}},
		{[]string{"solve", "-b", "cpu", "editdistance", emptyTxt, acgt}, []string{"answer     4"}},
	} {
		out, errs, code := dpgpu(t, tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", tc.args, w, out)
			}
		}
	}
}
