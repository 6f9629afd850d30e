package cpu

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSleeperPipeline runs a pipeline of goroutines like the wavefront's
// strips: stage g may do step k once stage g-1 has done step k+1 (or all
// its steps). Stage 0 is slowed now and then so that the others block
// rather than only spin. Run it with -race: the data each stage reads
// from the stage before must be published by the counter.
func TestSleeperPipeline(t *testing.T) {
	const stages, steps = 6, 300
	var stop atomic.Bool
	s := newSleeper(&stop)
	done := make([]atomic.Int64, stages)
	data := make([][]int, stages)
	for g := range data {
		data[g] = make([]int, steps)
	}
	var wg sync.WaitGroup
	for g := 0; g < stages; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < steps; k++ {
				if g > 0 {
					if !s.wait(&done[g-1], int64(min(k+2, steps))) {
						t.Errorf("stage %d step %d: wait reported a stop", g, k)
						return
					}
					data[g][k] = data[g-1][k] + 1
					if k+1 < steps && data[g-1][k+1] != g {
						t.Errorf("stage %d step %d: stage %d's step %d not published", g, k, g-1, k+1)
						return
					}
				} else {
					data[g][k] = 1
					if k%50 == 0 {
						time.Sleep(2 * time.Millisecond)
					}
				}
				s.add(&done[g], 1)
			}
		}()
	}
	wg.Wait()
	for g := range data {
		for k, v := range data[g] {
			if v != g+1 {
				t.Fatalf("data[%d][%d] = %d, want %d", g, k, v, g+1)
			}
		}
	}
}

// TestSleeperStop checks that stopping a run wakes every blocked waiter,
// which then reports the stop, and that a waiter arriving after the stop
// does not block.
func TestSleeperStop(t *testing.T) {
	r := &run{}
	r.sleep = newSleeper(&r.stop)
	var c atomic.Int64
	const waiters = 4
	out := make(chan bool, waiters)
	for range waiters {
		go func() { out <- r.sleep.wait(&c, 1) }()
	}
	// Let them pass the spinning and block.
	deadline := time.Now().Add(10 * time.Second)
	for r.sleep.sleeping.Load() < waiters && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := r.sleep.sleeping.Load(); n != waiters {
		t.Fatalf("%d waiters blocked, want %d", n, waiters)
	}
	r.fail(errStopTest)
	for range waiters {
		select {
		case ok := <-out:
			if ok {
				t.Error("a waiter woken by the stop reported its count reached")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a waiter was not woken by the stop")
		}
	}
	if r.sleep.wait(&c, 1) {
		t.Error("a wait after the stop reported its count reached")
	}
	if r.result() != errStopTest {
		t.Errorf("result %v, want %v", r.result(), errStopTest)
	}
}

type stopTestError struct{}

func (stopTestError) Error() string { return "stopped by the test" }

var errStopTest error = stopTestError{}
