package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/gputest"
)

var batchGPU = sync.OnceValues(func() (backend.Executor, error) { return gpu.New() })

// withBatchGPU runs f with a GPU executor, or skips where there is no GPU
// (fails with DPGPU_REQUIRE_GPU=1).
func withBatchGPU(t *testing.T, f func(*testing.T, backend.Executor)) {
	ex, err := batchGPU()
	if err != nil {
		gputest.NoGPU(t, err)
		return
	}
	f(t, ex)
}

// gpuBatchRun is a batch of name over specs with its instances launched
// many at a time on ex's GPU.
func gpuBatchRun(t *testing.T, ex backend.Executor, name string, specs []string, pairs bool) ([]*BatchResult, *BatchStats, error) {
	t.Helper()
	dev, ok := ex.(*gpu.Executor)
	if !ok {
		t.Fatalf("the GPU executor is a %T", ex)
	}
	return runBatch(t, context.Background(), name, specs, BatchOptions{Workers: 3, Pairs: pairs, Devices: []BatchDevice{dev},
		NewExecutor: func() (backend.Executor, error) { return ex, nil }})
}

// sameResults compares a batch's results with the CPU's, instance by
// instance: the same answers, errors in the same instances; and, where
// oneByOne holds the GPU's results one instance at a time, the same error
// texts.
func sameResults(t *testing.T, got, want, oneByOne []*BatchResult) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for k := range got {
		g, w := got[k], want[k]
		if (g.Err != nil) != (w.Err != nil) {
			t.Errorf("instance %d %v: error %v, CPU's %v", k, g.Names, g.Err, w.Err)
			continue
		}
		if g.Err != nil {
			if oneByOne != nil && g.Err.Error() != oneByOne[k].Err.Error() {
				t.Errorf("instance %d %v: error %q, one at a time %q", k, g.Names, g.Err, oneByOne[k].Err)
			}
			continue
		}
		if g.Answer.String() != w.Answer.String() || g.Cells != w.Cells {
			t.Errorf("instance %d %v: answer %v (%d cells), CPU's %v (%d)", k, g.Names, g.Answer, g.Cells, w.Answer, w.Cells)
		}
	}
}

// TestBatchGPULaunches runs batches of the alignment built-ins on the GPU
// many instances to a launch and compares every answer with the CPU's:
// random lengths 0 to 300 (one strip of rows and two), 1 and 17, a record
// with a bad letter, and a batch of one shape (150 x 150, launched
// together); a recurrence that divides by zero in some instances gives
// the errors of one-at-a-time runs.
func TestBatchGPULaunches(t *testing.T) {
	withBatchGPU(t, func(t *testing.T, ex backend.Executor) {
		dir := t.TempDir()
		r := dptest.Rand(t)
		var as []record
		for k, n := range []int{0, 1, 17, 2, 150, 255, 256, 257, 300, 31, 33, 64} {
			as = append(as, record{name: fmt.Sprintf("a%d", k), seq: dptest.DNA(r, n)})
		}
		as = append(as, record{name: "bad", seq: "ACGT", bad: true})
		bs := []record{{name: "b0", seq: dptest.DNA(r, 150)}, {name: "b1", seq: dptest.DNA(r, 1)}, {name: "b2", seq: dptest.DNA(r, 97)}, {name: "b3"}}
		var same []record
		for k := range 300 {
			same = append(same, record{name: fmt.Sprintf("s%d", k), seq: dptest.DNA(r, 150)})
		}
		writeFASTA(t, filepath.Join(dir, "a.fa"), as)
		writeFASTA(t, filepath.Join(dir, "b.fa"), bs)
		writeFASTA(t, filepath.Join(dir, "same.fa"), same)
		a, b, s := filepath.Join(dir, "a.fa"), filepath.Join(dir, "b.fa"), filepath.Join(dir, "same.fa")
		// The affine-gap built-ins (several tables) run in the batch
		// kernel's cells (codegen Program.Tables) too.
		batched := map[string]bool{"needleman-wunsch": true, "smith-waterman": true, "lcs": true, "editdistance": true,
			"gotoh": true, "gotoh-local": true, "semiglobal": true, "protein-align": true}
		for _, name := range []string{"needleman-wunsch", "smith-waterman", "lcs", "editdistance", "gotoh", "gotoh-local", "semiglobal", "protein-align"} {
			t.Run(name, func(t *testing.T) {
				got, st, err := gpuBatchRun(t, ex, name, []string{a, b}, false)
				if !errors.Is(err, ErrBatchFailed) {
					t.Fatalf("err %v, want ErrBatchFailed (a bad record)", err)
				}
				want, _, _ := runBatch(t, context.Background(), name, []string{a, b}, BatchOptions{Workers: 2})
				sameResults(t, got, want, nil)
				if batched[name] != (st.Batched > 0) {
					t.Errorf("%d instances ran in batch launches (%d launches); want some: %v", st.Batched, st.Launches, batched[name])
				}
				got, st, err = gpuBatchRun(t, ex, name, []string{s, s}, true)
				if err != nil {
					t.Fatal(err)
				}
				want, _, _ = runBatch(t, context.Background(), name, []string{s, s}, BatchOptions{Workers: 2, Pairs: true})
				sameResults(t, got, want, nil)
				if batched[name] && (st.Batched != int64(len(same)) || st.Launches > 3) {
					t.Errorf("%d of %d instances in %d launches; want all, in at most 3", st.Batched, len(same), st.Launches)
				}
			})
		}
		t.Run("columns", func(t *testing.T) {
			// One protein against proteins of every length: local
			// alignment with BLOSUM62, instances of 1 to 700 columns
			// sharing the programs of a few column templates.
			dp := filepath.Join(dir, "swb.dp")
			if err := os.WriteFile(dp, []byte(`problem sw-blosum
char 1x? A = "HEAGAWGHEE"
char 1x? B = "PAWHEAE"
int ?x? S = @"BLOSUM62.mat"
int gap = -4
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                                                            when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + S[A[i-1]][B[j-1]], cell[i-1][j] + gap, cell[i][j-1] + gap)   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`), 0o644); err != nil {
				t.Fatal(err)
			}
			protein := func(n int) string {
				b := make([]byte, n)
				for k := range b {
					b[k] = "ARNDCQEGHILKMFPSTWYV"[r.IntN(20)]
				}
				return string(b)
			}
			var db []record
			for k, n := range []int{1, 2, 17, 63, 64, 65, 700, 300, 129, 33, 256, 255, 511, 512, 513} {
				db = append(db, record{name: fmt.Sprintf("p%d", k), seq: protein(n)})
			}
			for k := range 40 {
				db = append(db, record{name: fmt.Sprintf("q%d", k), seq: protein(1 + r.IntN(400))})
			}
			writeFASTA(t, filepath.Join(dir, "q.fa"), []record{{name: "query", seq: protein(120)}})
			writeFASTA(t, filepath.Join(dir, "db.fa"), db)
			specs := []string{filepath.Join(dir, "q.fa"), filepath.Join(dir, "db.fa")}
			got, st, err := gpuBatchRun(t, ex, dp, specs, false)
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := runBatch(t, context.Background(), dp, specs, BatchOptions{Workers: 2})
			sameResults(t, got, want, nil)
			// Column templates of 64 to 1,024 columns: at most 5 programs.
			if st.Batched != int64(len(db)) || st.Programs > 5 {
				t.Errorf("%d of %d instances in batch launches, %d programs; want all, at most 5", st.Batched, len(db), st.Programs)
			}
		})
		t.Run("device-errors", func(t *testing.T) {
			dp := filepath.Join(dir, "div.dp")
			if err := os.WriteFile(dp, []byte(`problem div
char 1x? A = "ACG"
char 1x? B = "ACG"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                                   when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1]) + 100 / (A[i-1] - 84)   otherwise
`), 0o644); err != nil {
				t.Fatal(err)
			}
			var rs []record
			for k := range 40 {
				seq := dptest.DNA(r, 20)
				if k%3 != 0 {
					seq = ""
					for range 20 {
						seq += string("ACG"[r.IntN(3)])
					}
				}
				rs = append(rs, record{name: fmt.Sprintf("r%d", k), seq: seq})
			}
			writeFASTA(t, filepath.Join(dir, "r.fa"), rs)
			f := filepath.Join(dir, "r.fa")
			got, _, err := gpuBatchRun(t, ex, dp, []string{f, f}, true)
			if !errors.Is(err, ErrBatchFailed) {
				t.Fatalf("err %v, want ErrBatchFailed", err)
			}
			want, _, _ := runBatch(t, context.Background(), dp, []string{f, f}, BatchOptions{Workers: 2, Pairs: true})
			one, _, _ := runBatch(t, context.Background(), dp, []string{f, f}, BatchOptions{Workers: 1, Pairs: true,
				NewExecutor: func() (backend.Executor, error) { return ex, nil }})
			sameResults(t, got, want, one)
		})
	})
}

// TestLaunchSize: a launch takes the chunk, fewer where the instances' rows
// between strips in global memory would pass launchRowBytes, never fewer
// than 1,024.
func TestLaunchSize(t *testing.T) {
	for _, c := range []struct {
		rowBytes int64
		want     int
	}{
		{0, BatchChunk},
		{8 << 10, BatchChunk},
		{48 << 10, launchRowBytes / (48 << 10)},
		{1 << 20, 1024},
	} {
		if got := launchSize(&codegen.Program{BatchRowBytes: c.rowBytes}, BatchChunk); got != c.want {
			t.Errorf("launchSize(%d bytes an instance) = %d, want %d", c.rowBytes, got, c.want)
		}
	}
}
