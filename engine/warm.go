package engine

import (
	"github.com/dpgpu/dpgpu/codegen"
)

// WarmCode generates l's GPU program once in the background and throws it
// away, for a command that is about to open the GPU and run l on it: the
// first generation in a process took 0.7 ms where the next took 0.2 (an
// LCS of 16,384², a test process on a 2-core VM), in a run whose kernel
// takes 3.5 ms; the driver's start-up (a quarter of a second) hides it.
// The returned function waits for it (so the run's own generation does
// not compete for the processor on a small machine).
func WarmCode(l *Loaded) (wait func()) {
	if l.Plan == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		codegen.Generate(l.Problem, l.Plan, codegen.Options{}) // an error is the run's to report
	}()
	return func() { <-done }
}
