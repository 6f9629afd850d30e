package formats

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/sbinet/npyio/npy"
)

// npyDtype is a NumPy scalar type: kind 'b' (bool), 'i', 'u', 'f', 'S'
// (bytes) or 'U' (UTF-32 code points), with its size in bytes.
type npyDtype struct {
	kind  byte
	size  int
	order binary.ByteOrder
	descr string
}

// parseNpyDtype reads a dtype descriptor such as "<i8", "|u1", ">f4", "|S1".
// Only the types that map onto one table value are accepted: booleans,
// integers, float32/64, and strings of length one (characters).
func parseNpyDtype(descr string) (npyDtype, error) {
	d := npyDtype{descr: descr, order: binary.LittleEndian}
	s := descr
	if s != "" {
		switch s[0] {
		case '<', '|', '=':
			s = s[1:]
		case '>':
			d.order = binary.BigEndian
			s = s[1:]
		}
	}
	if len(s) < 2 {
		return d, fmt.Errorf("unsupported dtype %q", descr)
	}
	d.kind = s[0]
	size, err := strconv.Atoi(s[1:])
	if err != nil {
		return d, fmt.Errorf("unsupported dtype %q", descr)
	}
	d.size = size
	ok := false
	switch d.kind {
	case 'b':
		ok = size == 1
	case 'i', 'u':
		ok = size == 1 || size == 2 || size == 4 || size == 8
	case 'f':
		ok = size == 4 || size == 8
	case 'S', 'a':
		d.kind = 'S'
		ok = size == 1
	case 'U':
		ok = size == 1
		d.size = 4
	}
	if !ok {
		return d, fmt.Errorf("unsupported dtype %q (want bool, int8..int64, uint8..uint64, float32, float64, or one-character strings S1/U1)", descr)
	}
	return d, nil
}

// bits returns the raw element at the start of b as an unsigned integer.
func (d npyDtype) bits(b []byte) uint64 {
	switch d.size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(d.order.Uint16(b))
	case 4:
		return uint64(d.order.Uint32(b))
	}
	return d.order.Uint64(b)
}

// countingReader counts the bytes read through it, to learn where the
// header of a .npy file ends.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readNpyHeader parses the header with npyio. Its parser indexes into the
// header text without bounds checks, so a damaged file can make it panic;
// that is turned into an error here, since bad input must not crash a run.
func readNpyHeader(r io.Reader) (h npy.Header, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed .npy header")
		}
	}()
	rd, err := npy.NewReader(r)
	if err != nil {
		return h, err
	}
	return rd.Header, nil
}

// loadNpy reads a NumPy .npy file: a 0-D array is 1x1, 1-D is 1xN, 2-D is
// RxC (Fortran order is transposed to row-major). Integer and boolean data
// go to I and floating data to F, converted as the declaration says: an
// integer input accepts floats only when each is integral, a floating input
// accepts integers up to 2^53 (beyond that the conversion would round), a
// char input takes one-character strings or integers in -128..127.
//
// The data is read in one pass with a fixed buffer, so the time is linear in
// the file size; the declared shape is checked against the file size before
// anything is allocated.
func loadNpy(path string, opt Options) (*Table, error) {
	file, f, size, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	cr := &countingReader{r: f}
	h, err := readNpyHeader(cr)
	if err != nil {
		return nil, errAt(path, 0, "not a valid .npy file: %v", err)
	}
	d, err := parseNpyDtype(h.Descr.Type)
	if err != nil {
		return nil, errAt(path, 0, "%v", err)
	}
	shape := h.Descr.Shape
	rows, cols := 1, 1
	switch len(shape) {
	case 0:
	case 1:
		cols = shape[0]
	case 2:
		rows, cols = shape[0], shape[1]
	default:
		return nil, errAt(path, 0, "array has %d dimensions %v; inputs are vectors or matrices", len(shape), shape)
	}
	if rows < 0 || cols < 0 {
		return nil, errAt(path, 0, "invalid shape %v", shape)
	}
	if rows == 0 || cols == 0 {
		return nil, errAt(path, 0, "holds no values (shape %v)", shape)
	}
	data := size - cr.n
	if int64(cols) > data || int64(rows) > data/int64(cols)/int64(d.size) {
		return nil, errAt(path, 0, "truncated: shape %v of %s needs more than the %d data bytes present", shape, d.descr, data)
	}
	n := rows * cols
	if need := int64(n) * int64(d.size); need != data {
		return nil, errAt(path, 0, "shape %v of %s needs %d data bytes, the file has %d", shape, d.descr, need, data)
	}

	t := &Table{Rows: rows, Cols: cols}
	var put func(dst int, b []byte) error
	switch {
	case opt.Float:
		if d.kind == 'S' || d.kind == 'U' {
			return nil, errAt(path, 0, "holds characters (%s); declare the input as char", d.descr)
		}
		t.F = make([]float64, n)
		put = func(dst int, b []byte) error {
			if d.kind == 'f' {
				t.F[dst] = d.float(b)
				return nil
			}
			v, err := d.int(b)
			if err != nil {
				return err
			}
			f, ok := intToFloat(v)
			if !ok {
				return fmt.Errorf("%d cannot be represented exactly as a double", v)
			}
			t.F[dst] = f
			return nil
		}
	case opt.Char:
		if d.kind == 'f' {
			return nil, errAt(path, 0, "holds floating-point numbers (%s); a char input needs characters or small integers", d.descr)
		}
		t.I = make([]int64, n)
		put = func(dst int, b []byte) error {
			if d.kind == 'S' || d.kind == 'U' {
				c := d.bits(b)
				if c >= 0x80 {
					return fmt.Errorf("character U+%04X is not ASCII; char inputs hold one ASCII character per value", c)
				}
				if err := checkChar(byte(c)); err != nil {
					return err
				}
				t.I[dst] = int64(c)
				return nil
			}
			v, err := d.int(b)
			if err != nil {
				return err
			}
			if v < -128 || v > 127 {
				return fmt.Errorf("%d does not fit a char (-128..127)", v)
			}
			t.I[dst] = v
			return nil
		}
	default:
		if d.kind == 'S' || d.kind == 'U' {
			return nil, errAt(path, 0, "holds characters (%s); declare the input as char", d.descr)
		}
		t.I = make([]int64, n)
		put = func(dst int, b []byte) error {
			if d.kind != 'f' {
				v, err := d.int(b)
				t.I[dst] = v
				return err
			}
			f := d.float(b)
			v, ok := floatToInt(f)
			if !ok {
				return fmt.Errorf("%v %s", f, notInteger)
			}
			t.I[dst] = v
			return nil
		}
	}

	br := bufio.NewReaderSize(f, 1<<20)
	buf := make([]byte, 0, (1<<20)/d.size*d.size)
	for k := 0; k < n; {
		m := min(n-k, cap(buf)/d.size)
		chunk := buf[:m*d.size]
		if _, err := io.ReadFull(br, chunk); err != nil {
			return nil, errAt(path, 0, "reading data: %v", err)
		}
		for e := 0; e < m; e, k = e+1, k+1 {
			r, c := k/cols, k%cols
			if h.Descr.Fortran && len(shape) == 2 {
				r, c = k%rows, k/rows
			}
			if err := put(r*cols+c, chunk[e*d.size:]); err != nil {
				return nil, errAt(path, 0, "%s: %v", npyPlace(len(shape), r, c), err)
			}
		}
	}
	return t, nil
}

// int returns an integer or boolean element; uint64 values above the int64
// range are an error rather than wrapping to negative numbers.
func (d npyDtype) int(b []byte) (int64, error) {
	u := d.bits(b)
	switch d.kind {
	case 'i':
		shift := 64 - 8*d.size
		return int64(u<<shift) >> shift, nil
	case 'b':
		if u != 0 {
			return 1, nil
		}
		return 0, nil
	}
	if u > math.MaxInt64 {
		return 0, fmt.Errorf("%d is outside the 64-bit signed integer range", u)
	}
	return int64(u), nil
}

// float returns a float32 or float64 element.
func (d npyDtype) float(b []byte) float64 {
	if d.size == 4 {
		return float64(math.Float32frombits(uint32(d.bits(b))))
	}
	return math.Float64frombits(d.bits(b))
}

// npyPlace names an element for error messages.
func npyPlace(dims, r, c int) string {
	if dims == 2 {
		return fmt.Sprintf("element [%d][%d]", r, c)
	}
	return fmt.Sprintf("element %d", c)
}
