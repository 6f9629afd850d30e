package formats

import (
	"bytes"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// Record is one record of a FASTA file as Records hands it out: a batch
// (dpgpu batch) makes one instance of each, so a record that cannot be
// used must not end the file's other records.
type Record struct {
	// Name is the sequence identifier: the header's first word, or
	// "#k" (k the 1-based record number) for a header without one.
	Name   string
	Header string // the whole description line, without '>'
	Line   int    // the header's line number
	// Seq is the sequence in upper case (Load's conversion); it may be
	// empty: whether an empty sequence is an instance is the problem's to
	// say, not the file's.
	Seq []byte
	// Err is why this record cannot be used (a character no char input
	// holds), positioned at its line; the next records are still read.
	Err error
}

// Records reads the FASTA file at path one record at a time, so that a
// file far larger than memory can be iterated: only the current record is
// held. Each yielded record is the caller's (Seq is not reused). The error
// of the pair is the file's own (it cannot be opened or read, it is no
// FASTA file), after which iteration ends; a record's bad character is in
// Record.Err instead. The same rules as Load apply: whitespace is dropped,
// ';' lines are comments, letters are upper-cased.
func Records(path string) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		file, r, size, err := openData(path)
		if err != nil {
			yield(nil, err)
			return
		}
		defer file.Close()
		lr := newLineReader(r, path, size)
		var cur *Record
		n := 0
		for line := range lr.lines() {
			if len(line) > 0 && line[0] == '>' {
				if cur != nil && !yield(cur, nil) {
					return
				}
				n++
				header := strings.TrimSpace(string(line[1:]))
				name := header
				if k := strings.IndexFunc(header, unicode.IsSpace); k >= 0 {
					name = header[:k]
				}
				if name == "" {
					name = "#" + strconv.Itoa(n)
				}
				hint := 0 // the last record's length: reads' files hold many of one length
				if cur != nil {
					hint = min(len(cur.Seq), 1<<20)
				}
				cur = &Record{Name: name, Header: header, Line: lr.n, Seq: make([]byte, 0, hint)}
				continue
			}
			if len(line) > 0 && line[0] == ';' {
				continue
			}
			if cur == nil {
				if isBlankOrComment(line) {
					continue
				}
				yield(nil, lr.errorf("sequence data before the first '>' header line; is this a FASTA file?"))
				return
			}
			if cur.Err != nil {
				continue
			}
			seq, col, err := appendChars(cur.Seq, line, true)
			cur.Seq = seq
			if err != nil {
				cur.Err = lr.errorf("column %d: %v", col, err)
			}
		}
		if lr.err != nil {
			yield(nil, lr.err)
			return
		}
		if cur == nil {
			yield(nil, errAt(path, 0, "no FASTA record (no line starts with '>')"))
			return
		}
		yield(cur, nil)
	}
}

// Char returns the record's sequence as the 1xN char table Load returns for
// it (1x0 for an empty sequence).
func (r *Record) Char() *Table {
	return printable(1, len(r.Seq), r.Seq)
}

// A CharArena hands out records' char tables (Record.Char's) from large
// arrays: a million reads were a million small arrays, and allocating them
// was most of a batch reader's time. An array stays while any of its
// tables does. The zero value is ready; not safe for concurrent use.
type CharArena struct{ free []int64 }

// Char is r.Char(), its values in the arena.
func (a *CharArena) Char(r *Record) *Table {
	n := len(r.Seq)
	if n == 0 || n >= 1<<14 {
		return r.Char()
	}
	if n > len(a.free) {
		a.free = make([]int64, 1<<16)
	}
	v := a.free[:n:n]
	a.free = a.free[n:]
	return printableInto(1, n, v, r.Seq)
}

// PathList reads a list of paths, one per line, for `dpgpu batch @list`:
// blank lines and lines starting with '#' are skipped, and surrounding
// whitespace is trimmed (a path that begins or ends with spaces cannot be
// listed). Relative paths are returned as written; the caller resolves
// them. The list is read lazily, a line at a time.
func PathList(path string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		file, r, size, err := openData(path)
		if err != nil {
			yield("", err)
			return
		}
		defer file.Close()
		lr := newLineReader(r, path, size)
		for line := range lr.lines() {
			t := bytes.TrimSpace(line)
			if len(t) == 0 || t[0] == '#' {
				continue
			}
			if bytes.IndexByte(t, 0) >= 0 {
				yield("", lr.errorf("a NUL byte in a path; is this a list of paths?"))
				return
			}
			if !yield(string(t), nil) {
				return
			}
		}
		if lr.err != nil {
			yield("", lr.err)
		}
	}
}

// IsFASTA reports whether Load reads path as FASTA (by its extension).
func IsFASTA(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".fa", ".fasta", ".fna":
		return true
	}
	return false
}
