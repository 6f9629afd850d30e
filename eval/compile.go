package eval

import (
	"math"

	"github.com/dpgpu/dpgpu/analysis"
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
	c := &vcomp{rec: r, k: k, f: f, sc: sc, s: &scomp{sc: sc, chain: r.chain}, out: &k.prog, uniRed: map[*ir.Reduce]bool{}}
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

// newScalar and newVec allocate a scalar or a vector register of type T.
func newScalar[T num](c *vcomp) int {
	n := &c.k.nSI
	if _, ok := any(*new(T)).(float64); ok {
		n = &c.k.nSF
	}
	*n++
	return *n - 1
}

func newVec[T elem](c *vcomp) int {
	var n *int
	switch any(*new(T)).(type) {
	case int64:
		n = &c.k.nVI
	case float64:
		n = &c.k.nVF
	default:
		n = &c.k.nVB
	}
	*n++
	return *n - 1
}

// vecOf is a vector operand of class cls in register reg.
func vecOf(cls class, reg int) opnd { return opnd{cls: cls, vec: true, reg: reg} }

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
			if classOf(n.T) != ir.ClassInt {
				break
			}
			switch n.Op {
			case ir.OpDiv, ir.OpRem:
				fail = fail || n.Saturate || !c.f.proven[n]
			case ir.OpAdd, ir.OpSub, ir.OpMul:
				fail = fail || n.Saturate || !c.f.isSafe(n)
			}
		case *ir.Convert:
			from := n.X.Type()
			switch {
			case classOf(from) == ir.ClassFloat && classOf(n.T) != ir.ClassFloat:
				fail = true
			case classOf(from) == ir.ClassInt && from.HasInf() && n.T.HasInf() && finiteMax(n.T) < finiteMax(from):
				fail = true // a narrowing conversion: long to int, int to short
			}
		case *ir.Reduce:
			if n.Op == ir.ReduceSum && classOf(n.T) == ir.ClassInt && !c.f.isSafe(n) {
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
		if classOf(n.T) == ir.ClassInt && classOf(n.X.Type()) == ir.ClassInt {
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
			if k, ok := analysis.Int(n.X, nil); ok && a == 0 {
				return k * b, true
			}
			if k, ok := analysis.Int(n.Y, nil); ok && b == 0 {
				return a * k, true
			}
		}
	}
	return 0, false
}

// ---- operands ----

// vec returns the vector register holding o, filling one with o's value
// on every lane when o is a scalar.
func vec[T num](c *vcomp, o opnd) int {
	if o.vec {
		return o.reg
	}
	d, s := newVec[T](c), o.reg
	c.emit(func(m *Machine) {
		b := bankOf[T](m)
		v := b.x[d][:m.n]
		fill(v, b.s[s])
		b.v[d] = v
	})
	return d
}

// vecI and vecF are vec for the two classes of numbers.
func (c *vcomp) vecI(o opnd) int { return vec[int64](c, o) }
func (c *vcomp) vecF(o opnd) int { return vec[float64](c, o) }

// vecB is vec for a bool, whose scalar register is an int (0 or 1).
func (c *vcomp) vecB(o opnd) int {
	if o.vec {
		return o.reg
	}
	d, s := newVec[bool](c), o.reg
	c.emit(func(m *Machine) {
		v := m.bools.x[d][:m.n]
		fill(v, m.ints.s[s] != 0)
		m.bools.v[d] = v
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
	d := newVec[bool](c)
	c.emit(func(m *Machine) {
		x, y, v := m.bools.v[a][:m.n], m.bools.v[b][:m.n], m.bools.x[d][:m.n]
		for k := range v {
			v[k] = x[k] && y[k]
		}
		m.bools.v[d] = v
	})
	return d
}

// andNot returns the mask of lanes set in a (-1: all) and not in b.
func (c *vcomp) andNot(a, b int) int {
	d := newVec[bool](c)
	c.emit(func(m *Machine) {
		y, v := m.bools.v[b][:m.n], m.bools.x[d][:m.n]
		if a < 0 {
			for k := range v {
				v[k] = !y[k]
			}
		} else {
			x := m.bools.v[a][:m.n]
			for k := range v {
				v[k] = x[k] && !y[k]
			}
		}
		m.bools.v[d] = v
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
		d := newVec[int64](c)
		c.emit(func(m *Machine) {
			v := m.ints.x[d][:m.n]
			x0 := m.b.Lane0
			for k := range v {
				v[k] = x0 + int64(k)
			}
			m.ints.v[d] = v
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
	switch cls := classOf(e.Type()); cls {
	case ir.ClassFloat:
		return opnd{cls: cls, reg: scalarReg(c, c.s.floatFn(e), guard, mask)}
	case ir.ClassBool:
		fn := c.s.boolFn(e)
		return opnd{cls: cls, reg: scalarReg(c, func(f *frame) int64 { return b2i(fn(f)) }, guard, mask)}
	}
	return opnd{cls: ir.ClassInt, reg: scalarReg(c, c.s.intFn(e), guard, mask)}
}

// scalarReg emits fn, run at the first lane of mask, into a new scalar
// register; with guard it runs only when some lane of mask is set (0
// otherwise).
func scalarReg[T num](c *vcomp, fn func(*frame) T, guard bool, mask int) int {
	r := newScalar[T](c)
	c.emit(func(m *Machine) {
		s := bankOf[T](m).s
		if guard && !m.anyActive(mask) {
			s[r] = 0
			return
		}
		m.at(m.firstActive(mask))
		s[r] = fn(&m.fr)
	})
	return r
}

// perLane compiles e as a closure run for each lane of mask: the fallback
// for what has no batch form (a reduction whose bounds vary by lane).
func (c *vcomp) perLane(e ir.Expr, mask int) opnd {
	switch cls := classOf(e.Type()); cls {
	case ir.ClassFloat:
		return vecOf(cls, perLaneReg(c, c.s.floatFn(e), mask))
	case ir.ClassBool:
		return vecOf(cls, perLaneReg(c, c.s.boolFn(e), mask))
	}
	return vecOf(ir.ClassInt, perLaneReg(c, c.s.intFn(e), mask))
}

// perLaneReg emits fn run on each lane of mask into a new vector register.
func perLaneReg[T elem](c *vcomp, fn func(*frame) T, mask int) int {
	d := newVec[T](c)
	c.emit(func(m *Machine) {
		b := bankOf[T](m)
		v := b.x[d][:m.n]
		for k := range v {
			if m.isActive(mask, k) {
				m.at(k)
				v[k] = fn(&m.fr)
				if m.fr.err != nil {
					return
				}
			}
		}
		b.v[d] = v
	})
	return d
}

// ---- reads ----

// startFn compiles a lane index expression of lane coefficient 1 into a
// closure giving its value at the batch's first lane.
func (c *vcomp) startFn(e ir.Expr) iFn { return c.s.intFn(e) }

func (c *vcomp) load(n *ir.Load, mask int) opnd {
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
	if n.In.T.IsFloat() {
		return vecOf(ir.ClassFloat, loadView(c, n, n.In.F, rowFn, colFn, guard, mask))
	}
	return vecOf(classOf(n.In.T), loadView(c, n, n.In.I, rowFn, colFn, guard, mask))
}

// loadView emits the read of input n, whose values are data, at (row,
// col0 + k) or (col0 + k) for lane k: a view of data when every lane is
// inside the input. A lane of mask outside it fails.
func loadView[T num](c *vcomp, n *ir.Load, data []T, rowFn, colFn iFn, guard bool, mask int) int {
	in := n.In
	cols := int64(in.Cols)
	size := int64(in.Len())
	vector := len(n.Index) == 1
	d := newVec[T](c)
	c.emit(func(m *Machine) {
		b := bankOf[T](m)
		nn := int64(m.n)
		if idle(m, b, d, guard, mask) {
			return
		}
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
			b.v[d] = data[base : base+nn]
			return
		}
		for k := int64(0); k < nn; k++ {
			if (k < ka || k >= kb) && m.isActive(mask, int(k)) {
				if vector {
					m.fail(outsideInput(n, []int64{c0 + k}, m.site(int(k))))
				} else {
					m.fail(outsideInput(n, []int64{row, c0 + k}, m.site(int(k))))
				}
				return
			}
		}
		v := b.x[d][:m.n]
		for k := range v {
			if kk := int64(k); kk >= ka && kk < kb {
				v[k] = data[base+kk]
			} else {
				v[k] = 0
			}
		}
		b.v[d] = v
	})
	return d
}

// gather reads an input at computed indices, checking each lane of mask.
func (c *vcomp) gather(n *ir.Load, mask int) opnd {
	idx := make([]opnd, len(n.Index))
	for k, x := range n.Index {
		idx[k] = c.expr(x, mask)
	}
	if n.In.T.IsFloat() {
		return vecOf(ir.ClassFloat, gatherReg(c, n, n.In.F, idx, mask))
	}
	return vecOf(classOf(n.In.T), gatherReg(c, n, n.In.I, idx, mask))
}

// gatherReg emits gather's loop for input n, whose values are data, at
// the indices idx.
func gatherReg[T num](c *vcomp, n *ir.Load, data []T, idx []opnd, mask int) int {
	in := n.In
	d := newVec[T](c)
	rows, cols, size := int64(in.Rows), int64(in.Cols), int64(in.Len())
	c.emit(func(m *Machine) {
		b := bankOf[T](m)
		v := b.x[d][:m.n]
		for k := range v {
			if !m.isActive(mask, k) {
				v[k] = 0
				continue
			}
			var flat int64
			if len(idx) == 1 {
				flat = m.ints.get(idx[0], k)
				if flat < 0 || flat >= size {
					m.fail(outsideInput(n, []int64{flat}, m.site(k)))
					return
				}
			} else {
				r, cc := m.ints.get(idx[0], k), m.ints.get(idx[1], k)
				if r < 0 || r >= rows || cc < 0 || cc >= cols {
					m.fail(outsideInput(n, []int64{r, cc}, m.site(k)))
					return
				}
				flat = r*cols + cc
			}
			v[k] = data[flat]
		}
		b.v[d] = v
	})
	return d
}

func (c *vcomp) cellRef(n *ir.CellRef, mask int) opnd {
	if c.rec.cls == ir.ClassFloat {
		return vecOf(ir.ClassFloat, cellRefReg[float64](c, n, mask))
	}
	return vecOf(ir.ClassInt, cellRefReg[int64](c, n, mask))
}

// cellRefReg emits the read of a line other than the one being computed
// for cells of type T: a view of the line when the lanes are the batch's
// shifted by a constant, else a gather.
func cellRefReg[T num](c *vcomp, n *ir.CellRef, mask int) int {
	r := c.rec
	dOff := r.stepOff[n]
	if dOff == 0 {
		c.bad(n, "a read of the line being computed outside a scan")
	}
	_, laneE := r.refIndices(n)
	d := newVec[T](c)
	line := int(dOff - r.dLo)
	p := r.p
	coords := func(step, lane int64) (int64, int64) {
		if r.axis == AlongJ {
			return step, lane
		}
		return lane, step
	}
	window := func(m *Machine) {
		m.fail(errAt(n.Pos, "internal error: %s outside the executor's window", refText(n)))
	}
	if k, ok := c.laneCoef(laneE); !ok || k != 1 {
		idx := c.expr(laneE, mask)
		c.emit(func(m *Machine) {
			l := cellsOf[T](&m.b.Lines[line])
			base := m.b.Lines[line].Base
			step := m.b.Step - dOff
			b := bankOf[T](m)
			v := b.x[d][:m.n]
			for k := range v {
				if !m.isActive(mask, k) {
					continue
				}
				x := m.ints.get(idx, k)
				if step < 0 || step >= r.stepN || x < 0 || x >= r.laneN {
					i, j := coords(step, x)
					m.fail(OutsideGrid(n, i, j, p.Rows, p.Cols))
					return
				}
				at := x - base
				if at < 0 || at >= int64(len(l)) {
					window(m)
					return
				}
				v[k] = l[at]
			}
			b.v[d] = v
		})
		return d
	}
	startFn := c.startFn(laneE)
	guard := mask >= 0 && c.mayFail(laneE)
	proven := c.f.proven[n]
	c.emit(func(m *Machine) {
		b := bankOf[T](m)
		nn := int64(m.n)
		if idle(m, b, d, guard, mask) {
			return
		}
		x0 := startFn(&m.fr)
		if m.fr.err != nil {
			return
		}
		l := cellsOf[T](&m.b.Lines[line])
		step := m.b.Step - dOff
		s := x0 - m.b.Lines[line].Base
		size := int64(len(l))
		inMem := s >= 0 && s+nn <= size
		if proven && inMem {
			b.v[d] = l[s : s+nn]
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
			b.v[d] = l[s : s+nn]
			return
		}
		// The executor's line does not hold every lane: copy what it holds
		// (the lanes in the grid must be there).
		for k := ka; k < kb; k++ {
			if at := s + k; (at < 0 || at >= size) && m.isActive(mask, int(k)) {
				window(m)
				return
			}
		}
		v := b.x[d][:m.n]
		for k := range v {
			if at := s + int64(k); at >= 0 && at < size {
				v[k] = l[at]
			} else {
				v[k] = 0
			}
		}
		b.v[d] = v
	})
	return d
}

// ---- operators ----

func (c *vcomp) unary(n *ir.Unary, mask int) opnd {
	x := c.expr(n.X, mask)
	if n.Op == ir.OpNot {
		a, d := c.vecB(x), newVec[bool](c)
		c.emit(func(m *Machine) {
			s, v := m.bools.v[a][:m.n], m.bools.x[d][:m.n]
			for k := range v {
				v[k] = !s[k]
			}
			m.bools.v[d] = v
		})
		return vecOf(ir.ClassBool, d)
	}
	if x.cls == ir.ClassFloat {
		a, d := c.vecF(x), newVec[float64](c)
		c.emit(func(m *Machine) {
			s, v := m.floats.v[a][:m.n], m.floats.x[d][:m.n]
			for k := range v {
				v[k] = -s[k]
			}
			m.floats.v[d] = v
		})
		return vecOf(ir.ClassFloat, d)
	}
	// The finite range is symmetric and -inf is -(inf): 0 - x cannot fail.
	a, d := c.vecI(x), newVec[int64](c)
	c.emit(func(m *Machine) {
		v := m.ints.x[d][:m.n]
		iSubSV(v, 0, m.ints.v[a][:m.n])
		m.ints.v[d] = v
	})
	return vecOf(ir.ClassInt, d)
}

func (c *vcomp) binary(n *ir.Binary, mask int) opnd {
	switch n.Op {
	case ir.OpAnd, ir.OpOr:
		return c.logic(n, mask)
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		return c.compare(n, mask)
	}
	x, y := c.expr(n.X, mask), c.expr(n.Y, mask)
	if classOf(n.T) == ir.ClassFloat {
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
	if c.f.isSafe(n) {
		return c.binI(op, x, y)
	}
	return c.checkedI(n, op, x, y, mask)
}

// checkedI applies a generated checked integer + - or *: every lane is
// computed; when some lane's result is not finite, the lanes of mask are
// looked at one by one for the first that fails.
func (c *vcomp) checkedI(n *ir.Binary, op int, x, y opnd, mask int) opnd {
	if !x.vec && !y.vec { // the scalar compiler handles those; kept for safety
		return c.laneArith(n, x, y, mask)
	}
	fmax := finiteMax(n.T)
	vv, vs, sv := cBin32VV[op], cBin32VS[op], cBin32SV[op]
	switch {
	case n.T == ir.Long:
		vv, vs, sv = cBin64VV[op], cBin64VS[op], cBin64SV[op]
	case c.f.sides[n] == sideUp:
		vv, vs, sv = uBin32VV[op], uBin32VS[op], uBin32SV[op]
	case c.f.sides[n] == sideDown:
		vv, vs, sv = dBin32VV[op], dBin32VS[op], dBin32SV[op]
	}
	l := loops[int64, int64]{
		vv:    func(d, x, y []int64) bool { return vv(d, x, y, fmax) },
		vs:    func(d, x []int64, b int64) bool { return vs(d, x, b, fmax) },
		sv:    func(d []int64, a int64, y []int64) bool { return sv(d, a, y, fmax) },
		onBad: func(m *Machine) { m.arithFault(n, x, y, mask) },
	}
	return vecOf(ir.ClassInt, emitLoop(c, l, x, y))
}

// loops are the generated loops of one operation, one per operand form
// (vector-vector, vector-scalar, scalar-vector) on operands of type S into
// results of type D. A checked loop returns whether some lane's result
// was not finite, and onBad then says which lane of the mask that was.
type loops[S num, D elem] struct {
	vv    func(d []D, x, y []S) bool
	vs    func(d []D, x []S, b S) bool
	sv    func(d []D, a S, y []S) bool
	onBad func(m *Machine)
}

// plainLoops are loops of an operation that cannot fail.
func plainLoops[S num, D elem](vv func(d []D, x, y []S), vs func(d []D, x []S, b S), sv func(d []D, a S, y []S)) loops[S, D] {
	return loops[S, D]{
		vv: func(d []D, x, y []S) bool { vv(d, x, y); return false },
		vs: func(d []D, x []S, b S) bool { vs(d, x, b); return false },
		sv: func(d []D, a S, y []S) bool { sv(d, a, y); return false },
	}
}

// emitLoop emits the loop of l for the form of x and y into a new vector
// register; two scalars take the scalar-vector loop.
func emitLoop[S num, D elem](c *vcomp, l loops[S, D], x, y opnd) int {
	d := newVec[D](c)
	run := func(m *Machine, bad bool, v []D) {
		bankOf[D](m).v[d] = v
		if bad {
			l.onBad(m)
		}
	}
	switch {
	case x.vec && y.vec:
		c.emit(func(m *Machine) {
			v, s := bankOf[D](m).x[d][:m.n], bankOf[S](m)
			run(m, l.vv(v, s.v[x.reg][:m.n], s.v[y.reg][:m.n]), v)
		})
	case x.vec:
		c.emit(func(m *Machine) {
			v, s := bankOf[D](m).x[d][:m.n], bankOf[S](m)
			run(m, l.vs(v, s.v[x.reg][:m.n], s.s[y.reg]), v)
		})
	default:
		yr := vec[S](c, y)
		c.emit(func(m *Machine) {
			v, s := bankOf[D](m).x[d][:m.n], bankOf[S](m)
			run(m, l.sv(v, s.s[x.reg], s.v[yr][:m.n]), v)
		})
	}
	return d
}

// arithFault reports the first lane of mask where x op y faults, if any.
func (m *Machine) arithFault(n *ir.Binary, x, y opnd, mask int) {
	for k := 0; k < m.n; k++ {
		if !m.isActive(mask, k) {
			continue
		}
		a, b := m.ints.get(x, k), m.ints.get(y, k)
		if _, f := arithInt(n.Op, n.T, n.Saturate, a, b); f != fNone {
			m.fail(arithErr(n.Pos, m.site(k), f, n.Op, n.T, a, b))
			return
		}
	}
}

// binI applies a generated integer operation.
func (c *vcomp) binI(op int, x, y opnd) opnd {
	return vecOf(ir.ClassInt, emitLoop(c, plainLoops(iBinVV[op], iBinVS[op], iBinSV[op]), x, y))
}

// laneArith applies an integer operation lane by lane with arithInt: the
// divisions, and every operation on what may be inf. A fault on a lane
// outside mask leaves 0 there.
func (c *vcomp) laneArith(n *ir.Binary, x, y opnd, mask int) opnd {
	d := newVec[int64](c)
	op, t, sat := n.Op, n.T, n.Saturate
	if sat && (op == ir.OpAdd || op == ir.OpSub) {
		// The common saturating + and - (a distance that may be inf:
		// Floyd-Warshall, shortest paths): finite operands with a finite
		// result take the plain sum; a sentinel or an overflow takes the
		// general rule below, lane by lane, with its error.
		p, ng := ir.ArithSentinels(t)
		fmax := ir.ArithMax(t)
		sub := op == ir.OpSub
		c.emit(func(m *Machine) {
			v := m.ints.x[d][:m.n]
			for k := range v {
				a, b := m.ints.get(x, k), m.ints.get(y, k)
				if a != p && a != ng && b != p && b != ng {
					var r int64
					var ok bool
					if sub {
						r = a - b
						ok = (a^b)&(a^r) >= 0
					} else {
						r = a + b
						ok = (a^r)&(b^r) >= 0
					}
					if ok && ir.IsFinite(r, fmax) {
						v[k] = r
						continue
					}
				}
				r, ok := m.laneRule(n, mask, k, a, b)
				if !ok {
					return
				}
				v[k] = r
			}
			m.ints.v[d] = v
		})
		return vecOf(ir.ClassInt, d)
	}
	if !sat && (op == ir.OpDiv || op == ir.OpRem) {
		// / and % by a divisor that is not 0 (the 3-D grids' i = J / C,
		// j = J % C): the quotient of a finite value is finite; a zero
		// divisor or a value that is not finite takes the general rule.
		fmax := ir.ArithMax(t)
		rem := op == ir.OpRem
		c.emit(func(m *Machine) {
			v := m.ints.x[d][:m.n]
			for k := range v {
				a, b := m.ints.get(x, k), m.ints.get(y, k)
				if b != 0 && ir.IsFinite(a, fmax) {
					if rem {
						v[k] = a % b
					} else {
						v[k] = a / b
					}
					continue
				}
				r, ok := m.laneRule(n, mask, k, a, b)
				if !ok {
					return
				}
				v[k] = r
			}
			m.ints.v[d] = v
		})
		return vecOf(ir.ClassInt, d)
	}
	c.emit(func(m *Machine) {
		v := m.ints.x[d][:m.n]
		for k := range v {
			r, ok := m.laneRule(n, mask, k, m.ints.get(x, k), m.ints.get(y, k))
			if !ok {
				return
			}
			v[k] = r
		}
		m.ints.v[d] = v
	})
	return vecOf(ir.ClassInt, d)
}

// laneRule is integer operation n on lane k by the general rule of ir.Arith:
// a fault on a lane of mask stops the batch with the cell's error (ok
// false); on another lane, whose value nobody reads, it gives 0.
func (m *Machine) laneRule(n *ir.Binary, mask, k int, a, b int64) (int64, bool) {
	r, f := arithInt(n.Op, n.T, n.Saturate, a, b)
	if f == fNone {
		return r, true
	}
	if m.isActive(mask, k) {
		m.fail(arithErr(n.Pos, m.site(k), f, n.Op, n.T, a, b))
		return 0, false
	}
	return 0, true
}

func (c *vcomp) arithF(n *ir.Binary, x, y opnd) opnd {
	op := vopOf(n.Op)
	if op < 0 || op > vMax {
		// %, which the contract leaves to integers, computed like fmod.
		return vecOf(ir.ClassFloat, emitMath2(c, math.Mod, n.T, c.vecF(x), c.vecF(y)))
	}
	return c.binF(op, n.T == ir.Float, x, y)
}

// binF applies a generated floating operation, rounding to float32 when r32.
func (c *vcomp) binF(op int, r32 bool, x, y opnd) opnd {
	l := plainLoops(fBinVV[op], fBinVS[op], fBinSV[op])
	if r32 {
		l = plainLoops(fBin32VV[op], fBin32VS[op], fBin32SV[op])
	}
	return vecOf(ir.ClassFloat, emitLoop(c, l, x, y))
}

// asFloat reads a comparison operand as float64 (integers unconverted, as
// ir.Value.Float64 does).
func (c *vcomp) asFloat(o opnd) opnd {
	if o.cls == ir.ClassFloat {
		return o
	}
	if !o.vec {
		d, s := newScalar[float64](c), o.reg
		c.emit(func(m *Machine) { m.floats.s[d] = float64(m.ints.s[s]) })
		return opnd{cls: ir.ClassFloat, reg: d}
	}
	return vecOf(ir.ClassFloat, emitMap(c, o.reg, func(v []float64, a []int64) {
		for k := range v {
			v[k] = float64(a[k])
		}
	}))
}

// idle gives register d of b the zero view and reports true when guard is
// set and no lane of mask is active: a read that no lane needs is left
// undone, since it could fail. Otherwise it positions m at lane 0 for the
// read.
func idle[T elem](m *Machine, b *bank[T], d int, guard bool, mask int) bool {
	if guard && !m.anyActive(mask) {
		b.v[d] = b.z[:m.n]
		return true
	}
	m.at(0)
	return false
}

// emitMap emits a vector register of D computed lane by lane from vector
// register s of S by loop, which runs over whole slices: one call per
// batch, none per lane.
func emitMap[S, D elem](c *vcomp, s int, loop func(v []D, a []S)) int {
	d := newVec[D](c)
	c.emit(func(m *Machine) {
		out := bankOf[D](m)
		v := out.x[d][:m.n]
		loop(v, bankOf[S](m).v[s][:m.n])
		out.v[d] = v
	})
	return d
}

// emitMath2 emits fn(x, y) rounded to t for each lane of float registers x
// and y: fmod for a floating %, and pow. Neither inlines, so a call per lane
// through fn costs nothing they do not already cost.
func emitMath2(c *vcomp, fn func(a, b float64) float64, t ir.Type, x, y int) int {
	d := newVec[float64](c)
	c.emit(func(m *Machine) {
		v, a, b := m.floats.x[d][:m.n], m.floats.v[x][:m.n], m.floats.v[y][:m.n]
		for k := range v {
			v[k] = roundTo(fn(a[k], b[k]), t)
		}
		m.floats.v[d] = v
	})
	return d
}

func (c *vcomp) compare(n *ir.Binary, mask int) opnd {
	x, y := c.expr(n.X, mask), c.expr(n.Y, mask)
	op := vopOf(n.Op)
	if x.cls == ir.ClassFloat || y.cls == ir.ClassFloat {
		l := plainLoops(fCmpVV[op], fCmpVS[op], fCmpSV[op])
		return vecOf(ir.ClassBool, emitLoop(c, l, c.asFloat(x), c.asFloat(y)))
	}
	if x.cls == ir.ClassBool {
		x = c.boolToInt(x)
	}
	if y.cls == ir.ClassBool {
		y = c.boolToInt(y)
	}
	return vecOf(ir.ClassBool, emitLoop(c, plainLoops(iCmpVV[op], iCmpVS[op], iCmpSV[op]), x, y))
}

func (c *vcomp) boolToInt(o opnd) opnd {
	if !o.vec {
		return opnd{cls: ir.ClassInt, reg: o.reg} // scalar bools are 0 or 1 already
	}
	return vecOf(ir.ClassInt, emitMap(c, o.reg, func(v []int64, b []bool) {
		for k := range v {
			v[k] = b2i(b[k])
		}
	}))
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
	d := newVec[bool](c)
	c.emit(func(m *Machine) {
		v, a, b := m.bools.x[d][:m.n], m.bools.v[x][:m.n], m.bools.v[y][:m.n]
		if isAnd {
			for k := range v {
				v[k] = a[k] && b[k]
			}
		} else {
			for k := range v {
				v[k] = a[k] || b[k]
			}
		}
		m.bools.v[d] = v
	})
	return vecOf(ir.ClassBool, d)
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
	switch cls := classOf(n.T); cls {
	case ir.ClassFloat:
		if a.vec || b.vec {
			a, b = vecOf(cls, c.vecF(a)), vecOf(cls, c.vecF(b))
		}
		return vecOf(cls, selReg[float64](c, cond, a, b))
	case ir.ClassBool:
		a, b = vecOf(cls, c.vecB(a)), vecOf(cls, c.vecB(b))
		return vecOf(cls, selReg[bool](c, cond, a, b))
	}
	if a.vec || b.vec {
		a, b = vecOf(ir.ClassInt, c.vecI(a)), vecOf(ir.ClassInt, c.vecI(b))
	}
	return vecOf(ir.ClassInt, selReg[int64](c, cond, a, b))
}

// selReg emits, for each lane, a where the bool vector register cond is
// set and b elsewhere, into a new vector register; a and b are both
// vectors or both scalars.
func selReg[T elem](c *vcomp, cond int, a, b opnd) int {
	d := newVec[T](c)
	c.emit(func(m *Machine) {
		r := bankOf[T](m)
		v, cv := r.x[d][:m.n], m.bools.v[cond][:m.n]
		if a.vec {
			x, y := r.v[a.reg][:m.n], r.v[b.reg][:m.n]
			for k := range v {
				if cv[k] {
					v[k] = x[k]
				} else {
					v[k] = y[k]
				}
			}
		} else {
			x, y := r.s[a.reg], r.s[b.reg]
			for k := range v {
				if cv[k] {
					v[k] = x
				} else {
					v[k] = y
				}
			}
		}
		r.v[d] = v
	})
	return d
}

func (c *vcomp) convert(n *ir.Convert, mask int) opnd {
	from, to := n.X.Type(), n.T
	if classOf(to) == ir.ClassBool {
		if classOf(from) == ir.ClassBool {
			return c.expr(n.X, mask)
		}
		zero := &ir.Const{Node: ir.Node{T: from, Pos: n.Pos}, V: ir.Value{T: from}}
		return c.compare(&ir.Binary{Node: ir.Node{T: ir.Bool, Pos: n.Pos}, Op: ir.OpNe, X: n.X, Y: zero}, mask)
	}
	x := c.expr(n.X, mask)
	switch {
	case x.cls == ir.ClassBool && classOf(to) == ir.ClassInt:
		return c.boolToInt(x)
	case x.cls == ir.ClassBool:
		return c.asFloat(c.boolToInt(x))
	case x.cls == ir.ClassInt && classOf(to) == ir.ClassInt:
		if from == to || !from.HasInf() || !to.HasInf() {
			return x
		}
		a, d := c.vecI(x), newVec[int64](c)
		c.emit(func(m *Machine) {
			v, s := m.ints.x[d][:m.n], m.ints.v[a][:m.n]
			for k := range v {
				r, f := convInt(s[k], from, to)
				if f != fNone && m.isActive(mask, k) {
					m.fail(convIntErr(n.Pos, m.site(k), s[k], to))
					return
				}
				v[k] = r
			}
			m.ints.v[d] = v
		})
		return vecOf(ir.ClassInt, d)
	case x.cls == ir.ClassInt:
		a, d := c.vecI(x), newVec[float64](c)
		c.emit(func(m *Machine) {
			v, s := m.floats.x[d][:m.n], m.ints.v[a][:m.n]
			for k := range v {
				v[k] = intToFloat(s[k], from, to)
			}
			m.floats.v[d] = v
		})
		return vecOf(ir.ClassFloat, d)
	case classOf(to) == ir.ClassFloat:
		if to != ir.Float || from == ir.Float {
			return x
		}
		a, d := c.vecF(x), newVec[float64](c)
		c.emit(func(m *Machine) {
			v, s := m.floats.x[d][:m.n], m.floats.v[a][:m.n]
			for k := range v {
				v[k] = round32(s[k])
			}
			m.floats.v[d] = v
		})
		return vecOf(ir.ClassFloat, d)
	}
	a, d := c.vecF(x), newVec[int64](c)
	c.emit(func(m *Machine) {
		v, s := m.ints.x[d][:m.n], m.floats.v[a][:m.n]
		for k := range v {
			r, f := floatToInt(s[k], to)
			if f != fNone && m.isActive(mask, k) {
				m.fail(floatConvErr(n.Pos, m.site(k), f, s[k], to))
				return
			}
			v[k] = r
		}
		m.ints.v[d] = v
	})
	return vecOf(ir.ClassInt, d)
}

func (c *vcomp) call(n *ir.Call, mask int) opnd {
	args := make([]opnd, len(n.Args))
	for k, a := range n.Args {
		args[k] = c.expr(a, mask)
	}
	isF := classOf(n.T) == ir.ClassFloat
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
			a, d := c.vecF(args[0]), newVec[float64](c)
			c.emit(func(m *Machine) {
				v, s := m.floats.x[d][:m.n], m.floats.v[a][:m.n]
				for k := range v {
					v[k] = math.Abs(s[k])
				}
				m.floats.v[d] = v
			})
			return vecOf(ir.ClassFloat, d)
		}
		a, d := c.vecI(args[0]), newVec[int64](c)
		c.emit(func(m *Machine) {
			v, s := m.ints.x[d][:m.n], m.ints.v[a][:m.n]
			for k := range v {
				x := s[k]
				if x < 0 {
					x = -x
				}
				v[k] = x
			}
			m.ints.v[d] = v
		})
		return vecOf(ir.ClassInt, d)
	case ir.FnPow:
		if len(args) != 2 {
			c.bad(n, "pow needs two arguments")
			return c.scalar(n, mask)
		}
		return vecOf(ir.ClassFloat, emitMath2(c, math.Pow, n.T, c.vecF(args[0]), c.vecF(args[1])))
	}
	fn := mathFn(n.Fn)
	if fn == nil || len(args) != 1 || !isF {
		c.bad(n, "unexpected function "+n.Fn.String())
		return c.scalar(n, mask)
	}
	a, d := c.vecF(args[0]), newVec[float64](c)
	t := n.T
	c.emit(func(m *Machine) {
		v, x := m.floats.x[d][:m.n], m.floats.v[a][:m.n]
		for k := range v {
			v[k] = roundTo(fn(x[k]), t)
		}
		m.floats.v[d] = v
	})
	return vecOf(ir.ClassFloat, d)
}

// reduce compiles a reduction. With bounds the same for every lane it is a
// loop over the body compiled for the whole batch; otherwise each lane runs
// the scalar closure.
func (c *vcomp) reduce(n *ir.Reduce, mask int) opnd {
	if !c.uniform(n.Lo) || !c.uniform(n.Hi) {
		return c.perLane(n, mask)
	}
	lo, hi := c.scalar(n.Lo, mask), c.scalar(n.Hi, mask)
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
	if classOf(t) == ir.ClassFloat {
		sum := func(m *Machine, acc []float64) bool {
			for x := range acc {
				acc[x] = roundTo(acc[x]+m.floats.get(b, x), t)
			}
			return true
		}
		return vecOf(ir.ClassFloat, reduceReg(c, n, lo, hi, body, b, identityFloat(n.Op), sum))
	}
	sum := func(m *Machine, acc []int64) bool {
		for x := range acc {
			v := m.ints.get(b, x)
			s, f := sumInt(t, acc[x], v)
			if f != fNone && m.isActive(mask, x) {
				i, j := m.coords(x)
				m.fail(arithErr(n.Pos, siteIn(m.rec.p, i, j), f, ir.OpAdd, t, acc[x], v))
				return false
			}
			acc[x] = s
		}
		return true
	}
	return vecOf(ir.ClassInt, reduceReg(c, n, lo, hi, body, b, identityInt(n.Op, t), sum))
}

// reduceReg emits the loop of a reduction whose bounds lo..hi are the
// same for every lane: body computes b for the batch at each value of the
// variable, and the accumulator (from id) keeps the minimum or maximum,
// or adds b with sum, which returns false after an error.
func reduceReg[T num](c *vcomp, n *ir.Reduce, lo, hi opnd, body []instr, b opnd, id T, sum func(m *Machine, acc []T) bool) int {
	slot := c.rec.slots[n]
	isMin, isSum := n.Op == ir.ReduceMin, n.Op == ir.ReduceSum
	d := newVec[T](c)
	c.emit(func(m *Machine) {
		r := bankOf[T](m)
		acc := r.x[d][:m.n]
		fill(acc, id)
		for k := m.ints.s[lo.reg]; k <= m.ints.s[hi.reg]; k++ {
			m.fr.vars[slot] = k
			for _, in := range body {
				in(m)
				if m.fr.err != nil {
					return
				}
			}
			if isSum {
				if !sum(m, acc) {
					return
				}
			} else {
				for x := range acc {
					if v := r.get(b, x); better(isMin, v, acc[x]) {
						acc[x] = v
					}
				}
			}
			if k == math.MaxInt64 {
				break
			}
		}
		r.v[d] = acc
	})
	return d
}
