package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// TestExitCodesByClass runs one case of every class of bad input of issue
// #16 through run and checks the exit status and the message: 2 for
// everything the user's file, inputs or flags cause (run-time errors of
// the recurrence included), 0 for what must work.
func TestExitCodesByClass(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want []string // in stderr (or stdout for code 0)
		deny []string // nowhere in stderr
	}{
		{"unknown command", []string{"frob"}, 2, []string{"unknown command", "frob"}, nil},
		{"help of an unknown command", []string{"help", "frob"}, 2, []string{"frob"}, nil},
		{"unknown gen-data kind", []string{"gen-data", "frob"}, 2, []string{"unknown kind", "frob"}, nil},
		{"negative threads", []string{"solve", "--threads", "-1", "knapsack"}, 2, []string{"--threads -1"}, nil},
		{"absurd threads", []string{"solve", "--threads", "1000000", "knapsack"}, 2, []string{"--threads"}, nil},
		{"bad backend before loading", []string{"solve", "--backend", "foo", "nosuch.dp"}, 2, []string{"unknown backend"}, nil},
		{"grid directory missing", []string{"solve", "-b", "cpu", "--grid", filepath.Join(dir, "no", "g.npy"), "knapsack"}, 2, []string{"does not exist"}, nil},
		{"grid is a directory", []string{"solve", "-b", "cpu", "--grid", filepath.Join(dir, "d.npy"), "knapsack"}, 2, []string{"is a directory"}, nil},
		{"traceback without a start cell", []string{"solve", "-b", "cpu", "--traceback", "testdata/sum.dp"}, 2, []string{"--traceback", "not one cell"}, nil},
		{"division by zero", []string{"solve", "-b", "cpu", "testdata/div.dp"}, 2, []string{"div.dp:5:", "division by zero", "^"}, nil},
		{"read outside the grid", []string{"solve", "-b", "cpu", "testdata/oob.dp"}, 2, []string{"oob.dp:5:", "outside the 3x3 grid"}, nil},
		// The next two depend on the arithmetic contract (docs/language.md
		// section 6.1) that other changes implement in eval and codegen.
		{"long overflow", []string{"solve", "-b", "cpu", "testdata/ovf-long.dp"}, 2, []string{"ovf-long.dp:6:", "overflow"}, nil},
		{"NaN in a cell", []string{"solve", "-b", "cpu", "testdata/nan.dp"}, 2, []string{"nan.dp:6:", "NaN"}, nil},
		{"int overflow", []string{"solve", "-b", "cpu", "testdata/ovf-int.dp"}, 2, []string{"ovf-int.dp:5:", "int"}, nil},
		{"gen-data NaN ratio", []string{"gen-data", "lcs", "--ratio", "NaN", "-o", filepath.Join(dir, "p")}, 2, []string{"--ratio NaN"}, nil},
		{"gen-data NaN planted", []string{"gen-data", "lcs", "--planted", "nan", "-o", filepath.Join(dir, "p")}, 2, []string{"--planted NaN"}, nil},
		{"gen-data negative length", []string{"gen-data", "lcs", "--len", "-3", "-o", filepath.Join(dir, "p")}, 2, []string{"--len -3"}, nil},
		{"gen-data absurd length", []string{"gen-data", "lcs", "--len", "999999999999", "-o", filepath.Join(dir, "p")}, 2, []string{"--len"}, nil},
		{"gen-data bad extension", []string{"gen-data", "lcs", "--ext", ".png", "-o", filepath.Join(dir, "p")}, 2, []string{"--ext"}, nil},
		{"gen-data no items", []string{"gen-data", "knapsack", "--items", "0", "-o", filepath.Join(dir, "k.txt")}, 2, []string{"--items 0"}, nil},
		{"gen-data zero capacity", []string{"gen-data", "knapsack", "--capacity", "0", "-o", filepath.Join(dir, "k.txt")}, 2, []string{"--capacity 0"}, nil},
		{"gen-data negative size", []string{"gen-data", "manhattan", "--size", "-1", "-o", filepath.Join(dir, "m.txt")}, 2, []string{"--size -1"}, nil},
		{"gen-data absurd size", []string{"gen-data", "manhattan", "--size", "1000000000", "-o", filepath.Join(dir, "m.txt")}, 2, []string{"--size"}, nil},
		{"gen-data missing directory", []string{"gen-data", "manhattan", "-o", filepath.Join(dir, "no", "m.txt")}, 2, []string{"does not exist"}, nil},
		{"gen-data ints min above max", []string{"gen-data", "ints", "--min", "5", "--max", "1", "-o", filepath.Join(dir, "v.txt")}, 2, []string{"--min 5 --max 1"}, nil},
		{"gen-data ints no values", []string{"gen-data", "lis", "--len", "0", "-o", filepath.Join(dir, "v.txt")}, 2, []string{"--len 0"}, nil},
		{"gen-data rna bad extension", []string{"gen-data", "rna", "-o", filepath.Join(dir, "s.png")}, 2, []string{"--out", "s.png", ".fa"}, nil},
		{"gen-data stray argument", []string{"gen-data", "manhattan", "12", "-o", filepath.Join(dir, "m.txt")}, 2, []string{"unexpected argument"}, nil},
		{"bench zero reps", []string{"bench", "--reps", "0"}, 2, []string{"--reps"}, nil},
		{"bench bad backend before benching", []string{"bench", "-b", "cpu,tpu"}, 2, []string{"tpu"}, []string{"on cpu"}},
		{"bench bad plot type", []string{"bench", "--plot", filepath.Join(dir, "p.gif")}, 2, []string{"--plot"}, nil},
		{"bench json and csv", []string{"bench", "--json", "--csv"}, 2, []string{"pick one"}, nil},
		{"version", []string{"--version"}, 0, []string{"dpgpu version", "go1."}, nil},
		{"input as a list", []string{"solve", "-b", "cpu", "--input", "V=1,2,3", "testdata/vec.dp"}, 0, []string{"answer     6"}, nil},
		{"knapsack from lists", []string{"solve", "-b", "cpu", "--input", "wt=2,3,4,5,9", "--input", "val=3,4,5,8,10", "knapsack"}, 0, []string{"answer     26"}, nil},
		{"traceback without emit prints the path", []string{"solve", "-b", "cpu", "-T", "testdata/noemit.dp"}, 0, []string{"path       [0][1] [1][1]", "[3][3] (6 cells)"}, nil},
		{"inf answer", []string{"solve", "-b", "cpu", "testdata/inf.dp"}, 0, []string{"answer     inf\n"}, nil},
		{"a tour of one city", []string{"solve", "-b", "cpu", "tsp", "testdata/one.tsp"}, 0, []string{"instance   1 city\n", "answer     0\n", "tour       1 1\n"}, nil},
		{"inf answer in JSON", []string{"solve", "-b", "cpu", "--json", "testdata/inf.dp"}, 0, []string{`"answer": "inf"`}, nil},
	}
	if err := os.Mkdir(filepath.Join(dir, "d.npy"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := dpgpu(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
			where := errs
			if tt.code == 0 {
				where = out
			}
			for _, w := range tt.want {
				if !strings.Contains(where, w) {
					t.Errorf("output lacks %q:\n%s", w, where)
				}
			}
			for _, d := range tt.deny {
				if strings.Contains(errs, d) {
					t.Errorf("stderr has %q:\n%s", d, errs)
				}
			}
			if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic") {
				t.Errorf("a crash:\n%s", errs)
			}
		})
	}
	// Nothing that was refused left a file behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "d.npy" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestUnwritableGridRefusedFirst: a --grid in a read-only directory is
// refused before the problem is even loaded (the problem here does not
// exist, so a late check would report that instead).
func TestUnwritableGridRefusedFirst(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes everywhere")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	_, errs, code := dpgpu(t, "solve", "--grid", filepath.Join(dir, "g.npy"), "nosuch.dp")
	if code != 2 || !strings.Contains(errs, "cannot write") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestInputFilesStillWork: with commas no longer splitting --input, two
// --input flags of files are still two inputs.
func TestInputFilesStillWork(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "x.fa"), filepath.Join(dir, "y.fa")
	os.WriteFile(a, []byte(">a\nACGTTGCA\n"), 0o644)
	os.WriteFile(b, []byte(">b\nAGTTCA\n"), 0o644)
	out, errs, code := dpgpu(t, "solve", "-b", "cpu", "--json", "--input", "A=@"+a, "--input", "B=@"+b, "lcs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct{ Answer int64 }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if want := lcsRef("ACGTTGCA", "AGTTCA"); got.Answer != int64(want) {
		t.Errorf("answer %d, want %d", got.Answer, want)
	}
}

// failWriter fails every write, as stdout does on a full disk (/dev/full)
// or a closed pipe.
type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// TestOutputErrors: a report that cannot be written is an error (exit 1),
// never exit 0 with an empty or short output.
func TestOutputErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		args []string
	}{
		{"full disk, text", syscall.ENOSPC, []string{"solve", "-b", "cpu", "knapsack"}},
		{"full disk, JSON", syscall.ENOSPC, []string{"solve", "-b", "cpu", "--json", "knapsack"}},
		{"closed pipe, check", syscall.EPIPE, []string{"check", "knapsack"}},
		{"closed pipe, problems", syscall.EPIPE, []string{"problems"}},
		{"full disk, gen", syscall.ENOSPC, []string{"gen", "lcs"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			code := run(append([]string{"dpgpu"}, tt.args...), failWriter{tt.err}, &errb)
			if code != 1 || !strings.Contains(errb.String(), tt.err.Error()) {
				t.Errorf("exit %d, stderr %q", code, errb.String())
			}
		})
	}
}

// shortWriter accepts the first n bytes only.
type shortWriter struct{ n int }

func (s *shortWriter) Write(p []byte) (int, error) {
	if len(p) > s.n {
		k := s.n
		s.n = 0
		return k, nil
	}
	s.n -= len(p)
	return len(p), nil
}

func TestShortWriteIsAnError(t *testing.T) {
	var errb bytes.Buffer
	if code := run([]string{"dpgpu", "problems"}, &shortWriter{n: 10}, &errb); code != 1 {
		t.Errorf("exit %d after a short write: %s", code, errb.String())
	}
}

// TestCancelled: an interrupted command exits 130 and leaves no file. The
// context is cancelled before the command runs, so no timing is involved.
func TestCancelled(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"solve", "-b", "cpu", "--grid", filepath.Join(dir, "g.npy"), "testdata/lcs.dp"},
		{"solve", "-b", "cpu", "--grid", filepath.Join(dir, "g.csv"), "knapsack"},
		{"check", "knapsack"},
		{"bench", "-n", "10", "--reps", "1", "--warmup", "0"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out, errb bytes.Buffer
		if code := runContext(ctx, append([]string{"dpgpu"}, args...), &out, &errb); code != 130 {
			t.Errorf("%v: exit %d (%s)", args, code, errb.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// countdownCtx is a context whose Err turns to Canceled after n calls: it
// interrupts a loop that checks it at an exact step, without timing.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

func testGrid(t ir.Type, rows, cols int64) *backend.Grid {
	g := backend.NewGrid(t, rows, cols)
	switch t {
	case ir.Int:
		cells := backend.Cells[int32](g)
		for k := range cells {
			cells[k] = int32(k)
		}
	case ir.Double:
		cells := backend.Cells[float64](g)
		for k := range cells {
			cells[k] = float64(k)
		}
	}
	return g
}

// TestGridWriteInterrupted: writing a grid stops between chunks when the
// context is cancelled, and removes its partial file.
func TestGridWriteInterrupted(t *testing.T) {
	one, two := &ir.Problem{Dims: 2}, &ir.Problem{Dims: 2, Tables: []string{"X", "Y"}}
	for _, p := range []*ir.Problem{one, two} {
		for _, name := range []string{"g.npy", "g.csv", "g.npz"} {
			dir := t.TempDir()
			o, err := openGrid(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			err = o.write(&countdownCtx{context.Background(), 2}, p, testGrid(ir.Int, 64, chunkCells/8))
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s, %d tables: %v, want context.Canceled", name, len(p.Tables), err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("%s, %d tables: left behind %v", name, len(p.Tables), entries)
			}
		}
	}
}

// TestStalePartialsRemoved: a partial file of the same target left by a
// killed run (its PID names no process) is removed by the next run; one
// of a live process, and files of other targets, are kept.
func TestStalePartialsRemoved(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "g.npy")
	dead := filepath.Join(dir, ".g.npy"+partialMark+"99999999-1234")  // beyond any pid_max
	live := filepath.Join(dir, ".g.npy"+partialMark+"1-5678")         // init is always alive
	other := filepath.Join(dir, ".h.npy"+partialMark+"99999999-1234") // another target
	legacy := filepath.Join(dir, "notes.txt")
	for _, p := range []string{dead, live, other, legacy} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, errs, code := dpgpu(t, "solve", "-b", "cpu", "-q", "--grid", target, "testdata/lcs.dp"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for p, want := range map[string]bool{dead: false, live: true, other: true, legacy: true, target: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// recordWriter records the largest single write.
type recordWriter struct{ largest, total int }

func (r *recordWriter) Write(p []byte) (int, error) {
	r.largest = max(r.largest, len(p))
	r.total += len(p)
	return len(p), nil
}

// TestGridWritesBounded: the grid writers never build a buffer the size of
// a row or of the grid: a 1 x 400,000 grid (a wide knapsack row) goes out
// in pieces of at most about 64 KiB of text or chunkCells cells.
func TestGridWritesBounded(t *testing.T) {
	g := testGrid(ir.Int, 1, 400_000)
	var csv, npy, npyT recordWriter
	if err := writeCSV(context.Background(), &csv, gridViews(&ir.Problem{Dims: 2}, g)[0]); err != nil {
		t.Fatal(err)
	}
	if err := writeNPY(context.Background(), &npy, gridViews(&ir.Problem{Dims: 2}, g)[0]); err != nil {
		t.Fatal(err)
	}
	// One of two tables: its cells gathered a chunk at a time.
	if err := writeNPY(context.Background(), &npyT, gridViews(&ir.Problem{Dims: 2, Tables: []string{"X", "Y"}}, g)[1]); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]struct {
		recordWriter
		limit int
	}{"csv": {csv, 80 << 10}, "npy": {npy, chunkCells * 8}, "npy of a table": {npyT, chunkCells * 8}} {
		if r.largest > r.limit || r.total < 200_000*2 {
			t.Errorf("%s: largest write %d bytes of %d", name, r.largest, r.total)
		}
	}
}

// TestGridCSVInf: infinite cells are inf and -inf in the CSV, as in the
// report, integer sentinels included.
func TestGridCSVInf(t *testing.T) {
	pos, neg := ir.InfSentinel(ir.Int)
	g := backend.NewGrid(ir.Int, 1, 3)
	cells := backend.Cells[int32](g)
	cells[0], cells[1], cells[2] = int32(pos), int32(neg), 7
	var b bytes.Buffer
	if err := writeCSV(context.Background(), &b, gridViews(&ir.Problem{Dims: 2}, g)[0]); err != nil {
		t.Fatal(err)
	}
	if b.String() != "inf,-inf,7\n" {
		t.Errorf("csv %q", b.String())
	}
}

func TestEscapeControl(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain message", "plain message"},
		{"two\nlines", "two\nlines"},
		{"bell\a and escape \x1b[2J", `bell\x07 and escape \x1b[2J`},
		{"cr\rtab\t", `cr\rtab\t`},
		{"bad utf8 \xff", `bad utf8 \xff`},
		{"c1 \u009b", `c1 \u009b`},
		{"unicode é stays", "unicode é stays"},
		// A caret under a source line moves with the escapes before it.
		{"f.dp:1:5: nope\n    \x01\x02 nope\n        ^", "f.dp:1:5: nope\n    \\x01\\x02 nope\n              ^"},
		// Escapes after the caret do not move it.
		{"f.dp:1:1: x\n    x \x01\n    ^", "f.dp:1:1: x\n    x \\x01\n    ^"},
	}
	for _, tt := range tests {
		if got := escapeControl(tt.in); got != tt.want {
			t.Errorf("escapeControl(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMessagesEscapeInput: a control character in a file name or in a
// `.dp` line reaches the terminal escaped.
func TestMessagesEscapeInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.dp")
	os.WriteFile(bad, []byte("problem p\n3 x 3\ncell[i][j] = \x1b[2J nope\n"), 0o644)
	for _, args := range [][]string{
		{"solve", filepath.Join(dir, "evil\x1b[2J.dp")},
		{"check", bad},
	} {
		_, errs, code := dpgpu(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d", args, code)
		}
		if strings.ContainsRune(errs, 0x1b) || !strings.Contains(errs, `\x1b`) {
			t.Errorf("%q: stderr %q", args, errs)
		}
	}
}

// TestBenchKeepsWhatRan: a problem that cannot be benched is reported, and
// the table still shows what ran; a file without `?` inputs is benched at
// its own size.
func TestBenchKeepsWhatRan(t *testing.T) {
	out, errs, code := dpgpu(t, "bench", "-n", "8", "--reps", "1", "--warmup", "0", "lcs", "testdata/noemit.dp", "nosuch.dp")
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errs, "could not bench nosuch.dp") {
		t.Errorf("stderr lacks the failed problem:\n%s", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "lcs ") || !strings.HasPrefix(lines[2], "noemit ") || !strings.Contains(lines[2], " own ") {
		t.Errorf("table:\n%s", out)
	}
}
