package sema

import (
	"math"
	"strings"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
)

// checkRecurrence checks the left side and the cases of the recurrence and
// lowers them. Case values are converted to the cell type, conditions to
// bool.
func (c *checker) checkRecurrence() {
	r := c.recur
	if r == nil {
		if !c.heldKarp {
			lhs := "cell[i][j]"
			switch c.dims {
			case 1:
				lhs = "cell[i]"
			case 3:
				lhs = "cell[k][i][j]"
			}
			c.errorf(c.filePos(), "no recurrence: define the cells, e.g. `%s = ... when ... | ... otherwise`", lhs)
		}
		return
	}
	if len(c.tables) > 1 && c.dims == 3 {
		c.errorf(c.tables[1].decl.Pos, "several tables are not supported yet on a 3-D grid (%s): only on 1-D and 2-D grids",
			c.tableNames())
		return
	}
	if c.named() {
		c.checkTables()
		return
	}
	c.p.RecurPos = r.Pos
	if r.Target != "cell" {
		c.errorf(r.Pos, "the recurrence must define %s, not %s", "cell"+strings.Repeat("[...]", c.subscripts()), r.Target)
	}
	if !c.checkLeftSide(r) {
		return
	}
	if ks, ok := c.lowerCases(r); ok {
		c.p.Cases = ks
	}
}

// lowerCases checks and lowers the cases of one table's recurrence. It
// reports whether every case could be lowered.
func (c *checker) lowerCases(r *dsl.RecurrenceDecl) ([]*ir.Case, bool) {
	if len(r.Cases) == 0 {
		c.errorf(r.Pos, "the recurrence has no cases")
		return nil, false
	}
	single := len(r.Cases) == 1 && r.Cases[0].Cond == nil && !r.Cases[0].Otherwise
	var otherwise *dsl.Case
	var cases []*ir.Case
	good := true
	for _, cs := range r.Cases {
		if cs == nil {
			continue
		}
		switch {
		case otherwise != nil:
			c.errorf(cs.Pos, "this case comes after `otherwise` (line %d) and can never be used", otherwise.Pos.Line)
		case cs.Otherwise:
			otherwise = cs
		case cs.Cond == nil && !single:
			c.errorf(cs.Pos, "a case needs `when COND` or `otherwise` when the recurrence has several cases")
		}
		k := c.lowerCase(cs)
		if k == nil {
			good = false
			continue
		}
		cases = append(cases, k)
	}
	last := r.Cases[len(r.Cases)-1]
	if !single && otherwise == nil && last != nil && last.Cond != nil {
		c.errorf(last.Pos, "the last case must be `otherwise`: a cell that no condition matches would have no value")
		good = false
	}
	return cases, good
}

// checkLeftSide checks the index variables of the recurrence's left side:
// as many as the grid has dimensions, names that hide nothing, different.
// It sets the problem's IVar and JVar: a 1-D grid's one variable is the
// column variable of the 1 x N grid it is lowered to. It reports whether
// the cases can be lowered.
func (c *checker) checkLeftSide(r *dsl.RecurrenceDecl) bool {
	vars := r.Vars
	for _, v := range vars {
		if v == nil {
			c.errorf(r.Pos, "the recurrence's left side names its index variables: cell[i][j], or cell[i] for a 1-D grid")
			return false
		}
	}
	gridLine := 0
	if c.grid != nil {
		gridLine = c.grid.Pos.Line
	}
	switch {
	case len(vars) == 0:
		c.errorf(r.Pos, "the recurrence's left side names its index variables: cell[i][j], or cell[i] for a 1-D grid")
		return false
	case len(vars) > 3:
		c.errorf(r.Pos, "the recurrence's left side has %d index variables: a grid has at most three, cell[k][i][j]", len(vars))
		c.arityReported = true
		return false
	case c.dims == 1 && len(vars) == 2:
		c.errorf(vars[1].Pos, "the grid is 1-D (line %d gives one side): the left side takes one index variable, as in cell[%s]", gridLine, vars[1].Name)
		c.arityReported = true
		return false
	case c.dims == 2 && len(vars) == 1:
		c.errorf(r.Pos, "the grid is 2-D (line %d gives two sides): the left side takes two index variables, as in cell[i][j]", gridLine)
		c.arityReported = true
		return false
	case c.dims != 0 && len(vars) != c.dims:
		at := r.Pos
		if len(vars) > c.dims {
			at = vars[c.dims].Pos
		}
		c.errorf(at, "the grid is %s (line %d gives %s): the left side takes %s, as in %s",
			[4]string{"", "1-D", "2-D", "3-D"}[c.dims], gridLine, [4]string{"", "one side", "two sides", "three sides"}[c.dims],
			[4]string{"", "one index variable", "two index variables", "three index variables"}[c.dims], c.lhsExample(vars))
		c.arityReported = true
		return false
	}
	switch len(vars) {
	case 1:
		c.p.IVar, c.p.JVar = "", vars[0].Name
	case 2:
		c.p.IVar, c.p.JVar = vars[0].Name, vars[1].Name
	case 3:
		c.p.IVar, c.p.JVar = vars[0].Name, jvar3(vars[1].Name, vars[2].Name, c.inner)
		c.p.Vars3 = [3]string{vars[0].Name, vars[1].Name, vars[2].Name}
	}
	for _, v := range vars {
		if why := c.shadows(v.Name, &scope{mode: modeConst}); why != "" {
			c.errorf(v.Pos, "index variable %s shadows %s; rename one of them", v.Name, why)
		}
	}
	if len(vars) == 2 && vars[0].Name == vars[1].Name {
		c.errorf(vars[1].Pos, "the two index variables must differ: cell[%s][%s]", vars[0].Name, vars[1].Name)
	}
	if len(vars) == 3 {
		for a := 0; a < 3; a++ {
			for b := a + 1; b < 3; b++ {
				if vars[a].Name == vars[b].Name {
					c.errorf(vars[b].Pos, "the three index variables must differ: cell[%s][%s][%s]", vars[0].Name, vars[1].Name, vars[2].Name)
					return true
				}
			}
		}
	}
	return true
}

// checkSchedule lowers EXPR of `schedule: t = EXPR`. It comes after the
// recurrence, whose left side binds the index variables EXPR names,
// wherever the line is. Only names and types are checked here: whether EXPR
// is linear, and orders the recurrence's cells, is the planner's question.
func (c *checker) checkSchedule() {
	s := c.schedule
	if s == nil || c.recur == nil || c.arityReported {
		return // without index variables EXPR cannot be read
	}
	sc := &scope{mode: modeSchedule, what: "schedule: t = EXPR", where: s.ValuePos}
	e := c.lower(s.Expr, sc)
	if e == nil {
		return
	}
	switch t := e.Type(); {
	case untyped(e):
		c.errorf(startPos(s.Expr), "schedule: t = EXPR needs an integer expression, not inf")
		return
	case t.IsFloat():
		c.errorf(startPos(s.Expr), "schedule: t = EXPR needs an integer expression, but %s is %s", dsl.ExprString(s.Expr), t)
		return
	case t == ir.Bool:
		c.errorf(e.Position(), "schedule: t = EXPR needs an integer expression, but %s is a condition (bool)", dsl.ExprString(s.Expr))
		return
	}
	c.p.ScheduleExpr = c.conv(e, promote1(e.Type()))
}

func (c *checker) lowerCase(cs *dsl.Case) *ir.Case {
	sc := &scope{mode: modeRecur, what: "the recurrence", where: cs.Pos, emits: true}
	k := &ir.Case{Pos: cs.Pos}
	// Source order: value, condition, emit, so that cell references are
	// numbered as they are written.
	v := c.lower(cs.Value, sc)
	if v != nil && c.cellType.IsInteger() && v.Type().IsFloat() && !integral(v) {
		// C's conversion, as documented; but a fraction dropped into
		// integer cells is rarely what a file means (a distance of
		// doubles in the default int cells).
		c.p.Notes.Add(startPos(cs.Value), "this value is %s, stored in %s cells: its fraction is dropped (rounded toward zero); declare `cell: double` to keep it, or write floor(...) or ceil(...) to say which whole number",
			v.Type(), c.cellType)
	}
	k.Value = c.conv(v, c.cellType)
	if cs.Cond != nil {
		k.Cond = c.toBool(c.lower(cs.Cond, noEmits(sc, "a case's condition")))
	}
	ok := k.Value != nil && (cs.Cond == nil || k.Cond != nil)
	if cs.Emit != nil {
		k.Emit = c.settle(c.lower(cs.Emit, noEmits(sc, "the case's emit")))
		if k.Emit != nil && k.Emit.Type() == ir.Bool {
			c.errorf(startPos(cs.Emit), "emit needs a number or a character, but %s is a condition (bool); write (%s) ? 1 : 0", dsl.ExprString(cs.Emit), dsl.ExprString(cs.Emit))
			k.Emit = nil
		}
		ok = ok && k.Emit != nil
	}
	if !ok {
		return nil
	}
	return k
}

// checkAnswer lowers `answer:`. Its cell references have ID -1.
func (c *checker) checkAnswer() {
	a := c.answer
	if a == nil {
		return
	}
	c.p.AnswerPos = a.Pos
	sc := &scope{mode: modeAnswer, what: "answer:", where: a.Pos}
	e := c.settle(c.lower(a.Expr, sc))
	if e == nil {
		return
	}
	if e.Type() == ir.Bool {
		c.errorf(startPos(a.Expr), "answer: needs a number, but %s is a condition (bool)", dsl.ExprString(a.Expr))
		return
	}
	c.p.Answer = e
}

// markInf finds, bottom-up, the expressions that may carry the integer inf
// sentinel and sets Saturate on the integer + - * / % that read them. A cell
// may be inf when some case value may be: the least fixed point is reached
// by first looking at the case values with cells taken as finite.
func (c *checker) markInf() {
	cellInf := false
	for _, k := range c.p.Cases {
		if c.mayInf(k.Value, false) {
			cellInf = true
		}
	}
	for _, k := range c.p.Cases {
		c.mayInf(k.Cond, cellInf)
		c.mayInf(k.Value, cellInf)
		c.mayInf(k.Emit, cellInf)
	}
	c.mayInf(c.p.Answer, cellInf)
}

// inputInf reports whether an element of in is inf or -inf (an IEEE
// infinity, or the sentinel of its integer type), looking at each input
// once.
func (c *checker) inputInf(in *ir.Input) bool {
	if v, ok := c.infInputs[in]; ok {
		return v
	}
	shared := c.shared[in]
	if len(in.F) == 0 && shared.hasNoInf(in.T) {
		return false
	}
	found := in.HoldsInf()
	if c.infInputs == nil {
		c.infInputs = map[*ir.Input]bool{}
	}
	c.infInputs[in] = found
	if !found && len(in.F) == 0 {
		shared.addNoInf(in.T)
	}
	return found
}

// mayInf reports whether e may evaluate to inf or -inf, marking the integer
// additions and subtractions under it that must saturate.
func (c *checker) mayInf(e ir.Expr, cellInf bool) bool {
	switch n := e.(type) {
	case nil:
		return false
	case *ir.Inf:
		return true
	case *ir.CellRef:
		c.mayInf(n.I, cellInf)
		c.mayInf(n.J, cellInf)
		return cellInf
	case *ir.Load:
		for _, x := range n.Index {
			c.mayInf(x, cellInf)
		}
		return c.inputInf(n.In)
	case *ir.ScalarRef:
		v := n.Scalar.Value
		return v.T.IsFloat() && math.IsInf(v.F, 0)
	case *ir.Unary:
		x := c.mayInf(n.X, cellInf)
		return n.Op == ir.OpNeg && x
	case *ir.Binary:
		x, y := c.mayInf(n.X, cellInf), c.mayInf(n.Y, cellInf)
		switch n.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem:
			if (x || y) && n.T.IsInteger() {
				n.Saturate = true
			}
		}
		switch n.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul:
			return x || y
		case ir.OpDiv:
			return x // inf / finite is inf; finite / inf is 0
		}
		return false
	case *ir.Select:
		c.mayInf(n.Cond, cellInf)
		x, y := c.mayInf(n.Then, cellInf), c.mayInf(n.Else, cellInf)
		return x || y
	case *ir.Convert:
		x := c.mayInf(n.X, cellInf)
		return x && n.T != ir.Bool
	case *ir.Call:
		any := false
		for _, a := range n.Args {
			if c.mayInf(a, cellInf) {
				any = true
			}
		}
		for _, x := range n.Emits {
			c.mayInf(x, cellInf) // no part of the value, but computed by the traceback
		}
		return any
	case *ir.Reduce:
		c.mayInf(n.Lo, cellInf)
		c.mayInf(n.Hi, cellInf)
		body := c.mayInf(n.Body, cellInf)
		if n.Op == ir.ReduceSum {
			return body
		}
		lo, ok1 := n.Lo.(*ir.Const)
		hi, ok2 := n.Hi.(*ir.Const)
		if ok1 && ok2 && lo.V.I <= hi.V.I {
			return body // never empty
		}
		return true // an empty range gives inf or -inf
	}
	return false
}

// lhsExample is the left side the grid line asks for, with the user's
// variable names where there are enough of them.
func (c *checker) lhsExample(vars []*dsl.Ident) string {
	def := [4][]string{nil, {"i"}, {"i", "j"}, {"k", "i", "j"}}[c.dims]
	names := make([]string, c.dims)
	for k := range names {
		names[k] = def[k]
		if len(vars) >= c.dims && vars[k] != nil {
			names[k] = vars[k].Name
		}
	}
	return "cell[" + strings.Join(names, "][") + "]"
}

// integral reports whether floating e is a whole number wherever it is
// defined: floor, ceil, a whole constant, inf, an integer converted, and
// ?:, min, max, abs, negation, sums and products of such.
func integral(e ir.Expr) bool {
	switch n := e.(type) {
	case *ir.Inf:
		return true
	case *ir.Const:
		return !n.T.IsFloat() || n.V.F == math.Trunc(n.V.F) || math.IsInf(n.V.F, 0)
	case *ir.Convert:
		return !n.X.Type().IsFloat() || integral(n.X)
	case *ir.Select:
		return integral(n.Then) && integral(n.Else)
	case *ir.Unary:
		return n.Op == ir.OpNeg && integral(n.X)
	case *ir.Binary:
		switch n.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul:
			return integral(n.X) && integral(n.Y)
		}
	case *ir.Call:
		switch n.Fn {
		case ir.FnFloor, ir.FnCeil:
			return true
		case ir.FnMin, ir.FnMax, ir.FnAbs:
			for _, a := range n.Args {
				if !integral(a) {
					return false
				}
			}
			return true
		}
	}
	return !e.Type().IsFloat()
}
