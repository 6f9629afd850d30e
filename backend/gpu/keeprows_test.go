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

// TestKeepColumns: the strip kernel keeps chosen columns with chosen rows
// (a traceback's checkpoints in blocks), equal to the CPU's grid, at
// awkward sizes, columns sparse (most chunks of the sweep hold none) and
// dense, with rows kept or not.
func TestKeepColumns(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	for _, n := range []int{1, 2, 17, 300, 1000} {
		for _, c := range []struct{ name, src string }{
			{"lcs", dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, n+3))},
			{"edit-double", strings.Replace(dptest.EditDistance(dptest.DNA(r, n+1), dptest.DNA(r, n), 1, 1, 2), "\n", "\ncell: double\n", 1)},
		} {
			p, pl := dptest.Load(t, c.name+".dp", c.src)
			if !e.KeepsColumns(pl) {
				t.Fatalf("%s: the strip kernel keeps no columns of a %s schedule", c.name, pl.Schedule)
			}
			whole := againstCPU(t, p, pl)
			for _, step := range []int{1, 97} {
				var rows, cols []int64
				for i := int64(0); i < p.Rows; i += 1 + int64(r.IntN(200)) {
					rows = append(rows, i)
				}
				if step == 97 {
					rows = nil
				}
				// The first column kept is one of the first three (there
				// may be fewer columns than that).
				for j := int64(r.IntN(int(min(3, p.Cols)))); j < p.Cols; j += 1 + int64(r.IntN(step)) {
					cols = append(cols, j)
				}
				what := fmt.Sprintf("%s n=%d, %d rows, %d columns", c.name, n, len(rows), len(cols))
				got, err := e.Run(t.Context(), p, pl, backend.Options{KeepRows: rows, KeepColumns: cols, NoSpecial: true})
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if len(rows) > 0 {
					dptest.KeptRows(t, what, got, whole, rows)
				}
				if got.Columns == nil || got.Columns.Rows != int64(len(cols)) || got.Columns.Cols != p.Rows {
					t.Fatalf("%s: kept columns %v", what, got.Columns)
				}
				for k, j := range cols {
					for i := range p.Rows {
						if a, b := got.Columns.At(int64(k), i), whole.Grid.At(i, j); a != b {
							t.Fatalf("%s: kept column %d, cell %d is %v, the grid's %v", what, j, i, a, b)
						}
					}
				}
			}
		}
	}
}
