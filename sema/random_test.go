package sema

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/testrand"
	"github.com/dpgpu/dpgpu/ir"
)

// foldNode is a random integer constant expression with its reference
// value, computed with math/big under C's rules as docs/language.md §6.1
// narrows them: literals are int when they are finite ints (±(2^31-2)) and
// long otherwise, int op long is long, division and remainder truncate, and
// any result outside its type's finite range is an overflow.
type foldNode struct {
	text string
	v    *big.Int
	long bool
	err  string // "overflows" or "division by zero" when the reference fails
}

var (
	minInt32 = big.NewInt(-(math.MaxInt32 - 1))
	maxInt32 = big.NewInt(math.MaxInt32 - 1)
	minInt64 = big.NewInt(-(math.MaxInt64 - 1))
	maxInt64 = big.NewInt(math.MaxInt64 - 1)
)

func fits(v *big.Int, long bool) bool {
	lo, hi := minInt32, maxInt32
	if long {
		lo, hi = minInt64, maxInt64
	}
	return v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0
}

func randLiteral(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return r.Int64N(3)
	case 1, 2:
		return r.Int64N(100)
	case 3:
		return r.Int64N(70000)
	case 4:
		return math.MaxInt32 - r.Int64N(3)
	}
	return 1<<31 + r.Int64N(1<<40) // long
}

func randFold(r *rand.Rand, depth int) foldNode {
	if depth == 0 || r.IntN(4) == 0 {
		x := randLiteral(r)
		return foldNode{text: strconv.FormatInt(x, 10), v: big.NewInt(x), long: x > math.MaxInt32-1}
	}
	if r.IntN(6) == 0 {
		x := randFold(r, depth-1)
		n := foldNode{text: "(-" + x.text + ")", long: x.long, err: x.err}
		if n.err == "" {
			n.v = new(big.Int).Neg(x.v)
			if !fits(n.v, n.long) {
				n.err = "overflows"
			}
		}
		return n
	}
	x, y := randFold(r, depth-1), randFold(r, depth-1)
	op := []string{"+", "-", "*", "/", "%"}[r.IntN(5)]
	n := foldNode{text: "(" + x.text + " " + op + " " + y.text + ")", long: x.long || y.long}
	switch {
	case x.err != "":
		n.err = x.err
		return n
	case y.err != "":
		n.err = y.err
		return n
	}
	n.v = new(big.Int)
	switch op {
	case "+":
		n.v.Add(x.v, y.v)
	case "-":
		n.v.Sub(x.v, y.v)
	case "*":
		n.v.Mul(x.v, y.v)
	case "/", "%":
		if y.v.Sign() == 0 {
			n.err = "division by zero"
			return n
		}
		if op == "/" {
			n.v.Quo(x.v, y.v) // truncated, as in C
		} else {
			n.v.Rem(x.v, y.v)
		}
	}
	if !fits(n.v, n.long) {
		n.err = "overflows"
	}
	return n
}

// TestRandomConstFold compares the folding of random integer constant
// expressions with the math/big reference, overflow and division by zero
// included.
func TestRandomConstFold(t *testing.T) {
	r := testrand.New(t, 1)
	var ok, failed int
	for k := 0; k < 400; k++ {
		n := randFold(r, 1+r.IntN(4))
		src := "cell: long\n1x1\ncell[i][j] = " + n.text + "\n"
		p, err := Check(parse(t, "f.dp", src), nil)
		if n.err != "" {
			failed++
			if err == nil || !strings.Contains(err.Error(), n.err) {
				t.Errorf("%s: want an error %q, got %v", n.text, n.err, err)
			}
			continue
		}
		ok++
		if err != nil {
			t.Errorf("%s: %v", n.text, err)
			continue
		}
		c, isConst := p.Cases[0].Value.(*ir.Const)
		if !isConst || c.T != ir.Long || c.V.I != n.v.Int64() {
			t.Errorf("%s = %s, want %v", n.text, show(p.Cases[0].Value), n.v)
		}
	}
	if ok < 20 || failed < 20 { // about 100 of each expected; 48 seen at the low end
		t.Errorf("unbalanced sample: %d folded, %d errors", ok, failed)
	}
}

// TestRandomScalars evaluates random chains of derived scalars and compares
// them with the same formulas computed here, with a random --set in the
// middle of the chain that the later scalars must follow.
func TestRandomScalars(t *testing.T) {
	r := testrand.New(t, 3)
	type formula struct {
		text string
		eval func(a, b float64) float64
	}
	formulas := []formula{
		{"%s + %s", func(a, b float64) float64 { return a + b }},
		{"%s - %s", func(a, b float64) float64 { return a - b }},
		{"%s * 0.5 + %s", func(a, b float64) float64 { return a*0.5 + b }},
		{"%s / (abs(%s) + 1)", func(a, b float64) float64 { return a / (math.Abs(b) + 1) }},
		{"sqrt(abs(%s)) + %s", func(a, b float64) float64 { return math.Sqrt(math.Abs(a)) + b }},
		{"min(%s, %s)", math.Min},
		{"max(%s, %s) - 1", func(a, b float64) float64 { return math.Max(a, b) - 1 }},
		{"floor(%s) + ceil(%s)", func(a, b float64) float64 { return math.Floor(a) + math.Ceil(b) }},
		{"pow(abs(%s), 0.5) * %s", func(a, b float64) float64 { return math.Pow(math.Abs(a), 0.5) * b }},
		{"exp(%s / 1000) + %s", func(a, b float64) float64 { return math.Exp(a/1000) + b }},
		{"%s > %s ? 3 : -3", func(a, b float64) float64 {
			if a > b {
				return 3
			}
			return -3
		}},
	}
	for trial := 0; trial < 40; trial++ {
		n := 3 + r.IntN(12)
		types := make([]string, n)
		texts := make([]string, n)
		evals := make([]func(v []float64) float64, n)
		for k := 0; k < n; k++ {
			types[k] = []string{"double", "int", "long", "float"}[r.IntN(4)]
			if k < 2 {
				x := math.Round(r.Float64()*2000-1000) / 8
				texts[k] = strconv.FormatFloat(x, 'f', -1, 64)
				evals[k] = func([]float64) float64 { return x }
				continue
			}
			f := formulas[r.IntN(len(formulas))]
			a, b := r.IntN(k), r.IntN(k)
			texts[k] = fmt.Sprintf(f.text, fmt.Sprintf("s%d", a), fmt.Sprintf("s%d", b))
			evals[k] = func(v []float64) float64 { return f.eval(v[a], v[b]) }
		}
		setAt := 1 + r.IntN(n-1)
		setVal := float64(r.IntN(100) - 50)
		var src strings.Builder
		for k := 0; k < n; k++ {
			fmt.Fprintf(&src, "%s s%d = %s\n", types[k], k, texts[k])
		}
		src.WriteString("1x1\ncell[i][j] = 0\n")
		for _, withSet := range []bool{false, true} {
			var sets []override
			if withSet {
				sets = []override{{fmt.Sprintf("s%d", setAt), strconv.FormatFloat(setVal, 'f', -1, 64)}}
			}
			// The reference: double precision, converted to each type. A
			// chain can leave a type's range (exp of a large value); then
			// the check must fail, naming the first such scalar.
			v := make([]float64, n)
			bad := -1
			for k := 0; k < n && bad < 0; k++ {
				x := evals[k](v)
				if withSet && k == setAt {
					x = setVal
				}
				if !scalarFits(x, types[k]) {
					bad = k
				}
				switch types[k] {
				case "int", "long":
					x = math.Trunc(x)
				case "float":
					x = float64(float32(x))
				}
				v[k] = x
			}
			if bad >= 0 {
				f := parse(t, "t.dp", src.String())
				_, err := Check(f, setData(f, sets...))
				if want := fmt.Sprintf("scalar s%d:", bad); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("trial %d set=%v: s%d = %s (%s) leaves its type's range: error %v, want one naming %q\n%s", trial, withSet, bad, texts[bad], types[bad], err, want, src.String())
				}
				continue
			}
			p := mustCheckSets(t, src.String(), sets...)
			for k := 0; k < n; k++ {
				x := v[k]
				got := p.Scalar(fmt.Sprintf("s%d", k))
				if got.Value.T != ir.ParseType(types[k]) || got.Value.Float64() != x {
					t.Errorf("trial %d set=%v: s%d = %s (%s) = %v (%s), want %v\n%s", trial, withSet, k, texts[k], types[k], got.Value, got.Value.T, x, src.String())
				}
				if got.Derived != (k >= 2) {
					t.Errorf("s%d.Derived = %v", k, got.Derived)
				}
			}
		}
	}
}

// scalarFits reports whether x, a reference value before its conversion,
// is one a scalar of type typ holds: integers are finite and within the
// type's finite range, float within float's (or inf), no type holds NaN.
func scalarFits(x float64, typ string) bool {
	switch {
	case math.IsNaN(x):
		return false
	case typ == "int" || typ == "long":
		return !math.IsInf(x, 0) && math.Abs(math.Trunc(x)) <= float64(ir.ArithMax(ir.ParseType(typ)))
	case typ == "float":
		return math.IsInf(x, 0) || math.Abs(x) <= math.MaxFloat32
	}
	return true
}
