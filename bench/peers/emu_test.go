package peers

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The emulated device runs the kernel sources, compiled by g++ with
// testdata/peers_emu.h, on host threads: the same runners and launch
// sequences as on the GPU, so TestEmulated checks kernels and host code
// against the Go references on machines without a GPU. It needs g++ with
// C++20 and skips without it.

//go:embed testdata/peers_emu.h testdata/emu_runtime.cc
var emuFiles embed.FS

// emuFlags are g++'s flags: ASan and the integer UBSan checks, so that an
// access outside a buffer or an overflow in a kernel fails the run here,
// where on the GPU it might go unseen.
var emuFlags = []string{"-std=c++20", "-O1", "-g", "-Wall", "-Wno-unused-function", "-Wno-unknown-pragmas",
	"-fsanitize=address,signed-integer-overflow,shift", "-fno-sanitize-recover=all"}

// emuBuilds caches, for the test binary's lifetime, the driver's object
// (compiled once: it pulls in the C++ library) and the programs by unit and
// definitions.
var emuBuilds struct {
	sync.Mutex
	dir     string
	runtime *emuBuild
	bins    map[string]*emuBuild
}

type emuBuild struct {
	once sync.Once
	path string
	err  error
}

// emuDispatch is the C++ that maps a kernel's name to a call with its
// arguments cast to the parameter types, for every kernel of unit.
func emuDispatch(unit string) string {
	var names []string
	for name, sig := range kernels {
		if sig.unit == unit {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("\n#line 1 \"emu_dispatch.cc\"\nstatic const peer_arg *peer_args;\n")
	for _, name := range names {
		params := kernels[name].params
		args := make([]string, len(params))
		for k, p := range params {
			field := "v"
			if strings.HasSuffix(p, "*") {
				field = "p"
			}
			args[k] = fmt.Sprintf("(%s)peer_args[%d].%s", p, k, field)
		}
		fmt.Fprintf(&b, "static void peer_run_%s() { %s(%s); }\n", name, name, strings.Join(args, ", "))
	}
	b.WriteString("bool peer_dispatch(const char *name, unsigned grid, unsigned block, const peer_arg *args, int nargs)\n{\n\tpeer_args = args;\n")
	for _, name := range names {
		fmt.Fprintf(&b, "\tif (__builtin_strcmp(name, %q) == 0 && nargs == %d) {\n\t\tpeer_launch(grid, block, peer_run_%s);\n\t\treturn true;\n\t}\n",
			name, len(kernels[name].params), name)
	}
	b.WriteString("\treturn false;\n}\n")
	return b.String()
}

// emuUnit is the C++ translation unit of a kernel source: the emulation
// header, the source, the dispatch.
func emuUnit(unit string) (string, error) {
	src, err := Source(unit)
	if err != nil {
		return "", err
	}
	return "#include \"peers_emu.h\"\n#line 1 \"prelude.cuh\"\n" + src + emuDispatch(unit), nil
}

// gxx runs g++ in dir; any output (a warning) is an error: the kernels and
// the emulation compile cleanly.
func gxx(dir string, args ...string) error {
	cmd := exec.Command("g++", append(slices.Clone(emuFlags), args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		return fmt.Errorf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// emuCompile builds (once) the program for unit with defines.
func emuCompile(unit string, defines []string) (string, error) {
	key := unit + "\x00" + strings.Join(defines, "\x00")
	emuBuilds.Lock()
	if emuBuilds.dir == "" {
		dir, err := os.MkdirTemp("", "peers-emu-")
		if err != nil {
			emuBuilds.Unlock()
			return "", err
		}
		emuBuilds.dir = dir
		emuBuilds.runtime = &emuBuild{}
		emuBuilds.bins = map[string]*emuBuild{}
	}
	b := emuBuilds.bins[key]
	if b == nil {
		b = &emuBuild{}
		emuBuilds.bins[key] = b
	}
	dir, rt, k := emuBuilds.dir, emuBuilds.runtime, len(emuBuilds.bins)
	emuBuilds.Unlock()

	rt.once.Do(func() {
		for _, f := range []string{"peers_emu.h", "emu_runtime.cc"} {
			text, err := emuFiles.ReadFile("testdata/" + f)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, f), text, 0o644)
			}
			if err != nil {
				rt.err = err
				return
			}
		}
		rt.err = gxx(dir, "-c", "emu_runtime.cc", "-o", "emu_runtime.o")
		rt.path = filepath.Join(dir, "emu_runtime.o")
	})
	if rt.err != nil {
		return "", rt.err
	}
	b.once.Do(func() {
		src, err := emuUnit(unit)
		if err != nil {
			b.err = err
			return
		}
		base := fmt.Sprintf("%s-%d", strings.TrimSuffix(unit, ".cu"), k)
		if err := os.WriteFile(filepath.Join(dir, base+".cc"), []byte(src), 0o644); err != nil {
			b.err = err
			return
		}
		var args []string
		for _, d := range defines {
			args = append(args, "-D"+d)
		}
		args = append(args, base+".cc", "emu_runtime.o", "-o", base)
		b.err = gxx(dir, args...)
		b.path = filepath.Join(dir, base)
	})
	return b.path, b.err
}

// emuDevice is a [Device] whose kernels run in one emulation process fed
// command by command. It holds one module (one unit and definitions).
type emuDevice struct {
	t      testing.TB
	unit   string
	defs   []string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer
	next   Buf
	sizes  map[Buf]int64
	files  int
	dir    string
}

type emuModule struct{ unit string }

func (m emuModule) Unit() string { return m.unit }

// newEmu returns an emulated device, or skips the test without g++.
func newEmu(t testing.TB) *emuDevice {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to run the kernels under emulation")
	}
	d := &emuDevice{t: t, sizes: map[Buf]int64{}, dir: t.TempDir()}
	t.Cleanup(func() {
		if err := d.close(); err != nil {
			t.Errorf("emulation: %v", err)
		}
	})
	return d
}

func (d *emuDevice) Build(unit string, defines []string) (Module, error) {
	if d.cmd != nil {
		if unit != d.unit || !slices.Equal(defines, d.defs) {
			return nil, fmt.Errorf("emulation: one module per device (have %s %v, asked for %s %v)", d.unit, d.defs, unit, defines)
		}
		return emuModule{unit}, nil
	}
	bin, err := emuCompile(unit, defines)
	if err != nil {
		return nil, err
	}
	d.unit, d.defs = unit, slices.Clone(defines)
	d.cmd = exec.Command(bin, "/dev/stdin")
	d.cmd.Stderr = &d.stderr
	// Leaks are not the kernels' business; the harness exits at once.
	d.cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0")
	if d.stdin, err = d.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	d.stdout = bufio.NewReader(out)
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	return emuModule{unit}, nil
}

// send writes one command line.
func (d *emuDevice) send(format string, args ...any) error {
	if d.cmd == nil {
		return errors.New("emulation: nothing built yet")
	}
	_, err := fmt.Fprintf(d.stdin, format+"\n", args...)
	return err
}

func (d *emuDevice) close() error {
	if d.cmd == nil {
		return nil
	}
	d.stdin.Close()
	err := d.cmd.Wait()
	d.cmd = nil
	if err != nil {
		return fmt.Errorf("%v\n%s", err, d.stderr.String())
	}
	return nil
}

func (d *emuDevice) Alloc(bytes int64) (Buf, error) {
	if bytes <= 0 || bytes > 1<<30 {
		return 0, fmt.Errorf("emulation: allocation of %d bytes", bytes)
	}
	d.next++
	d.sizes[d.next] = bytes
	return d.next, d.send("alloc %d %d", d.next, bytes)
}

func (d *emuDevice) Free(b Buf) error {
	if _, ok := d.sizes[b]; !ok {
		return fmt.Errorf("emulation: freeing unknown buffer %d", b)
	}
	delete(d.sizes, b)
	return nil
}

func (d *emuDevice) Upload(dst Buf, src []byte) error {
	if int64(len(src)) > d.sizes[dst] {
		return fmt.Errorf("emulation: upload of %d bytes into buffer %d of %d", len(src), dst, d.sizes[dst])
	}
	d.files++
	path := filepath.Join(d.dir, fmt.Sprintf("up%d", d.files))
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return err
	}
	return d.send("load %d %s", dst, path)
}

func (d *emuDevice) Memset(dst Buf, v byte, bytes int64) error {
	return d.send("memset %d %d %d", dst, v, bytes)
}

// Download asks the process to dump the bytes and waits until it says the
// file is written (every earlier command has then run).
func (d *emuDevice) Download(dst []byte, src Buf, off int64) error {
	d.files++
	path := filepath.Join(d.dir, fmt.Sprintf("down%d", d.files))
	if err := d.send("dump %d %d %d %s", src, off, len(dst), path); err != nil {
		return d.died(err)
	}
	line, err := d.stdout.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "dumped" {
		return d.died(fmt.Errorf("no reply to dump (%q, %v)", line, err))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(b) != len(dst) {
		return fmt.Errorf("emulation: dumped %d bytes, want %d", len(b), len(dst))
	}
	copy(dst, b)
	return nil
}

// died reports what the process said when it stopped.
func (d *emuDevice) died(err error) error {
	d.stdin.Close()
	werr := d.cmd.Wait()
	d.cmd = nil
	return fmt.Errorf("emulation failed: %v (%v)\n%s", err, werr, d.stderr.String())
}

func (d *emuDevice) Launch(m Module, kernel string, grid, block uint32, args ...any) error {
	if err := checkArgs(m, kernel, args); err != nil {
		return err
	}
	if int64(grid)*int64(block) > 1<<20 {
		return fmt.Errorf("emulation: %d x %d threads is beyond a test's size", grid, block)
	}
	parts := []string{fmt.Sprintf("launch %s %d %d %d", kernel, grid, block, len(args))}
	for _, a := range args {
		switch x := a.(type) {
		case Buf:
			parts = append(parts, fmt.Sprintf("p %d", x))
		case int32:
			parts = append(parts, fmt.Sprintf("i %d", x))
		case int64:
			parts = append(parts, fmt.Sprintf("i %d", x))
		}
	}
	return d.send("%s", strings.Join(parts, " "))
}

func (d *emuDevice) StartTimer() error           { return nil }
func (d *emuDevice) StopTimer() (float64, error) { return 0, nil }

// TestEmulated runs every kernel, through the same runners as on the GPU,
// on tiny random instances and several shapes, against the Go references.
func TestEmulated(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to run the kernels under emulation")
	}
	seed := testSeed(t)
	t.Run("lcs_tiled", func(t *testing.T) {
		t.Parallel()
		r := seeded(seed, 1)
		for _, c := range []struct {
			cfg   TiledConfig
			sizes [][2]int
		}{
			{TiledConfig{R: 2, CW: 2, TW: 8, WarpsPerBlock: 2}, [][2]int{{1, 1}, {5, 70}, {64, 64}, {65, 17}, {130, 33}}},
			{TiledConfig{R: 1, CW: 1, TW: 1, WarpsPerBlock: 1}, [][2]int{{3, 5}, {40, 7}}},
			{TiledConfig{R: 3, CW: 3, TW: 9, WarpsPerBlock: 3}, [][2]int{{100, 50}}},
			{DefaultTiled, [][2]int{{300, 600}}},
		} {
			for _, sz := range c.sizes {
				for _, sigma := range []int{2, 4} {
					a, b := randSeq(r, sz[0], sigma), randSeq(r, sz[1], sigma)
					checkLCSTiled(t, newEmu(t), a, b, c.cfg, 2)
				}
			}
		}
	})
	t.Run("lcs_bitpar", func(t *testing.T) {
		t.Parallel()
		r := seeded(seed, 2)
		for _, c := range []struct {
			cfg   BitparConfig
			sizes [][2]int
		}{
			{BitparConfig{CW: 1, TW: 32, WarpsPerBlock: 1}, [][2]int{{1, 1}, {65, 33}, {2049, 40}, {4200, 70}}},
			{BitparConfig{CW: 32, TW: 64, WarpsPerBlock: 2}, [][2]int{{2100, 100}}},
			{BitparConfig{CW: 4, TW: 96, WarpsPerBlock: 3}, [][2]int{{6200, 200}}},
			{DefaultBitpar, [][2]int{{3000, 1100}}},
		} {
			for _, sz := range c.sizes {
				for _, sigma := range []int{2, 4} {
					a, b := randSeq(r, sz[0], sigma), randSeq(r, sz[1], sigma)
					checkLCSBitpar(t, newEmu(t), a, b, c.cfg, 2)
				}
			}
		}
	})
	for _, v := range []Variant{Warp, Thread} {
		t.Run("interval-"+v.String(), func(t *testing.T) {
			t.Parallel()
			r := seeded(seed, 3+uint64(v))
			for _, n := range []int{1, 2, 3, 17, 33} {
				checkNussinov(t, newEmu(t), randRNA(r, n), v, 2)
				checkMatrixChain(t, newEmu(t), randDims(r, n, 1000), v, 2)
			}
		})
	}
}
