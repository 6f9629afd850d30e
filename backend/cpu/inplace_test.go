package cpu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// inPlaceNote is what Result.Device says of a run that kept one row.
const inPlaceNote = "one row in memory"

// inPlaceCase is a rows recurrence whose references all read the row
// before on one side of the cell's column, with its plain-Go grid.
type inPlaceCase struct {
	name string
	src  string
	grid [][]float64
	side int // the side of its column a cell reads: 1 left, -1 right, 0 both or not proved
	// backward: the rows run from the last up (the answer is cell[0][0]).
	backward bool
}

// shiftKnapsack is a 0/1 knapsack whose items read d[i-1] columns to the
// left of their own, forward or backward: distances from 0 (the cell's own
// column) up to maxD, so that many reads land inside the block of lanes
// being written. (Reads to the right by data, j+d[i-1] under j+d[i-1] <
// C, are not proved inside the grid: constShift reads to the right.)
func shiftKnapsack(r *rand.Rand, rows, cols, maxD int, backward bool) inPlaceCase {
	n := rows - 1
	d, v := dptest.Ints(r, max(n, 1), 0, maxD), dptest.Ints(r, max(n, 1), -3, 40)
	g := dptest.NewGrid(rows, cols)
	// Row k of the sweep (0 the first computed) reads item k-1.
	row := func(k int) int {
		if backward {
			return rows - 1 - k
		}
		return k
	}
	for k := 1; k < rows; k++ {
		i, prev := row(k), row(k-1)
		for j := 0; j < cols; j++ {
			g[i][j] = g[prev][j]
			c := j - int(d[k-1])
			if c >= 0 && g[prev][c]+float64(v[k-1]) > g[i][j] {
				g[i][j] = g[prev][c] + float64(v[k-1])
			}
		}
	}
	first, prevRow, item := "i == 0", "i-1", "i-1"
	if backward {
		first, prevRow, item = fmt.Sprintf("i == %d", rows-1), "i+1", fmt.Sprintf("%d-i", rows-2)
	}
	col, fits := "j-d["+item+"]", "d["+item+"] <= j"
	src := fmt.Sprintf(`problem shifted
int 1x? d = %s
int 1x? v = %s
%d x %d
cell[i][j] = 0                                   when %s
           | cell[%s][%s] + v[%s]                when %s && cell[%s][%s] + v[%s] > cell[%s][j]
           | cell[%s][j]                         otherwise
`, dptest.Join(d), dptest.Join(v), rows, cols, first, prevRow, col, item, fits, prevRow, col, item, prevRow, prevRow)
	return inPlaceCase{name: fmt.Sprintf("shifted %dx%d d<=%d backward %v", rows, cols, maxD, backward), src: src, grid: g, side: 1, backward: backward}
}

// constShift reads the row before at its own column and at constant
// offsets on one side of it (within a vector's lanes and past a block of
// DP_IPB), where they fall inside the grid: a maximum of weighted paths.
func constShift(r *rand.Rand, rows, cols, side int) inPlaceCase {
	offs := []int{1, 3, 130}
	w := dptest.Ints(r, max(rows, 1), -5, 9)
	g := dptest.NewGrid(rows, cols)
	for j := range cols {
		g[0][j] = float64(j % 11)
	}
	for i := 1; i < rows; i++ {
		for j := range cols {
			g[i][j] = g[i-1][j]
			for k, o := range offs {
				c := j - side*o
				if c >= 0 && c < cols {
					g[i][j] = max(g[i][j], g[i-1][c]+float64(int(w[i])*(k+1)))
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "problem const\nint 1x? w = %s\n%d x %d\ncell[i][j] = j %% 11    when i == 0\n           | max(cell[i-1][j]", dptest.Join(w), rows, cols)
	for k, o := range offs {
		if side > 0 {
			fmt.Fprintf(&b, ", j >= %d ? cell[i-1][j-%d] + w[i]*%d : cell[i-1][j]", o, o, k+1)
		} else {
			fmt.Fprintf(&b, ", j < %d ? cell[i-1][j+%d] + w[i]*%d : cell[i-1][j]", cols-o, o, k+1)
		}
	}
	b.WriteString(")  otherwise\n")
	return inPlaceCase{name: fmt.Sprintf("constant offsets %dx%d side %d", rows, cols, side), src: b.String(), grid: g, side: side}
}

// sumShift mixes the row before at the cell's column, one left of it and
// reach left of it into every cell, so that one wrong read anywhere
// reaches the last cell (the answer, which is all a run that keeps no
// cells checks): two rows computed in one pass (dp_ip_pair) read the
// first row's columns up to reach from their own, and a lag one block too
// short leaves some unread.
func sumShift(rows, cols, reach int) inPlaceCase {
	const m = 1000003
	g := dptest.NewGrid(rows, cols)
	for j := range cols {
		g[0][j] = float64(j*7919%m + 1)
	}
	for i := 1; i < rows; i++ {
		for j := range cols {
			v := int64(g[i-1][j]) * 3
			if j >= 1 {
				v += int64(g[i-1][j-1])
			}
			if j >= reach {
				v += int64(g[i-1][j-reach]) * 5
			}
			g[i][j] = float64(v % m)
		}
	}
	src := fmt.Sprintf(`problem sum
%d x %d
cell[i][j] = j * 7919 %% %d + 1                             when i == 0
           | (cell[i-1][j] * 3 + (j >= 1 ? cell[i-1][j-1] : 0) + (j >= %d ? cell[i-1][j-%d] * 5 : 0)) %% %d  otherwise
`, rows, cols, m, reach, reach, m)
	return inPlaceCase{name: fmt.Sprintf("sum %dx%d reach %d", rows, cols, reach), src: src, grid: g, side: 1}
}

// halfColumn reads the row before at j/2 and at j: offsets that grow
// with j, every one at or left of the cell's column, which the planner's
// ranges do not prove (j - j/2 over intervals): not in place.
func halfColumn(rows, cols int) inPlaceCase {
	g := dptest.NewGrid(rows, cols)
	for j := range cols {
		g[0][j] = float64(j % 7)
	}
	for i := 1; i < rows; i++ {
		for j := range cols {
			g[i][j] = float64((int64(g[i-1][j/2])*3 + int64(g[i-1][j]) + int64(i)) % 1000)
		}
	}
	src := fmt.Sprintf(`problem half
%d x %d
cell[i][j] = j %% 7                                      when i == 0
           | (cell[i-1][j/2] * 3 + cell[i-1][j] + i) %% 1000  otherwise
`, rows, cols)
	return inPlaceCase{name: fmt.Sprintf("half %dx%d", rows, cols), src: src, grid: g, side: 0}
}

// TestCompiledRowsInPlace: rows recurrences that read the row before on
// one side of the cell's column run on one worker in one line of memory
// (templates/host.cu, DP_INPLACE) and give the plain-Go grid, cell for
// cell, at widths around the least that keeps one line (1,088: eight rows
// between the line's moves back) and heights across several moves; of two
// workers asked for, one runs so where rows may pair; on three they run
// in the ring, with the same cells.
func TestCompiledRowsInPlace(t *testing.T) {
	c := withCompiler(t)
	r := dptest.Rand(t)
	var cases []inPlaceCase
	for _, sz := range [][2]int{{1, 1088}, {2, 1089}, {17, 1088}, {40, 1500}, {97, 2047}, {300, 1301}} {
		for _, maxD := range []int{3, 300} {
			cases = append(cases, shiftKnapsack(r, sz[0], sz[1], maxD, sz[0]%2 == 1))
		}
		for _, side := range []int{1, -1} {
			cases = append(cases, constShift(r, sz[0], sz[1], side))
		}
	}
	cases = append(cases, halfColumn(33, 1777), shiftKnapsack(r, 20, 1087, 5, false))
	// The first block of 65, 1 and 127 lanes of 128, then of 65 and 1 of
	// 256 (a row of 2,112 lanes or more has blocks of 256).
	for _, cols := range []int{1089, 1153, 2047, 2113, 2305} {
		for _, reach := range []int{127, 128, 129, 130, 255, 256, 257, 300} {
			cases = append(cases, sumShift(41, cols, reach))
		}
	}
	for _, tc := range cases {
		p, pl := dptest.Load(t, "inplace.dp", tc.src)
		if pl.Schedule != plan.Rows {
			t.Fatalf("%s: schedule %s, want rows\n%s", tc.name, pl.Schedule, tc.src)
		}
		// One line needs (width - 64) / 128 >= 8 rows between moves. A
		// grid of one row reads nothing: it may keep one line too.
		wantInPlace := (tc.side != 0 || p.Rows == 1) && (p.Cols-64)/128 >= 8
		for _, threads := range []int{1, 2, 3} {
			for _, keep := range []bool{true, false} {
				name := fmt.Sprintf("%s threads=%d keep=%v", tc.name, threads, keep)
				res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads, Maintain: keep})
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, tc.src)
				}
				if !strings.Contains(res.Device, "compiled by") {
					t.Fatalf("%s: not compiled (%s)", name, res.Device)
				}
				// Of two workers, one keeping one line where two rows a
				// pass may run; of three, the ring.
				if got, want := strings.Contains(res.Device, inPlaceNote), wantInPlace && threads <= 2; got != want {
					t.Fatalf("%s: in place %v, want %v (%s)", name, got, want, res.Device)
				}
				rc := refCase{grid: tc.grid, ansIsCell: true}
				rc.answer, rc.ansI, rc.ansJ = last(tc.grid)
				if tc.backward {
					rc.answer, rc.ansI, rc.ansJ = tc.grid[0][0], 0, 0
				}
				checkResult(t, name, tc.src, rc, res, keep)
			}
		}
	}
}
