/*
 * matrixchain.c: the fewest scalar multiplications of a chain of matrices,
 * the plain single-threaded peer of `dpgpu solve -b cpu -t 1 matrix-chain
 * FILE`.
 *
 *   matrixchain FILE     FILE: the dimensions d0 d1 ... dn (whitespace or
 *                        commas; `dpgpu gen-data ints` writes them)
 *
 * prints the cost on stdout. Matrix k is d[k] x d[k+1]; the textbook O(n^3)
 * interval DP (CLRS 15.2) by increasing chain length over an n x n table,
 * the loop a programmer writes first (the column walk m[k+1][j] included),
 * compiled with gcc -O3 -march=native: the measuring stick of issues #10
 * and #18 for interval DP on the CPU.
 */
#include "common.h"

int main(int argc, char **argv) {
	peer_start("matrixchain", argc, 1, "FILE (the dimensions d0 d1 ... dn)");
	file_buf f = read_file(argv[1]);
	scanner s = scan_file(&f);
	size_t cap = 1024, len = 0;
	int64_t *d = xmalloc(cap * sizeof *d, "the dimensions");
	int64_t x;
	while (next_int(&s, &x)) {
		if (x < 1 || x > 1000000)
			fail(EXIT_INPUT, f.name, s.line, "dimension %lld is outside 1..1000000", (long long)x);
		if (len == cap) {
			cap *= 2;
			int64_t *nd = realloc(d, mul_size(cap, sizeof *d, "the dimensions"));
			if (!nd)
				fail(EXIT_INPUT, f.name, 0, "cannot hold %zu dimensions", cap);
			d = nd;
		}
		d[len++] = x;
	}
	if (len < 2)
		fail(EXIT_INPUT, f.name, 0, "%zu dimensions: a chain needs at least 2", len);
	const size_t n = len - 1;
	int64_t *m = xmalloc(mul_size(mul_size(n, n, "the table"), sizeof *m, "the table"), "the table");
	for (size_t i = 0; i < n; i++)
		m[i * n + i] = 0;
	for (size_t l = 1; l < n; l++) {
		for (size_t i = 0; i + l < n; i++) {
			const size_t j = i + l;
			int64_t best = INT64_MAX;
			for (size_t k = i; k < j; k++) {
				/* Dimensions up to 10^6 keep a product below 10^18; a sum
				 * that leaves 64 bits is an error, not a wrong answer. */
				int64_t v;
				if (__builtin_add_overflow(m[i * n + k], m[(k + 1) * n + j], &v) ||
				    __builtin_add_overflow(v, d[i] * d[k + 1] * d[j + 1], &v))
					fail(EXIT_INPUT, f.name, 0, "the cost of matrices %zu..%zu leaves 64 bits", i + 1, j + 1);
				best = v < best ? v : best;
			}
			m[i * n + j] = best;
		}
	}
	printf("%lld\n", (long long)m[n - 1]);
	return 0;
}
