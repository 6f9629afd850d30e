
// ---- host program (templates/host_prelude.cu): what the device code needs on the CPU ----
//
// The program is C++ for the system's compiler (codegen.GenerateHost). The
// preamble and the recurrence are the GPU's, included twice: in namespace
// dp_fast every check only raises the flag of its cell (dp_lv::bad), a
// branch-free form the compiler vectorises; in dp_slow a check reports the
// first error (dp_host_fail), for the rare chunk whose flags were raised.
// Nothing here is global mutable state: a run's inputs, buffers and
// control block are passed in, so that runs of one library may overlap.

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define __device__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

static inline double __longlong_as_double(long long x)
{
	double d;
	memcpy(&d, &x, sizeof d);
	return d;
}
static inline long long __double_as_longlong(double x)
{
	long long d;
	memcpy(&d, &x, sizeof d);
	return d;
}
static inline float __int_as_float(int x)
{
	float f;
	memcpy(&f, &x, sizeof f);
	return f;
}
static inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * (__int128)y) >> 64); }

typedef DP_CELL_T cell_t;

// The run's control block, shared with backend/native (same layout: every
// field at its natural alignment, 104 bytes).
struct dp_host_ctl {
	long long done;  // cells computed so far (progress)
	int abort;       // set by Go (Ctrl-C) or by a worker that failed
	int threads;     // workers
	int code, site;  // the first error (codegen.Err*), 0 if none
	long long i, j;  // the cell being computed
	long long a, b;  // what it read
	long long pidx;  // the region answer (dp_part_t): best cell,
	long long piv;   // integer value or sum,
	double pfv;      // floating value or sum,
	int pany;        // whether a cell was seen,
	int pfl;         // integer sum flags
	long long winLo, winHi; // the kept grid holds columns winLo..winHi-1 (0, 0: all of them);
	                        // a forward strip sweep stops after column winHi-1
	int ran;                // the workers that ran the sweep (dp_host_run; 0: not said)
	int force;              // tests: the rows sweep's probe kept all workers (1), and they
	                        // take tickets from line 3 * probe (2) (dp_work); the scan's
	                        // workers stall 2 ms before leaving every 16th row (3)
	int inplace;            // the rows sweep kept one line, each row computed over the one
	                        // before (DP_INPLACE; dp_host_run)
};

// dp_host_fail records the first error of the run and stops it.
static __attribute__((noinline)) void dp_host_fail(dp_host_ctl *c, int code, int site, long long i, long long j, long long a, long long b)
{
	int zero = 0;
	if (__atomic_compare_exchange_n(&c->code, &zero, -1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		c->site = site;
		c->i = i;
		c->j = j;
		c->a = a;
		c->b = b;
		__atomic_store_n(&c->code, code, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&c->abort, 1, __ATOMIC_RELEASE);
}

// dp_host_note keeps in c (a worker's own block) the error of the first
// cell in row-major order: what the slow pass reports.
static __attribute__((noinline)) void dp_host_note(dp_host_ctl *c, int code, int site, long long i, long long j, long long a, long long b)
{
	if (c->code == 0 || i < c->i || (i == c->i && j < c->j)) {
		c->code = code;
		c->site = site;
		c->i = i;
		c->j = j;
		c->a = a;
		c->b = b;
	}
}

// dp_lv is what the checking helpers take as DP_LIVE_T: whether the cell is
// live (padding lanes of a strip are not), its error flag (dp_fast) and
// where to report (dp_slow).
struct dp_lv {
	int lv;
	int bad;
	dp_host_ctl *ctl;
	inline operator bool() const { return lv != 0; }
};
