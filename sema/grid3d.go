package sema

import (
	"fmt"
	"math"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// A 3-D grid `K x R x C` (contract v2 §7.1) is lowered onto the 2-D
// pipeline (ir.Problem.Dims): the K x R*C grid whose row k is the k-plane.
// The planner, both executors and the traceback then run it unchanged; only
// messages name cells in three coordinates (ir.Problem.CellText).
//
//   - k, the first index variable, is the row variable (ir.VarI);
//   - the user's i and j are J / C and J % C of the column variable J,
//     exact since J is never negative;
//   - cell[a][b][c] is the 2-D reference cell[a][b*C + c], except that b
//     outside 0..R-1 or c outside 0..C-1 would land on another cell of the
//     flat grid: the column is then a negative sentinel that names the cell
//     being computed (ir.OutsideColumn3), so the read fails as outside the
//     grid. The guard is a ?: whose condition the range analysis decides
//     where the subscripts are provably inside (analysis.Walker), so that a
//     reference like Floyd-Warshall's cell[k-1][i][k-1] costs no branch.

// setGrid3 records the sides of a 3-D grid.
func (c *checker) setGrid3(k, r, cols int64) bool {
	if r > math.MaxInt64/cols || k > math.MaxInt64/(r*cols) {
		c.errorf(c.grid.Pos, "the grid of %d x %d x %d cells is too large", k, r, cols)
		return false
	}
	flat := r * cols
	c.rows, c.cols, c.gridOK = k, flat, true
	c.mid, c.inner = r, cols
	// The sentinel column -2 - (k*R*C + J) must fit the index type too.
	if k*flat > math.MaxInt32-2 {
		c.idxType = ir.Long
	}
	if !c.heldKarp {
		c.p.Rows, c.p.Cols, c.p.Mid, c.p.Inner = k, flat, r, cols
	}
	return true
}

// indexVar3 is the position (0 for k, 1 for i, 2 for j) of name among the
// index variables of a 3-D recurrence, or -1.
func (c *checker) indexVar3(name string) int {
	if c.dims != 3 || c.recur == nil || len(c.recur.Vars) != 3 {
		return -1
	}
	for k, v := range c.recur.Vars {
		if v != nil && v.Name == name {
			return k
		}
	}
	return -1
}

// var3 lowers a use of the 3-D index variable at position k: k itself is
// the row variable; i is J / C and j is J % C.
func (c *checker) var3(k int, name string, pos source.Pos) ir.Expr {
	t := c.idxType
	if k == 0 {
		return &ir.Var{Node: ir.Node{T: t, Pos: pos}, Kind: ir.VarI, Name: name}
	}
	jv := &ir.Var{Node: ir.Node{T: t, Pos: pos}, Kind: ir.VarJ, Name: c.p.JVar}
	op := ir.OpDiv
	if k == 2 {
		op = ir.OpRem
	}
	return &ir.Binary{Node: ir.Node{T: t, Pos: pos}, Op: op, X: jv, Y: typedConst(c.inner, t, pos)}
}

// isVar3 reports whether e is the lowering of the 3-D index variable at
// position k (1: J / C, 2: J % C), which is always inside its side.
func (c *checker) isVar3(e ir.Expr, k int) bool {
	b, ok := e.(*ir.Binary)
	if !ok || b.Saturate || (k == 1) != (b.Op == ir.OpDiv) || (k == 2) != (b.Op == ir.OpRem) {
		return false
	}
	v, ok := b.X.(*ir.Var)
	y, ok2 := b.Y.(*ir.Const)
	return ok && ok2 && v.Kind == ir.VarJ && v.Reduce == nil && y.V.I == c.inner
}

func typedConst(v int64, t ir.Type, pos source.Pos) *ir.Const {
	return &ir.Const{Node: ir.Node{T: t, Pos: pos}, V: ir.Value{T: t, I: v}}
}

// lowerCellRef3 lowers the subscripts of a 3-D reference cell[a][b][c]
// into ref (see the comment at the top of the file). It reports whether
// the reference can be read.
func (c *checker) lowerCellRef3(ix *dsl.Index, ref *ir.CellRef, sc *scope) bool {
	sub := noEmits(sc, "a subscript")
	var s [3]ir.Expr
	for k := range s {
		s[k] = c.index(c.lower(ix.Indices[k], sub), ix.Indices[k])
	}
	if s[0] == nil || s[1] == nil || s[2] == nil {
		return false
	}
	ref.I = s[0]
	if !c.gridOK {
		// Without the sides nothing can be lowered; the grid's error is
		// reported already.
		ref.J = intConst(0, ix.Pos)
		return false
	}
	ref.Mid, ref.Inner = c.mid, c.inner
	sides := [3]int64{c.rows, c.mid, c.inner}
	names := [3]string{"DIM0", "DIM1", "DIM2"}
	allConst := true // the inner subscripts
	for k, e := range s {
		kc, ok := e.(*ir.Const)
		if !ok {
			allConst = allConst && k == 0
			continue
		}
		if v := kc.V.I; v < 0 || v >= sides[k] {
			c.errorf(startPos(ix.Indices[k]), "%s: subscript %d is %d, outside 0..%d (%s = %d): the grid is %dx%dx%d",
				ref.Text, k+1, v, sides[k]-1, names[k], sides[k], c.rows, c.mid, c.inner)
			return false
		}
	}
	t := c.idxType
	for _, e := range s[1:] {
		if e.Type() == ir.Long {
			t = ir.Long
		}
	}
	if allConst {
		ref.Sub3 = [2]ir.Expr{s[1], s[2]}
		ref.J = intConst(s[1].(*ir.Const).V.I*c.inner+s[2].(*ir.Const).V.I, ix.Pos)
		return true
	}
	pos := ix.Pos
	if sc.mode != modeRecur {
		ref.J = c.answerFlat3(s[1], s[2], pos)
		return true
	}
	b, cc := c.conv(s[1], t), c.conv(s[2], t)
	ref.Sub3 = [2]ir.Expr{b, cc}
	bin := func(op ir.Op, x, y ir.Expr, rt ir.Type) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: rt, Pos: pos}, Op: op, X: x, Y: y}
	}
	raw := c.flat3(b, cc, t, pos)
	var guard ir.Expr
	and := func(x ir.Expr) {
		if guard == nil {
			guard = x
		} else {
			guard = bin(ir.OpAnd, guard, x, ir.Bool)
		}
	}
	for k, e := range []ir.Expr{b, cc} {
		if _, ok := e.(*ir.Const); ok || c.isVar3(s[k+1], k+1) {
			continue // inside its side: checked above, or by construction
		}
		and(bin(ir.OpGe, e, typedConst(0, t, pos), ir.Bool))
		and(bin(ir.OpLt, e, typedConst(sides[k+1], t, pos), ir.Bool))
	}
	if guard == nil {
		ref.J = raw
		return true
	}
	var outside ir.Expr = typedConst(-1, t, pos) // the answer computes no cell
	if sc.mode == modeRecur {
		iv := c.conv(&ir.Var{Node: ir.Node{T: c.idxType, Pos: pos}, Kind: ir.VarI, Name: c.p.IVar}, t)
		jv := c.conv(&ir.Var{Node: ir.Node{T: c.idxType, Pos: pos}, Kind: ir.VarJ, Name: c.p.JVar}, t)
		flat := bin(ir.OpAdd, bin(ir.OpMul, iv, typedConst(c.cols, t, pos), t), jv, t)
		outside = bin(ir.OpSub, typedConst(-2, t, pos), flat, t)
	}
	ref.J = &ir.Select{Node: ir.Node{T: t, Pos: pos}, Cond: guard, Then: raw, Else: outside}
	return true
}

// flat3 is the column b*C + c of a 3-D reference inside the grid. Where b
// is i + d and c is j + e (the common case: constant offsets from the
// cell), it is J + (d*C + e), without the division and remainder.
func (c *checker) flat3(b, cc ir.Expr, t ir.Type, pos source.Pos) ir.Expr {
	bin := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: t, Pos: pos}, Op: op, X: x, Y: y}
	}
	if d, ok := c.offsetOf(b, 1); ok {
		if e, ok := c.offsetOf(cc, 2); ok {
			var jv ir.Expr = &ir.Var{Node: ir.Node{T: c.idxType, Pos: pos}, Kind: ir.VarJ, Name: c.p.JVar}
			jv = c.conv(jv, t)
			switch off := d*c.inner + e; {
			case off > 0:
				return bin(ir.OpAdd, jv, typedConst(off, t, pos))
			case off < 0:
				return bin(ir.OpSub, jv, typedConst(-off, t, pos))
			}
			return jv
		}
	}
	return bin(ir.OpAdd, bin(ir.OpMul, b, typedConst(c.inner, t, pos)), cc)
}

// offsetOf reports whether e is the 3-D index variable at position k plus
// or minus a constant d (bounded by the grid, so that d*C cannot overflow).
func (c *checker) offsetOf(e ir.Expr, k int) (int64, bool) {
	for {
		cv, ok := e.(*ir.Convert)
		if !ok || !cv.T.IsInteger() || !cv.X.Type().IsInteger() {
			break
		}
		e = cv.X
	}
	if c.isVar3(e, k) {
		return 0, true
	}
	b, ok := e.(*ir.Binary)
	if !ok || b.Saturate || (b.Op != ir.OpAdd && b.Op != ir.OpSub) {
		return 0, false
	}
	x, y := b.X, b.Y
	kx, okx := x.(*ir.Const)
	ky, oky := y.(*ir.Const)
	var d int64
	switch {
	case oky && c.isVar3(stripConv(x), k):
		d = ky.V.I
		if b.Op == ir.OpSub {
			d = -d
		}
	case okx && b.Op == ir.OpAdd && c.isVar3(stripConv(y), k):
		d = kx.V.I
	default:
		return 0, false
	}
	lim := c.mid + c.inner
	if d < -lim || d > lim {
		return 0, false // the guard fails anyway; keep the general form
	}
	return d, true
}

func stripConv(e ir.Expr) ir.Expr {
	for {
		cv, ok := e.(*ir.Convert)
		if !ok || !cv.T.IsInteger() || !cv.X.Type().IsInteger() {
			return e
		}
		e = cv.X
	}
}

// jvar3 is how messages and the planner's report name the column variable
// of a 3-D grid, J = i*C + j, in the user's names.
func jvar3(i, j string, inner int64) string {
	return fmt.Sprintf("(%s*%d + %s)", i, inner, j)
}

// answerFlat3 is the column b*C + c of a 3-D reference in the answer. The
// planner evaluates the answer's subscripts for every value of its
// reduction variables (constants, variables, + - * / % min max: no ?:),
// so a subscript not provably inside its side is clamped to one step
// outside it and a penalty moves the column below the grid:
// min(max(b, -1), R)*C + min(max(c, -1), C) - P*(R*C + C + 2), where P
// counts the clamped subscripts outside their sides. Computed in long, it
// cannot overflow.
func (c *checker) answerFlat3(b, cc ir.Expr, pos source.Pos) ir.Expr {
	t := ir.Long
	bin := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: t, Pos: pos}, Op: op, X: x, Y: y}
	}
	call := func(fn ir.Func, x, y ir.Expr) ir.Expr {
		return &ir.Call{Node: ir.Node{T: t, Pos: pos}, Fn: fn, Args: []ir.Expr{x, y}}
	}
	k := func(v int64) ir.Expr { return typedConst(v, t, pos) }
	var pen ir.Expr
	side := func(e ir.Expr, n int64) ir.Expr {
		e = c.conv(e, t)
		if insideSide(e, n) {
			return e
		}
		cl := call(ir.FnMin, call(ir.FnMax, e, k(-1)), k(n))
		out := bin(ir.OpAdd, call(ir.FnMax, bin(ir.OpSub, k(0), cl), k(0)), call(ir.FnMax, bin(ir.OpSub, cl, k(n-1)), k(0)))
		if pen == nil {
			pen = out
		} else {
			pen = bin(ir.OpAdd, pen, out)
		}
		return cl
	}
	flat := bin(ir.OpAdd, bin(ir.OpMul, side(b, c.mid), k(c.inner)), side(cc, c.inner))
	if pen == nil {
		return flat
	}
	return bin(ir.OpSub, flat, bin(ir.OpMul, pen, k(c.mid*c.inner+c.inner+2)))
}

// insideSide reports whether e is provably within 0..n-1 without
// evaluating it: a constant, or the variable of a reduction whose constant
// bounds lie inside.
func insideSide(e ir.Expr, n int64) bool {
	e = stripConv(e)
	switch x := e.(type) {
	case *ir.Const:
		return x.V.I >= 0 && x.V.I < n
	case *ir.Var:
		r := x.Reduce
		if r == nil {
			return false
		}
		lo, ok1 := stripConv(r.Lo).(*ir.Const)
		hi, ok2 := stripConv(r.Hi).(*ir.Const)
		return ok1 && ok2 && lo.V.I >= 0 && hi.V.I < n
	}
	return false
}
