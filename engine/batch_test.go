package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// nwRef is an independent Needleman-Wunsch score (match 1, mismatch -1,
// gap -2: the built-in's defaults).
func nwRef(a, b string) int64 {
	prev := make([]int64, len(b)+1)
	cur := make([]int64, len(b)+1)
	for j := range prev {
		prev[j] = int64(-2 * j)
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = int64(-2 * i)
		for j := 1; j <= len(b); j++ {
			s := int64(-1)
			if a[i-1] == b[j-1] {
				s = 1
			}
			cur[j] = max(prev[j-1]+s, prev[j]-2, cur[j-1]-2)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// record is one FASTA record written by writeFASTA; bad records carry a
// byte no char input holds.
type record struct {
	name, seq string
	bad       bool
}

func writeFASTA(t testing.TB, path string, recs []record) {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, ">%s some description\n", r.name)
		for s := r.seq; len(s) > 0; s = s[min(len(s), 60):] {
			b.WriteString(strings.ToLower(s[:min(len(s), 60)]) + "\n") // lower case: read as upper
		}
		if r.bad {
			b.WriteString("AC\x01GT\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func randomRecords(t *testing.T, prefix string, n int) []record {
	r := dptest.Rand(t)
	recs := make([]record, n)
	for k := range recs {
		recs[k] = record{name: fmt.Sprintf("%s%d", prefix, k), seq: dptest.DNA(r, r.IntN(201))}
		if k%7 == 3 {
			recs[k].seq = "" // empty sequences are instances too
		}
	}
	if n > 2 {
		recs[n/2].bad = true
	}
	return recs
}

// runBatch collects a batch's results in the order emitted.
func runBatch(t *testing.T, ctx context.Context, name string, specs []string, opt BatchOptions) ([]*BatchResult, *BatchStats, error) {
	t.Helper()
	src, err := Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	var args []*BatchArg
	for _, s := range specs {
		a, err := OpenBatchArg(s)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, a)
	}
	var got []*BatchResult
	st, err := Batch(ctx, src, args, opt, func(r *BatchResult) error {
		got = append(got, r)
		return nil
	})
	return got, st, err
}

// solveOne is the one-by-one reference: engine.Load and Run on the
// record given as --input.
func solveOne(t *testing.T, a, b string) int64 {
	t.Helper()
	src, _ := Resolve("needleman-wunsch")
	cfg := bind.Config{Values: []bind.Value{{Name: "A", Text: a}, {Name: "B", Text: b}}}
	l, err := Load(src, cfg)
	if err != nil {
		t.Fatalf("solve %q %q: %v", a, b, err)
	}
	res, err := Run(context.Background(), l, cpu.New(1), backend.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res.Answer().I
}

func TestBatchMatchesOneByOne(t *testing.T) {
	dir := t.TempDir()
	as := randomRecords(t, "a", 40)
	bs := randomRecords(t, "b", 3)
	bs[1].bad = false
	writeFASTA(t, filepath.Join(dir, "a.fa"), as)
	writeFASTA(t, filepath.Join(dir, "b.fa"), bs)
	cases := []struct {
		name          string
		specs         []string
		first, second []record
		pairs         bool
		want          [][2]int // indices into first, second per result
	}{
		{"one-vs-many", []string{"a.fa", "b.fa"}, as, bs, false, cross(len(as), len(bs))},
		{"many-vs-one", []string{"b.fa", "a.fa"}, bs, as, false, cross(len(bs), len(as))},
		{"pairs", []string{"a.fa", "a.fa"}, as, as, true, diag(len(as))},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d", c.name, workers), func(t *testing.T) {
				var specs []string
				for _, s := range c.specs {
					specs = append(specs, filepath.Join(dir, s))
				}
				got, st, err := runBatch(t, context.Background(), "needleman-wunsch", specs, BatchOptions{Workers: workers, Pairs: c.pairs, Window: 5})
				if !errors.Is(err, ErrBatchFailed) || !errors.Is(err, ErrInput) {
					t.Fatalf("err = %v, want ErrBatchFailed (a bad record)", err)
				}
				if len(got) != len(c.want) || st.Instances != int64(len(c.want)) {
					t.Fatalf("%d results (stats %d), want %d", len(got), st.Instances, len(c.want))
				}
				var failed int64
				for k, r := range got {
					ia, ib := c.want[k][0], c.want[k][1]
					ra, rb := c.first[ia], c.second[ib]
					if r.Index != int64(k) || r.Names[0] != ra.name || r.Names[1] != rb.name {
						t.Fatalf("result %d: index %d names %v, want %s %s", k, r.Index, r.Names, ra.name, rb.name)
					}
					if ra.bad || rb.bad {
						failed++
						if r.Err == nil || !strings.Contains(r.Err.Error(), "control character") {
							t.Errorf("result %d (%v): err %v, want the bad letter", k, r.Names, r.Err)
						}
						continue
					}
					if r.Err != nil {
						t.Fatalf("result %d (%v): %v", k, r.Names, r.Err)
					}
					want := nwRef(ra.seq, rb.seq)
					if r.Answer.I != want {
						t.Errorf("%v: answer %d, want %d", r.Names, r.Answer.I, want)
					}
					if k%9 == 0 {
						if one := solveOne(t, ra.seq, rb.seq); one != r.Answer.I {
							t.Errorf("%v: batch %d, one-by-one solve %d", r.Names, r.Answer.I, one)
						}
					}
				}
				if st.Failed != failed {
					t.Errorf("stats: %d failed, want %d", st.Failed, failed)
				}
			})
		}
	}
}

func cross(n, m int) [][2]int {
	var out [][2]int
	for i := range n {
		for j := range m {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

func diag(n int) [][2]int {
	var out [][2]int
	for i := range n {
		out = append(out, [2]int{i, i})
	}
	return out
}

func TestBatchDirectoryAndList(t *testing.T) {
	dir := t.TempDir()
	seqs := map[string]string{"c.txt": "GATTACA", "a.txt": "GCA", "b.txt": "TTTT"}
	sub := filepath.Join(dir, "in")
	os.Mkdir(sub, 0o755)
	for n, s := range seqs {
		os.WriteFile(filepath.Join(sub, n), []byte(s+"\n"), 0o644)
	}
	os.WriteFile(filepath.Join(sub, ".hidden"), []byte("AAAA\n"), 0o644)
	os.Mkdir(filepath.Join(sub, "zdir"), 0o755)
	ref := filepath.Join(dir, "ref.txt")
	os.WriteFile(ref, []byte("GCATGCU\n"), 0o644)
	list := filepath.Join(dir, "list")
	os.WriteFile(list, []byte("# comment\nin/b.txt\n\nin/a.txt\n"), 0o644)
	for _, c := range []struct {
		spec  string
		names []string
	}{
		{sub, []string{"a.txt", "b.txt", "c.txt"}},
		{"@" + list, []string{"in/b.txt", "in/a.txt"}},
	} {
		got, _, err := runBatch(t, context.Background(), "needleman-wunsch", []string{c.spec, ref}, BatchOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.names) {
			t.Fatalf("%s: %d results, want %d", c.spec, len(got), len(c.names))
		}
		for k, r := range got {
			if r.Names[0] != c.names[k] || r.Names[1] != ref {
				t.Errorf("%s: result %d names %v", c.spec, k, r.Names)
			}
			if want := nwRef(seqs[filepath.Base(c.names[k])], "GCATGCU"); r.Answer.I != want {
				t.Errorf("%s: %s: %d, want %d", c.spec, c.names[k], r.Answer.I, want)
			}
		}
	}
}

func TestBatchErrors(t *testing.T) {
	dir := t.TempDir()
	writeFASTA(t, filepath.Join(dir, "a.fa"), []record{{name: "x", seq: "AC"}, {name: "y", seq: "G"}})
	writeFASTA(t, filepath.Join(dir, "b.fa"), []record{{name: "z", seq: "AC"}})
	a, b := filepath.Join(dir, "a.fa"), filepath.Join(dir, "b.fa")
	for _, c := range []struct {
		name, problem string
		specs         []string
		pairs         bool
		want          string
	}{
		{"pairs of unequal length", "needleman-wunsch", []string{a, b}, true, "ended after 1"},
		{"too few arguments", "needleman-wunsch", []string{a}, false, "takes 2 positional arguments"},
		{"FASTA for numbers", "lis", []string{a}, false, "not a char input"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := runBatch(t, context.Background(), c.problem, c.specs, BatchOptions{Pairs: c.pairs})
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInput) {
				t.Fatalf("err = %v, want an input error containing %q", err, c.want)
			}
		})
	}
	if _, err := OpenBatchArg(filepath.Join(dir, "nope.fa")); err == nil {
		t.Error("a missing file was accepted")
	}
	if _, err := OpenBatchArg("@" + filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing list was accepted")
	}
}

func TestBatchFailFastAndCancel(t *testing.T) {
	dir := t.TempDir()
	recs := make([]record, 50)
	for k := range recs {
		recs[k] = record{name: fmt.Sprint(k), seq: "ACGT"}
	}
	recs[10].bad = true
	a := filepath.Join(dir, "a.fa")
	writeFASTA(t, a, recs)
	got, _, err := runBatch(t, context.Background(), "needleman-wunsch", []string{a, a}, BatchOptions{Pairs: true, FailFast: true, Workers: 2})
	if !errors.Is(err, ErrBatchFailed) || len(got) != 11 || got[10].Err == nil {
		t.Fatalf("fail-fast: %d results, err %v; want 11 ending with the bad record", len(got), err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	src, _ := Resolve("needleman-wunsch")
	arg, _ := OpenBatchArg(a)
	n := 0
	_, err = Batch(ctx, src, []*BatchArg{arg, arg}, BatchOptions{Workers: 2}, func(*BatchResult) error {
		if n++; n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n > 5 {
		t.Fatalf("cancel: err %v after %d results, want context.Canceled after 5", err, n)
	}
}

func TestBatchMemoryGate(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.fa")
	writeFASTA(t, a, []record{{name: "x", seq: strings.Repeat("A", 10)}, {name: "y", seq: strings.Repeat("C", 3000)}})
	// A budget that one small instance fits in and the large one does not.
	got, _, err := runBatch(t, context.Background(), "needleman-wunsch", []string{a, a}, BatchOptions{Pairs: true, Memory: 10 << 20, Traceback: true})
	if !errors.Is(err, ErrBatchFailed) || len(got) != 2 {
		t.Fatalf("err %v, %d results", err, len(got))
	}
	if got[0].Err != nil || got[1].Err == nil || !strings.Contains(got[1].Err.Error(), "more than the") {
		t.Fatalf("results: %v / %v; want the large one refused for memory", got[0].Err, got[1].Err)
	}
}

func TestBatchTraceback(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.fa")
	b := filepath.Join(dir, "b.fa")
	writeFASTA(t, a, []record{{name: "x", seq: "GATTACA"}})
	writeFASTA(t, b, []record{{name: "y", seq: "GCATGCU"}})
	got, _, err := runBatch(t, context.Background(), "needleman-wunsch", []string{a, b}, BatchOptions{Traceback: true})
	if err != nil {
		t.Fatal(err)
	}
	r := got[0]
	if r.Answer.I != -1 || !strings.Contains(r.Solution, "GATTACA") || len(r.Path) == 0 {
		t.Fatalf("answer %d, solution %q, path %v", r.Answer.I, r.Solution, r.Path)
	}
}

// TestBatchTracebackPath: a traceback that is a path is written as the
// path (no solution text: the output's path column) on a 2-D grid, and as
// the cells the user names on a 3-D grid, whose [i][j] would misname them.
func TestBatchTracebackPath(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.fa")
	b := filepath.Join(dir, "b.fa")
	c := filepath.Join(dir, "c.fa")
	writeFASTA(t, a, []record{{name: "x", seq: "ACGTTG"}})
	writeFASTA(t, b, []record{{name: "y", seq: "AGTTCG"}})
	writeFASTA(t, c, []record{{name: "z", seq: "CGTAGCA"}})
	lcs2 := filepath.Join(dir, "lcs2.dp")
	lcs3 := filepath.Join(dir, "lcs3.dp")
	for f, src := range map[string]string{
		lcs2: "args: A, B\nchar 1x? A = @\"x\"\nchar 1x? B = @\"x\"\n(len(A)+1) x (len(B)+1)\ncell[i][j] = 0 when i == 0 || j == 0\n | cell[i-1][j-1] + 1 when A[i-1] == B[j-1]\n | max(cell[i-1][j], cell[i][j-1]) otherwise\n",
		lcs3: "args: A, B, C\n" + strings.NewReplacer(`"ACG"`, `@"x"`, `"AGT"`, `@"x"`, `"CGTA"`, `@"x"`).Replace(dptest.LCS3("ACG", "AGT", "CGTA")),
	} {
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := runBatch(t, context.Background(), lcs2, []string{a, b}, BatchOptions{Traceback: true})
	if err != nil || len(got) != 1 || got[0].Answer.I != 5 || got[0].Solution != "" || len(got[0].Path) != 8 {
		t.Fatalf("lcs2: %+v %v", got, err)
	}
	got, _, err = runBatch(t, context.Background(), lcs3, []string{a, b, c}, BatchOptions{Traceback: true})
	if err != nil || len(got) != 1 || got[0].Answer.I != int64(dptest.LCS3Length("ACGTTG", "AGTTCG", "CGTAGCA")) || !strings.HasPrefix(got[0].Solution, "cell[6][6][7](") {
		t.Fatalf("lcs3: %+v %v", got, err)
	}
}

// TestBatchNoArguments runs the file's own data once.
func TestBatchNoArguments(t *testing.T) {
	got, _, err := runBatch(t, context.Background(), "needleman-wunsch", nil, BatchOptions{})
	if err != nil || len(got) != 1 || got[0].Answer.I != nwRef("GATTACA", "GCATGCU") {
		t.Fatalf("%v %v", got, err)
	}
}

// TestBatchMixedShapes runs, on one worker (whose tile buffers and
// registers are reused from instance to instance), records of different
// lengths and alphabets and a bad one after large ones, and compares every
// answer with a one-by-one solve and the plain-Go reference.
func TestBatchMixedShapes(t *testing.T) {
	dir := t.TempDir()
	r := dptest.Rand(t)
	protein := func(n int) string {
		b := make([]byte, n)
		for k := range b {
			b[k] = "ACDEFGHIKLMNPQRSTVWY"[r.IntN(20)]
		}
		return string(b)
	}
	recs := []record{
		{name: "big", seq: dptest.DNA(r, 700)},
		{name: "p1", seq: protein(90)},
		{name: "one", seq: "A"},
		{name: "bad", seq: "ACGT", bad: true},
		{name: "p2", seq: protein(300)},
		{name: "empty"},
		{name: "dna", seq: dptest.DNA(r, 140)},
	}
	q := []record{{name: "q", seq: protein(40) + dptest.DNA(r, 120)}}
	writeFASTA(t, filepath.Join(dir, "db.fa"), recs)
	writeFASTA(t, filepath.Join(dir, "q.fa"), q)
	got, _, err := runBatch(t, context.Background(), "needleman-wunsch", []string{filepath.Join(dir, "q.fa"), filepath.Join(dir, "db.fa")}, BatchOptions{Workers: 1})
	if !errors.Is(err, ErrBatchFailed) || len(got) != len(recs) {
		t.Fatalf("err %v, %d results; want ErrBatchFailed and %d", err, len(got), len(recs))
	}
	for k, res := range got {
		if recs[k].bad {
			if res.Err == nil {
				t.Errorf("%s: no error", recs[k].name)
			}
			continue
		}
		if res.Err != nil {
			t.Fatalf("%s: %v", recs[k].name, res.Err)
		}
		want := nwRef(q[0].seq, recs[k].seq)
		if one := solveOne(t, q[0].seq, recs[k].seq); res.Answer.I != want || one != want {
			t.Errorf("%s: batch %d, one-by-one %d, reference %d", recs[k].name, res.Answer.I, one, want)
		}
	}
}
