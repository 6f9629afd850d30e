package sema

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

// lisSrc is the 1-D example of contract v2 §7.1, data inline.
const lisSrc = `int 1x? a = 3,1,4,1,5,9,2,6
len(a)
cell[j] = 1 + max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0)
answer: max(j in 0..len(a)-1: cell[j])
`

// TestOneDGridLowering checks the lowering of a 1-D grid to the 1 x N grid
// every later stage knows: Rows 1, the one variable the column variable,
// every cell[e] a reference to cell[0][e].
func TestOneDGridLowering(t *testing.T) {
	p := mustCheck(t, lisSrc, nil)
	checkProblemTypes(t, p)
	if p.Dims != 1 || p.Rows != 1 || p.Cols != 8 || p.IVar != "" || p.JVar != "j" {
		t.Errorf("Dims %d, grid %dx%d, IVar %q, JVar %q; want 1, 1x8, \"\", \"j\"", p.Dims, p.Rows, p.Cols, p.IVar, p.JVar)
	}
	if got, want := show(p.Cases[0].Value), "(1:int +sat max(k in 0:int..(j - 1:int):int: ((a[k]:int < a[j]:int):bool ? cell#0[0:int][k] : 0:int):int):int):int"; got != want {
		t.Errorf("case:\n got %s\nwant %s", got, want)
	}
	if got, want := show(p.Answer), "max(j in 0:int..7:int: cell#-1[0:int][j]):int"; got != want {
		t.Errorf("answer:\n got %s\nwant %s", got, want)
	}
	if len(p.CellRefs) != 1 {
		t.Fatalf("%d cell references, want 1", len(p.CellRefs))
	}
	r := p.CellRefs[0]
	if !r.OneD || r.Text != "cell[k]" || r.Pos.Line != 3 || r.Pos.Col != 46 {
		t.Errorf("reference %+v: want OneD, text cell[k] at 3:46", r)
	}
	ir.Walk(p.Answer, func(e ir.Expr) bool {
		if r, ok := e.(*ir.CellRef); ok && (!r.OneD || r.Text != "cell[j]") {
			t.Errorf("answer reference %+v", r)
		}
		return true
	})
	// The index variable is the column variable, in the recurrence.
	ir.Walk(p.Cases[0].Value, func(e ir.Expr) bool {
		if v, ok := e.(*ir.Var); ok && v.Name == "j" && v.Kind != ir.VarJ {
			t.Errorf("j is of kind %d, want VarJ", v.Kind)
		}
		return true
	})
}

// lis is the length of the longest strictly increasing subsequence of a,
// by the quadratic textbook method, written independently of the .dp file.
func lis(a []int64) int64 {
	best := int64(0)
	end := make([]int64, len(a)) // end[j]: the longest ending at a[j]
	for j := range a {
		end[j] = 1
		for k := 0; k < j; k++ {
			if a[k] < a[j] && end[k]+1 > end[j] {
				end[j] = end[k] + 1
			}
		}
		best = max(best, end[j])
	}
	return best
}

// lisFixedSrc is lisSrc with the empty look-back of cell[0] taken care
// of: as written in the contract, max(k in 0..-1: ...) is -inf (the
// identity of an empty max), so cell[0] = 1 + -inf = -inf, which spreads to
// every cell whose best predecessor it is.
var lisFixedSrc = strings.Replace(lisSrc, "1 + max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0)", "1 + max(0, max(k in 0..j-1: a[k] < a[j] ? cell[k] : 0))", 1)

// TestOneDGridComputes runs the lowered LIS problem through interp, cell by
// cell in order, on random arrays, against lis: the lowering means what the
// 1-D file says.
func TestOneDGridComputes(t *testing.T) {
	if lisFixedSrc == lisSrc {
		t.Fatal("lisFixedSrc is lisSrc")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for n := range 40 {
		n++
		a := make([]int64, n)
		vals := make([]string, n)
		for k := range a {
			a[k] = rng.Int64N(int64(n)) - 3
			vals[k] = fmt.Sprint(a[k])
		}
		src := strings.Replace(lisFixedSrc, "3,1,4,1,5,9,2,6", strings.Join(vals, ","), 1)
		p := mustCheck(t, src, nil)
		if p.Rows != 1 || p.Cols != int64(n) {
			t.Fatalf("n=%d: grid %dx%d", n, p.Rows, p.Cols)
		}
		in := &interp{t: t, grid: map[[2]int64]int64{}, vars: map[any]int64{}}
		for j := range int64(n) {
			in.vars[ir.VarJ] = j
			in.grid[[2]int64{0, j}] = in.eval(p.Cases[0].Value)
		}
		delete(in.vars, ir.VarJ)
		if got, want := in.eval(p.Answer), lis(a); got != want {
			t.Errorf("a = %v: answer %d, want %d", a, got, want)
		}
	}
}

// interp evaluates the integer expressions of a lowered problem, plainly:
// enough of the IR for TestOneDGridComputes, independent of package eval.
// vars holds the index variables by kind and reduction variables by their
// *ir.Reduce; grid the cells computed so far.
type interp struct {
	t    *testing.T
	grid map[[2]int64]int64
	vars map[any]int64
}

func (in *interp) eval(e ir.Expr) int64 {
	switch n := e.(type) {
	case *ir.Const:
		return n.V.I
	case *ir.Var:
		key := any(n.Kind)
		if n.Kind == ir.VarReduce {
			key = n.Reduce
		}
		v, ok := in.vars[key]
		if !ok {
			in.t.Fatalf("variable %s unbound", n.Name)
		}
		return v
	case *ir.Load:
		return n.In.I[in.eval(n.Index[0])]
	case *ir.CellRef:
		at := [2]int64{in.eval(n.I), in.eval(n.J)}
		v, ok := in.grid[at]
		if !ok {
			in.t.Fatalf("%s reads cell %v, not computed", n.Text, at)
		}
		return v
	case *ir.Convert:
		return in.eval(n.X)
	case *ir.Select:
		if in.eval(n.Cond) != 0 {
			return in.eval(n.Then)
		}
		return in.eval(n.Else)
	case *ir.Binary:
		x, y := in.eval(n.X), in.eval(n.Y)
		switch n.Op {
		case ir.OpAdd:
			return x + y
		case ir.OpSub:
			return x - y
		case ir.OpLt:
			return b2i(x < y)
		}
	case *ir.Call:
		if n.Fn == ir.FnMax {
			v := in.eval(n.Args[0])
			for _, a := range n.Args[1:] {
				v = max(v, in.eval(a))
			}
			return v
		}
	case *ir.Reduce:
		if n.Op == ir.ReduceMax {
			v := int64(math.MinInt64) // the identity: -inf
			for k := in.eval(n.Lo); k <= in.eval(n.Hi); k++ {
				in.vars[n] = k
				v = max(v, in.eval(n.Body))
			}
			delete(in.vars, n)
			return v
		}
	}
	in.t.Fatalf("interp: %s not handled", show(e))
	return 0
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestGridSides(t *testing.T) {
	tests := []struct {
		src                string
		dims               int
		rows, cols         int64
		dim0, dim1, rc, cc string // show() of DIM0, DIM1, ROWS, COLS in the recurrence
	}{
		{"5\ncell[j] = j\n", 1, 1, 5, "5:int", "", "1:int", "5:int"},
		{"int n = 6\nn\ncell[j] = j\n", 1, 1, 6, "6:int", "", "1:int", "6:int"},
		{"int n = 6\n(n+1)\ncell[j] = j\n", 1, 1, 7, "7:int", "", "1:int", "7:int"},
		{"int 1x3 v = 1,2,3\nlen(v)\ncell[x] = v[x]\n", 1, 1, 3, "3:int", "", "1:int", "3:int"},
		{"3000000000\ncell: long\ncell[j] = j\n", 1, 1, 3000000000, "3000000000:long", "", "1:int", "3000000000:long"},
		{"4x5\ncell[i][j] = i\n", 2, 4, 5, "4:int", "5:int", "4:int", "5:int"},
		{"int n = 2\nn x (n+3)\ncell[i][j] = i\n", 2, 2, 5, "2:int", "5:int", "2:int", "5:int"},
		{"1 x 7\ncell[i][j] = i\n", 2, 1, 7, "1:int", "7:int", "1:int", "7:int"}, // a 2-D grid of one row stays 2-D
	}
	for _, tc := range tests {
		p := mustCheck(t, tc.src, nil)
		if p.Dims != tc.dims || p.Rows != tc.rows || p.Cols != tc.cols {
			t.Errorf("%q: Dims %d, %dx%d; want %d, %dx%d", tc.src, p.Dims, p.Rows, p.Cols, tc.dims, tc.rows, tc.cols)
		}
		names := map[string]string{"DIM0": tc.dim0, "DIM1": tc.dim1, "ROWS": tc.rc, "COLS": tc.cc}
		for name, want := range names {
			if want == "" {
				continue
			}
			src := tc.src + "answer: " + name + "\n"
			if got := show(mustCheck(t, src, nil).Answer); got != want {
				t.Errorf("%q: %s = %s, want %s", tc.src, name, got, want)
			}
		}
	}
}

// TestScheduleForms checks `schedule: interval` and `schedule: t = EXPR`:
// EXPR is lowered with the recurrence's index variables, wherever the line
// stands.
func TestScheduleForms(t *testing.T) {
	tests := []struct {
		src      string
		schedule string
		expr     string // show(p.ScheduleExpr)
		kinds    map[string]ir.VarKind
	}{
		{"schedule: interval\n5x5\ncell[i][j] = i\n", "interval", "<nil>", nil},
		{"schedule: t = j - i\n5x5\ncell[i][j] = i\n", "t", "(j - i):int", map[string]ir.VarKind{"i": ir.VarI, "j": ir.VarJ}},
		{"5x5\ncell[r][c] = r\nschedule: t = 2*r + c\n", "t", "((2:int * r):int + c):int", map[string]ir.VarKind{"r": ir.VarI, "c": ir.VarJ}},
		{"int a = 3\n5x5\nschedule: t = a * i - (j + 1)\ncell[i][j] = i\n", "t", "(($a:int * i):int - (j + 1:int):int):int", map[string]ir.VarKind{"i": ir.VarI, "j": ir.VarJ}},
		{"8\nschedule: t = j\ncell[j] = j\n", "t", "j", map[string]ir.VarKind{"j": ir.VarJ}},
		{"8\nschedule: t = -k\ncell[k] = k\n", "t", "(-k):int", map[string]ir.VarKind{"k": ir.VarJ}},
		{"char c = 'A'\n8\nschedule: t = c * k\ncell[k] = k\n", "t", "(int($c:char) * k):int", map[string]ir.VarKind{"k": ir.VarJ}},
		{"int 1x4 v = 1,2,3,4\n5x5\nschedule: t = len(v) * i + j + ROWS + DIM1\ncell[i][j] = i\n", "t", "((((4:int * i):int + j):int + 5:int):int + 5:int):int", map[string]ir.VarKind{"i": ir.VarI, "j": ir.VarJ}},
		{"3 x 3000000000\ncell: long\nschedule: t = i + j\ncell[i][j] = i\n", "t", "(i + j):long", map[string]ir.VarKind{"i": ir.VarI, "j": ir.VarJ}},
	}
	for _, tc := range tests {
		p := mustCheck(t, tc.src, nil)
		if p.Schedule != tc.schedule || !p.SchedulePos.IsValid() {
			t.Errorf("%q: Schedule %q at %v, want %q", tc.src, p.Schedule, p.SchedulePos, tc.schedule)
		}
		if got := show(p.ScheduleExpr); got != tc.expr {
			t.Errorf("%q: ScheduleExpr %s, want %s", tc.src, got, tc.expr)
		}
		if p.ScheduleExpr == nil {
			continue
		}
		checkTypes(t, p.ScheduleExpr)
		if !p.ScheduleExpr.Type().IsInteger() {
			t.Errorf("%q: ScheduleExpr of type %s", tc.src, p.ScheduleExpr.Type())
		}
		ir.Walk(p.ScheduleExpr, func(e ir.Expr) bool {
			if v, ok := e.(*ir.Var); ok {
				if kind, known := tc.kinds[v.Name]; !known || kind != v.Kind {
					t.Errorf("%q: variable %s of kind %d", tc.src, v.Name, v.Kind)
				}
			}
			return true
		})
	}
}
