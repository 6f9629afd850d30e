package formats

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestPisingerFiles reads two instances of Pisinger's "large_scale" set
// (testdata/knapsack, copied from /work/shared/data/knapsack) and checks them
// against their README: n, capacity, and that the published solution vector
// reaches the published optimum within the capacity.
func TestPisingerFiles(t *testing.T) {
	cases := []struct {
		file           string
		n              int
		capacity       int64
		optimum        int64
		solutionWeight int64
		strongly       bool // type 3: profit = weight + 100 for every item
	}{
		{"knapPI_1_100_1000_1", 100, 995, 9147, 985, false},
		{"knapPI_3_100_1000_1", 100, 997, 2397, 997, true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open("testdata/knapsack/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			k, err := ReadPisinger(f)
			if err != nil {
				t.Fatal(err)
			}
			if k.N != c.n || k.Capacity != c.capacity || len(k.Profits) != c.n || len(k.Weights) != c.n {
				t.Fatalf("n=%d c=%d, want n=%d c=%d", k.N, k.Capacity, c.n, c.capacity)
			}
			if k.Solution == nil {
				t.Fatal("no solution vector read")
			}
			var p, w int64
			for i, x := range k.Solution {
				p += int64(x) * k.Profits[i]
				w += int64(x) * k.Weights[i]
				if c.strongly && k.Profits[i]-k.Weights[i] != 100 {
					t.Errorf("item %d: profit %d, weight %d: columns swapped?", i+1, k.Profits[i], k.Weights[i])
				}
			}
			if p != c.optimum || w != c.solutionWeight || w > k.Capacity {
				t.Errorf("solution profit %d weight %d, want %d and %d (capacity %d)", p, w, c.optimum, c.solutionWeight, k.Capacity)
			}

			tabs, err := LoadGroup("pisinger", "testdata/knapsack/"+c.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(tabs) != 3 {
				t.Fatalf("%d tables, want 3", len(tabs))
			}
			checkTable(t, tabs[0], 1, c.n, k.Profits, nil)
			checkTable(t, tabs[1], 1, c.n, k.Weights, nil)
			checkTable(t, tabs[2], 1, 1, []int64{c.capacity}, nil)
		})
	}
}

func TestPisingerRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 2, 7, 100, 1001} {
		for _, withSol := range []bool{false, true} {
			k := &Knapsack{N: n, Capacity: rng.Int64N(1 << 40), Profits: make([]int64, n), Weights: make([]int64, n)}
			for i := range n {
				k.Profits[i] = rng.Int64N(1<<50) - 1<<49
				k.Weights[i] = rng.Int64N(1 << 50)
			}
			if withSol {
				k.Solution = make([]int, n)
				for i := range k.Solution {
					k.Solution[i] = rng.IntN(2)
				}
			}
			var buf bytes.Buffer
			if err := WritePisinger(&buf, k); err != nil {
				t.Fatal(err)
			}
			wantLines := n + 1
			if withSol {
				wantLines++
			}
			if lines := strings.Count(buf.String(), "\n"); lines != wantLines {
				t.Errorf("n=%d: %d lines written, want %d", n, lines, wantLines)
			}
			got, err := ReadPisinger(&buf)
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			if !reflect.DeepEqual(got, k) {
				t.Errorf("n=%d solution=%v: read back %+v, want %+v", n, withSol, got, k)
			}
		}
	}
}

func TestPisingerVariants(t *testing.T) {
	// The first line split in two, CRLF ends, a trailing space on the
	// solution line, and a final line without a newline.
	src := "3\r\n10\r\n5 4\r\n6 5\r\n7 6\r\n1 0 1 \r\n"
	k, err := ReadPisinger(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Knapsack{N: 3, Capacity: 10, Profits: []int64{5, 6, 7}, Weights: []int64{4, 5, 6}, Solution: []int{1, 0, 1}}
	if !reflect.DeepEqual(k, want) {
		t.Errorf("got %+v, want %+v", k, want)
	}
	k, err = ReadPisinger(strings.NewReader("1 0\n3 0"))
	if err != nil || k.N != 1 || k.Capacity != 0 || k.Solution != nil {
		t.Errorf("got %+v, %v", k, err)
	}
}

func TestPisingerErrors(t *testing.T) {
	cases := []struct{ name, src, err string }{
		{"empty", "", "expected a first line"},
		{"no items", "0 10\n", "line 1: number of items 0 must be at least 1"},
		{"negative capacity", "1 -1\n1 1\n", "line 1: capacity -1 is negative"},
		{"too few items", "3 10\n1 2\n3 4\n", "line 3: expected 3 items (profit weight), found 4 numbers"},
		{"odd item", "2 10\n1 2\n3\n", "line 3: expected 2 items"},
		{"bad number", "2 10\n1 2\n3 x\n", `line 3: "x" is not a number`},
		{"inf is no weight", "2 10\n1 2\n3 inf\n", `line 3: "inf" is not an integer`}, // only .txt and .csv data hold inf
		{"negative weight", "2 10\n1 2\n3 -4\n", "line 3: item 2 has a negative weight -4"},
		{"short solution", "2 10\n1 2\n3 4\n1\n", "line 4: after the 2 items expected nothing or a 0/1 solution vector of 2 values, found 1"},
		{"solution twice", "2 10\n1 2\n3 4\n1 0\n1 0\n", "found 4 values"},
		{"non-binary solution", "2 10\n1 2\n3 4\n1 2\n", "line 4: solution vector value 2 for item 2 is not 0 or 1"},
	}
	for _, c := range cases {
		_, err := ReadPisinger(strings.NewReader(c.src))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
		}
	}
	// Through LoadGroup the file name leads.
	p := writeTemp(t, "bad.kp", "2 10\n1 2\n")
	if _, err := LoadGroup("pisinger", p); err == nil || !strings.HasPrefix(err.Error(), p+":2:") {
		t.Errorf("LoadGroup error %v, want one starting %s:2:", err, p)
	}

	bad := []*Knapsack{
		{N: 0},
		{N: 2, Profits: []int64{1}, Weights: []int64{1, 2}},
		{N: 1, Profits: []int64{1}, Weights: []int64{1}, Solution: []int{1, 0}},
		{N: 1, Profits: []int64{1}, Weights: []int64{1}, Solution: []int{2}},
	}
	for _, k := range bad {
		var buf bytes.Buffer
		if err := WritePisinger(&buf, k); err == nil || buf.Len() != 0 {
			t.Errorf("WritePisinger(%+v) = %v, wrote %q; want an error and nothing written", k, err, buf.String())
		}
	}
}

func TestManhattan(t *testing.T) {
	// A 3x4 grid by hand, with comments and blank lines.
	src := "# Manhattan tourist, 3 x 4 intersections\n\n3 4\n# down\n1 0 2 4\n4 6 5 2\n# right\n3 2 4\n0 7 3\n3 3 0\n"
	tabs, err := LoadGroup("Manhattan", writeTemp(t, "g.txt", src))
	if err != nil {
		t.Fatal(err)
	}
	if len(tabs) != 2 {
		t.Fatalf("%d tables, want 2", len(tabs))
	}
	checkTable(t, tabs[0], 2, 4, []int64{1, 0, 2, 4, 4, 6, 5, 2}, nil)
	checkTable(t, tabs[1], 3, 3, []int64{3, 2, 4, 0, 7, 3, 3, 3, 0}, nil)

	rng := rand.New(rand.NewPCG(11, 12))
	for _, sz := range [][2]int{{1, 1}, {1, 5}, {5, 1}, {2, 2}, {4, 7}, {33, 17}} {
		n, m := sz[0], sz[1]
		down := make([]int64, (n-1)*m)
		right := make([]int64, n*(m-1))
		for i := range down {
			down[i] = rng.Int64N(2000) - 1000
		}
		for i := range right {
			right[i] = rng.Int64N(2000) - 1000
		}
		var buf bytes.Buffer
		if err := WriteManhattan(&buf, n, m, down, right); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%dx%d", n, m)
		tabs, err := LoadGroup("manhattan", writeTemp(t, name+".txt", "# generated\n"+buf.String()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkTable(t, tabs[0], n-1, m, down, nil)
		checkTable(t, tabs[1], n, m-1, right, nil)
	}
}

func TestManhattanErrors(t *testing.T) {
	cases := []struct{ name, src, err string }{
		{"empty", "# nothing\n", ":1: expected a first line \"n m\""},
		{"three numbers", "2 2 2\n", ":1: expected a first line"},
		{"zero size", "0 3\n", ":1: grid size 0 x 3"},
		{"short down row", "2 3\n1 2\n1 2\n1 2\n", ":2: line 1 of the down weights has 2 values, want 3"},
		{"missing right rows", "2 3\n1 2 3\n1 2\n", ":3: file ends after 1 of the 2 lines of right weights"},
		{"long right row", "2 2\n1 2\n1\n1 2\n", ":4: line 2 of the right weights has 2 values, want 1"},
		{"extra data", "2 2\n1 2\n1\n1\n5\n", ":5: unexpected data after the 2 x 2 grid's weights"},
		{"bad number", "2 2\n1 2\n1\nx\n", `:4: "x" is not a number`},
	}
	for _, c := range cases {
		p := writeTemp(t, "g.txt", c.src)
		_, err := LoadGroup("manhattan", p)
		if err == nil || !strings.Contains(err.Error(), p+c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, p+c.err)
		}
	}
	var buf bytes.Buffer
	if err := WriteManhattan(&buf, 2, 2, []int64{1}, []int64{1, 2}); err == nil || buf.Len() != 0 {
		t.Errorf("WriteManhattan with a short down block: %v, wrote %q", err, buf.String())
	}
	if err := WriteManhattan(&buf, 0, 2, nil, nil); err == nil {
		t.Error("WriteManhattan with n = 0: no error")
	}
}

func TestLoadGroupUnknown(t *testing.T) {
	_, err := LoadGroup("dimacs", "x.col")
	if err == nil || !strings.Contains(err.Error(), `x.col: unknown group format "dimacs" (known: manhattan, pisinger)`) {
		t.Errorf("error %v", err)
	}
	if _, err := LoadGroup("pisinger", "testdata/absent"); err == nil || !strings.Contains(err.Error(), "testdata/absent") {
		t.Errorf("missing file: %v", err)
	}
}
