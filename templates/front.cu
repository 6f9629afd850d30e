
// ---- front kernel (templates/front.cu): generic schedules, one launch per front ----
//
// Front t holds the cells with DP_TA*i + DP_TB*j == t; a launch computes
// one front, whose cells read only earlier fronts (plan.Plan.T), so they
// are independent. The whole grid G (DP_ROWS x DP_COLS, row-major) stays in
// device memory; with DP_MIRROR a transposed copy GT (cell (i, j) at
// GT[j*DP_ROWS + i]) is written beside it, and warps and blocks read from
// it the references that walk down a column as their reduction runs
// (dp_ref<ID>::mirror), so that consecutive lanes read consecutive cells.
//
// Cell q of the front (0 <= q < count) is at row i0 + q*DP_TSTEP, column
// (t - DP_TA*i)/DP_TB; for DP_TB == 0 the front is the row i0 and q the
// column. Three entry points map cells to threads (codegen.Spread):
// dp_front_thread one thread per cell, dp_front_warp one warp per cell and
// dp_front_block one block per cell (of up to DP_BLOCK_THREADS threads, a
// multiple of 32: as many as fill the device); dp_front_range computes runs of
// fronts whose cells read no other cell in one launch. In the last two the recurrence's
// outermost reductions deal their iterations out to the lanes (a.lane(),
// a.lanes()) and fold the partial results (a.fold), after which every lane
// holds the cell's value; all the rest of the recurrence every lane
// computes alike, so control flow stays uniform. Lane 0 stores the cell.

// DP_E_ORDER: a read that nothing proved to be of an earlier front was not
// (codegen.ErrOrder); site is the reference.
#define DP_E_ORDER 7

{{template "frontmath.cu" .}}

// dp_bits moves a partial result of up to 8 bytes through dp_fold_sh.
template <class T> union dp_bits {
	T v;
	unsigned long long u;
};

// dp_fold_sh holds one partial result per warp of a block (dp_fold_block).
__shared__ unsigned long long dp_fold_sh[32];

// dp_fold_block folds the warps' results x (each warp's lanes agree) over
// the block, in warp order, so that every thread computes the same value.
template <class T, class F> __device__ __forceinline__ T dp_fold_block(T x, F f)
{
	dp_bits<T> b;
	b.u = 0;
	if ((threadIdx.x & 31) == 0) {
		b.v = x;
		dp_fold_sh[threadIdx.x >> 5] = b.u;
	}
	__syncthreads();
	b.u = dp_fold_sh[0];
	T r = b.v;
	for (int k = 1; k < (int)(blockDim.x >> 5); ++k) {
		b.u = dp_fold_sh[k];
		r = f(r, b.v);
	}
	__syncthreads(); // dp_fold_sh is free for the next fold
	return r;
}

// dp_front_acc is the accessor of spread S (0 thread, 1 warp, 2 block).
template <int S> struct dp_front_acc {
	const cell_t *G, *GT;
	__device__ __forceinline__ bool live() const { return true; }
	template <int ID> __device__ __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj) const
	{
		if (!dp_ref<ID>::safe) {
			if (dp_oob(ri, rj)) {
				dp_fail(DP_E_CELL, ID, ci, cj, ri, rj);
				return (cell_t)0;
			}
		}
		if (dp_ref<ID>::order) {
			// Nothing proved that this reference reads an earlier front.
			if (!(dp_tof(ri, rj) < dp_tof(ci, cj))) {
				dp_fail(DP_E_ORDER, ID, ci, cj, ri, rj);
				return (cell_t)0;
			}
		}
		// Cells of earlier fronts are not written during this launch: the
		// read-only path is safe.
		if (S != 0 && DP_MIRROR && dp_ref<ID>::mirror)
			return __ldg(GT + rj * DP_ROWS + ri);
		return __ldg(G + ri * DP_COLS + rj);
	}
	__device__ __forceinline__ unsigned long long lane() const
	{
		if (S == 1)
			return threadIdx.x & 31;
		if (S == 2)
			return threadIdx.x;
		return 0;
	}
	__device__ __forceinline__ unsigned long long lanes() const { return S == 1 ? 32 : S == 2 ? blockDim.x : 1; }
	// fold combines the lanes' partial results x with f (commutative and
	// associative); every lane gets the result.
	template <class T, class F> __device__ __forceinline__ T fold(T x, F f) const
	{
		if (S == 0)
			return x;
#pragma unroll
		for (int o = 16; o > 0; o >>= 1)
			x = f(x, (T)__shfl_xor_sync(DP_FULL, x, o));
		if (S == 2)
			x = dp_fold_block(x, f);
		return x;
	}
};

// dp_front_at computes cell (ii, jj) with spread S, and lane 0 stores it
// (and, for the answer cell, dp_ans).
template <int S> __device__ __forceinline__ void dp_front_at(long long ii, long long jj, cell_t *G, cell_t *GT, bool store)
{
	const DP_IDX_T i = (DP_IDX_T)ii, j = (DP_IDX_T)jj;
	dp_front_acc<S> a;
	a.G = G;
	a.GT = GT;
	const cell_t v = dp_rec(i, j, a);
	if (store) {
		G[ii * DP_COLS + jj] = v;
#if DP_MIRROR
		GT[jj * DP_ROWS + ii] = v;
#endif
#if DP_ANS_KIND == 1
		if (i == DP_ANS_I && j == DP_ANS_J)
			dp_ans = v;
#endif
	}
}

// dp_front_cell computes cell q of front t, whose first cell is in row i0.
// A front of a 3-D hyperplane (DP_T3) is launched as DP_TW slots for each
// k-plane from i0 on: slot q is cell q % DP_TW of plane i0 + q / DP_TW's
// line, if the line has that many (the threads of a cell agree).
template <int S> __device__ __forceinline__ void dp_front_cell(long long t, long long i0, long long q, cell_t *G, cell_t *GT, bool store)
{
#if DP_T3
	const long long k = i0 + q / DP_TW, m = q % DP_TW, u = t - DP_TA * k;
	long long l0, n;
	dp_line(u, &l0, &n);
	if (m >= n)
		return;
	dp_front_at<S>(k, dp_line_cell(u, l0, m), G, GT, store);
#elif DP_TB == 0
	dp_front_at<S>(i0, q, G, GT, store);
#else
	const long long ii = i0 + q * DP_TSTEP;
	dp_front_at<S>(ii, (t - DP_TA * ii) / DP_TB, G, GT, store);
#endif
}

extern "C" __global__ void __launch_bounds__(DP_FRONT_THREADS)
dp_front_thread(long long t, long long i0, long long count, cell_t *G, cell_t *GT)
{
	const long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (q < count)
		dp_front_cell<0>(t, i0, q, G, GT, true);
}

extern "C" __global__ void __launch_bounds__(DP_WARP_THREADS)
dp_front_warp(long long t, long long i0, long long count, cell_t *G, cell_t *GT)
{
	const long long q = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
	if (q < count) // the whole warp
		dp_front_cell<1>(t, i0, q, G, GT, (threadIdx.x & 31) == 0);
}

extern "C" __global__ void __launch_bounds__(DP_BLOCK_THREADS)
dp_front_block(long long t, long long i0, long long count, cell_t *G, cell_t *GT)
{
	if (blockIdx.x < count) // the whole block
		dp_front_cell<2>(t, i0, blockIdx.x, G, GT, threadIdx.x == 0);
}

// dp_front_range computes the cells of fronts t0..t1, which read no other
// cell (codegen.Program.ReadsNoCell), a thread per cell, scanning the grid.
extern "C" __global__ void __launch_bounds__(DP_FRONT_THREADS)
dp_front_range(long long t0, long long t1, cell_t *G, cell_t *GT)
{
	for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < DP_ROWS * DP_COLS; q += (long long)gridDim.x * blockDim.x) {
		const long long i = q / DP_COLS, j = q - i * DP_COLS, t = dp_tof(i, j);
		if (t >= t0 && t <= t1)
			dp_front_at<0>(i, j, G, GT, true);
	}
}

// dp_region folds the answer's region of the finished grid (DP_ANS_KIND 2)
// into one partial result per block.
extern "C" __global__ void __launch_bounds__(256)
dp_region(const cell_t *G, dp_part_t *part)
{
	dp_part_t acc;
	dp_part_init(acc);
#if DP_ANS_KIND == 2
	for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < DP_ROWS * DP_COLS; q += (long long)gridDim.x * blockDim.x) {
		const long long i = q / DP_COLS, j = q % DP_COLS;
		if (DP_IN_REGION(i, j))
			dp_part_add(acc, G[q], q);
	}
#endif
	dp_part_block(acc, part + blockIdx.x);
}

// dp_gather copies the cells at the row-major positions pos of the grid g
// (the answer's cells) into out.
extern "C" __global__ void dp_gather(const cell_t *g, const long long *pos, cell_t *out, int n)
{
	const int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		out[k] = g[pos[k]];
}
