package formats

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxFileBytes is the largest data file a loader reads: 4 GiB, far beyond
// any instance the engine can solve (the values alone take 8 bytes each on
// the host), and small enough that a mistaken path fails fast.
const MaxFileBytes = 4 << 30

// ErrNotRegular is wrapped by the refusal of a path that is not a regular
// file (a directory, a FIFO, a device such as /dev/zero or /dev/stdin):
// reading one could block forever or never end.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooBig is wrapped by the refusal of a file over the size limit.
var ErrTooBig = errors.New("file too large")

// OpenRegular opens path for reading after checking that it is a regular
// file of at most limit bytes. It never blocks on a FIFO: the path is
// checked before it is opened, opened non-blocking, and checked again on
// the open file (in case it was replaced in between). Errors name the path
// and say what it is instead: "is a directory", "is a named pipe (FIFO)".
func OpenRegular(path string, limit int64) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if err := regular(path, st, limit); err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err = f.Stat()
	if err == nil {
		err = regular(path, st, limit)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// regular refuses what is not a regular file of at most limit bytes.
func regular(path string, st os.FileInfo, limit int64) error {
	m := st.Mode()
	if !m.IsRegular() {
		what := "not a regular file"
		switch {
		case m.IsDir():
			what = "a directory"
		case m&os.ModeNamedPipe != 0:
			what = "a named pipe (FIFO)"
		case m&os.ModeSocket != 0:
			what = "a socket"
		case m&os.ModeCharDevice != 0:
			what = "a character device"
		case m&os.ModeDevice != 0:
			what = "a device"
		}
		return fmt.Errorf("%s: is %s; give a regular file: %w", path, what, ErrNotRegular)
	}
	if st.Size() > limit {
		return fmt.Errorf("%s: is %d bytes, over the limit of %d bytes for this file: %w", path, st.Size(), limit, ErrTooBig)
	}
	return nil
}

// ReadRegular reads the whole of path, a regular file of at most limit
// bytes (OpenRegular), in memory bounded by limit even if the file grows
// while it is read (as files under /proc do, which report a size of 0).
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, size, err := OpenRegular(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := newCappedReader(f, path, limit)
	b := make([]byte, 0, size+1) // +1: EOF is seen without growing
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// openData opens a data file for a loader: a regular file of at most
// MaxFileBytes, read through a reader that fails rather than go on past
// the limit (a file that grows while it is read). size is the file's size
// when it was opened.
func openData(path string) (file *os.File, r io.Reader, size int64, err error) {
	f, size, err := OpenRegular(path, MaxFileBytes)
	if err != nil {
		return nil, nil, 0, err
	}
	return f, newCappedReader(f, path, MaxFileBytes), size, nil
}

// loadData reads the data file at path (openData) with read, which is given
// the file's size as a hint for sizing what it fills.
func loadData[T any](path string, read func(r io.Reader, size int64) (T, error)) (T, error) {
	file, r, size, err := openData(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer file.Close()
	return read(r, size)
}

// cappedReader reads at most limit bytes and then fails with ErrTooBig.
type cappedReader struct {
	r           io.Reader
	path        string
	left, limit int64
}

func newCappedReader(r io.Reader, path string, limit int64) *cappedReader {
	return &cappedReader{r: r, path: path, left: limit, limit: limit}
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("%s: grew past the limit of %d bytes while being read: %w", c.path, c.limit, ErrTooBig)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
