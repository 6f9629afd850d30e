package bitpar_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/dpgpu/dpgpu/backend/bitpar"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// TestBytesBoundsAllocation: what Solve allocates (the heap's running
// total, which only grows) stays within Bytes, sequential and parallel,
// for every kind and alphabet.
func TestBytesBoundsAllocation(t *testing.T) {
	r := dptest.Rand(t)
	for _, c := range []struct {
		m, n    int
		alpha   string
		threads int
	}{
		{100, 200, "ACGT", 1}, {5000, 20000, "ACGT", 2}, {20000, 5000, "ACDEFGHIKLMNPQRSTVWY", 3}, {9000, 9000, "AB", 7},
	} {
		a, b := []byte(dptest.String(r, c.m, c.alpha)), []byte(dptest.String(r, c.n, c.alpha))
		for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
			for _, semi := range []bool{false, true} {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				if _, err := bitpar.Solve(context.Background(), kind, a, b, semi, c.threads, nil); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				got := int64(after.TotalAlloc - before.TotalAlloc)
				// The bound counts the two sequences as bytes, which the
				// caller allocates; goroutines' stacks are not heap.
				if bound := bitpar.Bytes(int64(c.m), int64(c.n), len(c.alpha), c.threads); got > bound {
					t.Errorf("%s %dx%d semi=%v threads=%d: allocated %d bytes, Bytes says %d", kind, c.m, c.n, semi, c.threads, got, bound)
				}
			}
		}
	}
}
