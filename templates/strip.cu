
// ---- strip kernel (templates/strip.cu): the fast wavefront ----
//
// Coordinates are in sweep order, as in tile.cu. One persistent launch:
// each block takes strips of DP_BH = DP_STRIP_WARPS*32*DP_RPT rows in order
// from a ticket counter and sweeps all columns. Warp w of the block holds
// the strip's rows w*DP_SH .. (DP_SH = 32*DP_RPT rows per warp); lane l
// holds DP_RPT consecutive rows of them in registers and computes column
// g - l at its step g (a skew of one column per lane), so the row above a
// lane's first row is the lane above's last row one step earlier: a
// __shfl_up_sync. Lane 0 gets it from the warp above: through a ring of
// DP_RING columns in shared memory for the warps of one block (progress
// counters made/used, every DP_SYNC columns), and for warp 0 from the last
// warp of the previous strip, which publishes its bottom DP_PI rows in a
// buffer of 2 x DP_PI x COLS cells (strip s writes slot s&1, reads (s+1)&1)
// and its progress in prog[s] every DP_PUB columns.
//
// The register window w (templates/window.cu) holds, for this lane's rows
// and the DP_PI rows above them, the current column and DP_PJ columns
// back: any constant offset within (DP_PI, DP_PJ) is a register read. Inputs read with an
// index of i alone are kept per row in registers (dp_rowvals); those of j
// alone are staged per column in a shared ring (dp_colvals), so that no
// lane waits on a divergent constant-memory read in the loop.
//
// With DP_KEEP (maintain), every cell also goes to device memory: a lane
// puts its DP_RPT cells of each step in its warp's slice of dynamic shared
// memory (DP_KM = DP_RPT*DP_SYNC cells per lane, rotated by the lane so that
// neither the writes nor the reads conflict on banks), and after each group
// of DP_SYNC steps the warp writes the group's cells out row by row, DP_SYNC
// contiguous cells per row, in real (not sweep) coordinates, into the
// strip's slot of the keep buffer: slot s % nslots holds the strip's rows,
// row-major, the lowest real row first. Before a block starts strip s it
// waits until *freed (the strips the host has copied out) reaches
// s - nslots + 1; when all its warps are done it sets done[s] (host memory)
// for the host to copy the slot out.
//
// With DP_SLABS, the launch sweeps one column slab of the grid: sweep
// columns c0 .. c0+cw-1 (sl.c0, sl.cw; j below is a column of the slab,
// c0 + j of the grid). Every strip of a slab after the first first waits
// for the same strip of the slab to its left (sl.lflag[s], set with a
// system-scope release: that slab may run on another GPU, writing here
// through peer access or mapped host memory), whose last DP_PJ columns of
// every row it reads from sl.lin (row-major, DP_PJ cells a row): they fill
// the register windows before the slab's first column, and stand for the
// columns left of it that the skewed lanes pass through. A slab with a slab
// to its right writes its own last DP_PJ columns to sl.lout and flags each
// finished strip in sl.rflag. Slabs are how one grid spreads over several
// GPUs (backend/gpu/slabs.go); without DP_SLABS, c0 = 0 and cw = COLS at
// compile time and the kernel is the one-GPU kernel.
//
// With DP_BANDS, the launch is part bd.part of bd.parts launches (on one
// GPU or several) that share the strips in bands of bd.chunk strips dealt
// round-robin: its ticket t is strip (q*parts + part)*chunk + r for
// q = t / chunk, r = t % chunk. A band's first strip follows the last strip
// of the band above, which another launch sweeps: that strip writes its
// bottom rows and progress, as it would into bnd and prog, into this
// launch's link (bd.lbnd, bd.lprog; bd.nbnd, bd.nprog of the launch above:
// device memory of this launch's GPU, written through peer access or by
// itself, or mapped host memory) with system-scope releases, and this
// launch's band's first strip reads them with system-scope acquires. All
// launches thus sweep at once, one wavefront of strips across the GPUs,
// instead of each column slab waiting a strip sweep for the slab on its
// left.
//
// Deadlock freedom: a block waits only for the strip before its own, which
// a running block took from the ticket earlier; inside a block, a warp
// waits for the warp above to produce and (the ring being much longer than
// a step group) for the warp below to consume.

#define DP_BH (DP_STRIP_WARPS * DP_SH)
#define DP_PUB 32
#define DP_RING 128
#define DP_SYNC 8 // steps per group; 32 must be a multiple
#ifndef DP_KEEP
#define DP_KEEP 0
#endif
#ifndef DP_KEEPROWS
#define DP_KEEPROWS 0
#endif
// DP_KEEPCOLS: chosen columns are kept too (checkpoint columns of a
// traceback, beside its rows: CUDAlign's special columns). Only checked
// chunks write them (dp_strip_one marks a chunk that holds one as
// checked), so the fast chunks stay as they are.
#ifndef DP_KEEPCOLS
#define DP_KEEPCOLS 0
#endif
static_assert(!DP_KEEPCOLS || DP_KEEPROWS, "kept columns come with the kept rows' table");
// DP_KCH: the chunk flags of kept columns, one int per chunk of 32 sweep
// columns (and one past the end).
#define DP_KCH ((DP_COLS + 31) / 32 + 2)
#define DP_KM (DP_RPT * DP_SYNC)
#ifndef DP_SLABS
#define DP_SLABS 0
#endif
#ifndef DP_BANDS
#define DP_BANDS 0
#endif
static_assert(!(DP_BANDS && (DP_SLABS || DP_KEEP || DP_KEEPROWS)), "row bands: score only, not with column slabs");

typedef DP_JT dp_j_t;
// DP_T > 1: the tables of a cell computed together (codegen's
// Program.Tables): the kernel sweeps cell columns, a step computing a
// lane's rows' DP_T tables in file order (dp_rec_t), and everything a
// column carries (the window, the rows passed between lanes, warps and
// strips) holds DP_T flat columns, table t of cell column c at flat column
// c*DP_T + t; the window's current cell is its columns DP_T-1 (table 0) ..
// 0 (the last table). Forward sweeps of one GPU launch only.
#ifndef DP_T
#define DP_T 1
#endif
// DP_UPT: the mask of the tables some reference reads in a row above
// (codegen tablesFromAbove); only those pass from lane to lane.
#ifndef DP_UPT
#define DP_UPT (~0ULL)
#endif
#define DP_UP(t) (((DP_UPT) >> (t)) & 1ULL)
static_assert(DP_T == 1 || !(DP_BACK || DP_KEEP || DP_KEEPROWS || DP_SLABS), "tables computed together: forward, nothing kept, one launch");
// The column count (cell columns) in the type of column indices
// (comparisons stay 32-bit).
#define DP_CJ ((dp_j_t)(DP_COLS / DP_T))

// dp_slab is the column slab a launch sweeps (DP_SLABS) and its borders.
struct dp_slab {
	long long c0, cw;   // first sweep column, width
	const cell_t *lin;  // the left slab's last DP_PJ columns, a row each; 0 for the first slab
	const int *lflag;   // per strip: the left slab wrote the strip's rows of lin
	cell_t *lout;       // this slab's last DP_PJ columns for the right slab; 0 for the last
	int *rflag;         // per strip: lout holds the strip's rows
};
// dp_band is a launch's share of the strips (DP_BANDS).
struct dp_band {
	long long chunk; // strips a band
	int parts, part; // launches sharing the strips, this one
	const cell_t *lbnd; // the link from the band above: its last strip's bottom rows, as in bnd
	const int *lprog;   // and its progress, as in prog
	cell_t *nbnd;       // the link of the launch of the next band (its lbnd)
	int *nprog;         // (its lprog)
};

// dp_band_strip is the strip of the launch's ticket t (DP_BANDS).
__device__ __forceinline__ long long dp_band_strip(const dp_band &b, long long t)
{
	const long long q = t / b.chunk;
	return (q * b.parts + b.part) * b.chunk + (t - q * b.chunk);
}

// DP_LW(sw) is the width of the columns a launch sweeps.
#if DP_SLABS
#define DP_LW(sw) ((dp_j_t)(sw).sl.cw)
#else
#define DP_LW(sw) DP_CJ
#endif

#ifdef DP_EMU
__device__ __forceinline__ int dp_ld_acquire(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
__device__ __forceinline__ void dp_st_release(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
__device__ __forceinline__ void dp_st_release_sys(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
__device__ __forceinline__ int dp_ld_acquire_sys(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
#else
__device__ __forceinline__ int dp_ld_acquire(const int *p)
{
	int v;
	asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ void dp_st_release(int *p, int v)
{
	asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ int dp_ld_acquire_sys(const int *p)
{
	int v;
	asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

// dp_st_release_sys stores v at p (host memory) for the host to see.
__device__ __forceinline__ void dp_st_release_sys(int *p, int v)
{
	asm volatile("st.release.sys.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
#endif

__device__ __forceinline__ bool dp_aborted() { return *(volatile int *)&dp_abort != 0; }

// dp_wait waits until *p >= need; false when the host asked to stop. SYS:
// *p is written by another launch (DP_BANDS' links), at system scope.
template <bool SYS = false>
__device__ __forceinline__ bool dp_wait(const int *p, int need, int &known)
{
	while (known < need) {
		known = SYS ? dp_ld_acquire_sys(p) : dp_ld_acquire(p);
		if (known >= need)
			break;
		if (dp_aborted())
			return false;
		__nanosleep(64);
	}
	return true;
}

// dp_wait_shared waits until the shared counter *p >= need.
__device__ __forceinline__ bool dp_wait_shared(volatile int *p, int need)
{
	for (int spins = 1; *p < need; ++spins) {
		// Looking at the abort flag is a global load: not on every spin.
		if ((spins & 1023) == 0 && dp_aborted())
			return false;
#ifdef DP_EMU
		__nanosleep(0); // host threads: let the others run
#endif
	}
	__threadfence_block();
	return true;
}

// Shared state of a block: the rings between its warps and the counters.
struct dp_strip_shared {
	cell_t xr[DP_STRIP_WARPS][DP_PI1][DP_RING * DP_T]; // warp w's bottom rows, for warp w+1
	int made[DP_STRIP_WARPS];                   // columns warp w has put in xr[w]
	int used[DP_STRIP_WARPS];                   // columns warp w has taken from xr[w-1]
	int ticket;
	int stop;
};

#if DP_T > 1
// dp_strip_tables computes tables TB.. of row K's cell at cell column j,
// in file order, each into its window column (DP_T-1-TB).
template <bool CHK, int K, int TB>
__device__ __forceinline__ void dp_strip_tables(cell_t (&w)[DP_NW][DP_NC], dp_win_acc<CHK, K> &a, const DP_IDX_T i, const DP_IDX_T j,
	dp_part_t &acc)
{
	if constexpr (TB < DP_T) {
		const cell_t v = dp_rec_t<TB>(i, j, a);
		w[DP_PI + K][DP_T - 1 - TB] = v;
		const long long jf = (long long)j * DP_T + TB; // the flat column
#if DP_ANS_KIND == 2
		if (a.live() && DP_IN_REGION_T(i, j, TB))
			dp_part_add(acc, v, (long long)i * DP_COLS + jf);
#elif DP_ANS_KIND == 3
		if (a.live())
			DP_CAPTURE(i, jf, v);
#endif
		(void)jf, (void)acc;
		dp_strip_tables<CHK, K, TB + 1>(w, a, i, j, acc);
	}
}
#endif

template <bool CHK, int K>
__device__ __forceinline__ void dp_strip_cells(cell_t (&w)[DP_NW][DP_NC], const dp_rowvals (&rv)[DP_RPT], const dp_colvals &cv,
	const DP_IDX_T (&ri)[DP_RPT], const bool (&rlive)[DP_RPT], const bool clive, const DP_IDX_T j, dp_part_t &acc)
{
	if constexpr (K < DP_RPT) {
		dp_win_acc<CHK, K> a{w, rv[K], cv, rlive[K] && clive};
#if DP_T > 1
		dp_strip_tables<CHK, K, 0>(w, a, ri[K], j, acc);
#else
		const cell_t v = dp_rec(ri[K], j, a);
		w[DP_PI + K][0] = v;
#if DP_ANS_KIND == 2
		if (a.live() && DP_IN_REGION(ri[K], j))
			dp_part_add(acc, v, (long long)ri[K] * DP_COLS + j);
#elif DP_ANS_KIND == 3
		if (a.live())
			DP_CAPTURE(ri[K], j, v);
#endif
#endif
		dp_strip_cells<CHK, K + 1>(w, rv, cv, ri, rlive, clive, j, acc);
	}
}

// dp_strip_warp is what one warp needs while it sweeps a strip.
struct dp_strip_warp {
	long long s;      // strip
	int wib, lane;    // warp in block, lane
	bool first, last; // first / last warp of the block
	int kAns;         // DP_ANS_KIND 1: this lane's row k holding the answer cell, else -1
	dp_j_t ansJ;      // DP_ANS_KIND 1: the answer's column in this launch's sweep (any lane, any warp)
	cell_t *out;      // last warp: bottom rows for the next strip
	int *prog;        // progress of the strips, this strip's at s (DP_BANDS: the next band's launch's for a band's last strip)
	const int *above; // progress of the strip above, at s-1
	const cell_t *in; // the strip above's bottom rows (bnd, or DP_BANDS: the link)
	bool linkOut;     // DP_BANDS: a band's last strip (out and prog in the next launch's memory)
	bool linkIn;      // DP_BANDS: a band's first strip (the strip above written by another launch)
	dp_strip_shared *sh;
	const dp_colvals *ring;
	cell_t *keep;     // DP_KEEP: the strip's slot
	long long keepLo; // DP_KEEP: the slot's first real row
	dp_slab sl;       // the launch's slab (c0 = 0, cw = COLS without DP_SLABS)
	long long row0;   // sweep row of this lane's first row
	cell_t *kt;       // DP_KEEP: this warp's DP_KM x 32 cells of shared memory
#if DP_KEEPROWS
	int ks[DP_RPT];   // the kept-row slot of each of this lane's rows, or -1
	bool kany;        // one of them is kept
	cell_t *krows;    // the kept rows, COLS cells each, slot by slot
#endif
#if DP_KEEPCOLS
	const int *kcol;  // per real column, its kept-column slot or -1
	const int *kch;   // per chunk g0/32: whether columns g0-31 .. g0+31 hold a kept one
	cell_t *kcols;    // the kept columns, ROWS cells each, slot by slot
#endif
};

#if DP_KEEP
// dp_keep_flush writes the cells of the group of steps from G on: lane ls
// computed rows ls*DP_RPT+k at columns G-ls .. G-ls+DP_SYNC-1. Item idx of
// the 32*DP_KM is row q = idx / DP_SYNC of the warp, column c = idx % DP_SYNC
// of the row's run, so that a warp's store covers 32/DP_SYNC runs of
// contiguous cells.
__device__ __forceinline__ void dp_keep_flush(const dp_strip_warp &sw, const dp_j_t G)
{
	const long long base = sw.s * DP_BH + (long long)sw.wib * DP_SH;
#pragma unroll 4
	for (int it = 0; it < DP_KM; ++it) {
		const int idx = it * 32 + sw.lane;
		const int q = idx / DP_SYNC, c = idx % DP_SYNC;
		const int ls = q / DP_RPT, k = q % DP_RPT;
		const long long r = base + q;
		const dp_j_t j = G - ls + c;
		if (r < DP_ROWS && j >= 0 && j < DP_CJ) {
			const cell_t v = sw.kt[ls * DP_KM + (k * DP_SYNC + c + ls) % DP_KM];
			const long long ri = DP_BACK ? DP_ROWS - 1 - r : r;
			const long long rj = DP_BACK ? DP_COLS - 1 - (long long)j : (long long)j;
			sw.keep[(ri - sw.keepLo) * DP_COLS + rj] = v;
		}
	}
}
#endif

#if DP_SLABS
// dp_slab_left is the left slab's cell at sweep row r and column j of this
// slab (-DP_PJ <= j < 0); 0 outside the grid or further left.
__device__ __forceinline__ cell_t dp_slab_left(const dp_strip_warp &sw, long long r, long long j)
{
	if (r < 0 || r >= DP_ROWS || j < -DP_PJ || j >= 0)
		return (cell_t)0;
	return __ldcg(sw.sl.lin + r * DP_PJ + (DP_PJ + j));
}
#endif

// dp_wait_strip waits until the strip above has published column need,
// at system scope where another launch sweeps it (DP_BANDS).
__device__ __forceinline__ bool dp_wait_strip(const dp_strip_warp &sw, const int *above, int need, int &known)
{
#if DP_BANDS
	if (sw.linkIn)
		return dp_wait<true>(above, need, known);
#endif
	return dp_wait(above, need, known);
}

// dp_strip_chunk runs steps g0 .. g0+31 of a strip, in groups of DP_SYNC
// steps: the waits and the progress counters are per group, and a group's
// inputs (the row above from the warp above, the column values) are read
// into registers before its steps; false when stopped. KR: the warp keeps
// a row (DP_KEEPROWS; dp_strip_one).
template <bool CHK, bool KR>
__device__ __forceinline__ bool dp_strip_chunk(const dp_j_t g0, const dp_strip_warp &sw, cell_t (&w)[DP_NW][DP_NC],
	const cell_t (&topc)[DP_PI1][DP_T], const dp_rowvals (&rv)[DP_RPT], const DP_IDX_T (&ri)[DP_RPT], const bool (&rlive)[DP_RPT],
	dp_part_t &acc)
{
	const int lane = sw.lane;
	if (!CHK) {
		// A chunk without checks lies inside the grid (dp_strip_one's chk):
		// its rows at least DP_PI from the sweep's first, its columns at
		// least DP_PJ from the first. Said to the compiler, the recurrence's
		// boundary cases (i == 0, j == 0) drop out of the loop.
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k)
			__builtin_assume(DP_BACK ? ri[k] <= DP_ROWS - 1 - DP_PI : ri[k] >= DP_PI);
	}
	for (int u0 = 0; u0 < 32; u0 += DP_SYNC) {
		const dp_j_t G = g0 + u0;
#if DP_PI > 0
		cell_t tvs[DP_SYNC][DP_PI1][DP_T];
		if (sw.first) {
#pragma unroll
			for (int u = 0; u < DP_SYNC; ++u)
#pragma unroll
				for (int p = 0; p < DP_PI; ++p)
#pragma unroll
					for (int t = 0; t < DP_T; ++t)
						tvs[u][p][t] = DP_UP(t) ? __shfl_sync(DP_FULL, topc[p][t], u0 + u) : (cell_t)0;
		} else {
			if (G < DP_LW(sw)) {
				const dp_j_t need = G + DP_SYNC < DP_LW(sw) ? G + DP_SYNC : DP_LW(sw);
				if (!dp_wait_shared(&sw.sh->made[sw.wib - 1], (int)need))
					return false;
				if (lane == 0)
					*(volatile int *)&sw.sh->used[sw.wib] = (int)G;
			}
#pragma unroll
			for (int u = 0; u < DP_SYNC; ++u)
#pragma unroll
				for (int p = 0; p < DP_PI; ++p)
#pragma unroll
					for (int t = 0; t < DP_T; ++t)
						tvs[u][p][t] = DP_UP(t) ? ((volatile cell_t *)sw.sh->xr[sw.wib - 1][p])[((G + u) & (DP_RING - 1)) * DP_T + t] : (cell_t)0;
		}
		const dp_j_t jlo = G - 31; // lane 31's first column in this group
		if (!sw.last && jlo + DP_SYNC > 0 && jlo < DP_LW(sw)) {
			// Room in the ring below for columns jlo .. jlo+DP_SYNC-1.
			if (!dp_wait_shared(&sw.sh->used[sw.wib + 1], (int)(jlo + DP_SYNC - DP_RING)))
				return false;
		}
#endif
#if DP_NCOLV > 0
		dp_colvals cvs[DP_SYNC];
#pragma unroll
		for (int u = 0; u < DP_SYNC; ++u) {
			dp_j_t jc = G + u - lane;
			if (CHK)
				jc = jc < 0 ? 0 : (jc >= DP_LW(sw) ? DP_LW(sw) - 1 : jc);
			cvs[u] = sw.ring[jc & 127];
		}
#endif
#if DP_PI > 0
		cell_t bot[DP_SYNC][DP_PI1][DP_T]; // this lane's bottom rows at the group's steps
#endif
#pragma unroll
		for (int u = 0; u < DP_SYNC; ++u) {
			const dp_j_t j = G + u - lane;
			if (!CHK) {
				// Two facts, not one with &&: an assumption with a branch in
				// it is lost on the way to the code generator.
				__builtin_assume(j >= DP_PJ);
				__builtin_assume(j < DP_LW(sw));
			}
			cell_t up[DP_T][DP_PI1] = {};
#if DP_PI > 0
#pragma unroll
			for (int p = 0; p < DP_PI; ++p)
#pragma unroll
				for (int t = 0; t < DP_T; ++t) {
					if (!DP_UP(t))
						continue; // no reference reads it above: left 0
					const cell_t x = __shfl_up_sync(DP_FULL, w[DP_RPT + p][DP_T - 1 - t], 1);
					up[t][p] = lane == 0 ? tvs[u][p][t] : x;
				}
#endif
#pragma unroll
			for (int t = 0; t < DP_T; ++t)
				dp_win_shift(w, up[t]);
			bool clive = true;
			dp_j_t jc = j;
			if (CHK) {
				clive = j >= 0 && j < DP_LW(sw);
				jc = j < 0 ? 0 : (j >= DP_LW(sw) ? DP_LW(sw) - 1 : j);
			}
			const long long js = DP_SLABS ? sw.sl.c0 + (long long)jc : (long long)jc; // sweep column of the grid
			const DP_IDX_T rj = (DP_IDX_T)(DP_BACK ? DP_COLS - 1 - js : js);
#if DP_NCOLV > 0
			const dp_colvals &cv = cvs[u];
#else
			const dp_colvals cv{};
#endif
#if DP_SLABS
			if (CHK && j < 0 && sw.sl.lin) {
				// Left of the slab: the left slab's cells.
#pragma unroll
				for (int k = 0; k < DP_RPT; ++k)
					w[DP_PI + k][0] = dp_slab_left(sw, sw.row0 + k, j);
			} else
#endif
				dp_strip_cells<CHK, 0>(w, rv, cv, ri, rlive, clive, rj, acc);
#if DP_SLABS
			if (sw.sl.lout && clive && j >= DP_LW(sw) - DP_PJ) {
#pragma unroll
				for (int k = 0; k < DP_RPT; ++k)
					if (rlive[k])
						sw.sl.lout[(sw.row0 + k) * DP_PJ + (j - (DP_LW(sw) - DP_PJ))] = w[DP_PI + k][0];
			}
#endif
#if DP_ANS_KIND == 1
			// Only a checked chunk holds the answer's column (dp_strip_one).
			if (CHK && sw.kAns >= 0 && rj == DP_ANS_J / DP_T && clive) {
#pragma unroll
				for (int k = 0; k < DP_RPT; ++k)
					if (k == sw.kAns)
						dp_ans = w[DP_PI + k][DP_T - 1 - DP_ANS_J % DP_T];
			}
#endif
#if DP_KEEP
#pragma unroll
			for (int k = 0; k < DP_RPT; ++k)
				sw.kt[lane * DP_KM + (k * DP_SYNC + u + lane) % DP_KM] = w[DP_PI + k][0];
#endif
#if DP_KEEPROWS
			// Only in the code of a warp that keeps a row (dp_strip_one).
			if (KR) {
#pragma unroll
				for (int k = 0; k < DP_RPT; ++k)
					if (sw.ks[k] >= 0 && clive)
						sw.krows[(long long)sw.ks[k] * DP_COLS + rj] = w[DP_PI + k][0];
			}
#endif
#if DP_KEEPCOLS
			if (CHK && clive) {
				const int kc = sw.kcol[rj];
				if (kc >= 0) {
#pragma unroll
					for (int k = 0; k < DP_RPT; ++k)
						if (rlive[k])
							sw.kcols[(long long)kc * DP_ROWS + ri[k]] = w[DP_PI + k][0];
				}
			}
#endif
#if DP_PI > 0
#pragma unroll
			for (int p = 0; p < DP_PI; ++p)
#pragma unroll
				for (int t = 0; t < DP_T; ++t)
					bot[u][p][t] = w[DP_RPT + p][DP_T - 1 - t];
#endif
		}
#if DP_PI > 0
		// Lane 31's bottom rows at the group's columns go to the warp below
		// (the last warp's to the strip below): one branch a group, not a
		// step (the whole warp issues what lane 31 stores).
		if (lane == 31) {
#pragma unroll
			for (int u = 0; u < DP_SYNC; ++u) {
				const dp_j_t j = G + u - 31;
				if (CHK && (j < 0 || j >= DP_LW(sw)))
					continue;
				if (sw.last) {
#pragma unroll
					for (int p = 0; p < DP_PI; ++p)
#pragma unroll
						for (int t = 0; t < DP_T; ++t)
							sw.out[(p * (long long)DP_LW(sw) + j) * DP_T + t] = bot[u][p][t];
				} else {
					// The warp below reads only the tables a reference reads
					// above (DP_UP); the strip's bottom rows (out) keep all.
#pragma unroll
					for (int p = 0; p < DP_PI; ++p)
#pragma unroll
						for (int t = 0; t < DP_T; ++t)
							if (DP_UP(t))
								((volatile cell_t *)sw.sh->xr[sw.wib][p])[(j & (DP_RING - 1)) * DP_T + t] = bot[u][p][t];
				}
			}
		}
#endif
#if DP_KEEP
		__syncwarp();
		dp_keep_flush(sw, G);
		__syncwarp(); // the next group overwrites kt
#endif
#if DP_PI > 0
		// Publish lane 31's columns up to jhi (exclusive).
		const dp_j_t jhi = jlo + DP_SYNC < DP_LW(sw) ? jlo + DP_SYNC : DP_LW(sw);
		if (jhi > 0 && jlo < DP_LW(sw) && lane == 31) {
			if (sw.last) {
				// Every DP_PUB columns (a release is costly), and at the end.
				if (jhi == DP_LW(sw) || jhi / DP_PUB != (jhi - DP_SYNC) / DP_PUB) {
					if (DP_BANDS && sw.linkOut)
						dp_st_release_sys(sw.prog + sw.s, (int)jhi);
					else
						dp_st_release(sw.prog + sw.s, (int)jhi);
				}
			} else {
				__threadfence_block();
				*(volatile int *)&sw.sh->made[sw.wib] = (int)jhi;
			}
		}
#endif
	}
	return true;
}

// dp_strip_one sweeps this warp's rows of strip s; false when stopped.
// KR: the warp keeps a row (DP_KEEPROWS): the stores are in its code
// only, so that the warps that keep none (almost all) run the code of a
// run that keeps nothing (a predicate and an address a row and a step in
// every warp had made E. coli x Salmonella's forward pass, 50 kept rows,
// 14.5-16.5 s against 11.9 s).
template <bool KR>
__device__ __forceinline__ bool dp_strip_one(const dp_strip_warp &sw, dp_colvals *ring, dp_part_t &acc)
{
	const long long s = sw.s;
	const int lane = sw.lane;
	const long long base = s * DP_BH + (long long)sw.wib * DP_SH;
	DP_IDX_T ri[DP_RPT];
	bool rlive[DP_RPT];
	dp_rowvals rv[DP_RPT];
#pragma unroll
	for (int k = 0; k < DP_RPT; ++k) {
		const long long r = base + (long long)lane * DP_RPT + k;
		rlive[k] = r < DP_ROWS;
		const long long rc = r < DP_ROWS ? r : DP_ROWS - 1;
		ri[k] = (DP_IDX_T)(DP_BACK ? DP_ROWS - 1 - rc : rc);
		rv[k].fill(ri[k]);
	}
	// (A warp keeping a row writes it from every chunk, checked or not:
	// checking all its chunks instead slowed its strip, and in the
	// wavefront of strips every strip after it — E. coli x Salmonella's
	// forward pass, 50 kept rows, took 35.6 s instead of 15.8.)
	const bool rowsChk = base < DP_PI || base + DP_SH > DP_ROWS;
	cell_t w[DP_NW][DP_NC];
#pragma unroll
	for (int r = 0; r < DP_NW; ++r)
#pragma unroll
		for (int c = 0; c < DP_NC; ++c)
			w[r][c] = (cell_t)0;
#if DP_SLABS
	if (sw.sl.lin) {
		// Before its first column -lane, the window holds the columns left
		// of it: the left slab's, for this lane's rows and the DP_PI above.
#pragma unroll
		for (int r = 0; r < DP_NW; ++r)
#pragma unroll
			for (int c = 0; c < DP_PJ; ++c)
				w[r][c] = dp_slab_left(sw, sw.row0 - DP_PI + r, -(long long)lane - 1 - c);
	}
#endif
	cell_t topc[DP_PI1][DP_T], topn[DP_PI1][DP_T];
#pragma unroll
	for (int p = 0; p < DP_PI1; ++p)
#pragma unroll
		for (int t = 0; t < DP_T; ++t)
			topc[p][t] = topn[p][t] = (cell_t)0;
#if DP_PI > 0
	const cell_t *top = sw.in + ((s + 1) & 1) * (long long)DP_PI * DP_LW(sw) * DP_T;
	const int *above = sw.above;
	int known = 0;
	const bool fromGlobal = sw.first && s > 0;
	if (fromGlobal) {
		if (!dp_wait_strip(sw, above, (int)(DP_LW(sw) < 32 ? DP_LW(sw) : 32), known))
			return false;
#pragma unroll
		for (int p = 0; p < DP_PI; ++p)
#pragma unroll
			for (int t = 0; t < DP_T; ++t)
				topn[p][t] = lane < DP_LW(sw) ? __ldcg(top + (p * (long long)DP_LW(sw) + lane) * DP_T + t) : (cell_t)0;
	}
#endif
#if DP_KEEPCOLS
	// A chunk's kept-column flag, loaded a chunk ahead (its latency was
	// in every chunk's decision).
	int kchNext = sw.kch[0];
#endif
	for (dp_j_t g0 = 0; g0 < DP_LW(sw) + 31; g0 += 32) {
#if DP_KEEPCOLS
		const int kchNow = kchNext;
		kchNext = sw.kch[(g0 >> 5) + 1];
#endif
#pragma unroll
		for (int p = 0; p < DP_PI1; ++p)
#pragma unroll
			for (int t = 0; t < DP_T; ++t)
				topc[p][t] = topn[p][t];
#if DP_PI > 0
		if (fromGlobal && g0 + 32 < DP_LW(sw)) {
			const dp_j_t need = g0 + 64 < DP_LW(sw) ? g0 + 64 : DP_LW(sw);
			if (!dp_wait_strip(sw, above, (int)need, known))
				return false;
			const dp_j_t jn = g0 + 32 + lane;
#pragma unroll
			for (int p = 0; p < DP_PI; ++p)
#pragma unroll
				for (int t = 0; t < DP_T; ++t)
					topn[p][t] = jn < DP_LW(sw) ? __ldcg(top + (p * (long long)DP_LW(sw) + jn) * DP_T + t) : (cell_t)0;
		}
#endif
#if DP_NCOLV > 0
		{
			const dp_j_t jf = g0 + lane < DP_LW(sw) ? g0 + lane : DP_LW(sw) - 1;
			const long long js = DP_SLABS ? sw.sl.c0 + (long long)jf : (long long)jf;
			ring[(g0 + lane) & 127].fill(DP_BACK ? DP_COLS - 1 - js : js);
			__syncwarp();
		}
#endif
		// A chunk's lanes sweep columns g0-31 .. g0+31: checked where one of
		// them may be outside the grid, and where one is the answer's.
		const bool chk = rowsChk || g0 < 31 + DP_PJ || g0 + 32 > DP_LW(sw) ||
				 (DP_ANS_KIND == 1 && sw.ansJ >= g0 - 31 && sw.ansJ <= g0 + 31)
#if DP_KEEPCOLS
				 || kchNow != 0
#endif
			;
		const bool ok = chk ? dp_strip_chunk<true, KR>(g0, sw, w, topc, rv, ri, rlive, acc)
				    : dp_strip_chunk<false, KR>(g0, sw, w, topc, rv, ri, rlive, acc);
		if (!ok)
			return false;
		if ((g0 & 4095) == 0 && dp_aborted())
			return false;
	}
	return true;
}

// dp_strip: bnd is 2 x DP_PI x COLS cells, prog has one int per strip and
// ticket one int, all zeroed before the launch; part has one slot per warp.
// With DP_KEEPROWS, keepSlot has one int per row (its slot in keepRows, or
// -1) and keepRows COLS cells per slot. With DP_KEEPCOLS, keepSlot goes on
// with one int per real column (its kept-column slot, or -1), then DP_KCH
// chunk flags (dp_strip_warp.kch), then, at the next even int, the offset
// in cells of the kept columns in keepRows as a long long (ROWS cells per
// slot, after the kept rows). c0 .. rflag are the slab (struct
// dp_slab; DP_SLABS, unused without).
// With DP_KEEP, keep has nslots slots of DP_BH x COLS cells, *freed counts
// the strips the host copied out, and done (zeroed, host memory) one flag
// per strip; the launch gives DP_STRIP_WARPS*32*DP_KM cells of dynamic
// shared memory. Without, they are unused.
#ifndef DP_STRIP_MINB
#define DP_STRIP_MINB (DP_SLABS ? 3 : 1)
#endif
extern "C" __global__ void __launch_bounds__(DP_STRIP_WARPS * 32, DP_STRIP_MINB)
dp_strip(cell_t *bnd, int *prog, int *ticket, dp_part_t *part, cell_t *keep, long long nslots, const int *freed, int *done,
	const int *keepSlot, cell_t *keepRows, long long c0, long long cw, const cell_t *lin, const int *lflag, cell_t *lout,
	int *rflag, long long bchunk, int bparts, int bpart, const cell_t *lbnd, const int *lprog, cell_t *nbnd, int *nprog)
{
	const dp_slab sl{c0, cw, lin, lflag, lout, rflag};
#if !DP_SLABS
	(void)sl;
#endif
	const dp_band bd{bchunk, bparts, bpart, lbnd, lprog, nbnd, nprog};
#if !DP_BANDS
	(void)bd;
#endif
#if !DP_KEEPROWS
	(void)keepSlot, (void)keepRows;
#endif
	__shared__ dp_strip_shared sh;
	const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
#if DP_NCOLV > 0
	__shared__ dp_colvals cring[DP_STRIP_WARPS][128];
	dp_colvals *ring = cring[wib];
#else
	dp_colvals *ring = 0;
#endif
#if DP_KEEP
#ifdef DP_EMU
	cell_t *kt = (cell_t *)dp_emu_smem + wib * 32 * DP_KM;
#else
	extern __shared__ unsigned char dp_smem[];
	cell_t *kt = (cell_t *)dp_smem + wib * 32 * DP_KM;
#endif
#else
	cell_t *kt = 0;
	(void)keep, (void)nslots, (void)freed, (void)done;
#endif
	dp_part_t acc;
	dp_part_init(acc);
	if (threadIdx.x == 0)
		sh.stop = 0;
	for (;;) {
		__syncthreads(); // every warp is done with the previous strip
		if (threadIdx.x == 0) {
			sh.ticket = sh.stop ? (int)DP_NSTRIPS : atomicAdd(ticket, 1);
#if DP_BANDS
			if (sh.ticket < DP_NSTRIPS) {
				const long long bs = dp_band_strip(bd, sh.ticket);
				sh.ticket = bs < DP_NSTRIPS ? (int)bs : (int)DP_NSTRIPS;
			}
#endif
			if (dp_aborted())
				sh.ticket = (int)DP_NSTRIPS;
#if DP_SLABS
			// The left slab's columns of the strip's rows.
			if (sh.ticket < DP_NSTRIPS && sl.lflag) {
				while (dp_ld_acquire_sys(sl.lflag + sh.ticket) == 0) {
					if (dp_aborted()) {
						sh.ticket = (int)DP_NSTRIPS;
						break;
					}
					__nanosleep(256);
				}
			}
#endif
#if DP_KEEP
			// The strip's slot is free once the strip nslots back is copied out.
			int known = 0;
			if (sh.ticket < DP_NSTRIPS && sh.ticket >= nslots && !dp_wait(freed, (int)(sh.ticket - nslots + 1), known))
				sh.ticket = (int)DP_NSTRIPS;
#endif
		}
		if (threadIdx.x < DP_STRIP_WARPS) {
			sh.made[threadIdx.x] = 0;
			sh.used[threadIdx.x] = 0;
		}
		__syncthreads();
		const long long s = sh.ticket;
		if (s >= DP_NSTRIPS)
			break;
		dp_strip_warp sw;
		sw.s = s;
		sw.wib = wib;
		sw.lane = lane;
		sw.first = wib == 0;
		sw.last = wib == DP_STRIP_WARPS - 1;
		sw.out = bnd + (s & 1) * (long long)DP_PI * (DP_SLABS ? sl.cw : DP_COLS);
		sw.row0 = s * DP_BH + (long long)wib * DP_SH + (long long)lane * DP_RPT;
#if DP_SLABS
		sw.sl = sl;
#else
		sw.sl = dp_slab{0, DP_COLS, 0, 0, 0, 0};
#endif
		sw.prog = prog;
		sw.above = prog + (s > 0 ? s - 1 : 0);
		sw.in = bnd;
		sw.linkOut = sw.linkIn = false;
#if DP_BANDS
		{
			const long long r = s % bd.chunk;
			if (r == 0 && s > 0) {
				sw.linkIn = true;
				sw.in = bd.lbnd;
				sw.above = bd.lprog + (s - 1);
			}
			if (r == bd.chunk - 1) {
				sw.linkOut = true;
				sw.out = bd.nbnd + (s & 1) * (long long)DP_PI * DP_COLS;
				sw.prog = bd.nprog;
			}
		}
#endif
		sw.sh = &sh;
		sw.ring = ring;
		sw.kAns = -1;
		sw.kt = kt;
#if DP_KEEP
		sw.keepLo = DP_BACK ? DP_ROWS - ((s + 1) * DP_BH < DP_ROWS ? (s + 1) * DP_BH : DP_ROWS) : s * DP_BH;
		sw.keep = keep + (s % nslots) * (long long)DP_BH * DP_COLS;
#else
		sw.keepLo = 0;
		sw.keep = 0;
#endif
		sw.ansJ = -64; // no chunk's columns
#if DP_ANS_KIND == 1
		{
			// The inverse of the step's rj (dp_strip_chunk).
			const long long js = DP_BACK ? DP_COLS - 1 - (long long)(DP_ANS_J / DP_T) : (long long)(DP_ANS_J / DP_T);
			const long long ja = DP_SLABS ? js - sw.sl.c0 : js;
			if (ja >= 0 && ja < (long long)DP_LW(sw))
				sw.ansJ = (dp_j_t)ja;
		}
		for (int k = 0; k < DP_RPT; ++k) {
			const long long r = s * DP_BH + (long long)wib * DP_SH + (long long)lane * DP_RPT + k;
			if (r < DP_ROWS && (DP_BACK ? DP_ROWS - 1 - r : r) == DP_ANS_I)
				sw.kAns = k;
		}
#endif
#if DP_KEEPROWS
		sw.krows = keepRows;
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k) {
			const long long r = s * DP_BH + (long long)wib * DP_SH + (long long)lane * DP_RPT + k;
			sw.ks[k] = r < DP_ROWS ? keepSlot[DP_BACK ? DP_ROWS - 1 - r : r] : -1;
		}
		sw.kany = false;
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k)
			sw.kany = sw.kany || sw.ks[k] >= 0;
#endif
#if DP_KEEPCOLS
		sw.kcol = keepSlot + DP_ROWS;
		sw.kch = sw.kcol + DP_COLS;
		sw.kcols = keepRows + *(const long long *)(sw.kch + DP_KCH + ((DP_ROWS + DP_COLS + DP_KCH) & 1));
#endif
#if DP_KEEPROWS
		const bool ok = __any_sync(DP_FULL, sw.kany) ? dp_strip_one<true>(sw, ring, acc) : dp_strip_one<false>(sw, ring, acc);
#else
		const bool ok = dp_strip_one<false>(sw, ring, acc);
#endif
		if (!ok && lane == 0)
			*(volatile int *)&sh.stop = 1;
#if DP_SLABS
		if (sl.lout) {
			__threadfence_system(); // this thread's cells of lout, before rflag[s]
			__syncthreads();
			if (threadIdx.x == 0 && !*(volatile int *)&sh.stop)
				dp_st_release_sys(sl.rflag + s, 1);
		}
#endif
#if DP_KEEP
		__threadfence_system(); // this thread's cells of the slot, before done[s]
		__syncthreads();
		if (threadIdx.x == 0 && !*(volatile int *)&sh.stop)
			dp_st_release_sys(done + s, 1);
#endif
	}
#if DP_ANS_KIND == 2
	dp_part_warp(acc);
	if (lane == 0)
		part[blockIdx.x * DP_STRIP_WARPS + wib] = acc;
#else
	(void)part;
#endif
}
