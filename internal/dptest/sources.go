package dptest

import "fmt"

// The canonical test problems. Each has a reference solution in refs.go
// computed without the engine, so that a test compares the engine against
// the definition rather than against itself.

// LCS is the longest common subsequence of a and b, with the matched
// characters emitted for traceback. The answer is the last cell; the
// sweep is a wavefront.
func LCS(a, b string) string {
	return fmt.Sprintf(`problem lcs
char 1x? A = "%s"
char 1x? B = "%s"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                  when i == 0 || j == 0
           | cell[i-1][j-1] + 1                 when A[i-1] == B[j-1]   emit A[i-1]
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`, a, b)
}

// LCSFiles is LCS reading its sequences from the files a.txt and b.txt
// (Files gives them): for sequences too long to paste into the text.
const LCSFiles = `problem lcs
char 1x? A = @"a.txt"
char 1x? B = @"b.txt"
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                  when i == 0 || j == 0
           | cell[i-1][j-1] + 1                 when A[i-1] == B[j-1]   emit A[i-1]
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`

// EditDistance is the weighted edit distance turning a into b, with the
// costs of an insertion, a deletion and a substitution.
func EditDistance(a, b string, ins, del, sub int) string {
	return fmt.Sprintf(`problem editdistance
char 1x? A = "%s"
char 1x? B = "%s"
int ins = %d
int del = %d
int sub = %d
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 && j == 0
           | cell[i][j-1] + ins      when i == 0
           | cell[i-1][j] + del      when j == 0
           | min(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : sub), cell[i-1][j] + del, cell[i][j-1] + ins)   otherwise
`, a, b, ins, del, sub)
}

// Knapsack is the 0/1 knapsack of the README: items with weights wt and
// values val in a knapsack of capacity capacity, the items taken emitted.
// Its offsets depend on the data (w-wt[i-1]), so the sweep is by rows.
func Knapsack[T Int](wt, val []T, capacity int) string {
	return fmt.Sprintf(`problem knapsack
int 1x? wt  = %s
int 1x? val = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                     when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1]       when wt[i-1] <= w && cell[i-1][w-wt[i-1]] + val[i-1] > cell[i-1][w]   emit i-1
           | cell[i-1][w]                          otherwise
`, Join(wt), Join(val), capacity)
}

// The lookback contract: an American floating-strike lookback put (spot
// 50, volatility 0.4, rate 0.1, a quarter of a year) on a binomial lattice
// of n steps. With n = 3 it is the thesis's example, priced 5.470181.
const (
	LookbackS0    = 50.0
	lookbackSigma = 0.4
	lookbackRate  = 0.1
	lookbackT     = 0.25
)

// Lookback is the lookback contract on a lattice of n steps, in double
// cells, swept backward by rows. The built-in lookback-put is the same
// problem with n an input (N).
func Lookback(n int) string {
	return fmt.Sprintf(`problem lookback-put
double S0 = 50
double sigma = 0.4
double r = 0.1
double T = 0.25
int N = %d
double dt = T / N
double u = exp(sigma * sqrt(dt))
double d = 1 / u
double p = (exp(r * dt) - d) / (u - d)
double disc = exp(-r * dt)
cell: double
(N+1) x (N+2)
cell[i][j] = pow(u, j) - 1                                                        when i == N
           | 0                                                                    when j > i
           | max(pow(u, j) - 1, disc * ((1-p)*d*cell[i+1][j+1] + p*u*cell[i+1][j-1]))   when j >= 1
           | max(0, disc * ((1-p)*d*cell[i+1][1] + p*u*cell[i+1][0]))              otherwise
answer: S0 * cell[0][0]
`, n)
}

// BoundedKnapsack is the knapsack with up to cnt[i] copies of item i: a
// reduction over the copies k in every cell. The sweep is by rows.
func BoundedKnapsack[T Int](wt, val, cnt []T, capacity int) string {
	return fmt.Sprintf(`problem knapsack-bounded
int 1x? wt  = %s
int 1x? val = %s
int 1x? cnt = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                              when i == 0
           | max(k in 0..(wt[i-1] == 0 ? cnt[i-1] : min(cnt[i-1], w / wt[i-1])): cell[i-1][w - k*wt[i-1]] + k*val[i-1])   otherwise
`, Join(wt), Join(val), Join(cnt), capacity)
}

// UnboundedKnapsack is the knapsack with any number of copies of each item
// (every weight >= 1), in the natural form of the built-in: a reduction
// over the copies k in every cell, k up to w / wt[i-1]. The sweep is by
// rows; BoundedKnapsackGrid with counts above the capacity is its grid.
func UnboundedKnapsack[T Int](wt, val []T, capacity int) string {
	return fmt.Sprintf(`problem knapsack-unbounded
int 1x? wt  = %s
int 1x? val = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                          when i == 0
           | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*val[i-1])   otherwise
`, Join(wt), Join(val), capacity)
}

// LongAbove62 adds 807 to a long input holding 9223372036854775000 (more
// than 2^62): an overflow at cell[1][0], line 6, column 19, which a program
// specialised to its inputs' bounds must still check.
const LongAbove62 = `problem big
long 1x1 A = 9223372036854775000
long 1x1 B = 807
cell: long
2 x 1
cell[i][j] = A[0] + B[0]   when i > 0
           | 0             otherwise
`

// Copies is a reduction over any number of copies of each item, op
// ("max" or "min") of cell[i-1][w - k*wt[i-1]] + k*g[i-1] (every weight >=
// 1; gains of any sign): the chained reduction of codegen/chain.go. With
// backward, row i takes item i's copies on top of row i+1, the sweep runs
// from the last row up and the answer is cell[0][cap]; CopiesGrid of the
// items in reverse order, read upside down, is its grid.
func Copies[T Int](op string, wt, g []T, capacity int, backward bool) string {
	rec := fmt.Sprintf(`cell[i][w] = 0                                                                  when i == 0
           | %s(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*g[i-1])   otherwise
`, op)
	if backward {
		rec = fmt.Sprintf(`cell[i][w] = 0                                                          when i == ROWS-1
           | %s(k in 0..w / wt[i]: cell[i+1][w - k*wt[i]] + k*g[i])   otherwise
answer: cell[0][COLS-1]
`, op)
	}
	return fmt.Sprintf(`problem copies
int 1x? wt = %s
int 1x? g = %s
int cap = %d
(len(wt)+1) x (cap+1)
%s`, Join(wt), Join(g), capacity, rec)
}
