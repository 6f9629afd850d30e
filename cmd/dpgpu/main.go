// Command dpgpu solves dynamic-programming problems written as `.dp` files
// on all CPU cores or on an NVIDIA GPU.
//
//	dpgpu check FILE          print the analysis (grid, dependencies, schedule, memory)
//	dpgpu solve FILE [ARGS]   solve it (GPU when there is one, else the CPU)
//	dpgpu bench ...           measure cells per second
//	dpgpu gen FILE            print the generated CUDA C
//	dpgpu gen-data KIND ...   write the seed thesis's random instances
//	dpgpu problems [show N]   list or print the built-in problems
//
// Exit status: 0 success, 2 bad input or usage, 1 internal failure,
// 130 interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/engine"
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run is main without the exit, so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, flagsFirst(app, args))
	if err == nil {
		return 0
	}
	var shown *shownError
	if !errors.As(err, &shown) {
		fmt.Fprintf(stderr, "dpgpu: %v\n", err)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return 130
	case errors.Is(err, engine.ErrInput), isUsage(err):
		return 2
	}
	return 1
}

// shownError is an error already printed (with carets); run only sets the
// exit status.
type shownError struct{ err error }

func (e *shownError) Error() string { return e.err.Error() }
func (e *shownError) Unwrap() error { return e.err }
func shown(err error) error         { return &shownError{err} }
func usageErr(format string, a ...any) error {
	return engine.InputError(fmt.Errorf(format, a...))
}

func isUsage(err error) bool {
	var ec cli.ExitCoder
	return errors.As(err, &ec) && ec.ExitCode() == 2
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "dpgpu",
		Usage:     "solve dynamic-programming problems written as .dp files, on the GPU or all CPU cores",
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			checkCommand(),
			solveCommand(),
			benchCommand(),
			genCommand(),
			genDataCommand(),
			problemsCommand(),
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageErr("%v", err)
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
	var mark func(cmds []*cli.Command)
	mark = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = app.OnUsageError
			mark(c.Subcommands)
		}
	}
	mark(app.Commands)
	return app
}

// flagsFirst moves the flags of a (sub)command in front of its positional
// arguments, so that `dpgpu solve lcs a.fa b.fa --traceback` works: the
// flag parser stops at the first positional argument. Values of non-boolean
// flags given as separate words travel with their flag; "--" ends flags.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
	k := 1
	var cmd *cli.Command
	// Walk down the command names (e.g. "problems show").
	for k < len(args) {
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(args[k]) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd = next
		out = append(out, args[k])
		cmds = cmd.Subcommands
		k++
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	for ; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			positional = append(positional, args[k+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && k+1 < len(args) {
				k++
				flags = append(flags, args[k])
			}
			continue
		}
		positional = append(positional, a)
	}
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}
