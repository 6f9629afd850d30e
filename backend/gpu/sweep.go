package gpu

import (
	"fmt"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/plan"
)

// checkEvery is how many launches go by between looks at the context.
const checkEvery = 64

// timed records the compute events around the launches and, at the end,
// waits for them and fills in ComputeSeconds.
type timed struct {
	start, end *cuda.Event
}

func (r *run) startTiming() (*timed, error) {
	t := &timed{}
	var err error
	if t.start, err = r.event(); err != nil {
		return nil, err
	}
	if t.end, err = r.event(); err != nil {
		return nil, err
	}
	return t, t.start.Record(r.e.s1)
}

func (r *run) stopTiming(t *timed) error {
	if err := t.end.Record(r.e.s1); err != nil {
		return err
	}
	if err := t.end.Synchronize(); err != nil {
		return fmt.Errorf("running %s on %s: %w", r.p.Name, r.e.dev.Name, err)
	}
	ms, err := cuda.Elapsed(t.start, t.end)
	if err != nil {
		return err
	}
	r.stats.ComputeSeconds = float64(ms) / 1e3
	return nil
}

// lines runs the rows and cols schedules. Narrow lines (no more blocks than
// multiprocessors) go in runs to dp_lines, one launch a run with a
// grid-wide barrier between lines: a launch per line bound them (lookback
// lattice N = 30,000 on an H100: 145 ms, 92 ms in runs). Wide lines keep a
// launch each: a barrier of a thousand blocks cost more than the launch
// (0/1 knapsack capacity 1,000,000: 145 GCUPS a launch per line, 116 in
// runs). Where the plan bounds how far across the line a cell reads, runs
// of lines go to dp_linetiles instead (planLineTiles): each tile of columns
// waits only for the tiles it reads, so a run costs one launch and no
// barrier. Wide lines whose reach is a small share of what one
// multiprocessor owns go to passes of dp_linepass instead (planLinePass):
// a pass of k lines per launch in shared memory, with no waits at all. A
// run ends at a line whose answer cells must be gathered, at the
// end of a staging batch, and after linesPerRun(width) lines so that
// progress and cancellation stay timely.
func (r *run) lines() error {
	pr, e := r.prog, r.e
	cs := r.cellBytes()
	threads := pr.LineThreads
	K := r.ringSlots()
	var slotLimit int64
	if r.keep {
		slotLimit = int64(r.batchLines()) // runs end with the staging batches
	}
	lp, err := r.planLinePass()
	if err != nil {
		return err
	}
	var tl *lineTiles
	if lp == nil {
		if tl, err = r.planLineTiles(threads, slotLimit); err != nil {
			return err
		}
	} else {
		K = max(K, int(lp.k)+pr.Reach) // nothing a pass reads is overwritten in it
		r.trace.Mark(fmt.Sprintf("plan: line passes of %d lines, %d blocks owning %d positions, %d bytes of shared memory", lp.k, lp.blocks, lp.tw, lp.shared))
	}
	if tl != nil {
		if !r.keep {
			K = int(tl.lines) + pr.Reach // nothing a run reads is overwritten in it
		}
		r.trace.Mark(fmt.Sprintf("plan: line tiles, mode %d, %d of %d, waits %d+%d, %d lines a launch, %d a step", tl.mode, tl.n, tl.tw, tl.left, tl.right, tl.lines, tl.depth))
	}
	ring, err := r.alloc("line buffers", int64(K)*pr.Width*cs)
	if err != nil {
		return err
	}
	bar, err := r.alloc("line barrier", 16)
	if err != nil {
		return err
	}
	var flags cuda.DevicePtr
	if tl != nil {
		if flags, err = r.alloc("line tile flags", 4*int64(tl.n+1)); err != nil {
			return err
		}
	}
	one, many := r.mod.funcs[codegen.FuncLine], r.mod.funcs[codegen.FuncLines]
	blocks := ceilDiv(pr.Width, int64(threads))
	// dp_lines needs every block resident at once: no more than both
	// kernels' occupancy allows.
	for _, fn := range []*cuda.Function{one, many} {
		occ, err := fn.MaxActiveBlocksPerSM(threads, 0)
		if err != nil {
			return err
		}
		if occ < 1 {
			return fmt.Errorf("the line kernel cannot run a block of %d threads on %s", threads, e.dev.Name)
		}
		blocks = min(blocks, int64(occ*e.dev.SMs))
	}
	var chain *lineChain
	if lp == nil && tl == nil {
		chain = r.planLineChain(blocks, int64(threads), blocks <= int64(e.dev.SMs))
	}
	if chain != nil {
		if err := chain.allocate(r); err != nil {
			return err
		}
		r.trace.Mark("plan: a row's chained reduction by residue classes (dp_linechain)")
	}
	slots := blocks
	if tl != nil {
		slots = max(slots, int64(tl.blocks))
	}
	if lp != nil {
		slots = max(slots, int64(lp.blocks))
	}
	if err := r.setupAnswer(int(slots)); err != nil {
		return err
	}
	var st *stager
	B := int64(r.batchLines())
	if r.keep {
		if st, err = r.newStager(r.stageBytes(), false); err != nil {
			return err
		}
	}
	r.trace.Mark("staging")
	tm, err := r.startTiming()
	if err != nil {
		return err
	}
	lineBytes := pr.Width * cs
	run := linesPerRun(pr.Width)
	grid, block := [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(threads), 1, 1}
	for L := int64(0); L < pr.Lines; {
		if st != nil && L%B == 0 {
			if err := st.begin(int(L / B)); err != nil {
				return err
			}
		}
		end := L + 1
		switch {
		case lp != nil:
			end = min(pr.Lines, L+lp.k)
		case tl != nil:
			end = min(pr.Lines, L+tl.lines)
		case chain != nil:
		case blocks <= int64(e.dev.SMs):
			end = min(pr.Lines, L+run)
		}
		if st != nil {
			end = min(end, (L/B+1)*B)
		}
		for k := L; k < end; k++ {
			if len(r.capLn[k]) > 0 {
				end = k + 1
				break
			}
		}
		var cr chainRow
		real := L
		if pr.Backward {
			real = pr.Lines - 1 - L
		}
		if chain != nil && end-L == 1 {
			cr = chain.row(real, pr.Width)
		}
		switch {
		case cr.step > 0:
			err = chain.launch(r, L, ring, K, cr, grid, block)
			r.chained++
		case end-L == 1:
			err = e.ctx.Launch(one, grid, block, 0, e.s1, L, ring, int32(K), r.part)
		case lp != nil:
			err = lp.launch(r, L, end, ring, K)
		case tl != nil:
			err = tl.launch(r, L, end, ring, K, flags)
		default:
			if err = e.ctx.Memset32Async(bar, 0, 4, e.s1); err == nil {
				err = e.ctx.Launch(many, grid, block, 0, e.s1, L, end, ring, int32(K), r.part, bar)
			}
		}
		if err != nil {
			return err
		}
		last := end - 1
		if ks := r.capLn[last]; len(ks) > 0 {
			if err := r.gather(ring+cuda.DevicePtr((last%int64(K))*lineBytes), ks); err != nil {
				return err
			}
		}
		if st != nil && (last%B == B-1 || last == pr.Lines-1) {
			n := last / B
			first := n * B
			count := last - first + 1
			src := ring + cuda.DevicePtr((first%int64(K))*lineBytes)
			if err := st.end(int(n), src, count*lineBytes, r.lineScatter(first, count)); err != nil {
				return err
			}
		}
		if err := r.ctx.Err(); err != nil {
			return err
		}
		r.progress(end * pr.Width)
		L = end
	}
	r.trace.Mark("launches")
	if st != nil {
		if err := st.finish(); err != nil {
			return err
		}
	}
	r.trace.Mark("drain")
	return r.stopTiming(tm)
}

// linesPerRun is the most lines of the given width one dp_lines launch
// computes: about 2^28 cells, 1 to 4096 lines.
func linesPerRun(width int64) int64 {
	return min(max((1<<28)/max(width, 1), 1), 4096)
}

// gather launches dp_gather for the captured answer cells ks (indices into
// the line-ordered capture arrays) of the line at ptr.
func (r *run) gather(ptr cuda.DevicePtr, ks []int) error {
	off, n := ks[0], len(ks)
	cs := r.cellBytes()
	return r.e.ctx.Launch(r.mod.funcs[codegen.FuncGather], [3]uint32{uint32((n + 127) / 128), 1, 1}, [3]uint32{128, 1, 1}, 0, r.e.s1,
		ptr, r.capPos+cuda.DevicePtr(8*off), r.capV+cuda.DevicePtr(int64(off)*cs), int32(n))
}

// tiles runs the wavefront with the tile kernel: one launch per tile
// anti-diagonal.
func (r *run) tiles() error {
	pr, e := r.prog, r.e
	cs := r.cellBytes()
	H, err := r.alloc("tile edges", 3*int64(pr.PI)*pr.Cols*cs)
	if err != nil {
		return err
	}
	V, err := r.alloc("tile edges", int64(pr.PJ)*pr.Rows*cs)
	if err != nil {
		return err
	}
	nTI, nTJ := pr.TilesI, pr.TilesJ
	maxTiles := min(nTI, nTJ)
	if err := r.setupAnswer(int(maxTiles)); err != nil {
		return err
	}
	tileBytes := int64(pr.TileH*pr.TileW) * cs
	var st *stager
	half := r.stageBytes()
	if r.keep {
		if st, err = r.newStager(half, true); err != nil {
			return err
		}
	}
	r.trace.Mark("staging")
	tm, err := r.startTiming()
	if err != nil {
		return err
	}
	fn := r.mod.funcs[codegen.FuncTile]
	var batch []tileRun
	var used int64
	nb := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := st.end(nb, st.dev[nb%2], used, r.tileScatter(batch))
		nb++
		batch, used = nil, 0
		return err
	}
	var done int64
	for d := int64(0); d < nTI+nTJ-1; d++ {
		tiLo := max(0, d-(nTJ-1))
		tiHi := min(d, nTI-1)
		count := tiHi - tiLo + 1
		var stage cuda.DevicePtr
		if st != nil {
			if used+count*tileBytes > half {
				if err := flush(); err != nil {
					return err
				}
			}
			if len(batch) == 0 {
				if err := st.begin(nb); err != nil {
					return err
				}
			}
			stage = st.dev[nb%2] + cuda.DevicePtr(used)
			batch = append(batch, tileRun{d: d, tiLo: tiLo, count: count, off: used})
			used += count * tileBytes
		}
		if err := e.ctx.Launch(fn, [3]uint32{uint32(count), 1, 1}, [3]uint32{uint32(pr.TileH), 1, 1}, uint32(pr.TileSharedBytes), e.s1,
			int32(d), int32(tiLo), H, V, stage, r.part, r.capPos, int32(r.capN), r.capV); err != nil {
			return err
		}
		done += count * int64(pr.TileH*pr.TileW)
		if d%checkEvery == checkEvery-1 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			r.progress(done)
		}
	}
	r.trace.Mark("launches")
	if st != nil {
		if err := flush(); err != nil {
			return err
		}
		if err := st.finish(); err != nil {
			return err
		}
	}
	r.trace.Mark("drain")
	return r.stopTiming(tm)
}

// tileRun is one launch of the tile kernel within a maintain batch.
type tileRun struct {
	d, tiLo, count int64
	off            int64 // bytes into the staging buffer
}

// strips runs the wavefront with the strip kernel: one persistent launch,
// polled for progress and cancellation.
func (r *run) strips() error {
	pr, e := r.prog, r.e
	cs := r.cellBytes()
	bnd, err := r.alloc("strip edges", 2*int64(pr.PI)*pr.Cols*cs)
	if err != nil {
		return err
	}
	prog, err := r.alloc("strip progress", 4*pr.Strips+4)
	if err != nil {
		return err
	}
	ticket := prog + cuda.DevicePtr(4*pr.Strips)
	if err := e.ctx.Memset32(prog, 0, pr.Strips+1); err != nil {
		return err
	}
	var kp *keepStrips
	if pr.Keep {
		if kp, err = r.newKeepStrips(); err != nil {
			return err
		}
		r.trace.Mark("keep buffers")
	}
	fn := r.mod.funcs[codegen.FuncStrip]
	threads := 32 * pr.StripWarps
	occ, err := fn.MaxActiveBlocksPerSM(threads, pr.StripSharedBytes)
	if err != nil {
		return err
	}
	if occ < 1 {
		info, _ := fn.Info()
		return fmt.Errorf("the strip kernel of %s cannot run a block of %d threads (%d registers per thread)", r.p.Name, threads, info.Regs)
	}
	// A block sweeps one strip at a time; more blocks than strips idle.
	blocks := min(int64(occ*e.dev.SMs), pr.Strips)
	warps := blocks * int64(pr.StripWarps)
	if err := r.setupAnswer(int(warps)); err != nil {
		return err
	}
	if err := r.zeroStripCaptures(); err != nil {
		return err
	}
	// The host polls the progress flags (columns done per strip) and the
	// ticket for progress, and stops the kernel through dp_abort.
	poll, err := r.hostAlloc(4 * (pr.Strips + 1))
	if err != nil {
		return err
	}
	tm, err := r.startTiming()
	if err != nil {
		return err
	}
	var keep, freed, done cuda.DevicePtr
	var nslots int64
	if kp != nil {
		keep, nslots, freed, done = kp.slots, kp.nslots, kp.freed, kp.doneDev
	}
	// Options.KeepRows: the row -> slot table and the rows' buffer.
	var keepSlot, keepRows cuda.DevicePtr
	nkeep, ncols := int64(len(r.opt.KeepRows)), int64(0)
	if pr.KeepCols {
		ncols = int64(len(r.opt.KeepColumns))
	}
	if pr.KeepRows {
		slots := pr.KeptTable(r.opt.KeepRows, r.opt.KeepColumns)
		if keepSlot, err = r.alloc("kept-row table", 4*int64(len(slots))); err != nil {
			return err
		}
		if err := e.ctx.CopyHtoD(keepSlot, unsafe.Pointer(&slots[0]), 4*int64(len(slots))); err != nil {
			return err
		}
		if keepRows, err = r.alloc("kept rows", max(1, nkeep*pr.Cols+ncols*pr.Rows)*cs); err != nil {
			return err
		}
	}
	args := append([]any{bnd, prog, ticket, r.part, keep, nslots, freed, done, keepSlot, keepRows}, noSplit...)
	r.trace.Mark("buffers")
	if err := e.ctx.Launch(fn, [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(threads), 1, 1}, uint32(pr.StripSharedBytes), e.s1, args...); err != nil {
		return err
	}
	if err := tm.end.Record(e.s1); err != nil {
		return err
	}
	r.trace.Mark("launch")
	// stop makes the kernel end early and waits for it.
	stop := func() error {
		flags := cuda.HostSlice[int32](poll)
		flags[0] = 1
		if err := e.ctx.CopyHtoDAsync(r.mod.globals[codegen.SymAbort], poll.Ptr(), 4, e.s2); err != nil {
			return err
		}
		return tm.end.Synchronize()
	}
	if kp != nil && !r.onDevice {
		if err := kp.drain(r, tm.end); err != nil {
			stop()
			return err
		}
	} else if r.opt.Progress != nil || r.ctx.Done() != nil {
		flags := cuda.HostSlice[int32](poll)
		tick := func() error {
			if err := e.ctx.CopyDtoHAsync(poll.Ptr(), prog, 4*(pr.Strips+1), e.s2); err != nil {
				return err
			}
			if err := e.s2.Synchronize(); err != nil {
				return fmt.Errorf("running %s on %s: %w", r.p.Name, e.dev.Name, err)
			}
			var cols int64
			for _, c := range flags[:pr.Strips] {
				cols += int64(c)
			}
			r.progress(stripCells(pr, cols))
			return nil
		}
		if err := r.awaitKernel(tm.end, tick, func() { stop() }); err != nil {
			return err
		}
	}
	if err := tm.end.Synchronize(); err != nil {
		return fmt.Errorf("running %s on %s: %w", r.p.Name, e.dev.Name, err)
	}
	r.trace.Mark("kernel")
	ms, err := cuda.Elapsed(tm.start, tm.end)
	if err != nil {
		return err
	}
	r.stats.ComputeSeconds = float64(ms) / 1e3
	if r.onDevice {
		r.devGrid = r.keepOnDevice(kp.slots, kp.nslots*slotBytes(pr))
	}
	if pr.KeepRows && nkeep > 0 {
		r.rows = r.opt.NewRows(r.p)
		r.hostBytes += nkeep * pr.Cols * cs
		if err := e.ctx.CopyDtoH(unsafe.Pointer(&r.rows.Bytes()[0]), keepRows, nkeep*pr.Cols*cs); err != nil {
			return fmt.Errorf("copying the kept rows of %s back: %w", r.p.Name, err)
		}
	}
	if ncols > 0 {
		r.cols = backend.NewGrid(r.p.CellType, ncols, pr.Rows)
		r.hostBytes += ncols * pr.Rows * cs
		if err := e.ctx.CopyDtoH(unsafe.Pointer(&r.cols.Bytes()[0]), keepRows+cuda.DevicePtr(nkeep*pr.Cols*cs), ncols*pr.Rows*cs); err != nil {
			return fmt.Errorf("copying the kept columns of %s back: %w", r.p.Name, err)
		}
	}
	return nil
}

// noSplit is the strip kernel's slab and band arguments where the launch
// sweeps the whole grid.
var noSplit = []any{int64(0), int64(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0),
	int64(0), int32(0), int32(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0), cuda.DevicePtr(0)}

// lineOf is the sweep index of the line holding cell (i, j).
func (r *run) lineOf(i, j int64) (line, pos int64) {
	pr := r.prog
	line, pos = i, j
	if pr.Schedule == plan.Cols {
		line, pos = j, i
	}
	if pr.Backward {
		line = pr.Lines - 1 - line
	}
	return line, pos
}

// stripCells is the progress that strips' flags summing to cols stand for:
// the flags count cell columns, and a cell of several tables is a column
// of each (the same rule for one launch, column slabs and row bands).
func stripCells(pr *codegen.Program, cols int64) int64 {
	return cols * pr.StripRows() * int64(max(pr.Tables, 1))
}
