// Package phases times the steps of a command or a run for tuning: with
// DPGPU_TRACE set in the environment, each step's wall time is recorded
// and printed as one line, e.g.
//
//	dpgpu trace solve: load 5.0 ms, backend 234.3 ms, run 13.3 ms
//
// Without it every call is a no-op.
package phases

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Timer records the steps of one thing; a nil Timer records nothing.
type Timer struct {
	what  string
	last  time.Time
	marks []string
}

// Start returns a Timer for what, or nil when DPGPU_TRACE is not set.
func Start(what string) *Timer {
	if os.Getenv("DPGPU_TRACE") == "" {
		return nil
	}
	return &Timer{what: what, last: time.Now()}
}

// Mark ends a step: the time since the previous mark (or Start) is
// recorded under step.
func (t *Timer) Mark(step string) {
	if t == nil {
		return
	}
	now := time.Now()
	t.marks = append(t.marks, fmt.Sprintf("%s %.1f ms", step, now.Sub(t.last).Seconds()*1e3))
	t.last = now
}

// Print writes the line to w.
func (t *Timer) Print(w io.Writer) {
	if t != nil {
		fmt.Fprintf(w, "dpgpu trace %s: %s\n", t.what, strings.Join(t.marks, ", "))
	}
}
