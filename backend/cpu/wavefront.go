package cpu

import (
	"sync"
	"sync/atomic"

	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/plan"
)

// wave is the geometry of a wavefront run.
type wave struct {
	r          *run
	back       bool
	th, tw     int64 // tile size
	ntr, ntc   int64 // tiles per column and per row of the grid
	hTop, hBot int64 // halo rows above and below a tile
	vL, vR     int64 // halo columns left and right
	hD, vD     int64
	bw         int64 // buffer row width
	bh         int64 // buffer rows
	hI         [3][]int64
	hF         [3][]float64
	vI         [3][]int64
	vF         [3][]float64
	dLo, dHi   int64
	done       []atomic.Int64 // per strip: tiles finished (the first ntr of waves)
	bufI       [][]int64      // per worker
	bufF       [][]float64
	lines      [][]eval.Line // per worker
	batch      []eval.Batch
	rows, cols int64
	waves      int64
	isF        bool
}

// wavefront runs the wavefront schedule.
func (r *run) wavefront() error {
	p := r.p
	w := &wave{r: r, back: r.pl.Direction == plan.Backward, rows: p.Rows, cols: p.Cols, isF: r.isF}
	w.dLo, w.dHi = r.rec.Steps()
	before, after := r.rec.LaneReach()
	w.hTop, w.hBot = max(w.dHi, 0), max(-w.dLo, 0)
	w.vL, w.vR = before, after
	w.hD, w.vD = w.hTop+w.hBot, w.vL+w.vR
	// A tile row is one batch, wide enough that the kernels' per-batch work
	// is noise; the tile with its halo fits in a core's L2 cache.
	w.th, w.tw = r.shape().Tile(p.Rows, p.Cols)
	w.ntr = (p.Rows + w.th - 1) / w.th
	w.ntc = (p.Cols + w.tw - 1) / w.tw
	w.waves = w.ntr + w.ntc - 1
	w.bw = w.vL + w.tw + w.vR
	w.bh = w.hTop + w.th + w.hBot
	w.done = make([]atomic.Int64, w.waves)
	r.bytes += 8 * w.waves
	for k := 0; k < 3; k++ {
		if w.isF {
			w.hF[k] = make([]float64, w.hD*p.Cols)
			w.vF[k] = make([]float64, p.Rows*w.vD)
		} else {
			w.hI[k] = make([]int64, w.hD*p.Cols)
			w.vI[k] = make([]int64, p.Rows*w.vD)
		}
	}
	r.bytes += 3 * 8 * (w.hD*p.Cols + p.Rows*w.vD)
	n := r.shape().WaveWorkers(p.Rows, p.Cols)
	w.bufI = make([][]int64, n)
	w.bufF = make([][]float64, n)
	w.lines = make([][]eval.Line, n)
	w.batch = make([]eval.Batch, n)
	for k := 0; k < n; k++ {
		if w.isF {
			w.bufF[k] = tileBuf[float64](&tilesF, w.bh*w.bw)
			defer tilesF.Put(&w.bufF[k])
		} else {
			w.bufI[k] = tileBuf[int64](&tilesI, w.bh*w.bw)
			defer tilesI.Put(&w.bufI[k])
		}
		w.lines[k] = make([]eval.Line, w.dHi-w.dLo+1)
		r.bytes += 8 * w.bh * w.bw
	}
	// Strips (tile rows) are handed out in order from one counter; a
	// worker sweeps its strip tile by tile, each tile waiting (spinning
	// briefly, then blocked) until the strip before has finished the tile
	// after it: the tile above and, through it, the one above-left are
	// then done, and so is every read of the edges the strip before the
	// strip before handed on in the set this strip overwrites. Workers
	// thus run as a pipeline, one tile apart, with no barrier: a worker
	// that is slower or descheduled holds up only the strip after it.
	var next atomic.Int64
	done := w.done[:w.ntr]
	fs := r.floatSum()
	if fs != nil {
		fs.rows, fs.back = make([]float64, p.Rows), w.back
		r.bytes += 8 * p.Rows
	}
	parallel(n, func(k int) {
		for {
			if r.stop.Load() {
				return
			}
			s := next.Add(1) - 1
			if s >= w.ntr {
				return
			}
			for c := int64(0); c < w.ntc; c++ {
				if n > 1 && s > 0 && !r.sleep.wait(&done[s-1], min(c+2, w.ntc)) {
					return
				}
				ti, tj := s, c
				if w.back {
					ti, tj = w.ntr-1-ti, w.ntc-1-tj
				}
				r.safely(func() { w.tile(k, s, ti, tj) })
				if r.stop.Load() {
					return
				}
				r.sleep.add(&done[s], 1)
			}
		}
	})
	if err := r.result(); err != nil {
		return err
	}
	if fs != nil {
		for _, v := range fs.rows {
			fs.total += v
		}
	}
	return nil
}

// tilesI and tilesF hold the tile buffers of finished runs: a batch of
// many small instances otherwise allocated (and collected) a tile per
// instance, the largest part of its garbage.
var tilesI, tilesF sync.Pool

// tileBuf returns a zeroed buffer of n cells from pool, as make would.
func tileBuf[T int64 | float64](pool *sync.Pool, n int64) []T {
	if b, ok := pool.Get().(*[]T); ok && int64(cap(*b)) >= n {
		buf := (*b)[:n]
		clear(buf)
		return buf
	}
	return make([]T, n)
}

// tile computes one tile: fills its halo from the wave buffers, computes
// it row by row, and hands its edges on.
func (w *wave) tile(k int, s, ti, tj int64) {
	r := w.r
	if r.stopped() {
		return
	}
	i0, i1 := ti*w.th, min((ti+1)*w.th, w.rows)
	j0, j1 := tj*w.tw, min((tj+1)*w.tw, w.cols)
	th, tw := i1-i0, j1-j0
	// The edges a strip hands on go to set s%3: the strip after reads
	// them; the columns a tile hands to the next tile of its strip stay in
	// the strip's own set.
	cur, above := s%3, (s+2)%3
	firstRow, firstCol := ti == 0, tj == 0
	if w.back {
		firstRow, firstCol = ti == w.ntr-1, tj == w.ntc-1
	}
	// copyRow copies n cells between two slices of the worker's class.
	var bi []int64
	var bf []float64
	if w.isF {
		bf = w.bufF[k]
	} else {
		bi = w.bufI[k]
	}
	cp := func(dst int64, src int64, n int64, fromWave [3][]int64, fromWaveF [3][]float64, which int64, toWave bool) {
		if n <= 0 {
			return
		}
		if w.isF {
			if toWave {
				copy(fromWaveF[which][src:src+n], bf[dst:dst+n])
			} else {
				copy(bf[dst:dst+n], fromWaveF[which][src:src+n])
			}
			return
		}
		if toWave {
			copy(fromWave[which][src:src+n], bi[dst:dst+n])
		} else {
			copy(bi[dst:dst+n], fromWave[which][src:src+n])
		}
	}
	// Buffer row q holds grid row i0-hTop+q; buffer column c grid column
	// j0-vL+c.
	brow := func(i int64) int64 { return (i - i0 + w.hTop) * w.bw }
	bcol := func(j int64) int64 { return j - j0 + w.vL }
	if !w.back {
		if w.hTop > 0 && !firstRow {
			for q := int64(0); q < w.hTop; q++ {
				i := i0 - w.hTop + q
				cp(brow(i)+bcol(j0), q*w.cols+j0, tw, w.hI, w.hF, above, false)
				if w.vL > 0 && !firstCol {
					cp(brow(i)+bcol(j0-w.vL), q*w.cols+j0-w.vL, w.vL, w.hI, w.hF, above, false)
				}
			}
		}
		if w.vL > 0 && !firstCol {
			for i := i0; i < i1; i++ {
				cp(brow(i)+bcol(j0-w.vL), i*w.vD, w.vL, w.vI, w.vF, cur, false)
			}
		}
	} else {
		if w.hBot > 0 && !firstRow {
			for q := int64(0); q < w.hBot; q++ {
				i := i1 + q
				cp(brow(i)+bcol(j0), q*w.cols+j0, tw, w.hI, w.hF, above, false)
				if w.vR > 0 && !firstCol {
					cp(brow(i)+bcol(j1), q*w.cols+j1, w.vR, w.hI, w.hF, above, false)
				}
			}
		}
		if w.vR > 0 && !firstCol {
			for i := i0; i < i1; i++ {
				cp(brow(i)+bcol(j1), i*w.vD, w.vR, w.vI, w.vF, cur, false)
			}
		}
	}

	wk := r.workers[k]
	rowSegs := split(i0, i1-1, w.rows, 2)
	colSegs := split(j0, j1-1, w.cols, 64)
	b := &w.batch[k]
	b.Lines = w.lines[k]
	for rr := int64(0); rr < th; rr++ {
		i := i0 + rr
		if w.back {
			i = i1 - 1 - rr
		}
		b.Step = i
		for d := w.dLo; d <= w.dHi; d++ {
			at := brow(i - d)
			l := &b.Lines[d-w.dLo]
			l.Base = j0 - w.vL
			if w.isF {
				l.F = bf[at : at+w.bw]
			} else {
				l.I = bi[at : at+w.bw]
			}
		}
		out := &b.Lines[-w.dLo]
		rs := rowSegs.seg(i)
		for c := 0; c < colSegs.n; c++ {
			cs := colSegs.s[c]
			if w.back {
				cs = colSegs.s[colSegs.n-1-c]
			}
			kern, err := wk.kernel(rs[0], rs[1], cs[0], cs[1])
			if err != nil {
				r.fail(err)
				return
			}
			width := cs[1] - cs[0] + 1
			lanes := r.tune.lanes
			for q := int64(0); q < width; q += lanes {
				l0 := cs[0] + q
				if w.back {
					l0 = max(cs[0], cs[1]+1-q-lanes)
				}
				b.Lane0 = l0
				b.N = int(min(lanes, width-q))
				if err := wk.m.Run(kern, b); err != nil {
					r.fail(err)
					return
				}
				wk.sink(b, out)
			}
		}
	}

	// Hand the edges on: the rows the next tile row reads and the columns
	// the next tile column reads.
	if !w.back {
		for q := int64(0); q < w.hTop; q++ {
			i := i1 - w.hTop + q
			cp(brow(i)+bcol(j0), q*w.cols+j0, tw, w.hI, w.hF, cur, true)
		}
		for i := i0; i < i1 && w.vL > 0; i++ {
			cp(brow(i)+bcol(j1-w.vL), i*w.vD, w.vL, w.vI, w.vF, cur, true)
		}
	} else {
		for q := int64(0); q < w.hBot; q++ {
			i := i0 + q
			cp(brow(i)+bcol(j0), q*w.cols+j0, tw, w.hI, w.hF, cur, true)
		}
		for i := i0; i < i1 && w.vR > 0; i++ {
			cp(brow(i)+bcol(j0), i*w.vD, w.vR, w.vI, w.vF, cur, true)
		}
	}
	r.progress(th * tw)
}
