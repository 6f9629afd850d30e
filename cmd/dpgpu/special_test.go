package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNoSpecialFlag: `--no-special` reaches the executor (the JSON says
// which algorithm ran) on solve, and `check` names the algorithm.
func TestNoSpecialFlag(t *testing.T) {
	out, errs, code := dpgpu(t, "check", "lcs")
	if code != 0 || !strings.Contains(out, "algorithm  bit-parallel LCS (Hyyrö 2004)") {
		t.Fatalf("check lcs: code %d\n%s%s", code, out, errs)
	}
	for _, c := range []struct {
		args []string
		want string // the algorithm's kind, "" for the schedule
	}{
		{[]string{"solve", "-b", "cpu", "--json", "lcs"}, "lcs"},
		{[]string{"solve", "-b", "cpu", "--json", "--no-special", "lcs"}, ""},
		{[]string{"solve", "-b", "cpu", "--json", "--traceback", "lcs"}, ""},
		{[]string{"solve", "-b", "cpu", "--json", "editdistance"}, "indel"},
		{[]string{"solve", "-b", "cpu", "--json", "--set", "sub=1", "editdistance"}, "levenshtein"},
	} {
		out, errs, code := dpgpu(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: code %d: %s", c.args, code, errs)
		}
		var got struct {
			Answer    any `json:"answer"`
			Algorithm *struct {
				Kind string `json:"kind"`
			} `json:"algorithm"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		kind := ""
		if got.Algorithm != nil {
			kind = got.Algorithm.Kind
		}
		if kind != c.want {
			t.Errorf("%v: algorithm %q, want %q", c.args, kind, c.want)
		}
	}
}
