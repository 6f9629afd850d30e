package sema

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
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
		if _, err := Check(f, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckKnapsackArgs checks the knapsack with a 10 000-item
// Pisinger file given as a positional argument (load included).
func BenchmarkCheckKnapsackArgs(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	var sb strings.Builder
	n := 10000
	fmt.Fprintf(&sb, "%d %d\n", n, 50000)
	for k := 0; k < n; k++ {
		fmt.Fprintf(&sb, "%d %d\n", 1+r.IntN(1000), 1+r.IntN(1000))
	}
	path := filepath.Join(b.TempDir(), "knap.txt")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	f := parse(b, "knapsack.dp", knapArgsSrc)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Check(f, Config{Args: []string{path}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckLookback checks the lookback example: expressions and
// scalars only, the fixed cost of a check.
func BenchmarkCheckLookback(b *testing.B) {
	f := parse(b, "lookback.dp", lookbackSrc)
	for b.Loop() {
		if _, err := Check(f, Config{Sets: []Override{{"N", "1000"}}}); err != nil {
			b.Fatal(err)
		}
	}
}
