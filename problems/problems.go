// Package problems holds the built-in problems: `.dp` files compiled into
// the binary so that `dpgpu solve lcs` works anywhere, each a commented
// example of the language with small default data and an `args:` line for
// instance files. Its subpackages write the seed thesis's random instances
// (gen) and print the solutions of the built-ins for a person (render).
//
// The registry below is the one place that knows a built-in by name: its
// aliases, its renderer, its random instances for `bench` and `gen-data`,
// and its default bench sizes. `solve`, `check`, `bench`, `gen-data` and
// `problems` all read it, so that adding a built-in is its `.dp` file plus
// one entry (plus a renderer, when its solution has a shape of its own).
package problems

import (
	"bufio"
	"bytes"
	"embed"
	"slices"
	"strings"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems/gen"
	"github.com/dpgpu/dpgpu/problems/render"
)

//go:embed *.dp
var files embed.FS

// Data kinds: the `dpgpu gen-data` subcommands, each writing instance files
// in the format of the built-ins that name it.
const (
	DataPair      = "lcs"       // two sequences (FASTA or text)
	DataKnapsack  = "knapsack"  // Pisinger's knapsack format
	DataManhattan = "manhattan" // a Manhattan street grid
	DataRNA       = "rna"       // an RNA sequence (FASTA or text)
	DataInts      = "ints"      // a vector of integers (a text file)
	DataProtein   = "protein"   // two related protein sequences (FASTA)
)

// Builtin is one built-in problem: everything the commands know about it.
type Builtin struct {
	// Name is what users type: the file is Name + ".dp" and its `problem`
	// line says Name, so that reports and lookups by problem name agree.
	Name string
	// Aliases are other names for it. The commands accept them for Name,
	// and a file whose `problem` line uses one gets this built-in's
	// renderer and instances.
	Aliases []string
	// Summary is one line: the file's first comment line.
	Summary string
	// Source is the `.dp` text; a fresh copy for each Lookup.
	Source []byte
	// Render prints a traceback in the problem's terms (--traceback); nil
	// when the emitted values are printed as they are.
	Render render.Renderer
	// Generate makes the random instance of a size that `bench` runs; nil
	// when the problem has none (bench then scales the `?` sides of its
	// inputs, or runs it at its own size).
	Generate gen.Sizer
	// Data is the `gen-data` kind that writes instance files for it; "" for
	// none.
	Data string
	// BenchSizes are the sizes `bench` runs when --size is not given; nil
	// without Generate.
	BenchSizes []int
}

// entries is the registry, in the order `problems` lists it (by name).
// It is built on each call so that no caller can change it for another.
func entries() []Builtin {
	// The bench sizes of the built-ins that scale: the lengths of the
	// sequence pairs, the item counts, the grid sides.
	benchSizes := []int{1000, 2000, 4000}
	pair := func(name string, r render.Renderer, aliases ...string) Builtin {
		return Builtin{Name: name, Aliases: aliases, Render: r, Generate: gen.PairInstance, Data: DataPair, BenchSizes: benchSizes}
	}
	knapsack := func(name string, bounded bool, aliases ...string) Builtin {
		return Builtin{Name: name, Aliases: aliases, Render: render.Knapsack, Generate: gen.KnapsackInstance(bounded), Data: DataKnapsack, BenchSizes: benchSizes}
	}
	// Interval DP is cubic: its sizes are the chain or sequence lengths.
	cubicSizes := []int{250, 500, 1000}
	return []Builtin{
		{Name: "coin-change", Aliases: []string{"change"}, Render: render.CoinChange,
			Generate: gen.CoinsInstance, Data: DataInts, BenchSizes: []int{1000, 10000, 100000}},
		{Name: "coin-change-ways", Generate: gen.CoinsInstance, Data: DataInts, BenchSizes: []int{1000, 10000, 100000}},
		pair("editdistance", render.EditDistance, "edit-distance", "levenshtein"),
		knapsack("knapsack", false, "knapsack01", "knapsack-01"),
		knapsack("knapsack-bounded", true),
		knapsack("knapsack-unbounded", false),
		// A 3-D grid; gen-data has no graphs yet.
		{Name: "floyd-warshall", Aliases: []string{"all-pairs-shortest-paths", "apsp"}},
		// Several tables (X, Y, H): the emitted columns are the alignment.
		pair("gotoh", render.GlobalAlignment, "affine-gap", "affine-alignment"),
		pair("gotoh-local", render.LocalAlignment, "local-affine"),
		pair("semiglobal", render.LocalAlignment, "semi-global", "glocal"),
		pair("lcs", render.LCS),
		// Three strings: a 3-D grid on the hyperplane t = k + i + j.
		{Name: "lcs3", Aliases: []string{"lcs-3", "three-lcs"}},
		// Gotoh with BLOSUM62 (built into problems/formats) for proteins.
		{Name: "protein-align", Aliases: []string{"blosum62-align"}, Generate: gen.ProteinPairInstance, Data: DataProtein, BenchSizes: benchSizes},
		// Smith-Waterman with BLOSUM62 and linear gaps: database search.
		{Name: "protein-local", Aliases: []string{"blosum62-local"}, Render: render.LocalAlignment, Generate: gen.ProteinPairInstance, Data: DataProtein, BenchSizes: benchSizes},
		{Name: "lis", Aliases: []string{"longest-increasing-subsequence"}, Render: render.LIS,
			Generate: gen.ValuesInstance, Data: DataInts, BenchSizes: benchSizes},
		{Name: "lookback-put"},
		{Name: "manhattan", Aliases: []string{"manhattan-tourist"}, Render: render.Manhattan,
			Generate: gen.ManhattanInstance, Data: DataManhattan, BenchSizes: benchSizes},
		{Name: "matrix-chain", Aliases: []string{"matrix-chain-multiplication"}, Render: render.MatrixChain,
			Generate: gen.ChainInstance, Data: DataInts, BenchSizes: cubicSizes},
		pair("needleman-wunsch", render.GlobalAlignment, "global-alignment"),
		{Name: "nussinov", Aliases: []string{"rna-folding"}, Render: render.Nussinov,
			Generate: gen.RNAInstance, Data: DataRNA, BenchSizes: cubicSizes},
		{Name: "optimal-bst", Render: render.OptimalBST, Generate: gen.BSTInstance, Data: DataInts, BenchSizes: cubicSizes},
		pair("smith-waterman", render.LocalAlignment, "local-alignment"),
		// Solved by package heldkarp, outside the grid pipeline; the
		// engine prints its tour.
		{Name: "tsp"},
	}
}

// Names returns the names of the built-in problems, sorted (aliases aside).
func Names() []string {
	var names []string
	for _, e := range entries() {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the built-in problem called name ("lcs", not "lcs.dp"),
// by its name or one of its aliases.
func Lookup(name string) (*Builtin, bool) {
	for _, e := range entries() {
		if e.Name != name && !slices.Contains(e.Aliases, name) {
			continue
		}
		src, err := files.ReadFile(e.Name + ".dp")
		if err != nil {
			// Every entry has its file: the registry's test reads them
			// all, so this is a broken build.
			panic("problems: the built-in " + e.Name + " has no " + e.Name + ".dp")
		}
		e.Source, e.Summary = src, summary(src)
		return &e, true
	}
	return nil, false
}

// Solution renders the traceback of the problem p (the path in res, or
// tree; see render.Renderer) in the terms of the built-in called name (its
// `problem` line; an alias counts). It
// returns false when no built-in has that name, when it has no renderer, or
// when the renderer finds no solution of its shape (see render.Renderer).
func Solution(name string, p *ir.Problem, res *backend.Result, tree *traceback.Node) (string, bool) {
	b, ok := Lookup(name)
	if !ok || b.Render == nil {
		return "", false
	}
	return b.Render(p, res, tree)
}

// summary is the text of the first non-empty comment line of src, without
// the '#'.
func summary(src []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if text, ok := strings.CutPrefix(line, "#"); ok && strings.TrimSpace(text) != "" {
			return strings.TrimSpace(text)
		}
	}
	return ""
}
