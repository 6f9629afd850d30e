package gpu

import (
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// TestKeptInputs: a large input stays on the device for the next runs
// that read it, and new data — a new Input, or the same Input given new
// values — is uploaded anew: every run's answer is the CPU's.
func TestKeptInputs(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a := dptest.DNA(r, keepInputMin+17) // a char input of more than keepInputMin bytes
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS(a, "GATTACA"))
	in := p.Inputs[0]
	if int64(in.Len()) < keepInputMin {
		t.Fatalf("input of %d elements", in.Len())
	}
	run := func(what string) {
		t.Helper()
		want := againstCPU(t, p, pl)
		got, err := e.Run(t.Context(), p, pl, backend.Options{NoSpecial: true})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got.Answer != want.Answer {
			t.Fatalf("%s: answer %v, the CPU's %v", what, got.Answer, want.Answer)
		}
	}
	run("first run")
	run("the same input again")
	// New values in a new slice: the kept copy is not the input's.
	fresh := make([]int64, len(in.I))
	for k := range fresh {
		fresh[k] = 'T'
	}
	in.I, in.Span = fresh, ir.SpanOf(fresh)
	run("new values")
}
