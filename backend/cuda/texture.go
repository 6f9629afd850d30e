package cuda

import (
	"fmt"
	"unsafe"
)

// TexFormat is how a linear texture reads its elements.
type TexFormat int

// Formats of linear textures. The integer ones are read as integers (not
// normalised to [0,1]); the 8-byte types (long, double) have no texture format
// of their own and are read as int2 then reassembled in the kernel:
//
//	int2 v = tex1Dfetch<int2>(t, i);
//	long long x = ((long long)v.y << 32) | (unsigned)v.x;
//	double d = __hiloint2double(v.y, v.x);
const (
	TexInt8    TexFormat = iota + 1 // char / signed char
	TexUint8                        // unsigned char
	TexInt32                        // int
	TexUint32                       // unsigned int
	TexFloat32                      // float
	TexInt2                         // 8-byte elements as int2 (long long, double)
)

// CUarray_format values and texture flags, from cuda.h.
const (
	adFormatUint8  = 0x01
	adFormatUint32 = 0x03
	adFormatInt8   = 0x08
	adFormatInt32  = 0x0a
	adFormatFloat  = 0x20

	resourceTypeLinear = 0x02
	trsfReadAsInteger  = 0x01
	addressModeClamp   = 1
	filterModePoint    = 0
)

// format is the CUarray_format, channel count and element size of f.
func (f TexFormat) format() (format, channels uint32, elemSize int64, ok bool) {
	switch f {
	case TexInt8:
		return adFormatInt8, 1, 1, true
	case TexUint8:
		return adFormatUint8, 1, 1, true
	case TexInt32:
		return adFormatInt32, 1, 4, true
	case TexUint32:
		return adFormatUint32, 1, 4, true
	case TexFloat32:
		return adFormatFloat, 1, 4, true
	case TexInt2:
		return adFormatInt32, 2, 8, true
	}
	return 0, 0, 0, false
}

// resourceDesc is CUDA_RESOURCE_DESC with the linear member of its union
// (144 bytes: resType, padding to the 8-aligned union of 128 bytes, flags).
type resourceDesc struct {
	resType     uint32
	_           uint32
	devPtr      uint64
	format      uint32
	numChannels uint32
	sizeInBytes uint64
	_           [128 - 24]byte
	flags       uint32
	_           uint32
}

// textureDesc is CUDA_TEXTURE_DESC (104 bytes).
type textureDesc struct {
	addressMode         [3]uint32
	filterMode          uint32
	flags               uint32
	maxAnisotropy       uint32
	mipmapFilterMode    uint32
	mipmapLevelBias     float32
	minMipmapLevelClamp float32
	maxMipmapLevelClamp float32
	borderColor         [4]float32
	_                   [12]int32
}

// textureDescs builds the descriptors of a linear texture over bytes at p.
func textureDescs(p DevicePtr, bytes int64, f TexFormat) (resourceDesc, textureDesc, error) {
	format, channels, elem, ok := f.format()
	if !ok {
		return resourceDesc{}, textureDesc{}, fmt.Errorf("cuda: unknown texture format %d", f)
	}
	if bytes <= 0 || bytes%elem != 0 {
		return resourceDesc{}, textureDesc{}, fmt.Errorf("cuda: texture of %d bytes is not a positive number of %d-byte elements", bytes, elem)
	}
	rd := resourceDesc{resType: resourceTypeLinear, devPtr: uint64(p), format: format, numChannels: channels, sizeInBytes: uint64(bytes)}
	td := textureDesc{filterMode: filterModePoint}
	td.addressMode = [3]uint32{addressModeClamp, addressModeClamp, addressModeClamp}
	if format != adFormatFloat {
		td.flags = trsfReadAsInteger
	}
	return rd, td, nil
}

// NewTexture makes a texture object that reads bytes of device memory at p as
// a 1-D array of format f, for tex1Dfetch<T>(t, i) in kernels. p must be a
// multiple of Device.TextureAlign (allocations are) and the element count at
// most Device.MaxTexture1DLinear. The memory must outlive the texture.
func (c *Context) NewTexture(p DevicePtr, bytes int64, f TexFormat) (TexObject, error) {
	rd, td, err := textureDescs(p, bytes, f)
	if err != nil {
		return 0, err
	}
	_, _, elem, _ := f.format()
	if a := int64(c.dev.TextureAlign); a > 0 && int64(p)%a != 0 {
		return 0, fmt.Errorf("cuda: texture at %#x is not aligned to %d bytes", uint64(p), a)
	}
	if m := int64(c.dev.MaxTexture1DLinear); m > 0 && bytes/elem > m {
		return 0, fmt.Errorf("cuda: texture of %d elements exceeds the device's limit of %d", bytes/elem, m)
	}
	var t uint64
	if err := c.do("cuTexObjectCreate", c.api.cuTexObjectCreate, uintptr(unsafe.Pointer(&t)), uintptr(unsafe.Pointer(&rd)), uintptr(unsafe.Pointer(&td)), 0); err != nil {
		return 0, fmt.Errorf("texture of %d bytes: %w", bytes, err)
	}
	return TexObject(t), nil
}

// DestroyTexture releases a texture object (not its memory).
func (c *Context) DestroyTexture(t TexObject) error {
	if t == 0 {
		return nil
	}
	return c.do("cuTexObjectDestroy", c.api.cuTexObjectDestroy, uintptr(t))
}
