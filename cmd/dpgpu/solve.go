package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/render"
	"github.com/dpgpu/dpgpu/report"
)

// maxThreads bounds --threads: more workers than any machine has cores
// only costs memory (each has its buffers).
const maxThreads = 4096

// checkBackendFlags refuses bad --backend and --threads values before
// anything is loaded or computed.
func checkBackendFlags(c *cli.Context) error {
	if b := c.String("backend"); !slices.Contains(engine.Backends, b) && b != "gpu" {
		return usageErr("unknown backend %q (want auto, cpu or cuda)", b)
	}
	if n := c.Int("threads"); n < 0 || n > maxThreads {
		return usageErr("--threads %d: want 1..%d, or 0 for one per core", n, maxThreads)
	}
	if c.IsSet("gpus") {
		if c.String("backend") == "cpu" {
			return usageErr("--gpus with --backend cpu: the GPUs are for --backend cuda or auto")
		}
		if _, err := engine.GPUs(c.String("gpus")); err != nil && !errors.Is(err, cuda.ErrNoDriver) {
			return err
		}
	}
	return nil
}

// newExecutor is engine.NewExecutor with `--backend cuda` on a machine
// without a CUDA driver counted as the user's error (exit 2): the flag asks
// for what is not there.
func newExecutor(c *cli.Context) (backend.Executor, error) {
	ex, err := engine.NewExecutor(c.String("backend"), c.Int("threads"), c.App.ErrWriter)
	if errors.Is(err, cuda.ErrNoDriver) {
		err = engine.InputError(err)
	}
	return ex, err
}

// solveExecutor is newExecutor, or with --gpus the GPUs it names: all of
// them, for Held-Karp (each layer spread over them) and for a wavefront
// (its grid split into row bands, gpu.RunSlabs); what cannot be split
// runs on the first, and the report's device line says why.
func solveExecutor(c *cli.Context, l *engine.Loaded) (backend.Executor, error) {
	if !c.IsSet("gpus") {
		if b := c.String("backend"); (b == "" || b == "auto") && l.Plan != nil {
			if why := engine.OneAtATime(l.Problem, l.Plan); why != "" {
				fmt.Fprintf(c.App.ErrWriter, "dpgpu: %s; running on the CPU (--backend cuda forces the GPU)\n", why)
				return engine.NewCPU(c.Int("threads"))
			}
		}
		return newExecutor(c)
	}
	gpus, err := engine.GPUs(c.String("gpus"))
	if err != nil {
		return nil, err
	}
	return engine.NewGPUSet(gpus)
}

func solveAction(c *cli.Context) (err error) {
	if err := checkBackendFlags(c); err != nil {
		return err
	}
	format := c.String("format")
	if format != "text" && !slices.Contains(report.AlignFormats, format) {
		return usageErr("--format %q: want text, paf or sam", format)
	}
	if format != "text" && c.Bool("json") {
		return usageErr("--format %s and --json: choose one", format)
	}
	var out *gridOutput
	if path := c.String("grid"); path != "" {
		if out, err = openGrid(path); err != nil {
			return err
		}
		defer func() {
			if err != nil {
				out.abort()
			}
		}()
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
	opt := backend.Options{
		Threads:   c.Int("threads"),
		Maintain:  c.Bool("maintain") || out != nil,
		Traceback: c.Bool("traceback") || format != "text",
		NoSpecial: c.Bool("no-special"),
	}
	if opt.TraceMemory, err = sizeFlag(c, traceMemoryFlag.Name); err != nil {
		return err
	}
	if opt.DeviceBudget, err = sizeFlag(c, deviceMemoryFlag.Name); err != nil {
		return err
	}
	if opt.Traceback && !engine.Traceable(l.Plan) {
		return usageErr("--traceback starts at the cell the answer selects, but the answer of %s is %s, not one cell", l.Problem.Name, report.AnswerText(l.Plan.Answer))
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	withGrid := engine.StartGrid(l, opt) // while the driver starts
	warm := func() {}
	if b := c.String("backend"); b == "" || b == "auto" || b == "cuda" {
		warm = engine.WarmCode(l)
	}
	ex, err := solveExecutor(c, l)
	warm()
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
		return withSource(err, l.Source)
	}
	if out != nil {
		if res.Grid == nil || res.Grid.Grid == nil {
			return fmt.Errorf("the %s backend returned no grid", res.Backend)
		}
		if err := out.write(c.Context, l.Problem, res.Grid.Grid); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(c.App.Writer)
	enc.SetIndent("", "  ")
	if res.Tour != nil {
		if c.Bool("json") {
			return enc.Encode(report.TourObject(l.Problem, res.Tour, res.Backend, res.Device))
		}
		report.SolveTour(c.App.Writer, l.Problem, res.Tour, res.Backend, res.Device)
		return nil
	}
	var rec *render.Record
	if opt.Traceback && res.Grid.Path != nil {
		if r, ok := render.AlignmentRecord(l.Problem, res.Grid.Path, render.LeadGap(res.Tree)); ok {
			rec = &r
		}
	}
	if format != "text" {
		if rec == nil {
			return usageErr("--format %s: %s is not an alignment of two sequences (char inputs A and B, or the first two char vectors) with a path", format, l.Problem.Name)
		}
		if format == "paf" {
			return report.PAF(c.App.Writer, *rec, res.Answer())
		}
		return report.SAM(c.App.Writer, *rec, res.Answer(), version)
	}
	solution := ""
	if opt.Traceback {
		if s, ok := problems.Solution(l.Problem.Name, l.Problem, res.Grid, res.Tree); ok {
			solution = s
		}
	}
	if c.Bool("json") {
		obj := report.SolveObject(l.Problem, l.Plan, res.Grid, res.Tree, solution)
		if res.Trace != nil {
			obj.Traceback = report.TraceObject(*res.Trace, res.Recomputed)
			if res.Trace.Blocks {
				obj.Traceback.Ahead = &res.Ahead
			}
		}
		if rec != nil {
			obj.Alignment = report.AlignObject(*rec)
		}
		return enc.Encode(obj)
	}
	report.Solve(c.App.Writer, l.Problem, l.Plan, res.Grid, res.Tree, solution)
	if res.Trace != nil {
		report.Trace(c.App.Writer, *res.Trace, res.Recomputed)
		if res.Trace.Blocks {
			fmt.Fprintf(c.App.Writer, "           %d of them computed ahead of the walk, while it crossed the block before\n", res.Ahead)
		}
	}
	if out != nil {
		fmt.Fprintf(c.App.Writer, "grid       written to %s\n", strings.Join(out.written, ", "))
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
