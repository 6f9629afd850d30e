// A small emulation of the CUDA execution model on host threads, enough to
// run the generated kernels on tiny problems without a GPU (codegen tests):
// every GPU thread of a block is a std::thread, blocks run one after
// another, __syncthreads and __syncwarp are barriers, warp shuffles go
// through a per-warp exchange buffer. Textures are not emulated.
#define DP_EMU 1
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __device__
#define __global__
#define __constant__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

struct dim3 {
	unsigned x = 1, y = 1, z = 1;
};
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
alignas(16) unsigned char dp_emu_smem[1 << 20];

struct emu_warp {
	std::barrier<> bar{32};
	uint64_t buf[32];
};
struct emu_block {
	std::unique_ptr<std::barrier<>> bar;
	std::vector<std::unique_ptr<emu_warp>> warps;
};
thread_local emu_block *emu_cur_block;
thread_local emu_warp *emu_cur_warp;

inline void __syncthreads() { emu_cur_block->bar->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_cur_warp->bar.arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { std::this_thread::yield(); }

template <class T> T emu_exchange(T v, int src)
{
	emu_warp &w = *emu_cur_warp;
	int lane = threadIdx.x & 31;
	uint64_t b = 0;
	std::memcpy(&b, &v, sizeof(T));
	w.buf[lane] = b;
	w.bar.arrive_and_wait();
	uint64_t r = w.buf[src];
	w.bar.arrive_and_wait();
	T out;
	std::memcpy(&out, &r, sizeof(T));
	return out;
}
template <class T> T __shfl_sync(unsigned, T v, int src) { return emu_exchange(v, src & 31); }
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d)
{
	int lane = threadIdx.x & 31;
	return emu_exchange(v, (int)lane - (int)d < 0 ? lane : lane - (int)d);
}
template <class T> T __shfl_down_sync(unsigned, T v, unsigned d)
{
	int lane = threadIdx.x & 31;
	return emu_exchange(v, lane + (int)d > 31 ? lane : lane + (int)d);
}
template <class T> T __ldg(const T *p) { return *p; }
template <class T> T __ldcg(const T *p)
{
	T r;
	__atomic_load(p, &r, __ATOMIC_RELAXED);
	return r;
}
inline int atomicCAS(int *p, int cmp, int v)
{
	__atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return cmp;
}
inline int atomicExch(int *p, int v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline double __longlong_as_double(long long x)
{
	double d;
	std::memcpy(&d, &x, 8);
	return d;
}
inline float __int_as_float(int x)
{
	float f;
	std::memcpy(&f, &x, 4);
	return f;
}
inline long long __double_as_longlong(double x)
{
	long long b;
	std::memcpy(&b, &x, 8);
	return b;
}
// __mul64hi is the high 64 bits of the signed 128-bit product.
inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * (__int128)y) >> 64); }

// emu_launch runs f on every thread of every block, blocks in order.
inline void emu_launch(unsigned grid, unsigned block, const std::function<void()> &f)
{
	gridDim.x = grid;
	blockDim.x = block;
	for (unsigned b = 0; b < grid; ++b) {
		emu_block blk;
		blk.bar = std::make_unique<std::barrier<>>(block);
		for (unsigned w = 0; w < (block + 31) / 32; ++w)
			blk.warps.push_back(std::make_unique<emu_warp>());
		std::vector<std::thread> ts;
		for (unsigned t = 0; t < block; ++t)
			ts.emplace_back([&, t, b] {
				threadIdx.x = t;
				blockIdx.x = b;
				emu_cur_block = &blk;
				emu_cur_warp = blk.warps[t / 32].get();
				f();
			});
		for (auto &t : ts)
			t.join();
	}
}
