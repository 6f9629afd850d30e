package engine

import (
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/codegen"
)

// TestWarmCode: the warm-up generation ends, leaves the problem as it was
// (the run's own generation gives the program it gave before), and does
// nothing for a problem without a grid plan.
func TestWarmCode(t *testing.T) {
	for _, name := range []string{"knapsack", "lcs", "gotoh", "matrix-chain"} {
		src, err := Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Load(src, bind.Config{})
		if err != nil {
			t.Fatal(err)
		}
		before, err := codegen.Generate(l.Problem, l.Plan, codegen.Options{})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { WarmCode(l)(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: the warm-up did not end", name)
		}
		after, err := codegen.Generate(l.Problem, l.Plan, codegen.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if after.Source != before.Source {
			t.Errorf("%s: the warm-up changed the program", name)
		}
	}
	WarmCode(&Loaded{})() // no plan (Held-Karp): nothing to do
}
