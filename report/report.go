// Package report is the pipeline's last stage: it turns an analysed problem
// and a run's result into text for a person or JSON for a program. It
// computes nothing of its own beyond formatting and unit conversions.
package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/heldkarp"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// Bytes renders a byte count with a binary unit: "1.5 GiB".
func Bytes(n int64) string { return hostmem.Bytes(n) }

// Count renders an integer with thousands separators: "1,234,567".
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Rate renders cells per second as GCUPS (giga cell updates per second).
func Rate(cellsPerSecond float64) string {
	return fmt.Sprintf("%.3f GCUPS", cellsPerSecond/1e9)
}

// infText renders v as "inf", "-inf" or "nan" when it is not finite: an
// IEEE infinity or NaN of a floating type, or the inf sentinel of an
// integer type (docs/language.md section 6.1: 2^31-1 for int, 2^63-1 for
// long, never a finite value). ok is false for finite values.
func infText(v ir.Value) (text string, ok bool) {
	switch {
	case v.T.IsFloat():
		switch {
		case math.IsInf(v.F, 1):
			return "inf", true
		case math.IsInf(v.F, -1):
			return "-inf", true
		case math.IsNaN(v.F):
			return "nan", true
		}
	case v.T.HasInf():
		pos, neg := ir.InfSentinel(v.T)
		switch v.I {
		case pos:
			return "inf", true
		case neg:
			return "-inf", true
		}
	}
	return "", false
}

// JSONValue converts a value for encoding/json: finite integers stay exact
// numbers, chars become one-character strings, and values that are not
// finite (JSON has no infinity) become the strings "inf", "-inf" and
// "nan", exactly as the text report prints them, whatever the type.
func JSONValue(v ir.Value) any {
	if text, ok := infText(v); ok {
		return text
	}
	switch {
	case v.T == ir.Char:
		return string(rune(v.I))
	case v.T.IsFloat():
		return v.F
	}
	return v.I
}

// ValueText renders a value for a person: inf, -inf and nan as JSONValue
// writes them, floating values with ten significant digits. An integer is
// inf only when it is the sentinel of its own type: a long holding
// 2147483647 is a finite long, whatever the cell type (which is kept in
// the signature for the callers).
func ValueText(v ir.Value, cellType ir.Type) string {
	if text, ok := infText(v); ok {
		return text
	}
	if v.T.IsFloat() {
		return fmt.Sprintf("%.10g", v.F)
	}
	return v.String()
}

// dimText renders an offset, "?" when data-dependent.
func dimText(d *int64) string {
	if d == nil {
		return "?"
	}
	return fmt.Sprint(*d)
}

// offsetText renders an offset, "?" when data-dependent, followed by its
// range where that is bounded: "? (0..5002)".
func offsetText(d *int64, r analysis.Range) string {
	if d != nil || r.IsEmpty() || r.Lo == math.MinInt64 || r.Hi == math.MaxInt64 {
		return dimText(d)
	}
	return fmt.Sprintf("? (%s)", rangeText(r))
}

// problemLine writes the first line of every report: the problem's name
// and its file.
func problemLine(w io.Writer, p *ir.Problem) {
	fmt.Fprintf(w, "problem    %s", p.Name)
	if p.File != "" {
		fmt.Fprintf(w, " (%s)", p.File)
	}
	fmt.Fprintln(w)
}

// gridLine writes the grid's size and cell type.
// A 3-D grid gives its three sides and the flat grid it runs as, whose
// rows are its k-planes: "4 x 3 x 3 = 36 cells of int (4 planes of 9)".
func gridLine(w io.Writer, p *ir.Problem) {
	if p.Dims == 3 {
		fmt.Fprintf(w, "grid       %s x %s x %s = %s cells of %s (%s planes of %s)\n", Count(p.Rows), Count(p.Mid), Count(p.Inner),
			Count(p.Cells()), p.CellType, Count(p.Rows), Count(p.Cols))
		return
	}
	if t := int64(len(p.Tables)); t > 1 && p.Dims == 1 {
		// A 1-D grid of several tables is the one flat row, cell j*T + table.
		fmt.Fprintf(w, "grid       %s cells (1-D), %d tables (%s) = %s cells of %s (cell j*%d + table of one row)\n", Count(p.Cols/t),
			t, strings.Join(p.Tables, ", "), Count(p.Cells()), p.CellType, t)
		return
	}
	if t := int64(len(p.Tables)); t > 1 {
		// Several tables run as one flat grid, column j*T + table.
		fmt.Fprintf(w, "grid       %s x %s, %d tables (%s) = %s cells of %s (columns j*%d + table)\n", Count(p.Rows), Count(p.Cols/t),
			t, strings.Join(p.Tables, ", "), Count(p.Cells()), p.CellType, t)
		return
	}
	if p.Dims == 1 {
		fmt.Fprintf(w, "grid       %s cells (1-D) of %s\n", Count(p.Cols), p.CellType)
		return
	}
	fmt.Fprintf(w, "grid       %s x %s = %s cells of %s\n", Count(p.Rows), Count(p.Cols), Count(p.Cells()), p.CellType)
}

// Check writes the analysis of a problem for a person.
func Check(w io.Writer, p *ir.Problem, pl *plan.Plan) {
	problemLine(w, p)
	gridLine(w, p)
	data(w, p)
	generic := pl.Schedule.Generic()
	if len(pl.Deps) > 0 && (generic || p.Dims == 1 || p.Dims == 3) {
		rangeDeps(w, p, pl)
	} else if len(pl.Deps) > 0 {
		iv, jv := p.IVar, p.JVar // (a 3-D grid's column is the flat (i*C + j))
		if iv == "" {
			iv = "i"
		}
		if jv == "" {
			jv = "j"
		}
		fmt.Fprintf(w, "dependencies (offset di, dj back from cell[%s][%s]; ? = data-dependent, with its range where the loaded data bound it)\n", iv, jv)
		for _, d := range pl.Deps {
			fmt.Fprintf(w, "  line %-4d %-28s di=%-3s dj=%s\n", d.Ref.Pos.Line, d.Ref.Text, offsetText(d.DI, d.RangeI), offsetText(d.DJ, d.RangeJ))
		}
	}
	fmt.Fprintf(w, "schedule   %s, %s\n", pl.Schedule, pl.Direction)
	fmt.Fprintf(w, "           %s\n", pl.Reason)
	if c := chainLine(p, pl); c != nil {
		gpu := "the GPU runs every term"
		if c.GPU {
			gpu = "the GPU too on rows wider than a block a multiprocessor, a thread a residue class modulo S"
		}
		fmt.Fprintf(w, "reduction  line %d: from its value S = %s columns back along the row, one term a cell (the CPU; %s)\n", c.Line, rangeText(analysis.Span(c.StepLo, c.StepHi)), gpu)
	}
	if s := pl.Special; s != nil {
		fmt.Fprintf(w, "algorithm  %s for the answer alone (a traceback, a kept grid or --no-special runs the schedule)\n", s.Name)
		fmt.Fprintf(w, "           %s\n", s.Why)
	}
	if generic {
		fronts(w, p, pl)
	} else {
		how := "declared"
		if pl.PrevInferred {
			how = "inferred"
		}
		fmt.Fprintf(w, "prev       %d (%s)\n", pl.Prev, how)
	}
	m := pl.Memory
	kept := "rotating buffers"
	if generic {
		kept = "the whole grid"
		if pl.Transposed {
			kept = "the whole grid and its transposed copy"
		}
		if pl.Cells > 0 {
			kept = "a strip's bottom rows, twice"
		}
	}
	fmt.Fprintf(w, "memory     device %s (%s + %s of inputs)\n", Bytes(m.Device), kept, Bytes(m.Inputs))
	fmt.Fprintf(w, "           host %s at most for solve -b cpu with %d threads: %s working buffers, %s inputs, %s runtime",
		Bytes(m.Host), m.Threads, Bytes(m.Work), Bytes(m.HostInputs), Bytes(m.Baseline))
	if m.Grid > 0 {
		fmt.Fprintf(w, ", %s the whole grid (kept)", Bytes(m.Grid))
	} else {
		fmt.Fprint(w, " (the grid is not kept; --maintain to estimate keeping it)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "answer     %s\n", answerText(p, pl.Answer))
}

// CheckTour writes the analysis of a problem that the Held-Karp solver
// runs: its inputs, the solver, and the memory the instance needs against
// availBytes, the host memory available (0 when unknown).
func CheckTour(w io.Writer, p *ir.Problem, tsp *heldkarp.Instance, availBytes int64) {
	problemLine(w, p)
	data(w, p)
	fmt.Fprintf(w, "schedule   %s, %s\n", heldkarp.Schedule, plan.Forward)
	fmt.Fprintf(w, "           %s\n", heldkarp.Reason)
	n := tsp.N
	host, dev := heldkarp.Requirements(n)
	fmt.Fprintf(w, "cities     %d: %s states\n", n, Count(int64(n-1)<<max(n-2, 0)))
	fmt.Fprintf(w, "memory     host %s (one predecessor byte per state), device %s (two layers of values)\n", Bytes(host), Bytes(dev))
	if availBytes > 0 {
		fmt.Fprintf(w, "limit      %s of host memory available: up to n = %d\n", Bytes(availBytes), heldkarp.MaxN(availBytes))
	}
}

// data writes a problem's inputs and scalars.
func data(w io.Writer, p *ir.Problem) {
	if len(p.Inputs) > 0 {
		fmt.Fprintln(w, "inputs")
		for _, in := range p.Inputs {
			shape := fmt.Sprintf("%dx%d", in.Rows, in.Cols)
			fmt.Fprintf(w, "  %-10s %-6s %-12s %s\n", in.Name, in.T, shape, in.Origin)
		}
	}
	if len(p.Scalars) > 0 {
		fmt.Fprintln(w, "scalars")
		for _, s := range p.Scalars {
			kind := ""
			if s.Derived {
				kind = " (derived)"
			}
			fmt.Fprintf(w, "  %-10s %-6s %s%s\n", s.Name, s.Value.T, s.Value, kind)
		}
	}
}

// AnswerText describes where the answer comes from, with the cells of a
// 2-D grid (answerText words those of p's grid, 1-D included).
func AnswerText(a plan.AnswerSpec) string { return answerText(&ir.Problem{Dims: 2}, a) }

// answerText describes where p's answer comes from: "cell[4][7]",
// "max over cells [0..4][0..7] (streamed)"; in a 1-D grid "cell[7]",
// "max over cells [0..7] (streamed)".
func answerText(p *ir.Problem, a plan.AnswerSpec) string {
	switch a.Kind {
	case plan.AnswerCell:
		return p.CellText(a.I, a.J)
	case plan.AnswerRegion:
		if p.Dims == 1 {
			return fmt.Sprintf("%s over cells [%d..%d] (streamed)", a.Op, a.J0, a.J1)
		}
		if a.JStep > 1 && len(p.Tables) == int(a.JStep) {
			// One table of several, named as the user does.
			t, j0 := ir.TableOf(a.J0, len(p.Tables))
			_, j1 := ir.TableOf(a.J1, len(p.Tables))
			return fmt.Sprintf("%s over %s[%d..%d][%d..%d] (streamed)", a.Op, p.Tables[t], a.I0, a.I1, j0, j1)
		}
		return fmt.Sprintf("%s over cells [%d..%d][%d..%d] (streamed)", a.Op, a.I0, a.I1, a.J0, a.J1)
	}
	return fmt.Sprintf("an expression over %d cell(s)", len(a.Cells))
}

// ProblemJSON is what the JSON analysis (CheckJSON) and the JSON result
// (SolveJSON) both begin with: the problem, its grid, its cell type and its
// schedule.
type ProblemJSON struct {
	Problem   string `json:"problem"`
	File      string `json:"file,omitempty"`
	Rows      int64  `json:"rows"`
	Cols      int64  `json:"cols"`
	CellType  string `json:"cell_type"`
	Schedule  string `json:"schedule"`
	Direction string `json:"direction"`
}

// problemJSON fills the part of ProblemJSON that comes from the checked
// problem alone (the schedule is the plan's or the solver's).
func problemJSON(p *ir.Problem) ProblemJSON {
	return ProblemJSON{Problem: p.Name, File: p.File, Rows: p.Rows, Cols: p.Cols, CellType: p.CellType.String()}
}

// CheckJSON is the machine-readable analysis.
type CheckJSON struct {
	ProblemJSON
	Reason       string       `json:"reason"`
	Prev         int          `json:"prev"`
	PrevInferred bool         `json:"prev_inferred"`
	Inputs       []InputJSON  `json:"inputs"`
	Scalars      []ScalarJSON `json:"scalars"`
	Dependencies []DepJSON    `json:"dependencies"`
	Memory       MemoryJSON   `json:"memory"`
	Answer       string       `json:"answer"`
	// Special is the algorithm run instead of the schedule for the
	// answer alone (plan.Special), absent when there is none.
	Special *SpecialJSON `json:"special,omitempty"`
	// Chain is the reduction computed from the one a step back along the
	// row (analysis.FirstChain), absent when there is none.
	Chain *ChainJSON `json:"chain,omitempty"`
	// Notes are the checker's notes (ir.Problem.Notes), which stop
	// nothing: a fraction dropped into integer cells.
	Notes []NoteJSON `json:"notes,omitempty"`
	// The fronts of a generic schedule (plan.Kind.Generic); absent for
	// the rows, cols and wavefront sweeps.
	Fronts *FrontsJSON `json:"fronts,omitempty"`
	// Traceback is how a traceback would keep the grid (check);
	// TracebackGPU how it would on a GPU (check --device-memory).
	Traceback    *TraceJSON `json:"traceback,omitempty"`
	TracebackGPU *TraceJSON `json:"traceback_gpu,omitempty"`
}

// NoteJSON is one of the checker's notes, with its place in the file.
type NoteJSON struct {
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// ChainJSON is the reduction the CPU computes from the one a step back
// along the row (analysis.FirstChain), and the steps the data allow.
type ChainJSON struct {
	Line   int   `json:"line"`
	StepLo int64 `json:"step_lo"`
	StepHi int64 `json:"step_hi"`
	// GPU: the GPU chains it too (analysis.ClassChain: its bound is
	// exactly j / S); else its line kernels run every term.
	GPU bool `json:"gpu"`
}

// chainLine is the chained reduction of a rows schedule, nil without one.
// Its steps S are the range the loaded data give them.
func chainLine(p *ir.Problem, pl *plan.Plan) *ChainJSON {
	if pl.Schedule != plan.Rows {
		return nil
	}
	r := analysis.FirstChain(p)
	if r == nil {
		return nil
	}
	ch, _ := analysis.ChainOf(r)
	w := &analysis.Walker{Config: analysis.Config{Failure: analysis.Stops, Rows: p.Rows, Cols: p.Cols, Input: analysis.NewInputBounds(p).Load}}
	s := w.Range(ch.S, analysis.NewEnv(analysis.Span(0, p.Rows-1), analysis.Span(0, p.Cols-1)))
	_, _, gpu := analysis.ClassChain(p)
	return &ChainJSON{Line: r.Pos.Line, StepLo: s.Lo, StepHi: s.Hi, GPU: gpu}
}

// SpecialJSON is a recognised algorithm (plan.Special).
type SpecialJSON struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Why  string `json:"why"`
}

func specialJSON(s *plan.Special) *SpecialJSON {
	if s == nil {
		return nil
	}
	return &SpecialJSON{Kind: string(s.Kind), Name: s.Name, Why: s.Why}
}

// InputJSON describes one input.
type InputJSON struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Rows   int    `json:"rows"`
	Cols   int    `json:"cols"`
	Origin string `json:"origin"`
}

// ScalarJSON describes one scalar.
type ScalarJSON struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Value   any    `json:"value"`
	Derived bool   `json:"derived"`
}

// DepJSON is one dependency; DI/DJ are null when data-dependent.
type DepJSON struct {
	Text string `json:"text"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	DI   *int64 `json:"di"`
	DJ   *int64 `json:"dj"`
	// Generic schedules: the least and greatest offset along each axis
	// over every cell and reduction value ([lo, hi], a side null when
	// unbounded), and whether each read is checked at run time because
	// nothing proves that it reads an earlier front.
	// DKRange (a 3-D grid) is the offset along k; DIRange and DJRange
	// are then along the user's i and j.
	DKRange []*int64 `json:"dk_range,omitempty"`
	DIRange []*int64 `json:"di_range,omitempty"`
	DJRange []*int64 `json:"dj_range,omitempty"`
	Checked bool     `json:"checked,omitempty"`
}

// MemoryJSON is the memory estimate.
type MemoryJSON struct {
	DeviceBytes int64 `json:"device_bytes"`
	HostBytes   int64 `json:"host_bytes"` // peak of a CPU run: the sum of the four below
	InputBytes  int64 `json:"input_bytes"`
	// The parts of HostBytes (plan.Memory).
	HostRuntimeBytes int64 `json:"host_runtime_bytes"`
	HostInputBytes   int64 `json:"host_input_bytes"`
	HostWorkBytes    int64 `json:"host_work_bytes"`
	HostGridBytes    int64 `json:"host_grid_bytes"`
	Threads          int   `json:"threads"`
}

// CheckObject builds the JSON analysis.
func CheckObject(p *ir.Problem, pl *plan.Plan) CheckJSON {
	c := checkData(p)
	c.Schedule, c.Direction, c.Reason = string(pl.Schedule), string(pl.Direction), pl.Reason
	c.Prev, c.PrevInferred = pl.Prev, pl.PrevInferred
	c.Memory = MemoryJSON{DeviceBytes: pl.Memory.Device, HostBytes: pl.Memory.Host, InputBytes: pl.Memory.Inputs,
		HostRuntimeBytes: pl.Memory.Baseline, HostInputBytes: pl.Memory.HostInputs, HostWorkBytes: pl.Memory.Work,
		HostGridBytes: pl.Memory.Grid, Threads: pl.Memory.Threads}
	c.Answer = answerText(p, pl.Answer)
	c.Special = specialJSON(pl.Special)
	c.Chain = chainLine(p, pl)
	for _, n := range p.Notes {
		c.Notes = append(c.Notes, NoteJSON{Line: n.Pos.Line, Col: n.Pos.Col, Message: n.Msg})
	}
	for _, d := range pl.Deps {
		dep := DepJSON{Text: d.Ref.Text, Line: d.Ref.Pos.Line, Col: d.Ref.Pos.Col, DI: d.DI, DJ: d.DJ}
		if pl.Schedule.Generic() {
			dep.DIRange, dep.DJRange, dep.Checked = rangeJSON(d.RangeI), rangeJSON(d.RangeJ), d.Checked
		}
		if p.Dims == 3 {
			// Along the user's three axes (the flat column folds i and j).
			dep.DKRange, dep.DIRange, dep.DJRange = rangeJSON(d.Range3[0]), rangeJSON(d.Range3[1]), rangeJSON(d.Range3[2])
		}
		c.Dependencies = append(c.Dependencies, dep)
	}
	if pl.Schedule.Generic() {
		c.Fronts = frontsObject(p, pl)
	}
	return c
}

// CheckTourObject builds the JSON analysis of a problem that the Held-Karp
// solver runs: the same object, with no grid, dependencies, memory
// estimate or answer cell (the zero values a program already reads).
func CheckTourObject(p *ir.Problem) CheckJSON {
	c := checkData(p)
	c.Schedule, c.Direction, c.Reason = heldkarp.Schedule, string(plan.Forward), heldkarp.Reason
	return c
}

// checkData is the part of the JSON analysis that comes from the checked
// problem alone.
func checkData(p *ir.Problem) CheckJSON {
	c := CheckJSON{ProblemJSON: problemJSON(p), Inputs: []InputJSON{}, Scalars: []ScalarJSON{}, Dependencies: []DepJSON{}}
	for _, in := range p.Inputs {
		c.Inputs = append(c.Inputs, InputJSON{in.Name, in.T.String(), in.Rows, in.Cols, in.Origin})
	}
	for _, s := range p.Scalars {
		c.Scalars = append(c.Scalars, ScalarJSON{s.Name, s.Value.T.String(), JSONValue(s.Value), s.Derived})
	}
	return c
}

// SolveJSON is the machine-readable result of `dpgpu solve`.
type SolveJSON struct {
	ProblemJSON
	Prev    int    `json:"prev"`
	Backend string `json:"backend"`
	Device  string `json:"device"`
	// Algorithm is the algorithm that ran instead of the schedule
	// (backend.Result.Special), absent when the schedule ran.
	Algorithm   *SpecialJSON `json:"algorithm,omitempty"`
	Answer      any          `json:"answer"`
	AnswerCell  []int64      `json:"answer_cell,omitempty"`
	Emitted     []any        `json:"emitted,omitempty"`
	EmittedText string       `json:"emitted_text,omitempty"`
	Path        int          `json:"path_length,omitempty"`
	PathCells   [][]int64    `json:"path,omitempty"` // [i, j] of each cell ([k, i, j] on a 3-D grid, [0, j] on a 1-D one; flat columns j*T + table with several tables)
	// AnswerText and PathText name the cells of a recurrence of several
	// tables as the user does, H[3][5] (absent for one table, whose
	// answer_cell and path are the user's coordinates already).
	AnswerText     string     `json:"answer_cell_text,omitempty"`
	PathText       []string   `json:"path_text,omitempty"`
	Solution       string     `json:"solution,omitempty"`
	Tree           []NodeJSON `json:"tree,omitempty"` // a traceback that branches: its nodes in pre-order
	Tour           []int      `json:"tour,omitempty"` // Held-Karp: the cities (0-based) in visiting order
	Cells          int64      `json:"cells"`
	Seconds        float64    `json:"seconds"`
	ComputeSeconds float64    `json:"compute_seconds"`
	CompileSeconds float64    `json:"compile_seconds"`
	CompileCached  bool       `json:"compile_cached"`
	CellsPerSecond float64    `json:"cells_per_second"`
	PeakHostBytes  int64      `json:"peak_host_bytes"`
	DeviceBytes    int64      `json:"device_bytes"`
	// Traceback is how the traceback kept the grid, when it kept
	// checkpoints rather than the whole grid.
	Traceback *TraceJSON `json:"traceback,omitempty"`
	// Alignment is the traceback of an alignment problem as a record
	// (CIGAR and coordinates), absent for other problems.
	Alignment *AlignJSON `json:"alignment,omitempty"`
}

// SolveObject builds the JSON result. tree is the traceback (nil without
// one): a path is written as the path and its emitted values, a tree that
// branches as its nodes. solution is the rendered solution ("" when none).
func SolveObject(p *ir.Problem, pl *plan.Plan, r *backend.Result, tree *traceback.Node, solution string) SolveJSON {
	s := solveData(p, r.Backend, r.Device, r.Answer, r.Stats)
	s.Schedule, s.Direction, s.Prev = string(pl.Schedule), string(pl.Direction), pl.Prev
	s.Algorithm = specialJSON(r.Special)
	s.Solution = solution
	if r.Path == nil && tree != nil {
		s.Tree = treeObject(p, tree)
	}
	if r.AnswerIsCell {
		s.AnswerCell = []int64{r.AnswerI, r.AnswerJ}
		if p.Dims == 3 {
			s.AnswerCell = userCell(p, r.AnswerI, r.AnswerJ)
		}
	}
	if r.Path != nil {
		s.PathCells = make([][]int64, len(r.Path))
		for k, c := range r.Path {
			s.PathCells[k] = []int64{c[0], c[1]}
			if p.Dims == 3 {
				s.PathCells[k] = userCell(p, c[0], c[1])
			}
		}
		s.Path = len(r.Path)
		if len(p.Tables) > 1 {
			s.PathText = make([]string, len(r.Path))
			for k, c := range r.Path {
				s.PathText[k] = p.CellText(c[0], c[1])
			}
		}
	}
	if r.AnswerIsCell && len(p.Tables) > 1 {
		s.AnswerText = p.CellText(r.AnswerI, r.AnswerJ)
	}
	if r.Emitted != nil {
		s.Emitted = []any{}
		var text strings.Builder
		for _, v := range r.Emitted {
			s.Emitted = append(s.Emitted, JSONValue(v))
			if v.T == ir.Char {
				text.WriteRune(rune(v.I))
			}
		}
		s.EmittedText = text.String()
	}
	return s
}

// TourObject builds the JSON result of a Held-Karp run on backendName's
// device.
func TourObject(p *ir.Problem, r *heldkarp.Result, backendName, device string) SolveJSON {
	s := solveData(p, backendName, device, r.Answer(), r.Stats())
	s.Schedule, s.Direction = heldkarp.Schedule, string(plan.Forward)
	s.Tour = r.Tour
	return s
}

// solveData is the part of the JSON result every solver fills.
func solveData(p *ir.Problem, backendName, device string, answer ir.Value, st backend.Stats) SolveJSON {
	return SolveJSON{
		ProblemJSON: problemJSON(p), Backend: backendName, Device: device, Answer: JSONValue(answer),
		Cells: st.Cells, Seconds: st.Seconds, ComputeSeconds: st.ComputeSeconds,
		CompileSeconds: st.CompileSeconds, CompileCached: st.CompileCached,
		CellsPerSecond: st.CellsPerSecond(), PeakHostBytes: st.PeakHostBytes, DeviceBytes: st.DeviceBytes,
	}
}

// pathText is PathText in p's user coordinates (userCell): "[0] [2] [5]"
// on a 1-D grid, "[0][0][3] [1][1][4]" on a 3-D one, "hold[0] sold[1]"
// (ir.Problem.CellText) with several tables.
func pathText(p *ir.Problem, path [][2]int64) string {
	var b strings.Builder
	for k, c := range path {
		if k > 0 {
			b.WriteByte(' ')
		}
		if len(p.Tables) > 1 {
			// Several tables: the cell as the user names it, hold[3].
			b.WriteString(p.CellText(c[0], c[1]))
			continue
		}
		// The user's coordinates: [j] of a 1-D grid, [k][i][j] of a 3-D one.
		for _, x := range userCell(p, c[0], c[1]) {
			fmt.Fprintf(&b, "[%d]", x)
		}
	}
	return b.String()
}

// PathText renders traceback cells in path order: "[0][0] [1][1] [2][1]".
func PathText(path [][2]int64) string {
	var b strings.Builder
	for k, c := range path {
		if k > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "[%d][%d]", c[0], c[1])
	}
	return b.String()
}

// Solve writes a run's result for a person. tree is the traceback (nil
// without one); one that branches is printed as an outline when there is
// no rendered solution.
func Solve(w io.Writer, p *ir.Problem, pl *plan.Plan, r *backend.Result, tree *traceback.Node, solution string) {
	problemLine(w, p)
	gridLine(w, p)
	switch {
	case pl.Cells > 0 && r.Grid == nil:
		fmt.Fprintf(w, "schedule   %s (%s), %s, the cells' anti-diagonals (%d tables a cell), a window kept\n", pl.Schedule, hyperplaneText(p, pl), pl.Direction, pl.Cells)
	case pl.Schedule.Generic():
		fmt.Fprintf(w, "schedule   %s (%s), %s, the whole grid kept\n", pl.Schedule, hyperplaneText(p, pl), pl.Direction)
	default:
		fmt.Fprintf(w, "schedule   %s, %s, prev %d\n", pl.Schedule, pl.Direction, pl.Prev)
	}
	if r.Special != nil {
		fmt.Fprintf(w, "algorithm  %s instead of the schedule (the answer alone; --no-special for the schedule)\n", r.Special.Name)
	} else if pl.Special != nil {
		fmt.Fprintf(w, "algorithm  the schedule (%s applies to the answer alone: this run keeps the grid, traces back or has --no-special)\n", pl.Special.Name)
	}
	fmt.Fprintf(w, "backend    %s: %s\n", r.Backend, r.Device)
	fmt.Fprintf(w, "answer     %s\n", ValueText(r.Answer, p.CellType))
	if solution != "" {
		lines := strings.Split(strings.TrimRight(solution, "\n"), "\n")
		for i, l := range lines {
			head := "solution   "
			if i > 0 {
				head = "           "
			}
			fmt.Fprintln(w, head+l)
		}
	} else if len(r.Emitted) > 0 {
		vals := make([]string, len(r.Emitted))
		allChar := true
		for i, v := range r.Emitted {
			vals[i] = ValueText(v, p.CellType)
			allChar = allChar && v.T == ir.Char
		}
		sep := " "
		if allChar {
			sep = ""
		}
		fmt.Fprintf(w, "emitted    %s (%d values, path of %d cells)\n", strings.Join(vals, sep), len(vals), len(r.Path))
	} else if r.Path != nil {
		// A traceback of a file without emit: the cells it went through
		// are its only result, so they are printed rather than nothing.
		fmt.Fprintf(w, "path       %s (%d cells)\n", pathText(p, r.Path), len(r.Path))
	} else if tree != nil {
		writeTree(w, p, tree)
	}
	stats(w, r.Stats)
}

// SolveTour writes a Held-Karp run's result for a person: the optimal
// length and the tour, cities numbered from 1 as TSPLIB numbers them and
// closed back to the first.
func SolveTour(w io.Writer, p *ir.Problem, r *heldkarp.Result, backendName, device string) {
	problemLine(w, p)
	noun := "cities"
	if len(r.Tour) == 1 {
		noun = "city"
	}
	fmt.Fprintf(w, "instance   %d %s\n", len(r.Tour), noun)
	fmt.Fprintf(w, "schedule   %s, %s\n", heldkarp.Schedule, plan.Forward)
	fmt.Fprintf(w, "backend    %s: %s\n", backendName, device)
	fmt.Fprintf(w, "answer     %s\n", ValueText(r.Answer(), p.CellType))
	cities := make([]string, len(r.Tour)+1)
	for i, c := range r.Tour {
		cities[i] = fmt.Sprint(c + 1)
	}
	cities[len(r.Tour)] = cities[0]
	fmt.Fprintf(w, "tour       %s\n", strings.Join(cities, " "))
	stats(w, r.Stats())
}

// stats writes a run's measurements: time, compilation, memory.
func stats(w io.Writer, st backend.Stats) {
	fmt.Fprintf(w, "time       %.6f s, %s cells, %s", st.Seconds, Count(st.Cells), Rate(st.CellsPerSecond()))
	if st.ComputeSeconds > 0 {
		fmt.Fprintf(w, "; compute %.6f s (%s)", st.ComputeSeconds, Rate(float64(st.Cells)/st.ComputeSeconds))
	}
	fmt.Fprintln(w)
	if st.CompileSeconds > 0 || st.CompileCached {
		cached := ""
		if st.CompileCached {
			cached = " (cached)"
		}
		fmt.Fprintf(w, "compile    %.3f s%s\n", st.CompileSeconds, cached)
	}
	if st.PeakHostBytes > 0 || st.DeviceBytes > 0 {
		fmt.Fprintf(w, "memory     host %s", Bytes(st.PeakHostBytes))
		if st.DeviceBytes > 0 {
			fmt.Fprintf(w, ", device %s", Bytes(st.DeviceBytes))
		}
		fmt.Fprintln(w)
	}
}
