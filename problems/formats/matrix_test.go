package formats

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refMatrix parses an NCBI matrix file the plain way, for comparison: the
// scores by pair of letters, and the letters in header order.
func refMatrix(t *testing.T, path string) (map[[2]byte]int64, []byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scores := map[[2]byte]int64{}
	var header []byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		if header == nil {
			for _, l := range fs {
				header = append(header, l[0])
			}
			continue
		}
		for k, v := range fs[1:] {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			scores[[2]byte{fs[0][0], header[k]}] = n
		}
	}
	return scores, header
}

// refScore is the score readMatrix's rules give the pair (x, y), written
// out case by case: the named pair, the case-folded pair, the partner
// against '*', and -4 (BLOSUM62's lowest '*' entry) for the rest.
func refScore(scores map[[2]byte]int64, x, y byte) int64 {
	name := func(c byte) (byte, bool) {
		for _, d := range []byte{c, upper(c), lower(c)} {
			if _, ok := scores[[2]byte{d, d}]; ok {
				return d, true
			}
		}
		return 0, false
	}
	nx, okx := name(x)
	ny, oky := name(y)
	switch {
	case okx && oky:
		return scores[[2]byte{nx, ny}]
	case okx && nx != '*':
		return scores[[2]byte{nx, '*'}]
	case oky && ny != '*':
		return scores[[2]byte{'*', ny}]
	}
	return -4
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

func TestBLOSUM62(t *testing.T) {
	path := filepath.Join("testdata", "BLOSUM62.mat")
	tab, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != MatrixSize || tab.Cols != MatrixSize || len(tab.I) != MatrixSize*MatrixSize || tab.F != nil {
		t.Fatalf("got a %dx%d table (%d ints, %d floats), want %dx%d ints", tab.Rows, tab.Cols, len(tab.I), len(tab.F), MatrixSize, MatrixSize)
	}
	S := func(x, y byte) int64 { return tab.I[int(x)*MatrixSize+int(y)] }
	for _, c := range []struct {
		x, y byte
		want int64
	}{
		{'W', 'W', 11}, {'A', 'R', -1}, {'R', 'A', -1}, {'C', 'C', 9}, {'A', 'A', 4},
		{'w', 'w', 11}, {'a', 'R', -1}, {'r', 'a', -1}, {'D', 'B', 4}, {'*', '*', 1},
		{'J', 'A', -4}, {'A', '?', -4}, {'?', '?', -4}, {'1', '*', -4}, {'U', 'U', -4},
		{0, 0, -4}, {127, 'W', -4},
	} {
		if got := S(c.x, c.y); got != c.want {
			t.Errorf("S[%q][%q] = %d, want %d", c.x, c.y, got, c.want)
		}
	}
	scores, header := refMatrix(t, path)
	if len(header) != 24 || len(scores) != 24*24 {
		t.Fatalf("reference: %d letters, %d scores", len(header), len(scores))
	}
	for x := range MatrixSize {
		for y := range MatrixSize {
			if got, want := S(byte(x), byte(y)), refScore(scores, byte(x), byte(y)); got != want {
				t.Fatalf("S[%q][%q] = %d, want %d", byte(x), byte(y), got, want)
			}
			if S(byte(x), byte(y)) != S(byte(y), byte(x)) {
				t.Fatalf("not symmetric at [%q][%q]", byte(x), byte(y))
			}
		}
	}
}

// TestMatrixBuiltin: the built-in BLOSUM62 is NCBI's file, read by name
// where no file is, and never in place of a file that exists.
func TestMatrixBuiltin(t *testing.T) {
	want, err := Load(filepath.Join("testdata", "BLOSUM62.mat"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, p := range []string{"BLOSUM62.mat", "blosum62.ncbi", filepath.Join(dir, "no", "BLOSUM62.mat")} {
		got, err := Load(filepath.Join(dir, p), Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !slicesEqual(got.I, want.I) {
			t.Errorf("%s: the built-in BLOSUM62 differs from testdata/BLOSUM62.mat", p)
		}
	}
	// A file of that name is read, not replaced.
	own := filepath.Join(dir, "BLOSUM62.mat")
	if err := os.WriteFile(own, []byte("  A B\nA 7 1\nB 1 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(own, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := got.I['A'*MatrixSize+'A']; v != 7 {
		t.Errorf("the file's own S[A][A] = %d, want 7", v)
	}
	if _, err := Load(filepath.Join(dir, "PAM9999.mat"), Options{}); err == nil || !strings.Contains(err.Error(), "PAM9999.mat") {
		t.Errorf("a missing matrix that is not built in: %v, want an error naming it", err)
	}
	if names := BuiltinMatrices(); !slices.Contains(names, "BLOSUM62.mat") {
		t.Errorf("BuiltinMatrices() = %v", names)
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// TestMatrixRules checks the rules on small matrices: no '*', both cases
// named, floats, rows out of order.
func TestMatrixRules(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opt        Options
		want       map[[2]byte]float64
	}{
		{"no star: the lowest score", "# DNA\n   A  C  G  T\nA  5 -4 -4 -4\nC -4  5 -4 -4\nG -4 -4  5 -4\nT -4 -4 -4  5\n", Options{},
			map[[2]byte]float64{{'A', 'A'}: 5, {'a', 'A'}: 5, {'t', 'g'}: -4, {'N', 'A'}: -4, {'N', 'N'}: -4}},
		{"no star, a lower lowest", "  A C\nA 2 -9\nC -9 3\n", Options{},
			map[[2]byte]float64{{'A', 'x'}: -9, {'?', '?'}: -9, {'c', 'c'}: 3}},
		{"both cases named", "  A a *\nA 1 2 -5\na 2 3 -6\n* -5 -6 0\n", Options{},
			map[[2]byte]float64{{'A', 'A'}: 1, {'a', 'a'}: 3, {'A', 'a'}: 2, {'a', 'Z'}: -6, {'Z', 'A'}: -5, {'Z', 'Z'}: -6, {'Z', '*'}: -6}},
		{"rows in any order, CRLF", "  A B\r\nB 1 4\r\nA 3 1\r\n", Options{},
			map[[2]byte]float64{{'A', 'A'}: 3, {'B', 'B'}: 4, {'a', 'b'}: 1}},
		{"floats", "  A B\nA 1.5 -0.25\nB -0.25 2\n", Options{Float: true},
			map[[2]byte]float64{{'A', 'A'}: 1.5, {'a', 'B'}: -0.25, {'x', 'y'}: -0.25}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab, err := readMatrix(strings.NewReader(c.text), "m.mat", 0, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range c.want {
				i := int(k[0])*MatrixSize + int(k[1])
				var got float64
				if c.opt.Float {
					got = tab.F[i]
				} else {
					got = float64(tab.I[i])
				}
				if got != want {
					t.Errorf("S[%q][%q] = %v, want %v", k[0], k[1], got, want)
				}
			}
		})
	}
}

func TestMatrixErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opt        Options
		want       string
	}{
		{"empty", "# only a comment\n\n", Options{}, "m.mat: no header line of column letters"},
		{"header missing", "# x\nA  4 -1\nR -1  5\n", Options{}, `m.mat:2: header line, column 2: "4" is a number, not a letter (the first line that is not a comment must list the column letters)`},
		{"header of digits", "A 4 0\n", Options{}, `m.mat:1: header line, column 2: "4" is a number`},
		{"letter twice", "  A R A\n", Options{}, `m.mat:1: header line: letter 'A' appears twice (columns 1 and 3)`},
		{"ragged", "  A R\nA 4 -1\nR -1\n", Options{}, `m.mat:3: row 'R' has 1 score; the header line (line 1) names 2 letters`},
		{"too many", "  A R\nA 4 -1 0\n", Options{}, `m.mat:2: row 'A' has 3 scores`},
		{"not a number", "  A R\nA 4 x\nR -1 5\n", Options{}, `m.mat:2: row 'A', column 'R':`},
		{"a fraction", "  A R\nA 4 0.5\nR -1 5\n", Options{}, `m.mat:2: row 'A', column 'R':`},
		{"row twice", "  A R\nA 4 -1\nA 4 -1\n", Options{}, `m.mat:3: row 'A' appears twice (lines 2 and 3)`},
		{"row not in header", "  A R\nA 4 -1\nW 1 1\n", Options{}, `m.mat:3: row 'W': the header line (line 1) has no column 'W'`},
		{"row missing", "  A R N\nA 4 -1 0\n", Options{}, `m.mat: no row for 'R', 'N'`},
		{"row letter long", "  A R\nAR 4 -1\n", Options{}, `m.mat:2: a row starts with its letter`},
		{"not ASCII", "  A \xc3\xa9\n", Options{}, `m.mat:1: header line, column 2`},
		{"char", "  A\nA 1\n", Options{Char: true}, "m.mat: a scoring matrix holds scores"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readMatrix(strings.NewReader(c.text), "m.mat", 0, c.opt)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v, want an error starting %q", err, c.want)
			}
		})
	}
}
