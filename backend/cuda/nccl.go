package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrNoNCCL is what OpenNCCL's error wraps when no NCCL library loads.
var ErrNoNCCL = errors.New("no NCCL library found (libnccl.so.2; it comes with the NVIDIA HPC SDK, PyTorch wheels or the nccl packages)")

// ncclLibs are the names tried, in order.
var ncclLibs = []string{"libnccl.so.2", "libnccl.so"}

// NCCL is libnccl, loaded at run time like libcuda (CGO_ENABLED=0): the
// collectives that spread one computation over the GPUs of one process.
// Only what the Held-Karp solver needs is bound: communicators for a list
// of devices (ncclCommInitAll), all-gather, group calls.
type NCCL struct {
	path                                             string
	commInitAll, commDestroy, allGather              uintptr
	groupStart, groupEnd, getErrorString, getVersion uintptr
}

// OpenNCCL loads libnccl. NVLink SHARP (NVLS) is turned off first
// (NCCL_NVLS_ENABLE=0 in the C environment, unless the user set it): the
// machines this runs on do not support multicast objects.
func OpenNCCL() (*NCCL, error) {
	setCEnv("NCCL_NVLS_ENABLE", "0")
	h, path, err := dlopenFirst(ncclLibs)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNCCL, err)
	}
	n := &NCCL{path: path}
	if err := resolve(h, path, []symbol{
		{"ncclCommInitAll", &n.commInitAll, false},
		{"ncclCommDestroy", &n.commDestroy, false},
		{"ncclAllGather", &n.allGather, false},
		{"ncclGroupStart", &n.groupStart, false},
		{"ncclGroupEnd", &n.groupEnd, false},
		{"ncclGetErrorString", &n.getErrorString, false},
		{"ncclGetVersion", &n.getVersion, true},
	}); err != nil {
		return nil, err
	}
	return n, nil
}

// setCEnv sets name=value in the C environment (which a C library reads
// with getenv; os.Setenv does not reach it without cgo), unless name is
// set already. A failure leaves the environment as it is.
func setCEnv(name, value string) {
	libc, _, err := dlopenFirst([]string{"libc.so.6"})
	if err != nil {
		return
	}
	fn, err := purego.Dlsym(libc, "setenv")
	if err != nil || fn == 0 {
		return
	}
	k, v := append([]byte(name), 0), append([]byte(value), 0)
	purego.SyscallN(fn, uintptr(unsafe.Pointer(&k[0])), uintptr(unsafe.Pointer(&v[0])), 0)
	runtime.KeepAlive(k)
	runtime.KeepAlive(v)
}

// Version is NCCL's version code (e.g. 22304 for 2.23.4), 0 when unknown.
func (n *NCCL) Version() int {
	if n.getVersion == 0 {
		return 0
	}
	var v int32
	if n.call(n.getVersion, uintptr(unsafe.Pointer(&v))) != 0 {
		return 0
	}
	return int(v)
}

func (n *NCCL) call(fn uintptr, args ...uintptr) int32 {
	r, _, _ := purego.SyscallN(fn, args...)
	return int32(uint32(r))
}

func (n *NCCL) check(call string, code int32) error {
	if code == 0 {
		return nil
	}
	var errorString func(int32) string // a C string, copied by purego
	purego.RegisterFunc(&errorString, n.getErrorString)
	return fmt.Errorf("%s: NCCL error %d: %s", call, code, errorString(code))
}

// Comms are one NCCL communicator per device of ctxs, in order: rank r
// is ctxs[r]'s device.
type Comms struct {
	n     *NCCL
	ctxs  []*Context
	comms []uintptr
}

// InitAll makes the communicators of the devices of ctxs (primary
// contexts, as NewContext makes them: NCCL works through the runtime API,
// which uses them).
func (n *NCCL) InitAll(ctxs []*Context) (*Comms, error) {
	devs := make([]int32, len(ctxs))
	for r, c := range ctxs {
		devs[r] = int32(c.dev.Ordinal)
	}
	comms := make([]uintptr, len(ctxs))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := n.check("ncclCommInitAll", n.call(n.commInitAll, uintptr(unsafe.Pointer(&comms[0])), uintptr(len(ctxs)), uintptr(unsafe.Pointer(&devs[0])))); err != nil {
		return nil, err
	}
	return &Comms{n: n, ctxs: ctxs, comms: comms}, nil
}

// AllGatherInPlace gathers, on every rank r, the chunk of bytes bytes that
// each rank q holds at buf[r] + q*bytes into the same place on r: after
// it, every rank's buf holds every chunk. Each rank's work is queued on
// its stream (streams[r], of ctxs[r]).
func (c *Comms) AllGatherInPlace(buf []DevicePtr, bytes int64, streams []*Stream) error {
	if len(buf) != len(c.comms) || len(streams) != len(c.comms) {
		return fmt.Errorf("nccl: all-gather over %d ranks with %d buffers and %d streams", len(c.comms), len(buf), len(streams))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n := c.n
	if err := n.check("ncclGroupStart", n.call(n.groupStart)); err != nil {
		return err
	}
	var first error
	for r, comm := range c.comms {
		const ncclUint8 = 1
		send := buf[r].Offset(int64(r) * bytes)
		if err := n.check("ncclAllGather", n.call(n.allGather, uintptr(send), uintptr(buf[r]), uintptr(bytes), ncclUint8, comm, streams[r].handle())); err != nil && first == nil {
			first = err
		}
	}
	if err := n.check("ncclGroupEnd", n.call(n.groupEnd)); err != nil && first == nil {
		first = err
	}
	return first
}

// Destroy frees the communicators.
func (c *Comms) Destroy() {
	for _, comm := range c.comms {
		if comm != 0 {
			c.n.call(c.n.commDestroy, comm)
		}
	}
	c.comms = nil
}
