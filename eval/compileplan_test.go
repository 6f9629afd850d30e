package eval

import (
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// TestCompilePlanTakesThePlansOffsets: the CPU's v1 compile reads each
// reference's offsets from the plan rather than deriving them again — a
// plan that said cell[i-1][j] reads two rows back would make the batches
// read two lines back — and refuses a generic plan.
func TestCompilePlanTakesThePlansOffsets(t *testing.T) {
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS("ACGTTGCA", "AGTTC"))
	if pl.Schedule != plan.Wavefront {
		t.Fatalf("schedule %s", pl.Schedule)
	}
	rec, err := CompilePlan(p, pl)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := rec.Steps(); lo != 0 || hi != 1 {
		t.Fatalf("steps %d..%d, want 0..1", lo, hi)
	}
	tampered := *pl
	tampered.Deps = append([]plan.Dependency(nil), pl.Deps...)
	two := int64(2)
	tampered.Deps[0].DI = &two
	rec, err = CompilePlan(p, &tampered)
	if err != nil {
		t.Fatal(err)
	}
	if _, hi := rec.Steps(); hi != 2 {
		t.Errorf("steps up to %d with the plan saying 2: the offsets were derived again", hi)
	}
	_, mc := dptest.Load(t, "mc.dp", dptest.MatrixChain([]int64{3, 4, 5, 6}))
	if _, err := CompilePlan(p, mc); err == nil {
		t.Error("a generic plan compiled for the v1 batches")
	}
}
