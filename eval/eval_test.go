package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

func TestConvert(t *testing.T) {
	i32, _ := ir.InfSentinel(ir.Int)
	l64, _ := ir.InfSentinel(ir.Long)
	cases := []struct {
		in   ir.Value
		to   ir.Type
		want ir.Value
	}{
		{ir.Value{T: ir.Int, I: i32}, ir.Long, ir.Value{T: ir.Long, I: l64}},
		{ir.Value{T: ir.Int, I: -i32}, ir.Long, ir.Value{T: ir.Long, I: -l64}},
		{ir.Value{T: ir.Long, I: l64}, ir.Int, ir.Value{T: ir.Int, I: i32}},
		{ir.Value{T: ir.Int, I: 5}, ir.Long, ir.Value{T: ir.Long, I: 5}},
		{ir.Value{T: ir.Char, I: 127}, ir.Int, ir.Value{T: ir.Int, I: 127}}, // char has no inf
		{ir.Value{T: ir.Long, I: l64}, ir.Double, ir.Value{T: ir.Double, F: math.Inf(1)}},
		{ir.Value{T: ir.Double, F: math.Inf(-1)}, ir.Int, ir.Value{T: ir.Int, I: -i32}},
		{ir.Value{T: ir.Double, F: 2.7}, ir.Int, ir.Value{T: ir.Int, I: 2}},
		{ir.Value{T: ir.Double, F: -2.7}, ir.Long, ir.Value{T: ir.Long, I: -2}},
		{ir.Value{T: ir.Double, F: 0.1}, ir.Float, ir.Value{T: ir.Float, F: float64(float32(0.1))}},
		{ir.Value{T: ir.Int, I: 16777217}, ir.Float, ir.Value{T: ir.Float, F: 16777216}},
	}
	for _, c := range cases {
		got, err := Convert(c.in, c.to)
		if err != nil || got != c.want {
			t.Errorf("Convert(%+v, %s) = %+v, %v; want %+v", c.in, c.to, got, err, c.want)
		}
	}
	if _, err := Convert(ir.Value{T: ir.Double, F: math.NaN()}, ir.Int); err == nil {
		t.Errorf("NaN to int: no error")
	}
}

// TestArithInt is the table of section 6.1 for one operation at a time:
// finite results, the inf rules, and the faults.
func TestArithInt(t *testing.T) {
	ip, in := ir.InfSentinel(ir.Int)
	lp, ln := ir.InfSentinel(ir.Long)
	const F, L = intFinite, longFinite
	cases := []struct {
		op   ir.Op
		t    ir.Type
		sat  bool
		x, y int64
		want int64
		f    fault
	}{
		{ir.OpAdd, ir.Int, false, 3, 4, 7, fNone},
		{ir.OpAdd, ir.Int, false, F, 0, F, fNone},
		{ir.OpAdd, ir.Int, false, F, 1, 0, fOverflow}, // would be the inf sentinel
		{ir.OpAdd, ir.Int, false, -F, -1, 0, fOverflow},
		{ir.OpSub, ir.Int, false, -F, 1, 0, fOverflow},
		{ir.OpMul, ir.Int, false, 1000000000, 1000000000, 0, fOverflow},
		{ir.OpMul, ir.Int, false, 46340, 46340, 46340 * 46340, fNone},
		{ir.OpMul, ir.Int, false, -2, 1073741823, -2147483646, fNone},
		{ir.OpMul, ir.Int, false, -2, 1073741824, 0, fOverflow},
		{ir.OpAdd, ir.Long, false, L, 0, L, fNone},
		{ir.OpAdd, ir.Long, false, L, 1, 0, fOverflow},
		{ir.OpAdd, ir.Long, false, L, L, 0, fOverflow}, // wraps in 64 bits
		{ir.OpAdd, ir.Long, false, -L, -L, 0, fOverflow},
		{ir.OpSub, ir.Long, false, -L, L, 0, fOverflow},
		{ir.OpSub, ir.Long, false, L, -L, 0, fOverflow},
		{ir.OpSub, ir.Long, false, -L, 1, 0, fOverflow},
		{ir.OpMul, ir.Long, false, 1 << 62, 2, 0, fOverflow},
		{ir.OpMul, ir.Long, false, 1 << 62, -2, 0, fOverflow},
		{ir.OpMul, ir.Long, false, 4611686018427387903, 2, L, fNone},
		{ir.OpMul, ir.Long, false, 3037000499, 3037000499, 3037000499 * 3037000499, fNone},
		{ir.OpMul, ir.Long, false, 3037000500, 3037000500, 0, fOverflow},
		{ir.OpMul, ir.Long, false, 1 << 32, 1 << 32, 0, fOverflow}, // low word 0
		{ir.OpDiv, ir.Int, false, -7, 2, -3, fNone},
		{ir.OpRem, ir.Int, false, -7, 2, -1, fNone},
		{ir.OpDiv, ir.Int, false, 7, 0, 0, fDivZero},
		{ir.OpRem, ir.Long, true, lp, 0, 0, fDivZero},
		// inf
		{ir.OpAdd, ir.Int, true, ip, 5, ip, fNone},
		{ir.OpAdd, ir.Int, true, 5, in, in, fNone},
		{ir.OpAdd, ir.Int, true, ip, ip, ip, fNone},
		{ir.OpAdd, ir.Int, true, ip, in, 0, fInfSub},
		{ir.OpAdd, ir.Long, true, ln, lp, 0, fInfSub},
		{ir.OpSub, ir.Int, true, ip, 5, ip, fNone},
		{ir.OpSub, ir.Int, true, 5, ip, in, fNone},
		{ir.OpSub, ir.Int, true, 5, in, ip, fNone},
		{ir.OpSub, ir.Int, true, ip, in, ip, fNone},
		{ir.OpSub, ir.Int, true, ip, ip, 0, fInfSub},
		{ir.OpSub, ir.Int, true, in, in, 0, fInfSub},
		{ir.OpAdd, ir.Int, true, F, 1, 0, fOverflow}, // finite operands still checked
		{ir.OpMul, ir.Int, true, ip, -3, in, fNone},
		{ir.OpMul, ir.Int, true, in, -3, ip, fNone},
		{ir.OpMul, ir.Long, true, 2, ln, ln, fNone},
		{ir.OpMul, ir.Int, true, ip, in, in, fNone},
		{ir.OpMul, ir.Int, true, ip, 0, 0, fInfMul},
		{ir.OpMul, ir.Int, true, 0, in, 0, fInfMul},
		{ir.OpDiv, ir.Int, true, ip, -3, in, fNone},
		{ir.OpDiv, ir.Int, true, in, -3, ip, fNone},
		{ir.OpDiv, ir.Int, true, 7, ip, 0, fNone},
		{ir.OpDiv, ir.Int, true, -7, in, 0, fNone},
		{ir.OpDiv, ir.Int, true, ip, in, 0, fInfDiv},
		{ir.OpRem, ir.Int, true, 7, ip, 7, fNone},
		{ir.OpRem, ir.Int, true, -7, in, -7, fNone},
		{ir.OpRem, ir.Int, true, ip, 3, 0, fInfRem},
		{ir.OpRem, ir.Long, true, ln, lp, 0, fInfRem},
	}
	for _, c := range cases {
		got, f := arithInt(c.op, c.t, c.sat, c.x, c.y)
		if f != c.f || (f == fNone && got != c.want) {
			t.Errorf("%s: %d %s %d (sat %v) = %d, fault %d; want %d, fault %d", c.t, c.x, c.op, c.y, c.sat, got, f, c.want, c.f)
		}
	}
}

// TestCheckedLoops checks the generated vector loops against arithInt on
// values around the edges of the finite ranges.
func TestCheckedLoops(t *testing.T) {
	for _, ty := range []ir.Type{ir.Int, ir.Long} {
		F := finiteMax(ty)
		edge := []int64{0, 1, -1, 2, -2, 3, 46341, -46341, 1 << 31, F, -F, F - 1, -F + 1, F / 2, -F / 2, F/2 + 1, 3037000500, -3037000500, 1 << 32}
		for _, op := range []ir.Op{ir.OpAdd, ir.OpSub, ir.OpMul} {
			for _, a := range edge {
				for _, b := range edge {
					if !isFinite(a, F) || !isFinite(b, F) {
						continue
					}
					want, f := arithInt(op, ty, false, a, b)
					d := make([]int64, 1)
					vop := vopOf(op)
					vv, vs, sv := cBin32VV[vop], cBin32VS[vop], cBin32SV[vop]
					if ty == ir.Long {
						vv, vs, sv = cBin64VV[vop], cBin64VS[vop], cBin64SV[vop]
					}
					bad := []bool{
						vv(d, []int64{a}, []int64{b}, F),
						vs(d, []int64{a}, b, F),
						sv(d, a, []int64{b}, F),
					}
					// The one-sided int loops, where the analysis says the
					// result cannot cross the other end.
					exact := a + b
					switch op {
					case ir.OpSub:
						exact = a - b
					case ir.OpMul:
						exact = a * b // exact for int operands
					}
					if ty == ir.Int && exact >= -F {
						bad = append(bad, uBin32VV[vop](d, []int64{a}, []int64{b}, F), uBin32VS[vop](d, []int64{a}, b, F), uBin32SV[vop](d, a, []int64{b}, F))
					}
					if ty == ir.Int && exact <= F {
						bad = append(bad, dBin32VV[vop](d, []int64{a}, []int64{b}, F), dBin32VS[vop](d, []int64{a}, b, F), dBin32SV[vop](d, a, []int64{b}, F))
					}
					for form, got := range bad {
						if got != (f != fNone) {
							t.Errorf("%s form %d: %d %s %d: bad %v, want fault %d", ty, form, a, op, b, got, f)
						}
					}
					if f == fNone && d[0] != want {
						t.Errorf("%s: %d %s %d = %d, want %d", ty, a, op, b, d[0], want)
					}
				}
			}
		}
	}
}

// TestEvalAnswers evaluates answer expressions the way the executors do.
func TestEvalAnswers(t *testing.T) {
	src := `int 1x3 A = 4,-7,2
double s = 1.5
3 x 3
cell[i][j] = i * 3 + j
answer: %s
`
	grid := func(i, j int64) ir.Value { return ir.Value{T: ir.Int, I: i*3 + j} }
	cells := GridCells(3, 3, grid)
	for _, c := range []struct {
		expr string
		want float64
	}{
		{"cell[2][2]", 8},
		{"s * cell[1][1]", 6},
		{"sum(i in 0..2: sum(j in 0..2: cell[i][j]))", 36},
		{"max(i in 0..2: cell[i][0] - i * i)", 2},
		{"min(k in 1..0: cell[0][k])", float64(math.MaxInt32)}, // empty: inf
		{"A[1] / 2 + A[1] % 2", -4},                            // C truncation: -3 + -1
		{"cell[1][2] > 4 && A[0] > 3 ? 1 : 0", 1},
		{"inf + cell[0][1]", float64(math.MaxInt32)},
		{"-inf - 5", -float64(math.MaxInt32)},
		{"abs(A[1]) + pow(2, 3) + floor(-1.5) + ceil(1.2)", 7 + 8 - 2 + 2},
	} {
		p, _ := dptest.Load(t, "a.dp", strings.Replace(src, "%s", c.expr, 1))
		v, err := Eval(p.Answer, cells)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if v.Float64() != c.want {
			t.Errorf("%s = %v, want %v", c.expr, v, c.want)
		}
	}
	// A read outside the grid names the reference and the cell.
	p, _, _ := dptest.TryLoad(t, "a.dp", strings.Replace(src, "%s", "cell[2][1] + cell[3][0]", 1)) // the plan refuses it
	_, err := Eval(p.Answer, cells)
	if err == nil || !strings.Contains(err.Error(), "a.dp:5:22: cell[3][0] reads cell[3][0], outside the 3x3 grid") {
		t.Errorf("error %v", err)
	}
	p, _ = dptest.Load(t, "a.dp", strings.Replace(src, "%s", "A[0] / (cell[0][0] * 2)", 1))
	if _, err := EvalAt(p.Answer, 0, 0, nil); err == nil || !strings.Contains(err.Error(), "no grid") {
		t.Errorf("no cells: %v", err)
	}
	if _, err := Eval(p.Answer, cells); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("division by zero: %v", err)
	}
}
