package native

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/plan"
)

func TestCompilerName(t *testing.T) {
	cases := []struct{ path, version, want string }{
		{"/usr/bin/g++", "g++ (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright ...", "g++ 12.2.0"},
		{"/usr/bin/c++", "c++ (GCC) 13.1.1 20230614\n", "c++ 20230614"},
		{"/usr/bin/clang++", "Debian clang version 16.0.6 (15~deb12u1)\nTarget: x86_64", "clang++ 16.0.6"},
		{"/opt/cc", "", "cc"},
	}
	for _, c := range cases {
		if got := compilerName(c.path, c.version); got != c.want {
			t.Errorf("compilerName(%q, %q) = %q, want %q", c.path, c.version, got, c.want)
		}
	}
}

// TestKey: every input of a build changes the cache key.
func TestKey(t *testing.T) {
	base := &Compiler{path: "/usr/bin/g++", version: "12", machine: "x86|EPYC|avx2"}
	k := base.key("src")
	for name, c := range map[string]*Compiler{
		"compiler": {path: "/usr/bin/clang++", version: "12", machine: base.machine},
		"version":  {path: base.path, version: "13", machine: base.machine},
		"machine":  {path: base.path, version: "12", machine: "x86|EPYC|avx512f"},
	} {
		if c.key("src") == k {
			t.Errorf("a different %s gives the same key", name)
		}
	}
	if base.key("src2") == k {
		t.Error("a different source gives the same key")
	}
}

func TestFindNamedCompiler(t *testing.T) {
	t.Setenv("DPGPU_CC", "no-such-compiler-dpgpu")
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "DPGPU_CC") {
		t.Errorf("Find with a missing $DPGPU_CC: %v", err)
	}
}

// TestPrune keeps the most recently used libraries.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for k := 0; k < 10; k++ {
		p := filepath.Join(dir, fmt.Sprintf("%02d.so", k))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(k) * time.Minute)
		os.Chtimes(p, at, at)
	}
	os.WriteFile(filepath.Join(dir, "compiler-x.txt"), []byte("g++"), 0o644)
	prune(dir, 12)
	if n, _ := filepath.Glob(filepath.Join(dir, "*.so")); len(n) != 10 {
		t.Fatalf("pruned under the limit: %d left", len(n))
	}
	prune(dir, 8) // down to 6, the newest
	left, _ := filepath.Glob(filepath.Join(dir, "*.so"))
	if len(left) != 6 || filepath.Base(left[0]) != "04.so" {
		t.Errorf("left %v, want 04.so .. 09.so", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "compiler-x.txt")); err != nil {
		t.Error("pruning removed the compiler's memo")
	}
}

// TestFewerWorkers: a result says when fewer workers ran than it was given,
// and why, by the sweep; nothing when all of them ran or the library did
// not say.
func TestFewerWorkers(t *testing.T) {
	rows := &codegen.HostProgram{Schedule: plan.Rows}
	scan := &codegen.HostProgram{Schedule: plan.Wavefront, Scan: true}
	strips := &codegen.HostProgram{Schedule: plan.Wavefront}
	cases := []struct {
		hp                  *codegen.HostProgram
		ran, threads, asked int
		inPlace             bool
		want                string
	}{
		{rows, 2, 2, 2, false, ""},
		{rows, 0, 2, 2, false, ""},
		{rows, 1, 1, 1, false, ""},
		{rows, 1, 1, 1, true, ""},
		{rows, 1, 2, 2, false, "1 of them ran it (timed on the first rows"},
		{rows, 1, 2, 2, true, "1 of them ran it (one worker computing two rows a pass"},
		{scan, 3, 8, 8, false, "3 of them ran it (a worker for every block"},
		{strips, 1, 2, 2, false, "1 of them ran it (the others could not start)"},
		{rows, 1, 4, 1, false, "1 of them ran it (fronts of a few cells)"},
	}
	for _, c := range cases {
		got := fewerWorkers(c.hp, c.ran, c.threads, c.asked, c.inPlace)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("ran %d of %d (asked %d): %q, want %q...", c.ran, c.threads, c.asked, got, c.want)
		}
	}
}

// TestCompileLeavesNothingInTMPDIR: the compiler's own temporary files go
// to the build directory, not the user's TMPDIR, even one whose path
// holds '=' (where gcc 12 leaves cc*.res files of its own).
func TestCompileLeavesNothingInTMPDIR(t *testing.T) {
	c, err := Find()
	if err != nil {
		t.Skipf("no compiler: %v", err)
	}
	tmp := filepath.Join(t.TempDir(), "a=b")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	c.dir = t.TempDir()
	hp := &codegen.HostProgram{Name: "t.cc", Source: `extern "C" int dp_test_f() { return 1; }` + "\n"}
	if err := c.compile(hp, filepath.Join(c.dir, "t.so")); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
