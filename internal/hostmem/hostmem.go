// Package hostmem knows about host memory: how much is available, and how
// to allocate and prepare large buffers (the grid that maintain keeps, the
// pinned buffers the GPU copies it through).
//
// Two costs dominate such buffers on Linux, and both are paid on first
// touch: the page faults (one per 4 KB page unless transparent huge pages
// back the memory) and zeroing. On the H100 machine (16 cores), touching
// 4.3 GB costs 2.7 s on one thread with 4 KB pages, 0.73 s with huge pages
// and 0.10 s with huge pages on 16 threads. So large buffers ask for huge
// pages (MADV_HUGEPAGE; a no-op where they are off) and are touched in
// parallel before the data arrives.
package hostmem

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// page is the touch stride: the smallest page size.
const page = 4 << 10

// hugePage is the size of a transparent huge page on x86-64 and arm64 (4 KB
// base pages).
const hugePage = 2 << 20

// madvHugePage is MADV_HUGEPAGE (linux/mman.h).
const madvHugePage = 14

// Map returns bytes of zeroed anonymous memory, outside the Go heap,
// advised for huge pages and touched in parallel. Free it with Unmap.
func Map(bytes int64) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, int(bytes), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	Advise(b)
	Touch(b)
	return b, nil
}

// Unmap releases memory from Map.
func Unmap(b []byte) error { return syscall.Munmap(b) }

// Advise asks Linux to back the whole huge pages inside b with huge pages.
// It does nothing on other systems, for buffers under a few huge pages, or
// where the kernel refuses.
func Advise(b []byte) {
	if runtime.GOOS != "linux" || len(b) < 4*hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], madvHugePage)
}

// madvPopulateWrite is MADV_POPULATE_WRITE (linux/mman.h, Linux 5.14):
// the kernel faults the pages in, writable, without writing to them.
const madvPopulateWrite = 23

// Prefault faults in the pages of b, a fresh buffer that the caller is
// about to fill front to back, on another goroutine and a piece at a time
// (the kernel's MADV_POPULATE_WRITE, which leaves what is already written
// as it is, so filling may go on meanwhile): the page faults and the
// kernel's zeroing run beside the filling instead of inside it. It returns
// at once; where the kernel lacks the call, it does nothing.
func Prefault(b []byte) {
	if runtime.GOOS != "linux" || len(b) < 4*hugePage {
		return
	}
	go func() {
		const piece = 8 << 20
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		start := (p + page - 1) &^ (page - 1)
		end := (p + uintptr(len(b))) &^ (page - 1)
		for at := start; at < end; at += piece {
			n := min(piece, end-at)
			if err := syscall.Madvise(b[at-p:at-p+n], madvPopulateWrite); err != nil {
				return
			}
		}
		runtime.KeepAlive(b)
	}()
}

// Touch writes a zero into every page of b, which must be zeroed memory
// (fresh from the system or from make), on up to one goroutine per CPU
// (one per 16 MB at least), so that the page faults happen now and in
// parallel rather than one by one when the buffer is filled.
func Touch(b []byte) {
	pages := (int64(len(b)) + page - 1) / page
	workers := min(runtime.NumCPU(), max(len(b)>>24, 1))
	Parallel(workers, pages, func(lo, hi int64) { touch(b, lo, hi) })
}

// Parallel runs f(lo, hi) over [0, n) cut into one contiguous range per
// worker, on up to workers goroutines (one where n is under 64), and
// returns when all are done: for passes over large buffers.
func Parallel(workers int, n int64, f func(lo, hi int64)) {
	w := min(int64(workers), n)
	if n < 64 || w < 2 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for k := int64(0); k < w; k++ {
		lo, hi := n*k/w, n*(k+1)/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

func touch(b []byte, lo, hi int64) {
	for k := lo; k < hi; k++ {
		b[k*page] = 0
	}
}

// Available is MemAvailable of /proc/meminfo in bytes; ok is false where
// it cannot be read (callers then skip their check rather than guess).
func Available() (n int64, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	n = parseAvailable(b)
	return n, n >= 0
}

// parseAvailable reads the "MemAvailable: N kB" line; -1 when absent.
func parseAvailable(meminfo []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 || string(f[0]) != "MemAvailable:" {
			continue
		}
		v, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil || v < 0 {
			return -1
		}
		if len(f) >= 3 && string(f[2]) == "kB" {
			v *= 1024
		}
		return v
	}
	return -1
}
