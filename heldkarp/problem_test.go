package heldkarp

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

func TestTourLength(t *testing.T) {
	d := []int64{0, 1, 9, 2, 0, 3, 4, 5, 0} // 3 cities, asymmetric
	if got, err := tourLength(d, 3, []int{0, 1, 2}); err != nil || got != 1+3+4 {
		t.Errorf("0-1-2: %d %v", got, err)
	}
	if got, err := tourLength(d, 3, []int{0, 2, 1}); err != nil || got != 9+5+2 {
		t.Errorf("0-2-1: %d %v", got, err)
	}
	if _, err := tourLength(d, 3, []int{0, 0, 1}); err == nil {
		t.Error("repeated city accepted")
	}
	if _, err := tourLength(d, 3, []int{0, 1}); err == nil {
		t.Error("short tour accepted")
	}
	if _, err := tourLength(d, 3, []int{0, 1, 3}); err == nil {
		t.Error("city out of range accepted")
	}
}

func TestFromProblem(t *testing.T) {
	square := func(name string, n int) *ir.Input {
		return &ir.Input{Name: name, T: ir.Int, Rows: n, Cols: n, I: make([]int64, n*n)}
	}
	vec := &ir.Input{Name: "v", T: ir.Int, Rows: 1, Cols: 3, Vector: true, I: make([]int64, 3)}
	for _, tc := range []struct {
		what   string
		inputs []*ir.Input
		input  string // the distances taken, or "" for an error
		err    string
	}{
		{"dist by name", []*ir.Input{square("m", 2), square("dist", 3)}, "dist", ""},
		{"the only square matrix", []*ir.Input{vec, square("d", 4)}, "d", ""},
		{"two square matrices", []*ir.Input{square("a", 2), square("b", 2)}, "", "several square matrices (a, b)"},
		{"none", []*ir.Input{vec}, "", "named dist"},
		{"floating dist", []*ir.Input{{Name: "dist", T: ir.Double, Rows: 2, Cols: 2, F: make([]float64, 4)}}, "", "square integer matrix"},
	} {
		in, err := FromProblem(&ir.Problem{Inputs: tc.inputs})
		switch {
		case tc.input == "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one containing %q", tc.what, err, tc.err)
		case tc.input != "" && (err != nil || in.Input != tc.input || in.N*in.N != len(in.Dist)):
			t.Errorf("%s: %+v, %v; want the distances of %s", tc.what, in, err, tc.input)
		}
	}
}

func TestResultAnswerAndStats(t *testing.T) {
	r := &Result{Length: 2085, Tour: []int{0, 1}, States: 7, Seconds: 2, ComputeSeconds: 1, PeakBytes: 3, DeviceBytes: 4}
	if a := r.Answer(); a.T != ir.Long || a.I != 2085 {
		t.Errorf("Answer = %v", a)
	}
	if st := r.Stats(); st.Cells != 7 || st.Seconds != 2 || st.ComputeSeconds != 1 || st.PeakHostBytes != 3 || st.DeviceBytes != 4 {
		t.Errorf("Stats = %+v", st)
	}
}
