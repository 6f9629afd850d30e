package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

func TestConvert(t *testing.T) {
	i32, _ := ir.InfSentinel(ir.Int)
	l64, _ := ir.InfSentinel(ir.Long)
	cases := []struct {
		in   ir.Value
		to   ir.Type
		want ir.Value
	}{
		{ir.Value{T: ir.Int, I: i32}, ir.Long, ir.Value{T: ir.Long, I: l64}},
		{ir.Value{T: ir.Int, I: -i32}, ir.Long, ir.Value{T: ir.Long, I: -l64}},
		{ir.Value{T: ir.Long, I: l64}, ir.Int, ir.Value{T: ir.Int, I: i32}},
		{ir.Value{T: ir.Int, I: 5}, ir.Long, ir.Value{T: ir.Long, I: 5}},
		{ir.Value{T: ir.Char, I: 127}, ir.Int, ir.Value{T: ir.Int, I: 127}}, // char has no inf
		{ir.Value{T: ir.Long, I: l64}, ir.Double, ir.Value{T: ir.Double, F: math.Inf(1)}},
		{ir.Value{T: ir.Double, F: math.Inf(-1)}, ir.Int, ir.Value{T: ir.Int, I: -i32}},
		{ir.Value{T: ir.Double, F: 2.7}, ir.Int, ir.Value{T: ir.Int, I: 2}},
		{ir.Value{T: ir.Double, F: -2.7}, ir.Long, ir.Value{T: ir.Long, I: -2}},
		{ir.Value{T: ir.Double, F: 0.1}, ir.Float, ir.Value{T: ir.Float, F: float64(float32(0.1))}},
		{ir.Value{T: ir.Int, I: 16777217}, ir.Float, ir.Value{T: ir.Float, F: 16777216}},
	}
	for _, c := range cases {
		got, err := Convert(c.in, c.to)
		if err != nil || got != c.want {
			t.Errorf("Convert(%+v, %s) = %+v, %v; want %+v", c.in, c.to, got, err, c.want)
		}
	}
	if _, err := Convert(ir.Value{T: ir.Double, F: math.NaN()}, ir.Int); err == nil {
		t.Errorf("NaN to int: no error")
	}
}

func TestSaturation(t *testing.T) {
	pos, neg := ir.InfSentinel(ir.Int)
	for _, c := range []struct {
		x, y, add, sub int64
	}{
		{pos, 5, pos, pos},
		{5, pos, pos, neg},
		{neg, 5, neg, neg},
		{5, neg, neg, pos},
		{pos, neg, pos, pos},
		{3, 4, 7, -1},
	} {
		if got := addSat(c.x, c.y, pos, neg); got != c.add {
			t.Errorf("%d + %d = %d, want %d", c.x, c.y, got, c.add)
		}
		if got := subSat(c.x, c.y, pos, neg); got != c.sub {
			t.Errorf("%d - %d = %d, want %d", c.x, c.y, got, c.sub)
		}
	}
}

// TestEvalAnswers evaluates answer expressions the way the executors do.
func TestEvalAnswers(t *testing.T) {
	src := `int 1x3 A = 4,-7,2
double s = 1.5
3 x 3
cell[i][j] = i * 3 + j
answer: %s
`
	grid := func(i, j int64) ir.Value { return ir.Value{T: ir.Int, I: i*3 + j} }
	cells := GridCells(3, 3, grid)
	for _, c := range []struct {
		expr string
		want float64
	}{
		{"cell[2][2]", 8},
		{"s * cell[1][1]", 6},
		{"sum(i in 0..2: sum(j in 0..2: cell[i][j]))", 36},
		{"max(i in 0..2: cell[i][0] - i * i)", 2},
		{"min(k in 1..0: cell[0][k])", float64(math.MaxInt32)}, // empty: inf
		{"A[1] / 2 + A[1] % 2", -4},                            // C truncation: -3 + -1
		{"cell[1][2] > 4 && A[0] > 3 ? 1 : 0", 1},
		{"inf + cell[0][1]", float64(math.MaxInt32)},
		{"-inf - 5", -float64(math.MaxInt32)},
		{"abs(A[1]) + pow(2, 3) + floor(-1.5) + ceil(1.2)", 7 + 8 - 2 + 2},
	} {
		p, _ := load(t, "a.dp", strings.Replace(src, "%s", c.expr, 1))
		v, err := Eval(p.Answer, cells)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if v.Float64() != c.want {
			t.Errorf("%s = %v, want %v", c.expr, v, c.want)
		}
	}
	// A read outside the grid names the reference and the cell.
	p, _, _ := tryLoad("a.dp", strings.Replace(src, "%s", "cell[2][1] + cell[3][0]", 1)) // the plan refuses it
	_, err := Eval(p.Answer, cells)
	if err == nil || !strings.Contains(err.Error(), "a.dp:5:22: cell[3][0] reads cell[3][0], outside the 3x3 grid") {
		t.Errorf("error %v", err)
	}
	p, _ = load(t, "a.dp", strings.Replace(src, "%s", "A[0] / (cell[0][0] * 2)", 1))
	if _, err := EvalAt(p.Answer, 0, 0, nil); err == nil || !strings.Contains(err.Error(), "no grid") {
		t.Errorf("no cells: %v", err)
	}
	if _, err := Eval(p.Answer, cells); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("division by zero: %v", err)
	}
}
