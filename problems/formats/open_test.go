package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadRefusesWhatIsNotARegularFile: every loader, and LoadGroup,
// refuses a directory, a FIFO (without blocking on it: nothing writes to
// it here) and a device, naming the path and what it is; a file over the
// limit is refused before it is read.
func TestLoadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
		return p
	}
	sub := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	load := func(p string) error { _, err := Load(p, Options{}); return err }
	loadChar := func(p string) error { _, err := Load(p, Options{Char: true}); return err }
	group := func(f string) func(string) error {
		return func(p string) error { _, err := LoadGroup(f, p); return err }
	}
	tests := []struct {
		name string
		path string
		load func(string) error
		want string
	}{
		{"txt fifo", mk("a.txt"), load, "is a named pipe (FIFO)"},
		{"csv fifo", mk("a.csv"), load, "is a named pipe (FIFO)"},
		{"fasta fifo", mk("a.fa"), loadChar, "is a named pipe (FIFO)"},
		{"npy fifo", mk("a.npy"), load, "is a named pipe (FIFO)"},
		{"tsp fifo", mk("a.tsp"), load, "is a named pipe (FIFO)"},
		{"pisinger fifo", mk("k.txt"), group("pisinger"), "is a named pipe (FIFO)"},
		{"manhattan fifo", mk("m.txt"), group("manhattan"), "is a named pipe (FIFO)"},
		{"txt directory", sub("d.txt"), load, "is a directory"},
		{"pisinger directory", sub("k"), group("pisinger"), "is a directory"},
		{"dev zero", "/dev/zero", group("pisinger"), "is a character device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skipf("%v", err)
			}
			err := tc.load(tc.path)
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("got %v, want ErrNotRegular", err)
			}
			if !strings.HasPrefix(err.Error(), tc.path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got  %q\nwant %q: ...%s", err, tc.path, tc.want)
			}
		})
	}
}

// TestReadRegularLimit: a file over the limit is refused before reading,
// one at the limit is read whole.
func TestReadRegularLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(p, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q %v", b, err)
	}
	if _, err := ReadRegular(p, 4); !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "is 5 bytes, over the limit of 4 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	// A file that grows while read (as /proc files, which say size 0) is
	// cut off at the limit rather than read without end.
	if _, err := os.Stat("/proc/self/maps"); err == nil {
		if _, err := ReadRegular("/proc/self/maps", 16); !errors.Is(err, ErrTooBig) {
			t.Errorf("/proc/self/maps with a 16-byte limit: %v", err)
		}
	}
	r := newCappedReader(strings.NewReader("abcdef"), "x", 4)
	buf := make([]byte, 10)
	if n, err := r.Read(buf); n != 4 || err != nil {
		t.Fatalf("first read %d %v", n, err)
	}
	if _, err := r.Read(buf); !errors.Is(err, ErrTooBig) {
		t.Errorf("past the limit: %v", err)
	}
}

// TestLoadWithoutExtension: a file without an extension (what `gen-data
// -o NAME` writes when the name has none) is read by its content: FASTA
// from '>', .npy by its magic, text otherwise; a FASTA file's record
// selector works on it, and a file that is not there is still an error.
func TestLoadWithoutExtension(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := write("ints", []byte("3 1 4 1 5\n"))
	if tb, err := Load(text, Options{}); err != nil || len(tb.I) != 5 || tb.I[2] != 4 {
		t.Errorf("text without extension: %v %+v", err, tb)
	}
	fa := write("seqs", []byte("\n>one\nACGT\n>two\nGG\n"))
	if tb, err := Load(fa, Options{Char: true, Record: 2}); err != nil || len(tb.I) != 2 || tb.I[0] != 'G' {
		t.Errorf("FASTA without extension, record 2: %v %+v", err, tb)
	}
	npy := write("arr", npyBytes("<i8", false, "(3,)", raw(le, []int64{7, 8, 9})))
	if tb, err := Load(npy, Options{}); err != nil || len(tb.I) != 3 || tb.I[0] != 7 {
		t.Errorf(".npy without extension: %v %+v", err, tb)
	}
	if _, err := Load(filepath.Join(dir, "missing"), Options{}); err == nil {
		t.Error("a missing file without extension loaded")
	}
}
