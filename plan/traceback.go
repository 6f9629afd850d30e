package plan

import (
	"fmt"
	"math"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
)

// DefaultTraceMemory is the memory a traceback may keep when the user
// gives no `--traceback-memory`: enough for the whole grid of most
// problems people trace interactively (a 7,000² int grid), small enough
// that aligning two virus genomes (30,000², a 3.6 GB grid) stays a few
// hundred megabytes.
const DefaultTraceMemory = 192 << 20

// TraceLayout is how a traceback keeps the grid: whole, or as checkpoint
// rows from which bands of rows are recomputed as the walk needs them.
type TraceLayout struct {
	// Whole: the whole grid is kept (it fits the budget, or the
	// recurrence has no band decomposition; Why says which).
	Whole bool
	Why   string
	// Device: the engine kept the whole grid in the memory of the GPU
	// that computed it and read back the tiles the walk crossed — not a
	// layout Traceback chooses, but the one a run reports when its
	// executor could (backend.OnDevice).
	Device bool
	// DeviceBands: the bands are kept, one at a time, in the memory of
	// the GPU that computes them (backend.Options.KeepOnDevice) rather
	// than on the host — set by the engine where the grid is larger than
	// the GPU's memory but a band of a useful height fits it (DeviceBands
	// sizes them).
	DeviceBands bool
	// Nested: two levels of checkpoints. A band of Band rows is too large
	// to keep even on its own: each is traced back in bands of its own
	// (Traceback, or DeviceBands with DeviceFree, within SubBudget) —
	// what a grid of millions of rows and columns needs.
	Nested     bool
	SubBudget  int64
	DeviceFree int64
	// SubSwapped: a nested band is traced back transposed — its columns
	// as rows (a band of a wide grid is short and wide; transposed, its
	// checkpoint rows are short and its bands many rows tall). Chosen
	// where the references reach a bounded number of columns to the left
	// and it needs less memory.
	SubSwapped bool
	// Band is the height of a band in rows (the first band has what is
	// left over: at least Reach rows, fewer than Band + Reach): the
	// forward pass runs the grid band
	// by band and keeps the last Reach rows of each (the rows the next
	// band reads); the walk back recomputes, from those, each band it
	// enters, up to about the column it entered at when references read
	// no column to the right (Narrow).
	Band, Reach int64
	Bands       int64
	Narrow      bool
	// Bytes is what the traceback keeps at most: the checkpoint rows and
	// one band with its given rows, as cells, plus the boundary input
	// (8 bytes a value) of the band being run.
	Bytes int64
	// Spill: the checkpoint rows go to a temporary file (os.TempDir(),
	// SpillBytes of them) and are read back as the walk enters their
	// bands; the memory holds one band (Bytes). The last resort, where
	// neither one level nor two of checkpoints fit the memory.
	Spill      bool
	SpillBytes int64
	// Blocks: checkpoint columns as well as rows (CUDAlign's special rows
	// and columns), kept by the forward pass, one run of the whole grid
	// (backend.Options.KeepRows and KeepColumns): the grid is cut into
	// blocks of Band rows and BlockCols columns (the first band and the
	// first column of blocks take what is left over), and the walk
	// recomputes only the blocks it enters, from the rows above and the
	// ColReach columns left of each: in GPU memory (DeviceBlocks, which
	// sets DeviceBlocks), or on the host (HostBlocks).
	Blocks, DeviceBlocks bool
	BlockCols, ColReach  int64
	ColBlocks            int64
	// Recompute is how many cells the run computes, at most, over the
	// grid's: 1 for a whole grid, up to 2 + Reach/Band with bands (every
	// band once more, with its given rows, when the walk crosses it), 3 +
	// Reach/Band where Narrow (see bandsRecompute), one more with two
	// levels.
	Recompute float64
}

// Traceback chooses how a traceback of p, planned as pl, keeps the grid
// within budget bytes (DefaultTraceMemory when budget <= 0).
//
// The whole grid when it fits. Otherwise, when every reference reads a
// row at most Reach rows above (or its own row) — alignments, LCS,
// knapsacks, lattices, several tables, 3-D grids (whose rows are planes)
// — bands of rows: the largest band for which the checkpoints and one
// band fit the budget (fewer bands cost less per band, and on a GPU each
// band is a kernel run), whatever schedule runs each band. Interval DP
// reads rows below its own: it keeps the whole triangle. A grid of one
// row has nothing to split. An error when even the best band height
// needs more than the budget: it names what would do.
func Traceback(p *ir.Problem, pl *Plan, budget int64) (TraceLayout, error) {
	budget = TraceBudget(budget)
	whole := GridBytes(p)
	if whole <= budget {
		return TraceLayout{Whole: true, Why: fmt.Sprintf("the whole grid (%s) fits the traceback memory (%s)", hostmem.Bytes(whole), hostmem.Bytes(budget)), Bytes: whole, Recompute: 1}, nil
	}
	reach, why := rowReach(p, pl)
	if why != "" {
		return TraceLayout{Whole: true, Why: why, Bytes: whole, Recompute: 1}, nil
	}
	narrow := readsNoColumnRight(p, pl)
	n := p.Rows
	cost := bandsCost(p.CellType, n, p.Cols, reach)
	// The checkpoints shrink and the band grows with k: above the least
	// total the cost only grows, so the largest k within budget is found
	// by bisection.
	lo := leastBand(n, reach, cost)
	if cost(lo) > budget {
		if two, ok := twoLevels(p, pl, reach, narrow, budget, func(rows, cols, reach int64) int64 {
			c := bandsCost(p.CellType, rows, cols, reach)
			return c(leastBand(rows, reach, c))
		}); ok {
			return two, nil
		}
		if sp, ok := spilled(p, reach, narrow, budget); ok {
			return sp, nil
		}
		return TraceLayout{}, fmt.Errorf("a traceback of the %s needs %s in linear memory (checkpoints every %d rows and one band; two levels need more too, and so does one band with the checkpoints in a temporary file), more than the traceback memory (%s): raise --traceback-memory", p.GridText(), hostmem.Bytes(cost(lo)), lo, hostmem.Bytes(budget))
	}
	hi := n
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if cost(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	k := lo
	bands := bandCount(n, k, reach)
	return TraceLayout{
		Why:       fmt.Sprintf("the whole grid (%s) is over the traceback memory (%s): checkpoints every %d rows", hostmem.Bytes(whole), hostmem.Bytes(budget), k),
		Band:      k,
		Reach:     reach,
		Bands:     bands,
		Narrow:    narrow,
		Bytes:     cost(k),
		Recompute: bandsRecompute(reach, k, narrow),
	}, nil
}

// spilled is the layout of last resort (TraceLayout.Spill): the
// checkpoint rows in a temporary file, the memory holding the tallest band
// (with its given rows and their input) that fits budget; false where not
// even a band of one row does.
func spilled(p *ir.Problem, reach int64, narrow bool, budget int64) (TraceLayout, bool) {
	row := p.Cols * int64(p.CellType.Size())
	band := func(k int64) int64 { return (k+reach)*row + reach*p.Cols*8 }
	if band(1) > budget {
		return TraceLayout{}, false
	}
	k := min((budget-reach*p.Cols*8)/row-reach, p.Rows)
	bands := bandCount(p.Rows, k, reach)
	disk := (bands - 1) * reach * row
	return TraceLayout{
		Why:        fmt.Sprintf("the whole grid (%s) is over the traceback memory (%s), and so are one and two levels of checkpoints: checkpoints every %d rows in a temporary file (%s), one band in memory", hostmem.Bytes(GridBytes(p)), hostmem.Bytes(budget), k, hostmem.Bytes(disk)),
		Band:       k,
		Reach:      reach,
		Bands:      bands,
		Narrow:     narrow,
		Bytes:      band(k),
		Spill:      true,
		SpillBytes: disk,
		Recompute:  bandsRecompute(reach, k, narrow),
	}, true
}

// bandsRecompute is TraceLayout.Recompute of bands of k rows kept on the
// host: the forward pass, and every band once more with its given rows
// when the walk crosses it. Where the walk only moves left (narrow), a
// band recomputed for it keeps a window of its columns near the walk, and
// all of them if the walk leaves that window (backend/checkpoint): twice
// at most.
func bandsRecompute(reach, k int64, narrow bool) float64 {
	r := 2 + float64(reach)/float64(k)
	if narrow {
		r++
	}
	return r
}

// bandCount is how many bands of k rows hold rows rows when the first
// band takes what is left over and must have at least reach rows: the
// rows every later band is given from above it (a first band shorter
// than that would leave the second reading rows above the grid). The
// first band then has fewer than k + reach rows: no more memory than any
// other band with its given rows.
func bandCount(rows, k, reach int64) int64 {
	if rows <= reach {
		return 1
	}
	return (rows-reach)/k + 1
}

// TraceBudget is the traceback memory budget stands for: itself, or
// DefaultTraceMemory when it is not positive (not given).
func TraceBudget(budget int64) int64 {
	if budget <= 0 {
		return DefaultTraceMemory
	}
	return budget
}

// bandsCost is the memory of tracing back rows x cols cells of type t in
// bands of k rows, as a function of k: the rows kept between the bands,
// one band with its given rows, and the given rows as an input (8 bytes
// a value).
func bandsCost(t ir.Type, rows, cols, reach int64) func(k int64) int64 {
	row := cols * int64(t.Size())
	return func(k int64) int64 {
		bands := bandCount(rows, k, reach)
		return (bands-1)*reach*row + (k+reach)*row + reach*cols*8
	}
}

// leastBand is the band height of least cost for rows rows: near
// sqrt(rows*reach), where the checkpoints' share and the band's meet.
func leastBand(rows, reach int64, cost func(k int64) int64) int64 {
	k := max(1, min(int64(math.Sqrt(float64(rows)*float64(reach))), rows))
	for k > 1 && cost(k-1) < cost(k) {
		k--
	}
	for k < rows && cost(k+1) < cost(k) {
		k++
	}
	return k
}

// rowReach is how many rows above its own a cell may read, when every
// reference reads its own row or one at a bounded distance above; else
// why the grid cannot be split into bands of rows.
func rowReach(p *ir.Problem, pl *Plan) (int64, string) {
	if p.Rows < 2 {
		return 0, "a grid of one row has no bands to recompute"
	}
	reach, bad := maxBack(pl, func(d *Dependency) analysis.Range { return d.RangeI })
	if bad != nil {
		return 0, fmt.Sprintf("%s reads rows below its own or unboundedly far above, so the grid cannot be recomputed in bands of rows", bad.Ref.Text)
	}
	if reach >= p.Rows {
		return 0, fmt.Sprintf("references reach %d rows back, the whole grid", reach)
	}
	return reach, ""
}

// readsNoColumnRight reports whether every reference reads its own
// column or one to the left, so that a band recomputed for a walk that
// entered it at column j needs no column beyond j. A 3-D grid's columns
// are planes of cells (the lowering's), so it is never narrowed. For the
// cells of T tables (Plan.Cells), columns are whole cells, j*T + table: a
// reference may read a later table of its own cell or of one to the left,
// up to T-1 flat columns to the right, and a band cut after a whole cell
// (the walk's bands are) still holds all it reads.
func readsNoColumnRight(p *ir.Problem, pl *Plan) bool {
	if p.Dims == 3 {
		return false
	}
	right := int64(0) // how far right of its own flat column a reference may read
	if pl.Cells > 1 && int64(len(p.Tables)) == pl.Cells {
		right = pl.Cells - 1
	}
	for _, d := range pl.Deps {
		if d.RangeJ.Lo < -right {
			return false
		}
	}
	return true
}

// DeviceBands is the layout of a traceback whose bands are kept, one at a
// time, in the memory of the GPU that computes them (TraceLayout.DeviceBands):
// for a grid larger than the GPU's free memory deviceFree. A band takes
// at most half of it (the run's other buffers, its inputs and its given
// rows, take the rest), so the bands are few and tall — a GPU sweeps a
// tall band at full speed — and the host keeps only the rows between
// them, which must fit budget bytes (DefaultTraceMemory when budget <=
// 0). An error when the recurrence cannot be cut into bands of rows, when
// not even a band of one row fits the GPU, or when the rows between the
// bands do not fit the budget (two levels of checkpoints would; not
// built).
func DeviceBands(p *ir.Problem, pl *Plan, deviceFree, budget int64) (TraceLayout, error) {
	budget = TraceBudget(budget)
	reach, why := rowReach(p, pl)
	if why != "" {
		return TraceLayout{}, fmt.Errorf("%s", why)
	}
	cell := int64(p.CellType.Size())
	row := p.Cols * cell
	k := deviceFree/2/row - reach
	if k < 1 {
		return TraceLayout{}, fmt.Errorf("not even a band of one row of the %s fits in GPU memory (%s free)", p.GridText(), hostmem.Bytes(deviceFree))
	}
	k = min(k, p.Rows)
	bands := bandCount(p.Rows, k, reach)
	host := (bands-1)*reach*row + reach*p.Cols*8
	if host > budget {
		two, ok := twoLevels(p, pl, reach, readsNoColumnRight(p, pl), budget, func(rows, cols, reach int64) int64 {
			// As DeviceBands lays out a band of rows x cols.
			row := cols * cell
			k := deviceFree/2/row - reach
			if k < 1 {
				return math.MaxInt64
			}
			return (bandCount(rows, min(k, rows), reach)-1)*reach*row + reach*cols*8
		})
		if ok {
			two.DeviceBands, two.DeviceFree = true, deviceFree
			two.Why += fmt.Sprintf(", in GPU memory (%s free)", hostmem.Bytes(deviceFree))
			return two, nil
		}
		if input := reach * p.Cols * 8; input <= budget {
			// The rows between the bands in a temporary file; the host
			// holds a band's given rows as it runs.
			return TraceLayout{
				Why:         fmt.Sprintf("the whole grid (%s) is over the GPU's free memory (%s): %d bands of %d rows, one at a time in GPU memory, the rows between them (%s) in a temporary file: over the traceback memory (%s) even in two levels", hostmem.Bytes(GridBytes(p)), hostmem.Bytes(deviceFree), bands, k, hostmem.Bytes(host-input), hostmem.Bytes(budget)),
				Band:        k,
				Reach:       reach,
				Bands:       bands,
				Narrow:      readsNoColumnRight(p, pl),
				Bytes:       input + reach*row,
				Recompute:   2 + float64(reach)/float64(k),
				DeviceBands: true,
				Spill:       true,
				SpillBytes:  host - input,
			}, nil
		}
		return TraceLayout{}, fmt.Errorf("a traceback of the %s in bands of %d rows on the GPU keeps %s of rows between them on the host, more than the traceback memory (%s), even in two levels or in a temporary file: raise --traceback-memory", p.GridText(), k, hostmem.Bytes(host), hostmem.Bytes(budget))
	}
	return TraceLayout{
		Why:         fmt.Sprintf("the whole grid (%s) is over the GPU's free memory (%s): %d bands of %d rows, one at a time in GPU memory", hostmem.Bytes(GridBytes(p)), hostmem.Bytes(deviceFree), bands, k),
		Band:        k,
		Reach:       reach,
		Bands:       bands,
		Narrow:      readsNoColumnRight(p, pl),
		Bytes:       host,
		Recompute:   2 + float64(reach)/float64(k),
		DeviceBands: true,
	}, nil
}

// DeviceBlocks is the layout of a traceback in blocks (TraceLayout.Blocks)
// on a GPU with deviceFree bytes free whose executor keeps chosen columns
// with its chosen rows: for a 2-D grid of one table, swept forward, whose
// references read at most a bounded number of rows and columns back and
// none forward. Square blocks, of the side for which the checkpoint rows
// and columns take at most half of budget (the walk's own memory takes
// the rest), and at least 64 cells; a block, kept in GPU memory while
// the walk crosses it, takes at most half of deviceFree, as do the
// checkpoints while the forward pass keeps them on the GPU. The walk
// recomputes about Rows*BlockCols + Cols*Band cells (the blocks along a
// path), a few percent of a large grid. An error says why where it does
// not apply.
func DeviceBlocks(p *ir.Problem, pl *Plan, deviceFree, budget int64) (TraceLayout, error) {
	budget = TraceBudget(budget)
	lay, err := blocks(p, pl, budget, 64)
	if err != nil {
		return lay, err
	}
	h, c, cell := lay.Band, lay.BlockCols, int64(p.CellType.Size())
	blockBytes := (h + lay.Reach) * (c + lay.ColReach) * cell
	if blockBytes > deviceFree/2 || lay.Bytes > deviceFree/2 {
		return TraceLayout{}, fmt.Errorf("a block of %d x %d cells (%s) or the checkpoints (%s) are over half the GPU's free memory (%s)", h, c, hostmem.Bytes(blockBytes), hostmem.Bytes(lay.Bytes), hostmem.Bytes(deviceFree))
	}
	// A block's given rows and columns go to the GPU as inputs (8 bytes a
	// value) while it runs.
	lay.Bytes += (lay.Reach*(c+lay.ColReach) + lay.ColReach*(h+lay.Reach)) * 8
	lay.DeviceBlocks = true
	lay.Why = fmt.Sprintf("the whole grid (%s) is over the GPU's free memory (%s): blocks of %d x %d cells, the forward pass keeping the rows and columns between them (%s), the walk recomputing in GPU memory the blocks it enters",
		hostmem.Bytes(GridBytes(p)), hostmem.Bytes(deviceFree), h, c, hostmem.Bytes(lay.Bytes))
	return lay, nil
}

// HostBlocks is the layout of a traceback in blocks (TraceLayout.Blocks)
// on the host, for an executor that keeps chosen columns with its chosen
// rows, where the whole grid is over budget; for the recurrences
// DeviceBlocks takes. The blocks' checkpoints take at most half of
// budget, and the two blocks in memory at once (the one the walk
// crosses, the next computed ahead of it) the other half. Blocks are at
// least an eighth of the grid's mean side, between 64 and 512 cells (more
// where the checkpoints need it): every block the walk enters costs a run
// — its problem, its plan, its threads started — and writes every cell,
// a block of 512² about a third of a millisecond each on two cores
// (measured on SARS-CoV-2 x SARS-CoV: blocks of 512, 1,024 and 2,048
// cells a side traced back in 0.19, 0.20 and 0.24 s against 0.10 s
// score-only). Against bands, the walk recomputes a few percent of the
// grid instead of about half of it.
func HostBlocks(p *ir.Problem, pl *Plan, budget int64) (TraceLayout, error) {
	budget = TraceBudget(budget)
	if GridBytes(p) <= budget {
		return TraceLayout{}, fmt.Errorf("the whole grid fits the traceback memory")
	}
	least := int64(math.Sqrt(float64(p.Rows)*float64(p.Cols))) / 8
	lay, err := blocks(p, pl, budget, min(max(least, 64), 512))
	if err != nil {
		return lay, err
	}
	h, c, cell := lay.Band, lay.BlockCols, int64(p.CellType.Size())
	blockBytes := (h+lay.Reach)*(c+lay.ColReach)*cell + (lay.Reach*(c+lay.ColReach)+lay.ColReach*(h+lay.Reach))*8
	if 2*blockBytes > budget-lay.Bytes {
		return TraceLayout{}, fmt.Errorf("two blocks of %d x %d cells (%s each) and the checkpoints (%s) are over the traceback memory (%s)", h, c, hostmem.Bytes(blockBytes), hostmem.Bytes(lay.Bytes), hostmem.Bytes(budget))
	}
	lay.Bytes += 2 * blockBytes
	lay.Why = fmt.Sprintf("the whole grid (%s) is over the traceback memory (%s): blocks of %d x %d cells, the forward pass keeping the rows and columns between them, the walk recomputing the blocks it enters",
		hostmem.Bytes(GridBytes(p)), hostmem.Bytes(budget), h, c)
	return lay, nil
}

// blocks is the layout in blocks, of the least side from least up (by
// steps of an eighth) whose checkpoint rows and columns fit half of
// budget, without the memory of the blocks themselves (Bytes: the
// checkpoints) and without Why: DeviceBlocks and HostBlocks add them.
func blocks(p *ir.Problem, pl *Plan, budget, least int64) (TraceLayout, error) {
	if p.Dims != 2 || len(p.Tables) > 1 || pl.Schedule != Wavefront || pl.Direction == Backward {
		return TraceLayout{}, fmt.Errorf("blocks are for the forward wavefronts of one 2-D table")
	}
	reach, why := rowReach(p, pl)
	if why != "" {
		return TraceLayout{}, fmt.Errorf("%s", why)
	}
	creach, ok := colReach(p, pl) // (none reads a column to its right)
	if !ok || p.Cols < 2 {
		return TraceLayout{}, fmt.Errorf("a reference reads columns to the right, or unboundedly far left")
	}
	cell := int64(p.CellType.Size())
	keep := func(h, c int64) int64 {
		return (bandCount(p.Rows, h, reach)-1)*reach*p.Cols*cell + (bandCount(p.Cols, c, creach)-1)*creach*p.Rows*cell
	}
	side := least
	for keep(min(side, p.Rows), min(side, p.Cols)) > budget/2 {
		if side >= p.Rows && side >= p.Cols {
			return TraceLayout{}, fmt.Errorf("the checkpoints of blocks do not fit the traceback memory (%s)", hostmem.Bytes(budget))
		}
		side += max(side/8, 1)
	}
	h, c := min(side, p.Rows), min(side, p.Cols)
	if h >= p.Rows && c >= p.Cols {
		return TraceLayout{}, fmt.Errorf("one block would be the whole grid")
	}
	again := float64(p.Rows*(c+creach)+p.Cols*(h+reach)) / float64(p.Rows) / float64(p.Cols)
	return TraceLayout{
		Band:      h,
		Reach:     reach,
		Bands:     bandCount(p.Rows, h, reach),
		BlockCols: c,
		ColReach:  creach,
		ColBlocks: bandCount(p.Cols, c, creach),
		Narrow:    true,
		Bytes:     keep(h, c),
		Recompute: 1 + min(again, 1),
		Blocks:    true,
	}, nil
}

// twoLevels is the nested layout (TraceLayout.Nested) for a grid whose
// single level of checkpoints is over budget: half the budget for the
// rows between the bands of the first level, as few bands as that allows,
// and the other half for tracing one band back in bands of its own, whose
// least cost for a band of r rows is sub(r). A region answer is read from
// every cell as the bands pass, which a nested band cannot give cheaply:
// none for it.
func twoLevels(p *ir.Problem, pl *Plan, reach int64, narrow bool, budget int64, sub func(rows, cols, reach int64) int64) (TraceLayout, bool) {
	if pl.Answer.Kind == AnswerRegion {
		return TraceLayout{}, false
	}
	row := p.Cols * int64(p.CellType.Size())
	half := budget / 2
	bands := half/(reach*row) + 1
	if bands < 2 {
		return TraceLayout{}, false
	}
	k := (p.Rows + bands - 1) / bands
	bands = bandCount(p.Rows, k, reach)
	// A band (at most k + reach rows with its given ones, the first
	// band too) as it is, or transposed where its columns reach back a
	// bounded distance, whichever keeps less.
	cost, swapped := sub(k+reach, p.Cols, reach), false
	if creach, ok := colReach(p, pl); ok && k+reach < p.Cols {
		if c := sub(p.Cols, k+reach, creach); c < cost {
			cost, swapped = c, true
		}
	}
	if cost > half {
		return TraceLayout{}, false
	}
	how := "in bands of its own"
	if swapped {
		how = "transposed, in bands of its own columns"
	}
	return TraceLayout{
		Why:        fmt.Sprintf("the whole grid (%s) is over the traceback memory (%s), and so is one level of checkpoints: two levels, checkpoints every %d rows, each band traced back %s", hostmem.Bytes(GridBytes(p)), hostmem.Bytes(budget), k, how),
		Band:       k,
		Reach:      reach,
		Bands:      bands,
		Narrow:     narrow,
		Bytes:      (bands-1)*reach*row + cost,
		Recompute:  1 + bandsRecompute(0, 1, narrow),
		Nested:     true,
		SubBudget:  half,
		SubSwapped: swapped,
	}, true
}

// colReach is how many columns to the left of its own a cell may read,
// when every reference reads its own column or one at a bounded distance
// to the left: the reach of p's bands transposed (whose rows are p's
// columns; the caller has its rows' reach). Only for 2-D grids of one
// table (several tables share a row's columns).
func colReach(p *ir.Problem, pl *Plan) (int64, bool) {
	if p.Dims != 2 || len(p.Tables) > 1 {
		return 0, false
	}
	reach, bad := maxBack(pl, func(d *Dependency) analysis.Range { return d.RangeJ })
	return reach, bad == nil && reach < p.Cols
}

// maxBack is the farthest back (at least 1) that pl's references read
// along the axis whose offset range axis gives; bad is a reference that
// reads forward along it or unboundedly far back.
func maxBack(pl *Plan, axis func(d *Dependency) analysis.Range) (reach int64, bad *Dependency) {
	reach = 1
	for k := range pl.Deps {
		r := axis(&pl.Deps[k])
		if r.Lo < 0 || r.Hi == math.MaxInt64 {
			return 0, &pl.Deps[k]
		}
		reach = max(reach, r.Hi)
	}
	return reach, nil
}
