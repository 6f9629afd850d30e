package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/dpgpu/dpgpu/internal/hostmem"
)

// Context is the primary context of one device. Every object made from it
// (memory, streams, events, modules, textures) belongs to it and must be
// released before [Context.Close].
type Context struct {
	api    *driverAPI
	dev    Device
	handle uintptr // CUcontext; 0 once closed
	cudev  int32   // CUdevice
}

// errClosed is returned by the methods of a closed Context.
var errClosed = errors.New("cuda: context is closed")

// NewContext retains the primary context of device ordinal (see
// [Driver.Devices]). Primary contexts are shared with any other user of the
// device in this process.
func (d *Driver) NewContext(ordinal int) (*Context, error) {
	if ordinal < 0 || ordinal >= len(d.devices) {
		return nil, fmt.Errorf("cuda: no device %d (%d present)", ordinal, len(d.devices))
	}
	api := d.api
	var dev int32
	if err := api.check("cuDeviceGet", api.call(api.cuDeviceGet, uintptr(unsafe.Pointer(&dev)), uintptr(ordinal))); err != nil {
		return nil, err
	}
	var h uintptr
	if err := api.check("cuDevicePrimaryCtxRetain", api.call(api.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&h)), uintptr(dev))); err != nil {
		return nil, fmt.Errorf("device %d: %w", ordinal, err)
	}
	return &Context{api: api, dev: d.devices[ordinal], handle: h, cudev: dev}, nil
}

// Device is the device the context runs on.
func (c *Context) Device() Device { return c.dev }

// enter locks the goroutine to its thread and makes c current there. Every
// successful enter must be paired with c.exit().
func (c *Context) enter() error {
	if c.handle == 0 {
		return errClosed
	}
	runtime.LockOSThread()
	if err := c.api.check("cuCtxSetCurrent", c.api.call(c.api.cuCtxSetCurrent, c.handle)); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	return nil
}

func (c *Context) exit() { runtime.UnlockOSThread() }

// do runs one driver call with the context current and checks its status.
//
//go:uintptrescapes
func (c *Context) do(name string, fn uintptr, args ...uintptr) error {
	if err := c.enter(); err != nil {
		return err
	}
	defer c.exit()
	return c.api.check(name, c.api.call(fn, args...))
}

// Bind locks the calling goroutine to its OS thread and makes c current on
// it, for code that calls CUDA by other means. This package's own methods do
// not need it. Undo with [Context.Unbind] on the same goroutine.
func (c *Context) Bind() error { return c.enter() }

// Unbind releases the thread lock taken by a successful [Context.Bind].
func (c *Context) Unbind() { c.exit() }

// Synchronize waits for all work on the device and reports any error a kernel
// raised.
func (c *Context) Synchronize() error {
	return c.do("cuCtxSynchronize", c.api.cuCtxSynchronize)
}

// MemInfo is the free and total device memory in bytes.
func (c *Context) MemInfo() (free, total int64, err error) {
	var f, t uint64
	err = c.do("cuMemGetInfo_v2", c.api.cuMemGetInfo, uintptr(unsafe.Pointer(&f)), uintptr(unsafe.Pointer(&t)))
	return int64(f), int64(t), err
}

// Close releases the primary context. It must not run concurrently with other
// methods; the Context is unusable afterwards.
func (c *Context) Close() error {
	if c.handle == 0 {
		return nil
	}
	c.handle = 0
	return c.api.check("cuDevicePrimaryCtxRelease", c.api.call(c.api.cuDevicePrimaryCtxRelease, uintptr(c.cudev)))
}

// DevicePtr is an address in device memory (CUdeviceptr).
type DevicePtr uint64

// Offset is p advanced by bytes.
func (p DevicePtr) Offset(bytes int64) DevicePtr { return p + DevicePtr(bytes) }

func checkSize(what string, n int64) error {
	if n <= 0 {
		return fmt.Errorf("cuda: %s of %d bytes", what, n)
	}
	return nil
}

// Alloc allocates bytes of device memory (aligned to at least 256 bytes).
func (c *Context) Alloc(bytes int64) (DevicePtr, error) {
	if err := checkSize("allocation", bytes); err != nil {
		return 0, err
	}
	var p uint64
	if err := c.do("cuMemAlloc_v2", c.api.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes)); err != nil {
		return 0, fmt.Errorf("allocating %d bytes: %w", bytes, err)
	}
	return DevicePtr(p), nil
}

// Free releases memory from [Context.Alloc]. Freeing 0 does nothing.
func (c *Context) Free(p DevicePtr) error {
	if p == 0 {
		return nil
	}
	return c.do("cuMemFree_v2", c.api.cuMemFree, uintptr(p))
}

// CopyHtoD copies bytes from host memory at src to dst, synchronously.
func (c *Context) CopyHtoD(dst DevicePtr, src unsafe.Pointer, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	if err := checkSize("copy", bytes); err != nil {
		return err
	}
	return c.do("cuMemcpyHtoD_v2", c.api.cuMemcpyHtoD, uintptr(dst), uintptr(src), uintptr(bytes))
}

// CopyDtoH copies bytes from src to host memory at dst, synchronously.
// memcpy2D is CUDA_MEMCPY2D (cuda.h): a rectangle of rows from one
// pitched buffer to another.
type memcpy2D struct {
	srcXInBytes, srcY uint64
	srcMemoryType     uint32
	_                 uint32
	srcHost           uintptr
	srcDevice         uint64
	srcArray          uintptr
	srcPitch          uint64
	dstXInBytes, dstY uint64
	dstMemoryType     uint32
	_                 uint32
	dstHost           uintptr
	dstDevice         uint64
	dstArray          uintptr
	dstPitch          uint64
	widthInBytes      uint64
	height            uint64
}

// CopyDtoH2D copies a rectangle of height rows of width bytes, starting x
// bytes into row y of the device buffer src whose rows are srcPitch bytes
// apart, to dst, whose rows are dstPitch bytes apart: a tile of a
// row-major grid in one call.
//
//go:uintptrescapes
func (c *Context) CopyDtoH2D(dst unsafe.Pointer, dstPitch int64, src DevicePtr, srcPitch, x, y, width, height int64) error {
	if width <= 0 || height <= 0 {
		return nil
	}
	m := dtoH2D(dst, dstPitch, src, srcPitch, x, y, width, height)
	err := c.do("cuMemcpy2D_v2", c.api.cuMemcpy2D, uintptr(unsafe.Pointer(&m)))
	runtime.KeepAlive(dst)
	return err
}

// dtoH2D describes a copy of a device rectangle to host memory (see
// CopyDtoH2D).
func dtoH2D(dst unsafe.Pointer, dstPitch int64, src DevicePtr, srcPitch, x, y, width, height int64) memcpy2D {
	const hostMem, deviceMem = 1, 2 // CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE
	return memcpy2D{
		srcXInBytes: uint64(x), srcY: uint64(y), srcMemoryType: deviceMem, srcDevice: uint64(src), srcPitch: uint64(srcPitch),
		dstMemoryType: hostMem, dstHost: uintptr(dst), dstPitch: uint64(dstPitch),
		widthInBytes: uint64(width), height: uint64(height),
	}
}

// CopyDtoH2DAsync is CopyDtoH2D queued on s: dst must be pinned memory
// (a [HostBuffer]) that stays valid until s has run it. On a non-blocking
// stream ([Context.NewStreamNonBlocking]) it runs beside kernels on other
// streams. Without cuMemcpy2DAsync in the driver, it is CopyDtoH2D.
//
//go:uintptrescapes
func (c *Context) CopyDtoH2DAsync(dst unsafe.Pointer, dstPitch int64, src DevicePtr, srcPitch, x, y, width, height int64, s *Stream) error {
	if c.api.cuMemcpy2DAsync == 0 {
		return c.CopyDtoH2D(dst, dstPitch, src, srcPitch, x, y, width, height)
	}
	if width <= 0 || height <= 0 {
		return nil
	}
	m := dtoH2D(dst, dstPitch, src, srcPitch, x, y, width, height)
	err := c.do("cuMemcpy2DAsync_v2", c.api.cuMemcpy2DAsync, uintptr(unsafe.Pointer(&m)), s.handle())
	runtime.KeepAlive(dst)
	return err
}

func (c *Context) CopyDtoH(dst unsafe.Pointer, src DevicePtr, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	if err := checkSize("copy", bytes); err != nil {
		return err
	}
	return c.do("cuMemcpyDtoH_v2", c.api.cuMemcpyDtoH, uintptr(dst), uintptr(src), uintptr(bytes))
}

// CopyHtoDAsync queues a copy of bytes from host memory at src to dst on s
// (nil: the default stream). src must stay valid and unchanged until the copy
// has run; it should be a [HostBuffer], for pageable memory is staged
// synchronously by the driver.
func (c *Context) CopyHtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes int64, s *Stream) error {
	if bytes == 0 {
		return nil
	}
	if err := checkSize("copy", bytes); err != nil {
		return err
	}
	return c.do("cuMemcpyHtoDAsync_v2", c.api.cuMemcpyHtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.handle())
}

// CopyDtoHAsync queues a copy of bytes from src to host memory at dst on s
// (nil: the default stream). dst must stay valid until the copy has run (wait
// on s or on an event recorded after it); it should be a [HostBuffer].
func (c *Context) CopyDtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes int64, s *Stream) error {
	if bytes == 0 {
		return nil
	}
	if err := checkSize("copy", bytes); err != nil {
		return err
	}
	return c.do("cuMemcpyDtoHAsync_v2", c.api.cuMemcpyDtoHAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.handle())
}

// CopyDtoD copies bytes between two device buffers.
func (c *Context) CopyDtoD(dst, src DevicePtr, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	if err := checkSize("copy", bytes); err != nil {
		return err
	}
	return c.do("cuMemcpyDtoD_v2", c.api.cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(bytes))
}

// Memset8 sets count bytes at p to v.
func (c *Context) Memset8(p DevicePtr, v uint8, count int64) error {
	if count == 0 {
		return nil
	}
	if err := checkSize("memset", count); err != nil {
		return err
	}
	return c.do("cuMemsetD8_v2", c.api.cuMemsetD8, uintptr(p), uintptr(v), uintptr(count))
}

// Memset32 sets count 32-bit words at p (4-byte aligned) to v.
func (c *Context) Memset32(p DevicePtr, v uint32, count int64) error {
	if count == 0 {
		return nil
	}
	if err := checkSize("memset", count); err != nil {
		return err
	}
	return c.do("cuMemsetD32_v2", c.api.cuMemsetD32, uintptr(p), uintptr(v), uintptr(count))
}

// Memset32Async queues setting count 32-bit words at p (4-byte aligned) to
// v on s (nil: the default stream), ordered with the stream's launches.
func (c *Context) Memset32Async(p DevicePtr, v uint32, count int64, s *Stream) error {
	if count == 0 {
		return nil
	}
	if err := checkSize("memset", count); err != nil {
		return err
	}
	return c.do("cuMemsetD32Async", c.api.cuMemsetD32Async, uintptr(p), uintptr(v), uintptr(count), s.handle())
}

// Elem is the element types the typed helpers copy: fixed-size numbers with
// the same layout on host and device.
type Elem interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// CopyToDevice copies all of src to dst, synchronously.
func CopyToDevice[T Elem](c *Context, dst DevicePtr, src []T) error {
	if len(src) == 0 {
		return nil
	}
	var z T
	return c.CopyHtoD(dst, unsafe.Pointer(unsafe.SliceData(src)), int64(len(src))*int64(unsafe.Sizeof(z)))
}

// CopyFromDevice fills dst from src, synchronously.
func CopyFromDevice[T Elem](c *Context, dst []T, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	var z T
	return c.CopyDtoH(unsafe.Pointer(unsafe.SliceData(dst)), src, int64(len(dst))*int64(unsafe.Sizeof(z)))
}

// HostBuffer is page-locked ("pinned") host memory: the GPU reads and
// writes it by DMA, which is what makes asynchronous copies asynchronous,
// and kernels can read and write it through [HostBuffer.DevicePtr]. It lives
// outside the Go heap; free it with [HostBuffer.Free].
type HostBuffer struct {
	ctx   *Context
	ptr   unsafe.Pointer
	bytes int64
	// mapped is set for memory this package mapped and registered itself
	// (large buffers), nil for cuMemHostAlloc's.
	mapped []byte
}

// Flags of cuMemHostAlloc and cuMemHostRegister.
const (
	hostAllocDeviceMap    = 0x02 // CU_MEMHOSTALLOC_DEVICEMAP
	hostRegisterDeviceMap = 0x02 // CU_MEMHOSTREGISTER_DEVICEMAP
)

// largeHostBuffer is the size from which HostAlloc maps memory itself.
const largeHostBuffer = 4 << 20

// HostAlloc allocates bytes of pinned host memory, mapped into the
// device's address space.
//
// Buffers of 4 MB and more are mapped with mmap (asking for transparent
// huge pages), touched by several threads and registered with
// cuMemHostRegister: on the H100 machine cuMemHostAlloc pins at about
// 0.4 s/GB, touching and registering huge pages at about 0.05 s/GB.
// Where that fails, cuMemHostAlloc is used.
func (c *Context) HostAlloc(bytes int64) (*HostBuffer, error) {
	if err := checkSize("host allocation", bytes); err != nil {
		return nil, err
	}
	if bytes >= largeHostBuffer {
		if h, err := c.hostMap(bytes); err == nil {
			return h, nil
		}
	}
	var p unsafe.Pointer
	if err := c.do("cuMemHostAlloc", c.api.cuMemHostAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes), hostAllocDeviceMap); err != nil {
		return nil, fmt.Errorf("allocating %d pinned bytes: %w", bytes, err)
	}
	return &HostBuffer{ctx: c, ptr: p, bytes: bytes}, nil
}

// hostMap maps, touches and registers bytes of host memory.
func (c *Context) hostMap(bytes int64) (*HostBuffer, error) {
	m, err := hostmem.Map(bytes)
	if err != nil {
		return nil, err
	}
	p := unsafe.Pointer(unsafe.SliceData(m))
	if err := c.do("cuMemHostRegister", c.api.cuMemHostRegister, uintptr(p), uintptr(bytes), hostRegisterDeviceMap); err != nil {
		hostmem.Unmap(m)
		return nil, err
	}
	return &HostBuffer{ctx: c, ptr: p, bytes: bytes, mapped: m}, nil
}

// DevicePtr is the address under which kernels reach the buffer.
func (h *HostBuffer) DevicePtr() (DevicePtr, error) {
	var d DevicePtr
	if err := h.ctx.do("cuMemHostGetDevicePointer", h.ctx.api.cuMemHostGetDevicePointer, uintptr(unsafe.Pointer(&d)), uintptr(h.ptr), 0); err != nil {
		return 0, err
	}
	return d, nil
}

// Ptr is the start of the buffer, for the copy methods.
func (h *HostBuffer) Ptr() unsafe.Pointer { return h.ptr }

// Len is the size in bytes.
func (h *HostBuffer) Len() int64 { return h.bytes }

// Bytes is a view of the whole buffer. It is invalid after Free.
func (h *HostBuffer) Bytes() []byte {
	if h.ptr == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.ptr), h.bytes)
}

// Free releases the buffer; views of it become invalid.
func (h *HostBuffer) Free() error {
	if h.ptr == nil {
		return nil
	}
	p, m := h.ptr, h.mapped
	h.ptr, h.bytes, h.mapped = nil, 0, nil
	if m != nil {
		err := h.ctx.do("cuMemHostUnregister", h.ctx.api.cuMemHostUnregister, uintptr(p))
		return errors.Join(err, hostmem.Unmap(m))
	}
	return h.ctx.do("cuMemFreeHost", h.ctx.api.cuMemFreeHost, uintptr(p))
}

// HostSlice is a view of h as a slice of T (its length rounded down to whole
// elements). It is invalid after h.Free.
func HostSlice[T Elem](h *HostBuffer) []T {
	var z T
	if h.ptr == nil {
		return nil
	}
	return unsafe.Slice((*T)(h.ptr), h.bytes/int64(unsafe.Sizeof(z)))
}

// Stream is a queue of device work that runs in order. It is created as a
// blocking stream: it synchronises with the default stream, so the
// synchronous copies of [Context] also wait for its work.
type Stream struct {
	ctx *Context
	h   uintptr
}

// NewStream creates a stream.
func (c *Context) NewStream() (*Stream, error) {
	var h uintptr
	if err := c.do("cuStreamCreate", c.api.cuStreamCreate, uintptr(unsafe.Pointer(&h)), 0); err != nil {
		return nil, err
	}
	return &Stream{ctx: c, h: h}, nil
}

// NewStreamNonBlocking creates a stream that does not synchronise with
// the default stream (CU_STREAM_NON_BLOCKING): its work runs beside the
// executor's kernels (a traceback's tiles copied back while the next
// block is computed).
func (c *Context) NewStreamNonBlocking() (*Stream, error) {
	var h uintptr
	if err := c.do("cuStreamCreate", c.api.cuStreamCreate, uintptr(unsafe.Pointer(&h)), 1); err != nil {
		return nil, err
	}
	return &Stream{ctx: c, h: h}, nil
}

// handle is the CUstream of s; nil is the default stream.
func (s *Stream) handle() uintptr {
	if s == nil {
		return 0
	}
	return s.h
}

// Synchronize waits until all work queued on s has run.
func (s *Stream) Synchronize() error {
	return s.ctx.do("cuStreamSynchronize", s.ctx.api.cuStreamSynchronize, s.h)
}

// WaitEvent makes work queued on s after this call wait until e has been
// reached (on whatever stream recorded it).
func (s *Stream) WaitEvent(e *Event) error {
	return s.ctx.do("cuStreamWaitEvent", s.ctx.api.cuStreamWaitEvent, s.h, e.h, 0)
}

// Destroy releases the stream once its queued work has run.
func (s *Stream) Destroy() error {
	if s.h == 0 {
		return nil
	}
	h := s.h
	s.h = 0
	return s.ctx.do("cuStreamDestroy_v2", s.ctx.api.cuStreamDestroy, h)
}

// Event marks a point in a stream, to wait for or to time.
type Event struct {
	ctx *Context
	h   uintptr
}

// NewEvent creates an event that records timing.
func (c *Context) NewEvent() (*Event, error) { return c.newEvent(0) }

// Event flags (CUevent_flags).
const (
	eventBlockingSync  = 0x1
	eventDisableTiming = 0x2
)

// NewWaitEvent creates an event to wait on only: it records no timing, and
// Synchronize sleeps instead of spinning, leaving the core to CPU work
// that runs while the GPU does (a wait of a millisecond or more).
func (c *Context) NewWaitEvent() (*Event, error) {
	return c.newEvent(eventBlockingSync | eventDisableTiming)
}

func (c *Context) newEvent(flags uintptr) (*Event, error) {
	var h uintptr
	if err := c.do("cuEventCreate", c.api.cuEventCreate, uintptr(unsafe.Pointer(&h)), flags); err != nil {
		return nil, err
	}
	return &Event{ctx: c, h: h}, nil
}

// Record places e in s (nil: the default stream) after the work queued so far.
func (e *Event) Record(s *Stream) error {
	return e.ctx.do("cuEventRecord", e.ctx.api.cuEventRecord, e.h, s.handle())
}

// Done reports whether the work before e's last Record has run, without
// waiting; an error is one the work reported (a kernel fault).
func (e *Event) Done() (bool, error) {
	if err := e.ctx.enter(); err != nil {
		return false, err
	}
	defer e.ctx.exit()
	s := e.ctx.api.call(e.ctx.api.cuEventQuery, e.h)
	if s == NotReady {
		return false, nil
	}
	return true, e.ctx.api.check("cuEventQuery", s)
}

// Synchronize waits until the work before e's last Record has run.
func (e *Event) Synchronize() error {
	return e.ctx.do("cuEventSynchronize", e.ctx.api.cuEventSynchronize, e.h)
}

// Destroy releases the event.
func (e *Event) Destroy() error {
	if e.h == 0 {
		return nil
	}
	h := e.h
	e.h = 0
	return e.ctx.do("cuEventDestroy_v2", e.ctx.api.cuEventDestroy, h)
}

// Elapsed is the device time in milliseconds between two recorded events
// (resolution about half a microsecond). Both must have completed.
func Elapsed(start, end *Event) (ms float32, err error) {
	if start.ctx != end.ctx {
		return 0, errors.New("cuda: events of different contexts")
	}
	err = start.ctx.do("cuEventElapsedTime", start.ctx.api.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), start.h, end.h)
	return ms, err
}
