/*
 * common.h: file reading and number parsing shared by the plain C peer
 * programs of bench/cpu (see README.md). Each peer is one .c file that
 * includes this header and nothing else of ours, so that it builds with a
 * single `cc -O3 -march=native -o peer peer.c`.
 *
 * The readers follow the rules of dpgpu's problems/formats package closely
 * enough that a peer and `dpgpu solve` read the same values from the same
 * file: '#' comment lines and blank lines are skipped, integers may be written
 * as integral floats ("3.0", "1e3"), FASTA letters are upper-cased, and
 * character data must be printable ASCII. A peer exists to be timed against
 * dpgpu, so the readers are written for speed (one read of the whole file,
 * no per-value allocation), but never at the price of a silently wrong value:
 * anything they cannot read exactly stops the program with "file:line:
 * message" and exit status 2 (1 for internal failures, such as running out
 * of memory for a buffer the input did not ask for).
 */
#ifndef BENCH_CPU_COMMON_H
#define BENCH_CPU_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Exit statuses, as dpgpu uses them. */
enum { EXIT_INPUT = 2, EXIT_INTERNAL = 1 };

static const char *prog_name = "peer";

/* Not every peer uses every helper. */
#define PEER_FN static __attribute__((unused))

/* fail prints "prog: [file:[line:]] message" and exits with status. */
static void fail(int status, const char *file, long line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));
static void fail(int status, const char *file, long line, const char *fmt, ...) {
	va_list ap;
	fprintf(stderr, "%s: ", prog_name);
	if (file && line > 0)
		fprintf(stderr, "%s:%ld: ", file, line);
	else if (file)
		fprintf(stderr, "%s: ", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* peer_start names the peer in its messages and checks that it was given
 * nargs arguments, failing (exit 2) with "usage: NAME USAGE" otherwise. */
PEER_FN void peer_start(const char *name, int argc, int nargs, const char *usage) {
	prog_name = name;
	if (argc != nargs + 1)
		fail(EXIT_INPUT, NULL, 0, "usage: %s %s", name, usage);
}

/* xmalloc allocates n bytes for data the input asked for: a failure is the
 * input's size (exit 2, with what was wanted), not an internal fault. */
PEER_FN void *xmalloc(size_t n, const char *what) {
	void *p = malloc(n ? n : 1);
	if (!p)
		fail(EXIT_INPUT, NULL, 0, "cannot allocate %.1f MiB for %s", (double)n / (1 << 20), what);
	return p;
}

/* mul_size multiplies sizes, failing (exit 2) on overflow. */
PEER_FN size_t mul_size(size_t a, size_t b, const char *what) {
	if (b && a > SIZE_MAX / b)
		fail(EXIT_INPUT, NULL, 0, "%s: size overflows", what);
	return a * b;
}

/* A whole file in memory, NUL-terminated so that scanners may look one
 * byte past the last one. */
typedef struct {
	const char *name;
	char *p;
	size_t n;
} file_buf;

PEER_FN file_buf read_file(const char *path) {
	file_buf f = {path, NULL, 0};
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		fail(EXIT_INPUT, path, 0, "%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0)
		fail(EXIT_INPUT, path, 0, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		fail(EXIT_INPUT, path, 0, "not a regular file");
	size_t cap = (size_t)st.st_size + 1;
	f.p = xmalloc(cap, path);
	for (;;) {
		if (f.n + 1 == cap) { /* the file grew while being read */
			cap *= 2;
			char *q = realloc(f.p, cap);
			if (!q)
				fail(EXIT_INPUT, path, 0, "cannot allocate %.1f MiB", (double)cap / (1 << 20));
			f.p = q;
		}
		ssize_t r = read(fd, f.p + f.n, cap - 1 - f.n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fail(EXIT_INPUT, path, 0, "%s", strerror(errno));
		}
		if (r == 0)
			break;
		f.n += (size_t)r;
	}
	close(fd);
	f.p[f.n] = 0;
	return f;
}

/* next_line returns the end of the line that starts at *p, its '\n' (or end
 * for a last line without one), and moves *p to the start of the next line. */
PEER_FN inline const char *next_line(const char **p, const char *end) {
	const char *eol = memchr(*p, '\n', (size_t)(end - *p));
	if (!eol)
		eol = end;
	*p = eol + (eol < end);
	return eol;
}

PEER_FN inline int is_space(unsigned char c) {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/*
 * A scanner hands out the whitespace-separated tokens of a numeric text file
 * with the line each is on. A line whose first non-blank character is '#' is
 * a comment, as in dpgpu's text formats; '#' later in a line is not special
 * (it then fails to parse as a number, which is reported).
 */
typedef struct {
	const char *name;
	const char *p, *end, *begin;
	long line;     /* line of the current position, 1-based */
	int line_start; /* nothing but blanks since the last line end */
} scanner;

PEER_FN scanner scan_file(const file_buf *f) {
	scanner s = {f->name, f->p, f->p + f->n, f->p, 1, 1};
	return s;
}

/* next_token moves to the start of the next token, returning its length
 * (0 at the end of the file); *tok is set to it and s->line is its line. At
 * the end s->line is the file's last line, for "file ends" messages. */
PEER_FN inline size_t next_token(scanner *s, const char **tok) {
	const char *p = s->p, *end = s->end;
	for (;;) {
		while (p < end && is_space((unsigned char)*p)) {
			if (*p == '\n') {
				s->line++;
				s->line_start = 1;
			}
			p++;
		}
		if (p < end && *p == '#' && s->line_start) {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		break;
	}
	if (p == end && p > s->begin && p[-1] == '\n' && s->line_start) {
		s->line--; /* no line after the final line end */
		s->line_start = 0;
	}
	const char *q = p;
	while (q < end && !is_space((unsigned char)*q))
		q++;
	s->line_start = 0;
	s->p = q;
	*tok = p;
	return (size_t)(q - p);
}

/* parse_int parses a token as dpgpu's text formats do: a plain decimal, or
 * a float that is exactly an integer within the int64 range. */
PEER_FN int64_t parse_int(const scanner *s, const char *t, size_t n) {
	size_t i = 0;
	int neg = 0;
	if (n > 0 && (t[0] == '-' || t[0] == '+')) {
		neg = t[0] == '-';
		i = 1;
	}
	if (i < n && n - i <= 18) { /* fast path: 18 digits cannot overflow */
		int64_t v = 0;
		size_t j = i;
		for (; j < n; j++) {
			unsigned d = (unsigned char)t[j] - '0';
			if (d > 9)
				break;
			v = v * 10 + d;
		}
		if (j == n)
			return neg ? -v : v;
	}
	char buf[128];
	if (n >= sizeof buf)
		fail(EXIT_INPUT, s->name, s->line, "\"%.20s...\" is not a number", t);
	memcpy(buf, t, n);
	buf[n] = 0;
	char *e;
	errno = 0;
	long long ll = strtoll(buf, &e, 10);
	if (*e == 0 && e != buf) {
		if (errno == ERANGE)
			fail(EXIT_INPUT, s->name, s->line, "\"%s\" is outside the 64-bit integer range", buf);
		return ll;
	}
	errno = 0;
	double d = strtod(buf, &e);
	if (*e != 0 || e == buf || isnan(d))
		fail(EXIT_INPUT, s->name, s->line, "\"%s\" is not a number", buf);
	if (d != trunc(d) || isinf(d))
		fail(EXIT_INPUT, s->name, s->line, "\"%s\" is not an integer", buf);
	if (d < -9223372036854775808.0 || d >= 9223372036854775808.0)
		fail(EXIT_INPUT, s->name, s->line, "\"%s\" is outside the 64-bit integer range", buf);
	return (int64_t)d;
}

/* next_int reads the next integer; it returns 0 at the end of the file. */
PEER_FN inline int next_int(scanner *s, int64_t *v) {
	const char *t;
	size_t n = next_token(s, &t);
	if (n == 0)
		return 0;
	*v = parse_int(s, t, n);
	return 1;
}

/* check_char accepts what a dpgpu `char` input holds: printable ASCII other
 * than space. */
PEER_FN inline void check_char(const char *name, long line, long col, unsigned char c) {
	if (c < 0x21 || c > 0x7e)
		fail(EXIT_INPUT, name, line, "column %ld: byte 0x%02x is not a printable ASCII character", col, c);
}

/* A sequence of characters read from a file. */
typedef struct {
	char *s;
	size_t n;
} sequence;

PEER_FN int has_ext(const char *path, const char *ext) {
	size_t n = strlen(path), e = strlen(ext);
	return n > e && strcasecmp(path + n - e, ext) == 0;
}

/*
 * read_sequence reads a sequence as dpgpu reads a `char 1x?` input from a
 * positional file: .fa/.fasta/.fna is FASTA (the first record; whitespace
 * dropped, ';' comment lines skipped, letters upper-cased), .txt is plain
 * text (every non-blank character of every line that is neither blank nor a
 * '#' comment, in order). Other extensions are refused, as dpgpu does.
 */
PEER_FN sequence read_sequence(const char *path) {
	int fasta = has_ext(path, ".fa") || has_ext(path, ".fasta") || has_ext(path, ".fna");
	if (!fasta && !has_ext(path, ".txt"))
		fail(EXIT_INPUT, path, 0, "unknown sequence file extension (known: .txt, .fa, .fasta, .fna)");
	file_buf f = read_file(path);
	sequence q = {f.p, 0}; /* compacted in place: the output never overtakes the input */
	const char *p = f.p, *end = f.p + f.n;
	long line = 0, records = 0, header_line = 0;
	while (p < end) {
		line++;
		const char *b = p;
		const char *eol = next_line(&p, end);
		if (fasta && b < eol && *b == '>') {
			if (++records > 1)
				break; /* the first record is complete */
			header_line = line;
			continue;
		}
		if (fasta && b < eol && *b == ';')
			continue;
		const char *c = b;
		while (c < eol && is_space((unsigned char)*c))
			c++;
		if (c == eol || (*c == '#' && (!fasta || records == 0)))
			continue; /* blank, or a comment where dpgpu skips one */
		if (fasta && records == 0)
			fail(EXIT_INPUT, path, line, "sequence data before the first '>' header line; is this a FASTA file?");
		for (c = b; c < eol; c++) {
			unsigned char ch = (unsigned char)*c;
			if (is_space(ch))
				continue;
			if (fasta && ch >= 'a' && ch <= 'z')
				ch -= 'a' - 'A';
			check_char(path, line, (long)(c - b) + 1, ch);
			q.s[q.n++] = (char)ch;
		}
	}
	if (fasta && records == 0)
		fail(EXIT_INPUT, path, 0, "no FASTA record (no line starts with '>')");
	if (q.n == 0)
		fail(EXIT_INPUT, path, header_line, fasta ? "the first record has an empty sequence" : "holds no characters");
	return q;
}

#endif
