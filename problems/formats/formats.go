// Package formats reads the data files that `.dp` problems name with
// `@"path"`: plain text, CSV, FASTA, NumPy .npy, TSPLIB and NCBI scoring
// matrices, plus the multi-table instance formats of the built-in problems
// (Pisinger's knapsack files and this project's Manhattan tourist grids). It also writes the
// formats that the generators produce, so that what they write is exactly
// what Load reads back.
//
// Every error names the file, and the line where there is one, in the form
// "path:line: message", so that it can be shown to a user as it is.
package formats

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpgpu/dpgpu/ir"
)

// Table is loaded data, row-major: element [r][c] is at r*Cols+c. I holds
// integer and char data, F floating data; exactly one of them is non-nil.
// inf and -inf are IEEE's infinities in F and ±Inf in I (the text `inf` of
// a .txt or .csv file, and those values in a .npy file).
//
// Load cannot know how the input was declared, so it returns the shape the
// file itself shows: a vector is 1xN, a matrix RxC. A consumer that declared
// a vector should take all Rows*Cols values in order (a char text file whose
// lines happen to have equal lengths is read as a matrix, and a 2-D .npy of
// shape (N,1) stays Nx1).
type Table struct {
	Rows, Cols int
	I          []int64
	F          []float64
	// Printable: every value of I is a printable ASCII character (0x21 to
	// 0x7e), as a FASTA record's are; a checker can take them unchecked.
	Printable bool
	// Span, where Known, is the least and greatest value of I, found as
	// the values were parsed, so that the checks and analyses that bound
	// the data do not scan it again. Readers that do not track it leave it
	// unknown.
	Span ir.Span
	// Column: the file held one value a line (a single column of
	// several rows), which Rows and Cols give as the 1xN list that most
	// such files are; a matrix declared with an unknown number of
	// columns takes it as the Nx1 column it is (the text formats: one
	// line a matrix row).
	Column bool
}

// Inf marks inf among integer data (Table.I), and -Inf -inf: the long inf
// sentinels of docs/language.md §6.1, 2^63-1 and -(2^63-1), which no finite
// value of any type reaches. The checker gives an input the sentinels of
// its own type.
const Inf = math.MaxInt64

// Len is the number of elements, Rows*Cols.
func (t *Table) Len() int { return t.Rows * t.Cols }

// Options say how to read values.
type Options struct {
	// Record is the 1-based FASTA record to read; 0 means the first. It is
	// an error for any other format.
	Record int
	// Char: the input is declared `char`; text is read as characters, one
	// value per character (ASCII only, so that every value fits a C char).
	Char bool
	// Float: the input is declared float or double; numbers are parsed as
	// floats into F. Otherwise numbers must be integers (a float that is
	// exactly integral, such as 3.0 or 1e3, is accepted) and go into I.
	Float bool
}

// Load reads the data file at path, choosing the format by its extension
// (case-insensitive): .txt, .csv, .fa/.fasta/.fna, .npy, .tsp/.atsp, and
// .mat/.ncbi for NCBI scoring matrices (see readMatrix; the built-in
// matrices are read by name when no such file exists, with or without the
// extension). A file without an extension is read by its content: FASTA
// when it begins with '>', .npy by its magic, else text (sniff).
func Load(path string, opt Options) (*Table, error) {
	if opt.Char && opt.Float {
		return nil, fmt.Errorf("%s: an input cannot be both char and floating", path)
	}
	if opt.Record < 0 {
		return nil, fmt.Errorf("%s: record #%d: records are numbered from 1", path, opt.Record)
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		ext = sniff(path)
	}
	fasta := ext == ".fa" || ext == ".fasta" || ext == ".fna"
	if opt.Record != 0 && !fasta {
		return nil, fmt.Errorf("%s: a record selector (#%d) applies only to FASTA files", path, opt.Record)
	}
	switch {
	case ext == ".txt":
		return loadWith(path, opt, readText)
	case ext == ".csv":
		return loadWith(path, opt, readCSV)
	case fasta:
		if !opt.Char {
			return nil, fmt.Errorf("%s: FASTA holds characters; declare the input as char", path)
		}
		return loadWith(path, opt, readFASTA)
	case ext == ".npy":
		return loadNpy(path, opt)
	case ext == ".tsp" || ext == ".atsp":
		if opt.Float || opt.Char {
			return nil, fmt.Errorf("%s: TSPLIB yields integer distances; declare the input as int or long", path)
		}
		return loadWith(path, opt, readTSPLIBTable)
	case ext == ".mat" || ext == ".ncbi":
		return loadMatrix(path, opt)
	case ext == "":
		// A built-in matrix by its bare name (@BLOSUM62, as BLAST and
		// EMBOSS name them), when no file of that name is there.
		if _, err := os.Stat(path); err != nil {
			if _, _, ok := builtinMatrix(filepath.Base(path)); ok {
				return loadMatrix(path+".mat", opt)
			}
		}
	}
	return nil, fmt.Errorf("%s: unknown data file extension %q (known: .txt, .csv, .fa, .fasta, .fna, .npy, .tsp, .atsp, .mat, .ncbi)", path, ext)
}

// readFunc reads the table in r, the file name, of size bytes when known
// (see sizeHint).
type readFunc func(r io.Reader, name string, size int64, opt Options) (*Table, error)

// loadWith reads the data file at path with read.
func loadWith(path string, opt Options, read readFunc) (*Table, error) {
	return loadData(path, func(r io.Reader, size int64) (*Table, error) {
		return read(r, path, size, opt)
	})
}

// LoadGroup reads a file that holds several tables at once, in a named
// format (case-insensitive):
//
//	pisinger   [profits 1xn, weights 1xn, capacity 1x1]
//	manhattan  [down (n-1)xm, right nx(m-1)]
func LoadGroup(format, path string) ([]*Table, error) {
	switch strings.ToLower(format) {
	case "pisinger":
		return loadPisinger(path)
	case "manhattan":
		return loadManhattan(path)
	}
	return nil, fmt.Errorf("%s: unknown group format %q (known: %s)", path, format, strings.Join(GroupFormats, ", "))
}

// GroupFormats are the formats LoadGroup reads, in the order messages list
// them.
var GroupFormats = []string{"manhattan", "pisinger"}

// IsGroupFormat reports whether LoadGroup reads format (case-insensitive),
// so that a `.dp` file naming an unknown one is refused when it is
// checked, before any file is read or anything computed.
func IsGroupFormat(format string) bool {
	for _, f := range GroupFormats {
		if strings.EqualFold(f, format) {
			return true
		}
	}
	return false
}

// errAt formats an error at a line of a named input. An empty name (a reader
// with no file behind it) gives "line N: ..."; line 0 leaves the line out.
func errAt(name string, line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch {
	case name == "" && line > 0:
		return fmt.Errorf("line %d: %s", line, msg)
	case name == "":
		return fmt.Errorf("%s", msg)
	case line > 0:
		return fmt.Errorf("%s:%d: %s", name, line, msg)
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// maxExactInt is 2^53: every integer of at most this magnitude is exactly a
// float64, and beyond it some are not.
const maxExactInt = 1 << 53

// floatToInt converts an integral float to int64; ok is false for NaN, Inf,
// a fraction, or a value outside int64.
func floatToInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	// -2^63 is representable; 2^63 is not an int64.
	if f < -9223372036854775808.0 || f >= 9223372036854775808.0 {
		return 0, false
	}
	return int64(f), true
}

// intToFloat converts an integer to float64 only when the conversion is exact.
func intToFloat(v int64) (float64, bool) {
	if v > maxExactInt || v < -maxExactInt {
		return 0, false
	}
	return float64(v), true
}

// notInteger is the advice given when an integer input meets a fraction.
const notInteger = "is not an integer (declare the input as float or double to read fractions)"

// sniff is the extension a file without one is read as: ".fa" when its
// first byte that is not white space is '>', ".npy" when it begins with
// NumPy's magic, ".txt" otherwise; "" when it cannot be read (a built-in
// matrix's bare name, or an error Load reports).
func sniff(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if bytes.HasPrefix(head, []byte("\x93NUMPY")) {
		return ".npy"
	}
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '>' {
		return ".fa"
	}
	return ".txt"
}
