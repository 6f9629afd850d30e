package plan_test

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// TestTracebackLayout: the whole grid when it fits the budget; bands of
// rows, the largest that fit, with the reach of the references and
// narrowing only where no reference reads a column to the right;
// the whole grid for a recurrence that reads rows below its own; an
// error naming what would do when nothing fits.
func TestTracebackLayout(t *testing.T) {
	lcs := dptest.LCS(strings.Repeat("ACGT", 250), strings.Repeat("GATC", 250)) // 1001 x 1001 ints
	p, pl := dptest.Load(t, "lcs.dp", lcs)
	whole := plan.GridBytes(p)
	if lay, err := plan.Traceback(p, pl, whole); err != nil || !lay.Whole || lay.Recompute != 1 {
		t.Fatalf("a budget of the whole grid: %+v, %v", lay, err)
	}
	lay, err := plan.Traceback(p, pl, whole/4)
	if err != nil || lay.Whole {
		t.Fatalf("a quarter of the grid: %+v, %v", lay, err)
	}
	if lay.Reach != 1 || !lay.Narrow || lay.Bytes > whole/4 || lay.Bands != (p.Rows+lay.Band-1)/lay.Band {
		t.Errorf("a quarter of the grid: %+v", lay)
	}
	// The largest band: one row more is over the budget.
	if more, err := plan.Traceback(p, pl, lay.Bytes-1); err == nil && !more.Whole && more.Band >= lay.Band {
		t.Errorf("a budget one byte under %d gives bands of %d rows, as large as %d", lay.Bytes, more.Band, lay.Band)
	}
	if _, err := plan.Traceback(p, pl, 1000); err == nil || !strings.Contains(err.Error(), "raise --traceback-memory") {
		t.Errorf("1000 bytes: %v", err)
	}

	// Two rows back, a column to the right.
	p2, pl2 := dptest.Load(t, "reach.dp", `(300) x 300
cell[i][j] = 1 when i < 2 || j == 299
           | cell[i-2][j+1] + cell[i-1][j]   otherwise
`)
	lay2, err := plan.Traceback(p2, pl2, plan.GridBytes(p2)/3)
	if err != nil || lay2.Whole || lay2.Reach != 2 || lay2.Narrow {
		t.Errorf("two rows back, a column right: %+v, %v", lay2, err)
	}

	// Interval DP reads rows below its own.
	d := make([]int64, 300)
	for k := range d {
		d[k] = int64(k%7 + 1)
	}
	p3, pl3 := dptest.Load(t, "chain.dp", dptest.MatrixChain(d))
	lay3, err := plan.Traceback(p3, pl3, 1000)
	if err != nil || !lay3.Whole || !strings.Contains(lay3.Why, "below") {
		t.Errorf("matrix chain: %+v, %v", lay3, err)
	}
}
