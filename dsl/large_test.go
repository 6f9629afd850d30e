package dsl

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// randomValue is an awkward but valid data value.
func randomValue(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return strconv.Itoa(r.IntN(2000) - 1000)
	case 1:
		return strconv.FormatFloat(r.NormFloat64()*1e3, 'g', -1, 64)
	case 2:
		return "+" + strconv.Itoa(r.IntN(10))
	}
	return fmt.Sprintf("%.3e", r.Float64())
}

// TestLargeMatrix parses inline matrices of random, awkward sizes and
// random spacing, and compares every value with what was written.
func TestLargeMatrix(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	for trial := 0; trial < 5; trial++ {
		rows, cols := 1+r.IntN(40), 1+r.IntN(3000)
		want := make([][]string, rows)
		var b strings.Builder
		b.WriteString("problem big\ndouble " + strconv.Itoa(rows) + "x" + strconv.Itoa(cols) + " M =")
		for i := range want {
			if i > 0 {
				b.WriteString([]string{" & ", "&\n", " &\r\n   ", "& # comment\n\n"}[r.IntN(4)])
			}
			for j := 0; j < cols; j++ {
				v := randomValue(r)
				want[i] = append(want[i], v)
				if j > 0 {
					b.WriteString([]string{",", ", ", " ,", "\t,\t"}[r.IntN(4)])
				}
				b.WriteString(v)
			}
		}
		b.WriteString(" # end\n5x5\n")
		f, err := Parse("big.dp", []byte(b.String()))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkPositions(t, f)
		if len(f.Decls) != 3 {
			t.Fatalf("seed %d: %d declarations", seed, len(f.Decls))
		}
		in := f.Decls[1].(*InputDecl)
		if in.Dims.Rows != rows || in.Dims.Cols != cols || len(in.Values) != rows {
			t.Fatalf("seed %d: dims %+v with %d rows, want %dx%d", seed, in.Dims, len(in.Values), rows, cols)
		}
		for i := range want {
			if len(in.Values[i]) != cols {
				t.Fatalf("seed %d: row %d has %d values, want %d", seed, i, len(in.Values[i]), cols)
			}
			for j, v := range in.Values[i] {
				if v.Text != want[i][j] {
					t.Fatalf("seed %d: M[%d][%d] = %q, want %q", seed, i, j, v.Text, want[i][j])
				}
			}
		}
	}
}

func largeVector(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("problem big\nint 1x? A = ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.IntN(1000000)))
	}
	b.WriteString("\nchar 1x? B = \"ACGT\"\n(len(A)+1) x (len(B)+1)\ncell[i][j] = 0 when i == 0 || j == 0\n  | cell[i-1][j-1] + A[i-1] otherwise\n")
	return []byte(b.String())
}

// BenchmarkParseLargeVector parses a 10 MB file, nearly all of it one
// inline vector.
func BenchmarkParseLargeVector(b *testing.B) {
	src := largeVector(1_500_000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("big.dp", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseLCS parses a small file: the cost of participle per line.
func BenchmarkParseLCS(b *testing.B) {
	src := []byte(`problem lcs
char 1x? A = "ACCGGTCGAGTGCGCGGAAGCCGGCCGAA"
char 1x? B = "GTCGTTCGGAATGCCGTTGCTCTGTAAA"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                  when i == 0 || j == 0
           | cell[i-1][j-1] + 1                 when A[i-1] == B[j-1]   emit A[i-1]
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("lcs.dp", src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestExpressionLimits: an expression line with more operators than
// MaxOperators, however it is built, is refused with its position, before
// participle or any later stage walks it (a flat chain of a million terms
// made the recursive stages overflow the stack); a file over
// MaxSourceBytes is refused before it is lexed. Lines at the limit parse.
func TestExpressionLimits(t *testing.T) {
	chain := func(n int, op string) string {
		return strings.Repeat("1"+op, n-1) + "1"
	}
	head := "problem x\n3x3\n"
	tests := []struct {
		name string
		src  string
		want string // "" when the file parses
	}{
		{"chain at the limit", head + "cell[i][j] = " + chain(MaxOperators+1, "+") + "\n", ""},
		{"chain over the limit", head + "cell[i][j] = " + chain(MaxOperators+2, "+") + "\n",
			fmt.Sprintf("x.dp:3:%d: expression too long: more than %d operators on one line", len("cell[i][j] = ")+2*(MaxOperators+1), MaxOperators)},
		{"a flat chain far over the limit", head + "cell[i][j] = " + chain(100_000, "+") + "\n", "x.dp:3:"},
		{"a call with a hundred thousand arguments", head + "cell[i][j] = min(" + chain(100_000, ",") + ")\n",
			fmt.Sprintf("line too long: more than %d tokens", maxLineTokens)},
		{"products", head + "cell[i][j] = 2 * " + chain(30_000, "*") + "\n", "operators on one line"},
		{"in a case", head + "cell[i][j] = 0 when i == 0\n  | " + chain(30_000, "-") + " otherwise\n", "x.dp:4:"},
		{"in the answer", head + "answer: " + chain(20_000, "+") + "\ncell[i][j] = 1\n", "x.dp:3:"},
		{"in a scalar", "problem x\nint n = " + chain(20_000, "*") + "\n3x3\ncell[i][j] = 1\n", "x.dp:2:"},
		{"data is not an expression", "problem x\nint 1x? A = " + chain(100_000, ",-") + "\n3x3\ncell[i][j] = A[i]\n", ""},
		{"file over the size limit", head + "cell[i][j] = 1\n#" + strings.Repeat(" ", MaxSourceBytes) + "\n",
			fmt.Sprintf("x.dp:1:1: the file is %d bytes, over the limit of %d MiB", len(head)+17+MaxSourceBytes, MaxSourceBytes>>20)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.dp", []byte(tc.src))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %.300v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("parsed; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got  %.300q\nwant %q", err, tc.want)
			}
		})
	}
}

// TestHostileLineBoundedMemory: a million-term line is refused without
// keeping its tokens (before the lexer cap, a million terms took ~500 MB; 300,000 took ~150 MB).
func TestHostileLineBoundedMemory(t *testing.T) {
	src := []byte("problem x\n3x3\ncell[i][j] = " + strings.Repeat("1+", 300_000) + "1\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Parse("x.dp", src)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("got %.200v, want a \"too long\" error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 60<<20 {
		t.Errorf("parsing a 600 kB hostile line allocated %d MB, want under 60 MB", alloc>>20)
	} else {
		t.Logf("allocated %d MB", alloc>>20)
	}
}
