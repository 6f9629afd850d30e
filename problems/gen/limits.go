package gen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Limits of the generators. They are far beyond any instance dpgpu solves
// in memory, and low enough that an absurd request (a typo of a few
// zeros) is refused with a message instead of exhausting the memory while
// the instance is built: a string of MaxLength letters is 256 MiB, a
// Manhattan city of MaxSide intersections per side about 4 GiB of weights.
const (
	MaxLength = 1 << 28 // letters in one LCS string
	MaxItems  = 1 << 24 // knapsack items
	MaxSide   = 1 << 14 // Manhattan intersections per side
	MaxValues = 1 << 28 // integers in one vector
	MaxValue  = 1 << 62 // magnitude of a generated integer
)

// CheckLCS validates the parameters of an LCS pair as `dpgpu gen-data lcs`
// takes them: the first string's length n, the second's as a fraction
// ratio of it, and the planted fraction. NaN and infinities are refused
// (a comparison with NaN is false, so they would pass a plain range test).
func CheckLCS(n int, ratio, planted float64) error {
	switch {
	case n < 0 || n > MaxLength:
		return fmt.Errorf("--len %d: want 0..%d letters", n, MaxLength)
	case !(ratio >= 0 && ratio <= 1):
		return fmt.Errorf("--ratio %v: want a fraction in [0, 1]", ratio)
	case !(planted >= 0 && planted <= 1):
		return fmt.Errorf("--planted %v: want a fraction in [0, 1]", planted)
	}
	return nil
}

// SecondLength is the length of the second string of a pair: ratio times
// n, rounded. CheckLCS must have accepted the values.
func SecondLength(n int, ratio float64) int {
	return int(math.Round(float64(n) * ratio))
}

// CheckSequenceExt validates the file type of a generated sequence.
func CheckSequenceExt(ext string) error {
	switch strings.ToLower(ext) {
	case ".fa", ".fasta", ".fna", ".txt":
		return nil
	}
	return fmt.Errorf("--ext %q: want .fa, .fasta, .fna or .txt", ext)
}

// CheckKnapsack validates the item count and capacity of a knapsack
// instance: at least one item (an instance without items has nothing to
// choose) and a capacity in 1..MaxCapacity.
func CheckKnapsack(n int, capacity int64) error {
	switch {
	case n < 1 || n > MaxItems:
		return fmt.Errorf("--items %d: want 1..%d", n, MaxItems)
	case capacity < 1 || capacity > MaxCapacity:
		return fmt.Errorf("--capacity %d: want 1..%d", capacity, int64(MaxCapacity))
	}
	return nil
}

// CheckManhattan validates the intersections per side of a city.
func CheckManhattan(n int) error {
	if n < 1 || n > MaxSide {
		return fmt.Errorf("--size %d: want 1..%d intersections per side", n, MaxSide)
	}
	return nil
}

// CheckOutput validates an output path before anything is generated: its
// directory must exist and the path must not be a directory.
func CheckOutput(path string) error {
	if path == "" {
		return fmt.Errorf("--out: empty path")
	}
	if isDir, _ := statDir(path); isDir || strings.HasSuffix(path, "/") {
		return fmt.Errorf("--out %s: names a directory; give a file name", path)
	}
	dir := filepath.Dir(path)
	if st, err := statDir(dir); err != nil || !st {
		return fmt.Errorf("--out %s: the directory %s does not exist", path, dir)
	}
	return nil
}

func statDir(dir string) (bool, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return false, err
	}
	return st.IsDir(), nil
}

// CheckInts validates a vector of random integers as `dpgpu gen-data ints`
// takes it: n values in lo..hi.
func CheckInts(n int, lo, hi int64) error {
	switch {
	case n < 1 || n > MaxValues:
		return fmt.Errorf("--len %d: want 1..%d values", n, MaxValues)
	case lo > hi:
		return fmt.Errorf("--min %d --max %d: want min <= max", lo, hi)
	case lo < -MaxValue || hi > MaxValue:
		return fmt.Errorf("--min %d --max %d: want values within ±%d", lo, hi, int64(MaxValue))
	}
	return nil
}

// CheckRNA validates the length of a random RNA sequence.
func CheckRNA(n int) error {
	if n < 1 || n > MaxLength {
		return fmt.Errorf("--len %d: want 1..%d bases", n, MaxLength)
	}
	return nil
}
