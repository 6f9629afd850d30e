package eval

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpgpu/dpgpu/ir"
)

// CellFunc reads cell[i][j] of a grid. It returns an error when the cell is
// not available (outside the grid, not kept); Eval adds the position and the
// text of the reference that asked for it.
type CellFunc func(i, j int64) (ir.Value, error)

// ErrOutside is what a CellFunc built by GridCells returns for a cell outside
// the grid; Eval turns it into the message of OutsideGrid.
var ErrOutside = errors.New("outside the grid")

// outsideErr carries the grid size with ErrOutside.
type outsideErr struct{ rows, cols int64 }

func (e *outsideErr) Error() string   { return fmt.Sprintf("outside the %dx%d grid", e.rows, e.cols) }
func (e *outsideErr) Is(t error) bool { return t == ErrOutside }

// GridCells returns a CellFunc over a rows x cols grid whose cells at
// returns; reads outside the grid fail with ErrOutside.
func GridCells(rows, cols int64, at func(i, j int64) ir.Value) CellFunc {
	return func(i, j int64) (ir.Value, error) {
		if i < 0 || i >= rows || j < 0 || j >= cols {
			return ir.Value{}, &outsideErr{rows, cols}
		}
		return at(i, j), nil
	}
}

// Eval evaluates e, in which the index variables i and j are not defined
// (the `answer:` expression), reading cells through cells.
func Eval(e ir.Expr, cells CellFunc) (ir.Value, error) {
	ev := &walker{cells: cells}
	return ev.eval(e)
}

// EvalAt evaluates e at cell [i][j] of the recurrence.
func EvalAt(e ir.Expr, i, j int64, cells CellFunc) (ir.Value, error) {
	ev := &walker{i: i, j: j, haveIJ: true, cells: cells}
	return ev.eval(e)
}

// Binding gives the variable of a reduction a value, so that the body of
// the reduction can be evaluated on its own (the traceback follows the
// winning term of a min or max reduction).
type Binding struct {
	Reduce *ir.Reduce
	Value  int64
}

// EvalWith evaluates e at cell [i][j] with reduction variables bound.
func EvalWith(e ir.Expr, i, j int64, binds []Binding, cells CellFunc) (ir.Value, error) {
	ev := &walker{i: i, j: j, haveIJ: true, cells: cells}
	for _, b := range binds {
		ev.env = append(ev.env, binding{red: b.Reduce, v: b.Value})
	}
	return ev.eval(e)
}

// walker is the general evaluator: a direct walk of the tree.
type walker struct {
	i, j   int64
	haveIJ bool
	cells  CellFunc
	env    []binding
}

// binding is the current value of a reduction's variable.
type binding struct {
	red *ir.Reduce
	v   int64
}

// site is what the walker computes, for messages.
func (w *walker) site() site { return site{i: w.i, j: w.j, cell: w.haveIJ} }

func (w *walker) lookup(v *ir.Var) (int64, error) {
	for k := len(w.env) - 1; k >= 0; k-- {
		if v.BoundBy(w.env[k].red) {
			return w.env[k].v, nil
		}
	}
	if w.haveIJ {
		switch v.Kind {
		case ir.VarI:
			return w.i, nil
		case ir.VarJ:
			return w.j, nil
		}
	}
	return 0, errAt(v.Pos, "%s is not defined here", v.Name)
}

func intV(t ir.Type, v int64) ir.Value     { return ir.Value{T: t, I: v} }
func floatV(t ir.Type, v float64) ir.Value { return ir.Value{T: t, F: v} }
func boolV(b bool) ir.Value                { return ir.Value{T: ir.Bool, I: b2i(b)} }

func (w *walker) evalInt(e ir.Expr) (int64, error) {
	v, err := w.eval(e)
	if err != nil {
		return 0, err
	}
	if v.T.IsFloat() {
		return 0, errAt(e.Position(), "internal error: %s expression where an integer is needed", v.T)
	}
	return v.I, nil
}

func (w *walker) eval(e ir.Expr) (ir.Value, error) {
	t := e.Type()
	switch n := e.(type) {
	case *ir.Const:
		return constValue(n), nil
	case *ir.Inf:
		return infValue(t, n.Neg), nil
	case *ir.ScalarRef:
		return n.Scalar.Value, nil
	case *ir.Var:
		v, err := w.lookup(n)
		return intV(t, v), err
	case *ir.Load:
		idx := make([]int64, len(n.Index))
		for k, x := range n.Index {
			v, err := w.evalInt(x)
			if err != nil {
				return ir.Value{}, err
			}
			idx[k] = v
		}
		flat, ok := loadIndex(n.In, idx)
		if !ok {
			return ir.Value{}, outsideInput(n, idx, w.site())
		}
		if n.In.T.IsFloat() {
			return floatV(n.In.T, n.In.F[flat]), nil
		}
		return intV(n.In.T, n.In.I[flat]), nil
	case *ir.CellRef:
		i, err := w.evalInt(n.I)
		if err != nil {
			return ir.Value{}, err
		}
		j, err := w.evalInt(n.J)
		if err != nil {
			return ir.Value{}, err
		}
		if w.cells == nil {
			return ir.Value{}, errAt(n.Pos, "%s: no grid to read %s from", refText(n), refGrid(n, 0, 0).CellText(i, j))
		}
		v, err := w.cells(i, j)
		var out *outsideErr
		if errors.As(err, &out) {
			return ir.Value{}, OutsideGrid(n, i, j, out.rows, out.cols)
		}
		if err != nil {
			return ir.Value{}, errAt(n.Pos, "%s reads %s, %v", refText(n), refGrid(n, 0, 0).CellText(i, j), err)
		}
		return v, nil
	case *ir.Unary:
		x, err := w.eval(n.X)
		if err != nil {
			return ir.Value{}, err
		}
		if n.Op == ir.OpNot {
			return boolV(x.I == 0), nil
		}
		if t.IsFloat() {
			return floatV(t, -x.F), nil
		}
		// The finite range is symmetric and -inf is -(inf): no check.
		return intV(t, -x.I), nil
	case *ir.Binary:
		return w.binary(n)
	case *ir.Select:
		c, err := w.eval(n.Cond)
		if err != nil {
			return ir.Value{}, err
		}
		if c.I != 0 {
			return w.eval(n.Then)
		}
		return w.eval(n.Else)
	case *ir.Convert:
		x, err := w.eval(n.X)
		if err != nil {
			return ir.Value{}, err
		}
		return convertValue(x, t, n, w.site())
	case *ir.Call:
		return w.call(n)
	case *ir.Reduce:
		return w.reduce(n)
	}
	return ir.Value{}, errAt(e.Position(), "internal error: cannot evaluate %T", e)
}

func constValue(n *ir.Const) ir.Value {
	v := n.V
	v.T = n.T
	if n.T.IsFloat() && !n.V.T.IsFloat() {
		v.F = float64(n.V.I)
	}
	if !n.T.IsFloat() && n.V.T.IsFloat() {
		v.I, _ = floatToInt(n.V.F, n.T) // sema checked the constant
	}
	if n.T == ir.Float {
		v.F = round32(v.F)
	}
	return v
}

func infValue(t ir.Type, neg bool) ir.Value {
	if t.IsFloat() {
		if neg {
			return floatV(t, math.Inf(-1))
		}
		return floatV(t, math.Inf(1))
	}
	p, n := ir.ArithSentinels(t)
	if neg {
		return intV(t, n)
	}
	return intV(t, p)
}

func convertValue(x ir.Value, to ir.Type, n *ir.Convert, s site) (ir.Value, error) {
	switch {
	case to.IsFloat() && x.T.IsFloat():
		return floatV(to, roundTo(x.F, to)), nil
	case to.IsFloat():
		return floatV(to, intToFloat(x.I, x.T, to)), nil
	case x.T.IsFloat():
		v, f := floatToInt(x.F, to)
		if f != fNone {
			return ir.Value{}, floatConvErr(n.Pos, s, f, x.F, to)
		}
		return intV(to, v), nil
	}
	v, f := convInt(x.I, x.T, to)
	if f != fNone {
		return ir.Value{}, convIntErr(n.Pos, s, x.I, to)
	}
	return intV(to, v), nil
}

func (w *walker) binary(n *ir.Binary) (ir.Value, error) {
	x, err := w.eval(n.X)
	if err != nil {
		return ir.Value{}, err
	}
	switch n.Op {
	case ir.OpAnd:
		if x.I == 0 {
			return boolV(false), nil
		}
		y, err := w.eval(n.Y)
		return boolV(y.I != 0), err
	case ir.OpOr:
		if x.I != 0 {
			return boolV(true), nil
		}
		y, err := w.eval(n.Y)
		return boolV(y.I != 0), err
	}
	y, err := w.eval(n.Y)
	if err != nil {
		return ir.Value{}, err
	}
	t := n.T
	switch n.Op {
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		if x.T.IsFloat() || y.T.IsFloat() {
			return boolV(cmpOp(n.Op, x.Float64(), y.Float64())), nil
		}
		return boolV(cmpOp(n.Op, x.I, y.I)), nil
	}
	if t.IsFloat() {
		return floatV(t, roundTo(arithFloat(n.Op, x.F, y.F), t)), nil
	}
	v, f := arithInt(n.Op, t, n.Saturate, x.I, y.I)
	if f != fNone {
		return ir.Value{}, arithErr(n.Pos, w.site(), f, n.Op, t, x.I, y.I)
	}
	return intV(t, v), nil
}

func arithFloat(op ir.Op, x, y float64) float64 {
	switch op {
	case ir.OpAdd:
		return x + y
	case ir.OpSub:
		return x - y
	case ir.OpMul:
		return x * y
	case ir.OpDiv:
		return x / y
	case ir.OpRem:
		return math.Mod(x, y)
	}
	return 0
}

// cmpOp computes x op y for a comparison op; a comparison with NaN is
// false except !=.
func cmpOp[T num](op ir.Op, x, y T) bool {
	switch op {
	case ir.OpEq:
		return x == y
	case ir.OpNe:
		return x != y
	case ir.OpLt:
		return x < y
	case ir.OpLe:
		return x <= y
	case ir.OpGt:
		return x > y
	case ir.OpGe:
		return x >= y
	}
	return false
}

// better reports whether v replaces the current best r of a min or max:
// strictly smaller (min) or larger (max), so the first of equals stays.
func better[T num](isMin bool, v, r T) bool {
	if isMin {
		return v < r
	}
	return v > r
}

func (w *walker) call(n *ir.Call) (ir.Value, error) {
	t := n.T
	args := make([]ir.Value, len(n.Args))
	for k, a := range n.Args {
		v, err := w.eval(a)
		if err != nil {
			return ir.Value{}, err
		}
		args[k] = v
	}
	switch n.Fn {
	case ir.FnMin, ir.FnMax:
		k := WinningArg(n.Fn == ir.FnMin, args)
		if k < 0 {
			return ir.Value{}, errAt(n.Pos, "%s() needs arguments", n.Fn)
		}
		return args[k], nil
	case ir.FnAbs:
		if t.IsFloat() {
			return floatV(t, math.Abs(args[0].F)), nil
		}
		if args[0].I < 0 {
			return intV(t, -args[0].I), nil
		}
		return intV(t, args[0].I), nil
	case ir.FnPow:
		return floatV(t, roundTo(math.Pow(args[0].Float64(), args[1].Float64()), t)), nil
	}
	f := mathFn(n.Fn)
	if f == nil || len(args) != 1 {
		return ir.Value{}, errAt(n.Pos, "internal error: cannot evaluate %s()", n.Fn)
	}
	return floatV(t, roundTo(f(args[0].Float64()), t)), nil
}

// WinningArg returns the index of the winning value of a min (isMin) or max:
// the first of equal values; -1 when vals is empty. The traceback follows
// the same argument that the evaluators pick.
func WinningArg(isMin bool, vals []ir.Value) int {
	if len(vals) == 0 {
		return -1
	}
	best := 0
	for k := 1; k < len(vals); k++ {
		if vals[k].T.IsFloat() {
			if better(isMin, vals[k].F, vals[best].F) {
				best = k
			}
		} else if better(isMin, vals[k].I, vals[best].I) {
			best = k
		}
	}
	return best
}

func (w *walker) reduce(n *ir.Reduce) (ir.Value, error) {
	lo, err := w.evalInt(n.Lo)
	if err != nil {
		return ir.Value{}, err
	}
	hi, err := w.evalInt(n.Hi)
	if err != nil {
		return ir.Value{}, err
	}
	t := n.T
	isMin := n.Op == ir.ReduceMin
	var acc ir.Value
	if t.IsFloat() {
		acc = floatV(t, identityFloat(n.Op))
	} else {
		acc = intV(t, identityInt(n.Op, t))
	}
	w.env = append(w.env, binding{red: n})
	defer func() { w.env = w.env[:len(w.env)-1] }()
	for k := lo; k <= hi; k++ {
		w.env[len(w.env)-1].v = k
		v, err := w.eval(n.Body)
		if err != nil {
			return ir.Value{}, err
		}
		switch {
		case n.Op == ir.ReduceSum && t.IsFloat():
			acc.F = roundTo(acc.F+v.F, t)
		case n.Op == ir.ReduceSum:
			s, f := sumInt(t, acc.I, v.I)
			if f != fNone {
				return ir.Value{}, arithErr(n.Pos, w.site(), f, ir.OpAdd, t, acc.I, v.I)
			}
			acc.I = s
		case t.IsFloat():
			if better(isMin, v.F, acc.F) {
				acc.F = v.F
			}
		default:
			if better(isMin, v.I, acc.I) {
				acc.I = v.I
			}
		}
		if k == hi { // avoid overflow of k++ at MaxInt64
			break
		}
	}
	return acc, nil
}
