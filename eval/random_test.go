package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// exprGen writes random integer expressions over i, j, an input A and the
// cells a recurrence may read; seq allows the cell just left of the one
// being computed (a wavefront).
type exprGen struct {
	r     *rand.Rand
	seq   bool
	depth int
	vars  []string
	big   bool // constants near the finite range: overflow is likely
}

func (g *exprGen) leaf() string {
	switch g.r.IntN(9) {
	case 0:
		if g.big && g.r.IntN(2) == 0 {
			return fmt.Sprint([]int64{1000000000, -1000000000, 2147483646, -2147483646, 46341, 3037000500}[g.r.IntN(6)])
		}
		return fmt.Sprint(g.r.IntN(21) - 10)
	case 1:
		return "i"
	case 2:
		return "j"
	case 3:
		return "A[j]"
	case 4:
		return "A[(i*3 + j) % len(A)]"
	case 5:
		return "cell[i-1][j]"
	case 6:
		return "(j > 0 ? cell[i-1][j-1] : 1)"
	case 7:
		if g.seq {
			return "(j > 0 ? cell[i][j-1] : 2)"
		}
		return "cell[i-1][(j+1) % COLS]"
	}
	if len(g.vars) > 0 {
		return g.vars[g.r.IntN(len(g.vars))]
	}
	return "COLS"
}

func (g *exprGen) expr() string {
	if g.depth > 3 || g.r.IntN(4) == 0 {
		return g.leaf()
	}
	g.depth++
	defer func() { g.depth-- }()
	x, y := g.expr(), g.expr()
	switch g.r.IntN(14) {
	case 0:
		return "(" + x + " + " + y + ")"
	case 1:
		return "(" + x + " - " + y + ")"
	case 2:
		return "(" + x + " * " + y + " % 100)"
	case 3:
		return "(" + x + " / " + y + ")" // may divide by zero: both must fail
	case 4:
		return "(" + x + " % (abs(" + y + ") + 1))"
	case 5:
		return "(" + g.cond() + " ? " + x + " : " + y + ")"
	case 6:
		return "min(" + x + ", " + y + ", " + g.expr() + ")"
	case 7:
		return "max(" + x + ", " + y + ")"
	case 8:
		return "abs(" + x + ")"
	case 9:
		return "-" + x
	case 10:
		v := fmt.Sprintf("k%d", g.depth)
		g.vars = append(g.vars, v)
		body := g.expr()
		g.vars = g.vars[:len(g.vars)-1]
		op := []string{"min", "max", "sum"}[g.r.IntN(3)]
		return fmt.Sprintf("%s(%s in %d..%s: %s)", op, v, g.r.IntN(3)-1, []string{"2", "j % 4", "i"}[g.r.IntN(3)], body)
	case 11:
		return "(" + g.cond() + " && " + g.cond() + " ? " + x + " : 0)"
	case 12:
		return "A[abs(" + x + ") % len(A)]"
	}
	return "(j >= " + x + " ? A[j - " + x + "] : " + y + ")" // may read before A
}

func (g *exprGen) cond() string {
	x, y := g.leaf(), g.leaf()
	op := []string{"==", "!=", "<", "<=", ">", ">="}[g.r.IntN(6)]
	c := x + " " + op + " " + y
	switch g.r.IntN(4) {
	case 0:
		return "(" + c + " || " + g.leaf() + " > 3)"
	case 1:
		return "!(" + c + ")"
	}
	return c
}

// randomRuns is how many recurrences TestRandomRecurrences tries.
var randomRuns = 150

// TestRandomRecurrences compares the kernels with the general evaluator on
// random recurrences: the same cells, or both failing.
func TestRandomRecurrences(t *testing.T) {
	r := dptest.Rand(t)
	nErr := 0
	defer func() { t.Logf("%d of the recurrences failed in both", nErr) }()
	for n := 0; n < randomRuns; n++ {
		g := &exprGen{r: r, seq: n%2 == 1, big: n%3 == 2}
		cases := []string{"A[j] + i    when i == 0"}
		value := func() string {
			if r.IntN(4) == 0 { // a double value, converted to the cell type
				return "floor(sqrt(abs(" + g.expr() + ")) * 1.5) + (" + g.expr() + " % 1000) * 0.25"
			}
			return g.expr() + " % 1000"
		}
		for k := r.IntN(3); k >= 0; k-- {
			cases = append(cases, value()+"   when "+g.cond())
		}
		cases = append(cases, value()+"   otherwise")
		rows, cols := 1+r.IntN(9), 1+r.IntN(14)
		ct := []ir.Type{ir.Int, ir.Long}[r.IntN(2)]
		src := fmt.Sprintf("int 1x%d A = %s\n%d x %d\ncell[i][j] = %s\n", cols+2, dptest.Join(dptest.Ints(r, cols+2, -5, 9)), rows, cols,
			strings.Join(cases, "\n           | "))
		src = withCell(src, ct)
		p, pl, err := dptest.TryLoad(t, "random.dp", src)
		if err != nil {
			// sema folds constant expressions and refuses divisions by zero
			// and overflow there: not the kernels' business.
			if !strings.Contains(err.Error(), "division by zero") && !strings.Contains(err.Error(), "overflows") {
				t.Fatalf("%v\n%s", err, src)
			}
			continue
		}
		axis, stepDesc, laneDesc := scheduleOf(pl)
		want, wantErr := reference(p, axis, stepDesc, laneDesc)
		if wantErr != nil {
			nErr++
		}
		for _, width := range []int{1, 4, 64} {
			for _, perBatch := range []bool{false, true} {
				got, _, err := batched(p, axis, stepDesc, laneDesc, width, perBatch)
				if (err != nil) != (wantErr != nil) {
					t.Fatalf("width %d perBatch %v: error %v, reference %v\n%s", width, perBatch, err, wantErr, src)
				}
				if err == nil {
					if d := sameGrid(want, got); d != nil {
						t.Fatalf("width %d perBatch %v: %v\n%s", width, perBatch, d, src)
					}
				}
			}
		}
	}
}
