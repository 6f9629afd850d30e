package dsl

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"sync"
)

// The participle grammar. Each kind of line has a parser of its own: Parse
// splits the file into lines and picks the parser from the first tokens, so a
// syntax error is reported in the terms of the declaration being written and
// the next line is parsed afresh. These structs are the concrete syntax only;
// convert.go turns them into the AST of ast.go.
//
// Tokens are captured as lexer.Token (not string) wherever the AST needs
// the token's position.

// Expressions, one struct per C precedence level, lowest first.

type gExpr struct {
	EndPos lexer.Position // where the next token starts

	Cond  *gOr        `parser:"@@"`
	Quest lexer.Token `parser:"( @'?'"`
	Then  *gExpr      `parser:"@@ ':'"`
	Else  *gExpr      `parser:"@@ )?"`
}

type gOr struct {
	X    *gAnd    `parser:"@@"`
	Rest []*gOrOp `parser:"@@*"`
}

type gOrOp struct {
	Op lexer.Token `parser:"@'||'"`
	Y  *gAnd       `parser:"@@"`
}

type gAnd struct {
	X    *gEq      `parser:"@@"`
	Rest []*gAndOp `parser:"@@*"`
}

type gAndOp struct {
	Op lexer.Token `parser:"@'&&'"`
	Y  *gEq        `parser:"@@"`
}

type gEq struct {
	X    *gRel    `parser:"@@"`
	Rest []*gEqOp `parser:"@@*"`
}

type gEqOp struct {
	Op lexer.Token `parser:"@('==' | '!=')"`
	Y  *gRel       `parser:"@@"`
}

type gRel struct {
	X    *gAdd     `parser:"@@"`
	Rest []*gRelOp `parser:"@@*"`
}

type gRelOp struct {
	Op lexer.Token `parser:"@('<=' | '>=' | '<' | '>')"`
	Y  *gAdd       `parser:"@@"`
}

type gAdd struct {
	X    *gMul     `parser:"@@"`
	Rest []*gAddOp `parser:"@@*"`
}

type gAddOp struct {
	Op lexer.Token `parser:"@('+' | '-')"`
	Y  *gMul       `parser:"@@"`
}

type gMul struct {
	X    *gUnary   `parser:"@@"`
	Rest []*gMulOp `parser:"@@*"`
}

type gMulOp struct {
	Op lexer.Token `parser:"@('*' | '/' | '%')"`
	Y  *gUnary     `parser:"@@"`
}

type gUnary struct {
	Op      lexer.Token `parser:"(  @('-' | '+' | '!')"`
	X       *gUnary     `parser:"@@ )"`
	Primary *gPrimary   `parser:"| @@"`
}

type gPrimary struct {
	Float lexer.Token `parser:"@Float"`
	Int   lexer.Token `parser:"| @Int"`
	Char  lexer.Token `parser:"| @Char"`
	Inf   lexer.Token `parser:"| @'inf'"`
	Open  lexer.Token `parser:"| ( @'('"`
	Paren *gExpr      `parser:"@@ ')' )"`
	Named *gNamed     `parser:"| @@"`
}

// gNamed is a name, optionally called (`f(a, b)`, `min(k in 0..N: e)`) or
// indexed (`A[e]`, `cell[e][e]`).
type gNamed struct {
	Name    lexer.Token `parser:"@Ident"`
	Open    lexer.Token `parser:"( @'('"`
	Call    *gCallArgs  `parser:"  @@? ')'"`
	Indices []*gExpr    `parser:"| ( '[' @@ ']' )+ )?"`
}

type gCallArgs struct {
	Reduce *gReduce `parser:"  @@"`
	Args   []*gArg  `parser:"| @@ ( ',' @@ )*"`
}

// gArg is an argument of a call, which may be followed by `emit EXPR`
// (`max(a emit 'M', b emit 'I')`, contract v2 §7.4). Any call parses with
// emits; sema says where they mean something.
type gArg struct {
	X        *gExpr      `parser:"@@"`
	Emit     lexer.Token `parser:"( @'emit'"`
	EmitExpr *gExpr      `parser:"  @@ )?"`
}

type gReduce struct {
	Var  lexer.Token `parser:"@Ident 'in'"`
	Lo   *gExpr      `parser:"@@ '..'"`
	Hi   *gExpr      `parser:"@@ ':'"`
	Body *gExpr      `parser:"@@"`
}

// Names that may contain `-` (`lookback-put`, `held-karp`): the parts must
// touch, which convert.go checks.
type gName struct {
	First lexer.Token  `parser:"@(Ident | Keyword | Int)"`
	Rest  []*gNamePart `parser:"@@*"`
}

type gNamePart struct {
	Dash lexer.Token `parser:"@'-'"`
	Part lexer.Token `parser:"@(Ident | Keyword | Int)"`
}

// A token inside a repetition needs a struct of its own: participle sets,
// rather than appends to, a []lexer.Token field.

type gIdentTok struct {
	T lexer.Token `parser:"@Ident"`
}

// Lines.

type gProblem struct {
	Kw   lexer.Token `parser:"@'problem'"`
	Name *gName      `parser:"@@"`
}

// gSetting is `key: value`, or `key: name = EXPR` (`schedule: t = j - i`).
type gSetting struct {
	Key   lexer.Token `parser:"@Ident ':'"`
	Value *gName      `parser:"@@"`
	Expr  *gExpr      `parser:"( '=' @@ )?"`
}

type gAnswer struct {
	Kw   lexer.Token `parser:"@'answer' ':'"`
	Expr *gExpr      `parser:"@@"`
}

type gArgs struct {
	Kw    lexer.Token `parser:"@'args' ':'"`
	Items []*gArgItem `parser:"@@ ( ',' @@ )*"`
}

type gArgItem struct {
	Name   lexer.Token  `parser:"@Ident"`
	Open   lexer.Token  `parser:"| ( @'('"`
	Group  []*gIdentTok `parser:"@@ ( ',' @@ )* ')'"`
	Format *gName       `parser:"'=' @@ )"`
}

type gScalar struct {
	Type lexer.Token `parser:"@Ident"`
	Name lexer.Token `parser:"@Ident '='"`
	Expr *gExpr      `parser:"@@"`
}

// gInput is `TYPE DIMS [NAME =] VALUES`. The lexer hands the text after DIMS
// over as Row, String, Source, Eq and Amp tokens; a Row before `=` is the
// name. convert.go splits rows into values.
type gInput struct {
	Type  lexer.Token `parser:"@Ident"`
	Dims  lexer.Token `parser:"@Dims"`
	First lexer.Token `parser:"( @Row"`
	Eq    lexer.Token `parser:"  ( @Eq"`
	Data  *gData      `parser:"    @@? )?"`
	More  []*gAmpRow  `parser:"  @@*"`
	Bare  *gData      `parser:"| @@ )?"`
}

type gData struct {
	Text   lexer.Token `parser:"  @String"`
	Source lexer.Token `parser:"| @Source"`
	Row    lexer.Token `parser:"| @Row"`
	More   []*gAmpRow  `parser:"  @@*"`
}

type gAmpRow struct {
	Amp lexer.Token `parser:"@Amp"`
	T   lexer.Token `parser:"@Row"`
}

// gGrid is `5x5` (one Dims token), or sides separated by `x`: `N`,
// `(len(A)+1) x (len(B)+1)`, `K x R x C` (a line of several sides reaches
// the grammar with its Dims tokens split, gridTokens). More than three
// sides parse, so that convert.go can say how many a grid may have rather
// than report a syntax error.
type gGrid struct {
	Dims  lexer.Token  `parser:"  @Dims"`
	First *gSide       `parser:"| @@"`
	Rest  []*gGridSide `parser:"  @@*"`
}

type gGridSide struct {
	X    lexer.Token `parser:"@'x'"`
	Side *gSide      `parser:"@@"`
}

// gSide is a side of the grid: an integer, a name, a call such as
// `len(A)` (an extension: the contract asks for `(len(A))`), or a
// parenthesised expression.
type gSide struct {
	Int   lexer.Token `parser:"  @Int"`
	Named *gNamed     `parser:"| @@"`
	Open  lexer.Token `parser:"| ( @'('"`
	Paren *gExpr      `parser:"    @@ ')' )"`
}

// gRecurrence is the first line of a recurrence, `cell[i][j] = CASE` or
// `cell[j] = CASE`. Any number of subscripts parse, and each may be any
// expression or none: convert.go then reports the first that is not a name
// at the token at fault (`cell[i][j-1]`: the `-`), which a grammar of names
// could not, as participle backtracks out of a failed `[`. Sema checks the
// number of subscripts against the grid line.
type gRecurrence struct {
	Target lexer.Token `parser:"@Ident"`
	Subs   []*gLHSSub  `parser:"@@+"`
	Eq     lexer.Token `parser:"@'='"`
	Case   *gCase      `parser:"@@"`
}

type gLHSSub struct {
	X     *gExpr      `parser:"'[' @@?"`
	Close lexer.Token `parser:"@']'"`
}

// gCaseLine is a continuation line of a recurrence, `| CASE`.
type gCaseLine struct {
	Bar  lexer.Token `parser:"@'|'"`
	Case *gCase      `parser:"@@"`
}

type gCase struct {
	Pos       lexer.Position
	Value     *gExpr      `parser:"@@"`
	When      lexer.Token `parser:"( @'when'"`
	Cond      *gExpr      `parser:"@@"`
	Otherwise lexer.Token `parser:"| @'otherwise' )?"`
	Emit      lexer.Token `parser:"( @'emit'"`
	EmitExpr  *gExpr      `parser:"@@ )?"`
}

func build[G any]() *participle.Parser[G] {
	return participle.MustBuild[G](participle.Lexer(dpLexer), participle.UseLookahead(2))
}

// The parsers are built once, on first use (building all of them takes
// milliseconds, a visible part of a small run and of commands that parse
// no file); a participle.Parser is not modified by parsing, so they are
// safe to share.
var (
	problemParser    = sync.OnceValue(build[gProblem])
	settingParser    = sync.OnceValue(build[gSetting])
	answerParser     = sync.OnceValue(build[gAnswer])
	argsParser       = sync.OnceValue(build[gArgs])
	scalarParser     = sync.OnceValue(build[gScalar])
	inputParser      = sync.OnceValue(build[gInput])
	gridParser       = sync.OnceValue(build[gGrid])
	recurrenceParser = sync.OnceValue(build[gRecurrence])
	caseLineParser   = sync.OnceValue(build[gCaseLine])
)
