package dsl

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// The lexer is a participle stateful lexer with two states.
//
// Root lexes headers, scalars and expressions. A dimensions token (`5x5`,
// `1x?`, `?x?`, also `5 x 5` with spaces when both sides are numbers) switches
// to the Data state for the rest of the line, because what follows DIMS on an
// input line is not an expression: a whole comma-separated data row is one
// Row token, which keeps a 10 MB inline vector to a single
// regular-expression match instead of millions of participle tokens. The
// Data state ends at the newline, except that `&` at the end of a line (the
// thesis' row separator) carries the newline, and any blank or comment
// lines after it, with it. A `?` side must touch the `x`, so that the
// ternary `a ? x ? b : c : d` is not taken for dimensions; written without
// spaces, `a?x?b:c:d`, it is (write spaces around `?`).
//
// Go's regular expressions have no lookahead, so `0..N` cannot be told from
// the float `0.` followed by `.N` inside one rule. Floats with digits after
// the dot or with an exponent have a rule of their own; `2.` lexes as Int then
// Dot, and lexFile merges the two when they touch.
//
// `#` starts a comment, except directly after the closing quote of a
// `@"path"` source, where `#k` selects a record and is part of the Source
// token. Comments and blanks are dropped by the lexer itself (lower-case
// rule names). Every other byte matches some rule (the last is Bad), so
// lexing never fails; unterminated strings and stray characters become
// tokens that Parse reports as errors, and the parse resumes at the next
// line.
var dpLexer = lexer.MustStateful(lexer.Rules{
	"Root": {
		{Name: "whitespace", Pattern: `[ \t\r\f\v]+`},
		{Name: "bom", Pattern: `\x{FEFF}`}, // a byte-order mark, as some editors write
		{Name: "comment", Pattern: `#[^\n]*`},
		{Name: "Newline", Pattern: `\n`},
		{Name: "Dims", Pattern: `[0-9]+[ \t]*x[ \t]*[0-9]+|(?:[0-9]+|\?)x(?:[0-9]+|\?)`, Action: lexer.Push("Data")},
		{Name: "Float", Pattern: `[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[0-9]+\.?[eE][-+]?[0-9]+`},
		{Name: "Int", Pattern: `[0-9]+`},
		{Name: "Range", Pattern: `\.\.`},
		{Name: "Dot", Pattern: `\.`},
		{Name: "Char", Pattern: `'(?:\\.|[^'\\\n])*'`},
		{Name: "String", Pattern: `"(?:\\.|[^"\\\n])*"`},
		{Name: "BadString", Pattern: `["'][^\n]*`},
		{Name: "Keyword", Pattern: `(?:when|otherwise|emit|inf|in)\b`},
		{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
		{Name: "Op", Pattern: `\|\||&&|==|!=|<=|>=|[-+*/%<>!?:=,()\[\]|]`},
		{Name: "Bad", Pattern: `[^\n]`},
	},
	"Data": {
		{Name: "whitespace", Pattern: `[ \t\r\f\v]+`},
		{Name: "comment", Pattern: `#[^\n]*`},
		{Name: "Newline", Pattern: `\n`, Action: lexer.Pop()},
		{Name: "Source", Pattern: `@"(?:\\.|[^"\\\n])*"(?:#[A-Za-z0-9_]+)?`},
		{Name: "String", Pattern: `"(?:\\.|[^"\\\n])*"`},
		{Name: "BadQuote", Pattern: `@?"[^\n]*`},
		{Name: "Amp", Pattern: `&(?:[ \t\r\f\v]*(?:#[^\n]*)?\n)*`},
		{Name: "Eq", Pattern: `=`},
		{Name: "Row", Pattern: `[^&=#"@\n]+`},
		{Name: "Bad", Pattern: `[^\n]`},
	},
})

// Token types of dpLexer, looked up once.
var (
	tokNewline   = dpLexer.Symbols()["Newline"]
	tokDims      = dpLexer.Symbols()["Dims"]
	tokFloat     = dpLexer.Symbols()["Float"]
	tokInt       = dpLexer.Symbols()["Int"]
	tokDot       = dpLexer.Symbols()["Dot"]
	tokChar      = dpLexer.Symbols()["Char"]
	tokString    = dpLexer.Symbols()["String"]
	tokBadString = dpLexer.Symbols()["BadString"]
	tokBadQuote  = dpLexer.Symbols()["BadQuote"]
	tokKeyword   = dpLexer.Symbols()["Keyword"]
	tokIdent     = dpLexer.Symbols()["Ident"]
	tokOp        = dpLexer.Symbols()["Op"]
	tokBad       = dpLexer.Symbols()["Bad"]
	tokRow       = dpLexer.Symbols()["Row"]
	tokSource    = dpLexer.Symbols()["Source"]
	tokAmp       = dpLexer.Symbols()["Amp"]
	tokEq        = dpLexer.Symbols()["Eq"]
)

// maxLineTokens bounds the tokens of one line: well above what MaxOperators
// lets an expression have, so that only a hostile line reaches it.
const maxLineTokens = 8 * MaxOperators

// lexFile turns src into tokens, Newline tokens included, ending with EOF.
// Lexing cannot fail (see dpLexer); the error return only guards against a
// broken rule set.
func lexFile(filename, src string) ([]lexer.Token, error) {
	l, err := dpLexer.LexString(filename, src)
	if err != nil {
		return nil, err
	}
	var toks []lexer.Token
	lineStart := 0 // offset of the current line's first byte
	lineToks := 0  // tokens kept of the current line
	for {
		t, err := l.Next()
		if err != nil {
			return nil, err
		}
		// A line of more than maxLineTokens tokens is refused by the parser
		// (lexOK); keeping only one token past the limit holds the memory of
		// a hostile line (a million-term sum) to the limit's.
		if t.Type == tokNewline || t.EOF() {
			lineToks = 0
		} else if lineToks++; lineToks > maxLineTokens+1 {
			continue
		}
		// participle counts columns in runes; Pos.Col counts bytes.
		t.Pos.Column = t.Pos.Offset - lineStart + 1
		if nl := strings.LastIndexByte(t.Value, '\n'); nl >= 0 {
			lineStart = t.Pos.Offset + nl + 1
		}
		// `2.` is Int then Dot (see dpLexer); glue them back together, and
		// likewise `2.e5`, which the Float rule already takes whole.
		if t.Type == tokDot && len(toks) > 0 {
			prev := &toks[len(toks)-1]
			if prev.Type == tokInt && prev.Pos.Offset+len(prev.Value) == t.Pos.Offset {
				prev.Type = tokFloat
				prev.Value += "."
				continue
			}
		}
		toks = append(toks, t)
		if t.EOF() {
			return toks, nil
		}
	}
}

// tokenText is how a token is quoted in messages.
func tokenText(t lexer.Token) string {
	switch {
	case t.EOF():
		return "end of line" // parsing goes line by line
	case t.Type == tokAmp:
		return "`&`"
	case t.Type == tokRow:
		return "`" + strings.Trim(t.Value, blanks) + "`"
	}
	v := t.Value
	if len(v) > 40 {
		v = v[:37] + "..."
	}
	return "`" + v + "`"
}

// endPos is the position just after token t (columns in bytes).
func endPos(t lexer.Token) lexer.Position {
	p := t.Pos
	p.Offset += len(t.Value)
	if nl := strings.LastIndexByte(t.Value, '\n'); nl >= 0 {
		p.Line += strings.Count(t.Value, "\n")
		p.Column = len(t.Value) - nl
	} else {
		p.Column += len(t.Value)
	}
	return p
}
