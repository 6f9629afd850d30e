// Package genrun holds what the executors of generated code share (the
// GPU's kernels, backend/gpu, and the host programs, backend/native):
// the words for an error the code reports by site and code (the table
// codegen made), and the answer of a region from the partial results
// (dp_part_t) the code leaves, folded by the rules the CPU evaluator
// follows.
package genrun

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// Part is a decoded dp_part_t (templates/preamble.cu): one partial result
// of a min, max or sum over the answer region.
type Part struct {
	Idx, Iv int64 // the best cell's row-major index; integer value or sum
	Fv      float64
	Any     bool
	Fl      int32 // integer sums: the DP_SUM_* flags of templates/preamble.cu
}

// The flags of an integer sum's partial result (templates/preamble.cu).
const (
	SumPos = 1 // a cell was inf
	SumNeg = 2 // a cell was -inf
	SumOvf = 4 // the sum of the finite cells left long's finite range
)

// DecodePart reads a dp_part_t of codegen.PartBytes bytes.
func DecodePart(b []byte) Part {
	return Part{
		Idx: int64(binary.LittleEndian.Uint64(b)),
		Iv:  int64(binary.LittleEndian.Uint64(b[8:])),
		Fv:  math.Float64frombits(binary.LittleEndian.Uint64(b[16:])),
		Any: binary.LittleEndian.Uint32(b[24:]) != 0,
		Fl:  int32(binary.LittleEndian.Uint32(b[28:])),
	}
}

// Fold merges q into acc by the rules of dp_part_merge: the better value,
// ties to the first cell in row-major order; sums add.
func Fold(op ir.ReduceOp, isF bool, acc, q Part) Part {
	if !q.Any {
		return acc
	}
	if !acc.Any {
		return q
	}
	switch op {
	case ir.ReduceSum:
		acc.Fv += q.Fv
		sum := intSum(acc)
		sum.Merge(intSum(q))
		acc.Iv, acc.Fl = sum.Sum, sumFlags(sum)
	default:
		isMin := op == ir.ReduceMin
		var better bool
		if isF {
			better = (isMin && q.Fv < acc.Fv) || (!isMin && q.Fv > acc.Fv) || (q.Fv == acc.Fv && q.Idx < acc.Idx)
		} else {
			better = (isMin && q.Iv < acc.Iv) || (!isMin && q.Iv > acc.Iv) || (q.Iv == acc.Iv && q.Idx < acc.Idx)
		}
		if better {
			acc = q
		}
	}
	return acc
}

// RegionAnswer sets res's answer (and, for min and max, the answer cell)
// from acc, all the partial results of the answer region folded.
func RegionAnswer(p *ir.Problem, a plan.AnswerSpec, acc Part, res *backend.Result) error {
	if !acc.Any {
		return fmt.Errorf("internal error: the region answer saw no cell")
	}
	v := ir.Value{T: p.CellType}
	switch {
	case p.CellType.IsFloat():
		v.F = acc.Fv
		if p.CellType == ir.Float {
			v.F = float64(float32(v.F))
		}
	case a.Op == ir.ReduceSum:
		var err error
		if v.I, err = IntegerSum(p, a, acc); err != nil {
			return err
		}
	default:
		v.I = acc.Iv
	}
	if a.Op != ir.ReduceSum {
		res.AnswerI, res.AnswerJ, res.AnswerIsCell = acc.Idx/p.Cols, acc.Idx%p.Cols, true
	}
	var err error
	res.Answer, err = eval.ConvertChain(a.Expr, v)
	return err
}

// intSum is a partial result of an integer sum as backend.IntSum folds it.
func intSum(q Part) backend.IntSum {
	return backend.IntSum{Sum: q.Iv, Pos: q.Fl&SumPos != 0, Neg: q.Fl&SumNeg != 0, Overflow: q.Fl&SumOvf != 0}
}

// IntegerSum turns the folded partial results of an integer sum over the
// answer region into its value by the rules of + (backend.IntSum, which the
// CPU executor folds with too). The partials were folded in no particular
// order, so an overflow is judged on the whole sum.
func IntegerSum(p *ir.Problem, a plan.AnswerSpec, acc Part) (int64, error) {
	return intSum(acc).Value(p, a.Expr)
}

func sumFlags(s backend.IntSum) int32 {
	var fl int32
	if s.Pos {
		fl |= SumPos
	}
	if s.Neg {
		fl |= SumNeg
	}
	if s.Overflow {
		fl |= SumOvf
	}
	return fl
}

// Describe words an error that generated code (a GPU kernel, a host
// program) reported at site while computing cell (ci, cj), with operands
// x and y, like the CPU evaluator's; who names the reporter in the words
// for an unknown site ("the GPU").
func Describe(p *ir.Problem, pl *plan.Plan, sites []codegen.Site, who string, code, site int, ci, cj, x, y int64) error {
	at := " (computing " + p.CellText(ci, cj) + ")"
	if code == codegen.ErrOrder {
		return orderError(p, pl, who, site, ci, cj, x, y)
	}
	if code == codegen.ErrCell {
		if site < 0 || site >= len(p.CellRefs) {
			return fmt.Errorf("%s reported a read of %s outside the %s at %s", who, p.CellText(x, y), p.GridText(), p.CellText(ci, cj))
		}
		err := eval.OutsideGrid(p.CellRefs[site], x, y, p.Rows, p.Cols)
		var de *source.Error
		if errors.As(err, &de) {
			return source.ErrorList{&source.Error{Pos: de.Pos, Msg: de.Msg + at}}
		}
		return err
	}
	if site < 0 || site >= len(sites) {
		return fmt.Errorf("%s reported error %d at an unknown site %d, %s", who, code, site, p.CellText(ci, cj))
	}
	node := sites[site].Node
	var msg string
	switch code {
	case codegen.ErrLoad:
		ld, _ := node.(*ir.Load)
		if ld == nil {
			msg = "an input read is outside its input" + at
			break
		}
		in := ld.In
		if len(ld.Index) == 1 {
			msg = fmt.Sprintf("%s[%d] is outside %s, which has %d elements (0..%d)%s", in.Name, x, in.Name, in.Len(), in.Len()-1, at)
		} else {
			msg = fmt.Sprintf("%s[%d][%d] is outside the %dx%d input %s%s", in.Name, x, y, in.Rows, in.Cols, in.Name, at)
		}
	case codegen.ErrOverflow:
		msg = overflowMessage(node, p.CellText(ci, cj), x, y)
	case codegen.ErrInfOp:
		msg = fmt.Sprintf("%s is undefined computing %s", infOpText(node), p.CellText(ci, cj))
	case codegen.ErrDivZero:
		msg = "division by zero" + at
		if b, ok := node.(*ir.Binary); ok && b.Op == ir.OpRem {
			msg = "remainder of a division by zero" + at
		}
	case codegen.ErrNaN:
		if sites[site].Kind == codegen.SiteNaNCell {
			msg = fmt.Sprintf("%s is NaN; add `nan: allow` to the header to keep NaN values", p.CellText(ci, cj))
			break
		}
		msg = fmt.Sprintf("NaN converted to %s%s", node.Type(), at)
	default:
		msg = fmt.Sprintf("device error %d%s", code, at)
	}
	return source.ErrorList{&source.Error{Pos: node.Position(), Msg: msg}}
}

// longFin is long's finite range of docs/language.md §6.1.
const longFin = 1<<63 - 2

// overflowMessage words an overflow the device reported at node, computing
// cell (named as the user sees it, ir.Problem.CellText), with operands x and y (for a conversion from a floating
// type, x holds the value's bits). The words are those of the CPU executor.
func overflowMessage(node ir.Expr, cell string, x, y int64) string {
	head := fmt.Sprintf("overflow computing %s: ", cell)
	bx, by := big.NewInt(x), big.NewInt(y)
	switch n := node.(type) {
	case *ir.Binary:
		exact := new(big.Int)
		switch n.Op {
		case ir.OpAdd:
			exact.Add(bx, by)
		case ir.OpSub:
			exact.Sub(bx, by)
		case ir.OpMul:
			exact.Mul(bx, by)
		default:
			exact = nil
		}
		return head + fmt.Sprintf("%d %s %d does not fit in %s (finite range %s)", x, n.Op, y, intType(n.T), backend.FiniteText(n.T)) + backend.SuggestLong(intType(n.T), exact)
	case *ir.Reduce:
		return head + fmt.Sprintf("%d + %d does not fit in %s (finite range %s)", x, y, intType(n.T), backend.FiniteText(n.T)) + backend.SuggestLong(intType(n.T), new(big.Int).Add(bx, by))
	case *ir.Unary:
		return head + fmt.Sprintf("-%d does not fit in %s (finite range %s)", x, intType(n.T), backend.FiniteText(n.T)) + backend.SuggestLong(intType(n.T), new(big.Int).Neg(bx))
	case *ir.Call:
		return head + fmt.Sprintf("abs(%d) does not fit in %s (finite range %s)", x, intType(n.T), backend.FiniteText(n.T)) + backend.SuggestLong(intType(n.T), new(big.Int).Abs(bx))
	case *ir.Convert:
		to := intType(n.T)
		from := n.X.Type()
		if from.IsFloat() {
			f := math.Float64frombits(uint64(x))
			var exact *big.Int
			if !math.IsInf(f, 0) && !math.IsNaN(f) {
				exact, _ = big.NewFloat(math.Trunc(f)).Int(nil)
			}
			return head + fmt.Sprintf("converting %s to %s does not fit (finite range %s)", strconv.FormatFloat(f, 'g', -1, 64), to, backend.FiniteText(to)) + backend.SuggestLong(to, exact)
		}
		return head + fmt.Sprintf("converting %d to %s does not fit (finite range %s)", x, to, backend.FiniteText(to)) + backend.SuggestLong(to, bx)
	}
	return head + fmt.Sprintf("%d does not fit", x)
}

// intType is the type whose finite range an operation of type t checks:
// its own where it has inf sentinels (short, int, long); char and bool
// compute in int.
func intType(t ir.Type) ir.Type {
	if t.HasInf() {
		return t
	}
	return ir.Int
}

// infOpText names the undefined operation on inf that node reported.
func infOpText(node ir.Expr) string {
	if b, ok := node.(*ir.Binary); ok {
		switch b.Op {
		case ir.OpMul:
			return "inf * 0"
		case ir.OpDiv:
			return "inf / inf"
		case ir.OpRem:
			return "inf % x"
		}
	}
	return "inf - inf" // + and -, and sum reductions
}

// orderError words a read that the front kernel checked (the planner could
// not prove from the data that reference site reads an earlier front,
// plan.Dependency.Checked) and found to be of cell (x, y), a front not
// computed yet, while computing cell (ci, cj).
func orderError(p *ir.Problem, pl *plan.Plan, who string, site int, ci, cj, x, y int64) error {
	h := pl.T
	if site < 0 || site >= len(p.CellRefs) {
		return fmt.Errorf("%s reported a read of %s, which is not computed yet, computing %s", who, p.CellText(x, y), p.CellText(ci, cj))
	}
	// Worded as the Go evaluator words it; the input values the index read
	// are named where they do not depend on a reduction's variable. A
	// list, as every positioned error a kernel reports.
	err := eval.NotYet(p, h, p.CellRefs[site], ci, cj, x, y, nil)
	var de *source.Error
	if errors.As(err, &de) {
		return source.ErrorList{de}
	}
	return err
}
