package eval

import (
	"math"

	"github.com/dpgpu/dpgpu/ir"
)

// This file compiles the recurrence, for one set of facts, into a kernel:
// a list of batch-wide operations. Expressions that are the same for every
// lane of a batch (they do not involve the lane index) become scalar
// closures evaluated once per batch. Inputs and cells read at the lane
// index plus something uniform are views (slices, no copy). Everything else
// is one generated loop per node.
//
// Short-circuit evaluation is kept with masks: an operation that could fail
// (a read not proven inside, an integer division, an integer operation not
// proven finite) reports only for the lanes whose mask is set, and the
// masks of `&&`, `||`, `?:` and the cases narrow as the contract says.
// Operations that cannot fail run on every lane, which is harmless: their
// results on lanes that do not need them are never used. Checked integer
// operations also run on every lane, branch-free, and only when some lane
// failed look again, lane by lane, for the first one of the mask.

// opnd is where a compiled value is: a scalar register (the same for every
// lane) or a vector register.
type opnd struct {
	cls class
	vec bool
	reg int
}

type vcomp struct {
	rec    *Recurrence
	k      *Kernel
	f      *facts
	sc     *scope
	s      *scomp
	out    *[]instr
	uniRed map[*ir.Reduce]bool // reductions compiled as batch loops
	err    error
}

func (r *Recurrence) compileKernel(f *facts) (*Kernel, error) {
	k := &Kernel{rec: r}
	sc := &scope{slots: r.slots}
	c := &vcomp{rec: r, k: k, f: f, sc: sc, s: &scomp{sc: sc}, out: &k.prog, uniRed: map[*ir.Reduce]bool{}}
	c.cases()
	c.pickFast()
	if c.err == nil {
		c.err = c.s.err
	}
	return k, c.err
}

func (c *vcomp) bad(e ir.Expr, what string) {
	if c.err == nil {
		c.err = errAt(e.Position(), "internal error: %s", what)
	}
}

func (c *vcomp) emit(in instr) { *c.out = append(*c.out, in) }

func (c *vcomp) newSI() int { c.k.nSI++; return c.k.nSI - 1 }
func (c *vcomp) newSF() int { c.k.nSF++; return c.k.nSF - 1 }
func (c *vcomp) newVI() int { c.k.nVI++; return c.k.nVI - 1 }
func (c *vcomp) newVF() int { c.k.nVF++; return c.k.nVF - 1 }
func (c *vcomp) newVB() int { c.k.nVB++; return c.k.nVB - 1 }

// uniform reports whether e has one value for every lane of a batch.
func (c *vcomp) uniform(e ir.Expr) bool {
	switch n := e.(type) {
	case nil:
		return true
	case *ir.Var:
		if r := c.sc.resolve(n); r != nil {
			return c.uniRed[r]
		}
		return n.Kind != c.rec.laneVar()
	case *ir.Reduce:
		if !c.uniform(n.Lo) || !c.uniform(n.Hi) {
			return false
		}
		was := c.uniRed[n]
		c.uniRed[n] = true
		c.sc.push(n)
		u := c.uniform(n.Body)
		c.sc.pop()
		c.uniRed[n] = was
		return u
	case *ir.Load:
		for _, x := range n.Index {
			if !c.uniform(x) {
				return false
			}
		}
		return true
	case *ir.CellRef:
		return c.uniform(n.I) && c.uniform(n.J)
	case *ir.Unary:
		return c.uniform(n.X)
	case *ir.Binary:
		return c.uniform(n.X) && c.uniform(n.Y)
	case *ir.Select:
		return c.uniform(n.Cond) && c.uniform(n.Then) && c.uniform(n.Else)
	case *ir.Convert:
		return c.uniform(n.X)
	case *ir.Call:
		for _, x := range n.Args {
			if !c.uniform(x) {
				return false
			}
		}
	}
	return true
}

// seq reports whether e reads the line being computed.
func (c *vcomp) seq(e ir.Expr) bool {
	found := false
	ir.Walk(e, func(x ir.Expr) bool {
		if ref, ok := x.(*ir.CellRef); ok && c.rec.stepOff[ref] == 0 {
			found = true
		}
		return !found
	})
	return found
}

// mayFail reports whether evaluating e on a lane that does not need it
// could fail: a read not proven inside, an integer division by what may be
// zero, an integer operation not proven finite or on what may be inf, a
// conversion of what may be NaN or out of range.
func (c *vcomp) mayFail(e ir.Expr) bool {
	fail := false
	ir.Walk(e, func(x ir.Expr) bool {
		switch n := x.(type) {
		case *ir.Load, *ir.CellRef:
			if !c.f.proven[n] {
				fail = true
			}
		case *ir.Binary:
			if classOf(n.T) != clInt {
				break
			}
			switch n.Op {
			case ir.OpDiv, ir.OpRem:
				fail = fail || n.Saturate || !c.f.proven[n]
			case ir.OpAdd, ir.OpSub, ir.OpMul:
				fail = fail || n.Saturate || !c.f.safe[n]
			}
		case *ir.Convert:
			from := n.X.Type()
			switch {
			case classOf(from) == clFloat && classOf(n.T) != clFloat:
				fail = true
			case classOf(from) == clInt && hasSentinel(from) && hasSentinel(n.T) && finiteMax(n.T) < finiteMax(from):
				fail = true // a narrowing conversion: long to int, int to short
			}
		case *ir.Reduce:
			if n.Op == ir.ReduceSum && classOf(n.T) == clInt && !c.f.safe[n] {
				fail = true
			}
		}
		return !fail
	})
	return fail
}

// laneCoef returns how e grows with the lane index when it is that index
// times a constant plus something uniform.
func (c *vcomp) laneCoef(e ir.Expr) (int64, bool) {
	if c.uniform(e) {
		return 0, true
	}
	switch n := e.(type) {
	case *ir.Var:
		if c.sc.resolve(n) == nil && n.Kind == c.rec.laneVar() {
			return 1, true
		}
	case *ir.Convert:
		if classOf(n.T) == clInt && classOf(n.X.Type()) == clInt {
			return c.laneCoef(n.X)
		}
	case *ir.Unary:
		if n.Op == ir.OpNeg {
			k, ok := c.laneCoef(n.X)
			return -k, ok
		}
	case *ir.Binary:
		if n.Saturate {
			return 0, false
		}
		a, ok1 := c.laneCoef(n.X)
		b, ok2 := c.laneCoef(n.Y)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch n.Op {
		case ir.OpAdd:
			return a + b, true
		case ir.OpSub:
			return a - b, true
		case ir.OpMul:
			if k, ok := constInt(n.X); ok && a == 0 {
				return k * b, true
			}
			if k, ok := constInt(n.Y); ok && b == 0 {
				return a * k, true
			}
		}
	}
	return 0, false
}

func constInt(e ir.Expr) (int64, bool) {
	switch n := e.(type) {
	case *ir.Const:
		if classOf(n.T) == clInt {
			return constValue(n).I, true
		}
	case *ir.ScalarRef:
		if !n.Scalar.Value.T.IsFloat() {
			return n.Scalar.Value.I, true
		}
	}
	return 0, false
}

// ---- operands ----

func (c *vcomp) vecI(o opnd) int {
	if o.vec {
		return o.reg
	}
	d, s := c.newVI(), o.reg
	c.emit(func(m *Machine) {
		v := m.xi[d][:m.n]
		fill(v, m.si[s])
		m.vi[d] = v
	})
	return d
}

func (c *vcomp) vecF(o opnd) int {
	if o.vec {
		return o.reg
	}
	d, s := c.newVF(), o.reg
	c.emit(func(m *Machine) {
		v := m.xf[d][:m.n]
		fill(v, m.sf[s])
		m.vf[d] = v
	})
	return d
}

func (c *vcomp) vecB(o opnd) int {
	if o.vec {
		return o.reg
	}
	d, s := c.newVB(), o.reg
	c.emit(func(m *Machine) {
		v := m.xb[d][:m.n]
		fill(v, m.si[s] != 0)
		m.vb[d] = v
	})
	return d
}

// and returns the mask of lanes set in both a and b (-1: all lanes).
func (c *vcomp) and(a, b int) int {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	d := c.newVB()
	c.emit(func(m *Machine) {
		x, y, v := m.vb[a][:m.n], m.vb[b][:m.n], m.xb[d][:m.n]
		for k := range v {
			v[k] = x[k] && y[k]
		}
		m.vb[d] = v
	})
	return d
}

// andNot returns the mask of lanes set in a (-1: all) and not in b.
func (c *vcomp) andNot(a, b int) int {
	d := c.newVB()
	c.emit(func(m *Machine) {
		y, v := m.vb[b][:m.n], m.xb[d][:m.n]
		if a < 0 {
			for k := range v {
				v[k] = !y[k]
			}
		} else {
			x := m.vb[a][:m.n]
			for k := range v {
				v[k] = x[k] && !y[k]
			}
		}
		m.vb[d] = v
	})
	return d
}

// ---- expressions ----

// expr compiles e for the lanes of mask (-1: all).
func (c *vcomp) expr(e ir.Expr, mask int) opnd {
	if c.uniform(e) {
		return c.scalar(e, mask)
	}
	switch n := e.(type) {
	case *ir.Var:
		d := c.newVI()
		c.emit(func(m *Machine) {
			v := m.xi[d][:m.n]
			x0 := m.b.Lane0
			for k := range v {
				v[k] = x0 + int64(k)
			}
			m.vi[d] = v
		})
		return opnd{cls: clInt, vec: true, reg: d}
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
	case *ir.Reduce:
		return c.reduce(n, mask)
	}
	c.bad(e, "unexpected expression in a batch")
	return c.scalar(e, mask)
}

// scalar compiles a uniform e into a closure run once per batch; when it
// may fail it runs only if some lane of mask needs it.
func (c *vcomp) scalar(e ir.Expr, mask int) opnd {
	guard := mask >= 0 && c.mayFail(e)
	switch classOf(e.Type()) {
	case clFloat:
		fn, r := c.s.floatFn(e), c.newSF()
		c.emit(func(m *Machine) {
			if guard && !m.anyActive(mask) {
				m.sf[r] = 0
				return
			}
			m.at(m.firstActive(mask))
			m.sf[r] = fn(&m.fr)
		})
		return opnd{cls: clFloat, reg: r}
	case clBool:
		fn, r := c.s.boolFn(e), c.newSI()
		c.emit(func(m *Machine) {
			if guard && !m.anyActive(mask) {
				m.si[r] = 0
				return
			}
			m.at(m.firstActive(mask))
			m.si[r] = b2i(fn(&m.fr))
		})
		return opnd{cls: clBool, reg: r}
	}
	fn, r := c.s.intFn(e), c.newSI()
	c.emit(func(m *Machine) {
		if guard && !m.anyActive(mask) {
			m.si[r] = 0
			return
		}
		m.at(m.firstActive(mask))
		m.si[r] = fn(&m.fr)
	})
	return opnd{cls: clInt, reg: r}
}

// perLane compiles e as a closure run for each lane of mask: the fallback
// for what has no batch form (a reduction whose bounds vary by lane).
func (c *vcomp) perLane(e ir.Expr, mask int) opnd {
	switch classOf(e.Type()) {
	case clFloat:
		fn, d := c.s.floatFn(e), c.newVF()
		c.emit(func(m *Machine) {
			v := m.xf[d][:m.n]
			for k := range v {
				if m.isActive(mask, k) {
					m.at(k)
					v[k] = fn(&m.fr)
					if m.fr.err != nil {
						return
					}
				}
			}
			m.vf[d] = v
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	case clBool:
		fn, d := c.s.boolFn(e), c.newVB()
		c.emit(func(m *Machine) {
			v := m.xb[d][:m.n]
			for k := range v {
				if m.isActive(mask, k) {
					m.at(k)
					v[k] = fn(&m.fr)
					if m.fr.err != nil {
						return
					}
				}
			}
			m.vb[d] = v
		})
		return opnd{cls: clBool, vec: true, reg: d}
	}
	fn, d := c.s.intFn(e), c.newVI()
	c.emit(func(m *Machine) {
		v := m.xi[d][:m.n]
		for k := range v {
			if m.isActive(mask, k) {
				m.at(k)
				v[k] = fn(&m.fr)
				if m.fr.err != nil {
					return
				}
			}
		}
		m.vi[d] = v
	})
	return opnd{cls: clInt, vec: true, reg: d}
}

// ---- reads ----

// startFn compiles a lane index expression of lane coefficient 1 into a
// closure giving its value at the batch's first lane.
func (c *vcomp) startFn(e ir.Expr) iFn { return c.s.intFn(e) }

func (c *vcomp) load(n *ir.Load, mask int) opnd {
	in := n.In
	isF := in.T.IsFloat()
	var rowFn, colFn iFn // a view: element (row, col0 + k) or (col0 + k) for lane k
	switch len(n.Index) {
	case 1:
		if k, ok := c.laneCoef(n.Index[0]); ok && k == 1 {
			colFn = c.startFn(n.Index[0])
		}
	case 2:
		if k, ok := c.laneCoef(n.Index[1]); ok && k == 1 && c.uniform(n.Index[0]) {
			rowFn, colFn = c.s.intFn(n.Index[0]), c.startFn(n.Index[1])
		}
	default:
		c.bad(n, "load with more than two indices")
	}
	if colFn == nil {
		return c.gather(n, mask)
	}
	guard := mask >= 0 && c.mayFail(n)
	cols := int64(in.Cols)
	size := int64(in.Len())
	vector := len(n.Index) == 1
	d := 0
	if isF {
		d = c.newVF()
	} else {
		d = c.newVI()
	}
	c.emit(func(m *Machine) {
		nn := int64(m.n)
		if guard && !m.anyActive(mask) {
			if isF {
				m.vf[d] = m.zF[:m.n]
			} else {
				m.vi[d] = m.zI[:m.n]
			}
			return
		}
		m.at(0)
		var row int64
		if rowFn != nil {
			row = rowFn(&m.fr)
		}
		c0 := colFn(&m.fr)
		if m.fr.err != nil {
			return
		}
		// Lanes ka..kb-1 are inside the input.
		var ka, kb int64
		var base int64
		if vector {
			ka, kb, base = max(0, -c0), min(nn, size-c0), c0
		} else if row >= 0 && row < int64(in.Rows) {
			ka, kb, base = max(0, -c0), min(nn, cols-c0), row*cols+c0
		}
		if ka == 0 && kb == nn {
			if isF {
				m.vf[d] = in.F[base : base+nn]
			} else {
				m.vi[d] = in.I[base : base+nn]
			}
			return
		}
		for k := int64(0); k < nn; k++ {
			if (k < ka || k >= kb) && m.isActive(mask, int(k)) {
				if vector {
					m.fail(outsideInput(n, []int64{c0 + k}))
				} else {
					m.fail(outsideInput(n, []int64{row, c0 + k}))
				}
				return
			}
		}
		if isF {
			v := m.xf[d][:m.n]
			for k := range v {
				if kk := int64(k); kk >= ka && kk < kb {
					v[k] = in.F[base+kk]
				} else {
					v[k] = 0
				}
			}
			m.vf[d] = v
		} else {
			v := m.xi[d][:m.n]
			for k := range v {
				if kk := int64(k); kk >= ka && kk < kb {
					v[k] = in.I[base+kk]
				} else {
					v[k] = 0
				}
			}
			m.vi[d] = v
		}
	})
	return opnd{cls: classOf(in.T), vec: true, reg: d}
}

// gather reads an input at computed indices, checking each lane of mask.
func (c *vcomp) gather(n *ir.Load, mask int) opnd {
	in := n.In
	idx := make([]opnd, len(n.Index))
	for k, x := range n.Index {
		idx[k] = c.expr(x, mask)
	}
	isF := in.T.IsFloat()
	d := 0
	if isF {
		d = c.newVF()
	} else {
		d = c.newVI()
	}
	ix := make([]int, len(idx))
	isVec := make([]bool, len(idx))
	for k, o := range idx {
		ix[k], isVec[k] = o.reg, o.vec
	}
	rows, cols, size := int64(in.Rows), int64(in.Cols), int64(in.Len())
	c.emit(func(m *Machine) {
		get := func(a, k int) int64 {
			if isVec[a] {
				return m.vi[ix[a]][k]
			}
			return m.si[ix[a]]
		}
		var vi []int64
		var vf []float64
		if isF {
			vf = m.xf[d][:m.n]
		} else {
			vi = m.xi[d][:m.n]
		}
		for k := 0; k < m.n; k++ {
			var flat int64
			ok := true
			if !m.isActive(mask, k) {
				ok = false
			} else if len(ix) == 1 {
				flat = get(0, k)
				if flat < 0 || flat >= size {
					m.fail(outsideInput(n, []int64{flat}))
					return
				}
			} else {
				r, cc := get(0, k), get(1, k)
				if r < 0 || r >= rows || cc < 0 || cc >= cols {
					m.fail(outsideInput(n, []int64{r, cc}))
					return
				}
				flat = r*cols + cc
			}
			if isF {
				if ok {
					vf[k] = in.F[flat]
				} else {
					vf[k] = 0
				}
			} else {
				if ok {
					vi[k] = in.I[flat]
				} else {
					vi[k] = 0
				}
			}
		}
		if isF {
			m.vf[d] = vf
		} else {
			m.vi[d] = vi
		}
	})
	return opnd{cls: classOf(in.T), vec: true, reg: d}
}

func (c *vcomp) cellRef(n *ir.CellRef, mask int) opnd {
	r := c.rec
	dOff := r.stepOff[n]
	if dOff == 0 {
		c.bad(n, "a read of the line being computed outside a scan")
	}
	_, laneE := r.refIndices(n)
	isF := r.cls == clFloat
	d := 0
	if isF {
		d = c.newVF()
	} else {
		d = c.newVI()
	}
	line := int(dOff - r.dLo)
	p := r.p
	coords := func(step, lane int64) (int64, int64) {
		if r.axis == AlongJ {
			return step, lane
		}
		return lane, step
	}
	if k, ok := c.laneCoef(laneE); !ok || k != 1 {
		idx := c.expr(laneE, mask)
		ir_, iv := idx.reg, idx.vec
		c.emit(func(m *Machine) {
			l := &m.b.Lines[line]
			step := m.b.Step - dOff
			var vi []int64
			var vf []float64
			if isF {
				vf = m.xf[d][:m.n]
			} else {
				vi = m.xi[d][:m.n]
			}
			for k := 0; k < m.n; k++ {
				if !m.isActive(mask, k) {
					continue
				}
				x := m.geti(iv, ir_, k)
				if step < 0 || step >= r.stepN || x < 0 || x >= r.laneN {
					i, j := coords(step, x)
					m.fail(OutsideGrid(n, i, j, p.Rows, p.Cols))
					return
				}
				at := x - l.Base
				if isF {
					if at < 0 || at >= int64(len(l.F)) {
						m.fail(errAt(n.Pos, "internal error: %s outside the executor's window", refText(n)))
						return
					}
					vf[k] = l.F[at]
				} else {
					if at < 0 || at >= int64(len(l.I)) {
						m.fail(errAt(n.Pos, "internal error: %s outside the executor's window", refText(n)))
						return
					}
					vi[k] = l.I[at]
				}
			}
			if isF {
				m.vf[d] = vf
			} else {
				m.vi[d] = vi
			}
		})
		return opnd{cls: r.cls, vec: true, reg: d}
	}
	startFn := c.startFn(laneE)
	guard := mask >= 0 && c.mayFail(laneE)
	proven := c.f.proven[n]
	c.emit(func(m *Machine) {
		nn := int64(m.n)
		if guard && !m.anyActive(mask) {
			if isF {
				m.vf[d] = m.zF[:m.n]
			} else {
				m.vi[d] = m.zI[:m.n]
			}
			return
		}
		m.at(0)
		x0 := startFn(&m.fr)
		if m.fr.err != nil {
			return
		}
		l := &m.b.Lines[line]
		step := m.b.Step - dOff
		s := x0 - l.Base
		size := int64(len(l.I))
		if isF {
			size = int64(len(l.F))
		}
		inMem := s >= 0 && s+nn <= size
		if proven && inMem {
			if isF {
				m.vf[d] = l.F[s : s+nn]
			} else {
				m.vi[d] = l.I[s : s+nn]
			}
			return
		}
		// Lanes ka..kb-1 are inside the grid.
		ka, kb := max(0, -x0), min(nn, r.laneN-x0)
		if step < 0 || step >= r.stepN {
			ka, kb = 0, 0
		}
		for k := int64(0); k < nn; k++ {
			if (k < ka || k >= kb) && m.isActive(mask, int(k)) {
				i, j := coords(step, x0+k)
				m.fail(OutsideGrid(n, i, j, p.Rows, p.Cols))
				return
			}
		}
		if inMem {
			if isF {
				m.vf[d] = l.F[s : s+nn]
			} else {
				m.vi[d] = l.I[s : s+nn]
			}
			return
		}
		// The executor's line does not hold every lane: copy what it holds
		// (the lanes in the grid must be there).
		for k := ka; k < kb; k++ {
			if at := s + k; at < 0 || at >= size {
				if m.isActive(mask, int(k)) {
					m.fail(errAt(n.Pos, "internal error: %s outside the executor's window", refText(n)))
					return
				}
			}
		}
		if isF {
			v := m.xf[d][:m.n]
			for k := range v {
				if at := s + int64(k); at >= 0 && at < size {
					v[k] = l.F[at]
				} else {
					v[k] = 0
				}
			}
			m.vf[d] = v
		} else {
			v := m.xi[d][:m.n]
			for k := range v {
				if at := s + int64(k); at >= 0 && at < size {
					v[k] = l.I[at]
				} else {
					v[k] = 0
				}
			}
			m.vi[d] = v
		}
	})
	return opnd{cls: r.cls, vec: true, reg: d}
}

// ---- operators ----

func (c *vcomp) unary(n *ir.Unary, mask int) opnd {
	x := c.expr(n.X, mask)
	if n.Op == ir.OpNot {
		a, d := c.vecB(x), c.newVB()
		c.emit(func(m *Machine) {
			s, v := m.vb[a][:m.n], m.xb[d][:m.n]
			for k := range v {
				v[k] = !s[k]
			}
			m.vb[d] = v
		})
		return opnd{cls: clBool, vec: true, reg: d}
	}
	if x.cls == clFloat {
		a, d := c.vecF(x), c.newVF()
		c.emit(func(m *Machine) {
			s, v := m.vf[a][:m.n], m.xf[d][:m.n]
			for k := range v {
				v[k] = -s[k]
			}
			m.vf[d] = v
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	}
	a, d := c.vecI(x), c.newVI()
	c.emit(func(m *Machine) {
		v := m.xi[d][:m.n]
		iSubSV(v, 0, m.vi[a][:m.n])
		m.vi[d] = v
	})
	return opnd{cls: clInt, vec: true, reg: d}
}

func (c *vcomp) binary(n *ir.Binary, mask int) opnd {
	switch n.Op {
	case ir.OpAnd, ir.OpOr:
		return c.logic(n, mask)
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		return c.compare(n, mask)
	}
	x, y := c.expr(n.X, mask), c.expr(n.Y, mask)
	if classOf(n.T) == clFloat {
		return c.arithF(n, x, y)
	}
	if n.Saturate || n.Op == ir.OpDiv || n.Op == ir.OpRem {
		return c.laneArith(n, x, y, mask)
	}
	op := vopOf(n.Op)
	if op < 0 || op > vMul {
		c.bad(n, "unexpected operator "+n.Op.String())
		return x
	}
	if c.f.safe[n] {
		return c.binI(op, x, y)
	}
	return c.checkedI(n, op, x, y, mask)
}

// checkedI applies a generated checked integer + - or *: every lane is
// computed; when some lane's result is not finite, the lanes of mask are
// looked at one by one for the first that fails.
func (c *vcomp) checkedI(n *ir.Binary, op int, x, y opnd, mask int) opnd {
	d := c.newVI()
	fmax := finiteMax(n.T)
	onBad := func(m *Machine) { m.arithFault(n, x, y, mask) }
	cBinVV, cBinVS, cBinSV := cBin32VV, cBin32VS, cBin32SV
	switch {
	case n.T == ir.Long:
		cBinVV, cBinVS, cBinSV = cBin64VV, cBin64VS, cBin64SV
	case c.f.sides[n] == sideUp:
		cBinVV, cBinVS, cBinSV = uBin32VV, uBin32VS, uBin32SV
	case c.f.sides[n] == sideDown:
		cBinVV, cBinVS, cBinSV = dBin32VV, dBin32VS, dBin32SV
	}
	switch {
	case x.vec && y.vec:
		f := cBinVV[op]
		c.emit(func(m *Machine) {
			v := m.xi[d][:m.n]
			bad := f(v, m.vi[x.reg][:m.n], m.vi[y.reg][:m.n], fmax)
			m.vi[d] = v
			if bad {
				onBad(m)
			}
		})
	case x.vec:
		f := cBinVS[op]
		c.emit(func(m *Machine) {
			v := m.xi[d][:m.n]
			bad := f(v, m.vi[x.reg][:m.n], m.si[y.reg], fmax)
			m.vi[d] = v
			if bad {
				onBad(m)
			}
		})
	case y.vec:
		f := cBinSV[op]
		c.emit(func(m *Machine) {
			v := m.xi[d][:m.n]
			bad := f(v, m.si[x.reg], m.vi[y.reg][:m.n], fmax)
			m.vi[d] = v
			if bad {
				onBad(m)
			}
		})
	default: // both uniform: the scalar compiler handles those; kept for safety
		return c.laneArith(n, x, y, mask)
	}
	return opnd{cls: clInt, vec: true, reg: d}
}

// arithFault reports the first lane of mask where x op y faults, if any.
func (m *Machine) arithFault(n *ir.Binary, x, y opnd, mask int) {
	for k := 0; k < m.n; k++ {
		if !m.isActive(mask, k) {
			continue
		}
		a, b := m.geti(x.vec, x.reg, k), m.geti(y.vec, y.reg, k)
		if _, f := arithInt(n.Op, n.T, n.Saturate, a, b); f != fNone {
			i, j := m.coords(k)
			m.fail(arithErr(n.Pos, cellSite(i, j), f, n.Op, n.T, a, b))
			return
		}
	}
}

// binI applies a generated integer operation.
func (c *vcomp) binI(op int, x, y opnd) opnd {
	d := c.newVI()
	switch {
	case x.vec && y.vec:
		f := iBinVV[op]
		c.emit(func(m *Machine) {
			v := m.xi[d][:m.n]
			f(v, m.vi[x.reg][:m.n], m.vi[y.reg][:m.n])
			m.vi[d] = v
		})
	case x.vec:
		f := iBinVS[op]
		c.emit(func(m *Machine) {
			v := m.xi[d][:m.n]
			f(v, m.vi[x.reg][:m.n], m.si[y.reg])
			m.vi[d] = v
		})
	default:
		f := iBinSV[op]
		yr := c.vecI(y)
		c.emit(func(m *Machine) {
			v := m.xi[d][:m.n]
			f(v, m.si[x.reg], m.vi[yr][:m.n])
			m.vi[d] = v
		})
	}
	return opnd{cls: clInt, vec: true, reg: d}
}

// laneArith applies an integer operation lane by lane with arithInt: the
// divisions, and every operation on what may be inf. A fault on a lane
// outside mask leaves 0 there.
func (c *vcomp) laneArith(n *ir.Binary, x, y opnd, mask int) opnd {
	d := c.newVI()
	op, t, sat := n.Op, n.T, n.Saturate
	c.emit(func(m *Machine) {
		v := m.xi[d][:m.n]
		for k := range v {
			a, b := m.geti(x.vec, x.reg, k), m.geti(y.vec, y.reg, k)
			r, f := arithInt(op, t, sat, a, b)
			if f != fNone {
				if m.isActive(mask, k) {
					i, j := m.coords(k)
					m.fail(arithErr(n.Pos, cellSite(i, j), f, op, t, a, b))
					return
				}
				r = 0
			}
			v[k] = r
		}
		m.vi[d] = v
	})
	return opnd{cls: clInt, vec: true, reg: d}
}

func (c *vcomp) arithF(n *ir.Binary, x, y opnd) opnd {
	op := vopOf(n.Op)
	d := c.newVF()
	if op < 0 || op > vMax {
		// %, which the contract leaves to integers, computed like fmod.
		xr, yr := c.vecF(x), c.vecF(y)
		t := n.T
		c.emit(func(m *Machine) {
			v, a, b := m.xf[d][:m.n], m.vf[xr][:m.n], m.vf[yr][:m.n]
			for k := range v {
				v[k] = roundTo(math.Mod(a[k], b[k]), t)
			}
			m.vf[d] = v
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	}
	return c.binF(op, n.T == ir.Float, x, y)
}

// binF applies a generated floating operation, rounding to float32 when r32.
func (c *vcomp) binF(op int, r32 bool, x, y opnd) opnd {
	d := c.newVF()
	vv, vs, sv := fBinVV[op], fBinVS[op], fBinSV[op]
	if r32 {
		vv, vs, sv = fBin32VV[op], fBin32VS[op], fBin32SV[op]
	}
	switch {
	case x.vec && y.vec:
		c.emit(func(m *Machine) {
			v := m.xf[d][:m.n]
			vv(v, m.vf[x.reg][:m.n], m.vf[y.reg][:m.n])
			m.vf[d] = v
		})
	case x.vec:
		c.emit(func(m *Machine) {
			v := m.xf[d][:m.n]
			vs(v, m.vf[x.reg][:m.n], m.sf[y.reg])
			m.vf[d] = v
		})
	default:
		yr := c.vecF(y)
		c.emit(func(m *Machine) {
			v := m.xf[d][:m.n]
			sv(v, m.sf[x.reg], m.vf[yr][:m.n])
			m.vf[d] = v
		})
	}
	return opnd{cls: clFloat, vec: true, reg: d}
}

// asFloat reads a comparison operand as float64 (integers unconverted, as
// ir.Value.Float64 does).
func (c *vcomp) asFloat(o opnd) opnd {
	if o.cls == clFloat {
		return o
	}
	if !o.vec {
		d, s := c.newSF(), o.reg
		c.emit(func(m *Machine) { m.sf[d] = float64(m.si[s]) })
		return opnd{cls: clFloat, reg: d}
	}
	d, s := c.newVF(), o.reg
	c.emit(func(m *Machine) {
		v, a := m.xf[d][:m.n], m.vi[s][:m.n]
		for k := range v {
			v[k] = float64(a[k])
		}
		m.vf[d] = v
	})
	return opnd{cls: clFloat, vec: true, reg: d}
}

func (c *vcomp) compare(n *ir.Binary, mask int) opnd {
	x, y := c.expr(n.X, mask), c.expr(n.Y, mask)
	op := vopOf(n.Op)
	d := c.newVB()
	if x.cls == clFloat || y.cls == clFloat {
		x, y = c.asFloat(x), c.asFloat(y)
		switch {
		case x.vec && y.vec:
			f := fCmpVV[op]
			c.emit(func(m *Machine) {
				v := m.xb[d][:m.n]
				f(v, m.vf[x.reg][:m.n], m.vf[y.reg][:m.n])
				m.vb[d] = v
			})
		case x.vec:
			f := fCmpVS[op]
			c.emit(func(m *Machine) {
				v := m.xb[d][:m.n]
				f(v, m.vf[x.reg][:m.n], m.sf[y.reg])
				m.vb[d] = v
			})
		default:
			f := fCmpSV[op]
			yr := c.vecF(y)
			c.emit(func(m *Machine) {
				v := m.xb[d][:m.n]
				f(v, m.sf[x.reg], m.vf[yr][:m.n])
				m.vb[d] = v
			})
		}
		return opnd{cls: clBool, vec: true, reg: d}
	}
	if x.cls == clBool {
		x = c.boolToInt(x)
	}
	if y.cls == clBool {
		y = c.boolToInt(y)
	}
	switch {
	case x.vec && y.vec:
		f := iCmpVV[op]
		c.emit(func(m *Machine) {
			v := m.xb[d][:m.n]
			f(v, m.vi[x.reg][:m.n], m.vi[y.reg][:m.n])
			m.vb[d] = v
		})
	case x.vec:
		f := iCmpVS[op]
		c.emit(func(m *Machine) {
			v := m.xb[d][:m.n]
			f(v, m.vi[x.reg][:m.n], m.si[y.reg])
			m.vb[d] = v
		})
	default:
		f := iCmpSV[op]
		yr := c.vecI(y)
		c.emit(func(m *Machine) {
			v := m.xb[d][:m.n]
			f(v, m.si[x.reg], m.vi[yr][:m.n])
			m.vb[d] = v
		})
	}
	return opnd{cls: clBool, vec: true, reg: d}
}

func (c *vcomp) boolToInt(o opnd) opnd {
	if !o.vec {
		return opnd{cls: clInt, reg: o.reg} // scalar bools are 0 or 1 already
	}
	d, s := c.newVI(), o.reg
	c.emit(func(m *Machine) {
		v, b := m.xi[d][:m.n], m.vb[s][:m.n]
		for k := range v {
			v[k] = b2i(b[k])
		}
		m.vi[d] = v
	})
	return opnd{cls: clInt, vec: true, reg: d}
}

func (c *vcomp) logic(n *ir.Binary, mask int) opnd {
	isAnd := n.Op == ir.OpAnd
	switch c.f.known[n] {
	case triFalse:
		if isAnd {
			return c.scalar(&ir.Const{Node: ir.Node{T: ir.Bool, Pos: n.Pos}, V: ir.Value{T: ir.Bool}}, -1)
		}
		return c.expr(n.Y, mask)
	case triTrue:
		if isAnd {
			return c.expr(n.Y, mask)
		}
		return c.scalar(&ir.Const{Node: ir.Node{T: ir.Bool, Pos: n.Pos}, V: ir.Value{T: ir.Bool, I: 1}}, -1)
	}
	x := c.vecB(c.expr(n.X, mask))
	ymask := mask
	if c.mayFail(n.Y) {
		if isAnd {
			ymask = c.and(mask, x)
		} else {
			ymask = c.andNot(mask, x)
		}
	}
	y := c.vecB(c.expr(n.Y, ymask))
	d := c.newVB()
	c.emit(func(m *Machine) {
		v, a, b := m.xb[d][:m.n], m.vb[x][:m.n], m.vb[y][:m.n]
		if isAnd {
			for k := range v {
				v[k] = a[k] && b[k]
			}
		} else {
			for k := range v {
				v[k] = a[k] || b[k]
			}
		}
		m.vb[d] = v
	})
	return opnd{cls: clBool, vec: true, reg: d}
}

func (c *vcomp) sel(n *ir.Select, mask int) opnd {
	switch c.f.known[n] {
	case triTrue:
		return c.expr(n.Then, mask)
	case triFalse:
		return c.expr(n.Else, mask)
	}
	cond := c.vecB(c.expr(n.Cond, mask))
	tm, em := mask, mask
	if c.mayFail(n.Then) {
		tm = c.and(mask, cond)
	}
	if c.mayFail(n.Else) {
		em = c.andNot(mask, cond)
	}
	a, b := c.expr(n.Then, tm), c.expr(n.Else, em)
	switch classOf(n.T) {
	case clFloat:
		ar, br, d := c.vecF(a), c.vecF(b), c.newVF()
		c.emit(func(m *Machine) {
			v, cv, x, y := m.xf[d][:m.n], m.vb[cond][:m.n], m.vf[ar][:m.n], m.vf[br][:m.n]
			for k := range v {
				if cv[k] {
					v[k] = x[k]
				} else {
					v[k] = y[k]
				}
			}
			m.vf[d] = v
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	case clBool:
		ar, br, d := c.vecB(a), c.vecB(b), c.newVB()
		c.emit(func(m *Machine) {
			v, cv, x, y := m.xb[d][:m.n], m.vb[cond][:m.n], m.vb[ar][:m.n], m.vb[br][:m.n]
			for k := range v {
				v[k] = (cv[k] && x[k]) || (!cv[k] && y[k])
			}
			m.vb[d] = v
		})
		return opnd{cls: clBool, vec: true, reg: d}
	}
	d := c.newVI()
	switch {
	case !a.vec && !b.vec:
		c.emit(func(m *Machine) {
			v, cv, x, y := m.xi[d][:m.n], m.vb[cond][:m.n], m.si[a.reg], m.si[b.reg]
			for k := range v {
				if cv[k] {
					v[k] = x
				} else {
					v[k] = y
				}
			}
			m.vi[d] = v
		})
	default:
		ar, br := c.vecI(a), c.vecI(b)
		c.emit(func(m *Machine) {
			v, cv, x, y := m.xi[d][:m.n], m.vb[cond][:m.n], m.vi[ar][:m.n], m.vi[br][:m.n]
			for k := range v {
				if cv[k] {
					v[k] = x[k]
				} else {
					v[k] = y[k]
				}
			}
			m.vi[d] = v
		})
	}
	return opnd{cls: clInt, vec: true, reg: d}
}

func (c *vcomp) convert(n *ir.Convert, mask int) opnd {
	from, to := n.X.Type(), n.T
	if classOf(to) == clBool {
		if classOf(from) == clBool {
			return c.expr(n.X, mask)
		}
		zero := &ir.Const{Node: ir.Node{T: from, Pos: n.Pos}, V: ir.Value{T: from}}
		return c.compare(&ir.Binary{Node: ir.Node{T: ir.Bool, Pos: n.Pos}, Op: ir.OpNe, X: n.X, Y: zero}, mask)
	}
	x := c.expr(n.X, mask)
	switch {
	case x.cls == clBool && classOf(to) == clInt:
		return c.boolToInt(x)
	case x.cls == clBool:
		return c.asFloat(c.boolToInt(x))
	case x.cls == clInt && classOf(to) == clInt:
		if from == to || !hasSentinel(from) || !hasSentinel(to) {
			return x
		}
		a, d := c.vecI(x), c.newVI()
		c.emit(func(m *Machine) {
			v, s := m.xi[d][:m.n], m.vi[a][:m.n]
			for k := range v {
				r, f := convInt(s[k], from, to)
				if f != fNone && m.isActive(mask, k) {
					i, j := m.coords(k)
					m.fail(convIntErr(n.Pos, cellSite(i, j), s[k], to))
					return
				}
				v[k] = r
			}
			m.vi[d] = v
		})
		return opnd{cls: clInt, vec: true, reg: d}
	case x.cls == clInt:
		a, d := c.vecI(x), c.newVF()
		c.emit(func(m *Machine) {
			v, s := m.xf[d][:m.n], m.vi[a][:m.n]
			for k := range v {
				v[k] = intToFloat(s[k], from, to)
			}
			m.vf[d] = v
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	case classOf(to) == clFloat:
		if to != ir.Float || from == ir.Float {
			return x
		}
		a, d := c.vecF(x), c.newVF()
		c.emit(func(m *Machine) {
			v, s := m.xf[d][:m.n], m.vf[a][:m.n]
			for k := range v {
				v[k] = round32(s[k])
			}
			m.vf[d] = v
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	}
	a, d := c.vecF(x), c.newVI()
	c.emit(func(m *Machine) {
		v, s := m.xi[d][:m.n], m.vf[a][:m.n]
		for k := range v {
			r, f := floatToInt(s[k], to)
			if f != fNone && m.isActive(mask, k) {
				i, j := m.coords(k)
				m.fail(floatConvErr(n.Pos, cellSite(i, j), f, s[k], to))
				return
			}
			v[k] = r
		}
		m.vi[d] = v
	})
	return opnd{cls: clInt, vec: true, reg: d}
}

func (c *vcomp) call(n *ir.Call, mask int) opnd {
	args := make([]opnd, len(n.Args))
	for k, a := range n.Args {
		args[k] = c.expr(a, mask)
	}
	isF := classOf(n.T) == clFloat
	switch n.Fn {
	case ir.FnMin, ir.FnMax:
		op := vMin
		if n.Fn == ir.FnMax {
			op = vMax
		}
		if len(args) == 0 {
			c.bad(n, "min/max without arguments")
			return c.scalar(n, mask)
		}
		r := args[0]
		for _, a := range args[1:] {
			if isF {
				r = c.binF(op, false, r, a)
			} else {
				r = c.binI(op, r, a)
			}
		}
		return r
	case ir.FnAbs:
		if isF {
			a, d := c.vecF(args[0]), c.newVF()
			c.emit(func(m *Machine) {
				v, s := m.xf[d][:m.n], m.vf[a][:m.n]
				for k := range v {
					v[k] = math.Abs(s[k])
				}
				m.vf[d] = v
			})
			return opnd{cls: clFloat, vec: true, reg: d}
		}
		a, d := c.vecI(args[0]), c.newVI()
		c.emit(func(m *Machine) {
			v, s := m.xi[d][:m.n], m.vi[a][:m.n]
			for k := range v {
				x := s[k]
				if x < 0 {
					x = -x
				}
				v[k] = x
			}
			m.vi[d] = v
		})
		return opnd{cls: clInt, vec: true, reg: d}
	case ir.FnPow:
		if len(args) != 2 {
			c.bad(n, "pow needs two arguments")
			return c.scalar(n, mask)
		}
		a, b, d := c.vecF(args[0]), c.vecF(args[1]), c.newVF()
		t := n.T
		c.emit(func(m *Machine) {
			v, x, y := m.xf[d][:m.n], m.vf[a][:m.n], m.vf[b][:m.n]
			for k := range v {
				v[k] = roundTo(math.Pow(x[k], y[k]), t)
			}
			m.vf[d] = v
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	}
	fn := mathFn(n.Fn)
	if fn == nil || len(args) != 1 || !isF {
		c.bad(n, "unexpected function "+n.Fn.String())
		return c.scalar(n, mask)
	}
	a, d := c.vecF(args[0]), c.newVF()
	t := n.T
	c.emit(func(m *Machine) {
		v, x := m.xf[d][:m.n], m.vf[a][:m.n]
		for k := range v {
			v[k] = roundTo(fn(x[k]), t)
		}
		m.vf[d] = v
	})
	return opnd{cls: clFloat, vec: true, reg: d}
}

// reduce compiles a reduction. With bounds the same for every lane it is a
// loop over the body compiled for the whole batch; otherwise each lane runs
// the scalar closure.
func (c *vcomp) reduce(n *ir.Reduce, mask int) opnd {
	if !c.uniform(n.Lo) || !c.uniform(n.Hi) {
		return c.perLane(n, mask)
	}
	lo, hi := c.scalar(n.Lo, mask), c.scalar(n.Hi, mask)
	slot := c.rec.slots[n]
	var body []instr
	saved := c.out
	c.out = &body
	c.uniRed[n] = true
	c.sc.push(n)
	b := c.expr(n.Body, mask)
	c.sc.pop()
	delete(c.uniRed, n)
	c.out = saved
	t := n.T
	op := n.Op
	if classOf(t) == clFloat {
		d := c.newVF()
		id := identityFloat(op)
		c.emit(func(m *Machine) {
			acc := m.xf[d][:m.n]
			fill(acc, id)
			for k := m.si[lo.reg]; k <= m.si[hi.reg]; k++ {
				m.fr.vars[slot] = k
				for _, in := range body {
					in(m)
					if m.fr.err != nil {
						return
					}
				}
				for x := range acc {
					v := m.getf(b.vec, b.reg, x)
					switch op {
					case ir.ReduceMin:
						if v < acc[x] {
							acc[x] = v
						}
					case ir.ReduceMax:
						if v > acc[x] {
							acc[x] = v
						}
					default:
						acc[x] = roundTo(acc[x]+v, t)
					}
				}
				if k == math.MaxInt64 {
					break
				}
			}
			m.vf[d] = acc
		})
		return opnd{cls: clFloat, vec: true, reg: d}
	}
	d := c.newVI()
	id := identityInt(op, t)
	c.emit(func(m *Machine) {
		acc := m.xi[d][:m.n]
		fill(acc, id)
		for k := m.si[lo.reg]; k <= m.si[hi.reg]; k++ {
			m.fr.vars[slot] = k
			for _, in := range body {
				in(m)
				if m.fr.err != nil {
					return
				}
			}
			for x := range acc {
				v := m.geti(b.vec, b.reg, x)
				switch op {
				case ir.ReduceMin:
					if v < acc[x] {
						acc[x] = v
					}
				case ir.ReduceMax:
					if v > acc[x] {
						acc[x] = v
					}
				default:
					s, f := sumInt(t, acc[x], v)
					if f != fNone && m.isActive(mask, x) {
						i, j := m.coords(x)
						m.fail(arithErr(n.Pos, cellSite(i, j), f, ir.OpAdd, t, acc[x], v))
						return
					}
					acc[x] = s
				}
			}
			if k == math.MaxInt64 {
				break
			}
		}
		m.vi[d] = acc
	})
	return opnd{cls: clInt, vec: true, reg: d}
}
