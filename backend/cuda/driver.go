package cuda

import (
	"fmt"
	"unsafe"
)

// driverLibs are the names libcuda is looked up under, in order: the versioned
// name the driver installs, then the development symlink.
var driverLibs = []string{"libcuda.so.1", "libcuda.so"}

// Driver is the loaded CUDA driver. It holds no context; see [Driver.NewContext].
type Driver struct {
	api     *driverAPI
	version int
	devices []Device
}

// Device describes one GPU, as read from the driver when it was opened.
type Device struct {
	Ordinal  int
	Name     string // e.g. "NVIDIA H100 80GB HBM3"
	Major    int    // compute capability
	Minor    int
	SMs      int   // multiprocessors
	TotalMem int64 // bytes

	MaxThreadsPerBlock     int
	MaxBlockDim            [3]int
	MaxGridDim             [3]int
	WarpSize               int
	MaxSharedPerBlock      int // bytes of shared memory a block gets without opting in
	MaxSharedPerBlockOptin int // bytes a block may use after Function.SetMaxDynamicShared
	MaxSharedPerSM         int
	MaxRegsPerBlock        int
	MaxThreadsPerSM        int
	TotalConstMem          int // bytes of __constant__ memory
	L2Bytes                int
	ClockKHz               int // SM clock; 0 where the driver no longer reports it
	MemClockKHz            int // 0 where the driver no longer reports it
	MemBusWidth            int // bits
	TextureAlign           int // bytes; texture base addresses must be multiples
	MaxTexture1DLinear     int // elements of a linear texture
}

// Arch is the NVRTC architecture of the device, e.g. "sm_90".
func (d Device) Arch() string { return fmt.Sprintf("sm_%d%d", d.Major, d.Minor) }

// String is the one-line description used in reports, e.g.
// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)".
func (d Device) String() string {
	return fmt.Sprintf("%s (%s, %d SMs)", d.Name, d.Arch(), d.SMs)
}

// Open loads libcuda, initialises it and reads the properties of every
// device. Its error wraps [ErrNoDriver] when there is no usable driver or no
// device.
func Open() (*Driver, error) { return openDriver(driverLibs) }

func openDriver(libs []string) (*Driver, error) {
	h, path, err := dlopenFirst(libs)
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %v", ErrNoDriver, libs[0], err)
	}
	api := &driverAPI{path: path}
	if err := resolve(h, path, api.symbols()); err != nil {
		return nil, fmt.Errorf("loading CUDA driver: %w", err)
	}
	if s := api.call(api.cuInit, 0); s != Success {
		err := api.check("cuInit", s)
		if s == NoDevice || s == StubLibrary {
			return nil, fmt.Errorf("%w (%s): %v", ErrNoDriver, path, err)
		}
		return nil, err
	}
	var version, count int32
	if err := api.check("cuDriverGetVersion", api.call(api.cuDriverGetVersion, uintptr(unsafe.Pointer(&version)))); err != nil {
		return nil, err
	}
	if err := api.check("cuDeviceGetCount", api.call(api.cuDeviceGetCount, uintptr(unsafe.Pointer(&count)))); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, fmt.Errorf("%w (%s): the driver reports no device", ErrNoDriver, path)
	}
	d := &Driver{api: api, version: int(version)}
	for i := 0; i < int(count); i++ {
		dev, err := api.device(i)
		if err != nil {
			return nil, fmt.Errorf("reading device %d: %w", i, err)
		}
		d.devices = append(d.devices, dev)
	}
	return d, nil
}

// Version is the CUDA version the driver supports, as 1000*major + 10*minor
// (13000 for CUDA 13.0).
func (d *Driver) Version() int { return d.version }

// Devices lists the GPUs in driver order.
func (d *Driver) Devices() []Device { return append([]Device(nil), d.devices...) }

// Device attributes (CUdevice_attribute).
const (
	attrMaxThreadsPerBlock      = 1
	attrMaxBlockDimX            = 2
	attrMaxGridDimX             = 5
	attrMaxSharedPerBlock       = 8
	attrTotalConstMem           = 9
	attrWarpSize                = 10
	attrMaxRegsPerBlock         = 12
	attrClockRate               = 13
	attrTextureAlignment        = 14
	attrMultiprocessorCount     = 16
	attrMemoryClockRate         = 36
	attrGlobalMemoryBusWidth    = 37
	attrL2CacheSize             = 38
	attrMaxThreadsPerSM         = 39
	attrMaxTexture1DLinearWidth = 69
	attrComputeCapabilityMajor  = 75
	attrComputeCapabilityMinor  = 76
	attrMaxSharedPerSM          = 81
	attrMaxSharedPerBlockOptin  = 97
)

func (api *driverAPI) device(ordinal int) (Device, error) {
	var h int32 // CUdevice
	if err := api.check("cuDeviceGet", api.call(api.cuDeviceGet, uintptr(unsafe.Pointer(&h)), uintptr(ordinal))); err != nil {
		return Device{}, err
	}
	var name [256]byte
	if err := api.check("cuDeviceGetName", api.call(api.cuDeviceGetName, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)-1), uintptr(h))); err != nil {
		return Device{}, err
	}
	var total uint64
	if err := api.check("cuDeviceTotalMem_v2", api.call(api.cuDeviceTotalMem, uintptr(unsafe.Pointer(&total)), uintptr(h))); err != nil {
		return Device{}, err
	}
	d := Device{Ordinal: ordinal, Name: cString(name[:]), TotalMem: int64(total)}
	var firstErr error
	attr := func(a int, dst *int, optional bool) {
		var v int32
		s := api.call(api.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(h))
		if s != Success {
			if !optional && firstErr == nil {
				firstErr = fmt.Errorf("attribute %d: %w", a, api.check("cuDeviceGetAttribute", s))
			}
			return
		}
		*dst = int(v)
	}
	attr(attrComputeCapabilityMajor, &d.Major, false)
	attr(attrComputeCapabilityMinor, &d.Minor, false)
	attr(attrMultiprocessorCount, &d.SMs, false)
	attr(attrMaxThreadsPerBlock, &d.MaxThreadsPerBlock, false)
	for i := range 3 {
		attr(attrMaxBlockDimX+i, &d.MaxBlockDim[i], false)
		attr(attrMaxGridDimX+i, &d.MaxGridDim[i], false)
	}
	attr(attrWarpSize, &d.WarpSize, false)
	attr(attrMaxSharedPerBlock, &d.MaxSharedPerBlock, false)
	attr(attrMaxSharedPerBlockOptin, &d.MaxSharedPerBlockOptin, false)
	attr(attrMaxSharedPerSM, &d.MaxSharedPerSM, false)
	attr(attrMaxRegsPerBlock, &d.MaxRegsPerBlock, false)
	attr(attrMaxThreadsPerSM, &d.MaxThreadsPerSM, false)
	attr(attrTotalConstMem, &d.TotalConstMem, false)
	attr(attrL2CacheSize, &d.L2Bytes, false)
	attr(attrTextureAlignment, &d.TextureAlign, false)
	attr(attrMaxTexture1DLinearWidth, &d.MaxTexture1DLinear, false)
	// Clock rates are deprecated attributes that newer drivers may drop.
	attr(attrClockRate, &d.ClockKHz, true)
	attr(attrMemoryClockRate, &d.MemClockKHz, true)
	attr(attrGlobalMemoryBusWidth, &d.MemBusWidth, true)
	return d, firstErr
}

// cString is the text of b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
