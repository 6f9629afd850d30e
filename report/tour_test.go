package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/heldkarp"
	"github.com/dpgpu/dpgpu/ir"
)

// tspProblem is a checked problem of the held-karp schedule: no grid, one
// 4x4 distance matrix.
func tspProblem() (*ir.Problem, *heldkarp.Instance) {
	dist := &ir.Input{Name: "dist", T: ir.Int, Rows: 4, Cols: 4, I: make([]int64, 16), Origin: "cities.tsp"}
	p := &ir.Problem{Name: "tsp", File: "tsp.dp", CellType: ir.Int, Schedule: heldkarp.Schedule, Inputs: []*ir.Input{dist}}
	return p, &heldkarp.Instance{Input: "dist", Dist: dist.I, N: 4}
}

// The text of a Held-Karp solve: the cities instead of a grid, the tour
// numbered from 1 and closed, no prev.
func TestSolveTour(t *testing.T) {
	p, _ := tspProblem()
	r := &heldkarp.Result{Length: 80, Tour: []int{0, 2, 3, 1}, States: 12, Seconds: 0.5, ComputeSeconds: 0.25, PeakBytes: 2048}
	var b strings.Builder
	SolveTour(&b, p, r, "cpu", "2 CPU threads")
	want := `problem    tsp (tsp.dp)
instance   4 cities
schedule   held-karp, forward
backend    cpu: 2 CPU threads
answer     80
tour       1 3 4 2 1
time       0.500000 s, 12 cells, 0.000 GCUPS; compute 0.250000 s (0.000 GCUPS)
memory     host 2.0 KiB
`
	if b.String() != want {
		t.Errorf("SolveTour:\n%s\nwant\n%s", b.String(), want)
	}
	data, err := json.Marshal(TourObject(p, r, "cpu", "2 CPU threads"))
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"schedule":"held-karp"`, `"direction":"forward"`, `"rows":0`, `"prev":0`, `"answer":80`,
		`"tour":[0,2,3,1]`, `"cells":12`, `"backend":"cpu"`, `"peak_host_bytes":2048`} {
		if !strings.Contains(string(data), field) {
			t.Errorf("TourObject: %s\nlacks %s", data, field)
		}
	}
	for _, field := range []string{"answer_cell", "path", "emitted", "solution"} {
		if strings.Contains(string(data), `"`+field+`"`) {
			t.Errorf("TourObject: %s\nhas %s", data, field)
		}
	}
}

// The analysis of a Held-Karp problem: inputs, the solver and what the
// instance needs; no grid, dependencies, prev or answer cell.
func TestCheckTour(t *testing.T) {
	p, tsp := tspProblem()
	var b strings.Builder
	CheckTour(&b, p, tsp, 1<<30)
	want := `problem    tsp (tsp.dp)
inputs
  dist       int    4x4          cities.tsp
schedule   held-karp, forward
           forced by ` + "`schedule: held-karp`" + `: subsets are swept layer by layer by size
cities     4: 12 states
`
	got := b.String()
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "\nmemory     host ") || !strings.Contains(got, "\nlimit      1.0 GiB of host memory available: up to n = ") {
		t.Errorf("CheckTour:\n%s\nwant it to start\n%s", got, want)
	}
	b.Reset()
	CheckTour(&b, p, tsp, 0)
	if strings.Contains(b.String(), "limit") {
		t.Errorf("CheckTour with the memory unknown printed a limit:\n%s", b.String())
	}
	c := CheckTourObject(p)
	if c.Schedule != "held-karp" || c.Direction != "forward" || c.Reason != heldkarp.Reason || c.Answer != "" ||
		c.Memory != (MemoryJSON{}) || len(c.Inputs) != 1 || c.Dependencies == nil || c.Scalars == nil {
		t.Errorf("CheckTourObject = %+v", c)
	}
}
