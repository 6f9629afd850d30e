package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/source"
)

// The affine-gap built-ins against parasail's scores, recorded once with
// parasail itself (testdata/parasail: the pairs, the commands, parasail's
// scalar reference functions): gotoh = parasail_nw, gotoh-local =
// parasail_sw, semiglobal = parasail_sg_dx on DNA with three scorings;
// protein-align = parasail_nw and testdata/parasail/protein-local.dp =
// parasail_sw with BLOSUM62 — random and mutated pairs of 1 to 257
// residues, on the CPU and on the GPU when there is one. parasail charges
// open + (L-1)*extend for a gap of length L, the built-ins o + e*L: o =
// open - extend, e = extend.

func TestParasailScoresCPU(t *testing.T) { runParasail(t, cpu.New(2)) }

func TestParasailScoresGPU(t *testing.T) { withGPU(t, runParasail) }

// parasailCase is a line of testdata/parasail/scores.tsv.
type parasailCase struct {
	alg, matrix  string
	open, extend int64
	a, b         string
	score        int64
}

func readParasail(t *testing.T) []parasailCase {
	t.Helper()
	f, err := os.Open("testdata/parasail/scores.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []parasailCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) != 7 {
			t.Fatalf("scores.tsv:%d: %d fields", line, len(f))
		}
		var n [3]int64
		for k, s := range []string{f[2], f[3], f[6]} {
			if n[k], err = strconv.ParseInt(s, 10, 64); err != nil {
				t.Fatalf("scores.tsv:%d: %v", line, err)
			}
		}
		cases = append(cases, parasailCase{f[0], f[1], n[0], n[1], f[4], f[5], n[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d recorded scores", len(cases))
	}
	return cases
}

func runParasail(t *testing.T, ex backend.Executor) {
	for _, c := range readParasail(t) {
		what := fmt.Sprintf("%s %s open %d extend %d, %d x %d", c.alg, c.matrix, c.open, c.extend, len(c.a), len(c.b))
		cfg := bind.Config{
			Inputs: []bind.Override{{Name: "A", Value: strconv.Quote(c.a)}, {Name: "B", Value: strconv.Quote(c.b)}},
			Sets:   []bind.Override{{Name: "o", Value: fmt.Sprint(c.open - c.extend)}, {Name: "e", Value: fmt.Sprint(c.extend)}},
		}
		var src *engine.Source
		var err error
		switch {
		case strings.HasPrefix(c.matrix, "dna:"):
			var match, mismatch int64
			if _, err := fmt.Sscanf(c.matrix, "dna:%d:%d", &match, &mismatch); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			cfg.Sets = append(cfg.Sets, bind.Override{Name: "match", Value: fmt.Sprint(match)}, bind.Override{Name: "mismatch", Value: fmt.Sprint(mismatch)})
			name := map[string]string{"nw": "gotoh", "sw": "gotoh-local", "sg_dx": "semiglobal"}[c.alg]
			src, err = engine.Resolve(name)
		case c.matrix == "blosum62" && c.alg == "nw":
			src, err = engine.Resolve("protein-align")
		case c.matrix == "blosum62" && c.alg == "sw":
			src, err = engine.Resolve("testdata/parasail/protein-local.dp")
			cfg.BaseDir = "testdata/parasail"
		default:
			t.Fatalf("%s: no built-in for it", what)
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		l, err := engine.Load(src, cfg)
		if err != nil {
			t.Fatalf("%s: %s", what, engine.FormatError(err, src))
		}
		res, err := engine.Run(context.Background(), l, ex, backend.Options{})
		if err != nil {
			t.Fatalf("%s on %s: %s", what, ex.Name(), source.Format(err, src.Text))
		}
		if got := res.Answer().I; got != c.score {
			t.Errorf("%s (%s): %d, parasail %d\n%s\n%s", what, l.Problem.Name, got, c.score, c.a, c.b)
		}
	}
}
