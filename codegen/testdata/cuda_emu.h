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
// The kernels' assumptions (__builtin_assume, NVRTC's) are checked here: a
// fact that does not hold stops the emulated kernel.
#define __builtin_assume(x) ((x) ? (void)0 : (fprintf(stderr, "assumption failed: %s (%s:%d)\n", #x, __FILE__, __LINE__), abort()))

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
	// Per-block shared variables of kernels whose blocks run at once
	// (emu_launch_coop), where `__shared__` (a static) would be one for
	// every block: DP_BLOCK_SHARED's slots.
	alignas(16) unsigned char vars[8][64] = {};
};
thread_local emu_block *emu_cur_block;
template <class T, int K> T &emu_block_var()
{
	static_assert(sizeof(T) <= 64 && K >= 0 && K < 8, "one of emu_block's slots");
	return *reinterpret_cast<T *>(emu_cur_block->vars[K]);
}
#define DP_BLOCK_SHARED(T, name, slot) T &name = emu_block_var<T, slot>()
thread_local emu_warp *emu_cur_warp;

// emu_launch_fibers runs a block's GPU threads as fibers of one host
// thread, switched at barriers and shuffles: far cheaper than a host thread
// each when kernels sync often (the front kernel's warp folds). Kernels
// that wait on other blocks or on the host (spin loops) need emu_launch.
struct emu_fibers;
thread_local emu_fibers *emu_fs;
void emu_fiber_sync_block();
void emu_fiber_sync_warp();

inline void __syncthreads()
{
	if (emu_fs) {
		emu_fiber_sync_block();
		return;
	}
	emu_cur_block->bar->arrive_and_wait();
}
inline void __syncwarp(unsigned = 0xffffffffu)
{
	if (emu_fs) {
		emu_fiber_sync_warp();
		return;
	}
	emu_cur_warp->bar.arrive_and_wait();
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { std::this_thread::yield(); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) { return (unsigned long long)(((unsigned __int128)x * y) >> 64); }

template <class T> T emu_exchange(T v, int src)
{
	emu_warp &w = *emu_cur_warp;
	int lane = threadIdx.x & 31;
	uint64_t b = 0;
	std::memcpy(&b, &v, sizeof(T));
	w.buf[lane] = b;
	__syncwarp();
	uint64_t r = w.buf[src];
	__syncwarp();
	T out;
	std::memcpy(&out, &r, sizeof(T));
	return out;
}
template <class T> T __shfl_sync(unsigned, T v, int src) { return emu_exchange(v, src & 31); }
// emu_vote: every lane's predicate, and-ed (all) or or-ed (any).
inline int emu_vote(int p, bool all)
{
	emu_warp &w = *emu_cur_warp;
	w.buf[threadIdx.x & 31] = p != 0;
	__syncwarp();
	int r = all ? 1 : 0;
	for (int l = 0; l < 32; ++l)
		r = all ? (r & (int)w.buf[l]) : (r | (int)w.buf[l]);
	__syncwarp();
	return r;
}
inline int __all_sync(unsigned, int p) { return emu_vote(p, true); }
inline int __any_sync(unsigned, int p) { return emu_vote(p, false); }
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
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
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
// emu_line_delay holds block 0 back a little at each line of the line
// kernels, so that a block that does not wait for it reads cells not yet
// written.
inline void emu_line_delay()
{
	if (blockIdx.x == 0)
		std::this_thread::sleep_for(std::chrono::microseconds(300));
}

// emu_launch_coop runs every block at once, as a kernel whose blocks wait
// for each other (a grid-wide barrier) needs.
inline void emu_launch_coop(unsigned grid, unsigned block, const std::function<void()> &f)
{
	gridDim.x = grid;
	blockDim.x = block;
	std::vector<std::unique_ptr<emu_block>> blks;
	for (unsigned b = 0; b < grid; ++b) {
		blks.push_back(std::make_unique<emu_block>());
		blks[b]->bar = std::make_unique<std::barrier<>>(block);
		for (unsigned w = 0; w < (block + 31) / 32; ++w)
			blks[b]->warps.push_back(std::make_unique<emu_warp>());
	}
	std::vector<std::thread> ts;
	for (unsigned b = 0; b < grid; ++b)
		for (unsigned t = 0; t < block; ++t)
			ts.emplace_back([&, t, b] {
				threadIdx.x = t;
				blockIdx.x = b;
				emu_cur_block = blks[b].get();
				emu_cur_warp = blks[b]->warps[t / 32].get();
				f();
			});
	for (auto &t : ts)
		t.join();
}

template <class T> T __shfl_xor_sync(unsigned, T v, int mask)
{
	int lane = threadIdx.x & 31;
	return emu_exchange(v, (lane ^ mask) & 31);
}

// ---- fibers (emu_launch_fibers) ----

struct emu_fiber {
	void *sp = nullptr;
	bool done = false;
	std::unique_ptr<unsigned char[]> stack;
};

struct emu_fibers {
	void *main_sp = nullptr;
	std::vector<emu_fiber> f;
	int cur = 0, n = 0, live = 0;
	int bar_count = 0, bar_gen = 0;
	int wcount[32] = {}, wgen[32] = {};
	emu_block blk; // the warps' shuffle buffers
	const std::function<void()> *fn = nullptr;
};

static const size_t emu_fiber_stack = 256 << 10;

#if defined(__x86_64__)
// emu_switch saves the callee-saved registers and the stack pointer to
// *save and resumes the context whose stack pointer is next.
extern "C" void emu_switch(void **save, void *next);
asm(R"(
	.text
	.globl emu_switch
	.type emu_switch, @function
emu_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
)");
#else
#error "the fiber emulation needs x86-64"
#endif

// emu_yield switches from the running fiber back to the scheduler.
inline void emu_yield()
{
	emu_fibers &s = *emu_fs;
	emu_switch(&s.f[s.cur].sp, s.main_sp);
}

extern "C" void emu_fiber_entry()
{
	emu_fibers &s = *emu_fs;
	(*s.fn)();
	s.f[s.cur].done = true;
	s.live--;
	emu_switch(&s.f[s.cur].sp, s.main_sp);
	abort(); // never resumed
}

inline void emu_fiber_sync_block()
{
	emu_fibers &s = *emu_fs;
	const int g = s.bar_gen;
	if (++s.bar_count == s.n) {
		s.bar_count = 0;
		s.bar_gen++;
		return;
	}
	while (s.bar_gen == g)
		emu_yield();
}

inline void emu_fiber_sync_warp()
{
	emu_fibers &s = *emu_fs;
	const int w = threadIdx.x >> 5;
	const int size = s.n - 32 * w < 32 ? s.n - 32 * w : 32;
	const int g = s.wgen[w];
	if (++s.wcount[w] == size) {
		s.wcount[w] = 0;
		s.wgen[w]++;
		return;
	}
	while (s.wgen[w] == g)
		emu_yield();
}

// emu_launch_fibers runs f on every thread of every block, blocks in order,
// each block's threads as fibers scheduled round robin.
inline void emu_launch_fibers(unsigned grid, unsigned block, const std::function<void()> &f)
{
	static emu_fibers s;
	gridDim.x = grid;
	blockDim.x = block;
	if (s.f.size() < block) {
		s.f.resize(block);
		for (auto &x : s.f)
			if (!x.stack)
				x.stack.reset(new unsigned char[emu_fiber_stack]);
	}
	s.blk.warps.clear();
	for (unsigned w = 0; w < (block + 31) / 32; ++w)
		s.blk.warps.push_back(std::make_unique<emu_warp>());
	s.fn = &f;
	s.n = (int)block;
	emu_fs = &s;
	emu_cur_block = &s.blk;
	for (unsigned b = 0; b < grid; ++b) {
		blockIdx.x = b;
		s.bar_count = 0;
		memset(s.wcount, 0, sizeof s.wcount);
		for (unsigned t = 0; t < block; ++t) {
			// A fresh stack whose first switch "returns" into emu_fiber_entry.
			uintptr_t top = ((uintptr_t)s.f[t].stack.get() + emu_fiber_stack) & ~(uintptr_t)15;
			void **sp = (void **)top;
			*--sp = nullptr;                     // emu_fiber_entry's return address (never used)
			*--sp = (void *)&emu_fiber_entry;    // where emu_switch returns to
			for (int r = 0; r < 6; ++r)
				*--sp = nullptr;             // rbp, rbx, r12-r15
			s.f[t].sp = sp;
			s.f[t].done = false;
		}
		s.live = (int)block;
		while (s.live > 0) {
			for (unsigned t = 0; t < block; ++t) {
				if (s.f[t].done)
					continue;
				s.cur = (int)t;
				threadIdx.x = t;
				emu_cur_warp = s.blk.warps[t / 32].get();
				emu_switch(&s.main_sp, s.f[t].sp);
			}
		}
	}
	emu_fs = nullptr;
}
