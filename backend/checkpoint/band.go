package checkpoint

import (
	"fmt"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// bandInput names the input that holds a band's boundary rows. The name
// cannot be written in a `.dp` file (names are identifiers), so it never
// meets a user's input.
const (
	bandInput    = "checkpoint rows"
	baseInput    = "checkpoint base"
	colInput     = "checkpoint columns"
	colBaseInput = "checkpoint column base"
)

// band builds the problem whose grid is rows r0 .. r0+rows-1, columns
// 0 .. cols-1 of p's grid, given the reach rows above it (rows r0-reach
// .. r0-1 of p's grid, reach x cols cells of top) when r0 > 0.
//
// The band's row x is p's row x + base, base = r0 - reach: its first
// reach rows are the given rows (a first case reads them from an input),
// and the rest are p's recurrence with every use of the row variable i
// replaced by i + base — conditions, input subscripts, columns — except
// where a reference reads d rows back (cell[i-d][..]: the same in the
// band), and a reference's row computed otherwise taken back into the
// band's coordinates (I - base). base is an input of one value, so that
// the bands of one height and width are one program. Offsets are
// unchanged, so the band plans as p does; a reference reaches at most
// reach rows back (the caller checked), so none leaves the band.
// Messages name cells as p's grid does (ir.Problem.Of). The first band
// (r0 = 0) is p itself, cut to its rows and columns.
//
// The band's answer is its last cell (the caller reads the kept grid).
//
// With perTable, a band of a recurrence of several tables is given its rows
// table by table (tableBand): it then plans as p does, the tables of a
// cell together, instead of over its flat columns. Not for a band to be
// transposed, whose flat columns would become rows.
func band(p *ir.Problem, r0, rows, cols int64, reach int64, top *backend.Grid, cells cellBounds, perTable bool) (*ir.Problem, error) {
	base := r0
	given := int64(0)
	if r0 > 0 {
		if top == nil || top.Rows != reach || top.Cols < cols {
			return nil, fmt.Errorf("internal error: the band at row %d needs %d given rows of %d cells", r0, reach, cols)
		}
		base, given = r0-reach, reach
	}
	b := *p
	b.Of, b.RowBase, b.ColBase = p, base, 0
	switch {
	case p.Swapped:
		// A band of a transposed band: p's rows are its Of's columns.
		b.Of, b.RowBase, b.ColBase = p.Of, p.RowBase, p.ColBase+base
	case p.Of != nil:
		b.Of, b.RowBase, b.ColBase = p.Of, p.RowBase+base, p.ColBase
	}
	b.Rows, b.Cols = given+rows, cols
	b.Answer, b.AnswerPos = nil, p.AnswerPos
	b.Maintain = false // the runs say whether to keep it (a nested band keeps rows only)

	c := &cloner{refs: map[*ir.CellRef]*ir.CellRef{}, reds: map[*ir.Reduce]*ir.Reduce{}}
	b.Cases = nil
	if given > 0 {
		if base < 0 || base > p.Rows-(given+rows) {
			return nil, fmt.Errorf("internal error: the band at row %d (%d rows) leaves the %d rows of its grid", r0, rows, p.Rows)
		}
		vi, vj := c.indexVar(p, ir.VarI), c.indexVar(p, ir.VarJ)
		b.Inputs = append([]*ir.Input(nil), p.Inputs...)
		if T := int64(len(p.Tables)); perTable && T > 1 && p.Dims == 2 && p.Of == nil && cols%T == 0 {
			return tableBand(&b, p, c, r0, rows, cols, given, base, top, cells, vi, vj)
		}
		in, err := givenInput(p, levelName(bandInput, p), given, cols, top.At, cells)
		if err != nil {
			return nil, fmt.Errorf("band at row %d: %w", r0, err)
		}
		c.base = givenCase(&b, in, given, vi, vj, levelName(baseInput, p), base, p.Rows-(given+rows))
	}
	if err := c.cases(&b, p); err != nil {
		return nil, err
	}
	return &b, nil
}

// cases appends the copies of p's cases to b's, and sets b.CellRefs to
// the copies of p's references, in p's order.
func (c *cloner) cases(b, p *ir.Problem) error {
	for _, k := range p.Cases {
		n := &ir.Case{Pos: k.Pos, Table: k.Table}
		if k.Cond != nil {
			n.Cond = c.expr(k.Cond)
		}
		n.Value = c.expr(k.Value)
		if k.Emit != nil {
			n.Emit = c.expr(k.Emit)
		}
		b.Cases = append(b.Cases, n)
	}
	if c.err != nil {
		return c.err
	}
	return c.refList(b, p)
}

// refList fills b.CellRefs with the copies of p's, in p's order.
func (c *cloner) refList(b, p *ir.Problem) error {
	b.CellRefs = make([]*ir.CellRef, len(p.CellRefs))
	for k, r := range p.CellRefs {
		n := c.refs[r]
		if n == nil {
			return fmt.Errorf("internal error: %s is not in the recurrence", r.Text)
		}
		b.CellRefs[k] = n
	}
	return nil
}

// cellBounds is what the values of a problem's cells are proven to stay
// within (codegen.CellRange), when ok.
type cellBounds struct {
	lo, hi int64
	ok     bool
}

// transposed is band b stored transposed: its rows are b's columns, its
// columns b's rows. The index variables trade places in every expression
// and every reference reads cell[J][I] for cell[I][J]; the planner then
// sees the same recurrence turned a quarter, and a short, wide band —
// few strips for a GPU's strip kernel, one strip a block — becomes a
// tall, narrow one. Only for 2-D grids (a 1-D or 3-D lowering words its
// references by row and column).
func transposed(b *ir.Problem) (*ir.Problem, error) {
	if b.Dims != 2 || b.Of == nil || b.Swapped {
		return nil, fmt.Errorf("internal error: transposing a band of a %d-D grid", b.Dims)
	}
	t := *b
	t.Swapped = true
	t.Rows, t.Cols = b.Cols, b.Rows
	t.IVar, t.JVar = b.JVar, b.IVar
	c := &cloner{refs: map[*ir.CellRef]*ir.CellRef{}, reds: map[*ir.Reduce]*ir.Reduce{}, swap: true}
	t.Cases = nil
	if err := c.cases(&t, b); err != nil {
		return nil, err
	}
	return &t, nil
}

// levelName is name for the inputs a band of p adds: p may itself be a
// band (two levels of checkpoints), whose inputs of that name it keeps.
func levelName(name string, p *ir.Problem) string {
	if p.Of == nil {
		return name
	}
	return fmt.Sprintf("%s %d", name, len(p.Inputs))
}

// givenInput is the input of n x m cells of p's grid that a band or a
// block is given (its rows above, its columns to the left), cell [a][b]
// of it at(a, b): in the cell type (integer infinities as the type's
// sentinels, which is how inputs hold them), with its span, and bounded
// as p's cells were proven to be (cells), which the band's program may
// then rely on too — an error, naming the cell, where one is not.
func givenInput(p *ir.Problem, name string, n, m int64, at func(a, b int64) ir.Value, cells cellBounds) (*ir.Input, error) {
	in := &ir.Input{Pos: p.RecurPos, Name: name, T: p.CellType, Rows: int(n), Cols: int(m), Origin: "checkpoint", PerRun: true}
	if p.CellType.IsFloat() {
		in.F = make([]float64, 0, n*m)
	} else {
		in.I = make([]int64, 0, n*m)
	}
	for a := int64(0); a < n; a++ {
		for b := int64(0); b < m; b++ {
			v := at(a, b)
			if in.F != nil {
				in.F = append(in.F, v.F)
			} else {
				in.I = append(in.I, v.I)
			}
		}
	}
	withSpan(in)
	in.Bounded, in.Lo, in.Hi = cells.ok, cells.lo, cells.hi
	if in.Bounded && (in.Span.Lo < in.Lo || in.Span.Hi > in.Hi) {
		for k, v := range in.I {
			if v < in.Lo || v > in.Hi {
				return nil, fmt.Errorf("internal error: its given cell [%d][%d] holds %d, outside the range %d..%d its recurrence keeps", int64(k)/m, int64(k)%m, v, in.Lo, in.Hi)
			}
		}
	}
	return in, nil
}

// givenCase adds to b the first case of a band or block: cells with
// v < n (v the row variable for given rows, the column variable for given
// columns) read given input in at [v][w] (givenLoad), w the other
// variable. It adds in and returns the input, added too, that holds the
// base v is shifted by (baseOf).
func givenCase(b *ir.Problem, in *ir.Input, n int64, v, w *ir.Var, baseName string, base, hi int64) *ir.Input {
	pos := b.RecurPos
	bi := baseOf(pos, baseName, v.T, base, hi)
	b.Inputs = append(b.Inputs, in, bi)
	b.Cases = append(b.Cases, &ir.Case{Pos: pos,
		Cond:  &ir.Binary{Node: ir.Node{T: ir.Bool, Pos: pos}, Op: ir.OpLt, X: v, Y: konst(v.T, n, pos)},
		Value: givenLoad(b, in, n, v, w),
	})
	return bi
}

// baseOf is the input of one value that a band's or block's index
// variable is shifted by: data, not a constant of the code, so that every
// band or block of a shape is one program (a GPU compiles it once),
// bounded by 0 .. hi as every one of that shape is.
func baseOf(pos source.Pos, name string, t ir.Type, base, hi int64) *ir.Input {
	return &ir.Input{Pos: pos, Name: name, T: t, Rows: 1, Cols: 1, Vector: true, I: []int64{base}, Origin: "checkpoint",
		Bounded: true, Lo: 0, Hi: hi}
}

// givenLoad reads given input in (n rows or columns) at [v][w]: at [0][w]
// for one (the usual reach: a value of the column, or of the row, which
// the back ends stage rather than gather cell by cell).
func givenLoad(b *ir.Problem, in *ir.Input, n int64, v *ir.Var, w ir.Expr) ir.Expr {
	var first ir.Expr = v
	if n == 1 {
		first = konst(v.T, 0, b.RecurPos)
	}
	return &ir.Load{Node: ir.Node{T: b.CellType, Pos: b.RecurPos}, In: in, Index: []ir.Expr{first, w}}
}

// konst is the constant x of type t.
func konst(t ir.Type, x int64, pos source.Pos) ir.Expr {
	return &ir.Const{Node: ir.Node{T: t, Pos: pos}, V: ir.Value{T: t, I: x}}
}

// tableBand finishes band b of p, a 2-D recurrence of T tables, given its
// rows table by table: an input of given x cols/T cells for each table,
// read by table t's first case (J % T == t && i < given: its input at the
// user's column, J / T, as the table's own cases read an input), then
// table t's cases — so that every case is one table's, in table order
// (plan.TableCases), and the band plans as p does, the tables of a cell
// computed together, rather than as a grid of flat columns (a case read by
// the flat column belongs to no table). The base of the row variable is
// one input for all.
func tableBand(b, p *ir.Problem, c *cloner, r0, rows, cols, given, base int64, top *backend.Grid, cells cellBounds, vi, vj *ir.Var) (*ir.Problem, error) {
	T := int64(len(p.Tables))
	pos := b.RecurPos
	userJ := &ir.Binary{Node: ir.Node{T: vj.T, Pos: pos}, Op: ir.OpDiv, X: vj, Y: konst(vj.T, T, pos)}
	given0 := make([]*ir.Case, T)
	for t := range T {
		in, err := givenInput(p, fmt.Sprintf("%s %s", levelName(bandInput, p), p.Tables[t]), given, cols/T,
			func(a, k int64) ir.Value { return top.At(a, k*T+t) }, cells)
		if err != nil {
			return nil, fmt.Errorf("band at row %d: %w", r0, err)
		}
		b.Inputs = append(b.Inputs, in)
		test := &ir.Binary{Node: ir.Node{T: ir.Bool, Pos: pos}, Op: ir.OpEq,
			X: &ir.Binary{Node: ir.Node{T: vj.T, Pos: pos}, Op: ir.OpRem, X: vj, Y: konst(vj.T, T, pos)}, Y: konst(vj.T, t, pos)}
		own := &ir.Binary{Node: ir.Node{T: ir.Bool, Pos: pos}, Op: ir.OpLt, X: vi, Y: konst(vi.T, given, pos)}
		given0[t] = &ir.Case{Pos: pos, Table: int(t),
			Cond:  &ir.Binary{Node: ir.Node{T: ir.Bool, Pos: pos}, Op: ir.OpAnd, X: test, Y: own},
			Value: givenLoad(b, in, given, vi, userJ),
		}
	}
	c.base = baseOf(pos, levelName(baseInput, p), vi.T, base, p.Rows-(given+rows))
	b.Inputs = append(b.Inputs, c.base)
	if err := c.cases(b, p); err != nil {
		return nil, err
	}
	own := b.Cases
	b.Cases = make([]*ir.Case, 0, len(own)+int(T))
	for t := range T {
		b.Cases = append(b.Cases, given0[t])
		for _, k := range own {
			if int64(k.Table) == t {
				b.Cases = append(b.Cases, k)
			}
		}
	}
	return b, nil
}

// withSpan sets in's span, which a program's generation and planning ask
// for many times (ir.Input.IntSpan scans an input without one: 10 s of
// a traceback of two bacterial genomes went to scanning the given rows).
func withSpan(in *ir.Input) {
	if !in.T.IsFloat() {
		in.Span = ir.SpanOf(in.I)
	}
}

// block builds the problem whose grid is rows r0 .. r0+rows-1, columns
// c0 .. c0+cols-1 of p's grid (a 2-D grid of one table, every reference
// at most reach rows and creach columns back, never forward: what
// plan.DeviceBlocks checked), given the cells above and left of it: top
// holds rows r0-reach .. r0-1 of p's grid, whole (nil for r0 = 0), left
// holds columns c0-creach .. c0-1, whole, one a row (nil for c0 = 0).
//
// As a band (see band), with the column variable j shifted as the row
// variable is: the block's first given rows (i < gi) read the top input,
// its first given columns (j < gj) the left one, the rest is p's
// recurrence with i + base and j + cbase for i and j, except in the
// references that read d rows or columns back.
func block(p *ir.Problem, r0, rows, c0, cols, reach, creach int64, top, left *backend.Grid, cells cellBounds) (*ir.Problem, error) {
	if p.Of != nil || p.Dims != 2 || len(p.Tables) > 1 {
		return nil, fmt.Errorf("internal error: a block of a band, or of a grid of %d dimensions or several tables", p.Dims)
	}
	gi, gj := int64(0), int64(0)
	if r0 > 0 {
		gi = reach
	}
	if c0 > 0 {
		gj = creach
	}
	base, cbase := r0-gi, c0-gj
	if (gi > 0 && (top == nil || top.Rows != gi || top.Cols != p.Cols)) || (gj > 0 && (left == nil || left.Rows != gj || left.Cols != p.Rows)) {
		return nil, fmt.Errorf("internal error: the block at [%d][%d] needs %d given rows and %d given columns", r0, c0, gi, gj)
	}
	b := *p
	b.Of, b.RowBase, b.ColBase = p, base, cbase
	b.Rows, b.Cols = gi+rows, gj+cols
	b.Answer, b.AnswerPos = nil, p.AnswerPos
	b.Maintain = false
	c := &cloner{refs: map[*ir.CellRef]*ir.CellRef{}, reds: map[*ir.Reduce]*ir.Reduce{}}
	vi, vj := c.indexVar(p, ir.VarI), c.indexVar(p, ir.VarJ)
	b.Inputs = append([]*ir.Input(nil), p.Inputs...)
	b.Cases = nil
	if gi > 0 {
		in, err := givenInput(p, bandInput, gi, gj+cols, func(i, j int64) ir.Value { return top.At(i, cbase+j) }, cells)
		if err != nil {
			return nil, fmt.Errorf("block at [%d][%d]: %w", r0, c0, err)
		}
		c.base = givenCase(&b, in, gi, vi, vj, baseInput, base, p.Rows-(gi+rows))
	}
	if gj > 0 {
		in, err := givenInput(p, colInput, gj, gi+rows, func(k, i int64) ir.Value { return left.At(k, base+i) }, cells)
		if err != nil {
			return nil, fmt.Errorf("block at [%d][%d]: %w", r0, c0, err)
		}
		c.cbase = givenCase(&b, in, gj, vj, vi, colBaseInput, cbase, p.Cols-(gj+cols))
	}
	if err := c.cases(&b, p); err != nil {
		return nil, err
	}
	return &b, nil
}

// cloner copies the recurrence's expressions with the row variable
// shifted by the value of base (nil: not shifted).
type cloner struct {
	base *ir.Input
	// cbase: the column variable shifted by the value of cbase too (a
	// block's first column; nil: not shifted).
	cbase *ir.Input
	refs  map[*ir.CellRef]*ir.CellRef
	reds  map[*ir.Reduce]*ir.Reduce
	// vars: a reduction's variable and its copy.
	vars map[*ir.Var]*ir.Var
	// swap: the index variables trade places, and references' indices
	// with them (transposed).
	swap bool
	err  error
}

// indexVar is a node for the index variable of kind k, typed as p's
// recurrence types it (int, or long for a grid that needs it).
func (c *cloner) indexVar(p *ir.Problem, k ir.VarKind) *ir.Var {
	t := ir.Int
	name := p.IVar
	if k == ir.VarJ {
		name = p.JVar
	}
	for _, cs := range p.Cases {
		for _, e := range []ir.Expr{cs.Cond, cs.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				if v, ok := x.(*ir.Var); ok && v.Kind == k {
					t = v.T
				}
				return true
			})
		}
	}
	return &ir.Var{Node: ir.Node{T: t, Pos: p.RecurPos}, Kind: k, Name: name}
}

func (c *cloner) expr(e ir.Expr) ir.Expr {
	switch n := e.(type) {
	case nil:
		return nil
	case *ir.Const, *ir.Inf, *ir.ScalarRef:
		return e
	case *ir.Var:
		switch n.Kind {
		case ir.VarI, ir.VarJ:
			if c.swap {
				v := *n
				v.Kind = ir.VarI + ir.VarJ - n.Kind
				return &v
			}
			in := c.base
			if n.Kind == ir.VarJ {
				in = c.cbase
			}
			if in == nil {
				return n
			}
			v := *n
			return &ir.Binary{Node: n.Node, Op: ir.OpAdd, X: &v, Y: loadOne(in, n.Node)}
		}
		if v := c.vars[n]; v != nil {
			return v
		}
		v := *n
		if r := c.reds[n.Reduce]; r != nil {
			v.Reduce = r
		}
		if c.vars == nil {
			c.vars = map[*ir.Var]*ir.Var{}
		}
		c.vars[n] = &v
		return &v
	case *ir.Load:
		m := *n
		m.Index = c.list(n.Index)
		return &m
	case *ir.CellRef:
		m := *n
		if c.swap {
			m.I, m.J = c.expr(n.J), c.expr(n.I)
			m.Sub3 = [2]ir.Expr{} // (only 2-D bands are transposed)
			c.refs[n] = &m
			return &m
		}
		m.I = c.shifted(n.I, ir.VarI, &c.base, n, "row")
		m.J = c.shifted(n.J, ir.VarJ, &c.cbase, n, "column")
		// A 3-D reference's subscripts as written, in the band's terms
		// too (the planner reads them: ir.CellRef.Sub3).
		if n.Sub3[0] != nil {
			m.Sub3 = [2]ir.Expr{c.expr(n.Sub3[0]), c.expr(n.Sub3[1])}
		}
		c.refs[n] = &m
		return &m
	case *ir.Unary:
		m := *n
		m.X = c.expr(n.X)
		return &m
	case *ir.Binary:
		m := *n
		m.X, m.Y = c.expr(n.X), c.expr(n.Y)
		return &m
	case *ir.Select:
		m := *n
		m.Cond, m.Then, m.Else = c.expr(n.Cond), c.expr(n.Then), c.expr(n.Else)
		return &m
	case *ir.Convert:
		m := *n
		m.X = c.expr(n.X)
		return &m
	case *ir.Call:
		m := *n
		m.Args = c.list(n.Args)
		if n.Emits != nil {
			m.Emits = c.list(n.Emits)
		}
		return &m
	case *ir.Reduce:
		m := *n
		c.reds[n] = &m
		// The variable first, so that the body's uses map to the copy.
		m.Var, _ = c.expr(n.Var).(*ir.Var)
		m.Lo, m.Hi = c.expr(n.Lo), c.expr(n.Hi)
		m.Body = c.expr(n.Body)
		return &m
	}
	c.fail(fmt.Errorf("internal error: a band cannot copy an expression of type %T", e))
	return e
}

// shifted copies e, reference r's index along the axis of the index
// variable k, into the band's terms, *base shifting k (nil: none): k - d
// reads d rows (columns) back in the band as in the grid, so it is copied
// with *base unset (in a band of a transposed band it may still hold a
// reduction's variable); any other index is the grid's, less the base.
func (c *cloner) shifted(e ir.Expr, k ir.VarKind, base **ir.Input, r *ir.CellRef, axis string) ir.Expr {
	_, rel := analysis.Offset(e, k)
	switch b := *base; {
	case b == nil:
		return c.expr(e)
	case rel:
		*base = nil
		out := c.expr(e)
		*base = b
		return out
	case e.Type() != b.T:
		c.fail(fmt.Errorf("internal error: %s has a %s index of type %s, the index variable %s", r.Text, axis, e.Type(), b.T))
		return e
	}
	node := ir.Node{T: e.Type(), Pos: r.Pos}
	return &ir.Binary{Node: node, Op: ir.OpSub, X: c.expr(e), Y: loadOne(*base, node)}
}

func (c *cloner) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// loadOne reads the one value of in (a base).
func loadOne(in *ir.Input, at ir.Node) ir.Expr {
	return &ir.Load{Node: ir.Node{T: in.T, Pos: at.Pos}, In: in, Index: []ir.Expr{konst(ir.Int, 0, at.Pos)}}
}

func (c *cloner) list(es []ir.Expr) []ir.Expr {
	if es == nil {
		return nil
	}
	out := make([]ir.Expr, len(es))
	for k, e := range es {
		out[k] = c.expr(e)
	}
	return out
}
