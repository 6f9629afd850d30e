package peers

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
	"unsafe"
)

// Buf is a device buffer: its device address on the GPU, a handle in the
// tests' emulation. Zero is no buffer.
type Buf uint64

// Module is a compiled kernel source, as returned by [Device.Build].
type Module interface {
	// Unit is the source file the module was built from, e.g. "interval.cu".
	Unit() string
}

// Device is what the runners need from a GPU. Work is queued in order;
// errors a kernel raises may surface at any later call.
type Device interface {
	// Build compiles unit (one of [Units]) with the given preprocessor
	// definitions ("NAME=VALUE") for this device.
	Build(unit string, defines []string) (Module, error)
	Alloc(bytes int64) (Buf, error)
	Free(b Buf) error
	Upload(dst Buf, src []byte) error
	// Memset sets bytes bytes at the start of dst to v.
	Memset(dst Buf, v byte, bytes int64) error
	// Download fills dst from src, starting off bytes into src.
	Download(dst []byte, src Buf, off int64) error
	// Launch queues kernel of m over grid blocks of block threads. args
	// follow the kernel's C parameters: a Buf for a pointer, int32 for int,
	// int64 for long long (see [checkArgs]).
	Launch(m Module, kernel string, grid, block uint32, args ...any) error
	// StartTimer marks the start of the timed work; StopTimer waits for
	// everything queued and returns the device time since the mark, in
	// milliseconds.
	StartTimer() error
	StopTimer() (ms float64, err error)
}

//go:embed prelude.cuh lcs_tiled.cu lcs_bitpar.cu interval.cu
var sources embed.FS

// Units are the kernel sources.
var Units = []string{"lcs_tiled.cu", "lcs_bitpar.cu", "interval.cu"}

// Source is the text compiled for unit: the shared prelude, then the unit.
func Source(unit string) (string, error) {
	pre, err := sources.ReadFile("prelude.cuh")
	if err != nil {
		return "", err
	}
	body, err := sources.ReadFile(unit)
	if err != nil {
		return "", fmt.Errorf("peers: no kernel source %q", unit)
	}
	return string(pre) + "\n#line 1 \"" + unit + "\"\n" + string(body), nil
}

// kernelSig is a kernel's unit and the C types of its parameters, which
// checkArgs holds launches to (and the tests hold to the sources).
type kernelSig struct {
	unit   string
	params []string
}

const (
	cBytes  = "const unsigned char *"
	cInt    = "int"
	cIntPtr = "int *"
)

// kernels lists every kernel of the sources.
var kernels = map[string]kernelSig{
	"lcs_tiled":          {"lcs_tiled.cu", []string{cBytes, cBytes, cIntPtr, cIntPtr, cIntPtr, cInt, cInt, cInt, cInt}},
	"lcs_bitpar":         {"lcs_bitpar.cu", []string{"const unsigned long long *", cBytes, "unsigned long long *", "unsigned *", cInt, cInt, cInt}},
	"nussinov_warp":      {"interval.cu", []string{cBytes, cIntPtr, cInt, cInt}},
	"nussinov_thread":    {"interval.cu", []string{cBytes, cIntPtr, cInt, cInt}},
	"matrixchain_warp":   {"interval.cu", []string{"const long long *", "long long *", cInt, cInt}},
	"matrixchain_thread": {"interval.cu", []string{"const long long *", "long long *", cInt, cInt}},
}

// checkArgs holds a launch of kernel from m to the kernel's parameters, so
// that a mistake in a runner is an error on every Device, not a fault on
// the GPU alone.
func checkArgs(m Module, kernel string, args []any) error {
	sig, ok := kernels[kernel]
	if !ok {
		return fmt.Errorf("peers: no kernel %q", kernel)
	}
	if m == nil || m.Unit() != sig.unit {
		return fmt.Errorf("peers: kernel %s is in %s, not in the module given", kernel, sig.unit)
	}
	if len(args) != len(sig.params) {
		return fmt.Errorf("peers: kernel %s takes %d arguments, got %d", kernel, len(sig.params), len(args))
	}
	for k, a := range args {
		p := sig.params[k]
		var ok bool
		switch {
		case strings.HasSuffix(p, "*"):
			var b Buf
			b, ok = a.(Buf)
			ok = ok && b != 0
		case p == "int" || p == "unsigned":
			_, ok = a.(int32)
		case p == "long long":
			_, ok = a.(int64)
		}
		if !ok {
			return fmt.Errorf("peers: kernel %s: argument %d is %T (%v), parameter is %s", kernel, k, a, a, p)
		}
	}
	return nil
}

// kernelDecl matches the declaration of a kernel in a source.
var kernelDecl = regexp.MustCompile(`extern "C" __global__ void (\w+)\(([^)]*)\)`)

// declaredKernels reads the kernels and parameter types a source declares
// (the parameter names dropped, whitespace normalised).
func declaredKernels(src string) map[string][]string {
	out := map[string][]string{}
	for _, m := range kernelDecl.FindAllStringSubmatch(src, -1) {
		var params []string
		for _, p := range strings.Split(m[2], ",") {
			f := strings.Fields(strings.ReplaceAll(p, "*", " * "))
			if len(f) == 0 {
				continue
			}
			params = append(params, strings.Join(f[:len(f)-1], " "))
		}
		out[m[1]] = params
	}
	return out
}

// asBytes views a slice of fixed-size numbers as its bytes.
func asBytes[T int32 | int64 | uint32 | uint64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}
