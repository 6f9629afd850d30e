package render_test

import (
	"fmt"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems/render"
)

func chars(name, s string) *ir.Input {
	in := &ir.Input{Name: name, T: ir.Char, Rows: 1, Cols: len(s), Vector: true}
	for i := range s {
		in.I = append(in.I, int64(s[i]))
	}
	return in
}

// A traceback of the edit distance from INTENTION to EXECUTION: the path
// goes down once (a deletion), then diagonally, then right once (an
// insertion), then diagonally to the last cell.
func ExampleEditDistance() {
	p := &ir.Problem{
		Name:   "editdistance",
		Inputs: []*ir.Input{chars("A", "INTENTION"), chars("B", "EXECUTION")},
		Scalars: []*ir.Scalar{
			{Name: "ins", Value: ir.Value{T: ir.Int, I: 1}},
			{Name: "del", Value: ir.Value{T: ir.Int, I: 1}},
			{Name: "sub", Value: ir.Value{T: ir.Int, I: 2}},
		},
	}
	res := &backend.Result{Path: [][2]int64{{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 9}}}
	text, ok := render.EditDistance(p, res, nil)
	fmt.Println(ok)
	fmt.Println(text)
	// Output:
	// true
	// A  INTE-NTION
	//       |  ||||
	// B  -EXECUTION
	// 1 insertion, 1 deletion, 3 substitutions, 5 matches
	// cost 8 (ins 1, del 1, sub 2)
}
