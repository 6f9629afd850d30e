/*
 * heldkarp.c: exact travelling salesman by Held-Karp, the plain
 * single-threaded peer of `dpgpu solve -b cpu -t 1 tsp FILE`.
 *
 *   heldkarp FILE      a TSPLIB .tsp/.atsp file
 *
 * prints the optimal tour length on stdout. City 0 is the start; for a set X
 * of the other m = n-1 cities (a bit mask) and a city k in X, D[X][k] is the
 * shortest path from 0 through all of X ending at k:
 *
 *   D[{k}][k] = d(0,k),   D[X][k] = min over j in X-{k} of D[X-{k}][j] + d(j,k)
 *   tour      = min over k of D[all][k] + d(k,0)
 *
 * The table is the plain full one, 2^m rows of m values (3.4 GB of int32 for
 * fri26). It is "branchless" in the usual sense: a row holds a large INF for
 * every city outside its set, so the inner minimum runs over all m
 * predecessors with no membership test, a fixed-length loop the compiler
 * turns into vector min instructions. INF is small enough that INF plus any
 * distance does not overflow, and large enough that it never wins a minimum.
 *
 * The parser covers what dpgpu's problems/formats/tsplib.go reads for the
 * instances used here: EXPLICIT matrices in every TSPLIB EDGE_WEIGHT_FORMAT
 * (fri26, gr17, gr21: LOWER_DIAG_ROW; br17: FULL_MATRIX) and the coordinate
 * types EUC_2D, CEIL_2D, ATT and GEO (ulysses16), rounded as TSPLIB95
 * defines them. Other keywords and sections are refused or skipped as dpgpu
 * does, so a file dpgpu reads either gives the same matrix here or an error.
 */
#include "common.h"

/* maxCities bounds n: the table has 2^(n-1) rows, 2^29 rows of 29 int32 is
 * already 62 GB. */
enum { MAX_CITIES = 31 };

/* One line "KEY : value" of the specification part; returns the key
 * (upper-cased into key) and points *value at the rest of the line. */
static int spec_line(const char *p, const char *eol, char *key, size_t keycap, const char **value, const char **vend) {
	while (p < eol && is_space((unsigned char)*p))
		p++;
	size_t k = 0;
	while (p < eol && *p != ':' && !is_space((unsigned char)*p)) {
		if (k + 1 < keycap)
			key[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		p++;
	}
	key[k] = 0;
	while (p < eol && is_space((unsigned char)*p))
		p++;
	if (p < eol && *p == ':')
		p++;
	while (p < eol && is_space((unsigned char)*p))
		p++;
	const char *e = eol;
	while (e > p && is_space((unsigned char)e[-1]))
		e--;
	*value = p;
	*vend = e;
	return k > 0;
}

static double geo_radians(double x) {
	const double pi = 3.141592; /* TSPLIB's truncated pi */
	double deg = trunc(x);
	return pi * (deg + 5.0 * (x - deg) / 3.0) / 180.0;
}

static int64_t nint(double x) { return (int64_t)(x + 0.5); }

static int is_number_start(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.'; }

/* sec_int reads the next number of a data section; it returns 0 where the
 * section ends (end of file, or a keyword such as EOF) without consuming
 * the keyword. *last is the line of the last number read. */
static int sec_int(scanner *s, int64_t *v, long *last) {
	scanner save = *s;
	const char *t;
	size_t n = next_token(s, &t);
	if (n == 0 || !is_number_start(*t)) {
		*s = save;
		return 0;
	}
	*v = parse_int(s, t, n);
	*last = s->line;
	return 1;
}

/* read_tsplib returns the n x n matrix (row = from, column = to). */
static int64_t *read_tsplib(const char *path, int *np) {
	file_buf f = read_file(path);
	char type[32] = "", ewt[32] = "", ewf[32] = "";
	long n = -1, dim_line = 0;
	const char *sec = NULL; /* start of the data section we need */
	long sec_line = 0;
	int coords = 0;
	const char *p = f.p, *end = f.p + f.n;
	long line = 0;
	while (p < end && !sec) {
		line++;
		const char *b = p;
		const char *eol = next_line(&p, end);
		char key[40];
		const char *v, *ve;
		if (!spec_line(b, eol, key, sizeof key, &v, &ve))
			continue; /* blank */
		char val[32];
		size_t vn = (size_t)(ve - v) < sizeof val - 1 ? (size_t)(ve - v) : sizeof val - 1;
		for (size_t i = 0; i < vn; i++)
			val[i] = (char)(v[i] >= 'a' && v[i] <= 'z' ? v[i] - 32 : v[i]);
		val[vn] = 0;
		if (!strcmp(key, "EOF"))
			break;
		else if (!strcmp(key, "TYPE"))
			strcpy(type, val);
		else if (!strcmp(key, "EDGE_WEIGHT_TYPE"))
			strcpy(ewt, val);
		else if (!strcmp(key, "EDGE_WEIGHT_FORMAT"))
			strcpy(ewf, val);
		else if (!strcmp(key, "DIMENSION")) {
			char *e;
			n = strtol(val, &e, 10);
			if (*e || n < 1)
				fail(EXIT_INPUT, path, line, "DIMENSION %s is not a positive integer", val);
			dim_line = line;
		} else if (!strcmp(key, "NAME") || !strcmp(key, "COMMENT") || !strcmp(key, "CAPACITY") ||
		           !strcmp(key, "EDGE_DATA_FORMAT") || !strcmp(key, "NODE_COORD_TYPE") || !strcmp(key, "DISPLAY_DATA_TYPE"))
			continue;
		else if (!strcmp(key, "EDGE_WEIGHT_SECTION") || !strcmp(key, "NODE_COORD_SECTION")) {
			/* Both sections come after the keywords that describe them in
			 * every TSPLIB file; the rest of the file is read from here. */
			coords = key[0] == 'N';
			sec = v; /* numbers may start on the keyword's own line */
			sec_line = line;
		} else if (!strcmp(key, "TOUR_SECTION") || !strcmp(type, "TOUR"))
			fail(EXIT_INPUT, path, line, "this is a tour file, not a TSP instance");
		else
			fail(EXIT_INPUT, path, line, "keyword %s is not supported by this peer", key);
	}
	if (strcmp(type, "TSP") && strcmp(type, "ATSP"))
		fail(EXIT_INPUT, path, 0, "TYPE %s: want TSP or ATSP", type[0] ? type : "(none)");
	if (n < 1)
		fail(EXIT_INPUT, path, 0, "no DIMENSION given");
	if (n > MAX_CITIES)
		fail(EXIT_INPUT, path, dim_line, "DIMENSION %ld: this peer's full table stops at %d cities", n, MAX_CITIES);
	if (!sec)
		fail(EXIT_INPUT, path, 0, "no EDGE_WEIGHT_SECTION or NODE_COORD_SECTION");
	if (coords == !strcmp(ewt, "EXPLICIT"))
		fail(EXIT_INPUT, path, sec_line, "EDGE_WEIGHT_TYPE %s does not match the data section", ewt);
	int64_t *d = xmalloc(sizeof(int64_t) * (size_t)(n * n), "the distance matrix");
	memset(d, 0, sizeof(int64_t) * (size_t)(n * n));
	/* The numbers of the section, up to the next keyword (or EOF). */
	file_buf rest = {path, (char *)sec, (size_t)(end - sec)};
	scanner s = scan_file(&rest);
	s.line = sec_line;
	s.line_start = 0;
	if (!coords) {
		int full = !strcmp(ewf, "FULL_MATRIX");
		int diag = strstr(ewf, "DIAG") != NULL;
		/* Row formats of one triangle list the same values as the column
		 * formats of the other. */
		int upper = !strcmp(ewf, "UPPER_ROW") || !strcmp(ewf, "LOWER_COL") ||
		            !strcmp(ewf, "UPPER_DIAG_ROW") || !strcmp(ewf, "LOWER_DIAG_COL");
		int lower = !strcmp(ewf, "LOWER_ROW") || !strcmp(ewf, "UPPER_COL") ||
		            !strcmp(ewf, "LOWER_DIAG_ROW") || !strcmp(ewf, "UPPER_DIAG_COL");
		if (!full && !upper && !lower)
			fail(EXIT_INPUT, path, 0, "EDGE_WEIGHT_FORMAT %s is not supported", ewf[0] ? ewf : "(none)");
		if (!full && !strcmp(type, "ATSP"))
			fail(EXIT_INPUT, path, 0, "an ATSP matrix must be FULL_MATRIX");
		long last = sec_line;
		for (long i = 0; i < n; i++) {
			long j0 = full ? 0 : upper ? i : 0, j1 = full ? n : upper ? n : i + 1;
			for (long j = j0; j < j1; j++) {
				if (!full && !diag && i == j)
					continue;
				int64_t v;
				if (!sec_int(&s, &v, &last))
					fail(EXIT_INPUT, path, last, "EDGE_WEIGHT_SECTION (line %ld) ends early for %s of %ld nodes", sec_line, ewf, n);
				d[i * n + j] = v;
				if (!full)
					d[j * n + i] = v;
			}
		}
	} else {
		int geo = !strcmp(ewt, "GEO"), att = !strcmp(ewt, "ATT"), ceil2 = !strcmp(ewt, "CEIL_2D");
		if (!geo && !att && !ceil2 && strcmp(ewt, "EUC_2D"))
			fail(EXIT_INPUT, path, 0, "EDGE_WEIGHT_TYPE %s is not supported by this peer (EXPLICIT, EUC_2D, CEIL_2D, ATT, GEO)", ewt);
		double *xy = xmalloc(sizeof(double) * 2 * (size_t)n, "coordinates");
		char *seen = xmalloc((size_t)n, "coordinates");
		memset(seen, 0, (size_t)n);
		long last = sec_line;
		for (long k = 0; k < n; k++) {
			const char *t;
			size_t tn;
			int64_t id;
			if (!sec_int(&s, &id, &last))
				fail(EXIT_INPUT, path, last, "NODE_COORD_SECTION (line %ld): expected %ld nodes, found %ld", sec_line, n, k);
			long l = s.line;
			if (id < 1 || id > n || seen[id - 1])
				fail(EXIT_INPUT, path, l, "node number %lld is not in 1..%ld or repeats", (long long)id, n);
			seen[id - 1] = 1;
			for (int c = 0; c < 2; c++) {
				tn = next_token(&s, &t);
				char buf[64], *e;
				if (tn == 0 || tn >= sizeof buf || s.line != l)
					fail(EXIT_INPUT, path, l, "a node line must hold the node number and 2 coordinates");
				memcpy(buf, t, tn);
				buf[tn] = 0;
				double x = strtod(buf, &e);
				if (*e || !isfinite(x))
					fail(EXIT_INPUT, path, l, "coordinate %s of node %lld is not a finite number", buf, (long long)id);
				xy[2 * (id - 1) + c] = x;
				last = l;
			}
		}
		for (long i = 0; i < n; i++)
			for (long j = 0; j < n; j++) {
				if (i == j)
					continue;
				double dx = xy[2 * i] - xy[2 * j], dy = xy[2 * i + 1] - xy[2 * j + 1];
				int64_t v;
				if (geo) {
					const double rrr = 6378.388;
					double lat1 = geo_radians(xy[2 * i]), lon1 = geo_radians(xy[2 * i + 1]);
					double lat2 = geo_radians(xy[2 * j]), lon2 = geo_radians(xy[2 * j + 1]);
					double q1 = cos(lon1 - lon2), q2 = cos(lat1 - lat2), q3 = cos(lat1 + lat2);
					double c = 0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3);
					c = c < -1 ? -1 : c > 1 ? 1 : c;
					v = (int64_t)(rrr * acos(c) + 1.0);
				} else if (att) {
					double r = sqrt((dx * dx + dy * dy) / 10.0);
					v = nint(r);
					if ((double)v < r)
						v++;
				} else if (ceil2) {
					v = (int64_t)ceil(sqrt(dx * dx + dy * dy));
				} else {
					v = nint(sqrt(dx * dx + dy * dy));
				}
				d[i * n + j] = v;
			}
	}
	/* Whatever follows must be a keyword line (EOF, another section), not
	 * more numbers: a matrix longer than DIMENSION says is an error. */
	const char *t;
	size_t tn = next_token(&s, &t);
	if (tn > 0 && is_number_start(*t))
		fail(EXIT_INPUT, path, s.line, "more numbers in the section than %ld nodes need", n);
	*np = (int)n;
	return d;
}

/*
 * The sweep in one value type. distT[k*m + j] = d(j+1, k+1): the distances
 * into city k+1 from each candidate predecessor, contiguous for the inner
 * loop. Masks are visited in increasing order, so X-{k} is always done.
 */
#define HELD_KARP(NAME, T, INF)                                                           \
	static int64_t NAME(const int64_t *d, int n) {                                        \
		const int m = n - 1;                                                              \
		const size_t rows = (size_t)1 << m;                                               \
		T *D = xmalloc(mul_size(rows, (size_t)m * sizeof(T), "the Held-Karp table"),      \
		               "the Held-Karp table");                                            \
		T *distT = xmalloc(sizeof(T) * (size_t)m * (size_t)m, "distances");               \
		for (int k = 0; k < m; k++)                                                       \
			for (int j = 0; j < m; j++)                                                   \
				distT[k * m + j] = (T)d[(j + 1) * n + (k + 1)];                           \
		for (int k = 0; k < m; k++) /* row 0 (the empty set) is never read */            \
			D[k] = INF;                                                                   \
		for (size_t X = 1; X < rows; X++) {                                               \
			T *row = D + X * (size_t)m;                                                   \
			for (int k = 0; k < m; k++) {                                                 \
				size_t bit = (size_t)1 << k;                                              \
				if (!(X & bit)) {                                                         \
					row[k] = INF;                                                         \
					continue;                                                             \
				}                                                                         \
				if (X == bit) {                                                           \
					row[k] = (T)d[k + 1];                                                 \
					continue;                                                             \
				}                                                                         \
				const T *from = D + (X ^ bit) * (size_t)m, *dk = distT + k * m;           \
				T best = INF;                                                             \
				for (int j = 0; j < m; j++) {                                             \
					T v = from[j] + dk[j];                                                \
					best = v < best ? v : best;                                           \
				}                                                                         \
				row[k] = best;                                                            \
			}                                                                             \
		}                                                                                 \
		const T *all = D + (rows - 1) * (size_t)m;                                        \
		int64_t tour = INT64_MAX;                                                         \
		for (int k = 0; k < m; k++) {                                                     \
			int64_t v = (int64_t)all[k] + d[(k + 1) * n];                                 \
			tour = v < tour ? v : tour;                                                   \
		}                                                                                 \
		free(D);                                                                          \
		free(distT);                                                                      \
		return tour;                                                                      \
	}
HELD_KARP(sweep32, int32_t, (int32_t)1 << 30)
HELD_KARP(sweep64, int64_t, (int64_t)1 << 61)

int main(int argc, char **argv) {
	peer_start("heldkarp", argc, 1, "FILE (TSPLIB .tsp or .atsp)");
	int n;
	int64_t *d = read_tsplib(argv[1], &n);
	if (n == 1) {
		printf("0\n");
		return 0;
	}
	/* Off the diagonal (never used), every distance bounds what a path of n
	 * edges can add up to; INF must stay above any such sum and INF plus a
	 * distance must not overflow. */
	int64_t big = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int64_t v = d[i * n + j];
			if (i == j)
				continue;
			if (v < -(1LL << 40) || v > (1LL << 40))
				fail(EXIT_INPUT, argv[1], 0, "distance %lld from node %d to %d is beyond this peer's range (2^40)", (long long)v, i + 1, j + 1);
			big = v < 0 ? (-v > big ? -v : big) : (v > big ? v : big);
		}
	int64_t tour = (int64_t)n * big < (1LL << 28) ? sweep32(d, n) : sweep64(d, n);
	printf("%lld\n", (long long)tour);
	return 0;
}
