package genrun

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/source"
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

// TestDescribeIsPositioned: an error a kernel reports is worded as the
// CPU words it and positioned at the `.dp` line (a source.ErrorList), on
// 2-D and 1-D grids: a read of a front not computed yet, a read outside
// the grid.
func TestDescribeIsPositioned(t *testing.T) {
	cases := []struct {
		name, src string
		code      int
		ci, cj    int64
		x, y      int64
		want      []string
	}{
		{"order", "problem order\nint 1x? p = 0,0,1,2,3,7,4,5,6\n1 x len(p)\ncell[i][j] = 1    when j == 0\n           | cell[i][p[j]] + 1    otherwise\n",
			codegen.ErrOrder, 0, 5, 0, 7, []string{"order.dp:5:", "cell[0][5] reads cell[0][7] (p[5] = 7), which is not computed yet"}},
		{"order1d", "problem order1d\nint 1x? p = 0,0,1,2,3,7,4,5,6\nlen(p)\ncell[j] = 1    when j == 0\n        | cell[p[j]] + 1    otherwise\n",
			codegen.ErrOrder, 0, 5, 0, 7, []string{"order1d.dp:5:", "cell[5] reads cell[7] (p[5] = 7), which is not computed yet"}},
		{"outside1d", "problem outside1d\nint 1x? p = 0,0,1,2,3,9,4,5,6\nlen(p)\ncell[j] = 1    when j == 0\n        | cell[p[j]] + 1    otherwise\n",
			codegen.ErrCell, 0, 5, 0, 9, []string{"outside1d.dp:5:", "cell[9]", "outside"}},
	}
	for _, c := range cases {
		p, pl := dptest.Load(t, c.name+".dp", c.src)
		err := Describe(p, pl, nil, "the GPU", c.code, 0, c.ci, c.cj, c.x, c.y)
		var list source.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s: %v is not positioned", c.name, err)
			continue
		}
		text := source.Format(err, []byte(c.src))
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q does not say %q", c.name, text, w)
			}
		}
	}
}
