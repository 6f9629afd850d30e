package formats

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets check that no input makes a reader panic, and that what
// a reader accepts is a well-formed table. `go test` runs their seeds;
// `go test -fuzz FuzzX` explores further.

func checkWellFormed(t *testing.T, tab *Table) {
	t.Helper()
	if tab.Rows < 0 || tab.Cols < 0 || (tab.I == nil) == (tab.F == nil) || len(tab.I)+len(tab.F) != tab.Rows*tab.Cols {
		t.Fatalf("malformed table %dx%d with %d ints, %d floats", tab.Rows, tab.Cols, len(tab.I), len(tab.F))
	}
	checkSpan(t, tab)
}

// checkSpan: a table's span, where known, is its integers' least and
// greatest (a wrong one would let the checker take out-of-range values).
func checkSpan(t *testing.T, tab *Table) {
	t.Helper()
	if !tab.Span.Known {
		return
	}
	if len(tab.I) == 0 {
		t.Fatalf("a span %+v for no integers", tab.Span)
	}
	lo, hi := tab.I[0], tab.I[0]
	for _, v := range tab.I {
		lo, hi = min(lo, v), max(hi, v)
	}
	if tab.Span.Lo != lo || tab.Span.Hi != hi {
		t.Fatalf("span %d..%d, the values span %d..%d", tab.Span.Lo, tab.Span.Hi, lo, hi)
	}
}

func FuzzReadTSPLIB(f *testing.F) {
	for _, name := range []string{"gr17.tsp", "ulysses16.tsp", "br17.atsp", "bayg29.tsp", "att48.tsp"} {
		b, err := os.ReadFile(tsplibDir + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("TYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: GEO\nNODE_COORD_SECTION\n1 90 180\n2 -90 -180\n")
	f.Add("TYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: LOWER_COL\nEDGE_WEIGHT_SECTION 1 2 3\n")
	f.Fuzz(func(t *testing.T, src string) {
		inst, err := ReadTSPLIB(strings.NewReader(src), "f")
		if err != nil {
			return
		}
		if inst.N < 1 || len(inst.Dist) != inst.N*inst.N {
			t.Fatalf("N=%d with %d distances", inst.N, len(inst.Dist))
		}
	})
}

func FuzzReadText(f *testing.F) {
	f.Add("1 2 3\n4 5 6\n", false, false)
	f.Add("# c\n1.5e3 -2\n", true, false)
	f.Add("AC\nGT\n", false, true)
	f.Add("a,b\n1,2\n\"3\",4\n", false, false)
	f.Add(">x\nACGT\n>y\nA\n", false, true)
	f.Fuzz(func(t *testing.T, src string, float, char bool) {
		opt := Options{Float: float && !char, Char: char}
		for _, read := range []func() (*Table, error){
			func() (*Table, error) { return readText(strings.NewReader(src), "f.txt", int64(len(src)), opt) },
			func() (*Table, error) { return readCSV(strings.NewReader(src), "f.csv", 0, opt) },
			func() (*Table, error) {
				return readFASTA(strings.NewReader(src), "f.fa", int64(len(src)), Options{Char: true, Record: 2})
			},
		} {
			if tab, err := read(); err == nil {
				checkWellFormed(t, tab)
			}
		}
	})
}

func FuzzGroups(f *testing.F) {
	f.Add("3 10\n5 4\n6 5\n7 6\n1 0 1\n")
	f.Add("# g\n3 4\n1 0 2 4\n4 6 5 2\n3 2 4\n0 7 3\n3 3 0\n")
	f.Add("1 1\n")
	f.Fuzz(func(t *testing.T, src string) {
		if k, err := ReadPisinger(strings.NewReader(src)); err == nil {
			if len(k.Profits) != k.N || len(k.Weights) != k.N || (k.Solution != nil && len(k.Solution) != k.N) {
				t.Fatalf("inconsistent knapsack %+v", k)
			}
			var buf bytes.Buffer
			if err := WritePisinger(&buf, k); err != nil {
				t.Fatalf("cannot write back what was read: %v", err)
			}
		}
		if tabs, err := readManhattan(strings.NewReader(src), "m", int64(len(src))); err == nil {
			for _, tab := range tabs {
				checkWellFormed(t, tab)
			}
		}
	})
}

func FuzzLoadNpy(f *testing.F) {
	f.Add(npyBytes("<i8", false, "(2, 2)", raw(le, []int64{1, 2, 3, 4})), 0)
	f.Add(npyBytes(">f4", true, "(2, 1)", raw(be, []float32{1, 2})), 1)
	f.Add(npyBytes("|S1", false, "(3,)", []byte("ACG")), 2)
	f.Add(npyBytes("<f8", false, "()", raw(le, []float64{math.Pi})), 1)
	f.Fuzz(func(t *testing.T, file []byte, mode int) {
		p := filepath.Join(t.TempDir(), "f.npy")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		opt := Options{Float: mode%3 == 1, Char: mode%3 == 2}
		if tab, err := Load(p, opt); err == nil {
			checkWellFormed(t, tab)
		}
	})
}
