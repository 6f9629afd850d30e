package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/heldkarp"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/report"
)

// heldKarpNeeds prints what a TSP instance needs and the largest instance
// this machine's free memory allows.
func heldKarpNeeds(w io.Writer, l *engine.Loaded) {
	in, err := engine.Distances(l.Problem)
	if err != nil {
		return
	}
	n := in.Rows
	host, dev := heldkarp.Requirements(n)
	fmt.Fprintf(w, "cities     %d: %s states\n", n, report.Count(int64(n-1)<<max(n-2, 0)))
	fmt.Fprintf(w, "memory     host %s (one predecessor byte per state), device %s (two layers of values)\n", report.Bytes(host), report.Bytes(dev))
	if avail, ok := hostmem.Available(); ok && avail > 0 {
		fmt.Fprintf(w, "limit      %s of host memory available: up to n = %d\n", report.Bytes(avail), heldkarp.MaxN(avail))
	}
}

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check a problem and print its analysis: grid, inputs, dependencies, schedule, prev, memory",
		ArgsUsage: "FILE|BUILTIN [ARG FILES...]",
		Flags: append(inputFlags(), &cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.BoolFlag{Name: "maintain", Usage: "estimate memory for a run that keeps the whole grid (solve --maintain, --grid, --traceback)"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"t"}, Usage: "estimate memory for this many CPU worker threads (default: one per core)"}),
		Action: func(c *cli.Context) error {
			if n := c.Int("threads"); n < 0 || n > maxThreads {
				return usageErr("--threads %d: want 0 (one per core) to %d", n, maxThreads)
			}
			l, err := loadProblem(c)
			if err != nil {
				return err
			}
			if l.Plan.Schedule != plan.HeldKarp && (c.Bool("maintain") || c.IsSet("threads")) {
				// The estimate of the run the flags describe, as solve would
				// make it (plan.CPUMemory is what the CPU executor checks).
				l.Plan.Memory = plan.CPUMemory(l.Problem, l.Plan, c.Int("threads"), c.Bool("maintain") || l.Problem.Maintain)
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(report.CheckObject(l.Problem, l.Plan))
			}
			report.Check(c.App.Writer, l.Problem, l.Plan)
			if l.Plan.Schedule == plan.HeldKarp {
				heldKarpNeeds(c.App.Writer, l)
			}
			return nil
		},
	}
}
