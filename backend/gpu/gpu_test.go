package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/source"
)

// ---- plain-Go references ----

// TestLCS runs LCS at awkward sizes, exactly one and two tiles and strips,
// with every wavefront kernel, against the reference.
func TestLCS(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	sizes := [][2]int{{2, 2}, {2, 300}, {300, 2}, {17, 33}, {64, 64}, {64, 128}, {128, 77}, {256, 77}, {512, 77}, {1000, 999}, {4097, 4095}}
	for _, sz := range sizes {
		a, b := dptest.DNA(r, sz[0]-1), dptest.DNA(r, sz[1]-1)
		p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
		want := dptest.LCSGrid(a, b)
		for _, v := range wavefrontVariants {
			name := fmtSize(sz[0], sz[1]) + "/" + v.name
			t.Run(name, func(t *testing.T) {
				res, err := runGPU(t, e, p, pl, v)
				if err != nil {
					t.Fatal(err)
				}
				if got := answerOf(res); got != want[sz[0]-1][sz[1]-1] {
					t.Errorf("LCS = %v, want %v", got, want[sz[0]-1][sz[1]-1])
				}
				if v.maintain {
					checkGrid(t, name, res.Grid, want, 0)
				}
			})
		}
	}
}

// TestStripShapes runs the strip kernel with other rows per thread and
// warps per block on a size that is no multiple of anything.
func TestStripShapes(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 1234), dptest.DNA(r, 777)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
	want := dptest.LCSGrid(a, b)[1234][777]
	for _, rpt := range []int{1, 2, 3, 4, 6, 8} {
		for _, warps := range []int{1, 4, 8} {
			v := variant{name: fmt.Sprintf("rpt%d-w%d", rpt, warps), cg: codegen.Options{Kernel: codegen.KernelStrip, RowsPerThread: rpt, StripWarps: warps}}
			res, err := runGPU(t, e, p, pl, v)
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			if got := answerOf(res); got != want {
				t.Errorf("%s: LCS = %v, want %v", v.name, got, want)
			}
		}
	}
	for _, tile := range [][2]int{{32, 32}, {128, 64}, {32, 256}} {
		v := variant{name: fmt.Sprintf("tile%dx%d", tile[0], tile[1]), cg: codegen.Options{Kernel: codegen.KernelTile, TileH: tile[0], TileW: tile[1]}, maintain: true}
		res, err := runGPU(t, e, p, pl, v)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if got := answerOf(res); got != want {
			t.Errorf("%s: LCS = %v, want %v", v.name, got, want)
		}
	}
	// The strip kernel writing the grid out, through 2 and 3 slots.
	ref := dptest.LCSGrid(a, b)
	for _, rpt := range []int{1, 3, 4} {
		for _, warps := range []int{1, 8} {
			for _, slots := range []int64{2, 3} {
				v := variant{name: fmt.Sprintf("keep-rpt%d-w%d-slots%d", rpt, warps, slots), cg: codegen.Options{Kernel: codegen.KernelStrip, RowsPerThread: rpt, StripWarps: warps}, maintain: true, slots: slots}
				res, err := runGPU(t, e, p, pl, v)
				if err != nil {
					t.Fatalf("%s: %v", v.name, err)
				}
				checkGrid(t, v.name, res.Grid, ref, 0)
			}
		}
	}
}

// TestMaintainUsesStrips: with maintain, LCS runs on the strip kernel
// writing its strips out (the fast path), not on the tile kernel.
func TestMaintainUsesStrips(t *testing.T) {
	e := executor(t)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": "ACGT", "b.txt": "GATTACA"}))
	prog, err := e.Program(p, pl, backend.Options{Maintain: true})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Kernel != codegen.KernelStrip || !prog.Keep {
		t.Fatalf("maintain runs the %s kernel (keep %v), want the strip kernel writing its cells out", prog.Kernel, prog.Keep)
	}
}

func manhattanRef(down, right [][]int64) refGrid {
	n, m := len(right), len(down[0])
	g := dptest.NewGrid(n, m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i == 0 && j == 0:
			case i == 0:
				g[i][j] = g[i][j-1] + float64(right[i][j-1])
			case j == 0:
				g[i][j] = g[i-1][j] + float64(down[i-1][j])
			default:
				g[i][j] = math.Max(g[i-1][j]+float64(down[i-1][j]), g[i][j-1]+float64(right[i][j-1]))
			}
		}
	}
	return g
}

func randMatrix(r *rand.Rand, rows, cols int, n int64) [][]int64 {
	m := make([][]int64, rows)
	for i := range m {
		m[i] = make([]int64, cols)
		for j := range m[i] {
			m[i][j] = r.Int64N(n)
		}
	}
	return m
}

// TestCellTypes runs the Manhattan tourist with every cell type.
func TestCellTypes(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	n, m := 301, 257
	// Values below 50 keep every path sum (at most 557 steps) within short.
	down, right := randMatrix(r, n-1, m, 50), randMatrix(r, n, m-1, 50)
	want := manhattanRef(down, right)
	for _, ty := range []string{"short", "int", "long", "float", "double"} {
		src := fmt.Sprintf(`problem manhattan
%[1]s %[2]dx%[3]d down = %[4]s
%[1]s %[5]dx%[6]d right = %[7]s
cell: %[1]s
(rows(right)) x (cols(down))
cell[i][j] = 0                                                    when i == 0 && j == 0
           | cell[i][j-1] + right[i][j-1]                         when i == 0
           | cell[i-1][j] + down[i-1][j]                          when j == 0
           | max(cell[i-1][j] + down[i-1][j], cell[i][j-1] + right[i][j-1])   otherwise
`, ty, n-1, m, dptest.JoinMatrix(down), n, m-1, dptest.JoinMatrix(right))
		p, pl := dptest.Load(t, "manhattan.dp", src)
		tol := tolerance(p.CellType)
		for _, v := range wavefrontVariants {
			t.Run(ty+"/"+v.name, func(t *testing.T) {
				res, err := runGPU(t, e, p, pl, v)
				if err != nil {
					t.Fatal(err)
				}
				if got := answerOf(res); !closeTo(got, want[n-1][m-1], tol) {
					t.Errorf("answer %v, want %v", got, want[n-1][m-1])
				}
				if res.Answer.T != p.CellType {
					t.Errorf("answer of type %s, want %s", res.Answer.T, p.CellType)
				}
				if v.maintain {
					checkGrid(t, ty, res.Grid, want, tol)
				}
			})
		}
	}
}

// TestKnapsack runs the rows schedule with data-dependent offsets.
func TestKnapsack(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	for _, sz := range [][2]int{{1, 0}, {1, 10}, {30, 1}, {57, 999}, {200, 4097}} {
		items, capacity := sz[0], sz[1]
		wt, val := make([]int64, items), make([]int64, items)
		for k := range wt {
			wt[k], val[k] = 1+r.Int64N(int64(capacity/3+2)), 1+r.Int64N(1000)
		}
		p, pl := dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt, val, capacity))
		want := dptest.KnapsackGrid(wt, val, capacity)
		for _, v := range lineVariants {
			t.Run(fmtSize(items+1, capacity+1)+"/"+v.name, func(t *testing.T) {
				res, err := runGPU(t, e, p, pl, v)
				if err != nil {
					t.Fatal(err)
				}
				if got := answerOf(res); got != want[items][capacity] {
					t.Errorf("answer %v, want %v", got, want[items][capacity])
				}
				if v.maintain {
					checkGrid(t, "knapsack", res.Grid, want, 0)
				}
			})
		}
	}
}

// TestKnapsackWide: lines wider than the device has multiprocessors for
// blocks of them, items that reach far back across the line (a fifth of
// it), through each way of running lines: a launch a line, tiles of every
// block at once, and tiles by tickets. Against a plain-Go knapsack.
func TestKnapsackWide(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	items, capacity := 300, 300_001
	// Heavy items reach a fifth of the line back; light ones a few tiles
	// of 32, so that tiles of 32 by tickets have more tiles than blocks.
	for _, heaviest := range []int64{int64(capacity / 5), 100} {
		wt, val := make([]int64, items), make([]int64, items)
		for k := range wt {
			wt[k], val[k] = 1+r.Int64N(heaviest), 1+r.Int64N(1000)
		}
		best := make([]int64, capacity+1)
		for k := range wt {
			for c := int64(capacity); c >= wt[k]; c-- {
				best[c] = max(best[c], best[c-wt[k]]+val[k])
			}
		}
		p, pl := dptest.Load(t, "knapsack.dp", dptest.Knapsack(wt, val, capacity))
		for _, v := range []variant{
			{name: "auto"},
			{name: "launch-a-line", tilesOff: true},
			{name: "tiles-256x4", tileCells: 4},
			{name: "tiles-256x4-runs-of-7", tileCells: 4, tileLines: 7},
			{name: "tickets-256x16", tileCells: 16, tickets: true},
			{name: "tickets-32x1", cg: codegen.Options{LineThreads: 32}, tileCells: 1, tickets: true},
			{name: "tiles-256x4-steps-of-2", tileCells: 4, tileDepth: 2},
			{name: "tickets-32x1-steps-of-5", cg: codegen.Options{LineThreads: 32}, tileCells: 1, tileDepth: 5, tickets: true},
			// Passes in shared memory (light items only: a heavy item's
			// reach does not fit one; auto takes them for light items).
			{name: "passes-of-3", passLines: 3},
			{name: "passes-16x1000", passLines: 16, passTile: 1000},
		} {
			res, err := runGPU(t, e, p, pl, v)
			if err != nil {
				t.Fatalf("heaviest %d, %s: %v", heaviest, v.name, err)
			}
			if got := answerOf(res); got != float64(best[capacity]) {
				t.Errorf("heaviest %d, %s: answer %v, want %d", heaviest, v.name, got, best[capacity])
			}
		}
	}
}

// TestBoundedKnapsack has a reduction over k in every cell.
func TestBoundedKnapsack(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	items, capacity := 40, 700
	wt, val, cnt := make([]int64, items), make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k], cnt[k] = r.Int64N(60), 1+r.Int64N(100), 1+r.Int64N(5)
	}
	want := dptest.BoundedKnapsackGrid(wt, val, cnt, capacity)
	src := dptest.BoundedKnapsack(wt, val, cnt, capacity)
	p, pl := dptest.Load(t, "bounded.dp", src)
	for _, v := range lineVariants {
		res, err := runGPU(t, e, p, pl, v)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if got := answerOf(res); got != want[items][capacity] {
			t.Errorf("%s: answer %v, want %v", v.name, got, want[items][capacity])
		}
		if v.maintain {
			checkGrid(t, "bounded", res.Grid, want, 0)
		}
	}
}

// TestContractExamples runs the built-in problems with their default data:
// the values the language contract and the problems' comments give, and the
// CPU executor's answers.
func TestContractExamples(t *testing.T) {
	e := executor(t)
	known := map[string]float64{"knapsack": 26, "lookback-put": 5.470181, "editdistance": 8, "manhattan": 34, "smith-waterman": 13, "knapsack-bounded": 30}
	for _, name := range problems.Names() {
		b, _ := problems.Lookup(name)
		p, pl, err := dptest.TryLoad(t, name+".dp", string(b.Source))
		if p == nil {
			t.Logf("%s: skipped: %v", name, err) // e.g. tsp needs a file
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := againstCPU(t, p, pl)
		for _, v := range []variant{{name: "auto"}, {name: "maintain", maintain: true}} {
			res, err := runGPU(t, e, p, pl, v)
			if err != nil {
				t.Errorf("%s/%s: %v", name, v.name, err)
				continue
			}
			if !closeTo(answerOf(res), answerOf(want), 1e-9) {
				t.Errorf("%s/%s: GPU %v, CPU %v", name, v.name, res.Answer, want.Answer)
			}
			if k, ok := known[name]; ok && math.Abs(answerOf(res)-k) > 5e-7 {
				t.Errorf("%s: answer %v, want %v", name, res.Answer, k)
			}
			if v.maintain {
				sameGrids(t, name, res.Grid, want.Grid, 1e-9)
			}
			if res.AnswerIsCell != want.AnswerIsCell || (res.AnswerIsCell && (res.AnswerI != want.AnswerI || res.AnswerJ != want.AnswerJ)) {
				t.Errorf("%s: answer cell (%v %d %d), CPU (%v %d %d)", name, res.AnswerIsCell, res.AnswerI, res.AnswerJ, want.AnswerIsCell, want.AnswerI, want.AnswerJ)
			}
		}
	}
}

// TestLookbackLarge is the backward rows schedule in double at a larger N,
// against a plain-Go lattice.
func TestLookbackLarge(t *testing.T) {
	e := executor(t)
	const N = 700
	g, price := dptest.LookbackGrid(N)
	b, _ := problems.Lookup("lookback-put")
	prob, pl := dptest.Load(t, "lookback-put.dp", string(b.Source), dptest.Set("N", fmt.Sprint(N)))
	for _, v := range lineVariants {
		res, err := runGPU(t, e, prob, pl, v)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if want := price; !closeTo(answerOf(res), want, 1e-9) {
			t.Errorf("%s: price %v, want %v", v.name, answerOf(res), want)
		}
		if v.maintain {
			checkGrid(t, "lookback", res.Grid, g, 1e-9)
		}
	}
}

// TestBackwardAndCols: a backward wavefront (long cells) and a cols
// schedule (double), against the CPU executor and plain Go.
func TestBackwardAndCols(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	n, m := 333, 290
	a, b := make([]int64, n), make([]int64, m)
	for k := range a {
		a[k] = r.Int64N(1 << 20)
	}
	for k := range b {
		b[k] = r.Int64N(1 << 20)
	}
	want := dptest.NewGrid(n, m)
	wi := make([][]int64, n)
	for i := range wi {
		wi[i] = make([]int64, m)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if i == n-1 || j == m-1 {
				wi[i][j] = a[i] + b[j]
			} else {
				wi[i][j] = (wi[i+1][j] + 2*wi[i][j+1] + wi[i+1][j+1] + a[i]*b[j]) % 1000000007
			}
			want[i][j] = float64(wi[i][j])
		}
	}
	src := fmt.Sprintf(`problem backward
long 1x? a = %s
long 1x? b = %s
cell: long
(len(a)) x (len(b))
cell[i][j] = a[i] + b[j]     when i == ROWS-1 || j == COLS-1
           | (cell[i+1][j] + 2*cell[i][j+1] + cell[i+1][j+1] + a[i]*b[j]) %% 1000000007   otherwise
`, dptest.Join(a), dptest.Join(b))
	p, pl := dptest.Load(t, "backward.dp", src)
	for _, v := range wavefrontVariants {
		res, err := runGPU(t, e, p, pl, v)
		if err != nil {
			t.Fatalf("backward/%s: %v", v.name, err)
		}
		if int64(res.Answer.I) != wi[0][0] {
			t.Errorf("backward/%s: answer %v, want %v", v.name, res.Answer.I, wi[0][0])
		}
		if v.maintain {
			checkGrid(t, "backward", res.Grid, want, 0)
		}
	}

	w := make([]int64, 517)
	for k := range w {
		w[k] = r.Int64N(1000)
	}
	colsSrc := fmt.Sprintf(`problem cols
int 1x? w = %s
cell: double
(len(w)) x 211
cell[i][j] = w[i]                                             when j == 0
           | 0.5*cell[i][j-1] + 0.25*cell[(i*7+3) %% ROWS][j-1]   otherwise
answer: sum(i in 0..ROWS-1: cell[i][COLS-1])
`, dptest.Join(w))
	p, pl = dptest.Load(t, "cols.dp", colsSrc)
	if pl.Schedule != "cols" {
		t.Fatalf("cols problem planned as %s", pl.Schedule)
	}
	ref := againstCPU(t, p, pl)
	for _, v := range lineVariants {
		res, err := runGPU(t, e, p, pl, v)
		if err != nil {
			t.Fatalf("cols/%s: %v", v.name, err)
		}
		if !closeTo(answerOf(res), answerOf(ref), 1e-9) {
			t.Errorf("cols/%s: answer %v, CPU %v", v.name, answerOf(res), answerOf(ref))
		}
		if v.maintain {
			sameGrids(t, "cols", res.Grid, ref.Grid, 1e-9)
		}
	}
}

// TestMemPlacements gives identical answers with inputs in constant,
// global and texture memory, for every input type.
func TestMemPlacements(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	n, m := 190, 211
	c := dptest.DNA(r, n)
	in := make([]int64, m)
	ln := make([]int64, n)
	fl := make([]string, m)
	db := make([]string, n)
	for k := range in {
		in[k] = r.Int64N(2000) - 1000
		fl[k] = fmt.Sprintf("%.3f", r.Float64()*10)
	}
	for k := range ln {
		ln[k] = r.Int64N(1<<40) - 1<<39
		db[k] = fmt.Sprintf("%.6f", r.Float64())
	}
	src := fmt.Sprintf(`problem mem
char 1x? c = %q
int 1x? n = %s
long 1x? l = %s
float 1x? f = %s
double 1x? d = %s
cell: double
(len(c)+1) x (len(n)+1)
cell[i][j] = 0    when i == 0 || j == 0
           | max(cell[i-1][j-1] + (c[i-1] == 'A' ? 1 : 0) + n[j-1] * d[i-1], cell[i-1][j] + f[j-1]) + l[i-1] / 1000000000   otherwise
`, c, dptest.Join(in), dptest.Join(ln), strings.Join(fl, ","), strings.Join(db, ","))
	p, pl := dptest.Load(t, "mem.dp", src)
	ref := againstCPU(t, p, pl)
	mems := []struct {
		name string
		cg   codegen.Options
	}{
		{"constant", codegen.Options{Mem: codegen.Mem0}},
		{"global", codegen.Options{Mem: codegen.Mem0, ConstantBytes: 16}},
		{"texture", codegen.Options{Mem: codegen.Mem1}},
	}
	var first *backend.Result
	for _, mem := range mems {
		for _, maintain := range []bool{false, true} {
			v := variant{name: mem.name, cg: mem.cg, maintain: maintain}
			res, err := runGPU(t, e, p, pl, v)
			if err != nil {
				t.Fatalf("%s: %v", mem.name, err)
			}
			if !closeTo(answerOf(res), answerOf(ref), 1e-9) {
				t.Errorf("%s: answer %v, CPU %v", mem.name, answerOf(res), answerOf(ref))
			}
			if maintain {
				sameGrids(t, mem.name, res.Grid, ref.Grid, 1e-9)
				if first == nil {
					first = res
				} else {
					sameGrids(t, mem.name+" vs "+mems[0].name, res.Grid, first.Grid, 0)
				}
			}
		}
	}
}

// TestAnswers: a region maximum with its winning cell, a region sum, and
// answer expressions over a few cells (captured by the strip kernel) and
// many cells (the tile kernel).
func TestAnswers(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 777), dptest.DNA(r, 555)
	base := `char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
int gap = -2
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 3 : -3), cell[i-1][j] + gap, cell[i][j-1] + gap)   otherwise
`
	files := map[string]string{"a.txt": a, "b.txt": b}
	answers := []string{
		"max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))",
		"min(i in 3..ROWS-5: min(j in 10..COLS-1: cell[i][j]))",
		"sum(i in 0..ROWS-1: sum(j in 100..200: cell[i][j]))",
		"cell[ROWS-1][COLS-1] - cell[ROWS/2][COLS/3] * 2",
		"sum(j in 0..COLS-1: cell[ROWS-1][j]) + cell[5][7]",
		"cell[300][200]",
	}
	for k, ans := range answers {
		p, pl := dptest.Load(t, "sw.dp", base+"answer: "+ans+"\n", dptest.Files(files))
		ref := againstCPU(t, p, pl)
		for _, v := range wavefrontVariants {
			res, err := runGPU(t, e, p, pl, v)
			if err != nil {
				t.Fatalf("answer %d (%s)/%s: %v", k, ans, v.name, err)
			}
			if answerOf(res) != answerOf(ref) {
				t.Errorf("answer %d (%s)/%s: %v, CPU %v", k, ans, v.name, res.Answer, ref.Answer)
			}
			if res.AnswerIsCell != ref.AnswerIsCell || (res.AnswerIsCell && (res.AnswerI != ref.AnswerI || res.AnswerJ != ref.AnswerJ)) {
				t.Errorf("answer %d (%s)/%s: cell (%v %d %d), CPU (%v %d %d)", k, ans, v.name, res.AnswerIsCell, res.AnswerI, res.AnswerJ, ref.AnswerIsCell, ref.AnswerI, ref.AnswerJ)
			}
		}
	}
}

// TestDeviceErrors: reads outside the grid or an input, and int overflow,
// stop the run with the `.dp` position and the cell, on every kernel.
func TestDeviceErrors(t *testing.T) {
	e := executor(t)
	cases := []struct {
		name, src string
		variants  []variant
		want      []string
	}{
		{"outside-grid", `problem bad
40 x 50
cell[i][j] = cell[i][j-4]                        when i == 2 && j == 3
           | max(cell[i-1][j], cell[i][j-1])     when i > 0 && j > 0
           | 1                                   otherwise
`, wavefrontVariants, []string{"bad.dp:3:", "cell[i][j-4] reads cell[2][-1], outside the 40x50 grid", "cell[2][3]"}},
		{"outside-rows", `problem bad
int 1x? A = 1,2,3,4
(len(A)+1) x 5
cell[i][j] = (i == ROWS-1 && j == 2 ? A[i] : 0) + cell[i-1][j]   when i > 0
           | 0                                                    otherwise
`, lineVariants, []string{"bad.dp:4:", "A[4] is outside A", "cell[4][2]"}},
		{"outside-row-data", `problem bad
int 1x? wt = 3,9
2 x 5
cell[i][w] = cell[i-1][w - wt[i-1] - wt[i]]  when i > 0 && w == 4
           | 0                               otherwise
`, lineVariants, []string{"bad.dp:4:", "reads cell[0][-8]", "cell[1][4]"}},
		{"overflow", `problem big
30 x 1
cell[i][j] = cell[i-1][j] * 3 + 1   when i > 0
           | 1                      otherwise
`, lineVariants, []string{"big.dp:3:", "cell: long", "cell[20][0]"}},
		{"overflow-wavefront", `problem big
70 x 70
cell[i][j] = cell[i-1][j] + cell[i][j-1] + cell[i-1][j-1]   when i > 0 && j > 0
           | 1                                                otherwise
`, wavefrontVariants, []string{"big.dp:3:", "cell: long"}},
	}
	for _, c := range cases {
		p, pl := dptest.Load(t, strings.SplitN(c.src, "\n", 2)[0][8:]+".dp", c.src)
		for _, v := range c.variants {
			_, err := runGPU(t, e, p, pl, v)
			checkDeviceError(t, c.name+"/"+v.name, err, c.want)
		}
		// The executor keeps working after a device error.
		if _, err := runGPU(t, e, p, pl, lineVariants[0]); err == nil {
			t.Errorf("%s: the second run has no error", c.name)
		}
	}
}

// TestCancel stops a long strip run through its context once the kernel
// runs, and the executor works afterwards.
func TestCancel(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 300000), dptest.DNA(r, 300000)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
	cancelMidway(t, e, p, pl, backend.Options{})
	// Still usable.
	small, spl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": "ACGT", "b.txt": "AGT"}))
	res, err := e.Run(context.Background(), small, spl, backend.Options{})
	if err != nil || answerOf(res) != 3 {
		t.Errorf("after cancelling: %v, %v", res, err)
	}
	var calls int
	_, err = e.Run(context.Background(), small, spl, backend.Options{Progress: func(done, total int64) { calls++ }})
	if err != nil || calls == 0 {
		t.Errorf("progress: %d calls, %v", calls, err)
	}
}

// TestCancelMaintain cancels a strip kernel that writes its grid out
// through two slots (it then waits for the host's copies): the run ends
// with context.Canceled, promptly, and the executor stays usable.
func TestCancelMaintain(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 20000), dptest.DNA(r, 20000)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
	old := e.cfg
	e.cfg.maxSlots = 2
	defer func() { e.cfg = old }()
	cancelMidway(t, e, p, pl, backend.Options{Maintain: true})
	small, spl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": "ACGT", "b.txt": "AGT"}))
	res, err := e.Run(context.Background(), small, spl, backend.Options{Maintain: true})
	if err != nil || answerOf(res) != 3 {
		t.Errorf("after cancelling: %v, %v", res, err)
	}
}

// TestStagingGrows: a maintain run that needs more pinned staging than an
// earlier run left runs to the end. The strip kernel waits for the host's
// copies through two slots while the host pins its buffers; freeing the
// smaller buffer there waited for the kernel (a deadlock: the test hung).
func TestStagingGrows(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	old := e.cfg
	e.cfg.maxSlots = 2
	defer func() { e.cfg = old }()
	for _, n := range []int{40, 3000} {
		a, b := dptest.DNA(r, n), dptest.DNA(r, n-7)
		p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
		res, err := e.Run(context.Background(), p, pl, backend.Options{Maintain: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := dptest.LCSGrid(a, b)[n][n-7]; answerOf(res) != want {
			t.Errorf("%d x %d: %v, want %v", n, n-7, answerOf(res), want)
		}
	}
}

// cancelMidway runs p with opt, cancelling once progress is reported: the
// run must end with context.Canceled and no result. No clock: a loaded
// machine is slow, not wrong.
func cancelMidway(t *testing.T, e *Executor, p *ir.Problem, pl *plan.Plan, opt backend.Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt.Progress = func(done, total int64) {
		if done > 0 && done < total {
			cancel()
		}
	}
	res, err := e.Run(ctx, p, pl, opt)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("cancelled run: %v, %v; want no result and context.Canceled", res, err)
	}
}

// TestTinyGrids: 1x1, 1xN and Nx1 grids on every kernel (a forced
// wavefront, and lines).
func TestTinyGrids(t *testing.T) {
	e := executor(t)
	for _, sz := range [][2]int{{1, 1}, {1, 333}, {333, 1}} {
		n, m := sz[0], sz[1]
		want := dptest.NewGrid(n, m)
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				if i == 0 || j == 0 {
					want[i][j] = float64(3*i + j + 1)
				} else {
					want[i][j] = float64((int64(want[i-1][j]) + 2*int64(want[i][j-1])) % 1000)
				}
			}
		}
		for _, sched := range []string{"wavefront", "rows", "cols"} {
			src := fmt.Sprintf(`problem tiny
%d x %d
schedule: %s
cell[i][j] = 3*i + j + 1                          when i == 0 || j == 0
           | (cell[i-1][j] + 2*cell[i][j-1]) %% 1000   otherwise
`, n, m, sched)
			p, pl, err := dptest.TryLoad(t, "tiny.dp", src)
			if p == nil {
				t.Fatal(err)
			}
			if err != nil {
				continue // rows or cols cannot run this recurrence
			}
			vs := lineVariants
			if pl.Schedule == "wavefront" {
				vs = wavefrontVariants
			}
			for _, v := range vs {
				res, err := runGPU(t, e, p, pl, v)
				if err != nil {
					t.Fatalf("%dx%d %s/%s: %v", n, m, sched, v.name, err)
				}
				if answerOf(res) != want[n-1][m-1] {
					t.Errorf("%dx%d %s/%s: answer %v, want %v", n, m, sched, v.name, res.Answer, want[n-1][m-1])
				}
				if v.maintain {
					checkGrid(t, "tiny", res.Grid, want, 0)
				}
			}
		}
	}
}

// TestCompileCache: a second executor on the same cache skips NVRTC.
func TestCompileCache(t *testing.T) {
	e := executor(t)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": "ACGTTGCA", "b.txt": "TTGACCA"}))
	if _, err := e.Run(context.Background(), p, pl, backend.Options{}); err != nil {
		t.Fatal(err)
	}
	e2, err := New(WithCacheDir(shared.dir))
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	res, err := e2.Run(context.Background(), p, pl, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stats.CompileCached {
		t.Error("the second executor compiled again")
	}
	t.Logf("cached compile+load: %.1f ms", res.Stats.CompileSeconds*1e3)
}

// TestCompileErrorLines: NVRTC errors in the recurrence name the `.dp` line.
func TestCompileErrorLines(t *testing.T) {
	e := executor(t)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": "ACGT", "b.txt": "AGT"}))
	prog, err := e.Program(p, pl, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Break the value of the second case (line 6 of lcs.dp).
	broken := strings.Replace(prog.Source, "a.template ref<0>(", "undefined_in_dpgpu(", 1)
	if broken == prog.Source {
		t.Fatal("could not break the program")
	}
	prog.Source = broken
	_, _, err = e.load(prog)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("compiling a broken program: %v", err)
	}
	if !strings.Contains(ce.Log, "lcs.dp:6:") {
		t.Errorf("the compile log does not point at lcs.dp:6:\n%s", ce.Log)
	}
}

// TestDevice checks the description.
func TestDevice(t *testing.T) {
	e := executor(t)
	d := e.Device()
	if !strings.Contains(d, "sm_") || !strings.Contains(d, "SMs") || e.Name() != "cuda" {
		t.Errorf("Name %q Device %q", e.Name(), d)
	}
	t.Log(d)
	_ = ir.Int
}

// checkDeviceError checks that a run failed with a positioned error
// (source.ErrorList) whose text says each of want.
func checkDeviceError(t *testing.T, what string, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	var list source.ErrorList
	if !errors.As(err, &list) {
		t.Errorf("%s: error %v is not positioned", what, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not say %q", what, err, w)
		}
	}
}
