package analysis

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

// TestQuotientProduct: k * s for the variable k of a reduction `k in
// lo..q / s` is bounded by max(q, 0) where lo >= 0 and s >= 1 — the
// unbounded knapsack's copies of an item, `cell[i-1][w - k*wt[i-1]]`, stay
// inside the row. Brute force over small grids and random data, with
// divisors that may be 0 or negative and lower bounds that may be
// negative (no narrowing then, but the range must still hold every
// product), and the narrowing itself where it applies.
func TestQuotientProduct(t *testing.T) {
	r := testRand(t)
	narrowed := 0
	for trial := 0; trial < 3000; trial++ {
		d := &ir.Input{Name: "d", T: ir.Int, Rows: 1, Cols: 8, Vector: true, I: make([]int64, 8)}
		lowest := int64(r.IntN(3)) - 1 // data from -1, 0 or 1 up
		for k := range d.I {
			d.I[k] = lowest + int64(r.IntN(6))
		}
		bounds := NewInputBounds(&ir.Problem{Inputs: []*ir.Input{d}})
		rows, cols := int64(1+r.IntN(8)), int64(1+r.IntN(8))
		// s gives fresh nodes of one expression, as the user writes it
		// twice: the data d[i] or a constant.
		sConst := int64(r.IntN(4)) + 1
		s := []func() ir.Expr{
			func() ir.Expr { return &ir.Load{Node: ir.Node{T: ir.Int}, In: d, Index: []ir.Expr{relI()}} },
			func() ir.Expr { return relC(sConst) },
		}[r.IntN(2)]
		q := []ir.Expr{relJ(), relBin(ir.OpSub, relJ(), relC(int64(r.IntN(4)))), relBin(ir.OpAdd, relI(), relJ())}[r.IntN(3)]
		lo := relC(int64(r.IntN(3)) - 1)
		k := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarReduce, Name: "k"}
		// The bound: q / s, min(c, q / s), or the bounded knapsack's
		// s == 0 ? c : min(c, q / s) (no division where s is 0).
		c := relC(int64(r.IntN(5)))
		var hiExpr ir.Expr = relBin(ir.OpDiv, q, s())
		switch form := r.IntN(3); {
		case form >= 1:
			hiExpr = &ir.Call{Node: ir.Node{T: ir.Int}, Fn: ir.FnMin, Args: []ir.Expr{c, hiExpr}}
			if form == 2 {
				hiExpr = &ir.Select{Node: ir.Node{T: ir.Int}, Cond: relBin(ir.OpEq, s(), relC(0)), Then: c, Else: hiExpr}
			}
		}
		red := &ir.Reduce{Node: ir.Node{T: ir.Int}, Op: ir.ReduceMax, Var: k, Lo: lo, Hi: hiExpr}
		k.Reduce = red
		prod := relBin(ir.OpMul, k, s())
		if r.IntN(2) == 0 {
			prod = relBin(ir.OpMul, s(), k)
		}
		w := Walker{Config: Config{Failure: Stops, Refine: true, Input: bounds.Load}}
		inner := w.BodyEnv(red, NewEnv(Span(0, rows-1), Span(0, cols-1)))
		got := w.Range(prod, inner)
		for i := int64(0); i < rows; i++ {
			for j := int64(0); j < cols; j++ {
				sv := qpEval(s(), i, j, d)
				hi, ok := qpBound(red.Hi, i, j, d)
				if !ok {
					continue // the bound divides by zero: the run stops
				}
				for kv := lo.(*ir.Const).V.I; kv <= hi; kv++ {
					if v := kv * sv; !got.Has(v) {
						t.Fatalf("grid %dx%d, d = %v, [%d][%d]: k in %s..%s, k = %d: %s = %d outside the walker's %v",
							rows, cols, d.I, i, j, relText(lo), qpText(red.Hi), kv, qpText(prod), v, got)
					}
				}
			}
		}
		if lo.(*ir.Const).V.I >= 0 {
			// Narrowed: at most the largest q (cols-1 + the rest of q).
			want := max(w.Range(q, inner).Hi, 0)
			if got.Hi > want && got.Lo <= want { // (Lo > want: no k at all)
				t.Fatalf("k in %s..%s: %s in %v, want at most %d", relText(lo), qpText(red.Hi), qpText(prod), got, want)
			}
			narrowed++
		}
	}
	if narrowed < 300 {
		t.Errorf("only %d trials where the product narrows", narrowed)
	}
}

// qpBound evaluates a bound of the test; ok is false where it divides by
// zero.
func qpBound(e ir.Expr, i, j int64, d *ir.Input) (int64, bool) {
	switch n := e.(type) {
	case *ir.Select:
		if relEval(n.Cond, i, j, d) != 0 {
			return qpBound(n.Then, i, j, d)
		}
		return qpBound(n.Else, i, j, d)
	case *ir.Call:
		a, ok1 := qpBound(n.Args[0], i, j, d)
		b, ok2 := qpBound(n.Args[1], i, j, d)
		return min(a, b), ok1 && ok2
	case *ir.Binary:
		if n.Op == ir.OpDiv {
			y := relEval(n.Y, i, j, d)
			if y == 0 {
				return 0, false
			}
			return relEval(n.X, i, j, d) / y, true
		}
	}
	return relEval(e, i, j, d), true
}

func qpEval(e ir.Expr, i, j int64, d *ir.Input) int64 {
	if b, ok := e.(*ir.Binary); ok && b.Op == ir.OpDiv {
		return qpEval(b.X, i, j, d) / qpEval(b.Y, i, j, d)
	}
	return relEval(e, i, j, d)
}

func qpText(e ir.Expr) string {
	switch n := e.(type) {
	case *ir.Select:
		return "(" + relText(n.Cond) + " ? " + qpText(n.Then) + " : " + qpText(n.Else) + ")"
	case *ir.Call:
		return "min(" + qpText(n.Args[0]) + ", " + qpText(n.Args[1]) + ")"
	case *ir.Binary:
		if n.Op == ir.OpDiv || n.Op == ir.OpMul {
			return "(" + qpText(n.X) + " " + n.Op.String() + " " + qpText(n.Y) + ")"
		}
	case *ir.Var:
		if n.Kind == ir.VarReduce {
			return n.Name
		}
	}
	return fmt.Sprint(relText(e))
}

// testRand is a source seeded afresh each run, or from $DPGPU_SEED to
// repeat a failure (internal/dptest has the same, but imports this
// package through the engine).
func testRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("DPGPU_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("DPGPU_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (set DPGPU_SEED=%d to repeat)", seed, seed)
	return rand.New(rand.NewPCG(seed, 17))
}
