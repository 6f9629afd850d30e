package checkpoint

import (
	"context"
	"os"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// TestSpill: a layout of last resort keeps the checkpoint rows in a
// temporary file, not in memory (every tops entry nil), removed from its
// directory at once; every cell read back through the bands equals the
// whole grid's.
func TestSpill(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 60), dptest.DNA(r, 45)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(a, b))
	var lay plan.TraceLayout
	for budget := plan.GridBytes(p); budget > 0; budget = budget * 5 / 6 {
		l, err := plan.Traceback(p, pl, budget)
		if err != nil {
			break
		}
		if l.Spill {
			lay = l
		}
	}
	if !lay.Spill || lay.Bands < 3 {
		t.Fatalf("no spilled layout of several bands: %+v", lay)
	}
	ex := cpu.New(1)
	whole, err := ex.Run(context.Background(), p, pl, backend.Options{Maintain: true})
	if err != nil {
		t.Fatal(err)
	}
	_, g, err := Run(context.Background(), ex, p, pl, backend.Options{}, lay)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.spill == nil {
		t.Fatal("the checkpoint rows are not in a temporary file")
	}
	for k, top := range g.tops {
		if top != nil {
			t.Fatalf("band %d's rows are kept in memory", k)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Logf("the file stays in the directory while open (this system cannot remove an open file): %v", left)
	}
	// From the last row up, as a walk goes: bands recomputed from the file.
	for i := p.Rows - 1; i >= 0; i-- {
		for j := p.Cols - 1; j >= 0; j -= 7 {
			if got, want := g.At(i, j), whole.Grid.At(i, j); got != want {
				t.Fatalf("cell [%d][%d] = %v, whole grid %v", i, j, got, want)
			}
		}
	}
	if err := g.Err(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
