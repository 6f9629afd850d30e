package sema

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
)

// convertOne is the conversion of one loaded value as fillTable did it
// value by value before it became one loop per input: the reference that
// intsOf and floatsOf must agree with, values and errors alike.
func convertOne(t *Table, k int, typ ir.Type) (ir.Value, error) {
	// inf in the data: ±MaxInt64 among integers, or an IEEE infinity.
	inf, neg := false, false
	if t.I != nil {
		inf, neg = t.I[k] == math.MaxInt64 || t.I[k] == -math.MaxInt64, t.I[k] < 0
	} else {
		inf, neg = math.IsInf(t.F[k], 0), t.F[k] < 0
	}
	if inf {
		switch {
		case typ.IsFloat() && neg:
			return ir.Value{T: typ, F: math.Inf(-1)}, nil
		case typ.IsFloat():
			return ir.Value{T: typ, F: math.Inf(1)}, nil
		case typ == ir.Char:
			return ir.Value{}, fmt.Errorf("char has no inf (only short, int and long inputs hold inf, as their sentinels)")
		case neg:
			return ir.Value{T: typ, I: typ.Info().InfNeg}, nil
		}
		return ir.Value{T: typ, I: typ.Info().InfPos}, nil
	}
	if typ.IsFloat() {
		if t.F != nil {
			return floatValue(t.F[k], typ)
		}
		return intValue(t.I[k], typ)
	}
	if t.I != nil {
		return intValue(t.I[k], typ)
	}
	v, err := floatValue(t.F[k], typ)
	if err == nil && float64(v.I) != t.F[k] {
		err = fmt.Errorf("%v is not an integer (declare the input float or double)", t.F[k])
	}
	return v, err
}

// TestTableConversionMatchesPerValue: converting a loaded table in one
// loop gives, for every declared type and every edge of its range, the
// values and the first error (its element and its text) that converting
// value by value gives.
func TestTableConversionMatchesPerValue(t *testing.T) {
	ints := []int64{0, 1, -1, 'A', 127, 128, -128, 255, 32766, 32767, -32766, -32767, -32768,
		2147483646, 2147483647, -2147483646, -2147483647, -2147483648, 1 << 24, 1<<24 + 1, 1<<53 + 1, 1<<60 + 1<<36 + 1,
		math.MaxInt64 - 1, math.MaxInt64, math.MinInt64 + 1, math.MinInt64}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 0.1, 127, 32766, 32767, 2147483646, 2147483647,
		-2147483647, 1 << 24, 1<<24 + 1, 9.2233720368547748e18, -9.2233720368547748e18, 9.223372036854775e18,
		math.MaxFloat32, math.MaxFloat32 * 2, math.SmallestNonzeroFloat64, 1e300, -1e300,
		math.Inf(1), math.Inf(-1), math.NaN()}
	var tables []*Table
	for _, x := range ints {
		tables = append(tables, &Table{Rows: 1, Cols: 3, I: []int64{7, x, -x}}, &Table{Rows: 1, Cols: 2, I: []int64{x, 7}})
	}
	for _, f := range floats {
		tables = append(tables, &Table{Rows: 1, Cols: 3, F: []float64{7, f, -f}})
	}
	for _, typ := range ir.Types() {
		if !typ.Is(ir.IsDeclared) {
			continue
		}
		for _, tab := range tables {
			name := fmt.Sprintf("%s from %v%v", typ, tab.I, tab.F)
			var got []ir.Value
			var k int
			var err error
			if typ.IsFloat() {
				var fs []float64
				fs, k, err = floatsOf(tab, typ)
				for _, f := range fs {
					got = append(got, ir.Value{T: typ, F: f})
				}
			} else {
				var is []int64
				var span ir.Span
				is, span, k, err = intsOf(tab, typ)
				if err == nil && span != ir.SpanOf(is) {
					t.Errorf("%s: span %+v, want %+v", name, span, ir.SpanOf(is))
				}
				// Again with the loader's span (formats.Table.Span):
				// the same values, errors and span.
				if tab.F == nil {
					spanned := &Table{Rows: tab.Rows, Cols: tab.Cols, I: tab.I, Span: ir.SpanOf(tab.I)}
					is3, span3, k3, err3 := intsOf(spanned, typ)
					if !slices.Equal(is, is3) || span3 != span || k != k3 || fmt.Sprint(err) != fmt.Sprint(err3) {
						t.Errorf("%s, with the loader's span: %v %+v %d %v, without %v %+v %d %v", name, is3, span3, k3, err3, is, span, k, err)
					}
				}
				// Again, a table shared by checks (Table.Checked): the
				// first check of a type remembered, the next taken as
				// done where it found the values fit as they are.
				shared := &Table{Rows: tab.Rows, Cols: tab.Cols, I: tab.I, F: tab.F, Checked: &Checked{}}
				for _, other := range ir.Types() {
					if !other.IsFloat() && other.Is(ir.IsDeclared) {
						intsOf(shared, other)
					}
				}
				is2, _, k2, err2 := intsOf(shared, typ)
				if !slices.Equal(is, is2) || k != k2 || fmt.Sprint(err) != fmt.Sprint(err2) {
					t.Errorf("%s, shared: %v %d %v, unshared %v %d %v", name, is2, k2, err2, is, k, err)
				}
				for _, x := range is {
					got = append(got, ir.Value{T: typ, I: x})
				}
			}
			wantK, wantErr := -1, error(nil)
			var want []ir.Value
			for j := 0; j < tab.Len(); j++ {
				v, e := convertOne(tab, j, typ)
				if e != nil {
					wantK, wantErr, want = j, e, nil
					break
				}
				want = append(want, v)
			}
			if wantErr != nil {
				if err == nil || k != wantK || err.Error() != wantErr.Error() {
					t.Errorf("%s: element %d: %v, want element %d: %v", name, k, err, wantK, wantErr)
				}
				continue
			}
			if err != nil || len(got) != len(want) {
				t.Errorf("%s: %v (%d values), want %d values", name, err, len(got), len(want))
				continue
			}
			for j := range want {
				if got[j].I != want[j].I || math.Float64bits(got[j].F) != math.Float64bits(want[j].F) {
					t.Errorf("%s: element %d is %v, want %v", name, j, got[j], want[j])
				}
			}
		}
	}
}

// TestTableTakenWithoutCopy: an input whose declared type holds every
// loaded value takes the loader's array itself; a float input copies only
// when float rounds a value, leaving the loader's array as it was.
func TestTableTakenWithoutCopy(t *testing.T) {
	load := func(src string, tab *Table) *ir.Input {
		t.Helper()
		f := parse(t, "t.dp", src)
		var decl *dsl.InputDecl
		for _, n := range Names(f) {
			if n.Input != nil {
				decl = n.Input
			}
		}
		p, err := Check(f, &Data{Inputs: map[*dsl.InputDecl]*Datum{decl: {Origin: "a.txt", Table: tab}}})
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		return p.Inputs[0]
	}
	grid := "1x1\ncell[i][j] = 0\n"
	ints := []int64{3, 1, 4, 1, 5, 9}
	if in := load("int 2x3 A = @\"a.txt\"\n"+grid, &Table{Rows: 2, Cols: 3, I: ints}); &in.I[0] != &ints[0] || in.Rows != 2 || in.Cols != 3 {
		t.Errorf("int input copied the loader's integers (or lost the shape %dx%d)", in.Rows, in.Cols)
	}
	doubles := []float64{0.1, 2, 1e300}
	if in := load("double 1x? A = @\"a.txt\"\n"+grid, &Table{Rows: 1, Cols: 3, F: doubles}); &in.F[0] != &doubles[0] {
		t.Error("double input copied the loader's values")
	}
	exact := []float64{0.5, 2, -1e10}
	if in := load("float 1x? A = @\"a.txt\"\n"+grid, &Table{Rows: 1, Cols: 3, F: exact}); &in.F[0] != &exact[0] {
		t.Error("float input copied values float holds exactly")
	}
	rounded := []float64{0.5, 0.1, 3}
	in := load("float 1x? A = @\"a.txt\"\n"+grid, &Table{Rows: 1, Cols: 3, F: rounded})
	if &in.F[0] == &rounded[0] || rounded[1] != 0.1 {
		t.Error("float input rounded the loader's values in place")
	}
	if want := []float64{0.5, float64(float32(0.1)), 3}; fmt.Sprint(in.F) != fmt.Sprint(want) {
		t.Errorf("float input %v, want %v", in.F, want)
	}
}

// TestIntsOfPrintable: a table marked Printable (FASTA and text read as
// characters) is taken unscanned, with the values and errors a scan
// gives: printable characters fit every integer type, and the mark is
// honoured only where the type's range holds them.
func TestIntsOfPrintable(t *testing.T) {
	vals := []int64{'!', 'A', 'z', '~'}
	for _, typ := range []ir.Type{ir.Char, ir.Int, ir.Long} {
		scanned, _, _, err1 := intsOf(&Table{Rows: 1, Cols: 4, I: vals}, typ)
		taken, _, _, err2 := intsOf(&Table{Rows: 1, Cols: 4, I: vals, Printable: true}, typ)
		if err1 != nil || err2 != nil || !slices.Equal(scanned, taken) || &taken[0] != &vals[0] {
			t.Errorf("%v: scanned %v (%v), taken %v (%v); want the same values, the table's own array", typ, scanned, err1, taken, err2)
		}
	}
	if got, _, _, err := intsOf(&Table{Rows: 1, Printable: true}, ir.Char); err != nil || got == nil || len(got) != 0 {
		t.Errorf("an empty printable table: %v, %v; want an empty input, not none", got, err)
	}
}
