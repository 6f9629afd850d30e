package cuda

import (
	"math"
	"strings"
	"testing"
	"unsafe"
)

func TestPackArgs(t *testing.T) {
	args := []any{
		DevicePtr(0x7f0000001000), TexObject(42), uintptr(7), int64(-2), uint64(math.MaxUint64),
		float64(-1.5), int32(-3), uint32(0xdeadbeef), float32(0.1), int16(-4), uint16(65535), int8(-5), uint8(250),
	}
	want := []uint64{
		0x7f0000001000, 42, 7, 0xfffffffffffffffe, math.MaxUint64,
		math.Float64bits(-1.5), 0xfffffffd, 0xdeadbeef, uint64(math.Float32bits(0.1)), 0xfffc, 0xffff, 0xfb, 250,
	}
	sizes := []int{8, 8, 8, 8, 8, 8, 4, 4, 4, 2, 2, 1, 1}
	for _, params := range [][]int{nil, sizes} {
		ka, err := packArgs("k", params, args)
		if err != nil {
			t.Fatalf("packArgs(params=%v): %v", params, err)
		}
		n := len(args)
		if len(ka.buf) != 2*n {
			t.Fatalf("buffer of %d words, want %d", len(ka.buf), 2*n)
		}
		for i := range args {
			if got := ka.value(i); got != want[i] {
				t.Errorf("argument %d (%T): value %#x, want %#x", i, args[i], got, want[i])
			}
			// The pointer slot must address the value slot: that is what the
			// driver dereferences.
			if got, wantPtr := ka.buf[i], uint64(uintptr(unsafe.Pointer(&ka.buf[n+i]))); got != wantPtr {
				t.Errorf("argument %d: pointer %#x, want %#x", i, got, wantPtr)
			}
			// A parameter of size s reads the first s bytes of its slot.
			p := unsafe.Slice((*byte)(unsafe.Pointer(&ka.buf[n+i])), sizes[i])
			var back uint64
			for j := sizes[i] - 1; j >= 0; j-- {
				back = back<<8 | uint64(p[j])
			}
			if mask := uint64(1)<<(8*sizes[i]) - 1; sizes[i] < 8 && back != want[i]&mask || sizes[i] == 8 && back != want[i] {
				t.Errorf("argument %d: first %d bytes read %#x", i, sizes[i], back)
			}
		}
	}
}

func TestPackArgsErrors(t *testing.T) {
	tests := []struct {
		name   string
		params []int
		args   []any
		want   string
	}{
		{"go int", nil, []any{int32(1), 5}, "argument 1 is a Go int"},
		{"unsupported", nil, []any{"x"}, "argument 0 has unsupported type string"},
		{"slice", nil, []any{[]float32{1}}, "unsupported type []float32"},
		{"too few", []int{8, 4}, []any{DevicePtr(1)}, "kernel k takes 2 parameters, got 1 arguments"},
		{"too many", []int{}, []any{int32(1)}, "takes 0 parameters, got 1"},
		{"size mismatch", []int{8, 4}, []any{DevicePtr(1), int64(3)}, "argument 1 is a int64 (8 bytes) but parameter 1 has 4 bytes"},
		{"float for double", []int{8}, []any{float32(1)}, "float32 (4 bytes) but parameter 0 has 8 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := packArgs("k", tt.params, tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("packArgs = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if ka, err := packArgs("k", []int{}, nil); err != nil || len(ka.buf) != 0 {
		t.Errorf("no arguments: %v, %v", ka, err)
	}
}
