package main

import (
	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/engine"
)

// problemArgs is the ArgsUsage of the commands that load one problem.
const problemArgs = "FILE|BUILTIN [ARG FILES...]"

// commands is the command-line surface of dpgpu in one place: each
// command's name, usage and flags. Each command's action lives in its own
// file (check.go, solve.go, batch.go, bench.go, gen.go, problems.go); gen-data builds
// its subcommands from the problems registry (gendata.go).
func commands() []*cli.Command {
	return []*cli.Command{
		{
			Name: "check", Usage: "check a problem and print its analysis: grid, inputs, dependencies, schedule, prev, memory",
			ArgsUsage: problemArgs, Action: checkAction,
			Flags: append(inputFlags(), &cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
				&cli.BoolFlag{Name: "maintain", Usage: "estimate memory for a run that keeps the whole grid (solve --maintain, --grid, --traceback)"},
				&cli.IntFlag{Name: "threads", Aliases: []string{"t"}, Usage: "estimate memory for this many CPU worker threads (default: one per core)"},
				traceMemoryFlag,
				&cli.StringFlag{Name: deviceMemoryFlag.Name, Usage: "also print how a traceback would keep the grid on a GPU with this much memory free (e.g. 80G): in its memory, in blocks or in bands"}),
		},
		{
			Name: "solve", Usage: "solve a problem and print the answer, the solution and the speed",
			ArgsUsage: problemArgs, Action: solveAction,
			Flags: append(inputFlags(),
				&cli.StringFlag{Name: "backend", Aliases: []string{"b"}, Value: "auto", Usage: "auto (GPU if present, else CPU; the CPU for a recurrence computed one cell after another), cpu or cuda"},
				&cli.IntFlag{Name: "threads", Aliases: []string{"t"}, Usage: "CPU worker threads (default: one per core)"},
				&cli.BoolFlag{Name: "traceback", Aliases: []string{"T"}, Usage: "follow the solution back from the answer and print it (keeps the grid, or checkpoints of it: --traceback-memory)"},
				traceMemoryFlag,
				deviceMemoryFlag,
				&cli.StringFlag{Name: "gpus", Usage: "the GPUs to use: all, or device numbers such as 0,1; Held-Karp spreads over all of them, a wavefront (also several tables) is split into row bands of strips dealt round-robin to the GPUs; other grid problems run on the first"},
				&cli.StringFlag{Name: "grid", Usage: "write the whole grid to `FILE` (.npy, .csv, or .npz: one array per table; several tables in .npy or .csv go to one file per table, FILE.NAME.npy); keeps the grid"},
				&cli.BoolFlag{Name: "maintain", Usage: "keep the whole grid, as `maintain: 1` does"},
				&cli.BoolFlag{Name: "no-special", Usage: "run the schedule even where the planner recognised a better algorithm (bit-parallel LCS, edit distance): for comparisons"},
				&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
				&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text, or for an alignment (two sequences A and B) paf or sam: the traceback as one PAF line (minimap2's format, with cg:Z: CIGAR) or a SAM file; implies --traceback"},
				&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar"},
			),
		},
		batchCommand(),
		{
			Name: "bench", Usage: "measure cells per second over sizes and backends",
			Description: `Runs each problem (a .dp file or a built-in; default lcs) on a random instance of each size:
sequence pairs of that length for lcs/editdistance/alignments, that many items (capacity 100*size unless
--set cap=...) for the knapsacks, size x size grids for manhattan, and for other files random data of that
size on every input side declared '?' (a file without '?' inputs is benched once at its own size, shown
as size "own"). Reports the median, min and max wall time of --reps runs after
--warmup runs, cells per second (GCUPS) and memory.`,
			ArgsUsage: "[FILE|BUILTIN...]", Action: benchAction,
			Flags: []cli.Flag{
				&cli.StringSliceFlag{Name: "size", Aliases: []string{"n"}, Usage: "sizes, separated by commas or given again (default: a built-in's own, else " + sizesText(engine.DefaultBenchSizes()) + ")"},
				&cli.StringFlag{Name: "backend", Aliases: []string{"b"}, Value: "cpu", Usage: "comma-separated backends: cpu, cuda, auto"},
				&cli.IntFlag{Name: "reps", Value: 5, Usage: "measured runs per point"},
				&cli.IntFlag{Name: "warmup", Value: 1, Usage: "unmeasured runs per point first"},
				&cli.IntFlag{Name: "threads", Aliases: []string{"t"}, Usage: "CPU threads (default: one per core)"},
				&cli.StringSliceFlag{Name: "set", Aliases: []string{"s"}, Usage: "set a scalar: NAME=VALUE"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed of the instances"},
				&cli.BoolFlag{Name: "maintain", Usage: "keep the whole grid (measures the copy-back; the grid is allocated once, before the timed runs)"},
				&cli.BoolFlag{Name: "no-special", Usage: "run the schedule even where the planner recognised a better algorithm (bit-parallel LCS, edit distance): for comparisons"},
				&cli.BoolFlag{Name: "json", Usage: "print JSON"},
				&cli.BoolFlag{Name: "csv", Usage: "print CSV"},
				&cli.StringFlag{Name: "plot", Usage: "write a chart of GCUPS against size per backend to `FILE` (.png, .svg or .jpg)"},
			},
		},
		{
			Name: "gen", Usage: "print the CUDA C generated for a problem (what NVRTC compiles), or with --host the C++ the CPU backend compiles",
			ArgsUsage: problemArgs, Action: genAction,
			Flags: append(inputFlags(), &cli.BoolFlag{Name: "maintain", Usage: "generate the kernels that keep the whole grid"},
				&cli.BoolFlag{Name: "host", Usage: "print the host program (C++ for the system compiler, -b cpu) instead"}),
		},
		genDataCommand(),
		{
			Name: "problems", Usage: "list the built-in problems, or print one's .dp file",
			Action: problemsAction,
			Subcommands: []*cli.Command{{
				Name: "show", Usage: "print a built-in problem's .dp file",
				ArgsUsage: "NAME", Action: problemsShowAction,
			}},
		},
	}
}
