package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/report"
)

// checkAction prints the analysis of the problem named: grid, inputs,
// dependencies, schedule, prev, memory.
func checkAction(c *cli.Context) error {
	if n := c.Int("threads"); n < 0 || n > maxThreads {
		return usageErr("--threads %d: want 0 (one per core) to %d", n, maxThreads)
	}
	l, err := loadProblem(c)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(c.App.Writer)
	enc.SetIndent("", "  ")
	if l.TSP != nil {
		// Solved outside the grid pipeline: no plan, so no
		// estimate for --maintain or --threads to change.
		if c.Bool("json") {
			return enc.Encode(report.CheckTourObject(l.Problem))
		}
		avail, ok := hostmem.Available()
		if !ok {
			avail = 0
		}
		report.CheckTour(c.App.Writer, l.Problem, l.TSP, avail)
		return nil
	}
	if c.Bool("maintain") || c.IsSet("threads") {
		// The estimate of the run the flags describe, as solve would
		// make it (plan.CPUMemory is what the CPU executor checks).
		l.Plan.Memory = plan.CPUMemory(l.Problem, l.Plan, c.Int("threads"), c.Bool("maintain") || l.Problem.Maintain)
	}
	budget, err := sizeFlag(c, traceMemoryFlag.Name)
	if err != nil {
		return err
	}
	lay, layErr := engine.HostTraceLayout(l, budget)
	free, err := sizeFlag(c, deviceMemoryFlag.Name)
	if err != nil {
		return err
	}
	var gpu plan.TraceLayout
	var gpuErr error
	if free > 0 {
		gpu, gpuErr = engine.GPUTraceLayout(l, free, budget)
	}
	if c.Bool("json") {
		obj := report.CheckObject(l.Problem, l.Plan)
		if layErr == nil {
			obj.Traceback = report.TraceObject(lay, -1)
		}
		if free > 0 && gpuErr == nil {
			obj.TracebackGPU = report.TraceObject(gpu, -1)
		}
		return enc.Encode(obj)
	}
	report.Check(c.App.Writer, l.Problem, l.Plan)
	if layErr != nil {
		fmt.Fprintf(c.App.Writer, "traceback  %v\n", layErr)
	} else {
		report.Trace(c.App.Writer, lay, -1)
	}
	if free > 0 {
		fmt.Fprintf(c.App.Writer, "on a GPU with %s free:\n", hostmem.Bytes(free))
		if gpuErr != nil {
			fmt.Fprintf(c.App.Writer, "traceback  %v\n", gpuErr)
		} else {
			report.Trace(c.App.Writer, gpu, -1)
		}
	}
	return nil
}
