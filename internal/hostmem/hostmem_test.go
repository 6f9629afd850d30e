package hostmem

import (
	"errors"
	"fmt"
	"testing"
	"time"
	"unsafe"
)

func TestParseAvailable(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"MemTotal:       32000000 kB\nMemFree:  1 kB\nMemAvailable:   24438784 kB\n", 24438784 * 1024},
		{"MemAvailable: 100\n", 100},
		{"MemTotal: 5 kB\n", -1},
		{"MemAvailable: x kB\n", -1},
		{"MemAvailable: -4 kB\n", -1},
		{"", -1},
	}
	for _, tc := range tests {
		if got := parseAvailable([]byte(tc.in)); got != tc.want {
			t.Errorf("parseAvailable(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestMapTouchesZeroedMemory(t *testing.T) {
	for _, n := range []int64{1, 4095, 4096, 5 << 20, 33<<20 + 7} {
		b, err := Map(n)
		if err != nil {
			t.Fatalf("Map(%d): %v", n, err)
		}
		if int64(len(b)) != n {
			t.Fatalf("Map(%d) gave %d bytes", n, len(b))
		}
		for k := int64(0); k < n; k += 997 {
			if b[k] != 0 {
				t.Fatalf("Map(%d): byte %d = %d, want 0", n, k, b[k])
			}
		}
		b[n-1] = 7 // writable to the end
		if err := Unmap(b); err != nil {
			t.Fatalf("Unmap: %v", err)
		}
	}
}

// Touch writes zeros at page starts only (it is for zeroed memory) and
// never past the buffer.
func TestTouchWritesOnlyPageStarts(t *testing.T) {
	b := make([]byte, 40<<20+100)
	for k := range b {
		b[k] = 1
	}
	Advise(b)
	Touch(b)
	for k, v := range b {
		if want := byte(1 - boolInt(k%page == 0)); v != want {
			t.Fatalf("byte %d = %d after Touch, want %d", k, v, want)
		}
	}
	Touch(nil)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestAvailable(t *testing.T) {
	n, ok := Available()
	if ok && n <= 0 {
		t.Fatalf("Available() = %d, true", n)
	}
}

// Parallel covers [0, n) exactly once, in contiguous ranges.
func TestParallel(t *testing.T) {
	for _, n := range []int64{0, 1, 63, 64, 65, 1000, 4097} {
		for _, workers := range []int{0, 1, 2, 7, 16, 5000} {
			seen := make([]int32, n)
			Parallel(workers, n, func(lo, hi int64) {
				if lo > hi || lo < 0 || hi > n {
					t.Errorf("n=%d workers=%d: range [%d, %d)", n, workers, lo, hi)
					return
				}
				for k := lo; k < hi; k++ {
					seen[k]++ // ranges are disjoint: no race
				}
			})
			for k, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d workers=%d: index %d visited %d times", n, workers, k, c)
				}
			}
		}
	}
}

func TestTooLarge(t *testing.T) {
	tests := []struct {
		what        string
		need, avail int64
		kind, adv   string
		want        string
	}{
		{"keeping the 10000x100000 grid of int", 4 << 30, 2254857830, "", "run without --grid",
			"keeping the 10000x100000 grid of int needs 4.0 GiB, but only 2.1 GiB of memory is available; run without --grid"},
		{"the run", 3 << 20, -1, "GPU memory on X", "",
			"the run needs 3.0 MiB, but only 0 B of GPU memory on X is available"},
	}
	for _, tc := range tests {
		err := TooLarge(tc.what, tc.need, tc.avail, tc.kind, tc.adv)
		if err.Error() != tc.want {
			t.Errorf("got  %q\nwant %q", err, tc.want)
		}
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%q does not wrap ErrTooLarge", err)
		}
		if wrapped := fmt.Errorf("solve: %w", err); !errors.Is(wrapped, ErrTooLarge) {
			t.Errorf("wrapped %q lost ErrTooLarge", wrapped)
		}
	}
}

func TestCheck(t *testing.T) {
	avail, ok := Available()
	if !ok {
		t.Skip("no MemAvailable here")
	}
	if err := Check("a little", 1, ""); err != nil {
		t.Errorf("1 byte refused: %v", err)
	}
	if err := Check("too much", avail*4+1<<40, "try less"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("%d bytes with %d available: %v", avail*4+1<<40, avail, err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 29: "1.5 GiB", 1 << 40: "1.0 TiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPrefaultKeepsWrites: filling a buffer while Prefault faults its pages
// in on another goroutine loses no value written (the kernel populates
// only pages not there yet).
func TestPrefaultKeepsWrites(t *testing.T) {
	const n = 64 << 20
	s := make([]int64, 0, n/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:cap(s)]))), n)
	Prefault(b)
	for k := 0; k < cap(s); k++ {
		s = append(s, int64(k)*7+1)
	}
	time.Sleep(10 * time.Millisecond) // let a slow populate run past the end
	for k, v := range s {
		if v != int64(k)*7+1 {
			t.Fatalf("value %d is %d after the prefault, want %d", k, v, int64(k)*7+1)
		}
	}
}
