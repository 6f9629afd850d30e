package gpu

import (
	"math"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
)

// keptInputs are device copies of large inputs that runs of one executor
// read again and again: the blocks and bands of a traceback read the two
// sequences of an alignment hundreds of times (two bacterial genomes:
// 9.5 MB converted and copied in ~30 ms, every run). An entry is the
// input itself (held, so that its address names it while it is kept),
// the layout of its elements on the device and a sample of its values;
// an input whose sample no longer matches is uploaded anew. Inputs are
// not changed once bound (ir.Input); data given per run (ir.Input.PerRun)
// is never kept.
type keptInputs struct {
	entries []keptInput
	bytes   int64
}

type keptInput struct {
	in     *ir.Input
	size   int64 // bytes of an element on the device
	sample uint64
	ptr    cuda.DevicePtr
	bytes  int64
	run    uint64 // the last run that used it
}

const (
	// keepInputMin is the least input kept (smaller ones cost little to
	// upload), keepInputMax what the kept ones take at most.
	keepInputMin = 1 << 20
	keepInputMax = 1 << 30
)

// inputSample is a checksum of 64 values spread over in and its ends.
func inputSample(in *ir.Input) uint64 {
	h := uint64(len(in.I))*0x9e3779b97f4a7c15 ^ uint64(len(in.F))
	mix := func(v uint64) { h = (h ^ v) * 0x100000001b3 }
	if n := len(in.I); n > 0 {
		for k := 0; k < 64; k++ {
			mix(uint64(in.I[k*(n-1)/63]))
		}
		mix(uint64(uintptr(unsafe.Pointer(unsafe.SliceData(in.I)))))
	}
	if n := len(in.F); n > 0 {
		for k := 0; k < 64; k++ {
			mix(math.Float64bits(in.F[k*(n-1)/63]))
		}
		mix(uint64(uintptr(unsafe.Pointer(unsafe.SliceData(in.F)))))
	}
	return h
}

// keepable reports whether input in of a run is worth keeping.
func keepable(in codegen.Input) bool {
	return !in.In.PerRun && in.Place != codegen.Constant && int64(in.In.Len())*elemSize(in) >= keepInputMin
}

// get is the device copy of in kept for run, or 0.
func (k *keptInputs) get(in codegen.Input, run uint64) cuda.DevicePtr {
	size := elemSize(in)
	for x := range k.entries {
		e := &k.entries[x]
		if e.in == in.In && e.size == size && e.bytes == int64(in.In.Len())*size {
			if e.sample != inputSample(in.In) {
				return 0
			}
			e.run = run
			return e.ptr
		}
	}
	return 0
}

// put uploads data, in's elements, into device memory of its own and
// keeps it for the runs after run; it frees the entries of earlier runs
// that the limit needs gone, and any old copy of in. 0 when it cannot
// (the caller uploads as usual).
func (k *keptInputs) put(ctx *cuda.Context, in codegen.Input, data []byte, run uint64) cuda.DevicePtr {
	n := int64(len(data))
	if n > keepInputMax {
		return 0
	}
	keep := k.entries[:0]
	for _, e := range k.entries {
		if e.in == in.In || (k.bytes+n > keepInputMax && e.run != run) {
			ctx.Free(e.ptr)
			k.bytes -= e.bytes
			continue
		}
		keep = append(keep, e)
	}
	k.entries = keep
	if k.bytes+n > keepInputMax {
		return 0
	}
	p, err := ctx.Alloc(n)
	if err != nil {
		return 0
	}
	if err := ctx.CopyHtoD(p, unsafe.Pointer(&data[0]), n); err != nil {
		ctx.Free(p)
		return 0
	}
	k.entries = append(k.entries, keptInput{in: in.In, size: elemSize(in), sample: inputSample(in.In), ptr: p, bytes: n, run: run})
	k.bytes += n
	return p
}

// free frees every kept copy.
func (k *keptInputs) free(ctx *cuda.Context) error {
	var err error
	for _, e := range k.entries {
		if e2 := ctx.Free(e.ptr); err == nil {
			err = e2
		}
	}
	k.entries, k.bytes = nil, 0
	return err
}
