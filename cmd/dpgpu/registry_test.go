package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/problems"
)

// TestGenDataEveryBuiltin: every built-in of the registry with a data
// kind is a gen-data subcommand (the kind's name or an alias), and the
// files it writes solve with that built-in, whichever alias wrote them.
func TestGenDataEveryBuiltin(t *testing.T) {
	for _, name := range problems.Names() {
		b, _ := problems.Lookup(name)
		if b.Data == "" {
			continue
		}
		dir := t.TempDir()
		var gen, files []string
		var more [][]string // further gen-data runs, for built-ins of several files
		switch b.Data {
		case problems.DataPair:
			prefix := filepath.Join(dir, "pair")
			gen = []string{"--len", "40", "-o", prefix}
			files = []string{prefix + "_a.fa", prefix + "_b.fa"}
		case problems.DataKnapsack:
			path := filepath.Join(dir, "k.txt")
			gen = []string{"--items", "12", "--capacity", "100", "--bounded", "-o", path}
			files = []string{path}
			if name == "knapsack-bounded" {
				files = append(files, filepath.Join(dir, "k.counts.txt"))
			}
		case problems.DataManhattan:
			path := filepath.Join(dir, "m.txt")
			gen = []string{"--size", "9", "-o", path}
			files = []string{path}
		case problems.DataProtein:
			prefix := filepath.Join(dir, "prot")
			gen = []string{"--len", "40", "-o", prefix}
			files = []string{prefix + "_a.fa", prefix + "_b.fa"}
		case problems.DataRNA:
			path := filepath.Join(dir, "s.fa")
			gen = []string{"--len", "30", "-o", path}
			files = []string{path}
		case problems.DataInts:
			path := filepath.Join(dir, "v.txt")
			gen = []string{"--len", "12", "--min", "1", "--max", "20", "-o", path}
			files = []string{path}
			if name == "optimal-bst" {
				// The gaps' frequencies: one more than the keys'.
				gaps := filepath.Join(dir, "q.txt")
				more = append(more, []string{"--len", "13", "-o", gaps})
				files = append(files, gaps)
			}
		default:
			t.Fatalf("%s: data kind %q has no case here", name, b.Data)
		}
		for _, g := range append([][]string{gen}, more...) {
			if _, errs, code := dpgpu(t, append([]string{"gen-data", name}, g...)...); code != 0 {
				t.Fatalf("gen-data %s: %d %s", name, code, errs)
			}
		}
		args := []string{"solve", "-b", "cpu", "--json", name}
		if b.Render != nil {
			args = append(args, "-T")
		}
		out, errs, code := dpgpu(t, append(args, files...)...)
		var got struct {
			Answer   any
			Solution string
		}
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil || (got.Solution == "") != (b.Render == nil) {
			t.Errorf("solve %s on gen-data's files: %d %s %s", name, code, out, errs)
		}
	}
}

// TestAliases: an alias of a built-in is accepted wherever its name is.
func TestAliases(t *testing.T) {
	want, _, _ := dpgpu(t, "solve", "-b", "cpu", "-T", "knapsack")
	for _, args := range [][]string{{"solve", "-b", "cpu", "-T", "knapsack01"}, {"solve", "-b", "cpu", "-T", "knapsack-01"}} {
		if out, errs, code := dpgpu(t, args...); code != 0 || stripTimes(out) != stripTimes(want) {
			t.Errorf("%v: %d %s\n%s\nwant\n%s", args, code, errs, out, want)
		}
	}
	if out, _, code := dpgpu(t, "problems", "show", "levenshtein"); code != 0 || !strings.Contains(out, "\nproblem editdistance\n") {
		t.Errorf("problems show levenshtein: %d %s", code, out)
	}
}

var timesRE = regexp.MustCompile(`(?m)^(time|memory) .*$`)

func stripTimes(s string) string { return timesRE.ReplaceAllString(s, "$1") }

// TestTSP pins what the commands print for a problem that the Held-Karp
// solver runs outside the grid pipeline: TSPLIB gr17, optimum 2085.
func TestTSP(t *testing.T) {
	gr17 := dptest.Path("tsplib/gr17.tsp")
	out, errs, code := dpgpu(t, "solve", "-b", "cpu", "tsp", gr17)
	want := `problem    tsp (tsp.dp)
instance   17 cities
schedule   held-karp, forward
backend    cpu: `
	if code != 0 || !strings.HasPrefix(out, want) ||
		!strings.Contains(out, "\nanswer     2085\ntour       1 16 12 9 5 2 10 11 3 15 14 17 6 8 7 13 4 1\ntime       ") ||
		!strings.Contains(out, " s, 524,288 cells, ") || strings.Contains(out, "prev") {
		t.Errorf("solve tsp: %d %s\n%s", code, errs, out)
	}
	// --traceback changes nothing: the tour is the solution.
	if tb, _, _ := dpgpu(t, "solve", "-b", "cpu", "-T", "tsp", gr17); stripTimes(tb) != stripTimes(out) {
		t.Errorf("solve -T tsp:\n%s\nwant\n%s", tb, out)
	}
	out, errs, code = dpgpu(t, "solve", "-b", "cpu", "--json", "tsp", gr17)
	var res map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("solve --json tsp: %d %s %s", code, errs, out)
	}
	for k, v := range map[string]any{"schedule": "held-karp", "direction": "forward", "answer": 2085.0, "cells": 524288.0, "rows": 0.0, "prev": 0.0, "backend": "cpu"} {
		if res[k] != v {
			t.Errorf("solve --json tsp: %s = %v, want %v", k, res[k], v)
		}
	}
	if tour, _ := res["tour"].([]any); len(tour) != 17 || tour[0] != 0.0 || tour[1] != 15.0 {
		t.Errorf("solve --json tsp: tour %v", res["tour"])
	}
	out, errs, code = dpgpu(t, "check", "tsp", gr17)
	if code != 0 || !strings.Contains(out, "\nschedule   held-karp, forward\n           forced by `schedule: held-karp`: subsets are swept layer by layer by size\ncities     17: 524,288 states\nmemory     host ") ||
		strings.Contains(out, "grid") || strings.Contains(out, "prev") {
		t.Errorf("check tsp: %d %s\n%s", code, errs, out)
	}
	out, _, code = dpgpu(t, "check", "--json", "--maintain", "tsp", gr17)
	var chk map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &chk) != nil || chk["schedule"] != "held-karp" || chk["answer"] != "" {
		t.Errorf("check --json tsp: %d %s", code, out)
	}
	if _, errs, code := dpgpu(t, "gen", "tsp", gr17); code != 2 || !strings.Contains(errs, "built-in Held-Karp kernel") {
		t.Errorf("gen tsp: %d %s", code, errs)
	}
	if _, errs, code := dpgpu(t, "solve", "-b", "cpu", "--grid", filepath.Join(t.TempDir(), "g.npy"), "tsp", gr17); code != 1 || !strings.Contains(errs, "returned no grid") {
		t.Errorf("solve --grid tsp: %d %s", code, errs)
	}
}

// TestGenMathTables: `dpgpu gen` prints the program the executors run:
// the lattice's pow(u, j) is a table read (backend/mathtab), in the CUDA
// and in the host program, which without the table could not be
// generated at all (the C library's pow may differ from Go's).
func TestGenMathTables(t *testing.T) {
	out, errs, code := dpgpu(t, "gen", "lookback-put", "--set", "N=50")
	if code != 0 || strings.Contains(out, "pow(") {
		t.Errorf("gen lookback-put: exit %d %s; pow( in the program: %v", code, errs, strings.Contains(out, "pow("))
	}
	out, errs, code = dpgpu(t, "gen", "--host", "lookback-put", "--set", "N=50")
	if code != 0 || !strings.Contains(out, "host program") {
		t.Errorf("gen --host lookback-put: exit %d %s", code, errs)
	}
}
