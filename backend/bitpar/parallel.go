package bitpar

import (
	"container/heap"
	"context"
	"sync"

	"github.com/dpgpu/dpgpu/plan"
)

// ringSlots is how many chunks of carries a boundary between two strips
// holds: a strip may run that many chunks ahead of the strip above it.
// The wavefront order keeps neighbours within a chunk or two of each
// other, so a few slots never make a worker wait.
const ringSlots = 4

// choose is the shape for a pattern of w words, a text of n columns and
// the given threads. It returns a strip of all w words (the sequential
// path) where the hand-offs would cost more than they save.
//
// A strip's work on one column costs about 1 ns a word for LCS and 2 ns
// for Levenshtein (figures of BenchmarkShape); a hand-off between workers
// (a lock, at times a wake-up) costs a few microseconds. Strips of 16 to
// 64 words and chunks of a few thousand columns make a work item tens of
// microseconds, and enough strips and chunks keep every worker busy
// outside the first and last few diagonals of the wavefront.
func choose(kind plan.SpecialKind, w, n, threads int) shape {
	seq := shape{strip: max(w, 1)}
	if threads < 2 || w < minParallelWords || n < minParallelColumns {
		return seq
	}
	// Strips: about 2 per worker, within [16, 64] words (longer strips
	// spend less of their time per column reading and writing the bits
	// between strips).
	strip := min(max((w+2*threads-1)/(2*threads), 16), 64)
	if strip >= w {
		strip = (w + 1) / 2
	}
	// Chunks: about 50 microseconds of work an item, and at least 4 per
	// worker.
	nsPerWord := 1
	if kind == plan.BitLevenshtein {
		nsPerWord = 2
	}
	chunk := 50000 / (strip * nsPerWord)
	chunk = min(chunk, n/(4*threads))
	chunk = min(max(chunk&^63, 256), 8192)
	return shape{strip: strip, chunk: chunk}
}

// Below these sizes a run stays on one goroutine. BenchmarkShape on a
// 2-core machine, text of 100,000 columns, 2 threads against 1: no gain at
// 16 and 32 words, 1.6-1.7x at 64 words, 1.9-2x at 256 words.
const (
	minParallelWords   = 64
	minParallelColumns = 8192
)

// parallel advances the pattern over the text with up to threads
// goroutines. The pattern's words are cut into strips of about sh.strip
// words, the text into chunks of sh.chunk columns; the work item (s, c)
// advances strip s over chunk c. It needs (s, c-1), for the strip's
// vector, and (s-1, c), for the bits that leave strip s-1's top word at
// every column of chunk c (1 bit a column for LCS, 2 for Levenshtein),
// which it reads from slot c%ringSlots of the boundary between the two
// strips; it writes its own into the boundary above, so it also waits for
// (s+1, c-ringSlots) to have read that slot. Ready items are taken lowest
// diagonal (s+c) first, so that the strips move together as a wavefront.
// The last strip's items run in column order: the tally of the last row
// (a semi-global best, with its first-best rule) reads them as the
// sequential path does.
func parallel(ctx context.Context, k kernel, b []byte, t *tally, threads int, sh shape, progress func(done, total int64)) error {
	w, n := k.words(), len(b)
	ns := (w + sh.strip - 1) / sh.strip
	nc := (n + sh.chunk - 1) / sh.chunk
	// Strip s is words [lo[s], lo[s+1]): as even as the words allow.
	lo := make([]int, ns+1)
	for s := range lo {
		lo[s] = s * w / ns
	}
	slot := 2 * (sh.chunk / 64) // words per slot: hp (or carry), then hn
	ring := make([]uint64, ns*ringSlots*slot)
	buf := func(s, c int) []uint64 {
		o := (s*ringSlots + c%ringSlots) * slot
		return ring[o : o+slot]
	}
	q := &queue{
		ns: ns, nc: nc,
		done:  make([]int, ns),
		taken: make([]bool, ns),
		total: int64(ns) * int64(nc),
	}
	q.cond = sync.NewCond(&q.mu)
	q.offer(0)
	var progMu sync.Mutex
	var reported int64
	work := func() {
		for {
			s, c, ok := q.take()
			if !ok {
				return
			}
			if err := ctx.Err(); err != nil {
				q.fail(err)
				return
			}
			j0 := c * sh.chunk
			j1 := min(n, j0+sh.chunk)
			var in []uint64
			if s > 0 {
				in = buf(s-1, c)
			}
			out := buf(s, c)
			k.advance(lo[s], lo[s+1], b[j0:j1], in, out)
			if s == ns-1 {
				t.add(out, j1-j0)
			}
			finished := q.finish(s)
			if progress != nil {
				// The share of the items done, in columns; reported in
				// increasing order, one call at a time.
				done := int64(float64(n) * float64(finished) / float64(q.total))
				if finished == q.total {
					done = int64(n)
				}
				progMu.Lock()
				if done > reported {
					reported = done
					progress(done, int64(n))
				}
				progMu.Unlock()
			}
		}
	}
	workers := min(threads, ns)
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	return q.err
}

// queue hands out the ready work items, lowest diagonal first; a worker
// with nothing ready waits on cond.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	ns, nc int
	done   []int  // chunks each strip has finished
	taken  []bool // the strip's next item is in ready or running
	ready  items
	idle   int   // workers waiting on cond
	nDone  int64 // items finished
	total  int64
	err    error
}

// take returns the next item, or ok false when all are done or the run
// failed.
func (q *queue) take() (s, c int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.ready) == 0 && q.nDone < q.total && q.err == nil {
		q.idle++
		q.cond.Wait()
		q.idle--
	}
	if len(q.ready) == 0 || q.err != nil {
		return 0, 0, false
	}
	it := heap.Pop(&q.ready).(item)
	return it.s, it.c, true
}

// finish records that strip s finished its current chunk, makes ready
// what that allows and wakes workers for all but one of the ready items
// (the caller takes that one). It returns the items finished so far.
func (q *queue) finish(s int) int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.done[s]++
	q.taken[s] = false
	q.nDone++
	q.offer(s)
	if s+1 < q.ns {
		q.offer(s + 1)
	}
	if s > 0 {
		q.offer(s - 1)
	}
	if q.nDone == q.total {
		q.cond.Broadcast()
	} else {
		for range min(len(q.ready)-1, q.idle) {
			q.cond.Signal()
		}
	}
	return q.nDone
}

// offer queues strip s's next item if it is ready. q.mu is held.
func (q *queue) offer(s int) {
	c := q.done[s]
	if q.taken[s] || c >= q.nc ||
		s > 0 && q.done[s-1] <= c ||
		s+1 < q.ns && q.done[s+1] <= c-ringSlots {
		return
	}
	q.taken[s] = true
	heap.Push(&q.ready, item{s, c})
}

// fail stops the run with err.
func (q *queue) fail(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
	}
	q.cond.Broadcast()
}

// item is the work item (s, c): strip s over chunk c.
type item struct{ s, c int }

// items is a heap of items, lowest diagonal first and, on one diagonal,
// the highest strip (the one furthest on towards the last row).
type items []item

func (h items) Len() int { return len(h) }
func (h items) Less(i, j int) bool {
	di, dj := h[i].s+h[i].c, h[j].s+h[j].c
	return di < dj || di == dj && h[i].s > h[j].s
}
func (h items) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *items) Push(x any)   { *h = append(*h, x.(item)) }
func (h *items) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Bytes bounds what Solve allocates for sequences of lengths m and n over
// sigma distinct characters, with threads workers: the pattern's masks (one
// word per 64 characters of the longer sequence, whichever becomes the
// pattern, per distinct character), the solver's vectors, and the carries
// between strips (ringSlots chunks of at most 8,192 columns, two bits a
// column, per strip boundary; a strip holds at least 16 words), and 64 KiB
// of fixed structures. Executors
// check it against the available memory before calling Solve.
func Bytes(m, n int64, sigma, threads int) int64 {
	w := max(m, n)/64 + 1
	b := 8*int64(sigma+1)*w + 8*8*w
	if threads >= 2 {
		b += (w/16 + 1) * ringSlots * 2 * (8192 / 64) * 8
	}
	// Plus the solver's fixed structures (a character index, headers).
	return b + m + n + 64<<10
}
