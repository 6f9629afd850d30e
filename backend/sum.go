package backend

import (
	"fmt"
	"math/big"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// IntSum is an integer sum over the answer region, folded in any order by
// the rules of + (docs/language.md §6.1): inf when a cell is inf, an error
// when cells are inf and -inf, an overflow error when the sum of the finite
// cells leaves the finite range of its type. Both executors fold their
// partial sums with it, so that they give the same answer or the same error.
type IntSum struct {
	Sum      int64 // of the finite cells
	Pos, Neg bool  // some cell was inf, -inf
	Overflow bool  // Sum left long's finite range on the way
}

// Add adds one cell value of integer type t (its sentinels are inf).
func (s *IntSum) Add(v int64, t ir.Type) {
	if t == ir.Int || t == ir.Long {
		pos, neg := ir.InfSentinel(t)
		switch v {
		case pos:
			s.Pos = true
			return
		case neg:
			s.Neg = true
			return
		}
	}
	s.add(v)
}

func (s *IntSum) add(v int64) {
	r := s.Sum + v
	_, hi := ir.FiniteRange(ir.Long)
	if (s.Sum >= 0) == (v >= 0) && (r >= 0) != (v >= 0) || r > hi || r < -hi {
		s.Overflow = true
	}
	s.Sum = r
}

// Merge adds another partial sum.
func (s *IntSum) Merge(o IntSum) {
	s.add(o.Sum)
	s.Pos = s.Pos || o.Pos
	s.Neg = s.Neg || o.Neg
	s.Overflow = s.Overflow || o.Overflow
}

// Value is the sum as a value of the cell type of p, or the error, placed at
// the answer's reduction. answer is the plan's answer expression.
func (s IntSum) Value(p *ir.Problem, answer ir.Expr) (int64, error) {
	t, at := p.CellType, p.AnswerPos
	if red, ok := ir.StripConversions(answer).(*ir.Reduce); ok {
		t, at = red.T, red.Position()
	}
	if t != ir.Long {
		t = ir.Int
	}
	pos, neg := ir.InfSentinel(t)
	switch {
	case s.Pos && s.Neg:
		return 0, source.ErrorList{&source.Error{Pos: at, Msg: "inf - inf is undefined computing the answer"}}
	case s.Pos:
		return pos, nil
	case s.Neg:
		return neg, nil
	}
	lo, hi := ir.FiniteRange(t)
	if s.Overflow || s.Sum < lo || s.Sum > hi {
		msg := fmt.Sprintf("overflow computing the answer: the sum does not fit in %s (finite range %s)", t, FiniteText(t))
		if !s.Overflow {
			msg = fmt.Sprintf("overflow computing the answer: the sum %d does not fit in %s (finite range %s)", s.Sum, t, FiniteText(t)) + SuggestLong(t, big.NewInt(s.Sum))
		}
		return 0, source.ErrorList{&source.Error{Pos: at, Msg: msg}}
	}
	return s.Sum, nil
}

// FiniteText is the finite range of int or long as messages write it.
func FiniteText(t ir.Type) string {
	if t == ir.Long {
		return "±9,223,372,036,854,775,806"
	}
	return "±2,147,483,646"
}

// SuggestLong is the hint of an int overflow whose exact result would fit
// in long: only there does `cell: long` help.
func SuggestLong(t ir.Type, exact *big.Int) string {
	lo, hi := ir.FiniteRange(ir.Long)
	if t == ir.Long || exact == nil || !exact.IsInt64() || exact.Int64() < lo || exact.Int64() > hi {
		return ""
	}
	return "; use cell: long"
}
