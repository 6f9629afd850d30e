package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

// TestRelationsAreSound checks the relations the walker keeps (relFact)
// against brute force: random conditions between i, j, reads of data and
// constants, assumed true or false over a small grid; at every cell where
// the condition has that value, a random difference must lie in the range
// the walker gives for it, a reduction it calls non-empty must be so, and
// an Env it calls empty must have no such cell. A range that misses a value
// is a check left out of generated code: a silent wrong answer.
func TestRelationsAreSound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	checked := 0
	for trial := 0; trial < 40000; trial++ {
		d := &ir.Input{Name: "d", T: ir.Int, Rows: 1, Cols: 8, Vector: true, I: make([]int64, 8)}
		for k := range d.I {
			d.I[k] = int64(r.IntN(16)) - 5
		}
		bounds := NewInputBounds(&ir.Problem{Inputs: []*ir.Input{d}})
		rows, cols := int64(1+r.IntN(8)), int64(1+r.IntN(8))
		// Half the trials relate i and j alone, where relations between
		// two index variables (and != holes) decide most.
		kinds := 5
		if trial%2 == 1 {
			kinds = 2
		}
		atom := func() ir.Expr {
			if r.IntN(6) == 0 {
				// j % c or i % c: facts of remainders (a 3-D grid's j).
				v := relJ()
				if r.IntN(2) == 0 {
					v = relI()
				}
				return relBin(ir.OpRem, v, relC(int64(1+r.IntN(4))))
			}
			switch r.IntN(kinds) {
			case 0:
				return relI()
			case 1:
				return relJ()
			case 2:
				return &ir.Load{Node: ir.Node{T: ir.Int}, In: d, Index: []ir.Expr{relI()}}
			case 3:
				return &ir.Load{Node: ir.Node{T: ir.Int}, In: d, Index: []ir.Expr{relJ()}}
			}
			return relC(int64(r.IntN(9)) - 3)
		}
		expr := func() ir.Expr {
			switch r.IntN(5) {
			case 0:
				return atom()
			case 3:
				return relBin(ir.OpAdd, atom(), relBin(ir.OpAdd, atom(), relC(int64(r.IntN(7))-3)))
			case 1:
				return relBin(ir.OpSub, atom(), atom())
			case 2:
				return relBin(ir.OpAdd, atom(), relC(int64(r.IntN(7))-3))
			}
			return relBin(ir.OpAdd, relBin(ir.OpSub, atom(), atom()), relC(int64(r.IntN(7))-3))
		}
		ops := []ir.Op{ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe}
		cmp := func() ir.Expr { return relBin(ops[r.IntN(len(ops))], expr(), expr()) }
		cond := cmp()
		for n := r.IntN(3); n > 0; n-- {
			cond = &ir.Binary{Node: ir.Node{T: ir.Bool}, Op: ir.OpAnd, X: cond, Y: cmp()}
		}
		truth := r.IntN(2) == 0
		target := relBin(ir.OpSub, expr(), expr())
		k := &ir.Var{Node: ir.Node{T: ir.Int}, Kind: ir.VarReduce, Name: "k"}
		red := &ir.Reduce{Node: ir.Node{T: ir.Int}, Op: ir.ReduceMin, Var: k, Lo: expr(), Hi: expr(), Body: k}
		for _, fail := range []Failure{Stops, Wraps} {
			w := Walker{Config: Config{Failure: fail, Refine: true, Input: bounds.Load}}
			en := w.Assume(cond, truth, NewEnv(Span(0, rows-1), Span(0, cols-1)))
			got := w.Range(target, en)
			nonEmpty := w.NonEmpty(red, en)
			for i := int64(0); i < rows; i++ {
				for j := int64(0); j < cols; j++ {
					if relEval(cond, i, j, d) != b2i(truth) {
						continue
					}
					checked++
					what := fmt.Sprintf("%v, grid %dx%d, d = %v, under %s == %v at [%d][%d]", fail, rows, cols, d.I, relText(cond), truth, i, j)
					if en.IsEmpty() {
						t.Fatalf("%s: the walker says no cell has it", what)
					}
					if v := relEval(target, i, j, d); !got.Has(v) {
						t.Fatalf("%s: %s = %d, outside the walker's %v", what, relText(target), v, got)
					}
					if nonEmpty && relEval(red.Lo, i, j, d) > relEval(red.Hi, i, j, d) {
						t.Fatalf("%s: %s..%s is empty, the walker says not", what, relText(red.Lo), relText(red.Hi))
					}
				}
			}
		}
	}
	if checked < 100000 {
		t.Errorf("only %d cells checked", checked)
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// relEval evaluates the test's expressions exactly.
func relEval(e ir.Expr, i, j int64, d *ir.Input) int64 {
	switch n := e.(type) {
	case *ir.Const:
		return n.V.I
	case *ir.Var:
		if n.Kind == ir.VarI {
			return i
		}
		return j
	case *ir.Load:
		return d.I[relEval(n.Index[0], i, j, d)]
	case *ir.Binary:
		x, y := relEval(n.X, i, j, d), relEval(n.Y, i, j, d)
		switch n.Op {
		case ir.OpAdd:
			return x + y
		case ir.OpSub:
			return x - y
		case ir.OpRem:
			return x % y
		case ir.OpEq:
			return b2i(x == y)
		case ir.OpNe:
			return b2i(x != y)
		case ir.OpLt:
			return b2i(x < y)
		case ir.OpLe:
			return b2i(x <= y)
		case ir.OpGt:
			return b2i(x > y)
		case ir.OpGe:
			return b2i(x >= y)
		case ir.OpAnd:
			return b2i(x != 0 && y != 0)
		}
	}
	panic(fmt.Sprintf("relEval: %T", e))
}

// relText writes the test's expressions for messages.
func relText(e ir.Expr) string {
	switch n := e.(type) {
	case *ir.Const:
		return fmt.Sprint(n.V.I)
	case *ir.Var:
		if n.Kind == ir.VarI {
			return "i"
		}
		return "j"
	case *ir.Load:
		return "d[" + relText(n.Index[0]) + "]"
	case *ir.Binary:
		return "(" + relText(n.X) + " " + n.Op.String() + " " + relText(n.Y) + ")"
	}
	return "?"
}
