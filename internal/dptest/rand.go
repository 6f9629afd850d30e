package dptest

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/testrand"
)

// SeedVar is the environment variable that fixes the seed of Rand, to
// repeat a failure: the seed is logged by every test that draws one.
const SeedVar = testrand.SeedVar

// Rand returns a random source seeded from the clock, so that each run
// tries new instances, or from $DPGPU_SEED. The seed is logged so that a
// failure can be repeated.
func Rand(tb testing.TB) *rand.Rand {
	tb.Helper()
	seed := testrand.Seed(tb)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// String is n characters drawn from alphabet.
func String(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for k := range b {
		b[k] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// DNA is a random sequence of n bases.
func DNA(r *rand.Rand, n int) string { return String(r, n, "ACGT") }

// Ints is n integers drawn from lo..hi (both included).
func Ints(r *rand.Rand, n, lo, hi int) []int {
	v := make([]int, n)
	for k := range v {
		v[k] = lo + r.IntN(hi-lo+1)
	}
	return v
}

// Int is the integer types that Join writes.
type Int interface{ ~int | ~int64 }

// Join writes v as a `.dp` vector literal: 1,2,3.
func Join[T Int](v []T) string {
	parts := make([]string, len(v))
	for k, x := range v {
		parts[k] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(parts, ",")
}

// JoinMatrix writes m as a `.dp` matrix literal, rows separated by &.
func JoinMatrix[T Int](m [][]T) string {
	rows := make([]string, len(m))
	for k, r := range m {
		rows[k] = Join(r)
	}
	return strings.Join(rows, " & ")
}
