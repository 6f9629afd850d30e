package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// setupAnswer allocates what the answer needs: slots partial results of a
// region (one per block or warp), or the captured cells.
func (r *run) setupAnswer(slots int) error {
	pr := r.prog
	ctx := r.e.ctx
	switch pr.Answer {
	case codegen.AnswerRegion:
		p, err := r.alloc("answer partials", int64(slots)*codegen.PartBytes)
		if err != nil {
			return err
		}
		if err := ctx.Memset8(p, 0, int64(slots)*codegen.PartBytes); err != nil {
			return err
		}
		r.part, r.parts = p, slots
	case codegen.AnswerCapture:
		if pr.Kernel == codegen.KernelStrip {
			return nil
		}
		n := len(pr.Captures)
		r.capN = n
		v, err := r.alloc("answer cells", int64(max(n, 1))*r.cellBytes())
		if err != nil {
			return err
		}
		r.capV = v
		idx := make([]int64, max(n, 1))
		if pr.Kernel == codegen.KernelTile || pr.Kernel == codegen.KernelFront {
			for k, c := range pr.Captures {
				idx[k] = c[0]*r.p.Cols + c[1]
			}
		} else {
			// Line order: the captures of one line are contiguous.
			order := r.lineOrder()
			r.capLn = map[int64][]int{}
			for m, k := range order {
				line, pos := r.lineOf(pr.Captures[k][0], pr.Captures[k][1])
				idx[m] = pos
				r.capLn[line] = append(r.capLn[line], m)
			}
		}
		p, err := r.alloc("answer cell positions", int64(len(idx))*8)
		if err != nil {
			return err
		}
		if err := cuda.CopyToDevice(ctx, p, idx); err != nil {
			return err
		}
		r.capPos = p
	}
	return nil
}

// lineOrder lists the capture indices sorted by (line, position).
func (r *run) lineOrder() []int {
	pr := r.prog
	order := make([]int, len(pr.Captures))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool {
		la, pa := r.lineOf(pr.Captures[order[a]][0], pr.Captures[order[a]][1])
		lb, pb := r.lineOf(pr.Captures[order[b]][0], pr.Captures[order[b]][1])
		return la < lb || (la == lb && pa < pb)
	})
	return order
}

// value decodes a cell of the problem's type.
func (r *run) value(b []byte) ir.Value {
	t := r.p.CellType
	g := backend.NewGrid(t, 1, 1)
	copy(g.Bytes(), b)
	return g.At(0, 0)
}

func (r *run) readDevice(p cuda.DevicePtr, n int64) ([]byte, error) {
	b := make([]byte, max(n, 1))
	if n == 0 {
		return b[:0], nil
	}
	if err := r.e.ctx.CopyDtoH(unsafe.Pointer(&b[0]), p, n); err != nil {
		return nil, err
	}
	return b, nil
}

// answer reads the answer off the device; a NaN answer is an error unless
// the problem allows NaN.
func (r *run) answer(res *backend.Result) error {
	if err := r.readAnswer(res); err != nil {
		return err
	}
	return r.finishAnswer(res)
}

// finishAnswer applies the rules the CPU executor applies to the answer it
// reports (a NaN answer is an error without `nan: allow`).
func (r *run) finishAnswer(res *backend.Result) error {
	return eval.CheckAnswer(r.p, res.Answer)
}

func (r *run) readAnswer(res *backend.Result) error {
	pr, p, a := r.prog, r.p, r.pl.Answer
	cs := r.cellBytes()
	switch pr.Answer {
	case codegen.AnswerCell:
		b, err := r.readDevice(r.mod.globals[codegen.SymAnswer], cs)
		if err != nil {
			return err
		}
		v := r.value(b)
		res.AnswerI, res.AnswerJ, res.AnswerIsCell = a.I, a.J, true
		if a.Expr != nil {
			cells := func(i, j int64) (ir.Value, error) {
				if i != a.I || j != a.J {
					return ir.Value{}, fmt.Errorf("internal error: %s was not captured", p.CellText(i, j))
				}
				return v, nil
			}
			if v, err = eval.Eval(a.Expr, cells); err != nil {
				return err
			}
		}
		res.Answer = v
		return nil
	case codegen.AnswerRegion:
		return r.regionAnswer(res)
	}
	var raw []byte
	var err error
	n := len(pr.Captures)
	if pr.Kernel == codegen.KernelStrip {
		raw, err = r.readDevice(r.mod.globals[codegen.SymCapture], int64(n)*cs)
	} else {
		raw, err = r.readDevice(r.capV, int64(n)*cs)
	}
	if err != nil {
		return err
	}
	got := map[[2]int64]ir.Value{}
	if pr.Kernel == codegen.KernelLine {
		for m, k := range r.lineOrder() {
			got[pr.Captures[k]] = r.value(raw[int64(m)*cs:])
		}
	} else {
		for k, c := range pr.Captures {
			got[c] = r.value(raw[int64(k)*cs:])
		}
	}
	cells := backend.Captured(p, got)
	res.Answer, err = eval.Eval(a.Expr, cells)
	return err
}

// part is a decoded dp_part_t.
type part struct {
	idx, iv int64
	fv      float64
	any     bool
	fl      int32 // integer sums: the DP_SUM_* flags of templates/preamble.cu
}

// The flags of an integer sum's partial result (templates/preamble.cu).
const (
	sumPos = 1 // a cell was inf
	sumNeg = 2 // a cell was -inf
	sumOvf = 4 // the sum of the finite cells left long's finite range
)

func (r *run) regionAnswer(res *backend.Result) error {
	p, a := r.p, r.pl.Answer
	raw, err := r.readDevice(r.part, int64(r.parts)*codegen.PartBytes)
	if err != nil {
		return err
	}
	isF := p.CellType.IsFloat()
	var acc part
	for k := 0; k < r.parts; k++ {
		b := raw[k*codegen.PartBytes:]
		q := part{
			idx: int64(binary.LittleEndian.Uint64(b)),
			iv:  int64(binary.LittleEndian.Uint64(b[8:])),
			fv:  math.Float64frombits(binary.LittleEndian.Uint64(b[16:])),
			any: binary.LittleEndian.Uint32(b[24:]) != 0,
			fl:  int32(binary.LittleEndian.Uint32(b[28:])),
		}
		if !q.any {
			continue
		}
		if !acc.any {
			acc = q
			continue
		}
		switch a.Op {
		case ir.ReduceSum:
			acc.fv += q.fv
			sum := intSum(acc)
			sum.Merge(intSum(q))
			acc.iv, acc.fl = sum.Sum, sumFlags(sum)
		default:
			isMin := a.Op == ir.ReduceMin
			var better bool
			if isF {
				better = (isMin && q.fv < acc.fv) || (!isMin && q.fv > acc.fv) || (q.fv == acc.fv && q.idx < acc.idx)
			} else {
				better = (isMin && q.iv < acc.iv) || (!isMin && q.iv > acc.iv) || (q.iv == acc.iv && q.idx < acc.idx)
			}
			if better {
				acc = q
			}
		}
	}
	if !acc.any {
		return fmt.Errorf("internal error: the region answer saw no cell")
	}
	v := ir.Value{T: p.CellType}
	switch {
	case isF:
		v.F = acc.fv
		if p.CellType == ir.Float {
			v.F = float64(float32(v.F))
		}
	case a.Op == ir.ReduceSum:
		if v.I, err = r.integerSum(acc); err != nil {
			return err
		}
	default:
		v.I = acc.iv
	}
	if a.Op != ir.ReduceSum {
		res.AnswerI, res.AnswerJ, res.AnswerIsCell = acc.idx/p.Cols, acc.idx%p.Cols, true
	}
	res.Answer, err = eval.ConvertChain(a.Expr, v)
	return err
}

// intSum is a partial result of an integer sum as backend.IntSum folds it.
func intSum(q part) backend.IntSum {
	return backend.IntSum{Sum: q.iv, Pos: q.fl&sumPos != 0, Neg: q.fl&sumNeg != 0, Overflow: q.fl&sumOvf != 0}
}

// integerSum turns the folded partial results of an integer sum over the
// answer region into its value by the rules of + (backend.IntSum, which the
// CPU executor folds with too). The partials were folded in no particular
// order, so an overflow is judged on the whole sum.
func (r *run) integerSum(acc part) (int64, error) {
	return intSum(acc).Value(r.p, r.pl.Answer.Expr)
}

func sumFlags(s backend.IntSum) int32 {
	var fl int32
	if s.Pos {
		fl |= sumPos
	}
	if s.Neg {
		fl |= sumNeg
	}
	if s.Overflow {
		fl |= sumOvf
	}
	return fl
}

// deviceError reads dp_err and turns it into a positioned error; nil when
// the device reported nothing (or cannot be read).
func (r *run) deviceError() error {
	b, err := r.readDevice(r.mod.globals[codegen.SymError], 40)
	if err != nil {
		return nil
	}
	code := int32(binary.LittleEndian.Uint32(b))
	site := int(int32(binary.LittleEndian.Uint32(b[4:])))
	ci := int64(binary.LittleEndian.Uint64(b[8:]))
	cj := int64(binary.LittleEndian.Uint64(b[16:]))
	x := int64(binary.LittleEndian.Uint64(b[24:]))
	y := int64(binary.LittleEndian.Uint64(b[32:]))
	if code == 0 {
		return nil
	}
	return r.describe(int(code), site, ci, cj, x, y)
}

// describe words a device error like the CPU executor's.
func (r *run) describe(code, site int, ci, cj, x, y int64) error {
	p := r.p
	at := " (computing " + p.CellText(ci, cj) + ")"
	if code == codegen.ErrOrder {
		return r.orderError(site, ci, cj, x, y)
	}
	if code == codegen.ErrCell {
		if site < 0 || site >= len(p.CellRefs) {
			return fmt.Errorf("the GPU reported a read of %s outside the %s at %s", p.CellText(x, y), p.GridText(), p.CellText(ci, cj))
		}
		err := eval.OutsideGrid(p.CellRefs[site], x, y, p.Rows, p.Cols)
		var de *source.Error
		if errors.As(err, &de) {
			return source.ErrorList{&source.Error{Pos: de.Pos, Msg: de.Msg + at}}
		}
		return err
	}
	if site < 0 || site >= len(r.prog.Sites) {
		return fmt.Errorf("the GPU reported error %d at an unknown site %d, %s", code, site, p.CellText(ci, cj))
	}
	node := r.prog.Sites[site].Node
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
		if r.prog.Sites[site].Kind == codegen.SiteNaNCell {
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
func (r *run) orderError(site int, ci, cj, x, y int64) error {
	p, h := r.p, r.pl.T
	if site < 0 || site >= len(p.CellRefs) {
		return fmt.Errorf("the GPU reported a read of %s, which is not computed yet, computing %s", p.CellText(x, y), p.CellText(ci, cj))
	}
	ref := p.CellRefs[site]
	msg := fmt.Sprintf("%s reads %s, which is not computed yet (computing %s): the fronts %s run in order, and it lies on front %d, not before front %d",
		ref.Text, p.CellText(x, y), p.CellText(ci, cj), h, h.T(x, y), h.T(ci, cj))
	return source.ErrorList{&source.Error{Pos: ref.Pos, Msg: msg}}
}
