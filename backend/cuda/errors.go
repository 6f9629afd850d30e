package cuda

import (
	"errors"
	"fmt"
)

// ErrNoDriver is wrapped by the errors of [Open] when there is no usable CUDA
// driver: libcuda cannot be loaded, it is the toolkit's stub library, or the
// driver reports no device. The wrapping error says which.
var ErrNoDriver = errors.New("no CUDA driver found")

// ErrNoNVRTC is wrapped by the errors of [OpenNVRTC] when no loadable libnvrtc
// is found; the wrapping error lists what was tried.
var ErrNoNVRTC = errors.New("no NVRTC library found")

// Status is a CUDA driver result code (CUresult). The named ones are those a
// caller may want to react to; any other code can still be compared.
type Status int32

// Driver result codes, from cuda.h.
const (
	Success              Status = 0
	InvalidValue         Status = 1
	OutOfMemory          Status = 2
	NotInitialized       Status = 3
	StubLibrary          Status = 34
	NoDevice             Status = 100
	InvalidImage         Status = 200
	InvalidContext       Status = 201
	NoBinaryForGPU       Status = 209
	InvalidPTX           Status = 218
	InvalidHandle        Status = 400
	NotFound             Status = 500
	NotReady             Status = 600
	IllegalAddress       Status = 700
	LaunchOutOfResources Status = 701
	LaunchTimeout        Status = 702
	LaunchFailed         Status = 719
)

// statusNames holds the name and description of common codes, used when the
// driver itself cannot be asked (it is not loaded, or does not know the code).
// The descriptions are the driver's own cuGetErrorString texts.
var statusNames = map[Status][2]string{
	0:   {"CUDA_SUCCESS", "no error"},
	1:   {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	2:   {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	3:   {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	4:   {"CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	34:  {"CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
	46:  {"CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
	100: {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	101: {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	200: {"CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
	201: {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	209: {"CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
	218: {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
	400: {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	500: {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	600: {"CUDA_ERROR_NOT_READY", "device not ready"},
	700: {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
	701: {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
	702: {"CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
	719: {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	999: {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

// Error makes a Status usable as an errors.Is target.
func (s Status) Error() string {
	name, desc := s.describe()
	return name + " (" + desc + ")"
}

func (s Status) describe() (name, desc string) {
	if n, ok := statusNames[s]; ok {
		return n[0], n[1]
	}
	return fmt.Sprintf("CUDA_ERROR_%d", int32(s)), "unrecognised error code"
}

// Error is a failed driver call.
type Error struct {
	Call string // the driver entry point, e.g. "cuMemAlloc_v2"
	Code Status
	Name string // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
	Desc string // e.g. "out of memory"
}

func (e *Error) Error() string { return e.Call + ": " + e.Name + " (" + e.Desc + ")" }

// Is reports whether target is the Status of e, so that
// errors.Is(err, cuda.OutOfMemory) works through any wrapping.
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Code
}

// NVRTCError is a failed NVRTC call.
type NVRTCError struct {
	Call string // e.g. "nvrtcCompileProgram"
	Code int32
	Name string // e.g. "NVRTC_ERROR_COMPILATION"
}

func (e *NVRTCError) Error() string { return e.Call + ": " + e.Name }
