package peers

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPeerPerf times the peers on the GPU at the sizes of issues #10 and #13
// and prints a table. It runs only with DPGPU_PEERS=1 (DPGPU_PEERS=big adds
// LCS 1,048,576^2). Every kernel is first checked on small random instances
// against the Go references; at the timed sizes the kernels that compute
// the same thing are checked against each other (LCS: the last column of
// the grid; interval DP: the whole table, warp against thread). Timings are
// medians of CUDA-event device time after one warm-up run: 5 runs, or 3
// where the warm-up took over 2 s.
//
// Shapes can be swept without rebuilding: DPGPU_PEERS_TILED="R,CW,TW,WPB ..."
// and DPGPU_PEERS_BITPAR="CW,TW,WPB ..." (space-separated lists).
func TestPeerPerf(t *testing.T) {
	mode := os.Getenv("DPGPU_PEERS")
	if mode == "" {
		t.Skip("set DPGPU_PEERS=1 (or big) to time the peer kernels on the GPU")
	}
	tiled, err := parseConfigs(os.Getenv("DPGPU_PEERS_TILED"), DefaultTiled, func(s string) (TiledConfig, error) {
		var c TiledConfig
		_, err := fmt.Sscanf(s, "%d,%d,%d,%d", &c.R, &c.CW, &c.TW, &c.WarpsPerBlock)
		if err == nil {
			err = c.validate()
		}
		return c, err
	})
	if err != nil {
		t.Fatalf("DPGPU_PEERS_TILED: %v", err)
	}
	bitpar, err := parseConfigs(os.Getenv("DPGPU_PEERS_BITPAR"), DefaultBitpar, func(s string) (BitparConfig, error) {
		var c BitparConfig
		_, err := fmt.Sscanf(s, "%d,%d,%d", &c.CW, &c.TW, &c.WarpsPerBlock)
		if err == nil {
			err = c.validate()
		}
		return c, err
	})
	if err != nil {
		t.Fatalf("DPGPU_PEERS_BITPAR: %v", err)
	}
	g := gpuDevice(t)
	start := time.Now()
	seed := testSeed(t)
	r := seeded(seed, 7)

	// Small instances first: a wrong kernel stops here, before its numbers.
	for _, c := range tiled {
		checkLCSTiled(t, g, randSeq(r, 3000, 4), randSeq(r, 2500, 4), c, 2)
	}
	for _, c := range bitpar {
		checkLCSBitpar(t, g, randSeq(r, 5000, 4), randSeq(r, 3000, 4), c, 2)
	}
	for _, v := range []Variant{Warp, Thread} {
		checkNussinov(t, g, randRNA(r, 300), v, 1)
		checkMatrixChain(t, g, randDims(r, 300, 100), v, 1)
	}
	if t.Failed() {
		t.FailNow()
	}

	dev := g.Device()
	maj, minor := g.NVRTCVersion()
	var rows []perfRow
	lcsSizes := []int{65536, 262144}
	if mode == "big" {
		lcsSizes = append(lcsSizes, 1048576)
	}
	for _, n := range lcsSizes {
		a, b := randSeq(r, n, 4), randSeq(r, n, 4)
		var want []int32 // the last column from the first kernel
		same := func(name string, col []int32, err error) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if want == nil {
				want = col
			} else if k := firstDiff(col, want); k >= 0 {
				t.Errorf("%s %d^2: LCS(a[:%d], b) = %d, the first kernel says %d", name, n, k+1, col[k], want[k])
			}
		}
		for _, c := range tiled {
			x, err := NewLCSTiled(g, a, b, c)
			if err != nil {
				t.Fatalf("lcs_tiled %s: %v", c, err)
			}
			row := timeRuns(t, "lcs_tiled "+c.String(), fmt.Sprintf("%d^2", n), x.Cells(), x.Run)
			row.note += kernelInfo(g, x.Module(), "lcs_tiled")
			rows = append(rows, row)
			col, err := x.LastColumn()
			same("lcs_tiled "+c.String(), col, err)
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range bitpar {
			x, err := NewLCSBitpar(g, a, b, c)
			if err != nil {
				t.Fatalf("lcs_bitpar %s: %v", c, err)
			}
			row := timeRuns(t, "lcs_bitpar "+c.String(), fmt.Sprintf("%d^2", n), x.Cells(), x.Run)
			row.note += kernelInfo(g, x.Module(), "lcs_bitpar")
			rows = append(rows, row)
			col, err := x.LastColumn()
			same("lcs_bitpar "+c.String(), col, err)
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range []int{4096, 8192} {
		seq, dims := randRNA(r, n), randDims(r, n, 100)
		for _, p := range []struct {
			name string
			make func(Variant) (*Interval, error)
		}{
			{"nussinov", func(v Variant) (*Interval, error) { return NewNussinov(g, seq, v) }},
			{"matrixchain", func(v Variant) (*Interval, error) { return NewMatrixChain(g, dims, v) }},
		} {
			var want []int64
			for _, v := range []Variant{Warp, Thread} {
				x, err := p.make(v)
				if err != nil {
					t.Fatalf("%s %s n=%d: %v", p.name, v, n, err)
				}
				row := timeRuns(t, x.Kernel(), fmt.Sprintf("n=%d", n), x.Cells(), x.Run)
				row.note = fmt.Sprintf("%.2f Gterm/s; ", float64(x.Terms())/row.median/1e6) + row.note + kernelInfo(g, x.Module(), x.Kernel())
				rows = append(rows, row)
				tab, err := x.Table()
				if err != nil {
					t.Fatalf("%s: %v", x.Kernel(), err)
				}
				if want == nil {
					want = tab
				} else if k := firstDiff(tab, want); k >= 0 {
					t.Errorf("%s n=%d: cell (%d, %d) = %d, the warp kernel says %d", x.Kernel(), n, k/n, k%n, tab[k], want[k])
				}
				if err := x.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\npeers on %s, NVRTC %d.%d, seed %d, %.0f s in all\n", dev, maj, minor, seed, time.Since(start).Seconds())
	fmt.Fprintf(&b, "%-34s %-10s %16s %10s %10s %10s  %s\n", "kernel", "size", "cells", "median ms", "min ms", "GCUPS", "note")
	for _, row := range rows {
		fmt.Fprintf(&b, "%-34s %-10s %16d %10.2f %10.2f %10.1f  %s\n", row.kernel, row.size, row.cells, row.median, row.min, float64(row.cells)/row.median/1e6, row.note)
	}
	fmt.Print(b.String())
}

type perfRow struct {
	kernel, size string
	cells        int64
	median, min  float64 // ms
	note         string
}

// timeRuns runs once to warm up, then 5 times (3 when the warm-up took over
// 2 s); every run must give the warm-up's answer.
func timeRuns(t *testing.T, kernel, size string, cells int64, run func() (Result, error)) perfRow {
	t.Helper()
	first, err := run()
	if err != nil {
		t.Fatalf("%s %s: %v", kernel, size, err)
	}
	reps := 5
	if first.Ms > 2000 {
		reps = 3
	}
	var ms []float64
	for range reps {
		res, err := run()
		if err != nil {
			t.Fatalf("%s %s: %v", kernel, size, err)
		}
		if res.Answer != first.Answer {
			t.Errorf("%s %s: answers differ between runs: %d and %d", kernel, size, first.Answer, res.Answer)
		}
		ms = append(ms, res.Ms)
	}
	slices.Sort(ms)
	row := perfRow{kernel: kernel, size: size, cells: cells, median: ms[len(ms)/2], min: ms[0],
		note: fmt.Sprintf("answer %d, %d runs, warm-up %.1f ms;", first.Answer, reps, first.Ms)}
	t.Logf("%s %s: median %.2f ms", kernel, size, row.median)
	return row
}

// kernelInfo is the kernel's registers and local (spilled) bytes.
func kernelInfo(g *GPU, m Module, kernel string) string {
	fi, err := g.Info(m, kernel)
	if err != nil {
		return " " + err.Error()
	}
	return fmt.Sprintf(" %d regs, %d B local", fi.Regs, fi.LocalBytes)
}

// parseConfigs reads a space-separated list of shapes, def when empty.
func parseConfigs[C any](s string, def C, parse func(string) (C, error)) ([]C, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return []C{def}, nil
	}
	out := make([]C, len(f))
	for k, w := range f {
		c, err := parse(w)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", w, err)
		}
		out[k] = c
	}
	return out, nil
}
