// lcs_tiled: scalar LCS length over anti-diagonal tiles, int32 cells.
//
// The (padded) grid is cut into tiles of LT_TH = 32*LT_R rows by LT_TW
// columns; one launch computes every tile of one tile anti-diagonal
// d = ti + tj, one warp per tile. Inside a tile, lane k owns rows
// k*LT_R .. k*LT_R+LT_R-1 (their values live in registers) and sweeps the
// tile's columns LT_CW at a time, one step behind lane k-1: at step s it
// computes column chunk q = s - k, whose row above (lane k-1's bottom row of
// chunk q, made at step s-1) arrives by warp shuffle. No shared memory and no
// block barrier: a step costs LT_CW shuffles.
//
// Between tiles the borders go through global memory:
//   H[j]  bottom row of the last tile computed over column j (read by the
//         tile below on the next diagonal; zero before the first);
//   V[i]  right column of the last tile computed over row i (read by the
//         tile to the right);
//   D[ti - tj + nTJ - 1]  bottom-right corner of tile (ti, tj), the
//         diagonal neighbour that tile (ti+1, tj+1) needs: H and V have
//         been overwritten by then, and only tiles on the same tile
//         diagonal share a D slot, one per launch, read before written.
// All three start at zero, the LCS boundary.
//
// The host pads a at the FRONT with 0xFE and b at the front with 0xFF (bytes
// that match nothing: a holds no 0xFF, b no 0xFE, and 0xFE != 0xFF), so that
// the padded rows and columns are all zero and the answer, cell (n, m), is
// the last element of H after the last launch; the last row of the real grid
// ends H and its last column ends V.

#ifndef LT_R
#define LT_R 8 // rows per lane
#endif
#ifndef LT_CW
#define LT_CW 4 // columns per pipeline step
#endif
#ifndef LT_TW
#define LT_TW 512 // tile width, a multiple of LT_CW
#endif
#define LT_TH (32 * LT_R)
#define LT_CHUNKS (LT_TW / LT_CW)

extern "C" __global__ void lcs_tiled(const unsigned char *a, const unsigned char *b, int *H, int *V, int *D, int d,
				     int tiLo, int ntiles, int nTJ)
{
	const int lane = threadIdx.x & 31;
	const int tile = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
	if (tile >= ntiles)
		return; // the whole warp: no shuffle is left waiting
	const int ti = tiLo + tile, tj = d - ti;
	const long long i0 = (long long)ti * LT_TH + lane * LT_R;
	const long long j0 = (long long)tj * LT_TW;
	const int dslot = ti - tj + nTJ - 1;

	unsigned char ar[LT_R];
	int left[LT_R];
#pragma unroll
	for (int r = 0; r < LT_R; ++r) {
		ar[r] = a[i0 + r];
		left[r] = V[i0 + r];
	}
	// corner: the cell above-left of the lane's first row in the chunk to
	// come. For chunk 0 that is the tile's corner (lane 0) or the left border
	// of the row above (the last row of lane k-1).
	int corner = lane == 0 ? D[dslot] : V[i0 - 1];
	int top[LT_CW];
#pragma unroll
	for (int c = 0; c < LT_CW; ++c)
		top[c] = 0;

	for (int s = 0; s < LT_CHUNKS + 31; ++s) {
		const int q = s - lane;
		int bot[LT_CW];
#pragma unroll
		for (int c = 0; c < LT_CW; ++c)
			bot[c] = 0;
		if (q >= 0 && q < LT_CHUNKS) {
			const long long jc = j0 + (long long)q * LT_CW;
			if (lane == 0) {
#pragma unroll
				for (int c = 0; c < LT_CW; ++c)
					top[c] = H[jc + c];
			}
			int dg = corner;
#pragma unroll
			for (int c = 0; c < LT_CW; ++c) {
				const unsigned char bc = b[jc + c];
				int up = top[c];
				int diag = dg;
				dg = up;
#pragma unroll
				for (int r = 0; r < LT_R; ++r) {
					const int l = left[r];
					const int v = ar[r] == bc ? diag + 1 : peer_imax(up, l);
					diag = l;
					up = v;
					left[r] = v;
				}
				bot[c] = up;
			}
			corner = top[LT_CW - 1];
			if (lane == 31) {
#pragma unroll
				for (int c = 0; c < LT_CW; ++c)
					H[jc + c] = bot[c];
			}
		}
		// Lane k+1 computes this chunk at the next step: hand it the row
		// above. (Lane 0 keeps its own value and loads H instead.)
#pragma unroll
		for (int c = 0; c < LT_CW; ++c)
			top[c] = __shfl_up_sync(PEER_FULL_MASK, bot[c], 1);
	}
#pragma unroll
	for (int r = 0; r < LT_R; ++r)
		V[i0 + r] = left[r];
	if (lane == 31)
		D[dslot] = left[LT_R - 1];
}
