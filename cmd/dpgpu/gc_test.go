package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestLateGC: after lateGC the collector does not run while the process
// holds less than the limit, runs once it passes it, and from then on is
// back at the default pacing (GOGC 100, no limit).
func TestLateGC(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: lateGC leaves them alone")
	}
	defer debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetGCPercent(100)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	held := int64(ms.Sys - ms.HeapReleased)
	lateGC(held + 48<<20)
	runtime.ReadMemStats(&ms)
	n0 := ms.NumGC

	var keep [][]byte
	for range 1024 { // 8 MB in small pieces, kept
		keep = append(keep, make([]byte, 8<<10))
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC != n0 {
		t.Fatalf("%d collections below the limit, want none", ms.NumGC-n0)
	}
	var sink []byte
	for range 200 { // 200 MB of garbage: past the limit
		sink = make([]byte, 1<<20)
	}
	_ = sink
	runtime.ReadMemStats(&ms)
	if ms.NumGC == n0 {
		t.Fatal("no collection past the limit")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := debug.SetGCPercent(100)
		if p == 100 {
			break
		}
		debug.SetGCPercent(p)
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d after the first collection, want 100", p)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("memory limit %d after the first collection, want none", l)
	}
	runtime.KeepAlive(keep)
}
