package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// TestRandom3DRecurrences: random recurrences of 3-D grids
// (dptest.NewRandom3) whose plan is a 3-D hyperplane — many coefficients,
// negative ones among them — on the Go evaluator and the compiled code (1,
// 3 and 9 workers: row-major order where it is legal, the fronts
// otherwise), against the grid of a memoised recursion that knows no
// schedule (and fails the test on a cycle the planner should have refused).
func TestRandom3DRecurrences(t *testing.T) {
	c := withCompiler(t)
	inf, _ := ir.ArithSentinels(ir.Int)
	dptest.EachRandom3(t, rand.New(rand.NewPCG(7, 3)), 40, func(rc dptest.Random3, p *ir.Problem, pl *plan.Plan) {
		check := func(name string, res *backend.Result, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, rc.Src)
			}
			for k, plane := range rc.Want {
				for x, want := range plane {
					if want == dptest.NoEdge {
						want = inf
					}
					if got := res.Grid.At(int64(k), int64(x)).I; got != want {
						t.Fatalf("%s (%s): cell[%d][%d][%d] = %d, want %d\n%s", name, pl.T.In(p), k, x/rc.C, x%rc.C, got, want, rc.Src)
					}
				}
			}
		}
		for _, threads := range []int{1, 3} {
			res, err := solveGo(t, p, pl, backend.Options{Threads: threads, Maintain: true})
			check(fmt.Sprintf("Go, %d threads", threads), res, err)
		}
		for _, threads := range []int{1, 3, 9} {
			res, err := solveCompiled(t, c, p, pl, backend.Options{Threads: threads, Maintain: true})
			check(fmt.Sprintf("compiled, %d threads", threads), res, err)
		}
	})
}
