package heldkarp

import "github.com/dpgpu/dpgpu/internal/hostmem"

// hostAvailable is the host memory a solve may take: MemAvailable of
// /proc/meminfo, or -1 where that cannot be read (the check is then
// skipped rather than guessed).
func hostAvailable() int64 {
	if n, ok := hostmem.Available(); ok {
		return n
	}
	return -1
}

// byteSize renders a byte count for people: 3.7 GiB.
func byteSize(b int64) string { return hostmem.Bytes(b) }
