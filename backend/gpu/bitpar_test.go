package gpu

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// bitparSource is the .dp text of kind over a.txt (rows) and b.txt, or
// over a and b themselves when inline; answer "" is the last cell, "row"
// the best of the last row, "col" of the last column.
func bitparSource(kind plan.SpecialKind, answer string, inline bool, a, b string) string {
	src := bitparText(kind, answer)
	if inline {
		src = strings.Replace(src, `@"a.txt"`, strconv.Quote(a), 1)
		src = strings.Replace(src, `@"b.txt"`, strconv.Quote(b), 1)
	}
	return src
}

func bitparText(kind plan.SpecialKind, answer string) string {
	src := ""
	switch kind {
	case plan.BitLCS:
		src = `problem lcs
char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                  when i == 0 || j == 0
           | cell[i-1][j-1] + 1                 when A[i-1] == B[j-1]
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`
	default:
		sub := 1
		if kind == plan.BitIndel {
			sub = 2 // never cheaper than a deletion and an insertion
		}
		src = fmt.Sprintf(`problem %s
char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 && j == 0
           | cell[i][j-1] + 1        when i == 0
           | cell[i-1][j] + 1        when j == 0
           | min(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : %d), cell[i-1][j] + 1, cell[i][j-1] + 1)   otherwise
`, kind, sub)
	}
	op := "min"
	if kind == plan.BitLCS {
		op = "max"
	}
	switch answer {
	case "row":
		src += fmt.Sprintf("answer: %s(j in 0..COLS-1: cell[ROWS-1][j])\n", op)
	case "col":
		src += fmt.Sprintf("answer: %s(i in 0..ROWS-1: cell[i][COLS-1])\n", op)
	}
	return src
}

// loadSpecial loads kind over a and b with pl.Special set (by hand until
// the planner recognises it; as recognised when it does).
func loadSpecial(t testing.TB, kind plan.SpecialKind, answer, a, b string) (*ir.Problem, *plan.Plan) {
	t.Helper()
	// Files cannot be empty; short sequences go inline.
	inline := len(a) <= 5000 && len(b) <= 5000
	p, pl := dptest.Load(t, string(kind)+".dp", bitparSource(kind, answer, inline, a, b), dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
	sp := &plan.Special{Kind: kind, Name: "bit-parallel " + string(kind), A: p.Inputs[0], B: p.Inputs[1], SemiGlobal: answer != ""}
	if pl.Special != nil && pl.Special.Kind != kind {
		t.Fatalf("the planner recognised %s, want %s", pl.Special.Kind, kind)
	}
	pl.Special = sp
	return p, pl
}

// TestBitpar: the bit-parallel kernel's answers equal the CPU's scalar path
// (--no-special) and a plain DP, at lengths around the word and strip
// sizes and alphabets of 2, 4 and 20 letters.
func TestBitpar(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	sizes := [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 63}, {63, 64}, {64, 64}, {65, 64}, {64, 65}, {65, 65}, {4097, 65}, {65, 4097}, {4097, 4097}, {2049, 1000}}
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
		for _, alpha := range []string{"AC", "ACGT", "ACDEFGHIKLMNPQRSTVWY"} {
			for _, answer := range []string{"", "row", "col"} {
				for _, sz := range sizes {
					a, b := dptest.String(r, sz[0], alpha), dptest.String(r, sz[1], alpha[:max(1, len(alpha)-1)])
					name := fmt.Sprintf("%s/%d/%s/%dx%d", kind, len(alpha), answer, sz[0], sz[1])
					p, pl := loadSpecial(t, kind, answer, a, b)
					if bitparFor(p, pl, backend.Options{}) == nil {
						t.Fatalf("%s: the bit-parallel kernel does not take it", name)
					}
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					got, err := e.Run(ctx, p, pl, backend.Options{})
					cancel()
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if got.Special == nil || got.Special.Kind != kind {
						t.Fatalf("%s: the result names %v as the algorithm that ran, want %v (the report says which ran)", name, got.Special, kind)
					}
					scalar, err := cpu.New(0).Run(context.Background(), p, pl, backend.Options{NoSpecial: true})
					if err != nil {
						t.Fatalf("%s: CPU: %v", name, err)
					}
					g := dptest.BitGrid(kind, a, b)
					n, m := sz[0], sz[1]
					want := g[n][m]
					switch answer {
					case "row":
						for j := range g[n] {
							if (kind == plan.BitLCS && g[n][j] > want) || (kind != plan.BitLCS && g[n][j] < want) || j == 0 {
								want = g[n][j]
							}
						}
					case "col":
						for i := range g {
							if (kind == plan.BitLCS && g[i][m] > want) || (kind != plan.BitLCS && g[i][m] < want) || i == 0 {
								want = g[i][m]
							}
						}
					}
					if got.Answer.I != want || scalar.Answer.I != want || got.Answer.T != scalar.Answer.T {
						t.Errorf("%s: GPU %v, CPU scalar %v, plain DP %d", name, got.Answer, scalar.Answer, want)
					}
					if got.AnswerIsCell != scalar.AnswerIsCell || got.AnswerI != scalar.AnswerI || got.AnswerJ != scalar.AnswerJ {
						t.Errorf("%s: answer cell (%d, %d) %v, scalar (%d, %d) %v", name, got.AnswerI, got.AnswerJ, got.AnswerIsCell, scalar.AnswerI, scalar.AnswerJ, scalar.AnswerIsCell)
					}
				}
			}
		}
	}
}

// TestBitparBandsOnOne: a bit-parallel run of bitparBandsOnOne strips or
// more on one GPU runs in two row bands (runBitparBands) and equals the
// CPU's scalar schedule (few columns) or the CPU's bit-parallel code; the
// answer over the last column reads the rows as columns, unsplit.
func TestBitparBandsOnOne(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	n := int(bitparBandsOnOne)*2048 + 17
	for _, c := range []struct {
		kind   plan.SpecialKind
		answer string
		m      int
	}{{plan.BitLCS, "", 1}, {plan.BitLCS, "", 65}, {plan.BitLevenshtein, "row", 63}, {plan.BitIndel, "", 300}, {plan.BitLevenshtein, "col", 40}} {
		name := fmt.Sprintf("%s/%s/%dx%d", c.kind, c.answer, n, c.m)
		a, b := dptest.String(r, n, "ACGT"), dptest.String(r, c.m, "ACGT")
		p, pl := loadSpecial(t, c.kind, c.answer, a, b)
		got, err := e.Run(context.Background(), p, pl, backend.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if banded := strings.Contains(got.Device, "2 row bands"); banded != (c.answer != "col") {
			t.Errorf("%s: %s (two row bands: %v)", name, got.Device, !banded)
		}
		opt := backend.Options{NoSpecial: c.m <= 65}
		want, err := cpu.New(0).Run(context.Background(), p, pl, opt)
		if err != nil {
			t.Fatalf("%s: CPU: %v", name, err)
		}
		if got.Answer != want.Answer || got.AnswerI != want.AnswerI || got.AnswerJ != want.AnswerJ {
			t.Errorf("%s: GPU %v at (%d, %d), CPU %v at (%d, %d)", name, got.Answer, got.AnswerI, got.AnswerJ, want.Answer, want.AnswerI, want.AnswerJ)
		}
	}
}

// With --no-special, maintain or a traceback, the schedule runs: the kernel
// that computes no cells is not taken, and the answers agree.
func TestBitparOff(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 300), dptest.DNA(r, 200)
	p, pl := loadSpecial(t, plan.BitLevenshtein, "", a, b)
	want := dptest.BitGrid(plan.BitLevenshtein, a, b)[300][200]
	for k, opt := range []backend.Options{{}, {NoSpecial: true}, {Maintain: true}, {Traceback: true}} {
		special := bitparFor(p, pl, opt) != nil
		if special != (k == 0) {
			t.Errorf("%+v: bit-parallel %v", opt, special)
		}
		res, err := e.Run(context.Background(), p, pl, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		if res.Answer.I != want {
			t.Errorf("%+v: answer %v, want %d", opt, res.Answer, want)
		}
		if (res.Grid != nil) != (opt.Maintain || opt.Traceback) {
			t.Errorf("%+v: grid kept %v", opt, res.Grid != nil)
		}
	}
	// A cancelled run stops with the context's error.
	big, bpl := loadSpecial(t, plan.BitLCS, "", dptest.DNA(r, 200000), dptest.DNA(r, 200000))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Run(ctx, big, bpl, backend.Options{}); err == nil {
		t.Error("a cancelled run succeeded")
	}
}

// TestPerfBitpar (DPGPU_PERF=1): the bit-parallel kernels at 262,144^2 and
// 1,048,576^2 (DPGPU_PERF=big: and 4,194,304^2), LCS and Levenshtein, median
// of 3 after a warm-up; lines starting with "bitpar" (scripts/device-check.sh
// keeps them).
func TestPerfBitpar(t *testing.T) {
	scale := perfScale(t)
	e := executor(t)
	r := dptest.Rand(t)
	sizes := []int{262144 / int(scale), 1048576 / int(scale)}
	if os.Getenv("DPGPU_PERF") == "big" {
		sizes = append(sizes, 4194304/int(scale))
	}
	for _, n := range sizes {
		a, b := dptest.DNA(r, n), dptest.DNA(r, n)
		for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein} {
			p, pl := loadSpecial(t, kind, "", a, b)
			var comp, wall []float64
			var first ir.Value
			for k := 0; k < 4; k++ {
				res, err := e.Run(context.Background(), p, pl, backend.Options{})
				if err != nil {
					t.Fatalf("%s %d: %v", kind, n, err)
				}
				if k == 0 {
					first = res.Answer
					continue
				}
				if res.Answer != first {
					t.Errorf("%s %d: answers differ between runs: %v and %v", kind, n, first, res.Answer)
				}
				comp = append(comp, res.Stats.ComputeSeconds)
				wall = append(wall, res.Stats.Seconds)
			}
			c := median(comp)
			fmt.Printf("bitpar %-12s %8d^2 %9.0f GCUPS kernel %9.2f ms wall %9.2f ms answer %v (%s)\n",
				kind, n, float64(p.Cells())/c/1e9, c*1e3, median(wall)*1e3, first, e.Device())
		}
	}
}

// bitparFor takes the last cell and the best of the last row or column
// (transposed), and leaves every other answer to the schedule; no GPU
// needed. The plain DP of these tests agrees with the CPU's scalar path.
func TestBitparFor(t *testing.T) {
	r := dptest.Rand(t)
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
		for _, c := range []struct {
			answer           string
			track, transpose bool
		}{{"", false, false}, {"row", true, false}, {"col", true, true}} {
			a, b := dptest.String(r, 70, "ACG"), dptest.String(r, 90, "AC")
			p, pl := loadSpecial(t, kind, c.answer, a, b)
			job := bitparFor(p, pl, backend.Options{})
			if job == nil || job.track != c.track || job.transposed != c.transpose {
				t.Fatalf("%s %q: job %+v", kind, c.answer, job)
			}
			if c.track && (job.lo != 0 || job.hi != int64(len(job.cols))) {
				t.Errorf("%s %q: columns %d..%d of %d", kind, c.answer, job.lo, job.hi, len(job.cols))
			}
			s, err := cpu.New(0).Run(context.Background(), p, pl, backend.Options{NoSpecial: true})
			if err != nil {
				t.Fatal(err)
			}
			g := dptest.BitGrid(kind, a, b)
			if c.answer == "" && s.Answer.I != g[70][90] {
				t.Errorf("%s: scalar %v, plain DP %d", kind, s.Answer, g[70][90])
			}
		}
		// Not the last row: the schedule.
		src := bitparText(kind, "") + "answer: cell[1][1]\n"
		p, pl := dptest.Load(t, "x.dp", strings.NewReplacer(`@"a.txt"`, `"ACGT"`, `@"b.txt"`, `"ACG"`).Replace(src))
		pl.Special = &plan.Special{Kind: kind, A: p.Inputs[0], B: p.Inputs[1]}
		if bitparFor(p, pl, backend.Options{}) != nil {
			t.Errorf("%s: answer cell[1][1] taken by the bit-parallel kernel", kind)
		}
	}
}
