package gpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

const nwBatchText = `problem nw
char 1x? A = %q
char 1x? B = %q
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 && j == 0
           | cell[i][j-1] - 2        when i == 0
           | cell[i-1][j] - 2        when j == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 1 : -1), cell[i-1][j] - 2, cell[i][j-1] - 2)   otherwise
`

const swBatchText = `problem sw
char 1x? A = %q
char 1x? B = %q
(len(A)+1) x (len(B)+1)
cell[i][j] = 0     when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 3 : -3), cell[i-1][j] - 2, cell[i][j-1] - 2)   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`

// divBatchText fails (a division by zero) in instances whose A holds a T.
const divBatchText = `problem div
char 1x? A = %q
char 1x? B = %q
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                                   when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1]) + 100 / (A[i-1] - 84)   otherwise
`

// affineBatchText is local alignment with affine gaps (three tables).
const affineBatchText = `problem gotoh-local
char 1x? A = %q
char 1x? B = %q
int o = 5
int e = 2
(len(A)+1) x (len(B)+1)
X[i][j] = -inf                                      when j == 0
        | max(X[i][j-1] - e, H[i][j-1] - o - e)     otherwise
Y[i][j] = -inf                                      when i == 0
        | max(Y[i-1][j] - e, H[i-1][j] - o - e)     otherwise
H[i][j] = 0                                         when i == 0 || j == 0
        | max(0, H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], Y[i][j])   otherwise
answer: max(i in 0..len(A): max(j in 0..len(B): H[i][j]))
`

// TestBatchRun runs instances of one shape in one launch and compares each
// with the CPU executor: a cell answer, a region answer, two strips of
// rows (300 rows), one row, instances that fail among others that do
// not, and instances of three tables whose rows between strips are too
// wide for shared memory (global memory: Program.BatchRowBytes).
func TestBatchRun(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	acg := func(n int) string {
		b := make([]byte, n)
		for k := range b {
			b[k] = "ACG"[r.IntN(3)]
		}
		return string(b)
	}
	for _, c := range []struct {
		name, text  string
		n, m, count int
		fails       bool
	}{
		{"nw-150", nwBatchText, 150, 150, 70, false},
		{"nw-17x1", nwBatchText, 17, 1, 9, false},
		{"nw-0x33", nwBatchText, 0, 33, 3, false},
		{"nw-300x61", nwBatchText, 300, 61, 20, false},
		{"sw-97x131", swBatchText, 97, 131, 33, false},
		{"div-20", divBatchText, 20, 20, 40, true},
		{"gotoh-local-200x1800", affineBatchText, 200, 1800, 12, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var insts []BatchInstance
			var prog *codegen.Program
			for k := range c.count {
				a, b := dptest.DNA(r, c.n), dptest.DNA(r, c.m)
				if c.fails && k%3 != 0 {
					a = acg(c.n)
				}
				p, pl := dptest.Load(t, c.name+".dp", fmt.Sprintf(c.text, a, b))
				if prog == nil {
					var err error
					if prog, err = e.BatchProgram(p, pl, []string{"A", "B"}, false); err != nil {
						t.Fatal(err)
					}
					if wide := c.m >= 1800; (prog.BatchRowBytes > 0) != wide {
						t.Fatalf("rows between strips in global memory: %v, want %v", prog.BatchRowBytes > 0, wide)
					}
				}
				insts = append(insts, BatchInstance{P: p, Plan: pl})
			}
			outs, st, err := e.RunBatch(context.Background(), prog, insts)
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for k, x := range insts {
				want, werr := cpu.New(1).Run(context.Background(), x.P, x.Plan, backend.Options{})
				o := outs[k]
				if (werr != nil) != o.Failed {
					t.Fatalf("instance %d: failed %v, the CPU's error %v", k, o.Failed, werr)
				}
				if o.Failed {
					failed++
					continue
				}
				if o.Err != nil {
					t.Fatalf("instance %d: %v", k, o.Err)
				}
				if o.Result.Answer != want.Answer {
					t.Errorf("instance %d: answer %v, CPU %v", k, o.Result.Answer, want.Answer)
				}
			}
			if c.fails && (failed == 0 || failed == len(insts)) {
				t.Errorf("%d of %d instances failed; want some", failed, len(insts))
			}
			t.Logf("%d instances, %d failed, kernel %v", len(insts), failed, st.Kernel)
		})
	}
}

// TestBatchProfile runs a protein query against instances in one launch,
// the scoring matrix's reads from the block's profile (codegen/profile.go),
// and compares each with the CPU executor: queries of one and two strips
// of rows, letters of both cases, unknown letters and a '*'.
func TestBatchProfile(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	const letters = "ARNDCQEGHILKMFPSTWYVarndJX*"
	seq := func(n int) string {
		b := make([]byte, n)
		for k := range b {
			b[k] = letters[r.IntN(len(letters))]
		}
		return string(b)
	}
	for _, c := range []struct{ n, m, count int }{{500, 350, 50}, {301, 77, 41}, {40, 1, 9}} {
		t.Run(fmt.Sprintf("%dx%d", c.n, c.m), func(t *testing.T) {
			query := seq(c.n)
			var insts []BatchInstance
			var prog *codegen.Program
			for range c.count {
				p, pl := dptest.Load(t, "swb.dp", fmt.Sprintf(swbBatchText, query, seq(c.m)))
				if prog == nil {
					var err error
					if prog, err = e.BatchProgram(p, pl, []string{"B"}, false); err != nil {
						t.Fatal(err)
					}
					if prog.BatchProfiles != 1 {
						t.Fatalf("%d profiles, want 1", prog.BatchProfiles)
					}
				}
				insts = append(insts, BatchInstance{P: p, Plan: pl})
			}
			outs, _, err := e.RunBatch(context.Background(), prog, insts)
			if err != nil {
				t.Fatal(err)
			}
			for k, x := range insts {
				want, err := cpu.New(1).Run(context.Background(), x.P, x.Plan, backend.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if o := outs[k]; o.Failed || o.Err != nil || o.Result.Answer != want.Answer {
					t.Errorf("instance %d: %+v, CPU %v", k, o, want.Answer)
				}
			}
		})
	}
}

// swbBatchText is local alignment of proteins with BLOSUM62, linear gaps.
const swbBatchText = `problem swb
char 1x? A = %q
char 1x? B = %q
int ?x? S = @"BLOSUM62.mat"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0     when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + S[A[i-1]][B[j-1]], cell[i-1][j] - 4, cell[i][j-1] - 4)   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`

// TestPerfBatch measures the batch kernel on DPGPU_BATCH_N (default 65,536)
// instances of DPGPU_BATCH_LEN (150) x DPGPU_BATCH_COLS (the same):
// Needleman-Wunsch on DNA, or with DPGPU_BATCH_PROTEIN=1 local alignment
// of proteins with BLOSUM62; the kernel's time, median of 5 after a
// warm-up, for the default layout and the variants DPGPU_BATCH_RPT,
// DPGPU_BATCH_WARPS and DPGPU_BATCH_MINB list (comma-separated). With
// DPGPU_BATCH_QUERY=1 every instance has the same A (a query against a
// database: A shared, which profiles the scoring matrix's reads).
func TestPerfBatch(t *testing.T) {
	perfScale(t)
	e := executor(t)
	n := envInt("DPGPU_BATCH_N", 65536)
	length := envInt("DPGPU_BATCH_LEN", 150)
	cols := envInt("DPGPU_BATCH_COLS", length)
	r := dptest.Rand(t)
	text, alpha := nwBatchText, "ACGT"
	if os.Getenv("DPGPU_BATCH_PROTEIN") != "" {
		text, alpha = swbBatchText, "ARNDCQEGHILKMFPSTWYV"
		if os.Getenv("DPGPU_BATCH_CELLANS") != "" { // what the region answer costs
			text = strings.Replace(text, "answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))", "answer: cell[ROWS-1][COLS-1]", 1)
		}
	}
	seq := func(n int) string {
		b := make([]byte, n)
		for k := range b {
			b[k] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	p0, pl := dptest.Load(t, "nw.dp", fmt.Sprintf(text, seq(length), seq(cols)))
	// The instances share p0's recurrence and plan, with their own data
	// (all the launch reads of them).
	query := os.Getenv("DPGPU_BATCH_QUERY") != ""
	insts := make([]BatchInstance, n)
	seqs := make([][2]string, n)
	for k := range insts {
		p := *p0
		p.Inputs = slices.Clone(p0.Inputs)
		for x := range p.Inputs[:2] {
			if x == 0 && query {
				continue // p0's
			}
			in := *p.Inputs[x]
			s := seq([]int{length, cols}[x])
			seqs[k][x] = s
			in.I = make([]int64, len(s))
			for y := range s {
				in.I[y] = int64(s[y])
			}
			p.Inputs[x] = &in
		}
		insts[k] = BatchInstance{P: &p, Plan: pl}
	}
	type variant struct {
		name string
		o    codegen.Options
	}
	vs := []variant{{name: "default"}, {name: "32-bit", o: codegen.Options{BatchNoPack: true}}}
	for _, v := range envList("DPGPU_BATCH_RPT") {
		vs = append(vs, variant{fmt.Sprintf("rpt %d", v), codegen.Options{BatchRowsPerThread: v}})
	}
	for _, v := range envList("DPGPU_BATCH_WARPS") {
		vs = append(vs, variant{fmt.Sprintf("warps %d", v), codegen.Options{BatchWarps: v}})
	}
	for _, v := range envList("DPGPU_BATCH_MINB") {
		vs = append(vs, variant{fmt.Sprintf("minb %d", v), codegen.Options{BatchMinBlocks: v}})
	}
	cells := float64(n) * float64(p0.Cells())
	vary := []string{"A", "B"}
	if query {
		vary = vary[1:]
		for k := range seqs {
			seqs[k][0] = string(int64sBytes(p0.Inputs[0].I))
		}
	}
	var first []BatchOutcome
	for _, v := range vs {
		o := e.codegenOptions(p0, backend.Options{})
		o.Batch, o.BatchInputs = true, vary
		o.BatchRowsPerThread, o.BatchWarps, o.BatchMinBlocks = v.o.BatchRowsPerThread, v.o.BatchWarps, v.o.BatchMinBlocks
		o.BatchNoPack = v.o.BatchNoPack
		if o.BatchRowsPerThread == 0 {
			o.BatchRowsPerThread = envInt("DPGPU_BATCH_BASE_RPT", 0) // the other variants' (0: the layout's)
		}
		prog, err := codegen.Generate(p0, pl, o)
		if err != nil {
			t.Fatal(err)
		}
		var ks, walls []float64
		for rep := range 6 {
			start := time.Now()
			outs, st, err := e.RunBatch(context.Background(), prog, insts)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = outs
			} else {
				for k := range outs {
					if outs[k].Result.Answer != first[k].Result.Answer {
						t.Fatalf("%s: instance %d: %v, first run %v", v.name, k, outs[k].Result.Answer, first[k].Result.Answer)
					}
				}
			}
			if rep > 0 {
				ks = append(ks, st.Kernel.Seconds())
				walls = append(walls, time.Since(start).Seconds())
			}
		}
		if dir := os.Getenv("DPGPU_CUBIN_DIR"); dir != "" { // for disassembly
			if cubin, _, _, err := e.cache.Compile(e.nvrtc, prog.Source, prog.Name, e.dev.Arch(), prog.Options); err == nil {
				os.WriteFile(filepath.Join(dir, strings.ReplaceAll(v.name, " ", "-")+".cubin"), cubin, 0o644)
			}
		}
		mod, _, _ := e.load(prog)
		info, _ := mod.funcs[codegen.FuncBatch].Info()
		occ, _ := mod.funcs[codegen.FuncBatch].MaxActiveBlocksPerSM(32*prog.BatchWarps, 0)
		k := median(ks)
		t.Logf("%s: %d x %dx%d, rpt %d, %d warps/block, %d regs, %d blocks/SM, %d profiles, packed %v: kernel %.3f ms (%.0f GCUPS), RunBatch %.1f ms",
			v.name, n, length+1, cols+1, prog.RowsPerThread, prog.BatchWarps, info.Regs, occ, prog.BatchProfiles, prog.BatchPacked, k*1e3, cells/k/1e9, median(walls)*1e3)
	}
	// A few answers against the CPU, each instance loaded on its own.
	for k := 0; k < n; k += n/7 + 1 {
		p, pl := dptest.Load(t, "nw.dp", fmt.Sprintf(text, seqs[k][0], seqs[k][1]))
		want, err := cpu.New(1).Run(context.Background(), p, pl, backend.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if first[k].Result.Answer != want.Answer {
			t.Errorf("instance %d: %v, CPU %v", k, first[k].Result.Answer, want.Answer)
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envList(name string) []int {
	var out []int
	for _, f := range strings.Split(os.Getenv(name), ",") {
		if v, err := strconv.Atoi(f); err == nil && v > 0 {
			out = append(out, v)
		}
	}
	return out
}

func int64sBytes(v []int64) []byte {
	b := make([]byte, len(v))
	for k, x := range v {
		b[k] = byte(x)
	}
	return b
}
