package hostmem

import (
	"errors"
	"fmt"
)

// ErrTooLarge marks every refusal of a run for want of memory: the CPU
// grid and working buffers, GPU device memory, host staging, Held-Karp.
// It is the user's problem (a smaller instance, fewer kept cells), not an
// internal failure, so the command line exits with status 2 for it; one
// sentinel lets it do so without knowing every executor's errors.
var ErrTooLarge = errors.New("too large for the available memory")

// TooLarge is the refusal of what for want of memory, wrapping
// ErrTooLarge: "<what> needs 4.0 GiB, but only 2.1 GiB of memory is
// available; <advice>". kind names the memory ("memory", "GPU memory on
// NVIDIA H100") where it is not the host's.
func TooLarge(what string, need, avail int64, kind, advice string) error {
	if kind == "" {
		kind = "memory"
	}
	msg := fmt.Sprintf("%s needs %s, but only %s of %s is available", what, Bytes(need), Bytes(max(avail, 0)), kind)
	if advice != "" {
		msg += "; " + advice
	}
	return &tooLarge{msg: msg}
}

type tooLarge struct{ msg string }

func (e *tooLarge) Error() string { return e.msg }
func (e *tooLarge) Unwrap() error { return ErrTooLarge }

// Check refuses (TooLarge) a run that needs need more bytes of host
// memory than MemAvailable; where MemAvailable cannot be read it lets the
// run go on rather than guess. Memory the run already holds (a grid
// allocated in advance) is already missing from MemAvailable, so callers
// pass only what is still to be allocated.
func Check(what string, need int64, advice string) error {
	if avail, ok := Available(); ok && need > avail {
		return TooLarge(what, need, avail, "", advice)
	}
	return nil
}

// Bytes renders a byte count for people, in powers of 1024: "512 B",
// "3.7 GiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
