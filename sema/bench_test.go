package sema

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCheckLCS checks an LCS file whose two 100 000-character strings
// are inline: the cost is dominated by taking the data in.
func BenchmarkCheckLCS(b *testing.B) {
	r := rand.New(rand.NewPCG(4, 4))
	seq := func(n int) string {
		s := make([]byte, n)
		for k := range s {
			s[k] = "ACGT"[r.IntN(4)]
		}
		return string(s)
	}
	src := fmt.Sprintf("char 1x? A = %q\nchar 1x? B = %q\n(len(A)+1) x (len(B)+1)\n"+
		"cell[i][j] = 0 when i == 0 || j == 0\n | cell[i-1][j-1] + 1 when A[i-1] == B[j-1] emit A[i-1]\n | max(cell[i-1][j], cell[i][j-1]) otherwise\n",
		seq(100000), seq(100000))
	f := parse(b, "lcs.dp", src)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Check(f, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckLookback checks the lookback example: expressions and
// scalars only, the fixed cost of a check.
func BenchmarkCheckLookback(b *testing.B) {
	f := parse(b, "lookback.dp", lookbackSrc)
	data := setData(f, override{"N", "1000"})
	for b.Loop() {
		if _, err := Check(f, data); err != nil {
			b.Fatal(err)
		}
	}
}
