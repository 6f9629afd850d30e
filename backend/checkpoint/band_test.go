package checkpoint

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// TestBandProgramsUnchecked: a band's program — given rows as data, its
// first row as data — is as cheap per cell as the whole grid's: no
// overflow or index checks where the whole grid's has none (the given
// rows and the base are inputs with declared bounds), and its sequence
// reads staged per row and per column as the whole grid's are, as it is
// and transposed. (A band without them ran 6-10x slower on a GPU.)
func TestBandProgramsUnchecked(t *testing.T) {
	r := dptest.Rand(t)
	for _, src := range []string{
		dptest.EditDistance(dptest.DNA(r, 3000), dptest.DNA(r, 2900), 1, 1, 1),
		dptest.LCS(dptest.DNA(r, 2000), dptest.DNA(r, 2500)),
	} {
		p, pl := dptest.Load(t, "whole.dp", src)
		cells := cellBounds{}
		cells.lo, cells.hi, cells.ok = codegen.CellRange(p, pl)
		if !cells.ok {
			t.Fatalf("no cell range for\n%s", src)
		}
		top := backend.NewGrid(p.CellType, 1, p.Cols)
		bp, err := band(p, 1000, 500, p.Cols, 1, top, cells)
		if err != nil {
			t.Fatal(err)
		}
		bt, err := transposed(bp)
		if err != nil {
			t.Fatal(err)
		}
		whole := recurrence(t, p)
		for _, q := range []struct {
			name string
			src  string
		}{{"band", recurrence(t, bp)}, {"transposed band", recurrence(t, bt)}} {
			for _, check := range []string{"dp_addi", "dp_subi", "dp_chk"} {
				if strings.Contains(q.src, check) && !strings.Contains(whole, check) {
					t.Errorf("the %s's recurrence has %s, the whole grid's none:\n%s", q.name, check, q.src)
				}
			}
			if !strings.Contains(q.src, "a.template cv<0>") || !strings.Contains(q.src, "a.template rv<0>") {
				t.Errorf("the %s's sequence reads are not staged per row and column:\n%s", q.name, q.src)
			}
		}
	}
}

// recurrence is the dp_rec function of p's strip program.
func recurrence(t *testing.T, q *ir.Problem) string {
	t.Helper()
	pl, err := plan.Analyze(q)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := codegen.Generate(q, pl, codegen.Options{Kernel: codegen.KernelStrip})
	if err != nil {
		t.Fatal(err)
	}
	src := prog.Source
	at := strings.Index(src, "dp_rec(")
	end := strings.Index(src[at:], "\n}\n")
	if at < 0 || end < 0 {
		t.Fatalf("no dp_rec in\n%s", src)
	}
	return src[at : at+end]
}

// TestBand3Subscripts: a band of a 3-D grid carries its references'
// subscripts as written (ir.CellRef.Sub3, which the planner reads) in the
// band's terms: a subscript over k reads the band's base, and a reduction's
// variable is the band's copy — never the whole grid's expressions.
func TestBand3Subscripts(t *testing.T) {
	p, _ := dptest.Load(t, "k3.dp", `6 x 4 x 5
cell[k][i][j] = 0 when k == 0 || i == 0 || j < 3
              | max(cell[k-1][i][j], cell[k][i-1][j], cell[k][i][j - 1 - min(k, 2)], max(m in 0..i-1: cell[k][m][j])) otherwise
`)
	top := backend.NewGrid(p.CellType, 1, p.Cols)
	bp, err := band(p, 3, 2, p.Cols, 1, top, cellBounds{})
	if err != nil {
		t.Fatal(err)
	}
	base := func(e ir.Expr) bool {
		return ir.Any(e, func(x ir.Expr) bool { l, ok := x.(*ir.Load); return ok && l.In.Origin == "checkpoint" })
	}
	for n, ref := range bp.CellRefs {
		orig := p.CellRefs[n]
		if ref.Sub3[0] == nil || ref.Sub3[0] == orig.Sub3[0] || ref.Sub3[1] == orig.Sub3[1] {
			t.Errorf("%s: the band's Sub3 is the whole grid's (or none)", ref.Text)
		}
		if strings.Contains(ref.Text, "min(k, 2)") && !base(ref.Sub3[1]) {
			t.Errorf("%s: the band's j subscript does not read the band's base", ref.Text)
		}
		if strings.Contains(ref.Text, "[m]") {
			if v, ok := ref.Sub3[0].(*ir.Var); !ok || v.Reduce == orig.Sub3[0].(*ir.Var).Reduce {
				t.Errorf("%s: the band's i subscript is not the band's reduction variable", ref.Text)
			}
		}
	}
}

// TestBandCasesKeepTables: the band's copies of a recurrence of several
// tables keep each case's table (ir.Case.Table), so that OwnCond reads the
// copies as it reads the whole grid's cases; the given rows' case, added
// for every table, is nobody's.
func TestBandCasesKeepTables(t *testing.T) {
	r := dptest.Rand(t)
	p, pl := dptest.Load(t, "gotoh.dp", dptest.Gotoh(dptest.DNA(r, 300), dptest.DNA(r, 200), 5, 2))
	cells := cellBounds{}
	cells.lo, cells.hi, cells.ok = codegen.CellRange(p, pl)
	top := backend.NewGrid(p.CellType, 1, p.Cols)
	bp, err := band(p, 100, 50, p.Cols, 1, top, cells)
	if err != nil {
		t.Fatal(err)
	}
	T := len(p.Tables)
	if T != 3 || len(bp.Cases) != len(p.Cases)+1 {
		t.Fatalf("%d tables, %d cases in the band for the grid's %d: want 3 tables and the given rows' case first", T, len(bp.Cases), len(p.Cases))
	}
	if _, ok := bp.Cases[0].OwnCond(T, false); ok {
		t.Errorf("the given rows' case is table %d's", bp.Cases[0].Table)
	}
	for k, c := range p.Cases {
		b := bp.Cases[k+1]
		if b.Table != c.Table {
			t.Errorf("case %d: table %d in the band, %d in the grid", k, b.Table, c.Table)
		}
		if _, ok := b.OwnCond(T, k == len(p.Cases)-1); !ok {
			t.Errorf("case %d (table %d): the band's copy does not start with its table's test", k, c.Table)
		}
	}
}
