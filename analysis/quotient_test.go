package analysis

import (
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/internal/testrand"
	"github.com/dpgpu/dpgpu/ir"
)

// TestQuotientProduct: k * s for the variable k of a reduction `k in
// lo..q / s` is bounded by max(q, 0) where lo >= 0 and s >= 1 — the
// unbounded knapsack's copies of an item, `cell[i-1][w - k*wt[i-1]]`, stay
// inside the row. Brute force over small grids and random data, with
// divisors that may be 0 or negative and lower bounds that may be
// negative (no narrowing then, but the range must still hold every
// product), and the narrowing itself where it applies; the same for the
// read's column q - k*s, at least min(q, 0).
func TestQuotientProduct(t *testing.T) {
	r := testrand.New(t, 17)
	narrowed, inRow := 0, 0
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
		qForm, qc := r.IntN(3), int64(r.IntN(4))
		newQ := func() ir.Expr { // q, a fresh copy each call
			return []func() ir.Expr{relJ, func() ir.Expr { return relBin(ir.OpSub, relJ(), relC(qc)) }, func() ir.Expr { return relBin(ir.OpAdd, relI(), relJ()) }}[qForm]()
		}
		q := newQ()
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
		// The read's column: q - k*s, q written again.
		qAgain := newQ()
		diff := relBin(ir.OpSub, qAgain, prod)
		gotDiff := w.Range(diff, inner)
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
					if v := relEval(qAgain, i, j, d) - kv*sv; !gotDiff.Has(v) {
						t.Fatalf("grid %dx%d, d = %v, [%d][%d]: k in %s..%s, k = %d: %s = %d outside the walker's %v",
							rows, cols, d.I, i, j, relText(lo), qpText(red.Hi), kv, qpText(diff), v, gotDiff)
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
			// And q - k*s >= min(q, 0): inside the row where q >= 0.
			if qr := w.Range(q, inner); !qr.IsEmpty() && gotDiff.Lo < min(qr.Lo, 0) && gotDiff.Hi >= min(qr.Lo, 0) {
				t.Fatalf("k in %s..%s: %s in %v, want at least %d", relText(lo), qpText(red.Hi), qpText(diff), gotDiff, min(qr.Lo, 0))
			}
			if gotDiff.Lo >= 0 {
				inRow++
			}
		}
	}
	if narrowed < 300 || inRow < 100 {
		t.Errorf("only %d trials where the product narrows, %d where q - k*s is proved >= 0", narrowed, inRow)
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
		return "(" + qpText(n.Cond) + " ? " + qpText(n.Then) + " : " + qpText(n.Else) + ")"
	case *ir.Call:
		return "min(" + qpText(n.Args[0]) + ", " + qpText(n.Args[1]) + ")"
	case *ir.Binary:
		if n.Op == ir.OpDiv || n.Op == ir.OpMul || n.Op == ir.OpRem || n.Op >= ir.OpEq && n.Op <= ir.OpGe {
			return "(" + qpText(n.X) + " " + n.Op.String() + " " + qpText(n.Y) + ")"
		}
	case *ir.Var:
		if n.Kind == ir.VarReduce {
			return n.Name
		}
	}
	return fmt.Sprint(relText(e))
}

// TestAssumeRemainder: a condition on v % c (the user's j of a 3-D grid,
// J % C in sema's lowering) narrows what is known of v % c, so that the
// guard of cell[k][i][j-1] under `j == 0` false, `J % C - 1 >= 0`, is
// decided. Brute force: every J of the range where the condition holds has
// its J % c, and J % c + d, inside the walker's ranges.
func TestAssumeRemainder(t *testing.T) {
	r := testrand.New(t, 17)
	j := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarJ, Name: "J"}
	decided := 0
	for trial := 0; trial < 2000; trial++ {
		c := int64(1 + r.IntN(9))
		lo, hi := int64(r.IntN(20)), int64(r.IntN(60))
		rem := relBin(ir.OpRem, j, relC(c))
		ops := []ir.Op{ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe}
		op, v, truth := ops[r.IntN(len(ops))], int64(r.IntN(int(c)+2))-1, r.IntN(2) == 0
		cond := relBin(op, rem, relC(v))
		if r.IntN(2) == 0 {
			cond = relBin(op, relC(v), rem)
		}
		d := int64(r.IntN(5)) - 2
		shifted := relBin(ir.OpAdd, rem, relC(d))
		var w Walker
		en := w.Assume(cond, truth, NewEnv(Span(0, 3), Span(lo, hi)))
		gotRem, gotShift := w.Range(rem, en), w.Range(shifted, en)
		guard := relBin(ir.OpGe, shifted, relC(0))
		decision := w.Decide(guard, en)
		seen := false
		for x := lo; x <= hi; x++ {
			if relEval(cond, 0, x, nil) != b2i(truth) {
				continue
			}
			seen = true
			if en.IsEmpty() {
				t.Fatalf("J in %d..%d, %s == %v: the walker says no J has it; J = %d does", lo, hi, qpText(cond), truth, x)
			}
			m := x % c
			if !gotRem.Has(m) || !gotShift.Has(m+d) {
				t.Fatalf("J in %d..%d, %s == %v, J = %d: J %% %d = %d, walker %v; + %d: walker %v", lo, hi, qpText(cond), truth, x, c, m, gotRem, d, gotShift)
			}
			if (decision == True && m+d < 0) || (decision == False && m+d >= 0) {
				t.Fatalf("J in %d..%d, %s == %v, J = %d: J %% %d + %d >= 0 decided %v", lo, hi, qpText(cond), truth, x, c, d, decision)
			}
		}
		if seen && decision != Unknown {
			decided++
		}
	}
	if decided < 200 {
		t.Errorf("only %d guards decided", decided)
	}
	// The 3-D lowering's case: `J % 7 == 0` false decides `J % 7 - 1 >= 0`.
	var w Walker
	en := w.Assume(relBin(ir.OpEq, relBin(ir.OpRem, j, relC(7)), relC(0)), false, NewEnv(Span(0, 9), Span(0, 48)))
	if got := w.Decide(relBin(ir.OpGe, relBin(ir.OpSub, relBin(ir.OpRem, j, relC(7)), relC(1)), relC(0)), en); got != True {
		t.Errorf("J %% 7 - 1 >= 0 under J %% 7 != 0: %v, want True", got)
	}
}
