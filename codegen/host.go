package codegen

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
	"github.com/dpgpu/dpgpu/templates"
)

// HostLanes is how many rows of a wavefront the host program computes side
// by side (DP_HL): one step of a strip computes a cell of each, on an
// anti-diagonal, so that the compiler turns the step into vector
// instructions (64 int lanes are four AVX-512 vectors).
const HostLanes = 64

// HostProgram is C++ for the CPU that computes a problem's cells with the
// same recurrence code the GPU programs have (templates/host.cu): compiled
// by the system's C++ compiler and loaded by backend/native. Like a
// Program, its source depends on the sizes and scalars, not on the data.
type HostProgram struct {
	Name     string // file name the compiler reports, e.g. "lcs.cc"
	Source   string
	Schedule plan.Kind // plan.Rows or plan.Wavefront
	Backward bool
	Cell     ir.Type
	Rows     int64
	Cols     int64

	Inputs []Input // the inputs in the order of the run's input table
	Sites  []Site  // indexed by the error's site for every code but ErrCell
	Refs   []*ir.CellRef

	// Rows schedule: how many lines back a cell reads. Wavefront: how far
	// back (up, left, in sweep order) cells read, and the lanes of a strip.
	Reach  int
	PI, PJ int
	Lanes  int
	// Scan: the wavefront runs row by row on one thread (its cells read
	// an input at indices of both i and j, which the lanes of a strip's
	// diagonal would gather one by one).
	Scan bool
	// Chain (rows): a reduction runs from the one S columns before it
	// (chain.go); each worker keeps two longs a column. ChainPos is the
	// reduction's position.
	Chain    bool
	ChainPos source.Pos

	Answer   AnswerMode
	Captures [][2]int64 // AnswerCapture: the cells, sorted (row-major)
	RegionOp ir.ReduceOp
	// AnswerRows: the answer reads more than MaxHostCaptures cells, which
	// the program does not capture; the caller keeps the rows holding
	// them (or the grid) and evaluates the answer from those.
	AnswerRows bool

	// Fronts: a generic schedule (plan.Kind.Generic) runs front by front
	// of the hyperplane Front, the whole grid in memory, and with Mirror a
	// transposed copy beside it; the run passes the range of fronts to
	// dp_host_fronts, which enumerates each as plan.Hyperplane.Front.
	Fronts bool
	Front  plan.Hyperplane
	Mirror bool
	// Serial: the plan's row-major order is legal (plan.Plan.Serial);
	// one worker runs it (DP_SERIAL) instead of the fronts. Pipeline:
	// several workers run it too, row after row (DP_PIPE_LAG >= 0).
	Serial, Pipeline bool
}

// KeepsColumns reports whether the program keeps chosen columns
// (dp_host_run's kcols): a wavefront of one table — its strips swept
// forward, or its rows scan either way (several tables are planned as a
// hyperplane of their cells).
func (hp *HostProgram) KeepsColumns() bool {
	return hp.Schedule == plan.Wavefront && !hp.Fronts && (hp.Scan || !hp.Backward)
}

// Host entry point and its control block (backend/native mirrors the
// layout of struct dp_host_ctl).
const (
	FuncHostRun = "dp_host_run"
	// HostABI changes whenever dp_host_run's arguments or dp_host_ctl
	// change; the library reports it through dp_host_abi.
	HostABI     = 8
	FuncHostABI = "dp_host_abi"
	// FuncHostFronts runs a Fronts program: dp_host_run's arguments but
	// the padding, then the first and last front.
	FuncHostFronts = "dp_host_fronts"
)

// MaxHostCaptures is the most cells a host program captures for an answer
// expression (an answer summing a whole plane of a 3-D grid read 360,000:
// their positions overflowed the stack of the compiled run). Past it, the
// rows and wavefront programs capture nothing and the caller keeps the
// answer's rows (HostProgram.AnswerRows).
const MaxHostCaptures = 256

// HostSupports reports why GenerateHost cannot write a program for p as
// planned by pl (nil when it can): the rows and wavefront schedules with
// the plan's constant line offsets, and no function whose C library result
// could differ in the last bit from Go's (exp, log, pow), so that the
// compiled cells equal the evaluator's exactly.
func HostSupports(p *ir.Problem, pl *plan.Plan) error {
	if p.Rows <= 0 || p.Cols <= 0 {
		return fmt.Errorf("an empty grid")
	}
	if !p.CellType.Is(ir.IsCell) {
		return fmt.Errorf("cell type %s", p.CellType)
	}
	if p.Rows > math.MaxInt32-4*HostLanes || p.Cols > math.MaxInt32-4*HostLanes {
		return fmt.Errorf("a grid side over 2^31")
	}
	sign := int64(1)
	if pl.Direction == plan.Backward {
		sign = -1
	}
	switch pl.Schedule {
	case plan.Rows:
		for _, d := range pl.Deps {
			if d.DI == nil || *d.DI*sign < 1 {
				return fmt.Errorf("%s does not read an earlier row", d.Ref.Text)
			}
		}
	case plan.Interval, plan.Hyperplanar:
		// Fronts of the plan's hyperplane, the whole grid in memory
		// (templates/host.cu, DP_HOST_FRONT).
		if pl.T.A == 0 && pl.T.B == 0 && pl.T.M == 0 {
			return fmt.Errorf("the %s schedule has no front function", pl.Schedule)
		}
	case plan.Cols:
		// A grid of one row: its columns are fronts of one cell (the
		// plan's t = j), run as the generic schedules' fronts are
		// (hostColsAsFronts). Taller grids have no host sweep by columns.
		if p.Rows != 1 {
			return fmt.Errorf("the %s schedule", pl.Schedule)
		}
	case plan.Wavefront:
		for _, d := range pl.Deps {
			if d.DI == nil || d.DJ == nil || *d.DI*sign < 0 || *d.DJ*sign < 0 {
				return fmt.Errorf("%s has no constant backward offset", d.Ref.Text)
			}
			if *d.DI*sign > HostLanes/2 || *d.DJ*sign > HostLanes/2 {
				return fmt.Errorf("%s reads more than %d cells back", d.Ref.Text, HostLanes/2)
			}
		}
	default:
		return fmt.Errorf("the %s schedule", pl.Schedule)
	}
	if a := pl.Answer; a.Kind == plan.AnswerExpr && len(a.Cells) > MaxHostCaptures && pl.Schedule != plan.Rows && pl.Schedule != plan.Wavefront {
		// The cells are constants of the program, found by a scan per
		// chunk; the rows and wavefront sweeps keep rows instead, the
		// fronts cannot.
		return fmt.Errorf("an answer that reads %d cells (more than %d)", len(a.Cells), MaxHostCaptures)
	}
	var bad string
	for _, c := range p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				if call, ok := x.(*ir.Call); ok {
					switch call.Fn {
					case ir.FnExp, ir.FnLog, ir.FnPow:
						bad = call.Fn.String() + "()"
					}
				}
				return bad == ""
			})
		}
	}
	if bad != "" {
		return fmt.Errorf("%s (the C library's may differ from Go's in the last bit)", bad)
	}
	return nil
}

// hostColsAsFronts reports whether the host program runs p's cols
// schedule as the fronts of its front function t = j (one cell each on a
// grid of one row), in the row-major order where the plan says it is
// Serial: the generic schedules' compiled sweep, not a sweep of its own.
func hostColsAsFronts(p *ir.Problem, pl *plan.Plan) bool {
	return pl.Schedule == plan.Cols && p.Rows == 1
}

// GenerateHost writes the host program for p as planned by pl.
func GenerateHost(p *ir.Problem, pl *plan.Plan) (*HostProgram, error) {
	if err := HostSupports(p, pl); err != nil {
		return nil, fmt.Errorf("codegen: no host program for %s", err)
	}
	// layout picks a GPU kernel on the way (with these sizes); the host
	// program only keeps the offsets, the fronts and the answer it works
	// out.
	opt := Options{TileH: 64, TileW: 64, RowsPerThread: 4, StripWarps: 8, LineThreads: 256, SplitUnroll: 4}
	g := &gen{p: p, pl: pl, opt: opt, rowSlot: map[*ir.Load]int{}, colSlot: map[*ir.Load]int{}}
	prog := &Program{
		Name:     strings.TrimSuffix(programName(p), ".cu") + ".cc",
		Kernel:   KernelHost,
		Schedule: pl.Schedule,
		Backward: pl.Direction == plan.Backward,
		Cell:     p.CellType,
		Rows:     p.Rows,
		Cols:     p.Cols,
		Refs:     p.CellRefs,
	}
	g.prog = prog
	if err := g.layout(); err != nil {
		return nil, err
	}
	if hostColsAsFronts(p, pl) {
		if err := g.frontLayout(); err != nil {
			return nil, err
		}
	}
	g.hostFront = prog.Kernel == KernelFront
	if pl.Cells > 1 {
		// The wavefront of the cells of several tables (plan.Plan.Cells):
		// row after row, each row's cells left to right with their tables
		// in file order (the scan), keeping DP_PI+1 rows rather than the
		// whole grid. Offsets are flat columns: PJ the farthest back.
		g.hostFront = false
		prog.Tables = int(pl.Cells)
		pi, pj := pl.FlatReach()
		prog.PI, prog.PJ = int(pi), int(pj)
	}
	prog.Kernel = KernelHost
	answerRows := prog.Answer == AnswerCapture && len(prog.Captures) > MaxHostCaptures
	if answerRows {
		prog.Captures = nil
	}
	g.placeInputs()
	for k := range prog.Inputs {
		prog.Inputs[k].Place = Global
	}
	if !g.hostFront {
		g.classifyLoads()
	}
	g.hostScan = pl.Schedule == plan.Wavefront && g.gathers() || prog.Tables > 1
	g.cellRange, g.runCells = g.inferCellRange(analysis.Wraps), g.inferCellRange(analysis.Stops)
	g.finCells, g.cellInf = g.finitePart(), analysis.TableInfSigns(g.p, g.inputInf)
	src, err := g.hostSource()
	if err != nil {
		return nil, err
	}
	if err := g.errs.Err(); err != nil {
		return nil, err
	}
	hp := &HostProgram{
		Name: prog.Name, Source: src, Schedule: pl.Schedule, Backward: prog.Backward,
		Cell: p.CellType, Rows: p.Rows, Cols: p.Cols,
		Inputs: prog.Inputs, Sites: g.sites, Refs: p.CellRefs,
		Reach: prog.Reach, PI: prog.PI, PJ: prog.PJ, Lanes: HostLanes, Scan: g.hostScan, Chain: g.hostChain.IsValid(), ChainPos: g.hostChain,
		Answer: prog.Answer, Captures: prog.Captures, RegionOp: prog.RegionOp, AnswerRows: answerRows,
		Fronts: g.hostFront, Front: prog.Front, Mirror: prog.Mirror, Serial: g.hostFront && pl.Serial,
		Pipeline: g.hostFront && pl.Serial && pl.SerialLag >= 0,
	}
	return hp, nil
}

// hostSource assembles the host program: the recurrence twice, in
// namespace dp_fast (checks only raise a flag per cell, which the
// compiler can vectorise) and dp_slow (checks report the first error, for
// recomputing a chunk whose flags were raised), then the sweeps.
func (g *gen) hostSource() (string, error) {
	var b bytes.Buffer
	p, prog := g.p, g.prog
	fmt.Fprintf(&b, "// Generated by dpgpu from %s: do not edit.\n", srcName(p))
	fmt.Fprintf(&b, "// problem %s: %dx%d %s cells, schedule %s %s, host program\n", p.Name, p.Rows, p.Cols, p.CellType, prog.Schedule, g.pl.Direction)
	b.WriteString("#define DP_HOST 1\n")
	b.WriteString(g.defines())
	data := g.templateData()
	if err := templates.Execute(&b, "host_prelude.cu", data); err != nil {
		return "", err
	}
	// The recurrence first: writing it finds which references are proved
	// inside the grid (refTable).
	var rec strings.Builder
	sites := len(g.sites)
	g.recurrence(&rec)
	if g.hostChain.IsValid() {
		b.WriteString("#define DP_CHAIN 1\n")
	}
	side, reach := g.hostInPlace(len(g.sites) > sites)
	fmt.Fprintf(&b, "#define DP_INPLACE %d\n#define DP_IPREACH %dLL\n", side, reach)
	head := ""
	if side != 0 && reach >= 0 {
		// Rows kept in one line, two a pass: 512-bit vectors where the
		// machine has them (a knapsack's sweep, 10,000 x 49,878: 36.8 ms
		// with gcc's default 256-bit, 30-31 ms so; one row a pass gained
		// nothing). For the whole file, so that every function inlined
		// into the sweep has the same target options.
		head = "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC target(\"prefer-vector-width=512\")\n#endif\n"
	}
	b.WriteString(g.hostInputDecls())
	b.WriteString(g.hostInvariantDecls())
	b.WriteString(g.refTable())
	b.WriteString(g.hostCaptures())
	if err := checksNamespace(&b, "dp_fast", flagFail, data, rec.String()); err != nil {
		return "", err
	}
	if err := checksNamespace(&b, "dp_slow", "do { if ((cond) && (live).lv) dp_host_note((live).ctl, (code), (site), (ci), (cj), (long long)(a), (long long)(b)); } while (0)", data, rec.String()); err != nil {
		return "", err
	}
	if err := templates.Execute(&b, "host.cu", data); err != nil {
		return "", err
	}
	return resetLines(head+b.String(), prog.Name), nil
}

// flagFail is DP_FAIL_IF where a failed check only sets the liveness's
// flag (a dp_lv: host_prelude.cu on the host, preamble.cu on the GPU), no
// branch and no call; the caller computes the cells again with checks that
// report where it is set.
const flagFail = "((live).bad |= (int)(bool)(cond) & (live).lv)"

// checksNamespace writes the preamble's helpers and the recurrence rec
// again in namespace ns, DP_LIVE_T a dp_lv & and DP_FAIL_IF(cond, live,
// code, site, ci, cj, a, b) the text fail: the same cells with another
// way of reporting a failed check.
func checksNamespace(b *bytes.Buffer, ns, fail string, data templateData, rec string) error {
	fmt.Fprintf(b, "\n// ==== %s ====\nnamespace %s {\n#undef DP_LIVE_T\n#undef DP_FAIL_IF\n#define DP_LIVE_T dp_lv &\n#define DP_FAIL_IF(cond, live, code, site, ci, cj, a, b) %s\n", ns, ns, fail)
	if err := templates.Execute(b, "preamble.cu", data); err != nil {
		return err
	}
	b.WriteString(rec)
	fmt.Fprintf(b, "} // namespace %s\n", ns)
	return nil
}

// hostInPlace is DP_INPLACE: 1 where every reference reads the row before
// (one row back in sweep order) at or left of the cell's column, -1 where
// at or right of it, 0 otherwise; and 0 where a check may report (checks:
// writing the recurrence made a site; a cell read not proved inside the
// grid), whose chunk is computed again from the row before to find the
// first error (dp_rows_one), or where a chained reduction reads the cells
// to its left in the row being computed. The sides come from refDJ, the
// ranges the program is specialised to, not from the plan's ranges of this
// instance's data: a batch's instances of one shape share the program.
//
// reach (DP_IPREACH) is how many columns from its own a cell reads at
// most, on that side; -1 where nothing bounds it below the grid's width.
// Two rows may then be computed in one pass over the line, the second
// that many columns (in whole blocks) behind the first.
func (g *gen) hostInPlace(checks bool) (side int, reach int64) {
	if g.pl.Schedule != plan.Rows || g.hostFront || g.hostScan || g.prog.Tables > 1 || g.hostChain.IsValid() || checks || slices.Contains(g.refSafe, false) {
		return 0, -1
	}
	sign := int64(1)
	if g.pl.Direction == plan.Backward {
		sign = -1
	}
	left, right := true, true
	var far, near int64 // the farthest column read on the left, on the right
	for k, d := range g.pl.Deps {
		if d.DI == nil || *d.DI*sign != 1 || k >= len(g.refDJ) {
			return 0, -1
		}
		dj := g.refDJ[k]
		if dj.IsEmpty() {
			continue
		}
		left = left && dj.Lo >= 0
		right = right && dj.Hi <= 0
		far = max(far, dj.Hi)
		if dj.Lo == math.MinInt64 {
			near = math.MaxInt64
		} else {
			near = max(near, -min(dj.Lo, 0))
		}
	}
	switch {
	case left:
		side, reach = 1, far
	case right:
		side, reach = -1, near
	default:
		return 0, -1
	}
	if reach < 0 || reach >= g.p.Cols {
		reach = -1
	}
	return side, reach
}

// columnOffset bounds j minus the column n reads, in en: a column j + e
// where e does not move with j (wt[i-1] of a knapsack, a constant) is e's
// range negated; anything else is not known (Full). An env no cell is in
// reads nothing (Empty).
func (g *gen) columnOffset(n *ir.CellRef, en env) analysis.Range {
	if en.IsEmpty() {
		return analysis.Empty()
	}
	a, ok := analysis.AffineOf(n.J, func(e ir.Expr) analysis.Range { return g.rangeOf(e, en) })
	if !ok || a.J != 1 || a.M != 0 || len(a.Red) != 0 || a.Rest.IsFull() {
		return analysis.Full()
	}
	e := analysis.Point(a.K).Add(a.Rest)
	if a.I != 0 {
		e = e.Add(analysis.Point(a.I).Mul(en.I))
	}
	return e.Neg()
}

// hostInputDecls declares the run's input table and a reader for each
// input (the host reads every input from memory, in the loader's int64 or
// float64 elements).
func (g *gen) hostInputDecls() string {
	var b strings.Builder
	b.WriteString("\n// ---- inputs: the run's table of pointers ----\n")
	fmt.Fprintf(&b, "#define DP_NIN %d\n", len(g.prog.Inputs))
	b.WriteString("struct dp_inputs {\n\tconst void *p[DP_NIN > 0 ? DP_NIN : 1];\n};\n")
	for k := range g.prog.Inputs {
		in := &g.prog.Inputs[k]
		rt := ctype(in.In.T)
		if in.In.T == ir.Char || in.In.T == ir.Bool {
			rt = "int"
		}
		// The run passes the values as the loader holds them (ir.Input:
		// int64 or float64 each), read in place: no copy of a large input.
		et := "long long"
		if in.In.T.IsFloat() {
			et = "double"
		}
		fmt.Fprintf(&b, "// %s: %s %dx%d\n", cComment(in.In.Name), in.In.T, in.Rows, in.Cols)
		fmt.Fprintf(&b, "static inline %s %s(const dp_inputs *in, long long k) { return (%s)((const %s *)in->p[%d])[k]; }\n", rt, loadFuncName(k), ctype(in.In.T), et, k)
	}
	return b.String()
}

// hostInvariantDecls writes, for the input reads of i alone (rows) and j
// alone (columns), how to read one clamped into its input (fill), a
// struct of one row's values (dp_rowvals, the rows sweep) and caches that
// hold one value per lane (dp_rowcache, a strip's rows) or per column
// (dp_colcache, every column and the padding around them).
func (g *gen) hostInvariantDecls() string {
	var b strings.Builder
	b.WriteString("\n// ---- input reads that depend on i alone (rows) or j alone (columns) ----\n")
	sides := []struct {
		name string
		lds  []*ir.Load
	}{{"rowv", g.rowLds}, {"colv", g.colLds}}
	for _, side := range sides {
		fmt.Fprintf(&b, "template <int S> struct dp_%s;\n", side.name)
		for s, ld := range side.lds {
			g.slotDecl(&b, side.name, s, ld, true)
		}
	}
	// dp_rowvals: one row's values (the rows sweep: the same for every lane).
	b.WriteString("struct dp_rowvals {\n")
	for s := range g.rowLds {
		fmt.Fprintf(&b, "\ttypename dp_rowv<%d>::type v%d;\n", s, s)
	}
	b.WriteString("\tinline void fill(const dp_inputs *in, long long x)\n\t{\n\t\t(void)in;\n\t\t(void)x;\n")
	for s := range g.rowLds {
		fmt.Fprintf(&b, "\t\tv%d = dp_rowv<%d>::fill(in, x);\n", s, s)
	}
	b.WriteString("\t}\n")
	slotGet(&b, "\t", "get()", "", len(g.rowLds), func(s int) string { return fmt.Sprintf("v%d", s) })
	b.WriteString("};\n")
	// The caches: an array per slot, indexed by lane or column.
	for _, side := range []struct {
		name, of string
		n        int
	}{{"rowcache", "rowv", len(g.rowLds)}, {"colcache", "colv", len(g.colLds)}} {
		fmt.Fprintf(&b, "struct dp_%s {\n", side.name)
		for s := 0; s < side.n; s++ {
			fmt.Fprintf(&b, "\ttypename dp_%s<%d>::type *v%d;\n", side.of, s, s)
		}
		fmt.Fprintf(&b, "\tstatic constexpr int slots = %d;\n", side.n)
		b.WriteString("\tstatic inline long long elem() { return 8; }\n")
		b.WriteString("\tinline void bind(char *mem, long long n)\n\t{\n\t\t(void)mem;\n\t\t(void)n;\n")
		for s := 0; s < side.n; s++ {
			fmt.Fprintf(&b, "\t\tv%d = (typename dp_%s<%d>::type *)(mem + %d * 8 * n);\n", s, side.of, s, s)
		}
		b.WriteString("\t}\n\tinline void fill(const dp_inputs *in, long long k, long long x)\n\t{\n\t\t(void)in;\n\t\t(void)k;\n\t\t(void)x;\n")
		for s := 0; s < side.n; s++ {
			fmt.Fprintf(&b, "\t\tv%d[k] = dp_%s<%d>::fill(in, x);\n", s, side.of, s)
		}
		b.WriteString("\t}\n")
		slotGet(&b, "\t", "get(long long k)", "(void)k;\n\t\t", side.n, func(s int) string { return fmt.Sprintf("v%d[k]", s) })
		// vals: every slot's value at one index, read at once (a read
		// of one under a case's condition would be a masked gather,
		// which keeps the lanes from vectorising).
		b.WriteString("\tstruct vals {\n")
		for s := 0; s < side.n; s++ {
			fmt.Fprintf(&b, "\t\ttypename dp_%s<%d>::type v%d;\n", side.of, s, s)
		}
		slotGet(&b, "\t\t", "get()", "", side.n, func(s int) string { return fmt.Sprintf("v%d", s) })
		b.WriteString("\t};\n")
		b.WriteString("\tinline vals at(long long k) const\n\t{\n\t\tvals x;\n\t\t(void)k;\n")
		for s := 0; s < side.n; s++ {
			fmt.Fprintf(&b, "\t\tx.v%d = v%d[k];\n", s, s)
		}
		b.WriteString("\t\treturn x;\n\t}\n};\n")
	}
	return b.String()
}

// slotGet writes a member get that returns slot S's value, val(S) (0 for
// a slot there is not), indented by ind; pre opens its body.
func slotGet(b *strings.Builder, ind, sig, pre string, n int, val func(s int) string) {
	fmt.Fprintf(b, "%stemplate <int S> inline auto %s const\n%s{\n%s\t%s", ind, sig, ind, ind, pre)
	for s := 0; s < n; s++ {
		fmt.Fprintf(b, "if constexpr (S == %d)\n%s\t\treturn %s;\n%s\telse ", s, ind, val(s), ind)
	}
	fmt.Fprintf(b, "\n%s\t\treturn 0;\n%s}\n", ind, ind)
}

// hostCaptures lists the cells an answer expression reads (DP_ANS_KIND 3).
func (g *gen) hostCaptures() string {
	var b strings.Builder
	caps := g.prog.Captures
	fmt.Fprintf(&b, "\n#define DP_NCAPS %d\n", len(caps))
	if g.prog.Answer != AnswerCapture || len(caps) == 0 {
		b.WriteString("static const long long dp_cap_i[1] = {0}, dp_cap_j[1] = {0};\n")
		return b.String()
	}
	var is, js []string
	for _, c := range caps {
		is = append(is, fmt.Sprintf("%dLL", c[0]))
		js = append(js, fmt.Sprintf("%dLL", c[1]))
	}
	fmt.Fprintf(&b, "static const long long dp_cap_i[%d] = {%s};\n", len(caps), strings.Join(is, ", "))
	fmt.Fprintf(&b, "static const long long dp_cap_j[%d] = {%s};\n", len(caps), strings.Join(js, ", "))
	return b.String()
}

// gathers reports whether some input read's index depends on both i and
// j (or on data): a read that is neither a row's nor a column's value,
// nor the same for every cell (a one-element input: a checkpoint band's
// base row, which the scan would otherwise run on one thread).
func (g *gen) gathers() bool {
	found := false
	for _, c := range g.p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				if ld, ok := x.(*ir.Load); ok {
					_, r := g.rowSlot[ld]
					_, c := g.colSlot[ld]
					found = found || (!r && !c && !constLoad(ld))
				}
				return !found
			})
		}
	}
	return found
}
