package sema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/internal/errtest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// parse parses src as a file called name, failing the test on a syntax
// error (the sema tests are about well-formed files).
func parse(t testing.TB, name, src string) *dsl.File {
	t.Helper()
	f, err := dsl.Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", name, err, src)
	}
	return f
}

// mustCheck parses and checks src, failing on any error.
func mustCheck(t *testing.T, src string, data *Data) *ir.Problem {
	t.Helper()
	p, err := Check(parse(t, "t.dp", src), data)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, src)
	}
	return p
}

// override is a --set, as the tests of this package give one: they cannot
// import package bind, which imports this one.
type override struct{ name, value string }

// setData is the Data that package bind makes of --set values for f's
// scalars.
func setData(f *dsl.File, sets ...override) *Data {
	data := &Data{}
	for _, ov := range sets {
		for _, n := range Names(f) {
			if n.Name == ov.name && n.InScope && n.Scalar != nil {
				text := ov.value
				data.Steps = append(data.Steps, Step{Scalar: n.Scalar, Datum: &Datum{Who: "--set " + ov.name + "=" + ov.value, Text: &text}})
			}
		}
	}
	return data
}

// mustCheckSets parses src and checks it with --set values, failing on any
// error.
func mustCheckSets(t *testing.T, src string, sets ...override) *ir.Problem {
	t.Helper()
	f := parse(t, "t.dp", src)
	p, err := Check(f, setData(f, sets...))
	if err != nil {
		t.Fatalf("check: %v\n%s", err, src)
	}
	return p
}

// checkErrs checks f and returns its errors, a sorted source.ErrorList
// (failing when there are none).
func checkErrs(t *testing.T, f *dsl.File, data *Data) source.ErrorList {
	t.Helper()
	p, err := Check(f, data)
	if err == nil {
		t.Fatalf("no error; want one\n%s", f.Source)
	}
	if p != nil {
		t.Errorf("Check returned a problem along with an error")
	}
	return errtest.List(t, err)
}

// show prints a lowered expression with the type of every node, so that
// tests can compare conversions and folding exactly. Formats:
//
//	1:int  2.5:double  'A':char  inf:int  -inf:double   constants
//	i  k  $cap:int                                       variables, scalars
//	wt[...]:int  cell#3[..][..]                          loads, cell refs
//	(x + y):int  (x +sat y):int  (-x):int  (!x):bool     operators
//	double(x)                                            conversions
//	min(a, b):int  max(k in lo..hi: e):int  (c ? a : b):int
func show(e ir.Expr) string {
	switch n := e.(type) {
	case nil:
		return "<nil>"
	case *ir.Const:
		if n.V.T == ir.Char {
			return fmt.Sprintf("%q:char", rune(n.V.I))
		}
		if n.T != n.V.T {
			return fmt.Sprintf("BAD-CONST(%s vs %s)", n.T, n.V.T)
		}
		return fmt.Sprintf("%v:%s", n.V, n.T)
	case *ir.Inf:
		s := "inf"
		if n.Neg {
			s = "-inf"
		}
		return s + ":" + n.T.String()
	case *ir.Var:
		return n.Name
	case *ir.ScalarRef:
		return "$" + n.Scalar.Name + ":" + n.T.String()
	case *ir.Load:
		var b strings.Builder
		b.WriteString(n.In.Name)
		for _, x := range n.Index {
			b.WriteString("[" + show(x) + "]")
		}
		return b.String() + ":" + n.T.String()
	case *ir.CellRef:
		return fmt.Sprintf("cell#%d[%s][%s]", n.ID, show(n.I), show(n.J))
	case *ir.Unary:
		return fmt.Sprintf("(%s%s):%s", n.Op, show(n.X), n.T)
	case *ir.Binary:
		op := n.Op.String()
		if n.Saturate {
			op += "sat"
		}
		return fmt.Sprintf("(%s %s %s):%s", show(n.X), op, show(n.Y), n.T)
	case *ir.Select:
		return fmt.Sprintf("(%s ? %s : %s):%s", show(n.Cond), show(n.Then), show(n.Else), n.T)
	case *ir.Convert:
		return fmt.Sprintf("%s(%s)", n.T, show(n.X))
	case *ir.Call:
		args := make([]string, len(n.Args))
		for k, a := range n.Args {
			args[k] = show(a)
			if k < len(n.Emits) && n.Emits[k] != nil {
				args[k] += " emit " + show(n.Emits[k])
			}
		}
		return fmt.Sprintf("%s(%s):%s", n.Fn, strings.Join(args, ", "), n.T)
	case *ir.Reduce:
		return fmt.Sprintf("%s(%s in %s..%s: %s):%s", n.Op, n.Var.Name, show(n.Lo), show(n.Hi), show(n.Body), n.T)
	}
	return fmt.Sprintf("?%T", e)
}

// checkTypes verifies the invariants that later stages rely on, for every
// node of e: every node has a valid type; arithmetic operands have the
// result type; comparison operands share a type; && || ! and conditions are
// bool; subscripts are integers; reduction variables are shared with their
// reduction.
func checkTypes(t *testing.T, e ir.Expr) {
	t.Helper()
	ir.Walk(e, func(x ir.Expr) bool {
		if x.Type() == ir.Invalid {
			t.Errorf("node %s has no type", show(x))
		}
		switch n := x.(type) {
		case *ir.Binary:
			switch n.Op {
			case ir.OpAnd, ir.OpOr:
				if n.X.Type() != ir.Bool || n.Y.Type() != ir.Bool || n.T != ir.Bool {
					t.Errorf("logic on non-bool: %s", show(n))
				}
			case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
				if n.X.Type() != n.Y.Type() || n.T != ir.Bool {
					t.Errorf("comparison of mixed types: %s", show(n))
				}
			default:
				if n.X.Type() != n.T || n.Y.Type() != n.T {
					t.Errorf("arithmetic operands not of the result type: %s", show(n))
				}
				if n.Saturate && !n.T.IsInteger() {
					t.Errorf("Saturate on %s", show(n))
				}
			}
		case *ir.Select:
			if n.Cond.Type() != ir.Bool || n.Then.Type() != n.T || n.Else.Type() != n.T {
				t.Errorf("bad select: %s", show(n))
			}
		case *ir.Call:
			for _, a := range n.Args {
				if a.Type() != n.T {
					t.Errorf("call argument not of the result type: %s", show(n))
				}
			}
		case *ir.Load:
			for _, i := range n.Index {
				if i.Type() != ir.Int && i.Type() != ir.Long {
					t.Errorf("subscript of type %s: %s", i.Type(), show(n))
				}
			}
		case *ir.CellRef:
			for _, i := range []ir.Expr{n.I, n.J} {
				if i.Type() != ir.Int && i.Type() != ir.Long {
					t.Errorf("subscript of type %s: %s", i.Type(), show(n))
				}
			}
		case *ir.Reduce:
			if n.Var.Reduce != n || n.Body.Type() != n.T {
				t.Errorf("bad reduce: %s", show(n))
			}
			ir.Walk(n.Body, func(y ir.Expr) bool {
				if v, ok := y.(*ir.Var); ok && v.Kind == ir.VarReduce && v.Name == n.Var.Name && v != n.Var {
					t.Errorf("reduction variable %s not shared with its reduction", v.Name)
				}
				return true
			})
		case *ir.Unary:
			if n.Op == ir.OpNot && (n.X.Type() != ir.Bool || n.T != ir.Bool) {
				t.Errorf("bad !: %s", show(n))
			}
			if n.Op == ir.OpNeg && n.X.Type() != n.T {
				t.Errorf("bad -: %s", show(n))
			}
		}
		return true
	})
}

// checkProblemTypes runs checkTypes over every expression of p and checks
// the case and cell-reference invariants.
func checkProblemTypes(t *testing.T, p *ir.Problem) {
	t.Helper()
	for k, c := range p.Cases {
		if c.Value.Type() != p.CellType {
			t.Errorf("case %d value is %s, cell type %s", k, c.Value.Type(), p.CellType)
		}
		if c.Cond != nil && c.Cond.Type() != ir.Bool {
			t.Errorf("case %d condition is %s", k, c.Cond.Type())
		}
		if c.Cond == nil && k != len(p.Cases)-1 {
			t.Errorf("case %d without condition is not last", k)
		}
		for _, e := range []ir.Expr{c.Cond, c.Value, c.Emit} {
			if e != nil {
				checkTypes(t, e)
			}
		}
	}
	for k, r := range p.CellRefs {
		if r.ID != k {
			t.Errorf("CellRefs[%d].ID = %d", k, r.ID)
		}
	}
	// A 1-D grid is the 1 x N grid, its references cell[0][e].
	var refs []*ir.CellRef
	for _, e := range []ir.Expr{p.Answer, p.ScheduleExpr} {
		ir.Walk(e, func(e ir.Expr) bool {
			if r, ok := e.(*ir.CellRef); ok {
				refs = append(refs, r)
			}
			return true
		})
	}
	for _, r := range append(refs, p.CellRefs...) {
		k, zero := r.I.(*ir.Const)
		if r.OneD != (p.Dims == 1) || p.Dims == 1 && !(zero && k.V.I == 0) {
			t.Errorf("Dims %d: reference %s OneD %v, I %s", p.Dims, r.Text, r.OneD, show(r.I))
		}
	}
	if p.Dims == 1 && (p.Rows != 1 || p.IVar != "" || p.JVar == "") {
		t.Errorf("1-D grid of %dx%d, IVar %q, JVar %q", p.Rows, p.Cols, p.IVar, p.JVar)
	}
	if p.ScheduleExpr != nil {
		checkTypes(t, p.ScheduleExpr)
		if !p.ScheduleExpr.Type().IsInteger() || p.ScheduleExpr.Type() == ir.Bool || p.Schedule != "t" {
			t.Errorf("schedule %q: t = %s", p.Schedule, show(p.ScheduleExpr))
		}
		ir.Walk(p.ScheduleExpr, func(e ir.Expr) bool {
			switch e.(type) {
			case *ir.CellRef, *ir.Load, *ir.Reduce:
				t.Errorf("schedule: t = %s reads %s", show(p.ScheduleExpr), show(e))
			}
			return true
		})
	}
	if p.Answer != nil {
		checkTypes(t, p.Answer)
		ir.Walk(p.Answer, func(e ir.Expr) bool {
			if r, ok := e.(*ir.CellRef); ok && r.ID != -1 {
				t.Errorf("answer cell reference %s has ID %d", r.Text, r.ID)
			}
			return true
		})
	}
}
