package cpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/bitpar"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/plan"
)

// specialSrc is a recurrence the planner recognises (plan.Special) over
// the files a.txt and b.txt, with answer (none: the last cell).
func specialSrc(kind plan.SpecialKind, answer string) string {
	head := "char 1x? A = @\"a.txt\"\nchar 1x? B = @\"b.txt\"\n(len(A)+1) x (len(B)+1)\n"
	var body string
	switch kind {
	case plan.BitLCS:
		body = `cell[i][j] = 0 when i == 0 || j == 0
           | cell[i-1][j-1] + 1 when A[i-1] == B[j-1]
           | max(cell[i-1][j], cell[i][j-1]) otherwise
`
	case plan.BitLevenshtein:
		body = `cell[i][j] = j when i == 0
           | i when j == 0
           | min(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : 1), cell[i-1][j] + 1, cell[i][j-1] + 1) otherwise
`
	default:
		body = `cell[i][j] = i + j when i == 0 || j == 0
           | cell[i-1][j-1] when B[j-1] == A[i-1]
           | 1 + min(cell[i][j-1], cell[i-1][j]) otherwise
`
	}
	if answer != "" {
		body += "answer: " + answer + "\n"
	}
	return head + body
}

// TestSpecialAgainstScalar checks the bit-parallel answers against the
// scalar sweep (NoSpecial) and the plain DP on random sequences, for the
// last cell and the semi-global answers over the last row and column.
func TestSpecialAgainstScalar(t *testing.T) {
	r := dptest.Rand(t)
	sizes := []int{1, 2, 63, 64, 65, 127, 128, 1000, 4097}
	others := []int{1, 64, 65, 1000}
	if testing.Short() {
		sizes = []int{1, 63, 64, 65, 130}
	}
	alphabets := []string{"AB", "ACGT", "ABCDEFGHIJKLMNOPQRST"}
	type pair struct{ m, n int }
	var pairs []pair
	for _, s := range sizes {
		for _, o := range others {
			pairs = append(pairs, pair{s, o}, pair{o, s})
		}
	}
	pairs = append(pairs, pair{4097, 4097})
	for k, pr := range pairs {
		alpha := alphabets[k%len(alphabets)]
		a, b := dptest.String(r, pr.m, alpha), dptest.String(r, pr.n, alpha)
		kind := []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel}[k%3]
		g := dptest.BitGrid(kind, a, b)
		best, op := "min", func(x, y int64) bool { return x < y }
		if kind == plan.BitLCS {
			best, op = "max", func(x, y int64) bool { return x > y }
		}
		// want: the answer and its cell (the first best in sweep order).
		lastRow, lastCol := [3]int64{g[pr.m][0], int64(pr.m), 0}, [3]int64{g[0][pr.n], 0, int64(pr.n)}
		for j := range g[pr.m] {
			if op(g[pr.m][j], lastRow[0]) {
				lastRow = [3]int64{g[pr.m][j], int64(pr.m), int64(j)}
			}
		}
		for i := range g {
			if op(g[i][pr.n], lastCol[0]) {
				lastCol = [3]int64{g[i][pr.n], int64(i), int64(pr.n)}
			}
		}
		for _, c := range []struct {
			answer string
			want   [3]int64
		}{
			{"", [3]int64{g[pr.m][pr.n], int64(pr.m), int64(pr.n)}},
			{best + "(j in 0..COLS-1: cell[ROWS-1][j])", lastRow},
			{best + "(i in 0..ROWS-1: cell[i][COLS-1])", lastCol},
		} {
			name := fmt.Sprintf("%s %dx%d alphabet %d %q", kind, pr.m, pr.n, len(alpha), c.answer)
			p, pl := dptest.Load(t, "t.dp", specialSrc(kind, c.answer), dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
			if pl.Special == nil || pl.Special.Kind != kind {
				t.Fatalf("%s: recognised %+v", name, pl.Special)
			}
			for _, no := range []bool{false, true} {
				res, err := solve(t, p, pl, backend.Options{NoSpecial: no})
				if err != nil {
					t.Fatalf("%s NoSpecial %v: %v", name, no, err)
				}
				got := [3]int64{res.Answer.I, res.AnswerI, res.AnswerJ}
				if got != c.want || !res.AnswerIsCell || (res.Special != nil) == no {
					t.Fatalf("%s NoSpecial %v: got %v (special %v), want %v", name, no, got, res.Special != nil, c.want)
				}
			}
		}
	}
}

// TestNoSpecialRunsTheSchedule gives the executor a plan whose Special
// reads another sequence: only a run that uses the Special gets its
// answer, so NoSpecial and the runs that keep the grid must not.
func TestNoSpecialRunsTheSchedule(t *testing.T) {
	src := `char 1x? A = "GATTACAGATTACA"
char 1x? B = "TTTTTTTTTTTTTTT"
char 1x? C = "ACAGATTAGATTAC"
(len(A)+1) x (len(C)+1)
cell[i][j] = 0 when i == 0 || j == 0
           | cell[i-1][j-1] + 1 when A[i-1] == C[j-1]
           | max(cell[i-1][j], cell[i][j-1]) otherwise
`
	p, pl := dptest.Load(t, "t.dp", src)
	if pl.Special == nil {
		t.Fatal("not recognised")
	}
	want := dptest.BitGrid(plan.BitLCS, "GATTACAGATTACA", "ACAGATTAGATTAC")[14][14]
	tampered := *pl
	sp := *pl.Special
	sp.B = p.Input("B") // no character in common with A: LCS 0
	tampered.Special = &sp
	for _, c := range []struct {
		name string
		opt  backend.Options
		want int64
	}{
		{"special", backend.Options{}, 4}, // LCS(A, B) = 4: the T's
		{"NoSpecial", backend.Options{NoSpecial: true}, want},
		{"Maintain", backend.Options{Maintain: true}, want},
		{"Traceback", backend.Options{Traceback: true}, want},
	} {
		res, err := solve(t, p, &tampered, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Answer.I != c.want || (res.Special != nil) != (c.name == "special") {
			t.Errorf("%s: answer %d (special %v), want %d", c.name, res.Answer.I, res.Special != nil, c.want)
		}
		if (c.opt.Maintain || c.opt.Traceback) && res.Grid == nil {
			t.Errorf("%s: no grid kept", c.name)
		}
	}
	if want == 4 {
		t.Fatal("the test cannot tell the runs apart")
	}
}

// TestSpecialMemory: the bit-parallel path checks what it allocates before
// allocating it, and refuses with hostmem.ErrTooLarge (exit 2) where it
// does not fit; its bound is what the run reports as its peak.
func TestSpecialMemory(t *testing.T) {
	r := dptest.Rand(t)
	a, b := dptest.String(r, 5000, "ACGT"), dptest.String(r, 3000, "ACGT")
	src := fmt.Sprintf("char 1x? A = %q\nchar 1x? B = %q\n(len(A)+1) x (len(B)+1)\n%s", a, b, specialSrc(plan.BitLCS, "")[len("char 1x? A = @\"a.txt\"\nchar 1x? B = @\"b.txt\"\n(len(A)+1) x (len(B)+1)\n"):])
	p, pl := dptest.Load(t, "lcs.dp", src)
	if pl.Special == nil {
		t.Fatal("not recognised")
	}
	for _, threads := range []int{1, 2} {
		need := bitpar.Bytes(p.Rows-1, p.Cols-1, 4, threads)
		res, err := New(threads).Run(context.Background(), p, pl, backend.Options{Threads: threads})
		if err != nil || res.Stats.PeakHostBytes != need || res.Special == nil {
			t.Fatalf("threads %d: %v, peak %d, want %d", threads, err, res.Stats.PeakHostBytes, need)
		}
		withAvailable(t, need-1)
		_, err = New(threads).Run(context.Background(), p, pl, backend.Options{Threads: threads})
		if !errors.Is(err, hostmem.ErrTooLarge) || !strings.Contains(err.Error(), "bit-parallel LCS") {
			t.Errorf("threads %d with %d bytes available: %v", threads, need-1, err)
		}
		withAvailable(t, 1<<40)
	}
}
