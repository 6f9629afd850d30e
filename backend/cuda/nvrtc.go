package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// nvrtcNames are the file names libnvrtc is looked for under, newest first.
var nvrtcNames = []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11"}

// defaultCUDADir is where toolkits install their libraries.
const defaultCUDADir = "/usr/local/cuda/lib64"

// nvrtcCandidates lists the libraries OpenNVRTC tries, in order: the file
// named by $DPGPU_NVRTC, then every existing nvrtcNames file in
// $CUDA_HOME/lib64 and in cudaDir, then the bare names for the dynamic
// loader's own search path.
func nvrtcCandidates(getenv func(string) string, cudaDir string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if p := getenv("DPGPU_NVRTC"); p != "" {
		add(p)
	}
	var dirs []string
	if h := getenv("CUDA_HOME"); h != "" {
		dirs = append(dirs, filepath.Join(h, "lib64"))
	}
	dirs = append(dirs, cudaDir)
	for _, d := range dirs {
		for _, n := range nvrtcNames {
			p := filepath.Join(d, n)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				add(p)
			}
		}
	}
	for _, n := range nvrtcNames {
		add(n)
	}
	return out
}

// NVRTC is the loaded run-time compiler. Its methods are safe for concurrent
// use: each compilation is its own NVRTC program.
type NVRTC struct {
	path         string
	major, minor int

	nvrtcVersion, nvrtcCreateProgram, nvrtcCompileProgram uintptr
	nvrtcGetProgramLogSize, nvrtcGetProgramLog            uintptr
	nvrtcGetCUBINSize, nvrtcGetCUBIN                      uintptr
	nvrtcGetPTXSize, nvrtcGetPTX, nvrtcDestroyProgram     uintptr
	nvrtcGetErrorString                                   uintptr
	errorString                                           func(int32) string
}

// OpenNVRTC loads libnvrtc, trying in order: the file named by $DPGPU_NVRTC;
// libnvrtc.so, .so.13, .so.12 and .so.11 in $CUDA_HOME/lib64 and then in
// /usr/local/cuda/lib64; then the same names on the loader's path. Its error
// wraps [ErrNoNVRTC] and lists every failure.
func OpenNVRTC() (*NVRTC, error) {
	return openNVRTC(nvrtcCandidates(os.Getenv, defaultCUDADir))
}

func openNVRTC(candidates []string) (*NVRTC, error) {
	var fails []string
	for _, c := range candidates {
		n, err := loadNVRTC(c)
		if err == nil {
			return n, nil
		}
		fails = append(fails, err.Error())
	}
	return nil, fmt.Errorf("%w: %s", ErrNoNVRTC, strings.Join(fails, "; "))
}

func loadNVRTC(path string) (*NVRTC, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, err
	}
	n := &NVRTC{path: path}
	if err := resolve(h, path, []symbol{
		{"nvrtcVersion", &n.nvrtcVersion, false},
		{"nvrtcCreateProgram", &n.nvrtcCreateProgram, false},
		{"nvrtcCompileProgram", &n.nvrtcCompileProgram, false},
		{"nvrtcGetProgramLogSize", &n.nvrtcGetProgramLogSize, false},
		{"nvrtcGetProgramLog", &n.nvrtcGetProgramLog, false},
		{"nvrtcGetCUBINSize", &n.nvrtcGetCUBINSize, false},
		{"nvrtcGetCUBIN", &n.nvrtcGetCUBIN, false},
		{"nvrtcGetPTXSize", &n.nvrtcGetPTXSize, false},
		{"nvrtcGetPTX", &n.nvrtcGetPTX, false},
		{"nvrtcDestroyProgram", &n.nvrtcDestroyProgram, false},
		{"nvrtcGetErrorString", &n.nvrtcGetErrorString, false},
	}); err != nil {
		return nil, err
	}
	// The one entry point returning a C string: a typed function copies it.
	purego.RegisterFunc(&n.errorString, n.nvrtcGetErrorString)
	var major, minor int32
	if err := n.check("nvrtcVersion", n.call(n.nvrtcVersion, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor)))); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n.major, n.minor = int(major), int(minor)
	return n, nil
}

// Version is NVRTC's CUDA version, e.g. 13, 0.
func (n *NVRTC) Version() (major, minor int) { return n.major, n.minor }

// Path is the library that was loaded.
func (n *NVRTC) Path() string { return n.path }

//go:uintptrescapes
func (n *NVRTC) call(fn uintptr, args ...uintptr) int32 {
	r, _, _ := purego.SyscallN(fn, args...)
	return int32(uint32(r))
}

func (n *NVRTC) check(call string, code int32) error {
	if code == 0 {
		return nil
	}
	name := n.errorString(code)
	if name == "" {
		name = fmt.Sprintf("NVRTC error %d", code)
	}
	return &NVRTCError{Call: call, Code: code, Name: name}
}

var (
	cubinArch = regexp.MustCompile(`^sm_[0-9]+[a-z]?$`)
	ptxArch   = regexp.MustCompile(`^compute_[0-9]+[a-z]?$`)
)

// Compile compiles CUDA C++ source to a CUBIN for arch, a real architecture
// such as "sm_90" (Device.Arch). name is the file name diagnostics use unless
// the source's #line directives say otherwise. opts are further NVRTC options
// (e.g. "-lineinfo", "--use_fast_math"; not "-O3", which NVRTC rejects). The
// log holds the compiler's warnings; on failure the error includes it.
func (n *NVRTC) Compile(src, name, arch string, opts []string) (cubin []byte, log string, err error) {
	if !cubinArch.MatchString(arch) {
		return nil, "", fmt.Errorf("cuda: compiling %s: architecture %q is not of the form sm_XY", name, arch)
	}
	return n.compile(src, name, arch, opts, false)
}

// CompilePTX is [NVRTC.Compile] for a virtual architecture such as
// "compute_90", giving PTX text (to read, or to load on any later device).
func (n *NVRTC) CompilePTX(src, name, arch string, opts []string) (ptx string, log string, err error) {
	if !ptxArch.MatchString(arch) {
		return "", "", fmt.Errorf("cuda: compiling %s: architecture %q is not of the form compute_XY", name, arch)
	}
	b, log, err := n.compile(src, name, arch, opts, true)
	return cString(b), log, err
}

func (n *NVRTC) compile(src, name, arch string, opts []string, ptx bool) (out []byte, log string, err error) {
	if strings.IndexByte(src, 0) >= 0 {
		return nil, "", fmt.Errorf("cuda: compiling %s: source contains a NUL byte", name)
	}
	csrc, cname := cstr(src), cstr(name)
	var prog uintptr
	if err := n.check("nvrtcCreateProgram", n.call(n.nvrtcCreateProgram, uintptr(unsafe.Pointer(&prog)),
		uintptr(unsafe.Pointer(&csrc[0])), uintptr(unsafe.Pointer(&cname[0])), 0, 0, 0)); err != nil {
		return nil, "", fmt.Errorf("compiling %s: %w", name, err)
	}
	defer n.call(n.nvrtcDestroyProgram, uintptr(unsafe.Pointer(&prog)))

	// The option array holds pointers to Go memory, so the strings are
	// pinned for the call (the array itself is covered by go:uintptrescapes).
	all := append([]string{"--gpu-architecture=" + arch}, opts...)
	var pin runtime.Pinner
	copts := make([]*byte, len(all))
	for i, o := range all {
		b := cstr(o)
		pin.Pin(&b[0])
		copts[i] = &b[0]
	}
	compileErr := n.check("nvrtcCompileProgram", n.call(n.nvrtcCompileProgram, prog, uintptr(len(copts)), uintptr(unsafe.Pointer(&copts[0]))))
	pin.Unpin()

	log, err = n.programLog(prog)
	if err != nil {
		return nil, "", fmt.Errorf("compiling %s: %w", name, err)
	}
	if compileErr != nil {
		return nil, log, fmt.Errorf("compiling %s for %s: %w\n%s", name, arch, compileErr, strings.TrimRight(log, "\n"))
	}
	sizeFn, getFn, what := n.nvrtcGetCUBINSize, n.nvrtcGetCUBIN, "CUBIN"
	if ptx {
		sizeFn, getFn, what = n.nvrtcGetPTXSize, n.nvrtcGetPTX, "PTX"
	}
	var size uint64
	if err := n.check("nvrtcGet"+what+"Size", n.call(sizeFn, prog, uintptr(unsafe.Pointer(&size)))); err != nil {
		return nil, log, fmt.Errorf("compiling %s: %w", name, err)
	}
	if size == 0 {
		return nil, log, fmt.Errorf("compiling %s: NVRTC produced an empty %s", name, what)
	}
	out = make([]byte, size)
	if err := n.check("nvrtcGet"+what, n.call(getFn, prog, uintptr(unsafe.Pointer(&out[0])))); err != nil {
		return nil, log, fmt.Errorf("compiling %s: %w", name, err)
	}
	return out, log, nil
}

// programLog is the compiler's log for prog, without its trailing NUL.
func (n *NVRTC) programLog(prog uintptr) (string, error) {
	var size uint64
	if err := n.check("nvrtcGetProgramLogSize", n.call(n.nvrtcGetProgramLogSize, prog, uintptr(unsafe.Pointer(&size)))); err != nil {
		return "", err
	}
	if size <= 1 {
		return "", nil
	}
	buf := make([]byte, size)
	if err := n.check("nvrtcGetProgramLog", n.call(n.nvrtcGetProgramLog, prog, uintptr(unsafe.Pointer(&buf[0])))); err != nil {
		return "", err
	}
	return cString(buf), nil
}
