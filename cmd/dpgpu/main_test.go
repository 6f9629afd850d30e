package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

func dpgpu(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"dpgpu"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// lcsRef is an independent LCS length.
func lcsRef(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

const seqA, seqB = "ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "GTCGTTCGGAATGCCGTTGCTCTGTAAA"

func TestCheckJSON(t *testing.T) {
	out, errs, code := dpgpu(t, "check", "--json", "testdata/lcs.dp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Rows, Cols   int64
		Schedule     string
		Direction    string
		Prev         int
		Dependencies []struct {
			Text   string
			Line   int
			DI, DJ *int64
		}
		Memory struct {
			DeviceBytes int64 `json:"device_bytes"`
			HostBytes   int64 `json:"host_bytes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Rows != int64(len(seqA)+1) || got.Cols != int64(len(seqB)+1) || got.Schedule != "wavefront" ||
		got.Direction != "forward" || got.Prev != 2 || len(got.Dependencies) != 3 || got.Memory.DeviceBytes <= 0 {
		t.Errorf("unexpected analysis: %+v", got)
	}
	if d := got.Dependencies[0]; d.Text != "cell[i-1][j-1]" || d.Line != 7 || d.DI == nil || *d.DI != 1 || *d.DJ != 1 {
		t.Errorf("first dependency %+v", d)
	}
}

func TestSolveLCSTraceback(t *testing.T) {
	out, errs, code := dpgpu(t, "solve", "--backend", "cpu", "--json", "--traceback", "testdata/lcs.dp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Answer      int64
		EmittedText string `json:"emitted_text"`
		Backend     string
		Cells       int64
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	want := lcsRef(seqA, seqB)
	if got.Answer != int64(want) || len(got.EmittedText) != want || got.Backend != "cpu" {
		t.Fatalf("answer %d, emitted %q (want length %d)", got.Answer, got.EmittedText, want)
	}
	if !dptest.IsSubsequence(got.EmittedText, seqA) || !dptest.IsSubsequence(got.EmittedText, seqB) {
		t.Errorf("%q is not a common subsequence", got.EmittedText)
	}
	if got.Cells != int64((len(seqA)+1)*(len(seqB)+1)) {
		t.Errorf("cells %d", got.Cells)
	}
}

func TestSolveBuiltinsHuman(t *testing.T) {
	tests := []struct{ name, want string }{
		{"knapsack", "answer     26"},
		{"editdistance", "answer     8"},
		{"lookback-put", "answer     5.47018"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := dpgpu(t, "solve", "-b", "cpu", tt.name)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(out, tt.want) || !strings.Contains(out, "GCUPS") {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

func TestGridFiles(t *testing.T) {
	dir := t.TempDir()
	npy, csvPath := filepath.Join(dir, "g.npy"), filepath.Join(dir, "g.csv")
	for _, p := range []string{npy, csvPath} {
		if _, errs, code := dpgpu(t, "solve", "-b", "cpu", "-q", "--grid", p, "testdata/lcs.dp"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	rows, cols := len(seqA)+1, len(seqB)+1
	text, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) != rows || len(strings.Split(lines[0], ",")) != cols {
		t.Fatalf("csv is %d lines", len(lines))
	}
	last := strings.Split(lines[rows-1], ",")
	if last[cols-1] != itoa(lcsRef(seqA, seqB)) {
		t.Errorf("last csv cell %s", last[cols-1])
	}
	data, err := os.ReadFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("\x93NUMPY\x01\x00")) {
		t.Fatalf("not an npy file")
	}
	hlen := int(binary.LittleEndian.Uint16(data[8:10]))
	header := string(data[10 : 10+hlen])
	if !strings.Contains(header, "'<i4'") || !strings.Contains(header, "(30, 29)") || (10+hlen)%64 != 0 {
		t.Errorf("header %q", header)
	}
	body := data[10+hlen:]
	if len(body) != rows*cols*4 {
		t.Fatalf("body %d bytes", len(body))
	}
	if v := int32(binary.LittleEndian.Uint32(body[len(body)-4:])); int(v) != lcsRef(seqA, seqB) {
		t.Errorf("last npy cell %d", v)
	}
	// The same grid, cell by cell: csv row i equals npy row i.
	for i, line := range lines {
		for j, f := range strings.Split(line, ",") {
			v := int32(binary.LittleEndian.Uint32(body[(i*cols+j)*4:]))
			if itoa(int(v)) != f {
				t.Fatalf("cell %d,%d: npy %d csv %s", i, j, v, f)
			}
		}
	}
}

func itoa(v int) string { return strconv.Itoa(v) }

// writeIn writes content to the file name in dir and returns its path.
func writeIn(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestErrorsAndExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"semantic error with caret", []string{"check", "testdata/bad.dp"}, 2, []string{"testdata/bad.dp:4:", "nope", "^"}},
		{"missing file", []string{"solve", "nosuch.dp"}, 2, []string{"nosuch.dp"}},
		{"unknown builtin", []string{"solve", "nosuchproblem"}, 2, []string{"built-in"}},
		{"bad backend", []string{"solve", "--backend", "tpu", "knapsack"}, 2, []string{"unknown backend"}},
		{"bad grid extension", []string{"solve", "--grid", "x.png", "knapsack"}, 2, []string{".npy, .csv or .npz"}},
		{"bad override", []string{"solve", "--set", "cap", "knapsack"}, 2, []string{"NAME=VALUE"}},
		{"unknown flag", []string{"solve", "--frobnicate", "knapsack"}, 2, nil},
		{"no problem", []string{"check"}, 2, []string{"name a .dp file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := dpgpu(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (%s)", code, tt.code, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}

func TestProblemsAndGenData(t *testing.T) {
	out, _, code := dpgpu(t, "problems")
	if code != 0 || !strings.Contains(out, "lcs") || !strings.Contains(out, "knapsack") || !strings.Contains(out, "tsp") {
		t.Fatalf("problems: %d %s", code, out)
	}
	out, _, code = dpgpu(t, "problems", "show", "knapsack")
	if code != 0 || !strings.Contains(out, "cell[") {
		t.Fatalf("problems show: %d %s", code, out)
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "pair")
	if _, errs, code := dpgpu(t, "gen-data", "lcs", "--len", "300", "--ratio", "0.5", "--planted", "0.4", "--seed", "7", "-o", prefix); code != 0 {
		t.Fatalf("gen-data: %s", errs)
	}
	out, errs, code := dpgpu(t, "solve", "-b", "cpu", "--json", "--traceback", "lcs", prefix+"_a.fa", prefix+"_b.fa")
	if code != 0 {
		t.Fatalf("solve generated: %s", errs)
	}
	var got struct {
		Answer      int64
		EmittedText string `json:"emitted_text"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// 40% of the shorter string (150) is planted: the LCS is at least 60.
	if got.Answer < 60 || int(got.Answer) != len(got.EmittedText) {
		t.Errorf("LCS %d of generated pair, emitted %d", got.Answer, len(got.EmittedText))
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	out, errs, code := dpgpu(t, "solve", "knapsack", "--json", "-b", "cpu", "--traceback")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `"answer": 26`) || !strings.Contains(out, `"backend": "cpu"`) || !strings.Contains(out, `"emitted"`) {
		t.Errorf("flags after the problem were not applied:\n%s", out)
	}
	if _, errs, code := dpgpu(t, "solve", "knapsack", "--backend"); code != 2 {
		t.Errorf("a flag missing its value: exit %d (%s)", code, errs)
	}
}
