package gpu

import (
	"errors"
	"math/bits"

	"github.com/dpgpu/dpgpu/backend/cuda"
)

// scratch keeps the small buffers runs allocate, device memory and pinned
// host memory, from run to run of an executor: an LCS of 16,384² whose
// kernel takes 3.5 ms spent 1.0-1.8 ms allocating its strip edges, progress
// flags, answer partials and a pinned poll buffer, and 0.6 ms freeing them
// (H200, DPGPU_TRACE; which of the calls cost most was not measured).
// Buffers of up to scratchMax bytes
// are kept, in power-of-two sizes, at most scratchKeep bytes of each kind;
// larger ones are allocated and freed with their run as before. Access is
// under the executor's lock (one run at a time).
type scratch struct {
	dev      map[int64][]cuda.DevicePtr
	host     map[int64][]*cuda.HostBuffer
	devKept  int64
	hostKept int64
}

const (
	scratchMax  = 1 << 20
	scratchKeep = 32 << 20
)

// scratchClass is the size a buffer of n bytes (0 < n <= scratchMax) is
// kept under: the least power of two >= n, at least 256.
func scratchClass(n int64) int64 {
	if n <= 256 {
		return 256
	}
	return 1 << bits.Len64(uint64(n-1))
}

// pooled is a scratch buffer a run holds, given back by its release.
type pooled struct {
	class int64
	dev   cuda.DevicePtr
	host  *cuda.HostBuffer
}

// takeDev returns device memory of at least class bytes, kept (the least
// kept class that holds it) or new, and its class.
func (s *scratch) takeDev(ctx *cuda.Context, class int64) (cuda.DevicePtr, int64, error) {
	for c := class; c <= scratchMax; c *= 2 {
		if l := s.dev[c]; len(l) > 0 {
			p := l[len(l)-1]
			s.dev[c] = l[:len(l)-1]
			s.devKept -= c
			return p, c, nil
		}
	}
	p, err := ctx.Alloc(class)
	return p, class, err
}

// takeHost returns pinned host memory of at least class bytes, kept or
// new, and its class; a kept one zeroed (a fresh allocation is not
// guaranteed to be, and no run reads what it did not write; zeroing keeps
// one run's values out of the next).
func (s *scratch) takeHost(ctx *cuda.Context, class int64) (*cuda.HostBuffer, int64, error) {
	for c := class; c <= scratchMax; c *= 2 {
		if l := s.host[c]; len(l) > 0 {
			h := l[len(l)-1]
			s.host[c] = l[:len(l)-1]
			s.hostKept -= c
			clear(h.Bytes())
			return h, c, nil
		}
	}
	h, err := ctx.HostAlloc(class)
	return h, class, err
}

// fill allocates what a first small run takes, for an executor being
// opened: with the buffers kept from run to run but allocated in the run,
// the first run of a process (every dpgpu solve) still spent 0.9-1.5 ms
// allocating them (LCS 16,384², H200); with fill, 0.0 ms.
func (s *scratch) fill(ctx *cuda.Context) error {
	for _, c := range []int64{64 << 10, 4 << 10} {
		h, err := ctx.HostAlloc(c)
		if err != nil {
			return err
		}
		if err := s.give(ctx, pooled{class: c, host: h}); err != nil {
			return err
		}
	}
	for _, c := range []int64{scratchMax, 64 << 10, 64 << 10, 4 << 10} {
		p, err := ctx.Alloc(c)
		if err != nil {
			return err
		}
		if err := s.give(ctx, pooled{class: c, dev: p}); err != nil {
			return err
		}
	}
	return nil
}

// give keeps b for a later run, or frees it where enough is kept. The
// streams of the executor must be idle.
func (s *scratch) give(ctx *cuda.Context, b pooled) error {
	if b.host != nil {
		if s.hostKept+b.class > scratchKeep {
			return b.host.Free()
		}
		if s.host == nil {
			s.host = map[int64][]*cuda.HostBuffer{}
		}
		s.host[b.class] = append(s.host[b.class], b.host)
		s.hostKept += b.class
		return nil
	}
	if s.devKept+b.class > scratchKeep {
		return ctx.Free(b.dev)
	}
	if s.dev == nil {
		s.dev = map[int64][]cuda.DevicePtr{}
	}
	s.dev[b.class] = append(s.dev[b.class], b.dev)
	s.devKept += b.class
	return nil
}

// free frees everything kept (Executor.Close).
func (s *scratch) free(ctx *cuda.Context) error {
	var errs []error
	for _, l := range s.dev {
		for _, p := range l {
			errs = append(errs, ctx.Free(p))
		}
	}
	for _, l := range s.host {
		for _, h := range l {
			errs = append(errs, h.Free())
		}
	}
	*s = scratch{}
	return errors.Join(errs...)
}
