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
	return free
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
	ctx        *cuda.Context
	ptr        cuda.DevicePtr
	rows, cols int64
	t          ir.Type
	pitch      int64

	tiles map[[2]int64]*backend.Grid
	order [][2]int64 // tiles in the order they were read, oldest first
	reads int
	err   error
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
	tile := g.tiles[key]
	if tile == nil {
		if tile, g.err = g.load(key); g.err != nil {
			return ir.Value{T: g.t}
		}
	}
	return tile.At(i-key[0]*devTile, j-key[1]*devTile)
}

// load copies tile key to the host, dropping the oldest beyond devTiles.
func (g *deviceGrid) load(key [2]int64) (*backend.Grid, error) {
	if len(g.order) >= devTiles {
		delete(g.tiles, g.order[0])
		g.order = g.order[1:]
	}
	i0, j0 := key[0]*devTile, key[1]*devTile
	h, w := min(devTile, g.rows-i0), min(devTile, g.cols-j0)
	tile := backend.NewGrid(g.t, h, w)
	cs := int64(g.t.Size())
	if err := g.ctx.CopyDtoH2D(unsafe.Pointer(unsafe.SliceData(tile.Bytes())), w*cs, g.ptr, g.pitch, j0*cs, i0, w*cs, h); err != nil {
		return nil, fmt.Errorf("reading cells [%d..%d][%d..%d] back from the GPU: %w", i0, i0+h-1, j0, j0+w-1, err)
	}
	g.tiles[key] = tile
	g.order = append(g.order, key)
	g.reads++
	return tile, nil
}

func (g *deviceGrid) Err() error { return g.err }

func (g *deviceGrid) Reads() int { return g.reads }

// Close frees the grid's device memory.
func (g *deviceGrid) Close() error {
	if g.ptr == 0 {
		return nil
	}
	p := g.ptr
	g.ptr, g.tiles = 0, nil
	return g.ctx.Free(p)
}

// keepOnDevice hands the allocation at ptr, which holds the whole grid,
// over to a deviceGrid: the run's release no longer frees it (nor gives it
// back to the executor's scratch, for a small grid).
func (r *run) keepOnDevice(ptr cuda.DevicePtr) *deviceGrid {
	r.allocs = slices.DeleteFunc(r.allocs, func(p cuda.DevicePtr) bool { return p == ptr })
	r.pooled = slices.DeleteFunc(r.pooled, func(b pooled) bool { return b.host == nil && b.dev == ptr })
	cs := int64(r.p.CellType.Size())
	return &deviceGrid{ctx: r.e.ctx, ptr: ptr, rows: r.p.Rows, cols: r.p.Cols, t: r.p.CellType, pitch: r.p.Cols * cs, tiles: map[[2]int64]*backend.Grid{}}
}
