package cuda

import (
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// TestCallABI drives the call path the bindings use (SyscallN through
// go:uintptrescapes, 32-bit status from the return register) with a C library
// function whose results are known: memcmp, which takes two pointers and a
// size and returns a signed int.
func TestCallABI(t *testing.T) {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		t.Skipf("no glibc to call into: %v", err)
	}
	memcmp, err := purego.Dlsym(h, "memcmp")
	if err != nil {
		t.Fatal(err)
	}
	api := &driverAPI{}
	tests := []struct {
		a, b string
		sign int
	}{
		{"abc", "abd", -1},
		{"abd", "abc", 1},
		{"same bytes", "same bytes", 0},
	}
	for _, tt := range tests {
		a, b := []byte(tt.a), []byte(tt.b)
		s := api.call(memcmp, uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0])), uintptr(len(a)))
		if sign := int(max(-1, min(1, s))); sign != tt.sign {
			t.Errorf("memcmp(%q, %q) gave %d, want sign %d", tt.a, tt.b, s, tt.sign)
		}
	}
}
