package dsl

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Parse reads the `.dp` file src, named filename in positions and messages.
//
// A declaration ends at the end of its line, except that a line ending in `&`
// continues a matrix's data, lines starting with `|` add cases to the
// recurrence above them, and an expression goes on over the next lines while
// a `(` or `[` is open. Parse checks syntax only: names, types and the
// meaning of settings are checked by package sema.
//
// The error, if any, is an ErrorList sorted by position, with one entry per
// bad line (parsing starts afresh on the next line) up to a limit. The
// returned File is never nil; when there are errors it holds the
// declarations that did parse.
func Parse(filename string, src []byte) (*File, error) {
	p := &parser{}
	f := &File{Name: filename, Source: src}
	if len(src) > MaxSourceBytes {
		p.errs.Add(Pos{File: filename, Line: 1, Col: 1}, "the file is %d bytes, over the limit of %d MiB for a .dp file (put large data in files named with @\"path\")", len(src), MaxSourceBytes>>20)
		return f, p.errs
	}
	toks, err := lexFile(filename, string(src))
	if err != nil {
		// Unreachable: every byte matches a rule (see dpLexer).
		p.errs.Add(Pos{File: filename, Line: 1, Col: 1}, "internal error: %v", err)
		return f, p.errs
	}
	var groups []*group
	for _, seg := range splitLines(toks) {
		if seg.unclosed.Type != 0 {
			// Every later line was taken for the expression's
			// continuation: what was parsed of them would only confuse.
			// A bad character or string, or a line over the limits
			// (past which the lexer dropped tokens, closing brackets
			// among them), is the error to report instead.
			if p.lexOK(seg) {
				p.errorAt(seg.unclosed.Pos, "this `%s` is never closed: the file ends before its `%s`", seg.unclosed.Value, closer(seg.unclosed.Value))
			}
			continue
		}
		t0 := seg.toks[0]
		if t0.Type == tokOp && t0.Value == "|" {
			last := len(groups) - 1
			if last < 0 || groups[last].kind != kindRecurrence {
				p.errorAt(t0.Pos, "a case line starting with `|` must follow a recurrence `cell[i][j] = ...`")
				continue
			}
			groups[last].cases = append(groups[last].cases, seg)
			continue
		}
		groups = append(groups, &group{kind: classify(seg.toks), head: seg})
	}
	prebuild(groups)
	for _, g := range groups {
		if p.full() {
			break
		}
		if d := p.parseGroup(g); d != nil {
			f.Decls = append(f.Decls, d)
		}
	}
	p.errs.Sort()
	return f, p.errs.Err()
}

// prebuild builds the parsers that groups need, each on its own goroutine,
// before the groups are parsed in order. Building one walks its grammar by
// reflection: the seven of knapsack.dp were 7.5% of the perf samples of a
// whole 52 ms `dpgpu solve` of a Pisinger instance, built one after
// another, and they do not depend on each other.
func prebuild(groups []*group) {
	var need [kindRecurrence + 1]bool
	for _, g := range groups {
		need[g.kind] = true
	}
	builders := map[kind][]func(){
		kindProblem:    {func() { problemParser() }},
		kindSetting:    {func() { settingParser() }},
		kindAnswer:     {func() { answerParser() }},
		kindArgs:       {func() { argsParser() }},
		kindScalar:     {func() { scalarParser() }},
		kindInput:      {func() { inputParser() }},
		kindGrid:       {func() { gridParser() }},
		kindRecurrence: {func() { recurrenceParser() }, func() { caseLineParser() }},
	}
	var wg sync.WaitGroup
	for k, fs := range builders {
		if need[k] {
			for _, f := range fs {
				wg.Go(f)
			}
		}
	}
	wg.Wait()
}

// maxErrors bounds the errors reported for one file: past it, a file is
// unlikely to be a `.dp` file at all.
const maxErrors = 20

// maxNesting bounds how deeply one line's expression may nest, so that the
// recursive descent of the parser stays far from the goroutine stack limit
// whatever the input. Real expressions nest a handful of levels.
const maxNesting = 500

// MaxOperators bounds the operators of one line (a recurrence's case, an
// answer, a scalar): a flat chain `1+1+1+...` of a million terms parses
// without recursion, but every later stage (sema, eval, codegen) walks the
// left-leaning tree it makes recursively, one level per operator, and
// would overflow the goroutine stack. Real recurrences use a few dozen.
const MaxOperators = 10000

// MaxSourceBytes bounds the size of a `.dp` file, so that parsing takes
// bounded memory (participle keeps every token of a line): 64 MiB holds
// inline data of millions of values; larger data belongs in files named
// with `@"path"`.
const MaxSourceBytes = 64 << 20

type parser struct {
	errs ErrorList
}

func (p *parser) full() bool { return len(p.errs) > maxErrors }

func (p *parser) errorAt(at lexer.Position, format string, args ...any) {
	p.error(pos(at), format, args...)
}

func (p *parser) error(at Pos, format string, args ...any) {
	switch {
	case len(p.errs) < maxErrors:
		p.errs.Add(at, format, args...)
	case len(p.errs) == maxErrors:
		p.errs.Add(at, "too many errors")
	}
}

func pos(p lexer.Position) Pos {
	return Pos{File: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// A segment is the tokens of one line (more than one physical line when
// rows end in `&` or a bracket is open), without the Newlines.
type segment struct {
	toks []lexer.Token
	end  lexer.Position // just after the last token: where "end of line" is reported
	// unclosed is the innermost `(` or `[` still open when the file ended
	// inside the segment; its Type is 0 when every bracket was closed.
	unclosed lexer.Token
}

// splitLines cuts the token stream at Newline tokens, dropping empty lines.
// A Newline while a `(` or `[` is open does not end the line (contract v2
// §7.5): an expression may continue on the next lines, as in Python, so
// that a long `max(...)` of a recurrence's case can be laid out over
// several. Tokens keep their own positions, so errors still point at the
// physical line and column. A closing bracket with none open is left to the
// parser, which reports it; brackets of any kind close each other here (a
// mismatch is the parser's to report too).
//
// The Newlines dropped are compacted out of toks in place: a segment is a
// subslice of toks, as it was before continuation lines existed.
func splitLines(toks []lexer.Token) []segment {
	var segs []segment
	var open []lexer.Token // the brackets open in the current line
	start, w := 0, 0       // the current line starts at toks[start]; toks[w] is the next slot
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		end := t.EOF()
		if t.Type == tokNewline {
			if len(open) > 0 {
				continue // the expression goes on
			}
			end = true
		}
		if !end {
			if t.Type == tokOp {
				switch t.Value {
				case "(", "[":
					open = append(open, t)
				case ")", "]":
					if len(open) > 0 {
						open = open[:len(open)-1]
					}
				}
			}
			toks[w] = t
			w++
			continue
		}
		if w > start {
			line := toks[start:w:w]
			seg := segment{toks: line, end: endPos(line[len(line)-1])}
			if len(open) > 0 {
				seg.unclosed = open[len(open)-1]
			}
			segs = append(segs, seg)
		}
		open = open[:0]
		start = w
	}
	return segs
}

// sliceLexer replays a segment's tokens to participle, then EOF at the end
// of the line.
type sliceLexer struct {
	seg segment
	i   int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	if l.i < len(l.seg.toks) {
		l.i++
		return l.seg.toks[l.i-1], nil
	}
	return lexer.EOFToken(l.seg.end), nil
}

// run parses one segment with participle.
func run[G any](pp *participle.Parser[G], seg segment) (*G, error) {
	pl, err := lexer.Upgrade(&sliceLexer{seg: seg})
	if err != nil {
		return nil, err
	}
	return pp.ParseFromLexer(pl)
}

type kind int

const (
	kindUnknown kind = iota
	kindProblem
	kindSetting
	kindAnswer
	kindArgs
	kindScalar
	kindInput
	kindGrid
	kindRecurrence
)

// A group is one declaration: a line, and for a recurrence its `|` lines.
type group struct {
	kind  kind
	head  segment
	cases []segment
}

var typeNames = map[string]bool{"char": true, "short": true, "int": true, "long": true, "float": true, "double": true}

// classify picks the kind of declaration from a line's first tokens, so that
// it can be parsed, and its errors worded, as that kind.
func classify(toks []lexer.Token) kind {
	at := func(i int) lexer.Token {
		if i < len(toks) {
			return toks[i]
		}
		return lexer.Token{Type: lexer.EOF}
	}
	isOp := func(t lexer.Token, op string) bool { return t.Type == tokOp && t.Value == op }
	t0, t1 := at(0), at(1)
	switch t0.Type {
	case tokDims, tokInt:
		return kindGrid
	case tokOp:
		if t0.Value == "(" {
			return kindGrid
		}
		return kindUnknown
	case tokIdent:
	default:
		return kindUnknown
	}
	switch {
	case isOp(t1, "=") && !typeNames[t0.Value]:
		return kindUnknown // `x = 3`: reported as a missing type
	case isOp(t1, ":"):
		switch t0.Value {
		case "answer":
			return kindAnswer
		case "args":
			return kindArgs
		}
		return kindSetting
	case t1.Type == tokDims:
		return kindInput
	case isOp(t1, "["):
		return kindRecurrence
	case t0.Value == "problem":
		return kindProblem
	case typeNames[t0.Value], t1.Type == tokIdent && isOp(at(2), "="):
		return kindScalar
	}
	for _, t := range toks {
		if t.Type == tokIdent && t.Value == "x" {
			return kindGrid
		}
	}
	// The side of a 1-D grid alone on its line, a name (`n`) or a call
	// (`len(A)`), or an attempt at one that the grid's parser words best
	// (`len(A)+1` wants parentheses). Integers and `(EXPR)` are grid lines
	// already, above.
	if len(toks) == 1 || isOp(t1, "(") || isOp(t1, "+") || isOp(t1, "-") || isOp(t1, "*") || isOp(t1, "/") || isOp(t1, "%") {
		return kindGrid
	}
	return kindUnknown
}

// parseGroup parses and converts one declaration, reporting its errors.
func (p *parser) parseGroup(g *group) (d Decl) {
	defer func() {
		// A last defence only: the fuzz tests assert that this never runs.
		if r := recover(); r != nil {
			p.errorAt(g.head.toks[0].Pos, "internal error: %v (please report this file)", r)
			d = nil
		}
	}()
	if !p.lexOK(g.head) {
		for _, seg := range g.cases {
			p.lexOK(seg)
		}
		return nil
	}
	c := &conv{p: p}
	switch g.kind {
	case kindProblem:
		if gp, err := run(problemParser(), g.head); err != nil {
			p.syntaxError(err, g.kind, g.head)
		} else {
			return c.problem(gp)
		}
	case kindSetting:
		if gs, err := run(settingParser(), g.head); err != nil {
			p.syntaxError(err, g.kind, g.head)
		} else {
			return c.setting(gs)
		}
	case kindAnswer:
		if ga, err := run(answerParser(), g.head); err != nil {
			p.syntaxError(err, g.kind, g.head)
		} else {
			return &AnswerDecl{Pos: pos(ga.Kw.Pos), Expr: c.expr(ga.Expr)}
		}
	case kindArgs:
		if ga, err := run(argsParser(), g.head); err != nil {
			p.syntaxError(err, g.kind, g.head)
		} else {
			return c.args(ga)
		}
	case kindScalar:
		if gs, err := run(scalarParser(), g.head); err != nil {
			p.syntaxError(err, g.kind, g.head)
		} else {
			return &ScalarDecl{Pos: pos(gs.Type.Pos), Type: gs.Type.Value, Name: gs.Name.Value, Expr: c.expr(gs.Expr)}
		}
	case kindInput:
		if gi, err := run(inputParser(), g.head); err != nil {
			p.syntaxError(err, g.kind, g.head)
		} else {
			return c.input(gi)
		}
	case kindGrid:
		if gg, err := run(gridParser(), gridTokens(g.head)); err != nil {
			p.syntaxError(err, g.kind, g.head)
		} else {
			return c.grid(gg)
		}
	case kindRecurrence:
		return p.recurrence(c, g)
	default:
		p.unknownLine(g.head)
	}
	return nil
}

// msgSides is the error for a grid line of more than three sides.
const msgSides = "a grid has one side (`N`, cells cell[i]), two (`R x C`, cells cell[i][j]) or three (`K x R x C`, cells cell[k][i][j]), not %d"

// gridTokens prepares a grid line of several sides for the grid's
// grammar. The lexer takes two numeric sides as one Dims token and the rest
// of the line as data, as it must for an input's `1x?`: `2x3x4` lexes as
// Dims `2x3` then the data row `x4`, and `n x 3 x 4` ends in Dims `3 x 4`.
// A Dims token among other tokens is split into its sides and `x`, and a
// data row after it is lexed again as expression tokens, so that every
// way of writing `K x R x C` parses alike. A line whose Dims token has no
// `x` beside it (`5x5`) is left as it is.
func gridTokens(seg segment) segment {
	split := false
	for k, t := range seg.toks {
		if t.Type != tokDims {
			continue
		}
		if k+1 < len(seg.toks) && seg.toks[k+1].Type == tokRow && strings.HasPrefix(strings.TrimLeft(seg.toks[k+1].Value, blanks), "x") {
			split = true
		}
		if k > 0 && seg.toks[k-1].Type == tokIdent && seg.toks[k-1].Value == "x" {
			split = true
		}
	}
	if !split {
		return seg // `5x5`, or a line the grid's parser words best as it is
	}
	var out []lexer.Token
	var expand func(toks []lexer.Token)
	expand = func(toks []lexer.Token) {
		for _, t := range toks {
			switch t.Type {
			case tokDims:
				x := strings.IndexByte(t.Value, 'x')
				left, right := t.Value[:x], t.Value[x+1:]
				out = append(out, trimmedTok(t, tokInt, left, 0))
				out = append(out, lexer.Token{Type: tokIdent, Value: "x", Pos: shiftPos(t.Pos, x)})
				out = append(out, trimmedTok(t, tokInt, right, x+1))
			case tokRow:
				expand(relex(t))
			default:
				out = append(out, t)
			}
		}
	}
	expand(seg.toks)
	return segment{toks: out, end: seg.end, unclosed: seg.unclosed}
}

// trimmedTok is the part of t's value from byte at, blanks trimmed, as a
// token of type typ ("?" stays what it is: the grid's parser refuses it).
func trimmedTok(t lexer.Token, typ lexer.TokenType, part string, at int) lexer.Token {
	lead := len(part) - len(strings.TrimLeft(part, blanks))
	v := strings.Trim(part, blanks)
	if v == "?" {
		typ = tokOp
	}
	return lexer.Token{Type: typ, Value: v, Pos: shiftPos(t.Pos, at+lead)}
}

// relex lexes the text of a data row again from the lexer's first state,
// with the positions it has in the file. The row holds no newline. A row
// after a Dims token on a grid line goes on with the next side: its `x`
// is taken apart first (`x4` would lex as a name).
func relex(t lexer.Token) []lexer.Token {
	var toks []lexer.Token
	v := t.Value
	lead := len(v) - len(strings.TrimLeft(v, blanks))
	if strings.HasPrefix(v[lead:], "x") {
		toks = append(toks, lexer.Token{Type: tokIdent, Value: "x", Pos: shiftPos(t.Pos, lead)})
		t.Pos = shiftPos(t.Pos, lead+1)
		t.Value = v[lead+1:]
	}
	l, err := dpLexer.LexString(t.Pos.Filename, t.Value)
	if err != nil {
		return append(toks, t)
	}
	for {
		n, err := l.Next()
		if err != nil || n.EOF() {
			return toks
		}
		if n.Type == tokNewline {
			continue
		}
		n.Pos = shiftPos(t.Pos, n.Pos.Offset)
		toks = append(toks, n)
	}
}

// shiftPos is the position k bytes after p on the same line.
func shiftPos(p lexer.Position, k int) lexer.Position {
	p.Offset += k
	p.Column += k
	return p
}

func (p *parser) recurrence(c *conv, g *group) Decl {
	var d *RecurrenceDecl
	if gr, err := run(recurrenceParser(), g.head); err != nil {
		p.syntaxError(err, g.kind, g.head)
	} else {
		d = c.recurrenceHead(gr)
		if d != nil {
			d.Cases = []*Case{c.kase(gr.Case, len(g.cases) > 0)}
		}
	}
	for _, seg := range g.cases {
		if !p.lexOK(seg) {
			continue
		}
		gl, err := run(caseLineParser(), seg)
		if err != nil {
			p.syntaxError(err, g.kind, seg)
			continue
		}
		k := c.kase(gl.Case, true)
		if d != nil {
			d.Cases = append(d.Cases, k)
		}
	}
	if d == nil {
		return nil
	}
	return d
}

// lexOK reports the first bad token of a line (an unterminated string, a
// stray character) and checks that its expressions do not nest absurdly
// deep (maxNesting) nor hold too many operators (MaxOperators); such a
// line is not given to participle.
func (p *parser) lexOK(seg segment) bool {
	if len(seg.toks) > maxLineTokens {
		p.errorAt(seg.toks[maxLineTokens].Pos, "line too long: more than %d tokens (split it with scalars, or put data in a file named with @\"path\")", maxLineTokens)
		return false
	}
	depth, maxDepth, nest, ops := 0, 0, 0, 0
	for i, t := range seg.toks {
		switch t.Type {
		case tokBadString, tokBadQuote:
			if strings.HasPrefix(t.Value, "'") {
				p.errorAt(t.Pos, "character literal not terminated")
			} else {
				p.errorAt(t.Pos, "string not terminated")
			}
			return false
		case tokBad:
			p.errorAt(t.Pos, "%s", badChar(t.Value))
			return false
		case tokOp:
			switch t.Value {
			case "(", "[", ")", "]", ",", "=", "|", ":":
			default:
				if ops++; ops > MaxOperators {
					p.errorAt(t.Pos, "expression too long: more than %d operators on one line (split it with scalars, or use a reduction such as sum(k in 1..N: ...))", MaxOperators)
					return false
				}
			}
			switch t.Value {
			case "(", "[":
				depth++
				maxDepth = max(maxDepth, depth)
			case ")", "]":
				depth--
			case "?":
				nest++
			case "-", "+", "!":
				if i == 0 || isOperand(seg.toks[i-1]) {
					break
				}
				nest++ // a prefix operator: one more level of recursion
			}
		}
		if maxDepth+nest > maxNesting {
			p.errorAt(t.Pos, "expression nested too deeply (more than %d levels)", maxNesting)
			return false
		}
	}
	return true
}

// isOperand reports whether t can end an operand, so that a following `-`
// is binary.
func isOperand(t lexer.Token) bool {
	switch t.Type {
	case tokIdent, tokInt, tokFloat, tokChar:
		return true
	case tokKeyword:
		return t.Value == "inf"
	case tokOp:
		return t.Value == ")" || t.Value == "]"
	}
	return false
}

func badChar(v string) string {
	switch v {
	case "&":
		return "unexpected `&` (`&` separates the rows of an input's data; the logical and is `&&`)"
	case "@":
		return "unexpected `@` (a file source is written `@\"path\"` after an input's dimensions)"
	}
	r, _ := utf8.DecodeRuneInString(v)
	if r == utf8.RuneError || !isPrint(r) {
		return fmt.Sprintf("unexpected character %q", v)
	}
	return fmt.Sprintf("unexpected character `%s`", v)
}

func isPrint(r rune) bool { return r >= 0x20 && r != 0x7f && r != utf8.RuneError }

// unknownLine reports a line that starts like no declaration.
func (p *parser) unknownLine(seg segment) {
	t := seg.toks[0]
	if t.Type == tokIdent && len(seg.toks) > 1 && seg.toks[1].Type == tokOp && seg.toks[1].Value == "=" {
		p.errorAt(t.Pos, "missing type before `%s` (a scalar is declared as in `int %s = ...`)", t.Value, t.Value)
		return
	}
	if t.Type == tokOp && t.Value == "||" {
		p.errorAt(t.Pos, "unexpected `||` at the start of a line (a recurrence's case lines start with a single `|`)")
		return
	}
	p.errorAt(t.Pos, "unexpected %s at the start of a line: expected a declaration (grid size, setting, input, scalar or recurrence)", tokenText(t))
}

// syntaxError turns a participle error into a positioned message worded for
// the kind of line being parsed.
func (p *parser) syntaxError(err error, k kind, seg segment) {
	var ute *participle.UnexpectedTokenError
	if !errors.As(err, &ute) {
		var pe participle.Error
		if errors.As(err, &pe) {
			p.errorAt(pe.Position(), "%s", pe.Message())
		} else {
			p.errorAt(seg.toks[0].Pos, "%v", err)
		}
		return
	}
	found := ute.Unexpected
	want := expectation(ute.Message())
	var prev lexer.Token // the token before found, if any
	for i, t := range seg.toks {
		if t.Pos.Offset >= found.Pos.Offset {
			break
		}
		prev = seg.toks[i]
	}
	msg := message(k, found, prev, want, seg)
	if o, ok := openBefore(seg, found); ok && !found.EOF() && prev.Type != 0 && prev.Pos.Line < found.Pos.Line {
		// The line at fault began inside a bracket of an earlier line,
		// and so was read as the expression's continuation: most likely
		// that bracket lacks its closing one.
		msg += fmt.Sprintf(" (this line continues the expression of line %d, whose `%s` at column %d is still open)", o.Pos.Line, o.Value, o.Pos.Column)
	}
	p.errorAt(found.Pos, "%s", msg)
}

// openBefore returns the innermost `(` or `[` of seg still open before the
// token at, if any.
func openBefore(seg segment, at lexer.Token) (lexer.Token, bool) {
	var open []lexer.Token
	for _, t := range seg.toks {
		if t.Pos.Offset >= at.Pos.Offset {
			break
		}
		if t.Type != tokOp {
			continue
		}
		switch t.Value {
		case "(", "[":
			open = append(open, t)
		case ")", "]":
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return lexer.Token{}, false
	}
	return open[len(open)-1], true
}

// closer is the bracket that closes open.
func closer(open string) string {
	if open == "[" {
		return "]"
	}
	return ")"
}

// expectation extracts what participle wanted from its message and words it
// for a person: `unexpected token "b" (expected "=" GExpr)` gives "`=`".
func expectation(msg string) string {
	i := strings.Index(msg, "(expected ")
	if i < 0 {
		return ""
	}
	s := strings.TrimSuffix(msg[i+len("(expected "):], ")")
	// The first element of the expected sequence.
	var first string
	switch {
	case strings.HasPrefix(s, `"`):
		end := strings.Index(s[1:], `"`)
		if end < 0 {
			return ""
		}
		first = s[:end+2]
	default:
		end := strings.IndexAny(s, " ")
		if end < 0 {
			end = len(s)
		}
		first = s[:end]
	}
	switch first {
	case `"in"`:
		// Only the reduction branch of a call asks for `in` (`min(k in ...)`);
		// the other branch was a plain argument list.
		return "`,` or `)`"
	case "<ident>":
		return "a name"
	case "<int>":
		return "an integer"
	case "<row>":
		return "values"
	case "GData":
		return "values, a string or `@\"path\"`"
	case "<eq>":
		return "`=`"
	case "<dims>":
		return "dimensions such as `1x5`"
	case "GSide":
		return "a number, a name or `(`"
	case "GName":
		return "a name"
	case "GArgItem":
		return "an input name or `(`"
	}
	if strings.HasPrefix(first, `"`) {
		return "`" + strings.Trim(first, `"`) + "`"
	}
	if strings.HasPrefix(first, "G") || strings.HasPrefix(first, "(") {
		return "an expression"
	}
	return first
}

// message words a syntax error; k, prev and seg give the context.
func message(k kind, found, prev lexer.Token, want string, seg segment) string {
	f := tokenText(found)
	if found.EOF() {
		f = "end of line"
	}
	isOp := func(t lexer.Token, ops ...string) bool {
		if t.Type != tokOp {
			return false
		}
		for _, op := range ops {
			if t.Value == op {
				return true
			}
		}
		return false
	}
	switch k {
	case kindProblem:
		if want == "a name" {
			return "expected a name after `problem`, found " + f
		}
	case kindSetting:
		if prev.Type == tokOp && prev.Value == ":" && want == "a name" {
			return fmt.Sprintf("expected a value after `%s:`, found %s", seg.toks[0].Value, f)
		}
	case kindScalar:
		switch {
		case want == "`=`":
			return fmt.Sprintf("expected `=` after scalar name `%s`, found %s", prev.Value, f)
		case want == "a name" && prev.Pos.Offset == seg.toks[0].Pos.Offset && prev.Value == seg.toks[0].Value:
			return fmt.Sprintf("expected dimensions (`1x5`) or a name after type `%s`, found %s", prev.Value, f)
		}
	case kindInput:
		switch {
		case found.Type == tokEq && prev.Type == tokDims:
			return "expected an input name before `=`"
		case (found.Type == tokString || found.Type == tokSource) && prev.Type == tokRow:
			return fmt.Sprintf("expected `=` after input name `%s`", strings.Trim(prev.Value, blanks))
		case found.Type == tokEq:
			return "unexpected second `=`"
		}
	case kindGrid:
		if isOp(found, "+", "-", "*", "/", "%") {
			return fmt.Sprintf("unexpected %s in the grid size: put an expression side in parentheses, as in `(N+1) x M`", f)
		}
		if want == "`x`" || want == "" && found.Type != tokRow {
			// After a side: `5 M`. (A Row follows a `5x5` token: `5x5 7`.)
			return "expected `x` between the grid's sides, or the end of the line, found " + f
		}
	case kindRecurrence:
		eq := -1
		for i, t := range seg.toks {
			if isOp(t, "=") {
				eq = i
				break
			}
		}
		if seg.toks[0].Type == tokIdent && (eq < 0 || found.Pos.Offset <= seg.toks[eq].Pos.Offset) {
			if want == "`=`" {
				return fmt.Sprintf("expected `=` after `%s`, found %s", strings.Join(tokenValues(seg.toks, found), ""), f)
			}
			return fmt.Sprintf("unexpected %s: %s", f, lhsRule)
		}
		if want == "" && (isOp(found, "|") || found.Type == tokKeyword) {
			return fmt.Sprintf("unexpected %s", f)
		}
	}
	if want == "" {
		return "unexpected " + f
	}
	return "unexpected " + f + ", expected " + want
}

// tokenValues joins the values of toks before stop.
func tokenValues(toks []lexer.Token, stop lexer.Token) []string {
	var vs []string
	for _, t := range toks {
		if t.Pos.Offset >= stop.Pos.Offset {
			break
		}
		vs = append(vs, t.Value)
	}
	return vs
}
