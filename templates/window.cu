
// ---- the register window (templates/window.cu), for strip.cu and batch.cu ----
//
// A lane of the strip and batch kernels holds DP_RPT consecutive rows in
// registers: the window w has, for these rows and the DP_PI rows above
// them, the current column and DP_PJ columns back. dp_win_acc is the
// recurrence's accessor (dp_rec's a) for the lane's row K: a cell read at
// a constant offset is a register, checked against the grid (dp_oob) only
// in chunks that may reach outside it (CHK) and for references not proved
// inside; inputs read by i or j alone come prepared (dp_rowvals,
// dp_colvals), and so do a batch kernel's profile reads (dp_pfvals).

#define DP_SH (32 * DP_RPT)
#define DP_NW (DP_PI + DP_RPT)
#define DP_NC (DP_PJ + 1)
#define DP_PI1 (DP_PI > 0 ? DP_PI : 1)

// dp_win_shift moves a lane's window one column on: every row's cells one
// column back, and the DP_PI rows above the lane's (up: the lane above's
// bottom rows, or the strip's top) in the current column.
// (T: cell_t, or batch16.cu's pairs of 16-bit cells.)
template <class T> __device__ __forceinline__ void dp_win_shift(T (&w)[DP_NW][DP_NC], const T (&up)[DP_PI1])
{
#pragma unroll
	for (int c = DP_NC - 1; c > 0; --c)
#pragma unroll
		for (int r = 0; r < DP_NW; ++r)
			w[r][c] = w[r][c - 1];
#pragma unroll
	for (int p = 0; p < DP_PI; ++p)
		w[p][0] = up[p];
	(void)up;
}

template <bool CHK, int K> struct dp_win_acc {
	cell_t (&w)[DP_NW][DP_NC];
	const dp_rowvals &rv_;
	const dp_colvals &cv_;
	bool lv;
	const dp_pfvals *pv_ = nullptr; // the batch kernel's profile values (codegen/profile.go)
	__device__ __forceinline__ bool live() const { return CHK ? lv : true; }
	template <int ID> __device__ __forceinline__ cell_t ref(long long ri, long long rj, long long ci, long long cj) const
	{
		if (CHK && !dp_ref<ID>::safe) {
			if (dp_oob(ri, rj)) {
				if (lv)
					dp_fail(DP_E_CELL, ID, ci, cj, ri, rj);
				return (cell_t)0;
			}
		}
		return w[DP_PI + K - dp_ref<ID>::di][dp_ref<ID>::dj];
	}
	template <int S> __device__ __forceinline__ auto rv(long long) const { return rv_.template get<S>(); }
	template <int S> __device__ __forceinline__ auto cv(long long) const { return cv_.template get<S>(); }
	template <int P> __device__ __forceinline__ auto pf() const { return pv_->template get<P, K>(); }
};
