// Package cuda binds the parts of the CUDA driver API (libcuda) and of NVRTC
// (libnvrtc) that dpgpu needs, loading both libraries at run time through
// purego so that the whole program builds with CGO_ENABLED=0 and runs on
// machines without a GPU.
//
// # Loading
//
// [Open] loads libcuda.so.1 (or libcuda.so), initialises the driver and lists
// the devices. When there is no usable driver — the library is missing, it is
// the toolkit's stub, or there is no device — the error wraps [ErrNoDriver],
// so callers (and tests) can tell "no GPU here" from "the GPU failed":
//
//	drv, err := cuda.Open()
//	if errors.Is(err, cuda.ErrNoDriver) { ... fall back to the CPU ... }
//
// [OpenNVRTC] loads the run-time compiler separately (see its documentation
// for the search order); a missing compiler wraps [ErrNoNVRTC].
//
// # Threads
//
// A CUDA context is current per OS thread, while goroutines move between
// threads. Every method of this package that needs the context therefore locks
// the calling goroutine to its thread and makes the context current for the
// duration of the call, so a [Context] and everything made from it may be used
// from any goroutine. [Context.Bind] exists for code that also calls into CUDA
// by other means and wants the context current on a fixed thread.
//
// Work is ordered by streams, not by goroutines: two goroutines issuing work to
// the same stream get it in whatever order their calls happen.
//
// # Errors
//
// Every driver and NVRTC status is checked. A failed driver call yields an
// [*Error] that names the call and the CUDA error, e.g.
//
//	cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of memory)
//
// and matches its [Status] with errors.Is (errors.Is(err, cuda.OutOfMemory)).
// Errors raised by a kernel (an illegal address, say) are reported by the next
// call that synchronises, as the driver does; they poison the context.
//
// # Memory handed to the driver
//
// Pointers into Go memory are only passed for the duration of a call (the
// synchronous copies, kernel parameters, descriptors). Asynchronous copies
// must use memory that outlives the copy: a [HostBuffer] (pinned, outside the
// Go heap) is the intended source and destination.
package cuda
