package heldkarp

import (
	"fmt"

	"github.com/dpgpu/dpgpu/internal/hostmem"
)

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
func byteSize(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 5; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
