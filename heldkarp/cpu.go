package heldkarp

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// value is the type of the DP's values: int32 when every partial path fits,
// which halves the memory traffic, else int64.
type value interface{ ~int32 | ~int64 }

// SolveCPU finds an optimal tour of the n cities whose distances are dist
// (row-major n x n: dist[i*n+j] is the cost of going from i to j; it need
// not be symmetric; the diagonal is never used). Each layer's subsets are
// split across threads goroutines (threads <= 0: one per core). progress,
// when not nil, is called from the calling goroutine after every layer and
// every 100 ms within one, with the states done so far and the total; the
// last call reports done == total. The solve stops with an error wrapping
// ctx.Err() when ctx is cancelled, and refuses (ErrTooLarge, with the
// numbers) an instance that needs more host memory than MemAvailable.
// A single city has the tour [0] of length 0.
func SolveCPU(ctx context.Context, dist []int64, n int, threads int, progress func(done, total int64)) (*Result, error) {
	return solveCPU(ctx, dist, n, threads, progress, hostAvailable())
}

// solveCPU is SolveCPU with the host memory available given (negative:
// unknown, no check).
func solveCPU(ctx context.Context, dist []int64, n int, threads int, progress func(done, total int64), avail int64) (*Result, error) {
	start := time.Now()
	in, done, err := begin(ctx, dist, n, start)
	if done != nil || err != nil {
		return done, err
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	lay := newLayout(n)
	mem := lay.memory(in.width)
	if avail >= 0 && mem.host > avail {
		return nil, fmt.Errorf("heldkarp: %d cities need %s of host memory (%s of predecessor bytes for %d states + %s for two layers of %d-byte values), only %s available; at most %d cities fit: %w",
			n, byteSize(mem.host), byteSize(mem.args), lay.states(), byteSize(mem.values), in.width, byteSize(avail), maxFitting(avail, in.width, false), ErrTooLarge)
	}
	var res *Result
	if in.width == 4 {
		res, err = sweepCPU[int32](ctx, lay, in, threads, progress)
	} else {
		res, err = sweepCPU[int64](ctx, lay, in, threads, progress)
	}
	if err != nil {
		return nil, err
	}
	res.PeakBytes = mem.host
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// begin is how both solvers start: the instance checked (check), ctx not
// yet cancelled, and a single city answered at once with the tour [0]
// (done, the Result to return, timed from start).
func begin(ctx context.Context, dist []int64, n int, start time.Time) (in *instance, done *Result, err error) {
	if in, err = check(dist, n); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("heldkarp: %w", err)
	}
	if n == 1 {
		return nil, &Result{Tour: []int{0}, Seconds: time.Since(start).Seconds()}, nil
	}
	return in, nil, nil
}

// maxFitting is the largest n whose solve fits in avail bytes with values of
// the given width, on the host of the CPU solver or on the device.
func maxFitting(avail, width int64, device bool) int {
	best := 1
	for n := 2; n <= MaxCities; n++ {
		mem := newLayout(n).memory(width)
		need := mem.host
		if device {
			need = mem.device
		}
		if need > avail || need == math.MaxInt64 {
			break
		}
		best = n
	}
	return best
}

// cpuSweep holds one CPU solve's buffers.
type cpuSweep[T value] struct {
	lay       *layout
	n         int
	ct        []T // transposed matrix: ct[i*n+j] = c[j][i], so a state reads one row
	prev, cur []T
	args      [][]byte // args[k][rank*k+p]: predecessor city of the state
	// packed: every value*256 fits an int64 (all of int32's), so that a
	// state's minimum is one branch-free min over value*256 + city
	// (subsets): fri26 11.0 s -> 6.3 s on one thread, the branches of a
	// running minimum being mispredicted.
	packed bool
}

func sweepCPU[T value](ctx context.Context, lay *layout, in *instance, threads int, progress func(done, total int64)) (*Result, error) {
	startSweep := time.Now()
	n, m := lay.n, lay.m
	sw := &cpuSweep[T]{lay: lay, n: n, packed: in.bound < 1<<54}
	sw.ct = make([]T, n*n)
	for i := range n {
		for j := range n {
			sw.ct[i*n+j] = T(in.dist[j*n+i])
		}
	}
	ml := lay.maxLayer()
	sw.prev = make([]T, ml)
	sw.cur = make([]T, ml)
	sw.args = make([][]byte, m+1)
	for k := 1; k <= m; k++ {
		sw.args[k] = make([]byte, lay.layerStates(k))
	}
	total := lay.states()
	var done atomic.Int64

	// Layer 1: S[{i}][i] = c[0][i]; the set {i} has rank i-1.
	for i := 1; i <= m; i++ {
		sw.prev[i-1] = sw.ct[i*n]
	}
	done.Add(int64(m))
	for k := 2; k <= m; k++ {
		if err := sw.layer(ctx, k, threads, &done, total, progress); err != nil {
			return nil, err
		}
		sw.prev, sw.cur = sw.cur, sw.prev
	}
	if progress != nil {
		progress(total, total)
	}

	// Close the tour: the full set has rank 0, so state p is its p-th city.
	best, last := sw.prev[0]+sw.ct[1], 1
	for p := 1; p < m; p++ {
		if v := sw.prev[p] + sw.ct[p+1]; v < best {
			best, last = v, p+1
		}
	}
	tour, err := lay.readTour(last, func(k int, idx int64) byte { return sw.args[k][idx] })
	if err != nil {
		return nil, err
	}
	if got, err := tourLength(in.dist, n, tour); err != nil || got != int64(best) {
		return nil, fmt.Errorf("heldkarp: internal error: tour %v has length %d, the DP says %d (%v)", tour, got, best, err)
	}
	return &Result{Length: int64(best), Tour: tour, States: total, ComputeSeconds: time.Since(startSweep).Seconds()}, nil
}

// layer computes layer k from layer k-1 (sw.prev into sw.cur). Workers take
// chunks of consecutive subset ranks from a shared counter.
func (sw *cpuSweep[T]) layer(ctx context.Context, k, threads int, done *atomic.Int64, total int64, progress func(done, total int64)) error {
	subsets := sw.lay.binom[sw.lay.m][k]
	chunk := max(1, min(subsets/int64(threads*16), 1<<14))
	chunks := (subsets + chunk - 1) / chunk
	workers := int(min(int64(threads), chunks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c := next.Add(1) - 1
				if c >= chunks {
					return
				}
				r0 := c * chunk
				r1 := min(r0+chunk, subsets)
				sw.subsets(k, r0, r1)
				done.Add((r1 - r0) * int64(k))
			}
		}()
	}
	if progress == nil {
		wg.Wait()
	} else {
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
	wait:
		for {
			select {
			case <-finished:
				break wait
			case <-tick.C:
				progress(done.Load(), total)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("heldkarp: stopped in layer %d of %d: %w", k, sw.lay.m, err)
	}
	if progress != nil && k < sw.lay.m { // the last report comes from the caller
		progress(done.Load(), total)
	}
	return nil
}

// subsets computes the states of the k-subsets with ranks r0 .. r1-1.
func (sw *cpuSweep[T]) subsets(k int, r0, r1 int64) {
	n := sw.n
	binom := sw.lay.binom
	prev, cur, arg := sw.prev, sw.cur, sw.args[k]
	packed := sw.packed
	var city [64]int       // the subset's cities, ascending (1-based: element e is city e+1)
	var rankDrop [64]int64 // rank of the subset without its p-th city
	mask := sw.lay.unrank(r0, k)
	for r := r0; r < r1; r++ {
		mm := mask
		for t := range k {
			city[t] = bits.TrailingZeros64(mm) + 1
			mm &= mm - 1
		}
		// Dropping the p-th city keeps the terms C(e_t, t+1) of the cities
		// before it and lowers by one the size index of those after it.
		var pre int64
		for p := range k {
			rankDrop[p] = pre
			pre += binom[city[p]-1][p+1]
		}
		var suf int64
		for p := k - 1; p >= 0; p-- {
			rankDrop[p] += suf
			suf += binom[city[p]-1][p]
		}
		out := r * int64(k)
		for p := range k {
			i := city[p]
			row := prev[rankDrop[p]*int64(k-1):][:k-1]
			crow := sw.ct[i*n:][:n]
			// Predecessor j: the q-th city of the smaller set, which is
			// city[q] before p and city[q+1] from p on.
			if packed {
				// value*256 + j: one branch-free minimum gives the
				// least value and, among equal ones, the first j.
				best := int64(math.MaxInt64)
				for q := 0; q < p; q++ {
					best = min(best, int64(row[q]+crow[city[q]])<<8|int64(city[q]))
				}
				for q := p; q < k-1; q++ {
					best = min(best, int64(row[q]+crow[city[q+1]])<<8|int64(city[q+1]))
				}
				cur[out+int64(p)] = T(best >> 8)
				arg[out+int64(p)] = byte(best)
				continue
			}
			var best T
			bestJ := 0
			if p > 0 {
				best, bestJ = row[0]+crow[city[0]], city[0]
			} else {
				best, bestJ = row[0]+crow[city[1]], city[1]
			}
			for q := 1; q < p; q++ {
				if v := row[q] + crow[city[q]]; v < best {
					best, bestJ = v, city[q]
				}
			}
			for q := max(p, 1); q < k-1; q++ {
				if v := row[q] + crow[city[q+1]]; v < best {
					best, bestJ = v, city[q+1]
				}
			}
			cur[out+int64(p)] = best
			arg[out+int64(p)] = byte(bestJ)
		}
		if r+1 < r1 {
			mask = nextColex(mask)
		}
	}
}
