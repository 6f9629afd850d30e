// Package ir is the checked, typed form of a `.dp` problem: every name is
// resolved, every input is loaded, every scalar is evaluated, implicit
// conversions are explicit, and every node still knows its `.dp` position.
// It is the boundary between the front end (dsl, sema) and everything after
// it (plan, eval, codegen, the runtimes): those packages never see the AST.
//
// The recurrence (the algorithm) lives here; how it is mapped onto threads and
// memory (the schedule) lives in package plan.
package ir

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dpgpu/dpgpu/source"
)

// Value is a constant of some type. Integer types use I, floating types F.
type Value struct {
	T Type
	I int64
	F float64
}

// Float64 returns v as a float64 whatever its type.
func (v Value) Float64() float64 {
	if v.T.IsFloat() {
		return v.F
	}
	return float64(v.I)
}

func (v Value) String() string {
	if v.T.IsFloat() {
		return fmt.Sprintf("%g", v.F)
	}
	if v.T == Char && v.I >= 32 && v.I < 127 {
		return string(rune(v.I))
	}
	return fmt.Sprint(v.I)
}

// Input is a vector (Rows == 1) or matrix of values, fully loaded. Integer
// types (char, int, long) keep their data in I, floating types in F; the
// other slice is nil. Elements are row-major: element [r][c] is at r*Cols+c.
// Its data does not change once a run has read it: an executor may keep a
// large input on its device for the runs after (backend/gpu), and checks
// only a sample of the values; new data is a new Input.
type Input struct {
	Pos    source.Pos
	Name   string
	T      Type
	Rows   int
	Cols   int
	Vector bool // declared 1xN: indexed with one subscript
	I      []int64
	F      []float64
	Origin string // where the data came from, for reports: "inline", a path, "--input"
	// Bounded: every value lies in Lo..Hi whatever the data, so that a
	// program generated for this input holds for any data within the
	// bounds (a checkpoint band's first row in its grid: every band of
	// one shape runs one program, and the bounds spare its checks).
	Bounded bool
	Lo, Hi  int64
	// PerRun: the data changes from one run of a program to the next (a
	// checkpoint band's given rows), so no program may be specialised to
	// its values, only to Bounded's bounds.
	PerRun bool
	// Span, where Known, is the least and greatest element of I: found
	// where the values were read or checked (the loader, sema), so that
	// the analyses that bound an input (value ranges, the inf test) do
	// not scan it again; see IntSpan. Whoever changes I clears it.
	Span Span
}

// Span is the least and greatest of some integer values. The zero Span is
// unknown (and so is the span of no values).
type Span struct {
	Lo, Hi int64
	Known  bool
}

// SpanOf is the span of vs, unknown when vs is empty.
func SpanOf(vs []int64) Span { return Span{}.Widen(vs) }

// Widen is the span of s's values and vs (a reader widens it line by line,
// while the values are in the cache).
func (s Span) Widen(vs []int64) Span {
	if len(vs) == 0 {
		return s
	}
	lo, hi := vs[0], vs[0]
	if s.Known {
		lo, hi = s.Lo, s.Hi
	}
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return Span{lo, hi, true}
}

// Len is the number of elements.
func (in *Input) Len() int { return in.Rows * in.Cols }

// IntSpan is the least and greatest element of I: in.Span where known,
// else found by a scan (an input made outside sema). Unknown for a
// floating or empty input.
func (in *Input) IntSpan() Span {
	if in.Span.Known || in.T.IsFloat() {
		return in.Span
	}
	return SpanOf(in.I)
}

// HoldsInf reports whether an element of in is inf or -inf: an IEEE
// infinity, or a sentinel of its integer type (or beyond one).
func (in *Input) HoldsInf() bool {
	if slices.ContainsFunc(in.F, func(f float64) bool { return math.IsInf(f, 0) }) {
		return true
	}
	if in.T.IsFloat() || !in.T.HasInf() {
		return false
	}
	pos, neg := InfSentinel(in.T)
	sp := in.IntSpan()
	return sp.Known && (sp.Hi >= pos || sp.Lo <= neg)
}

// Scalar is a named constant, evaluated on the host (after command-line
// overrides) in double precision and converted to its type; a reduction in
// its expression is computed by the run-time rules of docs/language.md
// §6.1 first.
type Scalar struct {
	Pos     source.Pos
	Name    string
	Value   Value
	Derived bool // defined by an expression over other names
}

// Case is one alternative of the recurrence. Cond is nil for `otherwise`
// (always the last case). Emit is nil when the case emits nothing.
type Case struct {
	Pos   source.Pos
	Cond  Expr
	Value Expr
	Emit  Expr
	// Table is the table whose recurrence the case belongs to (a
	// recurrence of several tables, Problem.Tables; 0 otherwise). Its
	// Cond starts with the test J % T == Table that the lowering puts
	// before the condition as written (except the last table's
	// `otherwise`); an executor that computes the tables of a cell
	// together (plan.Plan.Cells) runs each table's cases alone.
	Table int
}

// Problem is a checked problem, ready to be planned and run.
type Problem struct {
	Name string
	File string // path of the `.dp` file ("" when built from a string)
	Src  []byte // source text, for error carets

	// Dims is how many dimensions the grid line gave: 2 for `R x C`, 1 for
	// `N` (0 for held-karp, which has no grid). A 1-D grid is lowered to a
	// 1 x N grid, so that every later stage works unchanged: Rows is 1, the
	// one index variable is the column variable (JVar; IVar is ""), and
	// every reference cell[e] is a CellRef with I the constant 0 (OneD set).
	// Dims only changes how cells and the grid are named in messages
	// (CellText, GridText).
	//
	// A 3-D grid `K x R x C` (Dims 3) is lowered likewise, to the K x R*C
	// grid: each k-plane is one row, so that the planner, the executors
	// and the traceback run it unchanged. The first index variable, k, is
	// the row variable (IVar); the user's i and j are J / C and J % C of
	// the column variable J (exact: J is never negative); a reference
	// cell[a][b][c] is the CellRef cell[a][b*C + c], guarded so that b or
	// c outside its side makes the column outside the grid (CellRef.Mid).
	Dims       int
	Rows, Cols int64 // grid size; 0 for schedules without a grid (held-karp)
	// Mid and Inner are R and C of a 3-D grid (Dims 3), whose Cols is
	// Mid*Inner; 0 otherwise.
	Mid, Inner int64
	// Vars3 names a 3-D grid's index variables as written, k, i, j (IVar
	// is k; JVar words the column, "(i*C + j)").
	Vars3 [3]string
	// Tables names the tables of a recurrence of several tables (contract
	// v2 §7.2), in file order; nil for the one table `cell`. A 2-D grid of
	// R x C cells and T tables is lowered to the R x C*T grid whose flat
	// column J = j*T + t holds table t's cell [i][j]: Cols is C*T, the
	// cases of table t are tried only where J % T == t, the user's j is
	// J / T, and a reference to table t' at [a][b] reads the flat cell
	// [a][b*T + t'] (J + (d*T + t' - t) where b is j + d). A reference
	// outside the user's grid lands outside the flat grid by construction.
	// CellText names cells as the user does: H[3][5]. A 1-D grid of N
	// cells (Dims 1) is the 1 x N grid, so its T tables are the one flat
	// row of N*T cells, table t's cell [j] at J = j*T + t (hold[4]).
	Tables     []string
	CellType   Type
	IVar, JVar string // names of the index variables (`i`, `j`; `j` alone in 1-D)
	// TableJVar is the user's column variable of a recurrence of several
	// tables, whose JVar names the flat column, `(j*T + table)`.
	TableJVar string

	// Header settings; *Pos is zero when the line is absent.
	Prev     int // declared `prev:`, -1 when absent (the planner infers it)
	PrevPos  source.Pos
	Mem      int  // 0: constant/read-only cache, 1: texture
	Maintain bool // keep the whole grid on the host
	// AllowNaN (`nan: allow`) lets a floating cell hold NaN; by default a
	// NaN reaching a cell or the answer is an error naming the case and cell.
	AllowNaN    bool
	Schedule    string // forced schedule name, "" for automatic; "t" for `schedule: t = EXPR`
	SchedulePos source.Pos
	// ScheduleExpr is EXPR of `schedule: t = EXPR` (nil otherwise): an
	// integer expression of the recurrence's nodes over the index variables
	// (Var of kind VarI and VarJ), constants and scalars, without cells,
	// input elements or reductions. The checker checks only names and
	// types; whether it is linear (+ - and * by constants) and a legal order
	// for the recurrence is the planner's to decide.
	ScheduleExpr Expr

	Inputs  []*Input
	Scalars []*Scalar
	Cases   []*Case
	// Answer is the reported expression; nil means the last cell the
	// schedule computes (cell[ROWS-1][COLS-1] forward, cell[0][0] backward).
	Answer    Expr
	AnswerPos source.Pos

	// CellRefs lists every cell reference of the recurrence (not of the
	// answer) in source order; CellRef.ID indexes it.
	CellRefs []*CellRef
	RecurPos source.Pos

	// Of, when not nil, is the problem this one is a band of rows of: a
	// traceback in linear memory recomputes the grid band by band
	// (package backend/checkpoint). Cell [0][0] of this grid is cell
	// [RowBase][ColBase] of Of's (ColBase is not 0 only in a band of a
	// transposed band: two levels of checkpoints), and messages name
	// cells and the grid as the user's problem has them, wherever they
	// come from.
	Of               *Problem
	RowBase, ColBase int64
	// Swapped: the band is stored transposed — its rows are Of's
	// columns (from ColBase) and its columns Of's rows (from RowBase) —
	// so that a band of few rows and many columns runs, on a GPU, as
	// many rows.
	Swapped bool

	// Notes are remarks on what the file may not mean, which are no
	// errors (a fraction dropped into integer cells): the command line
	// prints them before it runs.
	Notes source.ErrorList
}

// Input returns the input with the given name, or nil.
func (p *Problem) Input(name string) *Input {
	for _, in := range p.Inputs {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// Scalar returns the scalar with the given name, or nil.
func (p *Problem) Scalar(name string) *Scalar {
	for _, s := range p.Scalars {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Cells is the number of grid cells.
func (p *Problem) Cells() int64 { return p.Rows * p.Cols }

// CellText names cell [i][j] of p's grid as a user wrote it, for messages:
// cell[2][5] in a 2-D grid, cell[5] in a 1-D grid (whose cells all have
// i = 0). Every stage words cells through it, so that a 1-D problem's
// messages never show the row that the lowering added.
//
// A 3-D problem's cell [i][j] of the lowered grid is cell[i][j/C][j%C];
// a column outside the grid has no such coordinates (CellText3).
func (p *Problem) CellText(i, j int64) string {
	if p.Of != nil {
		if p.Swapped {
			return p.Of.CellText(j+p.RowBase, i+p.ColBase)
		}
		return p.Of.CellText(i+p.RowBase, j+p.ColBase)
	}
	if len(p.Tables) > 0 && (p.Dims == 2 || p.Dims == 1) {
		t, jj := TableOf(j, len(p.Tables))
		if p.Dims == 1 {
			return p.Tables[t] + "[" + strconv.FormatInt(jj, 10) + "]"
		}
		return p.Tables[t] + "[" + strconv.FormatInt(i, 10) + "][" + strconv.FormatInt(jj, 10) + "]"
	}
	switch p.Dims {
	case 1:
		return "cell[" + strconv.FormatInt(j, 10) + "]"
	case 3:
		return CellText3(i, j, p.Mid, p.Inner)
	}
	return "cell[" + strconv.FormatInt(i, 10) + "][" + strconv.FormatInt(j, 10) + "]"
}

// TableOf decodes a flat column J of a grid of several tables (see
// Problem.Tables) into the table t and the user's column j, J = j*T + t.
// It floors, so that a column outside the flat grid decodes to the cell
// outside the user's grid that a reference named: J = -1 is the last
// table's cell at j = -1.
func TableOf(J int64, tables int) (t int, j int64) {
	n := int64(tables)
	j = J / n
	if J%n < 0 {
		j--
	}
	return int(J - j*n), j
}

// CellText3 names cell [i][j] of the grid a 3-D grid of sides K x mid x
// inner is lowered to, as cell[k][i][j]. A column j outside 0..mid*inner-1
// is not a cell of any plane (the lowering makes an out-of-range inner
// subscript such a column): it is written cell[i][?][?].
func CellText3(i, j, mid, inner int64) string {
	k := strconv.FormatInt(i, 10)
	if inner <= 0 || j < 0 || j/inner >= mid {
		return "cell[" + k + "][?][?]"
	}
	return "cell[" + k + "][" + strconv.FormatInt(j/inner, 10) + "][" + strconv.FormatInt(j%inner, 10) + "]"
}

// Outside3 decodes the column that a guarded 3-D reference reads when one
// of its inner subscripts is outside the grid (see CellRef.Mid): the flat
// index i*cols + j of the cell being computed, ok false where the read
// names no cell (a reference of the answer).
func Outside3(j int64) (flat int64, ok bool) {
	if j > -2 {
		return 0, false
	}
	return -2 - j, true
}

// OutsideColumn3 is the column a guarded reference of a 3-D grid reads
// when its inner subscripts are outside the grid, computing the cell of
// flat index flat (i*cols + j; -1 for the answer, which computes none):
// always negative, so outside the grid, and decoded by Outside3.
func OutsideColumn3(flat int64) int64 { return -2 - flat }

// GridText names p's grid for messages, as a noun phrase to follow "the":
// "5x7 grid", "4x5x5 grid" (3-D), or "1-D grid of 17 cells" (so that "outside the %s" reads
// well for both).
func (p *Problem) GridText() string {
	if p.Of != nil {
		return p.Of.GridText()
	}
	if len(p.Tables) > 1 && p.Dims == 2 {
		return fmt.Sprintf("%dx%d grid", p.Rows, p.Cols/int64(len(p.Tables)))
	}
	if len(p.Tables) > 1 && p.Dims == 1 {
		return fmt.Sprintf("1-D grid of %d cells", p.Cols/int64(len(p.Tables)))
	}
	switch p.Dims {
	case 1:
		return fmt.Sprintf("1-D grid of %d cells", p.Cols)
	case 3:
		return fmt.Sprintf("%dx%dx%d grid", p.Rows, p.Mid, p.Inner)
	}
	return fmt.Sprintf("%dx%d grid", p.Rows, p.Cols)
}

// OwnCond is c's condition as its table's recurrence wrote it, without the
// test J % T == c.Table that the lowering of T tables puts before it (nil:
// the table's `otherwise`); ok is false where c.Cond does not start with
// that test (the last table's `otherwise` has none: ok, nil), e.g. a case
// a later stage added for every table.
func (c *Case) OwnCond(tables int, last bool) (own Expr, ok bool) {
	t, own, ok := SplitTableTest(c.Cond, tables, last)
	if !ok || t != c.Table {
		return nil, false
	}
	return own, true
}

// SplitTableTest finds, in a condition of the flat list of cases of T
// tables, the test J % T == t that the lowering puts first in every case
// of table t: it returns t and the rest of the condition (nil where the
// test is all of it). A case without condition is the last table's
// `otherwise` when it is the last case (last). ok is false for any other
// condition: a case that no one table owns.
func SplitTableTest(cond Expr, tables int, last bool) (t int, own Expr, ok bool) {
	test := func(e Expr) (int, bool) {
		eq, ok := e.(*Binary)
		if !ok || eq.Op != OpEq {
			return 0, false
		}
		rem, ok1 := eq.X.(*Binary)
		k, ok2 := eq.Y.(*Const)
		if !ok1 || !ok2 || rem.Op != OpRem || k.V.I < 0 || k.V.I >= int64(tables) {
			return 0, false
		}
		v, ok1 := rem.X.(*Var)
		n, ok2 := rem.Y.(*Const)
		if !ok1 || !ok2 || v.Kind != VarJ || v.Reduce != nil || n.V.I != int64(tables) {
			return 0, false
		}
		return int(k.V.I), true
	}
	switch {
	case cond == nil:
		return tables - 1, nil, last
	}
	if t, ok := test(cond); ok {
		return t, nil, true
	}
	if and, ok := cond.(*Binary); ok && and.Op == OpAnd {
		if t, ok := test(and.X); ok {
			return t, and.Y, true
		}
	}
	return 0, nil, false
}
