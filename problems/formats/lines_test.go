package formats

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The reader core must give exactly strconv's values, allocate nothing per
// value, and size the arrays of a large file once.

// TestSimpleFloatIsStrconv compares the fast float path with strconv on
// random decimal spellings: wherever it accepts a text, the bits must be
// strconv's.
func TestSimpleFloatIsStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		return string(b)
	}
	accepted := 0
	const n = 200000
	for range n {
		var s strings.Builder
		s.WriteString([]string{"", "", "-", "+"}[rng.IntN(4)])
		s.WriteString(digits(rng.IntN(12)))
		if rng.IntN(3) > 0 {
			s.WriteByte('.')
			s.WriteString(digits(rng.IntN(20)))
		}
		if rng.IntN(3) == 0 {
			s.WriteString([]string{"e", "E", "e-", "e+"}[rng.IntN(4)])
			s.WriteString(digits(rng.IntN(4)))
		}
		text := s.String()
		got, ok := parseSimpleFloat(text)
		if !ok {
			continue
		}
		accepted++
		want, err := strconv.ParseFloat(text, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseSimpleFloat(%q) = %v (%x), strconv gives %v (%x), %v", text, got, math.Float64bits(got), want, math.Float64bits(want), err)
		}
		if b, _ := parseSimpleFloat([]byte(text)); math.Float64bits(b) != math.Float64bits(got) {
			t.Fatalf("parseSimpleFloat(%q) differs for bytes and string", text)
		}
	}
	if accepted < n/4 {
		t.Errorf("the fast path took only %d of %d texts", accepted, n)
	}
	for _, text := range []string{"", ".", "-", "+.", "1e", "1e+", "1e5x", "0x10", "1_0", "inf", "nan", "1..2", "1e-400", "12345678901234567890.5"} {
		if v, ok := parseSimpleFloat(text); ok {
			t.Errorf("parseSimpleFloat(%q) = %v; it must leave this to strconv", text, v)
		}
	}
}

// TestAppendAllocatesNothing: parsing a line into an array with room
// allocates nothing, on the fast paths and on strconv's alike.
func TestAppendAllocatesNothing(t *testing.T) {
	ints := []byte("1 -2 +3 007 123456789012345678 1234567890123456789 3.0 1e3\t9\r")
	floats := []byte("1 -2.5 0.1 6.02214076e23 1.000000000000000000001e-3 -1.2345678901234567e-300 inf nan")
	di, df := make([]int64, 0, 64), make([]float64, 0, 64)
	if a := testing.AllocsPerRun(100, func() {
		var err error
		if _, err = appendInts(di, ints, false); err != nil {
			t.Fatal(err)
		}
		if _, err = appendFloats(df, floats); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per line, want 0", a)
	}
	got, err := appendInts(nil, ints, false)
	want := []int64{1, -2, 3, 7, 123456789012345678, 1234567890123456789, 3, 1000, 9}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("appendInts = %v, %v; want %v", got, err, want)
	}
}

// allocated is the number of bytes the heap handed out while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestArraysSizedOnce: a large matrix, a Manhattan grid, a knapsack and a
// FASTA record load with about the bytes of their values (8 a value) and
// the line buffer: no growth by copying, no per-value garbage.
func TestArraysSizedOnce(t *testing.T) {
	const rows, cols = 400, 500
	rng := rand.New(rand.NewPCG(9, 9))
	var grid bytes.Buffer
	for i := range rows * cols {
		grid.WriteString(strconv.Itoa(rng.IntN(1000)))
		grid.WriteByte(" \n"[boolInt(i%cols == cols-1)])
	}
	down := make([]int64, (rows-1)*rows)
	right := make([]int64, rows*(rows-1))
	for i := range down {
		down[i], right[i] = int64(rng.IntN(100)), int64(rng.IntN(100))
	}
	var manhattan bytes.Buffer
	if err := WriteManhattan(&manhattan, rows, rows, down, right); err != nil {
		t.Fatal(err)
	}
	k := &Knapsack{N: 20000, Capacity: 1 << 40, Profits: make([]int64, 20000), Weights: make([]int64, 20000)}
	for i := range k.N {
		k.Profits[i], k.Weights[i] = rng.Int64N(1<<40), rng.Int64N(1<<40)
	}
	var knapsack bytes.Buffer
	if err := WritePisinger(&knapsack, k); err != nil {
		t.Fatal(err)
	}
	seq := make([]byte, 300000)
	for i := range seq {
		seq[i] = "ACGT"[rng.IntN(4)]
	}
	var fasta bytes.Buffer
	if err := WriteFASTA(&fasta, "r", string(seq)); err != nil {
		t.Fatal(err)
	}
	const slack = 2 * lineBuffer
	for _, c := range []struct {
		name, file, content string
		load                func(string) (int, error)
		perValue            uint64
	}{
		{"text", "m.txt", grid.String(), func(p string) (int, error) {
			tab, err := Load(p, Options{})
			return tab.Len(), err
		}, 8},
		{"text float", "m.txt", grid.String(), func(p string) (int, error) {
			tab, err := Load(p, Options{Float: true})
			return tab.Len(), err
		}, 8},
		{"manhattan", "g.txt", manhattan.String(), func(p string) (int, error) {
			tabs, err := LoadGroup("manhattan", p)
			return len(tabs[0].I) + len(tabs[1].I), err
		}, 8},
		{"pisinger", "k.txt", knapsack.String(), func(p string) (int, error) {
			tabs, err := LoadGroup("pisinger", p)
			return len(tabs[0].I) + len(tabs[1].I), err
		}, 8},
		{"fasta", "s.fa", fasta.String(), func(p string) (int, error) {
			tab, err := Load(p, Options{Char: true})
			return tab.Len(), err
		}, 8 + 1 + 1}, // the values, the characters, and a byte of the file's size reserved for them
	} {
		path := writeTemp(t, c.file, c.content)
		var n int
		var err error
		got := allocated(func() { n, err = c.load(path) })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if limit := c.perValue*uint64(n)*9/8 + slack; got > limit {
			t.Errorf("%s: %d bytes allocated for %d values (%.1f a value), want at most %d", c.name, got, n, float64(got)/float64(n), limit)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestHeaderCannotReserveMemory: a header that promises far more values
// than the file holds is refused with the same message as before, without
// allocating for the promise.
func TestHeaderCannotReserveMemory(t *testing.T) {
	for _, c := range []struct{ format, src, err string }{
		{"manhattan", "2000000000 2000000000\n", "file ends after 0 of the 1999999999 lines of down weights"},
		{"pisinger", "1000000000000 10\n1 2\n", "expected 1000000000000 items (profit weight), found 2 numbers after the first line"},
	} {
		p := writeTemp(t, "big.txt", c.src)
		var err error
		if got := allocated(func() { _, err = LoadGroup(c.format, p) }); got > 1<<20 {
			t.Errorf("%s: %d bytes allocated for a %d-byte file", c.format, got, len(c.src))
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.format, err, c.err)
		}
	}
}

// TestPisingerFaultOrder: when a file has several faults, the one reported
// is the same whatever their order in the file: the header, then the count
// of items, then a weight, then the solution vector.
func TestPisingerFaultOrder(t *testing.T) {
	for _, c := range []struct{ src, err string }{
		{"0 -1\n1 -2\n", "line 1: number of items 0 must be at least 1"},
		{"2 -1\n1 -2\n", "line 1: capacity -1 is negative"},
		{"3 10\n1 -2\n3 4\n", "line 3: expected 3 items"},
		{"2 10\n1 2\n3 -4\n1 -5\n7 7\n", "line 3: item 2 has a negative weight -4"},
		{"2 10\n1 2\n3 4\n1 7\n", "line 4: solution vector value 7 for item 2 is not 0 or 1"},
		{"2 10\n1 2\n3 4\n7 1 0\n", "line 4: after the 2 items expected nothing or a 0/1 solution vector of 2 values, found 3 values"},
	} {
		if _, err := ReadPisinger(strings.NewReader(c.src)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want one containing %q", c.src, err, c.err)
		}
	}
}

// TestRowLengthBeforeValues: a row of the wrong length is reported as such
// even when one of its values is bad too, as it was before the values were
// parsed in the same pass.
func TestRowLengthBeforeValues(t *testing.T) {
	_, err := readText(strings.NewReader("1 2 3\n4 x\n"), "m.txt", 0, Options{})
	if want := "m.txt:2: row 2 has 2 values, but the first row (line 1) has 3"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
	_, err = readText(strings.NewReader("1 2 3\n4 x 6\n"), "m.txt", 0, Options{})
	if want := `m.txt:2: "x" is not a number`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

// TestAppendCharsRandom compares appendChars (a fast prefix, then byte by
// byte) with the rule written plainly, on random lines mixing letters,
// lower case, whitespace, control bytes and bytes past ASCII at every
// position.
func TestAppendCharsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, uint64(len(t.Name()))))
	const alphabet = "ACGTNacgtn*-~! \t\r\x01\x7f\x80\xe9"
	for trial := 0; trial < 20000; trial++ {
		line := make([]byte, r.IntN(40))
		for k := range line {
			if r.IntN(8) == 0 {
				line[k] = alphabet[r.IntN(len(alphabet))]
			} else {
				line[k] = "ACGT"[r.IntN(4)]
			}
		}
		upper := r.IntN(2) == 0
		var want []byte
		wantCol := 0
		for i, c := range line {
			if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f' {
				continue
			}
			if upper && c >= 'a' && c <= 'z' {
				c -= 32
			}
			if c < 0x21 || c > 0x7e {
				wantCol = i + 1
				break
			}
			want = append(want, c)
		}
		got, col, err := appendChars([]byte("X"), line, upper)
		if (err != nil) != (wantCol != 0) || col != wantCol || string(got) != "X"+string(want) {
			t.Fatalf("appendChars(%q, upper %v) = %q, column %d, %v; want %q, column %d", line, upper, got, col, err, "X"+string(want), wantCol)
		}
	}
}
