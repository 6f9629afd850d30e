package render

import (
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

func row(js ...int64) [][2]int64 {
	var path [][2]int64
	for _, j := range js {
		path = append(path, [2]int64{0, j})
	}
	return path
}

func TestLIS(t *testing.T) {
	a := []int64{3, 1, 4, 1, 5, 9, 2, 6}
	p := &ir.Problem{Name: "lis", Dims: 1, Rows: 1, Cols: 8, Inputs: []*ir.Input{intVector("a", a)}}
	text, ok := LIS(p, &backend.Result{Path: row(1, 2, 4, 5)}, nil)
	if want := "values    1 4 5 9\npositions 1 2 4 5\nlength 4"; !ok || text != want {
		t.Errorf("%v %q, want %q", ok, text, want)
	}
	for name, path := range map[string][][2]int64{
		"not increasing":   row(0, 1),
		"equal values":     row(1, 3),
		"backwards":        row(4, 2),
		"outside the grid": row(2, 8),
		"a second row":     {{1, 2}},
	} {
		if text, ok := LIS(p, &backend.Result{Path: path}, nil); ok {
			t.Errorf("%s: rendered %q", name, text)
		}
	}
}

func TestCoinChange(t *testing.T) {
	c := []int64{1, 5, 10, 25}
	p := &ir.Problem{Name: "coin-change", Dims: 1, Rows: 1, Cols: 64, Inputs: []*ir.Input{intVector("c", c)}}
	res := &backend.Result{Answer: ir.Value{T: ir.Int, I: 6}, Path: row(0, 1, 2, 3, 28, 38, 63)}
	text, ok := CoinChange(p, res, nil)
	if want := "coins 25 25 10 1 1 1\n6 coins, total 63"; !ok || text != want {
		t.Errorf("%v %q, want %q", ok, text, want)
	}
	pos, _ := ir.InfSentinel(ir.Int)
	res = &backend.Result{Answer: ir.Value{T: ir.Int, I: pos}, Path: row(1, 6)}
	if text, ok := CoinChange(p, res, nil); !ok || text != "no combination of the coins makes 6" {
		t.Errorf("impossible: %v %q", ok, text)
	}
	for name, path := range map[string][][2]int64{
		"a step no coin makes": row(0, 3, 8),
		"not from 0":           row(2, 7),
	} {
		if text, ok := CoinChange(p, &backend.Result{Answer: ir.Value{T: ir.Int, I: 2}, Path: path}, nil); ok {
			t.Errorf("%s: rendered %q", name, text)
		}
	}
}
