package sema_test

import (
	"testing"

	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/sema"
)

// TestCheckDataAdopt: CheckData checks the data as Check does (the same
// errors) and Adopt gives its problem the template's recurrence with its
// own inputs and sizes.
func TestCheckDataAdopt(t *testing.T) {
	const src = `problem nw
char 1x? A = "ACGT"
char 1x? B = "GATTACA"
int gap = -2
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = i == 0 || j == 0 ? 0 : max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 1 : -1), cell[i-1][j] + gap, cell[i][j-1] + gap)
`
	f, err := dsl.Parse("nw.dp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := bind.Check(f, bind.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := bind.Config{Values: []bind.Value{{Name: "A", Text: "TTGA"}, {Name: "B", Text: "CCATGAT"}}}
	q, err := bind.CheckData(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Cases) != 0 {
		t.Errorf("CheckData lowered the recurrence")
	}
	p := sema.Adopt(q, tmpl)
	full, err := bind.Check(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows != full.Rows || p.Cols != full.Cols || p.Inputs[0].I[0] != 'T' || len(p.Cases) != len(tmpl.Cases) || p.Cases[0] != tmpl.Cases[0] {
		t.Errorf("adopted %s with A[0] = %c; want %s, the instance's data and the template's cases", p.GridText(), p.Inputs[0].I[0], full.GridText())
	}
	// A data error is the same error.
	bad := bind.Config{Values: []bind.Value{{Name: "A", Text: "TTGA"}, {Name: "gap", Text: "x"}}}
	_, e1 := bind.CheckData(f, bad)
	_, e2 := bind.Check(f, bad)
	if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
		t.Errorf("CheckData: %v; Check: %v", e1, e2)
	}
}
