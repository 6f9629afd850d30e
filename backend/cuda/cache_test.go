package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dpgpu/dpgpu/internal/atomicfile"
)

func TestCacheKey(t *testing.T) {
	base := cacheKey("src", "k.cu", "sm_90", 13, 0, []string{"-lineinfo"})
	if len(base) != 64 || strings.Trim(base, "0123456789abcdef") != "" {
		t.Fatalf("key %q is not 64 hex digits", base)
	}
	if again := cacheKey("src", "k.cu", "sm_90", 13, 0, []string{"-lineinfo"}); again != base {
		t.Errorf("same inputs gave %s and %s", base, again)
	}
	variants := []struct {
		name string
		key  string
	}{
		{"source", cacheKey("src ", "k.cu", "sm_90", 13, 0, []string{"-lineinfo"})},
		{"name", cacheKey("src", "j.cu", "sm_90", 13, 0, []string{"-lineinfo"})},
		{"arch", cacheKey("src", "k.cu", "sm_89", 13, 0, []string{"-lineinfo"})},
		{"nvrtc major", cacheKey("src", "k.cu", "sm_90", 12, 0, []string{"-lineinfo"})},
		{"nvrtc minor", cacheKey("src", "k.cu", "sm_90", 13, 1, []string{"-lineinfo"})},
		{"no options", cacheKey("src", "k.cu", "sm_90", 13, 0, nil)},
		{"more options", cacheKey("src", "k.cu", "sm_90", 13, 0, []string{"-lineinfo", "-G"})},
		// Field boundaries must not be ambiguous.
		{"shifted boundary", cacheKey("sr", "ck.cu", "sm_90", 13, 0, []string{"-lineinfo"})},
		{"joined options", cacheKey("src", "k.cu", "sm_90", 13, 0, []string{"-line", "info"})},
		{"version digits", cacheKey("src", "k.cu", "sm_90", 1, 30, []string{"-lineinfo"})},
	}
	seen := map[string]string{base: "base"}
	for _, v := range variants {
		if prev, ok := seen[v.key]; ok {
			t.Errorf("changing %s gives the same key as %s", v.name, prev)
		}
		seen[v.key] = v.name
	}
}

// fakeCubin is a CUBIN-shaped payload for the cache tests.
func fakeCubin(tag string) []byte {
	b := append([]byte(elfMagic), bytes.Repeat([]byte(tag), 100)...)
	return b
}

// counter builds fake CUBINs and counts its calls.
type counter struct {
	mu    sync.Mutex
	calls int
	out   []byte
	err   error
}

func (c *counter) build() ([]byte, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.err != nil {
		return nil, "the log", c.err
	}
	return append([]byte(nil), c.out...), "warning: fake", nil
}

// tempFiles lists leftovers of atomic writes in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmp []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

func TestCacheHitMiss(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b") // OpenCache creates it
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := cacheKey("src", "k.cu", "sm_90", 13, 0, nil)
	b := &counter{out: fakeCubin("one")}

	got, log, hit, err := c.get(key, b.build)
	if err != nil || hit || log != "warning: fake" || !bytes.Equal(got, b.out) || b.calls != 1 {
		t.Fatalf("first get: hit=%v log=%q err=%v calls=%d", hit, log, err, b.calls)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, key+".cubin"))
	if err != nil || !bytes.Equal(onDisk, b.out) {
		t.Fatalf("cache file: %v, equal=%v", err, bytes.Equal(onDisk, b.out))
	}
	if fi, err := os.Stat(filepath.Join(dir, key+".cubin")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("cache file mode: %v %v", fi.Mode(), err)
	}
	got2, log, hit, err := c.get(key, b.build)
	if err != nil || !hit || log != "" || !bytes.Equal(got2, got) || b.calls != 1 {
		t.Fatalf("second get: hit=%v log=%q err=%v calls=%d", hit, log, err, b.calls)
	}
	if tmp := tempFiles(t, dir); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

func TestCacheDamagedEntry(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := cacheKey("src", "k.cu", "sm_90", 13, 0, nil)
	path := filepath.Join(c.Dir(), key+".cubin")
	for _, damaged := range [][]byte{nil, []byte("\x7fEL"), bytes.Repeat([]byte("x"), 200), fakeCubin("t")[:40]} {
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		b := &counter{out: fakeCubin("good")}
		got, _, hit, err := c.get(key, b.build)
		if err != nil || hit || b.calls != 1 || !bytes.Equal(got, b.out) {
			t.Errorf("damaged entry %q: hit=%v err=%v calls=%d", damaged, hit, err, b.calls)
		}
		if onDisk, _ := os.ReadFile(path); !bytes.Equal(onDisk, b.out) {
			t.Errorf("damaged entry %q was not replaced", damaged)
		}
	}
}

func TestCacheBuildError(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := cacheKey("bad", "k.cu", "sm_90", 13, 0, nil)
	b := &counter{err: errors.New("compiling k.cu: boom")}
	_, log, hit, err := c.get(key, b.build)
	if err == nil || hit || log != "the log" {
		t.Fatalf("get with a failing build: log=%q hit=%v err=%v", log, hit, err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), key+".cubin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed build left an entry: %v", err)
	}
	b.err, b.out = nil, fakeCubin("ok")
	if _, _, hit, err := c.get(key, b.build); err != nil || hit || b.calls != 2 {
		t.Errorf("retry after failure: hit=%v err=%v calls=%d", hit, err, b.calls)
	}
}

// TestCacheConcurrent has many writers race on the same and on different
// keys: every reader must see a whole CUBIN, and no temporary file may remain.
func TestCacheConcurrent(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 4 {
				key := cacheKey(fmt.Sprint("src", k), "k.cu", "sm_90", 13, 0, nil)
				want := fakeCubin(fmt.Sprint("payload", k))
				got, _, _, err := c.get(key, (&counter{out: want}).build)
				if err != nil {
					errs <- fmt.Errorf("goroutine %d key %d: %w", g, k, err)
					return
				}
				if !bytes.Equal(got, want) {
					errs <- fmt.Errorf("goroutine %d key %d: wrong bytes", g, k)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if tmp := tempFiles(t, c.Dir()); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	ents, _ := os.ReadDir(c.Dir())
	if len(ents) != 4 {
		t.Errorf("%d cache entries, want 4", len(ents))
	}
}

func TestWriteAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	// The target is a non-empty directory: the rename fails, and the
	// temporary file must be cleaned up.
	target := filepath.Join(dir, "x.cubin")
	touch(t, filepath.Join(target, "occupied"))
	if err := atomicfile.Write(target, fakeCubin("x")); err == nil {
		t.Fatal("atomicfile.Write over a non-empty directory succeeded")
	}
	if tmp := tempFiles(t, dir); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "y.cubin"), fakeCubin("y")); err == nil {
		t.Error("atomicfile.Write into a missing directory succeeded")
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("DPGPU_CACHE_DIR", "/some/where")
	if d, err := DefaultCacheDir(); err != nil || d != "/some/where" {
		t.Errorf("with DPGPU_CACHE_DIR: %q, %v", d, err)
	}
	t.Setenv("DPGPU_CACHE_DIR", "")
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	if d, err := DefaultCacheDir(); err != nil || d != filepath.Join(xdg, "dpgpu", "cubin") {
		t.Errorf("with XDG_CACHE_HOME: %q, %v", d, err)
	}
	c, err := OpenCache("")
	if err != nil || c.Dir() != filepath.Join(xdg, "dpgpu", "cubin") {
		t.Fatalf("OpenCache(\"\") = %v, %v", c, err)
	}
	if fi, err := os.Stat(c.Dir()); err != nil || !fi.IsDir() {
		t.Errorf("OpenCache did not create %s: %v", c.Dir(), err)
	}
}
