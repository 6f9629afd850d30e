package ir

import (
	"fmt"
	"math"
)

// Type is the type of a value. Arithmetic follows C: char and short promote
// to int, mixed integer/floating operands promote to the floating type, Bool
// is the type of comparisons and logical operators.
//
// Everything the later stages need to know about a type — its size, its
// ranges, its inf sentinels, how it is held while evaluating, its C and
// `.dp` names — is one entry of the table below, read through Info and the
// methods of Type (as go/types describes its basic types by info bits), so
// that a new type is one entry here plus whatever kernels genuinely need,
// not a hunt for `== Int` comparisons across the tree.
type Type uint8

const (
	Invalid Type = iota
	Bool
	Char   // 8-bit
	Short  // 16-bit
	Int    // 32-bit
	Long   // 64-bit
	Float  // 32-bit IEEE
	Double // 64-bit IEEE
)

// TypeFlags are the properties of a type that are yes or no.
type TypeFlags uint8

const (
	IsBoolean TypeFlags = 1 << iota // comparisons and logical operators
	IsInteger                       // bool, char, short, int, long
	IsFloat                         // IEEE 754: float, double
	// HasInf: an integer type whose largest value and its negation stand
	// for inf and -inf (TypeInfo.InfPos, InfNeg); conversions map them to
	// each other and to the IEEE infinities. char has none: its 127 is an
	// ordinary character.
	HasInf
	// IsCell: allowed as the grid's element type (`cell: TYPE`).
	IsCell
	// IsDeclared: a `.dp` type name for inputs and scalars.
	IsDeclared
)

// Class is how the host evaluators hold a value of a type while computing:
// a Go bool, an int64 or a float64 (floating types, float rounded to
// float32 after every operation).
type Class uint8

const (
	ClassInt Class = iota
	ClassBool
	ClassFloat
)

// Class is how the host evaluators hold a value of t.
func (t Type) Class() Class {
	switch {
	case t.Is(IsBoolean):
		return ClassBool
	case t.IsFloat():
		return ClassFloat
	}
	return ClassInt
}

// TypeInfo describes a type.
type TypeInfo struct {
	Name  string // in `.dp` files and messages
	CName string // C type of a value in generated CUDA (cells, inputs, expressions)
	Bytes int    // size of one value in memory (host grid, device)
	Flags TypeFlags
	// Promote is the type arithmetic on the type is done in: int for bool,
	// char and short, the type itself otherwise.
	Promote Type
	// Min and Max are the representable range of an integer type.
	Min, Max int64
	// FiniteLo and FiniteHi are the finite values of an integer type
	// (docs/language.md §6.1): for a type with inf sentinels the range stops
	// one short of them, so that no finite value is ever read back as inf,
	// and is symmetric, so that negation and abs never overflow. A value
	// outside it is an overflow.
	FiniteLo, FiniteHi int64
	// InfPos and InfNeg are the values of inf and -inf in an integer type:
	// the sentinels where HasInf is set. (bool's inf is true.)
	InfPos, InfNeg int64
}

// types is the table of every type, indexed by Type. It is read only.
var types = [...]TypeInfo{
	Invalid: {Name: "invalid", CName: "void"},
	Bool: {Name: "bool", CName: "bool", Bytes: 1, Flags: IsBoolean | IsInteger, Promote: Int,
		Min: 0, Max: 1, FiniteLo: 0, FiniteHi: 1, InfPos: 1, InfNeg: 0},
	Char: {Name: "char", CName: "int", Bytes: 1, Flags: IsInteger | IsDeclared, Promote: Int,
		Min: -128, Max: 127, FiniteLo: -128, FiniteHi: 127, InfPos: 127, InfNeg: -127},
	Short: {Name: "short", CName: "short", Bytes: 2, Flags: IsInteger | HasInf | IsCell | IsDeclared, Promote: Int,
		Min: math.MinInt16, Max: math.MaxInt16, FiniteLo: -(1<<15 - 2), FiniteHi: 1<<15 - 2, InfPos: 1<<15 - 1, InfNeg: -(1<<15 - 1)},
	Int: {Name: "int", CName: "int", Bytes: 4, Flags: IsInteger | HasInf | IsCell | IsDeclared, Promote: Int,
		Min: math.MinInt32, Max: math.MaxInt32, FiniteLo: -(1<<31 - 2), FiniteHi: 1<<31 - 2, InfPos: 1<<31 - 1, InfNeg: -(1<<31 - 1)},
	Long: {Name: "long", CName: "long long", Bytes: 8, Flags: IsInteger | HasInf | IsCell | IsDeclared, Promote: Long,
		Min: math.MinInt64, Max: math.MaxInt64, FiniteLo: -(1<<63 - 2), FiniteHi: 1<<63 - 2, InfPos: 1<<63 - 1, InfNeg: -(1<<63 - 1)},
	Float:  {Name: "float", CName: "float", Bytes: 4, Flags: IsFloat | IsCell | IsDeclared, Promote: Float},
	Double: {Name: "double", CName: "double", Bytes: 8, Flags: IsFloat | IsCell | IsDeclared, Promote: Double},
}

// Types lists every valid type (Invalid excluded), in the order of the table.
func Types() []Type {
	ts := make([]Type, 0, len(types)-1)
	for t := range types[1:] {
		ts = append(ts, Type(t+1))
	}
	return ts
}

// Info returns the description of t (that of Invalid for an unknown t).
func (t Type) Info() TypeInfo { return *t.info() }

// info is t's entry of the table, not copied: the evaluator asks for a
// flag or a bound per cell, and copying the whole TypeInfo each time was a
// quarter of its time on Gotoh's tables.
func (t Type) info() *TypeInfo {
	if int(t) < len(types) {
		return &types[t]
	}
	return &types[Invalid]
}

// Is reports whether t has all the properties f.
func (t Type) Is(f TypeFlags) bool { return t.info().Flags&f == f && f != 0 }

func (t Type) String() string {
	if int(t) < len(types) {
		return types[t].Name
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// IsInteger reports whether t is an integer type (bool included).
func (t Type) IsInteger() bool { return t.Is(IsInteger) }

// IsFloat reports whether t is a floating type.
func (t Type) IsFloat() bool { return t.Is(IsFloat) }

// HasInf reports whether t is an integer type with inf sentinels.
func (t Type) HasInf() bool { return t.Is(HasInf) }

// Size is the size in bytes of one value of t in memory.
func (t Type) Size() int { return t.info().Bytes }

// Bits is the size in bits of one value of t.
func (t Type) Bits() int { return 8 * t.Size() }

// Promoted is the type arithmetic on values of t is done in.
func (t Type) Promoted() Type { return t.info().Promote }

// ParseType maps a `.dp` type name to a Type (Invalid if unknown).
func ParseType(name string) Type {
	for _, t := range Types() {
		if t.Is(IsDeclared) && types[t].Name == name {
			return t
		}
	}
	return Invalid
}

// TypeNames are the `.dp` names of the types with all the properties f, in
// the order of the table: TypeNames(IsCell) are the values `cell:` takes.
func TypeNames(f TypeFlags) []string {
	var names []string
	for _, t := range Types() {
		if t.Is(f) {
			names = append(names, types[t].Name)
		}
	}
	return names
}

// FiniteRange returns the smallest and largest finite values of integer type
// t (TypeInfo.FiniteLo, FiniteHi): int holds ±(2^31-2), long ±(2^63-2). A
// result outside it is an overflow (docs/language.md §6.1). For a floating
// type it is that of long.
func FiniteRange(t Type) (lo, hi int64) {
	if !t.IsInteger() {
		t = Long
	}
	in := t.info()
	return in.FiniteLo, in.FiniteHi
}

// InfSentinel returns the values that stand for inf and -inf in an integer
// type t (TypeInfo.InfPos, InfNeg). Floating types use IEEE infinities and
// have no sentinel.
func InfSentinel(t Type) (pos, neg int64) {
	in := t.info()
	return in.InfPos, in.InfNeg
}
