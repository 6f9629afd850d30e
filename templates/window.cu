
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

#if DP_BATCH
// ---- what the batch kernels (batch.cu, batch16.cu) share ----
#define DP_NSTRIPS ((DP_ROWS + DP_SH - 1) / DP_SH)
#define DP_BCOLS (DP_NSTRIPS > 1 ? DP_COLS : 1)
#ifndef DP_BGLOBAL
#define DP_BGLOBAL 0
#endif

// dp_lane_row is row k of the lane's rows of strip s as the grid numbers it;
// live says whether it is in the grid (a row past the last is computed as
// the last, and left out).
__device__ __forceinline__ DP_IDX_T dp_lane_row(long long s, int lane, int k, bool &live)
{
	const long long r = s * DP_SH + (long long)lane * DP_RPT + k;
	live = r < DP_ROWS;
	const long long rc = live ? r : DP_ROWS - 1;
	return (DP_IDX_T)(DP_BACK ? DP_ROWS - 1 - rc : rc);
}

// dp_win_zero clears a lane's window at a strip's start.
template <class T> __device__ __forceinline__ void dp_win_zero(T (&w)[DP_NW][DP_NC])
{
#pragma unroll
	for (int r = 0; r < DP_NW; ++r)
#pragma unroll
		for (int c = 0; c < DP_NC; ++c)
			w[r][c] = (T)0;
}

// dp_strip_edges: of an instance's two slots of DP_PI1 x DP_BCOLS cells at
// slots (shared or global memory), the rows strip s reads above it (top,
// none for the first strip) and the slot it leaves its bottom rows in for
// the next (out, none for the last): strip s writes slot s & 1.
template <class T> __device__ __forceinline__ void dp_strip_edges(T *slots, long long s, const T *&top, T *&out)
{
	top = s > 0 ? slots + ((s + 1) & 1) * (long long)(DP_PI1 * DP_BCOLS) : 0;
	out = s + 1 < DP_NSTRIPS ? slots + (s & 1) * (long long)(DP_PI1 * DP_BCOLS) : 0;
}
#endif
