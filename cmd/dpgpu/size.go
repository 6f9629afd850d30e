package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/plan"
)

// parseBytes reads a memory size as people write it: 512M, 2G, 1.5GB,
// 300MiB, 65536 (bytes). K, M, G and T are powers of 1024, with or
// without a trailing B or iB.
func parseBytes(s string) (int64, bool) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := 1.0
	if n := len(t); n > 0 {
		if k := strings.IndexByte("KMGT", t[n-1]); k >= 0 {
			mult = math.Pow(1024, float64(k+1))
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(v > 0) || !(v*mult < math.MaxInt64) || v*mult < 1 {
		return 0, false
	}
	return int64(v * mult), true
}

// traceMemoryFlag is --traceback-memory of solve and check.
var traceMemoryFlag = &cli.StringFlag{Name: "traceback-memory", Usage: "what a traceback may keep (e.g. 512M, 8G; default " + hostmem.Bytes(plan.DefaultTraceMemory) + "): the whole grid when it fits, else checkpoint rows from which it recomputes the bands the walk crosses"}

// sizeFlag is the size flag name in bytes, 0 when it is not given (the
// default: --traceback-memory's plan.DefaultTraceMemory, --device-memory's
// what the GPU has free).
func sizeFlag(c *cli.Context, name string) (int64, error) {
	if !c.IsSet(name) {
		return 0, nil
	}
	s := c.String(name)
	n, ok := parseBytes(s)
	if !ok {
		return 0, usageErr("--%s %q: want a size such as 512M or 8G", name, s)
	}
	return n, nil
}

// deviceMemoryFlag is --device-memory of solve.
var deviceMemoryFlag = &cli.StringFlag{Name: "device-memory", Usage: "the GPU memory a traceback may keep there (e.g. 20G; default: what is free): a grid over it is traced back in bands that fit, one at a time"}
