// Package native runs problems on the CPU with code compiled for them: the
// host program package codegen writes (the recurrence the GPU kernels use,
// and a sweep per schedule laid out so that the compiler vectorises it),
// compiled at run time by the system's C++ compiler, kept in a cache on
// disk like the CUBINs, and loaded with purego's Dlopen, so that dpgpu
// still builds with CGO_ENABLED=0. Where no compiler is found, or the
// problem is one codegen.HostSupports refuses, the CPU executor runs the
// Go evaluator instead (backend/cpu); that evaluator is also what the
// tests check the compiled code against.
package native

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ebitengine/purego"

	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/atomicfile"
	"github.com/dpgpu/dpgpu/internal/cachekey"
)

// Flags are the compiler options of every host program: vector code for
// this machine; no contraction of a*b+c into fused multiply-adds (the Go
// evaluator rounds each operation, and so must the compiled code); errno
// and floating-point traps ignored, which changes no value but lets the
// compiler vectorise sqrt and speculate arithmetic.
var Flags = []string{"-O3", "-march=native", "-std=c++17", "-shared", "-fPIC", "-fno-exceptions", "-fno-rtti",
	"-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math", "-pthread", "-w"}

// Compiler compiles and loads host programs. It is safe for concurrent
// use; loaded libraries stay loaded for the life of the process.
type Compiler struct {
	path    string // the compiler
	name    string // e.g. "g++ 12.2.0"
	version string // its --version output, part of the cache key
	dir     string // the cache
	machine string // what -march=native depends on, part of the cache key

	mu   sync.Mutex
	libs map[string]*Library // by cache key
}

// ErrNoCompiler is returned by Find when no C++ compiler is on PATH.
var ErrNoCompiler = errors.New("no C++ compiler found (c++, g++ or clang++ on PATH, or $DPGPU_CC)")

// Find returns a compiler: $DPGPU_CC when set (a path or a command on
// PATH), else the first of c++, g++ and clang++ on PATH. Its cache is
// $DPGPU_CACHE_DIR/host, else dpgpu/host under the user's cache directory.
func Find() (*Compiler, error) {
	var path string
	if cc := os.Getenv("DPGPU_CC"); cc != "" {
		p, err := exec.LookPath(cc)
		if err != nil {
			return nil, fmt.Errorf("$DPGPU_CC=%s: %w", cc, err)
		}
		path = p
	} else {
		for _, name := range []string{"c++", "g++", "clang++"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		return nil, ErrNoCompiler
	}
	dir, err := cacheDir()
	if err != nil {
		return nil, err
	}
	version, err := compilerVersion(path, dir)
	if err != nil {
		return nil, err
	}
	return &Compiler{path: path, name: compilerName(path, version), version: version, dir: dir, machine: machine(), libs: map[string]*Library{}}, nil
}

// compilerName is the compiler's name and version as --version's first
// line gives them, e.g. "g++ 12.2.0" from "g++ (Debian 12.2.0-14) 12.2.0".
func compilerName(path, version string) string {
	first, _, _ := strings.Cut(version, "\n")
	fields := strings.Fields(first)
	base := filepath.Base(path)
	if len(fields) == 0 {
		return base
	}
	v := fields[len(fields)-1]
	for k := 0; k+1 < len(fields); k++ {
		if fields[k] == "version" { // clang: "clang version 16.0.6 (...)"
			v = fields[k+1]
		}
	}
	return base + " " + v
}

// compilerVersion is path's --version output. Running the compiler takes
// a few milliseconds, a noticeable part of a small run, so the output is
// kept in the cache under the compiler's path, size and modification time
// (a new compiler at the same path has another).
func compilerVersion(path, dir string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	memo := filepath.Join(dir, "compiler-"+cachekey.Of(path, fmt.Sprint(st.Size()), st.ModTime().UTC().String())[:24]+".txt")
	if b, err := os.ReadFile(memo); err == nil && len(b) > 0 {
		return string(b), nil
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	if os.MkdirAll(dir, 0o755) == nil {
		_ = atomicfile.Write(memo, out) // a cache: failing to write it costs only time
	}
	return string(out), nil
}

func cacheDir() (string, error) {
	if d := os.Getenv("DPGPU_CACHE_DIR"); d != "" {
		return filepath.Join(d, "host"), nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating the host program cache: %w", err)
	}
	return filepath.Join(base, "dpgpu", "host"), nil
}

// machine describes the processor for the cache key: a library built with
// -march=native must not be loaded on another machine that shares the
// cache directory.
func machine() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	var model, flags string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() && (model == "" || flags == "") {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			model = strings.TrimSpace(v)
		case "flags", "Features":
			flags = strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH + "|" + model + "|" + flags
}

// String is the compiler's name and version, e.g. "g++ 12.2.0".
func (c *Compiler) String() string { return c.name }

// Library is a loaded host program.
type Library struct {
	Prog   *codegen.HostProgram
	Path   string // the shared object
	Cached bool   // it came from the cache
	run    uintptr
}

// Cached reports whether hp's library is loaded or in the cache.
func (c *Compiler) Cached(hp *codegen.HostProgram) bool {
	key := c.key(hp.Source)
	c.mu.Lock()
	_, ok := c.libs[key]
	c.mu.Unlock()
	if ok {
		return true
	}
	_, err := os.Stat(filepath.Join(c.dir, key+".so"))
	return err == nil
}

// Load compiles hp (or finds it in the cache) and loads it.
func (c *Compiler) Load(hp *codegen.HostProgram) (*Library, error) {
	key := c.key(hp.Source)
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.libs[key]; ok {
		// Same source, so the same program (sites, inputs) up to the
		// *ir nodes it refers to: keep this call's.
		cp := *l
		cp.Prog = hp
		return &cp, nil
	}
	path := filepath.Join(c.dir, key+".so")
	cached := true
	if _, err := os.Stat(path); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("host program cache: %w", err)
		}
		cached = false
		if err := c.compile(hp, path); err != nil {
			return nil, err
		}
		prune(c.dir, MaxCached)
	} else {
		// Used now: the last to go when the cache is pruned.
		now := time.Now()
		_ = os.Chtimes(path, now, now)
	}
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("loading the host program %s: %w", path, err)
	}
	abi, err := purego.Dlsym(h, codegen.FuncHostABI)
	if err != nil {
		return nil, fmt.Errorf("host program %s: %w", path, err)
	}
	if v, _, _ := purego.SyscallN(abi); int(int32(v)) != codegen.HostABI {
		return nil, fmt.Errorf("host program %s has ABI %d, want %d", path, int32(v), codegen.HostABI)
	}
	entry := codegen.FuncHostRun
	if hp.Fronts {
		entry = codegen.FuncHostFronts
	}
	run, err := purego.Dlsym(h, entry)
	if err != nil {
		return nil, fmt.Errorf("host program %s: %w", path, err)
	}
	l := &Library{Prog: hp, Path: path, Cached: cached, run: run}
	c.libs[key] = l
	return l, nil
}

// MaxCached is how many libraries the cache keeps: each size of each
// problem (and the bands of a traceback in linear memory) is one, of some
// 20 KB; past it, the least recently used go, down to three quarters.
const MaxCached = 2000

// prune removes the least recently used libraries of dir when it holds
// more than max. Another process may be loading one of them: a library
// removed after it was opened stays usable, and one removed before is
// compiled again.
func prune(dir string, max int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type lib struct {
		name string
		at   time.Time
	}
	var libs []lib
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".so") {
			continue
		}
		if info, err := e.Info(); err == nil {
			libs = append(libs, lib{e.Name(), info.ModTime()})
		}
	}
	if len(libs) <= max {
		return
	}
	sort.Slice(libs, func(a, b int) bool { return libs[a].at.Before(libs[b].at) })
	for _, l := range libs[:len(libs)-max*3/4] {
		os.Remove(filepath.Join(dir, l.name))
	}
}

// key is the hex SHA-256 of everything that determines the library.
func (c *Compiler) key(src string) string {
	return cachekey.Of("dpgpu-host-v1", src, c.path, c.version, c.machine, strings.Join(Flags, " "))
}

// compile builds hp into path, through a temporary file and a rename.
func (c *Compiler) compile(hp *codegen.HostProgram, path string) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("creating the host program cache: %w", err)
	}
	tmp, err := os.MkdirTemp(c.dir, ".build-")
	if err != nil {
		return fmt.Errorf("host program cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, hp.Name)
	if err := os.WriteFile(src, []byte(hp.Source), 0o644); err != nil {
		return err
	}
	so := filepath.Join(tmp, "out.so")
	args := append(append([]string{}, Flags...), "-o", so, src)
	cmd := exec.Command(c.path, args...)
	// The compiler's own temporary files go to the build directory,
	// removed with it: none in the user's TMPDIR (gcc 12 leaves its
	// linker resolution files, cc*.res, in a TMPDIR whose path holds '=').
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if len(msg) > 4000 {
			msg = msg[:4000] + "\n..."
		}
		return fmt.Errorf("compiling the host program with %s: %v\n%s", c.name, err, msg)
	}
	b, err := os.ReadFile(so)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("writing the host program cache: %w", err)
	}
	return nil
}
