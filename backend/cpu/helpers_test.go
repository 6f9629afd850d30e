package cpu

import (
	"context"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// solve runs a problem on the CPU executor.
func solve(t testing.TB, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	t.Helper()
	return New(opt.Threads).Run(context.Background(), p, pl, opt)
}

// tiny is a tuning that cuts even small grids into many tiles, batches
// and worker shares, at sizes that divide nothing.
var tiny = tuning{tileW: 7, tileH: 5, lanes: 3, lanesPerWorker: 4, kernelCells: 10}

// solveTiny runs a problem with the tiny tuning.
func solveTiny(t testing.TB, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	t.Helper()
	ex := New(opt.Threads)
	ex.tune = tiny
	return ex.Run(context.Background(), p, pl, opt)
}

// isSubsequence is dptest.IsSubsequence, under the name short_test.go uses.
func isSubsequence(s, of string) bool { return dptest.IsSubsequence(s, of) }
