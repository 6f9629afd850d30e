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

// Type is the type of a value. Arithmetic follows C: char promotes to int,
// mixed integer/floating operands promote to the floating type, Bool is the
// type of comparisons and logical operators.
type Type uint8

const (
	Invalid Type = iota
	Bool
	Char   // 8-bit
	Int    // 32-bit
	Long   // 64-bit
	Float  // 32-bit IEEE
	Double // 64-bit IEEE
)

var typeNames = [...]string{"invalid", "bool", "char", "int", "long", "float", "double"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// IsInteger reports whether t is Bool, Char, Int or Long.
func (t Type) IsInteger() bool { return t >= Bool && t <= Long }

// IsFloat reports whether t is Float or Double.
func (t Type) IsFloat() bool { return t == Float || t == Double }

// Size is the size in bytes of one value of t on the device.
func (t Type) Size() int {
	switch t {
	case Bool, Char:
		return 1
	case Int, Float:
		return 4
	case Long, Double:
		return 8
	}
	return 0
}

// ParseType maps a `.dp` type name to a Type (Invalid if unknown).
func ParseType(name string) Type {
	for t, n := range typeNames {
		if n == name && t > int(Bool) {
			return Type(t)
		}
	}
	return Invalid
}

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

// FiniteRange returns the smallest and largest finite values of integer type
// t. For int and long the range stops one short of the inf sentinels, so
// that no finite value can ever be read back as inf, and is symmetric, so
// that negation and abs never overflow: int holds ±(2^31-2), long ±(2^63-2).
// A result outside it is an overflow (docs/language.md §6.1).
func FiniteRange(t Type) (lo, hi int64) {
	switch t {
	case Bool:
		return 0, 1
	case Char:
		return -128, 127
	case Int:
		return -(1<<31 - 2), 1<<31 - 2
	}
	return -(1<<63 - 2), 1<<63 - 2
}

// InfSentinel returns the values that stand for inf and -inf in an integer
// type t: the largest value and its negation. Floating types use IEEE
// infinities and have no sentinel.
func InfSentinel(t Type) (pos, neg int64) {
	switch t {
	case Char:
		return 127, -127
	case Int:
		return 1<<31 - 1, -(1<<31 - 1)
	case Long:
		return 1<<63 - 1, -(1<<63 - 1)
	}
	return 1, 0 // Bool: inf is true
}
