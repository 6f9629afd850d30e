package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

func TestUnits(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {5 << 30, "5.0 GiB"}} {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {-1234567, "-1,234,567"}, {400040001, "400,040,001"}} {
		if got := Count(tt.n); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestValues(t *testing.T) {
	pos, neg := ir.InfSentinel(ir.Int)
	lpos, lneg := ir.InfSentinel(ir.Long)
	for _, tt := range []struct {
		v    ir.Value
		cell ir.Type
		want string
	}{
		{ir.Value{T: ir.Int, I: 26}, ir.Int, "26"},
		{ir.Value{T: ir.Int, I: pos}, ir.Int, "inf"},
		{ir.Value{T: ir.Int, I: neg}, ir.Int, "-inf"},
		{ir.Value{T: ir.Long, I: pos}, ir.Long, "2147483647"}, // the int sentinel is a plain long
		{ir.Value{T: ir.Long, I: pos}, ir.Int, "2147483647"},  // a long is judged by its own type
		{ir.Value{T: ir.Long, I: lpos}, ir.Long, "inf"},
		{ir.Value{T: ir.Long, I: lneg}, ir.Long, "-inf"},
		{ir.Value{T: ir.Double, F: 5.470181376133768}, ir.Double, "5.470181376"},
		{ir.Value{T: ir.Double, F: math.Inf(1)}, ir.Double, "inf"},
		{ir.Value{T: ir.Float, F: math.Inf(-1)}, ir.Float, "-inf"},
		{ir.Value{T: ir.Double, F: math.NaN()}, ir.Double, "nan"},
		{ir.Value{T: ir.Char, I: 'A'}, ir.Int, "A"},
	} {
		if got := ValueText(tt.v, tt.cell); got != tt.want {
			t.Errorf("ValueText(%v, %s) = %q, want %q", tt.v, tt.cell, got, tt.want)
		}
	}
}

// TestJSONValueMatchesText: every value that is not finite is the same
// string in JSON as in the text report (JSON has no infinity), whichever
// type carries it; finite values stay numbers.
func TestJSONValueMatchesText(t *testing.T) {
	pos, neg := ir.InfSentinel(ir.Int)
	lpos, _ := ir.InfSentinel(ir.Long)
	for _, tt := range []struct {
		v    ir.Value
		want any
	}{
		{ir.Value{T: ir.Char, I: 'A'}, "A"},
		{ir.Value{T: ir.Long, I: -5}, int64(-5)},
		{ir.Value{T: ir.Int, I: 7}, int64(7)},
		{ir.Value{T: ir.Double, F: 2.5}, 2.5},
		{ir.Value{T: ir.Double, F: math.Inf(1)}, "inf"},
		{ir.Value{T: ir.Double, F: math.Inf(-1)}, "-inf"},
		{ir.Value{T: ir.Float, F: math.Inf(1)}, "inf"},
		{ir.Value{T: ir.Double, F: math.NaN()}, "nan"},
		{ir.Value{T: ir.Int, I: pos}, "inf"},
		{ir.Value{T: ir.Int, I: neg}, "-inf"},
		{ir.Value{T: ir.Long, I: lpos}, "inf"},
		{ir.Value{T: ir.Long, I: pos}, pos},
	} {
		got := JSONValue(tt.v)
		if got != tt.want {
			t.Errorf("JSONValue(%v) = %#v, want %#v", tt.v, got, tt.want)
		}
		if s, ok := got.(string); ok && tt.v.T != ir.Char && s != ValueText(tt.v, tt.v.T) {
			t.Errorf("JSON %q but text %q for %v", s, ValueText(tt.v, tt.v.T), tt.v)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Errorf("JSONValue(%v) does not encode: %v", tt.v, err)
		}
	}
}

// TestPathWithoutEmit: a traceback of a file with no emit prints its cells
// in text and JSON rather than nothing.
func TestPathWithoutEmit(t *testing.T) {
	p := &ir.Problem{Name: "noemit", Rows: 3, Cols: 3, CellType: ir.Int}
	pl := &plan.Plan{Schedule: plan.Wavefront, Direction: plan.Forward, Prev: 1}
	res := &backend.Result{
		Answer: ir.Value{T: ir.Int, I: 4}, AnswerIsCell: true, AnswerI: 2, AnswerJ: 2,
		Path: [][2]int64{{0, 0}, {1, 0}, {1, 1}, {2, 2}}, Backend: "cpu",
	}
	var b strings.Builder
	Solve(&b, p, pl, res, nil, "")
	if !strings.Contains(b.String(), "path       [0][0] [1][0] [1][1] [2][2] (4 cells)") {
		t.Errorf("text lacks the path:\n%s", b.String())
	}
	out, err := json.Marshal(SolveObject(p, pl, res, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"path":[[0,0],[1,0],[1,1],[2,2]]`) || !strings.Contains(string(out), `"path_length":4`) {
		t.Errorf("JSON lacks the path: %s", out)
	}
	// A 3-D grid's cells are written [k][i][j] (the flat column i*C + j).
	p3 := &ir.Problem{Name: "lcs3", Rows: 3, Cols: 12, Dims: 3, Mid: 3, Inner: 4, CellType: ir.Int}
	res3 := &backend.Result{Answer: ir.Value{T: ir.Int, I: 2}, AnswerIsCell: true, AnswerI: 2, AnswerJ: 11,
		Path: [][2]int64{{0, 0}, {1, 5}, {2, 11}}, Backend: "cpu"}
	var b3 strings.Builder
	Solve(&b3, p3, pl, res3, nil, "")
	if !strings.Contains(b3.String(), "path       [0][0][0] [1][1][1] [2][2][3] (3 cells)") {
		t.Errorf("3-D path:\n%s", b3.String())
	}
	out3, _ := json.Marshal(SolveObject(p3, pl, res3, nil, ""))
	if !strings.Contains(string(out3), `"answer_cell":[2,2,3]`) || !strings.Contains(string(out3), `"path":[[0,0,0],[1,1,1],[2,2,3]]`) {
		t.Errorf("3-D JSON: %s", out3)
	}
	// Several tables: the cells as the user names them, on a 1-D grid and
	// a 2-D one (flat columns J = j*T + t).
	for _, tc := range []struct {
		p    *ir.Problem
		path [][2]int64
		want string
	}{
		{&ir.Problem{Name: "stock", Rows: 1, Cols: 6, Dims: 1, Tables: []string{"hold", "sold"}, CellType: ir.Int},
			[][2]int64{{0, 0}, {0, 3}, {0, 4}}, "path       hold[0] sold[1] hold[2] (3 cells)"},
		{&ir.Problem{Name: "gotoh", Rows: 2, Cols: 6, Dims: 2, Tables: []string{"X", "Y", "H"}, CellType: ir.Int},
			[][2]int64{{0, 2}, {1, 3}, {1, 5}}, "path       H[0][0] X[1][1] H[1][1] (3 cells)"},
	} {
		rt := &backend.Result{Answer: ir.Value{T: ir.Int, I: 1}, AnswerIsCell: true, AnswerI: tc.path[2][0], AnswerJ: tc.path[2][1], Path: tc.path, Backend: "cpu"}
		var bt strings.Builder
		Solve(&bt, tc.p, pl, rt, nil, "")
		if !strings.Contains(bt.String(), tc.want) {
			t.Errorf("%s: want %q in\n%s", tc.p.Name, tc.want, bt.String())
		}
		js, _ := json.Marshal(SolveObject(tc.p, pl, rt, nil, ""))
		names := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(tc.want, "path       "), " (3 cells)"))
		if !strings.Contains(string(js), `"answer_cell_text":"`+names[2]+`"`) || !strings.Contains(string(js), `"path_text":["`+strings.Join(names, `","`)+`"]`) {
			t.Errorf("%s JSON: %s", tc.p.Name, js)
		}
	}
	// Without a traceback there is no path.
	res.Path = nil
	b.Reset()
	Solve(&b, p, pl, res, nil, "")
	if strings.Contains(b.String(), "path ") {
		t.Errorf("path printed without a traceback:\n%s", b.String())
	}
}

// TestInfAnswerTextAndJSON: an infinite answer reads "inf" in both.
func TestInfAnswerTextAndJSON(t *testing.T) {
	pos, _ := ir.InfSentinel(ir.Int)
	for _, v := range []ir.Value{{T: ir.Int, I: pos}, {T: ir.Double, F: math.Inf(1)}} {
		p := &ir.Problem{Name: "x", Rows: 1, Cols: 1, CellType: v.T}
		pl := &plan.Plan{Schedule: plan.Rows, Direction: plan.Forward, Prev: 1}
		res := &backend.Result{Answer: v, Backend: "cpu"}
		var b strings.Builder
		Solve(&b, p, pl, res, nil, "")
		out, _ := json.Marshal(SolveObject(p, pl, res, nil, ""))
		if !strings.Contains(b.String(), "answer     inf\n") || !strings.Contains(string(out), `"answer":"inf"`) {
			t.Errorf("%v: text %q, JSON %s", v, b.String(), out)
		}
	}
}
