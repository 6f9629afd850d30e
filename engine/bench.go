package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/gen"
)

// BenchSpec says what to measure.
type BenchSpec struct {
	Problem  string   // a file or built-in name
	Sizes    []int    // instance sizes (see SizeInputs); none: the problem's own (benchSizes)
	Backends []string // "cpu", "cuda"
	Reps     int      // measured repetitions per point (median reported)
	Warmup   int      // unmeasured runs first (compilation, caches)
	Threads  int
	Sets     []bind.Override // extra --set overrides (e.g. cap=1000000)
	Seed     uint64
	Maintain bool
	// NoSpecial runs the schedule where the planner recognised a better
	// algorithm (backend.Options.NoSpecial): `bench --no-special`.
	NoSpecial bool
}

// BenchRow is one measured point. Size is 0 for a problem benched at its
// own size (one without `?` inputs, which --size cannot scale).
type BenchRow struct {
	Problem        string    `json:"problem"`
	Size           int       `json:"size"`
	Rows           int64     `json:"rows"`
	Cols           int64     `json:"cols"`
	Backend        string    `json:"backend"`
	Device         string    `json:"device"`
	Cells          int64     `json:"cells"`
	Seconds        []float64 `json:"seconds"`
	Median         float64   `json:"median_seconds"`
	Min            float64   `json:"min_seconds"`
	Max            float64   `json:"max_seconds"`
	GCUPS          float64   `json:"gcups"`
	ComputeMedian  float64   `json:"compute_median_seconds,omitempty"`
	ComputeGCUPS   float64   `json:"compute_gcups,omitempty"`
	PeakHostBytes  int64     `json:"peak_host_bytes"`
	DeviceBytes    int64     `json:"device_bytes"`
	Answer         any       `json:"answer"`
	CompileSeconds float64   `json:"compile_seconds"`
}

// SizeInputs makes a random instance of a given size for a problem, as
// the values that the binding step gives its inputs and scalars: no file
// is written. A built-in (by the name or an alias on its `problem` line)
// has its own recipe in the problems registry (sequence pairs for the
// alignments, the thesis's knapsack generator with capacity 100*size unless
// cap is set, square Manhattan grids); for any other file every input with
// a `?` side gets random data of that size on each `?` side (ACGT for
// char, 1..100 for integers, [0,1) for floating types).
func SizeInputs(l *Loaded, size int, seed uint64, sets []bind.Override) ([]bind.Value, error) {
	r := gen.NewRand(seed ^ uint64(size)*0x9e3779b97f4a7c15)
	if b, ok := problems.Lookup(l.Problem.Name); ok && b.Generate != nil {
		given := map[string]string{}
		for _, s := range sets {
			given[s.Name] = s.Value
		}
		in, err := b.Generate(r, size, given)
		if err != nil {
			return nil, InputError(err)
		}
		return instanceValues(in), nil
	}
	return genericValues(l, size, r)
}

// instanceValues are a generated instance's inputs and the scalars it
// fixes, as values.
func instanceValues(in *gen.Instance) []bind.Value {
	var vals []bind.Value
	for _, d := range in.Inputs {
		vals = append(vals, bind.Value{Name: d.Name, Text: d.Text, Ints: d.Ints, Rows: d.Rows, Cols: d.Cols})
	}
	for _, s := range in.Scalars {
		vals = append(vals, bind.Value{Name: s.Name, Ints: []int64{s.Value}})
	}
	return vals
}

// genericValues fills every input with a `?` side with random data.
func genericValues(l *Loaded, size int, r *rand.Rand) ([]bind.Value, error) {
	var vals []bind.Value
	for _, d := range l.File.Decls {
		in, ok := d.(*dsl.InputDecl)
		if !ok || (in.Dims.Rows >= 0 && in.Dims.Cols >= 0) {
			continue
		}
		name := in.Name
		if name == "" {
			name = l.Problem.Inputs[inputIndex(l, in)].Name
		}
		rows, cols := in.Dims.Rows, in.Dims.Cols
		if rows < 0 {
			rows = size
		}
		if cols < 0 {
			cols = size
		}
		v := bind.Value{Name: name, Rows: rows, Cols: cols}
		n := rows * cols
		switch in.Type {
		case "char":
			text := make([]byte, n)
			for k := range text {
				text[k] = gen.Alphabet[r.IntN(len(gen.Alphabet))]
			}
			if rows == 1 {
				v.Text = string(text)
				break
			}
			v.Ints = make([]int64, n)
			for k, c := range text {
				v.Ints[k] = int64(c)
			}
		case "float", "double":
			v.F = make([]float64, n)
			for k := range v.F {
				v.F[k] = r.Float64()
			}
		default:
			v.Ints = make([]int64, n)
			for k := range v.Ints {
				v.Ints[k] = int64(1 + r.IntN(100))
			}
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, InputError(fmt.Errorf("%s has no input with a `?` size, so --size cannot scale it; use --input/--set", l.Source.Name))
	}
	return vals, nil
}

// inputIndex finds the position of an input declaration among the file's
// inputs (unnamed inputs are named by position: in0, in1, ...).
func inputIndex(l *Loaded, target *dsl.InputDecl) int {
	k := 0
	for _, d := range l.File.Decls {
		if in, ok := d.(*dsl.InputDecl); ok {
			if in == target {
				return k
			}
			k++
		}
	}
	return 0
}

// Scalable reports whether SizeInputs can make instances of l at any
// size: a built-in with its own recipe, or a file with an input whose size
// is `?`.
func Scalable(l *Loaded) bool {
	if b, ok := problems.Lookup(l.Problem.Name); ok && b.Generate != nil {
		return true
	}
	for _, d := range l.File.Decls {
		if in, ok := d.(*dsl.InputDecl); ok && (in.Dims.Rows < 0 || in.Dims.Cols < 0) {
			return true
		}
	}
	return false
}

// DefaultBenchSizes are the sizes Bench runs a problem at when the spec
// names none and the problem is not a built-in with sizes of its own.
func DefaultBenchSizes() []int { return []int{1000, 2000, 4000} }

// benchSizes are the sizes to run l at: the spec's, else the built-in's,
// else DefaultBenchSizes.
func benchSizes(l *Loaded, spec []int) []int {
	if len(spec) > 0 {
		return spec
	}
	if b, ok := problems.Lookup(l.Problem.Name); ok && len(b.BenchSizes) > 0 {
		return b.BenchSizes
	}
	return DefaultBenchSizes()
}

// Bench measures spec. For each size it builds one random instance (the same
// for every backend), runs Warmup unmeasured runs and Reps measured ones, and
// reports the median, min and max wall time of the runs. A problem that
// --size cannot scale (no `?` input) is measured once at its own size, with
// Size 0, and notice says so. On an error Bench returns the rows measured
// before it with the error, which names the problem, size and backend:
// what ran is not thrown away.
func Bench(ctx context.Context, spec BenchSpec, notice func(string)) ([]BenchRow, error) {
	if notice == nil {
		notice = func(string) {}
	}
	src, err := Resolve(spec.Problem)
	if err != nil {
		return nil, err
	}
	base, err := Load(src, bind.Config{Sets: spec.Sets})
	if err != nil {
		return nil, fmt.Errorf("bench %s: %w", spec.Problem, err)
	}
	sizes := benchSizes(base, spec.Sizes)
	own := !Scalable(base)
	if own {
		sizes = []int{0}
		notice(fmt.Sprintf("%s has no input with a `?` size, so --size cannot scale it: benched at its own size, %dx%d", base.Problem.Name, base.Problem.Rows, base.Problem.Cols))
	}
	var rows []BenchRow
	for _, size := range sizes {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		l := base
		what := fmt.Sprintf("%s size %d", base.Problem.Name, size)
		if own {
			what = base.Problem.Name + " at its own size"
		} else {
			vals, err := SizeInputs(base, size, spec.Seed, spec.Sets)
			if err != nil {
				return rows, fmt.Errorf("bench %s: %w", what, err)
			}
			if l, err = Load(src, bind.Config{Values: vals, Sets: spec.Sets}); err != nil {
				return rows, fmt.Errorf("bench %s: %w", what, err)
			}
		}
		for _, backend := range spec.Backends {
			ex, err := NewExecutor(backend, spec.Threads, nil)
			if err != nil {
				return rows, fmt.Errorf("bench %s: %w", what, err)
			}
			notice(fmt.Sprintf("%s on %s (%s)", what, ex.Name(), ex.Device()))
			row, err := benchOne(ctx, l, ex, spec)
			if err != nil {
				return rows, fmt.Errorf("bench %s on %s: %w", what, backend, err)
			}
			row.Problem, row.Size = l.Problem.Name, size
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func benchOne(ctx context.Context, l *Loaded, ex backend.Executor, spec BenchSpec) (BenchRow, error) {
	opt := backend.Options{Threads: spec.Threads, Maintain: spec.Maintain, NoSpecial: spec.NoSpecial}
	// A kept grid is allocated once, outside the timings, and reused by
	// every run: `dpgpu solve` allocates it while the GPU driver starts, so
	// its page faults are not part of a run there either.
	opt = StartGrid(l, opt)()
	row := BenchRow{Rows: l.Problem.Rows, Cols: l.Problem.Cols, Backend: ex.Name(), Device: ex.Device()}
	var compute []float64
	for k := 0; k < spec.Warmup+max(spec.Reps, 1); k++ {
		start := time.Now()
		res, err := Run(ctx, l, ex, opt)
		if err != nil {
			return row, err
		}
		wall := time.Since(start).Seconds()
		if k < spec.Warmup {
			continue
		}
		row.Seconds = append(row.Seconds, wall)
		st := res.Stats()
		if st.ComputeSeconds > 0 {
			compute = append(compute, st.ComputeSeconds)
		}
		row.Cells = st.Cells
		row.PeakHostBytes = max(row.PeakHostBytes, st.PeakHostBytes)
		row.DeviceBytes = max(row.DeviceBytes, st.DeviceBytes)
		row.CompileSeconds = st.CompileSeconds
		row.Answer = res.Answer().String()
	}
	row.Median, row.Min, row.Max = median(row.Seconds), slices.Min(row.Seconds), slices.Max(row.Seconds)
	if row.Median > 0 {
		row.GCUPS = float64(row.Cells) / row.Median / 1e9
	}
	if len(compute) > 0 {
		row.ComputeMedian = median(compute)
		row.ComputeGCUPS = float64(row.Cells) / row.ComputeMedian / 1e9
	}
	return row, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
