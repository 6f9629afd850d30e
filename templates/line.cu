
// ---- line kernel (templates/line.cu): rows or columns, one launch per line ----
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

extern "C" __global__ void __launch_bounds__(DP_LINE_THREADS)
dp_line(long long line, cell_t *ring, int nslots, dp_part_t *part)
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
	dp_part_t acc; // the answer region's partial result (DP_ANS_KIND 2)
	dp_part_init(acc);
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
