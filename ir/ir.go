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
// overrides) in double precision and converted to its type.
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

	Rows, Cols int64 // grid size; 0 for schedules without a grid (held-karp)
	CellType   Type
	IVar, JVar string // names of the index variables (`i`, `j`)

	// Header settings; *Pos is zero when the line is absent.
	Prev     int // declared `prev:`, -1 when absent (the planner infers it)
	PrevPos  source.Pos
	Mem      int  // 0: constant/read-only cache, 1: texture
	Maintain bool // keep the whole grid on the host
	// AllowNaN (`nan: allow`) lets a floating cell hold NaN; by default a
	// NaN reaching a cell or the answer is an error naming the case and cell.
	AllowNaN    bool
	Schedule    string // forced schedule name, "" for automatic
	SchedulePos source.Pos

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
