package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/gputest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The executor is shared by the tests: opening a context costs time.
var shared struct {
	once sync.Once
	e    *Executor
	err  error
	dir  string
}

// executor returns the shared executor, or skips the test when there is no
// CUDA driver. A driver that is found but fails is a test failure.
func executor(t testing.TB) *Executor {
	t.Helper()
	shared.once.Do(func() {
		dir := os.Getenv("DPGPU_CACHE_DIR") // device runs: keep the CUBINs to disassemble
		var err error
		if dir == "" {
			dir, err = os.MkdirTemp("", "dpgpu-cubin-")
		}
		if err != nil {
			shared.err = err
			return
		}
		shared.dir = dir
		shared.e, shared.err = New(WithCacheDir(dir), WithStageMB(4))
	})
	if errors.Is(shared.err, cuda.ErrNoDriver) {
		gputest.NoGPU(t, shared.err)
	}
	if shared.err != nil {
		t.Fatalf("a CUDA driver is present but the executor failed: %v", shared.err)
	}
	return shared.e
}

// variant is one way of running: the codegen options and maintain.
type variant struct {
	name     string
	cg       codegen.Options
	maintain bool
	slots    int64 // strip kernel with maintain: at most this many slots (0: as many as fit)
	// Line schedules: tiles off, or their cells a thread, lines a launch,
	// lines a step and tickets forced (0: planLineTiles chooses).
	tilesOff                        bool
	tileCells, tileLines, tileDepth int64
	tickets                         bool
	// Passes of lines in shared memory: their lines and the positions a
	// block owns forced (0: planLinePass chooses).
	passLines, passTile int64
	// A chained reduction's rows (dp_linechain): at most this many
	// segments a residue class (0: chainSegs chooses), and on narrow
	// lines too.
	chainSegs    int64
	chainNarrow  bool
	chainTwoFrom int64
}

var wavefrontVariants = []variant{
	{name: "strip", cg: codegen.Options{Kernel: codegen.KernelStrip}},
	{name: "tile", cg: codegen.Options{Kernel: codegen.KernelTile}},
	{name: "maintain", maintain: true},
	{name: "maintain-tile", cg: codegen.Options{Kernel: codegen.KernelTile}, maintain: true},
	// Strips of 64 rows through two slots: the kernel waits for the copies.
	{name: "maintain-2slots", cg: codegen.Options{Kernel: codegen.KernelStrip, RowsPerThread: 1, StripWarps: 2}, maintain: true, slots: 2},
	{name: "maintain-3slots", cg: codegen.Options{Kernel: codegen.KernelStrip, RowsPerThread: 1, StripWarps: 2}, maintain: true, slots: 3},
}

var lineVariants = []variant{
	{name: "line"},
	{name: "maintain", maintain: true},
	{name: "launch-a-line", tilesOff: true},
	{name: "maintain-launch-a-line", tilesOff: true, maintain: true},
	// Tiles of 32 positions (a block of 32 threads, a cell each), runs of
	// 3 lines: many tiles waiting on each other, many launches.
	{name: "tiles-32x3", cg: codegen.Options{LineThreads: 32}, tileCells: 1, tileLines: 3},
	{name: "tickets-32x5", cg: codegen.Options{LineThreads: 32}, tileCells: 1, tileLines: 5, tickets: true},
	// Steps of 3 lines between waits: tiles compute their neighbours'
	// cells that their later lines read.
	{name: "tiles-32x7-steps-of-3", cg: codegen.Options{LineThreads: 32}, tileCells: 1, tileLines: 7, tileDepth: 3},
	{name: "tickets-32x8-steps-of-4", cg: codegen.Options{LineThreads: 32}, tileCells: 1, tileLines: 8, tileDepth: 4, tickets: true},
	{name: "maintain-tiles-32", cg: codegen.Options{LineThreads: 32}, tileCells: 1, maintain: true},
	// Passes of 2 and 5 lines in shared memory, blocks owning 50 and 129
	// positions (widened by the pass's reach on both sides).
	{name: "passes-2x50", passLines: 2, passTile: 50},
	{name: "passes-5x129", passLines: 5, passTile: 129},
}

// run runs p on the GPU with variant v.
func runGPU(t testing.TB, e *Executor, p *ir.Problem, pl *plan.Plan, v variant) (*backend.Result, error) {
	t.Helper()
	old := e.cfg
	e.cfg.codegen, e.cfg.maxSlots = v.cg, v.slots
	e.cfg.tileCells, e.cfg.tileLines, e.cfg.tileTickets, e.cfg.tileDepth = v.tileCells, v.tileLines, v.tickets, v.tileDepth
	if v.tilesOff {
		e.cfg.tilesOff = true
	}
	// A variant that shapes the tiles wants them on lines of any width.
	e.cfg.tileWide = v.tileCells > 0
	// A variant that names the tiles or a launch a line runs no passes.
	e.cfg.passOff, e.cfg.passLines, e.cfg.passTile = v.tilesOff || v.tileCells > 0, v.passLines, v.passTile
	e.cfg.chainSegs, e.cfg.chainNarrow, e.cfg.chainTwoFrom = v.chainSegs, v.chainNarrow, v.chainTwoFrom
	defer func() { e.cfg = old }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return e.Run(ctx, p, pl, backend.Options{Maintain: v.maintain})
}

// refGrid is a reference grid in float64 (exact for the integers used).
type refGrid [][]float64

// cellValue is cell (i, j) of a kept grid as float64.
func cellValue(g *backend.Grid, i, j int64) float64 {
	return g.At(i, j).Float64()
}

func closeTo(a, b, tol float64) bool {
	if a == b || (math.IsInf(a, 0) && a == b) {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// tolerance is the relative tolerance for a cell type.
func tolerance(t ir.Type) float64 {
	switch t {
	case ir.Float:
		return 1e-5
	case ir.Double:
		return 1e-9
	}
	return 0
}

func checkGrid(t testing.TB, what string, g *backend.Grid, want refGrid, tol float64) {
	t.Helper()
	if g == nil {
		t.Fatalf("%s: no grid kept", what)
	}
	if g.Rows != int64(len(want)) || g.Cols != int64(len(want[0])) {
		t.Fatalf("%s: grid %dx%d, want %dx%d", what, g.Rows, g.Cols, len(want), len(want[0]))
	}
	bad := 0
	for i := range want {
		for j := range want[i] {
			if v := cellValue(g, int64(i), int64(j)); !closeTo(v, want[i][j], tol) {
				if bad < 5 {
					t.Errorf("%s: cell[%d][%d] = %v, want %v", what, i, j, v, want[i][j])
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d cells differ", what, bad)
	}
}

// sameGrids compares two kept grids cell by cell.
func sameGrids(t testing.TB, what string, a, b *backend.Grid, tol float64) {
	t.Helper()
	if a == nil || b == nil {
		t.Fatalf("%s: a grid is missing", what)
	}
	if a.Rows != b.Rows || a.Cols != b.Cols || a.T != b.T {
		t.Fatalf("%s: grids %dx%d %s and %dx%d %s", what, a.Rows, a.Cols, a.T, b.Rows, b.Cols, b.T)
	}
	bad := 0
	for i := int64(0); i < a.Rows; i++ {
		for j := int64(0); j < a.Cols; j++ {
			x, y := cellValue(a, i, j), cellValue(b, i, j)
			if !closeTo(x, y, tol) && !(math.IsNaN(x) && math.IsNaN(y)) {
				if bad < 5 {
					t.Errorf("%s: cell[%d][%d] = %v and %v", what, i, j, x, y)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d cells differ", what, bad)
	}
}

// againstCPU runs p on the CPU executor (kept grid) for comparison.
func againstCPU(t testing.TB, p *ir.Problem, pl *plan.Plan) *backend.Result {
	t.Helper()
	res, err := cpu.New(0).Run(context.Background(), p, pl, backend.Options{Maintain: true})
	if err != nil {
		t.Fatalf("CPU: %v", err)
	}
	return res
}

func answerOf(res *backend.Result) float64 { return res.Answer.Float64() }

func fmtSize(r, c int) string { return fmt.Sprintf("%dx%d", r, c) }
