/* Reads lines "alg matrix O G a b" (alg nw|sw|sg_dx; matrix blosum62 or
   dna:MATCH:MISMATCH) and prints them with parasail's score appended. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parasail.h"
#include "parasail/matrix_lookup.h"
int main(void) {
	char alg[16], mat[64], a[4096], b[4096];
	int O, G;
	while (scanf("%15s %63s %d %d %4095s %4095s", alg, mat, &O, &G, a, b) == 6) {
		const parasail_matrix_t *m;
		parasail_matrix_t *own = NULL;
		if (strncmp(mat, "dna:", 4) == 0) {
			int ma, mi;
			sscanf(mat + 4, "%d:%d", &ma, &mi);
			own = parasail_matrix_create("ACGT", ma, mi);
			m = own;
		} else {
			m = parasail_matrix_lookup(mat);
		}
		parasail_result_t *r;
		if (strcmp(alg, "nw") == 0) r = parasail_nw(a, strlen(a), b, strlen(b), O, G, m);
		else if (strcmp(alg, "sw") == 0) r = parasail_sw(a, strlen(a), b, strlen(b), O, G, m);
		else r = parasail_sg_dx(a, strlen(a), b, strlen(b), O, G, m);
		printf("%s\t%s\t%d\t%d\t%s\t%s\t%d\n", alg, mat, O, G, a, b, r->score);
		parasail_result_free(r);
		if (own) parasail_matrix_free(own);
	}
	return 0;
}
