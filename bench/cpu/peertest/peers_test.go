// Package peertest checks the plain C peer programs of bench/cpu, the
// measuring stick of scripts/bench-peers.sh: a peer that reads a file
// differently from dpgpu, or computes a different recurrence, would make
// every ratio in docs/performance.md meaningless. So each peer is compiled
// with the system C compiler (the test skips where there is none) and run on
// random small instances, and its answer must equal what dpgpu's own CPU
// backend computes in-process from the same file. Malformed files must stop
// a peer with exit status 2 and a message naming the file and line.
//
// The test lives in a directory of its own because a Go package directory
// may not hold .c files when cgo is off (CGO_ENABLED=0 everywhere here).
package peertest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

var peerNames = []string{"knapsack01", "lcs", "editdistance", "manhattan", "heldkarp", "matrixchain"}

var (
	buildOnce sync.Once
	peerDir   string
	buildErr  error
	noCC      bool
)

// peers compiles the C programs once per test binary into a temporary
// directory (removed by TestMain) and returns it; it skips the test when no
// C compiler is found.
func peers(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		cc := os.Getenv("CC")
		if cc == "" {
			for _, c := range []string{"cc", "gcc", "clang"} {
				if _, err := exec.LookPath(c); err == nil {
					cc = c
					break
				}
			}
		}
		if cc == "" {
			noCC = true
			return
		}
		// Read every source here, in the test process: go test caches a
		// result against the files the test itself opens, and the compiler
		// reading them in a subprocess would not count, so an edited peer
		// could otherwise pass on a stale cached result.
		for _, f := range append(slices.Clone(peerNames), "common") {
			ext := ".c"
			if f == "common" {
				ext = ".h"
			}
			if _, err := os.ReadFile(filepath.Join("..", f+ext)); err != nil {
				buildErr = err
				return
			}
		}
		peerDir, buildErr = os.MkdirTemp("", "bench-cpu-peers")
		if buildErr != nil {
			return
		}
		// -O1: the tests check answers, not speed, and -O1 compiles faster;
		// -Werror keeps the sources free of warnings.
		var wg sync.WaitGroup
		errs := make([]error, len(peerNames))
		for i, name := range peerNames {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(cc, "-O1", "-Wall", "-Wextra", "-Werror", "-o", filepath.Join(peerDir, name), filepath.Join("..", name+".c"), "-lm")
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("%s %s.c: %v\n%s", cc, name, err, out)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil && buildErr == nil {
				buildErr = err
			}
		}
	})
	if noCC {
		t.Skip("no C compiler (cc, gcc, clang or $CC) on PATH")
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return peerDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if peerDir != "" {
		os.RemoveAll(peerDir)
	}
	os.Exit(code)
}

// runPeer runs a peer and returns its stdout, stderr and exit status.
func runPeer(t *testing.T, name string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(peers(t), name), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return o.String(), e.String(), ee.ExitCode()
	}
	return o.String(), e.String(), 0
}

// dpgpuAnswer solves a built-in with dpgpu's CPU backend, one thread, as
// `dpgpu solve -b cpu -t 1 BUILTIN FILES --set SETS` does.
func dpgpuAnswer(t *testing.T, builtin string, files []string, sets ...string) string {
	t.Helper()
	src, err := engine.Resolve(builtin)
	if err != nil {
		t.Fatal(err)
	}
	cfg := bind.Config{Args: files}
	for _, s := range sets {
		name, val, _ := strings.Cut(s, "=")
		cfg.Sets = append(cfg.Sets, bind.Override{Name: name, Value: val})
	}
	l, err := engine.Load(src, cfg)
	if err != nil {
		t.Fatalf("dpgpu %s %v: %v", builtin, files, err)
	}
	ex, err := engine.NewExecutor("cpu", 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), l, ex, backend.Options{Threads: 1})
	if err != nil {
		t.Fatalf("dpgpu %s %v: %v", builtin, files, err)
	}
	return res.Answer().String()
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// randDNA returns n random letters of alphabet.
func randDNA(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// fasta writes seq as a FASTA record wrapped at width, with lowercase
// stretches (a soft mask the readers must upper-case), a ';' comment line
// and a second record that must be ignored.
func fasta(r *rand.Rand, seq string, width int) string {
	var sb strings.Builder
	sb.WriteString("; an old-style comment\n>first record\n")
	for i := 0; i < len(seq); i += width {
		line := seq[i:min(i+width, len(seq))]
		if r.IntN(3) == 0 {
			line = strings.ToLower(line)
		}
		sb.WriteString(line)
		sb.WriteString("\r\n"[r.IntN(2):])
		if r.IntN(5) == 0 {
			sb.WriteString("\n") // blank lines inside a record are skipped
		}
	}
	sb.WriteString(">second record, not read\nNNNNNNNN\n")
	return sb.String()
}

// textSeq writes seq as a .txt file: a comment line, then lines of random
// lengths (so that it is read as one vector, not a matrix).
func textSeq(r *rand.Rand, seq string) string {
	var sb strings.Builder
	sb.WriteString("# a comment line\n\n")
	for len(seq) > 0 {
		k := min(len(seq), 1+r.IntN(40))
		sb.WriteString(seq[:k])
		sb.WriteString("\n")
		seq = seq[k:]
	}
	return sb.String()
}

func TestSequencePeersMatchDpgpu(t *testing.T) {
	peers(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(18, 4))
	for trial := range 12 {
		alphabet := "ACGT"
		if trial%3 == 2 {
			alphabet = "AB"
		}
		a := randDNA(r, 1+r.IntN(300), alphabet)
		b := randDNA(r, 1+r.IntN(300), alphabet)
		var fa, fb string
		if trial%2 == 0 {
			fa = write(t, dir, fmt.Sprintf("a%d.fa", trial), fasta(r, a, 1+r.IntN(70)))
			fb = write(t, dir, fmt.Sprintf("b%d.FASTA", trial), fasta(r, b, 60))
		} else {
			fa = write(t, dir, fmt.Sprintf("a%d.txt", trial), textSeq(r, a))
			fb = write(t, dir, fmt.Sprintf("b%d.fna", trial), fasta(r, b, 60))
		}
		files := []string{fa, fb}
		cases := []struct {
			peer, builtin string
			args, sets    []string
		}{
			{"lcs", "lcs", nil, nil},
			{"editdistance", "editdistance", nil, nil},
			{"editdistance", "editdistance", []string{"-s", "1"}, []string{"sub=1"}},
			{"editdistance", "editdistance", []string{"-i", "3", "-d", "2", "-s", "4"}, []string{"ins=3", "del=2", "sub=4"}},
		}
		for _, c := range cases {
			want := dpgpuAnswer(t, c.builtin, files, c.sets...)
			out, errOut, status := runPeer(t, c.peer, append(append([]string{}, c.args...), files...)...)
			if status != 0 || strings.TrimSpace(out) != want {
				t.Errorf("trial %d: %s %v %s %s: got %q (status %d, %s), dpgpu says %s",
					trial, c.peer, c.args, filepath.Base(fa), filepath.Base(fb), strings.TrimSpace(out), status, errOut, want)
			}
		}
	}
}

func TestKnapsackPeerMatchesDpgpu(t *testing.T) {
	peers(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(18, 1))
	for trial := range 10 {
		n := 1 + r.IntN(60)
		capacity := r.IntN(400)
		var sb strings.Builder
		fmt.Fprintf(&sb, "# random instance %d\n%d %d\n", trial, n, capacity)
		for range n {
			// Weights from 0 (always fits) to beyond the capacity (never).
			fmt.Fprintf(&sb, "%d %d\n", r.IntN(1000), r.IntN(capacity+50))
		}
		if trial%2 == 1 { // a solution line is read and ignored
			for range n {
				fmt.Fprintf(&sb, "%d ", r.IntN(2))
			}
			sb.WriteString("\n")
		}
		path := write(t, dir, fmt.Sprintf("knap%d", trial), sb.String())
		want := dpgpuAnswer(t, "knapsack", []string{path})
		out, errOut, status := runPeer(t, "knapsack01", path)
		if status != 0 || strings.TrimSpace(out) != want {
			t.Errorf("trial %d: knapsack01 got %q (status %d, %s), dpgpu says %s", trial, strings.TrimSpace(out), status, errOut, want)
		}
	}
	// Profits whose sum leaves int32 take the int64 path of the peer.
	big := write(t, dir, "big", "3 10\n2000000000 4\n2000000000 5\n7 1\n")
	if out, errOut, status := runPeer(t, "knapsack01", big); status != 0 || strings.TrimSpace(out) != "4000000007" {
		t.Errorf("knapsack01 with large profits: got %q (status %d, %s), want 4000000007", strings.TrimSpace(out), status, errOut)
	}
}

func TestMatrixChainPeerMatchesDpgpu(t *testing.T) {
	peers(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(18, 3))
	for trial, n := range []int{1, 2, 3, 17, 60} {
		var sb strings.Builder
		for range n + 1 {
			fmt.Fprintf(&sb, "%d ", 1+r.IntN(100))
		}
		path := write(t, dir, fmt.Sprintf("mc%d.txt", trial), sb.String()+"\n")
		want := dpgpuAnswer(t, "matrix-chain", []string{path})
		out, errOut, status := runPeer(t, "matrixchain", path)
		if status != 0 || strings.TrimSpace(out) != want {
			t.Errorf("n = %d: matrixchain got %q (status %d, %s), dpgpu says %s", n, strings.TrimSpace(out), status, errOut, want)
		}
	}
}

func TestManhattanPeerMatchesDpgpu(t *testing.T) {
	peers(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(18, 3))
	sizes := [][2]int{{1, 1}, {1, 7}, {7, 1}, {2, 2}, {5, 9}, {40, 33}, {64, 64}}
	for _, sz := range sizes {
		n, m := sz[0], sz[1]
		var sb strings.Builder
		fmt.Fprintf(&sb, "# city %dx%d\n%d %d\n", n, m, n, m)
		block := func(rows, cols int) {
			if cols == 0 {
				return
			}
			for range rows {
				for j := range cols {
					if j > 0 {
						sb.WriteString(" \t"[r.IntN(2):][:1])
					}
					fmt.Fprintf(&sb, "%d", r.IntN(201)-50) // negative weights too
				}
				sb.WriteString("\n")
				if r.IntN(8) == 0 {
					sb.WriteString("\n# a comment between rows\n")
				}
			}
		}
		block(n-1, m)
		block(n, m-1)
		path := write(t, dir, fmt.Sprintf("city_%d_%d.txt", n, m), sb.String())
		want := dpgpuAnswer(t, "manhattan", []string{path})
		out, errOut, status := runPeer(t, "manhattan", path)
		if status != 0 || strings.TrimSpace(out) != want {
			t.Errorf("%dx%d: manhattan got %q (status %d, %s), dpgpu says %s", n, m, strings.TrimSpace(out), status, errOut, want)
		}
	}
}

func TestHeldKarpPeerMatchesDpgpu(t *testing.T) {
	peers(t)
	dir := t.TempDir()
	var files []string
	// The TSPLIB files of the repository: explicit lower-diagonal (gr17),
	// GEO coordinates (ulysses16) and an asymmetric full matrix (br17).
	for _, f := range []string{"gr17.tsp", "ulysses16.tsp", "br17.atsp"} {
		files = append(files, dptest.Path("tsplib/"+f))
	}
	// Random instances in the other formats the peer reads.
	r := rand.New(rand.NewPCG(18, 5))
	for i, typ := range []string{"EUC_2D", "CEIL_2D", "ATT"} {
		n := 6 + i*3
		var sb strings.Builder
		fmt.Fprintf(&sb, "NAME: rand%d\nTYPE: TSP\nDIMENSION: %d\nEDGE_WEIGHT_TYPE: %s\nNODE_COORD_SECTION\n", i, n, typ)
		for _, k := range r.Perm(n) { // nodes in any order
			fmt.Fprintf(&sb, "%d %.3f %.1f\n", k+1, r.Float64()*1000, r.Float64()*1000)
		}
		sb.WriteString("EOF\n")
		files = append(files, write(t, dir, fmt.Sprintf("rand%d.tsp", i), sb.String()))
	}
	for i, format := range []string{"UPPER_ROW", "LOWER_ROW", "UPPER_DIAG_ROW", "LOWER_DIAG_COL"} {
		n := 5 + i
		var vals []string
		for range n * n {
			vals = append(vals, fmt.Sprint(1+r.IntN(99)))
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "NAME : m%d\nTYPE : TSP\nDIMENSION : %d\nEDGE_WEIGHT_TYPE : EXPLICIT\nEDGE_WEIGHT_FORMAT : %s\nEDGE_WEIGHT_SECTION\n", i, n, format)
		count := n * (n - 1) / 2
		if strings.Contains(format, "DIAG") {
			count = n * (n + 1) / 2
		}
		sb.WriteString(strings.Join(vals[:count], " "))
		sb.WriteString("\nEOF\n")
		files = append(files, write(t, dir, fmt.Sprintf("m%d.tsp", i), sb.String()))
	}
	for _, f := range files {
		want := dpgpuAnswer(t, "tsp", []string{f})
		out, errOut, status := runPeer(t, "heldkarp", f)
		if status != 0 || strings.TrimSpace(out) != want {
			t.Errorf("%s: heldkarp got %q (status %d, %s), dpgpu says %s", filepath.Base(f), strings.TrimSpace(out), status, errOut, want)
		}
	}
}

// TestPeersRejectBadInput: a file a peer cannot read exactly stops it with
// exit status 2 and "file:line: message" (or "file: message" where no line
// applies), never a number computed from half-read data.
func TestPeersRejectBadInput(t *testing.T) {
	peers(t)
	dir := t.TempDir()
	okSeq := write(t, dir, "ok.txt", "ACGT\n")
	cases := []struct {
		name     string
		peer     string
		file     string // written to dir/file with text; "" passes args as they are
		text     string
		args     []string
		wantLine string // substring of stderr
	}{
		{"knapsack too few items", "knapsack01", "k1", "3 10\n1 2\n3 4\n", nil, "k1:3: expected 3 items"},
		{"knapsack negative weight", "knapsack01", "k2", "2 10\n1 2\n3 -4\n", nil, "k2:3: item 2 has a negative weight"},
		{"knapsack fraction", "knapsack01", "k3", "2 10\n1 2\n3.5 4\n", nil, "k3:3: \"3.5\" is not an integer"},
		{"knapsack bad solution", "knapsack01", "k4", "2 10\n1 2\n3 4\n1 2\n", nil, "k4:4: solution vector value 2"},
		{"knapsack short solution", "knapsack01", "k5", "2 10\n1 2\n3 4\n1\n", nil, "k5:4: after the 2 items"},
		{"knapsack no items", "knapsack01", "k6", "0 10\n", nil, "k6:1: number of items 0"},
		{"manhattan short row", "manhattan", "m1.txt", "2 3\n1 2\n4 5\n6 7\n", nil, "m1.txt:2: line 1 of the down weights has 2 values, want 3"},
		{"manhattan long row", "manhattan", "m2.txt", "2 2\n1 2 3\n4\n5\n", nil, "m2.txt:2:"},
		{"manhattan missing rows", "manhattan", "m3.txt", "3 2\n1 2\n", nil, "m3.txt:2: file ends after 1 of the 2 lines of down"},
		{"manhattan trailing data", "manhattan", "m4.txt", "1 2\n5\n6\n", nil, "m4.txt:3: unexpected data"},
		{"manhattan bad size", "manhattan", "m5.txt", "0 2\n", nil, "m5.txt:1: grid size 0 x 2"},
		{"manhattan not a number", "manhattan", "m6.txt", "1 2\nx\n", nil, "m6.txt:2: \"x\" is not a number"},
		{"fasta data before header", "lcs", "s1.fa", "ACGT\n>x\nAC\n", []string{okSeq}, "s1.fa:1: sequence data before the first '>'"},
		{"fasta empty record", "lcs", "s2.fa", ">x\n\n>y\nAC\n", []string{okSeq}, "s2.fa:1: the first record has an empty sequence"},
		{"sequence non-ASCII", "editdistance", "s3.txt", "AC\nG\xc3\xa9T\n", []string{okSeq}, "s3.txt:2: column 2: byte 0xc3"},
		{"sequence unknown extension", "lcs", "s4.seq", "ACGT\n", []string{okSeq}, "s4.seq: unknown sequence file extension"},
		{"edit distance bad cost", "editdistance", "", "", []string{"-s", "-1", okSeq, okSeq}, "-s -1: want an integer cost"},
		{"tsp unknown keyword", "heldkarp", "t1.tsp", "NAME: x\nTYPE: TSP\nFOO: 1\n", nil, "t1.tsp:3: keyword FOO"},
		{"tsp short matrix", "heldkarp", "t2.tsp", "TYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 1 2\n1 0 3\n2 3\nEOF\n", nil, "t2.tsp:8: EDGE_WEIGHT_SECTION (line 5) ends early"},
		{"tsp long matrix", "heldkarp", "t3.tsp", "TYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n5 6\nEOF\n", nil, "t3.tsp:6: more numbers in the section"},
		{"tsp repeated node", "heldkarp", "t4.tsp", "TYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n1 3 4\nEOF\n", nil, "t4.tsp:6: node number 1"},
		{"missing file", "knapsack01", "", "", []string{filepath.Join(dir, "nope")}, "nope: No such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.file != "" {
				args = append([]string{write(t, dir, c.file, c.text)}, args...)
			}
			out, errOut, status := runPeer(t, c.peer, args...)
			if status != 2 || out != "" || !strings.Contains(errOut, c.wantLine) {
				t.Errorf("%s %v: status %d, stdout %q, stderr %q; want status 2, no output, stderr containing %q",
					c.peer, args, status, out, errOut, c.wantLine)
			}
		})
	}
}
