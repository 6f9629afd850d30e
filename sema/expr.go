package sema

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// mode says where an expression is: what it may use.
type mode uint8

const (
	// modeConst: scalars and grid sides, evaluated once on the host. They
	// may use literals, scalars and len/rows/cols of inputs, no cells,
	// index variables, input elements or reductions.
	modeConst mode = iota
	// modeRecur: the recurrence's cases. Cell references get IDs.
	modeRecur
	// modeAnswer: the answer. Cell references get ID -1; i and j exist only
	// as reduction variables.
	modeAnswer
	// modeSchedule: EXPR of `schedule: t = EXPR`. What a constant may use,
	// plus the index variables: no cells, input elements or reductions.
	modeSchedule
)

// scope is the context of an expression being lowered.
type scope struct {
	mode  mode
	what  string      // for messages: "scalar u", "the grid size", ...
	self  *scalarInfo // the scalar being defined (modeConst)
	vars  []*ir.Var   // variables of the enclosing reductions, innermost last
	where source.Pos  // position for an expression missing from a hand-built tree

	// emits: an argument of min or max may be followed by `emit EXPR`
	// (contract v2 §7.4), which says what a traceback step emits when the
	// argument wins. That is in a case's value, where the traceback looks
	// for the winning argument; not in its subscripts, conditions and
	// bounds, which it only evaluates. place says where the expression is
	// when emits is false ("a subscript"; "" for what itself).
	emits bool
	place string
	// argEmit: lowering the emit of an argument. It is no part of the
	// value, so its cell references are not dependencies of the
	// recurrence: they get ID -1, as in the answer.
	argEmit bool
}

// noEmits is sc for a part of an expression where an argument's emit
// cannot stand (place: "a subscript", ...).
func noEmits(sc *scope, place string) *scope {
	if !sc.emits {
		return sc
	}
	inner := *sc
	inner.emits, inner.place = false, place
	return &inner
}

// untyped reports whether e is an `inf` whose type is not known yet: it takes
// the type of the other operand, or the cell type where there is none.
func untyped(e ir.Expr) bool {
	inf, ok := e.(*ir.Inf)
	return ok && inf.T == ir.Invalid
}

// startPos is where an expression begins in the source: for an operator,
// its left operand (the tree positions binary operators at the operator).
func startPos(e dsl.Expr) source.Pos {
	switch e := e.(type) {
	case *dsl.Binary:
		return startPos(e.X)
	case *dsl.Ternary:
		return startPos(e.Cond)
	case nil:
		return source.Pos{}
	}
	return e.Position()
}

// promote1 is C's integer promotion: bool, char and short compute as int
// (ir.TypeInfo.Promote).
func promote1(t ir.Type) ir.Type { return t.Promoted() }

// arith is C's usual arithmetic conversion of two operand types.
func arith(a, b ir.Type) ir.Type {
	a, b = promote1(a), promote1(b)
	switch {
	case a == ir.Double || b == ir.Double:
		return ir.Double
	case a == ir.Float || b == ir.Float:
		return ir.Float
	case a == ir.Long || b == ir.Long:
		return ir.Long
	}
	return ir.Int
}

// intConstType is the type of an integer literal or folded size: int when
// it is a finite int (ir.FiniteRange), else long.
func intConstType(v int64) ir.Type {
	if lo, hi := ir.FiniteRange(ir.Int); v >= lo && v <= hi {
		return ir.Int
	}
	return ir.Long
}

func intConst(v int64, pos source.Pos) *ir.Const {
	t := intConstType(v)
	return &ir.Const{Node: ir.Node{T: t, Pos: pos}, V: ir.Value{T: t, I: v}}
}

// conv converts e to t, explicitly: a Convert node, or for constants and
// inf a new constant of type t.
func (c *checker) conv(e ir.Expr, t ir.Type) ir.Expr {
	if e == nil {
		return nil
	}
	if inf, ok := e.(*ir.Inf); ok {
		if t == ir.Bool {
			return &ir.Convert{Node: ir.Node{T: ir.Bool, Pos: inf.Pos}, X: c.settle(inf)}
		}
		if inf.T != t {
			return &ir.Inf{Node: ir.Node{T: t, Pos: inf.Pos}, Neg: inf.Neg}
		}
		return inf
	}
	if e.Type() == t {
		return e
	}
	if k, ok := e.(*ir.Const); ok {
		if k.V.T.IsFloat() && math.IsInf(k.V.F, 0) && (t.HasInf() || t.IsFloat()) {
			// A folded IEEE infinity is inf: it converts to the sentinel.
			return &ir.Inf{Node: ir.Node{T: t, Pos: k.Pos}, Neg: k.V.F < 0}
		}
		v, err := convertValue(k.V, t)
		if err != nil {
			if lo, hi := ir.FiniteRange(t); t.IsInteger() && t != ir.Bool && !(k.V.T.IsFloat() && math.IsNaN(k.V.F)) {
				c.errorf(k.Pos, "constant %s does not fit %s (finite range %d..%d; write inf for infinity)", k.V, t, lo, hi)
				return nil
			}
			c.errorf(k.Pos, "constant %s: %v", k.V, err)
			return nil
		}
		return &ir.Const{Node: ir.Node{T: t, Pos: k.Pos}, V: v}
	}
	return &ir.Convert{Node: ir.Node{T: t, Pos: e.Position()}, X: e}
}

// settle gives an untyped inf the cell type.
func (c *checker) settle(e ir.Expr) ir.Expr {
	if untyped(e) {
		inf := e.(*ir.Inf)
		return &ir.Inf{Node: ir.Node{T: c.cellType, Pos: inf.Pos}, Neg: inf.Neg}
	}
	return e
}

func (c *checker) toBool(e ir.Expr) ir.Expr {
	if e == nil {
		return nil
	}
	return c.conv(c.settle(e), ir.Bool)
}

// lower checks e and returns its typed form, or nil after reporting an error
// (nil is also returned, silently, when e depends on something already
// reported, such as an input that failed to load).
func (c *checker) lower(e dsl.Expr, sc *scope) ir.Expr {
	switch e := e.(type) {
	case nil:
		c.errorf(sc.where, "missing expression in %s", sc.what)
		return nil
	case *dsl.Paren:
		return c.lower(e.X, sc)
	case *dsl.IntLit:
		if lo, hi := ir.FiniteRange(ir.Long); e.Value < lo || e.Value > hi {
			c.errorf(e.Pos, "%d is outside the finite range of long (±9,223,372,036,854,775,806); write inf for infinity", e.Value)
			return nil
		}
		return intConst(e.Value, e.Pos)
	case *dsl.FloatLit:
		return &ir.Const{Node: ir.Node{T: ir.Double, Pos: e.Pos}, V: ir.Value{T: ir.Double, F: e.Value}}
	case *dsl.CharLit:
		return &ir.Const{Node: ir.Node{T: ir.Char, Pos: e.Pos}, V: ir.Value{T: ir.Char, I: int64(int8(e.Value))}}
	case *dsl.StringLit:
		c.errorf(e.Pos, "a string cannot be used in an expression: a number is needed here (strings give the data of char inputs)")
		return nil
	case *dsl.Inf:
		return &ir.Inf{Node: ir.Node{Pos: e.Pos}}
	case *dsl.Ident:
		return c.lowerIdent(e, sc)
	case *dsl.Unary:
		return c.lowerUnary(e, sc)
	case *dsl.Binary:
		return c.lowerBinary(e, sc)
	case *dsl.Ternary:
		return c.lowerTernary(e, sc)
	case *dsl.Index:
		return c.lowerIndex(e, sc)
	case *dsl.Call:
		return c.lowerCall(e, sc)
	case *dsl.Reduce:
		return c.lowerReduce(e, sc)
	}
	c.errorf(e.Position(), "unexpected expression %T", e)
	return nil
}

func (c *checker) lowerUnary(e *dsl.Unary, sc *scope) ir.Expr {
	x := c.lower(e.X, sc)
	if x == nil {
		return nil
	}
	switch e.Op {
	case "+":
		if untyped(x) {
			return x
		}
		return c.conv(x, promote1(x.Type()))
	case "-":
		if inf, ok := x.(*ir.Inf); ok {
			return &ir.Inf{Node: ir.Node{T: inf.T, Pos: e.Pos}, Neg: !inf.Neg}
		}
		t := promote1(x.Type())
		x = c.conv(x, t)
		if k, ok := x.(*ir.Const); ok {
			v, err := negate(k.V)
			if err != nil {
				c.errorf(e.Pos, "%v", err)
				return nil
			}
			return &ir.Const{Node: ir.Node{T: t, Pos: e.Pos}, V: v}
		}
		if x == nil {
			return nil
		}
		return &ir.Unary{Node: ir.Node{T: t, Pos: e.Pos}, Op: ir.OpNeg, X: x}
	case "!":
		x = c.toBool(x)
		if k, ok := x.(*ir.Const); ok {
			return &ir.Const{Node: ir.Node{T: ir.Bool, Pos: e.Pos}, V: ir.Value{T: ir.Bool, I: 1 - k.V.I}}
		}
		if x == nil {
			return nil
		}
		return &ir.Unary{Node: ir.Node{T: ir.Bool, Pos: e.Pos}, Op: ir.OpNot, X: x}
	}
	c.errorf(e.Pos, "unknown operator %s", e.Op)
	return nil
}

var binaryOps = map[string]ir.Op{
	"+": ir.OpAdd, "-": ir.OpSub, "*": ir.OpMul, "/": ir.OpDiv, "%": ir.OpRem,
	"==": ir.OpEq, "!=": ir.OpNe, "<": ir.OpLt, "<=": ir.OpLe, ">": ir.OpGt, ">=": ir.OpGe,
	"&&": ir.OpAnd, "||": ir.OpOr,
}

// unify gives two operands their common type (untyped inf takes the other
// operand's promoted type) and converts both to it. same keeps a type both
// share (char ? char : char stays char) instead of promoting it.
func (c *checker) unify(x, y ir.Expr, same bool) (ir.Expr, ir.Expr, ir.Type) {
	var t ir.Type
	switch {
	case untyped(x) && untyped(y):
		t = c.cellType
	case untyped(x):
		t = promote1(y.Type())
	case untyped(y):
		t = promote1(x.Type())
	case same && x.Type() == y.Type():
		t = x.Type()
	default:
		t = arith(x.Type(), y.Type())
	}
	return c.conv(x, t), c.conv(y, t), t
}

func (c *checker) lowerBinary(e *dsl.Binary, sc *scope) ir.Expr {
	op, known := binaryOps[e.Op]
	x, y := c.lower(e.X, sc), c.lower(e.Y, sc)
	if !known {
		c.errorf(e.Pos, "unknown operator %s", e.Op)
		return nil
	}
	if x == nil || y == nil {
		return nil
	}
	var t, result ir.Type
	switch op {
	case ir.OpAnd, ir.OpOr:
		x, y, t = c.toBool(x), c.toBool(y), ir.Bool
		result = ir.Bool
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		x, y, t = c.unify(x, y, false)
		result = ir.Bool
	default:
		if op == ir.OpRem {
			for k, side := range []ir.Expr{x, y} {
				if side.Type().IsFloat() {
					at := []dsl.Expr{e.X, e.Y}[k]
					c.errorf(e.Pos, "operator %% needs integer operands, but %s is %s", dsl.ExprString(at), side.Type())
					return nil
				}
			}
		}
		x, y, t = c.unify(x, y, false)
		result = t
	}
	if x == nil || y == nil {
		return nil
	}
	kx, okx := x.(*ir.Const)
	ky, oky := y.(*ir.Const)
	if okx && oky {
		v, err := foldBinary(e.Op, t, kx.V, ky.V)
		if err != nil {
			c.errorf(e.Pos, "%v", err)
			return nil
		}
		return &ir.Const{Node: ir.Node{T: result, Pos: e.Pos}, V: v}
	}
	return &ir.Binary{Node: ir.Node{T: result, Pos: e.Pos}, Op: op, X: x, Y: y}
}

func (c *checker) lowerTernary(e *dsl.Ternary, sc *scope) ir.Expr {
	cond := c.toBool(c.lower(e.Cond, noEmits(sc, "the condition of ?:")))
	x, y := c.lower(e.T, sc), c.lower(e.F, sc)
	if cond == nil || x == nil || y == nil {
		return nil
	}
	x, y, t := c.unify(x, y, true)
	if x == nil || y == nil {
		return nil
	}
	return &ir.Select{Node: ir.Node{T: t, Pos: e.Pos}, Cond: cond, Then: x, Else: y}
}

// lowerIdent resolves a name used as a value.
func (c *checker) lowerIdent(id *dsl.Ident, sc *scope) ir.Expr {
	name := id.Name
	for k := len(sc.vars) - 1; k >= 0; k-- {
		if sc.vars[k].Name == name {
			return sc.vars[k]
		}
	}
	if kind, ok := c.indexVar(name); ok && sc.mode != modeConst {
		if sc.mode == modeAnswer {
			hi := map[ir.VarKind]string{ir.VarI: "ROWS-1", ir.VarJ: "COLS-1"}[kind]
			switch c.dims {
			case 1:
				hi = "DIM0-1"
			case 3:
				hi = [3]string{"DIM0-1", "ROWS-1", "COLS-1"}[c.indexVar3(name)]
			}
			c.errorf(id.Pos, "%s is an index variable of the recurrence; in answer: it exists only as the variable of a reduction, e.g. max(%s in 0..%s: ...)", name, name, hi)
			return nil
		}
		if kind == ir.VarJ && c.dims != 3 && (c.table >= 0 || sc.mode == modeSchedule) {
			return c.tableJ(name, id.Pos) // several tables (tables.go); the user's j in schedule: t = EXPR
		}
		if k := c.indexVar3(name); k >= 0 {
			if !c.gridOK {
				return nil // the grid's error is reported
			}
			return c.var3(k, name, id.Pos)
		}
		return &ir.Var{Node: ir.Node{T: c.idxType, Pos: id.Pos}, Kind: kind, Name: name}
	}
	if name == "DIM2" && c.dims == 3 && c.entity(name) == nil {
		if sc.mode == modeConst {
			c.errorf(id.Pos, "%s cannot use %s: the grid size is not known when %s is evaluated", sc.what, name, sc.what)
			return nil
		}
		if !c.gridOK {
			return nil
		}
		return intConst(c.inner, id.Pos)
	}
	if c.tableIndex(name) >= 0 && c.entity(name) == nil {
		if c.dims == 1 {
			c.errorf(id.Pos, "%s is a table: it needs a subscript, %s[k]", name, name)
		} else {
			c.errorf(id.Pos, "%s is a table: it needs two subscripts, %s[i][j]", name, name)
		}
		return nil
	}
	switch name {
	case "ROWS", "COLS", "DIM0", "DIM1":
		if sc.mode == modeConst {
			c.errorf(id.Pos, "%s cannot use %s: the grid size is not known when %s is evaluated", sc.what, name, sc.what)
			return nil
		}
		if name == "DIM1" && c.dims == 1 {
			c.errorf(id.Pos, "DIM1 is not defined: the grid is 1-D, of DIM0 cells")
			return nil
		}
		if !c.gridOK {
			if c.grid == nil && c.heldKarp {
				c.errorf(id.Pos, "%s is not defined: the problem has no grid", name)
			}
			return nil
		}
		v := c.rows
		switch {
		case c.dims == 3:
			// ROWS and COLS keep their meaning for the last two sides.
			v = map[string]int64{"DIM0": c.rows, "DIM1": c.mid, "ROWS": c.mid, "COLS": c.inner}[name]
		case name == "COLS" || name == "DIM1" || name == "DIM0" && c.dims == 1:
			v = c.cols
		}
		return intConst(v, id.Pos)
	case "cell":
		switch {
		case sc.mode == modeSchedule:
			c.errorf(id.Pos, "%s cannot read the grid", sc.what)
		case c.dims == 1:
			c.errorf(id.Pos, "cell needs a subscript: cell[k]")
		case c.dims == 3:
			c.errorf(id.Pos, "cell needs three subscripts: cell[k][i][j]")
		default:
			c.errorf(id.Pos, "cell needs two subscripts: cell[i][j]")
		}
		return nil
	case "DIM2":
		if c.entity(name) == nil {
			c.errorf(id.Pos, "DIM2 is not defined: the grid has %s (DIM2 is the third side of a 3-D grid, K x R x C)", c.dimsText())
			return nil
		}
	}
	e := c.lookup(id, sc)
	if e == nil {
		return nil
	}
	if e.input != nil && sc.mode == modeSchedule {
		c.errorf(id.Pos, "%s is an input: %s may use the index variables, scalars and constants, not inputs", name, sc.what)
		return nil
	}
	if e.input != nil {
		in := e.input.in
		if in.Vector {
			c.errorf(id.Pos, "%s is a vector: index it, %s[k], or use len(%s)", name, name, name)
		} else {
			c.errorf(id.Pos, "%s is a matrix: index it, %s[r][c], or use rows(%s) and cols(%s)", name, name, name, name)
		}
		return nil
	}
	s := e.scalar
	if !s.ok || s.t == ir.Invalid {
		return nil
	}
	return &ir.ScalarRef{Node: ir.Node{T: s.t, Pos: id.Pos}, Scalar: s.s}
}

// indexVar reports whether name is an index variable of the recurrence:
// of `cell[i][j]`, i is VarI and j VarJ; the one variable of a 1-D grid's
// `cell[j]` is VarJ (the grid is lowered to 1 x N); of a 3-D grid's
// `cell[k][i][j]`, k is VarI and i and j are parts of VarJ (indexVar3).
func (c *checker) indexVar(name string) (ir.VarKind, bool) {
	if c.recur == nil {
		return 0, false
	}
	vars := c.recur.Vars
	if len(vars) > 3 {
		vars = nil // reported, and not lowered
	}
	for k, v := range vars {
		if v != nil && v.Name == name {
			if k == len(vars)-1 || len(vars) == 3 && k == 1 {
				return ir.VarJ, true // a 3-D grid's i and j are parts of J
			}
			return ir.VarI, true
		}
	}
	return 0, false
}

// lookup finds a declared input or scalar and checks that sc may use it
// here: a derived scalar only uses earlier scalars, and the recurrence only
// names declared before it. It reports the error and returns nil otherwise.
func (c *checker) lookup(id *dsl.Ident, sc *scope) *entity {
	e := c.entity(id.Name)
	if e == nil {
		if what, ok := reserved[id.Name]; ok && what == "a built-in function" {
			c.errorf(id.Pos, "%s is a built-in function: call it, %s(...)", id.Name, id.Name)
			return nil
		}
		c.errorf(id.Pos, "%s", c.unknownName(id.Name, sc))
		return nil
	}
	switch {
	case sc.mode == modeConst && sc.self != nil && e.scalar != nil:
		self := sc.self
		if e.scalar == self {
			c.errorf(id.Pos, "scalar %s refers to itself", self.s.Name)
			return nil
		}
		if e.order > self.order {
			if path := c.scalarCycle(self, e.scalar); path != nil {
				c.errorf(id.Pos, "scalar %s is defined in a circle: %s", self.s.Name, strings.Join(path, " -> "))
			} else {
				c.errorf(id.Pos, "scalar %s uses %s, which is declared later (line %d); declare %s first", self.s.Name, e.name, e.pos.Line, e.name)
			}
			return nil
		}
	case sc.mode == modeRecur && e.order > c.recurOrder:
		if !c.laterReported[e.name] {
			if c.laterReported == nil {
				c.laterReported = map[string]bool{}
			}
			c.laterReported[e.name] = true
			c.errorf(id.Pos, "the recurrence uses %s, which is declared after it (line %d); move the declaration of %s above the recurrence", e.name, e.pos.Line, e.name)
		}
		return nil
	}
	return e
}

// scalarCycle returns the path self -> to -> ... -> self when scalar to
// (directly or through others) uses self, else nil.
func (c *checker) scalarCycle(self, to *scalarInfo) []string {
	seen := map[*scalarInfo]bool{}
	var walk func(s *scalarInfo) []string
	walk = func(s *scalarInfo) []string {
		if s == self {
			return []string{s.s.Name}
		}
		if seen[s] {
			return nil
		}
		seen[s] = true
		for _, name := range identNames(s.decl.Expr) {
			e := c.entity(name)
			if e == nil || e.scalar == nil {
				continue
			}
			if rest := walk(e.scalar); rest != nil {
				return append([]string{s.s.Name}, rest...)
			}
		}
		return nil
	}
	if rest := walk(to); rest != nil {
		return append([]string{self.s.Name}, rest...)
	}
	return nil
}

// identNames lists the names an expression mentions, in order.
func identNames(e dsl.Expr) []string {
	var out []string
	var walk func(e dsl.Expr)
	walk = func(e dsl.Expr) {
		switch e := e.(type) {
		case *dsl.Ident:
			out = append(out, e.Name)
		case *dsl.Paren:
			walk(e.X)
		case *dsl.Unary:
			walk(e.X)
		case *dsl.Binary:
			walk(e.X)
			walk(e.Y)
		case *dsl.Ternary:
			walk(e.Cond)
			walk(e.T)
			walk(e.F)
		case *dsl.Index:
			for _, x := range e.Indices {
				walk(x)
			}
		case *dsl.Call:
			for _, x := range e.Args {
				walk(x)
			}
			for _, x := range e.Emits {
				if x != nil {
					walk(x)
				}
			}
		case *dsl.Reduce:
			walk(e.Lo)
			walk(e.Hi)
			walk(e.Body)
		}
	}
	walk(e)
	return out
}

// unknownName is the message for a name that is not declared, with the
// nearest known name as a suggestion.
func (c *checker) unknownName(name string, sc *scope) string {
	var cands []string
	for n := range c.names {
		cands = append(cands, n)
	}
	if sc == nil || sc.mode != modeConst {
		cands = append(cands, "ROWS", "COLS", "DIM0")
		if c.dims != 1 {
			cands = append(cands, "DIM1")
		}
		if c.recur != nil && (sc == nil || sc.mode == modeRecur || sc.mode == modeSchedule) {
			for _, v := range c.recur.Vars {
				if v != nil {
					cands = append(cands, v.Name)
				}
			}
		}
	}
	if sc != nil {
		for _, v := range sc.vars {
			cands = append(cands, v.Name)
		}
	}
	sort.Strings(cands)
	if near := closest(name, cands); near != "" {
		return fmt.Sprintf("unknown name %s (did you mean %s?)", name, near)
	}
	return fmt.Sprintf("unknown name %s", name)
}

// index checks a subscript: an integer (char is promoted to int).
func (c *checker) index(e ir.Expr, at dsl.Expr) ir.Expr {
	if e == nil {
		return nil
	}
	switch t := e.Type(); {
	case untyped(e):
		c.errorf(startPos(at), "a subscript cannot be inf")
		return nil
	case t.IsFloat():
		c.errorf(startPos(at), "a subscript must be an integer, but %s is %s", dsl.ExprString(at), t)
		return nil
	case t == ir.Bool:
		c.errorf(startPos(at), "a subscript must be an integer, but %s is a condition (bool)", dsl.ExprString(at))
		return nil
	case t.Promoted() != t:
		return c.conv(e, t.Promoted()) // char, short
	}
	return e
}

func (c *checker) lowerIndex(ix *dsl.Index, sc *scope) ir.Expr {
	if ix.Name == nil {
		c.errorf(ix.Pos, "missing name before [")
		return nil
	}
	name := ix.Name.Name
	if t := c.tableIndex(name); t >= 0 && c.entity(name) == nil {
		return c.lowerTableRef(ix, t, sc)
	}
	if c.named() && c.entity(name) == nil && (name == "cell" || reserved[name] == "") && !c.isVarName(name, sc) {
		msg := fmt.Sprintf("unknown table %s (the tables are %s)", name, c.tableNames())
		if near := closest(name, c.p.Tables); near != "" {
			msg = fmt.Sprintf("unknown table %s (did you mean %s? the tables are %s)", name, near, c.tableNames())
		}
		c.errorf(ix.Pos, "%s", msg)
		return nil
	}
	if name == "cell" {
		return c.lowerCellRef(ix, sc)
	}
	isVar := false
	for _, v := range sc.vars {
		isVar = isVar || v.Name == name
	}
	if _, ok := c.indexVar(name); ok && sc.mode != modeConst {
		isVar = true
	}
	if isVar {
		c.errorf(ix.Pos, "%s is an index variable and cannot be indexed", name)
		return nil
	}
	if name == "ROWS" || name == "COLS" || name == "DIM0" || name == "DIM1" {
		c.errorf(ix.Pos, "%s is a number and cannot be indexed", name)
		return nil
	}
	e := c.lookup(ix.Name, sc)
	if e == nil {
		return nil
	}
	if e.scalar != nil {
		c.errorf(ix.Pos, "%s is a scalar and cannot be indexed", name)
		return nil
	}
	info := e.input
	in := info.in
	switch {
	case sc.mode == modeSchedule:
		c.errorf(ix.Pos, "%s cannot read elements of input %s (it may use len(%s), rows(%s) and cols(%s))", sc.what, name, name, name, name)
		return nil
	case sc.mode == modeConst && len(sc.vars) == 0:
		// A scalar reduces over an input (contract v2 §7.5) rather than
		// picking elements of it.
		c.errorf(ix.Pos, "%s cannot read elements of input %s outside a reduction (it may use len(%s), rows(%s) and cols(%s), or reduce over %s, as in sum(k in 0..len(%s)-1: %s[k]))", sc.what, name, name, name, name, name, name, name)
		return nil
	}
	want := 2
	if in.Vector {
		want = 1
	}
	if len(ix.Indices) != want {
		if in.Vector {
			c.errorf(ix.Pos, "%s is a vector: it takes one subscript, %s[k], not %d", name, name, len(ix.Indices))
		} else {
			c.errorf(ix.Pos, "%s is a matrix: it takes two subscripts, %s[r][c], not %d", name, name, len(ix.Indices))
		}
		return nil
	}
	idx := make([]ir.Expr, want)
	bad := false
	sub := noEmits(sc, "a subscript")
	for k, x := range ix.Indices {
		idx[k] = c.index(c.lower(x, sub), x)
		bad = bad || idx[k] == nil
	}
	if bad || in.T == ir.Invalid || sc.mode == modeConst && !info.ok {
		return nil // (a scalar is computed from the data: without it, not at all)
	}
	if info.ok {
		c.checkConstIndex(ix, in, idx)
	}
	return &ir.Load{Node: ir.Node{T: in.T, Pos: ix.Pos}, In: in, Index: idx}
}

// checkConstIndex reports constant subscripts outside an input.
func (c *checker) checkConstIndex(ix *dsl.Index, in *ir.Input, idx []ir.Expr) {
	var ks []int64
	for _, x := range idx {
		k, ok := x.(*ir.Const)
		if !ok {
			return
		}
		ks = append(ks, k.V.I)
	}
	if in.Vector {
		if ks[0] < 0 || ks[0] >= int64(in.Cols) {
			c.errorf(ix.Pos, "index %d is outside %s (%d elements: 0..%d)", ks[0], in.Name, in.Cols, in.Cols-1)
		}
		return
	}
	if ks[0] < 0 || ks[0] >= int64(in.Rows) || ks[1] < 0 || ks[1] >= int64(in.Cols) {
		c.errorf(ix.Pos, "index [%d][%d] is outside %s (%dx%d)", ks[0], ks[1], in.Name, in.Rows, in.Cols)
	}
}

// lowerCellRef lowers cell[i][j], or cell[e] in a 1-D grid: that is
// lowered to cell[0][e] of the 1 x N grid (ir.Problem.Dims), marked OneD.
func (c *checker) lowerCellRef(ix *dsl.Index, sc *scope) ir.Expr {
	if sc.mode == modeConst || sc.mode == modeSchedule {
		c.errorf(ix.Pos, "%s cannot read the grid", sc.what)
		return nil
	}
	oneD := c.dims == 1
	if want := c.subscripts(); len(ix.Indices) != want {
		switch {
		case c.arityReported:
			// The left side already disagrees with the grid line: the
			// references are likely right and the line wrong.
		case c.grid == nil:
			c.errorf(ix.Pos, "cell needs %d subscript%s, as the recurrence's left side, not %d", want, plural(want), len(ix.Indices))
		case oneD:
			c.errorf(ix.Pos, "cell takes one subscript, cell[k], not %d: the grid is 1-D (line %d gives one side)", len(ix.Indices), c.grid.Pos.Line)
		case c.dims == 3:
			c.errorf(ix.Pos, "cell needs three subscripts, cell[k][i][j], not %d: the grid is 3-D (line %d gives three sides)", len(ix.Indices), c.grid.Pos.Line)
		default:
			c.errorf(ix.Pos, "cell needs two subscripts, cell[i][j], not %d: the grid is 2-D (line %d gives two sides)", len(ix.Indices), c.grid.Pos.Line)
		}
		return nil
	}
	ref := &ir.CellRef{Node: ir.Node{T: c.cellType, Pos: ix.Pos}, ID: -1, Text: c.sourceText(ix), OneD: oneD}
	if sc.mode == modeRecur && !sc.argEmit {
		// The ID is taken before the subscripts are lowered so that
		// references nested in subscripts come after, in source order.
		ref.ID = len(c.p.CellRefs)
		c.p.CellRefs = append(c.p.CellRefs, ref)
	}
	sub := noEmits(sc, "a subscript")
	if c.dims == 3 {
		if !c.lowerCellRef3(ix, ref, sc) {
			return nil
		}
		return ref
	}
	if oneD {
		ref.I = intConst(0, ix.Pos)
		ref.J = c.index(c.lower(ix.Indices[0], sub), ix.Indices[0])
	} else {
		ref.I = c.index(c.lower(ix.Indices[0], sub), ix.Indices[0])
		ref.J = c.index(c.lower(ix.Indices[1], sub), ix.Indices[1])
	}
	if ref.I == nil || ref.J == nil {
		return nil
	}
	ki, ok1 := ref.I.(*ir.Const)
	kj, ok2 := ref.J.(*ir.Const)
	// Constant references outside the grid: in the recurrence here; the
	// answer's are checked by package plan, which reads them.
	if ok1 && ok2 && c.gridOK && !c.heldKarp && sc.mode == modeRecur {
		if ki.V.I < 0 || ki.V.I >= c.rows || kj.V.I < 0 || kj.V.I >= c.cols {
			at := c.p.CellText(ki.V.I, kj.V.I)
			if at == ref.Text {
				c.errorf(ix.Pos, "%s is outside the %s", at, c.p.GridText())
			} else {
				c.errorf(ix.Pos, "%s reads %s, outside the %s", ref.Text, at, c.p.GridText())
			}
			return nil
		}
	}
	return ref
}

// subscripts is how many subscripts a cell reference takes: the grid
// line's sides, or without one the recurrence's index variables.
func (c *checker) subscripts() int {
	if c.dims == 1 || c.dims == 3 {
		return c.dims
	}
	return 2
}

// dimsText is the grid's dimensions for messages: "1 dimension".
func (c *checker) dimsText() string {
	d := c.subscripts()
	return fmt.Sprintf("%d dimension%s", d, plural(d))
}

// sourceText is an indexing as written in the source, e.g.
// "cell[i-1][w-wt[i-1]]"; without the source it is printed from the tree.
func (c *checker) sourceText(ix *dsl.Index) string {
	src := c.file.Source
	start := ix.Pos.Offset
	if ix.Name != nil && ix.Name.Pos.IsValid() {
		start = ix.Name.Pos.Offset
	}
	name := ix.Name.Name
	if ix.Pos.IsValid() && start >= 0 && start+len(name) <= len(src) && string(src[start:start+len(name)]) == name {
		k, n := start+len(name), 0
		for n < len(ix.Indices) {
			for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
				k++
			}
			if k >= len(src) || src[k] != '[' {
				break
			}
			depth := 0
			for ; k < len(src); k++ {
				switch src[k] {
				case '\'':
					// skip a character literal, which may hold a bracket
					if end := strings.IndexByte(string(src[k+1:min(k+6, len(src))]), '\''); end >= 0 {
						k += end + 1
					}
					continue
				case '[':
					depth++
				case ']':
					depth--
				case '\n':
					k = len(src)
				}
				if depth == 0 {
					k++
					break
				}
			}
			if depth != 0 {
				break
			}
			n++
		}
		if n == len(ix.Indices) {
			return string(src[start:k])
		}
	}
	return dsl.ExprString(ix)
}

var mathFuncs = map[string]ir.Func{
	"exp": ir.FnExp, "log": ir.FnLog, "sqrt": ir.FnSqrt, "pow": ir.FnPow, "floor": ir.FnFloor, "ceil": ir.FnCeil,
}

var knownFuncs = []string{"abs", "ceil", "cols", "exp", "floor", "len", "log", "max", "min", "pow", "rows", "sqrt", "sum"}

func (c *checker) lowerCall(call *dsl.Call, sc *scope) ir.Expr {
	if call.Func == nil {
		c.errorf(call.Pos, "missing function name")
		return nil
	}
	name := call.Func.Name
	nargs := len(call.Args)
	switch name {
	case "len", "rows", "cols":
		return c.lowerSize(call, sc)
	case "sum":
		c.errorf(call.Pos, "sum is a reduction: sum(k in LO..HI: EXPR)")
		return nil
	}
	arity := map[string]int{"abs": 1, "exp": 1, "log": 1, "sqrt": 1, "floor": 1, "ceil": 1, "pow": 2}
	want, fixed := arity[name]
	isMinMax := name == "min" || name == "max"
	if !fixed && !isMinMax {
		if e := c.entity(name); e != nil {
			c.errorf(call.Func.Pos, "%s is %s %s, not a function", name, article(e.kind()), e.kind())
		} else if near := closest(name, knownFuncs); near != "" {
			c.errorf(call.Func.Pos, "unknown function %s (did you mean %s?)", name, near)
		} else {
			c.errorf(call.Func.Pos, "unknown function %s (functions: %s)", name, strings.Join(knownFuncs, ", "))
		}
		return nil
	}
	switch {
	case isMinMax && nargs < 2:
		c.errorf(call.Pos, "%s needs at least 2 arguments, not %d (or a reduction: %s(k in LO..HI: EXPR))", name, nargs, name)
		return nil
	case fixed && nargs != want:
		c.errorf(call.Pos, "%s takes %d argument%s, not %d", name, want, plural(want), nargs)
		return nil
	}
	args := make([]ir.Expr, nargs)
	bad := false
	for k, a := range call.Args {
		args[k] = c.lower(a, sc)
		bad = bad || args[k] == nil
	}
	emits, ok := c.lowerArgEmits(call, sc, isMinMax)
	if bad || !ok {
		return nil
	}
	var t ir.Type
	var fn ir.Func
	switch {
	case isMinMax:
		fn = ir.FnMin
		if name == "max" {
			fn = ir.FnMax
		}
		// The common type of the typed arguments; untyped inf takes it.
		same := true
		for _, a := range args {
			if untyped(a) {
				continue
			}
			switch {
			case t == ir.Invalid:
				t = a.Type()
			case a.Type() != t:
				same = false
				t = arith(t, a.Type())
			}
		}
		switch {
		case t == ir.Invalid:
			t = c.cellType
		case !same || t == ir.Bool:
			t = promote1(t)
		}
		if t.IsInteger() && !t.HasInf() {
			for _, a := range args {
				if untyped(a) {
					t = t.Promoted() // inf has no char form
				}
			}
		}
	case name == "abs":
		fn = ir.FnAbs
		args[0] = c.settle(args[0])
		t = promote1(args[0].Type())
	default:
		fn = mathFuncs[name]
		t = ir.Float
		for _, a := range args {
			if untyped(a) || a.Type() != ir.Float {
				t = ir.Double
			}
		}
	}
	consts := true
	for k := range args {
		args[k] = c.conv(args[k], t)
		if args[k] == nil {
			return nil
		}
		_, ok := args[k].(*ir.Const)
		consts = consts && ok
	}
	if consts && (isMinMax || fn == ir.FnAbs) && emits == nil {
		v := args[0].(*ir.Const).V
		for _, a := range args[1:] {
			w := a.(*ir.Const).V
			if (fn == ir.FnMin && less(w, v)) || (fn == ir.FnMax && less(v, w)) {
				v = w
			}
		}
		if fn == ir.FnAbs && less(v, ir.Value{T: v.T}) {
			var err error
			if v, err = negate(v); err != nil {
				c.errorf(call.Pos, "%v", err)
				return nil
			}
		}
		return &ir.Const{Node: ir.Node{T: t, Pos: call.Pos}, V: v}
	}
	return &ir.Call{Node: ir.Node{T: t, Pos: call.Pos}, Fn: fn, Args: args, Emits: emits}
}

// lowerArgEmits checks and lowers the emits that follow arguments of call
// (ir.Call.Emits): only min's and max's, only where sc allows them, each a
// number or a character as a case's emit is. ok is false when one was
// reported.
func (c *checker) lowerArgEmits(call *dsl.Call, sc *scope, isMinMax bool) (emits []ir.Expr, ok bool) {
	if call.Emits == nil {
		return nil, true
	}
	ok = true
	es := *sc
	es.emits, es.place, es.argEmit = false, "the emit of an argument", true
	for k, x := range call.Emits {
		if x == nil {
			continue
		}
		switch {
		case !isMinMax:
			c.errorf(startPos(x), "`emit` may follow only an argument of min or max, whose winning argument a traceback step follows; not of %s", call.Func.Name)
			ok = false
			continue
		case !sc.emits:
			where := sc.place
			if where == "" {
				where = sc.what
			}
			c.errorf(startPos(x), "`emit` after an argument stands only in a case's value, where it says what a traceback step emits when the argument wins; not in %s", where)
			ok = false
			continue
		}
		e := c.settle(c.lower(x, &es))
		switch {
		case e == nil:
			ok = false
			continue
		case e.Type() == ir.Bool:
			c.errorf(startPos(x), "emit needs a number or a character, but %s is a condition (bool); write (%s) ? 1 : 0", dsl.ExprString(x), dsl.ExprString(x))
			ok = false
			continue
		}
		if emits == nil {
			emits = make([]ir.Expr, len(call.Args))
		}
		emits[k] = e
	}
	if !ok {
		return nil, false
	}
	return emits, true
}

func article(kind string) string {
	if strings.IndexByte("aeiou", kind[0]) >= 0 {
		return "an"
	}
	return "a"
}

// less compares two constants of one type.
func less(a, b ir.Value) bool {
	if a.T.IsFloat() {
		return a.F < b.F
	}
	return a.I < b.I
}

// lowerSize folds len(V), rows(M) and cols(M) to constants.
func (c *checker) lowerSize(call *dsl.Call, sc *scope) ir.Expr {
	name := call.Func.Name
	if len(call.Args) != 1 {
		c.errorf(call.Pos, "%s takes 1 input, not %d arguments", name, len(call.Args))
		return nil
	}
	id, ok := call.Args[0].(*dsl.Ident)
	for p, isParen := call.Args[0].(*dsl.Paren); isParen && !ok; p, isParen = p.X.(*dsl.Paren) {
		id, ok = p.X.(*dsl.Ident)
	}
	if !ok {
		c.errorf(startPos(call.Args[0]), "%s needs the name of an input, not %s", name, dsl.ExprString(call.Args[0]))
		return nil
	}
	if id.Name == "cell" {
		size := "ROWS x COLS"
		if c.dims == 1 {
			size = "DIM0"
		}
		c.errorf(id.Pos, "%s needs an input; the grid's size is %s", name, size)
		return nil
	}
	e := c.lookup(id, sc)
	if e == nil {
		return nil
	}
	if e.scalar != nil {
		c.errorf(id.Pos, "%s needs an input, but %s is a scalar", name, id.Name)
		return nil
	}
	info := e.input
	in := info.in
	var v int
	switch name {
	case "len":
		if !in.Vector {
			c.errorf(call.Pos, "len needs a vector, but %s is a matrix: use rows(%s) or cols(%s)", id.Name, id.Name, id.Name)
			return nil
		}
		v = in.Cols
	case "rows":
		v = in.Rows
	case "cols":
		v = in.Cols
	}
	if !info.ok {
		return nil
	}
	return intConst(int64(v), call.Pos)
}

func (c *checker) lowerReduce(r *dsl.Reduce, sc *scope) ir.Expr {
	if r.Func == nil || r.Var == nil {
		c.errorf(r.Pos, "incomplete reduction")
		return nil
	}
	var op ir.ReduceOp
	switch r.Func.Name {
	case "min":
		op = ir.ReduceMin
	case "max":
		op = ir.ReduceMax
	case "sum":
		op = ir.ReduceSum
	default:
		c.errorf(r.Func.Pos, "only min, max and sum reduce over a range, not %s", r.Func.Name)
		return nil
	}
	if sc.mode == modeSchedule {
		c.errorf(r.Pos, "%s cannot use a reduction", sc.what)
		return nil
	}
	name := r.Var.Name
	if why := c.shadows(name, sc); why != "" {
		c.errorf(r.Var.Pos, "reduction variable %s shadows %s; choose another name", name, why)
		return nil
	}
	bounds := noEmits(sc, "the bounds of a reduction")
	lo := c.bound(c.lower(r.Lo, bounds), r.Lo)
	hi := c.bound(c.lower(r.Hi, bounds), r.Hi)
	vt := ir.Int
	if (lo != nil && lo.Type() == ir.Long) || (hi != nil && hi.Type() == ir.Long) {
		vt = ir.Long
	}
	red := &ir.Reduce{Node: ir.Node{Pos: r.Pos}, Op: op, Lo: c.conv(lo, vt), Hi: c.conv(hi, vt)}
	red.Var = &ir.Var{Node: ir.Node{T: vt, Pos: r.Var.Pos}, Kind: ir.VarReduce, Name: name, Reduce: red}
	inner := *sc
	inner.vars = append(append([]*ir.Var(nil), sc.vars...), red.Var)
	body := c.lower(r.Body, &inner)
	if body == nil || red.Lo == nil || red.Hi == nil {
		return nil
	}
	body = c.settle(body)
	t := body.Type()
	if op == ir.ReduceSum || t == ir.Bool {
		t = promote1(t)
	}
	red.T = t
	red.Body = c.conv(body, t)
	if red.Body == nil {
		return nil
	}
	return red
}

// bound checks a reduction bound: an integer.
func (c *checker) bound(e ir.Expr, at dsl.Expr) ir.Expr {
	if e == nil {
		return nil
	}
	switch t := e.Type(); {
	case untyped(e):
		c.errorf(startPos(at), "a reduction bound cannot be inf")
		return nil
	case t.IsFloat() || t == ir.Bool:
		c.errorf(startPos(at), "reduction bounds must be integers, but %s is %s", dsl.ExprString(at), t)
		return nil
	}
	return c.conv(e, promote1(e.Type()))
}

// shadows says what a new variable name would hide ("" if nothing).
func (c *checker) shadows(name string, sc *scope) string {
	if what, ok := reserved[name]; ok {
		return name + ", " + what
	}
	if e := c.entity(name); e != nil {
		return fmt.Sprintf("the %s %s (line %d)", e.kind(), name, e.pos.Line)
	}
	for _, v := range sc.vars {
		if v.Name == name {
			return "the variable of an enclosing reduction"
		}
	}
	if _, ok := c.indexVar(name); ok && sc.mode == modeRecur {
		return "an index variable of the recurrence"
	}
	return ""
}
