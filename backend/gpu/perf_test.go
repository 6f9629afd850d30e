package gpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// The speed measurements run only with DPGPU_PERF=1 (scripts/device-check.sh
// sets it): they need a GPU and minutes. Each times the kernels with CUDA
// events (Stats.ComputeSeconds) after a warm-up run, on fresh random data,
// and reports the median of several runs. DPGPU_PERF_SCALE=k divides the
// sizes by k (a quick look).

type perfRow struct {
	name          string
	cells         int64
	compute       float64 // median seconds, CUDA events
	wall          float64 // median seconds, whole Run
	compile       float64
	cachedCompile bool
	note          string
	answer        ir.Value
}

func (r perfRow) String() string {
	return fmt.Sprintf("%-34s %16d %9.1f %10.2f %10.2f %8.1f  %s", r.name, r.cells, float64(r.cells)/r.compute/1e9, r.compute*1e3, r.wall*1e3, r.compile*1e3, r.note)
}

func perfScale(t *testing.T) int64 {
	if os.Getenv("DPGPU_PERF") == "" {
		t.Skip("set DPGPU_PERF=1 to measure speed (needs a GPU)")
	}
	if s := os.Getenv("DPGPU_PERF_SCALE"); s != "" {
		k, err := strconv.ParseInt(s, 10, 64)
		if err == nil && k > 0 {
			return k
		}
	}
	return 1
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// measure runs p once to warm up and then n times.
func measure(t *testing.T, e *Executor, name string, p *ir.Problem, pl *plan.Plan, cg codegen.Options, opt backend.Options, n int) perfRow {
	t.Helper()
	old := e.cfg.codegen
	e.cfg.codegen = cg
	defer func() { e.cfg.codegen = old }()
	first, err := e.Run(context.Background(), p, pl, opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var comp, wall []float64
	var last *backend.Result
	for k := 0; k < n; k++ {
		res, err := e.Run(context.Background(), p, pl, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Answer != first.Answer {
			t.Errorf("%s: answers differ between runs: %v and %v", name, first.Answer, res.Answer)
		}
		comp = append(comp, res.Stats.ComputeSeconds)
		wall = append(wall, res.Stats.Seconds)
		last = res
	}
	info := ""
	if dir := os.Getenv("DPGPU_CUBIN_DIR"); dir != "" {
		// Each measured program's CUBIN and source, for disassembly.
		if prog, err := e.Program(p, pl, opt); err == nil {
			if cubin, _, _, err := e.cache.Compile(e.nvrtc, prog.Source, prog.Name, e.dev.Arch(), prog.Options); err == nil {
				f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
				os.WriteFile(f+".cubin", cubin, 0o644)
				os.WriteFile(f+".cu", []byte(prog.Source), 0o644)
			}
		}
	}
	if prog, err := e.Program(p, pl, opt); err == nil {
		if m, _, err := e.load(prog); err == nil {
			for name, f := range m.funcs {
				if fi, err := f.Info(); err == nil {
					info += fmt.Sprintf(" %s: %d regs %d local", name, fi.Regs, fi.LocalBytes)
				}
			}
		}
	}
	row := perfRow{name: name, cells: p.Cells(), compute: median(comp), wall: median(wall), compile: first.Stats.CompileSeconds,
		note: fmt.Sprintf("answer %v, cached compile %.1f ms;%s", first.Answer, last.Stats.CompileSeconds*1e3, info), answer: first.Answer}
	t.Log(row)
	return row
}

func lcsProblem(t *testing.T, n, m int64) (*ir.Problem, *plan.Plan) {
	r := dptest.Rand(t)
	return dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": dptest.DNA(r, int(n)), "b.txt": dptest.DNA(r, int(m))}))
}

// perfFloors are the kernel speeds recorded on the H100 in
// docs/performance.md (median GCUPS of the named row at full size) less a
// margin of about 8% for the machine's run-to-run spread: a change that
// falls below one is a regression, whatever the run-to-run equality of the
// answers says. They are checked only at full size on an H100.
var perfFloors = map[string]float64{
	"lcs 262144^2 strip default":                  890, // 957–962 measured
	"lcs 65536^2 strip rpt4 w4":                   255, // 278–280
	"knapsack 10000x1000000 line512":              134, // 146–150
	"lcs 32768^2 maintain 0":                      125, // 137–138
	"lcs 32768^2 maintain 1 stage 64MB w0 slots0": 53,  // 58.3–58.8
}

// checkFloors fails the rows that are slower than their recorded floor.
func checkFloors(t *testing.T, e *Executor, scale int64, rows []perfRow) {
	t.Helper()
	if scale != 1 || !strings.Contains(e.Device(), "H100") {
		t.Logf("speed floors not checked: they were recorded at full size on an H100 (scale %d, %s)", scale, e.Device())
		return
	}
	for _, r := range rows {
		floor, ok := perfFloors[r.name]
		if !ok {
			continue
		}
		if got := float64(r.cells) / r.compute / 1e9; got < floor {
			t.Errorf("%s: %.1f GCUPS, below the recorded floor of %.0f (docs/performance.md)", r.name, got, floor)
		}
	}
}

func printTable(t *testing.T, rows []perfRow) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-34s %16s %9s %10s %10s %8s  %s\n", "problem", "cells", "GCUPS", "kernel ms", "wall ms", "nvrtc ms", "note")
	for _, r := range rows {
		b.WriteString(r.String() + "\n")
	}
	fmt.Print(b.String())
}

// TestPerfLCS: LCS of random ACGT strings, the strip kernel's shapes at
// 65,536^2, then the best at 262,144^2, and the tile kernel for reference.
func TestPerfLCS(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	var rows []perfRow
	n := 65536 / scale
	p, pl := lcsProblem(t, n, n)
	best := perfRow{compute: 1e9}
	var bestCG codegen.Options
	try := func(cg codegen.Options) {
		row := measure(t, e, fmt.Sprintf("lcs %d^2 strip rpt%d w%d", n, cg.RowsPerThread, cg.StripWarps), p, pl, cg, backend.Options{}, 5)
		rows = append(rows, row)
		if row.compute < best.compute {
			best, bestCG = row, cg
		}
	}
	for _, rpt := range []int{2, 3, 4, 6, 8} {
		for _, warps := range []int{4, 8} {
			try(codegen.Options{Kernel: codegen.KernelStrip, RowsPerThread: rpt, StripWarps: warps})
		}
	}
	rows = append(rows, measure(t, e, fmt.Sprintf("lcs %d^2 tile 64x64", n), p, pl, codegen.Options{Kernel: codegen.KernelTile}, backend.Options{}, 3))
	big := 262144 / scale
	p, pl = lcsProblem(t, big, big)
	rows = append(rows, measure(t, e, fmt.Sprintf("lcs %d^2 strip rpt%d w%d", big, bestCG.RowsPerThread, bestCG.StripWarps), p, pl, bestCG, backend.Options{}, 5))
	rows = append(rows, measure(t, e, fmt.Sprintf("lcs %d^2 strip default", big), p, pl, codegen.Options{}, backend.Options{}, 5))
	printTable(t, rows)
	checkFloors(t, e, scale, rows)
}

// TestPerfKnapsack: 0/1 knapsack, capacity 1,000,000, 10,000 items.
func TestPerfKnapsack(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	r := dptest.Rand(t)
	items, capacity := 10000/scale, 1000000/scale
	wt, val := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k] = 1+r.Int64N(capacity/10), 1+r.Int64N(1000)
	}
	p, pl := dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt, val, int(capacity)))
	var rows []perfRow
	for _, threads := range []int{128, 256, 512} {
		rows = append(rows, measure(t, e, fmt.Sprintf("knapsack %dx%d line%d", items, capacity, threads), p, pl, codegen.Options{LineThreads: threads}, backend.Options{}, 5))
	}
	// Light items (up to 1,000, as in Pisinger's files): a cell reads a
	// tile or two back, where the line tiles pay.
	for k := range wt {
		wt[k] = 1 + r.Int64N(1000)
	}
	p, pl = dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt, val, int(capacity)))
	rows = append(rows, measure(t, e, fmt.Sprintf("knapsack %dx%d light items", items, capacity), p, pl, codegen.Options{}, backend.Options{}, 5))
	printTable(t, rows)
	checkFloors(t, e, scale, rows)
}

// TestPerfMaintain: LCS 32,768^2 with the whole grid copied back
// (maintain: 1) against the same without, wall time of Run. The grid is
// allocated beforehand, as `dpgpu solve` does while the driver starts; the
// rows sweep the knobs of the copy-back (staging buffer size, CPU workers,
// strip slots on the device).
func TestPerfMaintain(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	n := 32768 / scale
	p, pl := lcsProblem(t, n, n)
	keep := backend.Options{Maintain: true, Grid: backend.NewGrid(p.CellType, p.Rows, p.Cols)}
	rows := []perfRow{
		measure(t, e, fmt.Sprintf("lcs %d^2 maintain 0", n), p, pl, codegen.Options{}, backend.Options{}, 5),
	}
	old := e.cfg
	defer func() { e.cfg = old }()
	type knobs struct {
		stageMB int64
		workers int
		slots   int64
	}
	for _, k := range []knobs{{64, 0, 0}, {64, 8, 0}, {64, 12, 0}, {64, 16, 0}, {32, 0, 0}, {128, 0, 0}, {64, 0, 4}, {64, 0, 8}} {
		e.cfg.stageMB, e.cfg.copyWorkers, e.cfg.maxSlots = k.stageMB, k.workers, k.slots
		rows = append(rows, measure(t, e, fmt.Sprintf("lcs %d^2 maintain 1 stage %dMB w%d slots%d", n, k.stageMB, k.workers, k.slots), p, pl, codegen.Options{}, keep, 5))
	}
	e.cfg = old
	e.cfg.stageMB = 64
	rows = append(rows, measure(t, e, fmt.Sprintf("lcs %d^2 maintain 1 tile 64x64", n), p, pl, codegen.Options{Kernel: codegen.KernelTile, TileH: 64, TileW: 64}, keep, 3))
	printTable(t, rows)
	checkFloors(t, e, scale, rows)
	fmt.Printf("maintain wall ratio (in-process Run, grid given): %.2f\n", rows[1].wall/rows[0].wall)
}

// TestPerfHost measures what maintain costs on the host: pinning memory,
// the device-to-host copy, first touches of a fresh grid and copies into it.
func TestPerfHost(t *testing.T) {
	perfScale(t)
	e := executor(t)
	const size = 1 << 30
	start := time.Now()
	h, err := e.ctx.HostAlloc(size)
	if err != nil {
		t.Fatal(err)
	}
	pin := time.Since(start)
	defer h.Free()
	d, err := e.ctx.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	defer e.ctx.Free(d)
	var dtoh []float64
	for k := 0; k < 3; k++ {
		start = time.Now()
		if err := e.ctx.CopyDtoHAsync(h.Ptr(), d, size, e.s2); err != nil {
			t.Fatal(err)
		}
		if err := e.s2.Synchronize(); err != nil {
			t.Fatal(err)
		}
		dtoh = append(dtoh, time.Since(start).Seconds())
	}
	start = time.Now()
	g := make([]int32, size/4)
	parallel(int64(len(g)), func(lo, hi int64) {
		for k := lo; k < hi; k += 1024 {
			g[k] = 1
		}
	})
	touch := time.Since(start)
	start = time.Now()
	backend.NewGrid(ir.Int, 1, size/4) // huge pages, touched in parallel
	touchHuge := time.Since(start)
	thp, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	fmt.Printf("host: first touch of 1 GB with MADV_HUGEPAGE %.0f ms (THP: %s)\n", touchHuge.Seconds()*1e3, strings.TrimSpace(string(thp)))
	src := cuda.HostSlice[int32](h)
	g2 := make([]int32, size/4)
	start = time.Now()
	parallel(int64(len(g2)), func(lo, hi int64) { copy(g2[lo:hi], src[lo:hi]) })
	copyFresh := time.Since(start)
	start = time.Now()
	parallel(int64(len(g2)), func(lo, hi int64) { copy(g2[lo:hi], src[lo:hi]) })
	copyWarm := time.Since(start)
	fmt.Printf("host: pin 1 GB %.0f ms; DtoH 1 GB %.1f GB/s; first touch of 1 GB %.0f ms; copy 1 GB pinned->fresh %.0f ms, ->touched %.0f ms\n",
		pin.Seconds()*1e3, 1/median(dtoh), touch.Seconds()*1e3, copyFresh.Seconds()*1e3, copyWarm.Seconds()*1e3)
}

// TestPerfProfile runs one strip configuration of LCS 65,536^2 twice, for a
// profiler (DPGPU_PROFILE=1; scripts/device-check.sh profile), and writes
// its CUBIN and source to $DPGPU_CUBIN_OUT(.cu) for disassembly.
func TestPerfProfile(t *testing.T) {
	if os.Getenv("DPGPU_PROFILE") == "" {
		t.Skip("set DPGPU_PROFILE=1 to run the profiling workload")
	}
	e := executor(t)
	n := int64(65536)
	p, pl := lcsProblem(t, n, n)
	old := e.cfg.codegen
	defer func() { e.cfg.codegen = old }()
	e.cfg.codegen = codegen.Options{Kernel: codegen.KernelStrip, RowsPerThread: 4, StripWarps: 8}
	prog, err := e.Program(p, pl, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("DPGPU_CUBIN_OUT"); out != "" {
		cubin, _, _, err := e.cache.Compile(e.nvrtc, prog.Source, prog.Name, e.dev.Arch(), prog.Options)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(out, cubin, 0o644)
		os.WriteFile(out+".cu", []byte(prog.Source), 0o644)
	}
	for k := 0; k < 2; k++ {
		res, err := e.Run(context.Background(), p, pl, backend.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("run %d: %.2f ms, %.1f GCUPS", k, res.Stats.ComputeSeconds*1e3, float64(res.Stats.Cells)/res.Stats.ComputeSeconds/1e9)
	}
}

// TestPerfTables: Gotoh's three tables on the strip kernel's cells
// (plan.Plan.Cells) at 65,536^2 over its shapes, then the best and the
// default at 262,144^2 beside LCS's and Needleman-Wunsch's default.
func TestPerfTables(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	r := dptest.Rand(t)
	n := int(65536 / scale)
	a, b := dptest.DNA(r, n), dptest.DNA(r, n)
	p, pl := dptest.Load(t, "gotoh.dp", dptest.Gotoh(a, b, 5, 2))
	var rows []perfRow
	best := perfRow{compute: 1e9}
	var bestCG codegen.Options
	// DPGPU_PERF_TABLES_BIG=1: the shapes swept at 262,144^2 itself, with
	// 16 warps a block too.
	warpsOf := []int{4, 8}
	if os.Getenv("DPGPU_PERF_TABLES_BIG") != "" {
		n = int(262144 / scale)
		a, b = dptest.DNA(r, n), dptest.DNA(r, n)
		p, pl = dptest.Load(t, "gotoh.dp", dptest.Gotoh(a, b, 5, 2))
		warpsOf = []int{4, 8, 16}
	}
	for _, rpt := range []int{1, 2, 3, 4} {
		for _, warps := range warpsOf {
			cg := codegen.Options{RowsPerThread: rpt, StripWarps: warps}
			row := measure(t, e, fmt.Sprintf("gotoh %d^2 cells rpt%d w%d", n, rpt, warps), p, pl, cg, backend.Options{}, 3)
			rows = append(rows, row)
			if row.compute < best.compute {
				best, bestCG = row, cg
			}
		}
	}
	big := int(262144 / scale)
	a, b = dptest.DNA(r, big), dptest.DNA(r, big)
	p, pl = dptest.Load(t, "gotoh.dp", dptest.Gotoh(a, b, 5, 2))
	rows = append(rows, measure(t, e, fmt.Sprintf("gotoh %d^2 cells rpt%d w%d", big, bestCG.RowsPerThread, bestCG.StripWarps), p, pl, bestCG, backend.Options{}, 3))
	rows = append(rows, measure(t, e, fmt.Sprintf("gotoh %d^2 cells default", big), p, pl, codegen.Options{}, backend.Options{}, 3))
	lp, lpl := lcsProblem(t, int64(big), int64(big))
	rows = append(rows, measure(t, e, fmt.Sprintf("lcs %d^2 strip default", big), lp, lpl, codegen.Options{}, backend.Options{NoSpecial: true}, 3))
	printTable(t, rows)
}

// TestPerfLineSweep times the ways of running the lines of 0/1 knapsacks
// of 10,000 items: a launch a line, dp_linetiles (blocks of 256 and 1,024
// threads), passes of k lines in shared memory (dp_linepass), and what
// lines() chooses; "inline": the checks report where they fail instead of
// setting a flag first. DPGPU_PERF_ONLY (a regular expression) picks rows.
func TestPerfLineSweep(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	r := dptest.Rand(t)
	items := 10000 / scale
	type inst struct {
		name     string
		capacity int64
		maxWt    int64
	}
	old := e.cfg
	defer func() { e.cfg = old }()
	var rows []perfRow
	for _, in := range []inst{{"light 1M", 1000000 / scale, 1000}, {"heavy 1M", 1000000 / scale, 100000 / scale}, {"light 50k", 49877, 1000}} {
		wt, val := make([]int64, items), make([]int64, items)
		for k := range wt {
			wt[k], val[k] = 1+r.Int64N(in.maxWt), 1+r.Int64N(1000)
		}
		p, pl := dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt, val, int(in.capacity)))
		type variant struct {
			name            string
			off, wide, pass bool
			inline          bool // checks reporting where they fail (codegen LineInlineChecks)
			threads         int
			passLines       int64
		}
		vs := []variant{
			{name: "line", off: true},
			{name: "line inline", off: true, inline: true},
			{name: "tiles", wide: true},
			{name: "tiles inline", wide: true, inline: true},
			{name: "tiles t1024", wide: true, threads: 1024},
		}
		vs = append(vs, variant{name: "auto", pass: true}, variant{name: "auto inline", pass: true, inline: true})
		if in.maxWt <= 1000 {
			for _, k := range []int64{2, 3, 4, 6, 8, 10, 12, 16} {
				vs = append(vs, variant{name: fmt.Sprintf("pass%d", k), pass: true, passLines: k})
			}
		}
		var first *perfRow
		for _, v := range vs {
			if only := os.Getenv("DPGPU_PERF_ONLY"); only != "" && !regexp.MustCompile(only).MatchString(in.name+" "+v.name) {
				continue
			}
			e.cfg = old
			e.cfg.passOff, e.cfg.passLines = !v.pass, v.passLines
			e.cfg.tilesOff, e.cfg.tileWide = v.off, v.wide
			row := measure(t, e, in.name+" "+v.name, p, pl, codegen.Options{LineThreads: v.threads, LineInlineChecks: v.inline}, backend.Options{}, 3)
			if first == nil {
				first = &row
			} else if row.answer != first.answer {
				t.Errorf("%s answers %v, %s %v", row.name, row.answer, first.name, first.answer)
			}
			rows = append(rows, row)
		}
	}
	printTable(t, rows)
}
