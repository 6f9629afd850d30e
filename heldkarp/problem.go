package heldkarp

import (
	"errors"
	"fmt"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// Schedule is the value of the `schedule:` setting that selects this
// solver. A problem with it has no grid and no recurrence, only a distance
// matrix, so the engine sends it here instead of to the planner and the
// grid executors; reports print it where a grid problem's schedule goes.
const Schedule = "held-karp"

// Reason says, for a person, how the solver sweeps the states: the line
// that `dpgpu check` prints under the schedule.
const Reason = "forced by `schedule: held-karp`: subsets are swept layer by layer by size"

// Instance is the travelling salesman instance of a checked problem.
type Instance struct {
	Input string  // the name of the distance input
	Dist  []int64 // row-major N x N: Dist[i*N+j] is the cost from i to j
	N     int     // cities
}

// FromProblem takes the distance matrix of a checked problem of the
// held-karp schedule: the input named dist, else its only square matrix.
// The checker has already refused a problem without one, so an error here
// means p was not checked for this solver.
func FromProblem(p *ir.Problem) (*Instance, error) {
	in := p.Input("dist")
	if in == nil {
		for _, m := range p.Inputs {
			if m.Vector || m.Rows != m.Cols {
				continue
			}
			if in != nil {
				return nil, fmt.Errorf("held-karp: several square matrices (%s, %s); name the distances `dist`", in.Name, m.Name)
			}
			in = m
		}
	}
	if in == nil {
		return nil, errors.New("held-karp needs a square distance matrix input named dist")
	}
	if in.I == nil || in.Rows != in.Cols {
		return nil, fmt.Errorf("held-karp: %s must be a square integer matrix, not %dx%d %s", in.Name, in.Rows, in.Cols, in.T)
	}
	return &Instance{Input: in.Name, Dist: in.I, N: in.Rows}, nil
}

// Answer is the optimal length as the value reports print: a long, as the
// sum of up to 64 int or long distances needs.
func (r *Result) Answer() ir.Value { return ir.Value{T: ir.Long, I: r.Length} }

// Stats are r's measurements in the form every run reports them, with the
// states as the cells computed.
func (r *Result) Stats() backend.Stats {
	return backend.Stats{
		Cells: r.States, Seconds: r.Seconds, ComputeSeconds: r.ComputeSeconds,
		PeakHostBytes: r.PeakBytes, DeviceBytes: r.DeviceBytes,
	}
}
