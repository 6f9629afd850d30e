package codegen

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// Packed batch programs (issue #14, item 2): where every value the
// recurrence computes is proved to fit in 16 bits, a batch program's warp
// computes two instances at once, instance 2p in the low half of each
// 32-bit register and 2p+1 in the high half (templates/batch16.cu), with
// Hopper's DPX instructions on pairs of 16-bit values (VIADDMNMX.S16x2:
// max(a+b, c) of both halves in one instruction) — the way CUDASW++4.0
// and SWIPE compute several database sequences in one register.
//
// What is proved (pack16Why): the cells' range (inferCellRange, the depth
// of the program's grid: the largest instance of its shape) and every
// intermediate value the packed recurrence computes lie in -32768..32767,
// so no half ever wraps into the other and no check is needed; nothing the
// recurrence computes can report (no check, every reference proved inside
// the grid); the recurrence is one chain of pure cases (selectFrom), made
// of the operations below. Everything else runs the 32-bit program.

// pkind is what a packed expression's code computes: a uniform value (the
// same for both instances: indices, constants, scalars), a pair of 16-bit
// values, or a pair of 16-bit masks (0 or 0xffff each: a comparison of a
// pair).
type pkind uint8

const (
	pUniform pkind = iota
	pPair
	pMask
)

// pexpr is a packed expression's code and kind.
type pexpr struct {
	code string
	k    pkind
	t    ir.Type // a uniform value's type
}

// packer writes the packed recurrence (dp_rec16) or finds why it cannot.
type packer struct {
	g   *gen
	m   *emitter
	why string
}

func (pk *packer) fail(format string, args ...any) pexpr {
	if pk.why == "" {
		pk.why = fmt.Sprintf(format, args...)
	}
	return pexpr{code: "0u", k: pPair}
}

// fits16 reports whether every value of r fits a signed 16-bit half.
func fits16(r analysis.Range) bool { return r.Within(math.MinInt16, math.MaxInt16) }

// uniform reports whether e is the same for both instances of a pair: no
// cell and no input is read (the index variables, constants and scalars).
func uniform(e ir.Expr) bool {
	u := true
	ir.Walk(e, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.CellRef, *ir.Load, *ir.Reduce, *ir.Inf:
			u = false
		}
		return u
	})
	return u
}

// pair makes x a pair (a uniform value broadcast to both halves; a mask of
// a uniform truth).
func (pk *packer) pair(x pexpr, e ir.Expr, en env) pexpr {
	switch x.k {
	case pPair:
		return x
	case pMask:
		return pexpr{code: "(" + x.code + " & 0x00010001u)", k: pPair}
	}
	if x.t == ir.Bool {
		return pexpr{code: "(" + x.code + " ? 0x00010001u : 0u)", k: pPair}
	}
	if !fits16(pk.g.rangeOf(e, en)) {
		return pk.fail("%s may not fit 16 bits", exprAt(e))
	}
	if c, ok := e.(*ir.Const); ok && !c.V.T.IsFloat() {
		return pexpr{code: fmt.Sprintf("0x%08xu", uint32(uint16(int16(c.V.I)))*0x10001), k: pPair}
	}
	return pexpr{code: "dp_h2_bc((int)(" + x.code + "))", k: pPair}
}

// mask makes x a mask (a uniform truth as all or none).
func (pk *packer) mask(x pexpr) pexpr {
	switch x.k {
	case pMask:
		return x
	case pPair:
		return pk.fail("a value is used as a truth")
	}
	return pexpr{code: "(" + x.code + " ? 0xffffffffu : 0u)", k: pMask}
}

// expr writes e.
func (pk *packer) expr(e ir.Expr, en env) pexpr {
	if pk.why != "" {
		return pexpr{code: "0u", k: pPair}
	}
	t := e.Type()
	if t.IsFloat() {
		return pk.fail("%s is floating-point", exprAt(e))
	}
	if uniform(e) {
		if !pk.m.pure(e, en) {
			return pk.fail("%s may report an error", exprAt(e))
		}
		return pexpr{code: pk.m.expr(e, en), k: pUniform, t: t}
	}
	checked := func(x pexpr) pexpr {
		if x.k == pPair && !fits16(pk.g.rangeOf(e, en)) {
			return pk.fail("%s may not fit 16 bits", exprAt(e))
		}
		return x
	}
	switch n := e.(type) {
	case *ir.CellRef:
		if n.ID < 0 || n.ID >= len(pk.g.refSafe) || !pk.g.refSafe[n.ID] {
			return pk.fail("%s is not proved inside the grid", n.Text)
		}
		return checked(pexpr{code: fmt.Sprintf("a.template ref<%d>()", n.ID), k: pPair})
	case *ir.Load:
		if !pk.m.pure(n, en) {
			return pk.fail("%s may read outside %s", exprAt(n), n.In.Name)
		}
		if p, ok := pk.g.pfSlot[n]; ok {
			return checked(pexpr{code: fmt.Sprintf("a.template pf<%d>()", p), k: pPair})
		}
		if s, ok := pk.g.rowSlot[n]; ok {
			return checked(pexpr{code: fmt.Sprintf("a.template rv<%d>()", s), k: pPair})
		}
		if s, ok := pk.g.colSlot[n]; ok {
			return checked(pexpr{code: fmt.Sprintf("a.template cv<%d>()", s), k: pPair})
		}
		return pk.fail("%s is read at an index of both its row and its column", exprAt(n))
	case *ir.Unary:
		x := pk.expr(n.X, en)
		if n.Op == ir.OpNot {
			return pexpr{code: "(~" + pk.mask(x).code + ")", k: pMask}
		}
		return checked(pexpr{code: "dp_h2_neg(" + pk.pair(x, n.X, en).code + ")", k: pPair})
	case *ir.Convert:
		if !t.IsInteger() || !n.X.Type().IsInteger() {
			return pk.fail("%s converts", exprAt(n))
		}
		x := pk.expr(n.X, en)
		if t == ir.Bool {
			return pk.mask(x)
		}
		return checked(pk.pair(x, n.X, en))
	case *ir.Binary:
		return pk.binary(n, en, checked)
	case *ir.Select:
		if x, ok := pk.selectEq(n, en); ok {
			return checked(x)
		}
		c := pk.expr(n.Cond, en)
		thenEnv, elseEnv := pk.g.refine(n.Cond, true, en), pk.g.refine(n.Cond, false, en)
		x, y := pk.expr(n.Then, thenEnv), pk.expr(n.Else, elseEnv)
		if t == ir.Bool {
			x, y = pk.mask(x), pk.mask(y)
		} else {
			x, y = pk.pair(x, n.Then, thenEnv), pk.pair(y, n.Else, elseEnv)
		}
		if c.k == pUniform {
			return checked(pexpr{code: fmt.Sprintf("(%s ? %s : %s)", c.code, x.code, y.code), k: x.k})
		}
		return checked(pexpr{code: fmt.Sprintf("dp_h2_sel(%s, %s, %s)", pk.mask(c).code, x.code, y.code), k: x.k})
	case *ir.Call:
		if n.Fn != ir.FnMax && n.Fn != ir.FnMin {
			return pk.fail("%s is not packed", n.Fn)
		}
		return checked(pk.minMax(n, en))
	}
	return pk.fail("%s is not packed", exprAt(e))
}

// binary writes x op y.
func (pk *packer) binary(n *ir.Binary, en env, checked func(pexpr) pexpr) pexpr {
	if n.Saturate {
		return pk.fail("%s may hold inf", exprAt(n))
	}
	switch n.Op {
	case ir.OpAnd, ir.OpOr:
		x := pk.mask(pk.expr(n.X, en))
		y := pk.mask(pk.expr(n.Y, pk.g.refine(n.X, n.Op == ir.OpAnd, en)))
		op := map[ir.Op]string{ir.OpAnd: "&", ir.OpOr: "|"}[n.Op]
		return pexpr{code: fmt.Sprintf("(%s %s %s)", x.code, op, y.code), k: pMask}
	case ir.OpAdd, ir.OpSub:
		if x, y, ok := pk.sum(n, en); ok {
			return checked(pexpr{code: fmt.Sprintf("dp_h2_add(%s, %s)", x, y), k: pPair})
		}
		x, y := pk.pair(pk.expr(n.X, en), n.X, en), pk.pair(pk.expr(n.Y, en), n.Y, en)
		return checked(pexpr{code: fmt.Sprintf("dp_h2_sub(%s, %s)", x.code, y.code), k: pPair})
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		x, y := pk.pair(pk.expr(n.X, en), n.X, en), pk.pair(pk.expr(n.Y, en), n.Y, en)
		f := map[ir.Op]string{ir.OpEq: "eq", ir.OpNe: "ne", ir.OpLt: "lt", ir.OpLe: "le", ir.OpGt: "gt", ir.OpGe: "ge"}[n.Op]
		return pexpr{code: fmt.Sprintf("dp_h2_%s(%s, %s)", f, x.code, y.code), k: pMask}
	}
	return pk.fail("%s is not packed", n.Op)
}

// sum writes n, an addition or a subtraction of a uniform value, as the
// two operands of an addition (the subtracted value negated), or reports
// that it is neither.
func (pk *packer) sum(n *ir.Binary, en env) (x, y string, ok bool) {
	switch {
	case n.Saturate || uniform(n):
		return "", "", false
	case n.Op == ir.OpAdd:
		return pk.pair(pk.expr(n.X, en), n.X, en).code, pk.pair(pk.expr(n.Y, en), n.Y, en).code, true
	case n.Op == ir.OpSub && uniform(n.Y):
		if r := pk.g.rangeOf(n.Y, en).Neg(); !fits16(r) {
			pk.fail("%s may not fit 16 bits", exprAt(n.Y))
		}
		y := pk.expr(n.Y, en)
		if c, isConst := n.Y.(*ir.Const); isConst && !c.V.T.IsFloat() {
			return pk.pair(pk.expr(n.X, en), n.X, en).code, fmt.Sprintf("0x%08xu", uint32(uint16(int16(-c.V.I)))*0x10001), true
		}
		return pk.pair(pk.expr(n.X, en), n.X, en).code, "dp_h2_bc(-(int)(" + y.code + "))", true
	}
	return "", "", false
}

// selectEq writes c ? a : b where c compares two pairs for equality (or
// inequality) and a and b are uniform, b - a within 16 bits
// (dp_h2_seleq: no mask), or reports that it is not so.
func (pk *packer) selectEq(n *ir.Select, en env) (pexpr, bool) {
	c, ok := n.Cond.(*ir.Binary)
	if !ok || (c.Op != ir.OpEq && c.Op != ir.OpNe) || uniform(c) || !uniform(n.Then) || !uniform(n.Else) || n.Type() == ir.Bool {
		return pexpr{}, false
	}
	thenEnv, elseEnv := pk.g.refine(n.Cond, true, en), pk.g.refine(n.Cond, false, en)
	ra, rb := pk.g.rangeOf(n.Then, thenEnv), pk.g.rangeOf(n.Else, elseEnv)
	if !fits16(ra) || !fits16(rb) || !fits16(rb.Sub(ra)) || !pk.m.pure(n.Then, thenEnv) || !pk.m.pure(n.Else, elseEnv) {
		return pexpr{}, false
	}
	x, y := pk.pair(pk.expr(c.X, en), c.X, en), pk.pair(pk.expr(c.Y, en), c.Y, en)
	ca, okA := analysis.Int(n.Then, nil)
	cb, okB := analysis.Int(n.Else, nil)
	if c.Op == ir.OpNe {
		ca, cb = cb, ca
	}
	if okA && okB {
		// Constants: one multiply-add where a's 16 bits and b - a's add
		// without a carry into the high half (dp_h2_seleq_nc).
		a16, k16 := uint32(uint16(int16(ca))), uint32(uint16(int16(cb-ca)))
		if a16+k16 < 0x10000 {
			return pexpr{code: fmt.Sprintf("dp_h2_seleq_nc(%s, %s, 0x%08xu, 0x%xu)", x.code, y.code, a16*0x10001, k16), k: pPair}, true
		}
	}
	a, b := pk.m.expr(n.Then, thenEnv), pk.m.expr(n.Else, elseEnv)
	if c.Op == ir.OpNe {
		a, b = b, a
	}
	return pexpr{code: fmt.Sprintf("dp_h2_seleq(%s, %s, (int)(%s), (int)(%s))", x.code, y.code, a, b), k: pPair}, true
}

// minMax writes min or max of several: each argument that is a sum of two
// folded in with the sum (dp_h2_addmax: one DPX instruction for an
// addition and a max of both halves).
func (pk *packer) minMax(n *ir.Call, en env) pexpr {
	fn := "max"
	if n.Fn == ir.FnMin {
		fn = "min"
	}
	acc := ""
	var sums []*ir.Binary
	for _, a := range n.Args {
		if b, ok := a.(*ir.Binary); ok && (b.Op == ir.OpAdd || b.Op == ir.OpSub && uniform(b.Y)) && !b.Saturate && !uniform(b) {
			sums = append(sums, b)
			continue
		}
		x := pk.pair(pk.expr(a, en), a, en)
		if acc == "" {
			acc = x.code
		} else {
			acc = fmt.Sprintf("dp_h2_%s(%s, %s)", fn, acc, x.code)
		}
	}
	for _, b := range sums {
		if !fits16(pk.g.rangeOf(b, en)) {
			return pk.fail("%s may not fit 16 bits", exprAt(b))
		}
		x, y, _ := pk.sum(b, en)
		if acc == "" {
			acc = fmt.Sprintf("dp_h2_add(%s, %s)", x, y)
		} else {
			acc = fmt.Sprintf("dp_h2_add%s(%s, %s, %s)", fn, x, y, acc)
		}
	}
	return pexpr{code: acc, k: pPair}
}

// pack16Why is why p's batch program cannot be packed ("" when it can):
// see the top of this file. It runs after the recurrence is written
// (refSafe, recChecks).
func (g *gen) pack16Why() string {
	p, prog := g.p, g.prog
	switch {
	case g.opt.BatchNoPack:
		return "not asked for"
	case prog.Kernel != KernelBatch:
		return "not a batch program"
	case p.CellType != ir.Int && p.CellType != ir.Long:
		return "its cells are not integers"
	case prog.Tables > 1:
		return "it computes several tables"
	case prog.Answer != AnswerCell && !prog.BatchValueOnly:
		return "its answer is a sum"
	case g.recChecks || slices.Contains(g.refSafe, false):
		return "its recurrence may report an error"
	case !fits16(g.cellRange):
		return fmt.Sprintf("its cells may not fit 16 bits (%d..%d)", g.cellRange.Lo, g.cellRange.Hi)
	}
	// A varying input of one element read at its index 0 is read at the
	// warp's instance (dp_binst: pureExpr, the emitter), not at each
	// half's.
	oneVaries := false
	for _, c := range g.p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				if ld, ok := x.(*ir.Load); ok && constLoad(ld) && g.varies(ld.In) {
					oneVaries = true
				}
				return !oneVaries
			})
		}
	}
	if oneVaries {
		return "it reads a varying input of one value"
	}
	rows := g.batchStripBytes()
	if prog.BatchRowBytes > 0 {
		rows = 0 // in global memory
	}
	if int64(prog.BatchWarps)*(rows+2*128*4*int64(len(g.colLds))) > profileBytes {
		return "its rows between strips and two instances' column values exceed a block's shared memory"
	}
	for _, ld := range g.colLds {
		if ld.T.Size() > 4 {
			// Two instances' column values in shared memory, as many
			// bytes as the block's budget has for one instance's of
			// 8 bytes (classifyProfiles).
			return fmt.Sprintf("%s is read as %s", exprAt(ld), ld.T)
		}
	}
	for _, lds := range [][]*ir.Load{g.rowLds, g.colLds} {
		for _, ld := range lds {
			if !fits16(g.rangeOf(ld, g.gridEnv(g.cellRange))) {
				return fmt.Sprintf("%s may not fit 16 bits", exprAt(ld))
			}
		}
	}
	return ""
}

// recurrence16 writes dp_rec16, the recurrence on pairs of instances
// (templates/batch16.cu), and reports whether it could (else why).
func (g *gen) recurrence16(b *strings.Builder) (string, bool) {
	if why := g.pack16Why(); why != "" {
		return why, false
	}
	sites := len(g.sites)
	pk := &packer{g: g, m: &emitter{g: g, invariant: true}}
	cases := g.p.Cases
	n := len(cases)
	condEnv, valEnv := g.caseEnvs(cases)
	if n == 0 || cases[n-1].Cond != nil {
		return "its cases have no otherwise", false
	}
	if selectFrom(pk.m, cases, condEnv, valEnv) != 0 {
		return "a case is not pure", false
	}
	var body strings.Builder
	last := pk.pair(pk.expr(cases[n-1].Value, valEnv(n-1)), cases[n-1].Value, valEnv(n-1))
	fmt.Fprintf(&body, "\tdp_h2 r = %s;\n", last.code)
	for k := n - 2; k >= 0; k-- {
		c := cases[k]
		cond := pk.expr(c.Cond, condEnv(k))
		v := pk.pair(pk.expr(c.Value, valEnv(k)), c.Value, valEnv(k))
		if cond.k == pUniform {
			fmt.Fprintf(&body, "\tr = (%s) ? %s : r;\n", cond.code, v.code)
		} else {
			fmt.Fprintf(&body, "\tr = dp_h2_sel(%s, %s, r);\n", pk.mask(cond).code, v.code)
		}
	}
	if len(g.sites) != sites {
		pk.fail("a check was written")
		g.sites = g.sites[:sites]
	}
	if pk.why != "" {
		return pk.why, false
	}
	b.WriteString("\n// ---- the recurrence on pairs of instances, 16 bits each (codegen/pack16.go) ----\n")
	b.WriteString("template <class A>\n__device__ __forceinline__ dp_h2 dp_rec16(const DP_IDX_T i, const DP_IDX_T j, A &a)\n{\n")
	b.WriteString(body.String())
	b.WriteString("\t(void)i, (void)j;\n\treturn r;\n}\n")
	return "", true
}

// exprAt names an expression by its place in the `.dp` file (for why a
// program is not packed).
func exprAt(e ir.Expr) string {
	if p := e.Position(); p.IsValid() {
		return "the expression at " + p.String()
	}
	return "an expression"
}
