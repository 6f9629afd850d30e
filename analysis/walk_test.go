package analysis

import (
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

type factLog struct {
	known []Tri
	sides []bool
}

func (l *factLog) Proven(ir.Expr, bool)                           {}
func (l *factLog) Sides(_ ir.Expr, _ Range, _ ir.Type, safe bool) { l.sides = append(l.sides, safe) }
func (l *factLog) Known(_ ir.Expr, t Tri)                         { l.known = append(l.known, t) }

func TestWalker(t *testing.T) {
	i := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarI, Name: "i"}
	c := func(v int64) ir.Expr { return &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Int, I: v}} }
	bin := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: ir.Int}, Op: op, X: x, Y: y}
	}
	cmp := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: ir.Bool}, Op: op, X: x, Y: y}
	}
	sel := func(cond, x, y ir.Expr) ir.Expr {
		return &ir.Select{Node: ir.Node{T: ir.Int}, Cond: cond, Then: x, Else: y}
	}
	grid := func(lo, hi int64) Env { return NewEnv(Span(lo, hi), Span(0, 9)) }
	big := ir.ArithMax(ir.Int)

	// Deciding conditions over a region.
	var w Walker
	for _, tc := range []struct {
		lo, hi int64
		want   Tri
	}{{1, 5, False}, {0, 0, True}, {0, 5, Unknown}} {
		if got := w.Decide(cmp(ir.OpEq, i, c(0)), grid(tc.lo, tc.hi)); got != tc.want {
			t.Errorf("i == 0 over [%d, %d]: %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
	// A condition whose evaluation may fail is never decided, though its
	// value is known whenever it has one.
	overflow := cmp(ir.OpGt, bin(ir.OpAdd, i, c(big)), c(0))
	if got := w.Decide(overflow, grid(1, 5)); got != Unknown {
		t.Errorf("i + max > 0 decided %v, want Unknown", got)
	}
	// Failures that stop the run bound what follows; wrapped ones do not.
	sum := bin(ir.OpAdd, i, c(big))
	if got := w.Range(sum, grid(0, 5)); got != Span(big, big) {
		t.Errorf("stops: i + max = %v, want [max, max]", got)
	}
	gpu := Walker{Config: Config{Failure: Wraps}}
	if got, in := gpu.Range(sum, grid(0, 5)), ir.Int.Info(); got != Span(in.Min, in.Max) {
		t.Errorf("wraps: i + max = %v, want every int", got)
	}
	// Refinement narrows the branches of ?:.
	ref := Walker{Config: Config{Failure: Wraps, Refine: true}}
	e := sel(cmp(ir.OpLt, i, c(3)), i, c(7))
	if got := ref.Range(e, grid(0, 9)); got != Span(0, 7) {
		t.Errorf("refined i < 3 ? i : 7 = %v, want [0, 7]", got)
	}
	if got := w.Range(e, grid(0, 9)); got != Span(0, 9) {
		t.Errorf("unrefined i < 3 ? i : 7 = %v, want [0, 9]", got)
	}
	if got := ref.Assume(cmp(ir.OpLt, i, c(3)), false, grid(0, 9)).I; got != Span(3, 9) {
		t.Errorf("i under !(i < 3) = %v, want [3, 9]", got)
	}
	if !ref.Assume(cmp(ir.OpGt, i, c(20)), true, grid(0, 9)).IsEmpty() {
		t.Error("i > 20 over [0, 9] should leave an empty env")
	}
	// The recorder sees the facts in order.
	var log factLog
	rw := Walker{Config: Config{Rec: &log}}
	rw.Walk(sel(cmp(ir.OpEq, i, c(0)), bin(ir.OpAdd, i, c(1)), sum), grid(1, 5))
	if len(log.known) != 1 || log.known[0] != False || len(log.sides) != 2 || !log.sides[0] || log.sides[1] {
		t.Errorf("facts: known %v, sides %v; want [False], [true false]", log.known, log.sides)
	}
}

// The relation tests' expressions: fresh nodes for i, j (every use its
// own, as sema makes them), constants and binary operations.
func relI() ir.Expr { return &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarI, Name: "i"} }
func relJ() ir.Expr { return &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarJ, Name: "j"} }
func relC(v int64) ir.Expr {
	return &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Int, I: v}}
}
func relBin(op ir.Op, x, y ir.Expr) ir.Expr {
	t := ir.Int
	if op >= ir.OpEq && op <= ir.OpGe {
		t = ir.Bool
	}
	return &ir.Binary{Node: ir.Node{T: t}, Op: op, X: x, Y: y}
}

// Under a comparison of an index variable with a read of data, their
// difference keeps the comparison's sign (the bound a knapsack's `cell[i-1][w
// - wt[i-1]]` needs under `wt[i-1] <= w`) — in another spelling of the same
// read too, and only where the subtraction cannot wrap.
func TestWalkerRelations(t *testing.T) {
	i, j, c, bin := relI, relJ, relC, relBin
	wt := &ir.Input{Name: "wt", T: ir.Int, Rows: 1, Cols: 3, Vector: true, I: []int64{4, 9, 7}}
	load := func() ir.Expr {
		return &ir.Load{Node: ir.Node{T: ir.Int}, In: wt, Index: []ir.Expr{bin(ir.OpSub, i(), c(1))}}
	}
	bounds := NewInputBounds(&ir.Problem{Inputs: []*ir.Input{wt}})
	grid := NewEnv(Span(1, 3), Span(0, 20))
	diff := bin(ir.OpSub, j(), load()) // w - wt[i-1]
	for _, tc := range []struct {
		name  string
		fail  Failure
		input bool
		cond  ir.Expr
		truth bool
		want  Range
	}{
		{"wt<=w", Stops, true, bin(ir.OpLe, load(), j()), true, Span(0, 16)},
		{"w>=wt", Stops, true, bin(ir.OpGe, j(), load()), true, Span(0, 16)},
		{"wt<w", Stops, true, bin(ir.OpLt, load(), j()), true, Span(1, 16)},
		{"!(w<wt)", Stops, true, bin(ir.OpLt, j(), load()), false, Span(0, 16)},
		{"w<wt", Stops, true, bin(ir.OpLt, j(), load()), true, Span(-9, -1)},
		{"wraps, bounded data", Wraps, true, bin(ir.OpLe, load(), j()), true, Span(0, 16)},
		{"other read", Stops, true, bin(ir.OpLe, bin(ir.OpAdd, load(), c(0)), j()), true, Span(-5, 16)},
		// Without the data's bounds the difference may wrap on a GPU: no
		// relation; where failures stop the run it holds.
		{"wraps, any data", Wraps, false, bin(ir.OpLe, load(), j()), true, Range{ir.Int.Info().Min, ir.Int.Info().Max}},
		{"stops, any data", Stops, false, bin(ir.OpLe, load(), j()), true, Span(0, ir.ArithMax(ir.Int))},
	} {
		w := Walker{Config: Config{Failure: tc.fail, Refine: true}}
		if tc.input {
			w.Input = bounds.Load
		}
		en := w.Assume(tc.cond, tc.truth, grid)
		if got := w.Range(diff, en); got != tc.want {
			t.Errorf("%s: w - wt[i-1] = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A relation known on one branch only is lost where they join.
	w := Walker{Config: Config{Failure: Stops, Refine: true, Input: bounds.Load}}
	yes := w.Assume(bin(ir.OpLe, load(), j()), true, grid)
	if got := w.Range(diff, envHull(yes, grid)); got.Lo >= 0 {
		t.Errorf("after a join: w - wt[i-1] = %v, want a negative lower bound", got)
	}
}

// Relations between the grid's variables: under !(j - i <= 3) every
// reference to a neighbour of (i, j) stays in a 10 x 10 grid, and under
// !(i >= j) a min over i..j-1 is never empty (so never inf).
func TestWalkerVarRelations(t *testing.T) {
	i, j, c, bin := relI, relJ, relC, relBin
	grid := NewEnv(Span(0, 9), Span(0, 9))
	w := Walker{Config: Config{Failure: Stops, Refine: true}}
	en := w.Assume(bin(ir.OpLe, bin(ir.OpSub, j(), i()), c(3)), false, grid)
	if en.I != Span(0, 5) || en.J != Span(4, 9) {
		t.Errorf("under j - i > 3: i in %v, j in %v; want [0, 5], [4, 9]", en.I, en.J)
	}
	if got := w.Range(bin(ir.OpSub, bin(ir.OpSub, j(), c(1)), bin(ir.OpAdd, i(), c(1))), en); got.Lo != 2 {
		t.Errorf("under j - i > 3: (j-1) - (i+1) = %v, want at least 2", got)
	}
	k := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarReduce, Name: "k"}
	red := &ir.Reduce{Node: ir.Node{T: ir.Int}, Op: ir.ReduceMin, Var: k, Lo: i(), Hi: bin(ir.OpSub, j(), c(1)), Body: k}
	lt := w.Assume(bin(ir.OpGe, i(), j()), false, grid)
	if got := w.Range(red, lt); got != Span(0, 8) {
		t.Errorf("min(k in i..j-1: k) under i < j = %v, want [0, 8] (never empty)", got)
	}
	// The same from !(i == j) and !(i > j), in that order: a hole, then
	// a range that reaches it.
	ne := w.Assume(bin(ir.OpGt, i(), j()), false, w.Assume(bin(ir.OpEq, i(), j()), false, grid))
	if got := w.Range(red, ne); got != Span(0, 8) || !w.NonEmpty(red, ne) {
		t.Errorf("min(k in i..j-1: k) under i != j, i <= j = %v, want [0, 8] (never empty)", got)
	}
	if inf, _ := ir.ArithSentinels(ir.Int); !w.Range(red, grid).Has(inf) {
		got := w.Range(red, grid)
		t.Errorf("min(k in i..j-1: k) anywhere = %v, want inf among its values (may be empty)", got)
	}
}

// Where arithmetic wraps (a GPU sweep after a failure), a difference that
// can leave its type says nothing of the mathematical one: no relation.
func TestWalkerRelationsNeedExactDifferences(t *testing.T) {
	d := &ir.Input{Name: "d", T: ir.Int, Rows: 1, Cols: 2, Vector: true, I: []int64{-2147483640, 0}}
	bounds := NewInputBounds(&ir.Problem{Inputs: []*ir.Input{d}})
	ld := &ir.Load{Node: ir.Node{T: ir.Int}, In: d, Index: []ir.Expr{relI()}}
	cond := relBin(ir.OpLe, relBin(ir.OpSub, relJ(), ld), relC(3)) // j - d[i] <= 3
	grid := NewEnv(Span(0, 1), Span(0, 100))
	for _, tc := range []struct {
		fail Failure
		want bool // whether j - d[i] <= 3 is known after it
	}{{Stops, true}, {Wraps, false}} {
		w := Walker{Config: Config{Failure: tc.fail, Refine: true, Input: bounds.Load}}
		en := w.Assume(cond, true, grid)
		_, known := en.relOf(relJ().(*ir.Var), ld)
		if known != tc.want {
			t.Errorf("%v: relation of j and d[i] known %v, want %v", tc.fail, known, tc.want)
		}
	}
}

// TestAssumeQuotient: a condition on v / c (the user's column of a
// recurrence of several tables, J / T) narrows v.
func TestAssumeQuotient(t *testing.T) {
	j := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarJ, Name: "J"}
	c := func(v int64) ir.Expr { return &ir.Const{Node: ir.Node{T: ir.Int}, V: ir.Value{T: ir.Int, I: v}} }
	q := &ir.Binary{Node: ir.Node{T: ir.Int}, Op: ir.OpDiv, X: j, Y: c(3)}
	cmp := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: ir.Bool}, Op: op, X: x, Y: y}
	}
	var w Walker
	for _, tc := range []struct {
		name   string
		cond   ir.Expr
		truth  bool
		lo, hi int64
		want   Range
	}{
		{"J/3 == 0 false", cmp(ir.OpEq, q, c(0)), false, 0, 100, Span(3, 100)},
		{"J/3 == 2", cmp(ir.OpEq, q, c(2)), true, 0, 100, Span(6, 8)},
		{"J/3 < 5", cmp(ir.OpLt, q, c(5)), true, 0, 100, Span(0, 14)},
		{"J/3 > 4", cmp(ir.OpGt, q, c(4)), true, 0, 100, Span(15, 100)},
		{"33 != J/3", cmp(ir.OpNe, c(33), q), true, 0, 100, Span(0, 98)},
		{"J/3 <= 2 false", cmp(ir.OpLe, q, c(2)), false, 0, 100, Span(9, 100)},
		{"negative J: nothing", cmp(ir.OpEq, q, c(0)), false, -5, 100, Span(-5, 100)},
	} {
		en := w.Assume(tc.cond, tc.truth, NewEnv(Span(0, 9), Span(tc.lo, tc.hi)))
		if got := en.Lookup(j); got != tc.want {
			t.Errorf("%s: J in %v, want %v", tc.name, got, tc.want)
		}
	}
}
