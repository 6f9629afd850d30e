
// ---- batch kernel on pairs of instances, 16 bits a cell (templates/batch16.cu) ----
//
// batch.cu's sweep (read it first) with two instances a warp: warp p of the
// launch computes instances 2p and 2p+1 (the last warp of an odd batch
// computes its one instance twice and writes it once), each register
// holding instance 2p's cell in its low half and 2p+1's in its high half
// (dp_h2, simd16.cu), the recurrence dp_rec16 (codegen/pack16.go) computing
// both at once. The two instances have the program's rows; with DP_BGEN
// each its own columns: the warp sweeps the columns of the wider one, and a
// column past an instance's last is computed for it from its last column's
// values and never read by its cells (a forward sweep) nor counted in its
// answer. Packed programs have a cell answer or a region min or max kept
// as values (DP_BREG), one table, no check that can report.

static_assert(DP_T == 1, "packed batch programs compute one table");
#define DP_NROWV1 (DP_NROWV > 0 ? DP_NROWV : 1)
#define DP_NCOLV1 (DP_NCOLV > 0 ? DP_NCOLV : 1)

// dp_pack_slots packs the slots S.. of two instances' row (or column)
// values into o.
template <int S, int N, class V>
__device__ __forceinline__ void dp_pack_slots(const V &a, const V &b, dp_h2 *o)
{
	if constexpr (S < N) {
		o[S] = dp_h2_pk((int)a.template get<S>(), (int)b.template get<S>());
		dp_pack_slots<S + 1, N, V>(a, b, o);
	}
}

// dp_win16_acc is dp_rec16's accessor for the lane's row K: cells from the
// register window, input values packed.
template <int K> struct dp_win16_acc {
	const dp_h2 (&w)[DP_NW][DP_NC];
	const dp_h2 *rv_; // row K's packed row values
	const dp_h2 *cv_; // the column's packed column values
	const dp_pfvals &p0_, &p1_;
	template <int ID> __device__ __forceinline__ dp_h2 ref() const { return w[DP_PI + K - dp_ref<ID>::di][dp_ref<ID>::dj]; }
	template <int S> __device__ __forceinline__ dp_h2 rv() const { return rv_[S]; }
	template <int S> __device__ __forceinline__ dp_h2 cv() const { return cv_[S]; }
	template <int P> __device__ __forceinline__ dp_h2 pf() const { return dp_pfvals::template get2<P, K>(p0_, p1_); }
};

// dp_best16 folds v into b, the halves where m is set.
__device__ __forceinline__ dp_h2 dp_best16(const dp_h2 b, const dp_h2 v, const dp_h2 m)
{
#if DP_REG_OP == 0
	return dp_h2_sel(m, dp_h2_min(b, v), b);
#else
	return dp_h2_sel(m, dp_h2_max(b, v), b);
#endif
}

// dp_batch16_cells computes this lane's rows K.. at column j; colm is the
// halves whose instance has column j (all where !CHK).
template <bool CHK, int K>
__device__ __forceinline__ void dp_batch16_cells(dp_h2 (&w)[DP_NW][DP_NC], const dp_h2 (&rvp)[DP_RPT][DP_NROWV1], const dp_h2 *cvp,
	const dp_pfvals &p0, const dp_pfvals &p1, const DP_IDX_T (&ri)[DP_RPT], const bool (&rlive)[DP_RPT], const dp_h2 colm,
	const DP_IDX_T j, dp_h2 (&bv)[DP_RPT])
{
	if constexpr (K < DP_RPT) {
		const dp_win16_acc<K> a{w, rvp[K], cvp, p0, p1};
		const dp_h2 v = dp_rec16(ri[K], j, a);
		w[DP_PI + K][0] = v;
#if DP_BREG
		{
			const bool in = DP_IN_REGION(ri[K], j) && (!CHK || rlive[K]);
			bv[K] = dp_best16(bv[K], v, in ? colm : 0u);
		}
#endif
		(void)rlive, (void)colm, (void)bv;
		dp_batch16_cells<CHK, K + 1>(w, rvp, cvp, p0, p1, ri, rlive, colm, j, bv);
	}
}

// dp_batch16: n instances; ans one cell an instance (DP_ANS_KIND 1), part
// one partial result (2); the rest as batch.cu's dp_batch. Blocks of
// DP_BW*32 threads, ((n + 1) / 2 + DP_BW - 1) / DP_BW of them.
extern "C" __global__ void __launch_bounds__(DP_BW * 32, DP_BMINB) dp_batch(long long n, cell_t *ans, dp_part_t *part, const int *cols,
	const int *ansj, const unsigned long long *bptr, cell_t *grows)
{
	for (int t = threadIdx.x; t < DP_NBPTR; t += blockDim.x)
		dp_bptr[t] = bptr[t];
	__syncthreads();
#if DP_NPF > 0
	dp_pf_build();
	__syncthreads();
#endif
#if !DP_BGLOBAL
	__shared__ dp_h2 bnd[DP_BW][2][DP_PI1 * DP_BCOLS];
	(void)grows;
#endif
#if DP_NCOLV > 0
	__shared__ dp_colvals cring[DP_BW][2][128];
#endif
	const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
	const long long inst0 = 2 * dp_binst();
	if (inst0 >= n)
		return;
	const bool two = inst0 + 1 < n;
	const long long inst1 = two ? inst0 + 1 : inst0;
#if DP_BGEN
	const int cj0 = cols[inst0], cj1 = cols[inst1];
#if DP_ANS_KIND == 1
	const long long aj0 = ansj[inst0], aj1 = ansj[inst1];
#endif
#else
	const int cj0 = (int)DP_COLS, cj1 = (int)DP_COLS;
#if DP_ANS_KIND == 1
	const long long aj0 = DP_ANS_J, aj1 = DP_ANS_J;
#endif
	(void)cols, (void)ansj;
#endif
	const int cjmax = cj0 > cj1 ? cj0 : cj1, cjmin = cj0 < cj1 ? cj0 : cj1;
	dp_part_t acc0, acc1;
	dp_part_init(acc0);
	dp_part_init(acc1);
	bool got0 = false, got1 = false; // this lane computed an answer cell
	dp_h2 ans0 = 0u, ans1 = 0u;
	for (long long s = 0; s < DP_NSTRIPS; ++s) {
		DP_IDX_T ri[DP_RPT];
		bool rlive[DP_RPT];
		dp_h2 rvp[DP_RPT][DP_NROWV1];
		int kAns = -1;
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k) {
			ri[k] = dp_lane_row(s, lane, k, rlive[k]);
			dp_rowvals r0, r1;
			r0.fill_at(inst0, ri[k]);
			r1.fill_at(inst1, ri[k]);
			rvp[k][0] = 0u;
			dp_pack_slots<0, DP_NROWV, dp_rowvals>(r0, r1, rvp[k]);
#if DP_ANS_KIND == 1
			if (rlive[k] && ri[k] == DP_ANS_I)
				kAns = k;
#endif
		}
		dp_h2 bv[DP_RPT];
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k)
			bv[k] = DP_BREG ? dp_h2_bc(DP_REG_OP == 0 ? 32767 : -32768) : 0u;
		dp_h2 w[DP_NW][DP_NC];
		dp_win_zero(w);
		const dp_h2 *top;
		dp_h2 *out;
#if DP_BGLOBAL
		dp_strip_edges((dp_h2 *)grows + inst0 * (2LL * DP_PI1 * DP_BCOLS), s, top, out);
#else
		dp_strip_edges(&bnd[wib][0][0], s, top, out);
#endif
		for (int g0 = 0; g0 < cjmax + 31; g0 += 32) {
#if DP_NCOLV > 0
			{
				// Each instance's values of column g0 + lane, its last
				// column's past it.
				const int jf0 = g0 + lane < cj0 ? g0 + lane : cj0 - 1, jf1 = g0 + lane < cj1 ? g0 + lane : cj1 - 1;
				cring[wib][0][(g0 + lane) & 127].fill_at(inst0, DP_BACK ? DP_COLS - 1 - jf0 : jf0);
				cring[wib][1][(g0 + lane) & 127].fill_at(inst1, DP_BACK ? DP_COLS - 1 - jf1 : jf1);
			}
#endif
			__syncwarp();
			// Unchecked: every column of the chunk inside both instances.
			const bool chk = g0 < 31 + DP_PJ || g0 + 32 > cjmin;
#pragma unroll 4
			for (int u = 0; u < 32; ++u) {
				const int j = g0 + u - lane;
				dp_h2 up[DP_PI1];
#pragma unroll
				for (int p = 0; p < DP_PI; ++p) {
					const dp_h2 x = __shfl_up_sync(DP_FULL, w[DP_RPT + p][0], 1);
					dp_h2 t = 0u;
					if (lane == 0 && top && j >= 0 && j < cjmax)
						t = top[p * DP_BCOLS + j];
					up[p] = lane == 0 ? t : x;
				}
				dp_win_shift(w, up);
				const int jc = j < 0 ? 0 : (j >= cjmax ? cjmax - 1 : j);
				const DP_IDX_T rj = (DP_IDX_T)(DP_BACK ? DP_COLS - 1 - jc : jc);
				dp_h2 cvp[DP_NCOLV1];
				cvp[0] = 0u;
				dp_pfvals p0, p1;
#if DP_NCOLV > 0
				{
					const dp_colvals &c0 = cring[wib][0][jc & 127], &c1 = cring[wib][1][jc & 127];
					dp_pack_slots<0, DP_NCOLV, dp_colvals>(c0, c1, cvp);
#if DP_NPF > 0
					p0.load(c0, rj, (int)s * 32 + lane);
					p1.load(c1, rj, (int)s * 32 + lane);
#endif
				}
#endif
				if (chk) {
					const dp_h2 colm = (j >= 0 && j < cj0 ? 0xffffu : 0u) | (j >= 0 && j < cj1 ? 0xffff0000u : 0u);
					dp_batch16_cells<true, 0>(w, rvp, cvp, p0, p1, ri, rlive, colm, rj, bv);
				} else
					dp_batch16_cells<false, 0>(w, rvp, cvp, p0, p1, ri, rlive, 0xffffffffu, rj, bv);
#if DP_ANS_KIND == 1
				if (kAns >= 0 && j >= 0) {
					dp_h2 v = 0u;
#pragma unroll
					for (int k = 0; k < DP_RPT; ++k)
						if (k == kAns)
							v = w[DP_PI + k][0];
					if (rj == aj0 && j < cj0)
						ans0 = v, got0 = true;
					if (rj == aj1 && j < cj1)
						ans1 = v, got1 = true;
				}
#endif
#if DP_PI > 0
				if (out && lane == 31 && j >= 0 && j < cjmax) {
#pragma unroll
					for (int p = 0; p < DP_PI; ++p)
						out[p * DP_BCOLS + j] = w[DP_RPT + p][0];
				}
#endif
			}
		}
#if DP_BREG
#pragma unroll
		for (int k = 0; k < DP_RPT; ++k) {
			if (rlive[k] && DP_ROW_IN_REGION(ri[k], cj0))
				dp_part_add(acc0, (cell_t)dp_h2_lo(bv[k]), (long long)ri[k] * cj0);
			if (rlive[k] && DP_ROW_IN_REGION(ri[k], cj1))
				dp_part_add(acc1, (cell_t)dp_h2_hi(bv[k]), (long long)ri[k] * cj1);
		}
#endif
		__syncwarp(); // out, before the next strip reads it
	}
#if DP_ANS_KIND == 1
	if (got0)
		ans[inst0] = (cell_t)dp_h2_lo(ans0);
	if (got1 && two)
		ans[inst1] = (cell_t)dp_h2_hi(ans1);
#else
	(void)ans, (void)ans0, (void)ans1, (void)got0, (void)got1;
#endif
#if DP_ANS_KIND == 2
	dp_part_warp(acc0);
	dp_part_warp(acc1);
	if (lane == 0) {
		part[inst0] = acc0;
		if (two)
			part[inst1] = acc1;
	}
#else
	(void)part;
#endif
}
