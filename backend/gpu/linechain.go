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
// cut into segments, whose first columns run the loop (chainSegs).

// lineChain is what dp_linechain needs of a run: the kernel, the chain's
// step as the recurrence writes it, and the threads of a launch.
type lineChain struct {
	fn      *cuda.Function
	step    ir.Expr
	threads int64
	maxSegs int64   // 0: chainSegs chooses
	tauRate float64 // chainSegs' τ*R (0: chainTauRate)
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
	red := analysis.FirstChain(r.p)
	if fn == nil || red == nil {
		return nil
	}
	// Only a bound of exactly j / S: where it is capped (the bounded
	// knapsack's min(cnt[i-1], w / wt[i-1])) the columns past the cap run
	// the loop anyway, and dp_line's column a thread serves them better
	// (10,000 x 1,000,000, counts up to 10, on an H200: 0.091 s on
	// dp_line, 0.129 s by classes).
	ch, ok := analysis.ChainOf(red)
	if !ok || !ch.Quotient {
		return nil
	}
	return &lineChain{fn: fn, step: ch.S, threads: blocks * threads, maxSegs: r.e.cfg.chainSegs, tauRate: r.e.cfg.chainTauRate}
}

// stepOf is the chain's step S at row i, or 0 where it cannot serve
// (it does not evaluate there, or is below 1): dp_line runs that row.
func (c *lineChain) stepOf(p *ir.Problem, i int64) int64 {
	v, err := eval.EvalAt(c.step, i, 0, func(i, j int64) (ir.Value, error) {
		return ir.Value{}, fmt.Errorf("the chain's step reads no cell")
	})
	if err != nil || v.T.IsFloat() || v.I < 1 {
		return 0
	}
	return v.I
}

// chainSegs is how many segments each residue class of a row of width
// columns takes at step s, for a launch of threads (most, when set, is the
// most). A segment's first column runs the loop, of as many terms as its
// position in the class: g segments add about (g-1)/2 terms a column to
// the row (width*(g-1)/2 terms, read in parallel at a rate R), while a
// class's columns follow one another (width/(s*g) steps of latency τ).
// Their sum is least at g = sqrt(2*τ*R/s); with τ*R about chainTauRate
// terms (0.5 µs a step, 3e11 terms a second), g = sqrt(3e5 / s): one
// segment from a step of 133,334, two down to 48,001, 17 at 1,000. No more than the threads
// need (one a class and segment), nor than a class has columns.
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
