// ---- front arithmetic (templates/frontmath.cu): shared by front.cu and host.cu ----
//
// How plan.Hyperplane numbers and enumerates fronts, written once for the
// GPU's front kernel and the host's fronts sweep: t of a cell (dp_tof), the
// cells of front t of A*i + B*j over a grid (dp_front2), and with DP_T3 the
// line of one k-plane in a front of a 3-D hyperplane (dp_line,
// dp_line_cell). The coefficients are constants: the compilers fold the
// branches.

// dp_floor_div and dp_ceil_div round a quotient down and up.
static __device__ __forceinline__ long long dp_floor_div(long long a, long long b)
{
	long long q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		--q;
	return q;
}
static __device__ __forceinline__ long long dp_ceil_div(long long a, long long b) { return -dp_floor_div(-a, b); }

// dp_tof is the front of cell (i, j) of the flat grid (plan.Hyperplane.T):
// with DP_T3, t = DP_TA*k + DP_TM*i + DP_TB*j of the 3-D grid's cell
// [i][j / DP_TINNER][j % DP_TINNER].
static __device__ __forceinline__ long long dp_tof(long long i, long long j)
{
#if DP_T3
	const long long q = dp_floor_div(j, DP_TINNER);
	return DP_TA * i + DP_TM * q + DP_TB * (j - q * DP_TINNER);
#else
	return DP_TA * i + DP_TB * j;
#endif
}

// dp_front2 is front t of the hyperplane A*i + B*j over a rows x cols
// grid, as plan.Hyperplane.Front enumerates it: n cells, the first in row
// i0, then every |B| rows (a whole row when B is 0, A then ±1).
static __device__ __forceinline__ void dp_front2(long long t, long long A, long long B, long long rows, long long cols, long long *i0, long long *n)
{
	*i0 = 0;
	*n = 0;
	if (B == 0) {
		const long long i = t * A; // A is 1 or -1
		*i0 = i;
		if (i >= 0 && i < rows)
			*n = cols;
		return;
	}
	long long lo = 0, hi = rows - 1;
	if (A != 0) {
		// j in [0, cols-1]: A*i between t - B*(cols-1) and t.
		const long long x = t, y = t - B * (cols - 1);
		const long long aLo = x < y ? x : y, aHi = x < y ? y : x;
		long long iLo, iHi;
		if (A > 0) {
			iLo = dp_ceil_div(aLo, A);
			iHi = dp_floor_div(aHi, A);
		} else {
			iLo = dp_ceil_div(aHi, A);
			iHi = dp_floor_div(aLo, A);
		}
		lo = lo > iLo ? lo : iLo;
		hi = hi < iHi ? hi : iHi;
	} else if (t % B != 0 || t / B < 0 || t / B >= cols) {
		return;
	}
	while (lo <= hi && (t - A * lo) % B != 0)
		++lo;
	if (lo > hi)
		return;
	*i0 = lo;
	*n = (hi - lo) / (B < 0 ? -B : B) + 1;
}

#if DP_T3
// dp_line is the line of one k-plane in a front of the 3-D hyperplane
// (plan.Hyperplane.Line): the cells with DP_TM*i + DP_TB*j == u of the
// DP_TMID x DP_TINNER plane, n of them from row i0 (the line's own
// hyperplane DP_LA*i + DP_LB*j == u / DP_LG), or the whole plane when DP_TM
// and DP_TB are both 0 (and u is 0).
static __device__ __forceinline__ void dp_line(long long u, long long *i0, long long *n)
{
	*i0 = 0;
	*n = 0;
	if (DP_LWHOLE) {
		if (u == 0)
			*n = DP_TMID * DP_TINNER;
		return;
	}
	if (u % DP_LG != 0)
		return;
	dp_front2(u / DP_LG, DP_LA, DP_LB, DP_TMID, DP_TINNER, i0, n);
}

// dp_line_cell is cell m of k-plane u's line (its first row i0), as a
// flat column.
static __device__ __forceinline__ long long dp_line_cell(long long u, long long i0, long long m)
{
	if (DP_LWHOLE)
		return m;
	if (DP_LB == 0)
		return i0 * DP_TINNER + m;
	const long long i = i0 + m * (DP_LB < 0 ? -DP_LB : DP_LB);
	return i * DP_TINNER + (u / DP_LG - DP_LA * i) / (DP_LB != 0 ? DP_LB : 1);
}
#endif
