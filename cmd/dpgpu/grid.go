package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// partialMark names the temporary file a --grid output is written to,
// hidden beside the target: .NAME.dpgpu-partial-PID-RANDOM. It is renamed
// onto the target once complete, so no reader ever sees half a grid. A run
// killed outright (SIGKILL, a crash) cannot remove it; the PID in the name
// lets the next run to the same target tell such a leftover from the file
// of a run still going and remove it.
const partialMark = ".dpgpu-partial-"

// chunkCells is how many cells the grid writers encode between two checks
// of the context (and, for .npy, per write).
const chunkCells = 1 << 16

// gridOutput is a --grid file being written.
type gridOutput struct {
	path string   // the target
	tmp  *os.File // the hidden partial file beside it
}

// openGrid checks a --grid path and creates its temporary file before any
// computing, so that a typo in the directory or a read-only place is
// refused at once (with exit status 2) rather than after an hour of
// solving. Stale partial files of the same target are removed.
func openGrid(path string) (*gridOutput, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy", ".csv":
	default:
		return nil, usageErr("--grid %s: the file must end in .npy or .csv", path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usageErr("--grid %s is a directory; name a file in it", path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usageErr("--grid %s: the directory %s does not exist", path, dir)
	}
	removeStalePartials(path)
	tmp, err := os.CreateTemp(dir, partialPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, usageErr("--grid %s: cannot write in %s: %v", path, dir, unwrapPath(err))
	}
	addTemp(tmp.Name())
	// CreateTemp makes the file private (0600); the grid is an ordinary
	// output file, readable as any file the user writes (the umask still
	// applies to what a later open creates, not to this mode).
	if err := tmp.Chmod(0o644); err != nil {
		return nil, fmt.Errorf("--grid %s: %w", path, err)
	}
	return &gridOutput{path: path, tmp: tmp}, nil
}

// unwrapPath drops the temporary name from an *os.PathError, which would
// only confuse.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func partialPrefix(path string) string {
	return "." + filepath.Base(path) + partialMark
}

// removeStalePartials removes the partial files of path whose run is
// gone: their PID names no live process.
func removeStalePartials(path string) {
	dir, prefix := filepath.Dir(path), partialPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

// processAlive reports whether a process with this PID exists (signal 0
// probes without sending anything; EPERM means it exists but is not ours).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// abort closes and removes the partial file.
func (o *gridOutput) abort() {
	o.tmp.Close()
	os.Remove(o.tmp.Name())
	dropTemp(o.tmp.Name())
}

// write writes g to the partial file, a chunk at a time straight from the
// grid (no second copy of it, whatever its size), checking ctx between
// chunks, and renames it onto the target once it is complete and closed.
// On any error or interruption the partial file is removed.
func (o *gridOutput) write(ctx context.Context, g *backend.Grid) (err error) {
	defer func() {
		if err != nil {
			o.abort()
		}
	}()
	w := bufio.NewWriterSize(o.tmp, 1<<20)
	if strings.EqualFold(filepath.Ext(o.path), ".npy") {
		err = writeNPY(ctx, w, g)
	} else {
		err = writeCSV(ctx, w, g)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = o.tmp.Close()
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.path)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("writing grid %s: %w", o.path, unwrapPath(err))
	}
	dropTemp(o.tmp.Name())
	return nil
}

// littleEndian is whether this machine stores numbers as .npy files do, so
// that the grid's memory can be written as it is.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// writeNPY writes a NumPy .npy file (format version 1.0): magic, a header
// dictionary padded so the data starts on a 64-byte boundary, then the
// little-endian C-order data. Integer inf and -inf are the sentinels of
// docs/language.md section 6.1 (2^31-1 and -(2^31-1) for int).
func writeNPY(ctx context.Context, w io.Writer, g *backend.Grid) error {
	descr := fmt.Sprintf("<i%d", g.T.Size())
	if g.T.IsFloat() {
		descr = fmt.Sprintf("<f%d", g.T.Size())
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", descr, g.Rows, g.Cols)
	total := 10 + len(header) + 1
	header += strings.Repeat(" ", (64-total%64)%64) + "\n"
	if len(header) > 65535 {
		return fmt.Errorf("npy header too long")
	}
	pre := []byte{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, byte(len(header)), byte(len(header) >> 8)}
	if _, err := w.Write(pre); err != nil {
		return err
	}
	if _, err := io.WriteString(w, header); err != nil {
		return err
	}
	if littleEndian {
		raw := g.Bytes()
		step := chunkCells * int(g.T.Size())
		for off := 0; off < len(raw); off += step {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := w.Write(raw[off:min(off+step, len(raw))]); err != nil {
				return err
			}
		}
		return nil
	}
	return swapChunks(ctx, w, g.Bytes(), g.T.Size())
}

// swapChunks writes raw, cells of size bytes in the machine's byte order,
// little-endian through one buffer of chunkCells cells, for machines whose
// own byte order is not little-endian.
func swapChunks(ctx context.Context, w io.Writer, raw []byte, size int) error {
	buf := make([]byte, chunkCells*size)
	for off := 0; off < len(raw); off += len(buf) {
		if err := ctx.Err(); err != nil {
			return err
		}
		part := raw[off:min(off+len(buf), len(raw))]
		for k := 0; k < len(part); k += size {
			for b := 0; b < size; b++ {
				buf[k+b] = part[k+size-1-b]
			}
		}
		if _, err := w.Write(buf[:len(part)]); err != nil {
			return err
		}
	}
	return nil
}

// writeCSV writes one line per row. Infinite cells are written inf and
// -inf (integer sentinels included), NaN as nan, as in the text report, so
// that a reader never takes 2147483647 for a number; numpy.loadtxt and
// Python's float() read all three. A row is written in pieces of about
// 64 KiB, so a row of a hundred million cells needs no row-sized buffer.
func writeCSV(ctx context.Context, w io.Writer, g *backend.Grid) error {
	buf := make([]byte, 0, 72<<10)
	var pos, neg int64
	if g.T.IsInteger() {
		pos, neg = ir.InfSentinel(g.T)
	}
	for i := int64(0); i < g.Rows; i++ {
		for j := int64(0); j < g.Cols; j++ {
			if j > 0 {
				buf = append(buf, ',')
			}
			if v := g.At(i, j); g.T.IsFloat() {
				buf = appendFloat(buf, v.F, g.T.Bits())
			} else {
				buf = appendInt(buf, v.I, pos, neg)
			}
			if len(buf) >= 64<<10 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		buf = append(buf, '\n')
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := w.Write(buf)
	return err
}

func appendInt(buf []byte, v, pos, neg int64) []byte {
	switch v {
	case pos:
		return append(buf, "inf"...)
	case neg:
		return append(buf, "-inf"...)
	}
	return strconv.AppendInt(buf, v, 10)
}

func appendFloat(buf []byte, v float64, bits int) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(buf, "inf"...)
	case math.IsInf(v, -1):
		return append(buf, "-inf"...)
	case math.IsNaN(v):
		return append(buf, "nan"...)
	}
	return strconv.AppendFloat(buf, v, 'g', -1, bits)
}
