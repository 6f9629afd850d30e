package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
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

// TestSlabBounds: slabs cover the columns in order, are multiples of 32
// wide (but the last), never narrower than the minimum or a border, follow
// the GPUs' weights, and are fewer where the grid is narrow.
func TestSlabBounds(t *testing.T) {
	defer testBandBounds(t)
	h100 := &Executor{dev: cuda.Device{SMs: 132, ClockKHz: 1980000}}
	small := &Executor{dev: cuda.Device{SMs: 66, ClockKHz: 1980000}}
	cases := []struct {
		exs      []*Executor
		per      int
		cols, pj int64
		want     []int64
	}{
		{[]*Executor{h100, h100}, 1, 1000, 1, []int64{0, 480, 1000}},
		{[]*Executor{h100}, 3, 1000, 1, []int64{0, 320, 640, 1000}},
		{[]*Executor{h100, small}, 1, 3000, 1, []int64{0, 1984, 3000}},
		{[]*Executor{h100, h100}, 2, 200, 1, []int64{0, 64, 128, 200}},
		{[]*Executor{h100, h100}, 1, 100, 1, []int64{0, 100}},
		{[]*Executor{h100, h100}, 1, 1000, 600, []int64{0, 1000}},
		{[]*Executor{h100, h100}, 1, 1000, 100, []int64{0, 480, 1000}},
	}
	for _, c := range cases {
		got := slabBounds(c.exs, c.per, c.cols, c.pj)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("slabBounds(%d GPUs x %d, %d cols, pj %d) = %v, want %v", len(c.exs), c.per, c.cols, c.pj, got, c.want)
		}
	}
}

// slabProblems are wavefronts with every kind of answer the strip kernel
// has: a cell, a region maximum, an integer sum, cells combined; backward
// sweeps; borders two rows and three columns wide; floating cells.
func slabProblems(t *testing.T) []struct {
	name string
	p    *ir.Problem
	pl   *plan.Plan
} {
	r := dptest.Rand(t)
	var out []struct {
		name string
		p    *ir.Problem
		pl   *plan.Plan
	}
	add := func(name, src string, files map[string]string) {
		p, pl := dptest.Load(t, name+".dp", src, dptest.Files(files))
		out = append(out, struct {
			name string
			p    *ir.Problem
			pl   *plan.Plan
		}{name, p, pl})
	}
	for _, sz := range [][2]int{{2, 300}, {17, 200}, {300, 129}, {1000, 999}, {4097, 1501}} {
		a, b := dptest.DNA(r, sz[0]-1), dptest.DNA(r, sz[1]-1)
		add(fmt.Sprintf("lcs-%dx%d", sz[0], sz[1]), dptest.LCSFiles, map[string]string{"a.txt": a, "b.txt": b})
	}
	a, b := dptest.DNA(r, 777), dptest.DNA(r, 555)
	sw := `char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
int gap = -2
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 3 : -3), cell[i-1][j] + gap, cell[i][j-1] + gap)   otherwise
`
	for k, ans := range []string{
		"max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))",
		"sum(i in 0..ROWS-1: sum(j in 100..200: cell[i][j]))",
		"cell[ROWS-1][COLS-1] - cell[ROWS/2][COLS/3] * 2",
		"sum(j in 0..COLS-1: cell[ROWS-1][j]) + cell[5][7]",
	} {
		add(fmt.Sprintf("sw-answer%d", k), "problem sw\n"+sw+"answer: "+ans+"\n", map[string]string{"a.txt": a, "b.txt": b})
	}
	add("backward", `problem backward
char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
cell: long
(len(A)) x (len(B))
cell[i][j] = A[i] + B[j]     when i == ROWS-1 || j == COLS-1
           | (cell[i+1][j] + 2*cell[i][j+1] + cell[i+1][j+1] + A[i]*B[j]) % 1000003   otherwise
answer: cell[0][0]
`, map[string]string{"a.txt": a, "b.txt": b})
	add("wide", `problem wide
char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
(len(A)) x (len(B))
cell[i][j] = (A[i] == B[j] ? 3 : 1) + max(i >= 2 && j >= 1 ? cell[i-2][j-1] + 1 : 0, i >= 1 && j >= 3 ? cell[i-1][j-3] + 2 : 0, j >= 2 ? cell[i][j-2] : 0, i >= 1 ? cell[i-1][j] - 1 : 0)
answer: cell[ROWS-1][COLS-1]
`, map[string]string{"a.txt": a, "b.txt": b})
	add("manhattan-double", `problem tourist
char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
cell: double
(len(A)) x (len(B))
cell[i][j] = 0.5                                                   when i == 0 && j == 0
           | cell[i][j-1] + 0.25 * A[i]                            when i == 0
           | cell[i-1][j] + 0.125 * B[j]                           when j == 0
           | max(cell[i-1][j] + 0.125 * B[j], cell[i][j-1] + 0.25 * A[i])   otherwise
answer: cell[ROWS-1][COLS-1]
`, map[string]string{"a.txt": a, "b.txt": b})
	// Several tables (the cells' wavefront): split in row bands only.
	for _, mode := range []string{"global", "local"} {
		src := dptest.Affine(dptest.DNA(r, 1500), dptest.DNA(r, 1301), 5, 2, mode)
		add("gotoh-"+mode, src, nil)
	}
	return out
}

// TestSlabs: the grid split on one GPU — into launches of row bands (2 and
// 3 launches, bands of 1, 2 or as many strips as a launch holds, one
// launch linked to itself; strips of 1,024 and of 64 rows), and into 2 and
// 3 column slabs — the links and borders through device memory and
// through mapped host memory, gives the CPU's answer (and the answer's
// cell) on every problem; what cannot be split runs whole and says why.
func TestSlabs(t *testing.T) {
	e := executor(t)
	small, err := New(WithCacheDir(shared.dir), WithStageMB(4), WithCodegen(codegen.Options{RowsPerThread: 1, StripWarps: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	variants := []struct {
		name string
		e    *Executor
		so   SlabOptions
	}{
		{"2-bands", e, SlabOptions{PerGPU: 2}},
		{"3-bands/host", e, SlabOptions{PerGPU: 3, HostBorders: true}},
		{"64-row-strips/3-bands", small, SlabOptions{PerGPU: 3}},
		{"64-row-strips/2-bands-of-1", small, SlabOptions{PerGPU: 2, Chunk: 1}},
		{"64-row-strips/3-bands-of-2/host", small, SlabOptions{PerGPU: 3, Chunk: 2, HostBorders: true}},
		{"64-row-strips/1-launch-bands-of-1", small, SlabOptions{Always: true, Chunk: 1}},
		{"2-slabs", e, SlabOptions{PerGPU: 2, Columns: true}},
		{"3-slabs/host", e, SlabOptions{PerGPU: 3, Columns: true, HostBorders: true}},
	}
	for _, c := range slabProblems(t) {
		ref := againstCPU(t, c.p, c.pl)
		for _, v := range variants {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				opt := backend.Options{NoSpecial: true}
				res, err := RunSlabs(ctx, []*Executor{v.e}, c.p, c.pl, opt, v.so)
				if err != nil {
					t.Fatal(err)
				}
				if res.Answer.String() != ref.Answer.String() {
					t.Errorf("answer %v, CPU %v (%s)", res.Answer, ref.Answer, res.Device)
				}
				if res.AnswerIsCell != ref.AnswerIsCell || res.AnswerI != ref.AnswerI || res.AnswerJ != ref.AnswerJ {
					t.Errorf("answer cell (%v %d %d), CPU (%v %d %d)", res.AnswerIsCell, res.AnswerI, res.AnswerJ, ref.AnswerIsCell, ref.AnswerI, ref.AnswerJ)
				}
				var split bool
				what := "column slabs"
				if v.so.Columns {
					split = c.p.Cols >= 2*minSlabCols && codegen.StripFits(c.pl)
				} else {
					what = "row bands"
					prog, err := codegen.Generate(c.p, c.pl, v.e.codegenOptions(c.p, opt))
					if err != nil {
						t.Fatal(err)
					}
					split = prog.Kernel == codegen.KernelStrip && (prog.Strips >= 2 || v.so.Always)
				}
				if got := strings.Contains(res.Device, what); got != split {
					t.Errorf("device %q: split %v, want %v", res.Device, got, split)
				}
			})
		}
	}
}

// TestSlabsNotSplit: a kept grid, the tile kernel and a floating sum run on
// one GPU, correctly, and the device line says why.
func TestSlabsNotSplit(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 500), dptest.DNA(r, 400)
	files := map[string]string{"a.txt": a, "b.txt": b}
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(files))
	want := dptest.LCSGrid(a, b)[500][400]
	res, err := RunSlabs(context.Background(), []*Executor{e}, p, pl, backend.Options{Maintain: true}, SlabOptions{PerGPU: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer.Float64() != want || !strings.Contains(res.Device, "one GPU: it keeps the grid") {
		t.Errorf("maintain: answer %v (want %v), device %q", res.Answer, want, res.Device)
	}
	fsum, fpl := dptest.Load(t, "fsum.dp", `problem fsum
char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
cell: double
(len(A)) x (len(B))
cell[i][j] = 0.1 * A[i]                                   when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1]) + 0.001 * B[j]   otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))
`, dptest.Files(files))
	res, err = RunSlabs(context.Background(), []*Executor{e}, fsum, fpl, backend.Options{}, SlabOptions{PerGPU: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ref := againstCPU(t, fsum, fpl); !closeTo(res.Answer.Float64(), ref.Answer.Float64(), 1e-9) || !strings.Contains(res.Device, "floating sum") {
		t.Errorf("floating sum: %v (CPU %v), device %q", res.Answer, ref.Answer, res.Device)
	}
}

// TestSlabsCancel: a split run stops when its context ends, and the GPU is
// usable afterwards.
func TestSlabsCancel(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	// Cancelled once progress shows, not by a clock: with a warm CUBIN cache a
	// grid of 40,000² finished inside a 20 ms deadline on an H100.
	a, b := dptest.DNA(r, 300000), dptest.DNA(r, 300000)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := backend.Options{NoSpecial: true, Progress: func(done, total int64) {
		if done > 0 && done < total {
			cancel()
		}
	}}
	res, err := RunSlabs(ctx, []*Executor{e}, p, pl, opt, SlabOptions{PerGPU: 3})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled run: %v, %v; want no result and context.Canceled", res, err)
	}
	small, spl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a[:300], "b.txt": b[:200]}))
	res, err = RunSlabs(context.Background(), []*Executor{e}, small, spl, backend.Options{NoSpecial: true}, SlabOptions{PerGPU: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := dptest.LCSGrid(a[:300], b[:200])[300][200]; res.Answer.Float64() != want {
		t.Errorf("after a cancelled run: %v, want %v", res.Answer, want)
	}
}

// TestSlabsSeveralGPUs splits grids over every GPU of the machine, one and
// two slabs each, borders through peer access and through host memory, and
// the bit-parallel kernel in row bands; it skips where there is one GPU.
func TestSlabsSeveralGPUs(t *testing.T) {
	e := executor(t)
	n := len(e.drv.Devices())
	if n < 2 {
		t.Skipf("one GPU here (%s): splitting over several GPUs is tested on a multi-GPU machine", e.Device())
	}
	exs := []*Executor{e}
	for d := 1; d < n; d++ {
		x, err := New(WithDevice(d), WithCacheDir(shared.dir))
		if err != nil {
			t.Fatalf("GPU %d: %v", d, err)
		}
		defer x.Close()
		exs = append(exs, x)
	}
	for _, c := range slabProblems(t) {
		ref := againstCPU(t, c.p, c.pl)
		for _, so := range []SlabOptions{{PerGPU: 1}, {PerGPU: 2}, {PerGPU: 1, HostBorders: true}, {PerGPU: 1, Chunk: 1}, {PerGPU: 1, Columns: true}, {PerGPU: 2, Columns: true}, {PerGPU: 1, Columns: true, HostBorders: true}} {
			res, err := RunSlabs(context.Background(), exs, c.p, c.pl, backend.Options{NoSpecial: true}, so)
			if err != nil {
				t.Fatalf("%s/%+v: %v", c.name, so, err)
			}
			if res.Answer.String() != ref.Answer.String() {
				t.Errorf("%s/%+v: answer %v, CPU %v (%s)", c.name, so, res.Answer, ref.Answer, res.Device)
			}
		}
	}
	// The bit-parallel kernel in row bands over the GPUs.
	r := dptest.Rand(t)
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein} {
		a, b := dptest.String(r, 9000, "ACGT"), dptest.String(r, 700, "ACGT")
		p, pl := loadSpecial(t, kind, "", a, b)
		want := dptest.BitGrid(kind, a, b)[9000][700]
		for _, so := range []SlabOptions{{PerGPU: 1}, {PerGPU: 1, HostBorders: true}} {
			res, err := RunSlabs(context.Background(), exs, p, pl, backend.Options{}, so)
			if err != nil {
				t.Fatalf("%s/%+v: %v", kind, so, err)
			}
			if res.Answer.Float64() != float64(want) || !strings.Contains(res.Device, "row bands") {
				t.Errorf("%s/%+v: %v, want %v (%s)", kind, so, res.Answer, want, res.Device)
			}
		}
	}
}

// TestPerfSlabs (DPGPU_PERF=1; DPGPU_SLAB_N, default 1,048,576) times LCS
// n² with the strip kernel (DPGPU_SLAB_SPECIAL=1: the bit-parallel one):
// plain, the split kernel as one part (its own cost), 2 parts (bands,
// slabs) on one GPU, and one on 2, 4, ... GPUs of the machine (bands,
// slabs); medians of 3 runs after a warm-up (DPGPU_SLAB_REPS), kernel time
// (CUDA events). DPGPU_SLAB_RPT sets the strip kernel's rows a thread,
// DPGPU_SLAB_ONLY (a regular expression) picks variants by name.
func TestPerfSlabs(t *testing.T) {
	perfScale(t)
	e := executor(t)
	n := int64(1 << 20)
	if s := os.Getenv("DPGPU_SLAB_N"); s != "" {
		n, _ = strconv.ParseInt(s, 10, 64)
	}
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, int(n)), dptest.DNA(r, int(n))
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
	opt := backend.Options{NoSpecial: true}
	if os.Getenv("DPGPU_SLAB_SPECIAL") != "" {
		opt.NoSpecial = false // the bit-parallel kernel
	}
	// DPGPU_SLAB_RPT: the strip kernel with that many rows a thread.
	var cg codegen.Options
	if s := os.Getenv("DPGPU_SLAB_RPT"); s != "" {
		cg.RowsPerThread, _ = strconv.Atoi(s)
		x, err := New(WithCacheDir(shared.dir), WithCodegen(cg))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		e = x
	}
	exs := []*Executor{e}
	for d := 1; d < len(e.drv.Devices()); d++ {
		x, err := New(WithDevice(d), WithCacheDir(shared.dir), WithCodegen(cg))
		if err != nil {
			t.Fatalf("GPU %d: %v", d, err)
		}
		defer x.Close()
		exs = append(exs, x)
	}
	type variant struct {
		name string
		run  func() (*backend.Result, error)
	}
	vs := []variant{
		{"plain", func() (*backend.Result, error) { return e.Run(context.Background(), p, pl, opt) }},
		{"split kernel, 1 part", func() (*backend.Result, error) {
			return RunSlabs(context.Background(), exs[:1], p, pl, opt, SlabOptions{Always: true})
		}},
		{"2 parts, 1 GPU", func() (*backend.Result, error) {
			return RunSlabs(context.Background(), exs[:1], p, pl, opt, SlabOptions{PerGPU: 2})
		}},
		{"4 parts, 1 GPU", func() (*backend.Result, error) {
			return RunSlabs(context.Background(), exs[:1], p, pl, opt, SlabOptions{PerGPU: 4})
		}},
	}
	if opt.NoSpecial {
		vs = append(vs, variant{"2 slabs, 1 GPU", func() (*backend.Result, error) {
			return RunSlabs(context.Background(), exs[:1], p, pl, opt, SlabOptions{PerGPU: 2, Columns: true})
		}})
	}
	for g := 2; g <= len(exs); g *= 2 {
		vs = append(vs, variant{fmt.Sprintf("%d GPUs", g), func() (*backend.Result, error) {
			return RunSlabs(context.Background(), exs[:g], p, pl, opt, SlabOptions{})
		}})
		if opt.NoSpecial {
			vs = append(vs, variant{fmt.Sprintf("%d GPUs, slabs", g), func() (*backend.Result, error) {
				return RunSlabs(context.Background(), exs[:g], p, pl, opt, SlabOptions{Columns: true})
			}})
		}
	}
	for _, split := range []string{"none", "slabs", "bands"} {
		o := e.codegenOptions(p, opt)
		o.Slabs, o.Bands = split == "slabs", split == "bands"
		prog, err := codegen.Generate(p, pl, o)
		if err != nil {
			t.Fatal(err)
		}
		mod, _, err := e.load(prog)
		if err != nil {
			t.Fatal(err)
		}
		fn := mod.funcs[codegen.FuncStrip]
		info, _ := fn.Info()
		occ, _ := fn.MaxActiveBlocksPerSM(32*prog.StripWarps, prog.StripSharedBytes)
		t.Logf("strip kernel, split %s: %d registers, %d blocks of %d threads per SM, %d strips", split, info.Regs, occ, 32*prog.StripWarps, prog.Strips)
	}
	var first string
	only := regexp.MustCompile(os.Getenv("DPGPU_SLAB_ONLY")) // the variants to run
	for _, v := range vs {
		if !only.MatchString(v.name) {
			continue
		}
		var ks []float64
		var dev string
		reps := 4
		if s := os.Getenv("DPGPU_SLAB_REPS"); s != "" {
			reps, _ = strconv.Atoi(s)
			reps = max(reps, 2)
		}
		for rep := 0; rep < reps; rep++ {
			res, err := v.run()
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			if first == "" {
				first = res.Answer.String()
			} else if res.Answer.String() != first {
				t.Fatalf("%s: answer %v, plain %v", v.name, res.Answer, first)
			}
			if rep > 0 {
				ks = append(ks, res.Stats.ComputeSeconds)
			}
			dev = res.Device
		}
		k := median(ks)
		t.Logf("LCS %d² %-22s kernel %8.3f s  %7.1f GCUPS  (%s)", n, v.name, k, float64(p.Cells())/k/1e9, dev)
	}
}

// TestBitparBands: the bit-parallel kernel over 2 and 3 row bands on one
// GPU, borders in device and in mapped host memory, gives the plain DP's
// last cell (and the best of the last row) for LCS, Levenshtein and indel
// distance at lengths around the word and strip (2,048 rows) sizes, and
// says it ran bit-parallel in bands; one strip runs whole.
func TestBitparBands(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	sizes := [][2]int{{1, 200}, {2048, 129}, {2049, 1000}, {4097, 4097}, {5000, 131}, {9000, 77}}
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
		for _, answer := range []string{"", "row"} {
			for _, sz := range sizes {
				a, b := dptest.String(r, sz[0], "ACGT"), dptest.String(r, sz[1], "ACG")
				p, pl := loadSpecial(t, kind, answer, a, b)
				g := dptest.BitGrid(kind, a, b)[sz[0]]
				want := g[sz[1]]
				if answer == "row" {
					for _, v := range g {
						if (kind == plan.BitLCS && v > want) || (kind != plan.BitLCS && v < want) {
							want = v
						}
					}
				}
				for _, so := range []SlabOptions{{PerGPU: 2}, {PerGPU: 3}, {PerGPU: 3, HostBorders: true}} {
					name := fmt.Sprintf("%s/%q/%dx%d/%+v", kind, answer, sz[0], sz[1], so)
					res, err := RunSlabs(context.Background(), []*Executor{e}, p, pl, backend.Options{}, so)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if res.Answer.Float64() != float64(want) {
						t.Errorf("%s: %v, want %v (%s)", name, res.Answer, want, res.Device)
					}
					split := (sz[0]+2047)/2048 >= 2
					if res.Special == nil || strings.Contains(res.Device, "row bands") != split {
						t.Errorf("%s: algorithm %v on %q, want bit-parallel, split %v", name, res.Special, res.Device, split)
					}
				}
			}
		}
	}
}

// testBandBounds: bands cover the strips in order, a strip at least each,
// fewer bands than strips never.
func testBandBounds(t *testing.T) {
	h100 := &Executor{dev: cuda.Device{SMs: 132, ClockKHz: 1980000}}
	for _, c := range []struct {
		n      int
		per    int
		strips int64
		want   []int64
	}{
		{2, 1, 2048, []int64{0, 1024, 2048}},
		{1, 3, 10, []int64{0, 3, 6, 10}},
		{2, 2, 3, []int64{0, 1, 2, 3}},
		{2, 1, 1, []int64{0, 1}},
	} {
		exs := make([]*Executor, c.n)
		for k := range exs {
			exs[k] = h100
		}
		if got := bandBounds(exs, c.per, c.strips); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("bandBounds(%d GPUs x %d, %d strips) = %v, want %v", c.n, c.per, c.strips, got, c.want)
		}
	}
}

// TestBandChunk: bands are at most a launch's resident blocks, cover the
// strips in as few rounds of n bands as that allows, and are of equal size
// (the last short); the figures of the 4 x H100 runs among them.
func TestBandChunk(t *testing.T) {
	for _, c := range []struct {
		strips, blocks int64
		n              int
		want           int64
	}{
		{4097, 396, 4, 342}, // LCS 4,194,304² on four H100s: 3 rounds
		{4097, 396, 2, 342}, // on two: 6 rounds
		{1025, 396, 4, 257}, // LCS 1,048,576² on four: one band each
		{4097, 396, 1, 373},
		{3, 396, 4, 1},
		{10, 3, 1, 3},
		{1, 1, 1, 1},
	} {
		got := bandChunk(c.strips, c.blocks, c.n)
		if got != c.want {
			t.Errorf("bandChunk(%d strips, %d blocks, %d launches) = %d, want %d", c.strips, c.blocks, c.n, got, c.want)
		}
		rounds := (c.strips + int64(c.n)*got - 1) / (int64(c.n) * got)
		if got > max(c.blocks, 1) || rounds*int64(c.n)*got < c.strips || (rounds > 1 && (rounds-1)*int64(c.n)*max(c.blocks, 1) >= c.strips) {
			t.Errorf("bandChunk(%d, %d, %d) = %d: %d rounds", c.strips, c.blocks, c.n, got, rounds)
		}
	}
}
