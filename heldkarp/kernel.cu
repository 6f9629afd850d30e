// Held-Karp layer kernels (package heldkarp). The Go driver prepends
//
//   typedef int val_t;        (or long long, when tours may pass 2^31)
//   #define HK_BLOCK 256
//
// and compiles this file with NVRTC. Layout, shared with the CPU solver:
// m = n-1 non-start cities, element e is city e+1; layer k holds the k-subsets
// X in colex order, rank(X) = sum over the sorted elements e_1 < ... < e_k of
// C(e_t, t); the state (X, p-th city of X) is at rank(X)*k + p. ct is the
// transposed distance matrix, ct[i*n+j] = c[j][i]; binom the (m+1) x (m+1)
// table of C(a, b).

typedef unsigned long long u64;
typedef long long i64;

// Layer 1: S[{i}][i] = c[0][i]; the set {i} has rank i-1, and its only
// predecessor is city 0.
extern "C" __global__ void hk_first(const val_t* __restrict__ ct, val_t* __restrict__ cur,
                                    unsigned char* __restrict__ arg, int n)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < n - 1) {
        cur[e] = ct[(e + 1) * n];
        arg[e] = 0;
    }
}

// Layer k >= 2: one thread per state (X, i). The states are cut into tiles
// of HK_BLOCK consecutive states, and each block loops over tiles (so the
// binomials and the matrix are loaded into shared memory once per block, not
// once per tile). A tile spans at most HK_BLOCK/k + 2 subsets; a few of its
// threads unrank those once into shared memory, then every thread computes
//
//   S[X][i] = min over j in X\{i} of S[X\{i}][j] + c[j][i]
//
// reading the k-1 values of X\{i} from prev, which are contiguous, and keeps
// the first minimum's j (the CPU solver breaks ties the same way, so both
// give the same tour).
extern "C" __global__ void __launch_bounds__(HK_BLOCK)
hk_layer(const val_t* __restrict__ prev, val_t* __restrict__ cur, unsigned char* __restrict__ arg,
         const val_t* __restrict__ ct, const i64* __restrict__ binom, int n, int k, i64 lo, i64 states)
{
    extern __shared__ u64 smem[];
    const int m = n - 1;
    const int stride = m + 1;
    u64* smask = smem;                              // HK_BLOCK + 1 subset masks
    i64* sb = (i64*)(smask + HK_BLOCK + 1);         // (m+1)^2 binomials
    val_t* sd = (val_t*)(sb + stride * stride);     // n*n distances

    for (int t = threadIdx.x; t < stride * stride; t += blockDim.x) sb[t] = binom[t];
    for (int t = threadIdx.x; t < n * n; t += blockDim.x) sd[t] = ct[t];

    // This launch computes states lo .. states-1 of the layer (a GPU's
    // share when several GPUs split it); cur is indexed by state, arg
    // from lo.
    const i64 tiles = (states - lo + HK_BLOCK - 1) / HK_BLOCK;
    for (i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const i64 first = lo + tile * HK_BLOCK;
        const i64 last = min(first + HK_BLOCK, states) - 1;
        const i64 r0 = first / k;
        const int nsub = (int)(last / k - r0 + 1);
        __syncthreads(); // the tables are loaded, the previous tile's masks read

        if ((int)threadIdx.x < nsub) {
            // Unrank: the largest element e with C(e, t) <= r, for t = k down to 1.
            i64 r = r0 + threadIdx.x;
            u64 mask = 0;
            int e = m - 1;
            for (int t = k; t >= 1; t--) {
                while (sb[e * stride + t] > r) e--;
                mask |= 1ull << e;
                r -= sb[e * stride + t];
                e--;
            }
            smask[threadIdx.x] = mask;
        }
        __syncthreads();

        const i64 g = first + threadIdx.x;
        if (g < states) {
            const i64 r = g / k;
            const int p = (int)(g - r * k);
            const u64 mask = smask[r - r0];

            // Rank of X without its p-th city: the cities before it keep their
            // term C(e_t, t), those after it move down one place.
            u64 mm = mask;
            i64 ry = 0;
            int i = 0;
            for (int t = 0; t < k; t++) {
                int e = __ffsll((long long)mm) - 1;
                mm &= mm - 1;
                if (t < p) ry += sb[e * stride + t + 1];
                else if (t > p) ry += sb[e * stride + t];
                else i = e + 1;
            }
            const val_t* row = prev + ry * (k - 1);
            const val_t* crow = sd + i * n;
            u64 rest = mask & ~(1ull << (i - 1));
            int j = __ffsll((long long)rest); // 1-based bit = city
            rest &= rest - 1;
            val_t best = row[0] + crow[j];
            int bestJ = j;
            for (int q = 1; q < k - 1; q++) {
                j = __ffsll((long long)rest);
                rest &= rest - 1;
                val_t v = row[q] + crow[j];
                if (v < best) {
                    best = v;
                    bestJ = j;
                }
            }
            cur[g] = best;
            arg[g - lo] = (unsigned char)bestJ;
        }
    }
}
