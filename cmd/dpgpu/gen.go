package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/backend/mathtab"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/engine"
)

// genAction prints the CUDA C generated for the problem named.
func genAction(c *cli.Context) error {
	l, err := loadProblem(c)
	if err != nil {
		return err
	}
	if l.TSP != nil {
		return engine.InputError(fmt.Errorf("%s uses the built-in Held-Karp kernel; gen prints generated recurrences only", l.Problem.Name))
	}
	// The problem the executors run: math of one index read from tables
	// (backend/mathtab) where the memory allows, as both executors do.
	p := l.Problem
	if q, ok := mathtab.Tables(p, mathtab.Budget()); ok {
		p = q
	}
	if c.Bool("host") {
		hp, err := codegen.GenerateHost(p, l.Plan)
		if err != nil {
			return engine.InputError(err)
		}
		_, err = fmt.Fprint(c.App.Writer, hp.Source)
		return err
	}
	prog, err := codegen.Generate(p, l.Plan, codegen.Options{Maintain: c.Bool("maintain") || p.Maintain})
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.App.Writer, prog.Source)
	return err
}
