package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/problems/formats"
)

// What the writers produce must load back, through the loaders the engine
// uses, to exactly what was generated.

func TestWriteSequence(t *testing.T) {
	dir := t.TempDir()
	a, _, _ := LCSPair(NewRand(10), 157, 100, 0.5) // 157: not a multiple of any FASTA line width
	for _, name := range []string{"a.fa", "a.fasta", "a.FNA", "a.txt"} {
		path := filepath.Join(dir, name)
		if err := WriteSequence(path, "random strand", a); err != nil {
			t.Fatalf("WriteSequence(%s): %v", name, err)
		}
		tab, err := formats.Load(path, formats.Options{Char: true})
		if err != nil {
			t.Fatalf("loading %s: %v", name, err)
		}
		got := make([]byte, len(tab.I))
		for i, c := range tab.I {
			got[i] = byte(c)
		}
		if string(got) != a {
			t.Errorf("%s: read back %q, want %q", name, got, a)
		}
	}
	if err := WriteSequence(filepath.Join(dir, "a.seq"), "x", a); err == nil || !strings.Contains(err.Error(), "unknown sequence format") {
		t.Errorf("WriteSequence(a.seq): err %v, want an unknown-format error", err)
	}
}

func TestWriteKnapsack(t *testing.T) {
	dir := t.TempDir()
	k, counts := Knapsack(NewRand(11), 37, 1000, true)
	kp, cp := filepath.Join(dir, "items.kp"), filepath.Join(dir, "counts.txt")
	if err := WriteKnapsack(kp, k); err != nil {
		t.Fatal(err)
	}
	if err := WriteCounts(cp, counts); err != nil {
		t.Fatal(err)
	}
	g, err := formats.LoadGroup("pisinger", kp)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 3 || !slices.Equal(g[0].I, k.Profits) || !slices.Equal(g[1].I, k.Weights) || len(g[2].I) != 1 || g[2].I[0] != k.Capacity {
		t.Errorf("pisinger file read back as %+v, want profits %v, weights %v, capacity %d", g, k.Profits, k.Weights, k.Capacity)
	}
	c, err := formats.Load(cp, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rows != 1 || !slices.Equal(c.I, counts) {
		t.Errorf("counts read back as %dx%d %v, want 1x%d %v", c.Rows, c.Cols, c.I, len(counts), counts)
	}
}

func TestWriteManhattan(t *testing.T) {
	dir := t.TempDir()
	const n = 6
	down, right := Manhattan(NewRand(12), n)
	path := filepath.Join(dir, "city.txt")
	if err := WriteManhattan(path, n, down, right); err != nil {
		t.Fatal(err)
	}
	g, err := formats.LoadGroup("manhattan", path)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 2 || g[0].Rows != n-1 || g[0].Cols != n || g[1].Rows != n || g[1].Cols != n-1 ||
		!slices.Equal(g[0].I, down) || !slices.Equal(g[1].I, right) {
		t.Errorf("manhattan file read back as %+v, want down %v, right %v", g, down, right)
	}
}

// A failed write leaves nothing behind, and the error names the file.
func TestWriteFails(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "a.fa")
	if err := WriteSequence(missing, "x", "ACGT"); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("writing into a missing directory: err %v, want one naming %s", err, missing)
	}
	// Pisinger's format cannot hold a knapsack whose slices disagree with N.
	bad := &formats.Knapsack{N: 3, Capacity: 10, Profits: []int64{1}, Weights: []int64{1}}
	path := filepath.Join(dir, "bad.kp")
	if err := WriteKnapsack(path, bad); err == nil {
		t.Error("WriteKnapsack accepted 3 items with one profit and one weight")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("failed writes left %d files behind", len(entries))
	}
}
