package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// Module is code loaded into a context: a CUBIN, a fatbin or PTX text.
type Module struct {
	ctx *Context
	h   uintptr
}

// LoadModule loads image, which is a CUBIN or fatbin (as [NVRTC.Compile]
// returns) or PTX text. The driver copies it; image may be reused afterwards.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("cuda: loading module: empty image")
	}
	// PTX is read as a C string; binary images carry their own length.
	if !bytes.HasPrefix(image, []byte(elfMagic)) && image[len(image)-1] != 0 {
		image = append(image[:len(image):len(image)], 0)
	}
	var h uintptr
	if err := c.do("cuModuleLoadData", c.api.cuModuleLoadData, uintptr(unsafe.Pointer(&h)), uintptr(unsafe.Pointer(&image[0]))); err != nil {
		return nil, fmt.Errorf("loading module: %w", err)
	}
	return &Module{ctx: c, h: h}, nil
}

// Unload releases the module; its functions and globals become invalid.
func (m *Module) Unload() error {
	if m.h == 0 {
		return nil
	}
	h := m.h
	m.h = 0
	return m.ctx.do("cuModuleUnload", m.ctx.api.cuModuleUnload, h)
}

// cstr is s as a NUL-terminated byte slice.
func cstr(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// Function looks up a kernel by its (extern "C", i.e. unmangled) name.
func (m *Module) Function(name string) (*Function, error) {
	if m.h == 0 {
		return nil, errors.New("cuda: module is unloaded")
	}
	c := m.ctx
	n := cstr(name)
	var h uintptr
	if err := c.do("cuModuleGetFunction", c.api.cuModuleGetFunction, uintptr(unsafe.Pointer(&h)), m.h, uintptr(unsafe.Pointer(&n[0]))); err != nil {
		return nil, fmt.Errorf("kernel %s: %w", name, err)
	}
	f := &Function{ctx: c, h: h, name: name}
	params, err := f.paramSizes()
	if err != nil {
		return nil, fmt.Errorf("kernel %s: %w", name, err)
	}
	f.params = params
	return f, nil
}

// Global is the address and size in bytes of a __device__ or __constant__
// variable of the module (extern "C" names are unmangled). Write it with the
// copy methods before launching the kernels that read it.
func (m *Module) Global(name string) (DevicePtr, int64, error) {
	if m.h == 0 {
		return 0, 0, errors.New("cuda: module is unloaded")
	}
	c := m.ctx
	n := cstr(name)
	var p, size uint64
	if err := c.do("cuModuleGetGlobal_v2", c.api.cuModuleGetGlobal, uintptr(unsafe.Pointer(&p)), uintptr(unsafe.Pointer(&size)), m.h, uintptr(unsafe.Pointer(&n[0]))); err != nil {
		return 0, 0, fmt.Errorf("global %s: %w", name, err)
	}
	return DevicePtr(p), int64(size), nil
}

// Function is a kernel of a loaded module.
type Function struct {
	ctx  *Context
	h    uintptr
	name string
	// params holds the byte size of each kernel parameter, read from the
	// module where the driver can tell (CUDA 12.4+); nil when it cannot, and
	// then launches are not checked.
	params []int
}

// Name is the kernel's name.
func (f *Function) Name() string { return f.name }

// paramSizes asks the driver for the size of every parameter, stopping at the
// first index it rejects. It returns nil where the driver lacks the query.
func (f *Function) paramSizes() ([]int, error) {
	api := f.ctx.api
	if api.cuFuncGetParamInfo == 0 {
		return nil, nil
	}
	if err := f.ctx.enter(); err != nil {
		return nil, err
	}
	defer f.ctx.exit()
	sizes := []int{}
	const maxParams = 4096 // far beyond the 32 KB parameter space
	for i := 0; i < maxParams; i++ {
		var off, size uint64
		s := api.call(api.cuFuncGetParamInfo, f.h, uintptr(i), uintptr(unsafe.Pointer(&off)), uintptr(unsafe.Pointer(&size)))
		if s == InvalidValue {
			return sizes, nil
		}
		if s != Success {
			return nil, nil // e.g. not supported for this function: launch unchecked
		}
		sizes = append(sizes, int(size))
	}
	return nil, nil
}

// Function attributes (CUfunction_attribute).
const (
	funcMaxThreadsPerBlock = 0
	funcSharedSizeBytes    = 1
	funcConstSizeBytes     = 2
	funcLocalSizeBytes     = 3
	funcNumRegs            = 4
	funcPTXVersion         = 5
	funcBinaryVersion      = 6
	funcMaxDynamicShared   = 8
)

// FuncInfo is what the compiler made of a kernel.
type FuncInfo struct {
	Regs               int // registers per thread
	LocalBytes         int // local memory (spills, stack arrays) per thread
	StaticSharedBytes  int // __shared__ arrays
	ConstBytes         int // __constant__ data used
	MaxThreadsPerBlock int // the most threads per block a launch can have
	MaxDynamicShared   int // the dynamic shared memory currently allowed
	PTXVersion         int // 10*major + minor
	BinaryVersion      int // 10*major + minor of the SASS
}

// Info reads the kernel's resource usage.
func (f *Function) Info() (FuncInfo, error) {
	var fi FuncInfo
	for _, a := range []struct {
		attr int
		dst  *int
	}{
		{funcNumRegs, &fi.Regs},
		{funcLocalSizeBytes, &fi.LocalBytes},
		{funcSharedSizeBytes, &fi.StaticSharedBytes},
		{funcConstSizeBytes, &fi.ConstBytes},
		{funcMaxThreadsPerBlock, &fi.MaxThreadsPerBlock},
		{funcMaxDynamicShared, &fi.MaxDynamicShared},
		{funcPTXVersion, &fi.PTXVersion},
		{funcBinaryVersion, &fi.BinaryVersion},
	} {
		var v int32
		if err := f.ctx.do("cuFuncGetAttribute", f.ctx.api.cuFuncGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a.attr), f.h); err != nil {
			return FuncInfo{}, fmt.Errorf("kernel %s: attribute %d: %w", f.name, a.attr, err)
		}
		*a.dst = int(v)
	}
	return fi, nil
}

// SetMaxDynamicShared allows launches of f with up to bytes of dynamic shared
// memory. Beyond 48 KB a kernel must opt in this way, up to
// Device.MaxSharedPerBlockOptin minus its static shared memory.
func (f *Function) SetMaxDynamicShared(bytes int) error {
	if bytes < 0 || bytes > math.MaxInt32 {
		return fmt.Errorf("cuda: kernel %s: dynamic shared memory of %d bytes", f.name, bytes)
	}
	if err := f.ctx.do("cuFuncSetAttribute", f.ctx.api.cuFuncSetAttribute, f.h, funcMaxDynamicShared, uintptr(bytes)); err != nil {
		return fmt.Errorf("kernel %s: allowing %d bytes of dynamic shared memory: %w", f.name, bytes, err)
	}
	return nil
}

// MaxActiveBlocksPerSM is how many blocks of blockSize threads, each with
// dynShared bytes of dynamic shared memory, fit on one multiprocessor at once.
func (f *Function) MaxActiveBlocksPerSM(blockSize, dynShared int) (int, error) {
	if blockSize <= 0 || dynShared < 0 {
		return 0, fmt.Errorf("cuda: kernel %s: occupancy of blocks of %d threads with %d bytes shared", f.name, blockSize, dynShared)
	}
	var n int32
	if err := f.ctx.do("cuOccupancyMaxActiveBlocksPerMultiprocessor", f.ctx.api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
		uintptr(unsafe.Pointer(&n)), f.h, uintptr(blockSize), uintptr(dynShared)); err != nil {
		return 0, fmt.Errorf("kernel %s: %w", f.name, err)
	}
	return int(n), nil
}

// TexObject is a texture object handle (CUtexObject), passed to kernels as a
// cudaTextureObject_t / unsigned long long parameter.
type TexObject uint64

// kernelArgs is the kernelParams array of one launch in a single allocation:
// buf[i] holds the address of buf[n+i], where the value of parameter i is
// stored. The launch passes &buf[0] through go:uintptrescapes, which puts buf
// on the (non-moving) heap and keeps it alive for the call, so the addresses
// stored inside it stay valid without involving the garbage collector.
type kernelArgs struct {
	buf []uint64
}

// value is the stored value of parameter i.
func (ka kernelArgs) value(i int) uint64 { return ka.buf[len(ka.buf)/2+i] }

// packArgs lays out args for cuLaunchKernel. Each value takes one 8-byte slot,
// little-endian, so a parameter of any size up to 8 bytes reads its own bytes
// from the start of the slot. params, when not nil, are the kernel's
// parameter sizes, and count and sizes are checked against them.
func packArgs(name string, params []int, args []any) (kernelArgs, error) {
	if params != nil && len(params) != len(args) {
		return kernelArgs{}, fmt.Errorf("cuda: kernel %s takes %d parameters, got %d arguments", name, len(params), len(args))
	}
	if len(args) == 0 {
		return kernelArgs{}, nil
	}
	n := len(args)
	ka := kernelArgs{buf: make([]uint64, 2*n)}
	for i, a := range args {
		var v uint64
		var size int
		switch x := a.(type) {
		case DevicePtr:
			v, size = uint64(x), 8
		case TexObject:
			v, size = uint64(x), 8
		case uintptr:
			v, size = uint64(x), 8
		case int64:
			v, size = uint64(x), 8
		case uint64:
			v, size = x, 8
		case float64:
			v, size = math.Float64bits(x), 8
		case int32:
			v, size = uint64(uint32(x)), 4
		case uint32:
			v, size = uint64(x), 4
		case float32:
			v, size = uint64(math.Float32bits(x)), 4
		case int16:
			v, size = uint64(uint16(x)), 2
		case uint16:
			v, size = uint64(x), 2
		case int8:
			v, size = uint64(uint8(x)), 1
		case uint8:
			v, size = uint64(x), 1
		case int:
			return kernelArgs{}, fmt.Errorf("cuda: kernel %s: argument %d is a Go int, whose size is ambiguous: use int32 or int64", name, i)
		default:
			return kernelArgs{}, fmt.Errorf("cuda: kernel %s: argument %d has unsupported type %T", name, i, a)
		}
		if params != nil && params[i] != size {
			return kernelArgs{}, fmt.Errorf("cuda: kernel %s: argument %d is a %T (%d bytes) but parameter %d has %d bytes", name, i, a, size, i, params[i])
		}
		ka.buf[n+i] = v
		ka.buf[i] = uint64(uintptr(unsafe.Pointer(&ka.buf[n+i])))
	}
	return ka, nil
}

// Launch queues fn on s (nil: the default stream) over grid blocks of block
// threads, with shared bytes of dynamic shared memory. args are the kernel's
// parameters in order, each one of DevicePtr, TexObject, int32, uint32,
// int64, uint64, float32, float64, int8, uint8, int16, uint16 or uintptr, of
// the parameter's C size (int is refused: its size is ambiguous). Where the
// driver can tell (CUDA 12.4+), the count and sizes are checked.
//
// Launch returns once the launch is queued; errors inside the kernel surface
// at the next synchronising call.
func (c *Context) Launch(fn *Function, grid, block [3]uint32, shared uint32, s *Stream, args ...any) error {
	if fn == nil || fn.ctx != c {
		return errors.New("cuda: launching a function of another context")
	}
	ka, err := packArgs(fn.name, fn.params, args)
	if err != nil {
		return err
	}
	if len(ka.buf) == 0 {
		err = c.launch(fn.h, grid, block, shared, s.handle(), 0)
	} else {
		// The conversion sits in the call so that go:uintptrescapes applies.
		err = c.launch(fn.h, grid, block, shared, s.handle(), uintptr(unsafe.Pointer(&ka.buf[0])))
	}
	if err != nil {
		return fmt.Errorf("launching %s (grid %v, block %v, %d shared bytes): %w", fn.name, grid, block, shared, err)
	}
	return nil
}

//go:uintptrescapes
func (c *Context) launch(fn uintptr, grid, block [3]uint32, shared uint32, stream, params uintptr) error {
	return c.do("cuLaunchKernel", c.api.cuLaunchKernel, fn,
		uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
		uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
		uintptr(shared), stream, params, 0)
}
