
// ---- tile kernel (templates/tile.cu): wavefront, one launch per tile anti-diagonal ----
//
// Coordinates here are in sweep order (i', j'): the real cell is (i', j')
// forward and (ROWS-1-i', COLS-1-j') backward, so that every reference
// reads up and to the left. Block b of launch d computes tile (ti, tj) =
// (tiLo + b, d - ti), DP_TH x DP_TW cells, one row per thread, in an
// in-tile wavefront (thread t does column s - t at step s) over a shared
// copy of the tile with a halo of DP_PI rows above and DP_PJ columns left.
//
// The halo comes from edge buffers of O(width) cells:
//   H[3][DP_PI][COLS]: slot d%3 holds the bottom DP_PI rows of the tiles of
//     diagonal d; the top comes from slot (d-1)%3, the corner from (d-2)%3,
//     neither of which a tile of diagonal d overwrites.
//   V[DP_PJ][ROWS]: the right DP_PJ columns of the last tile of each tile
//     row; only the tile that reads them (the next one in its row) writes.

#define DP_PI1 (DP_PI > 0 ? DP_PI : 1)
#define DP_PJ1 (DP_PJ > 0 ? DP_PJ : 1)

template <bool CHK> struct dp_tile_acc {
	const cell_t *s;
	int li, lj; // this cell in s (halo included)
	__device__ __forceinline__ bool live() const { return true; }
	template <int ID> __device__ __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj) const
	{
		if (CHK && !dp_ref<ID>::safe) {
			if (dp_oob(ri, rj)) {
				dp_fail(DP_E_CELL, ID, ci, cj, ri, rj);
				return (cell_t)0;
			}
		}
		return s[(li - dp_ref<ID>::di) * DP_SW + (lj - dp_ref<ID>::dj)];
	}
	template <int S> __device__ __forceinline__ typename dp_rowv<S>::type rv(long long k) const { return dp_rowv<S>::load(k); }
	template <int S> __device__ __forceinline__ typename dp_colv<S>::type cv(long long k) const { return dp_colv<S>::load(k); }
};

template <bool CHK>
__device__ __forceinline__ void dp_tile_sweep(cell_t *S, long long i0, long long j0, dp_part_t &acc)
{
	const int t = threadIdx.x;
	const long long ip = i0 + t;
	const bool rowIn = ip < DP_ROWS;
	const DP_IDX_T i = (DP_IDX_T)(DP_BACK ? DP_ROWS - 1 - ip : ip);
	dp_tile_acc<CHK> a;
	a.s = S;
	a.li = DP_PI + t;
	for (int s = 0; s < DP_TH + DP_TW - 1; ++s) {
		const int lj = s - t;
		const long long jp = j0 + lj;
		if (rowIn && lj >= 0 && lj < DP_TW && jp < DP_COLS) {
			const DP_IDX_T j = (DP_IDX_T)(DP_BACK ? DP_COLS - 1 - jp : jp);
			a.lj = DP_PJ + lj;
			const cell_t v = dp_rec(i, j, a);
			S[a.li * DP_SW + a.lj] = v;
			dp_part_cell(acc, i, j, v);
		}
		__syncthreads();
	}
}

// dp_tile_copy moves an R x C block between the shared tile S, where it
// starts at S[s0], and global memory g, which holds the block's cell (r, c)
// at g[r * gr + c * gc]: into g (PUT) or out of it. Rows from rn on and
// columns from cn on lie outside the grid and are left alone.
template <int R, int C, bool PUT>
__device__ __forceinline__ void dp_tile_copy(cell_t *S, int s0, cell_t *g, long long gr, long long gc, long long rn, long long cn)
{
	for (int k = threadIdx.x; k < R * C; k += DP_TH) {
		const int r = k / C, c = k % C;
		if (r < rn && c < cn) {
			cell_t &s = S[s0 + r * DP_SW + c];
			if (PUT)
				g[r * gr + c * gc] = s;
			else
				s = g[r * gr + c * gc];
		}
	}
}

// dp_tile: launch d computes the tiles of tile anti-diagonal d, ti from
// tiLo. stage (maintain) receives each tile's cells, DP_TH x DP_TW row-major
// in sweep order, at block index * DP_TH*DP_TW. cap lists the answer cells
// (row-major real indices, sorted) whose values go to capv.
extern "C" __global__ void __launch_bounds__(DP_TH)
dp_tile(int d, int tiLo, cell_t *H, cell_t *V, cell_t *stage, dp_part_t *part, const long long *cap, int ncap, cell_t *capv)
{
#ifdef DP_EMU
	cell_t *S = (cell_t *)dp_emu_smem;
#else
	extern __shared__ unsigned char dp_smem[];
	cell_t *S = (cell_t *)dp_smem;
#endif
	const int t = threadIdx.x;
	const long long ti = tiLo + blockIdx.x, tj = d - ti;
	const long long i0 = ti * DP_TH, j0 = tj * DP_TW;
#if DP_PI > 0
	if (i0 > 0) {
		const cell_t *Htop = H + (long long)((d + 2) % 3) * DP_PI * DP_COLS;
		const cell_t *Hcor = H + (long long)((d + 1) % 3) * DP_PI * DP_COLS;
		for (int k = t; k < DP_PI * DP_SW; k += DP_TH) {
			const int r = k / DP_SW, c = k % DP_SW;
			const long long jj = j0 - DP_PJ + c;
			if (jj >= 0 && jj < DP_COLS)
				S[k] = (c < DP_PJ ? Hcor : Htop)[(long long)r * DP_COLS + jj];
		}
	}
#endif
#if DP_PJ > 0
	if (j0 > 0)
		dp_tile_copy<DP_TH, DP_PJ, false>(S, DP_PI * DP_SW, V + i0, 1, DP_ROWS, DP_ROWS - i0, DP_PJ);
#endif
	__syncthreads();
	dp_part_t acc;
	dp_part_init(acc);
	if (i0 >= DP_PI && j0 >= DP_PJ)
		dp_tile_sweep<false>(S, i0, j0, acc);
	else
		dp_tile_sweep<true>(S, i0, j0, acc);
#if DP_PI > 0
	dp_tile_copy<DP_PI, DP_TW, true>(S, DP_TH * DP_SW + DP_PJ, H + (long long)(d % 3) * DP_PI * DP_COLS + j0, DP_COLS, 1, DP_PI, DP_COLS - j0);
#endif
#if DP_PJ > 0
	dp_tile_copy<DP_TH, DP_PJ, true>(S, DP_PI * DP_SW + DP_TW, V + i0, 1, DP_ROWS, DP_ROWS - i0, DP_PJ);
#endif
	if (stage != 0)
		dp_tile_copy<DP_TH, DP_TW, true>(S, DP_PI * DP_SW + DP_PJ, stage + (long long)blockIdx.x * (DP_TH * DP_TW), DP_TW, 1, DP_TH, DP_TW);
#if DP_ANS_KIND == 3
	if (ncap > 0) {
		// This thread's row: find its captured cells by binary search.
		const long long ip = i0 + t;
		if (ip < DP_ROWS) {
			const long long ri = DP_BACK ? DP_ROWS - 1 - ip : ip;
			const long long jhi = (j0 + DP_TW < DP_COLS ? j0 + DP_TW : DP_COLS) - 1;
			long long clo = DP_BACK ? DP_COLS - 1 - jhi : j0;
			long long chi = DP_BACK ? DP_COLS - 1 - j0 : jhi;
			const long long key = ri * DP_COLS + clo, keyhi = ri * DP_COLS + chi;
			int lo = 0, hi = ncap;
			while (lo < hi) {
				const int mid = (lo + hi) >> 1;
				if (cap[mid] < key)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (int k = lo; k < ncap && cap[k] <= keyhi; ++k) {
				const long long rj = cap[k] - ri * DP_COLS;
				const long long jp = DP_BACK ? DP_COLS - 1 - rj : rj;
				capv[k] = S[(DP_PI + t) * DP_SW + DP_PJ + (int)(jp - j0)];
			}
		}
	}
#endif
#if DP_ANS_KIND == 2
	dp_part_block(acc, part + blockIdx.x);
#endif
}
