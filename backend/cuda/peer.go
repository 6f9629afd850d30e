package cuda

import (
	"errors"
	"fmt"
	"unsafe"
)

// statusPeerAccessAlreadyEnabled is CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
const statusPeerAccessAlreadyEnabled Status = 704

// EnablePeer lets kernels of c read and write memory allocated in peer's
// context (another device), through NVLink or PCIe: device pointers of peer
// then work in c's kernels (unified addressing). It reports false, with no
// error, where the devices cannot reach each other directly (or the driver
// lacks the calls); callers then share mapped host memory instead
// ([Context.HostAllocShared]). Enabling twice is not an error.
func (c *Context) EnablePeer(peer *Context) (bool, error) {
	if c == peer || c.cudev == peer.cudev {
		return true, nil
	}
	api := c.api
	if api.cuDeviceCanAccessPeer == 0 || api.cuCtxEnablePeerAccess == 0 {
		return false, nil
	}
	var can int32
	if err := c.do("cuDeviceCanAccessPeer", api.cuDeviceCanAccessPeer, uintptr(unsafe.Pointer(&can)), uintptr(c.cudev), uintptr(peer.cudev)); err != nil {
		return false, err
	}
	if can == 0 {
		return false, nil
	}
	if peer.handle == 0 {
		return false, errClosed
	}
	err := c.do("cuCtxEnablePeerAccess", api.cuCtxEnablePeerAccess, peer.handle, 0)
	var ce *Error
	if errors.As(err, &ce) && ce.Code == statusPeerAccessAlreadyEnabled {
		err = nil
	}
	if err != nil {
		return false, fmt.Errorf("enabling access from GPU %s to %s: %w", c.dev.Name, peer.dev.Name, err)
	}
	return true, nil
}

// hostAllocPortable is CU_MEMHOSTALLOC_PORTABLE.
const hostAllocPortable = 0x01

// HostAllocShared allocates bytes of pinned host memory mapped into the
// address space of every context (portable), for kernels of different
// devices to exchange data through where peer access is not available. Its
// device pointer ([HostBuffer.DevicePtr]) is the host address on 64-bit
// systems (unified addressing), valid in every context.
func (c *Context) HostAllocShared(bytes int64) (*HostBuffer, error) {
	if err := checkSize("host allocation", bytes); err != nil {
		return nil, err
	}
	var p unsafe.Pointer
	if err := c.do("cuMemHostAlloc", c.api.cuMemHostAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes), hostAllocDeviceMap|hostAllocPortable); err != nil {
		return nil, fmt.Errorf("allocating %d pinned bytes: %w", bytes, err)
	}
	return &HostBuffer{ctx: c, ptr: p, bytes: bytes}, nil
}

// CopyAsync queues on s (a stream of c) a copy of bytes from src, device
// memory of from's context, to dst, device memory of c's: within one
// context a device-to-device copy, between two cuMemcpyPeerAsync (over
// NVLink or PCIe where the devices reach each other, staged by the driver
// where they do not).
func (c *Context) CopyAsync(dst, src DevicePtr, from *Context, bytes int64, s *Stream) error {
	if bytes == 0 {
		return nil
	}
	if err := checkSize("copy", bytes); err != nil {
		return err
	}
	if from == c || from.cudev == c.cudev {
		if c.api.cuMemcpyDtoDAsync == 0 {
			return errors.New("cuda: the driver has no cuMemcpyDtoDAsync")
		}
		return c.do("cuMemcpyDtoDAsync_v2", c.api.cuMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.handle())
	}
	if c.api.cuMemcpyPeerAsync == 0 {
		return errors.New("cuda: the driver has no cuMemcpyPeerAsync")
	}
	if from.handle == 0 || c.handle == 0 {
		return errClosed
	}
	return c.do("cuMemcpyPeerAsync", c.api.cuMemcpyPeerAsync, uintptr(dst), c.handle, uintptr(src), from.handle, uintptr(bytes), s.handle())
}
