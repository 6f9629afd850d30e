package problems

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

var want = []string{
	"coin-change", "coin-change-ways", "editdistance", "floyd-warshall", "gotoh", "gotoh-local", "knapsack", "knapsack-bounded", "knapsack-unbounded", "lcs", "lcs3",
	"lis", "lookback-put", "manhattan", "matrix-chain", "needleman-wunsch", "nussinov", "optimal-bst", "protein-align",
	"protein-local", "semiglobal", "smith-waterman", "tsp",
}

func TestNames(t *testing.T) {
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
}

func TestLookup(t *testing.T) {
	for _, name := range want {
		b, ok := Lookup(name)
		if !ok {
			t.Errorf("Lookup(%q) failed", name)
			continue
		}
		if b.Name != name {
			t.Errorf("Lookup(%q).Name = %q", name, b.Name)
		}
		// The summary is the first comment line: one short sentence.
		first, _, _ := strings.Cut(string(b.Source), "\n")
		if b.Summary == "" || "# "+b.Summary != first || len(b.Summary) > 100 {
			t.Errorf("%s: summary %q, first line %q", name, b.Summary, first)
		}
		// Each file names itself, so that reports and the renderers see the
		// built-in's name, and maps its instance files with args:.
		if !bytes.Contains(b.Source, []byte("\nproblem "+name+"\n")) {
			t.Errorf("%s: no `problem %s` line", name, name)
		}
		if name != "lookback-put" && !bytes.Contains(b.Source, []byte("\nargs: ")) {
			t.Errorf("%s: no args: line", name)
		}
		// A fresh copy each time: a caller may not spoil the built-in.
		b.Source[0] = 'X'
		if again, _ := Lookup(name); again.Source[0] != '#' {
			t.Errorf("%s: changing one Lookup's Source changed the next", name)
		}
	}
	for _, bad := range []string{"", "nope", "lcs.dp", "LCS", "./lcs", "../problems/lcs", "gen/lcs", ".", "*"} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
}

func TestSummary(t *testing.T) {
	tests := []struct{ src, want string }{
		{"# One line.\n# more\nproblem x\n", "One line."},
		{"\n  #   Indented.  \n", "Indented."},
		{"#\n#\n# After empty comments.\n", "After empty comments."},
		{"problem x\n# Late comment.\n", "Late comment."},
		{"problem x\n", ""},
	}
	for _, tt := range tests {
		if got := summary([]byte(tt.src)); got != tt.want {
			t.Errorf("summary(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// Every embedded `.dp` file has its registry entry and every entry its
// file: a built-in added on one side only would be missing from `dpgpu
// problems` or fail at Lookup.
func TestRegistryMatchesFiles(t *testing.T) {
	dir, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, e := range dir {
		if name, ok := strings.CutSuffix(e.Name(), ".dp"); ok {
			onDisk = append(onDisk, name)
		}
	}
	slices.Sort(onDisk)
	if got := Names(); !slices.Equal(got, onDisk) {
		t.Errorf("registry %v, embedded files %v", got, onDisk)
	}
	for _, e := range entries() {
		if (e.Generate == nil) != (e.Data == "") || (e.Generate == nil) != (len(e.BenchSizes) == 0) {
			t.Errorf("%s: generator %v, gen-data kind %q, bench sizes %v: all or none", e.Name, e.Generate != nil, e.Data, e.BenchSizes)
		}
	}
}
