package eval

import (
	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// This file keys per-region specialisation on the range analysis of
// package analysis, the walker the code generator runs too: over a
// rectangle of the grid it bounds every integer expression, decides the
// conditions that are the same for every cell of the rectangle (i == 0 is
// false away from the first row) and proves the reads that cannot leave the
// grid or an input. A kernel compiled for those facts skips dead cases and
// bounds checks; the facts, in a fixed order, are the key under which the
// kernel is cached.

// ival is a range of int64 values (package analysis).
type ival = analysis.Range

var fullRange = analysis.Full()

// tri is what is known of a condition over a region.
type tri = analysis.Tri

const (
	triFalse   = analysis.False
	triTrue    = analysis.True
	triUnknown = analysis.Unknown
)

// facts are the analysis results a kernel is compiled for.
type facts struct {
	proven map[ir.Expr]bool // Load, CellRef: never outside
	// sides says, for an integer + - * and sum, which end of the finite
	// range it may cross: sideUp, sideDown, both, or 0 when it is safe
	// (never outside the finite range; see isSafe).
	sides map[ir.Expr]uint8
	known map[ir.Expr]tri // && and || left operands, ?: conditions
	cases []tri           // each case's condition (triTrue for otherwise)
}

// analyzer runs the range analysis over one region, recording its facts
// as the signature of the region and, when rec2 is not nil, as facts.
type analyzer struct {
	rec       *Recurrence
	iLo, iHi  int64
	jLo, jHi  int64
	w         analysis.Walker
	sig       []byte
	rec2      *facts // when not nil, record the facts
	caseConds []tri
}

// Proven records whether a read is proven inside.
func (a *analyzer) Proven(e ir.Expr, ok bool) {
	a.sig = append(a.sig, byte(b2i(ok)))
	if a.rec2 != nil {
		a.rec2.proven[e] = ok
	}
}

// Which end of the finite range an operation may cross.
const (
	sideUp   uint8 = 1
	sideDown uint8 = 2
)

// Sides records the range r an integer operation of type t may reach:
// safe when within the finite range, else which ends it may cross.
func (a *analyzer) Sides(e ir.Expr, r ival, t ir.Type, safe bool) {
	var side uint8
	if !safe {
		if r.Hi > finiteMax(t) {
			side |= sideUp
		}
		if r.Lo < -finiteMax(t) {
			side |= sideDown
		}
	}
	a.sig = append(a.sig, side+9)
	if a.rec2 != nil {
		a.rec2.sides[e] = side
	}
}

// isSafe reports whether integer operation e was proven never to leave the
// finite range (an operation the analysis did not record is not).
func (f *facts) isSafe(e ir.Expr) bool {
	side, ok := f.sides[e]
	return ok && side == 0
}

// Known records what is decided of a condition.
func (a *analyzer) Known(e ir.Expr, t tri) {
	a.sig = append(a.sig, byte(t)+2)
	if a.rec2 != nil {
		a.rec2.known[e] = t
	}
}

// analyze runs the analysis of the recurrence's cases over rows iLo..iHi,
// columns jLo..jHi, appending the signature to sig.
func (a *analyzer) analyze() {
	p := a.rec.p
	if a.w.Input == nil {
		// Once per analyzer: Kernel reuses them, and a method value
		// would be garbage for every tile.
		a.w.Config = analysis.Config{
			Failure: analysis.Stops,
			Rows:    p.Rows,
			Cols:    p.Cols,
			Input:   a.rec.inRanges.Load,
		}
	}
	a.w.Rec = a
	en := analysis.NewEnv(analysis.Span(a.iLo, a.iHi), analysis.Span(a.jLo, a.jHi))
	a.caseConds = a.caseConds[:0]
	for _, c := range p.Cases {
		t := triTrue
		if c.Cond != nil {
			t = a.w.Decide(c.Cond, en)
		}
		a.caseConds = append(a.caseConds, t)
		a.sig = append(a.sig, byte(t)+5)
		a.w.Walk(c.Value, en)
	}
}
