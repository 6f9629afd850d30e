package cuda

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// symbol pairs an exported C name with the slot its address goes to.
type symbol struct {
	name     string
	addr     *uintptr
	optional bool // absent from older drivers; the feature degrades
}

// dlopenFirst opens the first of candidates that loads. The error lists every
// failure, in order, so a user can see what was tried.
func dlopenFirst(candidates []string) (handle uintptr, path string, err error) {
	var fails []string
	for _, c := range candidates {
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, c, nil
		}
		fails = append(fails, err.Error())
	}
	if len(fails) == 0 {
		return 0, "", fmt.Errorf("no candidate library")
	}
	return 0, "", fmt.Errorf("%s", strings.Join(fails, "; "))
}

// resolve fills the slots of syms from the library at handle.
func resolve(handle uintptr, lib string, syms []symbol) error {
	for _, s := range syms {
		p, err := purego.Dlsym(handle, s.name)
		if err != nil || p == 0 {
			if s.optional {
				*s.addr = 0
				continue
			}
			return fmt.Errorf("%s lacks %s (library too old?)", lib, s.name)
		}
		*s.addr = p
	}
	return nil
}

// driverAPI holds the addresses of the libcuda entry points.
//
// Calls go through purego.SyscallN rather than typed functions made by
// purego.RegisterFunc: every argument of these entry points is an integer or
// a pointer, and SyscallN costs about 80 ns and one allocation a call against
// about 440 ns and 13 allocations for a reflect-made function of eleven
// arguments (measured on the development machine), which matters for
// per-diagonal kernel launches.
type driverAPI struct {
	path string

	cuGetErrorName, cuGetErrorString                                     uintptr
	cuInit, cuDriverGetVersion                                           uintptr
	cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, cuDeviceGetAttribute uintptr
	cuDeviceTotalMem, cuMemGetInfo                                       uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease                  uintptr
	cuCtxSetCurrent, cuCtxSynchronize                                    uintptr
	cuModuleLoadData, cuModuleUnload, cuModuleGetFunction                uintptr
	cuModuleGetGlobal                                                    uintptr
	cuFuncSetAttribute, cuFuncGetAttribute, cuFuncGetParamInfo           uintptr
	cuOccupancyMaxActiveBlocksPerMultiprocessor                          uintptr
	cuLaunchKernel                                                       uintptr
	cuMemAlloc, cuMemFree                                                uintptr
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyHtoDAsync, cuMemcpyDtoHAsync     uintptr
	cuMemcpyDtoD, cuMemsetD8, cuMemsetD32, cuMemsetD32Async              uintptr
	cuMemcpy2D, cuMemcpy2DAsync                                          uintptr
	cuMemHostAlloc, cuMemFreeHost                                        uintptr
	cuMemHostRegister, cuMemHostUnregister, cuMemHostGetDevicePointer    uintptr
	cuStreamCreate, cuStreamSynchronize, cuStreamDestroy                 uintptr
	cuStreamWaitEvent                                                    uintptr
	cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventQuery       uintptr
	cuEventElapsedTime, cuEventDestroy                                   uintptr
	cuTexObjectCreate, cuTexObjectDestroy                                uintptr
	cuDeviceCanAccessPeer, cuCtxEnablePeerAccess                         uintptr
	cuMemcpyDtoDAsync, cuMemcpyPeerAsync                                 uintptr
}

func (d *driverAPI) symbols() []symbol {
	return []symbol{
		{"cuGetErrorName", &d.cuGetErrorName, false},
		{"cuGetErrorString", &d.cuGetErrorString, false},
		{"cuInit", &d.cuInit, false},
		{"cuDriverGetVersion", &d.cuDriverGetVersion, false},
		{"cuDeviceGet", &d.cuDeviceGet, false},
		{"cuDeviceGetCount", &d.cuDeviceGetCount, false},
		{"cuDeviceGetName", &d.cuDeviceGetName, false},
		{"cuDeviceGetAttribute", &d.cuDeviceGetAttribute, false},
		{"cuDeviceTotalMem_v2", &d.cuDeviceTotalMem, false},
		{"cuMemGetInfo_v2", &d.cuMemGetInfo, false},
		{"cuDevicePrimaryCtxRetain", &d.cuDevicePrimaryCtxRetain, false},
		{"cuDevicePrimaryCtxRelease", &d.cuDevicePrimaryCtxRelease, false},
		{"cuCtxSetCurrent", &d.cuCtxSetCurrent, false},
		{"cuCtxSynchronize", &d.cuCtxSynchronize, false},
		{"cuModuleLoadData", &d.cuModuleLoadData, false},
		{"cuModuleUnload", &d.cuModuleUnload, false},
		{"cuModuleGetFunction", &d.cuModuleGetFunction, false},
		{"cuModuleGetGlobal_v2", &d.cuModuleGetGlobal, false},
		{"cuFuncSetAttribute", &d.cuFuncSetAttribute, false},
		{"cuFuncGetAttribute", &d.cuFuncGetAttribute, false},
		{"cuFuncGetParamInfo", &d.cuFuncGetParamInfo, true}, // CUDA 12.4+
		{"cuOccupancyMaxActiveBlocksPerMultiprocessor", &d.cuOccupancyMaxActiveBlocksPerMultiprocessor, false},
		{"cuLaunchKernel", &d.cuLaunchKernel, false},
		{"cuMemAlloc_v2", &d.cuMemAlloc, false},
		{"cuMemFree_v2", &d.cuMemFree, false},
		{"cuMemcpyHtoD_v2", &d.cuMemcpyHtoD, false},
		{"cuMemcpyDtoH_v2", &d.cuMemcpyDtoH, false},
		{"cuMemcpyHtoDAsync_v2", &d.cuMemcpyHtoDAsync, false},
		{"cuMemcpyDtoHAsync_v2", &d.cuMemcpyDtoHAsync, false},
		{"cuMemcpyDtoD_v2", &d.cuMemcpyDtoD, false},
		{"cuMemcpyDtoDAsync_v2", &d.cuMemcpyDtoDAsync, true},
		{"cuMemcpyPeerAsync", &d.cuMemcpyPeerAsync, true},
		{"cuMemcpy2D_v2", &d.cuMemcpy2D, false},
		{"cuMemcpy2DAsync_v2", &d.cuMemcpy2DAsync, true},
		{"cuMemsetD8_v2", &d.cuMemsetD8, false},
		{"cuMemsetD32_v2", &d.cuMemsetD32, false},
		{"cuMemsetD32Async", &d.cuMemsetD32Async, false},
		{"cuMemHostAlloc", &d.cuMemHostAlloc, false},
		{"cuMemFreeHost", &d.cuMemFreeHost, false},
		{"cuMemHostRegister_v2", &d.cuMemHostRegister, false},
		{"cuMemHostUnregister", &d.cuMemHostUnregister, false},
		{"cuMemHostGetDevicePointer_v2", &d.cuMemHostGetDevicePointer, false},
		{"cuStreamCreate", &d.cuStreamCreate, false},
		{"cuStreamSynchronize", &d.cuStreamSynchronize, false},
		{"cuStreamDestroy_v2", &d.cuStreamDestroy, false},
		{"cuStreamWaitEvent", &d.cuStreamWaitEvent, false},
		{"cuDeviceCanAccessPeer", &d.cuDeviceCanAccessPeer, true},
		{"cuCtxEnablePeerAccess", &d.cuCtxEnablePeerAccess, true},
		{"cuEventCreate", &d.cuEventCreate, false},
		{"cuEventRecord", &d.cuEventRecord, false},
		{"cuEventSynchronize", &d.cuEventSynchronize, false},
		{"cuEventQuery", &d.cuEventQuery, false},
		{"cuEventElapsedTime", &d.cuEventElapsedTime, false},
		{"cuEventDestroy_v2", &d.cuEventDestroy, false},
		{"cuTexObjectCreate", &d.cuTexObjectCreate, false},
		{"cuTexObjectDestroy", &d.cuTexObjectDestroy, false},
	}
}

// call runs a driver entry point. Callers convert pointers to uintptr in the
// argument list itself: go:uintptrescapes then keeps the pointed-to memory on
// the heap and alive until call returns, as for syscall.Syscall.
//
//go:uintptrescapes
func (d *driverAPI) call(fn uintptr, args ...uintptr) Status {
	r, _, _ := purego.SyscallN(fn, args...)
	return Status(int32(uint32(r))) // CUresult is a 32-bit enum
}

// check turns a status into nil or an *Error naming the call, with the
// driver's own name and description of the code.
func (d *driverAPI) check(call string, s Status) error {
	if s == Success {
		return nil
	}
	name, desc := s.describe()
	if d != nil && d.cuGetErrorName != 0 {
		var p *byte
		if d.call(d.cuGetErrorName, uintptr(s), uintptr(unsafe.Pointer(&p))) == Success && p != nil {
			name = goString(p)
		}
		p = nil
		if d.call(d.cuGetErrorString, uintptr(s), uintptr(unsafe.Pointer(&p))) == Success && p != nil {
			desc = goString(p)
		}
	}
	return &Error{Call: call, Code: s, Name: name, Desc: desc}
}

// goString copies a NUL-terminated C string that lives outside the Go heap.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
