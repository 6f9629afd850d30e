package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/problems/render"
	"github.com/dpgpu/dpgpu/report"
	"github.com/dpgpu/dpgpu/runtime"
)

func solveCommand() *cli.Command {
	return &cli.Command{
		Name:      "solve",
		Usage:     "solve a problem and print the answer, the solution and the speed",
		ArgsUsage: "FILE|BUILTIN [ARG FILES...]",
		Flags: append(inputFlags(),
			&cli.StringFlag{Name: "backend", Aliases: []string{"b"}, Value: "auto", Usage: "auto (GPU if present, else CPU), cpu or cuda"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"t"}, Usage: "CPU worker threads (default: one per core)"},
			&cli.BoolFlag{Name: "traceback", Aliases: []string{"T"}, Usage: "follow the solution back from the answer and print it (keeps the grid)"},
			&cli.StringFlag{Name: "grid", Usage: "write the whole grid to `FILE` (.npy or .csv); keeps the grid"},
			&cli.BoolFlag{Name: "maintain", Usage: "keep the whole grid, as `maintain: 1` does"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar"},
		),
		Action: solveAction,
	}
}

func solveAction(c *cli.Context) error {
	gridPath := c.String("grid")
	if gridPath != "" {
		if err := checkGridPath(gridPath); err != nil {
			return err
		}
	}
	tr := phases.Start("solve")
	defer func() {
		tr.Mark("report")
		tr.Print(c.App.ErrWriter)
	}()
	l, err := loadProblem(c)
	if err != nil {
		return err
	}
	tr.Mark("load")
	opt := runtime.Options{
		Threads:   c.Int("threads"),
		Maintain:  c.Bool("maintain") || gridPath != "",
		Traceback: c.Bool("traceback"),
	}
	withGrid := engine.StartGrid(l, opt) // while the driver starts
	ex, err := engine.NewExecutor(c.String("backend"), c.Int("threads"), c.App.ErrWriter)
	if err != nil {
		return err
	}
	tr.Mark("backend")
	opt = withGrid()
	tr.Mark("grid")
	bar := newProgress(c.Bool("quiet") || c.Bool("json"))
	opt.Progress = bar.update
	res, err := engine.Run(c.Context, l, ex, opt)
	bar.finish()
	tr.Mark("run")
	if err != nil {
		if c.Context.Err() != nil {
			return fmt.Errorf("interrupted: %w", context.Canceled)
		}
		fmt.Fprintln(c.App.ErrWriter, "dpgpu: "+engine.FormatError(err, l.Source))
		return shown(err)
	}
	if gridPath != "" {
		if res.Grid == nil {
			return fmt.Errorf("the %s backend returned no grid", res.Backend)
		}
		if err := writeGrid(gridPath, res.Grid); err != nil {
			return err
		}
	}
	solution := ""
	if opt.Traceback {
		if s, ok := render.Solution(l.Problem.Name, l.Problem, res); ok {
			solution = s
		}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(report.SolveObject(l.Problem, l.Plan, res, solution))
	}
	report.Solve(c.App.Writer, l.Problem, l.Plan, res, solution)
	if gridPath != "" {
		fmt.Fprintf(c.App.Writer, "grid       written to %s\n", gridPath)
	}
	return nil
}

// progress shows a bar on stderr once a run has lasted about a second, and
// only when stderr is a terminal.
type progress struct {
	mu       sync.Mutex
	disabled bool
	start    time.Time
	bar      *progressbar.ProgressBar
}

func newProgress(quiet bool) *progress {
	return &progress{disabled: quiet || !term.IsTerminal(int(os.Stderr.Fd())), start: time.Now()}
}

func (p *progress) update(done, total int64) {
	if p.disabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		if time.Since(p.start) < time.Second || total <= 0 {
			return
		}
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("cells"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	_ = p.bar.Set64(done)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}
