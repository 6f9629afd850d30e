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
				ArgData: map[int]*formats.Table{0: tab, 1: {Rows: 1, Cols: 2, I: chars("TT")}}})
			if in := p.Input("A"); !slices.Equal(in.I, chars(c.a)) || p.Rows != c.rows || p.Cols != 3 {
				t.Errorf("A = %v, grid %dx%d", in.I, p.Rows, p.Cols)
			}
		})
	}
	// Data given twice: as an argument and by --input.
	list := checkErrs(t, parse(t, "t.dp", argDataSrc), Config{Args: []string{"x.fa#1", "y.fa#1"},
		ArgData: map[int]*formats.Table{0: {Rows: 1, Cols: 1, I: chars("A")}, 1: {Rows: 1, Cols: 1, I: chars("A")}},
		Inputs:  []Override{{Name: "A", Value: "CC"}}})
	if len(list) == 0 {
		t.Fatal("no error")
	}
}
