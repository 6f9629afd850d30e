package engine_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// End-to-end tests of several tables (contract v2 §7.2): Gotoh's three
// tables, lowered onto one flat grid, against dptest's plain-Go Gotoh, with
// a traceback that moves between the tables and whose alignment is scored
// again from its columns.

// contractGotoh is the example of contract v2 §7.2 as written there, with
// inline sequences instead of files.
const contractGotoh = `char 1x? A = "GATTACAGGTTAC"
char 1x? B = "GCATGCTTACA"
int o = 10
int e = 1
(len(A)+1) x (len(B)+1)
X[i][j] = -inf                     when j == 0
        | max(X[i][j-1] - e, H[i][j-1] - o - e)   otherwise
Y[i][j] = -inf                     when i == 0
        | max(Y[i-1][j] - e, H[i-1][j] - o - e)   otherwise
H[i][j] = 0                        when i == 0 && j == 0
        | -o - e*j                 when i == 0
        | -o - e*i                 when j == 0
        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], Y[i][j])   otherwise
`

func TestTablesContractExample(t *testing.T) {
	_, res := solveV2(t, cpu.New(2), "gotoh.dp", contractGotoh, false)
	if res == nil {
		return
	}
	if got, want := res.Answer().I, dptest.GotohScore("GATTACAGGTTAC", "GCATGCTTACA", 10, 1); got != want {
		t.Errorf("answer %d, reference %d", got, want)
	}
}

func TestTablesCPU(t *testing.T) { runTables(t, cpu.New(4)) }

func TestTablesGPU(t *testing.T) { withGPU(t, runTables) }

func runTables(t *testing.T, ex backend.Executor) {
	r := dptest.Rand(t)
	for _, n := range v2Sizes {
		for rep := 0; rep < 3; rep++ {
			a, b := dptest.DNA(r, n), dptest.DNA(r, 1+r.IntN(n+2))
			if rep == 1 {
				a, b = b, a
			}
			o, e := r.IntN(8)+1, r.IntN(3)+1
			src := dptest.Gotoh(a, b, o, e)
			name := fmt.Sprintf("gotoh-%d-%d.dp", n, rep)
			_, res := solveV2(t, ex, name, src, true)
			if res == nil {
				continue
			}
			want := dptest.GotohScore(a, b, o, e)
			if got := res.Answer().I; got != want {
				t.Errorf("%s: answer %d, reference %d\n%s", name, got, want, src)
				continue
			}
			path := res.Grid.Path
			if len(path) == 0 {
				t.Fatalf("%s: no traceback path", name)
			}
			var cols strings.Builder
			for _, v := range res.Grid.Emitted {
				cols.WriteByte(byte(v.I))
			}
			table, j0 := ir.TableOf(path[0][1], 3)
			last, jn := ir.TableOf(path[len(path)-1][1], 3)
			if table != 2 || last != 2 || jn != int64(len(b)) || path[len(path)-1][0] != int64(len(a)) {
				t.Fatalf("%s: the path runs from table %d to table %d at [%d][%d], want H to H[%d][%d]", name, table, last, path[len(path)-1][0], jn, len(a), len(b))
			}
			moved := false
			for _, c := range path {
				if tb, _ := ir.TableOf(c[1], 3); tb != 2 {
					moved = true
				}
			}
			if strings.ContainsAny(cols.String(), "-|") && !moved {
				t.Errorf("%s: the alignment %s has gaps, but the path never left H", name, cols.String())
			}
			score, err := dptest.GotohAlignmentScore(a, b, o, e, int(path[0][0]), int(j0), cols.String())
			if err != nil {
				t.Fatalf("%s: alignment %s from [%d][%d]: %v", name, cols.String(), path[0][0], j0, err)
			}
			if score != want {
				t.Errorf("%s: the alignment %s from [%d][%d] scores %d, the answer is %d", name, cols.String(), path[0][0], j0, score, want)
			}
		}
	}
}

// TestTablesPlan checks the flat offsets the planner sees for Gotoh: all
// constant, (di, dj) with dj = d*T + t' - t for T = 3, and a schedule.
func TestTablesPlan(t *testing.T) {
	p, pl := dptest.Load(t, "gotoh.dp", contractGotoh)
	want := map[string][2]int64{
		"X[i][j-1]": {0, 3}, "H[i][j-1]": {0, 1}, "Y[i-1][j]": {1, 0}, "H[i-1][j]": {1, -1},
		"H[i-1][j-1]": {1, 3}, "X[i][j]": {0, 2}, "Y[i][j]": {0, 1},
	}
	if len(pl.Deps) != len(want) {
		t.Fatalf("%d dependencies, want %d", len(pl.Deps), len(want))
	}
	for _, d := range pl.Deps {
		w, ok := want[d.Ref.Text]
		if !ok || d.DI == nil || d.DJ == nil || *d.DI != w[0] || *d.DJ != w[1] {
			t.Errorf("%s: offset %v %v, want constant %v", d.Ref.Text, d.DI, d.DJ, w)
		}
	}
	// H[i-1][j] read by Y, a later table one row up, is (1, -1) in the
	// flat grid: no v1 sweep applies; in cells it is the wavefront, the
	// fronts t = 3i + J (plan.Plan.Cells).
	if pl.Schedule != plan.Hyperplanar || pl.T != (plan.Hyperplane{A: 3, B: 1}) || pl.Cells != 3 {
		t.Errorf("schedule %v %v, %d tables a cell, want the cells' wavefront t = 3*i + J of 3", pl.Schedule, pl.T, pl.Cells)
	}
	// A file that gives prev keeps the hyperplane the planner finds for
	// the flat grid (t = 2i + J reads 5 fronts back; the cells' 6).
	withPrev := strings.Replace(contractGotoh, "(len(A)+1) x (len(B)+1)", "(len(A)+1) x (len(B)+1)\nprev: 5", 1)
	if withPrev == contractGotoh {
		t.Fatal("the test's gotoh changed: no grid line")
	}
	_, pp := dptest.Load(t, "gotoh.dp", withPrev)
	if pp.Cells != 0 || pp.T != (plan.Hyperplane{A: 2, B: 1}) {
		t.Errorf("with prev: 5: schedule %v %v, %d tables a cell, want the flat grid's t = 2*i + J", pp.Schedule, pp.T, pp.Cells)
	}
	if got := p.CellText(4, 5*3+2); got != "H[4][5]" {
		t.Errorf("CellText = %s", got)
	}
}

func TestTables1DCPU(t *testing.T) { runTables1D(t, cpu.New(3)) }

func TestTables1DGPU(t *testing.T) { withGPU(t, runTables1D) }

// stockTrades is dptest.StockCooldown's problem with emits: a buy emits
// its day, a sale minus its day, and the answer is one cell (best), so
// that the traceback gives the trades.
const stockTrades = `problem stocktrades
int 1x? p = %s
len(p)
hold[i] = -p[0]                                         when i == 0   emit i
        | max(hold[i-1], rest[i-1] - p[i] emit i)        otherwise
sold[i] = -inf                                          when i == 0
        | hold[i-1] + p[i]                              otherwise     emit -i-1
rest[i] = 0                                             when i == 0
        | max(rest[i-1], sold[i-1])                     otherwise
best[i] = max(sold[i], rest[i])
answer: best[len(p)-1]
`

// runTables1D solves the 1-D problems of several tables through the
// engine (dptest.Tables1DCases: answers against plain Go), and traces the
// stock's trades back through its four tables: the trades, replayed on the
// prices, must alternate buy and sell, keep a day of cooldown after each
// sale and earn the answer, which is the plain-Go optimum.
func runTables1D(t *testing.T, ex backend.Executor) {
	r := dptest.Rand(t)
	for _, n := range v2Sizes {
		for _, tc := range dptest.Tables1DCases(r, n) {
			name := fmt.Sprintf("%s-%d.dp", tc.Name, n)
			_, res := solveV2(t, ex, name, tc.Src, false)
			if res == nil {
				continue
			}
			got := res.Answer().Float64()
			if tc.Tol > 0 && math.Abs(got-tc.Answer) > tc.Tol*math.Max(1, math.Abs(tc.Answer)) || tc.Tol == 0 && got != tc.Answer {
				t.Errorf("%s on %s: answer %v, want %v", name, ex.Name(), got, tc.Answer)
			}
		}
		p := dptest.Ints(r, n, 0, 30)
		prices := make([]float64, n)
		for k, v := range p {
			prices[k] = float64(v)
		}
		want := stockBest(prices)
		// With best[i], the answer is one cell; without it, max(sold[N-1],
		// rest[N-1]) starts the traceback at the winning cell.
		withMax := strings.Replace(strings.Replace(stockTrades, "best[i] = max(sold[i], rest[i])\n", "", 1),
			"answer: best[len(p)-1]", "answer: max(sold[len(p)-1], rest[len(p)-1])", 1)
		if withMax == stockTrades {
			t.Fatal("stockTrades changed: no best table to drop")
		}
		for k, src := range []string{stockTrades, withMax} {
			name := fmt.Sprintf("stocktrades-%d-%d.dp", n, k)
			_, res := solveV2(t, ex, name, fmt.Sprintf(src, dptest.Join(p)), true)
			if res == nil {
				continue
			}
			if got := float64(res.Answer().I); got != want {
				t.Errorf("%s on %s: answer %v, want %v", name, ex.Name(), got, want)
			}
			profit, holding, lastSale := 0, false, -2
			for _, v := range res.Grid.Emitted {
				switch day := int(v.I); {
				case day >= 0 && !holding && day >= lastSale+2:
					profit -= p[day]
					holding = true
				case day < 0 && holding:
					lastSale = -day - 1
					profit += p[lastSale]
					holding = false
				default:
					t.Fatalf("%s on %s: trades %v break the rules at %d", name, ex.Name(), res.Grid.Emitted, day)
				}
			}
			if holding || float64(profit) != want {
				t.Errorf("%s on %s: trades %v earn %d (holding at the end: %v), the answer is %v", name, ex.Name(), res.Grid.Emitted, profit, holding, want)
			}
		}
	}
}

// stockBest is the best profit with a day of cooldown after each sale, by
// the recursion over days and whether the stock is held (no tables).
func stockBest(p []float64) float64 {
	memo := map[[2]int]float64{}
	var best func(day int, holding bool) float64
	best = func(day int, holding bool) float64 {
		if day >= len(p) {
			return 0
		}
		key := [2]int{day, 0}
		if holding {
			key[1] = 1
		}
		if v, ok := memo[key]; ok {
			return v
		}
		v := best(day+1, holding) // wait
		if holding {
			v = max(v, p[day]+best(day+2, false)) // sell, then a day of cooldown
		} else {
			v = max(v, -p[day]+best(day+1, true)) // buy
		}
		memo[key] = v
		return v
	}
	return best(0, false)
}
