package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// npyShape reads an .npy file's shape and its int32 cells.
func npyShape(t *testing.T, data []byte) (shape string, cells []int32) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("\x93NUMPY\x01\x00")) {
		t.Fatalf("not an npy file")
	}
	hlen := int(binary.LittleEndian.Uint16(data[8:10]))
	header := string(data[10 : 10+hlen])
	m := regexp.MustCompile(`'shape': \(([^)]*)\)`).FindStringSubmatch(header)
	if m == nil || !strings.Contains(header, "'<i4'") {
		t.Fatalf("header %q", header)
	}
	body := data[10+hlen:]
	cells = make([]int32, len(body)/4)
	for k := range cells {
		cells[k] = int32(binary.LittleEndian.Uint32(body[4*k:]))
	}
	return m[1], cells
}

// TestGridTables: --grid writes each table in its own shape — one .npz
// member or one file per table for several tables (the user's R x C each,
// not the flat interleaved grid), (K, R, C) for a 3-D grid, (N,) for a 1-D
// one — and the answer is the cell the tables' recurrence says.
func TestGridTables(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return writeIn(t, dir, name, content) }
	a, b := write("a.fa", ">a\nACGTTGCA\n"), write("b.fa", ">b\nACGGTCA\n")
	// gotoh: X, Y, H over 9 x 8 cells; H's last cell is the answer.
	out, errs, code := dpgpu(t, "solve", "-b", "cpu", "--json", "--grid", filepath.Join(dir, "g.npz"), "gotoh", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	answer := regexp.MustCompile(`"answer": (-?\d+)`).FindStringSubmatch(out)
	z, err := zip.OpenReader(filepath.Join(dir, "g.npz"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	members := map[string][]int32{}
	for _, f := range z.File {
		names = append(names, f.Name)
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(r)
		r.Close()
		shape, cells := npyShape(t, data)
		if shape != "9, 8" {
			t.Errorf("%s: shape (%s), want (9, 8)", f.Name, shape)
		}
		members[f.Name] = cells
	}
	if strings.Join(names, " ") != "X.npy Y.npy H.npy" {
		t.Fatalf("members %v", names)
	}
	if h := members["H.npy"]; answer == nil || len(h) != 72 || itoa(int(h[71])) != answer[1] {
		t.Errorf("H's last cell %v, answer %v", h[len(h)-1], answer)
	}
	if x := members["X.npy"]; x[0] != -2147483647 { // X[0][0] = -inf
		t.Errorf("X[0][0] = %d, want -inf", x[0])
	}
	// The same in .npy: one file per table beside the target.
	out, errs, code = dpgpu(t, "solve", "-b", "cpu", "--grid", filepath.Join(dir, "g.npy"), "gotoh", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, name := range []string{"X", "Y", "H"} {
		data, err := os.ReadFile(filepath.Join(dir, "g."+name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		_, cells := npyShape(t, data)
		if want := members[name+".npy"]; !slices.Equal(cells, want) {
			t.Errorf("g.%s.npy differs from the .npz member", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "g.npy")); err == nil {
		t.Errorf("g.npy written besides the tables' files")
	}
	if !strings.Contains(out, "g.X.npy, ") || !strings.Contains(out, "g.H.npy") {
		t.Errorf("report does not name the files:\n%s", out)
	}
	// CSV: the user's columns of each table.
	if _, errs, code = dpgpu(t, "solve", "-b", "cpu", "--grid", filepath.Join(dir, "g.csv"), "gotoh", a, b); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	text, err := os.ReadFile(filepath.Join(dir, "g.H.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) != 9 || len(strings.Split(lines[8], ",")) != 8 || !strings.HasSuffix(lines[8], ","+answer[1]) {
		t.Errorf("g.H.csv: %d lines, last %q (answer %s)", len(lines), lines[len(lines)-1], answer[1])
	}
	// A 3-D grid in its three sides, a 1-D grid in one.
	lcs3 := write("lcs3.dp", "problem lcs3\nchar 1x? A = \"ACGT\"\nchar 1x? B = \"AGT\"\nchar 1x? C = \"CGTA\"\n(len(A)+1) x (len(B)+1) x (len(C)+1)\n"+
		"cell[k][i][j] = 0 when k == 0 || i == 0 || j == 0\n | cell[k-1][i-1][j-1] + 1 when A[k-1] == B[i-1] && B[i-1] == C[j-1]\n | max(cell[k-1][i][j], cell[k][i-1][j], cell[k][i][j-1]) otherwise\n")
	lis := write("lis.dp", "problem lis\nint 1x? a = 3,1,4,1,5,9,2,6\nlen(a)\ncell[j] = 1 + max(0, max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0))\n")
	for _, c := range []struct{ file, shape string }{{lcs3, "5, 4, 5"}, {lis, "8,"}} {
		target := filepath.Join(dir, "s.npy")
		if _, errs, code := dpgpu(t, "solve", "-b", "cpu", "--grid", target, c.file); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		data, _ := os.ReadFile(target)
		if shape, _ := npyShape(t, data); shape != c.shape {
			t.Errorf("%s: shape (%s), want (%s)", c.file, shape, c.shape)
		}
	}
}
