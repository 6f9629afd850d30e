package dptest

import "fmt"

// Gotoh is global alignment with affine gaps (Gotoh 1982) in the natural
// form of contract v2 §7.2: three tables over one grid. X ends in a gap in
// a (b[j-1] against '-'), Y in a gap in b, H is the best of all. A gap of
// length n costs o + e*n; a match scores 2, a mismatch -3. Every step of a
// traceback emits its alignment column: 'M' (a[i-1] over b[j-1]), '-' (a
// gap over b[j-1]) or '|' (a[i-1] over a gap).
func Gotoh(a, b string, o, e int) string {
	return fmt.Sprintf(`problem gotoh
char 1x? A = %q
char 1x? B = %q
int o = %d
int e = %d
(len(A)+1) x (len(B)+1)
X[i][j] = -inf                     when j == 0
        | max(X[i][j-1] - e emit '-', H[i][j-1] - o - e emit '-')   otherwise
Y[i][j] = -inf                     when i == 0
        | max(Y[i-1][j] - e emit '|', H[i-1][j] - o - e emit '|')   otherwise
H[i][j] = 0                        when i == 0 && j == 0
        | -o - e*j                 when i == 0
        | -o - e*i                 when j == 0
        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3) emit 'M', X[i][j], Y[i][j])   otherwise
`, a, b, o, e)
}

// GotohScore is the score of the best global alignment of a and b with
// Gotoh's costs (see Gotoh), computed with three plain matrices.
func GotohScore(a, b string, o, e int) int64 {
	return GotohScoreWith(a, b, int64(o), int64(e), DNAPair)
}

// DNAPair is the pair score of Gotoh's source: 2 for a match, -3 otherwise.
func DNAPair(x, y byte) int64 {
	if x == y {
		return 2
	}
	return -3
}

// GotohScoreWith is Gotoh's global alignment of a and b with a gap of
// length L costing o + e*L and pairs scored by pair, in three plain
// matrices.
func GotohScoreWith(a, b string, o, e int64, pair func(x, y byte) int64) int64 {
	var last int64
	affine(a, b, o, e, pair, func(i, j int, diag, x, y int64) int64 {
		last = globalH(i, j, diag, x, y, o, e)
		return last
	})
	return last
}

// GotohAlignmentScore scores an alignment given as the columns Gotoh's
// traceback emits, after a start at cell [i0][j0] of the grid (a boundary
// cell: the i0 or j0 characters before it are one leading gap). It reports
// an error when the columns do not align all of a and b.
func GotohAlignmentScore(a, b string, o, e int, i0, j0 int, cols string) (int64, error) {
	return GotohAlignmentScoreWith(a, b, int64(o), int64(e), DNAPair, i0, j0, cols)
}

// GotohAlignmentScoreWith is GotohAlignmentScore with pairs scored by pair.
func GotohAlignmentScoreWith(a, b string, o, e int64, pair func(x, y byte) int64, i0, j0 int, cols string) (int64, error) {
	var score int64
	switch {
	case i0 > 0 && j0 > 0:
		return 0, fmt.Errorf("the alignment starts inside the grid, at [%d][%d]", i0, j0)
	case i0 > 0:
		score -= o + e*int64(i0)
	case j0 > 0:
		score -= o + e*int64(j0)
	}
	i, j := i0, j0
	for k := 0; k < len(cols); k++ {
		c := cols[k]
		if c != 'M' && c != '-' && c != '|' {
			return 0, fmt.Errorf("column %d is %q", k, c)
		}
		if c != 'M' && (k == 0 || cols[k-1] != c) {
			score -= o
		}
		switch c {
		case 'M':
			if i >= len(a) || j >= len(b) {
				return 0, fmt.Errorf("column %d runs past the sequences", k)
			}
			score += pair(a[i], b[j])
			i, j = i+1, j+1
		case '-':
			j++
			score -= e
		case '|':
			i++
			score -= e
		}
	}
	if i != len(a) || j != len(b) {
		return 0, fmt.Errorf("the alignment ends at [%d][%d], not [%d][%d]", i, j, len(a), len(b))
	}
	return score, nil
}

// globalH is H[i][j] of global alignment with Gotoh's gaps: the gap along
// the first row or column, else the best of the diagonal, X and Y.
func globalH(i, j int, diag, x, y, o, e int64) int64 {
	switch {
	case i == 0 && j == 0:
		return 0
	case i == 0:
		return -o - e*int64(j)
	case j == 0:
		return -o - e*int64(i)
	}
	return max(diag, x, y)
}
