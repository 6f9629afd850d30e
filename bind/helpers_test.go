package bind

import (
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/internal/errtest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// parse parses src as a file called name, failing the test on a syntax
// error (these tests are about well-formed files).
func parse(t testing.TB, name, src string) *dsl.File {
	t.Helper()
	f, err := dsl.Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", name, err, src)
	}
	return f
}

// mustCheck parses, binds and checks src, failing on any error.
func mustCheck(t *testing.T, src string, cfg Config) *ir.Problem {
	t.Helper()
	p, err := Check(parse(t, "t.dp", src), cfg)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, src)
	}
	return p
}

// checkErrs checks f and returns its errors, a sorted source.ErrorList
// (failing when there are none).
func checkErrs(t *testing.T, f *dsl.File, cfg Config) source.ErrorList {
	t.Helper()
	p, err := Check(f, cfg)
	if err == nil {
		t.Fatalf("no error; want one\n%s", f.Source)
	}
	if p != nil {
		t.Errorf("Check returned a problem along with an error")
	}
	return errtest.List(t, err)
}

func chars(s string) []int64 {
	out := make([]int64, len(s))
	for k := range s {
		out[k] = int64(s[k])
	}
	return out
}
