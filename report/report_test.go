package report

import (
	"math"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

func TestUnits(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {5 << 30, "5.0 GiB"}} {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {-1234567, "-1,234,567"}, {400040001, "400,040,001"}} {
		if got := Count(tt.n); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestValues(t *testing.T) {
	pos, neg := ir.InfSentinel(ir.Int)
	for _, tt := range []struct {
		v    ir.Value
		cell ir.Type
		want string
	}{
		{ir.Value{T: ir.Int, I: 26}, ir.Int, "26"},
		{ir.Value{T: ir.Int, I: pos}, ir.Int, "inf"},
		{ir.Value{T: ir.Int, I: neg}, ir.Int, "-inf"},
		{ir.Value{T: ir.Long, I: pos}, ir.Long, "2147483647"}, // the int sentinel is a plain long
		{ir.Value{T: ir.Double, F: 5.470181376133768}, ir.Double, "5.470181376"},
	} {
		if got := ValueText(tt.v, tt.cell); got != tt.want {
			t.Errorf("ValueText(%v, %s) = %q, want %q", tt.v, tt.cell, got, tt.want)
		}
	}
	if got := JSONValue(ir.Value{T: ir.Char, I: 'A'}); got != "A" {
		t.Errorf("char %v", got)
	}
	if got := JSONValue(ir.Value{T: ir.Double, F: math.Inf(1)}); got != "+Inf" {
		t.Errorf("inf %v", got)
	}
	if got := JSONValue(ir.Value{T: ir.Long, I: -5}); got != int64(-5) {
		t.Errorf("long %v", got)
	}
}
