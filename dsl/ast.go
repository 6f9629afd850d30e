// Package dsl reads `.dp` problem files: it turns source text into an abstract
// syntax tree (AST) whose every node carries its position. It knows nothing of
// types, inputs or schedules; the sema package checks the tree and lowers it to
// the typed ir.Problem that the later stages consume.
package dsl

import "github.com/dpgpu/dpgpu/source"

// Pos is a position in a source file (package source; the alias keeps the
// parser's own code short).
type Pos = source.Pos

// File is a parsed `.dp` file: its declarations in source order.
type File struct {
	Name   string // the path it was read from, as given
	Source []byte // the text, kept for error carets
	Decls  []Decl
}

// Decl is one top-level line (or, for a recurrence, group of lines).
type Decl interface {
	Position() Pos
	decl()
}

// ProblemDecl is `problem NAME`.
type ProblemDecl struct {
	Pos  Pos
	Name string
}

// GridDecl is the grid size line: `R x C` (thesis: `5x5`), or `N` alone
// for a 1-D grid, or `K x R x C` for a 3-D grid. Sides holds one
// expression per dimension, in order: one, two or three (the parser
// refuses more).
type GridDecl struct {
	Pos   Pos
	Sides []Expr
}

// SettingDecl is one of the `key: value` header lines whose value is a word
// or an integer: `prev: 2`, `mem: 0`, `maintain: 1`, `cell: long`,
// `schedule: rows`. Key is without the colon. A value may be followed by
// `= EXPR`, as in `schedule: t = j - i`: then Value is the name before `=`
// and Expr is the expression (nil otherwise); sema says which keys take one.
type SettingDecl struct {
	Pos      Pos
	Key      string
	Value    string
	ValuePos Pos
	Expr     Expr
}

// AnswerDecl is `answer: EXPR`.
type AnswerDecl struct {
	Pos  Pos
	Expr Expr
}

// InputDecl is a vector or matrix input: `TYPE DIMS [NAME =] VALUES`.
// Exactly one of Values, Text and Source is set.
type InputDecl struct {
	Pos    Pos
	Type   string // char, int, long, float, double
	Dims   Dims
	Name   string // "" when unnamed (the thesis style): sema names it in0, in1, ...
	Values [][]Value
	Text   *StringLit // `char 1x? A = "ACGT"`: one value per character
	Source *Source
}

// Dims is `RxC`; a side of -1 stands for `?` (taken from the data).
type Dims struct {
	Pos        Pos
	Rows, Cols int
}

// Value is one literal of an inline data row: a number (`-3`, `2.5`) or, for
// char inputs, a single character or word (`A`).
type Value struct {
	Pos  Pos
	Text string
}

// Source is `@"path"` with an optional `#k` record selector (1-based; 0 when
// absent).
type Source struct {
	Pos    Pos
	Path   string
	Record int
}

// ScalarDecl is `TYPE NAME = EXPR`: a literal or derived scalar.
type ScalarDecl struct {
	Pos  Pos
	Type string
	Name string
	Expr Expr
}

// RecurrenceDecl is `cell[i][j] = EXPR when COND | ... | EXPR otherwise`,
// or `cell[j] = ...` over a 1-D grid.
type RecurrenceDecl struct {
	Pos    Pos
	Target string   // "cell"
	Vars   []*Ident // the bound index variables, one per subscript (sema checks the count)
	Cases  []*Case
}

// Case is one alternative of a recurrence. Cond is nil for `otherwise` and
// for a single unconditional right-hand side (then Otherwise is false).
type Case struct {
	Pos       Pos
	Value     Expr
	Cond      Expr
	Otherwise bool
	Emit      Expr // nil when the case has no `emit`
}

func (d *ProblemDecl) Position() Pos    { return d.Pos }
func (d *GridDecl) Position() Pos       { return d.Pos }
func (d *SettingDecl) Position() Pos    { return d.Pos }
func (d *AnswerDecl) Position() Pos     { return d.Pos }
func (d *InputDecl) Position() Pos      { return d.Pos }
func (d *ScalarDecl) Position() Pos     { return d.Pos }
func (d *RecurrenceDecl) Position() Pos { return d.Pos }

func (*ProblemDecl) decl()    {}
func (*GridDecl) decl()       {}
func (*SettingDecl) decl()    {}
func (*AnswerDecl) decl()     {}
func (*InputDecl) decl()      {}
func (*ScalarDecl) decl()     {}
func (*RecurrenceDecl) decl() {}

// Expr is an expression node.
type Expr interface {
	Position() Pos
	expr()
}

// Ident is a name: an input, scalar, index variable, ROWS, COLS.
type Ident struct {
	Pos  Pos
	Name string
}

// IntLit is an integer literal.
type IntLit struct {
	Pos   Pos
	Text  string
	Value int64
}

// FloatLit is a floating-point literal (has a '.' or an exponent).
type FloatLit struct {
	Pos   Pos
	Text  string
	Value float64
}

// CharLit is a character literal 'c' (an extension: compares with char inputs).
type CharLit struct {
	Pos   Pos
	Value byte
}

// StringLit is a double-quoted string (used by `char 1x? A = "ACGT"`).
type StringLit struct {
	Pos   Pos
	Value string
}

// Inf is the literal `inf`; `-inf` is a Unary minus applied to it.
type Inf struct {
	Pos Pos
}

// Unary is `-x`, `+x` or `!x`.
type Unary struct {
	Pos Pos
	Op  string
	X   Expr
}

// Binary is `x OP y` for OP in + - * / % == != < <= > >= && ||.
type Binary struct {
	Pos  Pos // the operator's position
	Op   string
	X, Y Expr
}

// Ternary is `c ? a : b`.
type Ternary struct {
	Pos        Pos
	Cond, T, F Expr
}

// Index is `NAME[e]` or `NAME[e][e]`, including `cell[e][e]`.
type Index struct {
	Pos     Pos
	Name    *Ident
	Indices []Expr
}

// Call is `f(args...)`. An argument may be followed by `emit EXPR`
// (`max(a emit 'M', b emit 'I')`, contract v2 §7.4): then Emits holds one
// entry per argument, nil for an argument without one; Emits is nil when
// no argument has one, so that a call without emits is as it always was.
type Call struct {
	Pos   Pos
	Func  *Ident
	Args  []Expr
	Emits []Expr
}

// Reduce is `min(k in LO..HI: BODY)`, likewise max and sum.
type Reduce struct {
	Pos    Pos
	Func   *Ident
	Var    *Ident
	Lo, Hi Expr
	Body   Expr
}

// Paren is a parenthesised expression, kept so that printed expressions
// round-trip and positions of `(` are known.
type Paren struct {
	Pos Pos
	X   Expr
}

func (e *Ident) Position() Pos     { return e.Pos }
func (e *IntLit) Position() Pos    { return e.Pos }
func (e *FloatLit) Position() Pos  { return e.Pos }
func (e *CharLit) Position() Pos   { return e.Pos }
func (e *StringLit) Position() Pos { return e.Pos }
func (e *Inf) Position() Pos       { return e.Pos }
func (e *Unary) Position() Pos     { return e.Pos }
func (e *Binary) Position() Pos    { return e.Pos }
func (e *Ternary) Position() Pos   { return e.Pos }
func (e *Index) Position() Pos     { return e.Pos }
func (e *Call) Position() Pos      { return e.Pos }
func (e *Reduce) Position() Pos    { return e.Pos }
func (e *Paren) Position() Pos     { return e.Pos }

func (*Ident) expr()     {}
func (*IntLit) expr()    {}
func (*FloatLit) expr()  {}
func (*CharLit) expr()   {}
func (*StringLit) expr() {}
func (*Inf) expr()       {}
func (*Unary) expr()     {}
func (*Binary) expr()    {}
func (*Ternary) expr()   {}
func (*Index) expr()     {}
func (*Call) expr()      {}
func (*Reduce) expr()    {}
func (*Paren) expr()     {}

// ArgsDecl is `args: ITEM, ITEM, ...` (an extension of contract v1): it says
// which inputs the positional command-line arguments fill, in order. An item
// is a single input name (`A`: the argument is a file loaded by its
// extension, like `--input A=@file`) or a group read from one file in a named
// format (`(val, wt, cap) = pisinger`).
type ArgsDecl struct {
	Pos   Pos
	Items []*ArgItem
}

// ArgItem is one positional argument of an ArgsDecl.
type ArgItem struct {
	Pos    Pos
	Names  []*Ident // one name, or the names of a group
	Format string   // "" for a single name loaded by extension
}

func (d *ArgsDecl) Position() Pos { return d.Pos }
func (*ArgsDecl) decl()           {}
