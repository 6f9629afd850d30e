package peers

import "github.com/dpgpu/dpgpu/internal/dptest"

// The plain Go references the kernels are checked against: the textbook
// recurrences, single-threaded, written for clarity.

// RefLCS is the last row (LCS(a, b[:j]), j = 1..m) and the last column
// (LCS(a[:i], b), i = 1..n) of the LCS grid of a and b: the test kit's
// reference (dptest.LCSEdges). This package runs only in its tests, so the
// kit's import of package testing lands where it is at home.
func RefLCS(a, b []byte) (lastRow, lastCol []int32) {
	return dptest.LCSEdges(a, b)
}

// nussinovPairs says which bases pair: A-U, G-C, G-U, either way round.
func nussinovPairs(x, y byte) bool {
	switch string([]byte{x, y}) {
	case "AU", "UA", "GC", "CG", "GU", "UG":
		return true
	}
	return false
}

// RefNussinov is the Nussinov table of seq (most nested base pairs of
// seq[i..j], no minimum loop length) in the kernels' layout: n x n
// row-major, cell (i, j) at [i*n+j] and at [j*n+i], the diagonal zero.
func RefNussinov(seq []byte) []int64 {
	n := len(seq)
	t := make([]int64, n*n)
	for d := 1; d < n; d++ {
		for i := 0; i+d < n; i++ {
			j := i + d
			var best int64
			if nussinovPairs(seq[i], seq[j]) {
				var inner int64
				if i+1 <= j-1 {
					inner = t[(i+1)*n+j-1]
				}
				best = inner + 1
			}
			for k := i; k < j; k++ {
				best = max(best, t[i*n+k]+t[(k+1)*n+j])
			}
			t[i*n+j], t[j*n+i] = best, best
		}
	}
	return t
}

// RefMatrixChain is the matrix-chain table of dims (matrix t is dims[t] x
// dims[t+1]) in the kernels' layout: the fewest scalar multiplications for
// matrices i..j at [i*n+j] and at [j*n+i], the diagonal zero.
func RefMatrixChain(dims []int64) []int64 {
	n := len(dims) - 1
	t := make([]int64, n*n)
	for d := 1; d < n; d++ {
		for i := 0; i+d < n; i++ {
			j := i + d
			best := int64(-1)
			for k := i; k < j; k++ {
				c := t[i*n+k] + t[(k+1)*n+j] + dims[i]*dims[k+1]*dims[j+1]
				if best < 0 || c < best {
					best = c
				}
			}
			t[i*n+j], t[j*n+i] = best, best
		}
	}
	return t
}
