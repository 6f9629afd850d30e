package dsl

import (
	"fmt"
	"math/rand/v2"
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
