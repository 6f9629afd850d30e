package eval

import (
	"math"

	"github.com/dpgpu/dpgpu/ir"
)

// This file compiles an expression into a tree of typed Go closures that
// evaluate it for one cell. The batch kernels use them for what does not
// vary along a batch (computed once per batch) and as the per-cell fallback
// for what cannot be vectorised (a reduction whose bounds vary from cell to
// cell, a case that reads the cell just computed in a way no scan kernel
// covers).

// frame is the state of one scalar evaluation: the cell, the reduction
// variables (by slot), where cells are read from, and the first error.
type frame struct {
	i, j  int64
	lane  int      // the lane of the batch being evaluated
	m     *Machine // the machine running the batch, if any
	vars  []int64
	cells cellReader
	err   error
}

// cellReader reads a cell of the grid for the closures; it checks the grid
// bounds and reports errors positioned at ref.
type cellReader interface {
	cellInt(ref *ir.CellRef, i, j int64) (int64, error)
	cellFloat(ref *ir.CellRef, i, j int64) (float64, error)
}

// site is the cell being evaluated, for messages.
func (f *frame) site() site { return cellSite(f.i, f.j) }

func (f *frame) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

type (
	iFn func(*frame) int64
	fFn func(*frame) float64
	bFn func(*frame) bool
)

// scope is the reductions enclosing the node being compiled, innermost
// last, and the frame slot of each one's variable.
type scope struct {
	slots map[*ir.Reduce]int
	stack []*ir.Reduce
}

// resolve finds the reduction that binds v, or nil for i and j.
func (s *scope) resolve(v *ir.Var) *ir.Reduce {
	if v.Reduce != nil {
		return v.Reduce
	}
	for k := len(s.stack) - 1; k >= 0; k-- {
		if boundBy(v, s.stack[k]) {
			return s.stack[k]
		}
	}
	return nil
}

func (s *scope) push(r *ir.Reduce) { s.stack = append(s.stack, r) }
func (s *scope) pop()              { s.stack = s.stack[:len(s.stack)-1] }

// assignSlots gives every reduction in e a frame slot.
func assignSlots(e ir.Expr, slots map[*ir.Reduce]int) {
	ir.Walk(e, func(x ir.Expr) bool {
		if r, ok := x.(*ir.Reduce); ok {
			if _, seen := slots[r]; !seen {
				slots[r] = len(slots)
			}
		}
		return true
	})
}

// scomp compiles closures. The first error (an IR the compiler does not
// accept) is kept in err; the closures returned meanwhile are placeholders.
type scomp struct {
	sc  *scope
	err error
	// leaf, when set, may compile a node itself (returning an iFn, fFn or
	// bFn as the node's class says, or nil to let the compiler do it): the
	// batch kernels use it to read values computed for the whole batch.
	leaf func(e ir.Expr) any
}

func (c *scomp) bad(e ir.Expr, what string) {
	if c.err == nil {
		c.err = errAt(e.Position(), "internal error: %s", what)
	}
}

func (c *scomp) intFn(e ir.Expr) iFn {
	if c.leaf != nil {
		if f, ok := c.leaf(e).(iFn); ok && f != nil {
			return f
		}
	}
	if classOf(e.Type()) != clInt {
		if classOf(e.Type()) == clBool {
			b := c.boolFn(e)
			return func(f *frame) int64 { return b2i(b(f)) }
		}
		c.bad(e, "floating expression where an integer is needed")
		return func(*frame) int64 { return 0 }
	}
	t := e.Type()
	switch n := e.(type) {
	case *ir.Const:
		v := constValue(n).I
		return func(*frame) int64 { return v }
	case *ir.Inf:
		v := infValue(t, n.Neg).I
		return func(*frame) int64 { return v }
	case *ir.ScalarRef:
		v := n.Scalar.Value.I
		return func(*frame) int64 { return v }
	case *ir.Var:
		if r := c.sc.resolve(n); r != nil {
			slot, ok := c.sc.slots[r]
			if !ok {
				c.bad(e, "reduction variable without a slot")
			}
			return func(f *frame) int64 { return f.vars[slot] }
		}
		switch n.Kind {
		case ir.VarI:
			return func(f *frame) int64 { return f.i }
		case ir.VarJ:
			return func(f *frame) int64 { return f.j }
		}
		c.bad(e, "unbound variable "+n.Name)
		return func(*frame) int64 { return 0 }
	case *ir.Load:
		if n.In.T.IsFloat() {
			c.bad(e, "integer load of a floating input")
			return func(*frame) int64 { return 0 }
		}
		return c.loadInt(n)
	case *ir.CellRef:
		fi, fj := c.intFn(n.I), c.intFn(n.J)
		return func(f *frame) int64 {
			i, j := fi(f), fj(f)
			v, err := f.cells.cellInt(n, i, j)
			if err != nil {
				f.fail(err)
			}
			return v
		}
	case *ir.Unary:
		x := c.intFn(n.X)
		return func(f *frame) int64 { return -x(f) }
	case *ir.Binary:
		return c.binaryInt(n)
	case *ir.Select:
		cond, a, b := c.boolFn(n.Cond), c.intFn(n.Then), c.intFn(n.Else)
		return func(f *frame) int64 {
			if cond(f) {
				return a(f)
			}
			return b(f)
		}
	case *ir.Convert:
		from := n.X.Type()
		switch classOf(from) {
		case clBool:
			x := c.boolFn(n.X)
			return func(f *frame) int64 { return b2i(x(f)) }
		case clFloat:
			x := c.floatFn(n.X)
			return func(f *frame) int64 {
				a := x(f)
				v, fl := floatToInt(a, t)
				if fl != fNone {
					f.fail(floatConvErr(n.Pos, f.site(), fl, a, t))
				}
				return v
			}
		}
		x := c.intFn(n.X)
		if from == t || !(hasSentinel(from) && hasSentinel(t)) && t != ir.Bool {
			return x
		}
		return func(f *frame) int64 {
			a := x(f)
			v, fl := convInt(a, from, t)
			if fl != fNone {
				f.fail(convIntErr(n.Pos, f.site(), a, t))
			}
			return v
		}
	case *ir.Call:
		return c.callInt(n)
	case *ir.Reduce:
		return c.reduceInt(n)
	}
	c.bad(e, "unexpected integer expression")
	return func(*frame) int64 { return 0 }
}

func (c *scomp) loadInt(n *ir.Load) iFn {
	in := n.In
	data := in.I
	if len(n.Index) == 1 {
		x := c.intFn(n.Index[0])
		size := int64(len(data))
		return func(f *frame) int64 {
			k := x(f)
			if uint64(k) >= uint64(size) {
				f.fail(outsideInput(n, []int64{k}))
				return 0
			}
			return data[k]
		}
	}
	r, cc := c.intFn(n.Index[0]), c.intFn(n.Index[1])
	rows, cols := int64(in.Rows), int64(in.Cols)
	return func(f *frame) int64 {
		a, b := r(f), cc(f)
		if uint64(a) >= uint64(rows) || uint64(b) >= uint64(cols) {
			f.fail(outsideInput(n, []int64{a, b}))
			return 0
		}
		return data[a*cols+b]
	}
}

// binaryInt compiles an integer + - * / %, checked by the rules of
// section 6.1 (arith.go). The common finite + and - get closures of their
// own; the rest go through arithInt.
func (c *scomp) binaryInt(n *ir.Binary) iFn {
	x, y := c.intFn(n.X), c.intFn(n.Y)
	t, op, sat := n.T, n.Op, n.Saturate
	switch op {
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem:
	default:
		c.bad(n, "unexpected integer operator "+n.Op.String())
		return func(*frame) int64 { return 0 }
	}
	fail := func(f *frame, fl fault, a, b int64) {
		f.fail(arithErr(n.Pos, f.site(), fl, op, t, a, b))
	}
	if !sat && op == ir.OpAdd {
		return func(f *frame) int64 {
			a, b := x(f), y(f)
			v, ok := addFinite(t, a, b)
			if !ok {
				fail(f, fOverflow, a, b)
			}
			return v
		}
	}
	if !sat && op == ir.OpSub {
		return func(f *frame) int64 {
			a, b := x(f), y(f)
			v, ok := subFinite(t, a, b)
			if !ok {
				fail(f, fOverflow, a, b)
			}
			return v
		}
	}
	return func(f *frame) int64 {
		a, b := x(f), y(f)
		v, fl := arithInt(op, t, sat, a, b)
		if fl != fNone {
			fail(f, fl, a, b)
		}
		return v
	}
}

func (c *scomp) callInt(n *ir.Call) iFn {
	switch n.Fn {
	case ir.FnMin, ir.FnMax:
		args := make([]iFn, len(n.Args))
		for k, a := range n.Args {
			args[k] = c.intFn(a)
		}
		if len(args) == 0 {
			c.bad(n, "min/max without arguments")
			return func(*frame) int64 { return 0 }
		}
		isMin := n.Fn == ir.FnMin
		if len(args) == 2 {
			a, b := args[0], args[1]
			if isMin {
				return func(f *frame) int64 {
					r, v := a(f), b(f)
					if v < r {
						return v
					}
					return r
				}
			}
			return func(f *frame) int64 {
				r, v := a(f), b(f)
				if v > r {
					return v
				}
				return r
			}
		}
		return func(f *frame) int64 {
			r := args[0](f)
			for _, a := range args[1:] {
				if v := a(f); betterInt(isMin, v, r) {
					r = v
				}
			}
			return r
		}
	case ir.FnAbs:
		x := c.intFn(n.Args[0])
		return func(f *frame) int64 {
			v := x(f)
			if v < 0 {
				return -v
			}
			return v
		}
	}
	c.bad(n, "unexpected integer function "+n.Fn.String())
	return func(*frame) int64 { return 0 }
}

func (c *scomp) reduceInt(n *ir.Reduce) iFn {
	lo, hi := c.intFn(n.Lo), c.intFn(n.Hi)
	slot := c.sc.slots[n]
	c.sc.push(n)
	body := c.intFn(n.Body)
	c.sc.pop()
	t := n.T
	id := identityInt(n.Op, t)
	op := n.Op
	return func(f *frame) int64 {
		a, b := lo(f), hi(f)
		acc := id
		for k := a; k <= b && f.err == nil; k++ {
			f.vars[slot] = k
			v := body(f)
			switch op {
			case ir.ReduceMin:
				if v < acc {
					acc = v
				}
			case ir.ReduceMax:
				if v > acc {
					acc = v
				}
			default:
				s, fl := sumInt(t, acc, v)
				if fl != fNone {
					f.fail(arithErr(n.Pos, f.site(), fl, ir.OpAdd, t, acc, v))
				}
				acc = s
			}
			if k == math.MaxInt64 {
				break
			}
		}
		return acc
	}
}

func (c *scomp) floatFn(e ir.Expr) fFn {
	if c.leaf != nil {
		if f, ok := c.leaf(e).(fFn); ok && f != nil {
			return f
		}
	}
	t := e.Type()
	if classOf(t) != clFloat {
		c.bad(e, "non-floating expression where a floating one is needed")
		return func(*frame) float64 { return 0 }
	}
	switch n := e.(type) {
	case *ir.Const:
		v := constValue(n).F
		return func(*frame) float64 { return v }
	case *ir.Inf:
		v := infValue(t, n.Neg).F
		return func(*frame) float64 { return v }
	case *ir.ScalarRef:
		v := n.Scalar.Value.Float64()
		return func(*frame) float64 { return v }
	case *ir.Load:
		if !n.In.T.IsFloat() {
			c.bad(e, "floating load of an integer input")
			return func(*frame) float64 { return 0 }
		}
		return c.loadFloat(n)
	case *ir.CellRef:
		fi, fj := c.intFn(n.I), c.intFn(n.J)
		return func(f *frame) float64 {
			i, j := fi(f), fj(f)
			v, err := f.cells.cellFloat(n, i, j)
			if err != nil {
				f.fail(err)
			}
			return v
		}
	case *ir.Unary:
		x := c.floatFn(n.X)
		return func(f *frame) float64 { return -x(f) }
	case *ir.Binary:
		x, y := c.floatFn(n.X), c.floatFn(n.Y)
		r32 := t == ir.Float
		op := n.Op
		switch op {
		case ir.OpAdd:
			if r32 {
				return func(f *frame) float64 { return round32(x(f) + y(f)) }
			}
			return func(f *frame) float64 { return x(f) + y(f) }
		case ir.OpSub:
			if r32 {
				return func(f *frame) float64 { return round32(x(f) - y(f)) }
			}
			return func(f *frame) float64 { return x(f) - y(f) }
		case ir.OpMul:
			if r32 {
				return func(f *frame) float64 { return round32(x(f) * y(f)) }
			}
			return func(f *frame) float64 { return x(f) * y(f) }
		case ir.OpDiv:
			if r32 {
				return func(f *frame) float64 { return round32(x(f) / y(f)) }
			}
			return func(f *frame) float64 { return x(f) / y(f) }
		}
		return func(f *frame) float64 { return roundTo(arithFloat(op, x(f), y(f)), t) }
	case *ir.Select:
		cond, a, b := c.boolFn(n.Cond), c.floatFn(n.Then), c.floatFn(n.Else)
		return func(f *frame) float64 {
			if cond(f) {
				return a(f)
			}
			return b(f)
		}
	case *ir.Convert:
		from := n.X.Type()
		switch classOf(from) {
		case clBool:
			x := c.boolFn(n.X)
			return func(f *frame) float64 { return float64(b2i(x(f))) }
		case clInt:
			x := c.intFn(n.X)
			return func(f *frame) float64 { return intToFloat(x(f), from, t) }
		}
		x := c.floatFn(n.X)
		if t == ir.Float && from != ir.Float {
			return func(f *frame) float64 { return round32(x(f)) }
		}
		return x
	case *ir.Call:
		return c.callFloat(n)
	case *ir.Reduce:
		lo, hi := c.intFn(n.Lo), c.intFn(n.Hi)
		slot := c.sc.slots[n]
		c.sc.push(n)
		body := c.floatFn(n.Body)
		c.sc.pop()
		id := identityFloat(n.Op)
		op := n.Op
		return func(f *frame) float64 {
			a, b := lo(f), hi(f)
			acc := id
			for k := a; k <= b && f.err == nil; k++ {
				f.vars[slot] = k
				v := body(f)
				switch op {
				case ir.ReduceMin:
					if v < acc {
						acc = v
					}
				case ir.ReduceMax:
					if v > acc {
						acc = v
					}
				default:
					acc = roundTo(acc+v, t)
				}
				if k == math.MaxInt64 {
					break
				}
			}
			return acc
		}
	}
	c.bad(e, "unexpected floating expression")
	return func(*frame) float64 { return 0 }
}

func (c *scomp) loadFloat(n *ir.Load) fFn {
	in := n.In
	data := in.F
	if len(n.Index) == 1 {
		x := c.intFn(n.Index[0])
		size := int64(len(data))
		return func(f *frame) float64 {
			k := x(f)
			if uint64(k) >= uint64(size) {
				f.fail(outsideInput(n, []int64{k}))
				return 0
			}
			return data[k]
		}
	}
	r, cc := c.intFn(n.Index[0]), c.intFn(n.Index[1])
	rows, cols := int64(in.Rows), int64(in.Cols)
	return func(f *frame) float64 {
		a, b := r(f), cc(f)
		if uint64(a) >= uint64(rows) || uint64(b) >= uint64(cols) {
			f.fail(outsideInput(n, []int64{a, b}))
			return 0
		}
		return data[a*cols+b]
	}
}

func (c *scomp) callFloat(n *ir.Call) fFn {
	t := n.T
	args := make([]fFn, len(n.Args))
	for k, a := range n.Args {
		args[k] = c.floatFn(a)
	}
	switch n.Fn {
	case ir.FnMin, ir.FnMax:
		if len(args) == 0 {
			c.bad(n, "min/max without arguments")
			return func(*frame) float64 { return 0 }
		}
		isMin := n.Fn == ir.FnMin
		return func(f *frame) float64 {
			r := args[0](f)
			for _, a := range args[1:] {
				if v := a(f); betterFloat(isMin, v, r) {
					r = v
				}
			}
			return r
		}
	case ir.FnPow:
		if len(args) != 2 {
			c.bad(n, "pow needs two arguments")
			return func(*frame) float64 { return 0 }
		}
		a, b := args[0], args[1]
		return func(f *frame) float64 { return roundTo(math.Pow(a(f), b(f)), t) }
	}
	fn := mathFn(n.Fn)
	if fn == nil || len(args) != 1 {
		c.bad(n, "unexpected floating function "+n.Fn.String())
		return func(*frame) float64 { return 0 }
	}
	x := args[0]
	return func(f *frame) float64 { return roundTo(fn(x(f)), t) }
}

func (c *scomp) boolFn(e ir.Expr) bFn {
	if c.leaf != nil {
		if f, ok := c.leaf(e).(bFn); ok && f != nil {
			return f
		}
	}
	switch n := e.(type) {
	case *ir.Const:
		v := n.V.I != 0 || n.V.F != 0
		return func(*frame) bool { return v }
	case *ir.Unary:
		if n.Op == ir.OpNot {
			x := c.boolFn(n.X)
			return func(f *frame) bool { return !x(f) }
		}
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd:
			x, y := c.boolFn(n.X), c.boolFn(n.Y)
			return func(f *frame) bool { return x(f) && y(f) }
		case ir.OpOr:
			x, y := c.boolFn(n.X), c.boolFn(n.Y)
			return func(f *frame) bool { return x(f) || y(f) }
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			return c.compare(n)
		}
	case *ir.Select:
		cond, a, b := c.boolFn(n.Cond), c.boolFn(n.Then), c.boolFn(n.Else)
		return func(f *frame) bool {
			if cond(f) {
				return a(f)
			}
			return b(f)
		}
	case *ir.Convert:
		switch classOf(n.X.Type()) {
		case clInt:
			x := c.intFn(n.X)
			return func(f *frame) bool { return x(f) != 0 }
		case clFloat:
			x := c.floatFn(n.X)
			return func(f *frame) bool { return x(f) != 0 }
		}
		return c.boolFn(n.X)
	}
	if classOf(e.Type()) == clInt {
		x := c.intFn(e)
		return func(f *frame) bool { return x(f) != 0 }
	}
	c.bad(e, "unexpected boolean expression")
	return func(*frame) bool { return false }
}

func (c *scomp) compare(n *ir.Binary) bFn {
	op := n.Op
	if classOf(n.X.Type()) == clFloat || classOf(n.Y.Type()) == clFloat {
		x, y := c.anyFloat(n.X), c.anyFloat(n.Y)
		return func(f *frame) bool { return cmpFloat(op, x(f), y(f)) }
	}
	x, y := c.intFn(n.X), c.intFn(n.Y)
	switch op {
	case ir.OpEq:
		return func(f *frame) bool { return x(f) == y(f) }
	case ir.OpNe:
		return func(f *frame) bool { return x(f) != y(f) }
	case ir.OpLt:
		return func(f *frame) bool { return x(f) < y(f) }
	case ir.OpLe:
		return func(f *frame) bool { return x(f) <= y(f) }
	case ir.OpGt:
		return func(f *frame) bool { return x(f) > y(f) }
	}
	return func(f *frame) bool { return x(f) >= y(f) }
}

// anyFloat reads a comparison operand as float64, as ir.Value.Float64 does.
func (c *scomp) anyFloat(e ir.Expr) fFn {
	if classOf(e.Type()) == clFloat {
		return c.floatFn(e)
	}
	x := c.intFn(e)
	return func(f *frame) float64 { return float64(x(f)) }
}
