
// ---- bit-parallel kernel (templates/bitpar.cu): plan.Special ----
//
// LCS length (Allison-Dix / Hyyro), unit-cost Levenshtein distance (Myers /
// Hyyro) and indel distance (n + m - 2 LCS) of A (the rows, one bit per
// row) against B (the columns), 64 rows per machine word. codegen defines:
//   BP_LEV    1: Levenshtein; 0: the LCS vector V (LCS and indel)
//   BP_INDEL  1: indel distance (report n + j - 2 LCS)
//   BP_SIGMA  the codes of A's characters (0 .. BP_SIGMA-1); code BP_SIGMA is
//             a character of B that A lacks, and pads B
//   BP_REGS   1: a word's match masks sit in registers as two bit planes
//             (BP_SIGMA <= 4), else in a per-warp table in shared memory
//   BP_TRACK  1: follow row n across the columns for an answer over the last
//             row (min, or max for LCS, of columns jlo..jhi)
//   BP_CW     columns per pipeline step (8 or 16)
//   BP_WARPS  warps per block
//   BP_BANDS  1: a launch may sweep a row band (below); 0: the band links
//             are compiled out
//
// Words are cut into strips of 32 (2048 rows), one per warp at a time: a
// persistent launch whose warps take strips in order from a ticket, as the
// strip kernel does. Lane k holds word 32s+k and sweeps all columns BP_CW at
// a time, one step behind lane k-1, whose links for the same columns arrive
// by __shfl_up_sync, packed one (LCS: the carry of the addition) or two
// (Levenshtein: the sign of the horizontal delta out of the word, Myers'
// hout) bits per column. Lane 31 writes the links out of the strip's last
// word to cbuf (slot s&1, one 32-bit word per step's columns) and publishes
// how many steps are there in prog[s] every BP_PUB steps; lane 0 of strip
// s+1 reads them 32 steps at a time. Strip 0's links are those of row 0:
// no carry for LCS, a +1 horizontal delta (cell[0][j] = j) for Levenshtein.
//
// Row bands (several GPUs, backend/gpu/bitparslabs.go): a launch may sweep
// strips s0 .. s1-1 only. The band's first strip then reads its links from
// bin and the count of columns there from *bprog, both written by the band
// above (which may run on another GPU, through peer access or mapped host
// memory: system-scope acquire and release); the band's last strip writes
// its links to bout and counts them in *bnext for the band below. Column
// slabs, the strip kernel's split, would not pay here: a GPU holds all its
// strips at once, and a slab cannot start a strip before the slab on its
// left has finished it, while a band follows the band above a step behind.
//
// Rows past n (padding of the last words) only feed rows below them (the
// carries and deltas run towards higher rows), so whatever they match (with
// the bit planes they read as code 0) changes nothing above; columns past m
// (code BP_SIGMA, padding B) are not computed. Deadlock freedom:
// a warp waits only for the strip before its own, which a running warp took
// from the ticket earlier.

#define BP_FULL 0xffffffffu
#define BP_PUB 8 // steps between publications of progress
typedef unsigned long long bp_word;
#define BP_TOP 63 // the top row of a word

__device__ int dp_abort; // non-zero: the host asks the kernel to stop

#ifdef DP_EMU
__device__ __forceinline__ int bp_ld_acquire(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
__device__ __forceinline__ void bp_st_release(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
__device__ __forceinline__ int bp_popc(bp_word x) { return __builtin_popcountll(x); }
__device__ __forceinline__ int bp_ld_acquire_sys(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
__device__ __forceinline__ void bp_st_release_sys(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
template <int K> __device__ __forceinline__ unsigned bp_msb(unsigned x) { return 0u - ((x >> (8 * K + 7)) & 1u); }
#else
__device__ __forceinline__ int bp_ld_acquire(const int *p)
{
	int v;
	asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}
__device__ __forceinline__ void bp_st_release(int *p, int v)
{
	asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ int bp_popc(bp_word x) { return __popcll(x); }
// The system-scope pair: the slab borders, written from another GPU.
__device__ __forceinline__ int bp_ld_acquire_sys(const int *p)
{
	int v;
	asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}
__device__ __forceinline__ void bp_st_release_sys(int *p, int v)
{
	asm volatile("st.release.sys.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// bp_msb is all ones where the top bit of byte K of x is set, else zero: one
// byte permute that replicates the byte's sign.
template <int K> __device__ __forceinline__ unsigned bp_msb(unsigned x)
{
	unsigned r;
	asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "n"((8 + K) * 0x1111));
	return r;
}
#endif

// bp_spread is a word with x (zero or all ones) in both halves.
__device__ __forceinline__ bp_word bp_spread(unsigned x) { return ((bp_word)x << 32) | x; }

// bp_warp_any is whether p holds on any lane (every lane calls it).
__device__ __forceinline__ bool bp_warp_any(int p)
{
#pragma unroll
	for (int d = 16; d > 0; d >>= 1)
		p |= __shfl_xor_sync(BP_FULL, p, d);
	return p != 0;
}

// bp_state is a lane's word: V (LCS), or Pv and Mv (Levenshtein), and with
// BP_TRACK row n's value and the best of it so far.
struct bp_state {
	bp_word v, mv;
	long long cur, best, bestJ;
};

// bp_masks is a lane's match masks: two bit planes in registers (bit r of
// p0, p1 is bit 0, 1 of A[r]'s code), or its column of the warp's table in
// shared memory. The planes give a column's mask in two three-input logic
// operations a half without branches (lanes sit at different columns: a
// select among four registers compiled to branches that split the warp).
// at(codes, C) is the mask of column C (0..7) of the 8 codes in one word.
struct bp_masks {
#if BP_REGS
	bp_word p0, p1;
	template <int C> __device__ __forceinline__ bp_word at(const unsigned long long codes) const
	{
		// The byte's code bits 0, 1, 2 moved to its top bit, for bp_msb.
		const unsigned half = (unsigned)(codes >> (C < 4 ? 0 : 32));
		const bp_word x0 = bp_spread(bp_msb<C % 4>(half << 7)), x1 = bp_spread(bp_msb<C % 4>(half << 6));
#if BP_SIGMA == 4
		// Code 4 is a character of B that A lacks. With fewer codes, code
		// BP_SIGMA has bits no row of A has: only rows past n (codes 0 here,
		// never read: they feed only rows below them) can match anything.
		const bp_word absent = bp_spread(bp_msb<C % 4>(half << 5));
#else
		const bp_word absent = 0;
#endif
		return ~(p0 ^ x0) & ~absent & ~(p1 ^ x1);
	}
#else
	const bp_word *t; // t[c * 32] for c = 0 .. BP_SIGMA (the last row zero)
	template <int C> __device__ __forceinline__ bp_word at(const unsigned long long codes) const
	{
		return t[((unsigned)(codes >> (8 * C)) & 0xffu) * 32];
	}
#endif
};

// bp_column runs one column on a lane's word: link in, link out. TRACK: this
// lane holds row n at bit tb (column j, reported when in jlo..jhi).
template <bool TRACK>
__device__ __forceinline__ unsigned bp_column(bp_state &st, const bp_word M, const unsigned lin, const int tb, const long long n,
	const long long j, const long long jlo, const long long jhi)
{
#if BP_LEV
	// lin: bit 0 the delta into the word's first row is +1, bit 1 it is -1.
	const bp_word pv = st.v, mv = st.mv;
	const bp_word neg = (bp_word)((lin >> 1) & 1u);
	const bp_word xv = M | mv;
	const bp_word eq = M | neg;
	const bp_word xh = (((eq & pv) + pv) ^ pv) | eq;
	bp_word ph = mv | ~(xh | pv);
	bp_word mh = pv & xh;
	const unsigned lout = (unsigned)(ph >> BP_TOP) | ((unsigned)(mh >> BP_TOP) << 1);
	if (TRACK) {
		st.cur += (long long)((ph >> tb) & 1u) - (long long)((mh >> tb) & 1u);
		if (j >= jlo && j <= jhi && st.cur < st.best) {
			st.best = st.cur;
			st.bestJ = j;
		}
	}
	ph = (ph << 1) | (bp_word)(lin & 1u);
	mh = (mh << 1) | neg;
	st.v = mh | ~(xv | ph);
	st.mv = ph & xv;
	return lout;
#else
	// One three-operand addition; its carry out of the top row is the
	// majority of the top bits, u | (v & ~s2) since u is a subset of v.
	const bp_word v = st.v, u = v & M;
	const bp_word s2 = v + u + (bp_word)lin;
	const unsigned lout = (unsigned)((u | (v & ~s2)) >> BP_TOP);
	if (TRACK) {
		// The carry out of row n is the LCS's step along row n.
		const unsigned c = tb == BP_TOP ? lout : (unsigned)(((s2 ^ v ^ u) >> (tb + 1)) & 1u);
		st.cur += c;
#if BP_INDEL
		const long long val = n + j - 2 * st.cur;
		if (j >= jlo && j <= jhi && val < st.best) {
			st.best = val;
			st.bestJ = j;
		}
#else
		if (j >= jlo && j <= jhi && st.cur > st.best) {
			st.best = st.cur;
			st.bestJ = j;
		}
#endif
	}
	st.v = s2 | (v & ~M);
	return lout;
#endif
}

// bp_col runs column C of a step's 8-column group H.
template <bool TRACK, int H, int C>
__device__ __forceinline__ void bp_col(bp_state &st, const bp_masks &mk, const unsigned long long codes, const long long jc, const unsigned lin,
	unsigned &lout, const int tb, const long long n, const long long jlo, const long long jhi)
{
	const int col = 8 * H + C;
	const bp_word M = mk.at<C>(codes);
#if BP_LEV
	const unsigned in = ((lin >> col) & 1u) | (((lin >> (col + 16)) & 1u) << 1);
	const unsigned out = bp_column<TRACK>(st, M, in, tb, n, jc + col + 1, jlo, jhi);
	lout |= ((out & 1u) << col) | ((out >> 1) << (col + 16));
#else
	lout |= bp_column<TRACK>(st, M, (lin >> col) & 1u, tb, n, jc + col + 1, jlo, jhi) << col;
#endif
}

// bp_chunk runs the BP_CW columns from jc (0-based), whose codes the caller
// loaded (8 a word), with the links lin of the word above, packed per
// column; returns the links out. TAIL: some columns are at or past m.
template <bool TRACK, bool TAIL>
__device__ __forceinline__ unsigned bp_chunk(bp_state &st, const bp_masks &mk, const unsigned long long *codes, const long long jc,
	const unsigned lin, const int tb, const long long n, const long long m, const long long jlo, const long long jhi)
{
	unsigned lout = 0;
#define BP_COL(H, C) \
	if (TAIL && jc + 8 * H + C >= m) \
		return lout; \
	bp_col<TRACK, H, C>(st, mk, codes[H], jc, lin, lout, tb, n, jlo, jhi);
	BP_COL(0, 0) BP_COL(0, 1) BP_COL(0, 2) BP_COL(0, 3) BP_COL(0, 4) BP_COL(0, 5) BP_COL(0, 6) BP_COL(0, 7)
#if BP_CW == 16
	BP_COL(1, 0) BP_COL(1, 1) BP_COL(1, 2) BP_COL(1, 3) BP_COL(1, 4) BP_COL(1, 5) BP_COL(1, 6) BP_COL(1, 7)
#endif
#undef BP_COL
	return lout;
}

// bp_links is where a strip reads the links of the strip above and how
// many are there, and where it writes its own: the two slots of cbuf and
// prog, or a band's borders (system scope: another GPU's memory).
struct bp_links {
	const unsigned *in;
	unsigned *out;
	const int *above;
	int *mine;
	bool sysIn, sysOut;
};

// bp_strip sweeps strip s with this warp; false when stopped.
template <bool TRACK>
__device__ __forceinline__ bool bp_strip(bp_state &st, const bp_masks &mk, const unsigned char *__restrict__ bc, const bp_links &lk,
	const long long s, const int nstrips, const int lane, const int tb, const long long n, const long long m, const int nch,
	const long long jlo, const long long jhi)
{
#if BP_LEV
	const unsigned top = (BP_CW == 32 ? BP_FULL : (1u << BP_CW) - 1u); // +1 along row 0
#else
	const unsigned top = 0u; // no carry into row 1
#endif
	const int full = (int)(m / BP_CW); // steps whose columns are all real
	const unsigned *in = lk.in;
	unsigned *out = lk.out;
	const bool writes = s + 1 < nstrips;
	int known = 0;
	unsigned lout = 0;
	// The codes of a lane's next step are loaded a step ahead (chunk index
	// clamped into B: a lane before its first or past its last step loads
	// codes it does not use).
	unsigned long long next[BP_CW / 8];
	const auto load = [&](int q) {
		q = q < 0 ? 0 : q >= nch ? nch - 1 : q;
#pragma unroll
		for (int h = 0; h < BP_CW / 8; ++h)
			next[h] = __ldg((const unsigned long long *)(bc + (long long)q * BP_CW) + h);
	};
	load(-lane);
	for (int t0 = 0; t0 < nch + 31; t0 += 32) {
		unsigned pre = top;
		if (s > 0 && t0 < nch) {
			const int need = t0 + 32 < nch ? t0 + 32 : nch;
			// Every lane acquires the links it reads itself.
			int stop = 0;
			while (known < need) {
				known = lk.sysIn ? bp_ld_acquire_sys(lk.above) : bp_ld_acquire(lk.above);
				if (known >= need)
					break;
				if (*(volatile int *)&dp_abort) {
					stop = 1;
					break;
				}
				__nanosleep(32);
			}
			if (bp_warp_any(stop))
				return false;
			pre = t0 + lane < nch ? __ldcg(in + t0 + lane) : 0u;
		}
		for (int u = 0; u < 32; ++u) {
			const unsigned fromAbove = __shfl_sync(BP_FULL, pre, u);
			const unsigned fromLane = __shfl_up_sync(BP_FULL, lout, 1);
			const unsigned lin = lane == 0 ? fromAbove : fromLane;
			const int q = t0 + u - lane;
			unsigned long long codes[BP_CW / 8];
#pragma unroll
			for (int h = 0; h < BP_CW / 8; ++h)
				codes[h] = next[h];
			load(q + 1);
			lout = 0;
			if (q >= 0 && q < nch) {
				const long long jc = (long long)q * BP_CW;
				lout = q < full ? bp_chunk<TRACK, false>(st, mk, codes, jc, lin, tb, n, m, jlo, jhi)
						: bp_chunk<TRACK, true>(st, mk, codes, jc, lin, tb, n, m, jlo, jhi);
				if (lane == 31 && writes) {
					out[q] = lout;
					if ((q + 1) % BP_PUB == 0 || q + 1 == nch) {
						if (lk.sysOut)
							bp_st_release_sys(lk.mine, q + 1);
						else
							bp_st_release(lk.mine, q + 1);
					}
				}
			}
		}
		if ((t0 & 4095) == 0 && bp_warp_any(*(volatile int *)&dp_abort))
			return false;
	}
	return true;
}

// dp_bitpar: peq is the match masks, row c (c = 0 .. BP_SIGMA-1) of wp
// words (wp = 32 * nstrips); bc is B's codes, padded with BP_SIGMA to nch *
// BP_CW + 8 bytes; cbuf 2 x nch words; prog one int per strip and ticket one
// int, zeroed; acc[0] (zeroed) receives the sum over the words of the last
// column (LCS: the zero bits of V among rows 1..n; Levenshtein: the +1s less
// the -1s); with BP_TRACK, track[0] and track[1] the best value of row n
// over columns jlo..jhi and its first column (the tracking lane writes them).
// tw is the word holding row n, tb its bit. The launch sweeps strips s0 ..
// s1-1 (a row band; 0 .. nstrips for the whole grid); bin and bprog (nch
// links and their count, from the band above) and bout and bnext (for the
// band below) are null where there is no such band.
extern "C" __global__ void __launch_bounds__(BP_WARPS * 32)
dp_bitpar(const bp_word *__restrict__ peq, const unsigned char *__restrict__ bc, unsigned *cbuf, int *prog, int *ticket,
	unsigned long long *acc, long long *track, long long n, long long m, int nstrips, int nch, long long tw, long long jlo, long long jhi,
	int s0, int s1, const unsigned *bin, const int *bprog, unsigned *bout, int *bnext)
{
	const long long wp = 32LL * nstrips;
	const int lane = threadIdx.x & 31;
#if !BP_REGS
	__shared__ bp_word tab[BP_WARPS][BP_SIGMA + 1][32];
	bp_word(*mt)[32] = tab[threadIdx.x >> 5];
#endif
	for (;;) {
		int s = 0;
		if (lane == 0)
			s = s0 + atomicAdd(ticket, 1);
		s = __shfl_sync(BP_FULL, s, 0);
		if (s >= s1)
			break;
		const long long w = 32LL * s + lane;
		bp_masks mk;
#if BP_REGS
		bp_word code[4]; // the rows of each code
#pragma unroll
		for (int c = 0; c < 4; ++c)
			code[c] = c < BP_SIGMA ? peq[c * wp + w] : (bp_word)0;
		mk.p0 = code[1] | code[3];
		mk.p1 = code[2] | code[3];
#else
		__syncwarp();
		for (int c = 0; c < BP_SIGMA; ++c)
			mt[c][lane] = peq[c * wp + w];
		mt[BP_SIGMA][lane] = 0;
		__syncwarp();
		mk.t = &mt[0][lane];
#endif
		bp_state st;
		st.v = ~0ull; // LCS: V; Levenshtein: Pv (cell[i][0] = i)
		st.mv = 0;
		const int tb = (int)((n - 1) & BP_TOP);
		const bool tracks = BP_TRACK && w == tw;
#if BP_LEV
		st.cur = n;
#else
		st.cur = 0;
#endif
		st.best = BP_INDEL ? n : st.cur;
		st.bestJ = 0;
		if (jlo > 0) {
			st.best = BP_LEV || BP_INDEL ? 0x7fffffffffffffffLL : -1;
			st.bestJ = -1;
		}
		bp_links lk;
		lk.in = cbuf + ((s + 1) & 1) * (long long)nch;
		lk.out = cbuf + (s & 1) * (long long)nch;
		lk.above = prog + (s > 0 ? s - 1 : 0);
		lk.mine = prog + s;
		lk.sysIn = lk.sysOut = false;
		if (BP_BANDS && s == s0 && bin) {
			lk.in = bin;
			lk.above = bprog;
			lk.sysIn = true;
		}
		if (BP_BANDS && s == s1 - 1 && bout) {
			lk.out = bout;
			lk.mine = bnext;
			lk.sysOut = true;
		}
		const bool ok = BP_TRACK && (tw >> 5) == s ? bp_strip<true>(st, mk, bc, lk, s, nstrips, lane, tb, n, m, nch, jlo, jhi)
							    : bp_strip<false>(st, mk, bc, lk, s, nstrips, lane, tb, n, m, nch, jlo, jhi);
		if (!ok)
			break;
		if (tracks) {
			track[0] = st.best;
			track[1] = st.bestJ;
		}
		// This word's part of the last column.
		long long part = 0;
		if (w * 64 < n) {
			const long long rows = n - w * 64;
			const bp_word mask = rows >= 64 ? ~0ull : (1ull << rows) - 1ull;
#if BP_LEV
			part = (long long)bp_popc(st.v & mask) - (long long)bp_popc(st.mv & mask);
#else
			part = bp_popc(~st.v & mask);
#endif
		}
#pragma unroll
		for (int d = 16; d > 0; d >>= 1)
			part += __shfl_xor_sync(BP_FULL, part, d);
		if (lane == 0)
			atomicAdd(acc, (unsigned long long)part);
	}
}
