package backend

import (
	"fmt"
	"math/big"
	"strconv"

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
	if t.HasInf() {
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

// FiniteText is the finite range of an integer type with inf sentinels
// (int for the others) as messages write it: ±2,147,483,646 for int.
func FiniteText(t ir.Type) string {
	if !t.HasInf() {
		t = ir.Int
	}
	_, hi := ir.FiniteRange(t)
	s := strconv.FormatInt(hi, 10)
	for k := len(s) - 3; k > 0; k -= 3 {
		s = s[:k] + "," + s[k:]
	}
	return "±" + s
}

// SuggestLong is the hint of an overflow of type t whose exact result would
// fit in a wider cell type: "; use cell: long" for an int, the smallest
// such type in general. Only there does a wider cell help.
func SuggestLong(t ir.Type, exact *big.Int) string {
	if exact == nil || !exact.IsInt64() {
		return ""
	}
	_, have := ir.FiniteRange(t)
	var best ir.Type
	for _, u := range ir.Types() {
		lo, hi := ir.FiniteRange(u)
		if !u.Is(ir.IsCell|ir.HasInf) || hi <= have || exact.Int64() < lo || exact.Int64() > hi {
			continue
		}
		if _, bh := ir.FiniteRange(best); best == ir.Invalid || hi < bh {
			best = u
		}
	}
	if best == ir.Invalid {
		return ""
	}
	return "; use cell: " + best.String()
}
