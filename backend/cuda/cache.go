package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dpgpu/dpgpu/internal/atomicfile"
	"github.com/dpgpu/dpgpu/internal/cachekey"
)

// elfMagic starts every CUBIN.
const elfMagic = "\x7fELF"

// Cache keeps compiled CUBINs on disk, so that running the same problem again
// skips NVRTC. Entries are keyed by a SHA-256 of everything that determines the
// binary, and written atomically, so concurrent processes may share a
// directory. A damaged entry is recompiled and replaced.
type Cache struct {
	dir string
}

// DefaultCacheDir is $DPGPU_CACHE_DIR when set, else dpgpu/cubin under the
// user's cache directory (os.UserCacheDir).
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("DPGPU_CACHE_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating the CUBIN cache: %w", err)
	}
	return filepath.Join(base, "dpgpu", "cubin"), nil
}

// OpenCache uses dir ("" for [DefaultCacheDir]), creating it if needed.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the CUBIN cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir is the cache directory.
func (c *Cache) Dir() string { return c.dir }

// Compile is [NVRTC.Compile] through the cache: hit reports that the CUBIN
// came from disk (and log is then empty).
func (c *Cache) Compile(n *NVRTC, src, name, arch string, opts []string) (cubin []byte, log string, hit bool, err error) {
	major, minor := n.Version()
	key := cacheKey(src, name, arch, major, minor, opts)
	return c.get(key, func() ([]byte, string, error) { return n.Compile(src, name, arch, opts) })
}

// cacheKey is the hex SHA-256 of a versioned, length-prefixed encoding of the
// inputs, so that no two different inputs share an encoding. The name is part
// of it because it may appear in the binary's line information.
func cacheKey(src, name, arch string, major, minor int, opts []string) string {
	fields := []string{"dpgpu-cubin-v1", src, name, arch, fmt.Sprintf("nvrtc %d.%d", major, minor), fmt.Sprint(len(opts))}
	return cachekey.Of(append(fields, opts...)...)
}

// get returns the entry for key, or builds, stores and returns it.
func (c *Cache) get(key string, build func() ([]byte, string, error)) ([]byte, string, bool, error) {
	path := filepath.Join(c.dir, key+".cubin")
	b, err := os.ReadFile(path)
	switch {
	case err == nil && validCubin(b):
		return b, "", true, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, "", false, fmt.Errorf("reading the CUBIN cache: %w", err)
	}
	b, log, err := build()
	if err != nil {
		return nil, log, false, err
	}
	if err := atomicfile.Write(path, b); err != nil {
		return nil, log, false, fmt.Errorf("writing the CUBIN cache: %w", err)
	}
	return b, log, false, nil
}

// validCubin rejects entries that cannot be CUBINs (truncated, overwritten).
func validCubin(b []byte) bool { return len(b) > 64 && bytes.HasPrefix(b, []byte(elfMagic)) }
