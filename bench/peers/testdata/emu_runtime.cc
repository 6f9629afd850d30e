// emu_runtime.cc runs the reference kernels of bench/peers on the host, so
// that their answers are checked on a machine without a GPU (emu_test.go
// links it with one kernel source and the generated dispatch).
//
// Every GPU thread of a block is a fiber (ucontext) on the one host thread;
// the fibers run in turn until they wait at a barrier, so the emulation is
// deterministic and costs no OS scheduling. A warp shuffle is an exchange
// through a per-warp buffer between two barriers of the warp's 32 fibers;
// __syncthreads is a barrier of the block. The blocks of a launch run one
// after another, one valid schedule of independent blocks. Lanes that leave
// a warp while others still shuffle never let the barrier complete: the
// emulation says so and fails (on the GPU that is undefined behaviour).
//
// main runs the script named by argv[1], one command a line, on buffers in
// host memory:
//   alloc ID BYTES            zeroed buffer ID
//   load ID PATH              the file's bytes into the start of ID
//   memset ID VALUE BYTES     the first BYTES of ID set to VALUE
//   launch NAME GRID BLOCK N  then N arguments: "p ID" (a buffer) or "i V"
//   dump ID OFF BYTES PATH    BYTES of ID from OFF into the file, then
//                             "dumped" on stdout
#include "peers_emu.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <ucontext.h>
#include <vector>

peer_dim3 threadIdx{0, 0, 0}, blockIdx{0, 0, 0}, blockDim{1, 1, 1}, gridDim{1, 1, 1};

namespace {

// barrier_t is a barrier of count fibers.
struct barrier_t {
	unsigned count = 0, arrived = 0;
	unsigned long long phase = 0;
};

struct fiber {
	ucontext_t ctx;
	std::unique_ptr<char[]> stack;
	bool done = false;
	barrier_t *waiting = nullptr;      // the barrier waited at, if any
	unsigned long long phase = 0; // its phase when the wait began
};

constexpr size_t stack_bytes = 256 << 10;
ucontext_t sched;
std::vector<fiber> fibers;
fiber *cur;
void (*kernel)();
std::vector<barrier_t> warps;
barrier_t block_sync;
unsigned long long slot[1024];

// arrive arrives at s and, unless last, gives the host thread back until the
// last fiber arrives.
void arrive(barrier_t &s)
{
	const unsigned long long ph = s.phase;
	if (++s.arrived == s.count) {
		s.arrived = 0;
		++s.phase;
		return;
	}
	cur->waiting = &s;
	cur->phase = ph;
	swapcontext(&cur->ctx, &sched);
}

void fiber_main()
{
	kernel();
	cur->done = true; // returning resumes sched (uc_link)
}

[[noreturn]] void fail(const std::string &msg)
{
	fprintf(stderr, "emulation: %s\n", msg.c_str());
	fflush(stderr);
	_Exit(3);
}

} // namespace

void __syncthreads() { arrive(block_sync); }
void __syncwarp(unsigned) { arrive(warps[threadIdx.x / 32]); }

unsigned long long peer_exchange_bits(unsigned long long bits, int src)
{
	slot[threadIdx.x] = bits;
	__syncwarp();
	bits = slot[(threadIdx.x & ~31u) + (unsigned)src];
	__syncwarp();
	return bits;
}

void peer_launch(unsigned grid, unsigned block, void (*run)())
{
	if (block == 0 || block % 32 != 0 || block > 1024)
		fail("blocks of " + std::to_string(block) + " threads (want a multiple of 32 up to 1024)");
	gridDim.x = grid;
	blockDim.x = block;
	kernel = run;
	if (fibers.size() < block)
		fibers.resize(block);
	warps.assign(block / 32, barrier_t{});
	for (auto &w : warps)
		w.count = 32;
	for (unsigned b = 0; b < grid; ++b) {
		blockIdx.x = b;
		block_sync = barrier_t{};
		block_sync.count = block;
		for (unsigned t = 0; t < block; ++t) {
			fiber &f = fibers[t];
			if (!f.stack)
				f.stack.reset(new char[stack_bytes]);
			getcontext(&f.ctx);
			f.ctx.uc_stack.ss_sp = f.stack.get();
			f.ctx.uc_stack.ss_size = stack_bytes;
			f.ctx.uc_link = &sched;
			makecontext(&f.ctx, fiber_main, 0);
			f.done = false;
			f.waiting = nullptr;
		}
		for (unsigned left = block; left > 0;) {
			bool ran = false;
			for (unsigned t = 0; t < block; ++t) {
				fiber &f = fibers[t];
				if (f.done || (f.waiting && f.waiting->phase == f.phase))
					continue;
				f.waiting = nullptr;
				cur = &f;
				threadIdx.x = t;
				swapcontext(&sched, &f.ctx);
				ran = true;
				if (f.done)
					--left;
			}
			if (!ran)
				fail("block " + std::to_string(b) + ": " + std::to_string(left) +
				     " threads wait at a barrier that the others never reach");
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: emu SCRIPT\n");
		return 2;
	}
	std::ifstream in(argv[1]);
	std::map<long long, std::vector<unsigned char>> bufs; // new[]: 16-byte aligned, exact size (for ASan)
	std::map<long long, long long> sizes;
	std::string op;
	auto need = [&](long long id, long long off, long long n) -> unsigned char * {
		if (!sizes.count(id) || off < 0 || n < 0 || off + n > sizes[id]) {
			fprintf(stderr, "emulation: bytes %lld..%lld of buffer %lld are out of range\n", off, off + n, id);
			fflush(stderr);
			_Exit(3);
		}
		return bufs[id].data() + off;
	};
	while (in >> op) {
		if (op == "alloc") {
			long long id, n;
			in >> id >> n;
			bufs[id].assign(n, 0);
			sizes[id] = n;
		} else if (op == "load") {
			long long id;
			std::string path;
			in >> id >> path;
			std::ifstream f(path, std::ios::binary);
			std::vector<char> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
			memcpy(need(id, 0, data.size()), data.data(), data.size());
		} else if (op == "memset") {
			long long id, v, n;
			in >> id >> v >> n;
			memset(need(id, 0, n), (int)v, n);
		} else if (op == "launch") {
			std::string name;
			unsigned grid, block;
			int n;
			in >> name >> grid >> block >> n;
			std::vector<peer_arg> args(n);
			for (auto &a : args) {
				std::string kind;
				long long v;
				in >> kind >> v;
				a.p = kind == "p" ? (void *)need(v, 0, 0) : nullptr;
				a.v = v;
			}
			if (!peer_dispatch(name.c_str(), grid, block, args.data(), n)) {
				fprintf(stderr, "emulation: no kernel %s\n", name.c_str());
				fflush(stderr);
				_Exit(3);
			}
		} else if (op == "dump") {
			long long id, off, n;
			std::string path;
			in >> id >> off >> n >> path;
			std::ofstream f(path, std::ios::binary);
			f.write((const char *)need(id, off, n), n);
			f.close();
			printf("dumped\n"); // the Go side waits for this line
			fflush(stdout);
		} else {
			fprintf(stderr, "emulation: unknown command %s\n", op.c_str());
			fflush(stderr);
			_Exit(3);
		}
	}
	return 0;
}
