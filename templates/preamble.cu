// ---- dpgpu device support (templates/preamble.cu) ----
// Everything here follows the arithmetic rules of docs/language.md §6.1,
// which package eval follows too, so that the GPU and the CPU agree bit for
// bit on integers and on + - * / sqrt, and report the same errors.

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
#define DP_E_INFOP 6 // inf - inf, inf * 0, inf / inf, inf % x

struct dp_error_t {
	int code;
	int site;
	long long i, j; // the cell being computed
	long long a, b; // what it read: cell coordinates, input indices, operands
};

#if !defined(DP_HOST) && !defined(DP_AGAIN)
// (DP_AGAIN: this file compiled a second time, for its helpers, inside a
// namespace where DP_LIVE_T and DP_FAIL_IF are other: codegen's dp_fast.)

// dp_lv is the liveness a line kernel's recurrence in namespace dp_fast is
// given: a check sets bad where lv holds, a register, no branch and no call
// (templates/line.cu).
struct dp_lv {
	int lv;
	int bad;
	__device__ __forceinline__ operator bool() const { return lv != 0; }
};

// The first error wins; later ones are dropped.
__device__ dp_error_t dp_err;
// Set by the host (on another stream) to stop a persistent kernel.
__device__ int dp_abort;
// The answer cell, written by the thread that computes it.
__device__ cell_t dp_ans;
// Answer cells captured by the strip kernel (answer expressions).
__device__ cell_t dp_capv[4];

#ifdef DP_BATCH
// dp_binst is the instance the calling warp computes in a batch launch
// (templates/batch.cu): one warp an instance, DP_BW warps a block.
__device__ __forceinline__ long long dp_binst() { return (long long)blockIdx.x * DP_BW + (threadIdx.x >> 5); }
// The launch's pointers (the kernel's bptr, copied to shared memory by
// every block): input k's elements at dp_bptr[k] (codegen BatchPointers),
// and at dp_bptr[DP_NBPTR-1] one int per instance, the code of its first
// error (the host runs an instance that failed again on its own, for the
// message). Launch arguments, not module symbols: launches of one program
// run at once.
__shared__ unsigned long long dp_bptr[DP_NBPTR];
#endif

__device__ __noinline__ void dp_fail(int code, int site, long long i, long long j, long long a, long long b)
{
#ifdef DP_BATCH
	atomicCAS((int *)dp_bptr[DP_NBPTR - 1] + dp_binst(), 0, code);
#endif
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

// The checking helpers below take whether the cell is live (padding cells
// never report) as DP_LIVE_T and report through DP_FAIL_IF(cond, live, code,
// site, i, j, a, b). On the GPU these are a bool and a branch to dp_fail;
// the host sweeps (host.cu) define them as a flag the vectorised loop
// accumulates per cell, and a branch only when they recompute a chunk that
// failed to find its first error.
#define DP_LIVE_T bool
#define DP_FAIL_IF(cond, live, code, site, ci, cj, a, b)            \
	do {                                                        \
		if ((cond) && (live))                               \
			dp_fail((code), (site), (ci), (cj), (a), (b)); \
	} while (0)
#endif

// ---- arithmetic (docs/language.md §6.1) ----
//
// int and long have a symmetric finite range one short of the inf sentinels,
// ±(2^31-2) and ±(2^63-2), so that no finite value is ever read back as inf
// and negation and abs never overflow. Every operation whose exact result
// may leave it is checked (codegen leaves the check out where value ranges
// prove it cannot): the result is computed exactly (int in 64 bits, long
// with the carry or the high word), and a result outside the range reports
// DP_E_OVERFLOW with the operands. The helpers never trap and never invoke
// C's undefined behaviour, whatever they are given: after a failure the run
// goes on to the end of the launch with harmless values.

#define DP_IFIN 2147483646LL
#define DP_LFIN 9223372036854775806LL

template <class T> __device__ __forceinline__ T dp_min(T x, T y) { return (y < x) ? y : x; }
template <class T> __device__ __forceinline__ T dp_max(T x, T y) { return (y > x) ? y : x; }
#ifdef DP_HOST
// dp_pair holds a min's or max's two operands, evaluated left to right (a
// braced list is; a call's arguments are not): the host programs' min and
// max, so that where both operands fail the left one is reported, as the
// evaluator does.
template <class T> struct dp_pair {
	T x, y;
};
template <class T> __device__ __forceinline__ T dp_minp(dp_pair<T> p) { return dp_min(p.x, p.y); }
template <class T> __device__ __forceinline__ T dp_maxp(dp_pair<T> p) { return dp_max(p.x, p.y); }
#endif

__device__ __forceinline__ bool dp_iinf(int x) { return x == DP_IPOS || x == DP_INEG; }
__device__ __forceinline__ bool dp_linf(long long x) { return x == DP_LPOS || x == DP_LNEG; }

// dp_xadd and dp_xsub are x + y and x - y for an x that may be inf and a
// finite y, where codegen proved that no finite result overflows
// (emitter.satOperands): inf stays inf, nothing can fail, no check. Computed
// unsigned (x's sentinel plus y, never selected, is no signed overflow). S
// says which sentinels x may be (analysis.InfSigns: 1 -inf, 2 inf, 3
// either): an affine-gap alignment's tables hold -inf, never inf, and its
// x - y tests that one sentinel only.
template <class T> struct dp_uns;
template <> struct dp_uns<int> { typedef unsigned int type; };
template <> struct dp_uns<long long> { typedef unsigned long long type; };
template <class T> struct dp_infs;
template <> struct dp_infs<int> {
	static constexpr int pos = DP_IPOS, neg = DP_INEG;
};
template <> struct dp_infs<long long> {
	static constexpr long long pos = DP_LPOS, neg = DP_LNEG;
};
template <class T, int S> __device__ __forceinline__ bool dp_xisinf(T x)
{
	return ((S & 1) && x == dp_infs<T>::neg) || ((S & 2) && x == dp_infs<T>::pos);
}
template <class T, int S = 3> __device__ __forceinline__ T dp_xadd(T x, T y)
{
	typedef typename dp_uns<T>::type U;
	return dp_xisinf<T, S>(x) ? x : (T)((U)x + (U)y);
}
template <class T, int S = 3> __device__ __forceinline__ T dp_xsub(T x, T y)
{
	typedef typename dp_uns<T>::type U;
	return dp_xisinf<T, S>(x) ? x : (T)((U)x - (U)y);
}

// For a constant offset k away from x's one infinity (x + k, k < 0, of an
// x that may be -inf; k > 0 of one that may be inf), dp_xdown and dp_xup
// clamp instead of testing: max(x, -inf - k) + k is -inf for x = -inf and
// x + k for a finite x, whose x + k is finite (proved), so x > -inf - k:
// a max and an add, no comparison with the sentinel and select.
template <class T> __device__ __forceinline__ T dp_xdown(T x, T k)
{
	const T f = dp_infs<T>::neg - k;
	return (x > f ? x : f) + k;
}
template <class T> __device__ __forceinline__ T dp_xup(T x, T k)
{
	const T c = dp_infs<T>::pos - k;
	return (x < c ? x : c) + k;
}

// Negation and abs map inf and -inf onto each other (2^31-1 and -(2^31-1)),
// and no finite value leaves the range: no check. The unsigned arithmetic
// only keeps a value that already failed elsewhere free of undefined behaviour.
__device__ __forceinline__ int dp_negi(int x) { return (int)(0u - (unsigned)x); }
__device__ __forceinline__ int dp_abs(int x) { return x < 0 ? dp_negi(x) : x; }
__device__ __forceinline__ long long dp_negl(long long x) { return (long long)(0ULL - (unsigned long long)x); }
__device__ __forceinline__ long long dp_absl(long long x) { return x < 0 ? dp_negl(x) : x; }

// dp_fini keeps an exact int result r (of x op y) or reports it.
__device__ __forceinline__ int dp_fini(DP_LIVE_T live, int site, long long ci, long long cj, long long r, long long x, long long y)
{
	DP_FAIL_IF((unsigned long long)(r + DP_IFIN) > (unsigned long long)(2 * DP_IFIN), live, DP_E_OVERFLOW, site, ci, cj, x, y);
	return (int)r;
}

// dp_lfin_ok: r, a long that did not wrap, is finite (not ±(2^63-1), not LONG_MIN).
__device__ __forceinline__ bool dp_lfin_ok(long long r)
{
	return (unsigned long long)r + (unsigned long long)DP_LFIN <= 2ULL * (unsigned long long)DP_LFIN;
}

#ifdef DP_HOST
// On the host, int + and - stay in 32 bits (twice the lanes of a vector):
// the wrapped result r and the operands' signs tell an overflow of int,
// then r must lie in the finite range. Same results, same reports.
__device__ __forceinline__ int dp_ifin(DP_LIVE_T live, int site, long long ci, long long cj, int r, bool wrapped, int x, int y)
{
	const bool bad = wrapped | ((unsigned)r + (unsigned)DP_IFIN > (unsigned)(2 * DP_IFIN));
	DP_FAIL_IF(bad, live, DP_E_OVERFLOW, site, ci, cj, x, y);
	return r;
}

__device__ __forceinline__ int dp_addi(DP_LIVE_T live, int site, long long ci, long long cj, int x, int y)
{
	const int r = (int)((unsigned)x + (unsigned)y);
	return dp_ifin(live, site, ci, cj, r, ((x ^ r) & (y ^ r)) < 0, x, y);
}

__device__ __forceinline__ int dp_subi(DP_LIVE_T live, int site, long long ci, long long cj, int x, int y)
{
	const int r = (int)((unsigned)x - (unsigned)y);
	return dp_ifin(live, site, ci, cj, r, ((x ^ y) & (x ^ r)) < 0, x, y);
}
#else
__device__ __forceinline__ int dp_addi(DP_LIVE_T live, int site, long long ci, long long cj, int x, int y)
{
	return dp_fini(live, site, ci, cj, (long long)x + y, x, y);
}

__device__ __forceinline__ int dp_subi(DP_LIVE_T live, int site, long long ci, long long cj, int x, int y)
{
	return dp_fini(live, site, ci, cj, (long long)x - y, x, y);
}
#endif

__device__ __forceinline__ int dp_muli(DP_LIVE_T live, int site, long long ci, long long cj, int x, int y)
{
	return dp_fini(live, site, ci, cj, (long long)x * y, x, y);
}

__device__ __forceinline__ long long dp_addl(DP_LIVE_T live, int site, long long ci, long long cj, long long x, long long y)
{
	const long long r = (long long)((unsigned long long)x + (unsigned long long)y);
	DP_FAIL_IF(((((x ^ r) & (y ^ r)) < 0) | !dp_lfin_ok(r)), live, DP_E_OVERFLOW, site, ci, cj, x, y);
	return r;
}

__device__ __forceinline__ long long dp_subl(DP_LIVE_T live, int site, long long ci, long long cj, long long x, long long y)
{
	const long long r = (long long)((unsigned long long)x - (unsigned long long)y);
	DP_FAIL_IF(((((x ^ y) & (x ^ r)) < 0) | !dp_lfin_ok(r)), live, DP_E_OVERFLOW, site, ci, cj, x, y);
	return r;
}

__device__ __forceinline__ long long dp_mull(DP_LIVE_T live, int site, long long ci, long long cj, long long x, long long y)
{
	// The product fits in 64 bits when the high word is the sign of the low.
	const long long r = (long long)((unsigned long long)x * (unsigned long long)y);
	const long long hi = __mul64hi(x, y);
	DP_FAIL_IF(((hi != (r >> 63)) | !dp_lfin_ok(r)), live, DP_E_OVERFLOW, site, ci, cj, x, y);
	return r;
}

// Integer / and % truncate toward zero; a zero divisor is an error. A finite
// quotient is never larger than the dividend; x / -1 goes through the
// negation only so that a value that already failed cannot trap. One
// definition for int and long (T, named S in the helpers' names); dp_divz
// reports a zero divisor y of x / y or x % y.
template <class T> __device__ __forceinline__ bool dp_divz(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)
{
	DP_FAIL_IF(y == 0, live, DP_E_DIV, site, ci, cj, x, y);
	return y == 0;
}

#define DP_DIV_OPS(S, T)                                                                                               \
	__device__ __forceinline__ T dp_div##S(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)               \
	{                                                                                                              \
		if (dp_divz(live, site, ci, cj, x, y))                                                                 \
			return 0;                                                                                      \
		return y == -1 ? dp_neg##S(x) : x / y;                                                                 \
	}                                                                                                              \
	__device__ __forceinline__ T dp_rem##S(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)               \
	{                                                                                                              \
		if (dp_divz(live, site, ci, cj, x, y))                                                                 \
			return 0;                                                                                      \
		return y == -1 ? 0 : x % y;                                                                            \
	}

DP_DIV_OPS(i, int)
DP_DIV_OPS(l, long long)
#undef DP_DIV_OPS

// ---- the inf rules (ir.Binary.Saturate: an operand may be inf) ----
//
// Where IEEE gives a number, so do these: inf + x = inf, x - inf = -inf,
// inf * x = ±inf by the sign of x, inf / x = ±inf, x / inf = 0, x % inf = x.
// Where IEEE gives NaN they report DP_E_INFOP: inf - inf (inf + -inf),
// inf * 0, inf / inf, inf % x. A failed operation returns an operand or 0,
// values codegen's range analysis already allows for. One definition for
// int and long: T is the type, P and N its sentinels.
#define DP_SAT_OPS(S, T, P, N, ISINF)                                                                                   \
	__device__ __forceinline__ T dp_sadd##S(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)              \
	{                                                                                                              \
		const bool xi = ISINF(x), yi = ISINF(y);                                                               \
		if (xi || yi) {                                                                                        \
			DP_FAIL_IF(xi && yi && x != y, live, DP_E_INFOP, site, ci, cj, x, y);                                               \
			return xi ? x : y;                                                                             \
		}                                                                                                      \
		return dp_add##S(live, site, ci, cj, x, y);                                                            \
	}                                                                                                              \
	__device__ __forceinline__ T dp_ssub##S(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)              \
	{                                                                                                              \
		if (ISINF(x)) {                                                                                        \
			DP_FAIL_IF(x == y, live, DP_E_INFOP, site, ci, cj, x, y);                                               \
			return x;                                                                                      \
		}                                                                                                      \
		if (ISINF(y))                                                                                          \
			return y == P ? N : P;                                                                         \
		return dp_sub##S(live, site, ci, cj, x, y);                                                            \
	}                                                                                                              \
	__device__ __forceinline__ T dp_smul##S(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)              \
	{                                                                                                              \
		if (ISINF(x) || ISINF(y)) {                                                                            \
			if (x == 0 || y == 0) {                                                                        \
				DP_FAIL_IF(true, live, DP_E_INFOP, site, ci, cj, x, y);                                       \
				return 0;                                                                              \
			}                                                                                              \
			return (x < 0) == (y < 0) ? P : N;                                                             \
		}                                                                                                      \
		return dp_mul##S(live, site, ci, cj, x, y);                                                            \
	}                                                                                                              \
	__device__ __forceinline__ T dp_sdiv##S(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)              \
	{                                                                                                              \
		const bool xi = ISINF(x), yi = ISINF(y);                                                               \
		if (y == 0 || !(xi || yi))                                                                             \
			return dp_div##S(live, site, ci, cj, x, y);                                                    \
		if (xi && yi) {                                                                                        \
			DP_FAIL_IF(true, live, DP_E_INFOP, site, ci, cj, x, y);                                               \
			return 0;                                                                                      \
		}                                                                                                      \
		if (xi)                                                                                                \
			return (x < 0) == (y < 0) ? P : N;                                                             \
		return 0;                                                                                              \
	}                                                                                                              \
	__device__ __forceinline__ T dp_srem##S(DP_LIVE_T live, int site, long long ci, long long cj, T x, T y)              \
	{                                                                                                              \
		if (y == 0 || !(ISINF(x) || ISINF(y)))                                                                 \
			return dp_rem##S(live, site, ci, cj, x, y);                                                    \
		if (ISINF(x)) {                                                                                        \
			DP_FAIL_IF(true, live, DP_E_INFOP, site, ci, cj, x, y);                                               \
			return 0;                                                                                      \
		}                                                                                                      \
		return x;                                                                                              \
	}

DP_SAT_OPS(i, int, DP_IPOS, DP_INEG, dp_iinf)
DP_SAT_OPS(l, long long, DP_LPOS, DP_LNEG, dp_linf)
#undef DP_SAT_OPS

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

__device__ __forceinline__ int dp_l2i(DP_LIVE_T live, int site, long long ci, long long cj, long long x)
{
	if (x == DP_LPOS)
		return DP_IPOS;
	if (x == DP_LNEG)
		return DP_INEG;
	DP_FAIL_IF(((x < -DP_IFIN) | (x > DP_IFIN)), live, DP_E_OVERFLOW, site, ci, cj, x, 0);
	return (int)x;
}

// Types narrower than int (short) are held in memory in their own size and
// computed as int. dp_widen converts x, of a type whose inf sentinels are
// FP and FN, to the wider type T whose sentinels are TP and TN; dp_narrow
// converts the other way, to a narrower T whose finite range is ±TFIN: a
// finite value outside it is an overflow, as in dp_l2i.
template <class T, long long FP, long long FN, long long TP, long long TN> __device__ __forceinline__ T dp_widen(long long x)
{
	if (x == FP)
		return (T)TP;
	if (x == FN)
		return (T)TN;
	return (T)x;
}

template <class T, long long FP, long long FN, long long TP, long long TN, long long TFIN>
__device__ __forceinline__ T dp_narrow(DP_LIVE_T live, int site, long long ci, long long cj, long long x)
{
	if (x == FP)
		return (T)TP;
	if (x == FN)
		return (T)TN;
	DP_FAIL_IF(((x < -TFIN) | (x > TFIN)), live, DP_E_OVERFLOW, site, ci, cj, x, 0);
	return (T)x;
}

// dp_f2n converts a double to the integer type T whose inf sentinels are TP
// and TN = -TP, truncating toward zero. NaN is an error (DP_E_NAN); IEEE
// infinities become the sentinels; a finite value whose truncation lies
// outside the finite range is an overflow, reported with the value's bits
// (a double) in a. The bound (double)TP is excluded: for int 2^31-1, for
// long 2^63 (below it the largest double is 2^63-1024, and every smaller one
// truncates into the finite range). It serves every integer type: dp_f2i,
// dp_f2l, and dp_f2n<T, TP, TN> itself for types narrower than int.
template <class T, long long TP, long long TN> __device__ __forceinline__ T dp_f2n(DP_LIVE_T live, int site, long long ci, long long cj, double x)
{
	if (x != x) {
		DP_FAIL_IF(true, live, DP_E_NAN, site, ci, cj, 0, 0);
		return 0;
	}
	const double inf = __longlong_as_double(0x7ff0000000000000LL);
	if (x == inf)
		return (T)TP;
	if (x == -inf)
		return (T)TN;
	if (x >= (double)TP || x <= (double)TN) {
		DP_FAIL_IF(true, live, DP_E_OVERFLOW, site, ci, cj, __double_as_longlong(x), 0);
		return 0;
	}
	return (T)x;
}

static_assert((double)DP_LPOS == 9223372036854775808.0 && (double)DP_LNEG == -9223372036854775808.0, "long's bounds are +-2^63 as doubles");

__device__ __forceinline__ long long dp_f2l(DP_LIVE_T live, int site, long long ci, long long cj, double x)
{
	return dp_f2n<long long, DP_LPOS, DP_LNEG>(live, site, ci, cj, x);
}

__device__ __forceinline__ int dp_f2i(DP_LIVE_T live, int site, long long ci, long long cj, double x)
{
	return dp_f2n<int, DP_IPOS, DP_INEG>(live, site, ci, cj, x);
}

// dp_cellnan reports a floating cell value that is NaN (site: the case that
// produced it), unless the problem says `nan: allow` (then codegen does not
// call it).
template <class T> __device__ __forceinline__ T dp_cellnan(DP_LIVE_T live, int site, long long ci, long long cj, T v)
{
	DP_FAIL_IF(v != v, live, DP_E_NAN, site, ci, cj, 0, 0);
	return v;
}

// ---- bounds ----

__device__ __forceinline__ bool dp_oob(long long ri, long long rj)
{
	return (unsigned long long)ri >= (unsigned long long)DP_ROWS || (unsigned long long)rj >= (unsigned long long)DP_COLS;
}

// dp_chk1 and dp_chk2 return the flat index of an input element, or report
// the read and return 0 (a harmless element) when it is outside the input.
__device__ __forceinline__ long long dp_chk1(DP_LIVE_T live, int site, long long ci, long long cj, long long k, long long len)
{
	const bool out = (unsigned long long)k >= (unsigned long long)len;
	DP_FAIL_IF(out, live, DP_E_LOAD, site, ci, cj, k, 0);
	return out ? 0 : k;
}

__device__ __forceinline__ long long dp_chk2(DP_LIVE_T live, int site, long long ci, long long cj, long long r, long long c, long long rows, long long cols)
{
	const bool out = (unsigned long long)r >= (unsigned long long)rows || (unsigned long long)c >= (unsigned long long)cols;
	DP_FAIL_IF(out, live, DP_E_LOAD, site, ci, cj, r, c);
	return out ? 0 : r * cols + c;
}

#if !defined(DP_EMU) && !defined(DP_HOST)
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
// Layout shared with runtime/gpu: idx, iv, fv, any, fl.
//
// An integer sum is folded in whatever order the threads meet, so it cannot
// follow + step by step: iv holds the sum of the finite cells and fl says
// what else was seen (DP_SUM_POS: inf, DP_SUM_NEG: -inf, DP_SUM_OVF: the
// finite sum left long's finite range). The host turns that into the sum or
// the error (inf + -inf, overflow) once all cells are in.
#define DP_SUM_POS 1
#define DP_SUM_NEG 2
#define DP_SUM_OVF 4
struct dp_part_t {
	long long idx; // row-major index of the best cell (min, max)
	long long iv;  // integer value or sum
	double fv;     // floating value or sum
	int any;       // 1 when the slot saw a cell
	int fl;        // integer sums: DP_SUM_* flags
};

__device__ __forceinline__ void dp_part_init(dp_part_t &p)
{
	p.idx = 0;
	p.iv = 0;
	p.fv = 0;
	p.any = 0;
	p.fl = 0;
}

// dp_part_fin adds the finite x to the integer sum of p.
__device__ __forceinline__ void dp_part_fin(dp_part_t &p, long long x)
{
	const long long r = (long long)((unsigned long long)p.iv + (unsigned long long)x);
	if (((p.iv ^ r) & (x ^ r)) < 0 || !dp_lfin_ok(r))
		p.fl |= DP_SUM_OVF;
	p.iv = r;
}

// dp_part_sum adds cell value x (a long: the sentinels are inf) to p.
__device__ __forceinline__ void dp_part_sum(dp_part_t &p, long long x)
{
	if (x == DP_LPOS)
		p.fl |= DP_SUM_POS;
	else if (x == DP_LNEG)
		p.fl |= DP_SUM_NEG;
	else
		dp_part_fin(p, x);
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
#if DP_CELL_WIDEN
	// A cell type narrower than long: its sentinels are inf.
	if (v == DP_CELL_POS)
		x = DP_LPOS;
	else if (v == DP_CELL_NEG)
		x = DP_LNEG;
#endif
	dp_part_sum(p, x);
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
	p.fl |= q.fl;
	dp_part_fin(p, q.iv);
#else
#if DP_REG_OP == 0
	const bool better = DP_PART_V(q) < DP_PART_V(p) || (DP_PART_V(q) == DP_PART_V(p) && q.idx < p.idx);
#else
	const bool better = DP_PART_V(q) > DP_PART_V(p) || (DP_PART_V(q) == DP_PART_V(p) && q.idx < p.idx);
#endif
	if (better)
		p = q;
#endif
}

#ifndef DP_HOST
// dp_part_cell does what the answer needs with the value v just computed for
// cell (i, j) by the line and tile kernels: the answer cell goes to dp_ans
// (DP_ANS_KIND 1), a cell of the region is folded into acc (2).
__device__ __forceinline__ void dp_part_cell(dp_part_t &acc, DP_IDX_T i, DP_IDX_T j, cell_t v)
{
#if DP_ANS_KIND == 1
	if (i == DP_ANS_I && j == DP_ANS_J)
		dp_ans = v;
#elif DP_ANS_KIND == 2
	if (DP_IN_REGION(i, j))
		dp_part_add(acc, v, (long long)i * DP_COLS + j);
#endif
}

__device__ __forceinline__ dp_part_t dp_part_shfl_down(const dp_part_t &p, int d)
{
	dp_part_t q;
	q.idx = __shfl_down_sync(DP_FULL, p.idx, d);
	q.iv = __shfl_down_sync(DP_FULL, p.iv, d);
	q.fv = __shfl_down_sync(DP_FULL, p.fv, d);
	q.any = __shfl_down_sync(DP_FULL, p.any, d);
	q.fl = __shfl_down_sync(DP_FULL, p.fl, d);
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
#endif
