package eval

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestDecidedConditionsStillFail: per-batch specialisation may decide a
// condition from value ranges and leave it out of the kernel, but never one
// whose evaluation can fail: the reference evaluator evaluates it and stops
// with its error, so the kernel must too. Before the fix, `j >= max(1,
// A[j+5]) ? 7 : 3` answered 3 on one-lane batches, where A[5] is outside A.
func TestDecidedConditionsStillFail(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"a ?: condition reading outside an input",
			"int 1x3 A = 1,2,3\n1 x 1\ncell[i][j] = j >= max(1, A[j+5]) ? 7 : 3\n",
			"A[5] is outside A"},
		{"a case condition dividing by zero",
			"int 1x3 A = 1,2,3\n2 x 3\ncell[i][j] = 5 when max(0, 10 / (i - i)) < -1\n | 1 otherwise\n",
			"division by zero"},
		{"the left operand of || reading outside an input",
			"int 1x3 A = 1,2,3\n2 x 3\ncell[i][j] = 5 when A[j+9] > 100 || i >= 0\n | 1 otherwise\n",
			"A[9] is outside A"},
		{"the left operand of && with an overflow",
			"int 1x3 A = 1,2,3\n2 x 3\ncell[i][j] = 5 when max(0, A[2] * 1000000000) < -1 && i >= 0\n | 1 otherwise\n",
			"overflow computing cell[0][0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, pl, err := dptest.TryLoad(t, "d.dp", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			axis, sd, ld := scheduleOf(pl)
			if _, err := reference(p, axis, sd, ld); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("reference: %v, want %q", err, tc.want)
			}
			for _, width := range []int{1, 4} {
				for _, perBatch := range []bool{false, true} {
					_, _, err := batched(p, axis, sd, ld, width, perBatch)
					if err == nil || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("width %d perBatch %v: %v, want an error %q", width, perBatch, err, tc.want)
					}
				}
			}
		})
	}
}
