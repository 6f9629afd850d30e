package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzCLI runs random command lines (words separated by NUL bytes) through
// flagsFirst and run, in an empty working directory: whatever the words,
// dpgpu must not panic, must exit 0, 1 or 2, must print no Go trace, and
// must leave no file behind but the ones a successful gen-data or
// --grid/--plot asked for. Command lines that would do real work (bench,
// big numbers, devices, files elsewhere) are skipped, to keep each run
// short.
func FuzzCLI(f *testing.F) {
	for _, seed := range []string{
		"solve\x00knapsack\x00--json",
		"solve\x00knapsack\x00--input\x00wt=2,3,4,5,9\x00-b\x00cpu",
		"solve\x00lcs\x00--traceback\x00--grid\x00g.npy\x00-b\x00cpu",
		"check\x00editdistance\x00--set\x00x",
		"solve\x00--threads\x00-1\x00lcs",
		"gen-data\x00lcs\x00--ratio\x00NaN\x00-n\x0010",
		"gen-data\x00manhattan\x00-n\x003\x00-o\x00m.txt",
		"problems\x00show\x00tsp",
		"frob\x00--\x00-x",
		"solve\x00--grid",
		"--version",
		"help\x00solve",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		for _, a := range args {
			if skipFuzzArg(a) {
				t.Skip()
			}
		}
		dir := t.TempDir()
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		var out, errb bytes.Buffer
		code := run(append([]string{"dpgpu"}, args...), &out, &errb)
		if code != 0 && code != 1 && code != 2 {
			t.Fatalf("%q: exit %d\n%s", args, code, errb.String())
		}
		if s := errb.String(); strings.Contains(s, "goroutine ") || strings.Contains(s, "panic") {
			t.Fatalf("%q: a crash:\n%s", args, s)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || code != 0 {
				t.Fatalf("%q (exit %d) left %s behind", args, code, name)
			}
		}
	})
}

// skipFuzzArg says which words would make a fuzz run slow or reach out of
// its directory: bench, numbers of five digits or more, absolute paths,
// parent directories, @files, devices.
func skipFuzzArg(a string) bool {
	if a == "bench" || strings.ContainsAny(a, "/@~\\") || strings.Contains(a, "..") {
		return true
	}
	digits := 0
	for _, r := range a {
		if unicode.IsDigit(r) {
			digits++
			if digits >= 5 {
				return true
			}
			continue
		}
		digits = 0
	}
	// Exponents and hex also make big numbers.
	lower := strings.ToLower(a)
	return slices.ContainsFunc([]string{"e", "0x", "p"}, func(s string) bool {
		return strings.Contains(lower, s) && strings.ContainsAny(lower, "0123456789")
	})
}
