package cuda

import (
	"strings"
	"testing"
	"unsafe"
)

// TestDescriptorLayout checks the Go structs against the C layouts of
// CUDA_RESOURCE_DESC and CUDA_TEXTURE_DESC in cuda.h on LP64: offsets worked
// out by hand from the C declarations and alignment rules.
func TestDescriptorLayout(t *testing.T) {
	var rd resourceDesc
	var td textureDesc
	tests := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof CUDA_RESOURCE_DESC", unsafe.Sizeof(rd), 144},
		{"resType", unsafe.Offsetof(rd.resType), 0},
		{"res.linear.devPtr", unsafe.Offsetof(rd.devPtr), 8}, // the union is 8-aligned
		{"res.linear.format", unsafe.Offsetof(rd.format), 16},
		{"res.linear.numChannels", unsafe.Offsetof(rd.numChannels), 20},
		{"res.linear.sizeInBytes", unsafe.Offsetof(rd.sizeInBytes), 24},
		{"flags", unsafe.Offsetof(rd.flags), 8 + 128}, // after int reserved[32]
		{"sizeof CUDA_TEXTURE_DESC", unsafe.Sizeof(td), 104},
		{"addressMode", unsafe.Offsetof(td.addressMode), 0},
		{"filterMode", unsafe.Offsetof(td.filterMode), 12},
		{"tex flags", unsafe.Offsetof(td.flags), 16},
		{"maxAnisotropy", unsafe.Offsetof(td.maxAnisotropy), 20},
		{"mipmapFilterMode", unsafe.Offsetof(td.mipmapFilterMode), 24},
		{"mipmapLevelBias", unsafe.Offsetof(td.mipmapLevelBias), 28},
		{"minMipmapLevelClamp", unsafe.Offsetof(td.minMipmapLevelClamp), 32},
		{"maxMipmapLevelClamp", unsafe.Offsetof(td.maxMipmapLevelClamp), 36},
		{"borderColor", unsafe.Offsetof(td.borderColor), 40},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestTextureDescs(t *testing.T) {
	tests := []struct {
		f                TexFormat
		bytes            int64
		format, channels uint32
		readAsInteger    bool
	}{
		{TexInt8, 1001, 0x08, 1, true},
		{TexUint8, 3, 0x01, 1, true},
		{TexInt32, 4004, 0x0a, 1, true},
		{TexUint32, 4, 0x03, 1, true},
		{TexFloat32, 400, 0x20, 1, false},
		{TexInt2, 8008, 0x0a, 2, true},
	}
	for _, tt := range tests {
		rd, td, err := textureDescs(0x7000, tt.bytes, tt.f)
		if err != nil {
			t.Errorf("format %d: %v", tt.f, err)
			continue
		}
		if rd.resType != 2 || rd.devPtr != 0x7000 || rd.format != tt.format || rd.numChannels != tt.channels || rd.sizeInBytes != uint64(tt.bytes) || rd.flags != 0 {
			t.Errorf("format %d: resource %+v", tt.f, rd)
		}
		if got := td.flags&1 != 0; got != tt.readAsInteger {
			t.Errorf("format %d: read as integer = %v, want %v", tt.f, got, tt.readAsInteger)
		}
		if td.filterMode != 0 {
			t.Errorf("format %d: filter mode %d, want point", tt.f, td.filterMode)
		}
	}
	bad := []struct {
		f     TexFormat
		bytes int64
		want  string
	}{
		{TexInt32, 6, "not a positive number of 4-byte elements"},
		{TexInt2, 0, "0 bytes"},
		{TexFloat32, -4, "-4 bytes"},
		{TexFormat(99), 8, "unknown texture format 99"},
	}
	for _, tt := range bad {
		if _, _, err := textureDescs(0x7000, tt.bytes, tt.f); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("textureDescs(%d bytes, format %d) = %v, want error containing %q", tt.bytes, tt.f, err, tt.want)
		}
	}
}
