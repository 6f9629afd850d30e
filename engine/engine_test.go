package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

func TestTSPLIBThroughEngine(t *testing.T) {
	// TSPLIB optima (OPTIMA.txt): the tour is recomputed by Run itself.
	for _, tc := range []struct {
		file string
		n    int
		want int64
	}{{"gr17.tsp", 17, 2085}, {"br17.atsp", 17, 39}, {"ulysses16.tsp", 16, 6859}} {
		path := dptest.Path("tsplib/" + tc.file)
		src, err := Resolve("tsp")
		if err != nil {
			t.Fatal(err)
		}
		l, err := Load(src, bind.Config{Args: []string{path}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), l, cpu.New(2), runtimeOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.Grid != nil || res.Tour == nil {
			t.Fatalf("%s: grid result %v, tour %v; want a tour only", tc.file, res.Grid, res.Tour)
		}
		if res.Answer().I != tc.want || len(res.Tour.Tour) != tc.n || res.Tour.Tour[0] != 0 {
			t.Errorf("%s: %d, tour %v; want %d", tc.file, res.Answer().I, res.Tour.Tour, tc.want)
		}
		if st := res.Stats(); st.Cells != int64(tc.n-1)<<(tc.n-2) || res.Backend != "cpu" {
			t.Errorf("%s: %d states on %q; want %d on cpu", tc.file, st.Cells, res.Backend, int64(tc.n-1)<<(tc.n-2))
		}
	}
}

func TestResolve(t *testing.T) {
	if _, err := Resolve("knapsack"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.dp")
	os.WriteFile(p, []byte("3x3\ncell[i][j] = i + j\n"), 0o644)
	if s, err := Resolve(p); err != nil || s.Builtin {
		t.Fatalf("%v %v", s, err)
	}
	if _, err := Resolve(filepath.Join(dir, "missing.dp")); err == nil {
		t.Error("missing file resolved")
	}
}

func runtimeOptions() backend.Options { return backend.Options{} }

// StartGrid allocates a large kept grid in the background, of the right
// shape, and leaves small or unkept grids to the executor; the CPU
// executor fills the grid it is given.
func TestStartGrid(t *testing.T) {
	load := func(src string) *Loaded {
		t.Helper()
		l, err := Load(&Source{Name: "g.dp", Text: []byte(src)}, bind.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	big := load("4100 x 4100\ncell: int\ncell[i][j] = (i * 7 + j) % 1000\n") // 67 MB
	opt := StartGrid(big, backend.Options{Maintain: true})()
	if !opt.Grid.Fits(big.Problem.CellType, 4100, 4100) {
		t.Fatalf("StartGrid gave %+v for a kept 4100x4100 grid", opt.Grid)
	}
	if opt := StartGrid(big, backend.Options{})(); opt.Grid != nil {
		t.Error("StartGrid allocated a grid that is not kept")
	}
	small := load("100 x 100\ncell[i][j] = i + j\n")
	if opt := StartGrid(small, backend.Options{Maintain: true})(); opt.Grid != nil {
		t.Error("StartGrid allocated a small grid")
	}
	given := opt.Grid
	backend.Cells[int32](given)[12345] = -1 // the executor must overwrite every cell
	res, err := Run(context.Background(), big, cpu.New(2), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Grid.Grid != given {
		t.Fatal("the CPU executor did not use the grid it was given")
	}
	if i, j := int64(12345/4100), int64(12345%4100); backend.Cells[int32](res.Grid.Grid)[12345] != int32((i*7+j)%1000) {
		t.Errorf("cell[%d][%d] = %d", i, j, backend.Cells[int32](res.Grid.Grid)[12345])
	}
}

// TestStartGridLeavesWhatDoesNotFit: StartGrid allocates nothing when the
// grid fits the available memory but the grid and the run's working
// buffers together do not; the executor then refuses the run before
// allocating (hostmem.ErrTooLarge), instead of failing after the grid
// took the memory.
func TestStartGridLeavesWhatDoesNotFit(t *testing.T) {
	l, err := Load(&Source{Name: "g.dp", Text: []byte("4100 x 4100\ncell: int\ncell[i][j] = (i * 7 + j) % 1000\n")}, bind.Config{})
	if err != nil {
		t.Fatal(err)
	}
	grid := plan.GridBytes(l.Problem)
	old := hostAvailable
	t.Cleanup(func() { hostAvailable = old })
	for _, tc := range []struct {
		avail int64
		alloc bool
	}{
		{grid + plan.CPUMemory(l.Problem, l.Plan, 2, false).Work, true},
		{grid, false},
		{grid - 1, false},
	} {
		hostAvailable = func() (int64, bool) { return tc.avail, true }
		opt := StartGrid(l, backend.Options{Threads: 2, Maintain: true})()
		if got := opt.Grid != nil; got != tc.alloc {
			t.Errorf("%d bytes available for a %d-byte grid: allocated %v, want %v", tc.avail, grid, got, tc.alloc)
		}
	}
}

// tooLargeExecutor refuses every run for want of memory.
type tooLargeExecutor struct{}

func (tooLargeExecutor) Name() string   { return "stub" }
func (tooLargeExecutor) Device() string { return "stub" }
func (tooLargeExecutor) Run(context.Context, *ir.Problem, *plan.Plan, backend.Options) (*backend.Result, error) {
	return nil, fmt.Errorf("cuda: %w", hostmem.TooLarge("solving g on the GPU", 8<<30, 1<<30, "GPU memory on X", "use a smaller instance"))
}

// TestRunMemoryRefusalIsAnInputError: whatever executor refuses a run for
// want of memory, Run returns it as an input error (exit status 2) that
// still wraps hostmem.ErrTooLarge.
func TestRunMemoryRefusalIsAnInputError(t *testing.T) {
	l, err := Load(&Source{Name: "g.dp", Text: []byte("10 x 10\ncell[i][j] = i + j\n")}, bind.Config{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), l, tooLargeExecutor{}, backend.Options{})
	if !errors.Is(err, ErrInput) || !errors.Is(err, hostmem.ErrTooLarge) {
		t.Fatalf("got %v; want an input error wrapping hostmem.ErrTooLarge", err)
	}
	if want := "cuda: solving g on the GPU needs 8.0 GiB, but only 1.0 GiB of GPU memory on X is available; use a smaller instance"; err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}
