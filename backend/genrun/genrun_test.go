package genrun

import (
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestRegionSum folds the partial results of an integer sum over
// the answer region by the rules of +.
func TestRegionSum(t *testing.T) {
	src := `problem rsum
3 x 3
cell[i][j] = i + j
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))
`
	p, pl := dptest.Load(t, "rsum.dp", src)
	cases := []struct {
		name string
		acc  Part
		want int64
		err  string
	}{
		{"finite", Part{Iv: 2147483646, Any: true}, 2147483646, ""},
		{"int-overflow", Part{Iv: 2147483647, Any: true}, 0, "overflow computing the answer: the sum 2147483647 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{"long-overflow", Part{Iv: 5, Fl: SumOvf, Any: true}, 0, "overflow computing the answer: the sum does not fit in int"},
		{"inf", Part{Iv: 5, Fl: SumPos, Any: true}, math.MaxInt32, ""},
		{"neg-inf", Part{Iv: 5, Fl: SumNeg, Any: true}, -math.MaxInt32, ""},
		{"inf-minus-inf", Part{Fl: SumPos | SumNeg, Any: true}, 0, "inf - inf is undefined computing the answer"},
	}
	for _, c := range cases {
		got, err := IntegerSum(p, pl.Answer, c.acc)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %d, %v; want %d", c.name, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %d, %v; want error %q", c.name, got, err, c.err)
		}
	}
	s := backend.IntSum{Sum: longFin}
	s.Merge(backend.IntSum{Sum: 1})
	if !s.Overflow {
		t.Errorf("%d + 1 did not flag the overflow", int64(longFin))
	}
	s = backend.IntSum{Sum: longFin - 1}
	s.Merge(backend.IntSum{Sum: 1})
	if s.Overflow || s.Sum != longFin {
		t.Errorf("%d + 1 = %+v", int64(longFin-1), s)
	}
}
