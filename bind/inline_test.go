package bind

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/errtest"
	"github.com/dpgpu/dpgpu/ir"
)

// TestInputValuesAsInAFile: `--input NAME=v1,v2&v3,v4` takes inline values
// exactly as the .dp file's own `= v1,v2 & v3,v4` and as a .txt or .csv
// file of the same rows (contract v2 §7.5), inf and -inf included, for
// every numeric type.
func TestInputValuesAsInAFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		typ, dims string
		rows      [][]string
	}{
		{"int", "1x?", [][]string{{"4", "5", "6"}}},
		{"int", "?x?", [][]string{{"1", "2"}, {"3", "4"}, {"-5", "6"}}},
		{"int", "2x3", [][]string{{"0", "inf", "7"}, {"-inf", "3", "+inf"}}},
		{"long", "?x?", [][]string{{"9223372036854775806", "-inf"}, {"inf", "-9223372036854775806"}}},
		{"short", "1x?", [][]string{{"-32766", "inf", "32766", "-inf"}}},
		{"double", "?x2", [][]string{{"1.5", "inf"}, {"-inf", "-2e-3"}}},
		{"float", "1x?", [][]string{{"0.1", "-inf", "Infinity"}}},
	}
	for k, tc := range tests {
		var inline, txt, csv []string
		for _, row := range tc.rows {
			inline = append(inline, strings.Join(row, ","))
			txt = append(txt, strings.Join(row, " "))
			csv = append(csv, strings.Join(row, ", "))
		}
		values := strings.Join(inline, "&")
		txtPath := filepath.Join(dir, fmt.Sprintf("v%d.txt", k))
		csvPath := filepath.Join(dir, fmt.Sprintf("v%d.csv", k))
		if err := os.WriteFile(txtPath, []byte(strings.Join(txt, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(csvPath, []byte(strings.Join(csv, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		decl := fmt.Sprintf("%s %s A\n", tc.typ, tc.dims) + grid1
		var got []*ir.Input
		for _, v := range []string{values, "@" + txtPath, "@" + csvPath} {
			p := mustCheck(t, decl, Config{Inputs: []Override{{"A", v}}})
			got = append(got, p.Input("A"))
		}
		p := mustCheck(t, fmt.Sprintf("%s %s A = %s\n", tc.typ, tc.dims, strings.Join(inline, " & "))+grid1, Config{})
		got = append(got, p.Input("A"))

		// The reference: the values as written, converted by hand.
		typ := ir.ParseType(tc.typ)
		var wantI []int64
		var wantF []float64
		for _, row := range tc.rows {
			for _, s := range row {
				var f float64
				switch strings.ToLower(strings.TrimLeft(s, "+-")) {
				case "inf", "infinity":
					f = math.Inf(1)
					if s[0] == '-' {
						f = math.Inf(-1)
					}
				default:
					fmt.Sscan(s, &f)
				}
				switch {
				case typ == ir.Float:
					wantF = append(wantF, float64(float32(f)))
				case typ.IsFloat():
					wantF = append(wantF, f)
				case math.IsInf(f, 1):
					wantI = append(wantI, typ.Info().InfPos)
				case math.IsInf(f, -1):
					wantI = append(wantI, typ.Info().InfNeg)
				default:
					var x int64
					fmt.Sscan(s, &x)
					wantI = append(wantI, x)
				}
			}
		}
		wantRows, wantCols := len(tc.rows), len(tc.rows[0])
		if tc.dims == "1x?" {
			wantRows, wantCols = 1, wantRows*wantCols
		}
		for m, in := range got {
			how := []string{"--input A=" + values, "--input A=@.txt", "--input A=@.csv", "inline"}[m]
			if in.Rows != wantRows || in.Cols != wantCols || !reflect.DeepEqual(in.I, wantI) || !reflect.DeepEqual(in.F, wantF) {
				t.Errorf("%s %s by %s: %dx%d I=%v F=%v, want %dx%d I=%v F=%v", tc.typ, tc.dims, how, in.Rows, in.Cols, in.I, in.F, wantRows, wantCols, wantI, wantF)
			}
		}
	}
}

// TestInputValueErrors: inline values on the command line are refused as
// the file's own are, naming the flag.
func TestInputValueErrors(t *testing.T) {
	tests := []struct{ decl, value, want string }{
		{"int ?x? A", "1,2&3", "0:0: --input A=1,2&3: row 2 of A has 1 values, but row 1 has 2"},
		{"int 1x? A", "1,2&3,4", "0:0: --input A=1,2&3,4: A is declared 1x?, a vector, but its data has 2 rows"},
		{"char 1x? A", "a,inf", "0:0: --input A=a,inf: A: char value \"inf\" must be a single character"},
		{"int 1x? A", "1,,2", "0:0: --input A=1,,2: A: missing value"},
		{"int 1x? A", "1,infinite", "0:0: --input A=1,infinite: A: \"infinite\" is not a number"},
		{"int 1x3 A", "1,2", "0:0: --input A=1,2: A is declared 1x3 but has 2 values"},
	}
	for _, tc := range tests {
		list := checkErrs(t, parse(t, "t.dp", tc.decl+"\n"+grid1), Config{Inputs: []Override{{"A", tc.value}}})
		errtest.Want(t, list, tc.want)
	}
}

// TestInfInDataFiles: a distance matrix with missing edges (inf) reads
// from .txt and .csv into integer and floating inputs.
func TestInfInDataFiles(t *testing.T) {
	p := checkIn(t, `int ?x? D = @"inf.txt"`+"\n"+`long ?x? L = @"inf.csv"`+"\n"+`double ?x? F = @"inf.txt"`+"\n"+grid1, Config{})
	inf, ninf := ir.Int.Info().InfPos, ir.Int.Info().InfNeg
	if got, want := p.Input("D").I, []int64{0, 3, inf, 2, 3, 0, 5, inf, inf, 5, 0, 1, 2, ninf, 1, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("D = %v, want %v", got, want)
	}
	if got, want := p.Input("L").I, []int64{0, 3, math.MaxInt64, 3, 0, -math.MaxInt64}; !reflect.DeepEqual(got, want) {
		t.Errorf("L = %v, want %v", got, want)
	}
	if got := p.Input("F").F; !math.IsInf(got[2], 1) || !math.IsInf(got[13], -1) || got[1] != 3 {
		t.Errorf("F = %v", got)
	}
}

// TestScalarReductionAfterInput: a scalar that reduces over an input is
// computed from the data --input gives.
func TestScalarReductionAfterInput(t *testing.T) {
	src := "int 1x? p = 1,2,3\nint H = sum(k in 0..len(p)-1: p[k]) / 2\n" + grid1
	for _, tc := range []struct {
		cfg  Config
		want int64
	}{
		{Config{}, 3},
		{Config{Inputs: []Override{{"p", "10,20,31"}}}, 30},
		{Config{Inputs: []Override{{"p", "@" + td("dist.txt")}}}, 22}, // 44 / 2
		{Config{Sets: []Override{{"H", "7"}}}, 7},
	} {
		p := mustCheck(t, src, tc.cfg)
		if got := p.Scalar("H").Value.I; got != tc.want {
			t.Errorf("%+v: H = %d, want %d", tc.cfg, got, tc.want)
		}
	}
}
