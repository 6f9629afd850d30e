package eval

import (
	"math"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// This file compiles the cases and the scan stage. Cases whose value does
// not read the line being computed are computed for the whole batch and
// stored under their masks. A case that reads the line being computed (the
// wavefront's cell[i][j-1]) cannot be: each lane needs its neighbour. Its
// value is taken apart, where it has the shape op(X, cell[i][j-b] + Y) (op
// min or max, X and Y not reading the line), into X and Y, computed for
// the batch, and a scan that runs lane by lane; anything else is evaluated
// lane by lane with scalar closures.

// seqCase is a case whose value reads the line being computed.
type seqCase struct {
	mask int         // its lanes (-1: all)
	form *scanForm   // nil: the scalar closure below
	val  laneStore   // the value converted to the cell type
	pos  source.Pos  // for overflow errors
	ref  *ir.CellRef // a reference for messages
}

// scanForm is op(X, term, term...).
type scanForm struct {
	op    int // vMin, vMax or -1 for a single term
	x     opnd
	hasX  bool
	terms []scanTerm
}

// scanTerm is cell[lane - b] + Y (or - Y) on the line being computed.
type scanTerm struct {
	ref    *ir.CellRef
	b      int64
	y      opnd
	hasY   bool
	sub    bool
	sat    bool
	swap   bool // Y + cell: the message writes Y first
	r32    bool
	proven bool
	pos    source.Pos // the + or -, for errors
}

// undecided is the lanes whose case depends on the line being computed:
// from case `from` on, each is decided lane by lane.
type undecided struct {
	mask int
	from int
}

type scanFn func(m *Machine)

// blendCase is a case computed for the batch whose lanes the scan stores
// itself: the lanes where cv is set take v, the others the single
// sequential case. It saves the store and the mask of the remaining lanes
// in the common shape "A when COND | B otherwise" (LCS).
type blendCase struct {
	cv     int // bool vector register
	v      int // vector register: the value in the cell type is v + c
	c      opnd
	hasC   bool
	pos    source.Pos // the case value
	addPos source.Pos // the + of v + c, for overflow errors
}

func (c *vcomp) cases() {
	if c.blendCases() || c.pairCases() {
		return
	}
	p := c.rec.p
	rem := -1
	for ci, cs := range p.Cases {
		t := triTrue
		if ci < len(c.f.cases) {
			t = c.f.cases[ci]
		}
		if cs.Cond == nil {
			t = triTrue
		}
		if t == triFalse {
			continue
		}
		if t == triUnknown && c.seq(cs.Cond) {
			c.k.und = &undecided{mask: rem, from: ci}
			return
		}
		cv := -1
		if t == triUnknown {
			cv = c.vecB(c.expr(cs.Cond, rem))
		}
		if c.seq(cs.Value) {
			take := c.and(rem, cv)
			c.seqCase(cs, take)
			if cv < 0 {
				return
			}
			rem = c.andNot(rem, cv)
			continue
		}
		vmask := rem
		if c.mayFail(cs.Value) {
			vmask = c.and(rem, cv)
		}
		v := c.expr(toCellType(cs.Value, c.rec.cellT), vmask)
		if cv < 0 {
			c.store(v, rem, -1, -1, cs.Value.Position())
			return
		}
		nr := newVec[bool](c)
		c.store(v, rem, cv, nr, cs.Value.Position())
		rem = nr
	}
}

// caseTri is what the facts say of case ci's condition.
func (c *vcomp) caseTri(ci int) tri {
	if c.rec.p.Cases[ci].Cond == nil || ci >= len(c.f.cases) {
		return triTrue
	}
	return c.f.cases[ci]
}

// blendCases compiles the shape "A when COND | B otherwise" where only B
// reads the line being computed and is a scan; it reports whether it did.
func (c *vcomp) blendCases() bool {
	p := c.rec.p
	live := c.liveCases()
	if len(live) != 2 {
		return false
	}
	a, b := p.Cases[live[0]], p.Cases[live[1]]
	if c.caseTri(live[0]) != triUnknown || c.caseTri(live[1]) != triTrue ||
		c.seq(a.Cond) || c.seq(a.Value) || !c.seq(b.Value) {
		return false
	}
	ps := c.parseScan(b.Value)
	if ps == nil {
		return false
	}
	cv := c.vecB(c.expr(a.Cond, -1))
	vmask := -1
	if c.mayFail(a.Value) {
		vmask = cv
	}
	bl := &blendCase{cv: cv, pos: a.Value.Position()}
	av := toCellType(a.Value, c.rec.cellT)
	// x + c with c the same for the batch is added in the scan's loop.
	vec := c.vecI
	if c.rec.cls == ir.ClassFloat {
		vec = c.vecF
	}
	if add, ok := av.(*ir.Binary); ok && add.Op == ir.OpAdd && !add.Saturate && c.uniform(add.Y) && !c.uniform(add.X) {
		bl.v = vec(c.expr(add.X, vmask))
		bl.c, bl.hasC, bl.addPos = c.expr(add.Y, vmask), true, add.Pos
	} else {
		bl.v = vec(c.expr(av, vmask))
	}
	bmask := -1
	if c.mayFail(b.Value) {
		bmask = c.andNot(-1, cv)
	}
	c.k.blend = bl
	c.k.seqs = append(c.k.seqs, &seqCase{mask: -1, pos: b.Value.Position(), form: c.compileScan(ps, bmask)})
	return true
}

// liveCases lists the cases the facts leave, up to the first that always
// holds.
func (c *vcomp) liveCases() []int {
	var live []int
	for ci := range c.rec.p.Cases {
		t := c.caseTri(ci)
		if t == triFalse {
			continue
		}
		live = append(live, ci)
		if t == triTrue {
			break
		}
	}
	return live
}

// pairCases compiles "A when COND | B otherwise" where neither reads the
// line being computed into one select-and-store; it reports whether it did.
func (c *vcomp) pairCases() bool {
	live := c.liveCases()
	if len(live) != 2 {
		return false
	}
	a, b := c.rec.p.Cases[live[0]], c.rec.p.Cases[live[1]]
	if c.caseTri(live[0]) != triUnknown || c.caseTri(live[1]) != triTrue ||
		c.seq(a.Cond) || c.seq(a.Value) || c.seq(b.Value) {
		return false
	}
	cv := c.vecB(c.expr(a.Cond, -1))
	am, bm := -1, -1
	if c.mayFail(a.Value) {
		am = cv
	}
	if c.mayFail(b.Value) {
		bm = c.andNot(-1, cv)
	}
	t := c.rec.cellT
	av := c.expr(toCellType(a.Value, t), am)
	bv := c.expr(toCellType(b.Value, t), bm)
	apos, bpos := a.Value.Position(), b.Value.Position()
	if c.rec.cls == ir.ClassFloat {
		storePair[float64](c, cv, c.vecF(av), c.vecF(bv), apos, bpos)
	} else {
		storePair[int64](c, cv, c.vecI(av), c.vecI(bv), apos, bpos)
	}
	return true
}

// storePair emits the store of vector register a on the lanes where cv is
// set and of b elsewhere, checking each value by the cell's rule.
func storePair[T num](c *vcomp, cv, a, b int, apos, bpos source.Pos) {
	rule := ruleOf[T](c.rec)
	c.emit(func(m *Machine) {
		r, lo, hi, nanOK := bankOf[T](m), rule.lo, rule.hi, rule.nanOK
		out, x, y, cm := out[T](m), r.v[a][:m.n], r.v[b][:m.n], m.bools.v[cv][:m.n]
		for k := range out {
			v := y[k]
			if cm[k] {
				v = x[k]
			}
			if v < lo || v > hi || (v != v && !nanOK) {
				pos := bpos
				if cm[k] {
					pos = apos
				}
				rule.fail(m, pos, k, v)
				return
			}
			out[k] = v
		}
	})
}

// store writes v to the output line on the lanes of rem (-1: all) where
// cv (-1: always) is set, and sets newRem to the lanes of rem where cv is
// not set.
func (c *vcomp) store(v opnd, rem, cv, newRem int, pos source.Pos) {
	if c.rec.cls == ir.ClassFloat {
		storeReg[float64](c, c.vecF(v), rem, cv, newRem, pos)
	} else {
		storeReg[int64](c, c.vecI(v), rem, cv, newRem, pos)
	}
}

// storeReg is store for cells of type T, v in a vector register.
func storeReg[T num](c *vcomp, v, rem, cv, newRem int, pos source.Pos) {
	rule := ruleOf[T](c.rec)
	if rem < 0 && cv >= 0 && newRem >= 0 {
		c.emit(func(m *Machine) {
			out, vals := out[T](m), bankOf[T](m).v[v][:m.n]
			lo, hi, nanOK := rule.lo, rule.hi, rule.nanOK
			cm, nr := m.bools.v[cv][:m.n], m.bools.x[newRem][:m.n]
			m.bools.v[newRem] = nr
			for k := range out {
				if cm[k] {
					x := vals[k]
					if x < lo || x > hi || (x != x && !nanOK) {
						rule.fail(m, pos, k, x)
						return
					}
					out[k] = x
				}
				nr[k] = !cm[k]
			}
		})
		return
	}
	c.emit(func(m *Machine) {
		out, vals := out[T](m), bankOf[T](m).v[v][:m.n]
		lo, hi, nanOK := rule.lo, rule.hi, rule.nanOK
		var nr []bool
		if newRem >= 0 {
			nr = m.bools.x[newRem][:m.n]
			m.bools.v[newRem] = nr
		}
		for k := range out {
			r := rem < 0 || m.bools.v[rem][k]
			take := r && (cv < 0 || m.bools.v[cv][k])
			if take {
				x := vals[k]
				if x < lo || x > hi || (x != x && !nanOK) {
					rule.fail(m, pos, k, x)
					return
				}
				out[k] = x
			}
			if nr != nil {
				nr[k] = r && !take
			}
		}
	})
}

// cellRule is what a value must satisfy to be stored in a cell of type
// T: to be within lo..hi (an integer cell's store range; every float) and,
// unless nanOK, not NaN (an integer is never NaN).
type cellRule[T num] struct {
	lo, hi T
	nanOK  bool
	err    func(pos source.Pos, i, j int64, v T) error
}

// refuses reports whether v may not be stored. The batch loops test the
// same thing on the fields copied to local variables, which stay in
// registers.
func (r *cellRule[T]) refuses(v T) bool { return v < r.lo || v > r.hi || (v != v && !r.nanOK) }

// fail reports that lane's value v, of the case value at pos, is refused.
func (r *cellRule[T]) fail(m *Machine, pos source.Pos, lane int, v T) {
	i, j := m.coords(lane)
	m.fail(r.err(pos, i, j, v))
}

// cellRules are the rules of the recurrence's cell type, one per class.
type cellRules struct {
	ints   cellRule[int64]
	floats cellRule[float64]
}

func newCellRules(p *ir.Problem) cellRules {
	t := p.CellType
	lo, hi := storeRange(t)
	return cellRules{
		ints: cellRule[int64]{lo: lo, hi: hi, err: func(pos source.Pos, i, j, v int64) error {
			return cellOverflow(pos, t, siteIn(p, i, j), v)
		}},
		floats: cellRule[float64]{lo: math.Inf(-1), hi: math.Inf(1), nanOK: p.AllowNaN,
			err: func(pos source.Pos, i, j int64, _ float64) error { return nanCell(pos, siteIn(p, i, j)) }},
	}
}

// ruleOf returns r's rule for cells of type T.
func ruleOf[T num](r *Recurrence) *cellRule[T] {
	if rule, ok := any(&r.rules.ints).(*cellRule[T]); ok {
		return rule
	}
	return any(&r.rules.floats).(*cellRule[T])
}

// seqCase compiles a case that reads the line being computed.
func (c *vcomp) seqCase(cs *ir.Case, mask int) {
	sc := &seqCase{mask: mask, pos: cs.Value.Position()}
	if ps := c.parseScan(cs.Value); ps != nil {
		sc.form = c.compileScan(ps, mask)
	} else {
		sc.val = c.laneCompiler(mask).cellValue(toCellType(cs.Value, c.rec.cellT), c.rec.cls)
	}
	c.k.seqs = append(c.k.seqs, sc)
}

// laneCompiler returns a closure compiler for expressions evaluated lane by
// lane in the scan, for the lanes of mask: the parts that do not read the
// line being computed, and cannot fail, are computed for the whole batch
// first and read back by lane; cells of the line being computed at a
// constant lane offset are read from it directly.
func (c *vcomp) laneCompiler(mask int) *scomp {
	s := &scomp{sc: c.sc}
	r := c.rec
	out := int(-r.dLo)
	s.leaf = func(e ir.Expr) any {
		if !c.seq(e) {
			if c.uniform(e) || c.mayFail(e) || c.readsLaneVar(e) {
				return nil
			}
			o := c.expr(e, mask)
			switch o.cls {
			case ir.ClassFloat:
				reg := c.vecF(o)
				return fFn(func(f *frame) float64 { return f.m.floats.v[reg][f.lane] })
			case ir.ClassBool:
				reg := c.vecB(o)
				return bFn(func(f *frame) bool { return f.m.bools.v[reg][f.lane] })
			}
			reg := c.vecI(o)
			return iFn(func(f *frame) int64 { return f.m.ints.v[reg][f.lane] })
		}
		ref, ok := e.(*ir.CellRef)
		if !ok || r.stepOff[ref] != 0 {
			return nil
		}
		_, laneE := r.refIndices(ref)
		b, ok := constOffset(laneE, r.laneVar())
		if !ok {
			return nil
		}
		// read returns the index of the neighbour in the output line, or
		// -1 after an error.
		read := func(f *frame, size int) int64 {
			m := f.m
			x := m.b.Lane0 + int64(f.lane) - b
			if x < 0 || x >= r.laneN {
				i, j := m.b.Step, x
				if r.axis == AlongI {
					i, j = x, m.b.Step
				}
				f.fail(OutsideGrid(ref, i, j, r.p.Rows, r.p.Cols))
				return -1
			}
			l := &m.b.Lines[out]
			at := x - l.Base
			if at < 0 || at >= int64(size) {
				f.fail(errAt(ref.Pos, "internal error: %s outside the executor's window", refText(ref)))
				return -1
			}
			return at
		}
		if r.cls == ir.ClassFloat {
			return outCellFn[float64](out, read)
		}
		return outCellFn[int64](out, read)
	}
	return s
}

// outCellFn reads the cell of the line being computed (line out of the
// batch) at the index read returns, 0 after an error (-1).
func outCellFn[T num](out int, read func(f *frame, size int) int64) func(*frame) T {
	return func(f *frame) T {
		l := cellsOf[T](&f.m.b.Lines[out])
		if at := read(f, len(l)); at >= 0 {
			return l[at]
		}
		return 0
	}
}

// readsLaneVar reports whether e reads the variable of a reduction that
// the closures evaluate lane by lane (so it cannot be computed for the
// batch outside it).
func (c *vcomp) readsLaneVar(e ir.Expr) bool {
	found := false
	ir.Walk(e, func(x ir.Expr) bool {
		if v, ok := x.(*ir.Var); ok {
			if r := c.sc.resolve(v); r != nil && !c.uniRed[r] {
				found = true
			}
		}
		return !found
	})
	return found
}

// parsedScan is a value taken apart into op(X..., terms...).
type parsedScan struct {
	op    int
	xs    []ir.Expr
	terms []scanTerm
	ys    []ir.Expr // the Y of each term, nil when none
}

// parseScan takes v apart into op(X, terms...); nil when v has another
// shape.
func (c *vcomp) parseScan(v ir.Expr) *parsedScan {
	if v.Type() != c.rec.cellT {
		return nil
	}
	ps := &parsedScan{op: -1}
	args := []ir.Expr{v}
	if call, ok := v.(*ir.Call); ok && (call.Fn == ir.FnMin || call.Fn == ir.FnMax) {
		ps.op = vMin
		if call.Fn == ir.FnMax {
			ps.op = vMax
		}
		args = flatten(call, nil)
	}
	for _, a := range args {
		if !c.seq(a) {
			ps.xs = append(ps.xs, a)
			continue
		}
		term, y, ok := c.parseTerm(a)
		if !ok {
			return nil
		}
		ps.terms = append(ps.terms, term)
		ps.ys = append(ps.ys, y)
	}
	if len(ps.terms) == 0 || (ps.op < 0 && len(ps.xs) > 0) {
		return nil
	}
	return ps
}

// compileScan compiles X and the Ys of a parsed scan for the lanes of mask.
func (c *vcomp) compileScan(ps *parsedScan, mask int) *scanForm {
	f := &scanForm{op: ps.op}
	for _, x := range ps.xs {
		o := c.expr(x, mask)
		if !f.hasX {
			f.x, f.hasX = o, true
			continue
		}
		if c.rec.cls == ir.ClassFloat {
			f.x = c.binF(f.op, false, f.x, o)
		} else {
			f.x = c.binI(f.op, f.x, o)
		}
	}
	if f.hasX {
		if c.rec.cls == ir.ClassFloat {
			f.x.reg = c.vecF(f.x)
		} else {
			f.x.reg = c.vecI(f.x)
		}
		f.x.vec = true
	}
	for k, term := range ps.terms {
		if y := ps.ys[k]; y != nil {
			term.y, term.hasY = c.expr(y, mask), true
		}
		f.terms = append(f.terms, term)
	}
	return f
}

// flatten lists the arguments of nested calls of the same min or max.
func flatten(call *ir.Call, out []ir.Expr) []ir.Expr {
	for _, a := range call.Args {
		if in, ok := a.(*ir.Call); ok && in.Fn == call.Fn && in.T == call.T {
			out = flatten(in, out)
			continue
		}
		out = append(out, a)
	}
	return out
}

// parseTerm recognises cell[..][lane-b], cell + Y, Y + cell and cell - Y on
// the line being computed, Y not reading it.
func (c *vcomp) parseTerm(a ir.Expr) (scanTerm, ir.Expr, bool) {
	t := c.rec.cellT
	ref := func(e ir.Expr) (*ir.CellRef, int64, bool) {
		r, ok := e.(*ir.CellRef)
		if !ok || c.rec.stepOff[r] != 0 || r.T != t {
			return nil, 0, false
		}
		_, lane := c.rec.refIndices(r)
		b, ok := constOffset(lane, c.rec.laneVar())
		if !ok {
			return nil, 0, false
		}
		return r, b, true
	}
	if r, b, ok := ref(a); ok {
		return scanTerm{ref: r, b: b, proven: c.f.proven[r]}, nil, true
	}
	bin, ok := a.(*ir.Binary)
	if !ok || bin.T != t || (bin.Op != ir.OpAdd && bin.Op != ir.OpSub) {
		return scanTerm{}, nil, false
	}
	term := scanTerm{sub: bin.Op == ir.OpSub, sat: bin.Saturate, r32: t == ir.Float, pos: bin.Pos}
	if r, b, ok := ref(bin.X); ok && !c.seq(bin.Y) {
		term.ref, term.b, term.proven = r, b, c.f.proven[r]
		return term, bin.Y, true
	}
	if r, b, ok := ref(bin.Y); ok && !c.seq(bin.X) && bin.Op == ir.OpAdd {
		term.ref, term.b, term.proven, term.swap = r, b, c.f.proven[r], true
		return term, bin.X, true
	}
	return scanTerm{}, nil, false
}

// pickFast chooses a generated scan loop when the kernel's only sequential
// case is one integer term one lane back.
func (c *vcomp) pickFast() {
	k, r := c.k, c.rec
	if len(k.seqs) != 1 || k.und != nil {
		return
	}
	sc := k.seqs[0]
	f := sc.form
	if f == nil || len(f.terms) != 1 {
		return
	}
	t := f.terms[0]
	if t.sat || (t.sub && t.hasY && t.y.vec) || (t.b != 1 && !r.desc) || (t.b != -1 && r.desc) {
		return
	}
	opIdx := 2
	switch {
	case f.op == vMax && f.hasX:
		opIdx = 0
	case f.op == vMin && f.hasX:
		opIdx = 1
	case f.hasX:
		return
	}
	yIdx := 0
	switch {
	case !t.hasY:
		yIdx = 2
	case t.y.vec:
		yIdx = 1
	}
	mode := 0 // M
	switch {
	case k.blend != nil:
		mode = 2 // E
	case sc.mask < 0:
		mode = 1 // A
	}
	dirIdx := 0
	if r.desc {
		dirIdx = 1
	}
	if r.cls == ir.ClassFloat {
		loop := fscanLoops[opIdx][yIdx][mode][dirIdx]
		r32, nanOK := r.cellT == ir.Float, r.p.AllowNaN
		run := func(l []float64, s0, n int, xs, ys []float64, y float64, mb []bool, evs []float64, evc float64) int {
			return loop(l, s0, n, xs, ys, y, mb, evs, evc, r32, nanOK)
		}
		bad := func(m *Machine, _ []float64, _, lane int, mb []bool, _ []float64, _ float64) {
			at := sc.pos
			if mode == 2 && mb[lane] {
				at = k.blend.pos
			}
			m.fail(nanCell(at, m.site(lane)))
		}
		k.fast = fastScan(c, opIdx, mode, run, bad)
		return
	}
	loop := scanLoops[opIdx][yIdx][mode][dirIdx]
	if r.cellT == ir.Long {
		loop = lscanLoops[opIdx][yIdx][mode][dirIdx]
	}
	fmax := finiteMax(r.cellT)
	run := func(l []int64, s0, n int, xs, ys []int64, y int64, mb []bool, evs []int64, evc int64) int {
		return loop(l, s0, n, xs, ys, y, mb, evs, evc, fmax)
	}
	// The loop stopped at lane bad before storing it: its neighbour is
	// stored, and the operands are known again.
	bad := func(m *Machine, l []int64, s0, lane int, mb []bool, evs []int64, evc int64) {
		cs := m.site(lane)
		if mode == 2 && mb[lane] {
			m.fail(arithErr(k.blend.addPos, cs, fOverflow, ir.OpAdd, r.cellT, evs[lane], evc))
			return
		}
		prev := l[s0+lane-1]
		if r.desc {
			prev = l[s0+lane+1]
		}
		m.fail(termErr(&t, cs, r.cellT, prev, m.ints.get(t.y, lane)))
	}
	k.fast = fastScan(c, opIdx, mode, run, bad)
}

// fastScan returns the scan of the kernel's single sequential case with
// the generated loop run, which returns the first lane that failed (-1:
// none), and bad, which reports that lane's error. It falls back to the
// slow scan where a neighbour may be outside the grid or the window.
func fastScan[T num](c *vcomp, opIdx, mode int,
	run func(line []T, s0, n int, xs, ys []T, y T, mask []bool, ev []T, evc T) int,
	bad func(m *Machine, line []T, s0, lane int, mask []bool, ev []T, evc T)) scanFn {
	k, r := c.k, c.rec
	sc := k.seqs[0]
	f := sc.form
	t := f.terms[0]
	mask, x, y, hasY, desc, proven, sub := sc.mask, f.x, t.y, t.hasY, r.desc, t.proven, t.sub
	var cv, ev int
	if k.blend != nil {
		cv, ev = k.blend.cv, k.blend.v
	}
	out := int(-r.dLo)
	laneN := r.laneN
	return func(m *Machine) {
		line := &m.b.Lines[out]
		l := cellsOf[T](line)
		n := m.n
		s0 := int(m.b.Lane0 - line.Base)
		if (!desc && s0 < 1) || (desc && s0+n+1 > len(l)) {
			m.slowScan(k) // the neighbour is not in memory: let the checks say why
			return
		}
		b := bankOf[T](m)
		var xs, ys, evs []T
		var yv, evc T
		var mb []bool
		if opIdx < 2 {
			xs = b.v[x.reg]
		}
		if hasY {
			if y.vec {
				ys = b.v[y.reg]
			} else {
				yv = b.s[y.reg]
				if sub {
					yv = -yv
				}
			}
		}
		switch mode {
		case 0:
			mb = m.bools.v[mask]
		case 2:
			mb, evs = m.bools.v[cv], b.v[ev]
			if k.blend.hasC {
				evc = b.s[k.blend.c.reg]
			}
		}
		if !proven && m.edgeInScan(k, mode, mb, desc, laneN) {
			m.slowScan(k)
			return
		}
		if lane := run(l, s0, n, xs, ys, yv, mb, evs, evc); lane >= 0 {
			bad(m, l, s0, lane, mb, evs, evc)
		}
	}
}

// termErr is the overflow error of scan term t: prev + y, prev - y or
// y + prev as written.
func termErr(t *scanTerm, s site, ct ir.Type, prev, y int64) error {
	switch {
	case t.sub:
		return arithErr(t.pos, s, fOverflow, ir.OpSub, ct, prev, y)
	case t.swap:
		return arithErr(t.pos, s, fOverflow, ir.OpAdd, ct, y, prev)
	}
	return arithErr(t.pos, s, fOverflow, ir.OpAdd, ct, prev, y)
}

// edgeInScan reports whether the lane at the grid's edge, the only one
// whose neighbour can be outside the grid, goes through the scan: then the
// slow path runs and says where.
func (m *Machine) edgeInScan(k *Kernel, mode int, mb []bool, desc bool, laneN int64) bool {
	n := m.n
	edge := -1
	if !desc && m.b.Lane0 == 0 {
		edge = 0
	} else if desc && m.b.Lane0+int64(n) == laneN {
		edge = n - 1
	}
	return edge >= 0 && (mode == 1 || (mode == 0 && mb[edge]) || (mode == 2 && !mb[edge]))
}

// scan runs the sequential stage after the batch-wide one.
func (m *Machine) scan(k *Kernel) {
	if k.fast != nil {
		k.fast(m)
		return
	}
	m.slowScan(k)
}

func (m *Machine) slowScan(k *Kernel) {
	n := m.n
	for t := 0; t < n && m.fr.err == nil; t++ {
		lane := t
		if m.rec.desc {
			lane = n - 1 - t
		}
		if bl := k.blend; bl != nil && m.bools.v[bl.cv][lane] {
			if m.rec.cls == ir.ClassFloat {
				blendLane(m, bl, lane, func(a, b float64) (float64, bool) { return roundTo(a+b, m.rec.cellT), true })
			} else {
				blendLane(m, bl, lane, func(a, b int64) (int64, bool) {
					s, ok := addFinite(m.rec.cellT, a, b)
					if !ok {
						m.fail(arithErr(bl.addPos, m.site(lane), fOverflow, ir.OpAdd, m.rec.cellT, a, b))
					}
					return s, ok
				})
			}
			continue
		}
		done := false
		for _, sc := range k.seqs {
			if m.isActive(sc.mask, lane) {
				m.seqLane(sc, lane)
				done = true
				break
			}
		}
		if !done && k.und != nil && m.isActive(k.und.mask, lane) {
			m.undecidedLane(k.und, lane)
		}
	}
}

// blendLane stores the blended case's value on one lane: v, or v + c added
// with add, which returns false after failing.
func blendLane[T num](m *Machine, bl *blendCase, lane int, add func(a, b T) (T, bool)) {
	r := bankOf[T](m)
	v := r.v[bl.v][lane]
	if bl.hasC {
		var ok bool
		if v, ok = add(v, r.s[bl.c.reg]); !ok {
			return
		}
	}
	storeLane(m, lane, v, bl.pos)
}

// storeLane stores one computed cell, checking it by the cell's rule.
func storeLane[T num](m *Machine, lane int, v T, pos source.Pos) {
	if rule := ruleOf[T](m.rec); rule.refuses(v) {
		rule.fail(m, pos, lane, v)
		return
	}
	out[T](m)[lane] = v
}

// laneStore evaluates a case value at a lane (m.at has pointed the frame
// there) and stores it.
type laneStore func(m *Machine, lane int, pos source.Pos)

// storeFn is the laneStore of closure fn.
func storeFn[T num](fn func(*frame) T) laneStore {
	return func(m *Machine, lane int, pos source.Pos) {
		v := fn(&m.fr)
		if m.fr.err == nil {
			storeLane(m, lane, v, pos)
		}
	}
}

// cellValue compiles a value of the cell type, of class cls, into a
// laneStore.
func (c *scomp) cellValue(v ir.Expr, cls class) laneStore {
	if cls == ir.ClassFloat {
		return storeFn(c.floatFn(v))
	}
	return storeFn(c.intFn(v))
}

func (m *Machine) seqLane(sc *seqCase, lane int) {
	if sc.form == nil {
		m.at(lane)
		sc.val(m, lane, sc.pos)
		return
	}
	if m.rec.cls == ir.ClassFloat {
		scanLane(m, sc, lane, m.termF)
	} else {
		scanLane(m, sc, lane, m.termI)
	}
}

// scanLane computes a scan form on one lane: the best of its terms, each
// computed by term (false after an error), and X.
func scanLane[T num](m *Machine, sc *seqCase, lane int, term func(t *scanTerm, l []T, at int64, lane int) (T, bool)) {
	f := sc.form
	r := m.rec
	line := &m.b.Lines[-r.dLo]
	l := cellsOf[T](line)
	x := m.b.Lane0 + int64(lane)
	isMin := f.op == vMin
	var acc T
	for ti, t := range f.terms {
		at, ok := m.neighbour(&t, line, x, len(l))
		if !ok {
			return
		}
		v, ok := term(&t, l, at, lane)
		if !ok {
			return
		}
		if ti == 0 || better(isMin, v, acc) {
			acc = v
		}
	}
	if f.hasX {
		if xv := bankOf[T](m).v[f.x.reg][lane]; !better(isMin, acc, xv) {
			acc = xv
		}
	}
	storeLane(m, lane, acc, sc.pos)
}

// neighbour locates the cell a term reads for lane index x; ok is false
// after an error.
func (m *Machine) neighbour(t *scanTerm, l *Line, x int64, size int) (int64, bool) {
	r := m.rec
	nx := x - t.b
	if nx < 0 || nx >= r.laneN {
		i, j := nx, m.b.Step
		if r.axis == AlongJ {
			i, j = m.b.Step, nx
		}
		m.fail(OutsideGrid(t.ref, i, j, r.p.Rows, r.p.Cols))
		return 0, false
	}
	at := nx - l.Base
	if at < 0 || at >= int64(size) {
		m.fail(errAt(t.ref.Pos, "internal error: %s outside the executor's window", refText(t.ref)))
		return 0, false
	}
	return at, true
}

// termI and termF compute scan term t from the neighbour l[at] on lane.
func (m *Machine) termI(t *scanTerm, l []int64, at int64, lane int) (int64, bool) {
	v := l[at]
	if !t.hasY {
		return v, true
	}
	y := m.ints.get(t.y, lane)
	ct := m.rec.cellT
	a, b, op := v, y, ir.OpAdd
	switch {
	case t.sub:
		op = ir.OpSub
	case t.swap:
		a, b = y, v
	}
	r, f := arithInt(op, ct, t.sat, a, b)
	if f != fNone {
		m.fail(arithErr(t.pos, m.site(lane), f, op, ct, a, b))
		return 0, false
	}
	return r, true
}

func (m *Machine) termF(t *scanTerm, l []float64, at int64, lane int) (float64, bool) {
	v := l[at]
	if !t.hasY {
		return v, true
	}
	y := m.floats.get(t.y, lane)
	if t.sub {
		v -= y
	} else if t.swap {
		v = y + v
	} else {
		v += y
	}
	if t.r32 {
		v = round32(v)
	}
	return v, true
}

// undecidedLane evaluates the cases from und.from on for one lane.
func (m *Machine) undecidedLane(und *undecided, lane int) {
	r := m.rec
	m.at(lane)
	for ci := und.from; ci < len(r.anyCase); ci++ {
		f := r.anyCase[ci]
		if f.cond != nil {
			ok := f.cond(&m.fr)
			if m.fr.err != nil {
				return
			}
			if !ok {
				continue
			}
		}
		f.val(m, lane, r.p.Cases[ci].Value.Position())
		return
	}
}
