package codegen

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// A profile is a batch program's copy, in shared memory, of a shared 2-D
// input read as T[r][c] (or T[c][r]) where r depends on the row alone and
// c on the column alone: a scoring matrix read at a query's letter and a
// database sequence's letter, S[A[i-1]][B[j-1]]. Read directly, the 32
// lanes of a warp, each at its own rows and column, gather from 32 lines
// of the matrix a cell (the read-only cache serves one line at a time):
// the lookup, not the arithmetic, bounds a protein search. The profile
// holds, for each class of column values (values whose columns of T are
// equal over the rows r can take: BLOSUM62's 128 ASCII codes are 25
// classes) and each row of the program, T's value: P[class][row]. A lane
// reads its rows' values of one column's class in one or two 16-byte
// loads (a lane's rows are consecutive), the lanes' groups side by side
// in the banks, a class's part at a multiple of 128 bytes: no bank
// conflicts whatever the lanes' columns. (CUDASW++ calls the same table
// the query profile.)
//
// Built by each block from the launch's data before its warps start
// (dp_pf_build), 16-bit where the values fit. Only for programs whose
// every instance has the profile's data: T and the inputs r reads do not
// vary (the batch key holds their digest, which also decides the
// classes); r and c proved inside T in every cell (no read that could
// fail is replaced), c taking at most maxProfileValues values.
type profile struct {
	ld       *ir.Load
	k        int     // T's input index
	rowPos   int     // the index of ld that depends on the row (0: T[r][c])
	xlo, xhi int64   // the row index's values
	lo, hi   int64   // the column index's values
	cls      []int   // the class of each column value lo..hi
	reps     []int64 // a column value of each class
	esize    int     // bytes an element: 2 or 4
	gs, cs   int     // elements of a lane's group of rows (padded), of a class
	vec      int     // bytes a load
	npos     int64   // rows of the program's strips
}

const (
	// maxProfileValues bounds the column values of a profile (its class
	// table).
	maxProfileValues = 256
	// profileBytes bounds a batch block's static shared memory with its
	// profiles (NVRTC's static limit is 48 KB).
	profileBytes = 46 << 10
)

// classifyProfiles finds the reads of a batch program that a profile
// serves (after classifyLoads: the row and column slots).
func (g *gen) classifyProfiles() {
	if g.prog.Kernel != KernelBatch {
		return
	}
	seen := map[*ir.Load]bool{}
	var cands []*profile
	for _, c := range g.p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			ir.Walk(e, func(x ir.Expr) bool {
				if ld, ok := x.(*ir.Load); ok && !seen[ld] {
					seen[ld] = true
					if pf := g.profileOf(ld); pf != nil {
						cands = append(cands, pf)
					}
				}
				return true
			})
		}
	}
	if len(cands) == 0 {
		return
	}
	// A lane's reads of the profiles at a column serve its rows: up to
	// 16 rows a lane where a profile reads (measured on the H100 for a
	// 500-residue query: 2,024 GCUPS at 16 rows a lane, one strip,
	// against 1,464 at 8, two strips), rather than the 8 of the layout.
	prog := g.prog
	old := prog.RowsPerThread
	if g.opt.BatchRowsPerThread == 0 && prog.Tables < 2 {
		// (Not for a cell's several tables: their window is Tables times
		// wider, and the layout's 4 rows a lane stay.)
		strips := (g.p.Rows + 511) / 512
		if rpt := int((g.p.Rows + 32*strips - 1) / (32 * strips)); rpt > old {
			prog.RowsPerThread = rpt
			if g.batchWarps() != nil {
				prog.RowsPerThread = old
			}
		}
	}
	defer func() {
		if len(g.profiles) == 0 && prog.RowsPerThread != old { // none fits after all
			prog.RowsPerThread = old
			_ = g.batchWarps() // fits: the layout's did
		}
	}()
	// The block's other shared memory: the strips' boundary rows and the
	// column ring (batch.cu), with the profiles under profileBytes; fewer
	// warps a block where that makes them fit.
	strips := (g.p.Rows + 32*int64(prog.RowsPerThread) - 1) / (32 * int64(prog.RowsPerThread))
	fixed := func(warps int) int64 {
		rows := g.batchStripBytes()
		if prog.BatchRowBytes > 0 {
			rows = 0 // in global memory
		}
		return int64(warps) * (rows + 128*8*int64(max(len(g.colLds), 1)))
	}
	// At least 4 warps a block (or the layout's fewer) beside the
	// profiles: a block builds them for its warps' instances, and fewer
	// warps would build them for too few.
	least := min(4, prog.BatchWarps)
	var total int64
	for _, pf := range cands {
		pf.layout(prog.RowsPerThread, strips)
		if add := int64(len(pf.reps)*pf.cs*pf.esize) + maxProfileValues; fixed(least)+total+add <= profileBytes {
			total += add
			g.pfSlot[pf.ld] = len(g.profiles)
			g.profiles = append(g.profiles, pf)
		}
	}
	if len(g.profiles) == 0 {
		return
	}
	for prog.BatchWarps > 1 && fixed(prog.BatchWarps)+total > profileBytes {
		prog.BatchWarps /= 2
	}
}

// profileOf is the profile of ld, or nil where none serves it.
func (g *gen) profileOf(ld *ir.Load) *profile {
	in := ld.In
	if len(ld.Index) != 2 || in.T.IsFloat() || in.T == ir.Bool || g.varies(in) || len(in.I) != in.Rows*in.Cols {
		return nil
	}
	if _, ok := g.rowSlot[ld]; ok {
		return nil
	}
	if _, ok := g.colSlot[ld]; ok {
		return nil
	}
	en := g.gridEnv(analysis.Full())
	dims := [2]int64{int64(in.Rows), int64(in.Cols)}
	for rp := range 2 {
		cp := 1 - rp
		if !g.sideOnly(ld.Index[rp], ir.VarI) || !g.sideOnly(ld.Index[cp], ir.VarJ) {
			continue
		}
		rr, rc := g.rangeOf(ld.Index[rp], en), g.rangeOf(ld.Index[cp], en)
		if !rr.Within(0, dims[rp]-1) || !rc.Within(0, dims[cp]-1) || rc.Hi-rc.Lo >= maxProfileValues {
			return nil
		}
		pf := &profile{ld: ld, k: g.inputIndex(in), rowPos: rp, xlo: rr.Lo, xhi: rr.Hi, lo: rc.Lo, hi: rc.Hi}
		if !pf.classify(in) {
			return nil
		}
		return pf
	}
	return nil
}

// varies reports whether in is one of a batch's varying inputs.
func (g *gen) varies(in *ir.Input) bool { return slices.Contains(g.opt.BatchInputs, in.Name) }

// sideOnly reports whether e depends on the index variable v alone: its
// input reads are v's prepared slots (of inputs that do not vary, for the
// rows: the profile is the block's) or one-element inputs.
func (g *gen) sideOnly(e ir.Expr, v ir.VarKind) bool {
	ok := true
	ir.Walk(e, func(x ir.Expr) bool {
		switch n := x.(type) {
		case *ir.Var:
			if n.Kind != v {
				ok = false
			}
		case *ir.Load:
			if constLoad(n) {
				return false
			}
			slot := g.colSlot
			if v == ir.VarI {
				slot = g.rowSlot
				if g.varies(n.In) {
					ok = false
				}
			}
			if _, in := slot[n]; !in {
				ok = false
			}
			return false // its index is v's: the slot's fill computes it
		case *ir.CellRef, *ir.Reduce:
			ok = false
		}
		return ok
	})
	return ok
}

// at is T's value at row index x and column index c.
func (pf *profile) at(in *ir.Input, x, c int64) int64 {
	if pf.rowPos == 0 {
		return in.I[x*int64(in.Cols)+c]
	}
	return in.I[c*int64(in.Cols)+x]
}

// classify groups the column values lo..hi by their values of T over the
// row values, and picks the element size; false where the values do not
// fit 32 bits.
func (pf *profile) classify(in *ir.Input) bool {
	ids := map[string]int{}
	fits16 := true
	buf := make([]byte, 0, 8*(pf.xhi-pf.xlo+1))
	for c := pf.lo; c <= pf.hi; c++ {
		buf = buf[:0]
		for x := pf.xlo; x <= pf.xhi; x++ {
			v := pf.at(in, x, c)
			if v < math.MinInt32 || v > math.MaxInt32 {
				return false
			}
			fits16 = fits16 && v >= math.MinInt16 && v <= math.MaxInt16
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
		}
		id, ok := ids[string(buf)]
		if !ok {
			id = len(pf.reps)
			ids[string(buf)] = id
			pf.reps = append(pf.reps, c)
		}
		pf.cls = append(pf.cls, id)
	}
	pf.esize = 4
	if fits16 {
		pf.esize = 2
	}
	return true
}

// layout places the profile for rpt rows a lane and strips strips: a
// lane's group of rows whole loads apart (16 bytes further where two
// loads a lane would meet the same banks), a class a multiple of 128
// bytes (the banks' width) apart.
func (pf *profile) layout(rpt int, strips int64) {
	if rpt*pf.esize%4 != 0 {
		pf.esize = 4 // whole 32-bit words a lane
	}
	g := rpt * pf.esize
	pf.vec = 4
	switch {
	case g%16 == 0:
		pf.vec = 16
		if g/16%2 == 0 {
			g += 16
		}
	case g%8 == 0:
		pf.vec = 8
	}
	pf.gs = g / pf.esize
	pf.npos = strips * 32 * int64(rpt)
	bytes := (strips*32*int64(g) + 127) / 128 * 128
	pf.cs = int(bytes) / pf.esize
}

// profileDecls writes the profiles' tables, dp_pf_build (the block's
// copy) and dp_pfvals (a lane's values of one column); an empty
// dp_pfvals for programs with none.
func (g *gen) profileDecls() string {
	var b strings.Builder
	b.WriteString("\n// ---- profiles: shared tables read at a row's and a column's value (codegen/profile.go) ----\n")
	fmt.Fprintf(&b, "#define DP_NPF %d\n", len(g.profiles))
	if len(g.profiles) == 0 {
		b.WriteString("struct dp_pfvals {\n\ttemplate <int P, int K> __device__ __forceinline__ int get() const { return 0; }\n")
		if g.prog.BatchPacked {
			b.WriteString("\ttemplate <int P, int K> static __device__ __forceinline__ unsigned get2(const dp_pfvals &, const dp_pfvals &) { return 0u; }\n")
		}
		b.WriteString("};\n")
		return b.String()
	}
	b.WriteString(`struct alignas(16) dp_pfv16 { unsigned int x, y, z, w; };
struct alignas(8) dp_pfv8 { unsigned int x, y; };
// dp_pf_acc evaluates a profile's row or column index: its slots' values,
// no reports (the index is proved inside the table where it counts).
struct dp_pf_acc {
	const dp_rowvals &rv_;
	const dp_colvals &cv_;
	__device__ __forceinline__ bool live() const { return false; }
	template <int S> __device__ __forceinline__ auto rv(long long) const { return rv_.template get<S>(); }
	template <int S> __device__ __forceinline__ auto cv(long long) const { return cv_.template get<S>(); }
};
`)
	m := &emitter{g: g, invariant: true}
	en := g.gridEnv(analysis.Full())
	var build, load, get, get2 strings.Builder
	for k, pf := range g.profiles {
		in := &g.prog.Inputs[pf.k]
		et := "short"
		if pf.esize == 4 {
			et = "int"
		}
		rt := ctype(pf.ld.T)
		if pf.ld.T == ir.Char || pf.ld.T == ir.Bool {
			rt = "int"
		}
		ncls := len(pf.reps)
		nv := pf.hi - pf.lo + 1
		fmt.Fprintf(&b, "// profile %d: %s at %d classes of its %s index %d..%d, %d-bit\n", k, cComment(in.In.Name), ncls,
			[]string{"row", "column"}[1-pf.rowPos], pf.lo, pf.hi, 8*pf.esize)
		fmt.Fprintf(&b, "__shared__ dp_pfv16 dp_pf%d_tab[%d];\n", k, (ncls*pf.cs*pf.esize+15)/16)
		fmt.Fprintf(&b, "__shared__ unsigned char dp_pf%d_cls[%d];\n", k, nv)
		fmt.Fprintf(&b, "__device__ const unsigned char dp_pf%d_clsv[%d] = {%s};\n", k, nv, joinNums(pf.cls))
		fmt.Fprintf(&b, "__device__ const int dp_pf%d_rep[%d] = {%s};\n", k, ncls, joinNums(pf.reps))
		row, col := m.expr(pf.ld.Index[pf.rowPos], en), m.expr(pf.ld.Index[1-pf.rowPos], en)
		flat := fmt.Sprintf("x * %dLL + dp_pf%d_rep[c]", in.Cols, k)
		if pf.rowPos == 1 {
			flat = fmt.Sprintf("(long long)dp_pf%d_rep[c] * %dLL + x", k, in.Cols)
		}
		fmt.Fprintf(&build, `	for (int e = threadIdx.x; e < %d; e += blockDim.x)
		dp_pf%d_cls[e] = dp_pf%d_clsv[e];
	for (int e = threadIdx.x; e < %d; e += blockDim.x) {
		const long long rc = e < DP_ROWS ? e : DP_ROWS - 1;
		const DP_IDX_T i = (DP_IDX_T)(DP_BACK ? DP_ROWS - 1 - rc : rc), j = 0;
		dp_rowvals rv;
		rv.fill(i);
		const dp_colvals cv{};
		const dp_pf_acc a{rv, cv};
		long long x = (long long)(%s);
		x = x < %dLL ? %dLL : (x > %dLL ? %dLL : x);
		%s *t = (%s *)dp_pf%d_tab + (e / DP_RPT) * %d + e %% DP_RPT;
		for (int c = 0; c < %d; ++c)
			t[c * %d] = (%s)dp_in%d(%s);
		(void)j;
	}
`, nv, k, k, pf.npos, row, pf.xlo, pf.xlo, pf.xhi, pf.xhi, et, et, k, pf.gs, ncls, pf.cs, et, pf.k, flat)
		used := g.prog.RowsPerThread * pf.esize / 4
		fmt.Fprintf(&load, `		{
			const dp_pf_acc a{rv0, cv};
			const DP_IDX_T i = 0;
			long long c = (long long)(%s);
			c = c < %dLL ? %dLL : (c > %dLL ? %dLL : c);
			const unsigned int *s = (const unsigned int *)dp_pf%d_tab + (dp_pf%d_cls[c - %dLL] * %d + grp * %d) * %d / 4;
`, col, pf.lo, pf.lo, pf.hi, pf.hi, k, k, pf.lo, pf.cs, pf.gs, pf.esize)
		switch pf.vec {
		case 16:
			fmt.Fprintf(&load, "#pragma unroll\n\t\t\tfor (int w = 0; w < %d; w += 4) {\n\t\t\t\tconst dp_pfv16 v = *(const dp_pfv16 *)(s + w);\n\t\t\t\tp%d[w] = v.x, p%d[w + 1] = v.y, p%d[w + 2] = v.z, p%d[w + 3] = v.w;\n\t\t\t}\n", used, k, k, k, k)
		case 8:
			fmt.Fprintf(&load, "#pragma unroll\n\t\t\tfor (int w = 0; w < %d; w += 2) {\n\t\t\t\tconst dp_pfv8 v = *(const dp_pfv8 *)(s + w);\n\t\t\t\tp%d[w] = v.x, p%d[w + 1] = v.y;\n\t\t\t}\n", used, k, k)
		default:
			fmt.Fprintf(&load, "#pragma unroll\n\t\t\tfor (int w = 0; w < %d; ++w)\n\t\t\t\tp%d[w] = s[w];\n", used, k)
		}
		load.WriteString("\t\t\t(void)i, (void)j;\n\t\t}\n")
		fmt.Fprintf(&get, "\t\tif constexpr (P == %d)\n", k)
		fmt.Fprintf(&get2, "\t\tif constexpr (P == %d)\n", k)
		if pf.esize == 2 {
			fmt.Fprintf(&get, "\t\t\treturn (%s)(short)(p%d[K >> 1] >> ((K & 1) * 16));\n\t\telse ", rt, k)
			fmt.Fprintf(&get2, "\t\t\treturn (K & 1) ? dp_h2_hihi(a.p%d[K >> 1], b.p%d[K >> 1]) : dp_h2_lolo(a.p%d[K >> 1], b.p%d[K >> 1]);\n\t\telse ", k, k, k, k)
		} else {
			fmt.Fprintf(&get, "\t\t\treturn (%s)(int)p%d[K];\n\t\telse ", rt, k)
			fmt.Fprintf(&get2, "\t\t\treturn dp_h2_lolo(a.p%d[K], b.p%d[K]);\n\t\telse ", k, k)
		}
	}
	b.WriteString("\n// dp_pf_build copies the profiles into the block's shared memory (all its\n// threads; a barrier follows).\n")
	b.WriteString("__device__ __forceinline__ void dp_pf_build()\n{\n")
	b.WriteString(build.String())
	b.WriteString("}\n\n// dp_pfvals: a lane's rows' values of the profiles at one column.\nstruct dp_pfvals {\n")
	for k, pf := range g.profiles {
		fmt.Fprintf(&b, "\tunsigned int p%d[%d];\n", k, g.prog.RowsPerThread*pf.esize/4)
	}
	b.WriteString("\t// load reads column j's values (its slots cv) for the lane's rows,\n\t// group grp of the rows.\n")
	b.WriteString("\t__device__ __forceinline__ void load(const dp_colvals &cv, const DP_IDX_T j, const int grp)\n\t{\n\t\tconst dp_rowvals rv0{};\n")
	b.WriteString(load.String())
	b.WriteString("\t}\n\ttemplate <int P, int K> __device__ __forceinline__ auto get() const\n\t{\n")
	b.WriteString(get.String())
	b.WriteString("\n\t\t\treturn 0;\n\t}\n")
	if g.prog.BatchPacked {
		// Row K's values of two instances' columns (a and b), as a pair of
		// 16-bit halves (templates/batch16.cu; codegen/pack16.go proved
		// them to fit).
		b.WriteString("\ttemplate <int P, int K> static __device__ __forceinline__ unsigned get2(const dp_pfvals &a, const dp_pfvals &b)\n\t{\n")
		b.WriteString(get2.String())
		b.WriteString("\n\t\t\treturn 0u;\n\t}\n")
	}
	b.WriteString("};\n")
	return b.String()
}

// joinNums writes v as C initialisers.
func joinNums[T int | int64](v []T) string {
	s := make([]string, len(v))
	for k, x := range v {
		s[k] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(s, ",")
}
