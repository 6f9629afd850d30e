package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// TestTree: a traceback that branches is an outline in the text report
// and its nodes in pre-order, children by index, in JSON; a path stays a
// path.
func TestTree(t *testing.T) {
	v := func(x int64) ir.Value { return ir.Value{T: ir.Long, I: x} }
	leaf := func(i, j int64) *traceback.Node { return &traceback.Node{I: i, J: j, Value: v(0)} }
	emit := ir.Value{T: ir.Char, I: 'x'}
	tree := &traceback.Node{I: 0, J: 2, Case: 1, Value: v(30), Children: []*traceback.Node{
		leaf(0, 0),
		{I: 1, J: 2, Case: 1, Value: v(12), Emit: &emit, Children: []*traceback.Node{leaf(1, 1), leaf(2, 2)}},
	}}
	p := &ir.Problem{Name: "mc", Dims: 2, Rows: 3, Cols: 3, CellType: ir.Long}
	pl := &plan.Plan{Schedule: plan.Interval, Direction: plan.Forward, T: plan.Hyperplane{A: -1, B: 1}}
	res := &backend.Result{Answer: v(30), AnswerIsCell: true, AnswerJ: 2, Backend: "cpu"}
	var b strings.Builder
	Solve(&b, p, pl, res, tree, "")
	want := `schedule   interval (t = j - i), forward, the whole grid kept
backend    cpu: 
answer     30
tree       5 cells, 3 levels, from cell[0][2] (--json lists the nodes)
           cell[0][2] = 30
             cell[0][0] = 0
             cell[1][2] = 12  emit x
               cell[1][1] = 0
               cell[2][2] = 0
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("text:\n%s\nwant it to contain\n%s", b.String(), want)
	}
	out, err := json.Marshal(SolveObject(p, pl, res, tree, ""))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `"tree":[{"cell":[0,2],"text":"cell[0][2]","case":1,"value":30,"children":[1,2]},` +
		`{"cell":[0,0],"text":"cell[0][0]","case":0,"value":0,"children":[]},` +
		`{"cell":[1,2],"text":"cell[1][2]","case":1,"value":12,"emit":"x","children":[3,4]},` +
		`{"cell":[1,1],"text":"cell[1][1]","case":0,"value":0,"children":[]},` +
		`{"cell":[2,2],"text":"cell[2][2]","case":0,"value":0,"children":[]}]`
	if !strings.Contains(string(out), wantJSON) {
		t.Errorf("JSON %s\nwant it to contain %s", out, wantJSON)
	}
	// A rendered solution replaces the outline.
	b.Reset()
	Solve(&b, p, pl, res, tree, "(A1(A2A3))")
	if !strings.Contains(b.String(), "solution   (A1(A2A3))\n") || strings.Contains(b.String(), "tree ") {
		t.Errorf("with a solution:\n%s", b.String())
	}
	// A path (Path set) is printed as a path, in 1-D with one index.
	p1 := &ir.Problem{Name: "lis", Dims: 1, Rows: 1, Cols: 5, CellType: ir.Int}
	res.Path = [][2]int64{{0, 1}, {0, 3}, {0, 4}}
	b.Reset()
	Solve(&b, p1, pl, res, &traceback.Node{}, "")
	out, _ = json.Marshal(SolveObject(p1, pl, res, &traceback.Node{}, ""))
	if !strings.Contains(b.String(), "path       [1] [3] [4] (3 cells)\n") || strings.Contains(string(out), `"tree"`) {
		t.Errorf("1-D path:\n%s\n%s", b.String(), out)
	}
}
