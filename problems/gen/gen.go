// Package gen writes the random instances of the seed thesis's experiments
// (O'Connell 2017, section 5.2.4): pairs of DNA strings with a planted common
// subsequence for LCS, knapsack instances with the thesis's mix of item
// weights, and Manhattan tourist grids. Every generator draws from the
// *rand.Rand it is given and from nothing else, so a seed fixes the instance;
// NewRand makes the source the command line uses.
//
// The generators take their sizes from the program, not from a user: they
// panic, like math/rand's IntN, when a size is out of range. Callers that
// take sizes from a command line check them first.
package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpgpu/dpgpu/problems/formats"
)

// Alphabet is the letters of the generated strings.
const Alphabet = "ACGT"

// NewRand returns a PCG generator seeded by seed: the same seed gives the
// same stream on every platform and Go release (math/rand/v2 fixes PCG's
// algorithm).
func NewRand(seed uint64) *rand.Rand {
	// The second word only has to be fixed; any odd-looking constant
	// keeps the two halves of PCG's state from being equal for small seeds.
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// LCSPair returns two random strings over Alphabet of lengths lenA and lenB
// that share a planted common subsequence: common, of
// round(planted*min(lenA, lenB)) random letters, is written in order at
// random positions of a and at random positions of b, and every other
// position gets a random letter. So the LCS of a and b is at least
// len(common), and planted = 1 with equal lengths makes a == b. The thesis
// uses equal lengths and lengths of 25, 50 and 75% of each other.
//
// It panics if a length is negative or planted is not in [0, 1].
func LCSPair(r *rand.Rand, lenA, lenB int, planted float64) (a, b, common string) {
	if lenA < 0 || lenB < 0 {
		panic(fmt.Sprintf("gen.LCSPair: negative length (%d, %d)", lenA, lenB))
	}
	if !(planted >= 0 && planted <= 1) { // also catches NaN
		panic(fmt.Sprintf("gen.LCSPair: planted fraction %v is not in [0, 1]", planted))
	}
	k := int(math.Round(planted * float64(min(lenA, lenB))))
	c := randomLetters(r, k)
	return plant(r, lenA, c), plant(r, lenB, c), string(c)
}

func randomLetters(r *rand.Rand, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = Alphabet[r.IntN(len(Alphabet))]
	}
	return s
}

// plant returns a random string of length n (>= len(c)) with the letters of
// c at len(c) positions chosen uniformly among all such sets of positions.
// It chooses them in one pass by selection sampling (Knuth, TAOCP vol. 2,
// Algorithm S): position p is chosen with probability (still to choose) /
// (positions left), which yields every subset with equal probability and the
// positions already in order.
func plant(r *rand.Rand, n int, c []byte) string {
	s := make([]byte, n)
	next := 0
	for p := range n {
		if left := n - p; next < len(c) && r.IntN(left) < len(c)-next {
			s[p] = c[next]
			next++
		} else {
			s[p] = Alphabet[r.IntN(len(Alphabet))]
		}
	}
	return string(s)
}

// Item weight classes of the thesis, as fractions of the capacity C in
// percent: most items are medium, a few are small or large.
const (
	smallLo, smallHi   = 0, 10  // 10% of items: weight in 0-10% of C (at least 1)
	mediumLo, mediumHi = 5, 20  // 80% of items: weight in 5-20% of C
	largeLo, largeHi   = 20, 30 // 10% of items: weight in 20-30% of C
	maxProfit          = 100    // profits are uniform in 0..maxProfit
	maxCount           = 10     // bounded counts are uniform in 1..maxCount
	maxStreet          = 100    // Manhattan street weights are uniform in 0..maxStreet
)

// MaxCapacity is the largest capacity Knapsack accepts; far beyond any grid
// that fits in memory, and small enough that 30% of it is computed exactly.
const MaxCapacity = 1 << 53

// Knapsack returns a random instance of n items for capacity C as in the
// thesis: each item's weight is, with probability 80%, uniform in 5-20% of
// C; with 10%, uniform in 0-10% of C (at least 1); with 10%, uniform in
// 20-30% of C (bounds rounded inwards to integers, and never below 1).
// Profits are uniform in 0..100. When bounded is set it also returns how
// many copies of each item are available, uniform in 1..10; otherwise counts
// is nil. The instance has no known solution (Solution is nil).
//
// It panics if n is negative or capacity is not in 1..MaxCapacity.
func Knapsack(r *rand.Rand, n int, capacity int64, bounded bool) (k *formats.Knapsack, counts []int64) {
	if n < 0 {
		panic(fmt.Sprintf("gen.Knapsack: negative item count %d", n))
	}
	if capacity < 1 || capacity > MaxCapacity {
		panic(fmt.Sprintf("gen.Knapsack: capacity %d is not in 1..%d", capacity, int64(MaxCapacity)))
	}
	k = &formats.Knapsack{N: n, Capacity: capacity, Profits: make([]int64, n), Weights: make([]int64, n)}
	for i := range n {
		lo, hi := mediumLo, mediumHi
		switch r.IntN(10) {
		case 0:
			lo, hi = smallLo, smallHi
		case 1:
			lo, hi = largeLo, largeHi
		}
		k.Weights[i] = uniformShare(r, capacity, lo, hi)
		k.Profits[i] = r.Int64N(maxProfit + 1)
	}
	if bounded {
		counts = make([]int64, n)
		for i := range counts {
			counts[i] = 1 + r.Int64N(maxCount)
		}
	}
	return k, counts
}

// weightRange returns the integer weights that the class lo..hi percent of
// capacity allows: ceil(lo% of C) to floor(hi% of C), at least 1, and never
// empty (a capacity too small for the class gives the single weight lo).
func weightRange(capacity int64, loPct, hiPct int) (lo, hi int64) {
	lo = (capacity*int64(loPct) + 99) / 100
	hi = capacity * int64(hiPct) / 100
	lo = max(lo, 1)
	hi = max(hi, lo)
	return lo, hi
}

func uniformShare(r *rand.Rand, capacity int64, loPct, hiPct int) int64 {
	lo, hi := weightRange(capacity, loPct, hiPct)
	return lo + r.Int64N(hi-lo+1)
}

// Manhattan returns a random Manhattan tourist city of n x n intersections:
// down holds the (n-1) x n weights of the streets going south, right the
// n x (n-1) weights of those going east, both row-major, each uniform in
// 0..100.
//
// It panics if n < 1.
func Manhattan(r *rand.Rand, n int) (down, right []int64) {
	if n < 1 {
		panic(fmt.Sprintf("gen.Manhattan: %d intersections per side; want at least 1", n))
	}
	down = make([]int64, (n-1)*n)
	right = make([]int64, n*(n-1))
	for i := range down {
		down[i] = r.Int64N(maxStreet + 1)
	}
	for i := range right {
		right[i] = r.Int64N(maxStreet + 1)
	}
	return down, right
}
