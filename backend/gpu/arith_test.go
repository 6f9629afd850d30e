package gpu

import (
	"context"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/internal/gputest"
	"github.com/dpgpu/dpgpu/ir"
)

// The arithmetic of docs/language.md §6.1, side by side: each problem runs
// on the CPU executor and on the GPU (every kernel that applies), and both
// must give the same answer or fail with the same message, which must say
// what the contract says. Without a GPU the GPU half skips (fails with
// DPGPU_REQUIRE_GPU=1); the message tests further down need none.

// arithCase is a small problem and what it must give: an error containing
// want, or (want "") the answer ans.
type arithCase struct {
	name string
	src  string
	want string  // a part of the error message; "" for success
	ans  float64 // the answer (NaN: must be NaN) when want is ""
	// loose: the GPU folds a region sum in its own order, so its message
	// cannot name the operands of the CPU's failing +: only want must match.
	loose bool
	// anyCell: several cells fail at once; the GPU computes many together
	// and names whichever failed first there, so the cell may differ from
	// the CPU's (docs/language.md §6.1): the rest of the message must match.
	anyCell bool
}

var cellCoords = regexp.MustCompile(`cell\[\d+\]\[\d+\]`)

var arithCases = []arithCase{
	{name: "long-doubling", src: `problem dbl
cell: long
70 x 1
cell[i][j] = 2 * cell[i-1][j]   when i > 0
           | 1                  otherwise
`, want: "overflow computing cell[63][0]: 2 * 4611686018427387904 does not fit in long (finite range ±9,223,372,036,854,775,806)"},
	{name: "int-chain", src: `problem chain
int 1x3 A = 1,2,3
3 x 1
cell[i][j] = cell[i-1][j] + A[i] * 50000 * 50000 / 50000 / 50000   when i > 0
           | 0                                                       otherwise
`, want: "overflow computing cell[1][0]: 100000 * 50000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
	{name: "int-max", src: `problem max
2 x 1
cell[i][j] = cell[i-1][j] + 1073741824   when i > 0
           | 1073741823                  otherwise
`, want: "overflow computing cell[1][0]: 1073741823 + 1073741824 does not fit in int (finite range ±2,147,483,646); use cell: long"},
	{name: "int-max-1", src: `problem max
2 x 1
cell[i][j] = cell[i-1][j] + 1073741823   when i > 0
           | 1073741823                  otherwise
`, ans: 2147483646},
	{name: "inf-minus-inf", src: `problem infsub
3 x 1
cell[i][j] = cell[i-1][j] - inf   when i > 0
           | inf                  otherwise
`, want: "inf - inf is undefined computing cell[1][0]"},
	{name: "inf-times-0", src: `problem infmul
int 1x1 Z = 0
2 x 1
cell[i][j] = cell[i-1][j] * Z[0]   when i > 0
           | inf                   otherwise
`, want: "inf * 0 is undefined computing cell[1][0]"},
	{name: "inf-div-inf", src: `problem infdiv
2 x 1
cell[i][j] = cell[i-1][j] / cell[i-1][j]   when i > 0
           | -inf                          otherwise
`, want: "inf / inf is undefined computing cell[1][0]"},
	{name: "inf-rem", src: `problem infrem
2 x 1
cell[i][j] = cell[i-1][j] % 7   when i > 0
           | inf                otherwise
`, want: "inf % x is undefined computing cell[1][0]"},
	{name: "inf-times-neg", src: `problem infneg
int 1x1 K = -3
2 x 1
cell[i][j] = cell[i-1][j] * K[0]   when i > 0
           | inf                   otherwise
`, ans: -math.MaxInt32},
	{name: "x-div-inf", src: `problem divinf
int 1x1 K = 5
2 x 1
cell[i][j] = K[0] / cell[i-1][j]   when i > 0
           | inf                   otherwise
`, ans: 0},
	{name: "x-rem-inf", src: `problem reminf
int 1x1 K = -5
2 x 1
cell[i][j] = K[0] % cell[i-1][j]   when i > 0
           | -inf                  otherwise
`, ans: -5},
	{name: "sum-overflow", src: `problem sum
int 1x3 A = 1000000000,1000000000,1000000000
2 x 1
cell[i][j] = sum(k in 0..2: A[k]) + cell[i-1][j]   when i > 0
           | 0                                     otherwise
`, want: "overflow computing cell[1][0]: 2000000000 + 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"},
	{name: "double-to-int", src: `problem f2i
double 1x2 A = 0.5, 1.0
2 x 1
cell[i][j] = A[i] * 3000000000.0   when i > 0
           | 0                     otherwise
`, want: "overflow computing cell[1][0]: converting 3e+09 to int does not fit (finite range ±2,147,483,646); use cell: long"},
	{name: "long-to-int", src: `problem l2i
long 1x2 L = 1, 3000000000
2 x 1
cell[i][j] = L[i]   when i > 0
           | 0      otherwise
`, want: "overflow computing cell[1][0]: converting 3000000000 to int does not fit (finite range ±2,147,483,646); use cell: long"},
	{name: "nan-cell", src: `problem nan
cell: double
3 x 1
cell[i][j] = sqrt(cell[i-1][j] - 1.0)   when i > 0
           | 0.0                        otherwise
`, want: "cell[1][0] is NaN; add `nan: allow` to the header to keep NaN values"},
	{name: "nan-allowed", src: `problem nan
cell: double
nan: allow
3 x 1
cell[i][j] = sqrt(cell[i-1][j] - 1.0)   when i > 0
           | 0.0                        otherwise
`, ans: math.NaN()},
	{name: "nan-wavefront", src: `problem nanwave
cell: double
40 x 50
cell[i][j] = 0.0                                     when i == 0 || j == 0
           | sqrt(0.0 - i - j)                       when i == 3 && j == 2
           | max(cell[i-1][j], cell[i][j-1]) + 1.0   otherwise
`, want: "cell[3][2] is NaN; add `nan: allow` to the header to keep NaN values"},
	{name: "unselected-wavefront", src: `problem quiet
cell: double
40 x 50
cell[i][j] = 0.0                                     when i == 0 || j == 0
           | sqrt(0.0 - i - j)                       when i == 100
           | max(cell[i-1][j], cell[i][j-1]) + 1.0   otherwise
`, ans: 39 + 49 - 1},
	{name: "int-wavefront-overflow", src: `problem wave
int 1x1 K = 100000000
40 x 50
cell[i][j] = 0                                       when i == 0 || j == 0
           | max(cell[i-1][j], cell[i][j-1]) + K[0]  otherwise
`, want: "overflow computing cell[", anyCell: true},
	{name: "short-cell-overflow", src: `problem s
cell: short
40 x 1
cell[i][j] = 1                  when i == 0
           | cell[i-1][j] * 2   otherwise
`, want: "converting 32768 to short does not fit"},
	{name: "short-inf", src: `problem s
cell: short
5 x 3
cell[i][j] = inf                          when i == 0
           | min(cell[i-1][j] + 1, 30000)  when j == 0
           | cell[i-1][j] + cell[i][j-1]   otherwise
`, ans: 32767}, // inf: row 0 is inf, and inf + 30000 stays inf
	{name: "short-store-overflow", src: `problem s
cell: short
5 x 3
cell[i][j] = 0                            when i == 0
           | 20000                        when j == 0
           | cell[i-1][j] + cell[i][j-1]  otherwise
`, want: "converting 40000 to short does not fit"},
	{name: "division-by-zero", src: `problem d
int 1x3 Z = 1, 0, 2
3 x 3
cell[i][j] = 1                   when i == 0
           | cell[i-1][j] / Z[j] otherwise
`, want: "division by zero (computing cell[1][1])"},
	{name: "remainder-by-zero", src: `problem d
cell: long
int 1x3 Z = 1, 2, 0
3 x 3
cell[i][j] = 1                   when i == 0
           | cell[i-1][j] % Z[j] otherwise
`, want: "remainder of a division by zero (computing cell[1][2])"},
	{name: "region-sum-overflow", src: `problem rsum
int 1x1 K = 1000000000
3 x 3
cell[i][j] = K[0]   when i == 0
           | 0      otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))
`, want: "overflow computing the answer", loose: true},
	{name: "region-sum-inf", src: `problem rsuminf
3 x 3
cell[i][j] = inf    when i == 0 && j == 0
           | -inf   when i == 2 && j == 2
           | 0      otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))
`, want: "inf - inf is undefined computing the answer", loose: true},
	{name: "region-sum-nan", src: `problem rsumnan
cell: double
3 x 3
cell[i][j] = 1.0 / 0.0    when i == 0 && j == 0
           | -1.0 / 0.0   when i == 2 && j == 2
           | 0.0          otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))
`, want: "the answer is NaN; add `nan: allow` to the header to keep NaN values"},
}

// arithExecutor is the shared executor, or the end of the test where there
// is no GPU (a skip, or a failure with DPGPU_REQUIRE_GPU=1).
func arithExecutor(t *testing.T) *Executor {
	t.Helper()
	var e *Executor
	t.Run("executor", func(t *testing.T) { e = executor(t) })
	if e == nil {
		gputest.NoGPU(t, shared.err)
	}
	return e
}

func TestArithmeticSideBySide(t *testing.T) {
	e := arithExecutor(t)
	for _, c := range arithCases {
		t.Run(c.name, func(t *testing.T) {
			p, pl := dptest.Load(t, c.name+".dp", c.src)
			cres, cerr := cpu.New(0).Run(context.Background(), p, pl, backend.Options{})
			checkArith(t, "CPU", c, cres, cerr)
			variants := lineVariants
			if len(pl.Deps) > 0 && pl.Schedule == "wavefront" {
				variants = wavefrontVariants
			}
			for _, v := range variants {
				gres, gerr := runGPU(t, e, p, pl, v)
				checkArith(t, "GPU "+v.name, c, gres, gerr)
				switch {
				case cerr != nil && gerr != nil:
					ce, ge := cerr.Error(), gerr.Error()
					if c.anyCell {
						ce, ge = cellCoords.ReplaceAllString(ce, "cell[.][.]"), cellCoords.ReplaceAllString(ge, "cell[.][.]")
					}
					if !c.loose && ce != ge {
						t.Errorf("GPU %s and CPU disagree:\n  GPU: %v\n  CPU: %v", v.name, gerr, cerr)
					}
				case cerr == nil && gerr == nil:
					if !sameValue(cres.Answer, gres.Answer) {
						t.Errorf("GPU %s answer %v, CPU %v", v.name, gres.Answer, cres.Answer)
					}
				}
			}
		})
	}
}

func checkArith(t *testing.T, who string, c arithCase, res *backend.Result, err error) {
	t.Helper()
	if c.want != "" {
		if err == nil {
			t.Errorf("%s: answer %v, want an error %q", who, res.Answer, c.want)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want %q", who, err, c.want)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", who, err)
		return
	}
	got := res.Answer.Float64()
	if got != c.ans && !(math.IsNaN(got) && math.IsNaN(c.ans)) {
		t.Errorf("%s: answer %v, want %v", who, got, c.ans)
	}
}

func sameValue(a, b ir.Value) bool {
	if a.T != b.T {
		return false
	}
	if a.T.IsFloat() {
		return a.F == b.F || (math.IsNaN(a.F) && math.IsNaN(b.F))
	}
	return a.I == b.I
}

// TestArithmeticMessages words device errors as the contract says, without
// a device: the sites come from the generated program, the reports are
// what the kernels would write to dp_err. The data holds the operands the
// reports carry: a program is specialised to its inputs' bounds, and data
// that cannot overflow leaves no site to report from.
func TestArithmeticMessages(t *testing.T) {
	type report struct {
		code   int
		kind   codegen.SiteKind
		node   func(ir.Expr) bool
		i, j   int64
		x, y   int64
		wanted string
	}
	binary := func(op ir.Op) func(ir.Expr) bool {
		return func(e ir.Expr) bool { b, ok := e.(*ir.Binary); return ok && b.Op == op }
	}
	conv := func(e ir.Expr) bool { _, ok := e.(*ir.Convert); return ok }
	reduce := func(e ir.Expr) bool { _, ok := e.(*ir.Reduce); return ok }
	anyNode := func(ir.Expr) bool { return true }
	cases := []struct {
		name, src string
		rep       report
	}{
		{"int-mul", `problem m
int 1x2 A = 1, 1000000000
2 x 1
cell[i][j] = A[i] * A[i]   when i > 0
           | 0             otherwise
`, report{codegen.ErrOverflow, codegen.SiteOverflow, binary(ir.OpMul), 3, 0, 1000000000, 1000000000,
			"m.dp:4:19: overflow computing cell[3][0]: 1000000000 * 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"}},
		{"long-add", `problem l
long 1x2 A = 1, 9223372036854775000
cell: long
2 x 1
cell[i][j] = A[i] + A[i]   when i > 0
           | 0             otherwise
`, report{codegen.ErrOverflow, codegen.SiteOverflow, binary(ir.OpAdd), 1, 0, 9223372036854775000, 9223372036854775000,
			"l.dp:5:19: overflow computing cell[1][0]: 9223372036854775000 + 9223372036854775000 does not fit in long (finite range ±9,223,372,036,854,775,806)"}},
		{"double-to-int", `problem f
double 1x2 A = 1.5, 2
2 x 1
cell[i][j] = A[i]   when i > 0
           | 0      otherwise
`, report{codegen.ErrOverflow, codegen.SiteNaN, conv, 1, 0, int64(math.Float64bits(3e9)), 0,
			"overflow computing cell[1][0]: converting 3e+09 to int does not fit (finite range ±2,147,483,646); use cell: long"}},
		{"double-to-int-huge", `problem f
double 1x2 A = 1.5, 2
2 x 1
cell[i][j] = A[i]   when i > 0
           | 0      otherwise
`, report{codegen.ErrOverflow, codegen.SiteNaN, conv, 1, 0, int64(math.Float64bits(1e300)), 0,
			""}},
		{"sum", `problem s
int 1x3 A = 1,2,3
2 x 1
cell[i][j] = sum(k in 0..2: A[k])   when i > 0
           | 0                      otherwise
`, report{codegen.ErrOverflow, codegen.SiteInf, reduce, 1, 0, 2000000000, 1000000000,
			"overflow computing cell[1][0]: 2000000000 + 1000000000 does not fit in int (finite range ±2,147,483,646); use cell: long"}},
		{"inf-sub", `problem s
2 x 1
cell[i][j] = cell[i-1][j] - inf   when i > 0
           | inf                  otherwise
`, report{codegen.ErrInfOp, codegen.SiteInf, binary(ir.OpSub), 1, 0, math.MaxInt32, math.MaxInt32, "inf - inf is undefined computing cell[1][0]"}},
		{"inf-mul", `problem s
int 1x1 Z = 0
2 x 1
cell[i][j] = cell[i-1][j] * Z[0]   when i > 0
           | inf                   otherwise
`, report{codegen.ErrInfOp, codegen.SiteInf, binary(ir.OpMul), 1, 0, math.MaxInt32, 0, "inf * 0 is undefined computing cell[1][0]"}},
		{"inf-div", `problem s
2 x 1
cell[i][j] = cell[i-1][j] / cell[i-1][j]   when i > 0
           | inf                           otherwise
`, report{codegen.ErrInfOp, codegen.SiteInf, binary(ir.OpDiv), 1, 0, math.MaxInt32, math.MaxInt32, "inf / inf is undefined computing cell[1][0]"}},
		{"inf-rem", `problem s
2 x 1
cell[i][j] = cell[i-1][j] % 3   when i > 0
           | inf                otherwise
`, report{codegen.ErrInfOp, codegen.SiteInf, binary(ir.OpRem), 1, 0, math.MaxInt32, 3, "inf % x is undefined computing cell[1][0]"}},
		{"nan-cell", `problem n
cell: double
2 x 1
cell[i][j] = sqrt(cell[i-1][j] - 1.0)   when i > 0
           | 0.0                        otherwise
`, report{codegen.ErrNaN, codegen.SiteNaNCell, anyNode, 1, 0, 0, 0, "n.dp:4:14: cell[1][0] is NaN; add `nan: allow` to the header to keep NaN values"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, pl := dptest.Load(t, strings.SplitN(c.src[len("problem "):], "\n", 2)[0]+".dp", c.src)
			prog, err := codegen.Generate(p, pl, codegen.Options{})
			if err != nil {
				t.Fatal(err)
			}
			site := -1
			for k, s := range prog.Sites {
				if s.Kind == c.rep.kind && c.rep.node(s.Node) {
					site = k
					break
				}
			}
			if site < 0 {
				t.Fatalf("no site of kind %d for the report in %v", c.rep.kind, prog.Sites)
			}
			r := &run{p: p, pl: pl, prog: prog}
			got := r.describe(c.rep.code, site, c.rep.i, c.rep.j, c.rep.x, c.rep.y).Error()
			want := c.rep.wanted
			if want == "" {
				// Outside long too: no hint.
				if strings.Contains(got, "use cell: long") || !strings.HasSuffix(got, "converting 1e+300 to int does not fit (finite range ±2,147,483,646)") {
					t.Errorf("message %q suggests long for a result long cannot hold either", got)
				}
				return
			}
			if !strings.HasSuffix(got, want) || (strings.Contains(want, ".dp:") && got != want) {
				t.Errorf("message\n  %s\nwant\n  %s", got, want)
			}
		})
	}
}

// TestArithmeticNaNAnswer refuses a NaN answer unless `nan: allow`.
func TestArithmeticNaNAnswer(t *testing.T) {
	for _, allow := range []bool{false, true} {
		p, pl := dptest.Load(t, "n.dp", `problem n
cell: double
2 x 2
cell[i][j] = 1.0
answer: cell[0][0] - cell[1][1]
`)
		p.AllowNaN = allow
		r := &run{p: p, pl: pl}
		res := &backend.Result{Answer: ir.Value{T: ir.Double, F: math.NaN()}}
		err := r.finishAnswer(res)
		if allow != (err == nil) {
			t.Errorf("nan allowed %v: %v", allow, err)
		}
		if err != nil && !strings.Contains(err.Error(), "n.dp:5:1: the answer is NaN; add `nan: allow` to the header to keep NaN values") {
			t.Errorf("message %q", err)
		}
		res.Answer.F = math.Inf(1)
		if err := r.finishAnswer(res); err != nil {
			t.Errorf("inf answer: %v", err)
		}
	}
}

// TestArithmeticTableOnCPU runs the side-by-side table on the CPU executor
// alone, so that the table itself is checked where there is no GPU.
func TestArithmeticTableOnCPU(t *testing.T) {
	for _, c := range arithCases {
		t.Run(c.name, func(t *testing.T) {
			p, pl := dptest.Load(t, c.name+".dp", c.src)
			res, err := cpu.New(0).Run(context.Background(), p, pl, backend.Options{})
			checkArith(t, "CPU", c, res, err)
		})
	}
}
