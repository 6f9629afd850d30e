// ---- dpgpu device support (templates/preamble.cu) ----
// Everything here follows the arithmetic rules of package eval, so that the
// GPU and the CPU agree bit for bit on integers and on + - * / sqrt.

typedef DP_CELL_T cell_t;

#define DP_FULL 0xffffffffu
#define DP_IPOS 2147483647
#define DP_INEG (-2147483647)
#define DP_LPOS 9223372036854775807LL
#define DP_LNEG (-9223372036854775807LL)

// Error codes written to dp_err.code; the host maps site to a `.dp` node.
#define DP_E_CELL 1
#define DP_E_LOAD 2
#define DP_E_OVERFLOW 3
#define DP_E_DIV 4
#define DP_E_NAN 5

struct dp_error_t {
	int code;
	int site;
	long long i, j; // the cell being computed
	long long a, b; // what it read: cell coordinates, input indices, operands
};

// The first error wins; later ones are dropped.
__device__ dp_error_t dp_err;
// Set by the host (on another stream) to stop a persistent kernel.
__device__ int dp_abort;
// The answer cell, written by the thread that computes it.
__device__ cell_t dp_ans;
// Answer cells captured by the strip kernel (answer expressions).
__device__ cell_t dp_capv[4];

__device__ __noinline__ void dp_fail(int code, int site, long long i, long long j, long long a, long long b)
{
	if (atomicCAS(&dp_err.code, 0, -1) == 0) {
		dp_err.site = site;
		dp_err.i = i;
		dp_err.j = j;
		dp_err.a = a;
		dp_err.b = b;
		__threadfence();
		atomicExch(&dp_err.code, code);
	}
}

// ---- arithmetic ----

template <class T> __device__ __forceinline__ T dp_min(T x, T y) { return (y < x) ? y : x; }
template <class T> __device__ __forceinline__ T dp_max(T x, T y) { return (y > x) ? y : x; }

__device__ __forceinline__ int dp_abs(int x) { return x < 0 ? -x : x; }
__device__ __forceinline__ long long dp_absl(long long x) { return x < 0 ? (long long)(0ULL - (unsigned long long)x) : x; }

__device__ __forceinline__ int dp_absi(bool live, int site, long long ci, long long cj, int x)
{
	if (x == (-2147483647 - 1) && live)
		dp_fail(DP_E_OVERFLOW, site, ci, cj, x, 0);
	return (int)(x < 0 ? 0u - (unsigned)x : (unsigned)x);
}

__device__ __forceinline__ int dp_negi(bool live, int site, long long ci, long long cj, int x)
{
	if (x == (-2147483647 - 1) && live)
		dp_fail(DP_E_OVERFLOW, site, ci, cj, x, 0);
	return (int)(0u - (unsigned)x);
}

// int arithmetic whose result may not fit: checked, reported as an overflow
// (the CPU computes in 64 bits and fails when the cell is stored).
__device__ __forceinline__ int dp_addi(bool live, int site, long long ci, long long cj, int x, int y)
{
	int r = (int)((unsigned)x + (unsigned)y);
	if (((x ^ r) & (y ^ r)) < 0 && live)
		dp_fail(DP_E_OVERFLOW, site, ci, cj, x, y);
	return r;
}

__device__ __forceinline__ int dp_subi(bool live, int site, long long ci, long long cj, int x, int y)
{
	int r = (int)((unsigned)x - (unsigned)y);
	if (((x ^ y) & (x ^ r)) < 0 && live)
		dp_fail(DP_E_OVERFLOW, site, ci, cj, x, y);
	return r;
}

__device__ __forceinline__ int dp_muli(bool live, int site, long long ci, long long cj, int x, int y)
{
	long long p = (long long)x * (long long)y;
	if (p != (long long)(int)p && live)
		dp_fail(DP_E_OVERFLOW, site, ci, cj, x, y);
	return (int)p;
}

// Saturating + and - on the inf sentinels: inf + x is inf (the left operand
// wins when both are infinite).
__device__ __forceinline__ int dp_saddi(bool live, int site, long long ci, long long cj, int x, int y)
{
	if (x == DP_IPOS || x == DP_INEG)
		return x;
	if (y == DP_IPOS || y == DP_INEG)
		return y;
	return dp_addi(live, site, ci, cj, x, y);
}

__device__ __forceinline__ int dp_ssubi(bool live, int site, long long ci, long long cj, int x, int y)
{
	if (x == DP_IPOS || x == DP_INEG)
		return x;
	if (y == DP_IPOS)
		return DP_INEG;
	if (y == DP_INEG)
		return DP_IPOS;
	return dp_subi(live, site, ci, cj, x, y);
}

// long arithmetic wraps (as Go's int64 does), without C's undefined behaviour.
__device__ __forceinline__ long long dp_addl(long long x, long long y) { return (long long)((unsigned long long)x + (unsigned long long)y); }
__device__ __forceinline__ long long dp_subl(long long x, long long y) { return (long long)((unsigned long long)x - (unsigned long long)y); }
__device__ __forceinline__ long long dp_mull(long long x, long long y) { return (long long)((unsigned long long)x * (unsigned long long)y); }
__device__ __forceinline__ long long dp_negl(long long x) { return (long long)(0ULL - (unsigned long long)x); }

__device__ __forceinline__ long long dp_saddl(long long x, long long y)
{
	if (x == DP_LPOS || x == DP_LNEG)
		return x;
	if (y == DP_LPOS || y == DP_LNEG)
		return y;
	return dp_addl(x, y);
}

__device__ __forceinline__ long long dp_ssubl(long long x, long long y)
{
	if (x == DP_LPOS || x == DP_LNEG)
		return x;
	if (y == DP_LPOS)
		return DP_LNEG;
	if (y == DP_LNEG)
		return DP_LPOS;
	return dp_subl(x, y);
}

__device__ __forceinline__ int dp_divi(bool live, int site, long long ci, long long cj, int x, int y)
{
	if (y == 0) {
		if (live)
			dp_fail(DP_E_DIV, site, ci, cj, x, y);
		return 0;
	}
	if (y == -1)
		return dp_negi(live, site, ci, cj, x);
	return x / y;
}

__device__ __forceinline__ int dp_remi(bool live, int site, long long ci, long long cj, int x, int y)
{
	if (y == 0) {
		if (live)
			dp_fail(DP_E_DIV, site, ci, cj, x, y);
		return 0;
	}
	if (y == -1)
		return 0;
	return x % y;
}

__device__ __forceinline__ long long dp_divl(bool live, int site, long long ci, long long cj, long long x, long long y)
{
	if (y == 0) {
		if (live)
			dp_fail(DP_E_DIV, site, ci, cj, x, y);
		return 0;
	}
	if (y == -1)
		return dp_negl(x);
	return x / y;
}

__device__ __forceinline__ long long dp_reml(bool live, int site, long long ci, long long cj, long long x, long long y)
{
	if (y == 0) {
		if (live)
			dp_fail(DP_E_DIV, site, ci, cj, x, y);
		return 0;
	}
	if (y == -1)
		return 0;
	return x % y;
}

// ---- conversions: the inf sentinels map onto each other and onto IEEE inf ----

template <class F> __device__ __forceinline__ F dp_i2f(int x)
{
	if (x == DP_IPOS)
		return (F)__longlong_as_double(0x7ff0000000000000LL);
	if (x == DP_INEG)
		return (F)-__longlong_as_double(0x7ff0000000000000LL);
	return (F)(double)x;
}

template <class F> __device__ __forceinline__ F dp_i2f(long long x)
{
	if (x == DP_LPOS)
		return (F)__longlong_as_double(0x7ff0000000000000LL);
	if (x == DP_LNEG)
		return (F)-__longlong_as_double(0x7ff0000000000000LL);
	return (F)(double)x;
}

__device__ __forceinline__ long long dp_i2l(int x)
{
	if (x == DP_IPOS)
		return DP_LPOS;
	if (x == DP_INEG)
		return DP_LNEG;
	return x;
}

__device__ __forceinline__ int dp_l2i(bool live, int site, long long ci, long long cj, long long x)
{
	if (x == DP_LPOS)
		return DP_IPOS;
	if (x == DP_LNEG)
		return DP_INEG;
	if ((x < -2147483647LL - 1 || x > 2147483647LL) && live)
		dp_fail(DP_E_OVERFLOW, site, ci, cj, x, 0);
	return (int)x;
}

__device__ __forceinline__ long long dp_f2l(bool live, int site, long long ci, long long cj, double x)
{
	if (x != x) {
		if (live)
			dp_fail(DP_E_NAN, site, ci, cj, 0, 0);
		return 0;
	}
	if (x >= 9.2233720368547758e18)
		return DP_LPOS;
	if (x <= -9.2233720368547758e18)
		return DP_LNEG;
	return (long long)x;
}

__device__ __forceinline__ int dp_f2i(bool live, int site, long long ci, long long cj, int ovf, double x)
{
	if (x != x) {
		if (live)
			dp_fail(DP_E_NAN, site, ci, cj, 0, 0);
		return 0;
	}
	if (x > 1.0e300)
		return DP_IPOS;
	if (x < -1.0e300)
		return DP_INEG;
	if (x >= 2147483648.0 || x <= -2147483649.0) {
		if (live)
			dp_fail(DP_E_OVERFLOW, ovf, ci, cj, (long long)dp_f2l(false, 0, 0, 0, x), 0);
		return 0;
	}
	return (int)x;
}

// ---- bounds ----

__device__ __forceinline__ bool dp_oob(long long ri, long long rj)
{
	return (unsigned long long)ri >= (unsigned long long)DP_ROWS || (unsigned long long)rj >= (unsigned long long)DP_COLS;
}

// dp_chk1 and dp_chk2 return the flat index of an input element, or report
// the read and return 0 (a harmless element) when it is outside the input.
__device__ __forceinline__ long long dp_chk1(bool live, int site, long long ci, long long cj, long long k, long long len)
{
	if ((unsigned long long)k >= (unsigned long long)len) {
		if (live)
			dp_fail(DP_E_LOAD, site, ci, cj, k, 0);
		return 0;
	}
	return k;
}

__device__ __forceinline__ long long dp_chk2(bool live, int site, long long ci, long long cj, long long r, long long c, long long rows, long long cols)
{
	if ((unsigned long long)r >= (unsigned long long)rows || (unsigned long long)c >= (unsigned long long)cols) {
		if (live)
			dp_fail(DP_E_LOAD, site, ci, cj, r, c);
		return 0;
	}
	return r * cols + c;
}

#ifndef DP_EMU
// ---- texture fetches (mem: 1), as PTX so that no header is needed ----

__device__ __forceinline__ int dp_tex_s32(unsigned long long t, int x)
{
	int r, g, b, a;
	asm("tex.1d.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r), "=r"(g), "=r"(b), "=r"(a) : "l"(t), "r"(x));
	return r;
}

__device__ __forceinline__ long long dp_tex_s64(unsigned long long t, int x)
{
	int r, g, b, a;
	asm("tex.1d.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r), "=r"(g), "=r"(b), "=r"(a) : "l"(t), "r"(x));
	return (long long)(((unsigned long long)(unsigned)g << 32) | (unsigned long long)(unsigned)r);
}

__device__ __forceinline__ float dp_tex_f32(unsigned long long t, int x)
{
	float r, g, b, a;
	asm("tex.1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : "=f"(r), "=f"(g), "=f"(b), "=f"(a) : "l"(t), "r"(x));
	return r;
}

__device__ __forceinline__ double dp_tex_f64(unsigned long long t, int x)
{
	return __longlong_as_double(dp_tex_s64(t, x));
}

#endif

// ---- streaming reduction of a rectangle of cells (answer: min/max/sum) ----

// dp_part_t is one partial result: a thread folds its cells into one, a
// block or warp folds its threads' into one slot, the host folds the slots.
// Layout shared with runtime/gpu: idx, iv, fv, any.
struct dp_part_t {
	long long idx; // row-major index of the best cell (min, max)
	long long iv;  // integer value or sum
	double fv;     // floating value or sum
	int any;       // 1 when the slot saw a cell
	int pad;
};

__device__ __forceinline__ void dp_part_init(dp_part_t &p)
{
	p.idx = 0;
	p.iv = 0;
	p.fv = 0;
	p.any = 0;
	p.pad = 0;
}

#if DP_CELL_FLOAT
#define DP_PART_V(p) ((p).fv)
#else
#define DP_PART_V(p) ((p).iv)
#endif

// dp_part_add folds cell value v at row-major index idx into p. Ties keep
// the smaller index (the first cell in row-major order).
__device__ __forceinline__ void dp_part_add(dp_part_t &p, cell_t v, long long idx)
{
#if DP_REG_OP == 2
#if DP_CELL_FLOAT
	p.fv += (double)v;
#else
	long long x = (long long)v;
#if DP_CELL_INT
	if (v == DP_IPOS)
		x = DP_LPOS;
	else if (v == DP_INEG)
		x = DP_LNEG;
#endif
	p.iv = dp_saddl(p.iv, x);
#endif
#else
#if DP_CELL_FLOAT
	double x = (double)v, b = p.fv;
#else
	long long x = (long long)v, b = p.iv;
#endif
#if DP_REG_OP == 0
	bool better = x < b || (x == b && idx < p.idx);
#else
	bool better = x > b || (x == b && idx < p.idx);
#endif
	if (p.any == 0 || better) {
#if DP_CELL_FLOAT
		p.fv = x;
#else
		p.iv = x;
#endif
		p.idx = idx;
	}
#endif
	p.any = 1;
}

// dp_part_merge folds q into p (same rules as dp_part_add).
__device__ __forceinline__ void dp_part_merge(dp_part_t &p, const dp_part_t &q)
{
	if (q.any == 0)
		return;
	if (p.any == 0) {
		p = q;
		return;
	}
#if DP_REG_OP == 2
	p.fv += q.fv;
	p.iv = dp_saddl(p.iv, q.iv);
#else
	bool better;
#if DP_CELL_FLOAT
#if DP_REG_OP == 0
	better = q.fv < p.fv || (q.fv == p.fv && q.idx < p.idx);
#else
	better = q.fv > p.fv || (q.fv == p.fv && q.idx < p.idx);
#endif
#else
#if DP_REG_OP == 0
	better = q.iv < p.iv || (q.iv == p.iv && q.idx < p.idx);
#else
	better = q.iv > p.iv || (q.iv == p.iv && q.idx < p.idx);
#endif
#endif
	if (better)
		p = q;
#endif
}

__device__ __forceinline__ dp_part_t dp_part_shfl_down(const dp_part_t &p, int d)
{
	dp_part_t q;
	q.idx = __shfl_down_sync(DP_FULL, p.idx, d);
	q.iv = __shfl_down_sync(DP_FULL, p.iv, d);
	q.fv = __shfl_down_sync(DP_FULL, p.fv, d);
	q.any = __shfl_down_sync(DP_FULL, p.any, d);
	q.pad = 0;
	return q;
}

// dp_part_warp folds the 32 lanes' partials into lane 0's.
__device__ __forceinline__ void dp_part_warp(dp_part_t &p)
{
	for (int d = 16; d > 0; d >>= 1) {
		dp_part_t q = dp_part_shfl_down(p, d);
		dp_part_merge(p, q);
	}
}

// dp_part_block folds a block's partials into *slot (which keeps what the
// same block index folded in earlier launches).
__device__ __forceinline__ void dp_part_block(dp_part_t &p, dp_part_t *slot)
{
	__shared__ dp_part_t sh[32];
	dp_part_warp(p);
	const int w = threadIdx.x >> 5, l = threadIdx.x & 31;
	if (l == 0)
		sh[w] = p;
	__syncthreads();
	if (w == 0) {
		dp_part_t q;
		if (l < (int)((blockDim.x + 31) >> 5))
			q = sh[l];
		else
			dp_part_init(q);
		dp_part_warp(q);
		if (l == 0) {
			dp_part_t cur = *slot;
			dp_part_merge(cur, q);
			*slot = cur;
		}
	}
}
