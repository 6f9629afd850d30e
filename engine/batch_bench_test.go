package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// BenchmarkBatchNW is `dpgpu batch needleman-wunsch` one-vs-many on one
// worker: 150 bp against 150 bp records, the per-instance cost of issue #14.
func BenchmarkBatchNW(b *testing.B) {
	dir := b.TempDir()
	seq := benchDNA(rand.New(rand.NewPCG(1, 2)))
	q := []record{{name: "q", seq: seq(150)}}
	db := make([]record, 200)
	for k := range db {
		db[k] = record{name: fmt.Sprint("r", k), seq: seq(150)}
	}
	writeFASTA(b, filepath.Join(dir, "q.fa"), q)
	writeFASTA(b, filepath.Join(dir, "db.fa"), db)
	src, err := Resolve("needleman-wunsch")
	if err != nil {
		b.Fatal(err)
	}
	qa, _ := OpenBatchArg(filepath.Join(dir, "q.fa"))
	da, _ := OpenBatchArg(filepath.Join(dir, "db.fa"))
	b.ResetTimer()
	for b.Loop() {
		_, err := Batch(context.Background(), src, []*BatchArg{qa, da}, BatchOptions{Workers: 1}, func(*BatchResult) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(db))/1e3, "µs/instance")
}

// nullDevice stands for a GPU that computes nothing: every instance of a
// launch comes back with the answer 0, so that BenchmarkBatchGPUHost
// times what the host does for a GPU batch (reading, binding, checking,
// grouping, delivering) without a GPU.
type nullDevice struct {
	backend.Executor
}

func (nullDevice) BatchProgram(p *ir.Problem, pl *plan.Plan, vary []string, columns bool) (*codegen.Program, error) {
	return codegen.Generate(p, pl, codegen.Options{Batch: true, BatchInputs: vary, BatchColumns: columns})
}

func (nullDevice) RunBatch(_ context.Context, _ *codegen.Program, insts []gpu.BatchInstance) ([]gpu.BatchOutcome, gpu.BatchStats, error) {
	outs := make([]gpu.BatchOutcome, len(insts))
	for k, x := range insts {
		outs[k].Result = &backend.Result{Answer: ir.Value{T: x.P.CellType}}
	}
	return outs, gpu.BatchStats{}, nil
}

// BenchmarkBatchGPUHost is the host's share of `dpgpu batch -b cuda
// needleman-wunsch a.fa b.fa --pairs` (20,000 pairs of 150 bp) on
// DPGPU_BENCH_WORKERS workers (default 1), the GPU's work left out
// (nullDevice): the per-instance cost that bounds a GPU batch of short
// reads (issue #14). `dpgpu batch` runs with GOGC=400: set it to compare.
func BenchmarkBatchGPUHost(b *testing.B) {
	dir := b.TempDir()
	seq := benchDNA(rand.New(rand.NewPCG(1, 2)))
	const n = 20000
	as, bs := make([]record, n), make([]record, n)
	for k := range as {
		as[k] = record{name: fmt.Sprint("a", k), seq: seq(150)}
		bs[k] = record{name: fmt.Sprint("b", k), seq: seq(150)}
	}
	writeFASTA(b, filepath.Join(dir, "a.fa"), as)
	writeFASTA(b, filepath.Join(dir, "b.fa"), bs)
	src, err := Resolve("needleman-wunsch")
	if err != nil {
		b.Fatal(err)
	}
	workers := 1
	if s := os.Getenv("DPGPU_BENCH_WORKERS"); s != "" {
		workers, _ = strconv.Atoi(s)
	}
	b.ResetTimer()
	for b.Loop() {
		qa, _ := OpenBatchArg(filepath.Join(dir, "a.fa"))
		da, _ := OpenBatchArg(filepath.Join(dir, "b.fa"))
		_, err := Batch(context.Background(), src, []*BatchArg{qa, da}, BatchOptions{Workers: workers, Pairs: true, Devices: []BatchDevice{nullDevice{cpu.New(1)}}},
			func(*BatchResult) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1e3, "µs/instance")
}

// benchDNA makes random DNA strings of a given length from r.
func benchDNA(r *rand.Rand) func(n int) string {
	return func(n int) string {
		s := make([]byte, n)
		for k := range s {
			s[k] = "ACGT"[r.IntN(4)]
		}
		return string(s)
	}
}
