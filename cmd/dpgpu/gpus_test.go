package main

import (
	"strings"
	"testing"
)

// TestGPUsFlagErrors: --gpus is checked before anything loads, for solve
// and batch alike (exit 2, naming the flag).
func TestGPUsFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"solve", "-b", "cpu", "--gpus", "0", "testdata/lcs.dp"},
		{"batch", "-b", "cpu", "--gpus", "0", "lcs"},
		{"solve", "--gpus", "0,x", "testdata/lcs.dp"},
		{"solve", "--gpus", "1,1", "testdata/lcs.dp"},
		{"batch", "--gpus", "-2", "lcs"},
	} {
		_, errs, code := dpgpu(t, args...)
		if code != 2 || !strings.Contains(errs, "--gpus") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}
