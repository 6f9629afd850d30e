// peers_emu.h is what the reference kernels of bench/peers see when they run
// on the host (emu_test.go): the CUDA names they use, declared here and
// implemented by emu_runtime.cc. It includes no header, so that a kernel
// compiles in a fraction of a second. Only what the kernels use is here; a
// kernel that uses more fails to compile, which is the point.
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct peer_dim3 {
	unsigned x, y, z;
};
extern peer_dim3 threadIdx, blockIdx, blockDim, gridDim;

void __syncthreads();
void __syncwarp(unsigned mask = 0xffffffffu);

// peer_exchange_bits publishes bits and returns what lane src of the
// calling warp published (all 32 lanes must call it).
unsigned long long peer_exchange_bits(unsigned long long bits, int src);

template <class T> T peer_exchange(T v, int src)
{
	static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
	unsigned long long bits = 0;
	__builtin_memcpy(&bits, &v, sizeof(T));
	bits = peer_exchange_bits(bits, src & 31);
	T out;
	__builtin_memcpy(&out, &bits, sizeof(T));
	return out;
}
template <class T> T __shfl_sync(unsigned, T v, int src) { return peer_exchange(v, src); }
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d)
{
	const int lane = threadIdx.x & 31;
	return peer_exchange(v, lane - (int)d < 0 ? lane : lane - (int)d);
}
template <class T> T __shfl_down_sync(unsigned, T v, unsigned d)
{
	const int lane = threadIdx.x & 31;
	return peer_exchange(v, lane + (int)d > 31 ? lane : lane + (int)d);
}
template <class T> T __shfl_xor_sync(unsigned, T v, int m) { return peer_exchange(v, (threadIdx.x & 31) ^ m); }

// The driver's side of a kernel program: arguments of a launch, the launch
// itself, and the generated dispatch from a kernel's name to a call.
struct peer_arg {
	void *p;
	long long v;
};
void peer_launch(unsigned grid, unsigned block, void (*run)());
bool peer_dispatch(const char *name, unsigned grid, unsigned block, const peer_arg *args, int nargs);
