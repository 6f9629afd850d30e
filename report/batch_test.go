package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/ir"
)

func TestCIGAR(t *testing.T) {
	for _, c := range []struct {
		path [][2]int64
		want string
	}{
		{nil, ""},
		{[][2]int64{{0, 0}}, ""},
		{[][2]int64{{0, 0}, {1, 1}, {2, 2}, {3, 2}, {3, 3}, {3, 4}}, "2M1I2D"},
		{[][2]int64{{2, 3}, {3, 4}}, "1M"},
		{[][2]int64{{0, 0}, {2, 2}}, ""}, // not a unit step
	} {
		if got := CIGAR(c.path); got != c.want {
			t.Errorf("CIGAR(%v) = %q, want %q", c.path, got, c.want)
		}
	}
}

func batchResults() []*engine.BatchResult {
	return []*engine.BatchResult{
		{Index: 0, Names: []string{"r\t1", "ref"}, Answer: ir.Value{T: ir.Int, I: -3}, CellType: ir.Int, Cells: 20,
			Path: [][2]int64{{0, 0}, {1, 1}, {1, 2}}, Solution: "A  G-\\\nB  GA"},
		{Index: 1, Names: []string{"bad", "ref"}, Err: errors.New("x.fa:3: column 2: control character\nsecond line")},
		{Index: 2, Names: []string{"r3", "ref"}, Answer: ir.Value{T: ir.Int, I: 2147483647}, CellType: ir.Int,
			Emitted: []ir.Value{{T: ir.Char, I: 'A'}, {T: ir.Char, I: 'C'}}, Path: [][2]int64{{0, 0}, {0, 1}}},
	}
}

func TestBatchTSVRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewBatchWriter(&buf, "tsv", []string{"A", "B"}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range batchResults() {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := [][]string{
		{"n", "A", "B", "answer", "cigar", "solution", "error"},
		{"1", "r\t1", "ref", "-3", "1M1D", "A  G-\\\nB  GA", ""},
		{"2", "bad", "ref", "", "", "", "x.fa:3: column 2: control character; second line"},
		{"3", "r3", "ref", "inf", "1D", "A C", ""},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for k, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != len(want[k]) {
			t.Fatalf("line %d: %d fields, want %d: %q", k, len(f), len(want[k]), line)
		}
		for m := range f {
			if got := UnescapeTSV(f[m]); got != want[k][m] {
				t.Errorf("line %d field %d = %q, want %q", k, m, got, want[k][m])
			}
		}
	}
}

func TestBatchJSONLRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewBatchWriter(&buf, "jsonl", []string{"A", "B"}, true)
	for _, r := range batchResults() {
		w.Write(r)
	}
	if err := w.Header(); err != nil || strings.Count(buf.String(), "\n") != 3 {
		t.Fatalf("JSON Lines has no header: %v\n%s", err, buf.String())
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, m)
	}
	if got[0]["answer"] != -3.0 || got[0]["cigar"] != "1M1D" || got[0]["names"].(map[string]any)["A"] != "r\t1" {
		t.Errorf("line 1: %v", got[0])
	}
	if _, ok := got[1]["answer"]; ok || !strings.Contains(got[1]["error"].(string), "control character") {
		t.Errorf("line 2: %v", got[1])
	}
	if got[2]["answer"] != "inf" || len(got[2]["emitted"].([]any)) != 2 {
		t.Errorf("line 3: %v", got[2])
	}
	if _, err := NewBatchWriter(&buf, "csv", nil, false); err == nil {
		t.Error("format csv accepted")
	}
}

func TestBatchEmptyHeader(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewBatchWriter(&buf, "tsv", []string{"A"}, false)
	w.Header()
	w.Header()
	if buf.String() != "n\tA\tanswer\terror\n" {
		t.Errorf("%q", buf.String())
	}
}
