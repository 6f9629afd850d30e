package dptest

import (
	"testing"

	"github.com/dpgpu/dpgpu/backend"
)

// KeptRows checks a run that kept chosen rows (backend.Options.KeepRows)
// against a run of the same problem that kept the whole grid: no grid,
// one kept row for each index of keep, the same answer, and every kept row
// equal to the grid's, cell for cell. what names the run in failures.
func KeptRows(tb testing.TB, what string, got, whole *backend.Result, keep []int64) {
	tb.Helper()
	if got.Grid != nil || got.Rows == nil || got.Rows.Rows != int64(len(keep)) {
		tb.Fatalf("%s: grid %v, rows %v", what, got.Grid != nil, got.Rows)
	}
	if got.Answer != whole.Answer {
		tb.Errorf("%s: answer %v, with the grid %v", what, got.Answer, whole.Answer)
	}
	for k, i := range keep {
		for j := int64(0); j < got.Rows.Cols; j++ {
			if a, b := got.Rows.At(int64(k), j), whole.Grid.At(i, j); a != b {
				tb.Fatalf("%s: kept row %d, cell %d is %v, the grid's %v", what, i, j, a, b)
			}
		}
	}
}
