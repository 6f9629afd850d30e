package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/report"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure cells per second over sizes and backends",
		Description: `Runs each problem (a .dp file or a built-in; default lcs) on a random instance of each size:
sequence pairs of that length for lcs/editdistance/alignments, that many items (capacity 100*size unless
--set cap=...) for the knapsacks, size x size grids for manhattan, and for other files random data of that
size on every input side declared '?'. Reports the median, min and max wall time of --reps runs after
--warmup runs, cells per second (GCUPS) and memory.`,
		ArgsUsage: "[FILE|BUILTIN...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "size", Aliases: []string{"n"}, Value: "1000,2000,4000", Usage: "comma-separated sizes"},
			&cli.StringFlag{Name: "backend", Aliases: []string{"b"}, Value: "cpu", Usage: "comma-separated backends: cpu, cuda, auto"},
			&cli.IntFlag{Name: "reps", Value: 5, Usage: "measured runs per point"},
			&cli.IntFlag{Name: "warmup", Value: 1, Usage: "unmeasured runs per point first"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"t"}, Usage: "CPU threads (default: one per core)"},
			&cli.StringSliceFlag{Name: "set", Aliases: []string{"s"}, Usage: "set a scalar: NAME=VALUE"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed of the instances"},
			&cli.BoolFlag{Name: "maintain", Usage: "keep the whole grid (measures the copy-back; the grid is allocated once, before the timed runs)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "csv", Usage: "print CSV"},
			&cli.StringFlag{Name: "plot", Usage: "write a PNG of GCUPS against size per backend to `FILE`"},
		},
		Action: benchAction,
	}
}

func benchAction(c *cli.Context) error {
	var sizes []int
	for _, s := range strings.Split(c.String("size"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return usageErr("--size %q: want positive integers separated by commas", c.String("size"))
		}
		sizes = append(sizes, n)
	}
	sets, err := overrides("set", c.StringSlice("set"))
	if err != nil {
		return err
	}
	names := c.Args().Slice()
	if len(names) == 0 {
		names = []string{"lcs"}
	}
	var all []engine.BenchRow
	for _, name := range names {
		spec := engine.BenchSpec{
			Problem: name, Sizes: sizes, Backends: strings.Split(c.String("backend"), ","),
			Reps: c.Int("reps"), Warmup: c.Int("warmup"), Threads: c.Int("threads"), Sets: sets,
			Seed: c.Uint64("seed"), Maintain: c.Bool("maintain"),
		}
		rows, err := engine.Bench(c.Context, spec, func(s string) { fmt.Fprintln(c.App.ErrWriter, "bench: "+s) })
		if err != nil {
			return err
		}
		all = append(all, rows...)
	}
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
	if path := c.String("plot"); path != "" {
		if err := benchPlot(path, all); err != nil {
			return fmt.Errorf("writing plot %s: %w", path, err)
		}
		fmt.Fprintf(c.App.ErrWriter, "bench: plot written to %s\n", path)
	}
	return nil
}

func benchTable(w io.Writer, rows []engine.BenchRow) {
	fmt.Fprintf(w, "%-14s %9s %-6s %12s %11s %11s %11s %9s %9s %10s %10s\n",
		"problem", "size", "backend", "cells", "median s", "min s", "max s", "GCUPS", "kern GCUPS", "host mem", "dev mem")
	for _, r := range rows {
		kern := "-"
		if r.ComputeGCUPS > 0 {
			kern = fmt.Sprintf("%.3f", r.ComputeGCUPS)
		}
		fmt.Fprintf(w, "%-14s %9d %-6s %12d %11.6f %11.6f %11.6f %9.3f %9s %10s %10s\n",
			r.Problem, r.Size, r.Backend, r.Cells, r.Median, r.Min, r.Max, r.GCUPS, kern,
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
	p := plot.New()
	p.Title.Text = "dpgpu bench"
	p.X.Label.Text = "size"
	p.Y.Label.Text = "GCUPS (wall)"
	series := map[string]plotter.XYs{}
	var order []string
	for _, r := range rows {
		key := r.Problem + " / " + r.Backend
		if _, ok := series[key]; !ok {
			order = append(order, key)
		}
		series[key] = append(series[key], plotter.XY{X: float64(r.Size), Y: r.GCUPS})
	}
	var args []any
	for _, k := range order {
		args = append(args, k, series[k])
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
