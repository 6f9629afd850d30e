package peers

// The plain Go references the kernels are checked against: the textbook
// recurrences, single-threaded, written for clarity.

// RefLCS is the last row (LCS(a, b[:j]), j = 1..m) and the last column
// (LCS(a[:i], b), i = 1..n) of the LCS grid of a and b.
func RefLCS(a, b []byte) (lastRow, lastCol []int32) {
	prev := make([]int32, len(b)+1)
	cur := make([]int32, len(b)+1)
	lastCol = make([]int32, len(a))
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		lastCol[i-1] = cur[len(b)]
		prev, cur = cur, prev
	}
	return append([]int32(nil), prev[1:]...), lastCol
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
