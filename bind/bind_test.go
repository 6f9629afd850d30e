package bind

import (
	"go/build"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/errtest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/sema"
)

// TestSemaDoesNoIO: the checker reads no files; every file is read here.
func TestSemaDoesNoIO(t *testing.T) {
	pkg, err := build.ImportDir(filepath.Join("..", "sema"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"os", "io/fs", "github.com/dpgpu/dpgpu/problems/formats", "github.com/dpgpu/dpgpu/bind"} {
		if slices.Contains(pkg.Imports, banned) {
			t.Errorf("sema imports %s", banned)
		}
	}
}

func TestLCSFile(t *testing.T) {
	path := td("lcs.dp")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Check(parse(t, path, string(src)), Config{})
	if err != nil {
		t.Fatal(err)
	}
	A, B := p.Input("A"), p.Input("B")
	if !reflect.DeepEqual(A.I, chars("ACCGGTCGAGTGCGCGGAAGCCGGCCGAA")) || !reflect.DeepEqual(B.I, chars("GTCGTTCGGAATGCCGTTGCTCTGTAAA")) {
		t.Errorf("A = %v, B = %v", A.I, B.I)
	}
	if A.Origin != "a.txt" || B.Origin != "b.txt" {
		t.Errorf("origins %q %q", A.Origin, B.Origin)
	}
}

func TestHeldKarpArgs(t *testing.T) {
	src := "problem tsp\nschedule: held-karp\nint ?x? dist\nargs: dist\n"
	p, err := Check(parse(t, "tsp.dp", src), Config{Args: []string{td("dist.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	d := p.Input("dist")
	if p.Rows != 0 || p.Cols != 0 || p.Schedule != "held-karp" || d.Rows != 4 || d.Cols != 4 || d.Vector {
		t.Errorf("%dx%d %q dist %dx%d", p.Rows, p.Cols, p.Schedule, d.Rows, d.Cols)
	}
	if !reflect.DeepEqual(d.I, []int64{0, 3, 4, 2, 3, 0, 5, 7, 4, 5, 0, 1, 2, 7, 1, 0}) {
		t.Errorf("dist = %v", d.I)
	}
}

func TestMissingFile(t *testing.T) {
	list := checkErrs(t, parse(t, "t.dp", "int 1x? v = @\"no-such-file.txt\"\n3x3\ncell[i][j] = v[0]\n"), Config{})
	// The loader's message is its own; the position and the path are ours.
	if len(list) != 1 || list[0].Pos.Line != 1 || list[0].Pos.Col != 13 || !strings.HasPrefix(list[0].Msg, "input v: ") || !strings.Contains(list[0].Msg, "no-such-file.txt") {
		t.Errorf("got %v", list)
	}
}

// TestReplacedFileNotRead: data replaced on the command line is never
// read, so a file that is not there is no error.
func TestReplacedFileNotRead(t *testing.T) {
	src := "int 1x? v = @\"no-such-file.txt\"\n3x3\ncell[i][j] = v[0]\n"
	p := mustCheck(t, src, Config{Inputs: []Override{{"v", "4,5"}}})
	if in := p.Input("v"); !reflect.DeepEqual(in.I, []int64{4, 5}) || in.Origin != "--input" {
		t.Errorf("v = %v from %q", in.I, in.Origin)
	}
	p = mustCheck(t, src, Config{Values: []Value{{Name: "v", Ints: []int64{7}}}})
	if in := p.Input("v"); !reflect.DeepEqual(in.I, []int64{7}) || in.Origin != "values" {
		t.Errorf("v = %v from %q", in.I, in.Origin)
	}
}

// TestValues: a program's values reach the checker as they are, with the
// rules of --input and --set.
func TestValues(t *testing.T) {
	p := mustCheck(t, overrideSrc, Config{Values: []Value{
		{Name: "wt", Ints: []int64{4, 5, 6, 7}},
		{Name: "M", Ints: []int64{1, 2, 3, 4, 5, 6}, Rows: 3, Cols: 2},
		{Name: "A", Text: "GATTACA"},
		{Name: "D", F: []float64{0.25, 1e-300}},
		{Name: "cap", Ints: []int64{40}},
	}})
	if in := p.Input("wt"); !reflect.DeepEqual(in.I, []int64{4, 5, 6, 7}) || in.Cols != 4 || !in.Vector {
		t.Errorf("wt = %+v", in)
	}
	if in := p.Input("M"); !reflect.DeepEqual(in.I, []int64{1, 2, 3, 4, 5, 6}) || in.Rows != 3 || in.Cols != 2 {
		t.Errorf("M = %+v", in)
	}
	if in := p.Input("A"); !reflect.DeepEqual(in.I, chars("GATTACA")) {
		t.Errorf("A = %v", in.I)
	}
	if in := p.Input("D"); !reflect.DeepEqual(in.F, []float64{0.25, 1e-300}) || in.T != ir.Double {
		t.Errorf("D = %v", in.F)
	}
	if cap, twice := p.Scalar("cap"), p.Scalar("twice"); cap.Value.I != 40 || twice.Value.I != 80 {
		t.Errorf("cap = %v, twice = %v: the derived scalar follows", cap.Value, twice.Value)
	}

	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"an unknown name", Config{Values: []Value{{Name: "wgt", Ints: []int64{1}}}},
			[]string{"0:0: the values of wgt: no input named wgt (inputs: wt, fixed, M, A, D)"}},
		{"given by --set too", Config{Values: []Value{{Name: "cap", Ints: []int64{3}}}, Sets: []Override{{"cap", "4"}}},
			[]string{"0:0: --set cap=4: cap is already given by the values of cap"}},
		{"the wrong size", Config{Values: []Value{{Name: "fixed", Ints: []int64{1, 2}}}},
			[]string{"0:0: the values of fixed: fixed is declared 1x3 but has 2 values"}},
		{"out of range", Config{Values: []Value{{Name: "cap", Ints: []int64{1 << 40}}}},
			[]string{"0:0: the values of cap: scalar cap: 1099511627776 does not fit int"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errtest.Want(t, checkErrs(t, parse(t, "t.dp", overrideSrc), tc.cfg), tc.want...)
		})
	}
}

// TestBindOnly: Bind reads and resolves without checking; what it cannot
// bind is in the Data, for Check to report.
func TestBindOnly(t *testing.T) {
	f := parse(t, "t.dp", overrideSrc)
	data := Bind(f, Config{Inputs: []Override{{"nope", "1"}}, Sets: []Override{{"cap", "3"}}})
	if len(data.Steps) != 2 || data.Steps[0].Err == nil || data.Steps[1].Scalar == nil || *data.Steps[1].Datum.Text != "3" {
		t.Fatalf("steps %+v", data.Steps)
	}
	if _, err := sema.Check(f, data); err == nil || !strings.Contains(err.Error(), "no input named nope") {
		t.Errorf("Check: %v", err)
	}
}
