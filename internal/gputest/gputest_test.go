package gputest

import "testing"

func TestRequired(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want bool
	}{{"", false}, {"0", false}, {"1", true}, {"yes", true}} {
		t.Setenv("DPGPU_REQUIRE_GPU", tc.env)
		if got := Required(); got != tc.want {
			t.Errorf("DPGPU_REQUIRE_GPU=%q: Required() = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// recorder is a testing.TB that records whether the test was skipped or
// failed instead of stopping the goroutine.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestNoGPU(t *testing.T) {
	t.Setenv("DPGPU_REQUIRE_GPU", "")
	r := &recorder{TB: t}
	NoGPU(r, "no driver")
	if !r.skipped || r.failed {
		t.Errorf("without DPGPU_REQUIRE_GPU: skipped %v failed %v, want a skip", r.skipped, r.failed)
	}
	t.Setenv("DPGPU_REQUIRE_GPU", "1")
	r = &recorder{TB: t}
	NoGPU(r, "no driver")
	if r.skipped || !r.failed {
		t.Errorf("with DPGPU_REQUIRE_GPU=1: skipped %v failed %v, want a failure", r.skipped, r.failed)
	}
}
