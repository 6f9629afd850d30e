package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// analyze plans src, failing the test if src does not check.
func analyze(t *testing.T, src string) (*plan.Plan, error) {
	t.Helper()
	p, pl, err := dptest.TryLoad(t, "t.dp", src)
	if p == nil {
		t.Fatalf("check: %v", err)
	}
	return pl, err
}

var lcs = dptest.LCS("ACGTTGCA", "AGTTC")

const thesis = `5x5
prev: 2
char 1x5 A,B,C,D,E
char 1x5 C,D,E,F,G
mem: 0
maintain: 1
cell[i][j] = 0 when i == 0 || j == 0
           | cell[i-1][j-1] + 1 when in0[i-1] == in1[j-1]
           | max(cell[i-1][j], cell[i][j-1]) otherwise
`

const manhattan = `int 3x4 down = 1,2,3,4 & 5,6,7,8 & 9,1,2,3
int 4x3 right = 1,2,3 & 4,5,6 & 7,8,9 & 1,2,3
4 x 4
cell[i][j] = 0 when i == 0 && j == 0
           | cell[i][j-1] + right[i][j-1] when i == 0
           | cell[i-1][j] + down[i-1][j] when j == 0
           | max(cell[i-1][j] + down[i-1][j], cell[i][j-1] + right[i][j-1]) otherwise
`

var knapsack = dptest.Knapsack([]int{2, 3, 4, 5, 9}, []int{3, 4, 5, 8, 10}, 20)

var lookback = dptest.Lookback(3)

func i64(v int64) *int64 { return &v }

func TestScheduleChoice(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		schedule plan.Kind
		dir      plan.Direction
		prev     int
		inferred bool
		deps     [][2]*int64 // di, dj per reference in source order
	}{
		{"lcs", lcs, plan.Wavefront, plan.Forward, 2, true,
			[][2]*int64{{i64(1), i64(1)}, {i64(1), i64(0)}, {i64(0), i64(1)}}},
		{"thesis fig 3.14", thesis, plan.Wavefront, plan.Forward, 2, false, nil},
		{"manhattan", manhattan, plan.Wavefront, plan.Forward, 1, true, nil},
		{"knapsack", knapsack, plan.Rows, plan.Forward, 1, true,
			[][2]*int64{{i64(1), nil}, {i64(1), nil}, {i64(1), i64(0)}, {i64(1), i64(0)}}},
		{"lookback", lookback, plan.Rows, plan.Backward, 1, true,
			[][2]*int64{{i64(-1), i64(-1)}, {i64(-1), i64(1)}, {i64(-1), nil}, {i64(-1), nil}}},
		{"backward wave", "4x4\ncell[i][j] = 1 when i == 3 || j == 3\n | cell[i+1][j] + cell[i][j+1] otherwise\n",
			plan.Wavefront, plan.Backward, 1, true, nil},
		{"backward cols", "4x4\ncell[i][j] = 1 when i == 3 || j == 3\n | cell[i+1][j+1] + cell[i][j+1] otherwise\n",
			plan.Cols, plan.Backward, 1, true, nil},
		{"backward wave, diagonal", "4x4\ncell[i][j] = 1 when i == 3 || j == 3\n | cell[i+1][j+1] + cell[i+1][j] + cell[i][j+1] otherwise\n",
			plan.Wavefront, plan.Backward, 2, true, nil},
		{"columns", "3x9\ncell[i][j] = 1 when j == 0\n | cell[i][j-1] + (i > 0 ? cell[i-1][j-1] : 0) otherwise\n",
			plan.Cols, plan.Forward, 1, true, nil},
		{"rows preferred when wide", "3x9\ncell[i][j] = 1 when i == 0 || j == 0\n | cell[i-1][j-1] otherwise\n",
			plan.Rows, plan.Forward, 1, true, nil},
		{"cols preferred when tall", "9x3\ncell[i][j] = 1 when i == 0 || j == 0\n | cell[i-1][j-1] otherwise\n",
			plan.Cols, plan.Forward, 1, true, nil},
		{"forced wavefront", "schedule: wavefront\n3x9\ncell[i][j] = 1 when i == 0 || j == 0\n | cell[i-1][j-1] otherwise\n",
			plan.Wavefront, plan.Forward, 2, true, nil},
		{"no references", "3x3\ncell[i][j] = i * j\n", plan.Rows, plan.Forward, 0, true, nil},
		{"declared prev larger", "prev: 3\n3x3\ncell[i][j] = 0 when i == 0\n | cell[i-1][j] otherwise\n", plan.Rows, plan.Forward, 3, false, nil},
		{"scalar offset", "int k = 2\n5x5\ncell[i][j] = 0 when i < k\n | cell[i-k][j] otherwise\n", plan.Rows, plan.Forward, 2, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := analyze(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Schedule != tt.schedule || pl.Direction != tt.dir || pl.Prev != tt.prev || pl.PrevInferred != tt.inferred {
				t.Errorf("got %s %s prev %d (inferred %v), want %s %s prev %d (inferred %v)",
					pl.Schedule, pl.Direction, pl.Prev, pl.PrevInferred, tt.schedule, tt.dir, tt.prev, tt.inferred)
			}
			if pl.Reason == "" {
				t.Error("no reason given")
			}
			if tt.deps == nil {
				return
			}
			if len(pl.Deps) != len(tt.deps) {
				t.Fatalf("%d dependencies, want %d", len(pl.Deps), len(tt.deps))
			}
			for k, d := range pl.Deps {
				for axis, got := range []*int64{d.DI, d.DJ} {
					want := tt.deps[k][axis]
					if (got == nil) != (want == nil) || (got != nil && *got != *want) {
						t.Errorf("%s axis %d: got %v, want %v", d.Ref.Text, axis, show(got), show(want))
					}
				}
			}
		})
	}
}

func show(p *int64) any {
	if p == nil {
		return "data-dependent"
	}
	return *p
}

func TestRejections(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		contains  []string
	}{
		{"self reference", "4x4\ncell[i][j] = cell[i][j]\n", 2, 14, []string{"reads the cell being computed"}},
		{"prev too small", "prev: 1\n5x5\ncell[i][j] = 0 when i == 0 || j == 0\n | max(cell[i-1][j-1], cell[i-1][j], cell[i][j-1]) otherwise\n", 1, 1,
			[]string{"prev: 1 is too small", "cell[i-1][j-1]", "prev: 2"}},
		{"forced rows impossible", "schedule: rows\n4x4\ncell[i][j] = 0 when j == 0\n | cell[i][j-1] otherwise\n", 4, 4,
			[]string{"schedule: rows", "cell[i][j-1]"}},
		{"answer outside", "3x3\ncell[i][j] = 1\nanswer: cell[3][0]\n", 3, 9, []string{"outside the 3x3 grid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRejection(t, tt.src, tt.line, tt.col, tt.contains) })
	}
}

// checkRejection plans src and checks that it fails with a positioned
// error at line:col that mentions every string of contains.
func checkRejection(t *testing.T, src string, line, col int, contains []string) {
	t.Helper()
	_, err := analyze(t, src)
	if err == nil {
		t.Fatal("no error")
	}
	var list source.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %v is not a source.ErrorList", err)
	}
	if list[0].Pos.Line != line || list[0].Pos.Col != col {
		t.Errorf("at %d:%d, want %d:%d: %v", list[0].Pos.Line, list[0].Pos.Col, line, col, err)
	}
	for _, s := range contains {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not mention %q", err, s)
		}
	}
}

func TestAnswerSpec(t *testing.T) {
	grid := "4x6\ncell[i][j] = 0 when i == 0\n | cell[i-1][j] + 1 otherwise\n"
	tests := []struct {
		name   string
		answer string
		want   plan.AnswerSpec
	}{
		{"default forward", "", plan.AnswerSpec{Kind: plan.AnswerCell, I: 3, J: 5}},
		{"constant cell", "answer: cell[ROWS-2][1]\n", plan.AnswerSpec{Kind: plan.AnswerCell, I: 2, J: 1}},
		{"last row max", "answer: max(j in 0..COLS-1: cell[ROWS-1][j])\n",
			plan.AnswerSpec{Kind: plan.AnswerRegion, Op: ir.ReduceMax, I0: 3, I1: 3, J0: 0, J1: 5}},
		{"whole grid max", "answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))\n",
			plan.AnswerSpec{Kind: plan.AnswerRegion, Op: ir.ReduceMax, I0: 0, I1: 3, J0: 0, J1: 5}},
		{"column sum", "answer: sum(i in 1..2: cell[i][4])\n",
			plan.AnswerSpec{Kind: plan.AnswerRegion, Op: ir.ReduceSum, I0: 1, I1: 2, J0: 4, J1: 4}},
		{"expression", "answer: 2 * cell[0][0] + max(j in 4..5: cell[1][j])\n",
			plan.AnswerSpec{Kind: plan.AnswerExpr, Cells: [][2]int64{{0, 0}, {1, 4}, {1, 5}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := analyze(t, grid+tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			got := pl.Answer
			got.Expr = nil
			if got.Kind != tt.want.Kind || got.I != tt.want.I || got.J != tt.want.J || got.Op != tt.want.Op ||
				got.I0 != tt.want.I0 || got.I1 != tt.want.I1 || got.J0 != tt.want.J0 || got.J1 != tt.want.J1 ||
				len(got.Cells) != len(tt.want.Cells) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for k := range got.Cells {
				if got.Cells[k] != tt.want.Cells[k] {
					t.Errorf("cells %v, want %v", got.Cells, tt.want.Cells)
				}
			}
		})
	}
}

func TestBackwardDefaultAnswerAndMemory(t *testing.T) {
	pl, err := analyze(t, lookback)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Answer.Kind != plan.AnswerExpr || len(pl.Answer.Cells) != 1 || pl.Answer.Cells[0] != [2]int64{0, 0} {
		t.Errorf("lookback answer %+v", pl.Answer)
	}
	pl, err = analyze(t, "4x5\ncell[i][j] = 1 when i == 3 || j == 4\n | cell[i+1][j] + cell[i][j+1] otherwise\n")
	if err != nil {
		t.Fatal(err)
	}
	if pl.Answer.Kind != plan.AnswerCell || pl.Answer.I != 0 || pl.Answer.J != 0 {
		t.Errorf("backward default answer %+v, want cell[0][0]", pl.Answer)
	}
	// wavefront on 4x5 ints with prev 1: 2 diagonals of min(4,5) cells.
	if m := pl.Memory; m.Device != 2*4*4 || m.Grid != 0 || m.Host != m.Baseline+m.HostInputs+m.Work {
		t.Errorf("memory %+v", pl.Memory)
	}
	pl, err = analyze(t, thesis)
	if err != nil {
		t.Fatal(err)
	}
	// maintain: 1 keeps the 5x5 int grid on the host; inputs are 2x5 chars.
	if m := pl.Memory; m.Grid != 25*4 || m.Inputs != 10 || m.HostInputs != 10*9 || m.Device != 3*5*4+10 || m.Host != m.Baseline+m.HostInputs+m.Work+m.Grid {
		t.Errorf("thesis memory %+v", pl.Memory)
	}
}

// A schedule that sweeps no grid (the held-karp solver's) is the engine's
// to route elsewhere; the planner refuses it rather than plan an empty grid.
func TestAnalyzeRefusesGridlessSchedule(t *testing.T) {
	_, err := analyze(t, "problem tsp\nschedule: held-karp\nint ?x? dist = 0,1 & 1,0\n")
	var list source.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos.Line != 2 || !strings.Contains(err.Error(), "sweeps no grid") {
		t.Fatalf("Analyze of a held-karp problem: %v; want one error at line 2 saying it sweeps no grid", err)
	}
}

// TestAnswerChoices: only a max or min of cells at constant coordinates
// selects one of them (AnswerSpec.Choices), in argument order.
func TestAnswerChoices(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   [][2]int64
		isMin  bool
	}{
		{"max(cell[2][3], cell[0][1])", [][2]int64{{2, 3}, {0, 1}}, false},
		{"min(cell[1][1], cell[2][2], cell[0][3])", [][2]int64{{1, 1}, {2, 2}, {0, 3}}, true},
		{"max(cell[2][3] + 1, cell[0][1])", nil, false},
		{"cell[2][3] + cell[0][1]", nil, false},
		{"cell[2][3]", nil, false},
		{"max(j in 0..3: cell[2][j])", nil, false},
	} {
		pl, err := analyze(t, "3x4\ncell[i][j] = i + j\nanswer: "+tc.answer+"\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.answer, err)
		}
		if got, isMin := pl.Answer.Choices(); fmt.Sprint(got) != fmt.Sprint(tc.want) || isMin != tc.isMin {
			t.Errorf("%s: choices %v (min %v), want %v (min %v)", tc.answer, got, isMin, tc.want, tc.isMin)
		}
	}
}
