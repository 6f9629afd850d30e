package analysis

import "github.com/dpgpu/dpgpu/ir"

// InputBounds bounds reads of integer inputs by the loaded data (a
// Config.Input): the value itself where the index is one known element
// inside the input, else the input's least and greatest value. Made once
// per problem, then only read (safe for concurrent use).
type InputBounds map[*ir.Input]Range

// NewInputBounds bounds the integer inputs of p by their spans.
func NewInputBounds(p *ir.Problem) InputBounds {
	b := InputBounds{}
	for _, in := range p.Inputs {
		if in.T.IsFloat() || len(in.I) == 0 {
			continue
		}
		sp := in.IntSpan()
		b[in] = Range{sp.Lo, sp.Hi}
	}
	return b
}

// Load is the Config.Input of b.
func (b InputBounds) Load(n *ir.Load, idx []Range, inside bool) Range {
	in := n.In
	if inside {
		if k, ok := pointIndex(in, idx); ok {
			return Point(in.I[k])
		}
	}
	if r, ok := b[in]; ok {
		return r
	}
	return Full()
}

// pointIndex is the element of in that indices known to one value each
// select (a vector read with one index, a matrix read with two).
func pointIndex(in *ir.Input, idx []Range) (int64, bool) {
	for _, r := range idx {
		if !r.IsPoint() {
			return 0, false
		}
	}
	var k int64
	switch len(idx) {
	case 1:
		k = idx[0].Lo
	case 2:
		k = idx[0].Lo*int64(in.Cols) + idx[1].Lo
	default:
		return 0, false
	}
	return k, k >= 0 && k < int64(len(in.I))
}
