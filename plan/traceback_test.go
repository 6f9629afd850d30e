package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
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

	// The cells of several tables read later tables of a cell above (H at
	// flat column 3j+2 from X's 3j): up to T-1 flat columns right, within
	// the cell, so a band cut after a whole cell narrows all the same; a
	// table reading the cell to the right does not.
	r := dptest.Rand(t)
	pg, plg := dptest.Load(t, "gotoh.dp", dptest.Gotoh(dptest.DNA(r, 300), dptest.DNA(r, 290), 5, 2))
	if layg, err := plan.Traceback(pg, plg, plan.GridBytes(pg)/3); err != nil || layg.Whole || plg.Cells != 3 || !layg.Narrow {
		t.Errorf("gotoh: %+v (cells of %d tables), %v", layg, plg.Cells, err)
	}
	pr, plr := dptest.Load(t, "right.dp", `int 1x? A = 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20
int 1x? B = 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40
(len(A)+1) x (len(B)+1)
X[i][j] = 0 when i == 0 || j == 0 || j == COLS-1
        | max(X[i-1][j], H[i-1][j+1]) + 1 otherwise
H[i][j] = 0 when i == 0 || j == 0
        | max(H[i-1][j-1], X[i][j]) + A[i-1] otherwise
`)
	if layr, err := plan.Traceback(pr, plr, plan.GridBytes(pr)/3); err == nil && !layr.Whole && layr.Narrow {
		t.Errorf("a table reading the cell to the right, above: narrowed (%+v, cells of %d tables)", layr, plr.Cells)
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

// TestTracebackLayoutFirstBand: whatever the budget, the first band (the
// rows left over) has at least Reach rows — the rows the second band is
// given — and fewer than Band + Reach, on the host and in GPU memory.
func TestTracebackLayoutFirstBand(t *testing.T) {
	checked := 0
	defer func() {
		if checked < 10 {
			t.Errorf("%d layouts in bands checked", checked)
		}
	}()
	for rows := 200; rows < 216; rows++ {
		p, pl := dptest.Load(t, "reach7.dp", fmt.Sprintf(`(%d) x 150
cell[i][j] = 1    when i < 7 || j == 0
           | max(cell[i-7][j-1] + 1, cell[i-1][j])   otherwise
`, rows))
		firstBands(t, p, pl, &checked)
	}
}

func firstBands(t *testing.T, p *ir.Problem, pl *plan.Plan, checked *int) {
	for budget := plan.GridBytes(p) - 1; budget > 1000; budget = budget * 7 / 8 {
		for _, dev := range []int64{0, plan.GridBytes(p) / 5, plan.GridBytes(p) / 40} {
			lay, err := plan.Traceback(p, pl, budget)
			if dev > 0 {
				lay, err = plan.DeviceBands(p, pl, dev, budget)
			}
			if err != nil || lay.Whole {
				continue
			}
			*checked++
			if lay.Reach != 7 {
				t.Fatalf("reach %d, want 7", lay.Reach)
			}
			first := p.Rows - (lay.Bands-1)*lay.Band
			if first < lay.Reach || first >= lay.Band+lay.Reach || lay.Bands < 1 {
				t.Errorf("budget %d, device %d: %d rows in %d bands of %d (reach %d): a first band of %d rows", budget, dev, p.Rows, lay.Bands, lay.Band, lay.Reach, first)
			}
		}
	}
}

// genomesGrid is an alignment of two bacterial genomes' sizes.
const genomesGrid = `(4641653) x (4857451)
cell[i][j] = -(i + j)    when i == 0 || j == 0
           | max(cell[i-1][j-1] + ((i * 7 + j * 3) % 4 == 0 ? 1 : -1), cell[i-1][j] - 1, cell[i][j-1] - 1)   otherwise
`

// TestTracebackLayoutGenomes: two bacterial genomes (4.6 Mb x 4.9 Mb, a
// 90 TB grid) traced back within 4 GiB of host memory, bands in the GPU's
// memory or on the host: two levels of checkpoints, the second level
// transposed (a band's checkpoint rows are its height, not the genome's
// length), within the budget.
func TestTracebackLayoutGenomes(t *testing.T) {
	p, pl := dptest.Load(t, "genomes.dp", genomesGrid)
	const budget = 4 << 30
	dev, err := plan.DeviceBands(p, pl, 70<<30, budget)
	if err != nil || !dev.Nested || !dev.SubSwapped || !dev.DeviceBands || dev.Bytes > budget {
		t.Errorf("GPU with 70 GiB free: %+v, %v", dev, err)
	}
	host, err := plan.Traceback(p, pl, budget)
	if err != nil || !host.Nested || !host.SubSwapped || host.Bytes > budget {
		t.Errorf("host: %+v, %v", host, err)
	}
	if testing.Verbose() {
		t.Logf("GPU: %s (%d bands of %d rows, %s)", dev.Why, dev.Bands, dev.Band, hostmemBytes(dev.Bytes))
		t.Logf("host: %s (%d bands of %d rows, %s)", host.Why, host.Bands, host.Band, hostmemBytes(host.Bytes))
	}
}

func hostmemBytes(n int64) string { return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30)) }

// TestDeviceBlocks: blocks for a forward 2-D wavefront of one table whose
// references read a bounded distance back: square, their checkpoint rows
// and columns within half the budget, the side the least that fits, a
// block within half the GPU's free memory; refused where the layout does
// not apply (a reference to the right, a backward sweep, several tables,
// interval DP, a GPU too small for a block).
func TestDeviceBlocks(t *testing.T) {
	p, pl := dptest.Load(t, "genomes.dp", genomesGrid)
	const budget = 4 << 30
	lay, err := plan.DeviceBlocks(p, pl, 130<<30, budget)
	if err != nil || !lay.Blocks || lay.Band != lay.BlockCols || lay.Reach != 1 || lay.ColReach != 1 || lay.Bytes > budget/2 {
		t.Fatalf("genomes, 130 GiB free: %+v, %v", lay, err)
	}
	// The checkpoints of blocks an eighth smaller do not fit.
	smaller := lay.Band - lay.Band/9
	rows := (p.Rows - 1) / smaller * p.Cols * 4
	cols := (p.Cols - 1) / smaller * p.Rows * 4
	if rows+cols <= budget/2 {
		t.Errorf("blocks of %d fit half the budget: %d is not the least side", smaller, lay.Band)
	}
	if lay.Bands != (p.Rows-1)/lay.Band+1 || lay.ColBlocks != (p.Cols-1)/lay.BlockCols+1 || lay.Recompute < 1 || lay.Recompute > 1.1 {
		t.Errorf("genomes: %d x %d blocks, recompute %.3f", lay.Bands, lay.ColBlocks, lay.Recompute)
	}
	if _, err := plan.DeviceBlocks(p, pl, 20<<30, budget); err == nil {
		t.Errorf("a block of %d² cells over half of 20 GiB: no error", lay.Band)
	}
	// A small one, with room: blocks of the least side.
	r := dptest.Rand(t)
	q, ql := dptest.Load(t, "lcs.dp", dptest.LCS(dptest.DNA(r, 299), dptest.DNA(r, 301)))
	if lay, err := plan.DeviceBlocks(q, ql, 1<<40, 1<<40); err != nil || lay.Band != 64 || lay.Bands != 5 || lay.ColBlocks != 5 {
		t.Errorf("LCS 300 x 302: %+v, %v", lay, err)
	}
	for _, c := range []struct{ name, src string }{
		{"right", "300 x 300\ncell[i][j] = 0 when i == 0 || j == ROWS - 1\n | cell[i-1][j+1] + 1 otherwise\n"},
		{"backward", "300 x 300\ncell[i][j] = 0 when i == ROWS-1 || j == COLS-1\n | max(cell[i+1][j], cell[i][j+1]) + 1 otherwise\n"},
		{"chain", dptest.MatrixChain([]int64{3, 5, 7, 2, 9, 4})},
		{"tables", dptest.Gotoh("GATTACAGATTACA", "GCATGCTTACA", 3, 1)},
	} {
		p, pl := dptest.Load(t, c.name+".dp", c.src)
		if lay, err := plan.DeviceBlocks(p, pl, 1<<40, 1<<40); err == nil {
			t.Errorf("%s: blocks %+v", c.name, lay)
		}
	}
}

// TestHostBlocks: blocks on the host for two virus genomes (30 kb each)
// within the default budget: 512 cells a side (the cap: a run a block
// costs), checkpoints and two blocks within the budget, a few percent
// recomputed; smaller blocks for a small grid, never under 64; none where
// the whole grid fits, where two blocks would not, or where the
// recurrence is not a forward wavefront of one table.
func TestHostBlocks(t *testing.T) {
	p, pl := dptest.Load(t, "virus.dp", strings.Replace(genomesGrid, "(4641653) x (4857451)", "29904 x 29752", 1))
	lay, err := plan.HostBlocks(p, pl, 0)
	if err != nil || !lay.Blocks || lay.DeviceBlocks || lay.Band != 512 || lay.BlockCols != 512 || lay.Bytes > plan.DefaultTraceMemory || lay.Recompute > 1.05 {
		t.Fatalf("virus genomes: %+v, %v", lay, err)
	}
	if lay.Bands != (p.Rows-1)/512+1 || lay.ColBlocks != (p.Cols-1)/512+1 || strings.Contains(lay.Why, "GPU") {
		t.Errorf("virus genomes: %d x %d blocks: %s", lay.Bands, lay.ColBlocks, lay.Why)
	}
	// 2 MiB: the checkpoints of blocks of 512 are over half of it; larger
	// blocks (and two of them) are over the rest.
	if lay, err := plan.HostBlocks(p, pl, 2<<20); err == nil {
		t.Errorf("virus genomes in 2 MiB: %+v", lay)
	}
	// 16 MiB: blocks larger than 512, whose checkpoints fit.
	if lay, err := plan.HostBlocks(p, pl, 16<<20); err != nil || lay.Band <= 512 || lay.Bytes > 16<<20 {
		t.Errorf("virus genomes in 16 MiB: %+v, %v", lay, err)
	}
	r := dptest.Rand(t)
	q, ql := dptest.Load(t, "lcs.dp", dptest.LCS(dptest.DNA(r, 999), dptest.DNA(r, 1001)))
	if lay, err := plan.HostBlocks(q, ql, plan.GridBytes(q)/2); err != nil || lay.Band != 125 || lay.Bands != 8 || lay.ColBlocks != 9 {
		t.Errorf("LCS 1,000 x 1,002 in half its grid: %+v, %v (blocks of an eighth of its side)", lay, err)
	}
	if lay, err := plan.HostBlocks(q, ql, plan.GridBytes(q)); err == nil {
		t.Errorf("LCS 1,000 x 1,002 within its grid's bytes: %+v", lay)
	}
	s, sl := dptest.Load(t, "lcs.dp", dptest.LCS(dptest.DNA(r, 199), dptest.DNA(r, 201)))
	if lay, err := plan.HostBlocks(s, sl, plan.GridBytes(s)/2); err != nil || lay.Band != 64 {
		t.Errorf("LCS 200 x 202: %+v, %v (blocks of 64 at least)", lay, err)
	}
	for _, c := range []struct{ name, src string }{
		{"backward", "300 x 300\ncell[i][j] = 0 when i == ROWS-1 || j == COLS-1\n | max(cell[i+1][j], cell[i][j+1]) + 1 otherwise\n"},
		{"tables", dptest.Gotoh(dptest.DNA(r, 300), dptest.DNA(r, 300), 3, 1)},
	} {
		p, pl := dptest.Load(t, c.name+".dp", c.src)
		if lay, err := plan.HostBlocks(p, pl, plan.GridBytes(p)/4); err == nil {
			t.Errorf("%s: blocks %+v", c.name, lay)
		}
	}
}
