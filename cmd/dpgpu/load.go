package main

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/source"
)

// inputFlags are the flags that feed the checker: --input and --set.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "replace an input: NAME=@FILE or NAME=v1,v2,... (rows separated by &)"},
		&cli.StringSliceFlag{Name: "set", Aliases: []string{"s"}, Usage: "set a scalar: NAME=VALUE (derived scalars follow)"},
	}
}

func overrides(flag string, values []string) ([]bind.Override, error) {
	var out []bind.Override
	for _, v := range values {
		name, val, ok := strings.Cut(v, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, usageErr("--%s %q: want NAME=VALUE", flag, v)
		}
		out = append(out, bind.Override{Name: name, Value: val})
	}
	return out, nil
}

// loadProblem resolves, parses, checks and plans the problem named by the
// first argument; the other arguments are positional files for `args:`.
// Errors in the file carry its text, so that they are printed with carets.
func loadProblem(c *cli.Context) (*engine.Loaded, error) {
	if c.NArg() < 1 {
		return nil, usageErr("%s: name a .dp file or a built-in problem (dpgpu problems lists them)", c.Command.Name)
	}
	src, err := engine.Resolve(c.Args().First())
	if err != nil {
		return nil, err
	}
	ins, err := overrides("input", c.StringSlice("input"))
	if err != nil {
		return nil, err
	}
	sets, err := overrides("set", c.StringSlice("set"))
	if err != nil {
		return nil, err
	}
	cfg := bind.Config{Inputs: ins, Sets: sets, Args: c.Args().Tail()}
	l, err := engine.Load(src, cfg)
	if err != nil {
		return nil, withSource(err, src)
	}
	printNotes(c.App.ErrWriter, l.Problem.Notes, src)
	return l, nil
}

// printNotes prints the checker's notes (ir.Problem.Notes) on stderr as
// errors are printed, with their line and caret, marked as notes: they
// stop nothing.
func printNotes(w io.Writer, notes source.ErrorList, src *engine.Source) {
	for _, n := range notes {
		printError(w, withSource(&source.Error{Pos: n.Pos, Msg: "note: " + n.Msg}, src))
	}
}
