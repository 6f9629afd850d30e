package codegen

import (
	"fmt"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/ir"
)

// The host's rows sweep runs the recurrence's chain (analysis.Chain,
// analysis.FirstChain): it computes a chunk's columns in order and keeps
// each column's value R and bound H (templates/host.cu,
// dp_rows_acc::chain); a column whose R(j - S) is not in its chunk, or
// where the step could differ from the loop, runs the loop. On the GPU,
// dp_linechain gives each thread a residue class of the row's columns
// modulo S (a segment of it), in order, and the accessor keeps the last
// column's R and H in registers (templates/line.cu, dp_line_acc::chain);
// the other line kernels have no column S before in the thread, and run
// the loop. It gives the loop's value and the loop's first error:
//
//   - for max, V >= 0 (min: V <= 0), so no term leaves the finite range
//     downwards (upwards for min) without the running one doing so; an
//     addition R(j - S) + V outside the finite range, or R(j - S)
//     infinite, runs the loop, which reports the overflow as it would;
//   - H * |V| must fit, else the loop (and its k*V overflow) runs;
//   - the reads the loop would make at j beyond k = 0 are those of the
//     column j - S, made there (and an out-of-grid one fails the chain's
//     first column, which runs the loop, as every column of the chain
//     reads it).
//
// An unbounded knapsack of n items and capacity W then costs n*W terms,
// not n*W*W/weight (on the GPU, a segment's first column runs the loop:
// backend/gpu chainSegs bounds their share).

// chainReduce writes n, of the chain form with step s and increment v,
// as the accessor's chain: the loop (reduceLoop) where the chain cannot
// serve, else the term k = 0 against the column j - S's value plus V.
func (m *emitter) chainReduce(n *ir.Reduce, en env, ch analysis.Chain) string {
	s, v, mul := ch.S, ch.V, ch.Mul
	ct := ctype(n.T)
	loop := m.reduceLoop(n, en)
	hi := m.expr(n.Hi, en)
	// S as the loop reads it first: the bound's divisor where the bound
	// is j / S (the chain then skips the division), else the term's.
	sNode := s
	if ch.Quotient {
		sNode = ch.HiS
	}
	sc, vc := m.expr(sNode, en), m.expr(v, en)
	// The term k = 0, in the body's env (0 is one of the variable's
	// values wherever the chain runs it: H >= 1).
	m.nred++
	name := fmt.Sprintf("r%d_%s", m.nred, cIdent(n.Var.Name))
	m.reds = append(m.reds, redVar{r: n, name: name, t: ir.Long})
	term0 := m.expr(n.Body, m.g.bodyEnv(n, en))
	m.reds = m.reds[:len(m.reds)-1]
	_, fhi := finiteRange(n.T)
	_, mhi := finiteRange(mul)
	quotient := ch.Quotient
	return fmt.Sprintf("a.template chain<%[1]s, %[2]t, %[11]t>(j, %[3]dLL, %[10]dLL, [&]() -> long long { return (long long)(%[4]s); }, [&]() -> long long { return (long long)(%[5]s); }, [&]() -> long long { return (long long)(%[6]s); }, "+
		"[&]() -> %[1]s { return %[7]s; }, [&]() -> %[1]s { const long long %[8]s = 0; (void)%[8]s; return (%[1]s)(%[9]s); })",
		ct, n.Op == ir.ReduceMax, fhi, hi, sc, vc, loop, name, term0, mhi, quotient)
}
