package bind

import (
	"slices"
	"testing"

	"github.com/dpgpu/dpgpu/problems/formats"
)

const argDataSrc = `problem t
char 1x? A = "AC"
char 1x? B = "G"
int k = 1
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = i + j + k
`

// TestArgData: an argument given as data replaces the file's value as a
// path would, and may be empty.
func TestArgData(t *testing.T) {
	for _, c := range []struct {
		name string
		a    string
		rows int64
	}{
		{"letters", "GATTACA", 8},
		{"empty", "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := &formats.Table{Rows: 1, Cols: len(c.a), I: chars(c.a)}
			p := mustCheck(t, argDataSrc, Config{Args: []string{"x.fa#3", "y.fa#1"},
				ArgData: []*formats.Table{0: tab, 1: {Rows: 1, Cols: 2, I: chars("TT")}}})
			if in := p.Input("A"); !slices.Equal(in.I, chars(c.a)) || p.Rows != c.rows || p.Cols != 3 {
				t.Errorf("A = %v, grid %dx%d", in.I, p.Rows, p.Cols)
			}
		})
	}
	// Data given twice: as an argument and by --input.
	list := checkErrs(t, parse(t, "t.dp", argDataSrc), Config{Args: []string{"x.fa#1", "y.fa#1"},
		ArgData: []*formats.Table{0: {Rows: 1, Cols: 1, I: chars("A")}, 1: {Rows: 1, Cols: 1, I: chars("A")}},
		Inputs:  []Override{{Name: "A", Value: "CC"}}})
	if len(list) == 0 {
		t.Fatal("no error")
	}
}

// TestFileCacheNames: bindings through one FileCache (a batch's) find each
// file's own names once and give what bindings without it give: two
// instances of one file their own data, another file (other names, an
// error in its `args:`) its own.
func TestFileCacheNames(t *testing.T) {
	const other = `problem u
char 1x? X = "AC"
char 1x? Y = "G"
args: Y, X
(len(X)+1) x (len(Y)+1)
cell[i][j] = i + j
`
	fc := &FileCache{}
	f, g := parse(t, "t.dp", argDataSrc), parse(t, "u.dp", other)
	for round := range 2 {
		for k, a := range []string{"GATTACA", "TT"} {
			cfg := Config{Args: []string{"x.fa#1", "y.fa#1"},
				ArgData: []*formats.Table{0: {Rows: 1, Cols: len(a), I: chars(a)}, 1: {Rows: 1, Cols: 1, I: chars("C")}}}
			want, err := Check(f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Files = fc
			got, err := Check(f, cfg)
			if err != nil || !slices.Equal(got.Input("A").I, want.Input("A").I) || got.Rows != want.Rows {
				t.Fatalf("round %d, instance %d: %v, %v; without the cache %v", round, k, got, err, want)
			}
			// The other file, its arguments the other way round: Y
			// first.
			q, err := Check(g, cfg)
			if err != nil || !slices.Equal(q.Input("Y").I, chars(a)) || !slices.Equal(q.Input("X").I, chars("C")) {
				t.Fatalf("round %d, other file: %v, %v", round, q, err)
			}
		}
	}
	cfg := Config{Args: []string{"x.fa#1"}, ArgData: []*formats.Table{0: {Rows: 1, Cols: 1, I: chars("A")}}, Files: fc}
	if _, err := Check(g, cfg); err == nil {
		t.Error("one argument of two: no error with the cache")
	}
}
