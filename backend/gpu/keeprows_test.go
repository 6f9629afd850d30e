package gpu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestKeepRows: the strip kernel writes the rows Options.KeepRows names
// as it sweeps; they equal the CPU's whole grid's, forward and backward,
// int and double cells, sizes around a strip (256 rows with the default
// shape) and a warp's rows.
func TestKeepRows(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	backward := func(n int) string {
		return fmt.Sprintf("problem back\nchar 1x? A = %q\nchar 1x? B = %q\n(len(A)+1) x (len(B)+1)\ncell[i][j] = 0  when i == ROWS-1 || j == COLS-1\n           | max(cell[i+1][j], cell[i][j+1], cell[i+1][j+1] + (A[i] == B[j] ? 1 : 0))  otherwise\n",
			dptest.DNA(r, n), dptest.DNA(r, n+5))
	}
	for _, n := range []int{1, 31, 256, 300} {
		for _, c := range []struct{ name, src string }{
			{"lcs", dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, n+3))},
			{"lcs-double", strings.Replace(dptest.LCS(dptest.DNA(r, n+1), dptest.DNA(r, n)), "\n", "\ncell: double\n", 1)},
			{"backward", backward(n)},
		} {
			p, pl := dptest.Load(t, c.name+".dp", c.src)
			if !e.KeepsRows(pl) {
				t.Fatalf("%s: the strip kernel keeps no rows of a %s schedule", c.name, pl.Schedule)
			}
			whole := againstCPU(t, p, pl)
			var keep []int64
			for i := int64(0); i < p.Rows; i += 1 + int64(r.IntN(40)) {
				keep = append(keep, i)
			}
			got, err := e.Run(t.Context(), p, pl, backend.Options{KeepRows: keep, NoSpecial: true})
			if err != nil {
				t.Fatalf("%s n=%d: %v", c.name, n, err)
			}
			dptest.KeptRows(t, fmt.Sprintf("%s n=%d (%s)", c.name, n, pl.Direction), got, whole, keep)
		}
	}
}
