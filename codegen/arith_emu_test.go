package codegen

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// The tests of this file pin the arithmetic of docs/language.md §6.1 in the
// generated code, run on host threads (see emu_test.go): overflow of int and
// long on every operation at the right site and cell with the operands, the
// inf rules, NaN cells, conversions. backend/gpu/arith_test.go runs the same
// kind of problems on a real GPU beside the CPU executor.

// arithCase is a small problem and what its run must give: the device error
// (code, kind of site, cell, operands) or, without one, the answer cell.
type arithCase struct {
	name string
	src  string
	kern KernelKind // "" lets the generator choose
	code int64      // expected dp_err.code; 0: none
	kind SiteKind
	at   [2]int64 // the cell being computed
	ops  [2]int64 // the operands reported (a, b)
	ans  float64  // the answer cell when code is 0 (NaN: must be NaN)
	ansI int64    // the answer cell of integer problems, exactly
}

func (c arithCase) run(t *testing.T) {
	prog := generate(t, c.name+".dp", c.src, Options{Kernel: c.kern, RowsPerThread: 1, StripWarps: 2, TileH: 32, TileW: 32, LineThreads: 32})
	if c.kern != "" && prog.Kernel != c.kern {
		t.Fatalf("kernel %s, want %s", prog.Kernel, c.kern)
	}
	res := emulate(t, prog)
	code, site := res.err[0], int(res.err[1])
	if code != c.code {
		t.Fatalf("device error %v, want code %d at %v", res.err, c.code, c.at)
	}
	if code == 0 {
		if math.IsNaN(c.ans) {
			if !math.IsNaN(res.ans) {
				t.Errorf("answer %v, want NaN", res.ans)
			}
		} else if res.ans != c.ans {
			t.Errorf("answer %v, want %v", res.ans, c.ans)
		}
		if !prog.Cell.IsFloat() && res.ansI != c.ansI {
			t.Errorf("answer %d, want %d", res.ansI, c.ansI)
		}
		return
	}
	if site < 0 || site >= len(prog.Sites) || prog.Sites[site].Kind != c.kind {
		t.Fatalf("device error %v: site %d is not a site of kind %d (sites %v)", res.err, site, c.kind, prog.Sites)
	}
	if [2]int64{res.err[2], res.err[3]} != c.at || [2]int64{res.err[4], res.err[5]} != c.ops {
		t.Errorf("device error at cell%v with operands %v, want cell%v with %v", res.err[2:4], res.err[4:6], c.at, c.ops)
	}
}

func TestEmulatedArithmetic(t *testing.T) {
	emuCompiler(t)
	cases := []arithCase{
		// long overflow is an error, not a wrap: 2^62 is finite, 2^63 not.
		{name: "long-doubling", src: `problem dbl
cell: long
70 x 1
cell[i][j] = 2 * cell[i-1][j]   when i > 0
           | 1                  otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{63, 0}, ops: [2]int64{2, 1 << 62}},
		{name: "long-add", src: `problem ladd
long 1x2 A = 9223372036854775000, 807
cell: long
2 x 1
cell[i][j] = cell[i-1][j] + A[1]   when i > 0
           | A[0]                  otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{1, 0}, ops: [2]int64{9223372036854775000, 807}},
		{name: "long-add-fits", src: `problem ladd
long 1x2 A = 9223372036854775000, 806
cell: long
2 x 1
cell[i][j] = cell[i-1][j] + A[1] - 9223372036854775000   when i > 0
           | A[0]                                         otherwise
`, ans: 806, ansI: 806},
		// Every int operation is checked, not only the value stored.
		{name: "int-chain", src: `problem chain
int 1x3 A = 1,2,3
3 x 1
cell[i][j] = cell[i-1][j] + A[i] * 50000 * 50000 / 50000 / 50000   when i > 0
           | 0                                                       otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{1, 0}, ops: [2]int64{100000, 50000}},
		// 2^31-1 is the inf sentinel, never a finite result.
		{name: "int-max", src: `problem max
2 x 1
cell[i][j] = cell[i-1][j] + 1073741824   when i > 0
           | 1073741823                  otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{1, 0}, ops: [2]int64{1073741823, 1073741824}},
		{name: "int-max-1", src: `problem max
2 x 1
cell[i][j] = cell[i-1][j] + 1073741823   when i > 0
           | 1073741823                  otherwise
`, ans: 2147483646, ansI: 2147483646},
		// A program is specialised to its inputs' bounds rounded to
		// powers of two (2^30 - 1 and 2^30 both to 2^30): the data at
		// the edge of a bound, every cell checked where the bound does
		// not prove the sums finite.
		{name: "bound-edge-fits", src: `problem edge
int 1x2 A = 0, 1073741823
3 x 1
cell[i][j] = cell[i-1][j] + A[1]   when i > 0
           | A[0]                  otherwise
`, ans: 2147483646, ansI: 2147483646},
		{name: "bound-edge-overflow", src: `problem edge
int 1x2 A = 0, 1073741824
3 x 1
cell[i][j] = cell[i-1][j] + A[1]   when i > 0
           | A[0]                  otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{2, 0}, ops: [2]int64{1073741824, 1073741824}},
		{name: "bound-negative-edge", src: `problem edge
int 1x2 A = -1073741824, 0
3 x 1
cell[i][j] = cell[i-1][j] + A[0]   when i > 0
           | A[1]                  otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{2, 0}, ops: [2]int64{-1073741824, -1073741824}},
		// A long above 2^62: its bound is no power of two (it was capped
		// at 2^62, and the sum lost its check).
		{name: "bound-above-2^62", src: dptest.LongAbove62, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{1, 0}, ops: [2]int64{9223372036854775000, 807}},
		// Divisors all >= 1 keep their sign in the bound: no zero test,
		// the quotients exact; one 0 among them is reported where read.
		{name: "bound-positive-divisor", src: `problem div
int 1x4 W = 1, 2, 3, 7
5 x 1
cell[i][j] = cell[i-1][j] + 1000 / W[i-1]   when i > 0
           | 0                              otherwise
`, ans: 1000 + 500 + 333 + 142, ansI: 1000 + 500 + 333 + 142},
		{name: "bound-zero-divisor", src: `problem div
int 1x4 W = 1, 2, 0, 7
5 x 1
cell[i][j] = cell[i-1][j] + 1000 / W[i-1]   when i > 0
           | 0                              otherwise
`, code: ErrDivZero, kind: SiteDivZero, at: [2]int64{3, 0}, ops: [2]int64{1000, 0}},
		// The inf rules.
		{name: "inf-minus-inf", src: `problem infsub
3 x 1
cell[i][j] = cell[i-1][j] - inf   when i > 0
           | inf                  otherwise
`, code: ErrInfOp, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{math.MaxInt32, math.MaxInt32}},
		{name: "inf-plus-neginf", src: `problem infadd
2 x 2
cell[i][j] = inf                            when i == 0 && j == 0
           | -inf                           when i == 0
           | cell[i-1][0] + cell[i-1][1]    when j == 0
           | 0                              otherwise
`, code: ErrInfOp, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{math.MaxInt32, -math.MaxInt32}},
		{name: "inf-times-0", src: `problem infmul
int 1x1 Z = 0
2 x 1
cell[i][j] = cell[i-1][j] * Z[0]   when i > 0
           | inf                   otherwise
`, code: ErrInfOp, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{math.MaxInt32, 0}},
		{name: "inf-div-inf", src: `problem infdiv
2 x 1
cell[i][j] = cell[i-1][j] / cell[i-1][j]   when i > 0
           | -inf                          otherwise
`, code: ErrInfOp, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{-math.MaxInt32, -math.MaxInt32}},
		{name: "inf-rem", src: `problem infrem
2 x 1
cell[i][j] = cell[i-1][j] % 7   when i > 0
           | inf                otherwise
`, code: ErrInfOp, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{math.MaxInt32, 7}},
		{name: "inf-times-neg", src: `problem infneg
int 1x1 K = -3
2 x 1
cell[i][j] = cell[i-1][j] * K[0]   when i > 0
           | inf                   otherwise
`, ans: -math.MaxInt32, ansI: -math.MaxInt32},
		{name: "x-div-inf", src: `problem divinf
int 1x1 K = 5
2 x 1
cell[i][j] = K[0] / cell[i-1][j]   when i > 0
           | inf                   otherwise
`, ans: 0, ansI: 0},
		{name: "x-rem-inf", src: `problem reminf
int 1x1 K = -5
2 x 1
cell[i][j] = K[0] % cell[i-1][j]   when i > 0
           | -inf                  otherwise
`, ans: -5, ansI: -5},
		{name: "inf-div-x", src: `problem infdivx
int 1x1 K = -2
2 x 1
cell[i][j] = cell[i-1][j] / K[0]   when i > 0
           | inf                   otherwise
`, ans: -math.MaxInt32, ansI: -math.MaxInt32},
		// Divisors of a range (its data's bounds) of one sign: inf
		// alternates sign; finite quotients stay within the corners.
		{name: "inf-div-negatives", src: `problem infdivs
int 1x3 K = -2, -3, -1
4 x 1
cell[i][j] = cell[i-1][j] / K[i-1]   when i > 0
           | inf                     otherwise
`, ans: -math.MaxInt32, ansI: -math.MaxInt32},
		{name: "div-by-range", src: `problem divs
int 1x4 K = -7, -2, -5, -3
5 x 1
cell[i][j] = cell[i-1][j] / K[i-1] + 1000   when i > 0
           | -9999                          otherwise
`, ans: 1000 + (1000+(1000+(1000+(-9999)/-7)/-2)/-5)/-3, ansI: 1000 + (1000+(1000+(1000+(-9999)/-7)/-2)/-5)/-3},
		{name: "neg-abs-inf", src: `problem negabs
3 x 1
cell[i][j] = abs(-cell[i-1][j])   when i > 0
           | inf                  otherwise
`, ans: math.MaxInt32, ansI: math.MaxInt32},
		{name: "long-inf-minus-inf", src: `problem linf
cell: long
2 x 1
cell[i][j] = cell[i-1][j] - cell[i-1][j]   when i > 0
           | inf                           otherwise
`, code: ErrInfOp, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{math.MaxInt64, math.MaxInt64}},
		{name: "long-inf-times-neg", src: `problem linfneg
long 1x1 K = -3
cell: long
2 x 1
cell[i][j] = cell[i-1][j] * K[0]   when i > 0
           | inf                   otherwise
`, ans: -math.MaxInt64, ansI: -math.MaxInt64},
		// Sums follow +: checked, with the inf rules.
		{name: "sum-overflow", src: `problem sum
int 1x3 A = 1000000000,1000000000,1000000000
2 x 1
cell[i][j] = sum(k in 0..2: A[k]) + cell[i-1][j]   when i > 0
           | 0                                     otherwise
`, code: ErrOverflow, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{2000000000, 1000000000}},
		{name: "sum-inf", src: `problem suminf
2 x 2
cell[i][j] = inf                                 when i == 0 && j == 0
           | -inf                                when i == 0
           | sum(k in 0..1: cell[i-1][k])        when j == 0
           | 0                                   otherwise
`, code: ErrInfOp, kind: SiteInf, at: [2]int64{1, 0}, ops: [2]int64{math.MaxInt32, -math.MaxInt32}},
		// Conversions: a finite value outside the finite range is an
		// overflow (reported with the double's bits), inf a sentinel.
		{name: "double-to-int", src: `problem f2i
double 1x2 A = 0.5, 1.0
2 x 1
cell[i][j] = A[i] * 2147483647.0   when i > 0
           | 0                     otherwise
`, code: ErrOverflow, kind: SiteNaN, at: [2]int64{1, 0}, ops: [2]int64{int64(math.Float64bits(2147483647.0)), 0}},
		{name: "double-to-long", src: `problem f2l
double 1x2 A = 0.5, 1.0
cell: long
2 x 1
cell[i][j] = A[i] * 9223372036854775808.0   when i > 0
           | 0                              otherwise
`, code: ErrOverflow, kind: SiteNaN, at: [2]int64{1, 0}, ops: [2]int64{int64(math.Float64bits(9223372036854775808.0)), 0}},
		{name: "double-inf-to-int", src: `problem f2inf
double 1x2 A = 0.0, 0.0
2 x 1
cell[i][j] = -1.0 / A[i]   when i > 0
           | 0             otherwise
`, ans: -math.MaxInt32, ansI: -math.MaxInt32},
		{name: "long-to-int", src: `problem l2i
long 1x2 L = 1, 3000000000
2 x 1
cell[i][j] = L[i]   when i > 0
           | 0      otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{1, 0}, ops: [2]int64{3000000000, 0}},
		// NaN in a cell is an error naming the case, unless `nan: allow`.
		{name: "nan-cell", src: `problem nan
cell: double
3 x 1
cell[i][j] = sqrt(cell[i-1][j] - 1.0)   when i > 0
           | 0.0                        otherwise
`, code: ErrNaN, kind: SiteNaNCell, at: [2]int64{1, 0}},
		{name: "nan-allowed", src: `problem nan
cell: double
nan: allow
3 x 1
cell[i][j] = sqrt(cell[i-1][j] - 1.0)   when i > 0
           | 0.0                        otherwise
`, ans: math.NaN()},
		// The strip kernel computes every case and keeps the one that
		// applies: a NaN in a case that does not apply is no error, the
		// NaN of the one that does is, at its cell.
		{name: "nan-strip", kern: KernelStrip, src: `problem nanstrip
cell: double
40 x 50
cell[i][j] = 0.0                                  when i == 0 || j == 0
           | sqrt(0.0 - i - j)                    when i == 3 && j == 2
           | max(cell[i-1][j], cell[i][j-1]) + 1.0   otherwise
`, code: ErrNaN, kind: SiteNaNCell, at: [2]int64{3, 2}},
		{name: "unselected-strip", kern: KernelStrip, src: `problem quiet
cell: double
40 x 50
cell[i][j] = 0.0                                  when i == 0 || j == 0
           | sqrt(0.0 - i - j)                    when i == 100
           | max(cell[i-1][j], cell[i][j-1]) + 1.0   otherwise
`, ans: 39 + 49 - 1},
		// An overflowing case that does not apply is not evaluated.
		{name: "unselected-overflow", kern: KernelStrip, src: `problem quiet
int 1x1 K = 2000000000
40 x 50
cell[i][j] = 0                                    when i == 0 || j == 0
           | cell[i-1][j-1] + K[0] * 2            when i == 100
           | max(cell[i-1][j], cell[i][j-1]) + 1  otherwise
`, ans: 39 + 49 - 1, ansI: 39 + 49 - 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// TestBuiltinHotLoopsUnchecked keeps the fast kernels of the built-in
// alignment problems free of arithmetic checks: value ranges prove their
// cells finite, so the recurrence must stay plain C in the strip kernel's
// branch-free form (no dp_addi, no dp_fail in dp_rec).
func TestBuiltinHotLoopsUnchecked(t *testing.T) {
	for _, name := range []string{"lcs", "editdistance", "needleman-wunsch", "smith-waterman"} {
		t.Run(name, func(t *testing.T) {
			prog := generateBuiltin(t, name)
			rec := recurrenceOf(t, prog)
			if !strings.Contains(rec, "cell_t r = ") {
				t.Errorf("%s: the recurrence is not in select form:\n%s", name, rec)
			}
			for _, h := range []string{"dp_addi", "dp_subi", "dp_muli", "dp_sadd", "dp_ssub", "dp_fail", "dp_cellnan", "dp_l2i", "dp_f2i"} {
				if strings.Contains(rec, h) {
					t.Errorf("%s: the recurrence calls %s:\n%s", name, h, rec)
				}
			}
		})
	}
}

// recurrenceOf cuts dp_rec out of a program's source.
func recurrenceOf(t *testing.T, prog *Program) string {
	t.Helper()
	src := prog.Source
	a := strings.Index(src, "// ---- the recurrence ----")
	b := strings.Index(src, "// ---- cell references")
	if a < 0 || b < a {
		t.Fatalf("no recurrence in %s", prog.Name)
	}
	return src[a:b]
}

// generateBuiltin generates a built-in problem (problems/NAME.dp) with its
// default inputs.
func generateBuiltin(t *testing.T, name string) *Program {
	t.Helper()
	dir := filepath.Join("..", "problems")
	src, err := os.ReadFile(filepath.Join(dir, name+".dp"))
	if err != nil {
		t.Fatal(err)
	}
	p, pl := dptest.Load(t, name+".dp", string(src), dptest.Dir(dir))
	prog, err := Generate(p, pl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}
