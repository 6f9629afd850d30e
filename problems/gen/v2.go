package gen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// The random instances of the built-ins of contract v2: interval DP over a
// chain or a sequence of size elements, 1-D look-back over size values.

// RNAAlphabet is the letters of generated RNA.
const RNAAlphabet = "ACGU"

// RNA is a random RNA sequence of n bases, uniform over RNAAlphabet.
func RNA(r *rand.Rand, n int) string {
	s := make([]byte, n)
	for i := range s {
		s[i] = RNAAlphabet[r.IntN(len(RNAAlphabet))]
	}
	return string(s)
}

// Ints is n integers uniform in lo..hi. It panics if n < 0 or lo > hi.
func Ints(r *rand.Rand, n int, lo, hi int64) []int64 {
	if n < 0 || lo > hi {
		panic(fmt.Sprintf("gen.Ints: %d values in %d..%d", n, lo, hi))
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = lo + r.Int64N(hi-lo+1)
	}
	return v
}

// ChainInstance is a chain of size matrices for matrix-chain: size+1
// dimensions d uniform in 1..100.
func ChainInstance(r *rand.Rand, size int, _ map[string]string) (*Instance, error) {
	return &Instance{Inputs: []Input{{Name: "d", Ints: Ints(r, size+1, 1, 100)}}}, nil
}

// RNAInstance is a random RNA sequence s of size bases for nussinov.
func RNAInstance(r *rand.Rand, size int, _ map[string]string) (*Instance, error) {
	return &Instance{Inputs: []Input{{Name: "s", Text: RNA(r, size)}}}, nil
}

// ValuesInstance is size values a uniform in 1..size for lis (so that
// values repeat, as in data).
func ValuesInstance(r *rand.Rand, size int, _ map[string]string) (*Instance, error) {
	return &Instance{Inputs: []Input{{Name: "a", Ints: Ints(r, size, 1, int64(max(size, 1)))}}}, nil
}

// CoinsInstance is the instance of the coin-change problems: amount size
// (unless sets gives amount) and coins c, six values drawn from
// 1..max(2, size/4) (possibly repeated, possibly without 1, so that some
// amounts cannot be made).
func CoinsInstance(r *rand.Rand, size int, sets map[string]string) (*Instance, error) {
	in := &Instance{Inputs: []Input{{Name: "c", Ints: Ints(r, 6, 1, int64(max(2, size/4)))}}}
	if v, ok := sets["amount"]; ok {
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return nil, fmt.Errorf("--set amount=%s: %w", v, err)
		}
		return in, nil
	}
	in.Scalars = []Scalar{{Name: "amount", Value: int64(size)}}
	return in, nil
}

// BSTInstance is the instance of optimal-bst: size keys' frequencies p
// and the size+1 gaps' frequencies q, uniform in 1..100.
func BSTInstance(r *rand.Rand, size int, _ map[string]string) (*Instance, error) {
	return &Instance{Inputs: []Input{{Name: "p", Ints: Ints(r, size, 1, 100)}, {Name: "q", Ints: Ints(r, size+1, 1, 100)}}}, nil
}
