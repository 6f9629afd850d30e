package sema

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/ir"
)

const knapsackSrc = `# knapsack.dp — 0/1 knapsack, thesis Eq. 2.16
problem knapsack01
int 1x5 wt  = 2,3,4,5,9
int 1x5 val = 3,4,5,8,10
int cap = 20
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                     when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1]       when wt[i-1] <= w && cell[i-1][w-wt[i-1]] + val[i-1] > cell[i-1][w]   emit i-1
           | cell[i-1][w]                          otherwise
`

const lookbackSrc = `# lookback.dp — American floating-strike lookback put on a binomial lattice
problem lookback-put
double S0 = 50
double sigma = 0.4
double r = 0.1
double T = 0.25
int N = 3
double dt = T / N
double u = exp(sigma * sqrt(dt))
double d = 1 / u
double p = (exp(r * dt) - d) / (u - d)
double disc = exp(-r * dt)
cell: double
(N+1) x (N+2)
cell[i][j] = pow(u, j) - 1                                                        when i == N
           | 0                                                                    when j > i
           | max(pow(u, j) - 1, disc * ((1-p)*d*cell[i+1][j+1] + p*u*cell[i+1][j-1]))   when j >= 1
           | max(0, disc * ((1-p)*d*cell[i+1][1] + p*u*cell[i+1][0]))              otherwise
answer: S0 * cell[0][0]      # 5.470181 (Hull prints 5.47)
`

const thesisSrc = `5x5
prev: 2
char 1x5 A,B,C,D,E
char 1x5 C,D,E,F,G
mem: 0
maintain: 1
cell[i][j] = 0 when i == 0 || j == 0
           | cell[i-1][j-1] + 1 when in0[i-1] == in1[j-1]
           | max(cell[i-1][j], cell[i][j-1]) otherwise
`

func chars(s string) []int64 {
	out := make([]int64, len(s))
	for k := range s {
		out[k] = int64(s[k])
	}
	return out
}

func TestLCSExample(t *testing.T) {
	path := filepath.Join("testdata", "lcs.dp")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Its data files are package bind's to read (TestLCSFile there): the
	// same strings inline.
	a, b := "ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "GTCGTTCGGAATGCCGTTGCTCTGTAAA"
	text := strings.NewReplacer(`@"a.txt"`, strconv.Quote(a), `@"b.txt"`, strconv.Quote(b)).Replace(string(src))
	p, err := Check(parse(t, path, text), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkProblemTypes(t, p)
	if p.Name != "lcs" || p.Rows != int64(len(a)+1) || p.Cols != int64(len(b)+1) {
		t.Errorf("name %q grid %dx%d", p.Name, p.Rows, p.Cols)
	}
	A, B := p.Input("A"), p.Input("B")
	if !reflect.DeepEqual(A.I, chars(a)) || !reflect.DeepEqual(B.I, chars(b)) || A.T != ir.Char || !A.Vector || A.F != nil {
		t.Errorf("A = %+v, B = %+v", A, B)
	}
	if A.Origin != "inline" {
		t.Errorf("A.Origin = %q", A.Origin)
	}
	if p.CellType != ir.Int || p.Prev != -1 || p.Schedule != "" || p.Maintain || p.Mem != 0 || p.Answer != nil {
		t.Errorf("settings: %+v", p)
	}
	if p.IVar != "i" || p.JVar != "j" || len(p.Cases) != 3 || p.Cases[2].Cond != nil {
		t.Errorf("recurrence: %s %s, %d cases", p.IVar, p.JVar, len(p.Cases))
	}
	// The emit of the match case is the character itself.
	if got := show(p.Cases[1].Emit); got != "A[(i - 1:int):int]:char" {
		t.Errorf("emit = %s", got)
	}
	// Comparing two chars compares ints.
	if got := show(p.Cases[1].Cond); got != "(int(A[(i - 1:int):int]:char) == int(B[(j - 1:int):int]:char)):bool" {
		t.Errorf("cond = %s", got)
	}
	wantRefs := []string{"cell[i-1][j-1]", "cell[i-1][j]", "cell[i][j-1]"}
	for k, r := range p.CellRefs {
		if r.Text != wantRefs[k] || r.T != ir.Int {
			t.Errorf("ref %d = %q %s", k, r.Text, r.T)
		}
	}
}

func TestKnapsackExample(t *testing.T) {
	p := mustCheck(t, knapsackSrc, nil)
	checkProblemTypes(t, p)
	if p.Name != "knapsack01" || p.Rows != 6 || p.Cols != 21 || p.IVar != "i" || p.JVar != "w" {
		t.Errorf("%s %dx%d %s %s", p.Name, p.Rows, p.Cols, p.IVar, p.JVar)
	}
	if wt := p.Input("wt"); !reflect.DeepEqual(wt.I, []int64{2, 3, 4, 5, 9}) || wt.Rows != 1 || wt.Cols != 5 || wt.Origin != "inline" {
		t.Errorf("wt = %+v", wt)
	}
	if c := p.Scalar("cap"); c.Value != (ir.Value{T: ir.Int, I: 20}) || c.Derived {
		t.Errorf("cap = %+v", c)
	}
	want := []struct {
		text string
		line int
	}{{"cell[i-1][w-wt[i-1]]", 8}, {"cell[i-1][w-wt[i-1]]", 8}, {"cell[i-1][w]", 8}, {"cell[i-1][w]", 9}}
	if len(p.CellRefs) != len(want) {
		t.Fatalf("%d cell refs", len(p.CellRefs))
	}
	for k, r := range p.CellRefs {
		if r.ID != k || r.Text != want[k].text || r.Pos.Line != want[k].line {
			t.Errorf("ref %d: ID %d %q line %d", k, r.ID, r.Text, r.Pos.Line)
		}
	}
	if got := show(p.CellRefs[0].J); got != "(w - wt[(i - 1:int):int]:int):int" {
		t.Errorf("J = %s", got)
	}
	if got := show(p.Cases[1].Emit); got != "(i - 1:int):int" {
		t.Errorf("emit = %s", got)
	}
	// No inf anywhere: nothing saturates.
	for _, c := range p.Cases {
		ir.Walk(c.Value, func(e ir.Expr) bool {
			if b, ok := e.(*ir.Binary); ok && b.Saturate {
				t.Errorf("saturating %s", show(b))
			}
			return true
		})
	}
}

// lookback are the lattice parameters of the lookback example, computed
// here the way the contract defines them.
type lookback struct{ dt, u, d, p, disc float64 }

func lookbackParams(sigma, r, T float64, N int, u float64) lookback {
	var l lookback
	l.dt = T / float64(N)
	l.u = math.Exp(sigma * math.Sqrt(l.dt))
	if u != 0 {
		l.u = u
	}
	l.d = 1 / l.u
	l.p = (math.Exp(r*l.dt) - l.d) / (l.u - l.d)
	l.disc = math.Exp(-r * l.dt)
	return l
}

func scalarF(t *testing.T, p *ir.Problem, name string) float64 {
	t.Helper()
	s := p.Scalar(name)
	if s == nil {
		t.Fatalf("no scalar %s", name)
	}
	return s.Value.Float64()
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-14*math.Max(1, math.Abs(b)) }

func TestLookbackExample(t *testing.T) {
	tests := []struct {
		name string
		sets []override
		N    int
		u    float64 // 0: derived
	}{
		{"as written", nil, 3, 0},
		{"--set N=5", []override{{"N", "5"}}, 5, 0},
		{"--set N=1000", []override{{"N", "1000"}}, 1000, 0},
		{"--set u=1.2 (a derived scalar)", []override{{"u", "1.2"}}, 3, 1.2},
		{"--set N=7 u=1.25", []override{{"N", "7"}, {"u", "1.25"}}, 7, 1.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustCheckSets(t, lookbackSrc, tc.sets...)
			checkProblemTypes(t, p)
			want := lookbackParams(0.4, 0.1, 0.25, tc.N, tc.u)
			for _, c := range []struct {
				name string
				v    float64
			}{{"dt", want.dt}, {"u", want.u}, {"d", want.d}, {"p", want.p}, {"disc", want.disc}, {"S0", 50}} {
				if got := scalarF(t, p, c.name); !closeTo(got, c.v) {
					t.Errorf("%s = %.17g, want %.17g", c.name, got, c.v)
				}
			}
			if n := p.Scalar("N").Value; n != (ir.Value{T: ir.Int, I: int64(tc.N)}) {
				t.Errorf("N = %+v", n)
			}
			if p.Rows != int64(tc.N+1) || p.Cols != int64(tc.N+2) || p.CellType != ir.Double {
				t.Errorf("grid %dx%d %s", p.Rows, p.Cols, p.CellType)
			}
			if !p.Scalar("u").Derived || p.Scalar("sigma").Derived {
				t.Errorf("Derived flags wrong")
			}
			if got := show(p.Answer); got != "($S0:double * cell#-1[0:int][0:int]):double" {
				t.Errorf("answer = %s", got)
			}
			if p.AnswerPos.Line != 19 {
				t.Errorf("AnswerPos = %v", p.AnswerPos)
			}
			// pow(u, j): j (int) is converted to double; the literal 1 is folded.
			if got := show(p.Cases[0].Value); got != "(pow($u:double, double(j)):double - 1:double):double" {
				t.Errorf("case 0 = %s", got)
			}
		})
	}
	// The contract's value: with the lattice parameters above, the price is
	// 5.470181. Compute the lattice here, independently, as a check that the
	// example's scalars are the ones the formula needs.
	l := lookbackParams(0.4, 0.1, 0.25, 3, 0)
	N := 3
	v := make([][]float64, N+1)
	for i := range v {
		v[i] = make([]float64, N+2)
	}
	for i := N; i >= 0; i-- {
		for j := 0; j <= N+1; j++ {
			ex := math.Pow(l.u, float64(j)) - 1
			switch {
			case i == N:
				v[i][j] = ex
			case j > i:
				v[i][j] = 0
			case j >= 1:
				v[i][j] = math.Max(ex, l.disc*((1-l.p)*l.d*v[i+1][j+1]+l.p*l.u*v[i+1][j-1]))
			default:
				v[i][j] = math.Max(0, l.disc*((1-l.p)*l.d*v[i+1][1]+l.p*l.u*v[i+1][0]))
			}
		}
	}
	if price := 50 * v[0][0]; math.Abs(price-5.470181) > 5e-7 {
		t.Errorf("lookback price %.7f, want 5.470181", price)
	}
}

func TestThesisFile(t *testing.T) {
	p := mustCheck(t, thesisSrc, nil)
	checkProblemTypes(t, p)
	if p.Rows != 5 || p.Cols != 5 || p.Prev != 2 || p.PrevPos.Line != 2 || p.Mem != 0 || !p.Maintain {
		t.Errorf("header: %dx%d prev %d mem %d maintain %v", p.Rows, p.Cols, p.Prev, p.Mem, p.Maintain)
	}
	if p.Name != "t" {
		t.Errorf("name %q, want the file name without extension", p.Name)
	}
	if len(p.Inputs) != 2 || p.Inputs[0].Name != "in0" || p.Inputs[1].Name != "in1" {
		t.Fatalf("inputs %+v", p.Inputs)
	}
	if !reflect.DeepEqual(p.Inputs[0].I, chars("ABCDE")) || !reflect.DeepEqual(p.Inputs[1].I, chars("CDEFG")) {
		t.Errorf("data %v %v", p.Inputs[0].I, p.Inputs[1].I)
	}
}

func TestSettings(t *testing.T) {
	base := "3x4\ncell[i][j] = i + j\n"
	tests := []struct {
		lines string
		check func(p *ir.Problem) bool
	}{
		{"", func(p *ir.Problem) bool {
			return p.Prev == -1 && p.Mem == 0 && !p.Maintain && p.CellType == ir.Int && p.Schedule == "" && !p.PrevPos.IsValid()
		}},
		{"prev: 0\n", func(p *ir.Problem) bool { return p.Prev == 0 && p.PrevPos.Line == 1 }},
		{"prev: 17\n", func(p *ir.Problem) bool { return p.Prev == 17 }},
		{"mem: 1\n", func(p *ir.Problem) bool { return p.Mem == 1 }},
		{"maintain: 0\n", func(p *ir.Problem) bool { return !p.Maintain }},
		{"cell: long\n", func(p *ir.Problem) bool { return p.CellType == ir.Long }},
		{"cell: float\n", func(p *ir.Problem) bool { return p.CellType == ir.Float }},
		{"schedule: cols\n", func(p *ir.Problem) bool { return p.Schedule == "cols" && p.SchedulePos.Line == 1 }},
		{"schedule: wavefront\n", func(p *ir.Problem) bool { return p.Schedule == "wavefront" }},
		{"problem my-name\n", func(p *ir.Problem) bool { return p.Name == "my-name" }},
	}
	for _, tc := range tests {
		p := mustCheck(t, tc.lines+base, nil)
		if !tc.check(p) {
			t.Errorf("%q: got %+v", tc.lines, p)
		}
		checkProblemTypes(t, p)
	}
}

func TestSingleUnconditionalCase(t *testing.T) {
	p := mustCheck(t, "int 1x3 v = 4,5,6\n2 x 3\ncell[r][c] = v[c] * r\n", nil)
	if len(p.Cases) != 1 || p.Cases[0].Cond != nil || p.IVar != "r" || p.JVar != "c" {
		t.Fatalf("cases %+v", p.Cases)
	}
	if got := show(p.Cases[0].Value); got != "(v[c]:int * r):int" {
		t.Errorf("value = %s", got)
	}
}

func TestHeldKarp(t *testing.T) {
	// The distances from a file are package bind's test (TestHeldKarpArgs);
	// here a single matrix input of another name, values inline.
	p := mustCheck(t, "schedule: held-karp\nlong 3x3 D = 0,1,2 & 1,0,3 & 2,3,0\n", nil)
	if p.Input("D").T != ir.Long || p.Rows != 0 {
		t.Errorf("D: %+v", p.Input("D"))
	}
}
