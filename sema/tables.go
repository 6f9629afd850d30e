package sema

import (
	"fmt"
	"math"
	"strings"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// Several tables (contract v2 §7.2): every `NAME[i][j] = ...` defines a
// table over the grid. A 2-D grid of R x C cells and T tables is lowered
// onto the one R x C*T grid whose flat column J = j*T + t holds table t's
// cell [i][j] (ir.Problem.Tables), so that the planner, both executors and
// the traceback run it unchanged:
//
//   - inside table t's cases the user's j is J / T (exact, 0 <= t < T);
//   - a reference NAME'[a][b] to table t' reads the flat cell
//     [a][b*T + t']; where b is j + d it is J + (d*T + t' - t), a constant
//     column offset, so that the planner sees constant offsets. b outside
//     0..C-1 lands outside 0..C*T-1 (b = -1 gives -T + t' < 0, b = C gives
//     C*T + t' >= C*T), so no guard is needed;
//   - the cases of the tables form one list: each case of table t is
//     tried only where J % T == t (its condition is prefixed by that
//     test), except the last table's `otherwise`, reached only where J %
//     T == T-1 since every earlier table ends with an `otherwise` of its
//     own. Cases end at the first true one, so the prefix must be on every
//     case of a table, not a first case that falls through;
//   - tables are computed in file order at each cell: a table may read
//     another at the same cell only if that one comes earlier (in the flat
//     grid, the cell to its left).
//
// A single table named otherwise than `cell` is the case T = 1 of the
// same lowering, so that messages name its cells as written.

// tableDecl is one table's recurrence and its place among the
// declarations.
type tableDecl struct {
	decl  *dsl.RecurrenceDecl
	order int
}

// addTable records a recurrence, reporting a second one of the same table.
func (c *checker) addTable(d *dsl.RecurrenceDecl, order int) {
	for _, t := range c.tables {
		if t.decl.Target == d.Target {
			if d.Target == "cell" {
				c.errorf(d.Pos, "duplicate recurrence (the first is at line %d)", t.decl.Pos.Line)
			} else {
				c.errorf(d.Pos, "duplicate recurrence of table %s (the first is at line %d)", d.Target, t.decl.Pos.Line)
			}
			return
		}
	}
	c.tables = append(c.tables, tableDecl{d, order})
	if c.recur == nil {
		c.recur, c.recurOrder = d, order
	}
}

// named reports whether the recurrence is lowered as tables: several of
// them, or one not called cell, on a 1-D or 2-D grid (a 1-D grid of N
// cells is the 1 x N grid, so that table t's cell [j] is the flat cell
// [0][j*T + t]).
func (c *checker) named() bool {
	if (c.dims != 2 && c.dims != 1) || len(c.tables) == 0 {
		return false
	}
	return len(c.tables) > 1 || c.tables[0].decl.Target != "cell"
}

// tableCount is T, the columns of the flat grid per cell of the user's.
func (c *checker) tableCount() int64 {
	if c.named() {
		return int64(len(c.tables))
	}
	return 1
}

// tableIndex is the table called name, or -1.
func (c *checker) tableIndex(name string) int {
	if !c.named() {
		return -1
	}
	for k, t := range c.tables {
		if t.decl.Target == name {
			return k
		}
	}
	return -1
}

func (c *checker) tableNames() string {
	var names []string
	for _, t := range c.tables {
		names = append(names, t.decl.Target)
	}
	return strings.Join(names, ", ")
}

// checkTables checks and lowers a recurrence of several tables (see the
// comment at the top of the file). It replaces checkRecurrence's work for
// them.
func (c *checker) checkTables() {
	T := int64(len(c.tables))
	c.p.RecurPos = c.tables[0].decl.Pos
	names := make([]string, len(c.tables))
	good := true
	for k, t := range c.tables {
		names[k] = t.decl.Target
		switch e := c.entity(names[k]); {
		case e != nil:
			c.errorf(t.decl.Pos, "%s is the %s declared at line %d: a table needs a name of its own", names[k], e.kind(), e.pos.Line)
			good = false
		case names[k] != "cell" && reserved[names[k]] != "":
			c.errorf(t.decl.Pos, "%s cannot name a table: it is %s", names[k], reserved[names[k]])
			good = false
		}
	}
	c.p.Tables = names
	var cases []*ir.Case
	first := ""
	for k, t := range c.tables {
		c.recur, c.recurOrder, c.table = t.decl, t.order, k
		if !c.checkLeftSide(t.decl) {
			good = false
			continue
		}
		if k == 0 {
			first = c.p.JVar
		}
		ks, ok := c.lowerCases(t.decl)
		if !ok {
			good = false
			continue
		}
		for _, kc := range ks {
			kc.Table = k
			if T > 1 && (k < len(c.tables)-1 || kc.Cond != nil) {
				test := c.tableTest(k, kc.Pos)
				if kc.Cond == nil {
					kc.Cond = test
				} else {
					kc.Cond = &ir.Binary{Node: ir.Node{T: ir.Bool, Pos: kc.Pos}, Op: ir.OpAnd, X: test, Y: kc.Cond}
				}
			}
			cases = append(cases, kc)
		}
	}
	c.recur, c.recurOrder, c.table = c.tables[0].decl, c.tables[0].order, -1
	if first != "" {
		if c.dims == 2 {
			c.p.IVar = c.tables[0].decl.Vars[0].Name
		}
		c.p.JVar = first
		if T > 1 {
			// How the planner's report words the flat column.
			c.p.JVar = fmt.Sprintf("(%s*%d + table)", first, T)
			c.p.TableJVar = first
		}
	}
	if good {
		c.p.Cases = cases
	}
}

// tableTest is J % T == t, the test that selects table t's cells.
func (c *checker) tableTest(t int, pos source.Pos) ir.Expr {
	it := c.idxType
	rem := &ir.Binary{Node: ir.Node{T: it, Pos: pos}, Op: ir.OpRem, X: c.flatJ(pos), Y: typedConst(c.tableCount(), it, pos)}
	return &ir.Binary{Node: ir.Node{T: ir.Bool, Pos: pos}, Op: ir.OpEq, X: rem, Y: typedConst(int64(t), it, pos)}
}

func (c *checker) flatJ(pos source.Pos) ir.Expr {
	return &ir.Var{Node: ir.Node{T: c.idxType, Pos: pos}, Kind: ir.VarJ, Name: c.p.JVar}
}

// tableJ lowers a use of the user's column variable inside a table's
// cases: J / T.
func (c *checker) tableJ(name string, pos source.Pos) ir.Expr {
	jv := &ir.Var{Node: ir.Node{T: c.idxType, Pos: pos}, Kind: ir.VarJ, Name: name}
	if T := c.tableCount(); T > 1 {
		return &ir.Binary{Node: ir.Node{T: c.idxType, Pos: pos}, Op: ir.OpDiv, X: jv, Y: typedConst(T, c.idxType, pos)}
	}
	return jv
}

// isTableJ reports whether e is tableJ's lowering of the user's j.
func (c *checker) isTableJ(e ir.Expr) bool {
	e = stripConv(e)
	if v, ok := e.(*ir.Var); ok {
		return c.tableCount() == 1 && v.Kind == ir.VarJ && v.Reduce == nil
	}
	b, ok := e.(*ir.Binary)
	if !ok || b.Saturate || b.Op != ir.OpDiv {
		return false
	}
	v, ok := b.X.(*ir.Var)
	y, ok2 := b.Y.(*ir.Const)
	return ok && ok2 && v.Kind == ir.VarJ && v.Reduce == nil && y.V.I == c.tableCount()
}

// isTableI reports whether e is the row variable itself.
func isTableI(e ir.Expr) bool {
	v, ok := stripConv(e).(*ir.Var)
	return ok && v.Kind == ir.VarI && v.Reduce == nil
}

// tableOffset reports whether e is the user's j plus or minus a constant d
// (bounded by the grid, so that d*T cannot overflow).
func (c *checker) tableOffset(e ir.Expr) (int64, bool) {
	e = stripConv(e)
	if c.isTableJ(e) {
		return 0, true
	}
	b, ok := e.(*ir.Binary)
	if !ok || b.Saturate || (b.Op != ir.OpAdd && b.Op != ir.OpSub) {
		return 0, false
	}
	kx, okx := b.X.(*ir.Const)
	ky, oky := b.Y.(*ir.Const)
	var d int64
	switch {
	case oky && c.isTableJ(b.X):
		d = ky.V.I
		if b.Op == ir.OpSub {
			d = -d
		}
	case okx && b.Op == ir.OpAdd && c.isTableJ(b.Y):
		d = kx.V.I
	default:
		return 0, false
	}
	if d < -c.cols-1 || d > c.cols+1 {
		return 0, false // outside anyway; keep the general form
	}
	return d, true
}

// lowerTableRef lowers NAME[a][b], a reference to table t of a recurrence
// of several tables, to the flat cell [a][b*T + t].
func (c *checker) lowerTableRef(ix *dsl.Index, t int, sc *scope) ir.Expr {
	name := ix.Name.Name
	if sc.mode == modeConst || sc.mode == modeSchedule {
		c.errorf(ix.Pos, "%s cannot read the grid", sc.what)
		return nil
	}
	oneD := c.dims == 1
	if want := c.subscripts(); len(ix.Indices) != want {
		if !c.arityReported {
			if oneD {
				c.errorf(ix.Pos, "%s takes one subscript, %s[k], not %d: the grid is 1-D", name, name, len(ix.Indices))
			} else {
				c.errorf(ix.Pos, "%s needs two subscripts, %s[i][j], not %d: the grid is 2-D", name, name, len(ix.Indices))
			}
		}
		return nil
	}
	ref := &ir.CellRef{Node: ir.Node{T: c.cellType, Pos: ix.Pos}, ID: -1, Text: c.sourceText(ix), Tables: c.p.Tables, Table: t, From: max(c.table, 0), OneD: oneD}
	if sc.mode == modeRecur && !sc.argEmit {
		ref.ID = len(c.p.CellRefs)
		c.p.CellRefs = append(c.p.CellRefs, ref)
	}
	sub := noEmits(sc, "a subscript")
	var a, b ir.Expr
	if oneD {
		a = intConst(0, ix.Pos)
		b = c.index(c.lower(ix.Indices[0], sub), ix.Indices[0])
	} else {
		a = c.index(c.lower(ix.Indices[0], sub), ix.Indices[0])
		b = c.index(c.lower(ix.Indices[1], sub), ix.Indices[1])
	}
	if a == nil || b == nil || !c.gridOK {
		return nil
	}
	ref.I = a
	T := c.tableCount()
	pos := ix.Pos
	if sc.mode == modeRecur && c.table >= 0 && t > c.table && (oneD || isTableI(a)) {
		if d, ok := c.tableOffset(b); ok && d == 0 {
			c.errorf(pos, "%s reads table %s at the same cell, but %s (line %d) comes after %s (line %d): the tables of a cell are computed in file order, so a table reads only earlier ones at its own cell",
				ref.Text, name, name, c.tables[t].decl.Pos.Line, c.tables[c.table].decl.Target, c.tables[c.table].decl.Pos.Line)
			return nil
		}
	}
	ka, oka := a.(*ir.Const)
	kb, okb := b.(*ir.Const)
	if okb {
		v := kb.V.I
		if oka && c.gridOK && sc.mode == modeRecur && (ka.V.I < 0 || ka.V.I >= c.rows || v < 0 || v >= c.cols) {
			c.errorf(pos, "%s is outside the %s", ref.Text, c.p.GridText())
			return nil
		}
		if v >= -c.cols-1 && v <= c.cols+1 {
			ref.J = intConst(v*T+int64(t), pos)
			return ref
		}
	}
	it := c.idxType
	if b.Type() == ir.Long {
		it = ir.Long
	}
	bin := func(op ir.Op, x, y ir.Expr) ir.Expr {
		return &ir.Binary{Node: ir.Node{T: it, Pos: pos}, Op: op, X: x, Y: y}
	}
	if d, ok := c.tableOffset(b); ok && sc.mode == modeRecur && c.table >= 0 {
		jv := c.conv(c.flatJ(pos), it)
		switch off := d*T + int64(t-c.table); {
		case off > 0:
			ref.J = bin(ir.OpAdd, jv, typedConst(off, it, pos))
		case off < 0:
			ref.J = bin(ir.OpSub, jv, typedConst(-off, it, pos))
		default:
			ref.J = jv
		}
		return ref
	}
	if sc.mode == modeAnswer {
		// The planner evaluates the answer's subscripts in long.
		it = ir.Long
	}
	var flat ir.Expr = c.conv(b, it)
	if T > 1 {
		flat = bin(ir.OpMul, flat, typedConst(T, it, pos))
	}
	if t > 0 {
		flat = bin(ir.OpAdd, flat, typedConst(int64(t), it, pos))
	}
	ref.J = flat
	return ref
}

// tablesTooLarge reports whether the flat grid of rows x cols*T cells
// overflows, and widens the index type where its columns need it.
func (c *checker) tablesTooLarge(rows, cols int64) bool {
	T := c.tableCount()
	if cols > math.MaxInt64/T || rows > math.MaxInt64/(cols*T) {
		c.errorf(c.grid.Pos, "the grid of %d x %d cells of %d tables is too large", rows, cols, T)
		return true
	}
	if cols*T+T > math.MaxInt32 {
		c.idxType = ir.Long
	}
	return false
}

// isVarName reports whether name is a reduction or index variable here.
func (c *checker) isVarName(name string, sc *scope) bool {
	for _, v := range sc.vars {
		if v.Name == name {
			return true
		}
	}
	_, ok := c.indexVar(name)
	return ok && sc.mode != modeConst
}
