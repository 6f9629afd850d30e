package dsl

import (
	"errors"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// conv turns participle's grammar structs into AST nodes, reporting the
// errors that the grammar does not express (literal ranges, character
// literals, data rows, names with `-`).
type conv struct {
	p *parser
}

func (c *conv) problem(g *gProblem) Decl {
	name, _ := c.name(g.Name)
	return &ProblemDecl{Pos: pos(g.Kw.Pos), Name: name}
}

func (c *conv) setting(g *gSetting) Decl {
	value, at := c.name(g.Value)
	d := &SettingDecl{Pos: pos(g.Key.Pos), Key: g.Key.Value, Value: value, ValuePos: at}
	if g.Expr != nil {
		d.Expr = c.expr(g.Expr)
	}
	return d
}

// name joins a possibly hyphenated name (`lookback-put`, `held-karp`); its
// parts must touch.
func (c *conv) name(g *gName) (string, Pos) {
	var b strings.Builder
	b.WriteString(g.First.Value)
	prev, spaced := g.First, false
	for _, r := range g.Rest {
		for _, t := range []lexer.Token{r.Dash, r.Part} {
			if prev.Pos.Offset+len(prev.Value) != t.Pos.Offset && !spaced {
				c.p.errorAt(t.Pos, "unexpected space in name (a name may contain `-` but no spaces)")
				spaced = true
			}
			b.WriteString(t.Value)
			prev = t
		}
	}
	return b.String(), pos(g.First.Pos)
}

// lhsRule says what the left side of a recurrence is, for its errors.
const lhsRule = "the left side of a recurrence names its index variables, as in `cell[i][j]` or, for a 1-D grid, `cell[i]`"

// recurrenceHead converts the left side of a recurrence, whose subscripts
// must be plain names; it reports the first that is not and returns nil.
func (c *conv) recurrenceHead(g *gRecurrence) *RecurrenceDecl {
	d := &RecurrenceDecl{Pos: pos(g.Target.Pos), Target: g.Target.Value}
	for _, sub := range g.Subs {
		if sub.X == nil {
			c.p.errorAt(sub.Close.Pos, "missing index variable in `[]`: %s", lhsRule)
			return nil
		}
		x := c.expr(sub.X)
		id, ok := x.(*Ident)
		if !ok {
			// The token at fault: an operator (`i-1` at the `-`), else the
			// start of the subscript (`2`, `A[i]`, `(i)`).
			text := ExprString(x)
			switch x := x.(type) {
			case *Binary:
				text = x.Op
			case *Unary:
				text = x.Op
			case *Ternary:
				text = "?"
			}
			c.p.error(x.Position(), "unexpected `%s`: %s", text, lhsRule)
			return nil
		}
		d.Vars = append(d.Vars, id)
	}
	return d
}

func (c *conv) args(g *gArgs) Decl {
	d := &ArgsDecl{Pos: pos(g.Kw.Pos)}
	for _, it := range g.Items {
		if it.Name.Value != "" {
			d.Items = append(d.Items, &ArgItem{
				Pos:   pos(it.Name.Pos),
				Names: []*Ident{{Pos: pos(it.Name.Pos), Name: it.Name.Value}},
			})
			continue
		}
		item := &ArgItem{Pos: pos(it.Open.Pos)}
		for _, n := range it.Group {
			item.Names = append(item.Names, &Ident{Pos: pos(n.T.Pos), Name: n.T.Value})
		}
		item.Format, _ = c.name(it.Format)
		d.Items = append(d.Items, item)
	}
	return d
}

func (c *conv) grid(g *gGrid) Decl {
	if g.Dims.Value != "" {
		d := &GridDecl{Pos: pos(g.Dims.Pos)}
		sides := c.dimSides(g.Dims)
		for _, s := range sides {
			if s.text == "?" {
				c.p.error(s.pos, "the grid size cannot be `?`: give a number, a name or `(EXPR)`")
				return nil
			}
			d.Sides = append(d.Sides, &IntLit{Pos: s.pos, Text: s.text, Value: int64(s.n)})
		}
		if len(sides) != 2 {
			return nil
		}
		return d
	}
	first := c.side(g.First)
	if len(g.Rest) > 2 {
		c.p.error(first.Position(), msgSides, len(g.Rest)+1)
		return nil
	}
	d := &GridDecl{Pos: first.Position(), Sides: []Expr{first}}
	for _, r := range g.Rest {
		d.Sides = append(d.Sides, c.side(r.Side))
	}
	return d
}

func (c *conv) side(g *gSide) Expr {
	switch {
	case g.Int.Value != "":
		return c.intLit(g.Int)
	case g.Named != nil:
		return c.named(g.Named)
	}
	return &Paren{Pos: pos(g.Open.Pos), X: c.expr(g.Paren)}
}

// dimSide is one side of a DIMS token (`5x5`, `1 x ?`).
type dimSide struct {
	pos  Pos
	text string
	n    int // -1 for `?`
}

// dimSides splits a DIMS token; it reports sides too large for an int and
// then returns fewer than two.
func (c *conv) dimSides(t lexer.Token) []dimSide {
	x := strings.IndexByte(t.Value, 'x')
	parts := [2][2]int{{0, x}, {x + 1, len(t.Value)}} // byte ranges
	var sides []dimSide
	for _, r := range parts {
		s := t.Value[r[0]:r[1]]
		lead := len(s) - len(strings.TrimLeft(s, blanks))
		s = strings.Trim(s, blanks)
		at := offsetPos(t.Pos, r[0]+lead)
		if s == "?" {
			sides = append(sides, dimSide{at, s, -1})
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			c.p.error(at, "dimension `%s` is too large", s)
			continue
		}
		sides = append(sides, dimSide{at, s, n})
	}
	return sides
}

// offsetPos is the position k bytes after p on the same line.
func offsetPos(p lexer.Position, k int) Pos {
	return Pos{File: p.Filename, Offset: p.Offset + k, Line: p.Line, Col: p.Column + k}
}

func (c *conv) input(g *gInput) Decl {
	d := &InputDecl{Pos: pos(g.Type.Pos), Type: g.Type.Value, Dims: Dims{Pos: pos(g.Dims.Pos)}}
	sides := c.dimSides(g.Dims)
	if len(sides) != 2 {
		return nil
	}
	d.Dims.Rows, d.Dims.Cols = sides[0].n, sides[1].n
	switch {
	case g.Bare != nil:
		if !c.data(d, g.Bare) {
			return nil
		}
	case g.First.Value == "":
		c.p.errorAt(endPos(g.Dims), "expected a name or values after the dimensions")
		return nil
	case g.First.Value != "" && g.Eq.Value != "":
		name := strings.Trim(g.First.Value, blanks)
		if !isIdent(name) {
			c.p.errorAt(g.First.Pos, "input name `%s` is not a name (names are letters, digits and `_`)", name)
			return nil
		}
		d.Name = name
		if g.Data == nil {
			c.p.errorAt(endPos(g.Eq), "expected values, a string or `@\"path\"` after `=`")
			return nil
		}
		if len(g.More) > 0 {
			c.p.errorAt(g.More[0].Amp.Pos, "unexpected `&`: only inline values have rows")
			return nil
		}
		if !c.data(d, g.Data) {
			return nil
		}
	case g.First.Value != "":
		rows := []lexer.Token{g.First}
		for _, r := range g.More {
			rows = append(rows, r.T)
		}
		word := strings.Trim(g.First.Value, blanks)
		// A lone name with no `=`: a required input (`int ?x? dist`) unless it
		// can be a thesis-style char value (`char 1x1 A`).
		if len(rows) == 1 && isIdent(word) && (d.Type != "char" || d.Dims.Rows < 0 || d.Dims.Cols < 0) {
			d.Name = word
			return d
		}
		// `int 1x5 wt 2,3,...`: the name is not followed by `=`.
		text := strings.TrimLeft(g.First.Value, blanks)
		if i := strings.IndexAny(text, blanks); i > 0 && d.Type != "char" && isIdent(text[:i]) {
			first, rest := text[:i], text[i:]
			if rest = strings.TrimLeft(rest, blanks); rest != "" {
				at := len(g.First.Value) - len(text) + len(first) + (len(text) - len(first) - len(rest))
				c.p.error(offsetPos(g.First.Pos, at), "expected `=` after input name `%s`", first)
				return nil
			}
		}
		if !c.rows(d, rows) {
			return nil
		}
	}
	return d
}

func (c *conv) data(d *InputDecl, g *gData) bool {
	switch {
	case g.Text.Value != "":
		d.Text = &StringLit{Pos: pos(g.Text.Pos), Value: unquote(g.Text.Value)}
	case g.Source.Value != "":
		d.Source = c.source(g.Source)
		return d.Source != nil
	default:
		rows := []lexer.Token{g.Row}
		for _, r := range g.More {
			rows = append(rows, r.T)
		}
		return c.rows(d, rows)
	}
	return true
}

// source decodes `@"path"` and `@"path"#k`.
func (c *conv) source(t lexer.Token) *Source {
	v := t.Value
	q := strings.LastIndexByte(v, '"') // the selector holds no quote
	s := &Source{Pos: pos(t.Pos), Path: unquote(v[1 : q+1])}
	if sel := v[q+1:]; sel != "" {
		at := offsetPos(t.Pos, q+1)
		k, err := strconv.Atoi(sel[1:])
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange):
			c.p.error(at, "record number `%s` is too large", sel[1:])
		case err != nil:
			c.p.error(at, "expected a record number after `#`, found `%s`", sel[1:])
		case k < 1:
			c.p.error(at, "record numbers start at 1, found `#%d`", k)
		default:
			s.Record = k
			return s
		}
		return nil
	}
	return s
}

// rows splits data-row tokens into values, reporting missing values and
// values not separated by commas. It reports whether all were good.
func (c *conv) rows(d *InputDecl, rows []lexer.Token) bool {
	ok := true
	d.Values = make([][]Value, 0, len(rows))
	for _, t := range rows {
		v := t.Value
		row := make([]Value, 0, strings.Count(v, ",")+1)
		start := 0
		for start <= len(v) {
			end := strings.IndexByte(v[start:], ',')
			if end < 0 {
				end = len(v)
			} else {
				end += start
			}
			piece := v[start:end]
			lead := len(piece) - len(strings.TrimLeft(piece, blanks))
			text := strings.Trim(piece, blanks)
			at := offsetPos(t.Pos, start+lead)
			switch {
			case text == "" && end < len(v):
				c.p.error(offsetPos(t.Pos, end), "missing value before `,`")
				ok = false
			case text == "":
				c.p.error(offsetPos(t.Pos, start-1), "missing value after `,`")
				ok = false
			default:
				if i := strings.IndexAny(text, blanks); i >= 0 {
					rest := strings.TrimLeft(text[i:], blanks)
					if j := strings.IndexAny(rest, blanks); j >= 0 {
						rest = rest[:j]
					}
					c.p.error(offsetPos(t.Pos, start+lead+i+len(text[i:])-len(strings.TrimLeft(text[i:], blanks))), "expected `,` between values, found `%s`", rest)
					ok = false
				}
				row = append(row, Value{Pos: at, Text: text})
			}
			if !ok && c.p.full() {
				return false
			}
			start = end + 1
		}
		d.Values = append(d.Values, row)
	}
	return ok
}

// blanks are the characters that separate tokens within a line (the
// lexer's whitespace rule); other Unicode spaces are ordinary characters.
const blanks = " \t\r\f\v"

func isIdent(s string) bool {
	if s == "" || keywords[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || i > 0 && '0' <= b && b <= '9') {
			return false
		}
	}
	return true
}

var keywords = map[string]bool{"when": true, "otherwise": true, "emit": true, "in": true, "inf": true}

// unquote decodes a double-quoted string. Only `\"` and `\\` are escapes; a
// backslash before anything else is kept, so that `@"C:\data\x.fa"` means
// what it says.
func unquote(q string) string {
	s := q[1 : len(q)-1]
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// kase converts a case; multi says the recurrence has several cases, each
// of which then needs `when` or `otherwise`.
func (c *conv) kase(g *gCase, multi bool) *Case {
	k := &Case{Pos: pos(g.Pos), Value: c.expr(g.Value)}
	switch {
	case g.When.Value != "":
		k.Cond = c.expr(g.Cond)
	case g.Otherwise.Value != "":
		k.Otherwise = true
	case multi:
		c.p.errorAt(g.Value.EndPos, "expected `when COND` or `otherwise` after the case's value (a recurrence with several cases needs one on each)")
	}
	if g.Emit.Value != "" {
		k.Emit = c.expr(g.EmitExpr)
	}
	return k
}

// Expressions.

func (c *conv) expr(g *gExpr) Expr {
	x := c.or(g.Cond)
	if g.Then == nil {
		return x
	}
	return &Ternary{Pos: pos(g.Quest.Pos), Cond: x, T: c.expr(g.Then), F: c.expr(g.Else)}
}

func binary(op lexer.Token, x, y Expr) Expr {
	return &Binary{Pos: pos(op.Pos), Op: op.Value, X: x, Y: y}
}

func (c *conv) or(g *gOr) Expr {
	x := c.and(g.X)
	for _, r := range g.Rest {
		x = binary(r.Op, x, c.and(r.Y))
	}
	return x
}

func (c *conv) and(g *gAnd) Expr {
	x := c.eq(g.X)
	for _, r := range g.Rest {
		x = binary(r.Op, x, c.eq(r.Y))
	}
	return x
}

func (c *conv) eq(g *gEq) Expr {
	x := c.rel(g.X)
	for _, r := range g.Rest {
		x = binary(r.Op, x, c.rel(r.Y))
	}
	return x
}

func (c *conv) rel(g *gRel) Expr {
	x := c.add(g.X)
	for _, r := range g.Rest {
		x = binary(r.Op, x, c.add(r.Y))
	}
	return x
}

func (c *conv) add(g *gAdd) Expr {
	x := c.mul(g.X)
	for _, r := range g.Rest {
		x = binary(r.Op, x, c.mul(r.Y))
	}
	return x
}

func (c *conv) mul(g *gMul) Expr {
	x := c.unary(g.X)
	for _, r := range g.Rest {
		x = binary(r.Op, x, c.unary(r.Y))
	}
	return x
}

func (c *conv) unary(g *gUnary) Expr {
	if g.X != nil {
		return &Unary{Pos: pos(g.Op.Pos), Op: g.Op.Value, X: c.unary(g.X)}
	}
	return c.primary(g.Primary)
}

func (c *conv) primary(g *gPrimary) Expr {
	switch {
	case g.Float.Value != "":
		v, err := strconv.ParseFloat(g.Float.Value, 64)
		if err != nil {
			c.p.errorAt(g.Float.Pos, "floating-point literal `%s` is out of range", g.Float.Value)
		}
		return &FloatLit{Pos: pos(g.Float.Pos), Text: g.Float.Value, Value: v}
	case g.Int.Value != "":
		return c.intLit(g.Int)
	case g.Char.Value != "":
		return c.charLit(g.Char)
	case g.Inf.Value != "":
		return &Inf{Pos: pos(g.Inf.Pos)}
	case g.Paren != nil:
		return &Paren{Pos: pos(g.Open.Pos), X: c.expr(g.Paren)}
	}
	return c.named(g.Named)
}

func (c *conv) named(n *gNamed) Expr {
	name := &Ident{Pos: pos(n.Name.Pos), Name: n.Name.Value}
	switch {
	case n.Call != nil && n.Call.Reduce != nil:
		r := n.Call.Reduce
		return &Reduce{
			Pos:  name.Pos,
			Func: name,
			Var:  &Ident{Pos: pos(r.Var.Pos), Name: r.Var.Value},
			Lo:   c.expr(r.Lo),
			Hi:   c.expr(r.Hi),
			Body: c.expr(r.Body),
		}
	case n.Open.Value != "":
		call := &Call{Pos: name.Pos, Func: name}
		if n.Call != nil {
			for k, a := range n.Call.Args {
				call.Args = append(call.Args, c.expr(a.X))
				if a.Emit.Value == "" {
					continue
				}
				if call.Emits == nil {
					call.Emits = make([]Expr, len(n.Call.Args))
				}
				call.Emits[k] = c.expr(a.EmitExpr)
			}
		}
		return call
	case len(n.Indices) > 0:
		ix := &Index{Pos: name.Pos, Name: name}
		for _, e := range n.Indices {
			ix.Indices = append(ix.Indices, c.expr(e))
		}
		return ix
	}
	return name
}

func (c *conv) intLit(t lexer.Token) *IntLit {
	v, err := strconv.ParseInt(t.Value, 10, 64)
	if err != nil {
		c.p.errorAt(t.Pos, "integer literal `%s` is too large", t.Value)
	}
	return &IntLit{Pos: pos(t.Pos), Text: t.Value, Value: v}
}

// charLit decodes 'c'. Escapes: \n \t \r \0 \\ \' \" and \xHH.
func (c *conv) charLit(t lexer.Token) *CharLit {
	lit := &CharLit{Pos: pos(t.Pos)}
	s := t.Value[1 : len(t.Value)-1]
	switch {
	case s == "":
		c.p.errorAt(t.Pos, "empty character literal")
	case s[0] != '\\' && len(s) == 1:
		lit.Value = s[0]
	case s[0] != '\\':
		c.p.errorAt(t.Pos, "a character literal holds one ASCII character, found %s", tokenText(t))
	case len(s) == 2 && strings.IndexByte(`nrt0\'"`, s[1]) >= 0:
		lit.Value = map[byte]byte{'n': '\n', 'r': '\r', 't': '\t', '0': 0, '\\': '\\', '\'': '\'', '"': '"'}[s[1]]
	case len(s) == 4 && s[1] == 'x':
		v, err := strconv.ParseUint(s[2:], 16, 8)
		if err != nil {
			c.p.errorAt(t.Pos, "bad escape in character literal %s", tokenText(t))
		}
		lit.Value = byte(v)
	default:
		c.p.errorAt(t.Pos, "bad escape in character literal %s (known: \\n \\r \\t \\0 \\\\ \\' \\\" \\xHH)", tokenText(t))
	}
	return lit
}
