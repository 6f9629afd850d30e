package codegen

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// BatchKey names the batch program (Options.Batch with vary as
// BatchInputs) that p, planned as pl, runs on: instances of one `.dp`
// file with equal keys have the same program, so that a batch generates
// it once per key rather than once per instance. It holds everything a
// GPU program of one file depends on — the sizes, the plan's sweep and
// answer, the scalars, each input's type and shape and the one bit of its
// data each decides (an inf value, which the checker's lowering and the
// generator look for; a char over 127; a char input all ASCII, whose
// reads a batch program bounds by 0..127) — and, for the inputs
// that do not vary, a digest of their data, which the launch takes from
// the first instance.
//
// cache, where not nil, remembers the key's part of each shared input's
// data (its digest) by the data's array: the instances of a batch share
// the arrays of the files they read (a scoring matrix), which are then
// hashed once.
func BatchKey(p *ir.Problem, pl *plan.Plan, vary []string, cache *KeyCache) string {
	b := make([]byte, 0, 256)
	num := func(v int64) { b = strconv.AppendInt(b, v, 10); b = append(b, ' ') }
	str := func(s string) { b = append(b, s...); b = append(b, ' ') }
	str(p.Name)
	num(p.Rows)
	num(p.Cols)
	str(p.CellType.String())
	str(string(pl.Schedule))
	str(string(pl.Direction))
	a := pl.Answer
	for _, v := range []int64{int64(a.Kind), a.I, a.J, int64(a.Op), a.I0, a.I1, a.J0, a.J1, a.JStep} {
		num(v)
	}
	for _, c := range a.Cells {
		num(c[0])
		num(c[1])
	}
	for _, sc := range p.Scalars {
		str(sc.Name)
		str(sc.Value.T.String())
		num(sc.Value.I)
		b = strconv.AppendUint(b, math.Float64bits(sc.Value.F), 16)
		b = append(b, ';')
	}
	return string(AppendInputsKey(b, p, vary, cache))
}

// AppendInputsKey appends BatchKey's part of p's inputs: each one's name,
// type and shape, and of its data the bits a program depends on (vary)
// or a digest (a shared input).
func AppendInputsKey(b []byte, p *ir.Problem, vary []string, cache *KeyCache) []byte {
	for _, in := range p.Inputs {
		b = append(b, in.Name...)
		b = append(b, ' ')
		b = append(b, in.T.String()...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(in.Rows), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(in.Cols), 10)
		b = append(b, ' ')
		if slices.Contains(vary, in.Name) {
			b = append(b, dataBits(in)...)
		} else {
			b = append(b, cache.shared(in)...)
		}
		b = append(b, ';')
	}
	return b
}

// dataBits is the key's part of an input's data: the bits a program
// depends on (one pass over a char input's values: a batch keys every
// instance).
func dataBits(in *ir.Input) string {
	unsigned, ascii := false, in.T == ir.Char
	if in.T == ir.Char {
		for _, v := range in.I {
			if v < 0 || v > 127 {
				ascii = false
				unsigned = unsigned || v > 127
			}
		}
	}
	inf := in.HoldsInf()
	return bitsText[b2i(unsigned)<<2|b2i(inf)<<1|b2i(ascii)]
}

// bitsText spells dataBits' three bits, unsigned, inf and ascii.
var bitsText = [8]string{"falsefalsefalse", "falsefalsetrue", "falsetruefalse", "falsetruetrue",
	"truefalsefalse", "truefalsetrue", "truetruefalse", "truetruetrue"}

// sharedPart is the key's part of a shared input's data: its bits and a
// digest of the values.
func sharedPart(in *ir.Input) string {
	h := sha256.New()
	var w [8]byte
	for _, v := range in.I {
		binary.LittleEndian.PutUint64(w[:], uint64(v))
		h.Write(w[:])
	}
	for _, v := range in.F {
		binary.LittleEndian.PutUint64(w[:], math.Float64bits(v))
		h.Write(w[:])
	}
	return dataBits(in) + " " + hex.EncodeToString(h.Sum(nil)[:12])
}

// KeyCache remembers BatchKey's part of shared inputs' data by the data's
// array (safe for concurrent use). An entry holds its array, so that the
// address it is found by cannot be reused by other data.
type KeyCache struct {
	mu sync.Mutex
	m  map[keyArray]keyEntry
}

// maxKeyCache bounds the arrays a KeyCache holds.
const maxKeyCache = 64

type keyArray struct {
	i, f   *byte
	ni, nf int
}

type keyEntry struct {
	i    []int64
	f    []float64
	part string
}

// shared is BatchKey's part of a shared input's data: its digest, found
// once for an array of 256 values or more.
func (c *KeyCache) shared(in *ir.Input) string {
	if c == nil || len(in.I)+len(in.F) < 256 {
		return sharedPart(in)
	}
	k := keyArray{ni: len(in.I), nf: len(in.F)}
	if len(in.I) > 0 {
		k.i = (*byte)(unsafe.Pointer(unsafe.SliceData(in.I)))
	}
	if len(in.F) > 0 {
		k.f = (*byte)(unsafe.Pointer(unsafe.SliceData(in.F)))
	}
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return e.part
	}
	part := sharedPart(in)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[keyArray]keyEntry{}
	}
	if len(c.m) < maxKeyCache { // unshared arrays must not pile up
		c.m[k] = keyEntry{in.I, in.F, part}
	}
	c.mu.Unlock()
	return part
}

// batchRegionDefs defines batch.cu's DP_BREG (a region min or max of
// integer cells kept as values: Program.BatchValueOnly), the best's start
// (the cell type's least value for a max, its greatest for a min) and
// DP_ROW_IN_REGION(i, cj), whether row i of an instance of cj columns has
// cells in the region.
func (g *gen) batchRegionDefs(def func(string, any)) {
	def("DP_BREG", b2i(g.prog.BatchValueOnly))
	info := g.p.CellType.Info()
	init := info.Min
	if g.prog.RegionOp == ir.ReduceMin {
		init = info.Max
	}
	def("DP_BREG_INIT", intLit(init, ir.Long))
	a := g.pl.Answer
	if g.prog.Answer != AnswerRegion {
		def("DP_ROW_IN_REGION(i, cj)", "false")
		return
	}
	def("DP_ROW_IN_REGION(i, cj)", fmt.Sprintf("((i) >= %dLL && (i) <= %dLL && %dLL < (cj))", a.I0, a.I1, a.J0))
}
