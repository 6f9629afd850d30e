package codegen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

func generate(t *testing.T, name, src string, opt Options) *Program {
	t.Helper()
	p, pl := dptest.Load(t, name, src)
	prog, err := Generate(p, pl, opt)
	if err != nil {
		t.Fatalf("generate %s: %v", name, err)
	}
	return prog
}

// hostCheck compiles the program's source with the host C++ compiler
// against stand-ins for the CUDA built-ins (testdata/cuda_stub.h), which
// catches syntax and type errors without a GPU. It skips when there is no
// g++.
func hostCheck(t *testing.T, prog *Program) {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++ to check the generated C++")
	}
	dir := t.TempDir()
	stub, err := filepath.Abs("testdata/cuda_stub.h")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, prog.Name)
	if err := os.WriteFile(path, []byte(prog.Source), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gxx, "-fsyntax-only", "-std=c++17", "-Wall", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
		"-Wno-unused-function", "-Wno-unknown-pragmas", "-Wno-unused-parameter", "-include", stub, "-x", "c++", path)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "warning") {
		t.Errorf("g++ rejects the generated code of %s: %v\n%s", prog.Name, err, out)
		lines := strings.Split(prog.Source, "\n")
		for k, l := range lines {
			t.Logf("%4d %s", k+1, l)
		}
	}
}
