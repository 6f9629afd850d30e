// Package plan is the analysis stage: from a checked ir.Problem it derives the
// dependency offset of every cell reference, chooses the schedule (how the
// grid is swept: rows, columns or anti-diagonal wavefront), infers or validates `prev`, and estimates the memory a run
// needs. It decides what may run in parallel; it does not decide threads,
// tiles or kernels, which belong to each runtime.
package plan

import (
	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"slices"
)

// Kind is a schedule.
type Kind string

const (
	Wavefront Kind = "wavefront" // anti-diagonals in parallel
	Rows      Kind = "rows"      // each row in parallel
	Cols      Kind = "cols"      // each column in parallel
	// Interval: fronts of equal j - i (t = j - i), by increasing interval
	// length: interval DP (matrix chain, Nussinov, optimal BST).
	Interval Kind = "interval"
	// Hyperplanar: fronts of equal t = A*i + B*j for any other hyperplane
	// (Plan.T), found by the planner or forced by `schedule: t = EXPR`.
	Hyperplanar Kind = "hyperplane"
)

// Generic reports whether k is a schedule the back ends run front by front
// over the whole grid kept in memory (Plan.T, Plan.Fronts), rather than
// one of the rotating-buffer sweeps of contract v1.
func (k Kind) Generic() bool { return k == Interval || k == Hyperplanar }

// Direction is the order of the sweep. Forward: increasing i (rows),
// increasing j (cols), or from cell[0][0] (wavefront). Backward: the reverse.
type Direction string

const (
	Forward  Direction = "forward"
	Backward Direction = "backward"
)

// Dependency is one cell reference of the recurrence and how far back the
// referenced cell is: DI = i - (row index), DJ = j - (column index). A nil
// offset is data-dependent (or depends on the other index).
type Dependency struct {
	Ref    *ir.CellRef
	DI, DJ *int64
	// Checked (generic schedules only): nothing proves that the reference
	// reads an earlier front (its offset depends on data the loaded values
	// do not bound tightly enough, e.g. cell[p[j-1]]); executors check each
	// read at run time and stop with the .dp line and the cell when it
	// reads a front that is not finished (plan.Plan.T).
	Checked bool
	// RangeI and RangeJ are the least and greatest offset along each axis
	// over every cell and every value of the reduction variables (a side
	// nothing bounds is math.MinInt64 or math.MaxInt64: analysis.Full's);
	// a constant offset is a point. For `dpgpu check`.
	RangeI, RangeJ analysis.Range
	// Range3 (a 3-D grid) is the offsets along the user's three axes k,
	// i, j (the flat column's RangeJ folds i and j into one), for
	// `dpgpu check`.
	Range3 [3]analysis.Range
	// Column: the reference's row moves with a reduction variable while
	// its column stays (`cell[k+1][j]`): it walks down a column, which
	// the executors read from the transposed copy (Plan.Transposed).
	Column bool
}

// Plan is the result of the analysis.
type Plan struct {
	Schedule  Kind
	Direction Direction
	// T is the front function t = A*i + B*j: the cells of one front are
	// independent, fronts run by increasing t. Every schedule has one
	// (rows (1,0), wavefront (1,1), ...); the back ends enumerate the
	// fronts of a Generic schedule with T.Front.
	T Hyperplane
	// Fronts is the number of fronts, T.Range's last - first + 1.
	Fronts int64
	// Reach is how many fronts back a reference may read (the widest
	// range for a reference over a range); ReachBounded is false when it
	// is bounded only by the grid.
	Reach        int64
	ReachBounded bool
	// Transposed (generic schedules): some reference's row walks with a
	// reduction variable while its column stays (`cell[k+1][j]`, k in
	// i..j-1), so the executors keep a transposed copy of the grid too,
	// written with every cell, and read such references from it in
	// consecutive memory. Memory counts it; an executor without room for
	// it runs without.
	Transposed bool
	// Serial (generic schedules): the grid's row-major order is a legal
	// order too — every reference reads a cell before its own in that
	// order, with nothing to check at run time — so one worker may compute
	// the cells in it instead of front by front. Consecutive cells are then
	// neighbours in memory, where the cells of a front of a 3-D hyperplane
	// (or of an anti-diagonal) lie a row apart: three-string LCS at 300³
	// took 0.09 s on one core that way, 0.37 s by fronts (a 2-core VM).
	// A forward cols schedule of a grid of one row (a 1-D grid: stock
	// trading, Fibonacci-like sums) is Serial too: its columns are its
	// cells, left to right.
	Serial bool
	// SerialLag (Serial plans) is how many columns to the right of a cell
	// a reference into an earlier row may read, at least 0: several
	// workers may then compute the rows in row-major order at once, each
	// row that far behind the one before (the compiled host sweep's
	// pipeline). -1 where no pipeline pays: nothing bounds the lag, it is
	// half a row or more, or the grid has one row.
	SerialLag int64
	Reason    string // why this schedule, for a person
	// Special, when not nil, is a better algorithm than the schedule for
	// the answer, which executors run unless asked not to.
	Special *Special
	// Prev is how many previous rows (rows), columns (cols) or
	// anti-diagonals (wavefront) a cell may read.
	Prev         int
	PrevInferred bool
	Deps         []Dependency
	Memory       Memory
	Answer       AnswerSpec
	// Cells is T where the schedule is the wavefront of the cells of a
	// recurrence of T tables (Hyperplanar, T = (Cells, 1): see cells.go):
	// executors that know it compute a cell's tables together and keep a
	// window instead of the grid; 0 otherwise.
	Cells int64
	// DataBound: the input values bounded a reference's reach (a
	// knapsack's cell[i-1][j-w[i-1]] reaches back as far as the heaviest
	// item), so the plan is its instance's; otherwise it is that of every
	// instance of the same file, sizes and scalars (Rebind).
	DataBound bool
}

// Rebind is pl, made for another instance of p's file with p's sizes,
// scalars and input shapes, for p: the references and the special
// algorithm's sequences are p's own. ok is false where pl cannot serve
// p: its reach depended on its instance's data (DataBound), its answer
// reads inputs, or p's references are not pl's.
func Rebind(pl *Plan, p *ir.Problem) (q *Plan, ok bool) {
	if pl.DataBound || len(pl.Deps) != len(p.CellRefs) || pl.Answer.Expr != nil && ReadsInput(pl.Answer.Expr) {
		return nil, false
	}
	q = new(Plan)
	*q = *pl
	q.Deps = slices.Clone(pl.Deps)
	for k := range q.Deps {
		ref := p.CellRefs[k]
		if q.Deps[k].Ref.Text != ref.Text || q.Deps[k].Ref.Pos != ref.Pos {
			return nil, false
		}
		q.Deps[k].Ref = ref
	}
	if s := pl.Special; s != nil {
		c := *s
		c.A, c.B = p.Input(s.A.Name), p.Input(s.B.Name)
		if c.A == nil || c.B == nil {
			return nil, false
		}
		q.Special = &c
	}
	return q, true
}

// ReadsInput reports whether e reads an input: an answer expression that
// does cannot serve another instance (its reads are of its own inputs).
func ReadsInput(e ir.Expr) bool {
	return ir.Any(e, func(x ir.Expr) bool { _, ok := x.(*ir.Load); return ok })
}

// Memory is the estimate of what a run needs, in bytes. Executors check
// the part they are about to allocate against the memory available before
// allocating anything, and refuse with hostmem.ErrTooLarge.
type Memory struct {
	// Device is what the thesis's rotating model needs on a GPU: prev+1
	// buffers of the sweep's width, plus the inputs.
	Device int64
	// Host is the peak resident memory of the whole process for a
	// `solve -b cpu` run with one worker per core: Baseline + HostInputs +
	// Work + Grid. It is what `dpgpu check` reports, so that a person can
	// compare it with what the machine has (it tracks the measured maximum
	// RSS; docs/performance.md has the figures).
	Host int64
	// Inputs is the size of all inputs on the device.
	Inputs int64

	// Baseline is the resident memory of the dpgpu process before the
	// problem's own data: the Go runtime, the program's code and tables.
	Baseline int64
	// HostInputs is what the inputs take on the host: the checked values
	// and what the loaders leave resident while reading them
	// (InputHostBytes).
	HostInputs int64
	// Work is the CPU executor's working buffers for Threads workers: the
	// rotating lines (rows, cols) or the wave edges and tiles (wavefront),
	// in 8-byte cells whatever the cell type, and each worker's registers.
	Work int64
	// Grid is the whole grid when it is kept (maintain: 1), else 0.
	Grid int64
	// Threads is the number of CPU workers Work assumes.
	Threads int
}

// AnswerKind says how the answer is read from the grid.
type AnswerKind uint8

const (
	// AnswerCell: the answer is one cell, (I, J). This is the default (the
	// last cell of the sweep) and `answer: cell[a][b]` with constant indices.
	AnswerCell AnswerKind = iota
	// AnswerRegion: the answer is Op over the rectangle of cells rows I0..I1,
	// columns J0..J1 (inclusive), e.g. `max(i in 0..ROWS-1: max(j in
	// 0..COLS-1: cell[i][j]))` (local alignment). Executors compute it as a
	// streaming reduction while cells are computed, so it works without
	// keeping the grid, and report the winning cell (the first in the sweep's
	// order on ties) for min and max.
	AnswerRegion
	// AnswerExpr: any other expression. Cells lists every cell it reads;
	// executors capture those cells as they are computed and the host
	// evaluates Expr with them.
	AnswerExpr
)

// AnswerSpec is how executors obtain the answer.
type AnswerSpec struct {
	Kind AnswerKind
	I, J int64 // AnswerCell

	Op             ir.ReduceOp // AnswerRegion
	I0, I1, J0, J1 int64       // AnswerRegion
	// JStep (AnswerRegion): the region's columns are J0, J0+JStep, ...,
	// J1 — 1 for every column, T for one table of a recurrence of T
	// tables, whose cells of one table lie T flat columns apart.
	JStep int64

	Expr  ir.Expr    // AnswerExpr (and the original expression for the others, nil for the default)
	Cells [][2]int64 // AnswerExpr: the cells Expr reads, sorted, without duplicates
}

// Choices is the cells of an answer that selects one of them: `max(A, B,
// ...)` or `min(...)` (isMin) of cells at constant coordinates (`answer:
// max(sold[N-1], rest[N-1])`), in argument order; nil for any other answer.
// The winning cell (eval.WinningArg: the first of equal values) starts a
// traceback, as a region's winner does (contract v2 §7.4).
func (a AnswerSpec) Choices() (cells [][2]int64, isMin bool) {
	if a.Kind != AnswerExpr || a.Expr == nil {
		return nil, false
	}
	call, ok := ir.StripConversions(a.Expr).(*ir.Call)
	if !ok || (call.Fn != ir.FnMax && call.Fn != ir.FnMin) || len(call.Args) < 2 {
		return nil, false
	}
	for _, arg := range call.Args {
		ref, ok := ir.StripConversions(arg).(*ir.CellRef)
		if !ok {
			return nil, false
		}
		i, ok1 := ir.StripConversions(ref.I).(*ir.Const)
		j, ok2 := ir.StripConversions(ref.J).(*ir.Const)
		if !ok1 || !ok2 {
			return nil, false
		}
		cells = append(cells, [2]int64{i.V.I, j.V.I})
	}
	return cells, call.Fn == ir.FnMin
}

// EveryColumn reports whether a region answer covers every column of a
// grid of cols flat columns: all of them (tables 1), or every cell of one
// table of a recurrence of that many tables (J0 the table, step tables).
// Instances of fewer columns answer their own columns' region then.
func (a AnswerSpec) EveryColumn(cols, tables int64) bool {
	if tables <= 1 {
		return a.J0 == 0 && a.J1 == cols-1 && a.JStep <= 1
	}
	return a.JStep == tables && a.J0 >= 0 && a.J0 < tables && a.J1 == cols-tables+a.J0
}
