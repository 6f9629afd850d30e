package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
)

// TestResolveRefusesWhatIsNotARegularFile: a directory, a FIFO or a device
// given as the problem file is refused as an input error naming the path
// and what it is, without blocking (a FIFO with no writer) or reading
// without end (/dev/zero); a file over dsl.MaxSourceBytes is refused
// before it is read.
func TestResolveRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.dp")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	big := filepath.Join(dir, "big.dp")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, dsl.MaxSourceBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	good := filepath.Join(dir, "ok.dp")
	if err := os.WriteFile(good, []byte("problem ok\n2x2\ncell[i][j] = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"directory", dir, dir + ": is a directory"},
		{"fifo", fifo, fifo + ": is a named pipe (FIFO)"},
		{"dev zero", "/dev/zero", "/dev/zero: is a character device"},
		{"too big", big, "over the limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skipf("%s: %v", tc.path, err)
			}
			_, err := Resolve(tc.path)
			if err == nil {
				t.Fatal("resolved")
			}
			if !errors.Is(err, ErrInput) {
				t.Errorf("%v is not an input error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got  %q\nwant %q", err, tc.want)
			}
		})
	}
	src, err := Resolve(good)
	if err != nil || string(src.Text) != "problem ok\n2x2\ncell[i][j] = 1\n" {
		t.Errorf("regular file: %v %+v", err, src)
	}
	// A folder named like a built-in does not hide the built-in.
	t.Chdir(dir)
	if err := os.Mkdir("lcs", 0o700); err != nil {
		t.Fatal(err)
	}
	if src, err := Resolve("lcs"); err != nil || !src.Builtin {
		t.Errorf("lcs beside a folder lcs: %v %+v", err, src)
	}
}

// TestResolveBuiltinOverBareFile: a bare built-in name is the built-in even
// where the working directory holds a file of that name (a compiled peer
// program called `lcs`); `./lcs` names the file, and a binary file is
// refused as such instead of being parsed.
func TestResolveBuiltinOverBareFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("lcs", []byte("\x7fELF\x00\x01binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := Resolve("lcs")
	if err != nil || !src.Builtin {
		t.Fatalf("Resolve(lcs) = %+v, %v; want the built-in", src, err)
	}
	_, err = Resolve("./lcs")
	if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "binary file") {
		t.Fatalf("Resolve(./lcs) = %v, want an input error saying it is a binary file", err)
	}
}
