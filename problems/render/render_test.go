package render

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// solution renders with the renderer that the problems registry gives the
// built-in called name (the registry's own test checks the pairing).
func solution(name string, p *ir.Problem, res *backend.Result) (string, bool) {
	r := map[string]Renderer{
		"lcs": LCS, "editdistance": EditDistance, "needleman-wunsch": GlobalAlignment, "smith-waterman": LocalAlignment,
		"knapsack": Knapsack, "knapsack-bounded": Knapsack, "knapsack-unbounded": Knapsack, "manhattan": Manhattan,
	}[name]
	if r == nil {
		return "", false
	}
	return r(p, res, nil)
}

// --- building problems and results by hand ---

func charInput(name, s string) *ir.Input {
	in := &ir.Input{Name: name, T: ir.Char, Rows: 1, Cols: len(s), Vector: true, I: make([]int64, len(s))}
	for i := range s {
		in.I[i] = int64(s[i])
	}
	return in
}

func intVector(name string, v []int64) *ir.Input {
	return &ir.Input{Name: name, T: ir.Int, Rows: 1, Cols: len(v), Vector: true, I: v}
}

func intMatrix(name string, rows, cols int, v []int64) *ir.Input {
	return &ir.Input{Name: name, T: ir.Int, Rows: rows, Cols: cols, I: v}
}

func intScalars(kv ...any) []*ir.Scalar {
	var out []*ir.Scalar
	for k := 0; k < len(kv); k += 2 {
		out = append(out, &ir.Scalar{Name: kv[k].(string), Value: ir.Value{T: ir.Int, I: int64(kv[k+1].(int))}})
	}
	return out
}

func alignProblem(name, a, b string, scalars ...any) *ir.Problem {
	return &ir.Problem{Name: name, Rows: int64(len(a) + 1), Cols: int64(len(b) + 1), CellType: ir.Int,
		Inputs: []*ir.Input{charInput("A", a), charInput("B", b)}, Scalars: intScalars(scalars...)}
}

// --- plain-Go reference DPs with tracebacks, written independently of the
// .dp files: each returns the optimum and the path from the start of the
// grid to the answer cell, ties broken as the engine does (first argument). ---

// globalAlign fills cell[i][j] = best(diag + s(a,b), up + gapB, left + gapA)
// with edges built from moves, and walks back from (n, m) to (0, 0).
func globalAlign(a, b string, s func(x, y byte) int64, insA, delB int64, minimise bool) (int64, [][2]int64) {
	n, m := len(a), len(b)
	c := make([][]int64, n+1)
	for i := range c {
		c[i] = make([]int64, m+1)
	}
	better := func(x, y int64) bool {
		if minimise {
			return x < y
		}
		return x > y
	}
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			switch {
			case i == 0 && j == 0:
			case i == 0:
				c[i][j] = c[i][j-1] + insA
			case j == 0:
				c[i][j] = c[i-1][j] + delB
			default:
				v := c[i-1][j-1] + s(a[i-1], b[j-1])
				for _, w := range []int64{c[i-1][j] + delB, c[i][j-1] + insA} {
					if better(w, v) {
						v = w
					}
				}
				c[i][j] = v
			}
		}
	}
	path := [][2]int64{{int64(n), int64(m)}}
	for i, j := n, m; i > 0 || j > 0; {
		switch {
		case i == 0:
			j--
		case j == 0:
			i--
		case c[i][j] == c[i-1][j-1]+s(a[i-1], b[j-1]):
			i, j = i-1, j-1
		case c[i][j] == c[i-1][j]+delB:
			i--
		default:
			j--
		}
		path = append(path, [2]int64{int64(i), int64(j)})
	}
	slices.Reverse(path)
	return c[n][m], path
}

// localAlign is Smith-Waterman: the best cell anywhere (first in row-major
// order) and the walk back to the cell where 0 won.
func localAlign(a, b string, ma, mi, g int64) (int64, [][2]int64) {
	n, m := len(a), len(b)
	c := make([][]int64, n+1)
	for i := range c {
		c[i] = make([]int64, m+1)
	}
	s := func(i, j int) int64 {
		if a[i-1] == b[j-1] {
			return ma
		}
		return mi
	}
	bi, bj := 0, 0
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			c[i][j] = max(0, c[i-1][j-1]+s(i, j), c[i-1][j]+g, c[i][j-1]+g)
			if c[i][j] > c[bi][bj] {
				bi, bj = i, j
			}
		}
	}
	path := [][2]int64{{int64(bi), int64(bj)}}
	for i, j := bi, bj; i > 0 && j > 0 && c[i][j] != 0; {
		switch {
		case c[i][j] == c[i-1][j-1]+s(i, j):
			i, j = i-1, j-1
		case c[i][j] == c[i-1][j]+g:
			i--
		default:
			j--
		}
		path = append(path, [2]int64{int64(i), int64(j)})
	}
	slices.Reverse(path)
	return c[bi][bj], path
}

// knapsackDP is the bounded knapsack (cnt[k] < 0: unbounded), choosing the
// smallest k on ties; it returns the optimum and the path from row 0.
func knapsackDP(wt, val, cnt []int64, capacity int64) (int64, [][2]int64) {
	n := len(wt)
	c := make([][]int64, n+1)
	arg := make([][]int64, n+1)
	for i := range c {
		c[i] = make([]int64, capacity+1)
		arg[i] = make([]int64, capacity+1)
	}
	for i := 1; i <= n; i++ {
		for w := int64(0); w <= capacity; w++ {
			best, bestK := int64(-1), int64(0)
			for k := int64(0); k*wt[i-1] <= w && (cnt[i-1] < 0 || k <= cnt[i-1]); k++ {
				if v := c[i-1][w-k*wt[i-1]] + k*val[i-1]; v > best {
					best, bestK = v, k
				}
				if wt[i-1] == 0 && cnt[i-1] < 0 {
					break
				}
			}
			c[i][w], arg[i][w] = best, bestK
		}
	}
	path := [][2]int64{{int64(n), capacity}}
	for i, w := n, capacity; i > 0; i-- {
		w -= arg[i][w] * wt[i-1]
		path = append(path, [2]int64{int64(i - 1), w})
	}
	slices.Reverse(path)
	return c[n][capacity], path
}

// manhattanDP is the tourist's DP on an n x m city, from the north on ties.
func manhattanDP(n, m int, down, right []int64) (int64, [][2]int64) {
	c := make([][]int64, n)
	for i := range c {
		c[i] = make([]int64, m)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i == 0 && j == 0:
			case i == 0:
				c[i][j] = c[i][j-1] + right[i*(m-1)+j-1]
			case j == 0:
				c[i][j] = c[i-1][j] + down[(i-1)*m+j]
			default:
				c[i][j] = max(c[i-1][j]+down[(i-1)*m+j], c[i][j-1]+right[i*(m-1)+j-1])
			}
		}
	}
	path := [][2]int64{{int64(n - 1), int64(m - 1)}}
	for i, j := n-1, m-1; i > 0 || j > 0; {
		if j == 0 || (i > 0 && c[i][j] == c[i-1][j]+down[(i-1)*m+j]) {
			i--
		} else {
			j--
		}
		path = append(path, [2]int64{int64(i), int64(j)})
	}
	slices.Reverse(path)
	return c[n-1][m-1], path
}

// --- reading rendered text back ---

// parseRows collects the alignment rows of a rendering whose labels are A
// and B: the letters of A's row, of the match row and of B's row.
func parseRows(t *testing.T, text string) (top, mid, bot string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for k := 0; k < len(lines); k++ {
		if !strings.HasPrefix(lines[k], "A  ") {
			continue
		}
		if k+2 >= len(lines) || !strings.HasPrefix(lines[k+2], "B  ") {
			t.Fatalf("row A at line %d is not followed by a match row and row B:\n%s", k+1, text)
		}
		row := lines[k][3:]
		if len(row) > width {
			t.Fatalf("row of %d columns, want at most %d:\n%s", len(row), width, text)
		}
		m := lines[k+1]
		if len(m) > 3 {
			m = m[3:]
		} else {
			m = ""
		}
		top += row
		mid += m + strings.Repeat(" ", len(row)-len(m))
		bot += lines[k+2][3:]
		k += 2
	}
	return top, mid, bot
}

var numbers = regexp.MustCompile(`-?\d+`)

// lineNumbers returns the integers of the line starting with prefix.
func lineNumbers(t *testing.T, text, prefix string) []int64 {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			var out []int64
			for _, s := range numbers.FindAllString(l, -1) {
				v, _ := strconv.ParseInt(s, 10, 64)
				out = append(out, v)
			}
			return out
		}
	}
	t.Fatalf("no line starting with %q in\n%s", prefix, text)
	return nil
}

func randomDNA(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// --- tests ---

func TestLCS(t *testing.T) {
	emit := func(s string) []ir.Value {
		v := []ir.Value{}
		for i := range s {
			v = append(v, ir.Value{T: ir.Char, I: int64(s[i])})
		}
		return v
	}
	long := strings.Repeat("ACGT", 20)
	tests := []struct {
		emitted []ir.Value
		want    string
		ok      bool
	}{
		{emit("GTAB"), "GTAB\nlength 4", true},
		{emit(""), "(empty)\nlength 0", true},
		{emit(long), long[:60] + "\n" + long[60:] + "\nlength 80", true},
		{[]ir.Value{{T: ir.Int, I: 3}}, "", false},
	}
	p := alignProblem("lcs", "ABCBDAB", "BDCABA")
	for _, tt := range tests {
		res := &backend.Result{Emitted: tt.emitted, Path: [][2]int64{{0, 0}, {1, 1}}}
		got, ok := solution("lcs", p, res)
		if got != tt.want || ok != tt.ok {
			t.Errorf("solution(lcs, %v) = %q, %v; want %q, %v", tt.emitted, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNoRendering(t *testing.T) {
	p := alignProblem("needleman-wunsch", "GATTACA", "GCATGCU", "match", 1, "mismatch", -1, "gap", -2)
	good := [][2]int64{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}}
	tests := []struct {
		name string
		p    *ir.Problem
		res  *backend.Result
	}{
		{"lookback-put", p, &backend.Result{Path: good}},
		{"unknown", p, &backend.Result{Path: good}},
		{"needleman-wunsch", p, &backend.Result{}},                                         // no traceback
		{"needleman-wunsch", p, nil},                                                       // no result
		{"needleman-wunsch", p, &backend.Result{Path: [][2]int64{{0, 0}, {2, 2}}}},         // a jump
		{"needleman-wunsch", p, &backend.Result{Path: [][2]int64{{0, 0}, {1, 0}, {0, 0}}}}, // backwards
		{"needleman-wunsch", p, &backend.Result{Path: [][2]int64{{7, 7}, {8, 8}}}},         // outside the grid
		{"needleman-wunsch", &ir.Problem{Inputs: []*ir.Input{charInput("A", "AC")}}, &backend.Result{Path: good[:2]}},
		{"knapsack", p, &backend.Result{Path: good}}, // no wt and val
		{"manhattan", p, &backend.Result{Path: good}},
	}
	for _, tt := range tests {
		if got, ok := solution(tt.name, tt.p, tt.res); ok {
			t.Errorf("solution(%s) = %q, true; want no rendering", tt.name, got)
		}
	}
}

// The textbook example, by a hand-made path: INTE-NTION over -EXECUTION.
func TestEditDistanceByHand(t *testing.T) {
	p := alignProblem("editdistance", "INTENTION", "EXECUTION", "ins", 1, "del", 1, "sub", 2)
	path := [][2]int64{{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 9}}
	got, ok := solution("editdistance", p, &backend.Result{Path: path})
	want := "A  INTE-NTION\n" +
		"      |  ||||\n" +
		"B  -EXECUTION\n" +
		"1 insertion, 1 deletion, 3 substitutions, 5 matches\n" +
		"cost 8 (ins 1, del 1, sub 2)"
	if !ok || got != want {
		t.Errorf("got %v\n%s\nwant\n%s", ok, got, want)
	}
	// The same path without its first step (a recurrence whose edges are
	// sums ends the traceback on the edge): the deletion is still shown.
	got2, ok := solution("editdistance", p, &backend.Result{Path: path[1:]})
	if !ok || got2 != want {
		t.Errorf("path from the edge: got %v\n%s\nwant\n%s", ok, got2, want)
	}
}

func TestGlobalAlignmentsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := [][2]int{{0, 0}, {0, 5}, {4, 0}, {1, 1}, {7, 3}, {33, 61}, {61, 59}, {130, 97}}
	for _, sz := range sizes {
		for _, alphabet := range []string{"ACGT", "AB"} {
			a, b := randomDNA(r, sz[0], alphabet), randomDNA(r, sz[1], alphabet)
			// Edit distance, the thesis's costs.
			opt, path := globalAlign(a, b, func(x, y byte) int64 {
				if x == y {
					return 0
				}
				return 2
			}, 1, 1, true)
			text, ok := solution("editdistance", alignProblem("editdistance", a, b, "ins", 1, "del", 1, "sub", 2), &backend.Result{Path: path})
			if !ok {
				t.Fatalf("editdistance %q %q: no rendering", a, b)
			}
			checkGlobal(t, text, a, b)
			if cost := lineNumbers(t, text, "cost"); cost[0] != opt {
				t.Errorf("editdistance %q %q: rendered cost %d, optimum %d\n%s", a, b, cost[0], opt, text)
			}
			top, _, bot := parseRows(t, text)
			ins, del, sub := 0, 0, 0
			for k := range top {
				switch {
				case top[k] == '-':
					ins++
				case bot[k] == '-':
					del++
				case top[k] != bot[k]:
					sub++
				}
			}
			counts := text[strings.LastIndex(text, "\n"+strconv.Itoa(ins)+" insertion")+1:]
			if n := lineNumbers(t, counts, strconv.Itoa(ins)+" insertion"); n[1] != int64(del) || n[2] != int64(sub) {
				t.Errorf("editdistance: counts %v, rows show %d, %d, %d\n%s", n, ins, del, sub, text)
			}
			// Needleman-Wunsch.
			opt, path = globalAlign(a, b, func(x, y byte) int64 {
				if x == y {
					return 1
				}
				return -1
			}, -2, -2, false)
			text, ok = solution("needleman-wunsch", alignProblem("needleman-wunsch", a, b, "match", 1, "mismatch", -1, "gap", -2), &backend.Result{Path: path})
			if !ok {
				t.Fatalf("needleman-wunsch %q %q: no rendering", a, b)
			}
			checkGlobal(t, text, a, b)
			if score := lineNumbers(t, text, "score"); score[0] != opt {
				t.Errorf("needleman-wunsch %q %q: rendered score %d, optimum %d\n%s", a, b, score[0], opt, text)
			}
		}
	}
}

// checkGlobal checks that the rows of a global alignment spell a and b
// without their gaps, that no column is two gaps, and that the match row
// marks exactly the equal pairs.
func checkGlobal(t *testing.T, text, a, b string) {
	t.Helper()
	top, mid, bot := parseRows(t, text)
	if strings.ReplaceAll(top, "-", "") != a || strings.ReplaceAll(bot, "-", "") != b || len(top) != len(bot) {
		t.Fatalf("rows %q / %q do not spell %q / %q", top, bot, a, b)
	}
	for k := range top {
		if top[k] == '-' && bot[k] == '-' {
			t.Fatalf("column %d is two gaps", k)
		}
		if (mid[k] == '|') != (top[k] == bot[k]) {
			t.Fatalf("match row %q wrong at column %d (%c over %c)", mid, k, top[k], bot[k])
		}
	}
}

func TestSmithWaterman(t *testing.T) {
	// The textbook example: 13, GTT-AC over GTTGAC.
	opt, path := localAlign("TGTTACGG", "GGTTGACTA", 3, -3, -2)
	p := alignProblem("smith-waterman", "TGTTACGG", "GGTTGACTA", "match", 3, "mismatch", -3, "gap", -2)
	text, ok := solution("smith-waterman", p, &backend.Result{Path: path})
	want := "A 2..6 against B 2..7\n" +
		"A  GTT-AC\n" +
		"   ||| ||\n" +
		"B  GTTGAC\n" +
		"6 columns: 5 matches, 0 mismatches, 1 gap\n" +
		"score 13 (match 3, mismatch -3, gap -2)"
	if opt != 13 || !ok || text != want {
		t.Errorf("optimum %d, rendering %v\n%s\nwant\n%s", opt, ok, text, want)
	}

	r := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {5, 9}, {64, 61}, {150, 120}} {
		a, b := randomDNA(r, sz[0], "ACGT"), randomDNA(r, sz[1], "ACGT")
		opt, path := localAlign(a, b, 2, -1, -2)
		text, ok := solution("smith-waterman", alignProblem("smith-waterman", a, b, "match", 2, "mismatch", -1, "gap", -2), &backend.Result{Path: path})
		if !ok {
			t.Fatalf("%q %q: no rendering", a, b)
		}
		if opt == 0 {
			if !strings.HasPrefix(text, "empty alignment") {
				t.Errorf("%q %q: score 0 but rendered\n%s", a, b, text)
			}
			continue
		}
		pos := lineNumbers(t, text, "A ")
		top, _, bot := parseRows(t, text)
		if strings.ReplaceAll(top, "-", "") != a[pos[0]-1:pos[1]] || strings.ReplaceAll(bot, "-", "") != b[pos[2]-1:pos[3]] {
			t.Errorf("%q %q: rows %q / %q are not the stated ranges %v", a, b, top, bot, pos)
		}
		if score := lineNumbers(t, text, "score"); score[0] != opt {
			t.Errorf("%q %q: rendered score %d, optimum %d\n%s", a, b, score[0], opt, text)
		}
	}
}

func knapsackProblem(name string, wt, val, cnt []int64, capacity int64) *ir.Problem {
	p := &ir.Problem{Name: name, Rows: int64(len(wt) + 1), Cols: capacity + 1, CellType: ir.Int,
		Inputs:  []*ir.Input{intVector("wt", wt), intVector("val", val)},
		Scalars: intScalars("cap", int(capacity))}
	if cnt != nil {
		p.Inputs = append(p.Inputs, intVector("cnt", cnt))
	}
	return p
}

func TestKnapsackByHand(t *testing.T) {
	wt, val := []int64{2, 3, 4, 5, 9}, []int64{3, 4, 5, 8, 10}
	p := knapsackProblem("knapsack", wt, val, nil, 20)
	path := [][2]int64{{0, 0}, {1, 2}, {2, 2}, {3, 6}, {4, 11}, {5, 20}}
	text, ok := solution("knapsack", p, &backend.Result{Path: path})
	if want := "items 1 3 4 5\nweight 20 of 20, value 26"; !ok || text != want {
		t.Errorf("got %v %q, want %q", ok, text, want)
	}
	// Unbounded: item 4 four times.
	path = [][2]int64{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 20}, {5, 20}}
	text, ok = solution("knapsack-unbounded", p, &backend.Result{Path: path})
	if want := "items 4 (x4)\nweight 20 of 20, value 32"; !ok || text != want {
		t.Errorf("got %v %q, want %q", ok, text, want)
	}
	// Nothing taken.
	text, ok = solution("knapsack", p, &backend.Result{Path: [][2]int64{{0, 7}, {1, 7}, {2, 7}, {3, 7}, {4, 7}, {5, 7}}})
	if want := "no items\nweight 0 of 20, value 0"; !ok || text != want {
		t.Errorf("got %v %q, want %q", ok, text, want)
	}
	// A column step that is not a multiple of the weight is not a knapsack path.
	if text, ok := solution("knapsack", p, &backend.Result{Path: [][2]int64{{0, 0}, {1, 3}}}); ok {
		t.Errorf("step of 3 for weight 2 rendered as %q", text)
	}
	// An item of weight 0: its count comes from the grid's values.
	p0 := knapsackProblem("knapsack-bounded", []int64{0, 2}, []int64{5, 3}, []int64{3, 1}, 2)
	g := backend.NewGrid(ir.Int, 3, 3)
	for w := range 3 {
		backend.Cells[int32](g)[3+w] = 15                // row 1: three copies of item 1
		backend.Cells[int32](g)[6+w] = 15 + 3*int32(w/2) // row 2: item 2 fits at w = 2
	}
	text, ok = solution("knapsack-bounded", p0, &backend.Result{Path: [][2]int64{{0, 0}, {1, 0}, {2, 2}}, Grid: g})
	if want := "items 1 (x3), 2 (x1)\nweight 2 of 2, value 18"; !ok || text != want {
		t.Errorf("weight 0: got %v %q, want %q", ok, text, want)
	}
}

func TestKnapsackRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name string
		n    int
		cap  int64
	}{{"knapsack", 1, 0}, {"knapsack", 13, 57}, {"knapsack-bounded", 17, 101}, {"knapsack-unbounded", 9, 83}, {"knapsack", 60, 997}} {
		wt, val, cnt := make([]int64, tc.n), make([]int64, tc.n), make([]int64, tc.n)
		for k := range wt {
			wt[k], val[k] = 1+r.Int64N(30), r.Int64N(101)
			switch tc.name {
			case "knapsack":
				cnt[k] = 1
			case "knapsack-bounded":
				cnt[k] = 1 + r.Int64N(5)
			default:
				cnt[k] = -1
			}
		}
		opt, path := knapsackDP(wt, val, cnt, tc.cap)
		text, ok := solution(tc.name, knapsackProblem(tc.name, wt, val, cnt, tc.cap), &backend.Result{Path: path})
		if !ok {
			t.Fatalf("%s n=%d: no rendering", tc.name, tc.n)
		}
		// Read the items back and total them independently.
		var weight, value int64
		seen := map[int64]bool{}
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "weight") {
				break
			}
			for _, f := range strings.Split(strings.TrimPrefix(strings.TrimSpace(l), "items "), ",") {
				f = strings.TrimSpace(f)
				if f == "" || f == "no items" {
					continue
				}
				for _, word := range strings.Fields(f) {
					if strings.HasPrefix(word, "(") {
						continue
					}
					item, err := strconv.ParseInt(word, 10, 64)
					if err != nil || item < 1 || item > int64(tc.n) || seen[item] {
						t.Fatalf("%s: bad item %q in\n%s", tc.name, word, text)
					}
					seen[item] = true
					c := int64(1)
					if i := strings.Index(f, "(x"); i >= 0 {
						c, _ = strconv.ParseInt(strings.TrimSuffix(f[i+2:], ")"), 10, 64)
					}
					if cnt[item-1] > 0 && c > cnt[item-1] {
						t.Errorf("%s: item %d taken %d times, only %d available", tc.name, item, c, cnt[item-1])
					}
					weight += c * wt[item-1]
					value += c * val[item-1]
				}
			}
		}
		totals := lineNumbers(t, text, "weight")
		if value != opt || weight > tc.cap || totals[0] != weight || totals[1] != tc.cap || totals[2] != opt {
			t.Errorf("%s n=%d: items give weight %d value %d, line says %v; optimum %d, capacity %d\n%s",
				tc.name, tc.n, weight, value, totals, opt, tc.cap, text)
		}
	}
}

func TestManhattan(t *testing.T) {
	// Compeau and Pevzner's example: the best path weighs 34.
	down := []int64{1, 0, 2, 4, 3, 4, 6, 5, 2, 1, 4, 4, 5, 2, 1, 5, 6, 8, 5, 3}
	right := []int64{3, 2, 4, 0, 3, 2, 4, 2, 0, 7, 3, 3, 3, 3, 0, 2, 1, 3, 2, 2}
	opt, path := manhattanDP(5, 5, down, right)
	p := &ir.Problem{Name: "manhattan", Rows: 5, Cols: 5, Inputs: []*ir.Input{intMatrix("down", 4, 5, down), intMatrix("right", 5, 4, right)}}
	text, ok := solution("manhattan", p, &backend.Result{Path: path})
	if !ok || opt != 34 || !strings.HasSuffix(text, "4 south, 4 east, total weight 34") {
		t.Errorf("optimum %d, rendering %v:\n%s", opt, ok, text)
	}
	// By hand: straight east, then straight south: 3+2+4+0 + 3+1+1+3 = 17.
	hand := [][2]int64{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 4}, {2, 4}, {3, 4}, {4, 4}}
	if text, ok := solution("manhattan", p, &backend.Result{Path: hand}); !ok || text != "EEEESSSS\n4 south, 4 east, total weight 17" {
		t.Errorf("by hand: %v %q", ok, text)
	}
	// From the edge (a recurrence with sums on its edges): the same route.
	if text, ok := solution("manhattan", p, &backend.Result{Path: hand[4:]}); !ok || text != "EEEESSSS\n4 south, 4 east, total weight 17" {
		t.Errorf("from the edge: %v %q", ok, text)
	}
	if _, ok := solution("manhattan", p, &backend.Result{Path: [][2]int64{{1, 1}, {2, 2}}}); ok {
		t.Error("a diagonal step was rendered")
	}

	r := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][2]int{{1, 1}, {1, 7}, {6, 1}, {31, 37}, {50, 50}} {
		n, m := sz[0], sz[1]
		down, right := make([]int64, (n-1)*m), make([]int64, n*(m-1))
		for k := range down {
			down[k] = r.Int64N(101)
		}
		for k := range right {
			right[k] = r.Int64N(101)
		}
		opt, path := manhattanDP(n, m, down, right)
		p := &ir.Problem{Name: "manhattan", Rows: int64(n), Cols: int64(m),
			Inputs: []*ir.Input{intMatrix("down", n-1, m, down), intMatrix("right", n, m-1, right)}}
		text, ok := solution("manhattan", p, &backend.Result{Path: path})
		if !ok {
			t.Fatalf("%dx%d: no rendering", n, m)
		}
		moves := strings.Join(strings.Split(text, "\n")[:strings.Count(text, "\n")], "")
		if n == 1 && m == 1 {
			moves = ""
		}
		if strings.Count(moves, "S") != n-1 || strings.Count(moves, "E") != m-1 {
			t.Errorf("%dx%d: moves %q", n, m, moves)
		}
		// Walk the moves and total the streets independently.
		var i, j int
		var total int64
		for _, mv := range moves {
			if mv == 'S' {
				total += down[i*m+j]
				i++
			} else {
				total += right[i*(m-1)+j]
				j++
			}
		}
		want := fmt.Sprintf("%d south, %d east, total weight %d", n-1, m-1, opt)
		if total != opt || !strings.HasSuffix(text, want) {
			t.Errorf("%dx%d: moves total %d, optimum %d, text ends %q", n, m, total, opt, text[strings.LastIndex(text, "\n")+1:])
		}
	}
}

func BenchmarkAlignment2k(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	a, c := randomDNA(r, 2000, "ACGT"), randomDNA(r, 2000, "ACGT")
	_, path := globalAlign(a, c, func(x, y byte) int64 {
		if x == y {
			return 1
		}
		return -1
	}, -2, -2, false)
	p := alignProblem("needleman-wunsch", a, c, "match", 1, "mismatch", -1, "gap", -2)
	res := &backend.Result{Path: path}
	for b.Loop() {
		if _, ok := solution("needleman-wunsch", p, res); !ok {
			b.Fatal("no rendering")
		}
	}
}

// TestAlignmentRecordNeedsPrefixGrid: a record (CIGAR, PAF, SAM) is made
// only where the grid is the two sequences' prefixes; two char inputs of
// another grid (a parenthesization of a string by its operators, a 1-D or
// 3-D grid) are no alignment.
func TestAlignmentRecordNeedsPrefixGrid(t *testing.T) {
	path := [][2]int64{{0, 0}, {1, 1}, {2, 2}}
	ok := alignProblem("mine", "AC", "AG")
	ok.Dims = 2
	if _, got := AlignmentRecord(ok, path, false); !got {
		t.Errorf("3 x 3 grid of AC against AG: no record")
	}
	tables := *ok
	tables.Cols, tables.Tables = 9, []string{"X", "Y", "H"}
	if _, got := AlignmentRecord(&tables, path, false); !got {
		t.Errorf("3 tables of 3 x 3: no record")
	}
	for _, p := range []*ir.Problem{
		{Name: "paren", Dims: 2, Rows: 2, Cols: 2, Inputs: []*ir.Input{charInput("s", "TF"), charInput("o", "&|^&|^")}},
		{Name: "square", Dims: 2, Rows: 3, Cols: 3, Inputs: []*ir.Input{charInput("A", "AC"), charInput("B", "ACGT")}},
		{Name: "oned", Dims: 1, Rows: 1, Cols: 3, Inputs: []*ir.Input{charInput("A", ""), charInput("B", "AC")}},
	} {
		if r, got := AlignmentRecord(p, path[:1], false); got {
			t.Errorf("%s: record %+v", p.Name, r)
		}
	}
}
