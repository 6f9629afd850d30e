package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/plan"
)

// stager copies the grid back while it is computed (maintain). The sweep
// is cut into batches; batch n is computed into device buffer n%2 (for the
// line kernel, half n%2 of the line ring), then copied on the second
// stream into pinned buffer n%2, then moved into the grid by CPU workers.
// Events order the streams: batch n's compute waits for the copy of batch
// n-2 out of the same device buffer, and its copy waits for its compute.
// The host waits for the copy of batch n-1 only after queueing batch n, so
// compute, copy and scatter of three consecutive batches overlap.
type stager struct {
	r        *run
	dev      [2]cuda.DevicePtr // staging on the device (tile kernel)
	host     [2]*cuda.HostBuffer
	computed [2]*cuda.Event
	copied   [2]*cuda.Event
	scatter  [2]sync.WaitGroup
	prev     *pendingBatch
	mu       sync.Mutex
	err      error

	// For DPGPU_TRACE: nanoseconds the CPU workers spent moving batches,
	// and the host waited for workers and for copies.
	busy, waitScatter, waitCopy atomic.Int64
}

type pendingBatch struct {
	half  int
	bytes int64
	fn    func([]byte)
}

// staging returns pinned staging buffer h of at least bytes, kept by the
// executor from run to run: pinning memory is slow (tens of ms per 100 MB).
func (e *Executor) staging(h int, bytes int64) (*cuda.HostBuffer, error) {
	if b := e.stage[h]; b != nil && b.Len() >= bytes {
		return b, nil
	}
	if e.stage[h] != nil {
		// Not freed now: a kernel may be running that waits for this
		// run's copies (keepStrips pins its buffers after the launch),
		// and freeing pinned memory waits for the device: a deadlock
		// (TestCancelMaintain hung so after another test had left a
		// smaller buffer). The next run frees it before it launches.
		e.retired = append(e.retired, e.stage[h])
		e.stage[h] = nil
	}
	b, err := e.ctx.HostAlloc(bytes)
	if err != nil {
		return nil, outOfMemory(fmt.Errorf("pinning %s of host memory for copying the grid back: %w", mb(bytes), err))
	}
	e.stage[h] = b
	return b, nil
}

// freeRetired frees the staging buffers runs outgrew; called where no
// kernel of the executor runs (a run's start, Close).
func (e *Executor) freeRetired() error {
	var errs []error
	for _, b := range e.retired {
		errs = append(errs, b.Free())
	}
	e.retired = nil
	return errors.Join(errs...)
}

// newStager allocates two pinned buffers of half bytes and, for the tile
// kernel (withDev), two device buffers.
func (r *run) newStager(half int64, withDev bool) (*stager, error) {
	s := &stager{r: r}
	r.st = s
	for h := 0; h < 2; h++ {
		var err error
		if withDev {
			if s.dev[h], err = r.alloc("maintain staging", half); err != nil {
				return nil, err
			}
		}
		if s.host[h], err = r.e.staging(h, half); err != nil {
			return nil, err
		}
		if s.computed[h], err = r.waitEvent(); err != nil {
			return nil, err
		}
		if s.copied[h], err = r.waitEvent(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// begin is called before batch n's first launch.
func (s *stager) begin(n int) error {
	if n < 2 {
		return nil
	}
	return s.r.e.s1.WaitEvent(s.copied[n%2])
}

// end queues, after the work queued on the first stream so far, the copy
// of batch n (bytes at src) and hands batch n-1, once copied, to the CPU
// workers; fn moves a batch's bytes into the grid.
func (s *stager) end(n int, src cuda.DevicePtr, bytes int64, fn func([]byte)) error {
	h := n % 2
	if err := s.computed[h].Record(s.r.e.s1); err != nil {
		return err
	}
	if err := s.r.e.s2.WaitEvent(s.computed[h]); err != nil {
		return err
	}
	return s.copyOut(n, src, bytes, fn)
}

// copyOut queues the copy of batch n (bytes at src, computed already) on
// the second stream and hands batch n-1, once copied, to the CPU workers.
func (s *stager) copyOut(n int, src cuda.DevicePtr, bytes int64, fn func([]byte)) error {
	r := s.r
	h := n % 2
	t := time.Now()
	s.scatter[h].Wait() // pinned buffer h is free once batch n-2 is in the grid
	s.waitScatter.Add(int64(time.Since(t)))
	if err := s.failed(); err != nil {
		return err
	}
	if err := r.e.ctx.CopyDtoHAsync(s.host[h].Ptr(), src, bytes, r.e.s2); err != nil {
		return err
	}
	if err := s.copied[h].Record(r.e.s2); err != nil {
		return err
	}
	if err := s.drain(); err != nil {
		return err
	}
	s.prev = &pendingBatch{half: h, bytes: bytes, fn: fn}
	return nil
}

// drain waits for the pending batch's copy and starts its scatter.
func (s *stager) drain() error {
	b := s.prev
	if b == nil {
		return nil
	}
	s.prev = nil
	t := time.Now()
	if err := s.copied[b.half].Synchronize(); err != nil {
		return err
	}
	s.waitCopy.Add(int64(time.Since(t)))
	data := s.host[b.half].Bytes()[:b.bytes]
	s.scatter[b.half].Add(1)
	go func() {
		defer s.scatter[b.half].Done()
		defer func() {
			if e := recover(); e != nil {
				s.mu.Lock()
				s.err = &panicError{e}
				s.mu.Unlock()
			}
		}()
		t := time.Now()
		b.fn(data)
		s.busy.Add(int64(time.Since(t)))
	}()
	return nil
}

func (s *stager) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// finish drains the last batch and waits for every scatter.
func (s *stager) finish() error {
	err := s.drain()
	s.scatter[0].Wait()
	s.scatter[1].Wait()
	ms := func(v *atomic.Int64) float64 { return float64(v.Load()) / 1e6 }
	s.r.trace.Mark(fmt.Sprintf("copy-back (workers busy %.1f ms, host waited %.1f ms for workers, %.1f ms for copies)",
		ms(&s.busy), ms(&s.waitScatter), ms(&s.waitCopy)))
	if err != nil {
		return err
	}
	return s.failed()
}

type panicError struct{ v any }

func (e *panicError) Error() string {
	return "gpu: copying the grid back: " + strconv.Quote(strings.TrimSpace(toString(e.v)))
}

func toString(v any) string {
	if s, ok := v.(interface{ Error() string }); ok {
		return s.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "panic"
}

// parallel runs f(lo, hi) over [0, n) split among the CPUs.
func parallel(n int64, f func(lo, hi int64)) { hostmem.Parallel(runtime.NumCPU(), n, f) }

// view reinterprets staged bytes as cells.
func view[T any](b []byte) []T {
	var z T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// lineScatter moves count lines from first (sweep order) into the grid.
// Cells are moved as words of the cell's size, never read, so any cell
// type of 1, 2, 4 or 8 bytes is moved the same way.
func (r *run) lineScatter(first, count int64) func([]byte) {
	switch r.p.CellType.Size() {
	case 1:
		return func(b []byte) { scatterLines(r, backend.Cells[uint8](r.grid), view[uint8](b), first, count) }
	case 2:
		return func(b []byte) { scatterLines(r, backend.Cells[uint16](r.grid), view[uint16](b), first, count) }
	case 4:
		return func(b []byte) { scatterLines(r, backend.Cells[uint32](r.grid), view[uint32](b), first, count) }
	}
	return func(b []byte) { scatterLines(r, backend.Cells[uint64](r.grid), view[uint64](b), first, count) }
}

func scatterLines[T any](r *run, grid, src []T, first, count int64) {
	pr := r.prog
	R, C := r.p.Rows, r.p.Cols
	real := func(L int64) int64 {
		if pr.Backward {
			return pr.Lines - 1 - L
		}
		return L
	}
	if pr.Schedule == plan.Rows {
		parallel(count, func(lo, hi int64) {
			for k := lo; k < hi; k++ {
				i := real(first + k)
				copy(grid[i*C:(i+1)*C], src[k*C:(k+1)*C])
			}
		})
		return
	}
	// Columns: line k is column real(first+k), R cells.
	parallel(R, func(lo, hi int64) {
		for i := lo; i < hi; i++ {
			row := grid[i*C : (i+1)*C]
			for k := int64(0); k < count; k++ {
				row[real(first+k)] = src[k*R+i]
			}
		}
	})
}

// rowsScatter moves a batch of whole rows into the grid at byte offset at.
func (r *run) rowsScatter(at int64) func([]byte) {
	return func(b []byte) {
		dst := r.grid.Bytes()[at : at+int64(len(b))]
		hostmem.Parallel(r.e.copyWorkers(), int64(len(b)), func(lo, hi int64) { copy(dst[lo:hi], b[lo:hi]) })
	}
}

// tileScatter moves a batch of staged tiles into the grid, as lineScatter
// moves lines.
func (r *run) tileScatter(batch []tileRun) func([]byte) {
	switch r.p.CellType.Size() {
	case 1:
		return func(b []byte) { scatterTiles(r, backend.Cells[uint8](r.grid), view[uint8](b), batch) }
	case 2:
		return func(b []byte) { scatterTiles(r, backend.Cells[uint16](r.grid), view[uint16](b), batch) }
	case 4:
		return func(b []byte) { scatterTiles(r, backend.Cells[uint32](r.grid), view[uint32](b), batch) }
	}
	return func(b []byte) { scatterTiles(r, backend.Cells[uint64](r.grid), view[uint64](b), batch) }
}

func scatterTiles[T any](r *run, grid, src []T, batch []tileRun) {
	pr := r.prog
	R, C := r.p.Rows, r.p.Cols
	TH, TW := int64(pr.TileH), int64(pr.TileW)
	cs := r.cellBytes()
	type tile struct{ ti, tj, at int64 }
	var tiles []tile
	for _, b := range batch {
		for k := int64(0); k < b.count; k++ {
			ti := b.tiLo + k
			tiles = append(tiles, tile{ti, b.d - ti, b.off/cs + k*TH*TW})
		}
	}
	parallel(int64(len(tiles)), func(lo, hi int64) {
		for _, t := range tiles[lo:hi] {
			i0, j0 := t.ti*TH, t.tj*TW
			w := min(TW, C-j0)
			for rr := int64(0); rr < TH && i0+rr < R; rr++ {
				s := src[t.at+rr*TW : t.at+rr*TW+w]
				ip := i0 + rr
				if !pr.Backward {
					copy(grid[ip*C+j0:ip*C+j0+w], s)
					continue
				}
				row := grid[(R-1-ip)*C : (R-ip)*C]
				for k := int64(0); k < w; k++ {
					row[C-1-j0-k] = s[k]
				}
			}
		}
	})
}

// copyWorkers is how many CPU workers move a staged batch of whole rows
// into the grid: all cores but two (the thread driving the GPU and the Go
// runtime's); the copy is bound by memory bandwidth long before that.
func (e *Executor) copyWorkers() int {
	if e.cfg.copyWorkers > 0 {
		return e.cfg.copyWorkers
	}
	return max(runtime.NumCPU()-2, 1)
}
