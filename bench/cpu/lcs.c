/*
 * lcs.c: length of the longest common subsequence of two sequences, the
 * plain single-threaded peer of `dpgpu solve -b cpu -t 1 lcs A B`.
 *
 *   lcs A B        A, B: .fa/.fasta/.fna (first record) or .txt files
 *
 * prints the length on stdout. This is the textbook O(nm) recurrence of
 * problems/lcs.dp swept row by row with two rows of the grid, the loop a
 * programmer writes first, compiled with gcc -O3 -march=native: it is the
 * measuring stick of issue #18, so it is deliberately not bit-parallel and
 * not hand-vectorised (parasail and edlib are the rows for that).
 */
#include "common.h"

int main(int argc, char **argv) {
	peer_start("lcs", argc, 2, "A B (sequence files: .fa, .fasta, .fna or .txt)");
	sequence a = read_sequence(argv[1]);
	sequence b = read_sequence(argv[2]);
	/* Every value lies in 0..min(n, m): int32 holds it for any sequence
	 * shorter than 2^31, as checked below. */
	if (a.n >= INT32_MAX || b.n >= INT32_MAX)
		fail(EXIT_INPUT, NULL, 0, "sequences of %zu and %zu characters: at most 2^31-2 each", a.n, b.n);
	size_t m = b.n;
	int32_t *prev = xmalloc(mul_size(m + 1, sizeof *prev, "a row"), "a row");
	int32_t *cur = xmalloc(mul_size(m + 1, sizeof *cur, "a row"), "a row");
	for (size_t j = 0; j <= m; j++)
		prev[j] = 0;
	const char *B = b.s;
	for (size_t i = 1; i <= a.n; i++) {
		const char ai = a.s[i - 1];
		cur[0] = 0;
		for (size_t j = 1; j <= m; j++) {
			/* Both candidates, then a select: gcc makes it a conditional
			 * move, where an if on "equal" would be a branch that random
			 * DNA mispredicts a quarter of the time. */
			int32_t diag = prev[j - 1] + 1;
			int32_t best = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
			cur[j] = ai == B[j - 1] ? diag : best;
		}
		int32_t *t = prev;
		prev = cur;
		cur = t;
	}
	printf("%d\n", prev[m]);
	return 0;
}
