package checkpoint

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/native"
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
		bp, err := band(p, 1000, 500, p.Cols, 1, top, cells, false)
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
	bp, err := band(p, 3, 2, p.Cols, 1, top, cellBounds{}, false)
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
	bp, err := band(p, 100, 50, p.Cols, 1, top, cells, false)
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

// TestBandTables: a band of several tables given its rows table by table
// (band's perTable) has only cases of one table, in table order, so that
// it plans as the whole grid does (the tables of a cell together,
// plan.Plan.Cells), and computes the whole grid's cells — on the Go
// evaluator and, where there is a compiler, on compiled code — for bands
// given one row and two, at the grid's top and inside it.
func TestBandTables(t *testing.T) {
	r := dptest.Rand(t)
	for _, src := range []string{
		dptest.Gotoh(dptest.DNA(r, 97), dptest.DNA(r, 61), 5, 2),
		dptest.Gotoh(dptest.DNA(r, 40), dptest.DNA(r, 70), 3, 1),
	} {
		p, pl := dptest.Load(t, "gotoh.dp", src)
		T := int64(len(p.Tables))
		whole, err := cpu.New(2).Run(t.Context(), p, pl, backend.Options{Maintain: true, NoSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		cells := cellBounds{}
		cells.lo, cells.hi, cells.ok = codegen.CellRange(p, pl)
		for _, c := range [][2]int64{{1, 9}, {17, 23}, {p.Rows - 5, 5}, {30, 1}} {
			r0, rows := c[0], c[1]
			top := whole.Grid.RowsOf(r0-1, 1)
			bp, err := band(p, r0, rows, p.Cols, 1, top, cells, true)
			if err != nil {
				t.Fatal(err)
			}
			if !plan.TableCases(bp) {
				t.Fatalf("band at %d: a case belongs to no table, or the tables are out of order", r0)
			}
			bpl, err := plan.Analyze(bp)
			if err != nil {
				t.Fatal(err)
			}
			if bpl.Cells != T {
				t.Errorf("band at %d: planned with cells of %d tables, want %d (%s)", r0, bpl.Cells, T, bpl.Reason)
			}
			exs := []*cpu.Executor{cpu.New(2)}
			if c, err := native.Find(); err == nil {
				exs = append(exs, cpu.New(2).WithNative(c).CompileAllSizes())
			}
			for _, ex := range exs {
				got, err := ex.Run(t.Context(), bp, bpl, backend.Options{Maintain: true, NoSpecial: true})
				if err != nil {
					t.Fatalf("band at %d: %v", r0, err)
				}
				for i := range bp.Rows {
					for j := range bp.Cols {
						if a, w := got.Grid.At(i, j), whole.Grid.At(bp.RowBase+i, j); a != w {
							t.Fatalf("band at %d (%s): cell [%d][%d] (the grid's [%d], flat column %d) is %v, the grid's %v", r0, got.Device, i, j, bp.RowBase+i, j, a, w)
						}
					}
				}
			}
		}
	}
}

// TestBlockCells: a block — rows r0.., columns c0.. of a grid, given the
// rows above and the columns left of it — computes the whole grid's cells,
// for references reaching two rows and three columns back, conditions on
// i and j, a 2-D input read at [i][j], at the grid's edges and inside it,
// blocks of 1, 2, 17 and odd sizes; and its program is as cheap per cell
// as the whole grid's (no check the whole grid's has not; the sequence
// reads staged per row and column).
func TestBlockCells(t *testing.T) {
	r := dptest.Rand(t)
	wide := func(n, m int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = dptest.Join(dptest.Ints(r, m, -3, 9))
		}
		return "int " + itoa(n) + "x" + itoa(m) + " W = " + strings.Join(w, " & ") + "\n" + itoa(n) + " x " + itoa(m) + `
cell[i][j] = W[i][j] + max(i >= 2 && j >= 1 ? cell[i-2][j-1] + 1 : 0, i >= 1 && j >= 3 ? cell[i-1][j-3] + 2 : 0, j >= 2 ? cell[i][j-2] : 0, i >= 1 ? cell[i-1][j] - 1 : 0)
`
	}
	ex := cpu.New(2)
	for _, src := range []string{
		dptest.LCS(dptest.DNA(r, 61), dptest.DNA(r, 47)),
		dptest.EditDistance(dptest.DNA(r, 50), dptest.DNA(r, 66), 1, 1, 2),
		wide(45, 52),
	} {
		p, pl := dptest.Load(t, "whole.dp", src)
		whole, err := ex.Run(t.Context(), p, pl, backend.Options{Maintain: true, NoSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		reach, creach := int64(1), int64(1)
		if strings.Contains(src, "W[i][j]") {
			reach, creach = 2, 3
		}
		cells := cellBounds{}
		cells.lo, cells.hi, cells.ok = codegen.CellRange(p, pl)
		for _, b := range [][4]int64{{0, 5, 0, 7}, {0, 1, 20, 1}, {reach, 2, creach, 2}, {13, 17, 9, 17}, {30, p.Rows - 30, 11, p.Cols - 11}, {p.Rows - 1, 1, p.Cols - 1, 1}, {7, 31, 0, p.Cols}} {
			r0, rows, c0, cols := b[0], b[1], b[2], b[3]
			var top, left *backend.Grid
			if r0 > 0 {
				top = whole.Grid.RowsOf(r0-reach, reach)
			}
			if c0 > 0 {
				left = backend.NewGrid(p.CellType, creach, p.Rows)
				for k := range creach {
					for i := range p.Rows {
						left.Set(k, i, whole.Grid.At(i, c0-creach+k))
					}
				}
			}
			bp, err := block(p, r0, rows, c0, cols, reach, creach, top, left, cells)
			if err != nil {
				t.Fatalf("block %v: %v", b, err)
			}
			bpl, err := plan.Analyze(bp)
			if err != nil {
				t.Fatalf("block %v: %v", b, err)
			}
			got, err := ex.Run(t.Context(), bp, bpl, backend.Options{Maintain: true, NoSpecial: true})
			if err != nil {
				t.Fatalf("block %v: %v", b, err)
			}
			for i := range bp.Rows {
				for j := range bp.Cols {
					if a, w := got.Grid.At(i, j), whole.Grid.At(bp.RowBase+i, bp.ColBase+j); a != w {
						t.Fatalf("block %v of\n%s: cell [%d][%d] (the grid's [%d][%d]) is %v, the grid's %v", b, src, i, j, bp.RowBase+i, bp.ColBase+j, a, w)
					}
				}
			}
		}
	}
	// Its program as cheap per cell as the whole grid's.
	p, pl := dptest.Load(t, "whole.dp", dptest.EditDistance(dptest.DNA(r, 3000), dptest.DNA(r, 2900), 1, 1, 1))
	cells := cellBounds{}
	cells.lo, cells.hi, cells.ok = codegen.CellRange(p, pl)
	bp, err := block(p, 1000, 500, 700, 600, 1, 1, backend.NewGrid(p.CellType, 1, p.Cols), backend.NewGrid(p.CellType, 1, p.Rows), cells)
	if err != nil {
		t.Fatal(err)
	}
	whole, src := recurrence(t, p), recurrence(t, bp)
	for _, check := range []string{"dp_addi", "dp_subi", "dp_chk"} {
		if strings.Contains(src, check) && !strings.Contains(whole, check) {
			t.Errorf("the block's recurrence has %s, the whole grid's none:\n%s", check, src)
		}
	}
	if !strings.Contains(src, "a.template cv<0>") || !strings.Contains(src, "a.template rv<0>") {
		t.Errorf("the block's sequence reads are not staged per row and column:\n%s", src)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
