package sema

import (
	"math"

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
			c.errorf(c.filePos(), "no recurrence: define the cells, e.g. `cell[i][j] = ... when ... | ... otherwise`")
		}
		return
	}
	c.p.RecurPos = r.Pos
	if r.Target != "cell" {
		c.errorf(r.Pos, "the recurrence must define cell[...][...], not %s", r.Target)
	}
	if r.I == nil || r.J == nil {
		c.errorf(r.Pos, "the recurrence's left side needs two index variables: cell[i][j]")
		return
	}
	c.p.IVar, c.p.JVar = r.I.Name, r.J.Name
	for _, v := range []*dsl.Ident{r.I, r.J} {
		if why := c.shadows(v.Name, &scope{mode: modeConst}); why != "" {
			c.errorf(v.Pos, "index variable %s shadows %s; rename one of them", v.Name, why)
		}
	}
	if r.I.Name == r.J.Name {
		c.errorf(r.J.Pos, "the two index variables must differ: cell[%s][%s]", r.I.Name, r.J.Name)
	}
	if len(r.Cases) == 0 {
		c.errorf(r.Pos, "the recurrence has no cases")
		return
	}
	single := len(r.Cases) == 1 && r.Cases[0].Cond == nil && !r.Cases[0].Otherwise
	var otherwise *dsl.Case
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
		c.p.Cases = append(c.p.Cases, k)
	}
	last := r.Cases[len(r.Cases)-1]
	if !single && otherwise == nil && last != nil && last.Cond != nil {
		c.errorf(last.Pos, "the last case must be `otherwise`: a cell that no condition matches would have no value")
	}
	if !good {
		c.p.Cases = nil
	}
}

func (c *checker) lowerCase(cs *dsl.Case) *ir.Case {
	sc := &scope{mode: modeRecur, what: "the recurrence", where: cs.Pos}
	k := &ir.Case{Pos: cs.Pos}
	// Source order: value, condition, emit, so that cell references are
	// numbered as they are written.
	k.Value = c.conv(c.lower(cs.Value, sc), c.cellType)
	if cs.Cond != nil {
		k.Cond = c.toBool(c.lower(cs.Cond, sc))
	}
	ok := k.Value != nil && (cs.Cond == nil || k.Cond != nil)
	if cs.Emit != nil {
		k.Emit = c.settle(c.lower(cs.Emit, sc))
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
		if mayInf(k.Value, false) {
			cellInf = true
		}
	}
	for _, k := range c.p.Cases {
		mayInf(k.Cond, cellInf)
		mayInf(k.Value, cellInf)
		mayInf(k.Emit, cellInf)
	}
	mayInf(c.p.Answer, cellInf)
}

// mayInf reports whether e may evaluate to inf or -inf, marking the integer
// additions and subtractions under it that must saturate.
func mayInf(e ir.Expr, cellInf bool) bool {
	switch n := e.(type) {
	case nil:
		return false
	case *ir.Inf:
		return true
	case *ir.CellRef:
		mayInf(n.I, cellInf)
		mayInf(n.J, cellInf)
		return cellInf
	case *ir.Load:
		for _, x := range n.Index {
			mayInf(x, cellInf)
		}
		for _, f := range n.In.F {
			if math.IsInf(f, 0) {
				return true
			}
		}
		return false
	case *ir.ScalarRef:
		v := n.Scalar.Value
		return v.T.IsFloat() && math.IsInf(v.F, 0)
	case *ir.Unary:
		x := mayInf(n.X, cellInf)
		return n.Op == ir.OpNeg && x
	case *ir.Binary:
		x, y := mayInf(n.X, cellInf), mayInf(n.Y, cellInf)
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
		mayInf(n.Cond, cellInf)
		x, y := mayInf(n.Then, cellInf), mayInf(n.Else, cellInf)
		return x || y
	case *ir.Convert:
		x := mayInf(n.X, cellInf)
		return x && n.T != ir.Bool
	case *ir.Call:
		any := false
		for _, a := range n.Args {
			if mayInf(a, cellInf) {
				any = true
			}
		}
		return any
	case *ir.Reduce:
		mayInf(n.Lo, cellInf)
		mayInf(n.Hi, cellInf)
		body := mayInf(n.Body, cellInf)
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
