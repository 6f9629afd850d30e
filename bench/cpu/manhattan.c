/*
 * manhattan.c: Manhattan tourist, the plain single-threaded peer of
 * `dpgpu solve -b cpu -t 1 manhattan FILE`.
 *
 *   manhattan FILE     FILE as `dpgpu gen-data manhattan` writes it
 *
 * prints the weight of the heaviest south/east path on stdout. The format is
 * that of problems/formats/manhattan.go: '#' comment and blank lines
 * anywhere, a line "n m", n-1 lines of m integers (down[i][j]: the street
 * from (i,j) to (i+1,j)), then n lines of m-1 integers (right[i][j]: from
 * (i,j) to (i,j+1)). The program reads the whole file, parses both blocks
 * into int32 arrays (checking every line's length, as dpgpu does), and runs
 * the recurrence of problems/manhattan.dp row by row:
 *
 *   cell[i][j] = max(cell[i-1][j] + down[i-1][j], cell[i][j-1] + right[i][j-1])
 *
 * Parsing is most of the work for a 10,000 x 10,000 grid (a 0.6 GB file), so
 * this is the peer that measures how fast dpgpu loads its inputs.
 */
#include "common.h"

/* read_block parses rows lines of cols integers into out (row-major). Every
 * row must be one line: a row's values on one line, and the next row on a
 * later line than the one before (*last, updated), so that a missing or
 * extra value is reported on its line. */
static void read_block(scanner *s, const char *what, size_t rows, size_t cols, int32_t *out, long *last) {
	if (cols == 0)
		return; /* a block of empty rows has no lines */
	for (size_t i = 0; i < rows; i++) {
		int64_t v;
		if (!next_int(s, &v))
			fail(EXIT_INPUT, s->name, s->line, "file ends after %zu of the %zu lines of %s weights", i, rows, what);
		long line = s->line;
		if (line == *last)
			fail(EXIT_INPUT, s->name, line, "more values on this line than expected (the %s weights have %zu per line)", what, cols);
		*last = line;
		for (size_t j = 0;; j++) {
			if (v < INT32_MIN || v > INT32_MAX)
				fail(EXIT_INPUT, s->name, line, "weight %lld does not fit in 32 bits", (long long)v);
			out[i * cols + j] = (int32_t)v;
			if (j + 1 == cols)
				break;
			if (!next_int(s, &v) || s->line != line)
				fail(EXIT_INPUT, s->name, line, "line %zu of the %s weights has %zu values, want %zu", i + 1, what, j + 1, cols);
		}
	}
}

int main(int argc, char **argv) {
	peer_start("manhattan", argc, 1, "FILE");
	file_buf f = read_file(argv[1]);
	scanner s = scan_file(&f);
	int64_t n64, m64;
	if (!next_int(&s, &n64))
		fail(EXIT_INPUT, f.name, s.line, "expected a first line \"n m\" (rows and columns of intersections)");
	long head = s.line;
	if (!next_int(&s, &m64) || s.line != head)
		fail(EXIT_INPUT, f.name, head, "expected a first line \"n m\" (rows and columns of intersections)");
	if (n64 < 1 || m64 < 1 || n64 > (1LL << 31) || m64 > (1LL << 31))
		fail(EXIT_INPUT, f.name, head, "grid size %lld x %lld: both sides must be between 1 and 2^31", (long long)n64, (long long)m64);
	size_t n = (size_t)n64, m = (size_t)m64;
	/* Every value takes at least two bytes ("0 "), so a size the file cannot
	 * hold is refused before anything is allocated for it. */
	if ((double)(n - 1) * m + (double)n * (m - 1) > (double)f.n)
		fail(EXIT_INPUT, f.name, head, "a %zu x %zu grid needs more values than the file holds", n, m);
	int32_t *down = xmalloc(mul_size((n - 1) * m, sizeof *down, "down weights"), "down weights");
	int32_t *right = xmalloc(mul_size(n * (m - 1), sizeof *right, "right weights"), "right weights");
	long last = head;
	read_block(&s, "down", n - 1, m, down, &last);
	read_block(&s, "right", n, m - 1, right, &last);
	const char *t;
	if (next_token(&s, &t) != 0)
		fail(EXIT_INPUT, f.name, s.line, "unexpected data after the %zu x %zu grid's weights", n, m);

	/* Path weights reach at most (n+m) * 2^31 in magnitude: int64 holds
	 * them, so the DP itself needs no checks. */
	int64_t *cell = xmalloc(mul_size(m, sizeof *cell, "a row"), "a row");
	cell[0] = 0;
	for (size_t j = 1; j < m; j++)
		cell[j] = cell[j - 1] + right[j - 1];
	for (size_t i = 1; i < n; i++) {
		const int32_t *d = down + (i - 1) * m, *r = right + i * (m - 1);
		cell[0] += d[0];
		for (size_t j = 1; j < m; j++) {
			int64_t fromN = cell[j] + d[j], fromW = cell[j - 1] + r[j - 1];
			cell[j] = fromN > fromW ? fromN : fromW;
		}
	}
	printf("%lld\n", (long long)cell[m - 1]);
	return 0;
}
