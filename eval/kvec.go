package eval

import (
	"math"
	"sync/atomic"

	"github.com/dpgpu/dpgpu/ir"
)

// This file compiles the body of a reduction a second time, into loops
// over a block of values of the reduction's variable k: the batch of a
// CellProgram, whose cells are computed one at a time. In
// `min(k in i..j-1: cell[i][k] + cell[k+1][j] + d[i]*d[k+1]*d[j+1])` the
// reads are a row of the grid (a view, no copy), a column (a strided
// gather) and an input (a view); d[i]*d[j+1] is the same for every k and
// is computed once per reduction (the range analysis proves the products
// finite, so that they may be taken in any order); the additions, the
// multiplication by d[k+1] and the min are one last loop (fusedBest), as
// are the choice and the max of `max(k in 0..j-1: a[k] < a[j] ? cell[k] :
// 0)` (selBest). Other bodies are one generated loop per operation
// (vops.go: unchecked where the range analysis proves an operation finite,
// else with the branch-free finiteness test of the batch kernels) and a
// last one for the min, max or sum.
//
// The vector form never decides an error. Whatever it cannot vouch for (a
// read it cannot prove inside the grid or the input, a checked read not
// proven earlier, an operation that faults on a lane that needs it, a value
// computed once that failed) makes it give up, and the scalar loop computes
// the reduction from its first k, exactly as it would have alone: the same
// value, or the first error in the order of evaluation. Giving up costs
// only time, and happens where a run is about to stop anyway, or where a
// case's condition guards what the loops evaluate on every lane.
//
// What compiles: the reduction variable, constants, inputs and cells at
// indices linear in k (a view or a strided gather, proved inside from the
// two ends of the block) or any indices (a checked gather), + - * / % and
// the comparisons, && || ! and ?: (masks, so that a lane that does not
// need an operand never fails for it), conversions, min, max, abs and the
// math functions. A reduction nested inside that uses k does not: its
// enclosing reduction keeps the scalar loop (and the nested one may be
// vectorised itself).

const (
	// kLanes is a block: the k values that one pass of the loops covers.
	// The registers of a block (2 KiB each) stay in the L1 cache.
	kLanes = 256
	// kMinLanes is the shortest reduction worth the vector form: below it
	// the set-up of a block costs more than the scalar loop.
	kMinLanes = 12
	// kSplitLanes is the shortest min or max reduction that a machine
	// allowed to (CellMachine.Split) spreads over helpers: a goroutine's
	// start and join cost about as much as a thousand lanes.
	kSplitLanes = 8192
)

// kregs counts the registers of the vectorised reductions of a program:
// scalars (int, float) and vectors (int, float, bool). Each reduction has
// registers of its own, so that a reduction computed inside another's
// once-per-reduction values does not overwrite the outer one's.
type kregs struct{ si, sf, vi, vf, vb int }

// kmach is the registers of the vectorised reductions of one machine, and
// the block being computed: k0 .. k0+n-1.
type kmach struct {
	k0     int64
	n      int
	ints   bank[int64]
	floats bank[float64]
	bools  bank[bool] // vectors only: scalar bools are ints, 0 or 1
}

func (m *kmach) grow(r kregs) {
	m.ints.grow(r.si, r.vi, kLanes)
	m.floats.grow(r.sf, r.vf, kLanes)
	m.bools.grow(0, r.vb, kLanes)
}

// kbank returns m's registers of type T.
func kbank[T elem](m *kmach) *bank[T] {
	var z T
	switch any(z).(type) {
	case int64:
		return any(&m.ints).(*bank[T])
	case float64:
		return any(&m.floats).(*bank[T])
	}
	return any(&m.bools).(*bank[T])
}

// active reports whether lane x of mask register r (-1: every lane) is set.
func (m *kmach) active(r, x int) bool { return r < 0 || m.bools.v[r][x] }

// kinstr is one step of a vectorised reduction, over the block of m (or,
// in the prologue, once per reduction). It returns false to give up: the
// scalar loop then computes the reduction.
type kinstr func(m *kmach, f *frame) bool

// kcomp compiles the body of one reduction into kinstrs.
type kcomp struct {
	cc   *cellComp
	red  *ir.Reduce
	slot int
	pro  []kinstr // once per reduction: the values the same for every k
	prog []kinstr // once per block
	ok   bool
}

func (c *kcomp) emit(in kinstr) { c.prog = append(c.prog, in) }

// newKReg allocates a scalar (vec false) or vector register of type T.
func newKReg[T elem](c *kcomp, vec bool) int {
	r := &c.cc.prog.regs
	var n *int
	switch any(*new(T)).(type) {
	case int64:
		n = &r.si
		if vec {
			n = &r.vi
		}
	case float64:
		n = &r.sf
		if vec {
			n = &r.vf
		}
	default:
		n = &r.vb
	}
	*n++
	return *n - 1
}

// usesK reports whether e depends on the reduction variable.
func (c *kcomp) usesK(e ir.Expr) bool {
	found := false
	ir.Walk(e, func(x ir.Expr) bool {
		if v, ok := x.(*ir.Var); ok && v.BoundBy(c.red) {
			found = true
		}
		return !found
	})
	return found
}

// linearK reports whether integer expression e is linear in k with
// coefficients that are the same for every k: built from k and values
// that do not depend on it with + - (no inf), * by such a value, negation
// and integer conversions. Every part of such an expression is monotonic
// in k, so that what holds at both ends of a block holds in between: no
// operation leaves the finite range, no index leaves its bounds.
func (c *kcomp) linearK(e ir.Expr) bool {
	if !c.usesK(e) {
		return classOf(e.Type()) == ir.ClassInt
	}
	switch n := e.(type) {
	case *ir.Var:
		return true
	case *ir.Convert:
		return classOf(n.T) == ir.ClassInt && classOf(n.X.Type()) == ir.ClassInt && c.linearK(n.X)
	case *ir.Unary:
		return n.Op == ir.OpNeg && classOf(n.T) == ir.ClassInt && c.linearK(n.X)
	case *ir.Binary:
		if n.Saturate || classOf(n.T) != ir.ClassInt {
			return false
		}
		switch n.Op {
		case ir.OpAdd, ir.OpSub:
			return c.linearK(n.X) && c.linearK(n.Y)
		case ir.OpMul:
			ux, uy := c.usesK(n.X), c.usesK(n.Y)
			return (!ux && c.linearK(n.Y)) || (!uy && c.linearK(n.X))
		}
	}
	return false
}

// mayFail reports whether the vector form of e may give up on a lane: a
// read (outside its array, or of a checked reference), an integer
// operation not proven within the finite range or on what may be inf, a
// division, a conversion that may not fit. What does not depend on k is
// computed once per reduction, unmasked, and does not count. An operand
// that cannot fail needs no mask: its lanes are computed whether they are
// needed or not.
func (c *kcomp) mayFail(e ir.Expr) bool {
	fail := false
	ir.Walk(e, func(x ir.Expr) bool {
		if fail || !c.usesK(x) {
			return false
		}
		switch n := x.(type) {
		case *ir.Load, *ir.CellRef:
			fail = true
		case *ir.Binary:
			if classOf(n.T) == ir.ClassInt {
				switch n.Op {
				case ir.OpAdd, ir.OpSub, ir.OpMul:
					fail = n.Saturate || !c.cc.prog.facts.safe[n]
				case ir.OpDiv, ir.OpRem:
					fail = true
				}
			}
		case *ir.Convert:
			from := n.X.Type()
			fail = classOf(from) == ir.ClassFloat && classOf(n.T) == ir.ClassInt ||
				classOf(from) == ir.ClassInt && classOf(n.T) == ir.ClassInt && from != n.T && from.HasInf() && n.T.HasInf()
		}
		return !fail
	})
	return fail
}

// under is the mask to compile e with for the lanes of mask where cond is
// set (or, with not, where it is not): -1 when e cannot fail, so that no
// mask needs computing.
func (c *kcomp) under(e ir.Expr, mask, cond int, not bool) int {
	if !c.mayFail(e) {
		return -1
	}
	return c.and(mask, cond, not)
}

// reduce compiles reduction n (the leaf hook of the scalar compiler): its
// scalar loop, and around it the vector form when the body has one.
func (c *cellComp) reduce(n *ir.Reduce) any {
	sc := c.s.sc
	slot, ok := sc.slots[n]
	if !ok {
		return nil
	}
	lo, hi := c.s.intFn(n.Lo), c.s.intFn(n.Hi)
	kc := &kcomp{cc: c, red: n, slot: slot, ok: true}
	sc.push(n)
	defer sc.pop()
	t := n.T
	if classOf(t) == ir.ClassFloat {
		body := c.s.floatFn(n.Body)
		sum := func(_ *frame, acc, v float64) float64 { return roundTo(acc+v, t) }
		r := &kred[float64]{red: n, slot: slot, lo: lo, hi: hi, body: body, sum: sum, id: identityFloat(n.Op)}
		r.vectorise(kc)
		return r.fn()
	}
	body := c.s.intFn(n.Body)
	sum := func(f *frame, acc, v int64) int64 {
		s, fl := sumInt(t, acc, v)
		if fl != fNone {
			f.fail(arithErr(n.Pos, f.site(), fl, ir.OpAdd, t, acc, v))
		}
		return s
	}
	r := &kred[int64]{red: n, slot: slot, lo: lo, hi: hi, body: body, sum: sum, id: identityInt(n.Op, t)}
	r.vectorise(kc)
	return r.fn()
}

// kred is a compiled reduction: the scalar loop, and the vector form
// (vec) when it has one.
type kred[T num] struct {
	red    *ir.Reduce
	slot   int
	lo, hi iFn
	body   func(*frame) T
	sum    func(f *frame, acc, v T) T
	id     T
	vec    bool
	pro    []kinstr
	prog   []kinstr
	out    int          // the vector register of the body's value
	sel    []int        // or the condition and branches of a body c ? a : b
	fused  []int        // or the terms of a fused body t1 + t2 (+ t3)
	lim    int64        // and the bound of its terms (sumLim)
	adds   []*ir.Binary // and its additions, in order
	scaled int          // and the term that is coef * its register (-1: none)
	coef   int          // the scalar register of that term's coefficient
}

func (r *kred[T]) vectorise(kc *kcomp) {
	if !kc.usesK(r.red.Body) {
		return // the same value for every k: nothing to gain
	}
	if r.red.Op != ir.ReduceSum {
		// The common shape t1 + t2 (+ t3) of a min or max (matrix
		// chain, Nussinov, optimal BST): the additions and the min or
		// max are one loop over the terms.
		if terms, adds := addChain(r.red.Body, r.red.T); len(terms) == 2 || len(terms) == 3 {
			regs := make([]int, len(terms))
			r.scaled = -1
			for k, t := range terms {
				if r.scaled < 0 && classOf(r.red.T) == ir.ClassInt {
					// d[i]*d[k+1]*d[j+1]: the coefficient once per
					// reduction, one multiplication per lane in the loop.
					if coef, factor := kc.scaledTerm(t); factor != nil {
						r.scaled, r.coef = k, coef
						regs[k] = kvecN[int64](kc, kc.expr(factor, -1))
						continue
					}
				}
				regs[k] = kfull[T](kc, kc.expr(t, -1))
			}
			if kc.ok {
				r.vec, r.pro, r.prog, r.fused, r.adds = true, kc.pro, kc.prog, regs, adds
				r.lim = sumLim(r.red.T, len(regs))
				kc.cc.prog.vectorised[r.red] = true
			}
			return
		}
	}
	if sel, ok := r.red.Body.(*ir.Select); ok && r.red.Op != ir.ReduceSum {
		// c ? a : b, the other common shape of a min or max (LIS, coin
		// change): the choice and the min or max are one loop.
		cond := kc.kvecB(kc.expr(sel.Cond, -1))
		if !kc.ok {
			return
		}
		a := kfull[T](kc, kc.expr(sel.Then, kc.under(sel.Then, -1, cond, false)))
		b := kfull[T](kc, kc.expr(sel.Else, kc.under(sel.Else, -1, cond, true)))
		if kc.ok {
			r.vec, r.pro, r.prog, r.sel = true, kc.pro, kc.prog, []int{cond, a, b}
			kc.cc.prog.vectorised[r.red] = true
		}
		return
	}
	o := kc.expr(r.red.Body, -1)
	if !kc.ok || !o.vec || o.cls != classOf(r.red.T) {
		return
	}
	r.vec, r.pro, r.prog, r.out = true, kc.pro, kc.prog, o.reg
	kc.cc.prog.vectorised[r.red] = true
}

// fn is the reduction as a closure of its class.
func (r *kred[T]) fn() func(*frame) T {
	if !r.vec {
		return func(f *frame) T {
			a, z := r.lo(f), r.hi(f)
			return r.loop(f, a, z)
		}
	}
	return r.eval
}

// loop is the scalar loop over k = a..z: the body for every k in order,
// the first of equal values for min and max, checked additions for sum.
func (r *kred[T]) loop(f *frame, a, z int64) T {
	acc := r.id
	isMin, isSum := r.red.Op == ir.ReduceMin, r.red.Op == ir.ReduceSum
	for k := a; k <= z && f.err == nil; k++ {
		f.vars[r.slot] = k
		v := r.body(f)
		if isSum {
			acc = r.sum(f, acc, v)
		} else if better(isMin, v, acc) {
			acc = v
		}
		if k == math.MaxInt64 {
			break
		}
	}
	return acc
}

// eval computes the reduction with the vector form, splitting a long min
// or max over the machine's helpers, and with the scalar loop when the
// vector form gives up.
func (r *kred[T]) eval(f *frame) T {
	a, z := r.lo(f), r.hi(f)
	if f.err != nil || z < a {
		return r.id
	}
	n := uint64(z) - uint64(a) + 1
	cm := f.cm
	if cm == nil || n < uint64(cm.prog.minLanes) || n > math.MaxInt64/2 {
		return r.loop(f, a, z)
	}
	if cm.split > 1 && r.red.Op != ir.ReduceSum && n >= uint64(cm.prog.splitLanes) {
		if v, ok := r.split(cm, f, a, z); ok {
			return v
		}
	} else if v, ok := r.blocks(&cm.kv, f, a, z); ok {
		return v
	}
	f.err = nil
	cm.gaveUp++
	return r.loop(f, a, z)
}

// blocks runs the vector form over k = a..z (not empty) on machine m with
// frame f; ok false: it gave up (f.err may hold what made it).
func (r *kred[T]) blocks(m *kmach, f *frame, a, z int64) (T, bool) {
	for _, in := range r.pro {
		if !in(m, f) {
			return r.id, false
		}
	}
	acc := r.id
	isMin := r.red.Op == ir.ReduceMin
	for k0 := a; ; k0 += kLanes {
		m.k0, m.n = k0, int(min(kLanes, z-k0+1))
		for _, in := range r.prog {
			if !in(m, f) {
				return r.id, false
			}
		}
		switch {
		case r.fused != nil:
			var ok bool
			if acc, ok = r.fusedBest(m, acc); !ok {
				return r.id, false
			}
		case r.sel != nil:
			b := kbank[T](m)
			acc = selBest(isMin, acc, m.bools.v[r.sel[0]][:m.n], b.v[r.sel[1]][:m.n], b.v[r.sel[2]][:m.n])
		}
		if r.fused != nil || r.sel != nil {
			if z-k0 < kLanes {
				return acc, true
			}
			continue
		}
		vals := kbank[T](m).v[r.out][:m.n]
		switch r.red.Op {
		case ir.ReduceSum:
			var ok bool
			if acc, ok = r.add(acc, vals); !ok {
				return r.id, false
			}
		default:
			acc = best(isMin, acc, vals)
		}
		if z-k0 < kLanes {
			return acc, true
		}
	}
}

// addChain flattens e into the terms of t1 + t2 + ... of type t, and the
// additions (left to right, as they are evaluated).
func addChain(e ir.Expr, t ir.Type) (terms []ir.Expr, adds []*ir.Binary) {
	b, ok := e.(*ir.Binary)
	if !ok || b.Op != ir.OpAdd || b.T != t {
		return []ir.Expr{e}, nil
	}
	terms, adds = addChain(b.X, t)
	return append(terms, b.Y), append(adds, b)
}

// scaledTerm splits integer term t into coef * factor when t is a product
// whose every multiplication the range analysis proves finite, of factors
// that do not depend on k (their product, the coefficient, is computed
// once per reduction into the scalar register coef) and of one factor
// that does. Multiplication wraps around 2^64 associatively, so that the
// product in any order, wrapped, is the exact value the analysis proves
// finite. factor is nil when t is not such a product.
func (c *kcomp) scaledTerm(t ir.Expr) (coef int, factor ir.Expr) {
	var uni []ir.Expr
	var flatten func(e ir.Expr) bool
	flatten = func(e ir.Expr) bool {
		if cv, ok := e.(*ir.Convert); ok && classOf(cv.T) == ir.ClassInt && classOf(cv.X.Type()) == ir.ClassInt &&
			cv.X.Type().Bits() <= cv.T.Bits() && c.isProduct(cv.X) {
			return flatten(cv.X) // widening a finite product keeps its value
		}
		if c.isProduct(e) {
			b := e.(*ir.Binary)
			return flatten(b.X) && flatten(b.Y)
		}
		if !c.usesK(e) {
			uni = append(uni, e)
			return true
		}
		if factor != nil || classOf(e.Type()) != ir.ClassInt {
			return false
		}
		factor = e
		return true
	}
	if !flatten(t) || factor == nil || len(uni) == 0 {
		return 0, nil
	}
	regs := make([]int, len(uni))
	for k, u := range uni {
		regs[k] = c.boolToInt(c.scalar(u)).reg
	}
	coef = newKReg[int64](c, false)
	c.pro = append(c.pro, func(m *kmach, _ *frame) bool {
		p := int64(1)
		for _, r := range regs {
			p *= m.ints.s[r]
		}
		m.ints.s[coef] = p
		return true
	})
	return coef, factor
}

// isProduct reports whether e is an integer multiplication that the range
// analysis proves finite (whose operands are finite too: it does not
// saturate).
func (c *kcomp) isProduct(e ir.Expr) bool {
	b, ok := e.(*ir.Binary)
	return ok && b.Op == ir.OpMul && classOf(b.T) == ir.ClassInt && !b.Saturate && c.cc.prog.facts.safe[b]
}

// kfull returns a vector register holding o over whole blocks: o's own,
// or for a scalar one filled once per reduction.
func kfull[T num](c *kcomp, o opnd) int {
	if !c.ok || o.vec {
		return o.reg
	}
	d, s := newKReg[T](c, true), o.reg
	c.pro = append(c.pro, func(m *kmach, _ *frame) bool {
		b := kbank[T](m)
		fill(b.x[d], b.s[s])
		b.v[d] = b.x[d]
		return true
	})
	return d
}

// fusedBest folds the values of a fused body over the block into acc.
// The integer loops test that the terms are small enough for no addition
// to leave the finite range; when one is not, the block is computed again
// addition by addition by the rules, which give inf or the fault.
func (r *kred[T]) fusedBest(m *kmach, acc T) (T, bool) {
	isMin := r.red.Op == ir.ReduceMin
	b := kbank[T](m)
	a0, a1 := b.v[r.fused[0]][:m.n], b.v[r.fused[1]][:m.n]
	var a2 []T
	if len(r.fused) == 3 {
		a2 = b.v[r.fused[2]][:m.n]
	}
	switch p := any(&acc).(type) {
	case *float64:
		r32 := r.red.T == ir.Float
		x, y := any(a0).([]float64), any(a1).([]float64)
		if a2 == nil {
			*p = bestSum2F(x, y, r32, isMin, *p)
		} else {
			*p = bestSum3F(x, y, any(a2).([]float64), r32, isMin, *p)
		}
		return acc, true
	case *int64:
		terms := [3][]int64{any(a0).([]int64), any(a1).([]int64)}
		if a2 != nil {
			terms[2] = any(a2).([]int64)
		}
		n := len(r.fused)
		var v int64
		var ok bool
		if r.scaled < 0 {
			if n == 2 {
				v, ok = bestSum2I(terms[0], terms[1], r.lim, isMin, *p)
			} else {
				v, ok = bestSum3I(terms[0], terms[1], terms[2], r.lim, isMin, *p)
			}
		} else {
			// The sum is taken only where no addition can overflow,
			// in any order: the scaled term goes last.
			c := m.ints.s[r.coef]
			terms[r.scaled], terms[n-1] = terms[n-1], terms[r.scaled]
			if n == 2 {
				v, ok = bestSum2IS(terms[0], terms[1], c, r.lim, isMin, *p)
			} else {
				v, ok = bestSum3IS(terms[0], terms[1], terms[2], c, r.lim, isMin, *p)
			}
			terms[r.scaled], terms[n-1] = terms[n-1], terms[r.scaled]
		}
		if ok {
			*p = v
			return acc, true
		}
		// Again by the rules, addition by addition in their order.
		term := func(t, k int) int64 {
			if t == r.scaled {
				return m.ints.s[r.coef] * terms[t][k]
			}
			return terms[t][k]
		}
		for k := range terms[0] {
			s := term(0, k)
			f := fNone
			for t := 1; t < n && f == fNone; t++ {
				s, f = arithInt(ir.OpAdd, r.adds[t-1].T, r.adds[t-1].Saturate, s, term(t, k))
			}
			if f != fNone {
				return acc, false
			}
			if better(isMin, s, *p) {
				*p = s
			}
		}
	}
	return acc, true
}

// The fused loops of integer terms test only the terms: when each of n
// terms is in [-lim, lim), lim a power of two with n*lim <= fmax, every
// partial sum is finite and none wraps around int64, so that every
// addition has its plain value, whether or not it saturates. A term is in
// range when uint64(v+lim) < 2*lim (everything else wraps above), and all
// of them are when the OR of those is: one OR per lane, which does not
// hold up the next lane as a maximum would. A block with a larger term
// (an inf, a value near the end of the range) is computed again by the
// rules. The min or max is kept as a min of t ^ flip (flip 0 for min, -1
// for max: ^t reverses the order without overflow), without a branch.

// sumLim is the lim of n terms of type t.
func sumLim(t ir.Type, n int) int64 {
	lim := int64(1) << 62
	for lim > finiteMax(t)/int64(n) {
		lim >>= 1
	}
	return lim
}

func bestSum2I(x, y []int64, lim int64, isMin bool, acc int64) (int64, bool) {
	y = y[:len(x)]
	flip := int64(0)
	if !isMin {
		flip = -1
	}
	key := acc ^ flip
	var bits uint64
	for k, a := range x {
		b := y[k]
		bits |= uint64(a+lim) | uint64(b+lim)
		key = min(key, (a+b)^flip)
	}
	return key ^ flip, bits < 2*uint64(lim)
}

func bestSum3I(x, y, z []int64, lim int64, isMin bool, acc int64) (int64, bool) {
	y, z = y[:len(x)], z[:len(x)]
	flip := int64(0)
	if !isMin {
		flip = -1
	}
	key := acc ^ flip
	var bits uint64
	for k, a := range x {
		b, c := y[k], z[k]
		bits |= uint64(a+lim) | uint64(b+lim) | uint64(c+lim)
		key = min(key, (a+b+c)^flip)
	}
	return key ^ flip, bits < 2*uint64(lim)
}

// bestSum2IS is bestSum2I of x[k] + c*y[k].
func bestSum2IS(x, y []int64, c, lim int64, isMin bool, acc int64) (int64, bool) {
	y = y[:len(x)]
	flip := int64(0)
	if !isMin {
		flip = -1
	}
	key := acc ^ flip
	var bits uint64
	for k, a := range x {
		b := c * y[k]
		bits |= uint64(a+lim) | uint64(b+lim)
		key = min(key, (a+b)^flip)
	}
	return key ^ flip, bits < 2*uint64(lim)
}

// bestSum3IS is bestSum3I of x[k] + y[k] + c*z[k].
func bestSum3IS(x, y, z []int64, c, lim int64, isMin bool, acc int64) (int64, bool) {
	y, z = y[:len(x)], z[:len(x)]
	flip := int64(0)
	if !isMin {
		flip = -1
	}
	key := acc ^ flip
	var bits uint64
	for k, a := range x {
		b, d := y[k], c*z[k]
		bits |= uint64(a+lim) | uint64(b+lim) | uint64(d+lim)
		key = min(key, (a+b+d)^flip)
	}
	return key ^ flip, bits < 2*uint64(lim)
}

// bestSum2F is the min (isMin) or max of x[k] + y[k] (rounded to float32
// with r32) and acc: the first of equal values, NaN never winning, as the
// scalar loop.
func bestSum2F(x, y []float64, r32, isMin bool, acc float64) float64 {
	y = y[:len(x)]
	for k, a := range x {
		s := a + y[k]
		if r32 {
			s = round32(s)
		}
		if isMin && s < acc || !isMin && s > acc {
			acc = s
		}
	}
	return acc
}

// bestSum3F is bestSum2F of (x[k] + y[k]) + z[k].
func bestSum3F(x, y, z []float64, r32, isMin bool, acc float64) float64 {
	y, z = y[:len(x)], z[:len(x)]
	for k, a := range x {
		s := a + y[k]
		if r32 {
			s = round32(s)
		}
		s += z[k]
		if r32 {
			s = round32(s)
		}
		if isMin && s < acc || !isMin && s > acc {
			acc = s
		}
	}
	return acc
}

// selBest folds cv[k] ? a[k] : b[k] into acc as best does. Both operands
// are loaded before the choice, which then compiles to a conditional move:
// the condition of LIS (a[k] < a[j]) is a coin toss that a branch would
// mispredict on every other lane.
func selBest[T num](isMin bool, acc T, cv []bool, a, b []T) T {
	if x, ok := any(acc).(int64); ok {
		return any(selBestI(isMin, x, cv, any(a).([]int64), any(b).([]int64))).(T)
	}
	a, b = a[:len(cv)], b[:len(cv)]
	for k, c := range cv {
		v, w := a[k], b[k]
		if !c {
			v = w
		}
		if isMin && v < acc || !isMin && v > acc {
			acc = v
		}
	}
	return acc
}

func selBestI(isMin bool, acc int64, cv []bool, a, b []int64) int64 {
	a, b = a[:len(cv)], b[:len(cv)]
	if isMin {
		for k, c := range cv {
			v, w := a[k], b[k]
			if !c {
				v = w
			}
			acc = min(acc, v)
		}
		return acc
	}
	for k, c := range cv {
		v, w := a[k], b[k]
		if !c {
			v = w
		}
		acc = max(acc, v)
	}
	return acc
}

// best folds vals into acc: the first of equal values, as the scalar loop
// keeps (NaN never wins).
func best[T num](isMin bool, acc T, vals []T) T {
	if isMin {
		for _, v := range vals {
			if v < acc {
				acc = v
			}
		}
		return acc
	}
	for _, v := range vals {
		if v > acc {
			acc = v
		}
	}
	return acc
}

// add adds vals to acc in order, as the scalar loop does; false when an
// addition faults (the scalar loop then says where).
func (r *kred[T]) add(acc T, vals []T) (T, bool) {
	switch a := any(&acc).(type) {
	case *float64:
		t := r.red.T
		for _, v := range any(vals).([]float64) {
			*a = roundTo(*a+v, t)
		}
		return acc, true
	case *int64:
		t := r.red.T
		fmax := finiteMax(t)
		s := *a
		for _, v := range any(vals).([]int64) {
			// The fast path only where s + v did not wrap around int64
			// (a long sum may: both operands of one sign, the result of
			// the other) and every value is finite.
			x := s + v
			if (s^x)&(v^x) >= 0 && isFinite(s, fmax) && isFinite(v, fmax) && isFinite(x, fmax) {
				s = x
				continue
			}
			var fl fault
			if s, fl = sumInt(t, s, v); fl != fNone {
				return acc, false
			}
		}
		*a = s
	}
	return acc, true
}

// split runs a min or max reduction over k = a..z in chunks of whole
// blocks that the machine and its helpers take from a counter (cm.run: a
// helper that is not free takes none, and nobody waits for it), and keeps
// the first of equal chunk results in chunk order: the value of the
// sequential loop. ok false: some chunk gave up.
func (r *kred[T]) split(cm *CellMachine, f *frame, a, z int64) (T, bool) {
	n := z - a + 1
	per := max(cm.prog.splitLanes/2, 1)
	if per > kLanes {
		per = (per + kLanes - 1) / kLanes * kLanes
	}
	chunks := (n + per - 1) / per
	type chunk struct {
		v  T
		ok bool
	}
	res := make([]chunk, chunks)
	// The helpers' frames are set before any chunk starts: the caller's
	// moves the reduction variable in f.
	for _, h := range cm.helpers[:cm.split-1] {
		hf := &h.fr
		hf.i, hf.j, hf.err = f.i, f.j, nil
		copy(hf.vars, f.vars)
	}
	var next atomic.Int64
	cm.run(func(w int) {
		m, wf := cm, f
		if w > 0 {
			m = cm.helpers[w-1]
			wf = &m.fr
		}
		for {
			c := next.Add(1) - 1
			if c >= chunks {
				return
			}
			ca := a + c*per
			v, ok := r.blocks(&m.kv, wf, ca, min(ca+per-1, z))
			res[c] = chunk{v, ok && wf.err == nil}
			wf.err = nil
		}
	})
	isMin := r.red.Op == ir.ReduceMin
	acc := r.id
	for _, c := range res {
		if !c.ok {
			return r.id, false
		}
		if better(isMin, c.v, acc) {
			acc = c.v
		}
	}
	return acc, true
}

// ---- the body ----

// scalar compiles e, which does not depend on k, into a register computed
// once per reduction.
func (c *kcomp) scalar(e ir.Expr) opnd {
	s := c.cc.s
	switch cls := classOf(e.Type()); cls {
	case ir.ClassFloat:
		fn, r := s.floatFn(e), newKReg[float64](c, false)
		c.pro = append(c.pro, func(m *kmach, f *frame) bool {
			m.floats.s[r] = fn(f)
			return f.err == nil
		})
		return opnd{cls: cls, reg: r}
	case ir.ClassBool:
		fn, r := s.boolFn(e), newKReg[int64](c, false)
		c.pro = append(c.pro, func(m *kmach, f *frame) bool {
			m.ints.s[r] = b2i(fn(f))
			return f.err == nil
		})
		return opnd{cls: cls, reg: r}
	}
	fn, r := s.intFn(e), newKReg[int64](c, false)
	c.pro = append(c.pro, func(m *kmach, f *frame) bool {
		m.ints.s[r] = fn(f)
		return f.err == nil
	})
	return opnd{cls: ir.ClassInt, reg: r}
}

// expr compiles e for the lanes of mask (-1: every lane): only those lanes
// may make the vector form give up.
func (c *kcomp) expr(e ir.Expr, mask int) opnd {
	if !c.ok {
		return opnd{}
	}
	if !c.usesK(e) {
		return c.scalar(e)
	}
	switch n := e.(type) {
	case *ir.Var:
		d := newKReg[int64](c, true)
		c.emit(func(m *kmach, _ *frame) bool {
			v := m.ints.x[d][:m.n]
			for x := range v {
				v[x] = m.k0 + int64(x)
			}
			m.ints.v[d] = v
			return true
		})
		return vecOf(ir.ClassInt, d)
	case *ir.Load:
		return c.load(n, mask)
	case *ir.CellRef:
		return c.cellRef(n, mask)
	case *ir.Unary:
		return c.unary(n, mask)
	case *ir.Binary:
		return c.binary(n, mask)
	case *ir.Select:
		return c.sel(n, mask)
	case *ir.Convert:
		return c.convert(n, mask)
	case *ir.Call:
		return c.call(n, mask)
	}
	c.ok = false // a nested reduction over k, or a node the loops lack
	return opnd{}
}

// kvecN returns the vector register holding o (a number of type T),
// filling one with o's value when o is a scalar.
func kvecN[T num](c *kcomp, o opnd) int {
	if o.vec {
		return o.reg
	}
	d, s := newKReg[T](c, true), o.reg
	c.emit(func(m *kmach, _ *frame) bool {
		b := kbank[T](m)
		v := b.x[d][:m.n]
		fill(v, b.s[s])
		b.v[d] = v
		return true
	})
	return d
}

// kvecB returns the bool vector register holding o.
func (c *kcomp) kvecB(o opnd) int {
	if o.vec {
		return o.reg
	}
	d, s := newKReg[bool](c, true), o.reg
	c.emit(func(m *kmach, _ *frame) bool {
		v := m.bools.x[d][:m.n]
		fill(v, m.ints.s[s] != 0)
		m.bools.v[d] = v
		return true
	})
	return d
}

// and is the mask of the lanes set in a (-1: all) and in b, or with not
// set, in a and not in b.
func (c *kcomp) and(a, b int, not bool) int {
	if a < 0 && !not {
		return b
	}
	d := newKReg[bool](c, true)
	c.emit(func(m *kmach, _ *frame) bool {
		v, y := m.bools.x[d][:m.n], m.bools.v[b][:m.n]
		for x := range v {
			v[x] = m.active(a, x) && y[x] != not
		}
		m.bools.v[d] = v
		return true
	})
	return d
}

// kmap emits a vector register of D computed lane by lane from operand o
// of S by fn, which returns false for a lane whose operation faults: the
// vector form gives up when that lane is in mask, and the lane holds zero
// otherwise.
func kmap[S, D elem](c *kcomp, o opnd, mask int, fn func(a S) (D, bool)) int {
	d := newKReg[D](c, true)
	c.emit(func(m *kmach, _ *frame) bool {
		out, in := kbank[D](m), kbank[S](m)
		v := out.x[d][:m.n]
		for x := range v {
			r, ok := fn(in.get(o, x))
			if !ok {
				if m.active(mask, x) {
					return false
				}
				var z D
				r = z
			}
			v[x] = r
		}
		out.v[d] = v
		return true
	})
	return d
}

// kmap2 is kmap for an operation of two operands.
func kmap2[S, D elem](c *kcomp, x, y opnd, mask int, fn func(a, b S) (D, bool)) int {
	d := newKReg[D](c, true)
	c.emit(func(m *kmach, _ *frame) bool {
		out, in := kbank[D](m), kbank[S](m)
		v := out.x[d][:m.n]
		for k := range v {
			r, ok := fn(in.get(x, k), in.get(y, k))
			if !ok {
				if m.active(mask, k) {
					return false
				}
				var z D
				r = z
			}
			v[k] = r
		}
		out.v[d] = v
		return true
	})
	return d
}

// kloop emits a generated loop of l over the operand forms of x and y
// (one of them a vector). When a checked loop reports a lane outside the
// finite range, bad decides, with the lanes of v computed, whether to go
// on: it may look again at the lanes of the mask, and correct v.
func kloop[S num, D elem](c *kcomp, l loops[S, D], x, y opnd, bad func(m *kmach, v []D) bool) int {
	d := newKReg[D](c, true)
	if !x.vec && !y.vec {
		y = vecOf(y.cls, kvecN[S](c, y))
	}
	c.emit(func(m *kmach, _ *frame) bool {
		out, in := kbank[D](m), kbank[S](m)
		v := out.x[d][:m.n]
		var failed bool
		switch {
		case x.vec && y.vec:
			failed = l.vv(v, in.v[x.reg][:m.n], in.v[y.reg][:m.n])
		case x.vec:
			failed = l.vs(v, in.v[x.reg][:m.n], in.s[y.reg])
		default:
			failed = l.sv(v, in.s[x.reg], in.v[y.reg][:m.n])
		}
		out.v[d] = v
		return !failed || bad(m, v)
	})
	return d
}

func (c *kcomp) unary(n *ir.Unary, mask int) opnd {
	x := c.expr(n.X, mask)
	switch {
	case n.Op == ir.OpNot:
		b := c.kvecB(x)
		return vecOf(ir.ClassBool, kmap(c, vecOf(ir.ClassBool, b), -1, func(a bool) (bool, bool) { return !a, true }))
	case classOf(n.T) == ir.ClassFloat:
		return vecOf(ir.ClassFloat, kmap(c, x, -1, func(a float64) (float64, bool) { return -a, true }))
	}
	// The finite range is symmetric and -inf is -(inf): no check.
	return vecOf(ir.ClassInt, kmap(c, x, -1, func(a int64) (int64, bool) { return -a, true }))
}

func (c *kcomp) binary(n *ir.Binary, mask int) opnd {
	switch n.Op {
	case ir.OpAnd, ir.OpOr:
		return c.logic(n, mask)
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		return c.compare(n, mask)
	}
	x, y := c.expr(n.X, mask), c.expr(n.Y, mask)
	if !c.ok {
		return opnd{}
	}
	op := vopOf(n.Op)
	if classOf(n.T) == ir.ClassFloat {
		if op < 0 || op > vDiv {
			t := n.T
			return vecOf(ir.ClassFloat, kmap2(c, x, y, -1, func(a, b float64) (float64, bool) {
				return roundTo(math.Mod(a, b), t), true
			}))
		}
		l := plainLoops(fBinVV[op], fBinVS[op], fBinSV[op])
		if n.T == ir.Float {
			l = plainLoops(fBin32VV[op], fBin32VS[op], fBin32SV[op])
		}
		return vecOf(ir.ClassFloat, kloop(c, l, x, y, nil))
	}
	t, sat, iop := n.T, n.Saturate, n.Op
	if !sat && (op == vAdd || op == vSub || op == vMul) && c.cc.prog.facts.safe[n] {
		return vecOf(ir.ClassInt, kloop(c, plainLoops(iBinVV[op], iBinVS[op], iBinSV[op]), x, y, nil))
	}
	if op == vAdd || op == vSub || op == vMul && !sat {
		// The branch-free loops test that every result is finite (and,
		// where an operand may be inf, that no operand is): a lane that
		// fails is looked at again with the rules of section 6.1, which
		// give its value (inf + x) or its fault.
		fmax := finiteMax(t)
		vv, vs, sv := cBin32VV[op], cBin32VS[op], cBin32SV[op]
		switch {
		case sat:
			vv, vs, sv = satVV[op], satVS[op], satSV[op]
		case t == ir.Long:
			vv, vs, sv = cBin64VV[op], cBin64VS[op], cBin64SV[op]
		}
		l := loops[int64, int64]{
			vv: func(d, x, y []int64) bool { return vv(d, x, y, fmax) },
			vs: func(d, x []int64, b int64) bool { return vs(d, x, b, fmax) },
			sv: func(d []int64, a int64, y []int64) bool { return sv(d, a, y, fmax) },
		}
		bad := func(m *kmach, v []int64) bool {
			for k := range v {
				r, f := arithInt(iop, t, sat, m.ints.get(x, k), m.ints.get(y, k))
				if f != fNone && m.active(mask, k) {
					return false
				}
				v[k] = r
			}
			return true
		}
		return vecOf(ir.ClassInt, kloop(c, l, x, y, bad))
	}
	return vecOf(ir.ClassInt, kmap2(c, x, y, mask, func(a, b int64) (int64, bool) {
		v, f := arithInt(iop, t, sat, a, b)
		return v, f == fNone
	}))
}

// The loops of + and - on operands that may be inf: they compute a + b (a
// - b) and report a lane where an operand is not finite (it may be inf) or
// the result is not (it overflowed), which the caller computes again by
// the rules. |x| > fmax is tested as fmax - |x| < 0, where |MinInt64|
// wraps to a negative number and fails the test too.
func satAddVV(d, x, y []int64, fmax int64) bool {
	y, d = y[:len(x)], d[:len(x)]
	var bad int64
	for k, a := range x {
		b := y[k]
		s := a + b
		ma, mb, ms := a>>63, b>>63, s>>63
		bad |= (a^s)&(b^s) | (fmax - ((a ^ ma) - ma)) | (fmax - ((b ^ mb) - mb)) | (fmax - ((s ^ ms) - ms))
		d[k] = s
	}
	return bad < 0
}

func satAddVS(d, x []int64, b, fmax int64) bool {
	d = d[:len(x)]
	mb := b >> 63
	bad := fmax - ((b ^ mb) - mb)
	for k, a := range x {
		s := a + b
		ma, ms := a>>63, s>>63
		bad |= (a^s)&(b^s) | (fmax - ((a ^ ma) - ma)) | (fmax - ((s ^ ms) - ms))
		d[k] = s
	}
	return bad < 0
}

func satAddSV(d []int64, a int64, y []int64, fmax int64) bool { return satAddVS(d, y, a, fmax) }

func satSubVV(d, x, y []int64, fmax int64) bool {
	y, d = y[:len(x)], d[:len(x)]
	var bad int64
	for k, a := range x {
		b := y[k]
		s := a - b
		ma, mb, ms := a>>63, b>>63, s>>63
		bad |= (a^b)&(a^s) | (fmax - ((a ^ ma) - ma)) | (fmax - ((b ^ mb) - mb)) | (fmax - ((s ^ ms) - ms))
		d[k] = s
	}
	return bad < 0
}

func satSubVS(d, x []int64, b, fmax int64) bool {
	d = d[:len(x)]
	mb := b >> 63
	bad := fmax - ((b ^ mb) - mb)
	for k, a := range x {
		s := a - b
		ma, ms := a>>63, s>>63
		bad |= (a^b)&(a^s) | (fmax - ((a ^ ma) - ma)) | (fmax - ((s ^ ms) - ms))
		d[k] = s
	}
	return bad < 0
}

func satSubSV(d []int64, a int64, y []int64, fmax int64) bool {
	d = d[:len(y)]
	ma := a >> 63
	bad := fmax - ((a ^ ma) - ma)
	for k, b := range y {
		s := a - b
		mb, ms := b>>63, s>>63
		bad |= (a^b)&(a^s) | (fmax - ((b ^ mb) - mb)) | (fmax - ((s ^ ms) - ms))
		d[k] = s
	}
	return bad < 0
}

// satVV, satVS and satSV are the loops above by operation code (vAdd,
// vSub), in the shape of the generated tables.
var (
	satVV = [...]cBinVVFunc{vAdd: satAddVV, vSub: satSubVV}
	satVS = [...]cBinVSFunc{vAdd: satAddVS, vSub: satSubVS}
	satSV = [...]cBinSVFunc{vAdd: satAddSV, vSub: satSubSV}
)

func (c *kcomp) compare(n *ir.Binary, mask int) opnd {
	x, y := c.expr(n.X, mask), c.expr(n.Y, mask)
	if !c.ok {
		return opnd{}
	}
	op := vopOf(n.Op)
	if x.cls == ir.ClassFloat || y.cls == ir.ClassFloat {
		l := plainLoops(fCmpVV[op], fCmpVS[op], fCmpSV[op])
		return vecOf(ir.ClassBool, kloop(c, l, c.asFloat(x), c.asFloat(y), nil))
	}
	x, y = c.boolToInt(x), c.boolToInt(y)
	return vecOf(ir.ClassBool, kloop(c, plainLoops(iCmpVV[op], iCmpVS[op], iCmpSV[op]), x, y, nil))
}

// asFloat reads an integer operand as float64 (unconverted, as
// ir.Value.Float64 does).
func (c *kcomp) asFloat(o opnd) opnd {
	o = c.boolToInt(o)
	if o.cls == ir.ClassFloat {
		return o
	}
	if !o.vec {
		d, s := newKReg[float64](c, false), o.reg
		c.pro = append(c.pro, func(m *kmach, _ *frame) bool {
			m.floats.s[d] = float64(m.ints.s[s])
			return true
		})
		return opnd{cls: ir.ClassFloat, reg: d}
	}
	return vecOf(ir.ClassFloat, kmap(c, o, -1, func(a int64) (float64, bool) { return float64(a), true }))
}

// boolToInt reads a bool operand as 0 or 1.
func (c *kcomp) boolToInt(o opnd) opnd {
	if o.cls != ir.ClassBool {
		return o
	}
	if !o.vec {
		return opnd{cls: ir.ClassInt, reg: o.reg} // scalar bools are 0 or 1 already
	}
	return vecOf(ir.ClassInt, kmap(c, o, -1, func(a bool) (int64, bool) { return b2i(a), true }))
}

func (c *kcomp) logic(n *ir.Binary, mask int) opnd {
	isAnd := n.Op == ir.OpAnd
	x := c.kvecB(c.expr(n.X, mask))
	if !c.ok {
		return opnd{}
	}
	// The right operand is evaluated only where the left one does not
	// decide: && where it is true, || where it is false.
	y := c.kvecB(c.expr(n.Y, c.under(n.Y, mask, x, !isAnd)))
	d := newKReg[bool](c, true)
	c.emit(func(m *kmach, _ *frame) bool {
		v, a, b := m.bools.x[d][:m.n], m.bools.v[x][:m.n], m.bools.v[y][:m.n]
		for k := range v {
			if isAnd {
				v[k] = a[k] && b[k]
			} else {
				v[k] = a[k] || b[k]
			}
		}
		m.bools.v[d] = v
		return true
	})
	return vecOf(ir.ClassBool, d)
}

func (c *kcomp) sel(n *ir.Select, mask int) opnd {
	cond := c.kvecB(c.expr(n.Cond, mask))
	if !c.ok {
		return opnd{}
	}
	a := c.expr(n.Then, c.under(n.Then, mask, cond, false))
	b := c.expr(n.Else, c.under(n.Else, mask, cond, true))
	if !c.ok {
		return opnd{}
	}
	switch classOf(n.T) {
	case ir.ClassFloat:
		return vecOf(ir.ClassFloat, kblend[float64](c, cond, a, b))
	case ir.ClassBool:
		a, b = vecOf(ir.ClassBool, c.kvecB(a)), vecOf(ir.ClassBool, c.kvecB(b))
		return vecOf(ir.ClassBool, kblend[bool](c, cond, a, b))
	}
	return vecOf(ir.ClassInt, kblend[int64](c, cond, a, b))
}

// kblend is cond ? a : b lane by lane, a loop per form of the operands.
func kblend[T elem](c *kcomp, cond int, a, b opnd) int {
	d := newKReg[T](c, true)
	c.emit(func(m *kmach, _ *frame) bool {
		bk := kbank[T](m)
		v, cv := bk.x[d][:m.n], m.bools.v[cond][:m.n]
		switch {
		case a.vec && b.vec:
			blend(v, cv, bk.v[a.reg][:m.n], bk.v[b.reg][:m.n])
		case a.vec:
			blendVS(v, cv, bk.v[a.reg][:m.n], bk.s[b.reg])
		case b.vec:
			blendSV(v, cv, bk.s[a.reg], bk.v[b.reg][:m.n])
		default:
			x, y := bk.s[a.reg], bk.s[b.reg]
			for k, c := range cv {
				v[k] = y
				if c {
					v[k] = x
				}
			}
		}
		bk.v[d] = v
		return true
	})
	return d
}

func blend[T elem](v []T, cv []bool, a, b []T) {
	a, b = a[:len(v)], b[:len(v)]
	for k, c := range cv[:len(v)] {
		x := b[k]
		if c {
			x = a[k]
		}
		v[k] = x
	}
}

func blendVS[T elem](v []T, cv []bool, a []T, y T) {
	a = a[:len(v)]
	for k, c := range cv[:len(v)] {
		x := y
		if c {
			x = a[k]
		}
		v[k] = x
	}
}

func blendSV[T elem](v []T, cv []bool, x T, b []T) {
	b = b[:len(v)]
	for k, c := range cv[:len(v)] {
		y := b[k]
		if c {
			y = x
		}
		v[k] = y
	}
}

// convert follows the scalar closures' conversions (scalar.go) lane by
// lane.
func (c *kcomp) convert(n *ir.Convert, mask int) opnd {
	x := c.expr(n.X, mask)
	if !c.ok {
		return opnd{}
	}
	from, t := n.X.Type(), n.T
	switch classOf(t) {
	case ir.ClassBool:
		switch x.cls {
		case ir.ClassInt:
			return vecOf(ir.ClassBool, kmap(c, x, -1, func(a int64) (bool, bool) { return a != 0, true }))
		case ir.ClassFloat:
			return vecOf(ir.ClassBool, kmap(c, x, -1, func(a float64) (bool, bool) { return a != 0, true }))
		}
		return x
	case ir.ClassFloat:
		switch x.cls {
		case ir.ClassBool:
			return vecOf(ir.ClassFloat, kmap(c, x, -1, func(a bool) (float64, bool) { return float64(b2i(a)), true }))
		case ir.ClassInt:
			return vecOf(ir.ClassFloat, kmap(c, x, -1, func(a int64) (float64, bool) { return intToFloat(a, from, t), true }))
		}
		if t == ir.Float && from != ir.Float {
			return vecOf(ir.ClassFloat, kmap(c, x, -1, func(a float64) (float64, bool) { return round32(a), true }))
		}
		return x
	}
	switch x.cls {
	case ir.ClassBool:
		return c.boolToInt(x)
	case ir.ClassFloat:
		return vecOf(ir.ClassInt, kmap(c, x, mask, func(a float64) (int64, bool) {
			v, fl := floatToInt(a, t)
			return v, fl == fNone
		}))
	}
	if from == t || !(from.HasInf() && t.HasInf()) {
		return x
	}
	return vecOf(ir.ClassInt, kmap(c, x, mask, func(a int64) (int64, bool) {
		v, fl := convInt(a, from, t)
		return v, fl == fNone
	}))
}

func (c *kcomp) call(n *ir.Call, mask int) opnd {
	args := make([]opnd, len(n.Args))
	for k, a := range n.Args {
		args[k] = c.expr(a, mask)
	}
	if !c.ok || len(args) == 0 {
		c.ok = false
		return opnd{}
	}
	t := n.T
	isF := classOf(t) == ir.ClassFloat
	switch n.Fn {
	case ir.FnMin, ir.FnMax:
		isMin := n.Fn == ir.FnMin
		if isF {
			return vecOf(ir.ClassFloat, kminmax[float64](c, isMin, args))
		}
		return vecOf(ir.ClassInt, kminmax[int64](c, isMin, args))
	case ir.FnAbs:
		if !isF {
			return vecOf(ir.ClassInt, kmap(c, args[0], -1, func(a int64) (int64, bool) {
				if a < 0 {
					return -a, true
				}
				return a, true
			}))
		}
	case ir.FnPow:
		if len(args) != 2 {
			c.ok = false
			return opnd{}
		}
		return vecOf(ir.ClassFloat, kmap2(c, args[0], args[1], -1, func(a, b float64) (float64, bool) {
			return roundTo(math.Pow(a, b), t), true
		}))
	}
	fn := mathFn(n.Fn)
	if fn == nil || len(args) != 1 || !isF {
		c.ok = false
		return opnd{}
	}
	return vecOf(ir.ClassFloat, kmap(c, args[0], -1, func(a float64) (float64, bool) { return roundTo(fn(a), t), true }))
}

// kminmax is min or max of args lane by lane: the first of equal values.
func kminmax[T num](c *kcomp, isMin bool, args []opnd) int {
	d := newKReg[T](c, true)
	c.emit(func(m *kmach, _ *frame) bool {
		b := kbank[T](m)
		v := b.x[d][:m.n]
		for k := range v {
			r := b.get(args[0], k)
			for _, a := range args[1:] {
				if x := b.get(a, k); better(isMin, x, r) {
					r = x
				}
			}
			v[k] = r
		}
		b.v[d] = v
		return true
	})
	return d
}

// ---- reads ----

// kreadSpec is a read of a two-dimensional array (a grid, an input) at
// row I (nil: row 0) and column J.
type kreadSpec struct {
	i, j       ir.Expr
	rows, cols int64
	front      bool // the cell read must be on an earlier front
}

func (c *kcomp) load(n *ir.Load, mask int) opnd {
	in := n.In
	s := kreadSpec{j: n.Index[0], rows: 1, cols: int64(len(in.I))}
	if in.T.IsFloat() {
		s.cols = int64(len(in.F))
	}
	if len(n.Index) == 2 {
		s = kreadSpec{i: n.Index[0], j: n.Index[1], rows: int64(in.Rows), cols: int64(in.Cols)}
	}
	if in.T.IsFloat() {
		return vecOf(ir.ClassFloat, kread[float64, float64](c, s, in.F, nil, mask))
	}
	return vecOf(ir.ClassInt, kread[int64, int64](c, s, in.I, nil, mask))
}

func (c *kcomp) cellRef(n *ir.CellRef, mask int) opnd {
	p := c.cc.prog
	s := kreadSpec{i: n.I, j: n.J, rows: p.rows, cols: p.cols, front: p.checked[n]}
	switch d := p.data.(type) {
	case []float64:
		return vecOf(ir.ClassFloat, kread[float64, float64](c, s, d, transposed(p, d), mask))
	case []float32:
		return vecOf(ir.ClassFloat, kread[float32, float64](c, s, d, transposed(p, d), mask))
	case []int64:
		return vecOf(ir.ClassInt, kread[int64, int64](c, s, d, transposed(p, d), mask))
	case []int32:
		return vecOf(ir.ClassInt, kread[int32, int64](c, s, d, transposed(p, d), mask))
	case []int16:
		return vecOf(ir.ClassInt, kread[int16, int64](c, s, d, transposed(p, d), mask))
	}
	c.ok = false
	return opnd{}
}

// kread emits the read of data (row-major, s.rows x s.cols elements of S)
// over the block into a vector register of T. Indices linear in k are read
// from the two ends of the block: when both ends are inside (and, for a
// checked reference, on earlier fronts), so is every lane, and the lanes
// are a view of data (consecutive elements of the register's type) or a
// strided gather. Other indices are computed lane by lane and checked on
// every lane. dataT, when not nil, is data transposed (s.cols x s.rows):
// a walk down a column reads it instead, in consecutive elements.
func kread[S store, T num](c *kcomp, s kreadSpec, data, dataT []S, mask int) int {
	d := newKReg[T](c, true)
	rows, cols, front := s.rows, s.cols, s.front
	h := c.cc.prog.h
	zero := &ir.Const{Node: ir.Node{T: ir.Int}}
	if s.i == nil {
		s.i = zero
	}
	if c.linearK(s.i) && c.linearK(s.j) {
		fi, fj := c.cc.s.intFn(s.i), c.cc.s.intFn(s.j)
		slot := c.slot
		c.emit(func(m *kmach, f *frame) bool {
			last := m.k0 + int64(m.n) - 1
			f.vars[slot] = m.k0
			i0, j0 := fi(f), fj(f)
			f.vars[slot] = last
			i1, j1 := fi(f), fj(f)
			if f.err != nil {
				return false
			}
			var di, dj int64
			if m.n > 1 {
				step := int64(m.n - 1)
				if (i1-i0)%step != 0 || (j1-j0)%step != 0 {
					return false
				}
				di, dj = (i1-i0)/step, (j1-j0)/step
			}
			b := kbank[T](m)
			inside := uint64(i0) < uint64(rows) && uint64(i1) < uint64(rows) &&
				uint64(j0) < uint64(cols) && uint64(j1) < uint64(cols)
			var tc int64
			if front {
				tc = h.T(f.i, f.j)
				inside = inside && h.T(i0, j0) < tc && h.T(i1, j1) < tc
			}
			if inside {
				src, at, stride := data, i0*cols+j0, di*cols+dj
				if dataT != nil && dj == 0 && di != 0 {
					src, at, stride = dataT, j0*rows+i0, di
				}
				if stride == 1 {
					if view, ok := any(src[at : at+int64(m.n)]).([]T); ok {
						b.v[d] = view
						return true
					}
				}
				v := b.x[d][:m.n]
				for x := range v {
					v[x] = T(src[at])
					at += stride
				}
				b.v[d] = v
				return true
			}
			v := b.x[d][:m.n]
			for x := range v {
				i, j := i0+int64(x)*di, j0+int64(x)*dj
				if uint64(i) >= uint64(rows) || uint64(j) >= uint64(cols) || front && h.T(i, j) >= tc {
					if m.active(mask, x) {
						return false
					}
					v[x] = 0
					continue
				}
				v[x] = T(data[i*cols+j])
			}
			b.v[d] = v
			return true
		})
		return d
	}
	oi, oj := c.boolToInt(c.expr(s.i, mask)), c.boolToInt(c.expr(s.j, mask))
	if !c.ok {
		return d
	}
	c.emit(func(m *kmach, f *frame) bool {
		b := kbank[T](m)
		v := b.x[d][:m.n]
		var tc int64
		if front {
			tc = h.T(f.i, f.j)
		}
		for x := range v {
			i, j := m.ints.get(oi, x), m.ints.get(oj, x)
			if uint64(i) >= uint64(rows) || uint64(j) >= uint64(cols) || front && h.T(i, j) >= tc {
				if m.active(mask, x) {
					return false
				}
				v[x] = 0
				continue
			}
			v[x] = T(data[i*cols+j])
		}
		b.v[d] = v
		return true
	})
	return d
}
