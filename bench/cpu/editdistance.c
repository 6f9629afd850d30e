/*
 * editdistance.c: edit distance of two sequences, the plain single-threaded
 * peer of `dpgpu solve -b cpu -t 1 editdistance A B`.
 *
 *   editdistance [-i INS] [-d DEL] [-s SUB] A B
 *
 * The costs default to those of problems/editdistance.dp (insertion 1,
 * deletion 1, substitution 2); unit edit distance (Levenshtein) is -s 1, as
 * `dpgpu solve editdistance --set sub=1`. Prints the distance on stdout.
 * The recurrence is that of the built-in, swept row by row with two rows:
 *
 *   cell[0][j] = j*ins, cell[i][0] = i*del,
 *   cell[i][j] = min(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : sub),
 *                    cell[i-1][j] + del, cell[i][j-1] + ins)
 *
 * Deliberately the plain loop (no bit-parallel Myers, no SIMD by hand): it
 * is the measuring stick of issue #18; edlib is the row for the fast kind.
 */
#include "common.h"

/* cost parses a non-negative cost option. Negative costs would make the
 * int64 bound below meaningless, and dpgpu's built-in never needs them. */
static int64_t cost(const char *opt, const char *s) {
	char *e;
	errno = 0;
	long long v = strtoll(s, &e, 10);
	if (*s == 0 || *e != 0 || errno == ERANGE || v < 0 || v > INT32_MAX)
		fail(EXIT_INPUT, NULL, 0, "-%s %s: want an integer cost in 0..%d", opt, s, INT32_MAX);
	return v;
}

int main(int argc, char **argv) {
	prog_name = "editdistance";
	int64_t ins = 1, del = 1, sub = 2;
	int c;
	while ((c = getopt(argc, argv, "i:d:s:")) != -1) {
		switch (c) {
		case 'i': ins = cost("i", optarg); break;
		case 'd': del = cost("d", optarg); break;
		case 's': sub = cost("s", optarg); break;
		default:
			fail(EXIT_INPUT, NULL, 0, "usage: editdistance [-i INS] [-d DEL] [-s SUB] A B");
		}
	}
	if (argc - optind != 2)
		fail(EXIT_INPUT, NULL, 0, "usage: editdistance [-i INS] [-d DEL] [-s SUB] A B");
	sequence a = read_sequence(argv[optind]);
	sequence b = read_sequence(argv[optind + 1]);
	/* No value exceeds n*del + m*ins (the path along the edges), so int32
	 * holds every cell when that bound does; anything larger is refused
	 * rather than wrapped. */
	double bound = (double)a.n * (double)del + (double)b.n * (double)ins;
	if (bound > (double)INT32_MAX - (double)(sub > del + ins ? sub : del + ins))
		fail(EXIT_INPUT, NULL, 0, "sequences of %zu and %zu characters with these costs may exceed 32 bits", a.n, b.n);
	const int32_t I = (int32_t)ins, D = (int32_t)del, S = (int32_t)sub;
	size_t m = b.n;
	int32_t *prev = xmalloc(mul_size(m + 1, sizeof *prev, "a row"), "a row");
	int32_t *cur = xmalloc(mul_size(m + 1, sizeof *cur, "a row"), "a row");
	for (size_t j = 0; j <= m; j++)
		prev[j] = (int32_t)j * I;
	const char *B = b.s;
	for (size_t i = 1; i <= a.n; i++) {
		const char ai = a.s[i - 1];
		cur[0] = (int32_t)i * D;
		for (size_t j = 1; j <= m; j++) {
			/* The substitution cost as arithmetic, not a branch: on random
			 * DNA a branch on "equal" mispredicts a quarter of the time. */
			int32_t v = prev[j - 1] + (int32_t)(ai != B[j - 1]) * S;
			int32_t up = prev[j] + D, left = cur[j - 1] + I;
			if (up < v)
				v = up;
			if (left < v)
				v = left;
			cur[j] = v;
		}
		int32_t *t = prev;
		prev = cur;
		cur = t;
	}
	printf("%d\n", prev[m]);
	return 0;
}
