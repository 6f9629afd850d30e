// Package gputest decides what a GPU test does where no GPU is found: CI has
// none, so such tests skip there with a message saying so; on the device
// machine DPGPU_REQUIRE_GPU=1 turns the skip into a failure, so that a
// driver that failed to load cannot pass a device run unnoticed.
package gputest

import (
	"os"
	"testing"
)

// Required reports whether DPGPU_REQUIRE_GPU asks GPU tests to fail rather
// than skip when no GPU is found.
func Required() bool {
	v := os.Getenv("DPGPU_REQUIRE_GPU")
	return v != "" && v != "0"
}

// NoGPU ends the test for want of a GPU (why says what was missing): a skip,
// or a failure when Required.
func NoGPU(tb testing.TB, why any) {
	tb.Helper()
	if Required() {
		tb.Fatalf("DPGPU_REQUIRE_GPU is set but no GPU is usable: %v", why)
		return
	}
	tb.Skipf("no GPU, test skipped: %v", why)
}
