package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/report"
)

// batchFiles writes two FASTA files of random DNA (lengths 0..200; the
// third record of a.fa has a byte no char input holds) and returns their
// paths and sequences.
func batchFiles(t *testing.T, na, nb int) (a, b string, as, bs []string) {
	t.Helper()
	dir := t.TempDir()
	r := dptest.Rand(t)
	write := func(name string, n int) (string, []string) {
		var text strings.Builder
		var seqs []string
		for k := range n {
			s := dptest.DNA(r, r.IntN(201))
			if k == 1 {
				s = ""
			}
			seqs = append(seqs, s)
			fmt.Fprintf(&text, ">%s%d\n%s\n", name, k, s)
			if k == 2 && name == "a" {
				text.WriteString("A\x7fC\n")
			}
		}
		p := filepath.Join(dir, name+".fa")
		if err := os.WriteFile(p, []byte(text.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p, seqs
	}
	a, as = write("a", na)
	b, bs = write("b", nb)
	return
}

// parseTSV reads dpgpu batch's TSV back: the header and the rows, fields
// unescaped.
func parseTSV(t *testing.T, out string) (head []string, rows [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	head = strings.Split(lines[0], "\t")
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != len(head) {
			t.Fatalf("%d fields, want %d: %q", len(f), len(head), l)
		}
		for k := range f {
			f[k] = report.UnescapeTSV(f[k])
		}
		rows = append(rows, f)
	}
	return head, rows
}

func TestBatchCommandTSV(t *testing.T) {
	a, b, as, bs := batchFiles(t, 6, 3)
	out, errText, code := dpgpu(t, "batch", "lcs", a, b, "-t", "2", "-q")
	if code != 2 || !strings.Contains(errText, "3 of 18 instances failed") {
		t.Fatalf("exit %d, stderr %q; want 2 for the bad record", code, errText)
	}
	head, rows := parseTSV(t, out)
	if strings.Join(head, ",") != "n,A,B,answer,error" || len(rows) != len(as)*len(bs) {
		t.Fatalf("head %v, %d rows", head, len(rows))
	}
	for k, row := range rows {
		i, j := k/len(bs), k%len(bs)
		if row[0] != strconv.Itoa(k+1) || row[1] != fmt.Sprintf("a%d", i) || row[2] != fmt.Sprintf("b%d", j) {
			t.Fatalf("row %d: %v", k, row)
		}
		if i == 2 {
			if row[3] != "" || !strings.Contains(row[4], "control character 0x7f") {
				t.Errorf("row %d: %v, want the bad record's error", k, row)
			}
			continue
		}
		if want := strconv.Itoa(lcsRef(as[i], bs[j])); row[3] != want || row[4] != "" {
			t.Errorf("row %d: %v, want answer %s", k, row, want)
		}
	}
}

func TestBatchCommandJSONLPairs(t *testing.T) {
	a, _, as, _ := batchFiles(t, 5, 1)
	out, errText, code := dpgpu(t, "batch", "lcs", a, a, "--pairs", "--format", "jsonl", "-T", "-q")
	if code != 2 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(as) {
		t.Fatalf("%d lines, want %d", len(lines), len(as))
	}
	for k, l := range lines {
		var m struct {
			N      int
			Names  map[string]string
			Answer any
			Error  string
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("a%d", k)
		if m.N != k+1 || m.Names["A"] != name || m.Names["B"] != name {
			t.Fatalf("line %d: %s", k, l)
		}
		if k == 2 {
			if m.Error == "" {
				t.Errorf("line %d: no error for the bad record", k)
			}
			continue
		}
		if m.Answer != float64(len(as[k])) {
			t.Errorf("line %d: answer %v, want %d (a sequence against itself)", k, m.Answer, len(as[k]))
		}
	}
}

// partials lists what a run left in dir besides want.
func leftovers(t *testing.T, dir string, want ...string) []string {
	entries, _ := os.ReadDir(dir)
	var extra []string
	for _, e := range entries {
		found := false
		for _, w := range want {
			found = found || e.Name() == w
		}
		if !found {
			extra = append(extra, e.Name())
		}
	}
	return extra
}

func TestBatchCommandOutputFile(t *testing.T) {
	a, b, _, _ := batchFiles(t, 4, 2)
	dir := t.TempDir()
	res := filepath.Join(dir, "res.tsv")
	stdout, _, code := dpgpu(t, "batch", "lcs", a, b, "-o", res, "-q")
	if code != 2 || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	data, err := os.ReadFile(res)
	if err != nil {
		t.Fatalf("-o: %v (a batch with failed instances still writes its file)", err)
	}
	if _, rows := parseTSV(t, string(data)); len(rows) != 8 {
		t.Fatalf("%d rows", len(rows))
	}
	if extra := leftovers(t, dir, "res.tsv"); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}

	// --fail-fast stops at the bad record: no file.
	res2 := filepath.Join(dir, "ff.tsv")
	if _, errText, code := dpgpu(t, "batch", "lcs", a, b, "-o", res2, "--fail-fast", "-q"); code != 2 || !strings.Contains(errText, "fail-fast") {
		t.Fatalf("fail-fast: exit %d, %q", code, errText)
	}
	if extra := leftovers(t, dir, "res.tsv"); len(extra) > 0 {
		t.Errorf("fail-fast left: %v", extra)
	}

	// Interrupted: exit 130 and nothing left.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	big := filepath.Join(dir, "big.fa")
	var text strings.Builder
	for k := range 3000 {
		fmt.Fprintf(&text, ">s%d\n%s\n", k, strings.Repeat("ACGT", 50))
	}
	os.WriteFile(big, []byte(text.String()), 0o644)
	if code := runContext(ctx, []string{"dpgpu", "batch", "lcs", big, big, "-o", filepath.Join(dir, "int.tsv")}, &out, &errb); code != 130 {
		t.Fatalf("interrupted: exit %d (%s)", code, errb.String())
	}
	if extra := leftovers(t, dir, "res.tsv", "big.fa"); len(extra) > 0 {
		t.Errorf("interrupt left: %v", extra)
	}
}

func TestBatchCommandDirectory(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	seqs := []string{"ACGT", "GGA", "TTTTAC"}
	for k, s := range seqs {
		os.WriteFile(filepath.Join(in, fmt.Sprintf("s%d.txt", k)), []byte(s+"\n"), 0o644)
	}
	ref := filepath.Join(dir, "ref.txt")
	os.WriteFile(ref, []byte("GATTACA\n"), 0o644)
	out, errText, code := dpgpu(t, "batch", "lcs", in, ref, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	_, rows := parseTSV(t, out)
	for k, row := range rows {
		if row[1] != fmt.Sprintf("s%d.txt", k) || row[3] != strconv.Itoa(lcsRef(seqs[k], "GATTACA")) {
			t.Errorf("row %d: %v", k, row)
		}
	}
}

func TestBatchCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"batch"},
		{"batch", "lcs", "--format", "csv"},
		{"batch", "lcs", "/no/such.fa", "/no/such.fa"},
		{"batch", "lcs", "-o", "/no/such/dir/x.tsv"},
	} {
		if _, errText, code := dpgpu(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errText)
		}
	}
}
