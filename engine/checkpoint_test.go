package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// Tracebacks in linear memory (issue #12): the same problem traced back
// from the whole grid and from checkpoint rows — bands recomputed as the
// walk enters them — must give the same answer, the same answer cell and
// the same tree, cell by cell, on random instances of every kind of
// recurrence that can be split into bands, at awkward sizes, with
// budgets that force bands of every height down to the least.

// checkpointCases make a source of size n.
var checkpointCases = []struct {
	name string
	make func(r *rand.Rand, n int) string
}{
	{"lcs", func(r *rand.Rand, n int) string { return dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, n+r.IntN(5))) }},
	{"edit-distance", func(r *rand.Rand, n int) string {
		return dptest.EditDistance(dptest.DNA(r, n+r.IntN(3)), dptest.DNA(r, n), 1, 1, 1+r.IntN(2))
	}},
	{"knapsack", func(r *rand.Rand, n int) string {
		return dptest.Knapsack(dptest.Ints(r, n, 0, 9), dptest.Ints(r, n, 0, 20), 1+r.IntN(3*n+1))
	}},
	{"bounded-knapsack", func(r *rand.Rand, n int) string {
		return dptest.BoundedKnapsack(dptest.Ints(r, n, 0, 6), dptest.Ints(r, n, 0, 20), dptest.Ints(r, n, 0, 3), 1+r.IntN(2*n+1))
	}},
	{"smith-waterman", func(r *rand.Rand, n int) string {
		return fmt.Sprintf(`char 1x? A = "%s"
char 1x? B = "%s"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0        when i == 0 || j == 0
           | max(0 emit 's', cell[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -1) emit 'd', cell[i-1][j] - 1 emit 'u', cell[i][j-1] - 1 emit 'l')   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`, dptest.String(r, n, "AC"), dptest.String(r, n+1, "AC"))
	}},
	{"two-rows-back-float", func(r *rand.Rand, n int) string {
		return fmt.Sprintf(`double 1x? w = %s
cell: double
(len(w)+1) x %d
cell[i][j] = 0.5 * j    when i < 2 || j == 0
           | min(cell[i-2][j-1] + w[i-1] emit 2, cell[i-1][j] + 0.25 emit 1, cell[i][j-1] + 1.5 emit 0)   otherwise
answer: min(j in 0..COLS-1: cell[ROWS-1][j])
`, dptest.Join(dptest.Ints(r, n, 0, 9)), n+2)
	}},
	{"data-dependent-rows", func(r *rand.Rand, n int) string {
		// cell[i - s[j]]: how far back depends on the data (1..3 rows).
		return fmt.Sprintf(`int 1x? s = %s
int 1x? w = %s
(len(w)+1) x (len(s)+1)
cell[i][j] = 0    when i < 3 || j == 0
           | max(cell[i-1][j] emit 0, cell[i - s[j-1]][j-1] + w[i-1] emit 1)   otherwise
`, dptest.Join(dptest.Ints(r, n+2, 1, 3)), dptest.Join(dptest.Ints(r, n+3, -5, 9)))
	}},
	{"gotoh-tables", func(r *rand.Rand, n int) string {
		return strings.NewReplacer(`"GATTACAGGTTAC"`, `"`+dptest.DNA(r, n)+`"`, `"GCATGCTTACA"`, `"`+dptest.DNA(r, n+2)+`"`).Replace(contractGotoh)
	}},
	{"lcs3", func(r *rand.Rand, n int) string {
		n = min(n, 9)
		return dptest.LCS3(dptest.DNA(r, n), dptest.DNA(r, n), dptest.DNA(r, n))
	}},
}

// TestCheckpointTracebackCPU: bands (an executor that keeps no columns),
// and blocks where the CPU's wavefronts keep checkpoint columns.
func TestCheckpointTracebackCPU(t *testing.T) {
	t.Run("bands", func(t *testing.T) { runCheckpoint(t, hostOnly{cpu.New(3)}, hostBands) })
	t.Run("blocks", func(t *testing.T) { runCheckpoint(t, cpu.New(3), hostBlocks) })
}

// TestCheckpointTracebackGPU runs the GPU twice: as it is, keeping the
// grid in GPU memory where its kernel allows (traceOnDevice), and hidden
// behind an executor that cannot, so that the bands run on the GPU.
func TestCheckpointTracebackGPU(t *testing.T) { withGPU(t, checkpointGPU) }

func checkpointGPU(t *testing.T, ex backend.Executor) {
	t.Run("device", func(t *testing.T) { runCheckpoint(t, ex, wholeOnDevice) })
	t.Run("device-bands", func(t *testing.T) { runCheckpoint(t, noColumns{ex}, bandsOnDevice) })
	t.Run("device-blocks", func(t *testing.T) { runCheckpoint(t, ex, blocksOnDevice) })
	t.Run("bands", func(t *testing.T) { runCheckpoint(t, hostOnly{ex}, hostBands) })
}

// noColumns is an executor with the device and the row keeping of the
// one it wraps but no checkpoint columns (backend.ColumnSetKeeper): its
// tracebacks run in bands, not blocks.
type noColumns struct{ backend.Executor }

func (n noColumns) KeepsRows(pl *plan.Plan) bool {
	k, ok := n.Executor.(backend.RowKeeper)
	return ok && k.KeepsRows(pl)
}

func (n noColumns) DeviceFree() int64 { return n.Executor.(backend.OnDevice).DeviceFree() }

// checkpointMode is where a run of runCheckpoint must keep the grid.
type checkpointMode int

const (
	hostBands      checkpointMode = iota // checkpoints on the host
	wholeOnDevice                        // the whole grid in GPU memory
	bandsOnDevice                        // a device budget of a third of the grid: bands in GPU memory
	smallDevice                          // a device budget of 1/16 of the grid: many bands, in two levels
	blocksOnDevice                       // a device budget of a third of the grid, an executor keeping columns: blocks
	hostBlocks                           // no device, an executor keeping columns: blocks on the host where they fit
)

// hostOnly is an executor without backend.OnDevice (but with the row
// keeping of the one it wraps, if any: the GPU's strip kernel then writes
// the checkpoint rows in the forward run).
type hostOnly struct{ backend.Executor }

func (h hostOnly) KeepsRows(pl *plan.Plan) bool {
	k, ok := h.Executor.(backend.RowKeeper)
	return ok && k.KeepsRows(pl)
}

func runCheckpoint(t *testing.T, ex backend.Executor, mode checkpointMode) {
	r := dptest.Rand(t)
	onDevice, nested, spilled, blocks, ahead, entered := 0, 0, 0, 0, 0, 0
	// The checkpoint rows of a spilled layout go to a temporary file
	// (plan.TraceLayout.Spill): here, where the test can see that none
	// is left behind.
	tmp := spillDir(t)
	defer func() {
		if (mode == hostBands || mode == smallDevice) && nested == 0 && !t.Failed() {
			t.Errorf("no traceback used two levels of checkpoints")
		}
		if mode == hostBands && spilled == 0 && !t.Failed() {
			t.Errorf("no traceback kept its checkpoint rows in a temporary file")
		}
		if left := spillLeft(tmp); len(left) > 0 {
			t.Errorf("temporary files left behind: %v", left)
		}
		if mode != hostBands && mode != hostBlocks && onDevice == 0 && !t.Failed() {
			t.Errorf("no traceback kept its grid, or its bands, on the device")
		}
		inBlocks := mode == blocksOnDevice || mode == hostBlocks
		if inBlocks && blocks == 0 && !t.Failed() {
			t.Errorf("no traceback in blocks")
		}
		if inBlocks && ahead == 0 && !t.Failed() {
			t.Errorf("no block was computed ahead of the walk")
		}
		if testing.Verbose() && inBlocks {
			t.Logf("%d runs in blocks entered %d blocks, %d of them computed ahead", blocks, entered, ahead)
		}
	}()
	for _, c := range checkpointCases {
		t.Run(c.name, func(t *testing.T) {
			banded := 0
			sizes := []int{1, 2, 5, 17, 40}
			switch mode {
			case hostBands:
				sizes = append(sizes, 300) // room for two levels of checkpoints
			case smallDevice:
				sizes = append(sizes, 120)
			case blocksOnDevice, hostBlocks:
				// Blocks are at least 64 cells a side: grids of several.
				sizes = append(sizes, 100, 211)
			}
			for _, n := range sizes {
				src := c.make(r, n)
				l, s, whole := wholeTrace(t, fmt.Sprintf("%s n = %d", c.name, n), src, ex)
				if whole.Trace != nil {
					t.Fatalf("n = %d: a traceback within 1 TB kept checkpoints", n)
				}
				// Budgets from just under the whole grid down to the
				// least that works: band heights from large to 1.
				spilledHere := false
				for budget := plan.GridBytes(l.Problem) - 1; budget > 0; budget = budget * 5 / 6 {
					lay, err := plan.Traceback(l.Problem, l.Plan, budget)
					if err != nil || (lay.Spill && (mode != hostBands || spilledHere)) {
						// (The temporary file of the checkpoint rows is
						// the host's: the device modes stop before it, and
						// one spilled run a size is enough.)
						break
					}
					spilledHere = spilledHere || lay.Spill
					// Progress never goes back nor past its total, and
					// ends at it.
					var last [2]int64
					progress := func(d, total int64) {
						if d < last[0] && total == last[1] || d > total {
							t.Errorf("n = %d, budget %d: progress %d of %d after %d of %d", n, budget, d, total, last[0], last[1])
						}
						last = [2]int64{d, total}
					}
					opt := backend.Options{Traceback: true, TraceMemory: budget, Progress: progress}
					switch mode {
					case bandsOnDevice, blocksOnDevice:
						opt.DeviceBudget = max(plan.GridBytes(l.Problem)/3, 1)
					case smallDevice:
						opt.DeviceBudget = max(plan.GridBytes(l.Problem)/16, 1)
					}
					got, err := engine.Run(context.Background(), l, ex, opt)
					if err != nil {
						t.Fatalf("n = %d, budget %d (bands of %d rows): %s", n, budget, lay.Band, source.Format(err, s.Text))
					}
					if lay.Whole {
						if got.Trace != nil {
							t.Fatalf("n = %d: the layout keeps the whole grid, the run kept checkpoints", n)
						}
						continue
					}
					if got.Trace == nil {
						t.Fatalf("n = %d, budget %d: the layout has bands of %d rows, the run kept the whole grid", n, budget, lay.Band)
					}
					if last[0] != last[1] || last[1] == 0 {
						t.Fatalf("n = %d, budget %d: progress ended at %d of %d", n, budget, last[0], last[1])
					}
					switch {
					case got.Trace.Device && mode == wholeOnDevice, got.Trace.DeviceBands && (mode == bandsOnDevice || mode == smallDevice || mode == blocksOnDevice):
						onDevice++
					case got.Trace.Blocks && got.Trace.DeviceBlocks != (mode == blocksOnDevice):
						t.Fatalf("n = %d: blocks on the device %v in mode %d", n, got.Trace.DeviceBlocks, mode)
					case got.Trace.Blocks && (mode == blocksOnDevice || mode == hostBlocks):
						if mode == blocksOnDevice {
							onDevice++
						}
						blocks++
						ahead, entered = ahead+got.Ahead, entered+got.Recomputed
						if got.Ahead > got.Recomputed {
							t.Fatalf("n = %d: %d blocks computed ahead of %d recomputed", n, got.Ahead, got.Recomputed)
						}
					case got.Trace.Blocks:
						t.Fatalf("n = %d: blocks in mode %d", n, mode)
					case got.Trace.Device || got.Trace.DeviceBands:
						t.Fatalf("n = %d: the grid went to the device (whole %v, bands %v) in mode %d", n, got.Trace.Device, got.Trace.DeviceBands, mode)
					}
					banded++
					if lay.Nested {
						nested++
					}
					if got.Trace.Spill {
						spilled++
					}
					what := fmt.Sprintf("n = %d, bands of %d rows (%d bands, reach %d, narrow %v)", n, lay.Band, lay.Bands, lay.Reach, lay.Narrow)
					if got.Answer() != whole.Answer() {
						t.Fatalf("%s: answer %v, whole grid %v", what, got.Answer(), whole.Answer())
					}
					g, w := got.Grid, whole.Grid
					if g.AnswerI != w.AnswerI || g.AnswerJ != w.AnswerJ || g.AnswerIsCell != w.AnswerIsCell {
						t.Fatalf("%s: answer cell [%d][%d], whole grid [%d][%d]", what, g.AnswerI, g.AnswerJ, w.AnswerI, w.AnswerJ)
					}
					if diff := treeDiff(got.Tree, whole.Tree); diff != "" {
						t.Fatalf("%s: the trees differ: %s\n%s", what, diff, src)
					}
					if fmt.Sprint(g.Path, g.Emitted) != fmt.Sprint(w.Path, w.Emitted) {
						t.Fatalf("%s: path %v %v, whole grid %v %v", what, g.Path, g.Emitted, w.Path, w.Emitted)
					}
					if got.Grid.Grid != nil {
						t.Fatalf("%s: the result holds a grid", what)
					}
				}
			}
			if banded == 0 {
				t.Fatalf("no instance was traced back in bands")
			}
			if testing.Verbose() {
				t.Logf("%d runs in bands", banded)
			}
		})
	}
}

// treeDiff says where two traceback trees differ, "" when they do not.
func treeDiff(a, b *traceback.Node) string {
	type pair struct{ a, b *traceback.Node }
	stack := []pair{{a, b}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := p.a, p.b
		if (x == nil) != (y == nil) {
			return "one tree is empty"
		}
		if x == nil {
			continue
		}
		if x.I != y.I || x.J != y.J || x.Case != y.Case || x.Value != y.Value || fmt.Sprint(x.Emit) != fmt.Sprint(y.Emit) || len(x.Children) != len(y.Children) {
			return fmt.Sprintf("node [%d][%d] case %d value %v emit %v (%d children) against [%d][%d] case %d value %v emit %v (%d children)",
				x.I, x.J, x.Case, x.Value, x.Emit, len(x.Children), y.I, y.J, y.Case, y.Value, y.Emit, len(y.Children))
		}
		for k := range x.Children {
			stack = append(stack, pair{x.Children[k], y.Children[k]})
		}
	}
	return ""
}

// TestCheckpointErrorsNameTheUsersCell: an error in a band names the cell
// as the user's grid has it, the same message as a run of the whole grid.
func TestCheckpointErrorsNameTheUsersCell(t *testing.T) {
	const src = `char 1x? A = "ACGTACGTACGTACGTACGTACGTACGT"
(len(A)+1) x 6
cell[i][j] = 1                       when i == 0 || j == 0
           | max(cell[i-1][j] * 3, cell[i][j-1])   otherwise
`
	s := &engine.Source{Name: "overflow.dp", Path: "overflow.dp", Text: []byte(src)}
	l, err := engine.Load(s, bind.Config{BaseDir: "."})
	if err != nil {
		t.Fatalf("%s", engine.FormatError(err, s))
	}
	ex := cpu.New(2)
	_, whole := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: 1 << 40})
	if whole == nil {
		t.Fatalf("3^28 fits an int")
	}
	_, banded := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: plan.GridBytes(l.Problem) / 2})
	if banded == nil || banded.Error() != whole.Error() {
		t.Fatalf("bands: %v\nwhole grid: %v", banded, whole)
	}
	if !strings.Contains(whole.Error(), "cell[20][1]") {
		t.Errorf("the error names no cell of row 20: %v", whole)
	}
}

// TestCheckpointTracebackFakeDevice runs the device paths of the
// traceback (the whole grid kept on a device, and bands of it one at a
// time) without a GPU: an executor that "keeps" the grid it computed on
// the host behind backend.DeviceGrid, as a GPU's would be read.
func TestCheckpointTracebackFakeDevice(t *testing.T) {
	for _, keeps := range []bool{false, true} {
		ex := fakeDevice{cpu.New(2), keeps, false}
		t.Run(fmt.Sprintf("keeps-rows=%v", keeps), func(t *testing.T) {
			t.Run("device", func(t *testing.T) { runCheckpoint(t, ex, wholeOnDevice) })
			t.Run("device-bands", func(t *testing.T) { runCheckpoint(t, ex, bandsOnDevice) })
			t.Run("small-device", func(t *testing.T) { runCheckpoint(t, ex, smallDevice) })
		})
	}
	// Keeping checkpoint columns too: blocks where the recurrence allows.
	t.Run("device-blocks", func(t *testing.T) { runCheckpoint(t, fakeDevice{cpu.New(2), true, true}, blocksOnDevice) })
}

// fakeDevice is an executor with backend.OnDevice whose device memory is
// the host's: what it keeps on the "device" is the grid a maintain run of
// the executor it wraps returns, within Options.DeviceBudget. With
// keepsRows it keeps checkpoint rows in its forward run as a GPU's strip
// kernel does (backend.RowKeeper), where the wrapped executor can.
type fakeDevice struct {
	backend.Executor
	keepsRows, keepsCols bool
}

// KeepsColumns: with keepsCols, the fake keeps checkpoint columns (and
// rows) from the whole grid of a run of the executor it wraps.
func (f fakeDevice) KeepsColumns(pl *plan.Plan) bool { return f.keepsCols && f.KeepsRows(pl) }

func (f fakeDevice) KeepsRows(pl *plan.Plan) bool {
	k, ok := f.Executor.(backend.RowKeeper)
	return f.keepsRows && ok && k.KeepsRows(pl)
}

func (fakeDevice) DeviceFree() int64 { return 1 << 40 }

func (f fakeDevice) Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	if len(opt.KeepColumns) > 0 {
		if !f.KeepsColumns(pl) {
			return nil, fmt.Errorf("the fake device keeps no columns of %s", p.Name)
		}
		rows, cols := opt.KeepRows, opt.KeepColumns
		opt.KeepRows, opt.KeepColumns, opt.Maintain, opt.Grid = nil, nil, true, nil
		res, err := f.Executor.Run(ctx, p, pl, opt)
		if err != nil {
			return nil, err
		}
		g := res.Grid
		res.Grid = nil
		res.Rows, res.Columns = backend.NewGrid(p.CellType, int64(len(rows)), p.Cols), backend.NewGrid(p.CellType, int64(len(cols)), p.Rows)
		for k, i := range rows {
			for j := range p.Cols {
				res.Rows.Set(int64(k), j, g.At(i, j))
			}
		}
		for k, j := range cols {
			for i := range p.Rows {
				res.Columns.Set(int64(k), i, g.At(i, j))
			}
		}
		return res, nil
	}
	if !opt.KeepOnDevice {
		return f.Executor.Run(ctx, p, pl, opt)
	}
	if b := opt.DeviceBudget; b > 0 && plan.GridBytes(p) > b {
		return nil, hostmem.TooLarge("keeping the grid on the fake device", plan.GridBytes(p), b, "the device budget", "")
	}
	opt.KeepOnDevice, opt.Maintain, opt.Grid = false, true, nil
	res, err := f.Executor.Run(ctx, p, pl, opt)
	if err != nil {
		return nil, err
	}
	if res.Grid == nil {
		return nil, fmt.Errorf("the fake device's executor kept no grid")
	}
	res.DeviceGrid, res.Grid = &fakeDeviceGrid{g: res.Grid}, nil
	return res, nil
}

// fakeDeviceGrid is a host grid read as a backend.DeviceGrid; reading it
// after Close is an error, as a freed device grid's would be.
type fakeDeviceGrid struct {
	g      *backend.Grid
	closed bool
	err    error
}

func (d *fakeDeviceGrid) At(i, j int64) ir.Value {
	if d.closed && d.err == nil {
		d.err = fmt.Errorf("cell [%d][%d] read from a closed device grid", i, j)
	}
	return d.g.At(i, j)
}
func (d *fakeDeviceGrid) Err() error   { return d.err }
func (d *fakeDeviceGrid) Close() error { d.closed = true; return nil }
func (d *fakeDeviceGrid) Reads() int   { return 0 }

// TestCheckpointWindows: a band recomputed for the walk keeps only a
// window of its columns near the column the walk entered at, twice as
// wide each time the walk leaves it to the left. A long gap makes the
// walk run along a row of one band for hundreds of columns: it leaves
// the window several times, and the alignment must still be the one the
// whole grid gives — on the Go evaluator and on compiled code (where the
// band's sweep also stops at the window's last column).
func TestCheckpointWindows(t *testing.T) {
	r := dptest.Rand(t)
	a := dptest.DNA(r, 300)
	b := a[:150] + dptest.String(r, 700, "T") + a[150:]
	src := dptest.EditDistance(a, b, 1, 1, 1)
	s := &engine.Source{Name: "gap.dp", Path: "gap.dp", Text: []byte(src)}
	l, err := engine.Load(s, bind.Config{BaseDir: "."})
	if err != nil {
		t.Fatalf("%s", engine.FormatError(err, s))
	}
	executors := []struct {
		name string
		code string
	}{{"go", "go"}, {"compiled", "c"}}
	for _, x := range executors {
		t.Run(x.name, func(t *testing.T) {
			t.Setenv(cpu.CodeEnv, x.code)
			ex := cpu.New(2)
			if x.code == "c" && ex.Native() == nil {
				t.Skip("no C compiler: the compiled CPU code is not tested here")
			}
			whole, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: 1 << 40})
			if err != nil {
				t.Fatal(err)
			}
			reloaded := 0
			for _, budget := range []int64{600 << 10, 400 << 10, 200 << 10} {
				lay, err := plan.Traceback(l.Problem, l.Plan, budget)
				if err != nil || lay.Whole || lay.Nested || !lay.Narrow {
					t.Fatalf("budget %d: layout %+v, %v: want bands of rows, narrowed", budget, lay, err)
				}
				got, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: budget})
				if err != nil {
					t.Fatalf("budget %d: %s", budget, source.Format(err, s.Text))
				}
				what := fmt.Sprintf("bands of %d rows", lay.Band)
				if got.Answer() != whole.Answer() {
					t.Fatalf("%s: answer %v, whole grid %v", what, got.Answer(), whole.Answer())
				}
				if diff := treeDiff(got.Tree, whole.Tree); diff != "" {
					t.Fatalf("%s: the trees differ: %s", what, diff)
				}
				if fmt.Sprint(got.Grid.Path) != fmt.Sprint(whole.Grid.Path) {
					t.Fatalf("%s: the paths differ", what)
				}
				if int64(got.Recomputed) > lay.Bands {
					reloaded++
				}
			}
			if reloaded == 0 {
				t.Errorf("no walk left a band's window: the test does not reach the reloads")
			}
		})
	}
}

// TestCheckpointDeviceBandsSpill: bands kept on the device one at a time,
// the rows between them in a temporary file where even two levels of them
// are over the traceback memory: the same path as the whole grid, and no
// file left behind.
func TestCheckpointDeviceBandsSpill(t *testing.T) {
	tmp := spillDir(t)
	r := dptest.Rand(t)
	src := dptest.LCS(dptest.DNA(r, 300), dptest.DNA(r, 280))
	s := &engine.Source{Name: "lcs.dp", Path: "lcs.dp", Text: []byte(src)}
	l, err := engine.Load(s, bind.Config{BaseDir: "."})
	if err != nil {
		t.Fatal(err)
	}
	ex := fakeDevice{cpu.New(2), false, false}
	whole, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	device := max(plan.GridBytes(l.Problem)/16, 1)
	var budget int64
	for b := plan.GridBytes(l.Problem); b > 0; b = b * 5 / 6 {
		lay, err := plan.DeviceBands(l.Problem, l.Plan, device, b)
		if err != nil {
			break
		}
		if lay.Spill {
			budget = b
			break
		}
	}
	if budget == 0 {
		t.Fatal("no budget gives bands on the device with the rows between them in a file")
	}
	got, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: budget, DeviceBudget: device})
	if err != nil {
		t.Fatal(err)
	}
	if got.Trace == nil || !got.Trace.DeviceBands || !got.Trace.Spill {
		t.Fatalf("layout %+v, want bands on the device and the rows between them in a file", got.Trace)
	}
	if got.Answer() != whole.Answer() || fmt.Sprint(got.Grid.Path) != fmt.Sprint(whole.Grid.Path) {
		t.Fatalf("answer %v path %v, whole grid %v %v", got.Answer(), got.Grid.Path, whole.Answer(), whole.Grid.Path)
	}
	if left := spillLeft(tmp); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// spillDir makes TMPDIR a fresh directory for the test, where the
// checkpoint rows' temporary files go. (Not t.TempDir: a subtest's name
// may hold '=', in which the C compiler the compiled CPU path runs leaves
// its own temporary files behind.)
func spillDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dpgpu-spill-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("TMPDIR", dir)
	return dir
}

// spillLeft lists the checkpoint files (dpgpu-checkpoints-*) left in dir.
func spillLeft(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "dpgpu-checkpoints-") {
			left = append(left, e.Name())
		}
	}
	return left
}

// bandRecorder is the CPU executor, noting the bands it ran transposed.
type bandRecorder struct {
	*cpu.Executor
	bands, swapped int
}

func (b *bandRecorder) Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	if p.Of != nil {
		b.bands++
		if p.Swapped {
			b.swapped++
		}
	}
	return b.Executor.Run(ctx, p, pl, opt)
}

// TestCheckpointTablesBandsAsTheyAre: on the CPU a band of several tables,
// shorter than wide, is not transposed (transposed, its flat columns j*T +
// table become rows: gotoh SARS-CoV-2 x SARS-CoV --traceback took 44.5 s
// so, 10.5 s not); the alignment is the whole grid's.
func TestCheckpointTablesBandsAsTheyAre(t *testing.T) {
	r := dptest.Rand(t)
	src := strings.NewReplacer(`"GATTACAGGTTAC"`, `"`+dptest.DNA(r, 60)+`"`, `"GCATGCTTACA"`, `"`+dptest.DNA(r, 200)+`"`).Replace(contractGotoh)
	s := &engine.Source{Name: "gotoh.dp", Path: "gotoh.dp", Text: []byte(src)}
	l, err := engine.Load(s, bind.Config{BaseDir: "."})
	if err != nil {
		t.Fatalf("%s", engine.FormatError(err, s))
	}
	ex := &bandRecorder{Executor: cpu.New(2)}
	whole, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for budget := plan.GridBytes(l.Problem) / 3; budget > 0; budget = budget * 2 / 3 {
		lay, err := plan.Traceback(l.Problem, l.Plan, budget)
		if err != nil || lay.Spill {
			break
		}
		if lay.Whole || lay.Nested || lay.Band+lay.Reach >= l.Problem.Cols {
			continue
		}
		got, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: budget})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		runs++
		if fmt.Sprint(got.Grid.Path) != fmt.Sprint(whole.Grid.Path) || got.Answer() != whole.Answer() {
			t.Fatalf("budget %d (bands of %d rows): path %v, the whole grid's %v", budget, lay.Band, got.Grid.Path, whole.Grid.Path)
		}
	}
	if runs == 0 || ex.bands == 0 {
		t.Fatalf("%d runs in bands, %d bands: the test traced nothing back in bands", runs, ex.bands)
	}
	if ex.swapped > 0 {
		t.Errorf("%d of %d bands of several tables ran transposed on the CPU", ex.swapped, ex.bands)
	}
}

// TestCheckpointBlocksCancel: a traceback in blocks cancelled while it
// walks (a block computed ahead of the walk in flight) ends with the
// context's error, every block it kept on the "device" closed, and no
// goroutine left running.
func TestCheckpointBlocksCancel(t *testing.T) {
	// The walk ends at [0][200], in a block right of the first: the
	// block left of it, computed ahead, is never entered.
	s := &engine.Source{Name: "lcs.dp", Path: "lcs.dp", Text: []byte(dptest.LCS(strings.Repeat("C", 400), strings.Repeat("A", 200)+strings.Repeat("C", 220)))}
	l, err := engine.Load(s, bind.Config{BaseDir: "."})
	if err != nil {
		t.Fatal(err)
	}
	grid := plan.GridBytes(l.Problem)
	// settled waits for the goroutines started since before to end.
	settled := func(before int) int {
		for k := 0; k < 50 && runtime.NumGoroutine() > before; k++ {
			time.Sleep(10 * time.Millisecond)
		}
		return runtime.NumGoroutine()
	}
	// Not cancelled: every block closed, the one computed ahead and never
	// entered too.
	before := runtime.NumGoroutine()
	ex := &cancelling{fakeDevice: fakeDevice{cpu.New(2), true, true}, after: 1 << 30, cancel: func() {}}
	var mu sync.Mutex
	var seen [][2]int64
	progress := func(done, total int64) {
		mu.Lock()
		seen = append(seen, [2]int64{done, total})
		mu.Unlock()
	}
	res, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: grid / 2, DeviceBudget: grid / 3, Progress: progress})
	if err != nil || res.Trace == nil || !res.Trace.Blocks || res.Ahead == 0 {
		t.Fatalf("not cancelled: %v, layout %+v, %d blocks computed ahead", err, res.Trace, res.Ahead)
	}
	// The progress counts the forward pass and the blocks, toward a total
	// of the grid and its blocks' share, never back.
	cells := l.Problem.Cells()
	if len(seen) == 0 {
		t.Fatalf("no progress reported")
	}
	for k, p := range seen {
		if p[0] > p[1] || p[1] < cells || p[1] > 2*cells || (k > 0 && p[0] < seen[k-1][0]) {
			t.Fatalf("progress %d of %d after %v (%d cells)", p[0], p[1], seen[:k], cells)
		}
	}
	// (The total counts the blocks a walk may enter at most: it ends
	// short of it, and solve's bar is finished when the run returns.)
	if last := seen[len(seen)-1]; last[0] <= cells {
		t.Errorf("progress ends at %d of %d: the %d cells of the forward pass, no block", last[0], last[1], cells)
	}
	if n := settled(before); n > before {
		t.Errorf("not cancelled: %d goroutines, %d before", n, before)
	}
	if open := ex.open.Load(); open != 0 {
		t.Errorf("not cancelled: %d grids left open on the device", open)
	}
	for _, after := range []int32{2, 3, 6} {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		ex := &cancelling{fakeDevice: fakeDevice{cpu.New(2), true, true}, after: after, cancel: cancel}
		_, err := engine.Run(ctx, l, ex, backend.Options{Traceback: true, TraceMemory: grid / 2, DeviceBudget: grid / 3})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d runs: %v", after, err)
		}
		if n := settled(before); n > before {
			t.Errorf("cancelled after %d runs: %d goroutines, %d before", after, n, before)
		}
		if open := ex.open.Load(); open != 0 {
			t.Errorf("cancelled after %d runs: %d grids left open on the device", after, open)
		}
	}
}

// cancelling is the fake device, which cancels the run's context when its
// executor is asked for a run after the given number, and counts the
// grids it keeps on the "device" that are still open.
type cancelling struct {
	fakeDevice
	after  int32
	runs   atomic.Int32
	open   atomic.Int32
	cancel context.CancelFunc
}

func (c *cancelling) Run(ctx context.Context, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	if c.runs.Add(1) > c.after {
		c.cancel()
	}
	res, err := c.fakeDevice.Run(ctx, p, pl, opt)
	if err == nil && res.DeviceGrid != nil {
		c.open.Add(1)
		res.DeviceGrid = &countedGrid{res.DeviceGrid, &c.open}
	}
	return res, err
}

// countedGrid counts itself out of open when closed.
type countedGrid struct {
	backend.DeviceGrid
	open *atomic.Int32
}

func (g *countedGrid) Close() error {
	g.open.Add(-1)
	return g.DeviceGrid.Close()
}

// TestCheckpointBlocksCompiled: a traceback in blocks on the host with
// compiled code — the forward pass's strips keeping the checkpoint
// columns, every kind of block run by an executor of its own that makes
// one program a shape (backend.Instancer) — gives the whole grid's
// answer, tree and path, int and float cells, at sizes that leave a
// first band and a first column of blocks of other sizes; and so does one
// of several tables in bands, its forward pass one compiled run keeping
// the bands' rows.
func TestCheckpointBlocksCompiled(t *testing.T) {
	t.Setenv(cpu.CodeEnv, "c")
	ex, err := engine.NewCPU(3)
	if err != nil {
		t.Skipf("no C++ compiler: %v", err)
	}
	r := dptest.Rand(t)
	for _, c := range []struct {
		name   string
		n      int
		src    func(n int) string
		blocks bool // else bands, the forward pass keeping their rows
	}{
		{"lcs", 301, func(n int) string { return dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, n+40)) }, true},
		{"edit-float", 257, func(n int) string {
			return strings.Replace(dptest.EditDistance(dptest.DNA(r, n+3), dptest.DNA(r, n), 1, 1, 2), "\n", "\ncell: double\n", 1)
		}, true},
		{"gotoh", 203, func(n int) string { return dptest.Gotoh(dptest.DNA(r, n), dptest.DNA(r, n+7), 5, 2) }, false},
		// Two rows and three columns back: blocks given two rows and
		// three columns, on the compiled strips.
		{"reach-2-3", 260, func(n int) string {
			return fmt.Sprintf(`int 1x? w = %s
(len(w)+1) x %d
cell[i][j] = j - i    when i < 2 || j < 3
           | max(cell[i-2][j-1] + w[i-1] emit 0, cell[i-1][j-3] - 1 emit 1, cell[i][j-1] emit 2, cell[i-1][j] - 2 emit 3)   otherwise
`, dptest.Join(dptest.Ints(r, n, -4, 9)), n+9)
		}, true},
		// A 2-D input at the cell: the compiled rows scan keeps the
		// checkpoint columns.
		{"scan", 140, func(n int) string {
			rows := make([]string, n)
			for k := range rows {
				rows[k] = dptest.Join(dptest.Ints(r, n+5, -3, 9))
			}
			return fmt.Sprintf("int %dx%d W = %s\n%d x %d\ncell[i][j] = 0 when i == 0 || j == 0\n           | W[i][j] + max(cell[i-1][j] emit 0, cell[i][j-1] - 1 emit 1, cell[i-1][j-1] + 1 emit 2)   otherwise\n",
				n, n+5, strings.Join(rows, " & "), n, n+5)
		}, true},
	} {
		l, s, whole := wholeTrace(t, c.name, c.src(c.n), ex)
		budget := plan.GridBytes(l.Problem) * 3 / 4
		if !c.blocks {
			budget = plan.GridBytes(l.Problem) / 3 // bands of at most a third
		}
		lay, err := engine.HostTraceLayout(l, budget)
		if err != nil || lay.Blocks != c.blocks || lay.DeviceBlocks || lay.Bands < 3 || c.blocks && lay.ColBlocks < 3 {
			t.Fatalf("%s: layout %+v, %v", c.name, lay, err)
		}
		got, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: budget})
		if err != nil {
			t.Fatalf("%s, checkpoints: %s", c.name, source.Format(err, s.Text))
		}
		if got.Trace == nil || got.Trace.Blocks != c.blocks || got.Recomputed < 2 || !strings.Contains(got.Device, "compiled by") {
			t.Fatalf("%s: trace %+v, %d recomputed, %s", c.name, got.Trace, got.Recomputed, got.Device)
		}
		if got.Answer() != whole.Answer() {
			t.Fatalf("%s: answer %v, whole grid %v", c.name, got.Answer(), whole.Answer())
		}
		if diff := treeDiff(got.Tree, whole.Tree); diff != "" {
			t.Fatalf("%s: the trees differ: %s", c.name, diff)
		}
		if g, w := got.Grid, whole.Grid; fmt.Sprint(g.Path, g.Emitted) != fmt.Sprint(w.Path, w.Emitted) {
			t.Fatalf("%s: path %v, whole grid %v", c.name, g.Path, w.Path)
		}
	}
}

// wholeTrace loads src and traces it back on ex from the whole grid (a
// budget of 1 TB), the reference a traceback from checkpoints must equal.
func wholeTrace(t *testing.T, what, src string, ex backend.Executor) (*engine.Loaded, *engine.Source, *engine.Result) {
	t.Helper()
	s := &engine.Source{Name: "case.dp", Path: "case.dp", Text: []byte(src)}
	l, err := engine.Load(s, bind.Config{BaseDir: "."})
	if err != nil {
		t.Fatalf("%s: %s", what, engine.FormatError(err, s))
	}
	whole, err := engine.Run(context.Background(), l, ex, backend.Options{Traceback: true, TraceMemory: 1 << 40})
	if err != nil {
		t.Fatalf("%s, whole grid: %s", what, source.Format(err, s.Text))
	}
	return l, s, whole
}
