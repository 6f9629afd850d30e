
// ---- batch kernel (templates/batch.cu): many instances of one shape ----
//
// One launch computes instances 0 .. n-1 of a batch, all of this program's
// shape: sizes, scalars and shared inputs are the program's; the inputs
// that vary between instances are read at the instance's place
// (dp_binst(), codegen Input.PerInstance). Warp w of block b computes
// instance b*DP_BW + w the way a warp of the strip kernel sweeps a strip
// (templates/strip.cu): lane l holds DP_RPT consecutive rows in registers
// and computes column g - l at its step g, so the row above a lane's first
// row is the lane above's last row one step earlier (a shuffle). The rows
// of an instance taller than one strip (32*DP_RPT rows) are swept strip
// after strip by the same warp: the strip's last lane leaves its bottom
// DP_PI rows in the warp's slice of shared memory (two slots, strip s
// writes slot s&1), where lane 0 of the next strip reads them — or, with
// DP_BGLOBAL (rows too wide for shared memory), in the instance's slice of
// grows in global memory (2 x DP_PI1 x DP_BCOLS cells an instance). Nothing
// waits for another warp, and the register window holds the cells a cell
// reads (any constant offset within DP_PI rows and DP_PJ columns back).
// A shared table read at a row's and a column's value (a scoring matrix
// at the query's and the database sequence's letters) comes from the
// block's profile in shared memory (DP_NPF, codegen/profile.go), built
// before the warps start.
//
// With DP_BGEN an instance has its own column count, cols[inst] <=
// DP_COLS, and answer column ansj[inst]: the warp sweeps those columns
// only (a forward sweep: no cell reads a column right of its own, so the
// program's further columns would not change the instance's cells).
//
// Results: the answer cell in ans[inst] (DP_ANS_KIND 1), the instance's
// partial result of the answer region in part[inst] (2): for a region min
// or max its value only (a batch reports the answer, not where it is:
// codegen Program.BatchValueOnly). An instance that fails has its first
// error code in dp_berr[inst] (preamble.cu), and its answer is not used.

// DP_T > 1: a cell holds several tables (codegen Program.Tables), computed
// in file order at each step as in strip.cu; the warp sweeps cell columns,
// and the rows between strips and the window hold DP_T flat columns a cell
// (column c's table t at c*DP_T + t). With DP_BGEN, cols[inst] and
// ansj[inst] are flat, as the host has them.
#ifndef DP_T
#define DP_T 1
#endif
// DP_UPT: the mask of the tables some reference reads in a row above
// (codegen tablesFromAbove); only those pass from lane to lane.
#ifndef DP_UPT
#define DP_UPT (~0ULL)
#endif
#define DP_UP(t) (((DP_UPT) >> (t)) & 1ULL)
static_assert(DP_T == 1 || !DP_BACK, "several tables: forward sweeps");
// DP_BREG (codegen: Program.BatchValueOnly, a region min or max of integer
// cells): each row of a lane keeps its best value, one max (min) a cell,
// folded into the partial result at the end of the strip where the row is
// in the grid and has cells in the region (DP_ROW_IN_REGION): rows past
// the grid's last, whose cells a strip may compute without checks, are
// left out. The best starts at DP_BREG_INIT, the cell type's least
// (greatest) value, which a row of such cells keeps.

// dp_batch_best folds v, a cell in the region where in, into its row's
// best (DP_BREG).
__device__ __forceinline__ void dp_batch_best(cell_t &b, const cell_t v, const bool in)
{
#if DP_REG_OP == 0
	b = in && v < b ? v : b;
#else
	b = in && v > b ? v : b;
#endif
}

#if DP_T > 1
// dp_batch_tables computes tables TB.. of row K's cell at cell column j,
// each into its window column (DP_T-1-TB); cj counts cell columns.
template <bool CHK, int K, int TB>
__device__ __forceinline__ void dp_batch_tables(cell_t (&w)[DP_NW][DP_NC], dp_win_acc<CHK, K> &a, const DP_IDX_T i, const DP_IDX_T j,
	const int cj, dp_part_t &acc, cell_t (&bv)[DP_RPT])
{
	if constexpr (TB < DP_T) {
		const cell_t v = dp_rec_t<TB>(i, j, a);
		w[DP_PI + K][DP_T - 1 - TB] = v;
#if DP_BREG
		dp_batch_best(bv[K], v, a.live() && DP_IN_REGION_T(i, j, TB));
#elif DP_ANS_KIND == 2
		if (a.live() && DP_IN_REGION_T(i, j, TB))
			dp_part_add(acc, v, (long long)i * cj * DP_T + (long long)j * DP_T + TB);
#endif
		(void)acc, (void)bv, (void)cj;
		dp_batch_tables<CHK, K, TB + 1>(w, a, i, j, cj, acc, bv);
	}
}
#endif

// dp_batch_cells computes this lane's rows K.. at column j.
template <bool CHK, int K>
__device__ __forceinline__ void dp_batch_cells(cell_t (&w)[DP_NW][DP_NC], const dp_rowvals (&rv)[DP_RPT], const dp_colvals &cv,
	const DP_IDX_T (&ri)[DP_RPT], const bool (&rlive)[DP_RPT], const bool clive, const DP_IDX_T j, const int cj, dp_part_t &acc,
	cell_t (&bv)[DP_RPT], const dp_pfvals &pv)
{
	if constexpr (K < DP_RPT) {
		dp_win_acc<CHK, K> a{w, rv[K], cv, rlive[K] && clive, &pv};
#if DP_T > 1
		dp_batch_tables<CHK, K, 0>(w, a, ri[K], j, cj, acc, bv);
#else
		const cell_t v = dp_rec(ri[K], j, a);
		w[DP_PI + K][0] = v;
#if DP_BREG
		dp_batch_best(bv[K], v, a.live() && DP_IN_REGION(ri[K], j));
#elif DP_ANS_KIND == 2
		if (a.live() && DP_IN_REGION(ri[K], j))
			dp_part_add(acc, v, (long long)ri[K] * cj + j);
#endif
#endif
		dp_batch_cells<CHK, K + 1>(w, rv, cv, ri, rlive, clive, j, cj, acc, bv, pv);
	}
}

// dp_batch_chunk runs steps g0 .. g0+31 of strip s: lane 0 takes the row
// above from top (the previous strip's bottom rows), lane 31 leaves its
// bottom rows in out. grp is the lane's group of rows in the profiles
// (s*32 + lane).
template <bool CHK>
__device__ __forceinline__ void dp_batch_chunk(const int g0, const int lane, const int grp, const int cj, const long long aj, cell_t (&w)[DP_NW][DP_NC], const cell_t *top,
	cell_t *out, const dp_colvals *ring, const dp_rowvals (&rv)[DP_RPT], const DP_IDX_T (&ri)[DP_RPT],
	const bool (&rlive)[DP_RPT], const int kAns, cell_t &ansv, bool &gotAns, dp_part_t &acc, cell_t (&bv)[DP_RPT])
{
#pragma unroll 4
	for (int u = 0; u < 32; ++u) {
		const int j = g0 + u - lane;
		cell_t up[DP_T][DP_PI1] = {};
#pragma unroll
		for (int p = 0; p < DP_PI; ++p)
#pragma unroll
			for (int tb = 0; tb < DP_T; ++tb) {
				if (!DP_UP(tb))
					continue; // no reference reads it above: left 0
				const cell_t x = __shfl_up_sync(DP_FULL, w[DP_RPT + p][DP_T - 1 - tb], 1);
				// Lane 0's column g0+u: the previous strip's bottom rows
				// (none above the first strip: never read there).
				cell_t t = (cell_t)0;
				if (lane == 0 && top && j < cj)
					t = top[p * DP_BCOLS + j * DP_T + tb];
				up[tb][p] = lane == 0 ? t : x;
			}
#pragma unroll
		for (int tb = 0; tb < DP_T; ++tb)
			dp_win_shift(w, up[tb]);
		bool clive = true;
		int jc = j;
		if (CHK) {
			clive = j >= 0 && j < cj;
			jc = j < 0 ? 0 : (j >= cj ? cj - 1 : j);
		}
		const DP_IDX_T rj = (DP_IDX_T)(DP_BACK ? DP_COLS - 1 - jc : jc);
#if DP_NCOLV > 0
		const dp_colvals cv = ring[jc & 127];
#else
		const dp_colvals cv{};
#endif
		dp_pfvals pv;
#if DP_NPF > 0
		pv.load(cv, rj, grp);
#else
		(void)grp;
#endif
		dp_batch_cells<CHK, 0>(w, rv, cv, ri, rlive, clive, rj, cj, acc, bv, pv);
#if DP_ANS_KIND == 1
		if (kAns >= 0 && rj == aj / DP_T && clive) {
#pragma unroll
			for (int k = 0; k < DP_RPT; ++k)
				if (k == kAns)
					ansv = w[DP_PI + k][DP_T - 1 - aj % DP_T];
			gotAns = true;
		}
#endif
#if DP_PI > 0
		if (out && lane == 31 && clive) {
#pragma unroll
			for (int p = 0; p < DP_PI; ++p)
#pragma unroll
				for (int tb = 0; tb < DP_T; ++tb)
					out[p * DP_BCOLS + j * DP_T + tb] = w[DP_RPT + p][DP_T - 1 - tb];
		}
#endif
	}
}

// dp_batch: n instances; ans has one cell an instance (DP_ANS_KIND 1),
// part one partial result (2); with DP_BGEN cols and ansj one column
// count and answer column an instance; bptr the DP_NBPTR pointers of
// dp_bptr; with DP_BGLOBAL grows 2 x DP_PI1 x DP_BCOLS cells an instance
// (unused without). Blocks of DP_BW*32 threads, (n + DP_BW - 1) / DP_BW of
// them.
extern "C" __global__ void __launch_bounds__(DP_BW * 32, DP_BMINB) dp_batch(long long n, cell_t *ans, dp_part_t *part, const int *cols,
	const int *ansj, const unsigned long long *bptr, cell_t *grows)
{
	for (int t = threadIdx.x; t < DP_NBPTR; t += blockDim.x)
		dp_bptr[t] = bptr[t];
	__syncthreads();
#if DP_NPF > 0
	dp_pf_build(); // from the launch's shared inputs
	__syncthreads();
#endif
#if !DP_BGLOBAL
	__shared__ cell_t bnd[DP_BW][2][DP_PI1 * DP_BCOLS];
	(void)grows;
#endif
#if DP_NCOLV > 0
	__shared__ dp_colvals cring[DP_BW][128];
#endif
	const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
	const long long inst = dp_binst();
	if (inst >= n)
		return;
#if DP_BGEN
	const int cj = cols[inst] / DP_T; // cell columns (cols: flat)
#if DP_ANS_KIND == 1
	const long long aj = ansj[inst];
#else
	const long long aj = 0;
	(void)ansj;
#endif
#else
	const int cj = (int)(DP_COLS / DP_T); // cell columns
#if DP_ANS_KIND == 1
	const long long aj = DP_ANS_J;
#else
	const long long aj = 0;
#endif
	(void)cols, (void)ansj;
#endif
#if DP_NCOLV > 0
	dp_colvals *ring = cring[wib];
#else
	dp_colvals *ring = 0;
#endif
	dp_part_t acc;
	dp_part_init(acc);
	cell_t ansv = (cell_t)0;
	bool gotAns = false; // this lane computed the answer cell
	for (long long s = 0; s < DP_NSTRIPS; ++s) {
		DP_IDX_T ri[DP_RPT];
		bool rlive[DP_RPT];
		dp_rowvals rv[DP_RPT];
		int kAns = -1;
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k) {
			ri[k] = dp_lane_row(s, lane, k, rlive[k]);
			rv[k].fill(ri[k]);
#if DP_ANS_KIND == 1
			if (rlive[k] && ri[k] == DP_ANS_I)
				kAns = k;
#endif
		}
		cell_t bv[DP_RPT];
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k)
			bv[k] = DP_BREG ? (cell_t)DP_BREG_INIT : (cell_t)0;
		cell_t w[DP_NW][DP_NC];
		dp_win_zero(w);
		const cell_t *top;
		cell_t *out;
#if DP_BGLOBAL
		dp_strip_edges(grows + inst * (2LL * DP_PI1 * DP_BCOLS), s, top, out);
#else
		dp_strip_edges(&bnd[wib][0][0], s, top, out);
#endif
		// Chunks that reach outside the grid check what they read and
		// where they are: a strip's first rows read rows above the grid
		// (where a reference is not proved inside), and a strip with rows
		// past the grid's last must keep those rows from reporting errors
		// (a recurrence that may report) and from counting in a region
		// answer folded a cell at a time (DP_BREG's rows leave them out
		// at the fold). Otherwise only the chunks at the instance's first
		// and last columns check.
		const bool rowsChk = (!DP_REFS_SAFE && s * DP_SH < DP_PI) ||
			((DP_REC_CHECKS || (DP_ANS_KIND == 2 && !DP_BREG)) && (s + 1) * DP_SH > DP_ROWS);
		for (int g0 = 0; g0 < cj + 31; g0 += 32) {
#if DP_NCOLV > 0
			{
				const int jf = g0 + lane < cj ? g0 + lane : cj - 1;
				ring[(g0 + lane) & 127].fill(DP_BACK ? DP_COLS - 1 - jf : jf);
			}
#endif
			__syncwarp();
			const bool chk = rowsChk || g0 < 31 + DP_PJ || g0 + 32 > cj;
			if (chk)
				dp_batch_chunk<true>(g0, lane, (int)s * 32 + lane, cj, aj, w, top, out, ring, rv, ri, rlive, kAns, ansv, gotAns, acc, bv);
			else
				dp_batch_chunk<false>(g0, lane, (int)s * 32 + lane, cj, aj, w, top, out, ring, rv, ri, rlive, kAns, ansv, gotAns, acc, bv);
		}
#if DP_BREG
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k)
			if (rlive[k] && DP_ROW_IN_REGION(ri[k], cj * DP_T))
				dp_part_add(acc, bv[k], (long long)ri[k] * cj);
#endif
		__syncwarp(); // out, before the next strip reads it
	}
#if DP_ANS_KIND == 1
	if (gotAns)
		ans[inst] = ansv;
#else
	(void)ans, (void)ansv, (void)gotAns;
#endif
#if DP_ANS_KIND == 2
	dp_part_warp(acc);
	if (lane == 0)
		part[inst] = acc;
#else
	(void)part;
#endif
}
