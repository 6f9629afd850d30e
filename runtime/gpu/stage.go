package gpu

import (
	"bufio"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/runtime"
	"github.com/dpgpu/dpgpu/runtime/cuda"
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
		e.stage[h].Free()
		e.stage[h] = nil
	}
	b, err := e.ctx.HostAlloc(bytes)
	if err != nil {
		return nil, fmt.Errorf("pinning %s of host memory for copying the grid back: %w", mb(bytes), err)
	}
	e.stage[h] = b
	return b, nil
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
		if s.computed[h], err = r.event(); err != nil {
			return nil, err
		}
		if s.copied[h], err = r.event(); err != nil {
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

// end queues the copy of batch n (bytes at src) and hands batch n-1, once
// copied, to the CPU workers; fn moves a batch's bytes into the grid.
func (s *stager) end(n int, src cuda.DevicePtr, bytes int64, fn func([]byte)) error {
	r := s.r
	h := n % 2
	if err := s.computed[h].Record(r.e.s1); err != nil {
		return err
	}
	s.scatter[h].Wait() // pinned buffer h is free once batch n-2 is in the grid
	if err := s.failed(); err != nil {
		return err
	}
	if err := r.e.s2.WaitEvent(s.computed[h]); err != nil {
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
	if err := s.copied[b.half].Synchronize(); err != nil {
		return err
	}
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
		b.fn(data)
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
func parallel(n int64, f func(lo, hi int64)) {
	workers := int64(goruntime.NumCPU())
	if n < 64 || workers < 2 {
		f(0, n)
		return
	}
	workers = min(workers, n)
	var wg sync.WaitGroup
	for w := int64(0); w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// view reinterprets staged bytes as cells.
func view[T any](b []byte) []T {
	var z T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// lineScatter moves count lines from first (sweep order) into the grid.
func (r *run) lineScatter(first, count int64) func([]byte) {
	switch r.p.CellType {
	case ir.Int:
		return func(b []byte) { scatterLines(r, r.grid.I32, view[int32](b), first, count) }
	case ir.Long:
		return func(b []byte) { scatterLines(r, r.grid.I64, view[int64](b), first, count) }
	case ir.Float:
		return func(b []byte) { scatterLines(r, r.grid.F32, view[float32](b), first, count) }
	}
	return func(b []byte) { scatterLines(r, r.grid.F64, view[float64](b), first, count) }
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

// tileScatter moves a batch of staged tiles into the grid.
func (r *run) tileScatter(batch []tileRun) func([]byte) {
	switch r.p.CellType {
	case ir.Int:
		return func(b []byte) { scatterTiles(r, r.grid.I32, view[int32](b), batch) }
	case ir.Long:
		return func(b []byte) { scatterTiles(r, r.grid.I64, view[int64](b), batch) }
	case ir.Float:
		return func(b []byte) { scatterTiles(r, r.grid.F32, view[float32](b), batch) }
	}
	return func(b []byte) { scatterTiles(r, r.grid.F64, view[float64](b), batch) }
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

// memAvailable reads MemAvailable from /proc/meminfo; ok is false where
// it cannot (then nothing is checked).
func memAvailable() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, false
			}
			return kb * 1024, true
		}
	}
	return 0, false
}

// hugePages asks the kernel to back a kept grid with transparent huge
// pages: the grid is written once by the copy back, and first touches of
// gigabytes in 4 KB pages cost more than the copy itself. It does nothing
// where transparent huge pages are off.
func hugePages(g *runtime.Grid) {
	var p unsafe.Pointer
	var n int64
	switch {
	case g.I32 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.I32)), int64(len(g.I32))*4
	case g.I64 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.I64)), int64(len(g.I64))*8
	case g.F32 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.F32)), int64(len(g.F32))*4
	case g.F64 != nil:
		p, n = unsafe.Pointer(unsafe.SliceData(g.F64)), int64(len(g.F64))*8
	}
	const page = 2 << 20
	if n < 4*page {
		return
	}
	start := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + uintptr(n)) &^ (page - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	_ = syscall.Madvise(b, madvHugePage)
}

// madvHugePage is MADV_HUGEPAGE (linux/mman.h).
const madvHugePage = 14
