
// ---- host sweeps (templates/host.cu) ----
//
// dp_host_run computes the grid on ctl->threads workers (the caller's
// thread and pthreads) and leaves the answer in ans (the answer cell, or
// the cells an answer expression reads) or in ctl's region fields; with
// grid, every cell in it too, and with keepSlot the rows it names in keep.
//
//   - rows (DP_HOST_ROWS): each row is cut into chunks handed out in order
//     from one ticket counter; a chunk waits (a short spin, then sleeps of
//     20 us) until every chunk of the rows before it is done. The lanes of a
//     chunk are one loop the compiler vectorises; rows live in a ring of
//     DP_REACH+1 lines padded by the lanes a cell reads before and after
//     its own (before, after: from the data, eval.Recurrence.LaneReach).
//     One worker of a program whose cells read the row before on one side
//     of their column keeps one line instead, two rows a pass where the
//     reach is bounded (DP_INPLACE, dp_ip_sweep).
//
//   - wavefront: strips of DP_HL rows, taken in order; step t of a strip
//     computes column t - r of its row r for every r at once (one
//     anti-diagonal, a vector loop), reading the steps before from a small
//     history (DP_PI + DP_PJ + 1 steps of DP_PI + DP_HL lanes: lanes below
//     DP_PI hold the bottom rows of the strip above, which it published in
//     an edge buffer of DP_PI rows x COLS and its progress in prog[s]).
//     Lanes outside the grid (the ends of each diagonal, the rows past the
//     last) compute with clamped coordinates and are not live: they report
//     nothing and only cells outside the grid would read them.
//
//   - scan (DP_HOST_SCAN): a wavefront that reads 2-D inputs, row after row
//     on one thread (see below).
//
//   - fronts (DP_HOST_FRONT): the generic schedules, front after front of
//     the plan's hyperplane (enumerated as plan.Hyperplane.Front does), the
//     chunks of all fronts from one ticket counter, the whole grid in
//     memory; see dp_host_fronts and dp_front_work.
//
// A region answer that sums floating cells (DP_FSUM) is summed in an order
// that does not depend on the threads or their timing: the rows sweep sums
// each block of DP_FSUM_B lanes of a row on its own (chunks are whole
// blocks) and adds the blocks of each row, and the rows, in sweep order; the
// wavefront sums each row in sweep order (a lane of one strip computes it)
// and adds the rows top to bottom, as the Go evaluator's wavefront does (the
// scan likewise); the fronts sum the grid in row-major order at the end.
// (Folded into each worker's part, the sum rounded differently from run to
// run.)
//
// Every check only raises its cell's flag (dp_fast); a chunk or strip with
// a raised flag is computed again with dp_slow, which notes the first cell
// in row-major order that fails, so the error does not depend on the
// number of threads.

#include <limits>

#define DP_S (DP_PI + DP_PJ + 1)
// DP_LAG: the steps a strip keeps behind the one above beyond those it
// reads (dp_strip): reading the edge's cache lines while the strip above
// still writes them moved them between the cores on every line (LCS
// 20,000^2 on 2 threads: 57 ms with no margin, 53 with 128 steps, 49.5
// with 512).
#define DP_LAG 512
#define DP_PI1 (DP_PI > 0 ? DP_PI : 1)
#define DP_NREF DP_NREFS_REAL

#ifndef DP_T
#define DP_T 1
#endif
#if DP_T > 1
// Several tables computed together (codegen Program.Tables, the scan
// only): table TB of the cell at row i, cell column jc.
template <bool R, int TB, class A> static __forceinline__ cell_t dp_rec_tm(const DP_IDX_T i, const DP_IDX_T jc, A &a)
{
	if constexpr (R)
		return dp_slow::dp_rec_t<TB>(i, jc, a);
	else
		return dp_fast::dp_rec_t<TB>(i, jc, a);
}
#else
template <bool R, class A> static __forceinline__ cell_t dp_rec_m(const DP_IDX_T i, const DP_IDX_T j, A &a)
{
	if constexpr (R)
		return dp_slow::dp_rec(i, j, a);
	else
		return dp_fast::dp_rec(i, j, a);
}
#endif

template <bool R> static __forceinline__ void dp_check(dp_lv &l, bool bad, int code, int site, long long ci, long long cj, long long x, long long y)
{
	if constexpr (R) {
		if (bad && l.lv)
			dp_host_note(l.ctl, code, site, ci, cj, x, y);
	} else {
		l.bad |= (int)bad & l.lv;
	}
}

typedef dp_fast::dp_part_t dp_part;

// dp_oob_idx is dp_oob in the index type: the references' coordinates are
// index expressions, so when they are int the test stays in 32-bit lanes.
static __forceinline__ bool dp_oob_idx(long long ri, long long rj)
{
	typedef DP_IDX_T T;
	typedef unsigned long long U;
	if constexpr (sizeof(T) == 4)
		return (unsigned)(T)ri >= (unsigned)DP_ROWS || (unsigned)(T)rj >= (unsigned)DP_COLS;
	else
		return (U)ri >= (U)DP_ROWS || (U)rj >= (U)DP_COLS;
}

static __forceinline__ void dp_pause()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static __forceinline__ bool dp_aborted(dp_host_ctl *c) { return __atomic_load_n(&c->abort, __ATOMIC_RELAXED) != 0; }

// DP_PROG_STRIDE: a strip's progress (dp_run::prog) is on a cache line of
// its own, so that the workers of neighbouring strips do not write one line.
#define DP_PROG_STRIDE 8

// dp_line_calloc is calloc(n, 1) on whole cache lines of its own.
static void *dp_line_calloc(size_t n)
{
	const size_t sz = n == 0 ? 64 : (n + 63) / 64 * 64;
	void *p = aligned_alloc(64, sz);
	if (p)
		memset(p, 0, sz);
	return p;
}

static long long dp_now_ns()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// dp_backoff is a waiting worker's pause: a short spin, then sleeps of
// 20 us (a worker descheduled beside a busy core is not spun against).
// The first sleep of a wait notes when it began in *since; a wait that
// slept over half a millisecond in all (longer than a worker takes for a
// chunk or a step: the one waited for was descheduled) adds its length to
// *slept when it ends (dp_waited; see dp_retire).
static inline void dp_backoff(long long spins, long long *since)
{
	if (spins < 4000) {
		dp_pause();
	} else {
		if (spins == 4000)
			*since = dp_now_ns();
		struct timespec ts = {0, 20000};
		nanosleep(&ts, 0);
	}
}

static inline void dp_waited(long long spins, long long since, long long *slept)
{
	if (spins > 4000) {
		const long long d = dp_now_ns() - since;
		if (d > 500000)
			__atomic_fetch_add(slept, d, __ATOMIC_RELAXED);
	}
}

// dp_wait_ge waits until *p >= need; false when the run was stopped.
static bool dp_wait_ge(const long long *p, long long need, dp_host_ctl *c, long long *slept)
{
	long long since = 0;
	for (long long spins = 0;; ++spins) {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) >= need) {
			dp_waited(spins, since, slept);
			return true;
		}
		if (dp_aborted(c))
			return false;
		dp_backoff(spins, &since);
	}
}

// dp_publish hands the error a worker's slow pass noted (dp_host_note) to
// the run.
static void dp_publish(dp_host_ctl *run, const dp_host_ctl *mine)
{
	if (mine->code > 0)
		dp_host_fail(run, mine->code, mine->site, mine->i, mine->j, mine->a, mine->b);
}

#define DP_FSUM (DP_ANS_KIND == 2 && DP_REG_OP == 2 && DP_CELL_FLOAT)
#define DP_FSUM_B 4096 // lanes of a block of the rows sweep's floating sums

struct dp_run {
	dp_host_ctl *ctl;
	dp_inputs in;
	cell_t *ans;
	// Kept cells: the grid (row-major, real coordinates; columns winLo ..
	// winHi-1 of each row, all of them by default), and the rows of
	// keepSlot[i] >= 0 (row-major in keep, slot by slot).
	cell_t *grid;
	long long winLo, winHi;
	const int *keepSlot;
	cell_t *keep;
	// The kept columns (the forward strips): kcols[0 .. nkc-1], sorted,
	// column kcols[k] of every row at kcol + k * DP_ROWS.
	const long long *kcols;
	long long nkc;
	cell_t *kcol;
	long long before, after;
	int threads;
	dp_colcache cc;
	long long ccOff;
	char *ccMem;
	// rows
	cell_t *ring;
	long long ringW, nc, chunk;
	// DP_INPLACE: the one line's memory and its first lane's cell, and the
	// rows between two moves back (dp_ip_at); 0 where the ring is used.
	cell_t *ipMem, *ipBase;
	long long ipK;
	long long ticket, doneChunks;
	// The workers' probe (dp_work): lines a phase (0: none); worker 0's
	// time for the first phase's lines after its first; when the second
	// began; 2 once the first is done, 3 once decided; the workers ready
	// for the second; those started; worker 0 goes on alone.
	long long probe, probeA, probeB0, probed, ready, started;
	int solo;
	// dp_rows_switch: the line from which the workers take tickets
	// (DP_NLINES: none; written once, read every line: on a cache line
	// of its own, away from the counters every chunk writes).
	alignas(64) long long switchAt;
	int switching; // taken by the one caller that sets switchAt
	char switchPad[52];
	long long *rprog; // scan, several workers: each row's progress (dp_scan_prog)
	// wavefront
	long long nstrips, nedges;
	cell_t *edges;
	long long *prog;
	long long ansS, ansT, ansR; // the answer cell's strip, step and lane
	long long capS[DP_NCAPS > 0 ? DP_NCAPS : 1], capT[DP_NCAPS > 0 ? DP_NCAPS : 1], capR[DP_NCAPS > 0 ? DP_NCAPS : 1];
	// fronts: the grid G (row-major; with DP_MIRROR its transpose GT), the
	// fronts tf .. tf+nf-1 (their chunks numbered by ticket, done counted
	// in doneChunks); failed: a chunk noted an error.
	cell_t *G, *GT;
	long long nf, tf;
	int failed;
	long long failedFront;
	// The rows in row-major order on several workers (dp_front_pipeline):
	// each row's finished columns, the next row to take, the workers that
	// entered and left, and whether a cell failed (the fronts then run).
	long long *pipeProg;
	long long pipeRow, pipeIn, pipeOut;
	int pipeFailed;
	// DP_FSUM: the sum so far and whether a cell was in the region; the
	// rows sweep's block sums of the last two rows (fslot, nb blocks a
	// row), the wavefront's row sums (fslot) and whether a strip had a
	// cell in the region (fany).
	double fsum;
	int fanyAll;
	double *fslot;
	unsigned char *fany;
	long long nb;
	// Shedding (dp_retire): workers with an id below active take work;
	// slept is the time they spent asleep waiting since shedT0.
	int active;
	long long slept, shedT0;
};

// A worker's struct and buffers sit on cache lines of their own
// (dp_line_calloc): they are written every step, and two workers' on one
// line moved it between cores at every step (two workers of the strips
// ran a 1,671 x 29,752 grid no faster than one, in most runs).
struct alignas(64) dp_worker {
	dp_run *run;
	int id;         // 0 is the caller's thread
	long long asks; // dp_retire calls
	pthread_t th;
	bool started;
	dp_part part;
	dp_host_ctl err; // the slow pass's note
	unsigned char *fl;
	cell_t *hist;
	cell_t *stage; // DP_STAGE steps of the lanes, for a kept grid (dp_flush_stage)
	dp_rowcache rc;
	char *rcMem;
	long long *chain; // DP_CHAIN: a chunk's reductions and bounds (dp_rows_acc::chain)
};

// dp_retire reports whether worker w should stop taking work: the run
// sheds a worker each time its workers have spent more than a quarter of
// the time since the last look in long waits for each other (dp_waited:
// the one waited for was descheduled, not slow). A worker
// descheduled beside a busy core holds up every front, row or strip that
// needs its chunk; with one worker fewer the rest run on the free cores
// (with another process on one of two cores, the fronts of gotoh at 4,000
// took 5x as long on two workers as on one). Worker 0 never retires.
static bool dp_retire(dp_worker *w)
{
	dp_run *run = w->run;
	const int a = __atomic_load_n(&run->active, __ATOMIC_RELAXED);
	if (w->id >= a)
		return true;
	if (a < 2 || ++w->asks % 16 != 0)
		return false;
	const long long now = dp_now_ns(), t0 = __atomic_load_n(&run->shedT0, __ATOMIC_RELAXED);
	const long long slept = __atomic_load_n(&run->slept, __ATOMIC_RELAXED);
	if (now - t0 < 2000000)
		return false; // look at 2 ms at least
	if (slept * 4 > now - t0) {
		int want = a;
		__atomic_compare_exchange_n(&run->active, &want, a - 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&run->slept, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&run->shedT0, now, __ATOMIC_RELAXED);
	return w->id >= __atomic_load_n(&run->active, __ATOMIC_RELAXED);
}

// dp_put copies cells v[0..n) of real row i, columns j0 + k*dj, to the
// kept grid (those in its columns) and to the kept row of i.
static void dp_put(dp_run *run, const cell_t *v, long long n, long long i, long long j0, long long dj)
{
	const long long w = run->winHi - run->winLo;
	cell_t *dst[2] = {run->grid ? run->grid + i * w : 0, run->keepSlot && run->keepSlot[i] >= 0 ? run->keep + run->keepSlot[i] * DP_COLS : 0};
	const long long lo[2] = {run->winLo, 0}, hi[2] = {run->winHi, DP_COLS};
	for (int d = 0; d < 2; ++d) {
		if (!dst[d])
			continue;
		if (dj == 1) {
			const long long a = j0 > lo[d] ? j0 : lo[d], b = j0 + n < hi[d] ? j0 + n : hi[d];
			if (a < b)
				memcpy(dst[d] + (a - lo[d]), v + (a - j0), (size_t)(b - a) * sizeof(cell_t));
		} else {
			for (long long k = 0; k < n; ++k) {
				const long long j = j0 + k * dj;
				if (j >= lo[d] && j < hi[d])
					dst[d][j - lo[d]] = v[k];
			}
		}
	}
}

#if DP_ANS_KIND == 2 && (DP_REG_OP == 2 || DP_CELL_FLOAT)
#define DP_REG_SCALAR 1
#else
#define DP_REG_SCALAR 0
#endif

// dp_region folds cells v[k*vs] (k < n) at row-major (i0 + k*di, j0 + k*dj)
// into the worker's part. For min and max over integers a vector pass
// first finds the best of them; only when it could change the part (or tie
// with it) does the exact fold run.
static void dp_region(dp_worker *w, const cell_t *v, long long n, long long i0, long long di, long long j0, long long dj, const unsigned char *live)
{
#if DP_ANS_KIND == 2
#if !DP_REG_SCALAR
	cell_t m = DP_REG_OP == 1 ? std::numeric_limits<cell_t>::lowest() : std::numeric_limits<cell_t>::max();
	long long cnt = 0;
	for (long long k = 0; k < n; ++k) {
		const long long i = i0 + k * di, j = j0 + k * dj;
		const bool in = (live == 0 || live[k]) && DP_IN_REGION(i, j);
		const cell_t x = v[k];
		cnt += in;
#if DP_REG_OP == 1
		m = in && x > m ? x : m;
#else
		m = in && x < m ? x : m;
#endif
	}
	if (cnt == 0)
		return;
	if (w->part.any) {
		const long long b = w->part.iv;
#if DP_REG_OP == 1
		if ((long long)m < b)
			return;
#else
		if ((long long)m > b)
			return;
#endif
	}
#endif
	for (long long k = 0; k < n; ++k) {
		const long long i = i0 + k * di, j = j0 + k * dj;
		if ((live == 0 || live[k]) && DP_IN_REGION(i, j))
			dp_fast::dp_part_add(w->part, v[k], i * DP_COLS + j);
	}
#else
	(void)w, (void)v, (void)n, (void)i0, (void)di, (void)j0, (void)dj, (void)live;
#endif
}

// dp_fsum_add adds the cells of v that dp_region would take, in order, to
// s; any records that one was taken.
static __forceinline__ void dp_fsum_add(double &s, int &any, const cell_t *v, long long n, long long i0, long long di, long long j0, long long dj,
	const unsigned char *live)
{
#if DP_ANS_KIND == 2
	for (long long k = 0; k < n; ++k) {
		const long long i = i0 + k * di, j = j0 + k * dj;
		if ((live == 0 || live[k]) && DP_IN_REGION(i, j)) {
			s += (double)v[k];
			any = 1;
		}
	}
#else
	(void)s, (void)any, (void)v, (void)n, (void)i0, (void)di, (void)j0, (void)dj, (void)live;
#endif
}

// dp_fsum_done hands the deterministic floating sum to ctl (after
// dp_merge_parts, whose parts hold none of it).
static void dp_fsum_done(dp_host_ctl *ctl, const dp_run *run)
{
	if (run->fanyAll) {
		ctl->pfv = run->fsum;
		ctl->pany = 1;
	}
}

#if DP_HOST_ROWS

template <bool R> struct dp_rows_acc {
	const dp_inputs *in;
	const cell_t *const *prev;
	const dp_rowvals *rv_;
	const dp_colcache *cc;
	long long c; // column cache index
	dp_lv l;
	__forceinline__ dp_lv &live() { return l; }
	template <int ID> __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj)
	{
		if (!dp_ref<ID>::safe) {
			const bool oob = dp_oob_idx(ri, rj);
			dp_check<R>(l, oob, DP_E_CELL, ID, ci, cj, ri, rj);
			if constexpr (R) {
				if (oob)
					return (cell_t)0;
			}
		}
		return prev[dp_ref<ID>::di][rj];
	}
	template <int S> __forceinline__ auto rv(long long) const { return rv_->template get<S>(); }
	template <int S> __forceinline__ auto cv(long long) const { return cc->template get<S>(c); }
#if DP_CHAIN
	// The chunk's chained reduction (codegen/chain.go): at column q - q0
	// of cr its value, of ch its bound H (the least long long: not
	// computed).
	long long *cr, *ch;
	long long q0;
	// chain is the reduction max (MAX, else min) over k in 0..H of
	// cell[I][j - k*S] + k*V at column j: loop() runs it, term0() is its
	// term k = 0; h, s and v give H, S and V. Where column j - S of this
	// chunk had bound H - 1, its value plus V is every term k >= 1, when
	// the steps cannot leave the finite range fhi of the sum nor H*|V|
	// that of k*V, mhi (and the loop would report nothing the chain
	// misses: codegen/chain.go). QJ: H is j / S, one more than at j - S,
	// which the chain takes without dividing.
	template <class T, bool MAX, bool QJ, class H, class S, class V, class L, class Z>
	__forceinline__ T chain(long long j, long long fhi, long long mhi, H hf, S s, V v, L loop, Z term0)
	{
		// In the loop's order: the bound, then S (with QJ, S first: it is
		// the bound's own divisor, read before it divides).
		T r;
		bool ok = false;
		long long h, st = 0;
		if (QJ) {
			st = s();
			const long long p = j - st;
			h = st >= 1 && p >= q0 && ch[p - q0] >= 0 ? ch[p - q0] + 1 : hf();
		} else {
			h = hf();
			if (h >= 1)
				st = s();
		}
		const long long p = j - st;
		if (h >= 1 && st >= 1 && p >= q0 && ch[p - q0] == h - 1) {
			const long long vv = v(), before = cr[p - q0];
			const long long mag = vv < 0 ? -vv : vv;
			long long most; // H*|V|, without a division a cell
			if ((MAX ? vv >= 0 : vv <= 0) && !__builtin_mul_overflow(mag, h, &most) && most <= mhi && before >= -fhi && before <= fhi) {
				long long sum;
				if (!__builtin_add_overflow(before, vv, &sum) && sum >= -fhi && sum <= fhi) {
					const T z = term0();
					r = MAX ? ((T)sum > z ? (T)sum : z) : ((T)sum < z ? (T)sum : z);
					ok = true;
				}
			}
		}
		if (!ok)
			r = loop();
		cr[j - q0] = (long long)r;
		ch[j - q0] = h;
		return r;
	}
#endif
};

// DP_INPLACE (codegen hostInPlace): every reference
// reads the row before at its own column or on one side of it (1: the
// left, -1: the right), no check can fail and nothing chains along the
// row. One worker then keeps one line: row s is written DP_IPB lanes to the
// right of row s-1 (1; -1: to the left) and computed from the far side in
// blocks of DP_IPB lanes. Writing lane q destroys lane q + DP_IPB of row
// s-1 (1), which only lanes right of q + DP_IPB read, and they are done;
// within a block the lanes read row s-1 left of the lanes it writes, so a
// block is one vector loop whatever the vectors' width. Every run->ipK rows
// the line has moved its whole width of slack and row s-1 is moved back
// (dp_ip_move): the cost of a copy of the row every ipK rows, for one row
// of memory instead of two, which then moves through the cache once a row
// (a 0/1 knapsack of 10,000 x 49,878, one thread: 54.5 ms in the ring,
// 38.2 in one line, 30-31 two rows a pass: docs/performance.md). A block
// of 256 lanes where a row has room for eight rows' slack of them (the
// knapsack: 27.8 ms; 128 lanes 31.3, 512 31.8, 1,024 32.1), else 128.
#define DP_IPB (DP_WIDTH >= 8 * 256 + 64 ? 256 : 128)

// dp_ip_at is where row step starts in the one line.
static __forceinline__ cell_t *dp_ip_at(const dp_run *run, long long step)
{
	const long long k = step % run->ipK;
	return run->ipBase + (DP_INPLACE > 0 ? DP_IPB * (1 + k) : DP_IPB * (run->ipK - 1 - k));
}

static __forceinline__ cell_t *dp_line_at(dp_run *run, long long step)
{
#if DP_INPLACE
	if (run->ipBase)
		return dp_ip_at(run, step);
#endif
	long long s = step % (DP_REACH + 1);
	if (s < 0)
		s += DP_REACH + 1;
	return run->ring + s * run->ringW + run->before;
}

// dp_ip_prev is where row step - 1 is read from while row step is
// computed: where dp_ip_at put it, or at a move (step % ipK == 0) the end
// of the line it is moved to.
static __forceinline__ const cell_t *dp_ip_prev(const dp_run *run, long long step)
{
	if (step % run->ipK != 0)
		return dp_ip_at(run, step - 1);
	return run->ipBase + (DP_INPLACE > 0 ? 0 : DP_IPB * run->ipK);
}

// dp_ip_move moves row step - 1 to dp_ip_prev's place before row step
// (step > 0) is computed.
static void dp_ip_move(dp_run *run, long long step)
{
	if (step > 0 && step % run->ipK == 0)
		memmove((void *)dp_ip_prev(run, step), dp_ip_at(run, step - 1), (size_t)DP_WIDTH * sizeof(cell_t));
}

// dp_ip_lost stops a DP_INPLACE run whose fast pass raised a flag at row
// real: no check can raise one in such a program, and the row before, which
// the slow pass would compute the chunk again from, is gone. An internal
// error (genrun.Describe: an unknown code at an unknown site), never a
// wrong value. Returns false (the run must stop).
static bool dp_ip_lost(dp_run *run, long long real)
{
	dp_host_fail(run->ctl, 99, -1, real, 0, 0, 0);
	return false;
}

// dp_ip_blocks is how many blocks of DP_IPB lanes (on multiples of DP_IPB)
// hold lanes lo .. hi-1; dp_ip_block is block k of them in the order a
// row computes them, from the far side.
static __forceinline__ long long dp_ip_blocks(long long lo, long long hi)
{
	return hi > lo ? (hi - 1) / DP_IPB - lo / DP_IPB + 1 : 0;
}

static __forceinline__ void dp_ip_block(DP_IDX_T lo, DP_IDX_T hi, long long k, DP_IDX_T *b0, DP_IDX_T *n)
{
	const long long s = DP_INPLACE > 0 ? ((hi - 1) / DP_IPB - k) * DP_IPB : (lo / DP_IPB + k) * DP_IPB;
	const long long e = s + DP_IPB;
	*b0 = (DP_IDX_T)(s > lo ? s : lo);
	*n = (DP_IDX_T)((e < hi ? e : hi) - *b0);
}

// dp_ip_lanes computes lanes b0 .. b0+n-1 of row ri into out: one vector
// loop (no lane reads a lane the loop writes: see DP_INPLACE).
// A whole block is a loop of constant length, which the compiler lays
// out without the peeling and remainders of a loop of any length (a
// knapsack's sweep: 47.5 ms with blocks of a length known at run time,
// 38.2 ms so).
template <bool R>
static __forceinline__ int dp_ip_lanes(const dp_inputs *in, const cell_t *const *prev, const dp_rowvals *rv, const dp_colcache *cc, long long off,
	dp_host_ctl *note, DP_IDX_T ri, cell_t *out, DP_IDX_T b0, DP_IDX_T n)
{
	int bad = 0;
	auto lanes = [&](const DP_IDX_T m) __attribute__((always_inline)) {
#pragma GCC ivdep
		for (DP_IDX_T q = b0; q < b0 + m; ++q) {
			dp_rows_acc<R> a{in, prev, rv, cc, off + q, {1, 0, note}};
			out[q] = dp_rec_m<R>(ri, q, a);
			if constexpr (!R)
				bad |= a.l.bad;
		}
	};
	if (n == DP_IPB)
		lanes(DP_IPB);
	else
		lanes(n);
	return bad;
}

// dp_rows_chunk computes lanes q0..q1-1 of line step; the fast pass
// returns whether a check failed (the flags of its cells, or-ed in the
// vector loop).
template <bool R> static int dp_rows_chunk(dp_run *run, dp_host_ctl *note, long long *chain, long long step, long long q0, long long q1)
{
	const long long real = DP_BACK ? DP_NLINES - 1 - step : step;
	const cell_t *prev[DP_REACH + 1];
	for (int d = 0; d <= DP_REACH; ++d)
		prev[d] = dp_line_at(run, step - d);
	cell_t *out = dp_line_at(run, step);
#if DP_INPLACE
	if (run->ipBase)
		for (int d = 1; d <= DP_REACH; ++d)
			prev[d] = dp_ip_prev(run, step); // every reference reads row step - 1
#endif
	dp_rowvals rv;
	rv.fill(&run->in, real);
	// Local copies of the input and cache pointers (see dp_strip).
	const dp_inputs inv = run->in;
	const dp_inputs *in = &inv;
	const dp_colcache ccv = run->cc;
	const dp_colcache *cc = &ccv;
	const long long off = run->ccOff;
	const DP_IDX_T ri = (DP_IDX_T)real, lo = (DP_IDX_T)q0, hi = (DP_IDX_T)q1;
	int bad = 0;
#if DP_INPLACE
	if (run->ipBase) {
		const long long nb = dp_ip_blocks(lo, hi);
		for (long long k = 0; k < nb; ++k) {
			DP_IDX_T b0, n;
			dp_ip_block(lo, hi, k, &b0, &n);
			bad |= dp_ip_lanes<R>(in, prev, &rv, cc, off, note, ri, out, b0, n);
		}
		return bad;
	}
#endif
#if DP_CHAIN
	// A column's reduction may take one before it: in order, no ivdep.
	long long *cr = chain, *ch = chain + (q1 - q0);
	for (long long k = 0; k < q1 - q0; ++k)
		ch[k] = std::numeric_limits<long long>::min();
	for (DP_IDX_T q = lo; q < hi; ++q) {
		dp_rows_acc<R> a{in, prev, &rv, cc, off + q, {1, 0, note}, cr, ch, q0};
#else
	(void)chain;
#pragma GCC ivdep
	for (DP_IDX_T q = lo; q < hi; ++q) {
		dp_rows_acc<R> a{in, prev, &rv, cc, off + q, {1, 0, note}};
#endif
		const cell_t v = dp_rec_m<R>(ri, q, a);
		out[q] = v;
		if constexpr (!R)
			bad |= a.l.bad;
	}
	return bad;
}

// dp_rows_one computes one chunk: false when the run must stop.
static bool dp_rows_one(dp_worker *w, long long step, long long q0, long long q1)
{
	dp_run *run = w->run;
#if DP_INPLACE
	if (run->ipBase)
		dp_ip_move(run, step); // (one chunk a line: one worker)
#endif
	if (dp_rows_chunk<false>(run, &w->err, w->chain, step, q0, q1)) {
#if DP_INPLACE
		if (run->ipBase)
			return dp_ip_lost(run, DP_BACK ? DP_NLINES - 1 - step : step);
#endif
		dp_rows_chunk<true>(run, &w->err, w->chain, step, q0, q1);
		if (w->err.code > 0) {
			dp_publish(run->ctl, &w->err);
			return false;
		}
	}
	const long long real = DP_BACK ? DP_NLINES - 1 - step : step;
	const cell_t *out = dp_line_at(run, step);
	if (run->grid || run->keepSlot)
		dp_put(run, out + q0, q1 - q0, real, q0, 1);
#if DP_ANS_KIND == 1
	if (real == DP_ANS_I && DP_ANS_J >= q0 && DP_ANS_J < q1)
		run->ans[0] = out[DP_ANS_J];
#elif DP_ANS_KIND == 3
	for (int k = 0; k < DP_NCAPS; ++k)
		if (dp_cap_i[k] == real && dp_cap_j[k] >= q0 && dp_cap_j[k] < q1)
			run->ans[k] = out[dp_cap_j[k]];
#elif DP_FSUM
	// The blocks of this chunk (chunks are whole blocks), one sum each.
	for (long long b = q0 / DP_FSUM_B; b * DP_FSUM_B < q1; ++b) {
		const long long lo = b * DP_FSUM_B, hi = lo + DP_FSUM_B < q1 ? lo + DP_FSUM_B : q1;
		double sum = 0;
		int any = 0;
		dp_fsum_add(sum, any, out + lo, hi - lo, real, 0, lo, 1, 0);
		run->fslot[(step & 1) * run->nb + b] = sum;
		if (any)
			__atomic_store_n(&run->fanyAll, 1, __ATOMIC_RELAXED);
	}
#elif DP_ANS_KIND == 2
	dp_region(w, out + q0, q1 - q0, real, 0, q0, 1, 0);
#endif
	return true;
}

// dp_fsum_row adds row step's block sums, in order, to the run's sum: by
// the worker of the next row's first chunk (every chunk of step is done,
// and the next fold waits for this one), or at the end.
static void dp_fsum_row(dp_run *run, long long step)
{
#if DP_FSUM
	const double *f = run->fslot + (step & 1) * run->nb;
	for (long long b = 0; b < run->nb; ++b)
		run->fsum += f[b];
#else
	(void)run, (void)step;
#endif
}

// dp_rows_chunk_at computes chunk c of line s and counts it done: false
// when the run must stop.
static bool dp_rows_chunk_at(dp_worker *w, long long s, long long c)
{
	dp_run *run = w->run;
	if (DP_FSUM && c == 0 && s > 0)
		dp_fsum_row(run, s - 1);
	const long long q0 = c * run->chunk, q1 = q0 + run->chunk < DP_WIDTH ? q0 + run->chunk : DP_WIDTH;
	if (!dp_rows_one(w, s, q0, q1))
		return false;
	__atomic_fetch_add(&run->doneChunks, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&run->ctl->done, q1 - q0, __ATOMIC_RELAXED);
	return true;
}

#if DP_INPLACE
// dp_ip_pairs: lines s and s+1 may be computed in one pass over the line
// (dp_ip_pair): the reach is bounded, the pair does not straddle a move,
// and nothing reads line s once it is done (no kept cells, one answer
// cell, not in line s).
static bool dp_ip_pairs(const dp_run *run, long long s)
{
	if (DP_IPREACH < 0 || s + 1 >= DP_NLINES || (s + 1) % run->ipK == 0 || run->grid || run->keepSlot)
		return false;
#if DP_ANS_KIND == 1 && !DP_FSUM
	return (DP_BACK ? DP_NLINES - 1 - s : s) != DP_ANS_I;
#else
	return false;
#endif
}

// dp_ip_pair computes lines s and s+1 in one pass over the line, which
// then moves through the cache once for two rows: line s+1's block k is
// computed after line s's block k + lag, so that every column it reads of
// line s (DP_IPREACH at most from its own) is done: blocks k+1 .. k+lag
// of line s are whole blocks past block k (only the first may be short),
// lag * DP_IPB >= DP_IPREACH lanes. Line s+1 overwrites line s only
// DP_IPB lanes beyond where it reads (see DP_INPLACE), and line s writes
// only below where line s+1 has got to.
static bool dp_ip_pair(dp_worker *w, long long s)
{
	dp_run *run = w->run;
	dp_ip_move(run, s);
	const long long real0 = DP_BACK ? DP_NLINES - 1 - s : s, real1 = DP_BACK ? real0 - 1 : real0 + 1;
	const cell_t *prev0[DP_REACH + 1], *prev1[DP_REACH + 1];
	cell_t *out0 = dp_ip_at(run, s), *out1 = dp_ip_at(run, s + 1);
	for (int d = 0; d <= DP_REACH; ++d) {
		prev0[d] = d == 0 ? out0 : dp_ip_prev(run, s);
		prev1[d] = d == 0 ? out1 : out0;
	}
	dp_rowvals rv0, rv1;
	rv0.fill(&run->in, real0);
	rv1.fill(&run->in, real1);
	const dp_inputs inv = run->in;
	const dp_colcache ccv = run->cc;
	const long long off = run->ccOff;
	const long long nb = dp_ip_blocks(0, DP_WIDTH), lag = (DP_IPREACH + DP_IPB - 1) / DP_IPB;
	int bad = 0;
	for (long long k = 0; k < nb + lag; ++k) {
		DP_IDX_T b0, n;
		if (k < nb) {
			dp_ip_block(0, DP_WIDTH, k, &b0, &n);
			bad |= dp_ip_lanes<false>(&inv, prev0, &rv0, &ccv, off, &w->err, (DP_IDX_T)real0, out0, b0, n);
		}
		if (k >= lag) {
			dp_ip_block(0, DP_WIDTH, k - lag, &b0, &n);
			bad |= dp_ip_lanes<false>(&inv, prev1, &rv1, &ccv, off, &w->err, (DP_IDX_T)real1, out1, b0, n);
		}
	}
	if (bad)
		return dp_ip_lost(run, real0);
#if DP_ANS_KIND == 1
	if (real1 == DP_ANS_I)
		run->ans[0] = out1[DP_ANS_J];
#endif
	__atomic_fetch_add(&run->doneChunks, 2 * run->nc, __ATOMIC_RELEASE);
	__atomic_fetch_add(&run->ctl->done, 2 * DP_WIDTH, __ATOMIC_RELAXED);
	return true;
}

// dp_ip_sweep computes every line on w, the one worker of a DP_INPLACE
// run: two at a time where dp_ip_pairs allows.
static void dp_ip_sweep(dp_worker *w)
{
	dp_run *run = w->run;
	for (long long s = 0; s < DP_NLINES && !dp_aborted(run->ctl);) {
		if (dp_ip_pairs(run, s)) {
			if (!dp_ip_pair(w, s))
				return;
			s += 2;
		} else {
			if (!dp_rows_chunk_at(w, s, 0))
				return;
			s++;
		}
	}
}
#endif

// dp_rows_alone computes lines s0 .. s1-1 on w alone, in order: false
// when the run must stop.
static bool dp_rows_alone(dp_worker *w, long long s0, long long s1)
{
	const long long nc = w->run->nc;
	for (long long t = s0 * nc; t < s1 * nc; ++t)
		if (dp_aborted(w->run->ctl) || !dp_rows_chunk_at(w, t / nc, t % nc))
			return false;
	return true;
}

// dp_rows_switch makes the workers take tickets from line s on
// (switchAt): the first caller only, the tickets set before switchAt,
// which a worker reads before it takes one.
static void dp_rows_switch(dp_run *run, long long s)
{
	int no = 0;
	if (!__atomic_compare_exchange_n(&run->switching, &no, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&run->ticket, s * run->nc, __ATOMIC_RELAXED);
	__atomic_store_n(&run->switchAt, s, __ATOMIC_RELEASE);
}

// dp_rows_static computes lines s0 .. s1-1, chunk c of every line on
// worker c % threads (a line's chunks, each worker its own columns, stay
// in its core's cache from one line to the next), each line after every
// chunk of the line before. With starve, a worker that slept waiting (the
// one waited for was descheduled: another process took its core) switches
// the workers to tickets two lines on (dp_rows_switch; no worker has begun
// that line), where a starved worker is shed (dp_rows_tickets). Returns 1
// when the lines are done, 0 at switchAt, -1 when stopped.
static int dp_rows_static(dp_worker *w, long long s0, long long s1, bool starve)
{
	dp_run *run = w->run;
	const long long nc = run->nc;
	for (long long s = s0; s < s1; ++s) {
		if (s >= __atomic_load_n(&run->switchAt, __ATOMIC_ACQUIRE))
			return 0;
		long long slept = 0;
		if (!dp_wait_ge(&run->doneChunks, s * nc, run->ctl, &slept))
			return -1;
		if (starve && slept > 0) {
			dp_rows_switch(run, s + 2);
			if (s >= __atomic_load_n(&run->switchAt, __ATOMIC_ACQUIRE))
				return 0;
		}
		for (long long c = w->id; c < nc; c += run->threads)
			if (!dp_rows_chunk_at(w, s, c))
				return -1;
	}
	return 1;
}

// dp_rows_tickets takes the chunks of the lines in order from one ticket
// counter, each after every chunk of the line before: a worker that is
// slower or descheduled takes fewer, and one starved of work retires
// (dp_retire).
static void dp_rows_tickets(dp_worker *w)
{
	dp_run *run = w->run;
	const long long nc = run->nc, total = DP_NLINES * nc;
	while (!dp_aborted(run->ctl) && !dp_retire(w)) {
		const long long t = __atomic_fetch_add(&run->ticket, 1, __ATOMIC_RELAXED);
		if (t >= total)
			break;
		const long long s = t / nc, c = t % nc;
		if (run->threads > 1 && !dp_wait_ge(&run->doneChunks, s * nc, run->ctl, &run->slept))
			break;
		if (!dp_rows_chunk_at(w, s, c))
			break;
	}
}

// dp_work is a worker of the rows sweep. Handed out by tickets, a line's
// chunks move between the cores' caches from one line to the next: where
// a line costs little (knapsack, 49,878 lanes of an add and a max: 5 us),
// that cost more than the work shared (2 threads 88 ms, one 51). A sweep
// of several workers of 1,024 lines or more (run->probe lines a phase,
// dp_host_run; a chunk a worker) therefore times itself: worker 0
// computes lines 0 .. probe-1 alone (the first untimed: its pages are
// touched first), then every worker lines probe .. 2*probe-1, each its own
// chunk (dp_rows_static), and worker 0 keeps the rest alone unless that
// took less time a line; else they go on so, falling back to tickets where
// one starves (knapsack 32.8 ms on 2 threads against one's 50.8,
// lookback-put N = 30,000 274 ms against 390). Shorter sweeps take tickets from the
// start. The probe's waits are not counted as a starved worker's.
static void *dp_work(void *arg)
{
	dp_worker *w = (dp_worker *)arg;
	dp_run *run = w->run;
#if DP_INPLACE
	if (run->ipBase) {
		dp_ip_sweep(w);
		return 0;
	}
#endif
	const long long probe = run->probe;
	if (probe > 0) {
		long long unslept = 0;
		if (w->id == 0) {
			bool ok = dp_rows_alone(w, 0, 1);
			const long long t0 = dp_now_ns();
			ok = ok && dp_rows_alone(w, 1, probe);
			run->probeA = dp_now_ns() - t0;
			// The second phase is timed once every worker is ready (they
			// spin meanwhile); where one did not start, tickets.
			if (ok)
				dp_wait_ge(&run->ready, run->started - 1, run->ctl, &unslept);
			run->probeB0 = dp_now_ns();
			__atomic_store_n(&run->shedT0, run->probeB0, __ATOMIC_RELAXED);
			if (run->started < run->threads)
				dp_rows_switch(run, probe);
			__atomic_store_n(&run->probed, 2LL, __ATOMIC_RELEASE);
			if (!ok)
				return 0;
		} else {
			__atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
			if (!dp_wait_ge(&run->probed, 2, run->ctl, &unslept))
				return 0;
		}
		const int second = dp_rows_static(w, probe, 2 * probe, false);
		if (second < 0)
			return 0;
		if (second > 0) {
			if (w->id == 0) {
				if (!dp_wait_ge(&run->doneChunks, 2 * probe * run->nc, run->ctl, &unslept))
					return 0;
				const long long b = dp_now_ns() - run->probeB0;
				run->solo = b * (probe - 1) >= run->probeA * probe && run->ctl->force == 0;
				if (run->ctl->force == 2)
					dp_rows_switch(run, 3 * probe);
				__atomic_store_n(&run->shedT0, dp_now_ns(), __ATOMIC_RELAXED);
				__atomic_store_n(&run->probed, 3LL, __ATOMIC_RELEASE);
			} else if (!dp_wait_ge(&run->probed, 3, run->ctl, &unslept)) {
				return 0;
			}
			if (run->solo) {
				if (w->id == 0)
					dp_rows_alone(w, 2 * probe, DP_NLINES);
				return 0;
			}
			if (dp_rows_static(w, 2 * probe, DP_NLINES, true) != 0)
				return 0;
		}
	}
	dp_rows_tickets(w);
	return 0;
}

#elif DP_HOST_SCAN

// The scan: a wavefront whose cells read inputs at (i, j) (a 2-D table of
// weights), which a strip's diagonal would gather lane by lane, or the
// cells of several tables (DP_T > 1), runs row after row, each row left to
// right in sweep order, as a plain C loop does. Several workers take rows
// in order from a ticket and pipeline them: a row computes a block of
// DP_SCAN_BLOCK units (cell columns, or columns) once the row above has
// published its progress past the block and the DP_SCAN_AHEAD columns it
// may read to the right of its own (dp_scan_prog). Rows finish in order, so
// at most run->threads rows are in flight, and they live in a ring of
// threads+DP_PI+1 rows padded by DP_PJ. A row whose fast pass raised a
// flag waits until the row above is complete (an error above comes first)
// and is computed again with dp_slow: the error is the first in row-major
// order, whatever the threads.
#ifndef DP_SCAN_AHEAD
#define DP_SCAN_AHEAD 0
#endif
#define DP_SCAN_UNITS (DP_COLS / DP_T)
#define DP_SCAN_BLOCK 512

template <bool R> struct dp_scan_acc {
	const dp_inputs *in;
	cell_t *const *rows;
	const dp_rowvals *rv_;
	const dp_colcache *cc;
	long long c; // column cache index
	int sj;      // sweep column
	dp_lv l;
	__forceinline__ dp_lv &live() { return l; }
	template <int ID> __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj)
	{
		if (!dp_ref<ID>::safe)
			dp_check<R>(l, dp_oob_idx(ri, rj), DP_E_CELL, ID, ci, cj, ri, rj);
		return rows[dp_ref<ID>::di][sj - dp_ref<ID>::dj];
	}
	template <int S> __forceinline__ auto rv(long long) const { return rv_->template get<S>(); }
	template <int S> __forceinline__ auto cv(long long) const { return cc->template get<S>(c); }
};

#if DP_T > 1
// dp_scan_tables computes tables TB.. of the cell at row ri, cell column
// jc, into the row's flat columns jc*DP_T + TB; column values are per cell
// column.
template <bool R, int TB>
static __forceinline__ void dp_scan_tables(dp_run *run, cell_t **rows, const dp_rowvals *rv, long long ri, int jc, dp_host_ctl *note,
	cell_t *out, int &bad)
{
	if constexpr (TB < DP_T) {
		const int sj = jc * DP_T + TB;
		dp_scan_acc<R> a{&run->in, rows, rv, &run->cc, run->ccOff + jc, sj, {1, 0, note}};
		out[sj] = dp_rec_tm<R, TB>((DP_IDX_T)ri, (DP_IDX_T)jc, a);
		if constexpr (!R)
			bad |= a.l.bad;
		dp_scan_tables<R, TB + 1>(run, rows, rv, ri, jc, note, out, bad);
	}
}
#endif

// dp_scan_part computes units u0 .. u1-1 of row si (rows: its ring rows);
// nonzero when a fast pass raised a flag.
template <bool R>
static int dp_scan_part(dp_run *run, dp_host_ctl *note, long long si, cell_t **rows, const dp_rowvals *rv, long long u0, long long u1)
{
	const long long ri = DP_BACK ? DP_ROWS - 1 - si : si;
	cell_t *out = rows[0];
	int bad = 0;
#if DP_T > 1
	// A cell's tables in file order (forward only: the planner's cells).
	for (int jc = (int)u0; jc < (int)u1; ++jc)
		dp_scan_tables<R, 0>(run, rows, rv, ri, jc, note, out, bad);
#else
	for (int sj = (int)u0; sj < (int)u1; ++sj) {
		const int rj = DP_BACK ? (int)DP_COLS - 1 - sj : sj;
		dp_scan_acc<R> a{&run->in, rows, rv, &run->cc, run->ccOff + sj, sj, {1, 0, note}};
		const cell_t v = dp_rec_m<R>((DP_IDX_T)ri, (DP_IDX_T)rj, a);
		out[sj] = v;
		if constexpr (!R)
			bad |= a.l.bad;
	}
#endif
	return bad;
}

// dp_scan_prog is where row si publishes its progress: one 64-byte line a
// row in flight (threads+DP_PI+1 of them, reused in turn: no false
// sharing between the rows), holding si*(DP_COLS+1) + the sweep columns
// done, which grows from each row to the next that takes the line.
static inline long long *dp_scan_prog(dp_run *run, long long si)
{
	return run->rprog + (si % (run->threads + DP_PI + 1)) * 8;
}
#define DP_SCAN_AT(si, cols) ((si) * (DP_COLS + 1) + (cols))

// dp_scan_wait waits until the row above has passed need: a wait that
// slept over 2 ms (the worker of the row above was descheduled, not one
// block behind) counts towards shedding a worker (dp_retire).
static inline bool dp_scan_wait(dp_run *run, const long long *above, long long need)
{
	long long slept = 0;
	const bool ok = dp_wait_ge(above, need, run->ctl, &slept);
	if (slept > 2000000)
		__atomic_fetch_add(&run->slept, slept, __ATOMIC_RELAXED);
	return ok;
}

// dp_scan_release says that row si's worker has done with its ring row
// (copied it to the grid, taken the answer from it): the row nr later,
// which takes the same ring row and progress line, waits for it before it
// writes (dp_scan_row). Rows are computed in order but left in any order:
// without it, a worker still copying a row out (descheduled, or a long
// copy to a kept grid) saw it overwritten by a row several tickets on — a
// wrong grid, a wrong sum, a traceback through cells that were not there.
static inline void dp_scan_release(dp_run *run, long long si)
{
	if (run->rprog)
		__atomic_store_n(dp_scan_prog(run, si) + 1, si + 1, __ATOMIC_RELEASE);
}

// dp_scan_row computes row si, block by block after the row above: false
// when the run stopped (an error, here or above, or Ctrl-C).
static bool dp_scan_row(dp_worker *w, long long si, cell_t **rows)
{
	dp_run *run = w->run;
	const long long ri = DP_BACK ? DP_ROWS - 1 - si : si;
	const long long nr = run->threads + DP_PI + 1;
	for (int d = 0; d <= DP_PI; ++d)
		rows[d] = run->ring + ((si - d) % nr + nr) % nr * run->ringW + DP_PJ;
	dp_rowvals rv;
	rv.fill(&run->in, ri);
	const bool wait = run->threads > 1 && si > 0;
	const long long *above = wait ? dp_scan_prog(run, si - 1) : 0;
	long long *mine = run->rprog ? dp_scan_prog(run, si) : 0;
	if (mine && si >= nr && !dp_scan_wait(run, mine + 1, si - nr + 1))
		return false; // the row before in this ring slot is still being read (dp_scan_release)
	int bad = 0;
	for (long long u0 = 0; u0 < DP_SCAN_UNITS && !bad; u0 += DP_SCAN_BLOCK) {
		const long long u1 = u0 + DP_SCAN_BLOCK < DP_SCAN_UNITS ? u0 + DP_SCAN_BLOCK : DP_SCAN_UNITS;
		if (wait) {
			const long long need = u1 * DP_T + DP_SCAN_AHEAD;
			if (!dp_scan_wait(run, above, DP_SCAN_AT(si - 1, need < DP_COLS ? need : DP_COLS)))
				return false;
		}
		bad = dp_scan_part<false>(run, &w->err, si, rows, &rv, u0, u1);
		if (!bad && mine)
			__atomic_store_n(mine, DP_SCAN_AT(si, u1 * DP_T), __ATOMIC_RELEASE);
	}
	if (bad) {
		if (wait && !dp_scan_wait(run, above, DP_SCAN_AT(si - 1, DP_COLS)))
			return false;
		dp_scan_part<true>(run, &w->err, si, rows, &rv, 0, DP_SCAN_UNITS);
		if (w->err.code > 0) {
			dp_publish(run->ctl, &w->err);
			return false;
		}
		if (mine)
			__atomic_store_n(mine, DP_SCAN_AT(si, DP_COLS), __ATOMIC_RELEASE);
	}
	return true;
}

static void *dp_work(void *arg)
{
	dp_worker *w = (dp_worker *)arg;
	dp_run *run = w->run;
	cell_t *rows[DP_PI + 1];
	// (A worker that waited too much, beside a busy core, retires between
	// rows: dp_retire.)
	while (!dp_aborted(run->ctl) && !dp_retire(w)) {
		const long long si = __atomic_fetch_add(&run->ticket, 1, __ATOMIC_RELAXED);
		if (si >= DP_ROWS || !dp_scan_row(w, si, rows))
			break;
		if (run->ctl->force == 3 && si % 16 == 0) {
			// Tests: a worker late to leave its row (descheduled), while
			// the others go on (dp_scan_release).
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, 0);
		}
		const long long ri = DP_BACK ? DP_ROWS - 1 - si : si;
		const cell_t *out = rows[0];
		if (run->grid || run->keepSlot)
			dp_put(run, out, DP_COLS, ri, DP_BACK ? DP_COLS - 1 : 0, DP_BACK ? -1 : 1);
#define DP_SWEEPJ(j) (DP_BACK ? DP_COLS - 1 - (j) : (j))
#if DP_T == 1
		// The kept columns (run->kcols) of the row.
		for (long long k = 0; k < run->nkc; ++k)
			run->kcol[k * DP_ROWS + ri] = out[DP_SWEEPJ(run->kcols[k])];
#endif
#if DP_ANS_KIND == 1
		if (ri == DP_ANS_I)
			run->ans[0] = out[DP_SWEEPJ(DP_ANS_J)];
#elif DP_ANS_KIND == 3
		for (int k = 0; k < DP_NCAPS; ++k)
			if (dp_cap_i[k] == ri)
				run->ans[k] = out[DP_SWEEPJ(dp_cap_j[k])];
#elif DP_FSUM
		{
			// The row in sweep order, as the strips and the Go
			// evaluator's wavefront sum it.
			double rs = 0;
			int any = 0;
			dp_fsum_add(rs, any, out, DP_COLS, ri, 0, DP_BACK ? DP_COLS - 1 : 0, DP_BACK ? -1 : 1, 0);
			run->fslot[ri] = rs;
			if (any)
				__atomic_store_n(&run->fanyAll, 1, __ATOMIC_RELAXED);
		}
#elif DP_ANS_KIND == 2
		dp_region(w, out, DP_COLS, ri, 0, DP_BACK ? DP_COLS - 1 : 0, DP_BACK ? -1 : 1, 0);
#endif
#undef DP_SWEEPJ
		dp_scan_release(run, si);
		__atomic_fetch_add(&run->ctl->done, DP_COLS, __ATOMIC_RELAXED);
	}
	return 0;
}

#elif DP_HOST_FRONT

#ifndef DP_E_ORDER
#define DP_E_ORDER 7 // as templates/front.cu: a read not of an earlier front
#endif

{{template "frontmath.cu" .}}

// dp_front_hacc reads the grid: every cell of an earlier front is final.
// A read outside the grid, or (dp_ref::order) of a front not yet computed,
// raises the cell's flag (reports, in the slow pass) and gives 0.
template <bool R> struct dp_front_hacc {
	const dp_inputs *in;
	const cell_t *G, *GT;
	dp_lv l;
	__forceinline__ dp_lv &live() { return l; }
	template <int ID> __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj)
	{
		if (!dp_ref<ID>::safe) {
			const bool oob = dp_oob_idx(ri, rj);
			dp_check<R>(l, oob, DP_E_CELL, ID, ci, cj, ri, rj);
			if (oob)
				return (cell_t)0;
		}
		if (dp_ref<ID>::order) {
			const bool late = !(dp_tof(ri, rj) < dp_tof(ci, cj));
			dp_check<R>(l, late, DP_E_ORDER, ID, ci, cj, ri, rj);
			if (late)
				return (cell_t)0;
		}
		if (DP_MIRROR && dp_ref<ID>::mirror)
			return GT[rj * DP_ROWS + ri];
		return G[ri * DP_COLS + rj];
	}
	__forceinline__ unsigned long long lane() const { return 0; }
	__forceinline__ unsigned long long lanes() const { return 1; }
	template <class T, class F> __forceinline__ T fold(T x, F) const { return x; }
};


// dp_front_of is front t of the grid as plan.Hyperplane.Front enumerates
// it: n cells, the first in row i0, then every DP_TSTEP rows (a whole row
// when DP_TB is 0). A front of a 3-D hyperplane (DP_T3) is the lines of
// its k-planes one after another (i0 is then 0).
static void dp_front_of(long long t, long long *i0, long long *n)
{
#if DP_T3
	*i0 = 0;
	*n = 0;
	for (long long k = 0; k < DP_ROWS; ++k) {
		long long l0, ln;
		dp_line(t - DP_TA * k, &l0, &ln);
		*n += ln;
	}
#else
	dp_front2(t, DP_TA, DP_TB, DP_ROWS, DP_COLS, i0, n);
#endif
}

// dp_front_at computes cell (ii, jj) of the flat grid and stores it; the
// fast pass returns whether a check failed.
template <bool R> static __forceinline__ int dp_front_at(dp_run *run, dp_host_ctl *note, long long ii, long long jj)
{
	cell_t *G = run->G, *GT = run->GT;
	dp_front_hacc<R> a{&run->in, G, GT, {1, 0, note}};
	const cell_t v = dp_rec_m<R>((DP_IDX_T)ii, (DP_IDX_T)jj, a);
	G[ii * DP_COLS + jj] = v;
	if (DP_MIRROR)
		GT[jj * DP_ROWS + ii] = v;
	if constexpr (!R)
		return a.l.bad;
	return 0;
}

// dp_front_chunk computes cells q0..q1-1 of front number f (t = tf + f,
// first row i0); the fast pass returns whether a check failed.
template <bool R> static int dp_front_chunk(dp_run *run, dp_host_ctl *note, long long f, long long i0, long long q0, long long q1)
{
	const long long t = run->tf + f;
	int bad = 0;
#if DP_T3
	// The lines of the k-planes in order, from the one holding q0.
	(void)i0;
	long long q = 0;
	for (long long k = 0; k < DP_ROWS && q < q1; ++k) {
		const long long u = t - DP_TA * k;
		long long l0, ln;
		dp_line(u, &l0, &ln);
		const long long from = q0 > q ? q0 - q : 0, to = q1 - q < ln ? q1 - q : ln;
		for (long long m = from; m < to; ++m)
			bad |= dp_front_at<R>(run, note, k, dp_line_cell(u, l0, m));
		q += ln;
	}
#else
	// Along a front i steps by |B| and j by -A*sign(B): the first cell's
	// column is the only division.
	const long long B = DP_TB != 0 ? DP_TB : 1, dj = DP_TB > 0 ? -DP_TA : DP_TA;
	const long long j0 = DP_TB == 0 ? q0 : (t - DP_TA * (i0 + q0 * DP_TSTEP)) / B;
	for (long long q = q0; q < q1; ++q) {
		const long long ii = DP_TB == 0 ? i0 : i0 + q * DP_TSTEP;
		const long long jj = DP_TB == 0 ? q : j0 + (q - q0) * dj;
		bad |= dp_front_at<R>(run, note, ii, jj);
	}
#endif
	return bad;
}

// dp_front_after_failure reports whether front f comes after a front that
// failed: its chunks are not computed (those of the failing front are, so
// that its first failing cell is found whatever the threads).
static __forceinline__ bool dp_front_after_failure(dp_run *run, long long f)
{
	return __atomic_load_n(&run->failed, __ATOMIC_ACQUIRE) && f > __atomic_load_n(&run->failedFront, __ATOMIC_RELAXED);
}

// dp_front_wait waits until need chunks are done (every chunk of the
// fronts before front f); false when the run was stopped or a front before
// f failed, which leaves chunks that no worker will do.
static bool dp_front_wait(dp_run *run, long long need, long long f)
{
	long long since = 0;
	for (long long spins = 0;; ++spins) {
		if (__atomic_load_n(&run->doneChunks, __ATOMIC_ACQUIRE) >= need) {
			dp_waited(spins, since, &run->slept);
			return true;
		}
		if (dp_aborted(run->ctl) || dp_front_after_failure(run, f))
			return false;
		dp_backoff(spins, &since);
	}
}

// dp_front_work runs the fronts in order. The chunks of all fronts are
// numbered in order and handed out from one ticket counter (as the rows
// sweep's); a worker whose ticket lies in front f first waits until every
// chunk of the fronts before f is done (run->doneChunks). A chunk whose
// flags were raised is computed again by the slow pass, which notes its
// first failing cell in the worker's own block; its front is still
// finished, and no worker starts the next: dp_host_fronts reports the
// first noted cell in row-major order, whatever the threads did.
// dp_front_cells computes cells q0..q1-1 of front f (first row i0): the
// fast pass, and where its flags were raised the slow pass, which notes
// the first failing cell in w's own block and marks the front failed.
// False when it failed.
static bool dp_front_cells(dp_worker *w, long long f, long long i0, long long q0, long long q1)
{
	dp_run *run = w->run;
	if (!dp_front_chunk<false>(run, &w->err, f, i0, q0, q1))
		return true;
	dp_front_chunk<true>(run, &w->err, f, i0, q0, q1);
	if (w->err.code <= 0)
		return true;
	// Only one front can fail: the next starts after it.
	__atomic_store_n(&run->failedFront, f, __ATOMIC_RELAXED);
	__atomic_store_n(&run->failed, 1, __ATOMIC_RELEASE);
	return false;
}

#if DP_SERIAL
// dp_pipe_wait waits until row r has finished its first need columns;
// false when a cell failed or the run was stopped.
static bool dp_pipe_wait(dp_run *run, long long r, long long need)
{
	long long since = 0;
	for (long long spins = 0;; ++spins) {
		if (__atomic_load_n(&run->pipeProg[r], __ATOMIC_ACQUIRE) >= need)
			return true;
		if (__atomic_load_n(&run->pipeFailed, __ATOMIC_SEQ_CST) || dp_aborted(run->ctl))
			return false;
		dp_backoff(spins, &since);
	}
}

// dp_front_pipeline computes the grid in row-major order (plan.Plan.Serial)
// on one worker, or on every worker with the rows pipelined (SerialLag,
// run->pipeProg): the workers take the rows in order from a counter and
// compute each in chunks of DP_PIPE_CHUNK columns, a chunk once the row
// before has finished the columns up to the chunk's end plus DP_PIPE_LAG
// (every reference to an earlier row reads no further right; the rows
// before that one are further on still). A worker retires only between
// rows. It returns true when the worker is done (the grid computed,
// or the run stopped); false after a cell failed, once every worker that
// entered has left: the fronts then compute the grid from the start, so
// that the error is the front order's first.
static bool dp_front_pipeline(dp_worker *w)
{
	dp_run *run = w->run;
	__atomic_fetch_add(&run->pipeIn, 1, __ATOMIC_SEQ_CST);
	long long counted = 0;
	for (;;) {
		if (__atomic_load_n(&run->pipeFailed, __ATOMIC_SEQ_CST) || dp_aborted(run->ctl) || dp_retire(w))
			break;
		const long long k = __atomic_fetch_add(&run->pipeRow, 1, __ATOMIC_SEQ_CST);
		if (k >= DP_ROWS)
			break;
		bool stop = false;
		for (long long j0 = 0; j0 < DP_COLS && !stop; j0 += DP_PIPE_CHUNK) {
			const long long j1 = j0 + DP_PIPE_CHUNK < DP_COLS ? j0 + DP_PIPE_CHUNK : DP_COLS;
			if (k > 0 && run->pipeProg) {
				const long long need = j1 + DP_PIPE_LAG < DP_COLS ? j1 + DP_PIPE_LAG : DP_COLS;
				if (!dp_pipe_wait(run, k - 1, need)) {
					stop = true;
					break;
				}
			}
			int bad = 0;
			for (long long j = j0; j < j1; ++j)
				bad |= dp_front_at<false>(run, &w->err, k, j);
			if (bad) {
				__atomic_store_n(&run->pipeFailed, 1, __ATOMIC_SEQ_CST);
				stop = true;
				break;
			}
			if (run->pipeProg)
				__atomic_store_n(&run->pipeProg[k], j1, __ATOMIC_RELEASE);
			__atomic_fetch_add(&run->ctl->done, j1 - j0, __ATOMIC_RELAXED);
			counted += j1 - j0;
		}
		if (stop)
			break;
	}
	__atomic_fetch_add(&run->pipeOut, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&run->pipeFailed, __ATOMIC_SEQ_CST))
		return true;
	__atomic_fetch_sub(&run->ctl->done, counted, __ATOMIC_RELAXED);
	// No worker computes a cell of the pipeline once this passes: one that
	// enters later sees the failure before taking a row.
	long long since = 0;
	for (long long spins = 0;; ++spins) {
		if (__atomic_load_n(&run->pipeOut, __ATOMIC_SEQ_CST) == __atomic_load_n(&run->pipeIn, __ATOMIC_SEQ_CST))
			return false;
		if (dp_aborted(run->ctl))
			return true;
		dp_backoff(spins, &since);
	}
}
#endif

static void *dp_front_work(void *arg)
{
	dp_worker *w = (dp_worker *)arg;
	dp_run *run = w->run;
	if (run->threads <= 1) {
#if DP_SERIAL
		// One worker and a legal row-major order (plan.Plan.Serial):
		// neighbouring cells one after another; the fronts after a
		// failing cell.
		if (dp_front_pipeline(w))
			return 0;
#endif
		// One worker: the fronts one after another, without tickets or
		// waits (a 1-D look-back's fronts are one cell each).
		long long done = 0;
		for (long long f = 0; f < run->nf; ++f) {
			// Progress and a stop every 1,024 fronts, or every front
			// once they are large.
			if ((f & 1023) == 0 || done >= 4096) {
				__atomic_fetch_add(&run->ctl->done, done, __ATOMIC_RELAXED);
				done = 0;
				if (dp_aborted(run->ctl))
					return 0;
			}
			long long i0, n;
			dp_front_of(run->tf + f, &i0, &n);
			if (n == 0)
				continue;
			if (!dp_front_cells(w, f, i0, 0, n))
				return 0;
			done += n;
		}
		__atomic_fetch_add(&run->ctl->done, done, __ATOMIC_RELAXED);
		return 0;
	}
#if DP_SERIAL
	if (run->pipeProg && dp_front_pipeline(w))
		return 0;
#endif
	const long long per = 4LL * run->threads;
	long long f = 0, base = 0; // the front this worker is on, its first chunk's number
	long long i0 = 0, n = 0, chunk = 1, nch = 0;
	auto load = [&]() {
		dp_front_of(run->tf + f, &i0, &n);
		chunk = (n + per - 1) / per;
		if (chunk < 1)
			chunk = 1;
		nch = n > 0 ? (n + chunk - 1) / chunk : 0;
	};
	if (run->nf > 0)
		load();
	for (;;) {
		if (dp_aborted(run->ctl) || dp_retire(w))
			return 0;
		const long long c = __atomic_fetch_add(&run->ticket, 1, __ATOMIC_RELAXED);
		while (f < run->nf && c >= base + nch) {
			base += nch;
			if (++f < run->nf)
				load();
		}
		if (f >= run->nf)
			return 0;
		if (!dp_front_wait(run, base, f) || dp_front_after_failure(run, f))
			return 0;
		const long long q0 = (c - base) * chunk, q1 = q0 + chunk < n ? q0 + chunk : n;
		dp_front_cells(w, f, i0, q0, q1); // (a failed front is still finished)
		__atomic_fetch_add(&run->ctl->done, q1 - q0, __ATOMIC_RELAXED);
		__atomic_fetch_add(&run->doneChunks, 1, __ATOMIC_RELEASE);
	}
}

#else // wavefront

// The lane's row values and its column's values are read from the caches
// when the accessor is made, every slot: a read under a case's condition
// would be a masked gather, which gcc does not vectorise.
template <bool R> struct dp_strip_acc {
	const dp_inputs *in;
	const cell_t *const *hp;
	typename dp_rowcache::vals rvs;
	typename dp_colcache::vals cvs;
	int r; // lane
	dp_lv l;
	__forceinline__ dp_lv &live() { return l; }
	template <int ID> __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj)
	{
		if (!dp_ref<ID>::safe)
			dp_check<R>(l, dp_oob_idx(ri, rj), DP_E_CELL, ID, ci, cj, ri, rj);
		return hp[ID][r];
	}
	template <int S> __forceinline__ auto rv(long long) const { return rvs.template get<S>(); }
	template <int S> __forceinline__ auto cv(long long) const { return cvs.template get<S>(); }
};

// dp_refs points hp[ID] at the history of reference ID for step t: the
// cell (di, dj) back of lane r is lane r - di of step t - di - dj.
template <int ID> static __forceinline__ void dp_refs(const cell_t **hp, cell_t *hist, long long t)
{
	if constexpr (ID < DP_NREF) {
		long long s = (t - dp_ref<ID>::di - dp_ref<ID>::dj) % DP_S;
		if (s < 0)
			s += DP_S;
		hp[ID] = hist + s * (DP_PI + DP_HL) + DP_PI - dp_ref<ID>::di;
		dp_refs<ID + 1>(hp, hist, t);
	}
}

// DP_STAGE is how many steps of a strip's lanes are staged (dp_worker's
// stage) before they are written to a kept grid, row by row: a run of
// DP_STAGE contiguous columns a lane. Stored as they come, a step's 64
// lanes are 64 stores to 64 rows far apart, each a cache line read from
// memory first and a page of its own (needleman-wunsch of two random
// 8,192-base sequences with --maintain, two threads: 57 ms of strips
// against 7.5 ms keeping nothing; staged, 26 ms, the grid's 268 MB written
// once).
#define DP_STAGE 32

// dp_flush_stage writes the lanes' cells of steps t0 .. t1 (stage: a step
// a row of DP_HL lanes, from t0) to the rows dst, which hold real columns
// lo .. hi-1 (lane r's cell of step t is at sweep column t - r; a null row
// is not kept).
static void dp_flush_stage(cell_t *const *dst, const cell_t *stage, long long t0, long long t1, long long lo, long long hi)
{
	for (int r = 0; r < DP_HL; ++r) {
		cell_t *row = dst[r];
		if (!row)
			continue;
		// The sweep columns of lane r in these steps, in the grid and in
		// the kept columns.
		long long a = t0 - r > 0 ? t0 - r : 0, b = t1 - r < DP_COLS - 1 ? t1 - r : DP_COLS - 1;
		const long long sa = DP_BACK ? DP_COLS - hi : lo, sb = DP_BACK ? DP_COLS - 1 - lo : hi - 1;
		a = a > sa ? a : sa;
		b = b < sb ? b : sb;
		const cell_t *src = stage + r + (a + r - t0) * DP_HL;
		if (DP_BACK) {
			cell_t *out = row + (DP_COLS - 1 - a - lo);
			for (long long k = 0; k <= b - a; ++k)
				out[-k] = src[k * DP_HL];
		} else {
			cell_t *out = row + (a - lo);
			for (long long k = 0; k <= b - a; ++k)
				out[k] = src[k * DP_HL];
		}
	}
}

// dp_strip computes strip s (R: again, noting the first error): false when
// the run must stop.
template <bool R> static bool dp_strip(dp_worker *w, long long s)
{
	dp_run *run = w->run;
	dp_host_ctl *ctl = run->ctl;
	const long long i0 = s * DP_HL;
	// A forward sweep that keeps a window of columns stops after it
	// (dp_host_ctl::winHi: no cell reads a column to its right).
	const long long nsteps = (DP_BACK ? DP_COLS : run->winHi) + DP_HL - 1;
	const cell_t *ein = run->edges + (s % run->nedges) * DP_PI1 * DP_COLS;
	cell_t *eout = run->edges + ((s + 1) % run->nedges) * DP_PI1 * DP_COLS;
	const long long *above = s > 0 ? &run->prog[(s - 1) * DP_PROG_STRIDE] : 0;
	long long known = s > 0 ? 0 : nsteps;
	// The margin, less on a narrow grid, whose strips would otherwise
	// run one after another.
	const long long lag = nsteps >= 8 * DP_LAG ? DP_LAG : nsteps / 8;
	cell_t *hist = w->hist;
	memset(hist, 0, sizeof(cell_t) * DP_S * (DP_PI + DP_HL));
	memset(w->fl, 0, DP_HL);
	for (int r = 0; r < DP_HL; ++r) {
		const long long si = i0 + r < DP_ROWS ? i0 + r : DP_ROWS - 1;
		w->rc.fill(&run->in, r, DP_BACK ? DP_ROWS - 1 - si : si);
	}
	const cell_t *hp[DP_NREF + 1];
	// Local copies of the input and cache pointers: read through run and
	// w, a pointer that only some lanes load (a case that reads a row's
	// value under a condition: a checkpoint band's given rows) is a masked
	// load of a pointer, which keeps gcc from vectorising the lanes.
	const dp_inputs inv = run->in;
	const dp_inputs *in = &inv;
	const dp_colcache ccv = run->cc;
	const dp_colcache *cc = &ccv;
	const dp_rowcache rcv = w->rc;
	const dp_rowcache *rc = &rcv;
	unsigned char *fl = w->fl;
	dp_host_ctl *note = &w->err;
	unsigned char live[DP_HL];
	long long reported = 0; // steps counted in ctl->done
	double frow[DP_HL] = {}; // DP_FSUM: each lane's row, its cells in step order
	int fany = 0;
	// Where the lanes' cells are kept: lane r's row of the grid (staged,
	// dp_flush_stage) and its kept row (keepSlot); null where the lane's
	// row is not kept.
	cell_t *keepG[DP_HL], *keepK[DP_HL];
	bool anyG = false;
	long long t0 = 0; // the first step staged
	// The lanes whose rows are kept rows (keepSlot: a checkpoint row or
	// two in a strip, stored lane by lane).
	int klane[DP_HL], nk = 0;
	// The first kept column a step's lanes may hold (run->kcols, forward
	// strips: lane r holds column t - r at step t).
	long long kc = 0;
	const long long nkc = run->nkc;
	for (int r = 0; r < DP_HL; ++r) {
		keepG[r] = keepK[r] = 0;
		if (i0 + r >= DP_ROWS)
			continue;
		const long long ri = DP_BACK ? DP_ROWS - 1 - (i0 + r) : i0 + r;
		if (run->grid)
			keepG[r] = run->grid + ri * (run->winHi - run->winLo), anyG = true;
		if (run->keepSlot && run->keepSlot[ri] >= 0)
			keepK[r] = run->keep + run->keepSlot[ri] * DP_COLS, klane[nk++] = r;
	}
	for (long long t = 0; t < nsteps; ++t) {
		if ((t & 255) == 0) {
			if (dp_aborted(ctl))
				return false;
			if (!R && t > 0) {
				__atomic_fetch_add(&ctl->done, 256LL * DP_HL, __ATOMIC_RELAXED);
				reported += 256;
			}
		}
		if (known < nsteps && known <= t + DP_HL) {
			long long need = t + DP_HL + 1 + lag < nsteps ? t + DP_HL + 1 + lag : nsteps;
			if (!dp_wait_ge(above, need, ctl, &run->slept))
				return false;
			known = __atomic_load_n(above, __ATOMIC_ACQUIRE);
		}
		// The lanes above the strip: the bottom rows of the strip above,
		// lane L at column t + DP_PI - L (at the first step also for the
		// steps before it, which the first columns read back to).
		for (long long tp = t == 0 ? -(DP_PI + DP_PJ) : t; tp <= t; ++tp) {
			cell_t *slot = hist + ((tp % DP_S + DP_S) % DP_S) * (DP_PI + DP_HL);
			for (int L = 0; L < DP_PI; ++L) {
				const long long col = tp + DP_PI - L;
				slot[L] = (s > 0 && col >= 0 && col < DP_COLS) ? ein[L * DP_COLS + col] : (cell_t)0;
			}
		}
		cell_t *cur = hist + (t % DP_S) * (DP_PI + DP_HL);
		dp_refs<0>(hp, hist, t);
		const int ti = (int)t, ii = (int)i0;
#pragma GCC ivdep
		for (int r = 0; r < DP_HL; ++r) {
			const int si = ii + r, sc = ti - r;
			const int lv = (si < (int)DP_ROWS) & (sc >= 0) & (sc < (int)DP_COLS);
			const int sic = si < (int)DP_ROWS ? si : (int)DP_ROWS - 1;
			const int scc = sc < 0 ? 0 : (sc >= (int)DP_COLS ? (int)DP_COLS - 1 : sc);
			const int ri = DP_BACK ? (int)DP_ROWS - 1 - sic : sic, rj = DP_BACK ? (int)DP_COLS - 1 - scc : scc;
			dp_strip_acc<R> a{in, hp, rc->at(r), cc->at((long long)DP_HL + sc), r, {lv, 0, note}};
			const cell_t v = dp_rec_m<R>((DP_IDX_T)ri, (DP_IDX_T)rj, a);
			cur[DP_PI + r] = v;
			if constexpr (!R)
				fl[r] |= (unsigned char)a.l.bad;
		}
		if constexpr (!R) {
			for (int L = 0; L < DP_PI; ++L) {
				const long long col = t - (DP_HL - DP_PI + L);
				if (col >= 0 && col < DP_COLS)
					eout[L * DP_COLS + col] = cur[DP_PI + DP_HL - DP_PI + L];
			}
			if (anyG && !DP_BACK && t < run->winLo) {
				t0 = t + 1; // every lane left of the kept columns
			} else if (anyG) {
				cell_t *st = w->stage + (t - t0) * DP_HL;
				const cell_t *v = cur + DP_PI;
				for (int r = 0; r < DP_HL; ++r)
					st[r] = v[r];
				if (t - t0 == DP_STAGE - 1 || t == nsteps - 1) {
					dp_flush_stage(keepG, w->stage, t0, t, run->winLo, run->winHi);
					t0 = t + 1;
				}
			}
			for (int k = 0; k < nk; ++k) {
				const int r = klane[k];
				const long long sc = t - r;
				if (sc >= 0 && sc < DP_COLS)
					keepK[r][DP_BACK ? DP_COLS - 1 - sc : sc] = cur[DP_PI + r];
			}
			if (!DP_BACK && nkc > 0) {
				while (kc < nkc && run->kcols[kc] < t - (DP_HL - 1))
					++kc;
				for (long long k = kc; k < nkc && run->kcols[k] <= t; ++k) {
					const long long r = t - run->kcols[k];
					if (i0 + r < DP_ROWS)
						run->kcol[k * DP_ROWS + i0 + r] = cur[DP_PI + r];
				}
			}
#if DP_ANS_KIND == 1
			if (s == run->ansS && t == run->ansT)
				run->ans[0] = cur[DP_PI + run->ansR];
#elif DP_ANS_KIND == 3
			for (int k = 0; k < DP_NCAPS; ++k)
				if (run->capS[k] == s && run->capT[k] == t)
					run->ans[k] = cur[DP_PI + run->capR[k]];
#elif DP_ANS_KIND == 2
			for (int r = 0; r < DP_HL; ++r)
				live[r] = (i0 + r < DP_ROWS) & (t - r >= 0) & (t - r < DP_COLS);
#if DP_FSUM
			// Each lane's row, its cells in sweep order.
			for (int r = 0; r < DP_HL; ++r) {
				const long long i = DP_BACK ? DP_ROWS - 1 - i0 - r : i0 + r, j = DP_BACK ? DP_COLS - 1 - t + r : t - r;
				if (live[r] && DP_IN_REGION(i, j)) {
					frow[r] += (double)cur[DP_PI + r];
					fany = 1;
				}
			}
#else
			if (DP_BACK)
				dp_region(w, cur + DP_PI, DP_HL, DP_ROWS - 1 - i0, -1, DP_COLS - 1 - t, 1, live);
			else
				dp_region(w, cur + DP_PI, DP_HL, i0, 1, t, -1, live);
#endif
#endif
			if ((t & 31) == 31)
				__atomic_store_n(&run->prog[s * DP_PROG_STRIDE], t + 1, __ATOMIC_RELEASE);
		}
	}
	(void)live;
	(void)reported;
	(void)frow;
	(void)fany;
	if constexpr (!R) {
		unsigned char bad = 0;
		for (int r = 0; r < DP_HL; ++r)
			bad |= fl[r];
		if (bad && !dp_strip<true>(w, s))
			return false;
		if (DP_FSUM) {
			for (int r = 0; r < DP_HL && i0 + r < DP_ROWS; ++r)
				run->fslot[DP_BACK ? DP_ROWS - 1 - i0 - r : i0 + r] = frow[r];
			run->fany[s] = (unsigned char)fany;
		}
		__atomic_store_n(&run->prog[s * DP_PROG_STRIDE], nsteps, __ATOMIC_RELEASE);
		__atomic_fetch_add(&ctl->done, (nsteps - reported) * DP_HL, __ATOMIC_RELAXED);
	} else {
		if (w->err.code > 0) {
			dp_publish(ctl, &w->err);
			return false;
		}
	}
	return true;
}

static void *dp_work(void *arg)
{
	dp_worker *w = (dp_worker *)arg;
	dp_run *run = w->run;
	while (!dp_aborted(run->ctl) && !dp_retire(w)) {
		const long long s = __atomic_fetch_add(&run->ticket, 1, __ATOMIC_RELAXED);
		if (s >= run->nstrips)
			break;
		if (!dp_strip<false>(w, s))
			break;
	}
	return 0;
}

#endif

extern "C" int dp_host_abi(void) { return 8; }

// dp_run_init sets up what every sweep's run starts from: the control
// block, the inputs, where the answer and the kept rows go.
static void dp_run_init(dp_run *run, dp_host_ctl *ctl, const void *const *inputs, cell_t *ans, const int *keepSlot, cell_t *keep)
{
	memset(run, 0, sizeof *run);
	run->ctl = ctl;
	run->ans = ans;
	run->keepSlot = keepSlot;
	run->keep = keep;
	run->winLo = 0;
	run->winHi = DP_COLS;
	if (ctl->winHi > ctl->winLo && ctl->winLo >= 0 && ctl->winHi <= DP_COLS) {
		run->winLo = ctl->winLo;
		run->winHi = ctl->winHi;
	}
	for (int k = 0; k < DP_NIN; ++k)
		run->in.p[k] = inputs[k];
}

// dp_merge_parts folds the workers' partial region answers into ctl.
static void dp_merge_parts(dp_host_ctl *ctl, const dp_worker *ws, int threads)
{
	dp_part p;
	dp_fast::dp_part_init(p);
	for (int k = 0; k < threads; ++k)
		dp_fast::dp_part_merge(p, ws[k].part);
	ctl->pidx = p.idx;
	ctl->piv = p.iv;
	ctl->pfv = p.fv;
	ctl->pany = p.any;
	ctl->pfl = p.fl;
}

#if DP_HOST_FRONT
// dp_host_fronts solves a generic schedule: the fronts tf .. tl of the
// plan's hyperplane (plan.Hyperplane.Range), the whole grid in grid (the
// caller's, when it keeps the grid) or in memory of its own. Return codes
// as dp_host_run's.
extern "C" int dp_host_fronts(dp_host_ctl *ctl, const void *const *inputs, cell_t *ans, cell_t *grid, const int *keepSlot, cell_t *keep,
	long long tf, long long tl)
{
	const long long nf = tl - tf + 1;
	dp_run run;
	dp_run_init(&run, ctl, inputs, ans, keepSlot, keep);
	run.nf = nf;
	run.tf = tf;
	int threads = ctl->threads > 0 ? ctl->threads : 1;
	run.threads = threads;
	const size_t cells = (size_t)(DP_ROWS * DP_COLS);
	run.G = grid ? grid : (cell_t *)calloc(cells, sizeof(cell_t));
	run.GT = DP_MIRROR ? (cell_t *)calloc(cells, sizeof(cell_t)) : 0;
	dp_worker *ws = (dp_worker *)dp_line_calloc((size_t)threads * sizeof(dp_worker));
	run.pipeProg = 0;
#if DP_SERIAL && DP_PIPE_LAG >= 0
	// Rows enough that every worker has some (else the fronts share each
	// front's cells among all of them).
	const bool pipe = threads > 1 && DP_ROWS >= 2LL * threads;
	if (pipe)
		run.pipeProg = (long long *)calloc((size_t)DP_ROWS, sizeof(long long));
	const bool pipeOK = !pipe || run.pipeProg;
#else
	const bool pipeOK = true;
#endif
	int rc = 0;
	if (!run.G || (DP_MIRROR && !run.GT) || !ws || !pipeOK) {
		rc = 3;
	} else {
		run.active = threads;
		run.shedT0 = dp_now_ns();
		for (int k = 0; k < threads; ++k) {
			ws[k].run = &run;
			ws[k].id = k;
			dp_fast::dp_part_init(ws[k].part);
		}
		for (int k = 1; k < threads; ++k)
			ws[k].started = pthread_create(&ws[k].th, 0, dp_front_work, &ws[k]) == 0;
		dp_front_work(&ws[0]);
		for (int k = 1; k < threads; ++k)
			if (ws[k].started)
				pthread_join(ws[k].th, 0);
		// A thread that could not start leaves its chunks to the others.
		if (run.failed) {
			// The first failing cell in row-major order of the front that
			// failed (every worker stopped after it).
			dp_host_ctl first;
			memset(&first, 0, sizeof first);
			for (int k = 0; k < threads; ++k)
				if (ws[k].err.code > 0)
					dp_host_note(&first, ws[k].err.code, ws[k].err.site, ws[k].err.i, ws[k].err.j, ws[k].err.a, ws[k].err.b);
			dp_publish(ctl, &first);
		}
		if (__atomic_load_n(&ctl->code, __ATOMIC_ACQUIRE) > 0) {
			rc = 1;
		} else if (dp_aborted(ctl)) {
			rc = 2;
		} else {
#if DP_ANS_KIND == 1
			ans[0] = run.G[(long long)DP_ANS_I * DP_COLS + DP_ANS_J];
#elif DP_ANS_KIND == 3
			for (int k = 0; k < DP_NCAPS; ++k)
				ans[k] = run.G[dp_cap_i[k] * DP_COLS + dp_cap_j[k]];
#elif DP_FSUM
			for (long long i = 0; i < DP_ROWS; ++i)
				dp_fsum_add(run.fsum, run.fanyAll, run.G + i * DP_COLS, DP_COLS, i, 0, 0, 1, 0);
#elif DP_ANS_KIND == 2
			for (long long i = 0; i < DP_ROWS; ++i)
				dp_region(&ws[0], run.G + i * DP_COLS, DP_COLS, i, 0, 0, 1, 0);
#endif
			if (keepSlot && keep)
				for (long long i = 0; i < DP_ROWS; ++i)
					if (keepSlot[i] >= 0)
						memcpy(keep + keepSlot[i] * DP_COLS, run.G + i * DP_COLS, (size_t)DP_COLS * sizeof(cell_t));

			dp_merge_parts(ctl, ws, threads);
			if (DP_FSUM)
				dp_fsum_done(ctl, &run);
		}
	}
	free(ws);
	free(run.GT);
	free(run.pipeProg);
	if (run.G != grid)
		free(run.G);
	return rc;
}

extern "C" int dp_host_run(dp_host_ctl *, const void *const *, cell_t *, long long, long long, cell_t *, const int *, cell_t *, const long long *,
	long long, cell_t *)
{
	return 4; // a fronts program: dp_host_fronts
}
#else
// dp_host_run solves the problem: 0 done, 1 an error (in ctl), 2 stopped
// (ctl->abort), 3 out of memory.
extern "C" int dp_host_run(dp_host_ctl *ctl, const void *const *inputs, cell_t *ans, long long before, long long after, cell_t *grid,
	const int *keepSlot, cell_t *keep, const long long *kcols, long long nkc, cell_t *kcol)
{
	dp_run run;
	dp_run_init(&run, ctl, inputs, ans, keepSlot, keep);
	if (kcols && kcol && nkc > 0) {
		run.kcols = kcols;
		run.nkc = nkc;
		run.kcol = kcol;
	}
	run.grid = grid;
	run.before = before;
	run.after = after;
	int threads = ctl->threads > 0 ? ctl->threads : 1;
	int rc = 0;
	dp_worker *ws = (dp_worker *)dp_line_calloc((size_t)threads * sizeof(dp_worker));
	// The column cache: every column and DP_HL of padding on each side.
	const long long ncc = DP_COLS + 2 * DP_HL;
	run.ccOff = DP_HL;
	if (dp_colcache::slots > 0)
		run.ccMem = (char *)malloc((size_t)(dp_colcache::slots * 8 * ncc));
#if DP_HOST_ROWS
	run.ringW = before + DP_WIDTH + after;
	// One worker of a DP_INPLACE program keeps one line: its slack,
	// DP_IPB lanes a row for ipK rows, at most the width of the second
	// line it saves, and at least 8 rows between moves. Of two workers
	// asked for, one keeping one line two rows a pass is the faster (a
	// knapsack of 10,000 x 49,878: 31 ms against two in the ring's 34.6,
	// and it never waits for a core another process took); more are
	// not measured against it and run in the ring.
	run.ipK = (DP_WIDTH - 64) / DP_IPB < 128 ? (DP_WIDTH - 64) / DP_IPB : 128;
	const bool ipSolo = threads == 1 || (threads == 2 && DP_IPREACH >= 0 && ctl->force == 0);
	if (DP_INPLACE != 0 && ipSolo && run.ipK >= 8) {
		const long long align = 64 / sizeof(cell_t) > 0 ? 64 / sizeof(cell_t) : 1;
		run.ipMem = (cell_t *)calloc((size_t)(before + align + DP_IPB * run.ipK + DP_WIDTH + after), sizeof(cell_t));
		if (run.ipMem) {
			// The rows' first lanes on 64-byte boundaries.
			const unsigned long long at = (unsigned long long)(run.ipMem + before);
			run.ipBase = (cell_t *)((at + 63) & ~63ULL);
			ctl->inplace = DP_INPLACE;
			threads = 1;
		}
	}
	if (!run.ipBase)
		run.ring = (cell_t *)calloc((size_t)((DP_REACH + 1) * run.ringW), sizeof(cell_t));
	run.nc = 1;
	if (threads > 1 && DP_NLINES >= 64 * 16 && DP_WIDTH >= 1024LL * threads) {
		// The probe (dp_work): a chunk a worker.
		run.probe = DP_NLINES / 64 < 256 ? DP_NLINES / 64 : 256;
		run.nc = threads;
	} else if (threads > 1) {
		run.nc = DP_WIDTH / 4096;
		if (run.nc > 8LL * threads)
			run.nc = 8LL * threads;
		if (run.nc < 1)
			run.nc = 1;
	}
	run.chunk = (DP_WIDTH + run.nc - 1) / run.nc;
	if (DP_FSUM && run.nc > 1)
		run.chunk = (run.chunk + DP_FSUM_B - 1) / DP_FSUM_B * DP_FSUM_B; // whole blocks
	run.nc = (DP_WIDTH + run.chunk - 1) / run.chunk;
	run.nb = (DP_WIDTH + DP_FSUM_B - 1) / DP_FSUM_B;
	run.switchAt = DP_NLINES;
	if (DP_FSUM)
		run.fslot = (double *)calloc((size_t)(2 * run.nb), sizeof(double));
	const long long flBytes = 1;
	bool ok = ws && (run.ring || run.ipBase) && (dp_colcache::slots == 0 || run.ccMem) && (!DP_FSUM || run.fslot);
#elif DP_HOST_SCAN
	// (A worker for every DP_SCAN_BLOCK units of a row at most: more
	// would only wait.)
	if (threads > 1 && (long long)threads > DP_ROWS)
		threads = (int)DP_ROWS;
	if (threads > 1 && (long long)threads * DP_SCAN_BLOCK > DP_SCAN_UNITS)
		threads = (int)(DP_SCAN_UNITS / DP_SCAN_BLOCK > 1 ? DP_SCAN_UNITS / DP_SCAN_BLOCK : 1);
	run.threads = threads;
	run.ringW = DP_PJ + DP_COLS;
	run.ring = (cell_t *)calloc((size_t)((threads + DP_PI + 1) * run.ringW), sizeof(cell_t));
	if (threads > 1)
		run.rprog = (long long *)calloc((size_t)((threads + DP_PI + 1) * 8), sizeof(long long));
	if (DP_FSUM)
		run.fslot = (double *)calloc((size_t)DP_ROWS, sizeof(double));
	const long long flBytes = 1;
	bool ok = ws && run.ring && (threads == 1 || run.rprog) && (dp_colcache::slots == 0 || run.ccMem) && (!DP_FSUM || run.fslot);
#else
	run.nstrips = (DP_ROWS + DP_HL - 1) / DP_HL;
	run.nedges = threads + 1;
	run.edges = (cell_t *)calloc((size_t)(run.nedges * DP_PI1 * DP_COLS), sizeof(cell_t));
	run.prog = (long long *)dp_line_calloc((size_t)run.nstrips * DP_PROG_STRIDE * sizeof(long long));
	if (DP_FSUM) {
		run.fslot = (double *)calloc((size_t)DP_ROWS, sizeof(double));
		run.fany = (unsigned char *)calloc((size_t)run.nstrips, 1);
	}
	const long long flBytes = DP_HL;
	bool ok = ws && run.edges && run.prog && (dp_colcache::slots == 0 || run.ccMem) && (!DP_FSUM || (run.fslot && run.fany));
	{
		// Where the answer cells are computed: strip, step, lane.
		auto at = [](long long i, long long j, long long &s, long long &t, long long &r) {
			const long long si = DP_BACK ? DP_ROWS - 1 - i : i, sj = DP_BACK ? DP_COLS - 1 - j : j;
			s = si / DP_HL;
			r = si % DP_HL;
			t = sj + r;
		};
		run.ansS = -1;
#if DP_ANS_KIND == 1
		at(DP_ANS_I, DP_ANS_J, run.ansS, run.ansT, run.ansR);
#endif
		for (int k = 0; k < DP_NCAPS; ++k)
			at(dp_cap_i[k], dp_cap_j[k], run.capS[k], run.capT[k], run.capR[k]);
	}
#endif
	run.active = threads;
	run.shedT0 = dp_now_ns();
	for (int k = 0; ok && k < threads; ++k) {
		dp_worker *w = &ws[k];
		w->run = &run;
		w->id = k;
		dp_fast::dp_part_init(w->part);
		w->fl = (unsigned char *)dp_line_calloc((size_t)flBytes);
#if DP_HOST_ROWS && DP_CHAIN
		w->chain = (long long *)dp_line_calloc((size_t)(2 * DP_WIDTH) * sizeof(long long));
		ok = ok && w->chain;
#endif
#if !DP_HOST_ROWS && !DP_HOST_SCAN
		w->hist = (cell_t *)dp_line_calloc((size_t)(DP_S * (DP_PI + DP_HL)) * sizeof(cell_t));
		if (grid) {
			w->stage = (cell_t *)dp_line_calloc((size_t)(DP_STAGE * DP_HL) * sizeof(cell_t));
			ok = ok && w->stage;
		}
		if (dp_rowcache::slots > 0) {
			w->rcMem = (char *)dp_line_calloc((size_t)(dp_rowcache::slots * 8 * DP_HL));
			ok = ok && w->rcMem;
		}
		w->rc.bind(w->rcMem, DP_HL);
		ok = ok && w->hist;
#endif
		ok = ok && w->fl;
	}
	if (!ok) {
		rc = 3;
	} else {
		run.cc.bind(run.ccMem, ncc);
		for (long long k = 0; k < ncc; ++k) {
			const long long c = k - DP_HL;
#if DP_HOST_ROWS
			run.cc.fill(&run.in, k, c);
#else
			run.cc.fill(&run.in, k, DP_BACK ? DP_COLS - 1 - c : c);
#endif
		}
		run.threads = threads;
		run.started = 1;
		for (int k = 1; k < threads; ++k) {
			ws[k].started = pthread_create(&ws[k].th, 0, dp_work, &ws[k]) == 0;
			run.started += ws[k].started;
		}
		dp_work(&ws[0]);
		for (int k = 1; k < threads; ++k) {
			if (ws[k].started) {
				pthread_join(ws[k].th, 0);
			} else {
				// A thread that could not start: its share is done by
				// the others (tickets), which never wait for it.
			}
		}
		dp_merge_parts(ctl, ws, threads);
#if DP_HOST_ROWS
		ctl->ran = run.solo ? 1 : (int)run.started;
#else
		ctl->ran = (int)run.started;
#endif
		if (__atomic_load_n(&ctl->code, __ATOMIC_ACQUIRE) > 0)
			rc = 1;
		else if (dp_aborted(ctl))
			rc = 2;
#if DP_FSUM && DP_HOST_ROWS
		else {
			dp_fsum_row(&run, DP_NLINES - 1);
			dp_fsum_done(ctl, &run);
		}
#elif DP_FSUM
		else {
			// The rows' sums (strips, scan), top to bottom.
			for (long long k = 0; k < DP_ROWS; ++k)
				run.fsum += run.fslot[k];
			for (long long k = 0; k < run.nstrips; ++k)
				run.fanyAll |= run.fany[k];
			dp_fsum_done(ctl, &run);
		}
#endif
	}
	for (int k = 0; ws && k < threads; ++k) {
		free(ws[k].fl);
		free(ws[k].hist);
		free(ws[k].stage);
		free(ws[k].rcMem);
		free(ws[k].chain);
	}
	free(ws);
	free(run.ccMem);
	free(run.fslot);
	free(run.fany);
#if DP_HOST_ROWS || DP_HOST_SCAN
	free(run.ring);
	free(run.ipMem);
	free(run.rprog);
#else
	free(run.edges);
	free(run.prog);
#endif
	return rc;
}
#endif // DP_HOST_FRONT
