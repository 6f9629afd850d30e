package codegen

import (
	"testing"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestInputInf: the one-sided inf forms rely on what an input holds. A
// batch program serves every instance of its key, which says only whether
// a varying input holds inf, not of which sign: there a read of it may be
// either, while a program of the data alone (or of a shared input) takes
// the one sign the data holds.
func TestInputInf(t *testing.T) {
	p, _ := dptest.Load(t, "w.dp", `problem w
int 1x4 W = -inf, 3, 1, -inf
int 1x4 V = 1, 2, 3, 4
3 x 4
cell[i][j] = W[j] + V[j] when i == 0
           | cell[i-1][j] otherwise
`)
	w, v := p.Inputs[0], p.Inputs[1]
	neg, both, none := analysis.InfSigns{Neg: true}, analysis.InfSigns{Pos: true, Neg: true}, analysis.InfSigns{}
	for _, c := range []struct {
		name string
		opt  Options
		w, v analysis.InfSigns
	}{
		{"one program", Options{}, neg, none},
		{"batch, W shared", Options{Batch: true, BatchInputs: []string{"V"}}, neg, none},
		{"batch, W varies", Options{Batch: true, BatchInputs: []string{"W", "V"}}, both, none},
	} {
		g := &gen{p: p, opt: c.opt}
		if got := g.inputInf(w); got != c.w {
			t.Errorf("%s: W %+v, want %+v", c.name, got, c.w)
		}
		if got := g.inputInf(v); got != c.v {
			t.Errorf("%s: V %+v, want %+v", c.name, got, c.v)
		}
	}
}
