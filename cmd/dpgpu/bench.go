package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/report"
)

// benchSpec reads and checks the flags of bench before anything runs.
func benchSpec(c *cli.Context) (engine.BenchSpec, error) {
	var spec engine.BenchSpec
	if c.IsSet("size") { // else each problem's own sizes (engine.Bench)
		// (A string slice: `--size 300 --size 600` is both sizes, as
		// `--size 300,600` is; a string flag kept the last. The app does
		// not split slice flags: --set values hold commas.)
		for _, s := range strings.Split(strings.Join(c.StringSlice("size"), ","), ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return spec, usageErr("--size %q: want positive integers separated by commas", strings.Join(c.StringSlice("size"), ","))
			}
			spec.Sizes = append(spec.Sizes, n)
		}
	}
	for _, b := range strings.Split(c.String("backend"), ",") {
		b = strings.TrimSpace(b)
		if !slices.Contains(engine.Backends, b) && b != "gpu" {
			return spec, usageErr("--backend %q: unknown backend %q (want auto, cpu or cuda, separated by commas)", c.String("backend"), b)
		}
		spec.Backends = append(spec.Backends, b)
	}
	if c.Int("reps") < 1 {
		return spec, usageErr("--reps %d: want at least 1 measured run", c.Int("reps"))
	}
	if c.Int("warmup") < 0 {
		return spec, usageErr("--warmup %d: want 0 or more", c.Int("warmup"))
	}
	if n := c.Int("threads"); n < 0 || n > maxThreads {
		return spec, usageErr("--threads %d: want 1..%d, or 0 for one per core", n, maxThreads)
	}
	if c.Bool("json") && c.Bool("csv") {
		return spec, usageErr("bench: --json and --csv: pick one")
	}
	if path := c.String("plot"); path != "" {
		if !slices.Contains(plotFormats, strings.ToLower(filepath.Ext(path))) {
			return spec, usageErr("--plot %s: the file must end in one of %s", path, strings.Join(plotFormats, " "))
		}
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return spec, usageErr("--plot %s: the directory %s does not exist", path, filepath.Dir(path))
		}
	}
	sets, err := overrides("set", c.StringSlice("set"))
	if err != nil {
		return spec, err
	}
	spec.Reps, spec.Warmup, spec.Threads, spec.Sets = c.Int("reps"), c.Int("warmup"), c.Int("threads"), sets
	spec.Seed, spec.Maintain, spec.NoSpecial = c.Uint64("seed"), c.Bool("maintain"), c.Bool("no-special")
	return spec, nil
}

// benchAction benches every problem named. A problem that cannot be
// benched (a bad file, a backend that is not there, a run-time error) is
// reported and the others still run: the table shows everything that was
// measured, and the exit status says that something failed.
func benchAction(c *cli.Context) error {
	spec, err := benchSpec(c)
	if err != nil {
		return err
	}
	names := c.Args().Slice()
	if len(names) == 0 {
		names = []string{"lcs"}
	}
	notice := func(s string) { fmt.Fprintln(c.App.ErrWriter, "bench: "+escapeControl(s)) }
	var all []engine.BenchRow
	var failed []error
	for _, name := range names {
		spec.Problem = name
		rows, err := engine.Bench(c.Context, spec, notice)
		all = append(all, rows...)
		if c.Context.Err() != nil {
			break
		}
		if err != nil {
			notice("could not bench " + name + ": " + err.Error())
			failed = append(failed, err)
		}
	}
	if len(all) > 0 || len(failed) == 0 {
		switch {
		case c.Bool("json"):
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			if err := enc.Encode(all); err != nil {
				return err
			}
		case c.Bool("csv"):
			if err := benchCSV(c.App.Writer, all); err != nil {
				return err
			}
		default:
			benchTable(c.App.Writer, all)
		}
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	if path := c.String("plot"); path != "" && len(all) > 0 {
		if err := benchPlot(path, all); err != nil {
			return fmt.Errorf("writing plot %s: %w", path, err)
		}
		fmt.Fprintf(c.App.ErrWriter, "bench: plot written to %s\n", path)
	}
	return errors.Join(failed...)
}

// sizesText is a list of sizes as --size takes them: "1000,2000".
func sizesText(sizes []int) string {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// sizeText is a row's size for the table: "own" for a problem benched at
// its own size.
func sizeText(n int) string {
	if n == 0 {
		return "own"
	}
	return strconv.Itoa(n)
}

func benchTable(w io.Writer, rows []engine.BenchRow) {
	fmt.Fprintf(w, "%-14s %9s %-6s %12s %11s %11s %11s %9s %9s %10s %10s\n",
		"problem", "size", "backend", "cells", "median s", "min s", "max s", "GCUPS", "kern GCUPS", "host mem", "dev mem")
	for _, r := range rows {
		kern := "-"
		if r.ComputeGCUPS > 0 {
			kern = fmt.Sprintf("%.3f", r.ComputeGCUPS)
		}
		fmt.Fprintf(w, "%-14s %9s %-6s %12d %11.6f %11.6f %11.6f %9.3f %9s %10s %10s\n",
			r.Problem, sizeText(r.Size), r.Backend, r.Cells, r.Median, r.Min, r.Max, r.GCUPS, kern,
			report.Bytes(r.PeakHostBytes), report.Bytes(r.DeviceBytes))
	}
}

func benchCSV(w io.Writer, rows []engine.BenchRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"problem", "size", "rows", "cols", "backend", "device", "cells", "median_s", "min_s", "max_s", "gcups", "compute_median_s", "compute_gcups", "peak_host_bytes", "device_bytes"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, r := range rows {
		cw.Write([]string{r.Problem, strconv.Itoa(r.Size), fmt.Sprint(r.Rows), fmt.Sprint(r.Cols), r.Backend, r.Device,
			fmt.Sprint(r.Cells), f(r.Median), f(r.Min), f(r.Max), f(r.GCUPS), f(r.ComputeMedian), f(r.ComputeGCUPS),
			fmt.Sprint(r.PeakHostBytes), fmt.Sprint(r.DeviceBytes)})
	}
	cw.Flush()
	return cw.Error()
}

func benchPlot(path string, rows []engine.BenchRow) error {
	c := &chart{Title: "dpgpu bench", XLabel: "size", YLabel: "GCUPS (wall)"}
	at := map[string]int{}
	for _, r := range rows {
		key := r.Problem + " / " + r.Backend
		k, ok := at[key]
		if !ok {
			k = len(c.Series)
			at[key] = k
			c.Series = append(c.Series, plotSeries{Name: key})
		}
		c.Series[k].X = append(c.Series[k].X, float64(r.Size))
		c.Series[k].Y = append(c.Series[k].Y, r.GCUPS)
	}
	return writePlot(path, c)
}
