// Interval DP, one launch per diagonal d = j - i (cells (i, i+d) for
// i = 0 .. n-1-d), in two shapes: one warp per cell, the split loop over k
// shared by the lanes and finished by a warp reduction, and one thread per
// cell.
//
// The n x n table T is row-major and mirrored: cell (i, j), i <= j, is
// stored at T[i*n + j] and at T[j*n + i]. Then both operands of a split,
// (i, k) for k = i..j-1 and (k+1, j), are runs of one row (rows i and j), so
// the lanes of a warp read consecutive addresses. The diagonal (i, i) is
// zero in both problems: the host clears T before the first launch.
//
// Nussinov (maximum number of nested base pairs, no minimum loop length;
// pairs A-U, G-C, G-U in either order; s holds codes A=0 C=1 G=2 U=3):
//   N(i, j) = max( N(i+1, j-1) + 1 if s[i], s[j] pair (N(i+1, i) = 0),
//                  max over k in i..j-1 of N(i, k) + N(k+1, j) )
// (the splits k = i and k = j-1 cover leaving i or j unpaired).
//
// Matrix chain (dims p[0..n], matrix t is p[t] x p[t+1]; 64-bit costs):
//   M(i, j) = min over k in i..j-1 of M(i, k) + M(k+1, j) + p[i]*p[k+1]*p[j+1]
// The host rejects dims for which (n-1) * max(p)^3 does not fit in 64 bits,
// which bounds every partial sum, so nothing here can overflow.

// Pairs as a 16-bit table: bit 4*x + y is set when codes x and y pair.
#define NUS_PAIRS ((1u << (4 * 0 + 3)) | (1u << (4 * 3 + 0)) | (1u << (4 * 2 + 1)) | (1u << (4 * 1 + 2)) | \
		   (1u << (4 * 2 + 3)) | (1u << (4 * 3 + 2)))

static __device__ __forceinline__ int nus_close(const unsigned char *s, const int *T, int n, int i, int j, int best)
{
	if ((NUS_PAIRS >> (4 * s[i] + s[j])) & 1u) {
		const int inner = i + 1 <= j - 1 ? T[(long long)(i + 1) * n + (j - 1)] : 0;
		best = peer_imax(best, inner + 1);
	}
	return best;
}

extern "C" __global__ void nussinov_warp(const unsigned char *s, int *T, int n, int d)
{
	const int lane = threadIdx.x & 31;
	const long long cell = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	if (cell >= n - d)
		return; // the whole warp
	const int i = (int)cell, j = i + d;
	const int *ri = T + (long long)i * n; // ri[k] = N(i, k)
	const int *rj = T + (long long)j * n; // rj[k] = N(k, j)
	int best = 0;
	for (int k = i + lane; k < j; k += 32)
		best = peer_imax(best, ri[k] + rj[k + 1]);
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		best = peer_imax(best, __shfl_xor_sync(PEER_FULL_MASK, best, o));
	if (lane == 0) {
		best = nus_close(s, T, n, i, j, best);
		T[(long long)i * n + j] = best;
		T[(long long)j * n + i] = best;
	}
}

extern "C" __global__ void nussinov_thread(const unsigned char *s, int *T, int n, int d)
{
	const long long cell = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (cell >= n - d)
		return;
	const int i = (int)cell, j = i + d;
	const int *ri = T + (long long)i * n;
	const int *rj = T + (long long)j * n;
	int best = 0;
	for (int k = i; k < j; ++k)
		best = peer_imax(best, ri[k] + rj[k + 1]);
	best = nus_close(s, T, n, i, j, best);
	T[(long long)i * n + j] = best;
	T[(long long)j * n + i] = best;
}

#define MC_NONE 0x7fffffffffffffffll

extern "C" __global__ void matrixchain_warp(const long long *p, long long *T, int n, int d)
{
	const int lane = threadIdx.x & 31;
	const long long cell = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	if (cell >= n - d)
		return; // the whole warp
	const int i = (int)cell, j = i + d;
	const long long *ri = T + (long long)i * n;
	const long long *rj = T + (long long)j * n;
	const long long ends = p[i] * p[j + 1];
	long long best = MC_NONE;
	for (int k = i + lane; k < j; k += 32)
		best = peer_lmin(best, ri[k] + rj[k + 1] + ends * p[k + 1]);
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		best = peer_lmin(best, __shfl_xor_sync(PEER_FULL_MASK, best, o));
	if (lane == 0) {
		T[(long long)i * n + j] = best;
		T[(long long)j * n + i] = best;
	}
}

extern "C" __global__ void matrixchain_thread(const long long *p, long long *T, int n, int d)
{
	const long long cell = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (cell >= n - d)
		return;
	const int i = (int)cell, j = i + d;
	const long long *ri = T + (long long)i * n;
	const long long *rj = T + (long long)j * n;
	const long long ends = p[i] * p[j + 1];
	long long best = MC_NONE;
	for (int k = i; k < j; ++k)
		best = peer_lmin(best, ri[k] + rj[k + 1] + ends * p[k + 1]);
	T[(long long)i * n + j] = best;
	T[(long long)j * n + i] = best;
}
