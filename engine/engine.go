// Package engine strings the pipeline's stages together for the command line
// and for tests: resolve a problem (a file or a built-in name), parse it
// (dsl), check it (sema), plan it (plan), pick an executor (backend/cpu,
// backend/gpu) and run it. Each stage stays in its own package; this one
// only sequences them and keeps their results side by side.
//
// It is also where a problem leaves the grid pipeline: a checked problem of
// the held-karp schedule has no grid to plan, and is solved by package
// heldkarp instead of an executor. Nothing past the engine tests for it
// but the reports, which print a tour.
package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/checkpoint"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/traceback"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/heldkarp"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/internal/phases"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/formats"
	"github.com/dpgpu/dpgpu/source"
)

// Source is the text of a problem and where it came from.
type Source struct {
	Name    string // a path as the user typed it, or a built-in's name (an alias resolved)
	Path    string // file path ("" for a built-in)
	Text    []byte
	Builtin bool
}

// ErrInput marks errors caused by the user's input (bad file, bad flags):
// the command line exits with status 2 for them and 1 for everything else.
var ErrInput = errors.New("bad input")

// InputError wraps err so that errors.Is(err, ErrInput) holds.
func InputError(err error) error {
	if err == nil || errors.Is(err, ErrInput) {
		return err
	}
	return &inputError{err}
}

type inputError struct{ err error }

func (e *inputError) Error() string        { return e.err.Error() }
func (e *inputError) Unwrap() []error      { return []error{e.err, ErrInput} }
func (e *inputError) Is(target error) bool { return target == ErrInput }

// Resolve finds a problem: a built-in name or alias written bare (no
// `.dp`, no directory), else an existing file path, else an error naming both kinds.
// The file must be a regular file of at most dsl.MaxSourceBytes: a
// directory, a FIFO or a device (/dev/zero, /dev/stdin) is refused with
// the path and what it is, before anything is read, so that `check` never
// blocks or reads without end. A directory that has a built-in's name
// (a folder called lcs) does not hide the built-in.
func Resolve(name string) (*Source, error) {
	// A bare built-in name (no `.dp`, no directory) means the built-in even
	// where the working directory holds a file of that name: a program
	// called `lcs` beside the user's data must not be read as a .dp file.
	if b, ok := problems.Lookup(name); ok && !strings.HasSuffix(name, ".dp") && !strings.ContainsRune(name, filepath.Separator) {
		return &Source{Name: b.Name, Text: b.Source, Builtin: true}, nil
	}
	if _, err := os.Stat(name); err == nil {
		text, err := formats.ReadRegular(name, dsl.MaxSourceBytes)
		if err != nil {
			if errors.Is(err, formats.ErrTooBig) {
				err = fmt.Errorf("%w (a .dp file may hold at most %d MiB; put large data in files named with @\"path\")", err, dsl.MaxSourceBytes>>20)
			}
			return nil, InputError(fmt.Errorf("reading the problem file: %w", err))
		}
		if bytes.IndexByte(text, 0) >= 0 {
			return nil, InputError(fmt.Errorf("%s is a binary file, not a .dp problem file", name))
		}
		return &Source{Name: name, Path: name, Text: text}, nil
	}
	if strings.HasSuffix(name, ".dp") || strings.ContainsRune(name, filepath.Separator) {
		return nil, InputError(fmt.Errorf("%s: no such file", name))
	}
	return nil, InputError(fmt.Errorf("%q is neither a file nor a built-in problem (built-ins: %s)", name, strings.Join(problems.Names(), ", ")))
}

// Loaded is a problem taken through the front end and the planner. A
// problem solved outside the grid pipeline has no Plan: TSP is set
// instead.
type Loaded struct {
	Source  *Source
	File    *dsl.File
	Problem *ir.Problem
	Plan    *plan.Plan         // the grid pipeline's plan; nil when TSP is set
	TSP     *heldkarp.Instance // `schedule: held-karp`: the distances for the Held-Karp solver
}

// Load parses, checks and plans src. Errors from the `.dp` file are
// dsl.ErrorLists wrapped as input errors; FormatError renders them.
// cfg is the data the command line (or a program) binds to it (package
// bind).
func Load(src *Source, cfg bind.Config) (*Loaded, error) {
	fileName := src.Path
	if src.Builtin {
		fileName = src.Name + ".dp"
		if cfg.BaseDir == "" {
			cfg.BaseDir = "."
		}
	}
	f, err := dsl.Parse(fileName, src.Text)
	if err != nil {
		return nil, InputError(err)
	}
	return loadParsed(src, f, cfg)
}

// loadParsed is Load after parsing: bind, check, plan. A batch parses once
// and calls it for every instance.
func loadParsed(src *Source, f *dsl.File, cfg bind.Config) (*Loaded, error) {
	p, err := bind.Check(f, cfg)
	if err != nil {
		return nil, InputError(err)
	}
	l, err := finishLoad(src, f, p)
	if err != nil {
		return nil, InputError(err)
	}
	return l, nil
}

// finishLoad takes a checked problem to its solver: the Held-Karp
// instance, or the plan.
func finishLoad(src *Source, f *dsl.File, p *ir.Problem) (*Loaded, error) {
	if p.Schedule == heldkarp.Schedule {
		tsp, err := heldkarp.FromProblem(p)
		if err != nil {
			return nil, err
		}
		return &Loaded{Source: src, File: f, Problem: p, TSP: tsp}, nil
	}
	pl, err := plan.Analyze(p)
	if err != nil {
		return nil, err
	}
	return &Loaded{Source: src, File: f, Problem: p, Plan: pl}, nil
}

// FormatError renders err for a person: `.dp` errors with their source line
// and a caret.
func FormatError(err error, src *Source) string {
	var text []byte
	if src != nil {
		text = src.Text
	}
	return source.Format(err, text)
}

// StartGrid begins allocating, in the background, the grid that a run of l
// with opt keeps: the pages of a grid of gigabytes take a good part of a
// second to fault in, time that can overlap the GPU driver's start-up. The
// returned function waits for it and returns opt with Grid set. It leaves
// opt as it is for grids under 64 MB, for problems without a grid (TSP),
// and for runs whose grid and working buffers together would not
// fit in the available memory: the executor then refuses the run before
// allocating anything (hostmem.ErrTooLarge). Allocating the grid first
// and refusing afterwards would be the wrong order. The executors know
// that a grid passed in opt is already allocated and do not count it
// against the memory that remains.
func StartGrid(l *Loaded, opt backend.Options) func() backend.Options {
	p := l.Problem
	bytes := plan.GridBytes(p)
	if l.Plan == nil || !opt.KeepGrid(p) || bytes < 64<<20 || !keepsWholeGrid(l, opt) {
		return func() backend.Options { return opt }
	}
	// The CPU executor's buffers: the GPU executor's host staging is
	// smaller, so this errs on the side of leaving the grid to it.
	need := bytes + plan.CPUMemory(p, l.Plan, opt.Threads, false).Work
	if avail, ok := hostAvailable(); ok && need > avail {
		return func() backend.Options { return opt }
	}
	ch := make(chan *backend.Grid, 1)
	go func() { ch <- backend.NewGrid(p.CellType, p.Rows, p.Cols) }()
	return func() backend.Options {
		opt.Grid = <-ch
		return opt
	}
}

// keepsWholeGrid reports whether a run of l with opt, which keeps a grid,
// keeps the whole of it: not a traceback in linear memory (plan.Traceback).
func keepsWholeGrid(l *Loaded, opt backend.Options) bool {
	if !opt.Traceback || opt.Maintain || l.Problem.Maintain {
		return true
	}
	// Over the traceback memory the grid goes to the GPU, to checkpoints
	// or, failing both, to a grid the executor allocates itself.
	return plan.GridBytes(l.Problem) <= plan.TraceBudget(opt.TraceMemory)
}

// hostAvailable is hostmem.Available; the tests replace it.
var hostAvailable = hostmem.Available

// Result is a solved problem. Exactly one of Grid and Tour is set: Grid by
// the grid pipeline (the executor's result: answer, traceback, grid), Tour
// by the Held-Karp solver.
type Result struct {
	Grid *backend.Result
	Tour *heldkarp.Result
	// Tree is the traceback (with Options.Traceback): every cell that the
	// winning terms read, from the cell the answer selects (contract v2
	// §7.4). When it does not branch, Grid's Path and Emitted hold it as
	// a path too, as traceback.Trace gives it.
	Tree *traceback.Node
	// Backend and Device say where it ran: the executor's Name and Device.
	Backend, Device string
	// Trace is how a traceback kept the grid when it kept checkpoints
	// rather than the whole grid (nil otherwise), and Recomputed how many
	// bands (or blocks) the walk recomputed, Ahead how many of those
	// blocks were computed ahead of it, while it walked the one before.
	Trace      *plan.TraceLayout
	Recomputed int
	Ahead      int
}

// Answer is the optimum, whichever solver found it.
func (r *Result) Answer() ir.Value {
	if r.Tour != nil {
		return r.Tour.Answer()
	}
	return r.Grid.Answer
}

// Stats are the run's measurements, whichever solver ran.
func (r *Result) Stats() backend.Stats {
	if r.Tour != nil {
		return r.Tour.Stats()
	}
	return r.Grid.Stats
}

// Run solves a loaded problem: with the executor for the grid pipeline,
// with the Held-Karp solver (on ex's GPU when it has one) when l.TSP is set.
// A refusal for want of memory (hostmem.ErrTooLarge, from any solver) is
// returned as an input error.
func Run(ctx context.Context, l *Loaded, ex backend.Executor, opt backend.Options) (*Result, error) {
	var res *Result
	var err error
	if l.TSP != nil {
		res, err = runTour(ctx, l.TSP, ex, opt)
	} else {
		res, err = runGrid(ctx, l, ex, opt)
	}
	if errors.Is(err, hostmem.ErrTooLarge) {
		// The instance is too large for this machine: the user's to
		// change, so an input error (exit status 2), as every other
		// memory refusal.
		return nil, InputError(err)
	}
	return res, err
}

// runGrid solves a problem of the grid pipeline with ex. A traceback is
// the engine's, not the executor's: the executor keeps the grid, and the
// tree is followed here from whatever cell the answer selects (Traceable).
func runGrid(ctx context.Context, l *Loaded, ex backend.Executor, opt backend.Options) (*Result, error) {
	trace := opt.Traceback
	if trace {
		keep := opt.Maintain || l.Problem.Maintain
		if !Traceable(l.Plan) {
			return nil, InputError(&source.Error{Pos: l.Problem.AnswerPos, Msg: fmt.Sprintf("traceback starts at the cell the answer selects, but the answer of %s selects none: it combines several cells", l.Problem.Name)})
		}
		opt.Traceback, opt.Maintain = false, true
		if !keep && plan.GridBytes(l.Problem) > plan.TraceBudget(opt.TraceMemory) {
			return traceOverBudget(ctx, l, ex, opt)
		}
	}
	return runWhole(ctx, l, ex, opt, trace)
}

// runWhole runs l with ex as opt says and, with trace, walks back through
// the whole grid the run kept.
func runWhole(ctx context.Context, l *Loaded, ex backend.Executor, opt backend.Options, trace bool) (*Result, error) {
	start := time.Now()
	res, err := ex.Run(ctx, l.Problem, l.Plan, opt)
	if err != nil {
		return nil, err
	}
	if res.Stats.Seconds == 0 {
		res.Stats.Seconds = time.Since(start).Seconds()
	}
	out := &Result{Grid: res, Backend: res.Backend, Device: res.Device}
	if trace {
		if out.Tree, err = walkBack(l, res, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// traceOverBudget traces back a problem whose grid is larger than the
// traceback may keep on the host: in the memory of ex's GPU when it has
// room (one pass at full speed), else from checkpoints (plan.Traceback),
// else — a recurrence that cannot be split into bands — the whole grid on
// the host as before, unless the user capped the memory.
func traceOverBudget(ctx context.Context, l *Loaded, ex backend.Executor, opt backend.Options) (*Result, error) {
	lay, layErr := plan.Traceback(l.Problem, l.Plan, opt.TraceMemory)
	if d, ok := ex.(backend.OnDevice); ok {
		res, err := traceOnDevice(ctx, l, ex, opt, lay, layErr)
		if err == nil || !(errors.Is(err, backend.ErrNotOnDevice) || errors.Is(err, hostmem.ErrTooLarge)) {
			return res, err
		}
		if errors.Is(err, hostmem.ErrTooLarge) && l.Plan.Answer.Kind != plan.AnswerRegion {
			// Larger than the GPU's memory: bands that fit it, one at a
			// time. (A region answer would be read cell by cell from
			// every band: bands on the host instead.)
			free := d.DeviceFree()
			if opt.DeviceBudget > 0 {
				free = min(free, opt.DeviceBudget)
			}
			for _, dl := range deviceLayouts(l, free, opt.TraceMemory, checkpoint.KeepsCheckpoints(ex, l.Plan)) {
				res, err := traceBands(ctx, l, ex, opt, dl)
				if err == nil || !errors.Is(err, backend.ErrNotOnDevice) {
					return res, err
				}
			}
		}
		// The device cannot hold it, or its kernel does not lay the grid
		// out whole: on the host.
	}
	switch {
	case layErr != nil:
		return nil, InputError(layErr)
	case !lay.Whole:
		if _, dev := ex.(backend.OnDevice); !dev {
			lay = hostLayout(l, lay, opt.TraceMemory, checkpoint.KeepsCheckpoints(ex, l.Plan))
		}
		return traceBands(ctx, l, ex, opt, lay)
	case opt.TraceMemory > 0:
		// The user's cap, and a recurrence that keeps the whole grid.
		return nil, InputError(fmt.Errorf("a traceback of the %s keeps the whole grid (%s), more than the traceback memory (%s): %s", l.Problem.GridText(), hostmem.Bytes(lay.Bytes), hostmem.Bytes(opt.TraceMemory), lay.Why))
	}
	return runWhole(ctx, l, ex, opt, true)
}

// HostTraceLayout is how a traceback of l keeps the grid on the host
// within budget (the user's --traceback-memory, 0: not given), as solve
// -b cpu chooses it: the whole grid where it fits; else blocks where the
// CPU executor keeps checkpoint columns of it (plan.HostBlocks), else
// bands (plan.Traceback).
func HostTraceLayout(l *Loaded, budget int64) (plan.TraceLayout, error) {
	lay, err := plan.Traceback(l.Problem, l.Plan, budget)
	if err != nil || lay.Whole {
		return lay, err
	}
	return hostLayout(l, lay, budget, checkpoint.KeepsCheckpoints(cpu.New(1), l.Plan)), nil
}

// hostLayout is blocks (plan.HostBlocks) instead of bands, lay, where the
// executor keeps checkpoint columns (keepsColumns) and they fit budget:
// the walk recomputes a few percent of the grid instead of half of it.
func hostLayout(l *Loaded, lay plan.TraceLayout, budget int64, keepsColumns bool) plan.TraceLayout {
	if keepsColumns {
		if bl, err := plan.HostBlocks(l.Problem, l.Plan, budget); err == nil {
			return bl
		}
	}
	return lay
}

// GPUTraceLayout is how a traceback of l would keep the grid on a GPU with
// free bytes of memory, budget the user's --traceback-memory (0: not
// given), as solve chooses it (traceOverBudget): the host's layout where
// it keeps the whole grid; else the whole grid in GPU memory where it fits
// there and the GPU's kernel for it keeps a grid on the device; else blocks
// where the GPU's strip kernel keeps checkpoint columns of it, else bands
// that fit the GPU, one at a time; else the host's checkpoints. For check,
// which opens no GPU: solve also weighs the run's other buffers, and
// reports what it did.
func GPUTraceLayout(l *Loaded, free, budget int64) (plan.TraceLayout, error) {
	p, pl := l.Problem, l.Plan
	host, err := plan.Traceback(p, pl, budget)
	if err == nil && host.Whole {
		return host, nil
	}
	strip := codegen.StripFits(pl) && pl.Direction != plan.Backward
	if n := plan.GridBytes(p); n <= free && (strip || pl.Schedule.Generic()) {
		return plan.TraceLayout{Device: true, Bytes: n, Recompute: 1,
			Why: fmt.Sprintf("the whole grid (%s) stays in GPU memory (%s free); the walk reads back the tiles it crosses", hostmem.Bytes(n), hostmem.Bytes(free))}, nil
	}
	if pl.Answer.Kind != plan.AnswerRegion {
		if lays := deviceLayouts(l, free, budget, strip); len(lays) > 0 {
			return lays[0], nil
		}
	}
	return host, err
}

// deviceLayouts are the layouts of a traceback of l over a GPU's memory
// (free bytes), in the order to try them: blocks, where the executor
// keeps checkpoint columns (keepsColumns) — the walk recomputes only the
// blocks it enters, a few percent of the grid, not every band it crosses
// — then bands that fit the GPU, one at a time; those that apply.
func deviceLayouts(l *Loaded, free, budget int64, keepsColumns bool) []plan.TraceLayout {
	var lays []plan.TraceLayout
	if keepsColumns {
		kept := blocksBudget(budget)
		if bl, err := plan.DeviceBlocks(l.Problem, l.Plan, free, kept); err == nil {
			if budget <= 0 {
				bl.Why += fmt.Sprintf(" (no --traceback-memory: up to a quarter of the host's available memory, at most 4 GiB, for the checkpoints: %s)", hostmem.Bytes(kept))
			}
			lays = append(lays, bl)
		}
	}
	if dl, err := plan.DeviceBands(l.Problem, l.Plan, free, budget); err == nil {
		lays = append(lays, dl)
	}
	return lays
}

// blocksBudget is what a traceback in blocks may keep on the host: the
// user's --traceback-memory, else a quarter of the memory the host has
// available, between plan.DefaultTraceMemory and 4 GiB. With the default
// alone, the checkpoints of a grid larger than a GPU's memory would make
// its blocks larger than the GPU (two bacterial genomes: blocks of 1.9M
// cells a side), and the traceback fall back to bands, several times
// slower; 4 GiB of them trace two bacterial genomes back in blocks of
// 91,474 cells a side.
func blocksBudget(given int64) int64 {
	if given > 0 {
		return given
	}
	avail, ok := hostmem.Available()
	if !ok {
		return plan.DefaultTraceMemory
	}
	return max(plan.DefaultTraceMemory, min(avail/4, 4<<30))
}

// traceOnDevice solves l keeping the whole grid in the memory of ex's
// device (a GPU's is often larger than the traceback may take on the
// host) and walks back reading the cells in tiles (backend.DeviceGrid):
// one pass at full speed, and host memory for a few tiles. lay is the
// host layout it replaces, reported with Device set.
func traceOnDevice(ctx context.Context, l *Loaded, ex backend.Executor, opt backend.Options, lay plan.TraceLayout, layErr error) (*Result, error) {
	start := time.Now()
	opt.KeepOnDevice = true
	res, err := ex.Run(ctx, l.Problem, l.Plan, opt)
	if err != nil {
		return nil, err
	}
	g := res.DeviceGrid
	if g == nil {
		return nil, fmt.Errorf("internal error: the %s backend kept no grid on its device", res.Backend)
	}
	defer g.Close()
	tree, err := walkBack(l, res, g)
	if err != nil {
		return nil, err
	}
	res.DeviceGrid = nil
	res.Stats.Seconds = time.Since(start).Seconds()
	host := lay.Why
	if layErr != nil {
		host = layErr.Error()
	}
	dev := plan.TraceLayout{Device: true, Bytes: plan.GridBytes(l.Problem), Recompute: 1,
		Why: fmt.Sprintf("the whole grid stays in GPU memory; the walk read %d tiles of it back (on the host: %s)", g.Reads(), host)}
	return &Result{Grid: res, Tree: tree, Backend: res.Backend, Device: res.Device, Trace: &dev}, nil
}

// traceBands solves l for a traceback in linear memory (package
// checkpoint): the forward pass keeps checkpoint rows, the walk
// recomputes the bands it enters. The result has no grid; its statistics
// count both passes.
func traceBands(ctx context.Context, l *Loaded, ex backend.Executor, opt backend.Options, lay plan.TraceLayout) (*Result, error) {
	start := time.Now()
	res, g, err := checkpoint.Run(ctx, ex, l.Problem, l.Plan, opt, lay)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	out := &Result{Grid: res, Backend: res.Backend, Device: res.Device, Trace: &lay}
	if out.Tree, err = walkBack(l, res, g); err != nil {
		return nil, err
	}
	g.Done()
	res.Stats.Cells = g.Cells
	res.Stats.Seconds = time.Since(start).Seconds()
	out.Recomputed, out.Ahead = g.Recomputed, g.Ahead
	return out, nil
}

// Traceable reports whether a traceback of a problem planned as pl has a
// cell to start from (contract v2 §7.4): the answer is one cell, a min or
// max over a region of cells or of given cells (the winning cell starts
// it), or an expression of one cell (S0 * cell[0][0]). A sum, or an expression of
// several cells, selects none; a problem without a plan (TSP) has nothing
// to trace back, and its solver returns the tour anyway.
func Traceable(pl *plan.Plan) bool {
	if pl == nil {
		return true
	}
	switch a := pl.Answer; a.Kind {
	case plan.AnswerCell:
		return true
	case plan.AnswerRegion:
		return a.Op != ir.ReduceSum
	case plan.AnswerExpr:
		cells, _ := a.Choices()
		return len(a.Cells) == 1 || cells != nil
	}
	return false
}

// answerCell is the cell a traceback starts from: the one the answer
// selected, the one cell an answer expression reads, or the winner of a
// max or min of cells (AnswerSpec.Choices) read from src, by the rule
// the evaluators and the traceback's steps follow (eval.WinningArg).
func answerCell(l *Loaded, res *backend.Result, src traceback.Source) (i, j int64, ok bool) {
	i, j, ok = res.AnswerI, res.AnswerJ, res.AnswerIsCell
	if a := l.Plan.Answer; !ok && a.Kind == plan.AnswerExpr && len(a.Cells) == 1 {
		i, j, ok = a.Cells[0][0], a.Cells[0][1], true
	}
	if cells, isMin := l.Plan.Answer.Choices(); !ok && src != nil && cells != nil {
		vals := make([]ir.Value, len(cells))
		for k, c := range cells {
			vals[k] = src.At(c[0], c[1])
		}
		c := cells[eval.WinningArg(isMin, vals)]
		return c[0], c[1], true
	}
	return i, j, ok
}

// walkBack follows the traceback tree from the cell the answer selected
// in res, over src (nil: res's whole grid), and fills res's Path and
// Emitted when the tree is a path. An error of the recurrence (a cycle, a
// read outside the grid, a tree of shared cells) is an input error; one
// of src (a band that could not be recomputed) is returned as it is.
func walkBack(l *Loaded, res *backend.Result, src traceback.Source) (*traceback.Node, error) {
	cells := src
	if cells == nil && res.Grid != nil {
		cells = traceback.GridSource(res.Grid)
	}
	i, j, ok := answerCell(l, res, cells)
	if !ok {
		return nil, fmt.Errorf("internal error: the %s backend reported no answer cell to trace back from", res.Backend)
	}
	trace := phases.Start("traceback walk")
	defer trace.Print(os.Stderr)
	var tree *traceback.Node
	var err error
	if src == nil {
		tree, err = traceback.Tree(l.Problem, res.Grid, i, j)
	} else {
		tree, err = traceback.TreeFrom(l.Problem, src, i, j)
	}
	if err != nil {
		if src != nil && src.Err() != nil {
			return nil, err
		}
		return nil, InputError(err)
	}
	trace.Mark("tree (with the bands it recomputed)")
	if path, emitted, ok := tree.Path(); ok {
		res.Path, res.Emitted = path, emitted
	}
	trace.Mark("path")
	return tree, nil
}
