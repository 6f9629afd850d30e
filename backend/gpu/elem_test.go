package gpu

import (
	"testing"

	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
)

// TestElemSize: the device memory estimate counts an input's elements at
// the size they are uploaded with — a 2-byte input in a texture goes up as
// 4 bytes (no 16-bit texture format), and elemBytes agrees.
func TestElemSize(t *testing.T) {
	short := &ir.Input{Name: "S", T: ir.Short, Rows: 1, Cols: 3, Vector: true, I: []int64{1, -2, 3}}
	long := &ir.Input{Name: "L", T: ir.Long, Rows: 1, Cols: 2, Vector: true, I: []int64{5, 6}}
	for _, tc := range []struct {
		in    codegen.Input
		bytes int64
	}{
		{codegen.Input{In: short, Place: codegen.Texture, Len: 3}, 4},
		{codegen.Input{In: short, Place: codegen.Global, Len: 3}, 2},
		{codegen.Input{In: long, Place: codegen.Global, Len: 2}, 8},
	} {
		if got := elemSize(tc.in); got != tc.bytes {
			t.Errorf("%s in %v: %d bytes an element, want %d", tc.in.In.Name, tc.in.Place, got, tc.bytes)
		}
		b, err := elemBytes(tc.in)
		if err != nil || int64(len(b)) != tc.bytes*tc.in.Len {
			t.Errorf("%s in %v: elemBytes gave %d bytes (%v), want %d", tc.in.In.Name, tc.in.Place, len(b), err, tc.bytes*tc.in.Len)
		}
	}
}
