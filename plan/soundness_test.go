package plan_test

import (
	"fmt"
	"math/rand"
	"testing"
)

// affineText is c0 + ci*i + cj*j + ck*k, as source text and as a function.
type affineText struct{ c0, ci, cj, ck int64 }

func (a affineText) String() string {
	if a.ck == 0 {
		return fmt.Sprintf("(%d + %d*i + %d*j)", a.c0, a.ci, a.cj)
	}
	return fmt.Sprintf("(%d + %d*i + %d*j + %d*k)", a.c0, a.ci, a.cj, a.ck)
}

func (a affineText) at(i, j, k int64) int64 { return a.c0 + a.ci*i + a.cj*j + a.ck*k }

func randAffine(r *rand.Rand, withK bool) affineText {
	c := func() int64 { return int64(r.Intn(5)) - 2 }
	a := affineText{c0: int64(r.Intn(7)) - 3, ci: c(), cj: c()}
	if withK {
		a.ck = c()
	}
	return a
}

// The planner is sound: on random recurrences with linear conditions and
// reductions over linear ranges, whatever schedule it accepts reads, for
// every cell and every value of k, only cells of earlier fronts (reads
// outside the grid are the executors' run-time errors, not the
// planner's). A schedule that let a cell read an unfinished one would be
// a silent wrong answer.
func TestPlannerIsSound(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	accepted := 0
	for n := 0; n < 1500; n++ {
		rows, cols := int64(1+r.Intn(6)), int64(1+r.Intn(6))
		cond := randAffine(r, false)
		lo, hi := randAffine(r, false), randAffine(r, false)
		ri, rj := randAffine(r, true), randAffine(r, true)
		// A second, constant-offset reference keeps many v1-shaped cases.
		di, dj := int64(r.Intn(3))-1, int64(r.Intn(3))-1
		// The reference in the reduction has k replaced by the bound
		// variable's name, written as source.
		refI, refJ := ri.String(), rj.String()
		src := fmt.Sprintf("%d x %d\ncell[i][j] = 0 when %s >= 0\n | min(k in %s..%s: cell[%s][%s]) + cell[i-(%d)][j-(%d)] otherwise\n",
			rows, cols, cond, lo, hi, refI, refJ, di, dj)
		pl, err := analyze(t, src)
		if err != nil {
			continue
		}
		accepted++
		tOf := func(i, j int64) int64 { return pl.T.T(i, j) }
		for i := int64(0); i < rows; i++ {
			for j := int64(0); j < cols; j++ {
				if cond.at(i, j, 0) >= 0 {
					continue
				}
				check := func(a, b int64, what string) {
					if a < 0 || a >= rows || b < 0 || b >= cols {
						return
					}
					if tOf(a, b) >= tOf(i, j) {
						t.Fatalf("%s\nplan %s %s: cell[%d][%d] reads %s cell[%d][%d], not on an earlier front", src, pl.Schedule, pl.T, i, j, what, a, b)
					}
				}
				check(i-di, j-dj, "through the constant reference")
				for k := lo.at(i, j, 0); k <= hi.at(i, j, 0); k++ {
					check(ri.at(i, j, k), rj.at(i, j, k), fmt.Sprintf("at k = %d", k))
				}
			}
		}
	}
	if accepted < 100 {
		t.Fatalf("only %d of 1500 random recurrences were accepted: the test checks too little", accepted)
	}
	t.Logf("%d accepted", accepted)
}

// TestPlannerIsSoundFarReads: the same with two constant references up to
// eight cells away in any direction, where the hyperplanes past the small
// coefficients (plan.stretched) are often the only order; each accepted
// plan must put every read on an earlier front, and the ones with a
// large coefficient must be tried only when no small one fits.
func TestPlannerIsSoundFarReads(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	accepted, far := 0, 0
	for n := 0; n < 1500; n++ {
		rows, cols := int64(17+r.Intn(8)), int64(17+r.Intn(8))
		off := func() int64 { return int64(r.Intn(17)) - 8 }
		d := [2][2]int64{{off(), off()}, {off(), off()}}
		if n%2 == 0 {
			// One near and one far axis: the reads a small coefficient
			// cannot order with the other reference's.
			near, farOff := int64(r.Intn(3))-1, int64(4+r.Intn(5))*int64(1-2*r.Intn(2))
			d[1] = [2]int64{near, farOff}
			if r.Intn(2) == 0 {
				d[1] = [2]int64{farOff, near}
			}
		}
		src := fmt.Sprintf("%d x %d\ncell[i][j] = 0 when i < 8 || j < 8 || i >= ROWS - 8 || j >= COLS - 8\n | cell[i-(%d)][j-(%d)] + cell[i-(%d)][j-(%d)] otherwise\n",
			rows, cols, d[0][0], d[0][1], d[1][0], d[1][1])
		pl, err := analyze(t, src)
		if err != nil {
			continue
		}
		accepted++
		if max(abs(pl.T.A), abs(pl.T.B)) > 3 {
			far++
			// Only where no small coefficients order both references.
			for a := int64(-3); a <= 3; a++ {
				for b := int64(-3); b <= 3; b++ {
					if (a != 0 || b != 0) && a*d[0][0]+b*d[0][1] >= 1 && a*d[1][0]+b*d[1][1] >= 1 {
						t.Fatalf("%s\nplan %s, but t = %d*i + %d*j orders both references", src, pl.T, a, b)
					}
				}
			}
		}
		for i := int64(8); i < rows-8; i++ {
			for j := int64(8); j < cols-8; j++ {
				for _, dd := range d {
					if pl.T.T(i-dd[0], j-dd[1]) >= pl.T.T(i, j) {
						t.Fatalf("%s\nplan %s %s: cell[%d][%d] reads cell[%d][%d], not on an earlier front", src, pl.Schedule, pl.T, i, j, i-dd[0], j-dd[1])
					}
				}
			}
		}
	}
	if far < 50 {
		t.Fatalf("%d of %d accepted plans have a coefficient past 3: the test checks too little of them", far, accepted)
	}
	t.Logf("%d accepted, %d with a coefficient past 3", accepted, far)
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// The same over several tables (fronts over the flat columns J = j*T +
// t, the reads seen through the user's column: analysis.Columns): each
// table reads a random table over a range and another at a constant
// offset, the earlier tables also at its own cell.
func TestPlannerIsSoundOverTables(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	accepted, tried := 0, 1500
	type table struct {
		cond, lo, hi, ri, rj affineText
		over, near           int   // the tables read over the range and at the offset
		di, dj               int64 // the offset
	}
	for n := 0; n < tried; n++ {
		rows, cols := int64(1+r.Intn(6)), int64(1+r.Intn(6))
		T := 2 + r.Intn(3)
		tabs := make([]table, T)
		src := fmt.Sprintf("%d x %d\ncell: long\n", rows, cols)
		for x := range tabs {
			tb := &tabs[x]
			tb.cond, tb.lo, tb.hi = randAffine(r, false), randAffine(r, false), randAffine(r, false)
			tb.ri, tb.rj = randAffine(r, true), randAffine(r, true)
			tb.over, tb.near = r.Intn(T), r.Intn(T)
			tb.di, tb.dj = int64(r.Intn(3))-1, int64(r.Intn(3))-1
			if tb.di == 0 && tb.dj == 0 && tb.near >= x {
				tb.dj = 1 // a table reads only earlier ones at its own cell
			}
			src += fmt.Sprintf("X%d[i][j] = 0 when %s >= 0\n | min(k in %s..%s: X%d[%s][%s]) + X%d[i-(%d)][j-(%d)] otherwise\n",
				x, tb.cond, tb.lo, tb.hi, tb.over, tb.ri, tb.rj, tb.near, tb.di, tb.dj)
		}
		pl, err := analyze(t, src)
		if err != nil {
			continue
		}
		accepted++
		tOf := func(i, j int64, x int) int64 { return pl.T.T(i, j*int64(T)+int64(x)) }
		for i := int64(0); i < rows; i++ {
			for j := int64(0); j < cols; j++ {
				for x, tb := range tabs {
					if tb.cond.at(i, j, 0) >= 0 {
						continue
					}
					check := func(a, b int64, y int, what string) {
						if a < 0 || a >= rows || b < 0 || b >= cols {
							return
						}
						if tOf(a, b, y) >= tOf(i, j, x) {
							t.Fatalf("%s\nplan %s %s: X%d[%d][%d] reads %s X%d[%d][%d], not on an earlier front", src, pl.Schedule, pl.T, x, i, j, what, y, a, b)
						}
					}
					check(i-tb.di, j-tb.dj, tb.near, "through the constant reference")
					for k := tb.lo.at(i, j, 0); k <= tb.hi.at(i, j, 0); k++ {
						check(tb.ri.at(i, j, k), tb.rj.at(i, j, k), tb.over, fmt.Sprintf("at k = %d", k))
					}
				}
			}
		}
	}
	if accepted < 100 {
		t.Fatalf("only %d of %d random recurrences were accepted: the test checks too little", accepted, tried)
	}
	t.Logf("%d accepted", accepted)
}
