package heldkarp

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// hostAvailable is the host memory a solve may take: MemAvailable of
// /proc/meminfo, or -1 where that cannot be read (the check is then
// skipped rather than guessed).
func hostAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return -1
	}
	return parseMemAvailable(b)
}

// parseMemAvailable reads the "MemAvailable: N kB" line; -1 when absent.
func parseMemAvailable(meminfo []byte) int64 {
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
