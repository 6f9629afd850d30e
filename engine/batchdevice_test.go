package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// failingDevice stands for a GPU in CI: it generates the batch programs
// (codegen runs anywhere) and reports every instance of a launch as
// failed on the device, so that each runs again alone on its executor
// (the CPU's) — the path that must give an adopted instance its own
// problem back: the CPU's executor reads inputs through the recurrence,
// which for an adopted instance is its shape's first instance's.
type failingDevice struct {
	backend.Executor
	programs, launched atomic.Int64
}

func (f *failingDevice) BatchProgram(p *ir.Problem, pl *plan.Plan, vary []string, columns bool) (*codegen.Program, error) {
	f.programs.Add(1)
	return codegen.Generate(p, pl, codegen.Options{Batch: true, BatchInputs: vary, BatchColumns: columns})
}

func (f *failingDevice) RunBatch(_ context.Context, prog *codegen.Program, insts []gpu.BatchInstance) ([]gpu.BatchOutcome, gpu.BatchStats, error) {
	if prog.Kernel != codegen.KernelBatch {
		return nil, gpu.BatchStats{}, errors.New("not a batch program")
	}
	f.launched.Add(int64(len(insts)))
	outs := make([]gpu.BatchOutcome, len(insts))
	for k := range outs {
		outs[k].Failed = true
	}
	return outs, gpu.BatchStats{}, nil
}

// TestBatchDevicePipeline runs the GPU batch pipeline on the CPU with
// failingDevice: instances grouped by shape and by column template, the
// later ones of a shape adopting its recurrence, handed to launches, run
// again alone — and every answer and error equal to the CPU batch's, in
// input order. An adopted instance run alone with the recurrence it
// adopted would compute its template's data (checked: 92 answers differ).
func TestBatchDevicePipeline(t *testing.T) {
	dir := t.TempDir()
	r := dptest.Rand(t)
	var as, bs []record
	for k := range 30 {
		as = append(as, record{name: fmt.Sprintf("a%d", k), seq: dptest.DNA(r, []int{0, 1, 17, 40, 40, 40}[k%6])})
	}
	as[7].bad = true
	for k := range 4 {
		bs = append(bs, record{name: fmt.Sprintf("b%d", k), seq: dptest.DNA(r, []int{33, 33, 70, 1}[k])})
	}
	writeFASTA(t, filepath.Join(dir, "a.fa"), as)
	writeFASTA(t, filepath.Join(dir, "b.fa"), bs)
	specs := []string{filepath.Join(dir, "a.fa"), filepath.Join(dir, "b.fa")}
	for _, name := range []string{"needleman-wunsch", "smith-waterman", "gotoh"} {
		t.Run(name, func(t *testing.T) {
			dev := &failingDevice{Executor: cpu.New(1)}
			got, st, err := runBatch(t, context.Background(), name, specs, BatchOptions{Workers: 3, Devices: []BatchDevice{dev},
				NewExecutor: func() (backend.Executor, error) { return cpu.New(1), nil }})
			if !errors.Is(err, ErrBatchFailed) {
				t.Fatalf("err %v, want ErrBatchFailed (a bad record)", err)
			}
			want, _, _ := runBatch(t, context.Background(), name, specs, BatchOptions{Workers: 2})
			sameResults(t, got, want, nil)
			for k := range got {
				if got[k].Err != nil && got[k].Err.Error() != want[k].Err.Error() {
					t.Errorf("instance %d: error %q, CPU %q", k, got[k].Err, want[k].Err)
				}
			}
			good := int64(len(as)-1) * int64(len(bs))
			// (gotoh: three tables a cell, the batch kernel's cells.)
			if st.Batched != good || dev.launched.Load() != good {
				t.Errorf("%d instances in launches (%d launched), want %d", st.Batched, dev.launched.Load(), good)
			}
			if st.Adopted == 0 {
				t.Error("no instance adopted its shape's recurrence")
			}
		})
	}
}

// TestBatchNoticeRowCounts: a batch whose instances make GPU programs of
// many row counts (a database given along the rows) says once why, and
// one whose instances differ in their columns only says nothing.
func TestBatchNoticeRowCounts(t *testing.T) {
	dir := t.TempDir()
	r := dptest.Rand(t)
	var many []record
	for k := range manyRowCounts + 4 {
		many = append(many, record{name: fmt.Sprintf("d%d", k), seq: dptest.DNA(r, 5+k)})
	}
	writeFASTA(t, filepath.Join(dir, "db.fa"), many)
	writeFASTA(t, filepath.Join(dir, "q.fa"), []record{{name: "q", seq: dptest.DNA(r, 30)}})
	db, q := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	for _, c := range []struct {
		name  string
		specs []string
		want  int
	}{
		{"database along the rows", []string{db, q}, 1},
		{"database along the columns", []string{q, db}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var notice strings.Builder
			dev := &failingDevice{Executor: cpu.New(1)}
			if _, _, err := runBatch(t, context.Background(), "needleman-wunsch", c.specs, BatchOptions{Workers: 2, Devices: []BatchDevice{dev}, Notice: &notice,
				NewExecutor: func() (backend.Executor, error) { return cpu.New(1), nil }}); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(notice.String(), "row counts"); n != c.want {
				t.Errorf("said %d times, want %d: %q", n, c.want, notice.String())
			}
		})
	}
}
