package codegen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// ctype is the C type of an IR type on the device (ir.TypeInfo.CName; char
// values are ints: they are promoted as soon as they are used).
func ctype(t ir.Type) string { return t.Info().CName }

// intLit prints an integer constant of type t as a C literal.
func intLit(v int64, t ir.Type) string {
	switch t {
	case ir.Bool:
		if v != 0 {
			return "true"
		}
		return "false"
	case ir.Long:
		if v == math.MinInt64 {
			return "(-9223372036854775807LL-1)"
		}
		return strconv.FormatInt(v, 10) + "LL"
	}
	if v == math.MinInt32 {
		return "(-2147483647-1)"
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		return strconv.FormatInt(v, 10) + "LL"
	}
	return strconv.FormatInt(v, 10)
}

// floatLit prints x exactly (shortest round-trip form) as a C literal of t.
func floatLit(x float64, t ir.Type) string {
	switch {
	case math.IsInf(x, 1):
		return infLit(t, false)
	case math.IsInf(x, -1):
		return infLit(t, true)
	case math.IsNaN(x):
		if t == ir.Float {
			return "__int_as_float(0x7fc00000)"
		}
		return "__longlong_as_double(0x7ff8000000000000LL)"
	}
	bits := 64
	if t == ir.Float {
		bits = 32
	}
	s := strconv.FormatFloat(x, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	if t == ir.Float {
		s += "f"
	}
	return s
}

func infLit(t ir.Type, neg bool) string {
	sign := ""
	if neg {
		sign = "-"
	}
	switch t {
	case ir.Float:
		return "(" + sign + "__int_as_float(0x7f800000))"
	case ir.Double:
		return "(" + sign + "__longlong_as_double(0x7ff0000000000000LL))"
	}
	p, n := ir.InfSentinel(t)
	if neg {
		return intLit(n, t)
	}
	return intLit(p, t)
}

// valueLit prints constant v converted to type t as eval converts it.
func valueLit(v ir.Value, t ir.Type) string {
	switch {
	case t.IsFloat() && v.T.IsFloat():
		if t == ir.Float {
			return floatLit(float64(float32(v.F)), t)
		}
		return floatLit(v.F, t)
	case t.IsFloat():
		f := float64(v.I)
		if t == ir.Float {
			f = float64(float32(f))
		}
		return floatLit(f, t)
	case v.T.IsFloat():
		// Folded by sema in practice; truncate as a conversion would.
		x := v.F
		switch {
		case math.IsNaN(x):
			return intLit(0, t)
		case math.IsInf(x, 0):
			return infLit(t, x < 0)
		}
		return intLit(int64(x), t)
	}
	return intLit(v.I, t)
}

// siteKind says what a device check reports.
type SiteKind uint8

const (
	SiteCell     SiteKind = iota + 1 // a cell reference outside the grid
	SiteLoad                         // an input read outside the input
	SiteOverflow                     // int or long arithmetic or conversion whose result may leave the finite range
	SiteDivZero                      // integer division or remainder by zero
	SiteNaN                          // a conversion from floating to integer: NaN, or outside the finite range
	SiteInf                          // arithmetic under the inf rules (Saturate): overflow, inf - inf, inf * 0, ..., zero divisor
	SiteNaNCell                      // a floating cell value that is NaN; Node is the case's value
)

// intFin is int's finite range (docs/language.md §6.1): one short of its
// inf sentinels, symmetric.
const intFin = 1<<31 - 2

// finiteRange is the finite range of integer type t as an interval; for
// bool and char (promoted before arithmetic) that of int.
func finiteRange(t ir.Type) (lo, hi int64) {
	if !t.HasInf() {
		return -intFin, intFin
	}
	return ir.FiniteRange(t)
}

// narrows reports whether converting integer type from to integer type to
// may overflow: to has a smaller finite range (long to int, int to short).
func narrows(from, to ir.Type) bool {
	_, fhi := finiteRange(from)
	_, thi := finiteRange(to)
	return from.IsInteger() && to.HasInf() && thi < fhi
}

// Site is a place in the recurrence where the device checks something. The
// device reports the site's index with the coordinates; Node gives the
// `.dp` position and the text for the message.
type Site struct {
	Kind SiteKind
	Node ir.Expr
}

// redVar names the variable of an enclosing reduction in C.
type redVar struct {
	r    *ir.Reduce
	name string
	t    ir.Type
}

// emitter turns typed IR expressions into C expressions with C's own
// short-circuit semantics. It records the check sites it emits.
type emitter struct {
	g    *gen
	reds []redVar
	nred int
	// invariant, when set, lets loads whose index depends only on i (rows)
	// or only on j (cols) read values the kernel prepared.
	invariant bool
	// split, when set (the front kernel), spreads the iterations of every
	// outermost reduction that splitReduction accepts over the lanes the
	// kernel's accessor gives a cell (a.lane(), a.lanes()) and folds the
	// lanes' partial results (a.fold).
	split bool
	// hoisted names the C variables that hold cell reads a split loop
	// issued ahead of the iterations that use them (splitLoop).
	hoisted map[ir.Expr]string
	// cse: the subexpressions a branch case's condition and value share
	// (cse.go), set while the case is written.
	cse map[ir.Expr]cseEntry
	// nseq numbers the temporaries of sequenced operands (binary);
	// fallible counts the checks emitted that may report an error (ck, a
	// cell read not proved inside the grid), so that binary knows which
	// operands may.
	nseq, fallible int
	// cellJ (a dp_rec_t of a program computing a cell's tables together):
	// the user's column, J / T, is the function's jc.
	cellJ bool
	// chain, when not nil (the host's rows sweep), is the reduction that
	// runs from the one S columns before it (analysis.FirstChain;
	// chain.go).
	chain *ir.Reduce
}

func (m *emitter) site(kind SiteKind, n ir.Expr) int {
	m.g.sites = append(m.g.sites, Site{Kind: kind, Node: n})
	return len(m.g.sites) - 1
}

// ck is the argument list that every checking helper takes first: whether
// the cell is live (padding cells never report), the site and the cell.
func (m *emitter) ck(site int) string {
	m.fallible++
	return fmt.Sprintf("a.live(), %d, i, j", site)
}

func (m *emitter) expr(e ir.Expr, en env) string {
	if c, ok := m.cse[e]; ok {
		if !c.assign {
			return c.name
		}
		delete(m.cse, e) // written once, here
		return fmt.Sprintf("(%s = %s)", c.name, m.expr(e, en))
	}
	t := e.Type()
	switch n := e.(type) {
	case *ir.Const:
		return valueLit(n.V, t)
	case *ir.Inf:
		return infLit(t, n.Neg)
	case *ir.ScalarRef:
		return fmt.Sprintf("/*%s*/%s", cComment(n.Scalar.Name), valueLit(n.Scalar.Value, t))
	case *ir.Var:
		switch n.Kind {
		case ir.VarI:
			return "i"
		case ir.VarJ:
			return "j"
		}
		for k := len(m.reds) - 1; k >= 0; k-- {
			if n.BoundBy(m.reds[k].r) {
				return m.reds[k].name
			}
		}
		m.g.fail(n, "reduction variable %s is not bound here", n.Name)
		return "0"
	case *ir.Load:
		if h, ok := m.hoisted[n]; ok {
			return h
		}
		return m.load(n, en)
	case *ir.CellRef:
		if h, ok := m.hoisted[n]; ok {
			return h
		}
		ci := m.expr(n.I, en)
		cj := m.expr(n.J, en)
		if n.ID >= 0 && n.ID < len(m.g.refSafe) {
			safe := m.g.rangeOf(n.I, en).Within(0, m.g.p.Rows-1) && m.g.rangeOf(n.J, en).Within(0, m.g.p.Cols-1)
			m.g.refSafe[n.ID] = safe
			m.g.refDJ[n.ID] = m.g.refDJ[n.ID].Hull(m.g.columnOffset(n, en))
			if !safe {
				m.fallible++ // the read may leave the grid
			}
		} else {
			m.g.fail(n, "%s has no reference ID", n.Text)
		}
		return fmt.Sprintf("a.template ref<%d>(%s, %s, i, j)", n.ID, ci, cj)
	case *ir.Unary:
		x := m.expr(n.X, en)
		if n.Op == ir.OpNot {
			return "(!" + x + ")"
		}
		// Negation maps the finite range and the sentinels onto themselves:
		// no check. The helpers only keep the most negative value (never a
		// value, but what a failed operation may leave) free of undefined
		// behaviour.
		switch t {
		case ir.Int:
			if m.g.rangeOf(n.X, en).Has(math.MinInt32) {
				return "dp_negi(" + x + ")"
			}
		case ir.Long:
			if m.g.rangeOf(n.X, en).Has(math.MinInt64) {
				return "dp_negl(" + x + ")"
			}
		}
		return "(-" + x + ")"
	case *ir.Binary:
		return m.binary(n, en)
	case *ir.Select:
		c := m.expr(n.Cond, en)
		a := m.expr(n.Then, m.g.refine(n.Cond, true, en))
		b := m.expr(n.Else, m.g.refine(n.Cond, false, en))
		return fmt.Sprintf("(%s ? %s : %s)", c, a, b)
	case *ir.Convert:
		return m.convert(n, en)
	case *ir.Call:
		return m.call(n, en)
	case *ir.Reduce:
		return m.reduce(n, en)
	}
	m.g.fail(e, "cannot generate code for %T", e)
	return "0"
}

func cComment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

func (m *emitter) binary(n *ir.Binary, en env) string {
	t := n.T
	if m.cellJ && n.Op == ir.OpDiv && isCellJ(n, m.g.prog.Tables) {
		return "((" + ctype(t) + ")jc)"
	}
	switch n.Op {
	case ir.OpAnd:
		x := m.expr(n.X, en)
		y := m.expr(n.Y, m.g.refine(n.X, true, en))
		return "(" + x + " && " + y + ")"
	case ir.OpOr:
		x := m.expr(n.X, en)
		y := m.expr(n.Y, m.g.refine(n.X, false, en))
		return "(" + x + " || " + y + ")"
	}
	if s, ok := m.satOffset(n, en); ok {
		return s
	}
	f0 := m.fallible
	x := m.expr(n.X, en)
	f1 := m.fallible
	y := m.expr(n.Y, en)
	if m.g.prog.Kernel == KernelHost && f1 > f0 && m.fallible > f1 {
		// Both operands may report an error, and C++ leaves their order
		// open (g++ took the right one first): in the host programs they
		// are evaluated into temporaries, left first, so that the error
		// reported is the evaluator's (a GNU statement expression).
		m.nseq++
		l, r := fmt.Sprintf("dp_l%d", m.nseq), fmt.Sprintf("dp_r%d", m.nseq)
		pre := fmt.Sprintf("({ const auto %s = %s; const auto %s = %s; ", l, x, r, y)
		return pre + m.binaryOf(n, en, l, r) + "; })"
	}
	return m.binaryOf(n, en, x, y)
}

// binaryOf is the code of n (not && or ||) on operands x and y, emitted.
func (m *emitter) binaryOf(n *ir.Binary, en env, x, y string) string {
	t := n.T
	switch n.Op {
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		return "(" + x + " " + n.Op.String() + " " + y + ")"
	}
	if t.IsFloat() {
		if n.Op == ir.OpRem {
			if t == ir.Float {
				return "fmodf(" + x + ", " + y + ")"
			}
			return "fmod(" + x + ", " + y + ")"
		}
		return "(" + x + " " + n.Op.String() + " " + y + ")"
	}
	// Integer arithmetic: int (and, should sema leave any, char or bool)
	// or long, by the rules of templates/preamble.cu.
	sfx := "i"
	if t == ir.Long {
		sfx = "l"
	}
	op := map[ir.Op]string{ir.OpAdd: "add", ir.OpSub: "sub", ir.OpMul: "mul", ir.OpDiv: "div", ir.OpRem: "rem"}[n.Op]
	if m.mayBeInf(n, en) {
		if a, _, swapped, ok := m.satOperands(n, en); ok {
			// The inf rules without checks (nothing can fail), testing
			// only the sentinel a may be.
			if swapped {
				x, y = y, x
			}
			s := m.infSigns(a)
			if !s.Any() {
				return "(" + x + " " + n.Op.String() + " " + y + ")"
			}
			return fmt.Sprintf("dp_x%s<%s%s>(%s, %s)", op, ctype(t), sentinels(s), x, y)
		}
		// An operand may be inf: always the helper (inf rules and checks).
		return fmt.Sprintf("dp_s%s%s(%s, %s, %s)", op, sfx, m.ck(m.site(SiteInf, n)), x, y)
	}
	if kind, plain := m.arithCheck(n, en); !plain {
		return fmt.Sprintf("dp_%s%s(%s, %s, %s)", op, sfx, m.ck(m.site(kind, n)), x, y)
	}
	return "(" + x + " " + n.Op.String() + " " + y + ")"
}

// mayBeInf reports whether an operand of integer + - * / % n may be inf
// (sema's Saturate) where en holds: the ranges of finite cells and data
// (gen.finiteCells, the walker's input bounds) can prove both finite, and then the
// inf rules change nothing. The ranges are those of a run that stops at
// its first failure: an operation that failed may have left any value,
// but the run reports that failure, so what follows it does not count.
func (m *emitter) mayBeInf(n *ir.Binary, en env) bool {
	if !n.Saturate {
		return false
	}
	lo, hi := finiteRange(n.Type())
	return !m.g.finiteRangeOf(n.X, en).Within(lo, hi) || !m.g.finiteRangeOf(n.Y, en).Within(lo, hi)
}

// satOperands reports whether integer + or - n, an operand of which may be
// inf, cannot fail: one operand, b, is proved finite, and the other's, a's,
// finite values (gen.finCells: cells that may be inf) plus or minus b's
// stay finite (swapped: a is n.Y, of a +). Then the result is a where a is
// inf, else the exact a op b: templates/preamble.cu's dp_xadd and dp_xsub,
// a first.
func (m *emitter) satOperands(n *ir.Binary, en env) (a, b ir.Expr, swapped, ok bool) {
	if m.g.finCells.IsFull() || (n.Op != ir.OpAdd && n.Op != ir.OpSub) {
		return nil, nil, false, false
	}
	lo, hi := finiteRange(n.Type())
	fin := func(e ir.Expr) bool { return m.g.finiteRangeOf(e, en).Within(lo, hi) }
	a, b = n.X, n.Y
	switch {
	case fin(b):
	case n.Op == ir.OpAdd && fin(a):
		a, b, swapped = b, a, true
	default:
		return nil, nil, false, false
	}
	pa, ok := m.finiteValues(a, en, n.Type())
	if !ok {
		return nil, nil, false, false
	}
	pb := m.g.finiteRangeOf(b, en)
	r := pa.Add(pb)
	if n.Op == ir.OpSub {
		r = pa.Sub(pb)
	}
	return a, b, swapped, r.Within(lo, hi)
}

// finiteValues bounds e's finite values: with the cells at their finite
// values, in a run that stops at its first failure (a finite operation of
// e that fails stops it), within the finite range of t (the operation's
// type); ok is false where nothing bounds them.
func (m *emitter) finiteValues(e ir.Expr, en env, t ir.Type) (analysis.Range, bool) {
	raw := m.g.rangeFail(e, en.WithCells(m.g.finCells), analysis.Stops)
	if raw.IsFull() || raw.IsEmpty() {
		return raw, false
	}
	lo, hi := finiteRange(t)
	return raw.Meet(analysis.Span(lo, hi)), true
}

// satOffset is the code of integer n where n is a + k, k a constant offset
// (x - 5 is x + -5; a chain ((x - 5) - 2) one offset, -7), every + and -
// of it proved by satOperands (a may be inf, its finite values plus k
// stay finite). Where a may be inf of one sign only (analysis.InfSigns:
// an affine-gap alignment's tables hold -inf, never inf), the forms of
// templates/preamble.cu that test one sentinel, or, for an offset away
// from it, clamp without a test (dp_xdown, dp_xup). ok is false where n
// is no such offset.
func (m *emitter) satOffset(n *ir.Binary, en env) (string, bool) {
	a, k, ok := m.offsetChain(n, en)
	if !ok {
		return "", false
	}
	return m.offsetCode(m.expr(a, en), k, m.infSigns(a), n.T), true
}

// offsetChain is satOffset's a and k of e = a + k, a chain of constant
// offsets folded into one; ok is false where e is no such offset.
func (m *emitter) offsetChain(e ir.Expr, en env) (a ir.Expr, k int64, ok bool) {
	a, k, ok = m.offsetOf(e, en)
	if !ok {
		return nil, 0, false
	}
	for {
		a2, k2, ok := m.offsetOf(a, en)
		if !ok || (k2 > 0 && k > math.MaxInt64-k2) || (k2 < 0 && k < math.MinInt64-k2) {
			break
		}
		a, k = a2, k+k2
	}
	return a, k, true
}

// infSigns is which infinities e may be (analysis.InfSignsOf, this
// program's cells and inputs).
func (m *emitter) infSigns(e ir.Expr) analysis.InfSigns {
	return analysis.InfSignsOf(e, analysis.SignSource{Cells: m.g.cellInf.Of, Inputs: m.g.inputInf})
}

// offsetPair is the code of integer min or max n of two constant offsets,
// a + ka and b + kb, where b is never inf: max(a + ka, b + kb) is
// max(a, b + (kb - ka)) + ka, one add fewer, and the max is never -inf (b
// is finite), so no clamp of a's -inf is needed (an affine gap's max(X -
// e, H - o - e) is max(X, H - o) - e). Exact: a's finite values plus ka
// and b's plus kb stay finite (offsetChain proved both), and b + (kb -
// ka) is checked here. ok is false where n is no such pair.
//
// GPU kernels only: there it is fewer instructions a cell (Gotoh 262,144²
// on the H200: 0.186 s -> 0.171 s together with the strip kernel's stores
// once a group, not measured apart); a host program's scan along a row is
// bound by the chain from one cell's H to the next's, which the form
// makes one add longer (Gotoh SARS-CoV-2 x SARS-CoV, one thread: 1.98 s
// -> 2.19 s).
func (m *emitter) offsetPair(n *ir.Call, en env) (string, bool) {
	if m.g.prog.Kernel == KernelHost || len(n.Args) != 2 || !n.T.IsInteger() || (n.Fn != ir.FnMin && n.Fn != ir.FnMax) {
		return "", false
	}
	a, ka, okA := m.offsetChain(n.Args[0], en)
	b, kb, okB := m.offsetChain(n.Args[1], en)
	if !okA || !okB {
		return "", false
	}
	sa, sb := m.infSigns(a), m.infSigns(b)
	first := true // a is the call's first argument
	if sb.Any() {
		if sa.Any() {
			return "", false
		}
		a, ka, b, kb, sa, first = b, kb, a, ka, sb, false
	}
	if (ka > 0 && kb < math.MinInt64+ka) || (ka < 0 && kb > math.MaxInt64+ka) {
		return "", false
	}
	d := kb - ka
	lo, hi := finiteRange(n.T)
	if rb, ok := m.finiteValues(b, en, n.T); !ok || !rb.Add(analysis.Point(d)).Within(lo, hi) {
		return "", false
	}
	xa := m.expr(a, en)
	xb := m.expr(b, en)
	if d != 0 {
		xb = "(" + xb + " + " + intLit(d, n.T) + ")"
	}
	// The minimum or maximum with a finite value is inf only where a is,
	// and only of the sign that is not absorbed.
	s := analysis.InfSigns{Pos: sa.Pos && n.Fn == ir.FnMax, Neg: sa.Neg && n.Fn == ir.FnMin}
	x, y := xa, xb
	if !first {
		x, y = xb, xa
	}
	return m.offsetCode(m.minMax(n, []string{x, y}), ka, s, n.T), true
}

// offsetCode is the code of x + k, x of integer type t that may be the
// infinities s (satOffset).
func (m *emitter) offsetCode(x string, k int64, s analysis.InfSigns, t ir.Type) string {
	lit := intLit(k, t)
	switch {
	case k == 0:
		return x
	case !s.Any():
		return "(" + x + " + " + lit + ")"
	case !s.Pos && k < 0:
		return fmt.Sprintf("dp_xdown<%s>(%s, %s)", ctype(t), x, lit)
	case !s.Neg && k > 0:
		return fmt.Sprintf("dp_xup<%s>(%s, %s)", ctype(t), x, lit)
	}
	return fmt.Sprintf("dp_xadd<%s%s>(%s, %s)", ctype(t), sentinels(s), x, lit)
}

// sentinels is the template argument of templates/preamble.cu's dp_xadd
// and dp_xsub that tests only the infinity s allows (", 1": -inf, ", 2":
// inf), none where either may be (the default tests both).
func sentinels(s analysis.InfSigns) string {
	switch {
	case !s.Pos:
		return ", 1"
	case !s.Neg:
		return ", 2"
	}
	return ""
}

// offsetOf reports whether e is a + k or a - k (k the offset -k) for a
// constant k, a + or - that may see inf and that satOperands proves.
func (m *emitter) offsetOf(e ir.Expr, en env) (a ir.Expr, k int64, ok bool) {
	n, isBin := e.(*ir.Binary)
	if !isBin || !n.Saturate || !n.T.IsInteger() || (n.Op != ir.OpAdd && n.Op != ir.OpSub) || !m.mayBeInf(n, en) {
		return nil, 0, false
	}
	a, b, _, ok := m.satOperands(n, en)
	if !ok || !constOperand(b) {
		return nil, 0, false
	}
	r := m.g.finiteRangeOf(b, en)
	if !r.IsPoint() || r.Lo == math.MinInt64 {
		return nil, 0, false
	}
	if n.Op == ir.OpSub {
		return a, -r.Lo, true
	}
	return a, r.Lo, true
}

// constOperand reports whether e is a literal or a scalar, converted or
// negated: a value that needs no code and reports nothing, so that
// satOffset may fold it into an offset (a load or an operation of the
// same value might report an error, which folding would lose).
func constOperand(e ir.Expr) bool {
	switch n := e.(type) {
	case *ir.Const, *ir.ScalarRef:
		return true
	case *ir.Convert:
		return n.X.Type().IsInteger() && constOperand(n.X)
	case *ir.Unary:
		return n.Op == ir.OpNeg && constOperand(n.X)
	}
	return false
}

// arithCheck says whether integer + - * / % n of finite operands (not
// Saturate) can be written as plain C (plain: value ranges prove the exact
// result finite, and the divisor neither 0 nor -1), and else what its check
// reports. / and % need no range check: a finite quotient or remainder is
// never larger than the dividend; -1 goes through the helper only to keep C
// from trapping on a value that already failed.
func (m *emitter) arithCheck(n *ir.Binary, en env) (kind SiteKind, plain bool) {
	rx, ry := m.g.rangeOf(n.X, en), m.g.rangeOf(n.Y, en)
	var r analysis.Range
	switch n.Op {
	case ir.OpDiv, ir.OpRem:
		if ry.Has(0) {
			return SiteDivZero, false
		}
		return SiteOverflow, !ry.Has(-1)
	case ir.OpAdd:
		r = rx.Add(ry)
	case ir.OpSub:
		r = rx.Sub(ry)
	case ir.OpMul:
		r = rx.Mul(ry)
	}
	lo, hi := finiteRange(n.T)
	return SiteOverflow, r.Within(lo, hi)
}

func (m *emitter) convert(n *ir.Convert, en env) string {
	to, from := n.T, n.X.Type()
	x := m.expr(n.X, en)
	if from.HasInf() && from.Promoted() != from && to != from && to != ir.Bool {
		// A type narrower than int (short) computes as int: widen it first,
		// its inf sentinels to int's.
		w := from.Promoted()
		fi, wi := from.Info(), w.Info()
		x = fmt.Sprintf("dp_widen<%s, %s, %s, %s, %s>(%s)", ctype(w), intLit(fi.InfPos, ir.Long), intLit(fi.InfNeg, ir.Long),
			intLit(wi.InfPos, ir.Long), intLit(wi.InfNeg, ir.Long), x)
		from = w
	}
	if to.HasInf() && to.Promoted() != to && to != from {
		// To a type narrower than int: sentinels map, a finite value
		// outside the finite range is an overflow (from floating: NaN too).
		ti := to.Info()
		if from.IsFloat() {
			return fmt.Sprintf("dp_f2n<%s, %s, %s>(%s, %s)", ctype(to), intLit(ti.InfPos, ir.Long), intLit(ti.InfNeg, ir.Long), m.ck(m.site(SiteNaN, n)), x)
		}
		if lo, hi := finiteRange(to); m.g.rangeOf(n.X, en).Within(lo, hi) {
			return "((" + ctype(to) + ")(" + x + "))"
		}
		// A type without sentinels (char) maps none: its values never
		// equal those of the type it computes in.
		fi := from.Promoted().Info()
		if from.HasInf() {
			fi = from.Info()
		}
		return fmt.Sprintf("dp_narrow<%s, %s, %s, %s, %s, %s>(%s, %s)", ctype(to), intLit(fi.InfPos, ir.Long), intLit(fi.InfNeg, ir.Long),
			intLit(ti.InfPos, ir.Long), intLit(ti.InfNeg, ir.Long), intLit(ti.FiniteHi, ir.Long), m.ck(m.site(SiteOverflow, n)), x)
	}
	switch {
	case to == from:
		return x
	case to == ir.Bool:
		return "((" + x + ") != 0)"
	case to.IsFloat() && from.IsFloat():
		return "((" + ctype(to) + ")(" + x + "))"
	case to.IsFloat():
		if from == ir.Int || from == ir.Long {
			return fmt.Sprintf("dp_i2f<%s>(%s)", ctype(to), x)
		}
		return "((" + ctype(to) + ")(" + x + "))"
	case from.IsFloat():
		// NaN and a finite value outside the finite range are errors.
		if to == ir.Long {
			return fmt.Sprintf("dp_f2l(%s, %s)", m.ck(m.site(SiteNaN, n)), x)
		}
		return fmt.Sprintf("dp_f2i(%s, %s)", m.ck(m.site(SiteNaN, n)), x)
	case from == ir.Int && to == ir.Long:
		return "dp_i2l(" + x + ")"
	case from == ir.Long && to == ir.Int:
		if m.g.rangeOf(n.X, en).Within(-intFin, intFin) {
			return "((int)(" + x + "))"
		}
		return fmt.Sprintf("dp_l2i(%s, %s)", m.ck(m.site(SiteOverflow, n)), x)
	}
	return "((" + ctype(to) + ")(" + x + "))"
}

func (m *emitter) call(n *ir.Call, en env) string {
	t := n.T
	if s, ok := m.offsetPair(n, en); ok {
		return s
	}
	args := make([]string, len(n.Args))
	for k, a := range n.Args {
		args[k] = m.expr(a, en)
	}
	switch n.Fn {
	case ir.FnMin, ir.FnMax:
		if len(args) == 0 {
			m.g.fail(n, "%s() needs arguments", n.Fn)
			return "0"
		}
		return m.minMax(n, args)
	case ir.FnAbs:
		switch t {
		case ir.Float:
			return "fabsf(" + args[0] + ")"
		case ir.Double:
			return "fabs(" + args[0] + ")"
		case ir.Long:
			return "dp_absl(" + args[0] + ")"
		}
		// abs(-inf) is inf; no finite value overflows.
		return "dp_abs(" + args[0] + ")"
	}
	name := map[ir.Func]string{ir.FnExp: "exp", ir.FnLog: "log", ir.FnSqrt: "sqrt", ir.FnPow: "pow", ir.FnFloor: "floor", ir.FnCeil: "ceil"}[n.Fn]
	if name == "" {
		m.g.fail(n, "cannot generate code for %s()", n.Fn)
		return "0"
	}
	if t == ir.Float {
		// eval computes float math in double and rounds once; so do we.
		for k := range args {
			args[k] = "(double)(" + args[k] + ")"
		}
		return "((float)" + name + "(" + strings.Join(args, ", ") + "))"
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// minMax is the code of min or max n of the arguments' code args (one or
// more), in order.
func (m *emitter) minMax(n *ir.Call, args []string) string {
	t := n.T
	fn := "dp_min"
	if n.Fn == ir.FnMax {
		fn = "dp_max"
	}
	acc := args[0]
	for _, a := range args[1:] {
		if m.g.prog.Kernel == KernelHost {
			// C++ leaves the order of a call's arguments open (g++
			// evaluates right to left): where both may fail, the
			// evaluator reports the left one. A braced list is
			// evaluated in order.
			ct := ctype(t)
			acc = fmt.Sprintf("%sp(dp_pair<%s>{(%s)(%s), (%s)(%s)})", fn, ct, ct, acc, ct, a)
			continue
		}
		acc = fmt.Sprintf("%s<%s>(%s, %s)", fn, ctype(t), acc, a)
	}
	if len(args) == 1 {
		return "((" + ctype(t) + ")(" + acc + "))"
	}
	return acc
}

func (m *emitter) reduce(n *ir.Reduce, en env) string {
	if n == m.chain && len(m.reds) == 0 {
		if ch, ok := analysis.ChainOf(n); ok {
			m.g.hostChain = n.Pos
			return m.chainReduce(n, en, ch)
		}
	}
	return m.reduceLoop(n, en)
}

// reduceLoop is a reduction's loop over its variable.
func (m *emitter) reduceLoop(n *ir.Reduce, en env) string {
	t := n.T
	ct := ctype(t)
	m.nred++
	name := fmt.Sprintf("r%d_%s", m.nred, cIdent(n.Var.Name))
	lo := m.expr(n.Lo, en)
	hi := m.expr(n.Hi, en)
	vt := n.Var.T
	if !vt.IsInteger() || vt == ir.Bool {
		vt = ir.Long
	}
	bodyEnv := m.g.bodyEnv(n, en)
	split := m.split && len(m.reds) == 0 && splitReduction(n)
	m.reds = append(m.reds, redVar{r: n, name: name, t: vt})
	var loads []hoisted // reads a split loop issues ahead
	if split && n.Lo.Type().Size() <= 4 && n.Hi.Type().Size() <= 4 {
		loads = m.hoist(n, bodyEnv)
	}
	var body, recheck string
	wide := ""
	// laneSum: a split int or long sum whose lanes add without reporting
	// (flagging a partial sum that leaves the finite range), so that the
	// overflows it reports are the CPU's (orderedSum).
	laneSum := split && n.Op == ir.ReduceSum && (t == ir.Int || t == ir.Long)
	if laneSum {
		saved := m.hoisted
		m.hoisted = nil
		recheck = m.expr(n.Body, bodyEnv)
		m.hoisted = saved
	}
	if split {
		if x, y, ok := m.deferredAdd(n, en, bodyEnv); ok {
			// See deferredAdd: the sums in unsigned arithmetic, where
			// they cannot wrap, checked once on the maximum.
			wide = "unsigned"
			if t == ir.Long {
				wide = "unsigned long long"
			}
			body = fmt.Sprintf("((%s)(%s) + (%s)(%s))", wide, m.expr(x, bodyEnv), wide, m.expr(y, bodyEnv))
			saved := m.hoisted
			m.hoisted = nil
			recheck = m.expr(n.Body, bodyEnv)
			m.hoisted = saved
		}
	}
	if wide == "" {
		body = m.expr(n.Body, bodyEnv)
	}
	m.hoisted = nil
	m.reds = m.reds[:len(m.reds)-1]
	var id, step, fold string
	switch n.Op {
	case ir.ReduceMin:
		id = infLit(t, false)
		step = "acc = (v < acc) ? v : acc;"
		fold = "(y_ < x_) ? y_ : x_"
	case ir.ReduceMax:
		id = infLit(t, true)
		step = "acc = (v > acc) ? v : acc;"
		fold = "(y_ > x_) ? y_ : x_"
	default:
		id = "(" + ct + ")0"
		// A sum follows +, with the inf rules (the body may be inf).
		switch t {
		case ir.Int:
			ck := m.ck(m.site(SiteInf, n))
			step = fmt.Sprintf("acc = dp_saddi(%s, acc, v);", ck)
			fold = fmt.Sprintf("dp_saddi(%s, x_, y_)", ck)
		case ir.Long:
			ck := m.ck(m.site(SiteInf, n))
			step = fmt.Sprintf("acc = dp_saddl(%s, acc, v);", ck)
			fold = fmt.Sprintf("dp_saddl(%s, x_, y_)", ck)
		default:
			step = "acc = acc + v;"
		}
	}
	if split {
		// The lanes of a cell take every a.lanes()-th value of the
		// variable from lo_ + a.lane(), then fold their partial results;
		// every lane ends with the whole reduction. Bounds of 32 bits
		// leave room for the stride in a long long: splitLoop. Wider
		// bounds step by offsets from lo_ in unsigned arithmetic, which
		// cannot overflow.
		fold := fmt.Sprintf("return a.fold(acc, [&](const %s x_, const %s y_) -> %s { return %s; });", ct, ct, ct, fold)
		acc := ct // the accumulator's type
		pre := "" // declarations after the accumulator's
		if laneSum {
			pre, step, fold = m.orderedSum(n, t, ct, ctype(vt), name, recheck, step)
		}
		if wide != "" {
			// A sum above the finite range is an overflow: the maximum
			// shows one, and the checked sums, in order, report the
			// first. Every term is at least 0, the lanes' starting value.
			_, fhi := finiteRange(t)
			fold = fmt.Sprintf("const %[1]s r_ = a.fold(acc, [&](const %[1]s x_, const %[1]s y_) -> %[1]s { return (y_ > x_) ? y_ : x_; }); "+
				"if (r_ > (%[1]s)%[2]dLL) { for (long long k_ = lo_; k_ <= hi_; ++k_) { const %[3]s %[4]s = (%[3]s)k_; (void)(%[5]s); } } "+
				"return (%[6]s)r_;", wide, fhi, ctype(vt), name, recheck, ct)
			acc, id, step = wide, "("+wide+")0", "acc = (v > acc) ? v : acc;"
		}
		if n.Lo.Type().Size() <= 4 && n.Hi.Type().Size() <= 4 {
			return fmt.Sprintf("([&]() -> %s { %s acc = %s; %s const long long lo_ = %s, hi_ = %s; %s %s }())",
				ct, acc, id, pre, lo, hi, splitLoop(ctype(vt), name, acc, body, step, loads, m.g.prog.SplitUnroll), fold)
		}
		return fmt.Sprintf("([&]() -> %s { %s acc = %s; %s const long long lo_ = %s, hi_ = %s; "+
			"if (lo_ <= hi_) { const unsigned long long n_ = (unsigned long long)hi_ - (unsigned long long)lo_; "+
			"for (unsigned long long o_ = a.lane(); o_ <= n_; o_ += a.lanes()) { const %s %s = (%s)(long long)((unsigned long long)lo_ + o_); const %s v = %s; %s if (n_ - o_ < a.lanes()) break; } } "+
			"%s }())",
			ct, acc, id, pre, lo, hi, ctype(vt), name, ctype(vt), acc, body, step, fold)
	}
	if n.Lo.Type().Size() <= 4 && n.Hi.Type().Size() <= 4 {
		// Bounds of 32 bits: the long long variable cannot overflow past
		// hi_, and a loop with no exit but its test is one the compiler
		// can make vector code (a host program's reductions). There the
		// variable itself is a long long (its values fit an int, so every
		// expression of it has the same value): consecutive values of an
		// int converted from k_ would not be known consecutive, and reads
		// indexed by them would be gathers.
		vct := ctype(vt)
		if m.g.prog.Kernel == KernelHost && vt.Size() <= 4 {
			vct = "long long"
		}
		return fmt.Sprintf("([&]() -> %s { %s acc = %s; const long long lo_ = %s, hi_ = %s; "+
			"for (long long k_ = lo_; k_ <= hi_; ++k_) { const %s %s = (%s)k_; const %s v = %s; %s } return acc; }())",
			ct, ct, id, lo, hi, vct, name, vct, ct, body, step)
	}
	return fmt.Sprintf("([&]() -> %s { %s acc = %s; const long long lo_ = %s, hi_ = %s; "+
		"for (long long k_ = lo_; k_ <= hi_; ++k_) { const %s %s = (%s)k_; const %s v = %s; %s if (k_ == hi_) break; } return acc; }())",
		ct, ct, id, lo, hi, ctype(vt), name, ctype(vt), ct, body, step)
}

// orderedSum is the split form of an int or long sum (t, C type ct; the
// variable name of C type vt, body the term without hoisted reads, seq the
// checked step of the sequential sum, "acc = dp_sadd.(..., acc, v);"): the
// lanes add their terms unchecked while every partial sum stays finite,
// flagging one that does not (an inf term, a sum beyond the finite range)
// and noting the largest |partial| they held. Where no lane flagged and
// those largest partials add up within the finite range, no prefix of the
// sum in order leaves it either (each is a sum of one partial per lane), so
// the fold of the partials, in plain arithmetic, is exact and the CPU's
// value. Otherwise every lane sums again in order with the checks: the
// overflow or the inf - inf it reports is the CPU's, and a running total
// that leaves the range and comes back is the CPU's overflow too, which
// the lanes' own orders would miss (or report where the CPU has none).
func (m *emitter) orderedSum(n *ir.Reduce, t ir.Type, ct, vt, name, body, seq string) (pre, step, fold string) {
	_, fhi := finiteRange(t)
	pre = "int fl_ = 0; unsigned long long mx_ = 0;"
	step = fmt.Sprintf("{ const long long v_ = (long long)v, a_ = (long long)acc; "+
		"const long long s_ = (long long)((unsigned long long)a_ + (unsigned long long)v_); "+
		"if (fl_ | (v_ > %[1]dLL) | (v_ < -%[1]dLL) | (((a_ ^ s_) & (v_ ^ s_)) < 0) | (s_ > %[1]dLL) | (s_ < -%[1]dLL)) { fl_ = 1; } "+
		"else { acc = (%[2]s)s_; const unsigned long long m_ = s_ < 0 ? 0ULL - (unsigned long long)s_ : (unsigned long long)s_; mx_ = m_ > mx_ ? m_ : mx_; } }", fhi, ct)
	inOrder := strings.Replace(seq, "acc", "s_", -1)
	fold = fmt.Sprintf("const int f_ = a.fold(fl_, [&](const int x_, const int y_) -> int { return x_ | y_; }); "+
		"const unsigned long long m_ = a.fold(mx_, [&](const unsigned long long x_, const unsigned long long y_) -> unsigned long long { return x_ > ~0ULL - y_ ? ~0ULL : x_ + y_; }); "+
		"if (f_ | (m_ > (unsigned long long)%[1]dLL)) { %[2]s s_ = (%[2]s)0; "+
		"for (long long k_ = lo_; k_ <= hi_; ++k_) { const %[3]s %[4]s = (%[3]s)k_; const %[2]s v = %[5]s; %[6]s if (k_ == hi_) break; } return s_; } "+
		"return a.fold(acc, [&](const %[2]s x_, const %[2]s y_) -> %[2]s { return (%[2]s)((long long)x_ + (long long)y_); });",
		fhi, ct, vt, name, body, inOrder)
	return pre, step, fold
}

// deferredAdd recognises a split max reduction whose body is a checked
// x + y of integers that are never negative (and never inf), over a range
// that is never empty: such sums cannot wrap in the unsigned type of their
// width (each operand is at most the finite maximum), so the loop may add
// and compare without a check per term and check the maximum once — an
// overflowing term is above the finite range, and so is the maximum. It
// returns the operands. (Signs and finiteness are those of a run that
// stops at its first failure, as in mayBeInf: after one, the values summed
// here do not count.)
func (m *emitter) deferredAdd(n *ir.Reduce, en, bodyEnv env) (x, y ir.Expr, ok bool) {
	t := n.T
	b, isBin := n.Body.(*ir.Binary)
	if n.Op != ir.ReduceMax || (t != ir.Int && t != ir.Long) || !isBin || b.Op != ir.OpAdd || b.T != t {
		return nil, nil, false
	}
	if m.mayBeInf(b, bodyEnv) {
		return nil, nil, false
	}
	if _, plain := m.arithCheck(b, bodyEnv); plain {
		return nil, nil, false // no check to spare
	}
	_, fhi := finiteRange(t)
	if !m.g.finiteRangeOf(b.X, bodyEnv).Within(0, fhi) || !m.g.finiteRangeOf(b.Y, bodyEnv).Within(0, fhi) {
		return nil, nil, false
	}
	w := m.g.walker()
	if !w.NonEmpty(n, en) {
		return nil, nil, false
	}
	return b.X, b.Y, true
}

// maxHoisted is how many reads that depend on the variable an iteration of
// a split loop may hoist (registers: Options.SplitUnroll * maxHoisted
// values per lane).
const maxHoisted = 4

// hoisted is a read a split loop issues ahead: its C type and the read,
// and whether it reads the same for every value of the variable (then it
// is read once, before the loop).
type hoisted struct {
	ct, read  string
	invariant bool
}

// hoist picks the reads of split reduction n's body that a split loop may
// issue ahead of the iterations that use them: cell reads not checked for
// their front, and input reads, outside nested reductions, proved inside
// the grid or the input with index arithmetic that needs no check, for
// every value of the variable (benv), so that reading them early, or where
// their case would not read them, has no effect but the read. It names
// them h0_, h1_, ... (m.hoisted).
func (m *emitter) hoist(n *ir.Reduce, benv env) []hoisted {
	var picked []ir.Expr
	variant := 0
	pick := func(x ir.Expr) {
		if !usesVar(x, n) {
			picked = append(picked, x)
		} else if variant < maxHoisted {
			picked = append(picked, x)
			variant++
		}
	}
	ir.Walk(n.Body, func(x ir.Expr) bool {
		switch r := x.(type) {
		case *ir.Reduce:
			return false
		case *ir.CellRef:
			checked := r.ID < len(m.g.pl.Deps) && m.g.pl.Deps[r.ID].Checked
			if !checked && r.ID >= 0 && r.ID < len(m.g.refSafe) && m.pure(r, benv) {
				pick(r)
			}
			return false
		case *ir.Load:
			if m.inputInside(r, benv) {
				pick(r)
			}
			return false
		}
		return true
	})
	if len(picked) == 0 {
		return nil
	}
	out := make([]hoisted, len(picked))
	for k, x := range picked {
		out[k].invariant = !usesVar(x, n)
		switch r := x.(type) {
		case *ir.CellRef:
			out[k].ct, out[k].read = "cell_t", fmt.Sprintf("a.template ref<%d>(%s, %s, i, j)", r.ID, m.expr(r.I, benv), m.expr(r.J, benv))
			m.g.refSafe[r.ID] = true
		case *ir.Load:
			ct := ctype(r.T)
			if r.T == ir.Char || r.T == ir.Bool {
				ct = "int"
			}
			out[k].ct, out[k].read = ct, m.load(r, benv)
		}
	}
	m.hoisted = map[ir.Expr]string{}
	for k, x := range picked {
		m.hoisted[x] = fmt.Sprintf("h%d_", k)
	}
	return out
}

// inputInside reports whether ld's indices are inside its input wherever
// en holds and computed with no check (see pure).
func (m *emitter) inputInside(ld *ir.Load, en env) bool {
	in := m.g.input(ld.In)
	if in == nil {
		return false
	}
	for _, x := range ld.Index {
		if !m.pure(x, en) {
			return false
		}
	}
	if len(ld.Index) == 1 {
		return m.g.rangeOf(ld.Index[0], en).Within(0, in.Len-1)
	}
	return m.g.rangeOf(ld.Index[0], en).Within(0, in.Rows-1) && m.g.rangeOf(ld.Index[1], en).Within(0, in.Cols-1)
}

// splitLoop is the loop of a split reduction with 32-bit bounds lo_ and
// hi_ (in long long: no overflow as the variable steps past hi_), whose
// variable is name of C type vt, body computing v of type ct, and step
// folding v into acc. The hoisted reads (hoist) that do not depend on the
// variable are read once, before the loop (inside `lo_ <= hi_`, where the
// ranges that proved them inside hold); those that do are issued for
// unroll iterations before any of them is used, so that that many
// are in flight at once: the checks between the iterations (branches to
// dp_fail) keep the compiler from moving reads up itself. The rest of the
// iterations run one by one.
func splitLoop(vt, name, ct, body, step string, loads []hoisted, unroll int) string {
	if len(loads) == 0 {
		return fmt.Sprintf("_Pragma(\"unroll 4\") for (long long k_ = lo_ + (long long)a.lane(); k_ <= hi_; k_ += (long long)a.lanes()) { const %s %s = (%s)k_; const %s v = %s; %s }",
			vt, name, vt, ct, body, step)
	}
	var once, decl, fill, use, one strings.Builder
	for k, ld := range loads {
		if ld.invariant {
			fmt.Fprintf(&once, "const %s h%d_ = %s; ", ld.ct, k, ld.read)
			continue
		}
		fmt.Fprintf(&decl, "%s hv%d_[%d]; ", ld.ct, k, unroll)
		fmt.Fprintf(&fill, "hv%d_[u_] = %s; ", k, ld.read)
		fmt.Fprintf(&use, "const %s h%d_ = hv%d_[u_]; ", ld.ct, k, k)
		fmt.Fprintf(&one, "const %s h%d_ = %s; ", ld.ct, k, ld.read)
	}
	return fmt.Sprintf("if (lo_ <= hi_) { %[12]sconst long long st_ = (long long)a.lanes(); long long k_ = lo_ + (long long)a.lane(); "+
		"for (; k_ + %[1]d * st_ <= hi_; k_ += %[2]d * st_) { %[3]s"+
		"_Pragma(\"unroll\") for (int u_ = 0; u_ < %[2]d; ++u_) { const %[4]s %[5]s = (%[4]s)(k_ + u_ * st_); %[6]s} "+
		"_Pragma(\"unroll\") for (int u_ = 0; u_ < %[2]d; ++u_) { const %[4]s %[5]s = (%[4]s)(k_ + u_ * st_); %[7]sconst %[8]s v = %[9]s; %[10]s } } "+
		"for (; k_ <= hi_; k_ += st_) { const %[4]s %[5]s = (%[4]s)k_; %[11]sconst %[8]s v = %[9]s; %[10]s } }",
		unroll-1, unroll, decl.String(), vt, name, fill.String(), use.String(), ct, body, step, one.String(), once.String())
}

// cIdent makes s usable inside a C identifier.
func cIdent(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// load emits an input read. Indices proved in range read directly; the
// others go through a check that reports the site and reads element 0.
func (m *emitter) load(n *ir.Load, en env) string {
	in := m.g.input(n.In)
	if in == nil {
		m.g.fail(n, "unknown input %s", n.In.Name)
		return "0"
	}
	var flat string
	if len(n.Index) == 1 {
		r := m.g.rangeOf(n.Index[0], en)
		k := m.expr(n.Index[0], en)
		if !r.Within(0, in.Len-1) {
			flat = fmt.Sprintf("dp_chk1(%s, (long long)(%s), %dLL)", m.ck(m.site(SiteLoad, n)), k, in.Len)
		} else {
			flat = k
		}
	} else {
		rr, rc := m.g.rangeOf(n.Index[0], en), m.g.rangeOf(n.Index[1], en)
		r := m.expr(n.Index[0], en)
		c := m.expr(n.Index[1], en)
		if !rr.Within(0, in.Rows-1) || !rc.Within(0, in.Cols-1) {
			flat = fmt.Sprintf("dp_chk2(%s, (long long)(%s), (long long)(%s), %dLL, %dLL)", m.ck(m.site(SiteLoad, n)), r, c, in.Rows, in.Cols)
		} else {
			flat = fmt.Sprintf("((long long)(%s) * %dLL + (%s))", r, in.Cols, c)
		}
	}
	if m.invariant {
		if pf, ok := m.g.pfSlot[n]; ok && !strings.HasPrefix(flat, "dp_chk") {
			return fmt.Sprintf("a.template pf<%d>()", pf)
		}
		if slot, ok := m.g.rowSlot[n]; ok {
			return fmt.Sprintf("a.template rv<%d>(%s)", slot, flat)
		}
		if slot, ok := m.g.colSlot[n]; ok {
			return fmt.Sprintf("a.template cv<%d>(%s)", slot, flat)
		}
	}
	if m.g.prog.Kernel == KernelHost {
		// The host program's inputs belong to the run (several runs of
		// one library may be under way at once): the accessor has them.
		return fmt.Sprintf("%s(a.in, %s)", loadFuncName(m.g.inputIndex(n.In)), flat)
	}
	return fmt.Sprintf("%s(%s)", loadFuncName(m.g.inputIndex(n.In)), flat)
}

// pure reports whether the code the emitter writes for e, in the strip
// kernel, has no side effect and reads no memory that could be outside its
// object: no checks (they may report), no reductions, input reads only of
// prepared row or column values, cell reads proved inside the grid (the
// strip kernel reads those from registers). Such expressions may be
// evaluated even where their case does not apply, which lets the
// recurrence be one chain of selects instead of branches.
func (m *emitter) pure(e ir.Expr, en env) bool {
	t := e.Type()
	switch n := e.(type) {
	case *ir.Const, *ir.Inf, *ir.ScalarRef, *ir.Var:
		return true
	case *ir.Load:
		if constLoad(n) {
			return true // the one element of its input: nothing to check
		}
		if _, ok := m.g.pfSlot[n]; ok {
			return true // a register a profile filled (proved inside its input)
		}
		if _, ok := m.g.rowSlot[n]; !ok {
			if _, ok := m.g.colSlot[n]; !ok {
				return false
			}
		}
		in := m.g.input(n.In)
		if len(n.Index) == 1 {
			return m.g.rangeOf(n.Index[0], en).Within(0, in.Len-1) && m.pure(n.Index[0], en)
		}
		return m.g.rangeOf(n.Index[0], en).Within(0, in.Rows-1) && m.g.rangeOf(n.Index[1], en).Within(0, in.Cols-1) &&
			m.pure(n.Index[0], en) && m.pure(n.Index[1], en)
	case *ir.CellRef:
		return m.g.rangeOf(n.I, en).Within(0, m.g.p.Rows-1) && m.g.rangeOf(n.J, en).Within(0, m.g.p.Cols-1) &&
			m.pure(n.I, en) && m.pure(n.J, en)
	case *ir.Unary:
		return m.pure(n.X, en)
	case *ir.Binary:
		switch n.Op {
		case ir.OpAnd:
			return m.pure(n.X, en) && m.pure(n.Y, m.g.refine(n.X, true, en))
		case ir.OpOr:
			return m.pure(n.X, en) && m.pure(n.Y, m.g.refine(n.X, false, en))
		}
		if !m.pure(n.X, en) || !m.pure(n.Y, en) {
			return false
		}
		if t.IsFloat() || t == ir.Bool {
			return true
		}
		switch n.Op {
		case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
			return true
		}
		if m.mayBeInf(n, en) {
			_, _, _, ok := m.satOperands(n, en)
			return ok // the inf rules without a check, or a check
		}
		_, plain := m.arithCheck(n, en)
		return plain
	case *ir.Select:
		return m.pure(n.Cond, en) && m.pure(n.Then, m.g.refine(n.Cond, true, en)) && m.pure(n.Else, m.g.refine(n.Cond, false, en))
	case *ir.Convert:
		if n.X.Type().IsFloat() && !t.IsFloat() && t != ir.Bool {
			return false // NaN and overflow checks
		}
		if lo, hi := finiteRange(t); narrows(n.X.Type(), t) && !m.g.rangeOf(n.X, en).Within(lo, hi) {
			return false
		}
		return m.pure(n.X, en)
	case *ir.Call:
		for _, a := range n.Args {
			if !m.pure(a, en) {
				return false
			}
		}
		return true
	}
	return false
}

// isCellJ reports whether n is the lowering of the user's column in a
// recurrence of T tables: J / T (sema.tableJ).
func isCellJ(n *ir.Binary, T int) bool {
	v, ok1 := n.X.(*ir.Var)
	k, ok2 := n.Y.(*ir.Const)
	return ok1 && ok2 && n.Op == ir.OpDiv && !n.Saturate && v.Kind == ir.VarJ && v.Reduce == nil && k.V.I == int64(T)
}
