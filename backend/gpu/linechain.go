package gpu

import (
	"fmt"
	"math"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/ir"
)

// A rows program whose reduction chains (codegen.Program.Chain: the
// unbounded knapsack's max over k in 0..w / wt[i-1] of cell[i-1][w -
// k*wt[i-1]] + k*val[i-1]) computes its wide rows with dp_linechain: a
// thread takes a residue class of the row's columns modulo the row's step
// S in order, each column's reduction one term on top of the column S
// before (codegen/chain.go), where dp_line's threads, a column each, run
// every term (w / S + 1 of them). A class longer than the threads need is
// cut into segments: where the reduction is a case's whole value
// (analysis.ChainAlone), a first launch sums each segment alone and the
// second starts each from the sums before it (no loop); else a segment's
// first column runs the loop (chainSegs bounds their share).

// lineChain is what dp_linechain needs of a run: the kernel, the chain's
// step and increment as the recurrence writes them, and the threads of a
// launch.
type lineChain struct {
	fn      *cuda.Function
	step    ir.Expr
	inc     ir.Expr
	isMax   bool
	fhi     int64 // the reduction's finite range
	alone   bool  // analysis.ChainAlone: two launches may serve a row
	threads int64
	maxSegs int64   // 0: chainSegs chooses
	tauRate float64 // chainSegs' τ*R (0: chainTauRate)
	// twoFrom is the shortest class two launches serve (0:
	// chainTwoPassFrom; -1: never).
	twoFrom int64
	agg     cuda.DevicePtr // the first launch's sums (allocate; plan.Memory counts them)
}

// planLineChain is the chain of a rows program that has one, launched
// with blocks of threads; nil where there is none, or the lines are
// narrow (dp_lines' runs serve them better: narrow == blocks do not fill
// the multiprocessors).
func (r *run) planLineChain(blocks, threads int64, narrow bool) *lineChain {
	if !r.prog.Chain || (narrow && !r.e.cfg.chainNarrow) {
		return nil
	}
	fn := r.mod.funcs[codegen.FuncLineChain]
	red, ch, ok := analysis.ClassChain(r.p)
	if fn == nil || !ok {
		return nil
	}
	_, fhi := ir.FiniteRange(red.T)
	return &lineChain{fn: fn, step: ch.S, inc: ch.V, isMax: red.Op == ir.ReduceMax, fhi: fhi, alone: analysis.ChainAlone(r.p, red),
		threads: blocks * threads, maxSegs: r.e.cfg.chainSegs, tauRate: r.e.cfg.chainTauRate, twoFrom: r.e.cfg.chainTwoFrom}
}

// rowValue is e, of the row alone, at row i; ok false where it does not
// evaluate to an integer.
func rowValue(e ir.Expr, i int64) (int64, bool) {
	v, err := eval.EvalAt(e, i, 0, func(i, j int64) (ir.Value, error) {
		return ir.Value{}, fmt.Errorf("the chain's step and increment read no cell")
	})
	if err != nil || v.T.IsFloat() {
		return 0, false
	}
	return v.I, true
}

// chainRow is how dp_linechain computes one row: its step and increment,
// segments a class, and whether in two launches; step 0 where dp_line
// serves the row instead (the step or increment does not evaluate there,
// the step is below 1, or the increment's sign is not the reduction's —
// a max gaining less with every copy — so that the chain could take no
// step).
type chainRow struct {
	step, inc, segs int64
	two             bool
}

func (c *lineChain) row(i, width int64) chainRow {
	s, ok := rowValue(c.step, i)
	if !ok || s < 1 {
		return chainRow{}
	}
	v, ok := rowValue(c.inc, i)
	if !ok || (c.isMax && v < 0) || (!c.isMax && v > 0) {
		return chainRow{}
	}
	length := ceilDiv(width, s)
	from := c.twoFrom
	if from == 0 {
		from = chainTwoPassFrom
	}
	if c.alone && c.agg != 0 && from > 0 && length >= from {
		// 2*length/segs + segs steps a class: least at sqrt(2*length).
		segs := min(int64(math.Round(math.Sqrt(2*float64(length)))), length)
		if c.maxSegs > 0 {
			segs = min(segs, c.maxSegs)
		}
		if segs > 1 {
			return chainRow{step: s, inc: v, segs: segs, two: true}
		}
	}
	return chainRow{step: s, inc: v, segs: chainSegs(s, width, c.threads, c.maxSegs, c.tauRate)}
}

// chainTwoPassFrom is the shortest class (columns of a residue) that two
// launches serve: below it one launch, whose segments' first columns run
// the loop. Measured on an H200 (docs/performance.md), the unbounded
// knapsack of 10,000 x 1,000,000 (steps 1 to 300,000) took 0.181 s in one
// launch a row, 0.223 s with two launches from 8 columns a class, 0.138 s
// from 24, 0.135 s from 64; the Pisinger file knapPI_1_10000_1000_1
// (steps up to 1,000 in rows of 49,878) 0.667 s in one launch, 0.251-0.253
// s from any of them.
const chainTwoPassFrom = 64

// allocate makes the first launch's sums where two launches may serve a
// row: every segment's but a class's last, fewer than min(S, width) *
// sqrt(2 * width / S) <= sqrt(2) * width.
func (c *lineChain) allocate(r *run) error {
	if !c.alone || c.twoFrom < 0 {
		return nil
	}
	var err error
	c.agg, err = r.alloc("chained reductions' segment sums", 8*(2*r.prog.Width+16))
	return err
}

// launch computes line L as cr says.
func (c *lineChain) launch(r *run, L int64, ring cuda.DevicePtr, K int, cr chainRow, grid, block [3]uint32) error {
	e := r.e
	isMax := int32(0)
	if c.isMax {
		isMax = 1
	}
	if !cr.two {
		return e.ctx.Launch(c.fn, grid, block, 0, e.s1, L, ring, int32(K), r.part, cr.step, cr.segs, int32(0), cr.inc, isMax, c.fhi, c.agg)
	}
	if err := e.ctx.Launch(c.fn, grid, block, 0, e.s1, L, ring, int32(K), r.part, cr.step, cr.segs, int32(1), cr.inc, isMax, c.fhi, c.agg); err != nil {
		return err
	}
	return e.ctx.Launch(c.fn, grid, block, 0, e.s1, L, ring, int32(K), r.part, cr.step, cr.segs, int32(2), cr.inc, isMax, c.fhi, c.agg)
}

// chainSegs is how many segments each residue class of a row of width
// columns takes at step s in one launch, for a launch of threads (most,
// when set, is the most). A segment's first column runs the loop, of as
// many terms as its position in the class: g segments add about (g-1)/2
// terms a column to the row (width*(g-1)/2 terms, read in parallel at a
// rate R), while a class's columns follow one another (width/(s*g) steps
// of latency τ). Their sum is least at g = sqrt(2*τ*R/s); with τ*R about
// chainTauRate terms (a guess: 0.5 µs a step, 3e11 terms a second), g =
// sqrt(3e5 / s): one segment from a step of 133,334, two down to 48,001,
// 17 at 1,000. The guess matters little: before two launches took the long
// classes, the knapsack of 10,000 x 1,000,000 on an H200 ran 0.176, 0.176,
// 0.185 and 0.185 s with τ*R of 5e4, 1.5e5, 5e5 and 2e6.
// No more than the threads need (one a class and segment), nor than a
// class has columns.
func chainSegs(s, width, threads, most int64, tauRate float64) int64 {
	if tauRate <= 0 {
		tauRate = chainTauRate
	}
	nres := min(s, width)
	length := ceilDiv(width, s)
	segs := int64(math.Round(math.Sqrt(2 * tauRate / float64(s))))
	segs = min(segs, ceilDiv(threads, nres), length)
	if most > 0 {
		segs = min(segs, most)
	}
	return max(segs, 1)
}

// chainTauRate is τ*R of chainSegs, in terms: a step's latency times the
// rate at which a launch reads the loop's terms.
const chainTauRate = 1.5e5
