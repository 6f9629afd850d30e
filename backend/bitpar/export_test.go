package bitpar

import (
	"context"

	"github.com/dpgpu/dpgpu/plan"
)

// SolveShape is Solve with the cut forced: strips of strip words and
// chunks of chunk columns (a multiple of 64), so that short test
// patterns take the parallel path too.
func SolveShape(ctx context.Context, kind plan.SpecialKind, a, b []byte, semiGlobal bool, threads, strip, chunk int, progress func(done, total int64)) (Result, error) {
	return solve(ctx, kind, a, b, semiGlobal, threads, shape{strip: strip, chunk: chunk}, progress)
}

// Choose is the shape Solve picks: words per strip, columns per chunk.
func Choose(kind plan.SpecialKind, words, n, threads int) (strip, chunk int) {
	sh := choose(kind, words, n, threads)
	return sh.strip, sh.chunk
}
