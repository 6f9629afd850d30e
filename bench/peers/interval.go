package peers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
)

// Variant is how an interval kernel maps cells to threads.
type Variant int

const (
	// Warp: one warp per cell, the split loop shared by the lanes and
	// finished by a warp reduction.
	Warp Variant = iota
	// Thread: one thread per cell, the split loop sequential.
	Thread
)

func (v Variant) String() string {
	if v == Thread {
		return "thread"
	}
	return "warp"
}

// intervalBlock is the threads per block of the interval kernels.
const intervalBlock = 128

// Interval is one interval-DP instance (Nussinov or matrix chain) on the
// device. The table is n x n, mirrored (see interval.cu).
type Interval struct {
	dev    Device
	mod    Module
	kernel string
	v      Variant
	n      int
	elem   int // bytes per cell: 4 (Nussinov), 8 (matrix chain)
	in, t  Buf
	bufs   []Buf
}

// nussinovCode maps the bases to the kernel's codes.
var nussinovCode = map[byte]byte{'A': 0, 'C': 1, 'G': 2, 'U': 3}

// NewNussinov uploads an RNA sequence (letters A, C, G, U) for
// nussinov_warp or nussinov_thread.
func NewNussinov(dev Device, seq []byte, v Variant) (*Interval, error) {
	if len(seq) == 0 {
		return nil, errors.New("nussinov: empty sequence")
	}
	codes := make([]byte, len(seq))
	for k, c := range seq {
		code, ok := nussinovCode[c]
		if !ok {
			return nil, fmt.Errorf("nussinov: sequence[%d] is %q, not one of A C G U", k, c)
		}
		codes[k] = code
	}
	return newInterval(dev, "nussinov_"+v.String(), v, len(seq), 4, codes)
}

// MatrixChainBound is the largest cost any partial sum of an instance can
// reach, (n-1) * max(dims)^3, which must fit in int64 for the kernel (it
// has no overflow check).
func MatrixChainBound(dims []int64) *big.Int {
	var mx int64
	for _, d := range dims {
		mx = max(mx, d)
	}
	b := big.NewInt(mx)
	b.Mul(b, b).Mul(b, big.NewInt(mx))
	return b.Mul(b, big.NewInt(int64(max(len(dims)-2, 0))))
}

// NewMatrixChain uploads the dimensions of a chain of len(dims)-1 matrices
// (matrix t is dims[t] x dims[t+1], every dimension >= 1) for
// matrixchain_warp or matrixchain_thread.
func NewMatrixChain(dev Device, dims []int64, v Variant) (*Interval, error) {
	if len(dims) < 2 {
		return nil, errors.New("matrix chain: need at least 2 dimensions (one matrix)")
	}
	for k, d := range dims {
		if d < 1 {
			return nil, fmt.Errorf("matrix chain: dims[%d] = %d, want >= 1", k, d)
		}
	}
	if b := MatrixChainBound(dims); !b.IsInt64() {
		return nil, fmt.Errorf("matrix chain: costs may reach %s, beyond int64", b)
	}
	return newInterval(dev, "matrixchain_"+v.String(), v, len(dims)-1, 8, asBytes(dims))
}

func newInterval(dev Device, kernel string, v Variant, n, elem int, in []byte) (x *Interval, err error) {
	if int64(n)*int64(n) > math.MaxInt64/8 || n > math.MaxInt32/64 {
		return nil, fmt.Errorf("%s: n = %d is too large", kernel, n)
	}
	x = &Interval{dev: dev, kernel: kernel, v: v, n: n, elem: elem}
	defer func() {
		if err != nil {
			err = errors.Join(err, x.Close())
			x = nil
		}
	}()
	if x.mod, err = dev.Build("interval.cu", nil); err != nil {
		return x, err
	}
	if x.in, err = dev.Alloc(int64(len(in))); err != nil {
		return x, err
	}
	x.bufs = append(x.bufs, x.in)
	if x.t, err = dev.Alloc(int64(n) * int64(n) * int64(elem)); err != nil {
		return x, fmt.Errorf("%s: the %d x %d table: %w", kernel, n, n, err)
	}
	x.bufs = append(x.bufs, x.t)
	err = dev.Upload(x.in, in)
	return x, err
}

// N is the number of positions (bases or matrices).
func (x *Interval) N() int { return x.n }

// Kernel is the kernel's name.
func (x *Interval) Kernel() string { return x.kernel }

// Module is the compiled kernel.
func (x *Interval) Module() Module { return x.mod }

// Cells is the number of cells computed, the triangle n(n+1)/2.
func (x *Interval) Cells() int64 { return int64(x.n) * int64(x.n+1) / 2 }

// Terms is the number of split terms evaluated, (n^3 - n)/6.
func (x *Interval) Terms() int64 { n := int64(x.n); return (n*n*n - n) / 6 }

// Run solves the instance once: clears the table (the diagonal is zero),
// then times the n-1 launches, one per diagonal.
func (x *Interval) Run() (Result, error) {
	n := x.n
	if err := x.dev.Memset(x.t, 0, int64(n)*int64(n)*int64(x.elem)); err != nil {
		return Result{}, err
	}
	if err := x.dev.StartTimer(); err != nil {
		return Result{}, err
	}
	for d := 1; d < n; d++ {
		cells := n - d
		threads := cells
		if x.v == Warp {
			threads = 32 * cells
		}
		if err := x.dev.Launch(x.mod, x.kernel, uint32(ceilDiv(threads, intervalBlock)), intervalBlock,
			x.in, x.t, int32(n), int32(d)); err != nil {
			return Result{}, fmt.Errorf("%s: diagonal %d: %w", x.kernel, d, err)
		}
	}
	ms, err := x.dev.StopTimer()
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", x.kernel, err)
	}
	raw := make([]byte, x.elem)
	if err := x.dev.Download(raw, x.t, int64(n-1)*int64(x.elem)); err != nil {
		return Result{}, err
	}
	return Result{Answer: x.decode(raw, 0), Ms: ms}, nil
}

func (x *Interval) decode(raw []byte, k int) int64 {
	if x.elem == 4 {
		return int64(int32(binary.LittleEndian.Uint32(raw[4*k:])))
	}
	return int64(binary.LittleEndian.Uint64(raw[8*k:]))
}

// Table is the whole n x n table after Run, row-major, as int64.
func (x *Interval) Table() ([]int64, error) {
	nn := x.n * x.n
	raw := make([]byte, nn*x.elem)
	if err := x.dev.Download(raw, x.t, 0); err != nil {
		return nil, err
	}
	out := make([]int64, nn)
	for k := range out {
		out[k] = x.decode(raw, k)
	}
	return out, nil
}

// Close frees the device buffers.
func (x *Interval) Close() error { return freeAll(x.dev, &x.bufs) }
