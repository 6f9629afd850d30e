package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecords(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		want       []string // NAME=SEQ, or NAME!error-fragment
		fileErr    string
	}{
		{"plain", ">r1 desc\nacgt\nGG\n;comment\n>r2\n\n>  \nTT\n", []string{"r1=ACGTGG", "r2=", "#3=TT"}, ""},
		{"bad letter", ">a\nAC\n>b\nA\x01C\nGG\n>c\nT\n", []string{"a=AC", "b!4: column 2: control character", "c=T"}, ""},
		{"no header", "ACGT\n>a\nA\n", nil, "before the first '>'"},
		{"empty file", "", nil, "no FASTA record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".fa")
			os.WriteFile(p, []byte(c.text), 0o644)
			var got []string
			var fileErr error
			for r, err := range Records(p) {
				if err != nil {
					fileErr = err
					break
				}
				if r.Err != nil {
					got = append(got, r.Name+"!"+r.Err.Error())
					continue
				}
				if r.Char().Cols != len(r.Seq) {
					t.Errorf("Char: %d cols for %d letters", r.Char().Cols, len(r.Seq))
				}
				got = append(got, r.Name+"="+string(r.Seq))
			}
			if c.fileErr != "" {
				if fileErr == nil || !strings.Contains(fileErr.Error(), c.fileErr) {
					t.Fatalf("err %v, want %q", fileErr, c.fileErr)
				}
				return
			}
			if fileErr != nil || len(got) != len(c.want) {
				t.Fatalf("got %q, %v; want %q", got, fileErr, c.want)
			}
			for k := range got {
				w := c.want[k]
				if strings.Contains(w, "!") {
					if n, frag, _ := strings.Cut(w, "!"); !strings.HasPrefix(got[k], n+"!") || !strings.Contains(got[k], frag) {
						t.Errorf("record %d: %q, want %q", k, got[k], w)
					}
				} else if got[k] != w {
					t.Errorf("record %d: %q, want %q", k, got[k], w)
				}
			}
		})
	}
	// Stopping early is allowed (the file is closed by the iterator).
	p := filepath.Join(dir, "plain.fa")
	for range Records(p) {
		break
	}
}

func TestPathList(t *testing.T) {
	p := filepath.Join(t.TempDir(), "list")
	os.WriteFile(p, []byte("# head\n a.fa \n\nsub/b.txt\r\n"), 0o644)
	var got []string
	for s, err := range PathList(p) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if strings.Join(got, "|") != "a.fa|sub/b.txt" {
		t.Errorf("%q", got)
	}
	for _, err := range PathList(p + ".missing") {
		if err == nil {
			t.Error("a missing list gave no error")
		}
	}
}
