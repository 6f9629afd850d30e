package formats

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestLoadFASTA(t *testing.T) {
	const multi = ">r1 first record\nACGT\n;comment\nac\n\n>r2\nGGG\n>r3 last\r\nT t\r\n"
	runLoadCases(t, []loadCase{
		{name: "first by default", file: "m.fa", content: multi, opt: Options{Char: true}, rows: 1, cols: 6, ints: chars("ACGTAC")},
		{name: "record 1", file: "m.fasta", content: multi, opt: Options{Char: true, Record: 1}, rows: 1, cols: 6, ints: chars("ACGTAC")},
		{name: "record 2", file: "m.fna", content: multi, opt: Options{Char: true, Record: 2}, rows: 1, cols: 3, ints: chars("GGG")},
		{name: "record 3 CRLF", file: "m.FA", content: multi, opt: Options{Char: true, Record: 3}, rows: 1, cols: 2, ints: chars("TT")},
		{name: "blank lines before header", file: "b.fa", content: "\n\n>x\nN-*\n", opt: Options{Char: true}, rows: 1, cols: 3, ints: chars("N-*")},
		{name: "missing record", file: "m.fa", content: multi, opt: Options{Char: true, Record: 4}, errs: []string{"m.fa has 3 records, asked for #4"}},
		{name: "missing record singular", file: "one.fa", content: ">a\nA\n", opt: Options{Char: true, Record: 2}, errs: []string{"has 1 record, asked for #2"}},
		{name: "negative record", file: "m.fa", content: multi, opt: Options{Char: true, Record: -1}, errs: []string{"numbered from 1"}},
		{name: "not char", file: "m.fa", content: multi, errs: []string{"FASTA holds characters; declare the input as char"}},
		{name: "data before header", file: "d.fa", content: "ACGT\n>x\nA\n", opt: Options{Char: true}, errs: []string{"d.fa:1:", "before the first '>'"}},
		{name: "no records", file: "n.fa", content: "\n\n", opt: Options{Char: true}, errs: []string{"no FASTA record"}},
		// An empty record is the empty sequence, as "" in a .dp file.
		{name: "empty record", file: "e.fa", content: ">a\n>b\nAC\n", opt: Options{Char: true}, rows: 1, cols: 0, ints: []int64{}},
		{name: "empty last record", file: "e.fa", content: ">a\nAC\n>b\n\n", opt: Options{Char: true, Record: 2}, rows: 1, cols: 0, ints: []int64{}},
		{name: "non-ASCII", file: "u.fa", content: ">a\nAC\nGÅ\n", opt: Options{Char: true}, errs: []string{"u.fa:3:", "column 2", "not ASCII"}},
	})
}

// TestFASTARealGenomes reads two RefSeq coronavirus genomes and checks them
// against the lengths, base counts and MD5 sums published with the data
// (testdata/dna, see /work/shared/data/dna/README.txt).
func TestFASTARealGenomes(t *testing.T) {
	cases := []struct {
		file       string
		n          int
		a, c, g, u int
		md5        string
	}{
		{"NC_045512.2.fasta", 29903, 8954, 5492, 5863, 9594, "105c82802b67521950854a851fc6eefd"},
		{"NC_004718.3.fasta", 29751, 8481, 5940, 6187, 9143, "d02443f0c9dd3167a502da6a8d3b06ed"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			tab, err := Load("testdata/dna/"+c.file, Options{Char: true})
			if err != nil {
				t.Fatal(err)
			}
			if tab.Rows != 1 || tab.Cols != c.n {
				t.Fatalf("shape %dx%d, want 1x%d", tab.Rows, tab.Cols, c.n)
			}
			count := map[byte]int{}
			seq := make([]byte, len(tab.I))
			for i, v := range tab.I {
				seq[i] = byte(v)
				count[byte(v)]++
			}
			if count['A'] != c.a || count['C'] != c.c || count['G'] != c.g || count['T'] != c.u || len(count) != 4 {
				t.Errorf("composition %v, want A=%d C=%d G=%d T=%d", count, c.a, c.c, c.g, c.u)
			}
			if got := fmt.Sprintf("%x", md5.Sum(seq)); got != c.md5 {
				t.Errorf("MD5 %s, want %s", got, c.md5)
			}
		})
	}
}

func TestWriteFASTARoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ACGTacgtNn-*"
	for _, n := range []int{1, 59, 60, 61, 120, 121, 1000} {
		seq := make([]byte, n)
		for i := range seq {
			seq[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var buf bytes.Buffer
		if err := WriteFASTA(&buf, fmt.Sprintf("seq%d random", n), string(seq)); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if lines[0] != fmt.Sprintf(">seq%d random", n) {
			t.Errorf("header line %q", lines[0])
		}
		if want := 1 + (n+59)/60; len(lines) != want {
			t.Errorf("n=%d: %d lines, want %d", n, len(lines), want)
		}
		for i, l := range lines[1:] {
			if len(l) > 60 || (i < len(lines)-2 && len(l) != 60) {
				t.Errorf("n=%d: sequence line %d has %d characters", n, i+1, len(l))
			}
		}
		// Written twice: the second record must come back on its own.
		two := buf.String() + buf.String()
		for rec := 1; rec <= 2; rec++ {
			got, err := Load(writeTemp(t, "w.fa", two), Options{Char: true, Record: rec})
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, got, 1, n, chars(strings.ToUpper(string(seq))), nil)
		}
	}
}

func TestWriteFASTAErrors(t *testing.T) {
	cases := []struct{ header, seq, err string }{
		{"a\nb", "ACGT", "spans lines"},
		{"a", "AC GT", "position 2"},
		{"a", "AC\nGT", "whitespace 0x0a"},
		{"a", "AC\x00GT", "control character"},
		{"a", "AC>GT", "'>' would be read as the start of a header"},
		{"a", "AC;GT", "';' would be read"},
		{"a", "", "empty sequence"},
		{"a", "ACÅ", "not ASCII"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		err := WriteFASTA(&buf, c.header, c.seq)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("WriteFASTA(%q, %q) = %v, want an error containing %q", c.header, c.seq, err, c.err)
		}
		if buf.Len() != 0 {
			t.Errorf("WriteFASTA(%q, %q) wrote %q despite the error", c.header, c.seq, buf.String())
		}
	}
}
