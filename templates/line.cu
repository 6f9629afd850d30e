
// ---- line kernels (templates/line.cu): rows or columns, one launch per line (dp_line) or per run of lines (dp_lines) ----
//
// Line L (in sweep order) is stored in slot L % nslots of the ring; a cell
// reads the lines L-1 .. L-DP_REACH. Data-dependent positions (knapsack's
// w - wt[i-1]) read anywhere in those lines, from global memory.

// dp_line_acc reads the lines before; with LV, the line's input values that
// depend on the line alone (codegen classifyLoads: i alone in a rows sweep,
// j alone in a cols sweep) come from registers filled once a line, else
// from memory at each cell. In dp_linepass, whose lines are in shared
// memory, a knapsack's wt[i-1] and val[i-1] read at each cell took 14% of
// the time (four loads a cell, on the cell's chain); the kernels that read
// the lines from global memory were no faster with them in registers (H200).
// With FAST, the recurrence is dp_fast's: a check, a read outside the grid
// among them, sets flag.bad instead of reporting (the read is made at
// position `safe`, which every line holds, and its value dropped).
// dp_pass_sh is the shared memory of dp_linepass's lines.
__device__ __forceinline__ cell_t *dp_pass_sh()
{
#ifdef DP_EMU
	return (cell_t *)dp_emu_smem;
#else
	extern __shared__ unsigned char dp_smem[];
	return (cell_t *)dp_smem;
#endif
}

// With SH (dp_linepass), the lines are read and written in shared memory
// through 32-bit offsets from dp_pass_sh (line L - d's position r at
// soff[d] + r, the line's own at ooff + r) rather than through 64-bit
// pointers: the knapsack's cell in passes carried a 64-bit address step
// (an IMAD.WIDE and two moves) for each read.
template <bool LV, bool FAST = false, bool SH = false, bool CH = false> struct dp_line_acc {
	const cell_t *prev[DP_REACH + 1]; // line L - d at prev[d], indexed by position (dp_linepass: in shared memory)
	int soff[DP_REACH + 1];
	int ooff = 0;
	long long safe = 0;
	mutable dp_lv flag{1, 0};
	__device__ __forceinline__ decltype(auto) live() const
	{
		if constexpr (FAST)
			return (flag);
		else
			return true;
	}
	template <int ID> __device__ __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj) const
	{
#if DP_SWEEP_ROWS
		const long long r = rj;
#else
		const long long r = ri;
#endif
		if (!dp_ref<ID>::safe) {
			const bool bad = dp_oob(ri, rj);
			if constexpr (FAST) {
				flag.bad |= (int)bad;
				const cell_t v = prev[dp_ref<ID>::di][bad ? safe : r];
				return bad ? (cell_t)0 : v;
			} else if (bad) {
				dp_fail(DP_E_CELL, ID, ci, cj, ri, rj);
				return (cell_t)0;
			}
		}
		if constexpr (SH)
			return dp_pass_sh()[soff[dp_ref<ID>::di] + (int)r];
		return prev[dp_ref<ID>::di][r];
	}
#if DP_SWEEP_ROWS
	dp_rowvals lv;
	template <int S> __device__ __forceinline__ typename dp_rowv<S>::type rv(long long k) const
	{
		if constexpr (LV)
			return lv.template get<S>();
		else
			return dp_rowv<S>::load(k);
	}
	template <int S> __device__ __forceinline__ typename dp_colv<S>::type cv(long long k) const { return dp_colv<S>::load(k); }
#else
	dp_colvals lv;
	template <int S> __device__ __forceinline__ typename dp_rowv<S>::type rv(long long k) const { return dp_rowv<S>::load(k); }
	template <int S> __device__ __forceinline__ typename dp_colv<S>::type cv(long long k) const
	{
		if constexpr (LV)
			return lv.template get<S>();
		else
			return dp_colv<S>::load(k);
	}
#endif
	__device__ __forceinline__ void fill(long long line)
	{
		if constexpr (LV)
			lv.fill(line);
	}
#if DP_CHAIN
	// The chained reduction (codegen/chain.go) of the column cj this
	// thread computed last: its value cr and bound chh (chh -1: none).
	// With CH (dp_linechain, which computes a residue class of the row's
	// columns modulo S in order, so that column j - S is the last), chain
	// is the reduction max (MAX, else min) over k in 0..H of cell[I][j -
	// k*S] + k*V at column j, as templates/host.cu's dp_rows_acc::chain:
	// the loop's value and first error. The other kernels' threads never
	// hold column j - S: their chain is the loop, nothing more a cell.
	long long cj = -1, cr = 0, chh = -1;
	// clocal (dp_linechain's first pass): a segment's sum from its own
	// columns alone — its first column's term k = 0, then the chain —
	// instead of the loop; cbad: a step the chain could not take, so that
	// the sum is not the chain's. (Such a step is an overflow of the sum,
	// which the loop reports at that column in the second pass anyway: the
	// flag keeps the sums right without leaning on that.)
	bool clocal = false, cbad = false;
	template <class T, bool MAX, bool QJ, class H, class S, class V, class L, class Z>
	__device__ __forceinline__ T chain(long long j, long long fhi, long long mhi, H hf, S s, V v, L loop, Z term0)
	{
		if constexpr (!CH)
			return loop();
		T r;
		bool ok = false;
		long long h, st = 0;
		if (QJ) {
			st = s();
			h = st >= 1 && j - st == cj && chh >= 0 ? chh + 1 : hf();
		} else {
			h = hf();
			if (h >= 1)
				st = s();
		}
		if (h >= 1 && st >= 1 && j - st == cj && chh == h - 1) {
			const long long vv = v(), before = cr;
			const unsigned long long mag = vv < 0 ? 0ULL - (unsigned long long)vv : (unsigned long long)vv;
			// H*|V| within mhi, without a division a cell.
			if ((MAX ? vv >= 0 : vv <= 0) && __umul64hi(mag, (unsigned long long)h) == 0 && mag * (unsigned long long)h <= (unsigned long long)mhi &&
				before >= -fhi && before <= fhi) {
				const long long sum = (long long)((unsigned long long)before + (unsigned long long)vv);
				if (((before ^ sum) & (vv ^ sum)) >= 0 && sum >= -fhi && sum <= fhi) {
					const T z = term0();
					r = MAX ? ((T)sum > z ? (T)sum : z) : ((T)sum < z ? (T)sum : z);
					ok = true;
				}
			}
		}
		if (!ok) {
			if (!clocal) {
				r = loop();
			} else {
				cbad |= chh >= 0;
				r = term0();
			}
		}
		cj = j;
		cr = (long long)r;
		chh = h;
		return r;
	}
#endif
};

#if DP_SWEEP_ROWS
#define DP_LINE_IJ(q) const DP_IDX_T i = (DP_IDX_T)real, j = (DP_IDX_T)(q)
#else
#define DP_LINE_IJ(q) const DP_IDX_T i = (DP_IDX_T)(q), j = (DP_IDX_T)real
#endif

// dp_pos_t is a position in a line in dp_line_cells' loop: 32 bits where
// the line and the largest step leave room (fewer instructions a cell than
// 64: the 0/1 knapsack's cell in passes is some 35).
#if DP_WIDTH < 0x7f000000LL
typedef int dp_pos_t;
#else
typedef long long dp_pos_t;
#endif

// dp_line_cells computes the cells q = q0, q0 + step, ... < q1 of the line
// whose index in the grid is `real` into out, reading the lines before
// through a (its prev, safe and line values set), and folds the answer
// region's cells into acc. With FLAG (and DP_LINE_FAST: codegen
// lineFlagChecks), it computes them with dp_fast's recurrence, whose checks
// set a flag, no branch around a call between one cell's reads and the
// next's, and, where one was set, again with the checks that report: the
// values are the same.
// dp_line_put stores line cell q (at out[q], or with SH at a.ooff + q).
template <bool LV, bool SH> __device__ __forceinline__ void dp_line_put(const dp_line_acc<LV, false, SH> &a, cell_t *out, dp_pos_t q, cell_t v)
{
	if constexpr (SH)
		dp_pass_sh()[a.ooff + (int)q] = v;
	else
		out[q] = v;
}

template <bool FLAG, bool LV, bool SH = false> __device__ __forceinline__ void dp_line_cells(dp_line_acc<LV, false, SH> &a, cell_t *out, long long real, dp_part_t &acc, long long q0, long long q1, long long step)
{
#if DP_LINE_FAST
	if constexpr (FLAG && !SH) {
		dp_line_acc<LV, true> f;
#pragma unroll
		for (int d = 0; d <= DP_REACH; ++d)
			f.prev[d] = a.prev[d];
		f.safe = a.safe;
		f.lv = a.lv;
		for (dp_pos_t q = (dp_pos_t)q0; q < (dp_pos_t)q1; q += (dp_pos_t)step) {
			DP_LINE_IJ(q);
			const cell_t v = dp_fast::dp_rec(i, j, f);
			out[q] = v;
			dp_part_cell(acc, i, j, v);
		}
		if (f.flag.bad) {
			for (dp_pos_t q = (dp_pos_t)q0; q < (dp_pos_t)q1; q += (dp_pos_t)step) {
				DP_LINE_IJ(q);
				(void)dp_rec(i, j, a);
			}
		}
		return;
	}
#endif
#if DP_ANS_KIND == 1
	// Only one line holds the answer cell: the others skip its test.
#if DP_SWEEP_ROWS
	const bool ansLine = real == DP_ANS_I;
#else
	const bool ansLine = real == DP_ANS_J;
#endif
	if (!ansLine) {
		for (dp_pos_t q = (dp_pos_t)q0; q < (dp_pos_t)q1; q += (dp_pos_t)step) {
			DP_LINE_IJ(q);
			dp_line_put(a, out, q, dp_rec(i, j, a));
		}
		return;
	}
#endif
	for (dp_pos_t q = (dp_pos_t)q0; q < (dp_pos_t)q1; q += (dp_pos_t)step) {
		DP_LINE_IJ(q);
		const cell_t v = dp_rec(i, j, a);
		dp_line_put(a, out, q, v);
		dp_part_cell(acc, i, j, v);
	}
}
#undef DP_LINE_IJ

// dp_line_ring points a at the lines before line `line` in the ring of
// nslots slots (line L in slot L % nslots).
template <class A> __device__ __forceinline__ void dp_line_ring(A &a, long long line, cell_t *ring, int nslots)
{
#pragma unroll
	for (int d = 1; d <= DP_REACH; ++d) {
		long long s = (line - d) % nslots;
		if (s < 0)
			s += nslots;
		a.prev[d] = ring + s * DP_WIDTH;
	}
	a.prev[0] = ring;
}

// dp_line_span computes the cells q = q0, q0 + step, ... < q1 of line `line`
// into its slot of the ring, folding the answer region's cells into acc.
// (dp_linetiles also computes, and folds, cells of its neighbours: the same
// values, which a region's min or max takes twice to no effect; the host
// sends it no sums.)
__device__ __forceinline__ void dp_line_span(long long line, cell_t *ring, int nslots, dp_part_t &acc, long long q0, long long q1, long long step)
{
	dp_line_acc<false> a;
	dp_line_ring(a, line, ring, nslots);
	cell_t *out = ring + (line % nslots) * DP_WIDTH;
	const long long real = DP_BACK ? DP_NLINES - 1 - line : line;
#ifdef DP_EMU
	emu_line_delay(); // block 0 late, so that a missing barrier or wait shows
#endif
	dp_line_cells<true>(a, out, real, acc, q0, q1, step);
}

// dp_line_run computes line `line`, the launch's threads striding over it.
__device__ __forceinline__ void dp_line_run(long long line, cell_t *ring, int nslots, dp_part_t &acc)
{
	dp_line_span(line, ring, nslots, acc, blockIdx.x * (long long)blockDim.x + threadIdx.x, DP_WIDTH, (long long)gridDim.x * blockDim.x);
}

extern "C" __global__ void __launch_bounds__(DP_LINE_THREADS)
dp_line(long long line, cell_t *ring, int nslots, dp_part_t *part)
{
	dp_part_t acc; // the answer region's partial result (DP_ANS_KIND 2)
	dp_part_init(acc);
	dp_line_run(line, ring, nslots, acc);
#if DP_ANS_KIND == 2
	dp_part_block(acc, part + blockIdx.x);
#endif
}

#if DP_CHAIN && DP_SWEEP_ROWS
// dp_linechain computes row `line` (in sweep order) of a recurrence whose
// reduction chains (codegen/chain.go): residue class r of the columns
// modulo the row's step S (the chain's, evaluated by the host: >= 1) is cut
// into segs segments (at most a class's length, so that none is empty),
// and thread u computes residue u % (its residue count) over segment u /
// (that count), column r + m*S for m in order, each column's reduction
// taking the one S before it (dp_line_acc::chain). Consecutive threads
// take consecutive residues: consecutive columns. A segment's first column
// has no column before it in the thread:
//
//   - mode 0: it runs the loop (of as many terms as its place in the class);
//   - mode 1, the first of two launches (the reduction being a case's whole
//     value: analysis.ChainAlone): each segment but the last sums its own
//     columns alone, from its first column's term k = 0, into agg (segment
//     by residue), nothing written; DP_AGG_BAD where the chain could not
//     take a step, or the segment has no column;
//   - mode 2, the second: a segment starts from the chain's value at the
//     column before it, the best (isMax: max, else min) of the segments
//     before, each len*V on top of the one before it (len: its columns),
//     checked within the reduction's finite range fhi; the loop where a
//     sum is DP_AGG_BAD or leaves the range.
//
// A class of L columns thus costs 2*L/segs + segs steps and no loop.
#define DP_AGG_BAD (-0x7fffffffffffffffLL - 1)
extern "C" __global__ void __launch_bounds__(DP_LINE_THREADS)
dp_linechain(long long line, cell_t *ring, int nslots, dp_part_t *part, long long S, long long segs, int mode, long long V, int isMax, long long fhi, long long *agg)
{
	dp_part_t acc;
	dp_part_init(acc);
	// The row's inputs of one index (wt[i-1], val[i-1]) in registers,
	// read once: a class's steps follow one another, and each read of them
	// was one more load on the chain.
	dp_line_acc<true, false, false, true> a;
	dp_line_ring(a, line, ring, nslots);
	a.clocal = mode == 1;
	cell_t *out = ring + (line % nslots) * DP_WIDTH;
	const long long real = DP_BACK ? DP_NLINES - 1 - line : line;
	a.fill(real);
	const long long nres = S < DP_WIDTH ? S : DP_WIDTH, L = (DP_WIDTH + S - 1) / S;
	const long long T = (long long)gridDim.x * blockDim.x;
	const long long units = nres * (mode == 1 ? segs - 1 : segs);
	for (long long u = blockIdx.x * (long long)blockDim.x + threadIdx.x; u < units; u += T) {
		const long long r = u % nres, sg = u / nres;
		const long long m0 = sg * L / segs, m1 = (sg + 1) * L / segs;
		// No column before (chh -1: cj alone would not do, for j - S is
		// -1 at the class of residue S - 1).
		a.cj = -1;
		a.chh = -1;
		a.cbad = false;
		if (mode == 2 && sg > 0 && r + m0 * S < DP_WIDTH) {
			// The chain's value at column r + (m0-1)*S: the segments before,
			// in order (each full: this one has a column).
			const unsigned long long mag = V < 0 ? 0ULL - (unsigned long long)V : (unsigned long long)V;
			long long c = 0;
			bool ok = true;
			for (long long s2 = 0; s2 < sg && ok; ++s2) {
				const long long x = agg[s2 * nres + r];
				if (x == DP_AGG_BAD) {
					ok = false;
					break;
				}
				if (s2 == 0) {
					c = x;
					continue;
				}
				const long long len = (s2 + 1) * L / segs - s2 * L / segs;
				if (__umul64hi(mag, (unsigned long long)len) != 0 || mag * (unsigned long long)len > (unsigned long long)fhi) {
					ok = false;
					break;
				}
				const long long up = len * V; // |up| <= fhi
				if ((up > 0 && c > fhi - up) || (up < 0 && c < -fhi - up)) {
					ok = false;
					break;
				}
				const long long t = c + up;
				c = isMax ? (x > t ? x : t) : (x < t ? x : t);
			}
			if (ok) {
				a.cj = r + (m0 - 1) * S;
				a.cr = c;
				a.chh = m0 - 1;
			}
		}
		long long n = 0;
		for (long long m = m0; m < m1; ++m) {
			const long long q = r + m * S;
			if (q >= DP_WIDTH)
				break;
			const DP_IDX_T i = (DP_IDX_T)real, j = (DP_IDX_T)q;
			const cell_t v = dp_rec(i, j, a);
			++n;
			if (mode != 1) {
				out[q] = v;
				dp_part_cell(acc, i, j, v);
			}
		}
		if (mode == 1)
			agg[sg * nres + r] = a.cbad || n == 0 ? DP_AGG_BAD : a.cr;
	}
#if DP_ANS_KIND == 2
	if (mode != 1)
		dp_part_block(acc, part + blockIdx.x);
#endif
}
#endif

// DP_BLOCK_SHARED declares a variable the threads of one block share, as
// __shared__ does; the emulation (codegen's tests) gives each block its own
// where blocks run at once.
#ifndef DP_EMU
#define DP_BLOCK_SHARED(T, name, slot) __shared__ T name
#endif

#ifdef DP_EMU
__device__ __forceinline__ int dp_add_acq_rel(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
__device__ __forceinline__ int dp_load_acquire(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
__device__ __forceinline__ void dp_store_release(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
#else
__device__ __forceinline__ int dp_add_acq_rel(int *p, int v)
{
	int old;
	asm volatile("atom.add.acq_rel.gpu.global.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
	return old;
}
__device__ __forceinline__ int dp_load_acquire(const int *p)
{
	int v;
	asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}
__device__ __forceinline__ void dp_store_release(int *p, int v)
{
	asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
#endif

// dp_grid_sync waits until every block of the launch has arrived at its
// k-th barrier (k = 1, 2, ...); bar is three ints the host zeroes before
// the launch: arrivals, the barriers released (2k, plus 1 to stop), and a
// block's wish to stop. A block
// arrives with its own look at a failed cell or the host's abort; the last
// to arrive decides for all, so every block leaves at the same line. True:
// stop.
__device__ __noinline__ bool dp_grid_sync(int *bar, int k)
{
	DP_BLOCK_SHARED(int, stop, 0);
	__syncthreads(); // the block's cells of this line are written
	if (threadIdx.x == 0) {
		const bool halt = *(volatile int *)&dp_abort != 0 || *(volatile int *)&dp_err.code != 0;
		if (halt)
			atomicExch(&bar[2], 1);
		int gen;
		if (dp_add_acq_rel(&bar[0], 1) == k * (int)gridDim.x - 1) {
			gen = 2 * k + (*(volatile int *)&bar[2] != 0);
			dp_store_release(&bar[1], gen);
		} else {
			while ((gen = dp_load_acquire(&bar[1])) < 2 * k)
				__nanosleep(20);
		}
		stop = gen & 1;
	}
	__syncthreads();
	return stop != 0;
}

// dp_lines computes lines L0 .. L1-1 in one launch, a grid-wide barrier
// between consecutive lines: a row schedule of many short lines was bound
// by one launch per line. Every block must be resident at once: the host
// launches no more blocks than the occupancy allows.
extern "C" __global__ void __launch_bounds__(DP_LINE_THREADS)
dp_lines(long long L0, long long L1, cell_t *ring, int nslots, dp_part_t *part, int *bar)
{
	dp_part_t acc;
	dp_part_init(acc);
	for (long long L = L0; L < L1; ++L) {
		dp_line_run(L, ring, nslots, acc);
		if (L + 1 < L1 && dp_grid_sync(bar, (int)(L - L0 + 1)))
			break;
	}
#if DP_ANS_KIND == 2
	dp_part_block(acc, part + blockIdx.x);
#endif
}

// dp_gather copies cells of one line (answer cells) into out.
extern "C" __global__ void dp_gather(const cell_t *line, const long long *pos, cell_t *out, int n)
{
	const int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		out[k] = line[pos[k]];
}

// ---- runs of lines dealt to tiles of columns (dp_linetiles) ----
//
// A launch computes lines L0 .. L1-1 (the host gives the ring a slot for each
// of them and for the DP_REACH lines before: nothing a launch reads is
// overwritten in it). The line is cut into ntiles tiles of tw positions; a
// tile computes its positions of every line of the run, `depth` lines at a
// time: before lines Lb .. Lb+depth-1 it waits for the tiles whose
// positions those lines read in line Lb-1 and before (from `left` tiles
// before it to `right` tiles after it), then computes the lines with no
// wait between them, each over its own positions widened by what the later
// lines of the step read of it (a cell reads at most reachL positions before
// its own and reachR after, the plan's offset ranges:
// codegen.Program.LineLeft/LineRight). The cells of the widening belong to
// the neighbouring tiles, which compute the same values from the same cells
// and write them to the same places (a region's min or max folds them twice
// to no effect; sums do not come here: planLineTiles). flags[t] counts the lines tile t has finished in this launch. A run
// is then bound by the work, not by a launch or a grid barrier a line, and
// a tile's cells stay in cache from one line to the next.
//
// mode 2: block b is tile b, every tile's block resident at once (the host
// launches no more blocks than the occupancy allows), so a tile may wait for
// tiles on both sides. mode 0 and 1: blocks take tiles by tickets, in
// increasing (0) or decreasing (1) order of position, and a tile waits only
// for tiles that come before it in that order (right == 0 for mode 0, left ==
// 0 for mode 1): a tile waits for tiles whose blocks took their tickets
// earlier and are running, so any number of tiles runs on the blocks that fit.

// dp_tiles_wait waits until the tiles t-left .. t+right (t excepted) have
// finished n lines of the run; true: stop (a failed cell, or the host's
// abort), which every waiting tile sees. The first warp polls 32 tiles at a
// time: a knapsack's heaviest item can make a tile read a hundred tiles back.
__device__ __noinline__ bool dp_tiles_wait(const int *flags, int t, int ntiles, int left, int right, int n)
{
	DP_BLOCK_SHARED(int, stop, 1);
	if (threadIdx.x < 32) {
		const int lane = threadIdx.x;
		const int lo = t - left > 0 ? t - left : 0, hi = t + right < ntiles - 1 ? t + right : ntiles - 1;
		int s = 0;
		for (int u0 = lo; u0 <= hi && !s; u0 += 32) {
			const int u = u0 + lane;
			const bool mine = u <= hi && u != t;
			for (;;) {
				const bool failed = *(volatile int *)&dp_abort != 0 || *(volatile int *)&dp_err.code != 0;
				if (__any_sync(DP_FULL, failed)) {
					s = 1;
					break;
				}
				if (__all_sync(DP_FULL, !mine || dp_load_acquire(&flags[u]) >= n))
					break;
				__nanosleep(32);
			}
		}
		if (lane == 0)
			stop = s;
	}
	__syncthreads();
	return stop != 0;
}

extern "C" __global__ void __launch_bounds__(DP_LINE_THREADS)
dp_linetiles(long long L0, long long L1, cell_t *ring, int nslots, dp_part_t *part, int *flags, int *ticket, long long tw, int ntiles, int left, int right, int mode, int depth, long long reachL, long long reachR)
{
	dp_part_t acc;
	dp_part_init(acc);
	DP_BLOCK_SHARED(int, taken, 2);
	for (int round = 0;; ++round) {
		int t;
		if (mode == 2) {
			t = blockIdx.x;
			if (round > 0 || t >= ntiles)
				break;
		} else {
			if (threadIdx.x == 0)
				taken = atomicAdd(ticket, 1);
			__syncthreads();
			t = taken;
			__syncthreads(); // every thread has read it before the next ticket
			if (t >= ntiles)
				break;
			if (mode == 1)
				t = ntiles - 1 - t;
		}
		const long long q0 = (long long)t * tw, q1 = q0 + tw < DP_WIDTH ? q0 + tw : DP_WIDTH;
		bool stop = false;
		for (long long Lb = L0; Lb < L1; Lb += depth) {
			if (Lb > L0 && dp_tiles_wait(flags, t, ntiles, left, right, (int)(Lb - L0))) {
				stop = true;
				break;
			}
			const long long Le = Lb + depth < L1 ? Lb + depth : L1;
			for (long long L = Lb; L < Le; ++L) {
				const long long e = Le - 1 - L; // lines of the step after this one
				const long long lo = q0 - e * reachL > 0 ? q0 - e * reachL : 0;
				const long long hi = q1 + e * reachR < DP_WIDTH ? q1 + e * reachR : DP_WIDTH;
				dp_line_span(L, ring, nslots, acc, lo + threadIdx.x, hi, blockDim.x);
				__syncthreads(); // the block's cells of this line are written
			}
			if (threadIdx.x == 0) // a release at gpu scope: cumulative over the block's writes the barrier ordered before it
				dp_store_release(&flags[t], (int)(Le - L0));
		}
		if (stop)
			break;
	}
#if DP_ANS_KIND == 2
	dp_part_block(acc, part + blockIdx.x);
#endif
}

// ---- passes of lines in shared memory (dp_linepass) ----
//
// Temporal blocking: block b owns positions [b*tw, (b+1)*tw) of the line
// and computes lines L0 .. L0+k-1 in shared memory, each over its own
// positions widened by what the pass's later lines read of its neighbours'
// (a cell reads at most reachL positions before its own and reachR after:
// codegen.Program.LineLeft/LineRight), so that no block waits for another
// inside a launch. It reads the DP_REACH lines before the pass from the
// ring over its positions widened by k reaches, and writes back only its own
// positions of the pass's last DP_REACH lines: a line's cells go through
// the device's memory once every k lines instead of every line. The host
// launches it where nothing else needs the lines between (no kept grid, no
// answer cell inside the pass, no sum over a region: the widened cells are
// computed by two blocks) and the widening is a small share of a tile.
// Shared memory: DP_REACH + 1 lines of sw >= tw + k * (reachL + reachR)
// cells, line L in slot L mod (DP_REACH + 1).
__device__ __forceinline__ long long dp_pass_slot(long long L)
{
	const long long s = L % (DP_REACH + 1);
	return s < 0 ? s + (DP_REACH + 1) : s;
}

#ifndef DP_PASS_THREADS
#define DP_PASS_THREADS 1024 // backend/gpu passThreads: one block a multiprocessor
#endif
extern "C" __global__ void __launch_bounds__(DP_PASS_THREADS)
dp_linepass(long long L0, int k, cell_t *ring, int nslots, dp_part_t *part, long long tw, long long sw, long long reachL, long long reachR,
	long long qb, long long qe)
{
#ifdef DP_EMU
	cell_t *sh = (cell_t *)dp_emu_smem; // blocks run one after another
#else
	extern __shared__ unsigned char dp_smem[];
	cell_t *sh = (cell_t *)dp_smem;
#endif
	dp_part_t acc;
	dp_part_init(acc);
	// The launch's positions are qb .. qe-1 (all of the line, or a slab of
	// it: backend/gpu/lineslabs.go, whose ring holds the positions around
	// the slab that the pass reads, copied from the other slabs' rings).
	const long long q0 = qb + (long long)blockIdx.x * tw, q1 = q0 + tw < qe ? q0 + tw : qe;
	const long long lo0 = q0 - k * reachL > 0 ? q0 - k * reachL : 0, hi0 = q1 + k * reachR < DP_WIDTH ? q1 + k * reachR : DP_WIDTH;
	for (int d = 1; d <= DP_REACH && L0 - d >= 0; ++d) {
		const long long L = L0 - d;
		const cell_t *src = ring + (L % nslots) * DP_WIDTH;
		cell_t *dst = sh + dp_pass_slot(L) * sw - lo0;
		for (long long q = lo0 + threadIdx.x; q < hi0; q += blockDim.x)
			dst[q] = src[q];
	}
	__syncthreads();
	for (int e = 0; e < k; ++e) {
		const long long L = L0 + e, w = k - 1 - e; // w: lines of the pass after this one
		const long long lo = q0 - w * reachL > 0 ? q0 - w * reachL : 0, hi = q1 + w * reachR < DP_WIDTH ? q1 + w * reachR : DP_WIDTH;
		dp_line_acc<true, false, true> a;
#pragma unroll
		for (int d = 0; d <= DP_REACH; ++d) {
			a.prev[d] = sh + dp_pass_slot(L - d) * sw - lo0;
			a.soff[d] = (int)(dp_pass_slot(L - d) * sw - lo0);
		}
		a.ooff = a.soff[0];
		a.safe = lo0;
		const long long real = DP_BACK ? DP_NLINES - 1 - L : L;
		a.fill(real);
		// Checks inline here: the flag made passes slower (codegen lineFlagChecks).
		dp_line_cells<false>(a, sh + dp_pass_slot(L) * sw - lo0, real, acc, lo + threadIdx.x, hi, blockDim.x);
		__syncthreads(); // the line is written before the next reads it
	}
	for (int d = 0; d < DP_REACH && d < k; ++d) {
		const long long L = L0 + k - 1 - d;
		const cell_t *src = sh + dp_pass_slot(L) * sw - lo0;
		cell_t *dst = ring + (L % nslots) * DP_WIDTH;
		for (long long q = q0 + threadIdx.x; q < q1; q += blockDim.x)
			dst[q] = src[q];
	}
#if DP_ANS_KIND == 2
	dp_part_block(acc, part + blockIdx.x);
#endif
}
