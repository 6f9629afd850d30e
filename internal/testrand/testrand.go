// Package testrand gives tests a random source seeded afresh on every run,
// or from $DPGPU_SEED to repeat a failure; the seed is logged. It imports
// nothing of dpgpu, so that the tests of every package can use it
// (internal/dptest, which imports the engine, cannot serve the packages
// the engine imports).
package testrand

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// SeedVar is the environment variable that fixes the seed.
const SeedVar = "DPGPU_SEED"

// New returns a source seeded by Seed, on stream (tests that draw several
// sources give each its own).
func New(tb testing.TB, stream uint64) *rand.Rand {
	tb.Helper()
	return rand.New(rand.NewPCG(Seed(tb), stream))
}

// Seed is a seed from the clock or $DPGPU_SEED, logged.
func Seed(tb testing.TB) uint64 {
	tb.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(SeedVar); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			tb.Fatalf("%s: %v", SeedVar, err)
		}
		seed = v
	}
	tb.Logf("seed %d (set %s=%d to repeat)", seed, SeedVar, seed)
	return seed
}
