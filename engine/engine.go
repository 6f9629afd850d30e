// Package engine strings the pipeline's stages together for the command line
// and for tests: resolve a problem (a file or a built-in name), parse it
// (dsl), check it (sema), plan it (plan), pick an executor (runtime/cpu,
// runtime/gpu) and run it. Each stage stays in its own package; this one
// only sequences them and keeps their results side by side.
package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/runtime"
	"github.com/dpgpu/dpgpu/sema"
)

// Source is the text of a problem and where it came from.
type Source struct {
	Name    string // what the user typed: a path or a built-in name
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

// Resolve finds a problem: an existing file path, else a built-in name.
func Resolve(name string) (*Source, error) {
	if st, err := os.Stat(name); err == nil && !st.IsDir() {
		text, err := os.ReadFile(name)
		if err != nil {
			return nil, InputError(fmt.Errorf("reading %s: %w", name, err))
		}
		return &Source{Name: name, Path: name, Text: text}, nil
	}
	if b, ok := problems.Lookup(name); ok {
		return &Source{Name: name, Text: b.Source, Builtin: true}, nil
	}
	if strings.HasSuffix(name, ".dp") || strings.ContainsRune(name, filepath.Separator) {
		return nil, InputError(fmt.Errorf("%s: no such file", name))
	}
	return nil, InputError(fmt.Errorf("%q is neither a file nor a built-in problem (built-ins: %s)", name, strings.Join(problems.Names(), ", ")))
}

// Loaded is a problem taken through the front end and the planner.
type Loaded struct {
	Source  *Source
	File    *dsl.File
	Problem *ir.Problem
	Plan    *plan.Plan
}

// Load parses, checks and plans src. Errors from the `.dp` file are
// dsl.ErrorLists wrapped as input errors; FormatError renders them.
func Load(src *Source, cfg sema.Config) (*Loaded, error) {
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
	p, err := sema.Check(f, cfg)
	if err != nil {
		return nil, InputError(err)
	}
	pl, err := plan.Analyze(p)
	if err != nil {
		return nil, InputError(err)
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
	return dsl.Format(err, text)
}

// StartGrid begins allocating, in the background, the grid that a run of l
// with opt keeps: the pages of a grid of gigabytes take a good part of a
// second to fault in, time that can overlap the GPU driver's start-up. The
// returned function waits for it and returns opt with Grid set. It leaves
// opt as it is for grids under 64 MB, for grids that would not fit in the
// available memory (the executor then says so before allocating) and for
// Held-Karp problems, which keep no grid.
func StartGrid(l *Loaded, opt runtime.Options) func() runtime.Options {
	p := l.Problem
	bytes := p.Cells() * int64(p.CellType.Size())
	if !opt.KeepGrid(p) || l.Plan.Schedule == plan.HeldKarp || bytes < 64<<20 {
		return func() runtime.Options { return opt }
	}
	if avail, ok := hostmem.Available(); ok && bytes > avail {
		return func() runtime.Options { return opt }
	}
	ch := make(chan *runtime.Grid, 1)
	go func() { ch <- runtime.NewGrid(p.CellType, p.Rows, p.Cols) }()
	return func() runtime.Options {
		opt.Grid = <-ch
		return opt
	}
}

// Run solves a loaded problem with an executor, routing Held-Karp problems
// to the TSP solver.
func Run(ctx context.Context, l *Loaded, ex runtime.Executor, opt runtime.Options) (*runtime.Result, error) {
	if l.Plan.Schedule == plan.HeldKarp {
		return runHeldKarp(ctx, l, ex, opt)
	}
	start := time.Now()
	res, err := ex.Run(ctx, l.Problem, l.Plan, opt)
	if err != nil {
		return nil, err
	}
	if res.Stats.Seconds == 0 {
		res.Stats.Seconds = time.Since(start).Seconds()
	}
	return res, nil
}
