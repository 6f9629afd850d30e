package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/engine"
)

func genCommand() *cli.Command {
	return &cli.Command{
		Name:      "gen",
		Usage:     "print the CUDA C generated for a problem (what NVRTC compiles)",
		ArgsUsage: "FILE|BUILTIN [ARG FILES...]",
		Flags:     append(inputFlags(), &cli.BoolFlag{Name: "maintain", Usage: "generate the kernels that keep the whole grid"}),
		Action: func(c *cli.Context) error {
			l, err := loadProblem(c)
			if err != nil {
				return err
			}
			if l.TSP != nil {
				return engine.InputError(fmt.Errorf("%s uses the built-in Held-Karp kernel; gen prints generated recurrences only", l.Problem.Name))
			}
			prog, err := codegen.Generate(l.Problem, l.Plan, codegen.Options{Maintain: c.Bool("maintain") || l.Problem.Maintain})
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, prog.Source)
			return err
		},
	}
}
