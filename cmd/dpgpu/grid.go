package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/runtime"
)

func checkGridPath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy", ".csv":
		return nil
	}
	return usageErr("--grid %s: the file must end in .npy or .csv", path)
}

// writeGrid writes g atomically: to a temporary file beside path, renamed
// into place only once complete, so an interrupted run leaves no half file.
func writeGrid(path string, g *runtime.Grid) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing grid: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		err = writeNPY(w, g)
	} else {
		err = writeCSV(w, g)
	}
	if err != nil {
		return fmt.Errorf("writing grid %s: %w", path, err)
	}
	if err = w.Flush(); err != nil {
		return fmt.Errorf("writing grid %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing grid %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing grid %s: %w", path, err)
	}
	return nil
}

// writeNPY writes a NumPy .npy file (format version 1.0): magic, a header
// dictionary padded so the data starts on a 64-byte boundary, then the
// little-endian C-order data.
func writeNPY(w io.Writer, g *runtime.Grid) error {
	var descr string
	var data any
	switch {
	case g.I32 != nil:
		descr, data = "<i4", g.I32
	case g.I64 != nil:
		descr, data = "<i8", g.I64
	case g.F32 != nil:
		descr, data = "<f4", g.F32
	default:
		descr, data = "<f8", g.F64
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
	switch d := data.(type) {
	case []int32:
		return writeChunks(w, d)
	case []int64:
		return writeChunks(w, d)
	case []float32:
		return writeChunks(w, d)
	default:
		return writeChunks(w, d.([]float64))
	}
}

// writeChunks writes d little-endian a slice at a time, so a grid of
// gigabytes is not copied whole into an encoding buffer.
func writeChunks[T int32 | int64 | float32 | float64](w io.Writer, d []T) error {
	const chunk = 1 << 16
	for off := 0; off < len(d); off += chunk {
		if err := binary.Write(w, binary.LittleEndian, d[off:min(off+chunk, len(d))]); err != nil {
			return err
		}
	}
	return nil
}

func writeCSV(w io.Writer, g *runtime.Grid) error {
	var buf []byte
	for i := int64(0); i < g.Rows; i++ {
		buf = buf[:0]
		for j := int64(0); j < g.Cols; j++ {
			if j > 0 {
				buf = append(buf, ',')
			}
			k := i*g.Cols + j
			switch {
			case g.I32 != nil:
				buf = strconv.AppendInt(buf, int64(g.I32[k]), 10)
			case g.I64 != nil:
				buf = strconv.AppendInt(buf, g.I64[k], 10)
			case g.F32 != nil:
				buf = strconv.AppendFloat(buf, float64(g.F32[k]), 'g', -1, 32)
			default:
				buf = strconv.AppendFloat(buf, g.F64[k], 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
