package eval

import (
	"errors"
	"math"
	"strconv"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// This file is the integer arithmetic of docs/language.md section 6.1, in
// one place for the general evaluator, the scalar closures and the slow
// (lane by lane) paths of the batch kernels; the generated vector loops of
// vops.go compute the same thing with the same finiteness tests, and fall
// back to these functions to say which lane failed and why.

// The largest finite int and long: one less than the inf sentinels, so
// that the finite range is symmetric and neither INT_MIN nor LONG_MIN is
// ever a value.
const (
	intFinite  = 1<<31 - 2
	longFinite = 1<<63 - 2
)

// finiteMax is the largest finite value of integer type t (ir.ArithMax).
func finiteMax(t ir.Type) int64 { return ir.ArithMax(t) }

// isFinite reports whether |v| <= fmax (ir.IsFinite).
func isFinite(v, fmax int64) bool { return ir.IsFinite(v, fmax) }

// fault is why an integer operation has no value: the faults of ir.Arith,
// under the short names the evaluators use.
type fault = ir.Fault

const (
	fNone     = ir.FaultNone
	fOverflow = ir.FaultOverflow
	fInfSub   = ir.FaultInfSub
	fInfMul   = ir.FaultInfMul
	fInfDiv   = ir.FaultInfDiv
	fInfRem   = ir.FaultInfRem
	fDivZero  = ir.FaultDivZero
	fNaN      = ir.FaultNaN
)

// site is what is being computed when an error occurs: a cell, or the
// answer (cell false), for messages.
type site struct {
	i, j int64
	cell bool
	// p, when known, names the cell as the user wrote it
	// (ir.Problem.CellText): cell[j] in a 1-D grid, H[i][j] of a table,
	// the user's row of a band (ir.Problem.Of).
	p *ir.Problem
}

func (s site) String() string {
	switch {
	case !s.cell:
		return "the answer"
	case s.p != nil:
		return s.p.CellText(s.i, s.j)
	}
	return "cell[" + strconv.FormatInt(s.i, 10) + "][" + strconv.FormatInt(s.j, 10) + "]"
}

// siteIn is the site of cell [i][j] of p's grid.
func siteIn(p *ir.Problem, i, j int64) site {
	return site{i: i, j: j, cell: true, p: p}
}

// addFinite is ir.AddFinite, the checked step of the scan loops.
func addFinite(t ir.Type, x, y int64) (int64, bool) { return ir.AddFinite(t, x, y) }

// arithInt computes x op y by the rules of section 6.1 (ir.Arith).
func arithInt(op ir.Op, t ir.Type, sat bool, x, y int64) (int64, fault) {
	return ir.Arith(op, t, sat, x, y)
}

// sumInt is one step of an integer sum reduction: the + rule with inf.
func sumInt(t ir.Type, acc, v int64) (int64, fault) {
	return ir.Arith(ir.OpAdd, t, true, acc, v)
}

// group writes |v| with thousands separators: 2,147,483,646.
func group(v uint64) string {
	s := strconv.FormatUint(v, 10)
	for k := len(s) - 3; k > 0; k -= 3 {
		s = s[:k] + "," + s[k:]
	}
	return s
}

// noFit ends an overflow message: "does not fit in int (finite range
// ±2,147,483,646); use cell: long". A wider cell type is suggested only
// where it helps: the smallest one whose finite range holds the exact
// result (fits says which do).
func noFit(t ir.Type, fits func(ir.Type) bool) string {
	s := "in " + typeName(t) + " (finite range ±" + group(uint64(finiteMax(t))) + ")"
	if w := widerCell(t, fits); w != ir.Invalid {
		s += "; use cell: " + w.String()
	}
	return s
}

// typeName names integer type t in overflow messages: the type whose
// range is meant (int for char and bool, which compute as int).
func typeName(t ir.Type) string {
	if t.HasInf() {
		return t.String()
	}
	return "int"
}

// widerCell is the smallest integer cell type wider than t for which fits
// holds, or Invalid.
func widerCell(t ir.Type, fits func(ir.Type) bool) ir.Type {
	w := ir.Invalid
	for _, u := range ir.Types() {
		if u.Is(ir.IsCell|ir.HasInf) && finiteMax(u) > finiteMax(t) && fits(u) && (w == ir.Invalid || finiteMax(u) < finiteMax(w)) {
			w = u
		}
	}
	return w
}

// fitsLong says, for noFit, that the exact result is a finite long (an
// int operation's exact result always is).
func fitsLong(u ir.Type) bool { return finiteMax(u) >= longFinite }

// fitsInt64 says, for noFit, which types hold the exact value v.
func fitsInt64(v int64) func(ir.Type) bool {
	return func(u ir.Type) bool { return isFinite(v, finiteMax(u)) }
}

// fitsNone suggests no cell type.
func fitsNone(ir.Type) bool { return false }

// arithErr is the error of a faulted integer operation x op y at pos.
func arithErr(pos source.Pos, s site, f fault, op ir.Op, t ir.Type, x, y int64) error {
	switch f {
	case fDivZero:
		return divByZero(pos, op, s)
	case fOverflow:
		// An int result is exact in 64 bits and finite as a long.
		return errAt(pos, "overflow computing %s: %d %s %d does not fit %s", s, x, op, y, noFit(t, fitsLong))
	}
	return infErr(pos, s, f)
}

// infErr is the error of an operation on inf that IEEE leaves as NaN.
func infErr(pos source.Pos, s site, f fault) error {
	what := map[fault]string{fInfSub: "inf - inf", fInfMul: "inf * 0", fInfDiv: "inf / inf", fInfRem: "inf % x"}[f]
	return errAt(pos, "%s is undefined computing %s", what, s)
}

// convErr is the error of a conversion to integer type t of a value that
// does not fit (text is the value as written in the message).
func convErr(pos source.Pos, s site, t ir.Type, text string, fits func(ir.Type) bool) error {
	msg := "overflow computing " + s.String() + ": converting " + text + " to " + typeName(t) +
		" does not fit (finite range ±" + group(uint64(finiteMax(t))) + ")"
	if w := widerCell(t, fits); w != ir.Invalid {
		msg += "; use cell: " + w.String()
	}
	return errAt(pos, "%s", msg)
}

// convInt converts an integer of type from to integer type to: sentinels
// map to sentinels, and a long outside the finite int range is an
// overflow. bool is 0 or 1; char has no sentinel and is taken as it is.
func convInt(v int64, from, to ir.Type) (int64, fault) {
	if to == ir.Bool {
		return b2i(v != 0), fNone
	}
	if from == to || !from.HasInf() || !to.HasInf() {
		return v, fNone
	}
	fp, fn := ir.ArithSentinels(from)
	tp, tn := ir.ArithSentinels(to)
	switch v {
	case fp:
		return tp, fNone
	case fn:
		return tn, fNone
	}
	if !isFinite(v, finiteMax(to)) {
		return v, fOverflow
	}
	return v, fNone
}

// convIntErr is the error of a faulted convInt.
func convIntErr(pos source.Pos, s site, v int64, to ir.Type) error {
	return convErr(pos, s, to, strconv.FormatInt(v, 10), fitsInt64(v))
}

// floatToInt converts x to integer type to, truncating toward zero:
// infinities become sentinels, NaN faults, and so does a finite value
// whose truncation is outside the finite range (it would otherwise become
// inf, or wrap).
func floatToInt(x float64, to ir.Type) (int64, fault) {
	if to == ir.Bool {
		return b2i(x != 0), fNone
	}
	p, n := ir.ArithSentinels(to)
	switch {
	case x != x:
		return 0, fNaN
	case math.IsInf(x, 1):
		return p, fNone
	case math.IsInf(x, -1):
		return n, fNone
	}
	// Below 2^63 the truncation is exact and at most 2^63-1024, a finite
	// long; for int the bound is the sentinel itself, excluded.
	lim := 9.223372036854775808e18
	if to.Bits() < 64 {
		lim = float64(p)
	}
	if x >= lim || x <= -lim {
		return 0, fOverflow
	}
	return int64(x), fNone
}

// floatConvErr is the error of a faulted floatToInt.
func floatConvErr(pos source.Pos, s site, f fault, x float64, to ir.Type) error {
	if f == fNaN {
		return nanToInt(pos, to)
	}
	fits := fitsNone
	if x < 9.223372036854775808e18 && x > -9.223372036854775808e18 {
		fits = fitsInt64(int64(x))
	}
	return convErr(pos, s, to, strconv.FormatFloat(x, 'g', -1, 64), fits)
}

// storeRange is the range of values an integer cell of type t may hold:
// the finite values and the two sentinels.
func storeRange(t ir.Type) (lo, hi int64) {
	p, n := ir.ArithSentinels(t)
	return n, p
}

// cellOverflow is the error for a value an integer cell cannot hold. Every
// operation is checked, so it is a last line of defence.
func cellOverflow(pos source.Pos, t ir.Type, s site, v int64) error {
	return errAt(pos, "overflow computing %s: %d does not fit %s", s, v, noFit(t, fitsInt64(v)))
}

// nanCell is the error for a floating cell that would hold NaN.
func nanCell(pos source.Pos, s site) error {
	return errAt(pos, "%s is NaN; add `nan: allow` to the header to keep NaN values", s)
}

// StoreCheck reports whether v may be stored in cell [i][j] of p: an
// integer cell holds finite values and the inf sentinels, and a floating
// cell holds NaN only with `nan: allow`. pos is the case value, for the
// message. The kernels make the same checks as they store.
func StoreCheck(p *ir.Problem, pos source.Pos, i, j int64, v ir.Value) error {
	if p.CellType.IsFloat() {
		if v.F != v.F && !p.AllowNaN {
			return nanCell(pos, siteIn(p, i, j))
		}
		return nil
	}
	if lo, hi := storeRange(p.CellType); v.I < lo || v.I > hi {
		return cellOverflow(pos, p.CellType, siteIn(p, i, j), v.I)
	}
	return nil
}

// CheckAnswer is the rule of section 6.1 for the answer: without `nan:
// allow` a NaN answer is an error, positioned at the `answer:` line when
// the problem has one. The executors call it on the value they report.
func CheckAnswer(p *ir.Problem, v ir.Value) error {
	if p.AllowNaN || !v.T.IsFloat() || v.F == v.F {
		return nil
	}
	const msg = "the answer is NaN; add `nan: allow` to the header to keep NaN values"
	if p.AnswerPos.IsValid() {
		return &source.Error{Pos: p.AnswerPos, Msg: msg}
	}
	return errors.New(msg)
}
