package plan_test

import (
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

func problem(t *testing.T, src string) (*ir.Problem, *plan.Plan) {
	t.Helper()
	return dptest.Load(t, "t.dp", src)
}

// TestCPUMemoryTracksTheSizes: the estimate grows as the CPU executor's
// buffers do: a rows sweep keeps prev+1 lines of 8-byte cells the width
// of a row however many rows there are; a wavefront keeps edges in
// proportion to rows + cols and a tile per worker; a kept grid adds the
// whole grid in its cell type; inputs count 9 bytes an element; the
// process's baseline is always there. backend/cpu's tests check that the
// executor allocates exactly Work.
func TestCPUMemoryTracksTheSizes(t *testing.T) {
	const regs = plan.RegisterBytes
	knap := func(items, capacity int) string {
		return fmt.Sprintf("int 1x%d wt = %s\nint cap = %d\n(len(wt)+1) x (cap+1)\ncell[i][w] = 0 when i == 0\n | max(cell[i-1][w], w >= wt[i-1] ? cell[i-1][w-wt[i-1]] + 1 : 0) otherwise\n",
			items, ones(items), capacity)
	}
	lcs := func(n, m int, keep bool) string {
		s := fmt.Sprintf("int ROWS0 = %d\nint COLS0 = %d\n(ROWS0) x (COLS0)\ncell[i][j] = 0 when i == 0 || j == 0\n | max(cell[i-1][j], cell[i][j-1]) otherwise\n", n, m)
		if keep {
			s = "maintain: 1\n" + s
		}
		return s
	}
	tile := func(threads, th, tw int64) int64 { return threads * 8 * (1 + th) * (1 + tw) }
	tests := []struct {
		name     string
		src      string
		threads  int
		schedule plan.Kind
		work     int64
		grid     int64
		inputs   int64
	}{
		{"knapsack 5 x 1e8", knap(5, 100_000_000), 2, plan.Rows, 8*2*100_000_001 + 2*regs, 0, 9 * 5},
		{"knapsack 500 x 1e8: rows do not count", knap(500, 100_000_000), 2, plan.Rows, 8*2*100_000_001 + 2*regs, 0, 9 * 500},
		{"knapsack 5 x 1e6, 16 threads", knap(5, 1_000_000), 16, plan.Rows, 8*2*1_000_001 + 16*regs, 0, 9 * 5},
		{"wavefront 200k x 200k", lcs(200_000, 200_000, false), 2, plan.Wavefront,
			3*8*(200_000+200_000) + tile(2, 128, 512) + 8*(1563+391-1) + 2*regs, 0, 0},
		{"wavefront kept 1e4 x 1e5", lcs(10_000, 100_000, true), 2, plan.Wavefront,
			3*8*(100_000+10_000) + tile(2, 128, 512) + 8*(79+196-1) + 2*regs, 4 * 10_000 * 100_000, 0},
		{"wavefront smaller than a tile", lcs(50, 60, false), 1, plan.Wavefront,
			3*8*(60+50) + tile(1, 50, 60) + 8 + regs, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, pl := problem(t, tc.src)
			if pl.Schedule != tc.schedule {
				t.Fatalf("schedule %s, want %s", pl.Schedule, tc.schedule)
			}
			m := plan.CPUMemory(p, pl, tc.threads, p.Maintain)
			if m.Work != tc.work || m.Grid != tc.grid || m.HostInputs != tc.inputs || m.Threads != tc.threads {
				t.Errorf("got work %d grid %d inputs %d threads %d, want %d %d %d %d", m.Work, m.Grid, m.HostInputs, m.Threads, tc.work, tc.grid, tc.inputs, tc.threads)
			}
			if m.Host != plan.BaselineBytes+m.HostInputs+m.Work+m.Grid {
				t.Errorf("host %d is not baseline + inputs + work + grid (%+v)", m.Host, m)
			}
			if keep := plan.CPUMemory(p, pl, tc.threads, true); keep.Grid != plan.GridBytes(p) || keep.Host != m.Host-m.Grid+keep.Grid {
				t.Errorf("keeping the grid: %+v", keep)
			}
		})
	}
}

func ones(n int) string {
	s := "1"
	for k := 1; k < n; k++ {
		s += ",1"
	}
	return s
}

// TestDeviceMemoryChain: a rows sweep whose reduction over an item's
// copies is a case's whole value counts the GPU's sums of segments
// (backend/gpu linechain.go: 16 bytes a column and 128 more) beside its
// rows; a capped bound (the bounded knapsack) or a reduction inside an
// expression does not.
func TestDeviceMemoryChain(t *testing.T) {
	const head = "int 1x? wt = 2,3\nint 1x? v = 4,5\nint cap = 999\n(len(wt)+1) x (cap+1)\ncell[i][w] = 0 when i == 0\n"
	for _, c := range []struct {
		name, value string
		extra       int64
	}{
		{"unbounded", " | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*v[i-1]) otherwise\n", 8 * (2*1000 + 16)},
		{"bounded", " | max(k in 0..min(2, w / wt[i-1]): cell[i-1][w - k*wt[i-1]] + k*v[i-1]) otherwise\n", 0},
		{"inside", " | 1 + max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*v[i-1]) otherwise\n", 0},
	} {
		p, pl := problem(t, head+c.value)
		inputs := int64(0)
		for _, in := range p.Inputs {
			inputs += int64(in.Len()) * int64(in.T.Size())
		}
		want := int64(pl.Prev+1)*1000*int64(p.CellType.Size()) + inputs + c.extra
		if got := pl.Memory.Device; got != want {
			t.Errorf("%s: device %d bytes, want %d", c.name, got, want)
		}
	}
}
