package gpu

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
)

// keepStrips is what the strip kernel needs to write the grid out
// (maintain): it computes strip s into slot s % nslots of slots and sets
// done[s] in host memory when the strip is complete; the host then copies
// the slot out on the second stream, in pieces through the stager's pinned
// buffers, from which CPU workers move the rows into the grid. After the
// copies the second stream writes s+1 to freed, letting the kernel reuse
// the slot for strip s+nslots. The kernel, the copies and the CPU moves of
// consecutive pieces overlap.
//
// Why not copy straight into the grid, pinning it with cuMemHostRegister?
// Measured on the H100 machine for a 4.3 GB grid: registering takes 0.09 s
// on one thread (more threads do not help), unregistering 0.07 s, and a
// process that exits with the grid still registered takes about 0.06 s
// longer to end. Copying into the grid while registering it ahead came out
// no faster than this pipeline (about 0.16 s for 4.3 GB either way, bound
// by the host's memory bandwidth), and the process slower
// (docs/performance.md).
type keepStrips struct {
	slots   cuda.DevicePtr
	nslots  int64
	freed   cuda.DevicePtr
	done    *cuda.HostBuffer // int32 per strip, written by the kernel
	doneDev cuda.DevicePtr
	seq     *cuda.HostBuffer // int32 s+1 at s: what the copies after strip s write to freed
	st      *stager
}

// slotBytes is the size of one strip slot of a keeping strip program.
func slotBytes(pr *codegen.Program) int64 {
	return pr.StripRows() * pr.Cols * int64(pr.Cell.Size())
}

// keepSlots is how many strip slots the run allocates: one per strip
// where they fit in half of the free device memory (the kernel then runs
// to its end at full speed and never waits for the copies), else as many
// as fit, and at least two. Measured on the H100 machine, LCS 32,768²: 8
// slots instead of 32 made the whole copy-back 40% slower, the kernel
// running alongside it until the end.
func (r *run) keepSlots(free int64) int64 {
	n := min(r.prog.Strips, max(free/2/slotBytes(r.prog), 2))
	if m := r.e.cfg.maxSlots; m > 0 {
		n = min(n, m)
	}
	return n
}

func (r *run) newKeepStrips() (*keepStrips, error) {
	pr, e := r.prog, r.e
	free, _, err := e.ctx.MemInfo()
	if err != nil {
		return nil, err
	}
	k := &keepStrips{nslots: r.keepSlots(free)}
	if r.onDevice {
		k.nslots = pr.Strips // every strip stays: the grid, row-major
	}
	if r.onDevice {
		k.slots = e.takeSpare(k.nslots * slotBytes(pr))
		if k.slots != 0 {
			r.allocs = append(r.allocs, k.slots) // freed if the run fails
		}
	}
	if k.slots == 0 {
		if k.slots, err = r.alloc("strip slots for maintain", k.nslots*slotBytes(pr)); err != nil {
			return nil, err
		}
	}
	if k.freed, err = r.alloc("strip slot counter", 4); err != nil {
		return nil, err
	}
	if err := e.ctx.Memset32(k.freed, 0, 1); err != nil {
		return nil, err
	}
	if k.done, err = r.hostAlloc(4 * pr.Strips); err != nil {
		return nil, err
	}
	clear(cuda.HostSlice[int32](k.done))
	if k.doneDev, err = k.done.DevicePtr(); err != nil {
		return nil, err
	}
	if k.seq, err = r.hostAlloc(4 * pr.Strips); err != nil {
		return nil, err
	}
	seq := cuda.HostSlice[int32](k.seq)
	for s := range seq {
		seq[s] = int32(s + 1)
	}
	return k, nil
}

// stripRows is the real rows [lo, hi) of strip s.
func (r *run) stripRows(s int64) (lo, hi int64) {
	BH, R := r.prog.StripRows(), r.p.Rows
	end := min((s+1)*BH, R)
	if r.prog.Backward {
		return R - end, R - s*BH
	}
	return s * BH, end
}

// drain copies the strips out as the kernel finishes them, until the last
// is in the grid. end is the event recorded after the kernel. On an error
// (a cancelled run's included) the caller must stop the kernel, which may
// be waiting for slots that will not be freed.
func (k *keepStrips) drain(r *run, end *cuda.Event) error {
	pr, e := r.prog, r.e
	done := cuda.HostSlice[int32](k.done)
	seq := cuda.HostSlice[int32](k.seq)
	piece := r.stageBytes()
	cs := r.cellBytes()
	// The staging buffers are pinned while the kernel computes the first
	// strip.
	var err error
	if k.st, err = r.newStager(piece, false); err != nil {
		return err
	}
	n := 0
	var waited time.Duration
	for s := int64(0); s < pr.Strips; s++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		wait := 10 * time.Microsecond
		t := time.Now()
		for atomic.LoadInt32(&done[s]) == 0 {
			select {
			case <-r.ctx.Done():
				return r.ctx.Err()
			default:
			}
			finished, err := end.Done()
			if err != nil {
				return fmt.Errorf("running %s on %s: %w", r.p.Name, e.dev.Name, err)
			}
			if finished && atomic.LoadInt32(&done[s]) == 0 {
				return fmt.Errorf("gpu: the strip kernel of %s ended before strip %d of %d was done", r.p.Name, s, pr.Strips)
			}
			time.Sleep(wait)
			wait = min(2*wait, 500*time.Microsecond)
		}
		waited += time.Since(t)
		lo, hi := r.stripRows(s)
		src := k.slots + cuda.DevicePtr((s%k.nslots)*slotBytes(pr))
		first, last := lo*pr.Cols*cs, hi*pr.Cols*cs // bytes of the grid
		for at := first; at < last; at += piece {
			b := min(piece, last-at)
			if err := k.st.copyOut(n, src+cuda.DevicePtr(at-first), b, r.rowsScatter(at)); err != nil {
				return err
			}
			n++
		}
		// The slot is free for strip s+nslots once the copies above ran.
		if err := e.ctx.CopyHtoDAsync(k.freed, unsafe.Pointer(&seq[s]), 4, e.s2); err != nil {
			return err
		}
		r.progress(min((s+1)*pr.StripRows(), r.p.Rows) * pr.Cols)
	}
	r.trace.Mark(fmt.Sprintf("strips queued (host waited %.1f ms for strips)", waited.Seconds()*1e3))
	return k.st.finish()
}
