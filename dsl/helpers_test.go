package dsl

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sexpr prints an expression as a fully parenthesised prefix form that
// shows the tree's shape, independently of ExprString.
func sexpr(e Expr) string {
	switch e := e.(type) {
	case nil:
		return "nil"
	case *Ident:
		return e.Name
	case *IntLit:
		if e.Text == "" {
			return strconv.FormatInt(e.Value, 10)
		}
		return e.Text
	case *FloatLit:
		return "f:" + floatText(e)
	case *CharLit:
		return "c:" + strconv.Itoa(int(e.Value))
	case *StringLit:
		return strconv.Quote(e.Value)
	case *Inf:
		return "inf"
	case *Paren:
		return "(paren " + sexpr(e.X) + ")"
	case *Unary:
		return "(" + e.Op + "u " + sexpr(e.X) + ")"
	case *Binary:
		return "(" + e.Op + " " + sexpr(e.X) + " " + sexpr(e.Y) + ")"
	case *Ternary:
		return "(? " + sexpr(e.Cond) + " " + sexpr(e.T) + " " + sexpr(e.F) + ")"
	case *Index:
		s := "(idx " + e.Name.Name
		for _, x := range e.Indices {
			s += " " + sexpr(x)
		}
		return s + ")"
	case *Call:
		s := "(call " + e.Func.Name
		for k, x := range e.Args {
			s += " " + sexpr(x)
			if k < len(e.Emits) && e.Emits[k] != nil {
				s += " emit " + sexpr(e.Emits[k])
			}
		}
		return s + ")"
	case *Reduce:
		return "(" + e.Func.Name + " " + e.Var.Name + " " + sexpr(e.Lo) + " " + sexpr(e.Hi) + " " + sexpr(e.Body) + ")"
	}
	return fmt.Sprintf("<%T>", e)
}

// dumpDecl prints a declaration's content without positions.
func dumpDecl(d Decl) string {
	switch d := d.(type) {
	case *ProblemDecl:
		return "problem " + d.Name
	case *GridDecl:
		s := "grid"
		for _, side := range d.Sides {
			s += " " + sexpr(side)
		}
		return s
	case *SettingDecl:
		if d.Expr != nil {
			return "set " + d.Key + "=" + d.Value + " = " + sexpr(d.Expr)
		}
		return "set " + d.Key + "=" + d.Value
	case *AnswerDecl:
		return "answer " + sexpr(d.Expr)
	case *ScalarDecl:
		return "scalar " + d.Type + " " + d.Name + " " + sexpr(d.Expr)
	case *InputDecl:
		side := func(n int) string {
			if n < 0 {
				return "?"
			}
			return strconv.Itoa(n)
		}
		s := fmt.Sprintf("input %s %sx%s name=%s", d.Type, side(d.Dims.Rows), side(d.Dims.Cols), d.Name)
		switch {
		case d.Values != nil:
			var rows []string
			for _, r := range d.Values {
				var vs []string
				for _, v := range r {
					vs = append(vs, v.Text)
				}
				rows = append(rows, "["+strings.Join(vs, " ")+"]")
			}
			s += " values=" + strings.Join(rows, " ")
		case d.Text != nil:
			s += " text=" + strconv.Quote(d.Text.Value)
		case d.Source != nil:
			s += fmt.Sprintf(" source=%q#%d", d.Source.Path, d.Source.Record)
		default:
			s += " required"
		}
		return s
	case *RecurrenceDecl:
		s := "rec " + d.Target
		for _, v := range d.Vars {
			s += "[" + v.Name + "]"
		}
		for _, c := range d.Cases {
			s += " {" + sexpr(c.Value)
			switch {
			case c.Cond != nil:
				s += " when " + sexpr(c.Cond)
			case c.Otherwise:
				s += " otherwise"
			}
			if c.Emit != nil {
				s += " emit " + sexpr(c.Emit)
			}
			s += "}"
		}
		return s
	case *ArgsDecl:
		var items []string
		for _, it := range d.Items {
			var names []string
			for _, n := range it.Names {
				names = append(names, n.Name)
			}
			if it.Format == "" {
				items = append(items, strings.Join(names, " "))
			} else {
				items = append(items, "("+strings.Join(names, " ")+")="+it.Format)
			}
		}
		return "args " + strings.Join(items, ", ")
	}
	return fmt.Sprintf("<%T>", d)
}

func dumpFile(f *File) []string {
	var out []string
	for _, d := range f.Decls {
		out = append(out, dumpDecl(d))
	}
	return out
}

// checkPositions verifies every node of f against its source: the position
// is inside the file, its line and column agree with its offset, and the
// text there is what the node says it is (an Ident's name, an operator...).
// It also checks the invariants the AST documents.
func checkPositions(tb testing.TB, f *File) {
	tb.Helper()
	src := string(f.Source)
	lineStarts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	check := func(what string, p Pos, lead string) {
		tb.Helper()
		if p.File != f.Name || p.Line < 1 || p.Col < 1 || p.Offset < 0 || p.Offset > len(src) {
			tb.Errorf("%s: bad position %+v", what, p)
			return
		}
		line := sort.SearchInts(lineStarts, p.Offset+1) // lines starting at or before Offset
		col := p.Offset - lineStarts[line-1] + 1
		if line != p.Line || col != p.Col {
			tb.Errorf("%s: position %d:%d, but offset %d is at %d:%d", what, p.Line, p.Col, p.Offset, line, col)
		}
		if !strings.HasPrefix(src[p.Offset:], lead) {
			tb.Errorf("%s at %s: source there is %.20q, want it to start with %q", what, p, src[p.Offset:], lead)
		}
	}
	var expr func(e Expr)
	expr = func(e Expr) {
		switch e := e.(type) {
		case nil:
			tb.Errorf("nil expression")
		case *Ident:
			check("ident", e.Pos, e.Name)
		case *IntLit:
			check("int", e.Pos, e.Text)
			if v, err := strconv.ParseInt(e.Text, 10, 64); err == nil && v != e.Value {
				tb.Errorf("int %s has value %d", e.Text, e.Value)
			}
		case *FloatLit:
			check("float", e.Pos, e.Text)
			if v, err := strconv.ParseFloat(e.Text, 64); err == nil && v != e.Value {
				tb.Errorf("float %s has value %g", e.Text, e.Value)
			}
		case *CharLit:
			check("char", e.Pos, "'")
		case *StringLit:
			check("string", e.Pos, `"`)
		case *Inf:
			check("inf", e.Pos, "inf")
		case *Paren:
			check("paren", e.Pos, "(")
			expr(e.X)
		case *Unary:
			check("unary", e.Pos, e.Op)
			expr(e.X)
		case *Binary:
			check("binary", e.Pos, e.Op)
			expr(e.X)
			expr(e.Y)
		case *Ternary:
			check("ternary", e.Pos, "?")
			expr(e.Cond)
			expr(e.T)
			expr(e.F)
		case *Index:
			check("index", e.Pos, e.Name.Name)
			expr(e.Name)
			for _, x := range e.Indices {
				expr(x)
			}
		case *Call:
			check("call", e.Pos, e.Func.Name)
			expr(e.Func)
			for _, x := range e.Args {
				expr(x)
			}
			if e.Emits != nil && len(e.Emits) != len(e.Args) {
				tb.Errorf("call at %s: %d emits for %d arguments", e.Pos, len(e.Emits), len(e.Args))
			}
			some := false
			for _, x := range e.Emits {
				if x != nil {
					some = true
					expr(x)
				}
			}
			if e.Emits != nil && !some {
				tb.Errorf("call at %s: Emits without an emit", e.Pos)
			}
		case *Reduce:
			check("reduce", e.Pos, e.Func.Name)
			expr(e.Func)
			expr(e.Var)
			expr(e.Lo)
			expr(e.Hi)
			expr(e.Body)
		default:
			tb.Errorf("unknown expression %T", e)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ProblemDecl:
			check("problem", d.Pos, "problem")
		case *GridDecl:
			check("grid", d.Pos, "")
			if len(d.Sides) < 1 || len(d.Sides) > 3 {
				tb.Errorf("grid at %s with %d sides", d.Pos, len(d.Sides))
			}
			for _, side := range d.Sides {
				expr(side)
			}
		case *SettingDecl:
			check("setting", d.Pos, d.Key)
			first, _, _ := strings.Cut(d.Value, "-") // the parts of a spaced-out name are apart
			check("setting value", d.ValuePos, first)
			if d.Expr != nil {
				expr(d.Expr)
			}
		case *AnswerDecl:
			check("answer", d.Pos, "answer")
			expr(d.Expr)
		case *ScalarDecl:
			check("scalar", d.Pos, d.Type)
			expr(d.Expr)
		case *InputDecl:
			check("input", d.Pos, d.Type)
			check("dims", d.Dims.Pos, "")
			n := 0
			if d.Values != nil {
				n++
				for _, r := range d.Values {
					for _, v := range r {
						check("value", v.Pos, v.Text)
					}
				}
			}
			if d.Text != nil {
				n++
				check("text", d.Text.Pos, `"`)
			}
			if d.Source != nil {
				n++
				check("source", d.Source.Pos, `@"`)
			}
			if n > 1 || n == 0 && d.Name == "" {
				tb.Errorf("input at %s: %d data forms, name %q", d.Pos, n, d.Name)
			}
		case *RecurrenceDecl:
			check("recurrence", d.Pos, d.Target)
			if len(d.Vars) == 0 {
				tb.Errorf("recurrence at %s without index variables", d.Pos)
			}
			for _, v := range d.Vars {
				expr(v)
			}
			if len(d.Cases) == 0 {
				tb.Errorf("recurrence at %s without cases", d.Pos)
			}
			for _, c := range d.Cases {
				check("case", c.Pos, "")
				expr(c.Value)
				if c.Cond != nil {
					expr(c.Cond)
				}
				if c.Otherwise && c.Cond != nil {
					tb.Errorf("case at %s: both otherwise and a condition", c.Pos)
				}
				if c.Emit != nil {
					expr(c.Emit)
				}
			}
		case *ArgsDecl:
			check("args", d.Pos, "args")
			for _, it := range d.Items {
				check("arg", it.Pos, "")
				for _, n := range it.Names {
					expr(n)
				}
			}
		default:
			tb.Errorf("unknown declaration %T", d)
		}
	}
}

// exprs lists every top-level expression of f.
func exprs(f *File) []Expr {
	var out []Expr
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *GridDecl:
			out = append(out, d.Sides...)
		case *SettingDecl:
			if d.Expr != nil {
				out = append(out, d.Expr)
			}
		case *AnswerDecl:
			out = append(out, d.Expr)
		case *ScalarDecl:
			out = append(out, d.Expr)
		case *RecurrenceDecl:
			for _, c := range d.Cases {
				out = append(out, c.Value)
				if c.Cond != nil {
					out = append(out, c.Cond)
				}
				if c.Emit != nil {
					out = append(out, c.Emit)
				}
			}
		}
	}
	return out
}

// errorStrings renders an error from Parse as "line:col: msg" lines.
func errorStrings(tb testing.TB, err error) []string {
	tb.Helper()
	if err == nil {
		return nil
	}
	list, ok := err.(ErrorList)
	if !ok {
		tb.Fatalf("error %v is %T, not an ErrorList", err, err)
	}
	var out []string
	for _, e := range list {
		out = append(out, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg))
	}
	return out
}
