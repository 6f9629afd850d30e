package main

import (
	"archive/zip"
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
	// written lists the files the grid went to: path, or for several
	// tables in .npy or .csv one file per table (tableFile).
	written []string
}

// openGrid checks a --grid path and creates its temporary file before any
// computing, so that a typo in the directory or a read-only place is
// refused at once (with exit status 2) rather than after an hour of
// solving. Stale partial files of the same target are removed.
func openGrid(path string) (*gridOutput, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy", ".csv", ".npz":
	default:
		return nil, usageErr("--grid %s: the file must end in .npy, .csv or .npz", path)
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

// write writes the grid g of p to the partial file, a chunk at a time
// straight from the grid (no second copy of it, whatever its size),
// checking ctx between chunks, and renames it onto the target once it is
// complete and closed. On any error or interruption the partial files are
// removed.
//
// Each table is written in its own shape: (N) for a 1-D grid, (K, R, C)
// for a 3-D one in .npy (.csv stacks the planes' rows), the user's R x C
// for each of several tables (the grid's flat column j*T + t read back
// as table t's [i][j]). Several tables go to one .npz archive (a member
// NAME.npy per table, what numpy.load reads), or in .npy and .csv to one
// file per table beside the target, BASE.NAME.npy (tableFile).
func (o *gridOutput) write(ctx context.Context, p *ir.Problem, g *backend.Grid) (err error) {
	views := gridViews(p, g)
	ext := strings.ToLower(filepath.Ext(o.path))
	type part struct {
		tmp    *os.File
		target string
	}
	parts := []part{{o.tmp, o.path}}
	defer func() {
		if err != nil {
			for _, pt := range parts[1:] {
				pt.tmp.Close()
				os.Remove(pt.tmp.Name())
				dropTemp(pt.tmp.Name())
			}
			o.abort()
		}
	}()
	if ext != ".npz" && len(views) > 1 {
		// One file per table: the first in the partial file opened
		// before the run, the others beside it.
		parts[0].target = tableFile(o.path, views[0].name)
		for _, v := range views[1:] {
			target := tableFile(o.path, v.name)
			tmp, err := os.CreateTemp(filepath.Dir(o.path), partialPrefix(target)+strconv.Itoa(os.Getpid())+"-*")
			if err != nil {
				return fmt.Errorf("writing grid %s: %w", target, unwrapPath(err))
			}
			addTemp(tmp.Name())
			parts = append(parts, part{tmp, target})
			if err := tmp.Chmod(0o644); err != nil {
				return fmt.Errorf("writing grid %s: %w", target, err)
			}
		}
	}
	for k, pt := range parts {
		w := bufio.NewWriterSize(pt.tmp, 1<<20)
		switch ext {
		case ".npz":
			err = writeNPZ(ctx, w, views)
		case ".npy":
			err = writeNPY(ctx, w, views[k])
		default:
			err = writeCSV(ctx, w, views[k])
		}
		if err == nil {
			err = w.Flush()
		}
		if err == nil {
			err = pt.tmp.Close()
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	for _, pt := range parts {
		if err != nil {
			break
		}
		err = os.Rename(pt.tmp.Name(), pt.target)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("writing grid %s: %w", o.path, unwrapPath(err))
	}
	o.written = nil
	for _, pt := range parts {
		dropTemp(pt.tmp.Name())
		o.written = append(o.written, pt.target)
	}
	return nil
}

// tableFile is the file of table name beside path: BASE.NAME.EXT.
func tableFile(path, name string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + name + ext
}

// gridView is one table of a grid as the user indexes it: shape (the
// sides, 1 to 3 of them), and its cells in C order, cell n at flat index
// row n/cols, column (n%cols)*stride + offset of the grid (stride T and
// offset t for table t of several tables, 1 and 0 otherwise).
type gridView struct {
	name           string
	shape          []int64
	g              *backend.Grid
	cols           int64 // the view's cells per grid row
	stride, offset int64
}

// gridViews are the tables of p's grid g.
func gridViews(p *ir.Problem, g *backend.Grid) []gridView {
	T := int64(len(p.Tables))
	if T <= 1 || (p.Dims != 2 && p.Dims != 1) {
		name := "cell"
		if T == 1 {
			name = p.Tables[0]
		}
		shape := []int64{g.Rows, g.Cols}
		switch {
		case p.Dims == 1 && g.Rows == 1:
			shape = []int64{g.Cols}
		case p.Dims == 3 && p.Mid*p.Inner == g.Cols:
			shape = []int64{g.Rows, p.Mid, p.Inner}
		}
		return []gridView{{name: name, shape: shape, g: g, cols: g.Cols, stride: 1}}
	}
	var out []gridView
	for t, name := range p.Tables {
		shape := []int64{g.Rows, g.Cols / T}
		if p.Dims == 1 && g.Rows == 1 {
			shape = shape[1:]
		}
		out = append(out, gridView{name: name, shape: shape, g: g, cols: g.Cols / T, stride: T, offset: int64(t)})
	}
	return out
}

// contiguous reports whether the view is the grid's memory as it is.
func (v gridView) contiguous() bool { return v.stride == 1 }

// rowCells is the number of cells a row of the text form holds: the last
// side.
func (v gridView) rowCells() int64 { return v.shape[len(v.shape)-1] }

// cell is the view's cell n (C order) as a value.
func (v gridView) cell(n int64) ir.Value {
	i, j := n/v.cols, n%v.cols
	return v.g.At(i, j*v.stride+v.offset)
}

// cells is the number of cells of the view.
func (v gridView) cells() int64 { return v.g.Rows * v.cols }

// littleEndian is whether this machine stores numbers as .npy files do, so
// that the grid's memory can be written as it is.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// writeNPY writes a NumPy .npy file (format version 1.0) of one view:
// magic, a header dictionary padded so the data starts on a 64-byte
// boundary, then the little-endian C-order data. Integer inf and -inf are
// the sentinels of docs/language.md section 6.1 (2^31-1 and -(2^31-1) for
// int).
func writeNPY(ctx context.Context, w io.Writer, v gridView) error {
	g := v.g
	descr := fmt.Sprintf("<i%d", g.T.Size())
	if g.T.IsFloat() {
		descr = fmt.Sprintf("<f%d", g.T.Size())
	}
	sides := make([]string, len(v.shape))
	for k, n := range v.shape {
		sides[k] = strconv.FormatInt(n, 10)
	}
	shape := strings.Join(sides, ", ")
	if len(sides) == 1 {
		shape += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
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
	size := int64(g.T.Size())
	if !v.contiguous() || !littleEndian {
		return gatherChunks(ctx, w, v, size)
	}
	raw := g.Bytes()
	step := chunkCells * int(size)
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

// gatherChunks writes the cells of a view that is not the grid's memory as
// it is (one of several tables, or any grid on a machine whose byte order
// is not little-endian), little-endian, through one buffer of chunkCells
// cells.
func gatherChunks(ctx context.Context, w io.Writer, v gridView, size int64) error {
	raw := v.g.Bytes()
	buf := make([]byte, 0, chunkCells*size)
	n := v.cells()
	for k := int64(0); k < n; k++ {
		i, j := k/v.cols, k%v.cols
		at := (i*v.g.Cols + j*v.stride + v.offset) * size
		cell := raw[at : at+size]
		if littleEndian {
			buf = append(buf, cell...)
		} else {
			for b := size - 1; b >= 0; b-- {
				buf = append(buf, cell[b])
			}
		}
		if int64(len(buf)) == chunkCells*size {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// writeNPZ writes the views as a NumPy .npz archive: a zip of NAME.npy
// members, stored (numpy.savez's layout; numpy.load reads it).
func writeNPZ(ctx context.Context, w io.Writer, views []gridView) error {
	z := zip.NewWriter(w)
	for _, v := range views {
		m, err := z.CreateHeader(&zip.FileHeader{Name: v.name + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		if err := writeNPY(ctx, m, v); err != nil {
			return err
		}
	}
	return z.Close()
}

// writeCSV writes one line per row of the view (a 3-D grid's planes one
// after another). Infinite cells are written inf and -inf (integer
// sentinels included), NaN as nan, as in the text report, so that a reader
// never takes 2147483647 for a number; numpy.loadtxt and Python's float()
// read all three. A row is written in pieces of about 64 KiB, so a row of a
// hundred million cells needs no row-sized buffer.
func writeCSV(ctx context.Context, w io.Writer, v gridView) error {
	g := v.g
	buf := make([]byte, 0, 72<<10)
	var pos, neg int64
	if g.T.IsInteger() {
		pos, neg = ir.InfSentinel(g.T)
	}
	n, per := v.cells(), v.rowCells()
	for k := int64(0); k < n; k++ {
		if k%per != 0 {
			buf = append(buf, ',')
		}
		if c := v.cell(k); g.T.IsFloat() {
			buf = appendFloat(buf, c.F, g.T.Bits())
		} else {
			buf = appendInt(buf, c.I, pos, neg)
		}
		if k%per == per-1 {
			buf = append(buf, '\n')
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
