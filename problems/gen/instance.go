package gen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Instance is a random instance of a problem at one size, by the names of
// its inputs and scalars: what `dpgpu bench` feeds a built-in. It holds
// values, not files, so that the caller decides how they reach the
// checker.
type Instance struct {
	Inputs  []Input
	Scalars []Scalar // scalars the instance fixes (set before the user's --set)
}

// Input is the data of one input: a character sequence, or integers.
type Input struct {
	Name       string
	Text       string  // a char vector's letters ("" for integers)
	Ints       []int64 // integers, row-major
	Rows, Cols int     // the shape of a matrix; both 0 for a vector
}

// Matrix reports whether in is a matrix rather than a vector.
func (in Input) Matrix() bool { return in.Rows > 0 || in.Cols > 0 }

// Scalar is the value an instance gives a scalar.
type Scalar struct {
	Name  string
	Value int64
}

// Sizer makes the instance of a given size from r, reading the user's
// scalar settings (name to value, as typed) where the instance depends on
// them. Its errors are the user's: a setting it cannot read.
type Sizer func(r *rand.Rand, size int, sets map[string]string) (*Instance, error)

// PairInstance is two sequences A and B of size letters with a planted
// common subsequence of half their length (LCSPair): the instance of the
// alignment problems.
func PairInstance(r *rand.Rand, size int, _ map[string]string) (*Instance, error) {
	a, b, _ := LCSPair(r, size, size, 0.5)
	return &Instance{Inputs: []Input{{Name: "A", Text: a}, {Name: "B", Text: b}}}, nil
}

// KnapsackInstance returns the Sizer of the knapsacks: size items of the
// thesis's mix (Knapsack) with values val, weights wt and, when bounded,
// counts cnt, in a capacity cap of 100*size unless sets gives cap.
func KnapsackInstance(bounded bool) Sizer {
	return func(r *rand.Rand, size int, sets map[string]string) (*Instance, error) {
		capacity, given := int64(100*size), false
		if v, ok := sets["cap"]; ok {
			c, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("--set cap=%s: %w", v, err)
			}
			capacity, given = c, true
		}
		k, counts := Knapsack(r, size, max(capacity, 1), bounded)
		in := &Instance{Inputs: []Input{{Name: "val", Ints: k.Profits}, {Name: "wt", Ints: k.Weights}}}
		if counts != nil {
			in.Inputs = append(in.Inputs, Input{Name: "cnt", Ints: counts})
		}
		if !given {
			in.Scalars = []Scalar{{Name: "cap", Value: capacity}}
		}
		return in, nil
	}
}

// ManhattanInstance is a square Manhattan grid of size intersections per
// side (Manhattan): down is (size-1) x size, right size x (size-1).
func ManhattanInstance(r *rand.Rand, size int, _ map[string]string) (*Instance, error) {
	down, right := Manhattan(r, size)
	return &Instance{Inputs: []Input{
		{Name: "down", Ints: down, Rows: size - 1, Cols: size},
		{Name: "right", Ints: right, Rows: size, Cols: size - 1},
	}}, nil
}

// aminoAcids are the 20 standard residues in one-letter code.
const aminoAcids = "ACDEFGHIKLMNPQRSTVWY"

// ProteinPairInstance is a pair of related proteins for the scoring-matrix
// alignments (protein-align): A of size random residues, B a copy of A in
// which about 30% of the residues are substituted and 5% deleted or
// inserted, so that an alignment has both matches and gaps to find.
func ProteinPairInstance(r *rand.Rand, size int, _ map[string]string) (*Instance, error) {
	a := make([]byte, size)
	for k := range a {
		a[k] = aminoAcids[r.IntN(len(aminoAcids))]
	}
	b := make([]byte, 0, size+size/10+1)
	for _, c := range a {
		switch x := r.Float64(); {
		case x < 0.025: // deleted
		case x < 0.05: // an insertion before it
			b = append(b, aminoAcids[r.IntN(len(aminoAcids))], c)
		case x < 0.35:
			b = append(b, aminoAcids[r.IntN(len(aminoAcids))])
		default:
			b = append(b, c)
		}
	}
	return &Instance{Inputs: []Input{{Name: "A", Text: string(a)}, {Name: "B", Text: string(b)}}}, nil
}
