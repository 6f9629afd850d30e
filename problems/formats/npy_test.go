package formats

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// npyBytes builds a version 1.0 .npy file by hand, following the format
// description (magic, version, little-endian header length, a Python dict
// literal padded with spaces to a multiple of 64 bytes, then the raw data),
// independently of the library the loader uses.
func npyBytes(descr string, fortran bool, shape string, data []byte) []byte {
	order := "False"
	if fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, shape)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	dict += strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(data)
	return b.Bytes()
}

// raw encodes values with the given byte order.
func raw(order binary.ByteOrder, vals any) []byte {
	var b bytes.Buffer
	if err := binary.Write(&b, order, vals); err != nil {
		panic(err)
	}
	return b.Bytes()
}

var le, be = binary.LittleEndian, binary.BigEndian

func TestLoadNpy(t *testing.T) {
	type npyCase struct {
		name   string
		file   []byte
		opt    Options
		rows   int
		cols   int
		ints   []int64
		floats []float64
		errs   []string
	}
	f64 := func(v ...float64) []byte { return raw(le, v) }
	cases := []npyCase{
		{name: "int64 vector", file: npyBytes("<i8", false, "(3,)", raw(le, []int64{1, -2, math.MaxInt64})),
			rows: 1, cols: 3, ints: []int64{1, -2, math.MaxInt64}},
		{name: "big-endian int32 matrix", file: npyBytes(">i4", false, "(2, 3)", raw(be, []int32{1, 2, -3, 4, 5, math.MinInt32})),
			rows: 2, cols: 3, ints: []int64{1, 2, -3, 4, 5, math.MinInt32}},
		{name: "int16 and int8 sign", file: npyBytes("<i2", false, "(2,)", raw(le, []int16{-1, -32768})),
			rows: 1, cols: 2, ints: []int64{-1, -32768}},
		{name: "int8", file: npyBytes("|i1", false, "(3,)", []byte{0xff, 0x80, 0x7f}),
			rows: 1, cols: 3, ints: []int64{-1, -128, 127}},
		{name: "uint8 not negative", file: npyBytes("|u1", false, "(2,)", []byte{0xff, 1}),
			rows: 1, cols: 2, ints: []int64{255, 1}},
		{name: "uint32 big", file: npyBytes(">u4", false, "(1,)", raw(be, []uint32{math.MaxUint32})),
			rows: 1, cols: 1, ints: []int64{math.MaxUint32}},
		{name: "bool", file: npyBytes("|b1", false, "(3,)", []byte{1, 0, 1}),
			rows: 1, cols: 3, ints: []int64{1, 0, 1}},
		{name: "scalar", file: npyBytes("<i8", false, "()", raw(le, []int64{42})),
			rows: 1, cols: 1, ints: []int64{42}},
		{name: "column stays Nx1", file: npyBytes("<i8", false, "(3, 1)", raw(le, []int64{4, 5, 6})),
			rows: 3, cols: 1, ints: []int64{4, 5, 6}},
		{name: "fortran order", file: npyBytes("<i8", true, "(2, 3)", raw(le, []int64{1, 4, 2, 5, 3, 6})),
			rows: 2, cols: 3, ints: []int64{1, 2, 3, 4, 5, 6}},
		{name: "float64 fortran", file: npyBytes("<f8", true, "(3, 2)", f64(1, 2, 3, 4, 5, 6)), opt: Options{Float: true},
			rows: 3, cols: 2, floats: []float64{1, 4, 2, 5, 3, 6}},
		{name: "float32 big-endian", file: npyBytes(">f4", false, "(2,)", raw(be, []float32{0.5, -1.25})), opt: Options{Float: true},
			rows: 1, cols: 2, floats: []float64{0.5, -1.25}},
		{name: "ints into float", file: npyBytes("<i4", false, "(2,)", raw(le, []int32{7, -9})), opt: Options{Float: true},
			rows: 1, cols: 2, floats: []float64{7, -9}},
		{name: "integral floats into int", file: npyBytes("<f8", false, "(2, 2)", f64(1, -2, 3e15, 0)),
			rows: 2, cols: 2, ints: []int64{1, -2, 3e15, 0}},
		{name: "S1 chars", file: npyBytes("|S1", false, "(4,)", []byte("ACGT")), opt: Options{Char: true},
			rows: 1, cols: 4, ints: chars("ACGT")},
		{name: "U1 chars", file: npyBytes("<U1", false, "(2,)", raw(le, []uint32{'x', 'Y'})), opt: Options{Char: true},
			rows: 1, cols: 2, ints: chars("xY")},
		{name: "small ints as chars", file: npyBytes("|i1", false, "(3,)", []byte{0, 3, 0x80}), opt: Options{Char: true},
			rows: 1, cols: 3, ints: []int64{0, 3, -128}},

		{name: "fraction into int", file: npyBytes("<f8", false, "(2, 2)", f64(1, 2.5, 3, 4)),
			errs: []string{"element [0][1]", "2.5 is not an integer"}},
		{name: "nan into int", file: npyBytes("<f8", false, "(2,)", f64(1, math.NaN())),
			errs: []string{"element 1", "NaN is not an integer"}},
		{name: "uint64 overflow", file: npyBytes("<u8", false, "(1,)", raw(le, []uint64{math.MaxUint64})),
			errs: []string{"element 0", "outside the 64-bit signed integer range"}},
		{name: "inexact into float", file: npyBytes("<i8", false, "(1,)", raw(le, []int64{1<<53 + 1})), opt: Options{Float: true},
			errs: []string{"9007199254740993 cannot be represented exactly"}},
		{name: "chars into int", file: npyBytes("|S1", false, "(1,)", []byte("A")),
			errs: []string{"holds characters (|S1); declare the input as char"}},
		{name: "floats into char", file: npyBytes("<f8", false, "(1,)", f64(65)), opt: Options{Char: true},
			errs: []string{"holds floating-point numbers"}},
		{name: "big int into char", file: npyBytes("<i8", false, "(1,)", raw(le, []int64{300})), opt: Options{Char: true},
			errs: []string{"300 does not fit a char"}},
		{name: "unicode char", file: npyBytes("<U1", false, "(1,)", raw(le, []uint32{'é'})), opt: Options{Char: true},
			errs: []string{"U+00E9 is not ASCII"}},
		{name: "complex", file: npyBytes("<c16", false, "(1,)", make([]byte, 16)),
			errs: []string{`unsupported dtype "<c16"`}},
		{name: "float16", file: npyBytes("<f2", false, "(1,)", make([]byte, 2)),
			errs: []string{`unsupported dtype "<f2"`}},
		{name: "long strings", file: npyBytes("|S3", false, "(1,)", []byte("abc")), opt: Options{Char: true},
			errs: []string{`unsupported dtype "|S3"`}},
		{name: "3-D", file: npyBytes("<i8", false, "(1, 1, 1)", make([]byte, 8)),
			errs: []string{"3 dimensions"}},
		{name: "empty", file: npyBytes("<i8", false, "(0,)", nil),
			errs: []string{"holds no values"}},
		{name: "truncated", file: npyBytes("<i8", false, "(2, 3)", make([]byte, 40)),
			errs: []string{"truncated", "40 data bytes"}},
		{name: "trailing bytes", file: npyBytes("<i8", false, "(2,)", make([]byte, 17)),
			errs: []string{"needs 16 data bytes, the file has 17"}},
		{name: "absurd shape", file: npyBytes("<i8", false, "(4611686018427387904, 4)", make([]byte, 8)),
			errs: []string{"truncated"}},
		{name: "not npy", file: []byte("1 2 3\n"),
			errs: []string{"not a valid .npy file"}},
		{name: "header without newline", file: []byte("\x93NUMPY\x01\x00\x04\x00{'a'"),
			errs: []string{"not a valid .npy file: malformed .npy header"}},
		{name: "version 9", file: []byte("\x93NUMPY\x09\x00\x04\x00{}\n"),
			errs: []string{"not a valid .npy file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.npy")
			if err := os.WriteFile(path, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Load(path, c.opt)
			if c.errs != nil {
				if err == nil {
					t.Fatalf("Load succeeded with %+v, want an error", got)
				}
				for _, e := range append(c.errs, path) {
					if !strings.Contains(err.Error(), e) {
						t.Errorf("error %q does not contain %q", err, e)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, got, c.rows, c.cols, c.ints, c.floats)
		})
	}
}

// TestNpyLibraryWritten reads files written by npyio's own writer, at sizes
// that straddle the loader's 1 MiB read buffer.
func TestNpyLibraryWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	for _, n := range []int{1, 1000, 131071, 131072, 131073, 300001} {
		ints := make([]int64, n)
		floats := make([]float64, n)
		for i := range ints {
			ints[i] = rng.Int64() - math.MaxInt64/2
			floats[i] = rng.NormFloat64()
		}
		pi := filepath.Join(dir, fmt.Sprintf("i%d.npy", n))
		pf := filepath.Join(dir, fmt.Sprintf("f%d.npy", n))
		writeWith(t, pi, ints)
		writeWith(t, pf, floats)
		got, err := Load(pi, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, got, 1, n, ints, nil)
		got, err = Load(pf, Options{Float: true})
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, got, 1, n, nil, floats)
	}
	// A matrix through gonum, which npyio writes with its real shape.
	r, c := 37, 53
	m := mat.NewDense(r, c, nil)
	want := make([]float64, r*c)
	for i := range r {
		for j := range c {
			want[i*c+j] = rng.Float64()
			m.Set(i, j, want[i*c+j])
		}
	}
	p := filepath.Join(dir, "m.npy")
	writeWith(t, p, m)
	got, err := Load(p, Options{Float: true})
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, got, r, c, nil, want)
}

func writeWith(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(f, v); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
