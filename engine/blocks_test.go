package engine

import (
	"testing"

	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/plan"
)

// TestBlocksBudget: a traceback in blocks keeps what the user gave, else
// a quarter of the host's available memory within DefaultTraceMemory ..
// 4 GiB.
func TestBlocksBudget(t *testing.T) {
	if got := blocksBudget(5 << 20); got != 5<<20 {
		t.Errorf("given 5 MiB: %d", got)
	}
	got := blocksBudget(0)
	if got < plan.DefaultTraceMemory || got > 4<<30 {
		t.Errorf("default: %d", got)
	}
	// (Within what the host has: a quarter of it, read again, give or
	// take what changed meanwhile.)
	if avail, ok := hostmem.Available(); ok && avail/4 > plan.DefaultTraceMemory && avail/4 < 4<<30 && (got < avail/8 || got > avail/2) {
		t.Errorf("default %d with %d available", got, avail)
	}
}
