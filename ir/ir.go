// Package ir is the checked, typed form of a `.dp` problem: every name is
// resolved, every input is loaded, every scalar is evaluated, implicit
// conversions are explicit, and every node still knows its `.dp` position.
// It is the boundary between the front end (dsl, sema) and everything after
// it (plan, eval, codegen, the runtimes): those packages never see the AST.
//
// The recurrence (the algorithm) lives here; how it is mapped onto threads and
// memory (the schedule) lives in package plan.
package ir

import (
	"fmt"
	"strconv"

	"github.com/dpgpu/dpgpu/source"
)

// Value is a constant of some type. Integer types use I, floating types F.
type Value struct {
	T Type
	I int64
	F float64
}

// Float64 returns v as a float64 whatever its type.
func (v Value) Float64() float64 {
	if v.T.IsFloat() {
		return v.F
	}
	return float64(v.I)
}

func (v Value) String() string {
	if v.T.IsFloat() {
		return fmt.Sprintf("%g", v.F)
	}
	if v.T == Char && v.I >= 32 && v.I < 127 {
		return string(rune(v.I))
	}
	return fmt.Sprint(v.I)
}

// Input is a vector (Rows == 1) or matrix of values, fully loaded. Integer
// types (char, int, long) keep their data in I, floating types in F; the
// other slice is nil. Elements are row-major: element [r][c] is at r*Cols+c.
type Input struct {
	Pos    source.Pos
	Name   string
	T      Type
	Rows   int
	Cols   int
	Vector bool // declared 1xN: indexed with one subscript
	I      []int64
	F      []float64
	Origin string // where the data came from, for reports: "inline", a path, "--input"
}

// Len is the number of elements.
func (in *Input) Len() int { return in.Rows * in.Cols }

// Scalar is a named constant, evaluated on the host (after command-line
// overrides) in double precision and converted to its type; a reduction in
// its expression is computed by the run-time rules of docs/language.md
// §6.1 first.
type Scalar struct {
	Pos     source.Pos
	Name    string
	Value   Value
	Derived bool // defined by an expression over other names
}

// Case is one alternative of the recurrence. Cond is nil for `otherwise`
// (always the last case). Emit is nil when the case emits nothing.
type Case struct {
	Pos   source.Pos
	Cond  Expr
	Value Expr
	Emit  Expr
}

// Problem is a checked problem, ready to be planned and run.
type Problem struct {
	Name string
	File string // path of the `.dp` file ("" when built from a string)
	Src  []byte // source text, for error carets

	// Dims is how many dimensions the grid line gave: 2 for `R x C`, 1 for
	// `N` (0 for held-karp, which has no grid). A 1-D grid is lowered to a
	// 1 x N grid, so that every later stage works unchanged: Rows is 1, the
	// one index variable is the column variable (JVar; IVar is ""), and
	// every reference cell[e] is a CellRef with I the constant 0 (OneD set).
	// Dims only changes how cells and the grid are named in messages
	// (CellText, GridText).
	Dims       int
	Rows, Cols int64 // grid size; 0 for schedules without a grid (held-karp)
	CellType   Type
	IVar, JVar string // names of the index variables (`i`, `j`; `j` alone in 1-D)

	// Header settings; *Pos is zero when the line is absent.
	Prev     int // declared `prev:`, -1 when absent (the planner infers it)
	PrevPos  source.Pos
	Mem      int  // 0: constant/read-only cache, 1: texture
	Maintain bool // keep the whole grid on the host
	// AllowNaN (`nan: allow`) lets a floating cell hold NaN; by default a
	// NaN reaching a cell or the answer is an error naming the case and cell.
	AllowNaN    bool
	Schedule    string // forced schedule name, "" for automatic; "t" for `schedule: t = EXPR`
	SchedulePos source.Pos
	// ScheduleExpr is EXPR of `schedule: t = EXPR` (nil otherwise): an
	// integer expression of the recurrence's nodes over the index variables
	// (Var of kind VarI and VarJ), constants and scalars, without cells,
	// input elements or reductions. The checker checks only names and
	// types; whether it is linear (+ - and * by constants) and a legal order
	// for the recurrence is the planner's to decide.
	ScheduleExpr Expr

	Inputs  []*Input
	Scalars []*Scalar
	Cases   []*Case
	// Answer is the reported expression; nil means the last cell the
	// schedule computes (cell[ROWS-1][COLS-1] forward, cell[0][0] backward).
	Answer    Expr
	AnswerPos source.Pos

	// CellRefs lists every cell reference of the recurrence (not of the
	// answer) in source order; CellRef.ID indexes it.
	CellRefs []*CellRef
	RecurPos source.Pos
}

// Input returns the input with the given name, or nil.
func (p *Problem) Input(name string) *Input {
	for _, in := range p.Inputs {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// Scalar returns the scalar with the given name, or nil.
func (p *Problem) Scalar(name string) *Scalar {
	for _, s := range p.Scalars {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Cells is the number of grid cells.
func (p *Problem) Cells() int64 { return p.Rows * p.Cols }

// CellText names cell [i][j] of p's grid as a user wrote it, for messages:
// cell[2][5] in a 2-D grid, cell[5] in a 1-D grid (whose cells all have
// i = 0). Every stage words cells through it, so that a 1-D problem's
// messages never show the row that the lowering added.
func (p *Problem) CellText(i, j int64) string {
	if p.Dims == 1 {
		return "cell[" + strconv.FormatInt(j, 10) + "]"
	}
	return "cell[" + strconv.FormatInt(i, 10) + "][" + strconv.FormatInt(j, 10) + "]"
}

// GridText names p's grid for messages, as a noun phrase to follow "the":
// "5x7 grid", or "1-D grid of 17 cells" (so that "outside the %s" reads
// well for both).
func (p *Problem) GridText() string {
	if p.Dims == 1 {
		return fmt.Sprintf("1-D grid of %d cells", p.Cols)
	}
	return fmt.Sprintf("%dx%d grid", p.Rows, p.Cols)
}
