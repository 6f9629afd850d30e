package sema

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// evalScalars type-checks every scalar's expression and evaluates it, in
// declaration order, after the command line: a scalar given with --set (or
// by `args:`) keeps that value, and the scalars derived from it are computed
// from it.
func (c *checker) evalScalars() {
	for _, s := range c.scalars {
		if s.literal && s.overrideBy == "" {
			s.ok = true // Prepare's value
			continue
		}
		c.evalScalar(s)
	}
}

// evalScalar sets s's value from its expression, unless the command line
// gave it one.
func (c *checker) evalScalar(s *scalarInfo) {
	if s.t == ir.Invalid {
		return
	}
	sc := &scope{mode: modeConst, what: "scalar " + s.s.Name, self: s, where: s.decl.Pos}
	e := c.lower(s.decl.Expr, sc)
	if s.overrideBy != "" || e == nil {
		return // the command line decides, or the error is reported
	}
	c.mayInf(e, false) // an element of the data may be inf: saturate on it
	if r := ir.StripConversions(e); isTyped(r) && !s.t.IsFloat() {
		// One reduction or element: its exact value, not a double's.
		v, err := evalTyped(r)
		if err == nil {
			v, err = scalarValue(v, s.t)
		}
		if err != nil {
			c.errorf(errPos(err, s.decl.Pos), "scalar %s: %v", s.s.Name, err)
			return
		}
		s.s.Value, s.ok = v, true
		return
	}
	if x, ok := intLiteral(s.decl.Expr); ok && !s.t.IsFloat() {
		// Integer literals are taken exactly, beyond float64's 2^53.
		v, err := intValue(x, s.t)
		if err != nil {
			c.errorf(s.decl.Pos, "scalar %s: %v", s.s.Name, err)
			return
		}
		s.s.Value, s.ok = v, true
		return
	}
	f, err := evalHost(e)
	if err == nil && math.IsInf(f, 0) && !s.t.IsFloat() {
		err = infScalar(s.t)
	}
	if err == nil {
		s.s.Value, err = floatValue(f, s.t)
	}
	if err != nil {
		c.errorf(errPos(err, s.decl.Pos), "scalar %s: %v", s.s.Name, err)
		return
	}
	s.ok = true
}

// isTyped reports whether e is computed by evalTyped: a reduction or an
// input element.
func isTyped(e ir.Expr) bool {
	switch e.(type) {
	case *ir.Reduce, *ir.Load:
		return true
	}
	return false
}

// scalarValue converts the typed value v to an integer scalar's type t:
// exactly, and finite.
func scalarValue(v ir.Value, t ir.Type) (ir.Value, error) {
	switch {
	case isInfValue(v):
		return ir.Value{}, infScalar(t)
	case v.T.IsFloat():
		return floatValue(v.F, t)
	}
	return intValue(v.I, t)
}

// infScalar is the error of an integer scalar whose value is inf (an
// empty min, inf in the data, `inf` itself).
func infScalar(t ir.Type) error {
	return fmt.Errorf("the value is inf, and %s %s scalar holds finite values (declare it double to keep inf)", article(t.String()), t)
}

// intLiteral returns the value of an integer literal, possibly negated or
// parenthesised.
func intLiteral(e dsl.Expr) (int64, bool) {
	switch e := e.(type) {
	case *dsl.IntLit:
		return e.Value, true
	case *dsl.Paren:
		return intLiteral(e.X)
	case *dsl.Unary:
		x, ok := intLiteral(e.X)
		switch e.Op {
		case "-":
			return -x, ok
		case "+":
			return x, ok
		}
	}
	return 0, false
}

// evalHost evaluates a constant expression (scalars, grid sides) in double
// precision, as the contract says: integer division is not truncated until
// the final conversion to the scalar's type.
func evalHost(e ir.Expr) (float64, error) {
	switch n := e.(type) {
	case *ir.Const:
		return n.V.Float64(), nil
	case *ir.ScalarRef:
		return n.Scalar.Value.Float64(), nil
	case *ir.Inf:
		if n.Neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case *ir.Convert:
		x, err := evalHost(n.X)
		if n.T == ir.Bool {
			return b2f(x != 0), err
		}
		return x, err
	case *ir.Unary:
		x, err := evalHost(n.X)
		if n.Op == ir.OpNot {
			return b2f(x == 0), err
		}
		return -x, err
	case *ir.Select:
		cond, err := evalHost(n.Cond)
		if err != nil {
			return 0, err
		}
		if cond != 0 {
			return evalHost(n.Then)
		}
		return evalHost(n.Else)
	case *ir.Binary:
		return evalBinary(n)
	case *ir.Reduce, *ir.Load:
		// Typed, by the rules of the recurrence (hosteval.go).
		v, err := evalTyped(n)
		return hostFloat(v), err
	case *ir.Call:
		args := make([]float64, len(n.Args))
		for k, a := range n.Args {
			var err error
			if args[k], err = evalHost(a); err != nil {
				return 0, err
			}
		}
		switch n.Fn {
		case ir.FnMin, ir.FnMax:
			r := args[0]
			for _, a := range args[1:] {
				if (n.Fn == ir.FnMin && a < r) || (n.Fn == ir.FnMax && a > r) {
					r = a
				}
			}
			return r, nil
		case ir.FnAbs:
			return math.Abs(args[0]), nil
		case ir.FnExp:
			return math.Exp(args[0]), nil
		case ir.FnLog:
			return math.Log(args[0]), nil
		case ir.FnSqrt:
			return math.Sqrt(args[0]), nil
		case ir.FnPow:
			return math.Pow(args[0], args[1]), nil
		case ir.FnFloor:
			return math.Floor(args[0]), nil
		case ir.FnCeil:
			return math.Ceil(args[0]), nil
		}
	}
	return 0, fmt.Errorf("cannot evaluate %T on the host", e)
}

func evalBinary(n *ir.Binary) (float64, error) {
	x, err := evalHost(n.X)
	if err != nil {
		return 0, err
	}
	switch n.Op {
	case ir.OpAnd:
		if x == 0 {
			return 0, nil
		}
	case ir.OpOr:
		if x != 0 {
			return 1, nil
		}
	}
	y, err := evalHost(n.Y)
	if err != nil {
		return 0, err
	}
	switch n.Op {
	case ir.OpAnd, ir.OpOr:
		return b2f(y != 0), nil
	case ir.OpAdd:
		return x + y, nil
	case ir.OpSub:
		return x - y, nil
	case ir.OpMul:
		return x * y, nil
	case ir.OpDiv, ir.OpRem:
		if y == 0 && n.T.IsInteger() {
			return 0, &evalError{n.Pos, "division by zero"}
		}
		if n.Op == ir.OpRem {
			return math.Mod(x, y), nil
		}
		return x / y, nil
	case ir.OpEq:
		return b2f(x == y), nil
	case ir.OpNe:
		return b2f(x != y), nil
	case ir.OpLt:
		return b2f(x < y), nil
	case ir.OpLe:
		return b2f(x <= y), nil
	case ir.OpGt:
		return b2f(x > y), nil
	case ir.OpGe:
		return b2f(x >= y), nil
	}
	return 0, fmt.Errorf("cannot evaluate operator %s on the host", n.Op)
}

// evalError is an evaluation error at a position in the file.
type evalError struct {
	pos source.Pos
	msg string
}

func (e *evalError) Error() string { return e.msg }

// errPos is where an error from evalHost belongs: its own position, or def.
func errPos(err error, def source.Pos) source.Pos {
	var ee *evalError
	if errors.As(err, &ee) && ee.pos.IsValid() {
		return ee.pos
	}
	return def
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// maxSide bounds a grid side: sides are computed in double precision,
// exact up to 2^53.
const maxSide = 1 << 53

// checkGrid evaluates the grid size.
func (c *checker) checkGrid() {
	if c.grid == nil {
		if !c.heldKarp {
			c.errorf(c.filePos(), "no grid line: give the grid size, e.g. `(len(A)+1) x (len(B)+1)` or `5x5`")
		}
		return
	}
	var rows, cols int64
	ok1, ok2 := true, true
	switch sides := c.grid.Sides; len(sides) {
	case 1: // a 1-D grid of N cells is the 1 x N grid
		rows = 1
		cols, ok2 = c.gridSide(sides[0], "size")
	case 2:
		rows, ok1 = c.gridSide(sides[0], "rows")
		cols, ok2 = c.gridSide(sides[1], "columns")
	case 3: // K x R x C, lowered to K x R*C (grid3d.go)
		k, ok0 := c.gridSide(sides[0], "first side")
		r, ok1 := c.gridSide(sides[1], "second side")
		cols, ok2 := c.gridSide(sides[2], "third side")
		if ok0 && ok1 && ok2 {
			c.setGrid3(k, r, cols)
		}
		return
	case 0:
		c.errorf(c.grid.Pos, "the grid line gives no size")
		return
	default:
		c.errorf(c.grid.Pos, "a grid has one, two or three sides, not %d", len(sides))
		return
	}
	if !ok1 || !ok2 {
		return
	}
	if rows > math.MaxInt64/cols {
		c.errorf(c.grid.Pos, "the grid of %d x %d cells is too large", rows, cols)
		return
	}
	if c.named() && c.tablesTooLarge(rows, cols) {
		return
	}
	c.rows, c.cols, c.gridOK = rows, cols, true
	if rows > math.MaxInt32 || cols > math.MaxInt32 {
		c.idxType = ir.Long
	}
	if !c.heldKarp {
		// Several tables lie side by side in the flat grid (tables.go).
		c.p.Rows, c.p.Cols = rows, cols*c.tableCount()
	}
}

func (c *checker) gridSide(e dsl.Expr, which string) (int64, bool) {
	if c.proto != nil {
		if m := c.proto.sides[e]; m != nil {
			v, found, key, keep := m.side(c)
			if found {
				return v, true
			}
			if keep {
				v, ok := c.lowerSide(e, which)
				if ok {
					m.keep(key, v)
				}
				return v, ok
			}
		}
	}
	return c.lowerSide(e, which)
}

// lowerSide is gridSide's value of e, lowered and evaluated.
func (c *checker) lowerSide(e dsl.Expr, which string) (int64, bool) {
	sc := &scope{mode: modeConst, what: "the grid size", where: c.grid.Pos}
	x := c.lower(e, sc)
	if x == nil {
		return 0, false
	}
	c.mayInf(x, false)
	v, err := evalHost(x)
	text := ""
	if err != nil || v < 1 || v > maxSide || v != math.Trunc(v) {
		text = dsl.ExprString(e) // (for the messages only)
	}
	// A literal side is its own value: "but it is 0", not "but 0 is 0".
	literal := text == strconv.FormatFloat(v, 'g', -1, 64)
	switch {
	case err != nil:
		c.errorf(errPos(err, startPos(e)), "the grid's %s: %v", which, err)
	case math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v) || v < 1:
		if literal {
			text = "it"
		}
		c.errorf(startPos(e), "the grid's %s must be a positive integer, but %s is %g", which, text, v)
	case v > maxSide && literal:
		c.errorf(startPos(e), "the grid's %s, %s, is too large", which, text)
	case v > maxSide:
		c.errorf(startPos(e), "the grid's %s, %s = %g, is too large", which, text, v)
	default:
		return int64(v), true
	}
	return 0, false
}
