
// ---- pairs of 16-bit values in a 32-bit register (templates/simd16.cu) ----
//
// A packed batch program (codegen/pack16.go, batch16.cu) holds instance 2p's
// value in the low half and 2p+1's in the high half. codegen proved that no
// value it computes leaves -32768..32767, so the additions never carry from
// one half into the other. On Hopper (sm_90) the DPX instructions do an
// addition and a max (min) of both halves in one VIADDMNMX.S16x2; elsewhere,
// and in the CPU emulation of the tests, each half is computed on its own.
typedef unsigned int dp_h2;

__device__ __forceinline__ int dp_h2_lo(const dp_h2 x) { return (short)(x & 0xffffu); }
__device__ __forceinline__ int dp_h2_hi(const dp_h2 x) { return (short)(x >> 16); }
// dp_h2_pk packs lo and hi (each in -32768..32767).
__device__ __forceinline__ dp_h2 dp_h2_pk(const int lo, const int hi) { return ((unsigned)lo & 0xffffu) | ((unsigned)hi << 16); }
// dp_h2_bc is x in both halves.
__device__ __forceinline__ dp_h2 dp_h2_bc(const int x) { return ((unsigned)x & 0xffffu) * 0x10001u; }
// dp_h2_sel takes x's halves where m's are 0xffff, y's where they are 0.
__device__ __forceinline__ dp_h2 dp_h2_sel(const dp_h2 m, const dp_h2 x, const dp_h2 y) { return (m & x) | (~m & y); }
// dp_h2_lolo is a's low half and b's as a pair, dp_h2_hihi their high
// halves (a profile's 16-bit values of two instances' columns).
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ dp_h2 dp_h2_lolo(const dp_h2 a, const dp_h2 b) { return __byte_perm(a, b, 0x5410); }
__device__ __forceinline__ dp_h2 dp_h2_hihi(const dp_h2 a, const dp_h2 b) { return __byte_perm(a, b, 0x7632); }
#else
__device__ __forceinline__ dp_h2 dp_h2_lolo(const dp_h2 a, const dp_h2 b) { return (a & 0xffffu) | (b << 16); }
__device__ __forceinline__ dp_h2 dp_h2_hihi(const dp_h2 a, const dp_h2 b) { return (a >> 16) | (b & 0xffff0000u); }
#endif

#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 900
#define DP_H2_NEG 0x80008000u // -32768 in both halves: max(x, it) is x
__device__ __forceinline__ dp_h2 dp_h2_add(const dp_h2 x, const dp_h2 y) { return __viaddmax_s16x2(x, y, DP_H2_NEG); }
__device__ __forceinline__ dp_h2 dp_h2_addmax(const dp_h2 x, const dp_h2 y, const dp_h2 z) { return __viaddmax_s16x2(x, y, z); }
__device__ __forceinline__ dp_h2 dp_h2_addmin(const dp_h2 x, const dp_h2 y, const dp_h2 z) { return __viaddmin_s16x2(x, y, z); }
#else
__device__ __forceinline__ dp_h2 dp_h2_add(const dp_h2 x, const dp_h2 y) { return __vadd2(x, y); }
__device__ __forceinline__ dp_h2 dp_h2_addmax(const dp_h2 x, const dp_h2 y, const dp_h2 z) { return __vmaxs2(__vadd2(x, y), z); }
__device__ __forceinline__ dp_h2 dp_h2_addmin(const dp_h2 x, const dp_h2 y, const dp_h2 z) { return __vmins2(__vadd2(x, y), z); }
#endif
__device__ __forceinline__ dp_h2 dp_h2_max(const dp_h2 x, const dp_h2 y) { return __vmaxs2(x, y); }
__device__ __forceinline__ dp_h2 dp_h2_min(const dp_h2 x, const dp_h2 y) { return __vmins2(x, y); }
__device__ __forceinline__ dp_h2 dp_h2_sub(const dp_h2 x, const dp_h2 y) { return __vsub2(x, y); }
__device__ __forceinline__ dp_h2 dp_h2_neg(const dp_h2 x) { return __vneg2(x); }
// dp_h2_ne01 is 1 in each half where x and y differ, else 0.
__device__ __forceinline__ dp_h2 dp_h2_ne01(const dp_h2 x, const dp_h2 y) { return __vminu2(x ^ y, 0x00010001u); }
__device__ __forceinline__ dp_h2 dp_h2_lt(const dp_h2 x, const dp_h2 y) { return __vcmplts2(x, y); }
__device__ __forceinline__ dp_h2 dp_h2_le(const dp_h2 x, const dp_h2 y) { return __vcmples2(x, y); }
__device__ __forceinline__ dp_h2 dp_h2_gt(const dp_h2 x, const dp_h2 y) { return __vcmpgts2(x, y); }
__device__ __forceinline__ dp_h2 dp_h2_ge(const dp_h2 x, const dp_h2 y) { return __vcmpges2(x, y); }
#else
// Each half on its own (the CPU emulation of the tests).
__device__ __forceinline__ dp_h2 dp_h2_add(const dp_h2 x, const dp_h2 y) { return dp_h2_pk(dp_h2_lo(x) + dp_h2_lo(y), dp_h2_hi(x) + dp_h2_hi(y)); }
__device__ __forceinline__ dp_h2 dp_h2_sub(const dp_h2 x, const dp_h2 y) { return dp_h2_pk(dp_h2_lo(x) - dp_h2_lo(y), dp_h2_hi(x) - dp_h2_hi(y)); }
__device__ __forceinline__ dp_h2 dp_h2_neg(const dp_h2 x) { return dp_h2_pk(-dp_h2_lo(x), -dp_h2_hi(x)); }
__device__ __forceinline__ dp_h2 dp_h2_max(const dp_h2 x, const dp_h2 y)
{
	return dp_h2_pk(dp_h2_lo(x) > dp_h2_lo(y) ? dp_h2_lo(x) : dp_h2_lo(y), dp_h2_hi(x) > dp_h2_hi(y) ? dp_h2_hi(x) : dp_h2_hi(y));
}
__device__ __forceinline__ dp_h2 dp_h2_min(const dp_h2 x, const dp_h2 y)
{
	return dp_h2_pk(dp_h2_lo(x) < dp_h2_lo(y) ? dp_h2_lo(x) : dp_h2_lo(y), dp_h2_hi(x) < dp_h2_hi(y) ? dp_h2_hi(x) : dp_h2_hi(y));
}
__device__ __forceinline__ dp_h2 dp_h2_addmax(const dp_h2 x, const dp_h2 y, const dp_h2 z) { return dp_h2_max(dp_h2_add(x, y), z); }
__device__ __forceinline__ dp_h2 dp_h2_addmin(const dp_h2 x, const dp_h2 y, const dp_h2 z) { return dp_h2_min(dp_h2_add(x, y), z); }
__device__ __forceinline__ dp_h2 dp_h2_ne01(const dp_h2 x, const dp_h2 y)
{
	const dp_h2 d = x ^ y;
	return ((d & 0xffffu) ? 1u : 0u) | ((d & 0xffff0000u) ? 0x10000u : 0u);
}
#define DP_H2_CMP(name, op) \
	__device__ __forceinline__ dp_h2 dp_h2_##name(const dp_h2 x, const dp_h2 y) \
	{ \
		return (dp_h2_lo(x) op dp_h2_lo(y) ? 0xffffu : 0u) | (dp_h2_hi(x) op dp_h2_hi(y) ? 0xffff0000u : 0u); \
	}
DP_H2_CMP(lt, <)
DP_H2_CMP(le, <=)
DP_H2_CMP(gt, >)
DP_H2_CMP(ge, >=)
#undef DP_H2_CMP
#endif

// Equality: masks from dp_h2_ne01 (0 or 1 a half) times 0xffff.
__device__ __forceinline__ dp_h2 dp_h2_eq(const dp_h2 x, const dp_h2 y) { return (dp_h2_ne01(x, y) ^ 0x00010001u) * 0xffffu; }
__device__ __forceinline__ dp_h2 dp_h2_ne(const dp_h2 x, const dp_h2 y) { return dp_h2_ne01(x, y) * 0xffffu; }
// dp_h2_seleq_nc is x == y ? a : b of each half for constants a and b, a2
// the pair of a's and k b - a's 16 bits, where a's and k's 16 bits add
// without a carry out of the low half: one multiply-add.
__device__ __forceinline__ dp_h2 dp_h2_seleq_nc(const dp_h2 x, const dp_h2 y, const dp_h2 a2, const unsigned k) { return dp_h2_ne01(x, y) * k + a2; }
// dp_h2_seleq is x == y ? a : b of each half, for a and b the same in
// both (b - a in -32768..32767): a plus b - a where the halves differ.
__device__ __forceinline__ dp_h2 dp_h2_seleq(const dp_h2 x, const dp_h2 y, const int a, const int b)
{
	return dp_h2_add(dp_h2_bc(a), dp_h2_ne01(x, y) * ((unsigned)(b - a) & 0xffffu));
}
