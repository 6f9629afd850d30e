package problems_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/gen"
	"github.com/dpgpu/dpgpu/source"
)

// The built-ins of contract v2 (interval DP, 1-D look-back) through the
// engine, whose traceback follows trees: the answers and solutions their
// comments promise, and instances written by gen-data's writers.

// solveBuiltin runs a built-in with files args through the engine on the
// CPU, with a traceback, and renders its solution.
func solveBuiltin(t *testing.T, name string, trace bool, args ...string) (*engine.Loaded, *engine.Result, string) {
	t.Helper()
	src, err := engine.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.Load(src, bind.Config{Args: args})
	if err != nil {
		t.Fatalf("%s: %v", name, engine.FormatError(err, src))
	}
	res, err := engine.Run(context.Background(), l, cpu.New(2), backend.Options{Traceback: trace})
	if err != nil {
		t.Fatalf("%s: %v", name, source.Format(err, src.Text))
	}
	text, _ := problems.Solution(name, l.Problem, res.Grid, res.Tree)
	return l, res, text
}

func TestDefaultsV2(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   int64
		schedule plan.Kind
		solution string // the rendered solution ("" for none)
	}{
		{"matrix-chain", 15125, plan.Interval, "((A1(A2A3))((A4A5)A6))\n6 matrices, cost 15125 scalar multiplications"},
		{"nussinov", 3, plan.Interval, "GGGAAAUCC\n(((...)))\n3 base pairs"},
		{"optimal-bst", 275, plan.Interval, "k2(k1, k5(k4(k3, -), -))\n5 keys, expected cost 275"},
		{"lis", 4, "", "length 4"},
		{"coin-change", 6, "", "coins 25 25 10 1 1 1\n6 coins, total 63"},
		{"coin-change-ways", 4, plan.Hyperplanar, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, res, text := solveBuiltin(t, tc.name, tc.solution != "")
			if !l.Plan.Schedule.Generic() || (tc.schedule != "" && l.Plan.Schedule != tc.schedule) {
				t.Errorf("schedule %s, want a generic one (%s)", l.Plan.Schedule, tc.schedule)
			}
			if res.Answer().I != tc.answer {
				t.Errorf("answer %v, want %d", res.Answer(), tc.answer)
			}
			if !strings.Contains(text, tc.solution) {
				t.Errorf("solution\n%s\nwant\n%s", text, tc.solution)
			}
		})
	}
}

// TestGeneratedV2: gen-data's files for the new built-ins, read through
// args:, against the plain-Go references of dptest.
func TestGeneratedV2(t *testing.T) {
	dir := t.TempDir()
	r := gen.NewRand(2026)
	ints := func(name string, v []int64) string {
		path := filepath.Join(dir, name)
		if err := gen.WriteInts(path, v); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, n := range []int{1, 2, 3, 17, 60} {
		d := gen.Ints(r, n+1, 1, 100)
		if _, res, text := solveBuiltin(t, "matrix-chain", true, ints("d.txt", d)); res.Answer().I != dptest.MatrixChainCost(d) || !strings.HasSuffix(text, " "+res.Answer().String()+" scalar multiplications") {
			t.Errorf("matrix-chain %v: %v, want %d\n%s", d, res.Answer(), dptest.MatrixChainCost(d), text)
		}

		s := gen.RNA(r, n)
		for _, ext := range []string{".fa", ".txt"} {
			path := filepath.Join(dir, "rna"+ext)
			if err := gen.WriteSequence(path, "rna", s); err != nil {
				t.Fatal(err)
			}
			_, res, text := solveBuiltin(t, "nussinov", true, path)
			want := dptest.NussinovPairs(s, 3, true)
			if res.Answer().I != want || !strings.Contains(text, s[:min(len(s), 60)]) || strings.Count(text, "(") != int(want) {
				t.Errorf("nussinov %s: %v, want %d\n%s", s, res.Answer(), want, text)
			}
		}

		a := gen.Ints(r, n, 1, int64(n))
		if _, res, text := solveBuiltin(t, "lis", true, ints("a.txt", a)); res.Answer().I != dptest.LISLength(a) || !strings.HasSuffix(text, "length "+res.Answer().String()) {
			t.Errorf("lis %v: %v, want %d\n%s", a, res.Answer(), dptest.LISLength(a), text)
		}

		c := gen.Ints(r, 3, 2, 12) // some amounts cannot be made
		src, _ := engine.Resolve("coin-change")
		l, err := engine.Load(src, bind.Config{Args: []string{ints("c.txt", c)}, Sets: []bind.Override{{Name: "amount", Value: "97"}}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(context.Background(), l, cpu.New(2), backend.Options{Traceback: true})
		if err != nil {
			t.Fatal(err)
		}
		want := dptest.CoinChangeFewest(c, 97)
		text, ok := problems.Solution("coin-change", l.Problem, res.Grid, res.Tree)
		inf, _ := ir.InfSentinel(ir.Int)
		if got := res.Answer().I; (want < 0 && got != inf) || (want >= 0 && got != want) || !ok {
			t.Errorf("coin-change %v: %v, want %d\n%s", c, res.Answer(), want, text)
		}

		p, q := gen.Ints(r, n, 1, 100), gen.Ints(r, n+1, 1, 100)
		if _, res, text := solveBuiltin(t, "optimal-bst", true, ints("p.txt", p), ints("q.txt", q)); res.Answer().I != dptest.OptimalBSTCost(p, q) || !strings.HasSuffix(text, "expected cost "+res.Answer().String()) {
			t.Errorf("optimal-bst %v %v: %v, want %d\n%s", p, q, res.Answer(), dptest.OptimalBSTCost(p, q), text)
		}
	}
}

// TestLCS3Builtin: the three-string LCS built-in runs on the 3-D
// hyperplane t = k + i + j; its default answer is the comment's 16, and the
// emitted characters spell a common subsequence of all three strings of
// the answer's length — by default and on random strings of awkward
// lengths (one of them empty), against the triple loop.
func TestLCS3Builtin(t *testing.T) {
	isSub := func(s, of string) bool {
		k := 0
		for i := 0; i < len(of) && k < len(s); i++ {
			if of[i] == s[k] {
				k++
			}
		}
		return k == len(s)
	}
	check := func(name string, a, b, c string, args ...string) {
		t.Helper()
		l, res, _ := solveBuiltin(t, "lcs3", true, args...)
		if got := l.Plan.T.In(l.Problem); got != "t = k + i + j" && len(args) == 0 {
			t.Errorf("%s: fronts %s", name, got)
		}
		var s strings.Builder
		for _, v := range res.Grid.Emitted {
			s.WriteRune(rune(v.I))
		}
		want := int64(dptest.LCS3Length(a, b, c))
		if res.Answer().I != want || int64(s.Len()) != want || !isSub(s.String(), a) || !isSub(s.String(), b) || !isSub(s.String(), c) {
			t.Errorf("%s: answer %v, emitted %q; want %d, a common subsequence of %q, %q, %q", name, res.Answer(), s.String(), want, a, b, c)
		}
	}
	check("default", "ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "GTCGTTCGGAATGCCGTTGCTCTGTAAA", "GCCTAGCGTAAGCTGGCATGACCGTAA")
	dir := t.TempDir()
	r := dptest.Rand(t)
	for _, n := range []int{1, 2, 17, 40} {
		seqs := []string{dptest.DNA(r, n), dptest.DNA(r, n+3), dptest.DNA(r, max(n-2, 0))}
		var files []string
		for k, s := range seqs {
			f := filepath.Join(dir, fmt.Sprintf("s%d_%d.txt", n, k))
			if err := os.WriteFile(f, []byte(s+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		check(fmt.Sprintf("n=%d", n), seqs[0], seqs[1], seqs[2], files...)
	}
}
