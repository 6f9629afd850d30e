package sema_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/sema"
)

// prototypeFiles are files beyond the built-ins whose declarations take
// the paths a batch's instances exercise: scalars derived from the
// inputs' lengths and elements, matrices, floating data, 1-D and 3-D
// grids, several tables, scalars named on the args: line.
var prototypeFiles = map[string]string{
	"derived": `problem derived
char 1x? A = "ACGT"
int 1x? W = 3, 1, 4
long n = len(A) * 2
int w = max(k in 0..len(W)-1: W[k]) % 5 + 1
double half = n / 3.0
args: A, W
(n + 1) x (len(W) + w)
cell[i][j] = i == 0 || j == 0 ? 0 : cell[i-1][j-1] + (A[(i-1) % len(A)] == 'A' ? w : 1)
`,
	"matrix": `problem matrix
int 2x3 M = 1, 2, 3 & 4, 5, 6
double 1x? F = 0.5, inf
int k = 2
args: M, k
(rows(M) + k) x cols(M)
cell[i][j] = M[i % rows(M)][j] + k
`,
	"grid1d": `problem g1
int 1x? V = 5, 1, 9
args: V
len(V)
cell[i] = i == 0 ? V[0] : max(cell[i-1], V[i])
`,
	"grid3d": `problem g3
char 1x? A = "AC"
char 1x? B = "GT"
char 1x? C = "CA"
args: A, B, C
(len(A)+1) x (len(B)+1) x (len(C)+1)
cell[i][j][k] = i == 0 || j == 0 || k == 0 ? 0 : cell[i-1][j-1][k-1] + 1
`,
	"tables": `problem t2
char 1x? A = "ACGT"
char 1x? B = "AGT"
int o = 3
args: A, B
(len(A)+1) x (len(B)+1)
X[i][j] = i == 0 || j == 0 ? -o : max(H[i-1][j] - o, X[i-1][j] - 1)
H[i][j] = i == 0 || j == 0 ? 0 : max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 1 : -1), X[i][j])
`,
}

// TestPrototypeCheckData: a Prototype's CheckData and Check give what
// CheckData and Check give — the same problem, deeply, or the same errors — on every built-in
// and the files above, with their own data and with random data of every
// input (right and wrong shapes, letters outside ASCII, empty vectors,
// inf, values that do not fit) and random --set values.
func TestPrototypeCheckData(t *testing.T) {
	srcs := map[string]string{}
	for _, name := range problems.Names() {
		b, _ := problems.Lookup(name)
		srcs[name] = string(b.Source)
	}
	for name, src := range prototypeFiles {
		srcs[name] = src
	}
	r := dptest.Rand(t)
	var compared, failed int
	for name, src := range srcs {
		f, err := dsl.Parse(name+".dp", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := bind.Config{}
		if name == "tsp" { // no data of its own
			base.Values = []bind.Value{{Name: "dist", Ints: []int64{0, 2, 9, 10, 1, 0, 6, 4, 15, 7, 0, 8, 6, 3, 12, 0}, Rows: 4, Cols: 4}}
		}
		tmpl, err := bind.CheckData(f, base)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pr := sema.Prepare(f, nil)
		if pr == nil {
			t.Fatalf("%s: no prototype", name)
		}
		for trial := 0; trial < 60; trial++ {
			cfg := base
			if trial > 0 {
				cfg = randomConfig(r, tmpl)
			}
			for _, c := range []struct {
				what string
				full func(*dsl.File, bind.Config) (*ir.Problem, error)
				fast func(*sema.Data) (*ir.Problem, error)
			}{{"CheckData", bind.CheckData, pr.CheckData}, {"Check", bind.Check, pr.Check}} {
				want, werr := c.full(f, cfg)
				got, gerr := c.fast(bind.Bind(f, cfg))
				compared++
				switch {
				case (werr == nil) != (gerr == nil):
					t.Errorf("%s %s: prototype's %s %v, %s %v", name, describe(cfg), c.what, gerr, c.what, werr)
				case werr != nil:
					failed++
					if werr.Error() != gerr.Error() {
						t.Errorf("%s %s: prototype's %s error\n%v\n%s's\n%v", name, describe(cfg), c.what, gerr, c.what, werr)
					}
				case !reflect.DeepEqual(got, want):
					t.Errorf("%s %s: prototype's %s problem differs:\n%+v\n%s's\n%+v", name, describe(cfg), c.what, got, c.what, want)
				}
			}
		}
	}
	// The random data must reach both outcomes often.
	if failed < compared/10 || failed > compared*9/10 {
		t.Errorf("%d of %d bindings failed: the random data misses one side", failed, compared)
	}
	// A file whose declarations hold an error has no prototype.
	f, err := dsl.Parse("dup.dp", []byte("problem d\nint a = 1\nint a = 2\n3 x 3\ncell[i][j] = a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sema.Prepare(f, nil) != nil {
		t.Errorf("a prototype of a file with a duplicate declaration")
	}
}

func describe(cfg bind.Config) string {
	s := ""
	for _, v := range cfg.Values {
		s += fmt.Sprintf("[%s text %q ints %v f %v %dx%d]", v.Name, v.Text, v.Ints, v.F, v.Rows, v.Cols)
	}
	for _, o := range cfg.Sets {
		s += fmt.Sprintf("[--set %s=%s]", o.Name, o.Value)
	}
	return s
}

// randomConfig gives some of tmpl's inputs and scalars random data.
func randomConfig(r *rand.Rand, tmpl *ir.Problem) bind.Config {
	var cfg bind.Config
	for _, in := range tmpl.Inputs {
		if r.IntN(3) == 0 {
			continue // its own data
		}
		v := bind.Value{Name: in.Name}
		n := in.Len()
		switch r.IntN(8) {
		case 0:
			n = 0
		case 1, 2:
			n = 1 + r.IntN(40)
		}
		matrix := !in.Vector && r.IntN(4) != 0
		if matrix {
			v.Rows, v.Cols = in.Rows, in.Cols
			if r.IntN(4) == 0 {
				v.Rows, v.Cols = 1+r.IntN(4), 1+r.IntN(4)
			}
			n = v.Rows * v.Cols
		}
		switch {
		case in.T == ir.Char && !matrix:
			b := make([]byte, n)
			for k := range b {
				if in.Len() > 0 && r.IntN(10) != 0 {
					b[k] = byte(in.I[r.IntN(in.Len())])
				} else {
					b[k] = "ACGTacgtN*\x01é"[r.IntN(13)]
				}
			}
			v.Text = string(b)
		case in.T.IsFloat():
			v.F = make([]float64, n)
			for k := range v.F {
				v.F[k] = []float64{0.5, -2, 1e300, math.Inf(1), math.Inf(-1), math.NaN(), 3}[r.IntN(7)]
			}
		default:
			v.Ints = make([]int64, n)
			for k := range v.Ints {
				v.Ints[k] = []int64{0, 1, -7, 300, 1 << 40, math.MaxInt64, -math.MaxInt64, 65}[r.IntN(8)]
			}
		}
		cfg.Values = append(cfg.Values, v)
	}
	for _, sc := range tmpl.Scalars {
		if r.IntN(4) == 0 {
			cfg.Sets = append(cfg.Sets, bind.Override{Name: sc.Name, Value: []string{"5", "-1", "x", "2.5", "inf", "99999999999"}[r.IntN(6)]})
		}
	}
	return cfg
}

// TestPrototypeConcurrent: one Prototype checks bindings from several
// goroutines (a batch's workers); run with -race.
func TestPrototypeConcurrent(t *testing.T) {
	b, _ := problems.Lookup("needleman-wunsch")
	f, err := dsl.Parse("nw.dp", b.Source)
	if err != nil {
		t.Fatal(err)
	}
	pr := sema.Prepare(f, nil)
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			var err error
			for k := 0; k < 50 && err == nil; k++ {
				a := "ACGT"[:1+(g+k)%4]
				var p *ir.Problem
				check := pr.CheckData
				if k%2 == 1 {
					check = pr.Check // the recurrence lowered too
				}
				p, err = check(bind.Bind(f, bind.Config{Values: []bind.Value{{Name: "A", Text: a}, {Name: "B", Text: "GATTACA"}}}))
				if err == nil && (p.Rows != int64(len(a)+1) || p.Cols != 8) {
					err = fmt.Errorf("A = %s: grid %dx%d", a, p.Rows, p.Cols)
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkCheckDataRead: the data checks of one instance of a batch of
// 150 bp read pairs (Needleman-Wunsch), in full and through a Prototype.
func BenchmarkCheckDataRead(b *testing.B) {
	nw, _ := problems.Lookup("needleman-wunsch")
	f, err := dsl.Parse("nw.dp", nw.Source)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	read := func() string {
		s := make([]byte, 150)
		for k := range s {
			s[k] = "ACGT"[r.IntN(4)]
		}
		return string(s)
	}
	data := bind.Bind(f, bind.Config{Values: []bind.Value{{Name: "A", Text: read()}, {Name: "B", Text: read()}}})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if _, err := sema.CheckData(f, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	pr := sema.Prepare(f, nil)
	b.Run("prototype", func(b *testing.B) {
		for b.Loop() {
			if _, err := pr.CheckData(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
