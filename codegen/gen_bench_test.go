package codegen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// BenchmarkGenerateLCS is the generator's time for a plain LCS (the run's
// fixed cost before the program cache is even asked).
func BenchmarkGenerateLCS(b *testing.B) {
	p, pl := dptest.Load(b, "lcs.dp", dptest.LCS("ACGTTGCAACGT", "AGTTCGATTACG"))
	for b.Loop() {
		if _, err := Generate(p, pl, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResetLines: the marker lines become #line directives naming the
// line after them, as a split into lines would number them; a marker's
// text inside a line is left alone.
func TestResetLines(t *testing.T) {
	split := func(src, name string) string {
		var b strings.Builder
		for k, l := range strings.SplitAfter(src, "\n") {
			if l == lineReset {
				fmt.Fprintf(&b, "#line %d %q\n", k+2, name)
				continue
			}
			b.WriteString(l)
		}
		return b.String()
	}
	r := rand.New(rand.NewPCG(5, 5))
	pieces := []string{"a", "\n", "x = 1;\n", lineReset, "//@dpgpu-line-reset", " " + lineReset, "\n\n"}
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		for k := r.IntN(12); k > 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		src := b.String()
		if got, want := resetLines(src, "p.dp"), split(src, "p.dp"); got != want {
			t.Fatalf("%q:\n got %q\nwant %q", src, got, want)
		}
	}
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCS("ACGT", "AGT"))
	prog, err := Generate(p, pl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prog.Source, "#line ") || strings.Contains(prog.Source, lineReset) {
		t.Errorf("generated source: markers left or no #line directives")
	}
}
