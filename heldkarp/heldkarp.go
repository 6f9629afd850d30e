// Package heldkarp solves the travelling salesman problem exactly with the
// Held-Karp dynamic program (thesis eq. 2.17), on all CPU cores or on an
// NVIDIA GPU.
//
// City 0 is the start. For a set X of the other cities and a city i in X,
// S[X][i] is the length of the shortest path that leaves 0, visits every city
// of X once and ends at i:
//
//	S[{i}][i] = c[0][i]
//	S[X][i]   = min over j in X\{i} of S[X\{i}][j] + c[j][i]
//	length    = min over i of S[all][i] + c[i][0]
//
// S[X][·] reads only sets one smaller than X, so the sets are swept layer by
// layer by size k = 1 .. m, where m = n-1: the layers play the part that
// anti-diagonals play for an alignment grid, and every state of a layer may be
// computed in parallel. Within layer k the states are stored densely: the set
// X gets its combinatorial rank among all k-subsets of the m non-start cities
// (the combinadic, colex order: the sorted elements e1 < ... < ek have rank
// C(e1,1) + C(e2,2) + ... + C(ek,k)), and the state (X, i) sits at
// rank(X)*k + p, where i is the p-th smallest element of X. So layer k holds
// exactly C(m,k)*k states and the whole table
//
//	states(n) = sum over k of C(m,k)*k = m * 2^(m-1)
//
// with no holes. Only two layers of values are ever held (the thesis's
// rotating memory applied to the subset DP), while the predecessor of every
// state — one byte — is kept for all layers so that the tour can be read
// back. Memory, with w the bytes of a value (4 when n * max|c| fits in 32
// bits, else 8):
//
//	host   = states(n) + 2*w*maxLayer(n) + w*n*n        (CPU solver)
//	device = 2*w*maxLayer(n) + 2*maxLayer(n) + w*n*n + 8*n*n (GPU solver)
//
// where maxLayer(n) = max over k of C(m,k)*k. The GPU solver needs on the
// host only the predecessor bytes (pinned) and the matrix, states(n) + w*n*n.
// For n = 29: 3.5 GiB of predecessors, 2.1 GiB per value layer. The work is
// sum over k of C(m,k)*k*(k-1) = m*(m-1)*2^(m-2) additions.
package heldkarp

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/dpgpu/dpgpu/internal/hostmem"
)

// MaxCities is the largest instance the solvers accept at all: a subset of
// the n-1 non-start cities is a 64-bit mask. Memory runs out long before
// (n = 34 already needs hundreds of GiB), and the solvers say so.
const MaxCities = 64

// ErrTooLarge is returned (wrapped, with the numbers) when an instance needs
// more memory than the machine has. It is hostmem.ErrTooLarge, the one mark
// of every memory refusal, so callers need test for that one only.
var ErrTooLarge = hostmem.ErrTooLarge

// Result is an optimal tour.
type Result struct {
	// Length is the optimal tour length.
	Length int64
	// Tour lists the n cities (0-based) in visiting order, starting at city
	// 0; the tour closes back to Tour[0].
	Tour []int
	// States is the number of Held-Karp states computed, m*2^(m-1) for m =
	// n-1.
	States int64
	// Seconds is the wall time of the whole solve, setup included.
	Seconds float64
	// ComputeSeconds is the time of the layer sweep alone (GPU: timed with
	// CUDA events; CPU: wall time of the sweep).
	ComputeSeconds float64
	// PeakBytes is the largest host memory the solve held, from its
	// allocations.
	PeakBytes int64
	// DeviceBytes is the device memory the GPU solver allocated (0 on the
	// CPU).
	DeviceBytes int64
}

// layout is the shape of the layered table of one instance: binomials for
// ranking and the size of every layer.
type layout struct {
	n, m  int
	binom [][]int64 // binom[a][b] = C(a,b) for 0 <= a, b <= m (0 when b > a); saturated at MaxInt64
}

func newLayout(n int) *layout {
	m := n - 1
	if m < 0 {
		m = 0
	}
	b := make([][]int64, m+1)
	for a := range b {
		b[a] = make([]int64, m+1)
		b[a][0] = 1
		for c := 1; c <= a; c++ {
			b[a][c] = satAdd(b[a-1][c-1], b[a-1][c])
		}
	}
	return &layout{n: n, m: m, binom: b}
}

// layerStates is the number of states of layer k: C(m,k)*k.
func (l *layout) layerStates(k int) int64 { return satMul(l.binom[l.m][k], int64(k)) }

// maxLayer is the largest layer's state count.
func (l *layout) maxLayer() int64 {
	var best int64
	for k := 1; k <= l.m; k++ {
		best = max(best, l.layerStates(k))
	}
	return best
}

// states is the number of states of all layers, m*2^(m-1).
func (l *layout) states() int64 {
	var s int64
	for k := 1; k <= l.m; k++ {
		s = satAdd(s, l.layerStates(k))
	}
	return s
}

// rank is the colex rank of the set mask among the subsets of its size.
func (l *layout) rank(mask uint64) int64 {
	var r int64
	t := 1
	for mask != 0 {
		e := bits.TrailingZeros64(mask)
		mask &= mask - 1
		r += l.binom[e][t]
		t++
	}
	return r
}

// unrank is the k-subset of {0..m-1} with colex rank r.
func (l *layout) unrank(r int64, k int) uint64 {
	var mask uint64
	e := l.m - 1
	for t := k; t >= 1; t-- {
		for l.binom[e][t] > r {
			e--
		}
		mask |= 1 << uint(e)
		r -= l.binom[e][t]
		e--
	}
	return mask
}

// nextColex is the k-subset after mask in colex order (Gosper's hack: the
// next larger integer with as many one bits). mask must not be the last.
func nextColex(mask uint64) uint64 {
	low := mask & -mask
	ripple := mask + low
	return ripple | ((mask^ripple)>>2)/low
}

// memory is what one instance needs, in bytes.
type memory struct {
	width    int64 // bytes per value
	args     int64 // predecessor bytes of all layers (host)
	values   int64 // two layers of values
	dist     int64 // the (transposed) distance matrix in value width
	host     int64 // CPU solver on the host
	gpuHost  int64 // GPU solver on the host
	device   int64 // GPU solver on the device
	maxLayer int64
}

func (l *layout) memory(width int64) memory {
	ml := l.maxLayer()
	mem := memory{width: width, maxLayer: ml}
	mem.args = l.states()
	mem.values = satMul(2*width, ml)
	nn := int64(l.n) * int64(l.n)
	mem.dist = width * nn
	mem.host = satAdd(satAdd(mem.args, mem.values), mem.dist)
	mem.gpuHost = satAdd(mem.args, mem.dist)
	binom := 8 * int64(l.m+1) * int64(l.m+1)
	mem.device = satAdd(satAdd(mem.values, satMul(2, ml)), mem.dist+binom)
	return mem
}

// Requirements returns the memory a solve of n cities needs: hostBytes for
// SolveCPU (SolveGPU needs less on the host: the predecessor bytes and the
// matrix) and deviceBytes for SolveGPU. It assumes 4-byte values, which
// every instance whose n*max|c| is below 2^31 gets; larger distances double
// the value layers, and the solvers check with the real width. Sizes that do
// not fit in an int64 saturate at math.MaxInt64.
func Requirements(n int) (hostBytes, deviceBytes int64) {
	if n <= 1 {
		return 0, 0
	}
	if n > MaxCities {
		return math.MaxInt64, math.MaxInt64
	}
	mem := newLayout(n).memory(4)
	return mem.host, mem.device
}

// MaxN is the largest number of cities whose CPU solve (Requirements'
// hostBytes) fits in availableBytes; 1 when not even two cities fit. For
// the GPU, compare Requirements' deviceBytes with the device's free memory.
func MaxN(availableBytes int64) int {
	best := 1
	for n := 2; n <= MaxCities; n++ {
		h, _ := Requirements(n)
		if h > availableBytes || h == math.MaxInt64 { // saturated: beyond any memory
			break
		}
		best = n
	}
	return best
}

// instance is a checked input: the matrix and the value width its tours
// need.
type instance struct {
	n     int
	dist  []int64
	width int64
	bound int64 // n*max|c|: no partial path's length is farther from 0
}

// check validates the matrix and picks the value width from the bound
// n*max|c| on every partial path (the diagonal, which no tour uses, is left
// out).
func check(dist []int64, n int) (*instance, error) {
	if n < 1 {
		return nil, fmt.Errorf("heldkarp: %d cities: need at least 1", n)
	}
	if n > MaxCities {
		return nil, fmt.Errorf("heldkarp: %d cities: Held-Karp handles at most %d (and memory runs out near 30)", n, MaxCities)
	}
	if len(dist) != n*n {
		return nil, fmt.Errorf("heldkarp: distance matrix has %d entries, want n*n = %d for n = %d", len(dist), n*n, n)
	}
	var maxAbs int64
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			d := dist[i*n+j]
			if d == math.MinInt64 {
				return nil, fmt.Errorf("heldkarp: distance c[%d][%d] = %d cannot be summed safely", i, j, d)
			}
			maxAbs = max(maxAbs, abs(d))
		}
	}
	if maxAbs > math.MaxInt64/int64(n) {
		return nil, fmt.Errorf("heldkarp: distances up to %d over %d cities may overflow a 64-bit tour length", maxAbs, n)
	}
	width := int64(8)
	if int64(n)*maxAbs <= math.MaxInt32 {
		width = 4
	}
	return &instance{n: n, dist: dist, width: width, bound: int64(n) * maxAbs}, nil
}

// tourLength is the length of the closed tour through dist (n x n, row =
// from), or an error when tour does not visit each city exactly once. The
// solvers check the tour they read back from the predecessor bytes with it:
// a second, independent reading of the result that catches a wrong
// predecessor table before a wrong tour is returned.
func tourLength(dist []int64, n int, tour []int) (int64, error) {
	if len(tour) != n {
		return 0, fmt.Errorf("tour has %d cities, want %d", len(tour), n)
	}
	seen := make([]bool, n)
	var total int64
	for k, c := range tour {
		if c < 0 || c >= n || seen[c] {
			return 0, fmt.Errorf("tour visits city %d twice or out of range", c+1)
		}
		seen[c] = true
		total += dist[c*n+tour[(k+1)%n]]
	}
	return total, nil
}

// readTour follows the predecessor bytes back from the last city of the
// best tour. arg(k, idx) is the predecessor of state idx of layer k.
func (l *layout) readTour(last int, arg func(k int, idx int64) byte) ([]int, error) {
	n, m := l.n, l.m
	tour := make([]int, n)
	mask := uint64(1)<<uint(m) - 1 // m <= 63
	city := last
	for k := m; k >= 1; k-- {
		if city < 1 || city > m || mask&(1<<uint(city-1)) == 0 {
			return nil, fmt.Errorf("heldkarp: internal error: predecessor city %d is not in the set of layer %d", city, k)
		}
		tour[k] = city
		p := bits.OnesCount64(mask & (1<<uint(city-1) - 1))
		idx := l.rank(mask)*int64(k) + int64(p)
		next := int(arg(k, idx))
		mask &^= 1 << uint(city-1)
		city = next
	}
	if city != 0 {
		return nil, fmt.Errorf("heldkarp: internal error: tour does not start at city 0 (got %d)", city)
	}
	return tour, nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul multiplies non-negative a and b, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}
