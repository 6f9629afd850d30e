package gpu

import (
	"context"
	"slices"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
)

func TestScratchClass(t *testing.T) {
	for _, c := range []struct{ n, want int64 }{{1, 256}, {256, 256}, {257, 512}, {4096, 4096}, {4097, 8192}, {scratchMax, scratchMax}} {
		if got := scratchClass(c.n); got != c.want {
			t.Errorf("scratchClass(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestScratchReuse: runs after the first take their small buffers from the
// executor's scratch and still answer right; a small grid kept in device
// memory (its allocation a scratch size) is not handed to the next run.
func TestScratchReuse(t *testing.T) {
	e := executor(t)
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 57), dptest.DNA(r, 70)
	p, pl := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": a, "b.txt": b}))
	want := dptest.LCSGrid(a, b)
	kept, err := e.Run(context.Background(), p, pl, backend.Options{Maintain: true, KeepOnDevice: true})
	if err != nil {
		t.Fatal(err)
	}
	if kept.DeviceGrid == nil {
		t.Fatal("no grid kept in device memory")
	}
	defer kept.DeviceGrid.Close()
	e.mu.Lock()
	devKept, hostKept := e.scratch.devKept, e.scratch.hostKept
	e.mu.Unlock()
	if devKept == 0 || hostKept == 0 {
		t.Errorf("after a run the scratch keeps %d device and %d pinned bytes, want some of each", devKept, hostKept)
	}
	e.mu.Lock()
	for _, l := range e.scratch.dev {
		if slices.Contains(l, kept.DeviceGrid.(*deviceGrid).ptr) {
			t.Error("the grid kept in device memory is in the scratch, for the next run to overwrite")
		}
	}
	e.mu.Unlock()
	// Other runs overwrite whatever scratch buffers they take.
	for k := 0; k < 3; k++ {
		c, d := dptest.DNA(r, 57), dptest.DNA(r, 70+k)
		q, ql := dptest.Load(t, "lcs.dp", dptest.LCSFiles, dptest.Files(map[string]string{"a.txt": c, "b.txt": d}))
		res, err := e.Run(context.Background(), q, ql, backend.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, w := answerOf(res), dptest.LCSGrid(c, d)[57][70+k]; got != w {
			t.Errorf("run %d after the first: LCS = %v, want %v", k, got, w)
		}
	}
	bad := 0
	for i := range want {
		for j := range want[i] {
			if v := kept.DeviceGrid.At(int64(i), int64(j)).Float64(); v != want[i][j] && bad < 5 {
				t.Errorf("kept grid cell[%d][%d] = %v after other runs, want %v", i, j, v, want[i][j])
				bad++
			}
		}
	}
	if err := kept.DeviceGrid.Err(); err != nil {
		t.Fatal(err)
	}
}
