package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/report"
	"github.com/dpgpu/dpgpu/source"
)

// batchDescription is `dpgpu batch --help`'s text.
var batchDescription = `Solves many instances of one problem in one run and writes one line per instance, in
input order. Each ARG fills the problem's positional arguments (its args: line) as for solve, except that
an argument holding several instances is iterated:

   FILE.fa, .fasta, .fna   one instance per record (named by the record's ID, the header's first word)
   DIRECTORY               one instance per regular file in it, sorted by name (hidden files left out)
   @LIST                   one instance per path listed in the text file LIST, one a line ('#' comments
                           and blank lines skipped; relative paths are relative to LIST's directory)

Any other file is shared by every instance. With two such arguments every instance of the first is run
against every instance of the second (one-vs-many: reads.fa ref.fa); --pairs pairs them record by record
instead. A record that cannot be used (a byte no char input holds, an instance whose run fails) gives a
line with its names and the error, and the batch goes on; the exit status is then 2.

--format paf writes one PAF line an alignment (minimap2's format: names, lengths, coordinates, matches,
columns, NM:i, AS:i, cg:Z: with =XID), and '#' lines for instances that failed.

Output (TSV with a header line, or JSON Lines): n (1-based), one column per argument with the record's
name, the answer, with --traceback the CIGAR (rows' sequence as the query: M diagonal, I down, D right)
and the built-in's solution text (else the emitted values, else the path), and the error.
TSV escapes backslash, tab, newline and CR as \\, \t, \n, \r.

On the CPU the instances run concurrently, one thread each (--threads: how many at once), as many as
fit in memory. With --backend cuda the cores read, check and plan the instances and the GPUs (--gpus,
default GPU 0; several take launches from one queue) compute them many to a launch, one warp an
instance: instances of one shape (sizes, settings) share a generated batch program, and instances that
differ only in their column count (one query against a database) share one per power of two of columns.
Recurrences with no batch kernel (schedules other than the wavefront, several tables, answers over several
cells) and instances that fail on the device run one at a time, with the same results and errors as
solve. --backend auto runs small instances on the CPU cores and those of ` + report.Count(engine.GPUMinCells) + `
cells or more on the GPUs one at a time, beside the cores; a batch whose files hold ` + report.Count(engine.AutoBatchBytes) + `
bytes or more runs as with cuda where a GPU opens. DPGPU_TRACE=1 prints each phase's time.`

func batchCommand() *cli.Command {
	return &cli.Command{
		Name: "batch", Usage: "solve many instances of one problem (FASTA records, files of a directory, @list) into TSV or JSON Lines",
		Description: batchDescription,
		ArgsUsage:   "FILE|BUILTIN ARG...", Action: batchAction,
		Flags: append(inputFlags(),
			&cli.StringFlag{Name: "backend", Aliases: []string{"b"}, Value: "auto", Usage: "auto (the cores, large instances on the GPUs; a batch of 8 MB or more as cuda where a GPU opens), cpu, or cuda (many instances to a GPU launch)"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"t"}, Usage: "instances run at once on the CPU, one thread each (default: one per core)"},
			&cli.BoolFlag{Name: "pairs", Usage: "pair the multi-instance arguments record by record (default: every record of one against every record of the other)"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "tsv", Usage: "tsv, jsonl, or paf (one PAF line an alignment, with cg:Z: CIGAR; implies --traceback)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the results to `FILE` (complete or not at all) instead of stdout"},
			&cli.BoolFlag{Name: "traceback", Aliases: []string{"T"}, Usage: "add each instance's solution: CIGAR and the built-in's rendering"},
			&cli.BoolFlag{Name: "fail-fast", Usage: "stop at the first instance that fails"},
			&cli.StringFlag{Name: "gpus", Usage: "the GPUs to spread instances over: all, or device numbers such as 0,1 (default: GPU 0)"},
			&cli.BoolFlag{Name: "no-special", Usage: "run the schedule even where the planner recognised a better algorithm (bit-parallel LCS, edit distance): for comparisons"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar and no summary"},
		),
	}
}

func batchAction(c *cli.Context) (err error) {
	if err := checkBackendFlags(c); err != nil {
		return err
	}
	format := c.String("format")
	if format != "tsv" && format != "jsonl" && format != "paf" {
		return usageErr("--format %q: want tsv, jsonl or paf", format)
	}
	if c.NArg() < 1 {
		return usageErr("batch: name a .dp file or a built-in problem, then its arguments")
	}
	src, err := engine.Resolve(c.Args().First())
	if err != nil {
		return err
	}
	var args []*engine.BatchArg
	for _, a := range c.Args().Tail() {
		ba, err := engine.OpenBatchArg(a)
		if err != nil {
			return err
		}
		args = append(args, ba)
	}
	ins, err := overrides("input", c.StringSlice("input"))
	if err != nil {
		return err
	}
	sets, err := overrides("set", c.StringSlice("set"))
	if err != nil {
		return err
	}

	var out io.Writer = c.App.Writer
	var file *batchOutput
	if path := c.String("output"); path != "" {
		if file, err = openBatchOutput(path); err != nil {
			return err
		}
		defer func() {
			if !file.committed {
				file.abort()
			}
		}()
		out = file.tmp
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	traceback := c.Bool("traceback") || format == "paf"
	w, err := report.NewBatchWriter(bw, format, engine.ArgNames(src), traceback)
	if err != nil {
		return usageErr("%v", err)
	}

	opt := engine.BatchOptions{
		Config:    bind.Config{Inputs: ins, Sets: sets},
		Workers:   c.Int("threads"),
		Pairs:     c.Bool("pairs"),
		Traceback: traceback,
		FailFast:  c.Bool("fail-fast"),
		NoSpecial: c.Bool("no-special"),
		Notice:    c.App.ErrWriter,
		Notes:     func(notes source.ErrorList) { printNotes(c.App.ErrWriter, notes, src) },
	}
	gpus, err := engine.GPUs(c.String("gpus"))
	if err != nil {
		return err
	}
	// cuda runs instances many to a launch on the GPUs; auto sends the
	// large ones to a GPU one at a time, the rest to the cores, and a
	// large batch's many to a launch where a GPU opens.
	if err := engine.SetupBatch(&opt, c.String("backend"), c.Int("threads"), gpus, engine.BatchInputBytes(args), c.App.ErrWriter); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// Every instance allocates its problem, plan and buffers and drops
		// them at once; the live heap stays small (the reorder window), so
		// collecting less often is nearly free in memory and saves a third
		// of the time on small instances.
		debug.SetGCPercent(400)
	}
	quiet := c.Bool("quiet")
	bar := newBatchProgress(quiet)
	stats, runErr := engine.Batch(c.Context, src, args, opt, func(r *engine.BatchResult) error {
		bar.update(r)
		if r.Index == 0 || r.Err != nil {
			// A slow consumer (a pipe) sees the first line and errors at once.
			defer bw.Flush()
		}
		return w.Write(r)
	})
	bar.finish()
	if c.Context.Err() != nil {
		return fmt.Errorf("interrupted: %w", context.Canceled)
	}
	if stats != nil {
		// Every line written so far stays: on stdout it is what ran
		// before an error; a file is removed below unless complete.
		err = w.Header()
		if ferr := bw.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("writing the output: %w", ferr)
		}
		if err != nil {
			return err
		}
	}
	if runErr != nil && !errors.Is(runErr, engine.ErrBatchFailed) {
		return withSource(runErr, src)
	}
	// The file is the batch's whole output: it appears only when every
	// instance was run (some may have failed, each on its line), not after
	// --fail-fast stopped it.
	if file != nil && (runErr == nil || !opt.FailFast) {
		if err := file.commit(); err != nil {
			return err
		}
	}
	if !quiet {
		printBatchStats(c.App.ErrWriter, stats)
	}
	if os.Getenv("DPGPU_TRACE") != "" {
		printBatchSteps(c.App.ErrWriter, stats)
	}
	return runErr
}

// printBatchStats is the summary line on stderr.
func printBatchStats(w io.Writer, st *engine.BatchStats) {
	rate, gcups := 0.0, 0.0
	if st.Seconds > 0 {
		rate, gcups = float64(st.Instances)/st.Seconds, float64(st.Cells)/st.Seconds/1e9
	}
	fmt.Fprintf(w, "dpgpu: %d instances (%d failed) in %.3f s: %.0f instances/s, %.3f GCUPS\n", st.Instances, st.Failed, st.Seconds, rate, gcups)
}

// printBatchSteps is DPGPU_TRACE's breakdown: what each step costs per
// instance.
func printBatchSteps(w io.Writer, st *engine.BatchStats) {
	n := max(st.Instances, 1)
	per := func(d time.Duration) string { return (d / time.Duration(n)).String() }
	fmt.Fprintf(w, "batch steps per instance: bind+check %s, plan %s (%d of %d instances took their shape's plan), run %s, render %s\n",
		per(st.Bind), per(st.Plan), st.SharedPlans, st.Instances, per(st.Run), per(st.Render))
	fmt.Fprintf(w, "batch phases (wall %.3f s): reading %.3f s (parsing the files of --pairs %.3f s more, summed), binding and planning %.3f s of CPU, running %.3f s, writing %.3f s\n",
		st.Seconds, st.Read.Seconds(), st.Parse.Seconds(), (st.Bind + st.Plan).Seconds(), st.Run.Seconds(), st.Write.Seconds())
	if st.Launches > 0 {
		gcups := 0.0
		if st.Busy > 0 {
			gcups = float64(st.BatchedCells) / st.Busy.Seconds() / 1e9
		}
		fmt.Fprintf(w, "GPU batch launches: %d (%d instances, %d of them adopting their shape's recurrence; %d programs, %d of them 16-bit pairs, %d compiled): GPU busy %s (%.0f GCUPS), kernels summed %s, copies and waits %s, host packing and answers %s\n",
			st.Launches, st.Batched, st.Adopted, st.Programs, st.Packed, st.Compiled, st.Busy, gcups, st.Kernel, st.Copies, st.GPUHost)
	}
}

// batchOutput is -o FILE being written: a hidden partial file beside the
// target, renamed onto it once complete (as solve --grid does), removed on
// any failure or interruption.
type batchOutput struct {
	path      string
	tmp       *os.File
	committed bool
}

func openBatchOutput(path string) (*batchOutput, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usageErr("-o %s is a directory; name a file in it", path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usageErr("-o %s: the directory %s does not exist", path, dir)
	}
	removeStalePartials(path)
	tmp, err := os.CreateTemp(dir, partialPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, usageErr("-o %s: cannot write in %s: %v", path, dir, unwrapPath(err))
	}
	addTemp(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		return nil, fmt.Errorf("-o %s: %w", path, err)
	}
	return &batchOutput{path: path, tmp: tmp}, nil
}

func (o *batchOutput) abort() {
	o.tmp.Close()
	os.Remove(o.tmp.Name())
	dropTemp(o.tmp.Name())
}

func (o *batchOutput) commit() error {
	err := o.tmp.Close()
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.path)
	}
	if err != nil {
		o.abort()
		return fmt.Errorf("writing %s: %w", o.path, unwrapPath(err))
	}
	dropTemp(o.tmp.Name())
	o.committed = true
	return nil
}

// batchProgress shows instances done, instances/s and GCUPS on stderr once
// a batch has lasted a second, when stderr is a terminal.
type batchProgress struct {
	mu       sync.Mutex
	disabled bool
	start    time.Time
	last     time.Time
	done     int64
	cells    int64
	failed   int64
	bar      *progressbar.ProgressBar
}

func newBatchProgress(quiet bool) *batchProgress {
	return &batchProgress{disabled: quiet || !term.IsTerminal(int(os.Stderr.Fd())), start: time.Now()}
}

func (p *batchProgress) update(r *engine.BatchResult) {
	if p.disabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.cells += r.Cells
	if r.Err != nil {
		p.failed++
	}
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionClearOnFinish(),
		)
	}
	secs := now.Sub(p.start).Seconds()
	p.bar.Describe(fmt.Sprintf("%d instances (%d failed), %.0f instances/s, %.3f GCUPS", p.done, p.failed, float64(p.done)/secs, float64(p.cells)/secs/1e9))
	_ = p.bar.Add64(1)
}

func (p *batchProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}
