// Package eval evaluates the expressions of a checked problem (package ir)
// on the host. It has two halves:
//
//   - Eval and EvalAt, a general evaluator for any expression with a cell
//     accessor. The executors use it for the `answer:` expression and the
//     traceback for the case conditions; it is simple and slow.
//   - Compile, which turns the recurrence into a Recurrence: per region of
//     the grid it specialises a Kernel that computes a batch of cells (a row
//     or column segment) with one tight Go loop per operation, so that the
//     cost of interpreting the expression is paid once per batch rather than
//     once per cell. The CPU executor (backend/cpu) drives it.
//
// Both halves share one set of arithmetic rules, those of this file and of
// docs/language.md section 6.1, so the fast path and the general evaluator
// agree bit for bit, and with the GPU back end:
//
//   - Integer types (char, short, int, long) are held in 64 bits; char and
//     short compute as int. The finite values of a type with inf sentinels
//     are those of ir.TypeInfo (int ±(2^31-2), long ±(2^63-2), short
//     ±32,766); the values one beyond are its inf sentinels, so no finite
//     value is ever read back as inf. Every int and long + - * / %, sum
//     reduction and conversion (to a narrower type, floating to integer)
//     checks that its exact
//     result is finite, and stops the run with an error naming the
//     operator, the cell being computed and the operands otherwise: a
//     wrapped or clamped value would be a silent wrong answer. Negation and
//     abs cannot overflow: the finite range is symmetric. Only the lanes
//     whose case is being evaluated may report, so a case that is not
//     taken never fails a cell. Where the interval analysis (interval.go)
//     proves an operation cannot overflow, the batch kernels leave the check
//     out; the result is the same.
//   - Where ir.Binary.Saturate is set an operand may be inf, and the IEEE
//     rules apply where they give a number: inf + x = inf, x - inf = -inf,
//     inf * x = ±inf by the sign of x, inf / x = ±inf, x / inf = 0,
//     x % inf = x; inf - inf, inf * 0, inf / inf and inf % x are errors
//     (IEEE would give NaN). Sum reductions always follow the + rule.
//     Conversions between int and long map sentinel to sentinel, and to and
//     from floating types map it to and from the IEEE infinities.
//   - float values are computed in double precision and rounded to float32
//     after every operation, which for + - * / and sqrt gives exactly the
//     float32 result.
//   - A floating cell that would hold NaN is an error naming the case and
//     the cell unless the problem says `nan: allow` (ir.Problem.AllowNaN);
//     CheckAnswer applies the same rule to the answer. Converting NaN to an
//     integer is always an error.
//   - Integer / and % truncate toward zero (C); a zero divisor is an error
//     naming the operator's `.dp` position. Floating division by zero gives
//     an IEEE infinity, as in C.
//   - min and max keep the first of equal arguments.
package eval

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// class is how a value is held while evaluating (ir.Type.Class): the
// ir.Class* constants name the three.
type class = ir.Class

func classOf(t ir.Type) class { return t.Class() }

// round32 rounds x to the nearest float32 and back.
func round32(x float64) float64 { return float64(float32(x)) }

// roundTo rounds x for type t: float values are float32.
func roundTo(x float64, t ir.Type) float64 {
	if t == ir.Float {
		return round32(x)
	}
	return x
}

// intToFloat converts an integer of type from to floating type to.
func intToFloat(v int64, from, to ir.Type) float64 {
	if from.HasInf() {
		p, n := ir.ArithSentinels(from)
		switch v {
		case p:
			return math.Inf(1)
		case n:
			return math.Inf(-1)
		}
	}
	return roundTo(float64(v), to)
}

// b2i is a bool as 0 or 1.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// identityInt is the value of an empty integer reduction.
func identityInt(op ir.ReduceOp, t ir.Type) int64 {
	p, n := ir.ArithSentinels(t)
	switch op {
	case ir.ReduceMin:
		return p
	case ir.ReduceMax:
		return n
	}
	return 0
}

// identityFloat is the value of an empty floating reduction.
func identityFloat(op ir.ReduceOp) float64 {
	switch op {
	case ir.ReduceMin:
		return math.Inf(1)
	case ir.ReduceMax:
		return math.Inf(-1)
	}
	return 0
}

// mathFns are the float64 functions of the math built-ins of one argument,
// by ir.Func.
var mathFns = [...]func(float64) float64{
	ir.FnExp:   math.Exp,
	ir.FnLog:   math.Log,
	ir.FnSqrt:  math.Sqrt,
	ir.FnFloor: math.Floor,
	ir.FnCeil:  math.Ceil,
	ir.FnAbs:   math.Abs,
}

// mathFn returns the float64 function of a math built-in (nil for the
// others).
func mathFn(fn ir.Func) func(float64) float64 {
	if int(fn) < len(mathFns) {
		return mathFns[fn]
	}
	return nil
}

// errAt is an error positioned at a `.dp` node, printable with source.Format.
func errAt(pos source.Pos, format string, args ...any) error {
	return &source.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func divByZero(pos source.Pos, op ir.Op, s site) error {
	what := "division by zero"
	if op == ir.OpRem {
		what = "remainder of a division by zero"
	}
	return errAt(pos, "%s (computing %s)", what, s)
}

func nanToInt(pos source.Pos, t ir.Type) error {
	return errAt(pos, "NaN converted to %s", t)
}

// OutsideGrid is the error for reading a cell outside the grid, e.g.
// `lcs.dp:7:12: cell[i-1][j] reads cell[-1][3], outside the 5x7 grid`, or
// for a reference to a 1-D grid (ref.OneD, whose rows is 1)
// `lis.dp:3:46: cell[k-1] reads cell[-1], outside the 1-D grid of 8 cells`.
// A reference to a 3-D grid (ref.Mid) whose inner subscripts are outside
// reads no cell of the flat grid it is lowered to, but a column that names
// the cell being computed (ir.OutsideColumn3):
// `fw.dp:4:9: cell[k-1][i+1][j] reads outside the 4x3x3 grid: a subscript after the first is outside, computing cell[1][2][0]`.
func OutsideGrid(ref *ir.CellRef, i, j, rows, cols int64) error {
	g := refGrid(ref, rows, cols)
	if g.Dims == 3 && (j < 0 || j >= cols) {
		what := "reads outside the " + g.GridText() + ": "
		if i < 0 || i >= rows {
			what += fmt.Sprintf("its first subscript is %d, outside 0..%d, and ", i, rows-1)
		}
		what += fmt.Sprintf("its second or third subscript is outside (0..%d, 0..%d)", g.Mid-1, g.Inner-1)
		if flat, ok := ir.Outside3(j); ok && cols > 0 {
			what += ", computing " + g.CellText(flat/cols, flat%cols)
		}
		return errAt(ref.Pos, "%s %s", refText(ref), what)
	}
	return errAt(ref.Pos, "%s reads %s, outside the %s", refText(ref), g.CellText(i, j), g.GridText())
}

// refGrid is the shape of the grid ref reads, enough for ir.Problem's
// CellText and GridText: the messages built from a reference alone word
// cells as the Problem does.
func refGrid(ref *ir.CellRef, rows, cols int64) *ir.Problem {
	g := &ir.Problem{Dims: 2, Rows: rows, Cols: cols, Tables: ref.Tables}
	switch {
	case ref.OneD:
		g.Dims = 1
	case ref.Inner > 0:
		g.Dims, g.Mid, g.Inner = 3, ref.Mid, ref.Inner
	}
	return g
}

func refText(ref *ir.CellRef) string {
	switch {
	case ref.Text != "":
		return ref.Text
	case ref.OneD:
		return "cell[..]"
	case ref.Inner > 0:
		return "cell[..][..][..]"
	}
	return "cell[..][..]"
}

// outsideInput is the error for reading an input outside its bounds while
// computing s, worded as the compiled code's (backend/genrun).
func outsideInput(ld *ir.Load, idx []int64, s site) error {
	in := ld.In
	if len(idx) == 1 {
		if in.Vector || in.Rows == 1 {
			return errAt(ld.Pos, "%s[%d] is outside %s, which has %d elements (0..%d) (computing %s)", in.Name, idx[0], in.Name, in.Len(), in.Len()-1, s)
		}
		return errAt(ld.Pos, "%s[%d] is outside %s, which has %d elements (computing %s)", in.Name, idx[0], in.Name, in.Len(), s)
	}
	return errAt(ld.Pos, "%s[%d][%d] is outside the %dx%d input %s (computing %s)", in.Name, idx[0], idx[1], in.Rows, in.Cols, in.Name, s)
}

// loadIndex returns the flat element index of a load, or ok false when
// outside the input.
func loadIndex(in *ir.Input, idx []int64) (int64, bool) {
	if len(idx) == 1 {
		if in.Vector || in.Rows == 1 || in.Cols == 1 {
			k := idx[0]
			return k, k >= 0 && k < int64(in.Len())
		}
		return 0, false
	}
	r, c := idx[0], idx[1]
	if r < 0 || r >= int64(in.Rows) || c < 0 || c >= int64(in.Cols) {
		return 0, false
	}
	return r*int64(in.Cols) + c, true
}

// Convert converts v to type t by the rules of ir.Convert (integer
// sentinels map to sentinels and to IEEE infinities; float to integer
// truncates; NaN, or a finite value outside the finite range of t, is an
// error). Errors say "the answer", without a position (ConvertChain, which
// the executors use, places them at the conversion).
func Convert(v ir.Value, t ir.Type) (ir.Value, error) {
	if v.T == t {
		return v, nil
	}
	r, err := convertValue(v, t, &ir.Convert{Node: ir.Node{T: t}}, site{})
	var de *source.Error
	if errors.As(err, &de) && !de.Pos.IsValid() {
		err = errors.New(de.Msg) // no position to show
	}
	return r, err
}

// ConvertChain applies to v, the value of the expression that conversions
// wrap in e, those conversions, innermost first, as Eval would apply them:
// the executors compute a region reduction of the answer themselves and
// then convert its value. Errors say "the answer", at the conversion.
func ConvertChain(e ir.Expr, v ir.Value) (ir.Value, error) {
	c, ok := e.(*ir.Convert)
	if !ok {
		return v, nil
	}
	inner, err := ConvertChain(c.X, v)
	if err != nil {
		return ir.Value{}, err
	}
	return convertValue(inner, c.T, c, site{})
}
