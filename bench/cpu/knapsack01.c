/*
 * knapsack01.c: 0/1 knapsack, the plain single-threaded peer of
 * `dpgpu solve -b cpu -t 1 knapsack FILE`.
 *
 *   knapsack01 FILE     FILE in Pisinger's format
 *
 * prints the best total value on stdout. The format is that of
 * problems/formats/knapsack.go: the numbers "n c", then n pairs "profit
 * weight", then optionally n 0/1 values (a published optimal solution, read
 * and ignored); only the order of the numbers matters, '#' lines are
 * comments. The DP is the usual one row over capacities 0..c, each item
 * folded in from the top capacity down so that it is taken at most once:
 *
 *   best[w] = max(best[w], best[w - weight] + profit)   for w = c .. weight
 *
 * which gcc vectorises. The answer is best[c], the last cell of
 * problems/knapsack.dp's grid.
 */
#include "common.h"

/* The DP in a given value type: int32 when no sum of profits can leave its
 * range (twice as many lanes per vector), else int64. */
#define KNAPSACK(NAME, T)                                                        \
	static int64_t NAME(size_t n, int64_t cap, const int64_t *p, const int64_t *w) { \
		T *best = xmalloc(mul_size((size_t)cap + 1, sizeof(T), "the row"), "the row"); \
		for (int64_t c = 0; c <= cap; c++)                                       \
			best[c] = 0;                                                         \
		for (size_t k = 0; k < n; k++) {                                         \
			const int64_t wk = w[k];                                             \
			const T pk = (T)p[k];                                                \
			if (wk > cap)                                                        \
				continue;                                                        \
			for (int64_t c = cap; c >= wk; c--) {                                \
				T take = best[c - wk] + pk;                                      \
				best[c] = take > best[c] ? take : best[c];                       \
			}                                                                    \
		}                                                                        \
		int64_t r = best[cap];                                                   \
		free(best);                                                              \
		return r;                                                                \
	}
KNAPSACK(solve32, int32_t)
KNAPSACK(solve64, int64_t)

int main(int argc, char **argv) {
	peer_start("knapsack01", argc, 1, "FILE (Pisinger's format)");
	file_buf f = read_file(argv[1]);
	scanner s = scan_file(&f);
	int64_t n, cap;
	if (!next_int(&s, &n) || !next_int(&s, &cap))
		fail(EXIT_INPUT, f.name, 0, "expected a first line \"n capacity\"");
	long nline = s.line;
	if (n < 1)
		fail(EXIT_INPUT, f.name, nline, "number of items %lld must be at least 1", (long long)n);
	if (cap < 0)
		fail(EXIT_INPUT, f.name, nline, "capacity %lld is negative", (long long)cap);
	if ((uint64_t)n > f.n / 2) /* every item takes at least "p w" */
		fail(EXIT_INPUT, f.name, 0, "%lld items cannot fit in a file of %zu bytes", (long long)n, f.n);
	if ((uint64_t)cap >= SIZE_MAX / sizeof(int64_t))
		fail(EXIT_INPUT, f.name, nline, "capacity %lld is too large for a row of capacities", (long long)cap);
	int64_t *p = xmalloc(mul_size((size_t)n, sizeof *p, "profits"), "profits");
	int64_t *w = xmalloc(mul_size((size_t)n, sizeof *w, "weights"), "weights");
	/* Bound every partial sum: the largest |value| any cell can reach is the
	 * sum of |profit| (saturating, so the check itself cannot wrap). */
	uint64_t reach = 0;
	for (int64_t k = 0; k < n; k++) {
		if (!next_int(&s, &p[k]) || !next_int(&s, &w[k]))
			fail(EXIT_INPUT, f.name, s.line, "expected %lld items (profit weight), the file ends after %lld", (long long)n, (long long)k);
		if (w[k] < 0)
			fail(EXIT_INPUT, f.name, s.line, "item %lld has a negative weight %lld", (long long)k + 1, (long long)w[k]);
		uint64_t a = p[k] < 0 ? (uint64_t)0 - (uint64_t)p[k] : (uint64_t)p[k];
		reach = reach > UINT64_MAX - a ? UINT64_MAX : reach + a;
	}
	/* After the items: nothing, or a 0/1 solution vector of n values. */
	int64_t x, extra = 0;
	long first_extra = 0;
	while (next_int(&s, &x)) {
		if (extra == 0)
			first_extra = s.line;
		if (extra < n && x != 0 && x != 1)
			fail(EXIT_INPUT, f.name, s.line, "solution vector value %lld for item %lld is not 0 or 1", (long long)x, (long long)extra + 1);
		extra++;
	}
	if (extra != 0 && extra != n)
		fail(EXIT_INPUT, f.name, first_extra, "after the %lld items expected nothing or a 0/1 solution vector of %lld values, found %lld values",
		     (long long)n, (long long)n, (long long)extra);
	int64_t best;
	if (reach <= INT32_MAX)
		best = solve32((size_t)n, cap, p, w);
	else if (reach <= INT64_MAX)
		best = solve64((size_t)n, cap, p, w);
	else
		fail(EXIT_INPUT, f.name, 0, "the profits sum beyond 64 bits");
	printf("%lld\n", (long long)best);
	return 0;
}
