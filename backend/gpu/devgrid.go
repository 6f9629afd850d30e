package gpu

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/ir"
)

// DeviceFree is the GPU's free memory (0 when the driver cannot say). It
// makes the executor a backend.OnDevice: it keeps a grid in GPU memory
// (backend.Options.KeepOnDevice) for the strip kernel's forward sweeps and
// the front kernels, which lay the whole grid out row-major.
func (e *Executor) DeviceFree() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return 0
	}
	free, _, err := e.ctx.MemInfo()
	if err != nil {
		return 0
	}
	return free + e.spare.bytes // (the spare grid is given back when a run needs it)
}

// devTile is the side of the tiles a deviceGrid copies back: 256 x 256
// cells, 256 KB of int cells, one cuMemcpy2D each. A walk through a
// 30,000² alignment crosses a few hundred.
const devTile = 256

// devTiles is how many tiles a deviceGrid keeps on the host (16 MB of int
// cells): a walk moves back through the grid, so an old tile is rarely
// read again, but a tree's branches return to their parent's.
const devTiles = 64

// deviceGrid is a run's grid left in device memory: rows x cols cells of
// type t, row-major from ptr, rows pitch bytes apart.
type deviceGrid struct {
	ctx   *cuda.Context
	ptr   cuda.DevicePtr
	bytes int64
	// spare takes the memory back when the grid is closed (Executor.spare).
	spare func(p cuda.DevicePtr, bytes int64) error
	// stage is pinned memory the tiles are copied through, on stream, a
	// stream of their own that does not wait for the executor's kernels:
	// a walk reads tiles while the next block is computed. noStage: they
	// could not be made, tiles are copied straight.
	stage      *cuda.HostBuffer
	stream     *cuda.Stream
	noStage    bool
	rows, cols int64
	t          ir.Type
	pitch      int64

	tiles map[[2]int64]*backend.Grid
	order [][2]int64 // tiles in the order they were read, oldest first
	// last is the tile read last, lastKey its key.
	last    *backend.Grid
	lastKey [2]int64
	reads   int
	err     error
}

var _ backend.DeviceGrid = (*deviceGrid)(nil)

func (g *deviceGrid) At(i, j int64) ir.Value {
	if g.err != nil {
		return ir.Value{T: g.t}
	}
	if i < 0 || i >= g.rows || j < 0 || j >= g.cols {
		g.err = fmt.Errorf("internal error: cell [%d][%d] read outside the %dx%d grid on the device", i, j, g.rows, g.cols)
		return ir.Value{T: g.t}
	}
	key := [2]int64{i / devTile, j / devTile}
	tile := g.last
	if key != g.lastKey || tile == nil {
		// (A walk reads a few cells a step, mostly in the tile of the
		// step before: no map lookup for those.)
		if tile = g.tiles[key]; tile == nil {
			if tile, g.err = g.load(key); g.err != nil {
				return ir.Value{T: g.t}
			}
		}
		g.last, g.lastKey = tile, key
	}
	return tile.At(i-key[0]*devTile, j-key[1]*devTile)
}

// load copies tile key to the host, dropping the oldest beyond devTiles.
func (g *deviceGrid) load(key [2]int64) (*backend.Grid, error) {
	if len(g.order) >= devTiles {
		delete(g.tiles, g.order[0])
		if g.order[0] == g.lastKey {
			g.last = nil
		}
		g.order = g.order[1:]
	}
	i0, j0 := key[0]*devTile, key[1]*devTile
	h, w := min(devTile, g.rows-i0), min(devTile, g.cols-j0)
	tile := backend.NewGrid(g.t, h, w)
	cs := int64(g.t.Size())
	if err := g.copyTile(tile, i0, j0, h, w, cs); err != nil {
		return nil, fmt.Errorf("reading cells [%d..%d][%d..%d] back from the GPU: %w", i0, i0+h-1, j0, j0+w-1, err)
	}
	g.tiles[key] = tile
	g.order = append(g.order, key)
	g.reads++
	return tile, nil
}

// copyTile copies the h x w cells from [i0][j0] into tile: through the
// grid's pinned staging buffer on its own stream (a copy to pageable
// memory is staged by the driver, and slower: a walk through two genomes
// copies tens of thousands of tiles; on the default stream it would wait
// for a kernel of the executor's), else straight — from the first copy
// the driver refuses there on (a fault of the device fails both).
func (g *deviceGrid) copyTile(tile *backend.Grid, i0, j0, h, w, cs int64) error {
	if g.staged() {
		st := g.stage.Ptr()
		err := g.ctx.CopyDtoH2DAsync(st, w*cs, g.ptr, g.pitch, j0*cs, i0, w*cs, h, g.stream)
		if err == nil {
			err = g.stream.Synchronize()
		}
		if err == nil {
			copy(tile.Bytes(), unsafe.Slice((*byte)(st), h*w*cs))
			return nil
		}
		g.noStage = true
	}
	return g.ctx.CopyDtoH2D(unsafe.Pointer(unsafe.SliceData(tile.Bytes())), w*cs, g.ptr, g.pitch, j0*cs, i0, w*cs, h)
}

// staged reports whether tiles go through the staging buffer and stream,
// making them at the first tile.
func (g *deviceGrid) staged() bool {
	if g.stage == nil && !g.noStage {
		g.noStage = true
		if b, err := g.ctx.HostAlloc(devTile * devTile * 8); err == nil {
			if st, err := g.ctx.NewStreamNonBlocking(); err == nil {
				g.stage, g.stream, g.noStage = b, st, false
			} else {
				b.Free()
			}
		}
	}
	return !g.noStage
}

func (g *deviceGrid) Err() error { return g.err }

func (g *deviceGrid) Reads() int { return g.reads }

// Close frees the grid's device memory.
func (g *deviceGrid) Close() error {
	if g.ptr == 0 {
		return nil
	}
	p := g.ptr
	g.ptr, g.tiles, g.last = 0, nil, nil
	var err error
	if g.stream != nil {
		err = g.stream.Destroy()
		if e := g.stage.Free(); err == nil {
			err = e
		}
		g.stream, g.stage = nil, nil
	}
	if g.spare != nil {
		if e := g.spare(p, g.bytes); err == nil {
			err = e
		}
		return err
	}
	if e := g.ctx.Free(p); err == nil {
		err = e
	}
	return err
}

// spareGrid is the device memory of the last grid kept on the device and
// closed: the next run that keeps a grid of the same size takes it
// instead of allocating (a traceback's blocks are one size; freeing and
// allocating tens of gigabytes took 20-30 ms a block on an H200).
type spareGrid struct {
	ptr   cuda.DevicePtr
	bytes int64
}

// putSpare keeps p, bytes of device memory, as the spare grid (freeing
// the one kept before).
func (e *Executor) putSpare(p cuda.DevicePtr, bytes int64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return nil // closed: the context took the memory with it
	}
	err := e.freeSpare()
	e.spare = spareGrid{p, bytes}
	return err
}

// takeSpare is the spare grid's memory where it holds bytes and is not
// more than an eighth larger, else 0 (with e.mu held).
func (e *Executor) takeSpare(bytes int64) cuda.DevicePtr {
	s := e.spare
	if s.ptr == 0 || s.bytes < bytes || s.bytes > bytes+bytes/8 {
		return 0
	}
	e.spare = spareGrid{}
	return s.ptr
}

// freeSpare frees the spare grid (with e.mu held).
func (e *Executor) freeSpare() error {
	if e.spare.ptr == 0 {
		return nil
	}
	p := e.spare.ptr
	e.spare = spareGrid{}
	return e.ctx.Free(p)
}

// keepOnDevice hands the allocation at ptr, bytes long, which holds the whole grid,
// over to a deviceGrid: the run's release no longer frees it (nor gives it
// back to the executor's scratch, for a small grid).
func (r *run) keepOnDevice(ptr cuda.DevicePtr, bytes int64) *deviceGrid {
	r.allocs = slices.DeleteFunc(r.allocs, func(p cuda.DevicePtr) bool { return p == ptr })
	r.pooled = slices.DeleteFunc(r.pooled, func(b pooled) bool { return b.host == nil && b.dev == ptr })
	cs := int64(r.p.CellType.Size())
	return &deviceGrid{ctx: r.e.ctx, ptr: ptr, bytes: bytes, spare: r.e.putSpare,
		rows: r.p.Rows, cols: r.p.Cols, t: r.p.CellType, pitch: r.p.Cols * cs, tiles: map[[2]int64]*backend.Grid{}}
}
