package codegen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// lineDirective points NVRTC's messages at a `.dp` position.
func lineDirective(pos source.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	file := pos.File
	if file == "" {
		file = "<input>"
	}
	file = lineFileEscaper.Replace(file)
	return fmt.Sprintf("#line %d \"%s\"\n", pos.Line, file)
}

// lineFileEscaper quotes a file name for #line (built once: building it
// was a tenth of the generator's time: BenchmarkGenerateLCS 163 -> 146 us).
var lineFileEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ")

// recurrence writes dp_rec, the recurrence as a device function templated
// on the kernel's accessor A, which supplies cell reads (a.ref<ID>) and,
// in the strip kernel, prepared input values (a.rv<S>, a.cv<S>). A program
// that computes the tables of a cell together (Program.Tables) gets one
// function a table instead, dp_rec_t<TB>(i, jc, a) of the cell column jc,
// each with its table's cases alone (see recCases).
func (g *gen) recurrence(b *strings.Builder) {
	g.refSafe = make([]bool, len(g.p.CellRefs))
	g.refDJ = make([]analysis.Range, len(g.p.CellRefs))
	for k := range g.refDJ {
		g.refDJ[k] = analysis.Empty()
	}
	m := &emitter{g: g, invariant: g.prog.Kernel == KernelStrip || g.prog.Kernel == KernelBatch || g.prog.Kernel == KernelLine || g.prog.Kernel == KernelHost && !g.hostFront, split: g.prog.Kernel == KernelFront}
	// The host's rows sweep computes a chunk's cells in order, and the
	// GPU's dp_linechain a residue class of a row's columns in order, so
	// one reduction over the copies of an item may take the one before it
	// (chain.go).
	hostRows := g.prog.Kernel == KernelHost && !g.hostFront && !g.hostScan
	gpuRows := g.prog.Kernel == KernelLine && !g.opt.NoLineChain
	if g.pl.Schedule == plan.Rows && g.prog.Tables <= 1 {
		switch {
		case hostRows:
			m.chain = analysis.FirstChain(g.p)
		case gpuRows:
			// The one dp_linechain computes (analysis.ClassChain).
			m.chain, _, _ = analysis.ClassChain(g.p)
		}
	}
	b.WriteString("\n// ---- the recurrence ----\n")
	// A floating cell value that is NaN is an error (unless `nan: allow`),
	// reported with the case that produced it: one site per case.
	nanSite := -1
	if g.p.CellType.IsFloat() && !g.p.AllowNaN {
		nanSite = len(g.sites)
		for _, c := range g.p.Cases {
			m.site(SiteNaNCell, c.Value)
		}
	}
	T := g.prog.Tables
	if T <= 1 {
		all := make([]int, len(g.p.Cases))
		for k := range all {
			all[k] = k
		}
		b.WriteString("template <class A>\n__device__ __forceinline__ cell_t dp_rec(const DP_IDX_T i, const DP_IDX_T j, A &a)\n{\n")
		g.recBody(b, m, g.p.Cases, all, nanSite)
		return
	}
	m.cellJ = true
	for t := 0; t < T; t++ {
		cases, idx := g.recCases(t)
		fmt.Fprintf(b, "template <class A>\n__device__ __forceinline__ cell_t dp_rec%d(const DP_IDX_T i, const DP_IDX_T jc, A &a)\n{\n", t)
		fmt.Fprintf(b, "\tconst DP_IDX_T j = jc * (DP_IDX_T)%d + (DP_IDX_T)%d; // the flat column of %s[i][jc]\n\t(void)j;\n", T, t, cComment(g.p.Tables[t]))
		g.recBody(b, m, cases, idx, nanSite)
	}
	b.WriteString("template <int TB, class A>\n__device__ __forceinline__ cell_t dp_rec_t(const DP_IDX_T i, const DP_IDX_T jc, A &a)\n{\n")
	for t := 0; t < T; t++ {
		fmt.Fprintf(b, "\tif constexpr (TB == %d)\n\t\treturn dp_rec%d(i, jc, a);\n", t, t)
	}
	b.WriteString("\treturn (cell_t)0;\n}\n")
}

// recCases is table t's cases of a recurrence of several tables, each with
// its own condition (ir.Case.OwnCond: the table test dropped), and their
// indexes in Problem.Cases. The planner made sure that every case is one
// table's (plan.TableCases).
func (g *gen) recCases(t int) (cases []*ir.Case, idx []int) {
	n := len(g.p.Cases)
	for k, c := range g.p.Cases {
		if c.Table != t {
			continue
		}
		own, ok := c.OwnCond(g.prog.Tables, k == n-1)
		if !ok {
			g.errs.Add(c.Pos, "codegen: case of table %s without its table test (internal planning error)", g.p.Tables[t])
		}
		nc := *c
		nc.Cond = own
		cases, idx = append(cases, &nc), append(idx, k)
	}
	return cases, idx
}

// caseEnvs are the ranges where case k of cases is tested (the cases
// before it did not apply) and where its value is computed (its condition
// holds too), from the cells' range.
func (g *gen) caseEnvs(cases []*ir.Case) (condEnv, valEnv func(k int) env) {
	en0 := g.gridEnv(g.cellRange)
	condEnv = func(k int) env {
		en := en0
		for m := 0; m < k; m++ {
			en = g.refine(cases[m].Cond, false, en)
		}
		return en
	}
	valEnv = func(k int) env {
		en := en0
		if c := cases[k].Cond; c != nil {
			en = g.refine(c, true, en)
		}
		for m := 0; m < k; m++ {
			en = g.refine(cases[m].Cond, false, en)
		}
		return en
	}
	return condEnv, valEnv
}

// recBody writes the body of a dp_rec function: cases (at idx in
// Problem.Cases), the first that applies; its value's NaN check at site
// nanSite + its index, when nanSite >= 0.
func (g *gen) recBody(b *strings.Builder, m *emitter, cases []*ir.Case, idx []int, nanSite int) {
	condEnv, valEnv := g.caseEnvs(cases)
	ret := func(k int, v string) string {
		if nanSite < 0 {
			return "(cell_t)(" + v + ")"
		}
		return fmt.Sprintf("dp_cellnan<cell_t>(a.live(), %d, i, j, (cell_t)(%s))", nanSite+idx[k], v)
	}
	// Cases before lead branch (an `if` that returns); the cases from
	// lead on are pure and, in the kernels that stage input values,
	// evaluated all, last to first, keeping the first that applies: no
	// branches in the hot loop. Typically every case is pure (lead 0);
	// a checkpoint band's given rows, read from data at the grid's edge,
	// branch first.
	n := len(cases)
	lead := n
	if m.invariant {
		if k := selectFrom(m, cases, condEnv, valEnv); k >= 0 {
			lead = k
		}
	}
	for k := 0; k < lead; k++ {
		c := cases[k]
		if c.Cond == nil { // otherwise: the last case
			b.WriteString(lineDirective(c.Value.Position()))
			fmt.Fprintf(b, "\treturn %s;\n}\n", ret(k, m.expr(c.Value, valEnv(k))))
			b.WriteString(lineReset)
			return
		}
		m.cseCase(b, c, k)
		b.WriteString(lineDirective(c.Cond.Position()))
		fmt.Fprintf(b, "\tif (%s)\n", m.expr(c.Cond, condEnv(k)))
		b.WriteString(lineDirective(c.Value.Position()))
		fmt.Fprintf(b, "\t\treturn %s;\n", ret(k, m.expr(c.Value, valEnv(k))))
		m.cse = nil
	}
	if lead == n { // no otherwise
		b.WriteString("\treturn (cell_t)0;\n}\n")
		b.WriteString(lineReset)
		return
	}
	b.WriteString(lineDirective(cases[n-1].Value.Position()))
	fmt.Fprintf(b, "\tcell_t r = (cell_t)(%s);\n", m.expr(cases[n-1].Value, valEnv(n-1)))
	for k := n - 2; k >= lead; k-- {
		c := cases[k]
		b.WriteString(lineDirective(c.Cond.Position()))
		fmt.Fprintf(b, "\tconst bool c%d = %s;\n", k, m.expr(c.Cond, condEnv(k)))
		b.WriteString(lineDirective(c.Value.Position()))
		fmt.Fprintf(b, "\tr = c%d ? (cell_t)(%s) : r;\n", k, m.expr(c.Value, valEnv(k)))
	}
	if nanSite >= 0 {
		// Only the value kept counts (the others were computed but do
		// not apply); which case it came from is worked out only when
		// it is NaN.
		var which strings.Builder
		for k := lead; k < n-1; k++ {
			fmt.Fprintf(&which, "c%d ? %d : ", k, nanSite+idx[k])
		}
		fmt.Fprintf(&which, "%d", nanSite+idx[n-1])
		fmt.Fprintf(b, "\tDP_FAIL_IF(r != r, a.live(), DP_E_NAN, %s, i, j, 0, 0);\n", which.String())
	}
	b.WriteString("\treturn r;\n}\n")
	b.WriteString(lineReset)
}

// classifyLoads finds, for the strip kernel, the input reads whose index
// depends on i alone (the same for a thread's row across the whole sweep:
// kept in registers) or on j alone (staged per column in shared memory).
// In the line kernels only the reads the same for a whole line are
// classified (i alone in a rows sweep, j alone in a cols sweep): dp_linepass
// reads them once a line, not once a cell (a knapsack's wt[i-1] and
// val[i-1] were four loads on every cell's chain).
func (g *gen) classifyLoads() {
	line, lineSide := g.prog.Kernel == KernelLine && g.prog.Tables <= 1, ir.VarI
	if line && g.pl.Schedule == plan.Cols {
		lineSide = ir.VarJ
	}
	if g.prog.Kernel != KernelStrip && g.prog.Kernel != KernelBatch && g.prog.Kernel != KernelHost && !line {
		return
	}
	seen := map[*ir.Load]bool{}
	visit := func(e ir.Expr) {
		ir.Walk(e, func(x ir.Expr) bool {
			ld, ok := x.(*ir.Load)
			if !ok || seen[ld] {
				return true
			}
			seen[ld] = true
			// A read written twice (the knapsack's wt[i-1] in its
			// condition and its value) shares the first's slot: one
			// register, so the compiler sees the two cell reads it
			// indexes as one.
			slot := func(lds []*ir.Load) int {
				return slices.IndexFunc(lds, func(o *ir.Load) bool { return analysis.SameExpr(o, ld) })
			}
			switch {
			case line && !pureIndex(ld, lineSide, 0):
			case pureIndex(ld, ir.VarI, 0):
				if k := slot(g.rowLds); k >= 0 {
					g.rowSlot[ld] = k
					break
				}
				g.rowSlot[ld] = len(g.rowLds)
				g.rowLds = append(g.rowLds, ld)
			case pureIndex(ld, ir.VarJ, g.prog.Tables):
				if k := slot(g.colLds); k >= 0 {
					g.colSlot[ld] = k
					break
				}
				g.colSlot[ld] = len(g.colLds)
				g.colLds = append(g.colLds, ld)
			}
			return true
		})
	}
	for _, c := range g.p.Cases {
		visit(c.Cond)
		visit(c.Value)
	}
}

// pureIndex reports whether every index of ld is arithmetic of the index
// variable v and constants — among them reads of one-element integer
// inputs (a checkpoint band's base row: data, the same for every cell).
//
// With tables > 1 (a program computing the tables of a cell together), the
// user's column J / T counts as the column variable: such reads are staged
// per cell column (pureExpr's x is the cell column).
func pureIndex(ld *ir.Load, v ir.VarKind, tables int) bool {
	uses := false
	for _, x := range ld.Index {
		ok := true
		ir.Walk(x, func(e ir.Expr) bool {
			if b, isBin := e.(*ir.Binary); isBin && tables > 1 && v == ir.VarJ && isCellJ(b, tables) {
				uses = true
				return false
			}
			switch n := e.(type) {
			case *ir.Var:
				if n.Kind != v {
					ok = false
				}
				uses = true
			case *ir.Const:
				if n.V.T.IsFloat() || n.T.IsFloat() {
					ok = false
				}
			case *ir.ScalarRef:
				if n.Scalar.Value.T.IsFloat() || n.T.IsFloat() {
					ok = false
				}
			case *ir.Unary:
				if n.Op != ir.OpNeg {
					ok = false
				}
			case *ir.Binary:
				if n.Op != ir.OpAdd && n.Op != ir.OpSub && n.Op != ir.OpMul {
					ok = false
				}
			case *ir.Convert:
				if !n.T.IsInteger() || !n.X.Type().IsInteger() || n.T == ir.Bool {
					ok = false
				}
			case *ir.Load:
				if !constLoad(n) {
					ok = false
				}
				return false // its index is a constant: not walked
			default:
				ok = false
			}
			return ok
		})
		if !ok {
			return false
		}
	}
	return uses
}

// constLoad reports whether n reads the one element of an integer input
// (at a constant index, which must be 0).
func constLoad(n *ir.Load) bool {
	if n.In.Len() != 1 || !n.In.T.IsInteger() || n.In.T == ir.Bool {
		return false
	}
	for _, x := range n.Index {
		if c, ok := x.(*ir.Const); !ok || c.V.T.IsFloat() || c.V.I != 0 {
			return false
		}
	}
	return true
}

// pureExpr prints an index expression of pureIndex in terms of x, in 64-bit
// arithmetic (the kernel clamps the result, so it needs no checks); arg
// comes first in the arguments of an input's reader (a host program's
// take the run's inputs).
func (g *gen) pureExpr(e ir.Expr, arg string) string {
	switch n := e.(type) {
	case *ir.Var:
		return "x"
	case *ir.Const:
		return intLit(n.V.I, ir.Long)
	case *ir.ScalarRef:
		return intLit(n.Scalar.Value.I, ir.Long)
	case *ir.Unary:
		return "(0LL - " + g.pureExpr(n.X, arg) + ")"
	case *ir.Binary:
		if g.prog.Tables > 1 && isCellJ(n, g.prog.Tables) {
			return "x" // a cell column (pureIndex)
		}
		return "(" + g.pureExpr(n.X, arg) + " " + n.Op.String() + " " + g.pureExpr(n.Y, arg) + ")"
	case *ir.Convert:
		return g.pureExpr(n.X, arg)
	case *ir.Load:
		return fmt.Sprintf("((long long)%s(%s0))", loadFuncName(g.inputIndex(n.In)), arg)
	}
	return "0LL"
}

// invariantDecls writes dp_rowv<S>/dp_colv<S> (how to read slot S: directly,
// or by filling it for a whole row or column) and the structs dp_rowvals and
// dp_colvals that hold one row's or column's slots.
func (g *gen) invariantDecls() string {
	var b strings.Builder
	b.WriteString("\n// ---- input reads that depend on i alone (rows) or j alone (columns) ----\n")
	for _, side := range []struct {
		name string
		lds  []*ir.Load
	}{{"rowv", g.rowLds}, {"colv", g.colLds}} {
		fmt.Fprintf(&b, "template <int S> struct dp_%s;\n", side.name)
		for s, ld := range side.lds {
			g.slotDecl(&b, side.name, s, ld, false)
		}
		fmt.Fprintf(&b, "struct dp_%sals {\n", side.name)
		for s := range side.lds {
			fmt.Fprintf(&b, "\ttypename dp_%s<%d>::type v%d;\n", side.name, s, s)
		}
		b.WriteString("\t__device__ __forceinline__ void fill(long long x)\n\t{\n")
		if len(side.lds) == 0 {
			b.WriteString("\t\t(void)x;\n")
		}
		for s := range side.lds {
			fmt.Fprintf(&b, "\t\tv%d = dp_%s<%d>::fill(x);\n", s, side.name, s)
		}
		if g.prog.BatchPacked {
			// A given instance's values (templates/batch16.cu: a warp
			// computes two).
			b.WriteString("\t}\n\t__device__ __forceinline__ void fill_at(long long inst, long long x)\n\t{\n\t\t(void)inst, (void)x;\n")
			for s := range side.lds {
				fmt.Fprintf(&b, "\t\tv%d = dp_%s<%d>::fill_at(inst, x);\n", s, side.name, s)
			}
		}
		b.WriteString("\t}\n\ttemplate <int S> __device__ __forceinline__ auto get() const\n\t{\n\t\t")
		for s := range side.lds {
			fmt.Fprintf(&b, "if constexpr (S == %d)\n\t\t\treturn v%d;\n\t\telse ", s, s)
		}
		b.WriteString("\n\t\t\treturn 0;\n\t}\n};\n")
	}
	return b.String()
}

// slotDecl writes dp_<side><s>, how to read the input read ld of slot s:
// load (the GPU's: at a flat index) and fill (at the row or column x,
// clamped into the input). A host program's readers take the run's
// inputs first.
func (g *gen) slotDecl(b *strings.Builder, side string, s int, ld *ir.Load, host bool) {
	k := g.inputIndex(ld.In)
	in := &g.prog.Inputs[k]
	rt := ctype(ld.T)
	if ld.T == ir.Char || ld.T == ir.Bool {
		rt = "int"
	}
	qual, param, arg := "static __device__ __forceinline__", "", ""
	if host {
		qual, param, arg = "static inline", "const dp_inputs *in, ", "in, "
	}
	fmt.Fprintf(b, "template <> struct dp_%s<%d> { // %s\n\ttypedef %s type;\n", side, s, cComment(ld.In.Name), rt)
	if !host {
		fmt.Fprintf(b, "\t%s type load(long long k) { return %s(k); }\n", qual, loadFuncName(k))
	}
	fills := []struct{ name, param, fn string }{{"fill", param, loadFuncName(k) + "(" + arg}}
	if !host && g.prog.BatchPacked {
		// A given instance's (templates/batch16.cu).
		fills = append(fills, struct{ name, param, fn string }{"fill_at", "long long inst, ", loadFuncName(k) + "_at(inst, "})
	}
	for _, f := range fills {
		if len(ld.Index) == 1 {
			fmt.Fprintf(b, "\t%s type %s(%slong long x) { long long k = %s; if (k < 0 || k >= %dLL) k = 0; return %sk); }\n",
				qual, f.name, f.param, g.pureExpr(ld.Index[0], arg), in.Len, f.fn)
		} else {
			fmt.Fprintf(b, "\t%s type %s(%slong long x) { long long r = %s, c = %s; if (r < 0 || r >= %dLL) r = 0; if (c < 0 || c >= %dLL) c = 0; return %sr * %dLL + c); }\n",
				qual, f.name, f.param, g.pureExpr(ld.Index[0], arg), g.pureExpr(ld.Index[1], arg), in.Rows, in.Cols, f.fn, in.Cols)
		}
	}
	b.WriteString("};\n")
}

// selectFrom is the first case from which every case's condition and
// value are pure (see emitter.pure), the last being `otherwise`: those
// cases are computed without branches. -1 when there is none.
func selectFrom(m *emitter, cases []*ir.Case, condEnv, valEnv func(int) env) int {
	n := len(cases)
	if n == 0 || cases[n-1].Cond != nil {
		return -1
	}
	lead := n
	for k := n - 1; k >= 0; k-- {
		c := cases[k]
		if (c.Cond != nil && !m.pure(c.Cond, condEnv(k))) || !m.pure(c.Value, valEnv(k)) {
			break
		}
		lead = k
	}
	if lead == n {
		return -1
	}
	return lead
}
