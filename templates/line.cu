
// ---- line kernels (templates/line.cu): rows or columns, one launch per line (dp_line) or per run of lines (dp_lines) ----
//
// Line L (in sweep order) is stored in slot L % nslots of the ring; a cell
// reads the lines L-1 .. L-DP_REACH. Data-dependent positions (knapsack's
// w - wt[i-1]) read anywhere in those lines, from global memory.

struct dp_line_acc {
	const cell_t *prev[DP_REACH + 1];
	__device__ __forceinline__ bool live() const { return true; }
	template <int ID> __device__ __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj) const
	{
		if (!dp_ref<ID>::safe) {
			if (dp_oob(ri, rj)) {
				dp_fail(DP_E_CELL, ID, ci, cj, ri, rj);
				return (cell_t)0;
			}
		}
#if DP_SWEEP_ROWS
		return prev[dp_ref<ID>::di][rj];
#else
		return prev[dp_ref<ID>::di][ri];
#endif
	}
	template <int S> __device__ __forceinline__ typename dp_rowv<S>::type rv(long long k) const { return dp_rowv<S>::load(k); }
	template <int S> __device__ __forceinline__ typename dp_colv<S>::type cv(long long k) const { return dp_colv<S>::load(k); }
};

// dp_line_run computes line `line` into its slot of the ring, folding the
// answer region's cells into acc.
__device__ __forceinline__ void dp_line_run(long long line, cell_t *ring, int nslots, dp_part_t &acc)
{
	dp_line_acc a;
#pragma unroll
	for (int d = 1; d <= DP_REACH; ++d) {
		long long s = (line - d) % nslots;
		if (s < 0)
			s += nslots;
		a.prev[d] = ring + s * DP_WIDTH;
	}
	a.prev[0] = ring;
	cell_t *out = ring + (line % nslots) * DP_WIDTH;
	const long long real = DP_BACK ? DP_NLINES - 1 - line : line;
#ifdef DP_EMU
	emu_line_delay(); // block 0 late, so that a missing barrier shows
#endif
	for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < DP_WIDTH; q += (long long)gridDim.x * blockDim.x) {
#if DP_SWEEP_ROWS
		const DP_IDX_T i = (DP_IDX_T)real, j = (DP_IDX_T)q;
#else
		const DP_IDX_T i = (DP_IDX_T)q, j = (DP_IDX_T)real;
#endif
		const cell_t v = dp_rec(i, j, a);
		out[q] = v;
		dp_part_cell(acc, i, j, v);
	}
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
	__shared__ int stop;
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
