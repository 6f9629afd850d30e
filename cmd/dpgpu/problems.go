package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/problems"
)

// problemsAction lists the built-in problems with their summaries.
func problemsAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErr("problems: unexpected %q (did you mean `dpgpu problems show %s`?)", c.Args().First(), c.Args().First())
	}
	for _, name := range problems.Names() {
		b, _ := problems.Lookup(name)
		fmt.Fprintf(c.App.Writer, "%-20s %s\n", name, b.Summary)
	}
	return nil
}

// problemsShowAction prints one built-in problem's .dp file.
func problemsShowAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErr("problems show: name one built-in problem")
	}
	b, ok := problems.Lookup(c.Args().First())
	if !ok {
		return usageErr("no built-in problem %q (dpgpu problems lists them)", c.Args().First())
	}
	_, err := c.App.Writer.Write(b.Source)
	return err
}
