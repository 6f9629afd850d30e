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
// Exit status: 0 success, 2 bad input or usage (the `.dp` file, its inputs,
// the flags, a run-time error of the recurrence, a refusal for memory), 1 an
// internal failure or output that could not be written, 130 interrupted
// (SIGINT or SIGTERM).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/source"
)

// version is the release; `-ldflags "-X main.version=..."` overrides it.
var version = "dev"

func main() {
	lateGC(64 << 20)
	if path := os.Getenv("DPGPU_CPUPROFILE"); path != "" {
		// For developers: a CPU profile of the whole command (go tool pprof).
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				code := run(os.Args, os.Stdout, os.Stderr)
				pprof.StopCPUProfile()
				f.Close()
				os.Exit(code)
			}
			f.Close()
		}
	}
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// lateGC leaves the garbage collector off until the process holds limit
// bytes, and from its first collection on at the default pacing (GOGC
// 100, no limit): a finalizer that runs after that collection restores
// it. A small run (a knapsack of 10,000 items) then never collects, where
// the default collected twice at a 4 MB heap (GOGC=off took the process
// from 51.7 to 49.6 ms); a large one is collected as before once it
// passes limit. GOGC or GOMEMLIMIT set by the user are left alone.
func lateGC(limit int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
}

// run is main without the exit, so tests can call it. SIGINT and SIGTERM
// cancel the run's context.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first signal, a second one kills at once: a user who
		// presses Ctrl-C twice does not want to wait for the clean-up.
		<-ctx.Done()
		stop()
	}()
	return runContext(ctx, args, stdout, stderr)
}

// interruptGrace is how long an interrupted command gets to stop by itself
// (every long phase that can check the context does so well within it)
// before runContext gives up on it, removes its temporary files and
// returns 130 anyway: parsing, memory allocation and some reductions cannot
// be interrupted, and the README promises an exit within half a second.
const interruptGrace = 300 * time.Millisecond

// runContext runs the command line with ctx as the context of the command
// and returns the exit status.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- internalPanic{p, debug.Stack()}
			}
		}()
		app := newApp(out, stderr)
		done <- app.RunContext(ctx, flagsFirst(app, args))
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(interruptGrace):
			err = fmt.Errorf("interrupted: %w", context.Canceled)
		}
	}
	if ctx.Err() != nil {
		// Interrupted: whatever the command was doing, its files go.
		removeTemps()
		fmt.Fprintln(stderr, "dpgpu: interrupted")
		return 130
	}
	if err == nil && out.err != nil {
		err = fmt.Errorf("writing the output: %w", out.err)
	}
	if err == nil {
		return 0
	}
	removeTemps()
	printError(stderr, err)
	return exitCode(err)
}

// exitCode classifies an error that ended a command.
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return 130
	case isUserError(err):
		return 2
	}
	return 1
}

// isUserError reports whether err was caused by the user's input or flags:
// errors marked engine.ErrInput (files, flags), usage errors, errors of
// the `.dp` file found while running its recurrence (division by zero, a
// read outside the grid, overflow, NaN: the executors return them as
// *source.Error or source.ErrorList, possibly wrapped) and refusals for memory.
func isUserError(err error) bool {
	var list source.ErrorList
	var one *source.Error
	return errors.Is(err, engine.ErrInput) || isUsage(err) || errors.Is(err, hostmem.ErrTooLarge) ||
		errors.As(err, &list) || errors.As(err, &one)
}

// internalPanic is a panic of a command turned into an error, so that the
// user gets one line and exit status 1 rather than a crash; the stack is
// printed with DPGPU_TRACE set, for a bug report.
type internalPanic struct {
	value any
	stack []byte
}

func (p internalPanic) Error() string {
	msg := fmt.Sprintf("internal error: %v (please report this with the command that caused it)", p.value)
	if os.Getenv("DPGPU_TRACE") != "" {
		msg += "\n" + string(p.stack)
	}
	return msg
}

// checkedWriter remembers the first failed write, so that a full disk or a
// closed pipe on stdout ends the command with an error and not exit 0
// after a short output. Writes after a failure fail too.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// sourcedError is an error of a `.dp` file together with the file's text,
// so that printError can show the line and a caret.
type sourcedError struct {
	err error
	src *engine.Source
}

func (e *sourcedError) Error() string { return e.err.Error() }
func (e *sourcedError) Unwrap() error { return e.err }

// withSource attaches src to err for printError.
func withSource(err error, src *engine.Source) error {
	if err == nil || src == nil {
		return err
	}
	return &sourcedError{err, src}
}

// printError is the one place where errors are printed: `.dp` errors with
// their line and caret, and every message with its control characters
// escaped, since file names, inputs and source lines come from the user.
func printError(w io.Writer, err error) {
	msg := err.Error()
	var se *sourcedError
	if errors.As(err, &se) {
		msg = engine.FormatError(err, se.src)
	}
	fmt.Fprintln(w, "dpgpu: "+escapeControl(msg))
}

func usageErr(format string, a ...any) error {
	return engine.InputError(fmt.Errorf(format, a...))
}

// isUsage reports whether err is urfave's own usage error: 2 for a flag it
// could not parse, 3 for `dpgpu help NOSUCH`.
func isUsage(err error) bool {
	var ec cli.ExitCoder
	return errors.As(err, &ec) && (ec.ExitCode() == 2 || ec.ExitCode() == 3)
}

// subcommandMissing is the action of a command that only groups
// subcommands (gen-data): its help, or a usage error for an unknown word.
func subcommandMissing(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErr("%s: unknown kind %q (one of: %s)", c.Command.Name, c.Args().First(), commandNames(c.Command.Subcommands))
	}
	return cli.ShowSubcommandHelp(c)
}

// commandNames lists cmds for a usage error, without urfave's own help.
func commandNames(cmds []*cli.Command) string {
	var names []string
	for _, c := range cmds {
		if c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ", ")
}

// versionText is the version line: the release, and the Go version and
// source revision the binary was built from where the build recorded them.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := version
	// A release installed with `go install ...@v1.2.3` knows its version;
	// a pseudo-version (which embeds the revision) says no more than the
	// revision printed below.
	if mv := info.Main.Version; v == "dev" && mv != "" && mv != "(devel)" && (rev == "" || !strings.Contains(mv, rev)) {
		v = mv
	}
	extra := []string{info.GoVersion}
	if rev != "" {
		if modified == "true" {
			rev += ", modified"
		}
		extra = append(extra, "revision "+rev)
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "dpgpu",
		Usage:     "solve dynamic-programming problems written as .dp files, on the GPU or all CPU cores",
		Version:   versionText(),
		Writer:    stdout,
		ErrWriter: stderr,
		// --input NAME=1,2,3 is one value: the file says how to split it.
		DisableSliceFlagSeparator: true,
		Commands:                  commands(),
		// Without a command: the help; with a word that is no command, a
		// usage error (urfave would exit 3 with "No help topic").
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErr("unknown command %q (commands: %s; dpgpu help)", c.Args().First(), commandNames(c.App.Commands))
			}
			return cli.ShowAppHelp(c)
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
			if c.Action == nil && len(c.Subcommands) > 0 {
				c.Action = subcommandMissing
			}
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
	canonical := map[string]string{} // alias -> the flag's first name
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
			canonical[n] = f.Names()[0]
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
			key, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			// One spelling per flag: urfave refuses a repeatable flag given
			// under two of its names (`-i A=.. --input B=..`).
			if c, ok := canonical[key]; ok && c != key {
				a = "--" + c
				if hasVal {
					a += "=" + val
				}
			}
			flags = append(flags, a)
			if !hasVal && takesValue[key] && k+1 < len(args) {
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
