package problems_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems/gen"
)

// blosum62 reads the NCBI file in problems/formats/testdata the plain way:
// the score of each pair of letters it names.
func blosum62(t *testing.T) map[[2]byte]int64 {
	t.Helper()
	f, err := os.Open(filepath.Join("formats", "testdata", "BLOSUM62.mat"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scores := map[[2]byte]int64{}
	var header []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0 || strings.HasPrefix(fs[0], "#"):
		case header == nil:
			header = fs
		default:
			for k, v := range fs[1:] {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				scores[[2]byte{fs[0][0], header[k][0]}] = n
			}
		}
	}
	if len(scores) != 24*24 {
		t.Fatalf("BLOSUM62: %d scores, want 576", len(scores))
	}
	return scores
}

// pairScore scores x against y as protein-align's comment says: case does
// not matter, and a character BLOSUM62 does not name scores -4 (its '*'
// entry against every residue, and its lowest).
func pairScore(S map[[2]byte]int64, x, y byte) int64 {
	if v, ok := S[[2]byte{upper(x), upper(y)}]; ok {
		return v
	}
	return -4
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// checkProteinAlign solves protein-align (args: its sequence files) with a
// traceback and checks the answer and the alignment against dptest.GotohScoreWith.
func checkProteinAlign(t *testing.T, S map[[2]byte]int64, a, b string, o, e int64, args ...string) {
	t.Helper()
	l, res, _ := solveBuiltin(t, "protein-align", true, args...)
	pair := func(x, y byte) int64 { return pairScore(S, x, y) }
	want := dptest.GotohScoreWith(a, b, o, e, pair)
	if got := res.Answer().I; got != want {
		t.Fatalf("%q / %q: answer %d, want %d", a, b, got, want)
	}
	if l.Problem.Name != "protein-align" {
		t.Errorf("problem %q", l.Problem.Name)
	}
	path := res.Grid.Path
	if len(path) == 0 {
		t.Fatalf("%q / %q: no traceback path", a, b)
	}
	var cols strings.Builder
	for _, v := range res.Grid.Emitted {
		cols.WriteByte(byte(v.I))
	}
	_, j0 := ir.TableOf(path[0][1], 3)
	got, err := dptest.GotohAlignmentScoreWith(a, b, o, e, pair, int(path[0][0]), int(j0), cols.String())
	if err != nil {
		t.Fatalf("%q / %q: alignment %s: %v", a, b, cols.String(), err)
	}
	if got != want {
		t.Errorf("%q / %q: the alignment %s scores %d, the answer is %d", a, b, cols.String(), got, want)
	}
}

// residues returns random words over BLOSUM62's letters, its ambiguity
// codes and stop, lower case, and characters it does not name ('J', 'O',
// 'U', '?').
func residues(seed uint64) func(n int) string {
	r := gen.NewRand(seed)
	const alphabet = "ARNDCQEGHILKMFPSTWYVBZX*arndcqeghilkmfpstwyvJOU?"
	return func(n int) string {
		var s strings.Builder
		for range n {
			s.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return s.String()
	}
}

func TestProteinAlign(t *testing.T) {
	S := blosum62(t)
	// The defaults of protein-align.dp: human hemoglobin alpha and beta.
	checkProteinAlign(t, S, "VLSPADKTNVKAAWGKVGAHAGEYGAEALE", "VHLTPEEKSAVTALWGKVNVDEVGGEALGR", 11, 1)

	// Random pairs through args:, in text files so that case survives,
	// with residues BLOSUM62 does not name ('J', 'O', 'U', '?') and its
	// ambiguity codes and stop.
	dir := t.TempDir()
	word := residues(62)
	for _, n := range [][2]int{{1, 1}, {1, 9}, {13, 2}, {40, 37}, {120, 95}} {
		a, b := word(n[0]), word(n[1])
		// Half the time b is a mutated copy of a, so that long matches
		// and gaps are what the alignment has to find.
		if n[0] == n[1]+3 || n[0] > 100 {
			b = a[:n[0]/3] + word(5) + a[n[0]/2:]
		}
		pa, pb := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
		for p, s := range map[string]string{pa: a, pb: b} {
			if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		checkProteinAlign(t, S, a, b, 11, 1, pa, pb)
	}
}

// TestProteinLocal: protein-local's answers against a plain Smith-Waterman
// over the same scores, on random pairs with residues BLOSUM62 does not
// name, lower case, and lengths 1 to 120.
func TestProteinLocal(t *testing.T) {
	S := blosum62(t)
	dir := t.TempDir()
	word := residues(63)
	ref := func(a, b string) int64 {
		prev, cur := make([]int64, len(b)+1), make([]int64, len(b)+1)
		var best int64
		for i := 1; i <= len(a); i++ {
			for j := 1; j <= len(b); j++ {
				cur[j] = max(0, prev[j-1]+pairScore(S, a[i-1], b[j-1]), prev[j]-4, cur[j-1]-4)
				best = max(best, cur[j])
			}
			prev, cur = cur, prev
		}
		return best
	}
	for _, n := range [][2]int{{1, 1}, {1, 9}, {13, 2}, {40, 37}, {120, 95}} {
		a, b := word(n[0]), word(n[1])
		if n[0] > 100 {
			b = a[:n[0]/3] + word(5) + a[n[0]/2:]
		}
		pa, pb := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
		for p, s := range map[string]string{pa: a, pb: b} {
			if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, res, _ := solveBuiltin(t, "protein-local", false, pa, pb)
		if got, want := res.Answer().I, ref(a, b); got != want {
			t.Errorf("%q / %q: answer %d, want %d", a, b, got, want)
		}
	}
}

// TestProteinAlignMatrixErrors: a malformed matrix is refused at the `.dp`
// line that names it, with the matrix file's own line.
func TestProteinAlignMatrixErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mat")
	if err := os.WriteFile(bad, []byte("# test\n  A R\nA 4 -1\nR -1 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(builtinSource(t, "protein-align"), `= @"BLOSUM62.mat"`, `= @"bad.mat"`, 1)
	line := 0
	for k, l := range strings.Split(src, "\n") {
		if strings.Contains(l, `= @"bad.mat"`) {
			line = k + 1
		}
	}
	_, _, err := dptest.TryLoad(t, "p.dp", src, dptest.Dir(dir))
	want := "p.dp:" + strconv.Itoa(line) + ":13: input S: " + bad + `:4: row 'R', column 'R':`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}

	// Through --input the message names the flag and the file's line.
	src2, err := engine.Resolve("protein-align")
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.Load(src2, bind.Config{Inputs: []bind.Override{{Name: "S", Value: "@" + bad}}})
	if err == nil || !strings.Contains(err.Error(), bad+`:4: row 'R', column 'R'`) {
		t.Errorf("--input S=@bad.mat: got %v", err)
	}
}
