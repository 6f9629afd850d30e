package dptest

import "fmt"

// Local and semi-global alignment with affine gaps, in plain matrices: the
// references of the gotoh-local and semiglobal built-ins.

// GotohLocalScore is the best local alignment of a and b (Smith-Waterman
// with Gotoh's gaps: a gap of length L costs o + e*L; pairs by pair): the
// best H anywhere, H never below 0.
func GotohLocalScore(a, b string, o, e int64, pair func(x, y byte) int64) int64 {
	best := int64(0)
	affine(a, b, o, e, pair, func(i, j int, diag, x, y int64) int64 {
		if i == 0 || j == 0 {
			return 0
		}
		h := max(0, diag, x, y)
		best = max(best, h)
		return h
	})
	return best
}

// SemiGlobalScore is the best alignment of all of a against any part of b
// with Gotoh's gaps: row 0 free, the answer the best of the last row.
func SemiGlobalScore(a, b string, o, e int64, pair func(x, y byte) int64) int64 {
	last := make([]int64, len(b)+1)
	affine(a, b, o, e, pair, func(i, j int, diag, x, y int64) int64 {
		h := int64(0)
		switch {
		case i == 0:
		case j == 0:
			h = -o - e*int64(i)
		default:
			h = max(diag, x, y)
		}
		if i == len(a) {
			last[j] = h
		}
		return h
	})
	best := last[0]
	for _, v := range last {
		best = max(best, v)
	}
	return best
}

// affine runs the three matrices of Gotoh's recurrence over a and b, with
// h giving H[i][j] from the diagonal candidate H[i-1][j-1] + pair, X and Y.
func affine(a, b string, o, e int64, pair func(x, y byte) int64, h func(i, j int, diag, x, y int64) int64) {
	const negInf = int64(-1) << 40
	n, m := len(a), len(b)
	H, X, Y := make([][]int64, n+1), make([][]int64, n+1), make([][]int64, n+1)
	for i := range H {
		H[i], X[i], Y[i] = make([]int64, m+1), make([]int64, m+1), make([]int64, m+1)
	}
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			X[i][j], Y[i][j] = negInf, negInf
			if j > 0 {
				X[i][j] = max(X[i][j-1]-e, H[i][j-1]-o-e)
			}
			if i > 0 {
				Y[i][j] = max(Y[i-1][j]-e, H[i-1][j]-o-e)
			}
			diag := negInf
			if i > 0 && j > 0 {
				diag = H[i-1][j-1] + pair(a[i-1], b[j-1])
			}
			H[i][j] = h(i, j, diag, X[i][j], Y[i][j])
		}
	}
}

// Affine is a recurrence of Gotoh's three tables over a and b (match 2,
// mismatch -3, a gap of length L costing o + e*L) in the natural form of
// contract v2 §7.2, for mode "global" (Gotoh), "local" (GotohLocalScore),
// "semi" (SemiGlobalScore) or "globalY" (global, answering Y at the last
// cell: a table other than the last).
func Affine(a, b string, o, e int64, mode string) string {
	h := map[string]string{
		"global":  "H[i][j] = 0 when i == 0 && j == 0\n        | -o - e*j when i == 0\n        | -o - e*i when j == 0\n        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], Y[i][j]) otherwise\n",
		"local":   "H[i][j] = 0 when i == 0 || j == 0\n        | max(0, H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], Y[i][j]) otherwise\nanswer: max(i in 0..len(A): max(j in 0..len(B): H[i][j]))\n",
		"semi":    "H[i][j] = 0 when i == 0\n        | -o - e*i when j == 0\n        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], Y[i][j]) otherwise\nanswer: max(j in 0..len(B): H[len(A)][j])\n",
		"globalY": "H[i][j] = 0 when i == 0 && j == 0\n        | -o - e*j when i == 0\n        | -o - e*i when j == 0\n        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], Y[i][j]) otherwise\nanswer: Y[len(A)][len(B)]\n",
	}[mode]
	return fmt.Sprintf(`problem affine
char 1x? A = %q
char 1x? B = %q
int o = %d
int e = %d
args: A, B
(len(A)+1) x (len(B)+1)
X[i][j] = -inf when j == 0
        | max(X[i][j-1] - e, H[i][j-1] - o - e) otherwise
Y[i][j] = -inf when i == 0
        | max(Y[i-1][j] - e, H[i-1][j] - o - e) otherwise
%s`, a, b, o, e, h)
}

// AffineAnswer is the answer of Affine(a, b, o, e, mode) and, for "local"
// and "semi", the first cell in row-major order that holds it (i, j of
// the user's grid): a region answer's winner.
func AffineAnswer(a, b string, o, e int64, mode string) (ans int64, bi, bj int) {
	n, m := len(a), len(b)
	first := true
	affine(a, b, o, e, DNAPair, func(i, j int, diag, x, y int64) int64 {
		var h int64
		switch {
		case mode == "local" && (i == 0 || j == 0):
		case mode == "local":
			h = max(0, diag, x, y)
		case mode == "semi" && i == 0:
		default:
			h = globalH(i, j, diag, x, y, o, e)
		}
		switch {
		case (mode == "local" || mode == "semi" && i == n) && (first || h > ans):
			ans, bi, bj, first = h, i, j, false
		case mode == "global" && i == n && j == m:
			ans = h
		case mode == "globalY" && i == n && j == m:
			ans = y
		}
		return h
	})
	return ans, bi, bj
}
