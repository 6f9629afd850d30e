package cuda

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		call string
		code Status
		want string
	}{
		{"cuMemAlloc_v2", OutOfMemory, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"},
		{"cuLaunchKernel", InvalidValue, "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)"},
		{"cuModuleGetFunction", NotFound, "cuModuleGetFunction: CUDA_ERROR_NOT_FOUND (named symbol not found)"},
		{"cuInit", NoDevice, "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)"},
		{"cuCtxSynchronize", IllegalAddress, "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"},
		{"cuFoo", 12345, "cuFoo: CUDA_ERROR_12345 (unrecognised error code)"},
	}
	var api *driverAPI // not loaded: names come from the package's table
	for _, tt := range tests {
		err := api.check(tt.call, tt.code)
		if err == nil || err.Error() != tt.want {
			t.Errorf("check(%q, %d) = %v, want %q", tt.call, tt.code, err, tt.want)
		}
	}
	if err := api.check("cuInit", Success); err != nil {
		t.Errorf("check of CUDA_SUCCESS = %v, want nil", err)
	}
}

func TestErrorIs(t *testing.T) {
	var api *driverAPI
	err := fmt.Errorf("allocating the grid: %w", api.check("cuMemAlloc_v2", OutOfMemory))
	if !errors.Is(err, OutOfMemory) {
		t.Errorf("errors.Is(%v, OutOfMemory) = false", err)
	}
	if errors.Is(err, InvalidValue) {
		t.Errorf("errors.Is(%v, InvalidValue) = true", err)
	}
	if errors.Is(err, ErrNoDriver) {
		t.Errorf("errors.Is(%v, ErrNoDriver) = true", err)
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.Call != "cuMemAlloc_v2" || ce.Code != OutOfMemory {
		t.Errorf("errors.As gave %+v", ce)
	}
	if got, want := OutOfMemory.Error(), "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; got != want {
		t.Errorf("Status.Error() = %q, want %q", got, want)
	}
}

func TestNVRTCErrorFormat(t *testing.T) {
	e := &NVRTCError{Call: "nvrtcCompileProgram", Code: 6, Name: "NVRTC_ERROR_COMPILATION"}
	if got, want := e.Error(), "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCString(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{[]byte("abc\x00def"), "abc"},
		{[]byte("abc"), "abc"},
		{[]byte{0}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := cString(tt.in); got != tt.want {
			t.Errorf("cString(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if containsNUL(tt.in) { // goString needs a terminator
			if got := goString(&tt.in[0]); got != tt.want {
				t.Errorf("goString(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
	if got := goString(nil); got != "" {
		t.Errorf("goString(nil) = %q", got)
	}
	if got := cstr("ab"); string(got) != "ab\x00" {
		t.Errorf("cstr(ab) = %q", got)
	}
}

func containsNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}

func TestDeviceStrings(t *testing.T) {
	d := Device{Name: "NVIDIA H100 80GB HBM3", Major: 9, Minor: 0, SMs: 132}
	if got, want := d.Arch(), "sm_90"; got != want {
		t.Errorf("Arch() = %q, want %q", got, want)
	}
	if got, want := d.String(), "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	d = Device{Name: "X", Major: 12, Minor: 1, SMs: 1}
	if got, want := d.Arch(), "sm_121"; got != want {
		t.Errorf("Arch() = %q, want %q", got, want)
	}
}
