// lcs_bitpar: bit-parallel LCS length (Allison-Dix / Crochemore et al. /
// Hyyro), 64-bit words.
//
// Row i of the DP grid (a character of a) is bit i%64 of word i/64 of the
// column bit-vector V; V starts all ones and each character b[j] updates it:
//     U = V & Peq[b[j]]      V = (V + U) | (V & ~Peq[b[j]])
// where Peq[c] has the bits of the rows whose character is c. Afterwards the
// LCS of a[0..i) and b is the number of zero bits among the first i bits of
// V. The addition is the only link between words: its carry runs from word w
// to word w+1 in the same column.
//
// The words are cut into strips of 32 (2048 rows), the columns into tiles of
// BP_TW; one launch computes one tile anti-diagonal d = ti + tj, one warp per
// tile. Lane k owns word 32*ti + k and sweeps the tile's columns BP_CW at a
// time, one step behind lane k-1, whose carries for the same BP_CW columns
// arrive by shuffle, packed one bit per column. Between strips the carries go
// through C, one bit per column: lane 31 writes the carries out of the
// strip's top word, lane 0 of the strip above reads them on the next
// diagonal (C starts at zero: no carry into word 0). V keeps each word's
// value between tiles (all ones at the start).
//
// Characters are codes 0..3 (the host maps the alphabet); code 4 pads b to a
// whole number of tiles and matches nothing, so padded columns change
// nothing.

#ifndef BP_CW
#define BP_CW 8 // columns per pipeline step; divides 32
#endif
#ifndef BP_TW
#define BP_TW 1024 // tile width, a multiple of 32 and of BP_CW
#endif
#define BP_CHUNKS (BP_TW / BP_CW)
#define BP_PER_WORD (32 / BP_CW)		  // chunks per 32-bit carry word of C
#define BP_CMASK (0xffffffffu >> (32 - BP_CW)) // BP_CW low bits

extern "C" __global__ void lcs_bitpar(const unsigned long long *peq, const unsigned char *b, unsigned long long *V,
				      unsigned *C, int d, int tiLo, int ntiles)
{
	const int lane = threadIdx.x & 31;
	const int tile = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
	if (tile >= ntiles)
		return; // the whole warp
	const int ti = tiLo + tile, tj = d - ti;
	const long long w = (long long)ti * 32 + lane;
	const unsigned long long m0 = peq[4 * w], m1 = peq[4 * w + 1], m2 = peq[4 * w + 2], m3 = peq[4 * w + 3];
	unsigned long long v = V[w];
	const long long j0 = (long long)tj * BP_TW;

	unsigned cin = 0;   // carries into this word, bit c for column c of the chunk
	unsigned cword = 0; // lane 0: the 32 carries of C being consumed
	unsigned acc = 0;   // lane 31: carries out gathered for C
	for (int s = 0; s < BP_CHUNKS + 31; ++s) {
		const int q = s - lane;
		unsigned cout = 0;
		if (q >= 0 && q < BP_CHUNKS) {
			const long long jc = j0 + (long long)q * BP_CW;
			const int sub = q % BP_PER_WORD;
			if (lane == 0) {
				if (sub == 0)
					cword = C[jc >> 5];
				cin = (cword >> (sub * BP_CW)) & BP_CMASK;
			}
#pragma unroll
			for (int c = 0; c < BP_CW; ++c) {
				const unsigned char bc = b[jc + c];
				const unsigned long long M = bc == 0 ? m0 : bc == 1 ? m1 : bc == 2 ? m2 : bc == 3 ? m3 : 0ull;
				const unsigned long long u = v & M;
				const unsigned long long s1 = v + u;
				const unsigned long long s2 = s1 + ((cin >> c) & 1u);
				const unsigned carry = (unsigned)(s1 < v) | (unsigned)(s2 < s1);
				cout |= carry << c;
				v = s2 | (v & ~M);
			}
			if (lane == 31) {
				acc |= cout << (sub * BP_CW);
				if (sub == BP_PER_WORD - 1) {
					C[jc >> 5] = acc;
					acc = 0;
				}
			}
		}
		cin = __shfl_up_sync(PEER_FULL_MASK, cout, 1);
	}
	V[w] = v;
}
