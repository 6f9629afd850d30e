package formats

import (
	"path/filepath"
	"testing"
)

// TestMoreBuiltinMatrices: BLOSUM45, BLOSUM80, PAM250 and EDNAFULL (NCBI's
// NUC.4.4, EMBOSS's default for DNA) are built in and read by name; a few
// of their published entries, and symmetry over their letters.
func TestMoreBuiltinMatrices(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		letters string
		entries map[[2]byte]int64
	}{
		{"BLOSUM45", "ARNDCQEGHILKMFPSTWYVBZX*", map[[2]byte]int64{{'W', 'W'}: 15, {'C', 'C'}: 12, {'A', 'R'}: -2, {'*', '*'}: 1, {'A', '*'}: -5}},
		{"BLOSUM80", "ARNDCQEGHILKMFPSTWYVBZX*", map[[2]byte]int64{{'W', 'W'}: 16, {'C', 'C'}: 13, {'A', 'R'}: -3, {'A', '*'}: -8}},
		{"PAM250", "ARNDCQEGHILKMFPSTWYVBZX*", map[[2]byte]int64{{'W', 'W'}: 17, {'C', 'W'}: -8, {'A', 'A'}: 2, {'Y', 'F'}: 7}},
		{"EDNAFULL", "ATGCSWRYKMBVHDN", map[[2]byte]int64{{'A', 'A'}: 5, {'A', 'T'}: -4, {'N', 'N'}: -1, {'A', 'N'}: -2, {'R', 'A'}: 1}},
	} {
		m, err := Load(filepath.Join(dir, c.name+".mat"), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		bare, err := Load(filepath.Join(dir, c.name), Options{}) // @BLOSUM62, no extension
		if err != nil || !slicesEqual(bare.I, m.I) {
			t.Errorf("%s by its bare name: %v", c.name, err)
		}
		at := func(x, y byte) int64 { return m.I[int(x)*MatrixSize+int(y)] }
		for k, want := range c.entries {
			if got := at(k[0], k[1]); got != want {
				t.Errorf("%s[%c][%c] = %d, want %d", c.name, k[0], k[1], got, want)
			}
		}
		for i := range len(c.letters) {
			for j := range len(c.letters) {
				if x, y := c.letters[i], c.letters[j]; at(x, y) != at(y, x) {
					t.Errorf("%s: [%c][%c] = %d but [%c][%c] = %d", c.name, x, y, at(x, y), y, x, at(y, x))
				}
			}
		}
	}
	found := map[string]bool{}
	for _, n := range BuiltinMatrices() {
		found[n] = true
	}
	for _, n := range []string{"BLOSUM45.mat", "BLOSUM62.mat", "BLOSUM80.mat", "PAM250.mat", "EDNAFULL.mat"} {
		if !found[n] {
			t.Errorf("BuiltinMatrices() = %v, lacks %s", BuiltinMatrices(), n)
		}
	}
}
