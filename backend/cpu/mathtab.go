package cpu

import (
	"github.com/dpgpu/dpgpu/backend/mathtab"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// withTables is p with its math of one index read from tables
// (mathTables), what both the compiled code and the evaluator compute; p
// itself where there is none. The tables are inputs, counted as the loaded
// inputs are (not in a run's working memory); mathTables bounds them by
// the memory available before making them.
func withTables(p *ir.Problem) *ir.Problem {
	if t, ok := mathTables(p); ok {
		return t
	}
	return p
}

// hostProblem is what compiled code computes for p as planned by pl
// (withTables), or why no host program serves it.
func hostProblem(p *ir.Problem, pl *plan.Plan) (*ir.Problem, error) {
	q := withTables(p)
	if err := codegen.HostSupports(q, pl); err != nil {
		return nil, err
	}
	return q, nil
}

// mathTables is mathtab.Tables within the memory available.
func mathTables(p *ir.Problem) (q *ir.Problem, ok bool) {
	budget := mathtab.Budget()
	if avail, ok := available(); ok {
		budget = mathtab.Budget(avail)
	}
	return mathtab.Tables(p, budget)
}
