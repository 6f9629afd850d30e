package bind

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/errtest"
	"github.com/dpgpu/dpgpu/ir"
)

func td(name string) string { return filepath.Join("testdata", name) }

// checkIn checks src as if it were the file testdata/NAME, so that its
// relative @paths are found in testdata.
func checkIn(t *testing.T, src string, cfg Config) *ir.Problem {
	t.Helper()
	p, err := Check(parse(t, td("x.dp"), src), cfg)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, src)
	}
	return p
}

const grid1 = "1x1\ncell[i][j] = 0\n"

func TestInputFiles(t *testing.T) {
	tests := []struct {
		decl       string
		rows, cols int
		I          []int64
		F          []float64
		origin     string
	}{
		{`char 1x? A = @"a.txt"`, 1, 29, chars("ACCGGTCGAGTGCGCGGAAGCCGGCCGAA"), nil, "a.txt"},
		{`char 1x? A = @"two.fa"`, 1, 6, chars("ACGTAC"), nil, "two.fa"},
		{`char 1x? A = @"two.fa"#2`, 1, 8, chars("GGATTACA"), nil, "two.fa"},
		{`char 1x8 A = @"two.fa"#2`, 1, 8, chars("GGATTACA"), nil, "two.fa"},
		{`int ?x? A = @"m.csv"`, 2, 3, []int64{1, 2, 3, 4, 5, 6}, nil, "m.csv"},
		{`int 2x3 A = @"m.csv"`, 2, 3, []int64{1, 2, 3, 4, 5, 6}, nil, "m.csv"},
		{`int ?x3 A = @"m.csv"`, 2, 3, []int64{1, 2, 3, 4, 5, 6}, nil, "m.csv"},
		{`int 1x? A = @"m.csv"`, 1, 6, []int64{1, 2, 3, 4, 5, 6}, nil, "m.csv"}, // a vector takes all values in order
		{`long ?x? A = @"m.csv"`, 2, 3, []int64{1, 2, 3, 4, 5, 6}, nil, "m.csv"},
		{`double ?x? A = @"m.csv"`, 2, 3, nil, []float64{1, 2, 3, 4, 5, 6}, "m.csv"},
		{`double 1x? A = @"floats.txt"`, 1, 3, nil, []float64{1.5, 2.25, -3}, "floats.txt"},
		{`float 1x3 A = @"floats.txt"`, 1, 3, nil, []float64{1.5, 2.25, -3}, "floats.txt"},
		{`long ?x1 A = @"one.txt"`, 1, 1, []int64{42}, nil, "one.txt"},
		{`double ?x1 A = @"floats.txt"`, 3, 1, nil, []float64{1.5, 2.25, -3}, "floats.txt"}, // a line of values is a column when declared so
		{`double 3x1 A = @"floats.txt"`, 3, 1, nil, []float64{1.5, 2.25, -3}, "floats.txt"},
		// One value a line: the list it usually is, or, where the
		// declaration leaves the columns to the data, the column of three
		// rows the file holds (one line a matrix row).
		{`int 1x? A = @"column.txt"`, 1, 3, []int64{7, -2, 5}, nil, "column.txt"},
		{`int ?x? A = @"column.txt"`, 3, 1, []int64{7, -2, 5}, nil, "column.txt"},
		{`int 3x? A = @"column.txt"`, 3, 1, []int64{7, -2, 5}, nil, "column.txt"},
		{`int ?x3 A = @"column.txt"`, 1, 3, []int64{7, -2, 5}, nil, "column.txt"},
		{`double ?x? A = @"floats.txt"`, 1, 3, nil, []float64{1.5, 2.25, -3}, "floats.txt"},
		{`int 4x4 A = @"dist.txt"`, 4, 4, []int64{0, 3, 4, 2, 3, 0, 5, 7, 4, 5, 0, 1, 2, 7, 1, 0}, nil, "dist.txt"},
	}
	for _, tc := range tests {
		p := checkIn(t, tc.decl+"\n"+grid1, Config{})
		in := p.Input("A")
		if in.Rows != tc.rows || in.Cols != tc.cols || !reflect.DeepEqual(in.I, tc.I) || !reflect.DeepEqual(in.F, tc.F) || in.Origin != tc.origin {
			t.Errorf("%s: got %dx%d I=%v F=%v origin %q", tc.decl, in.Rows, in.Cols, in.I, in.F, in.Origin)
		}
	}
}

func TestInputFileErrors(t *testing.T) {
	tests := []struct{ decl, want string }{
		{`int 3x2 A = @"m.csv"`, "1:13: A is declared 3x2 but the data is 2x3"},
		{`int 1x5 A = @"m.csv"`, "1:13: A is declared 1x5 but has 6 values"},
		{`double 2x1 A = @"floats.txt"`, "1:16: A is declared 2x1 but the data is 1x3"},
		{`int 1x? A = @"floats.txt"`, "1:13: input A: "}, // a fraction for an int: the loader says so
		{`char 1x? A = @"two.fa"#3`, "1:14: input A: "},
		{`int 1x? A = @"a.txt"`, "1:13: input A: "},
	}
	for _, tc := range tests {
		list := checkErrs(t, parse(t, td("x.dp"), tc.decl+"\n"+grid1), Config{})
		errtest.Want(t, list, tc.want)
	}
}

func TestBaseDir(t *testing.T) {
	src := "char 1x? A = @\"a.txt\"\n" + grid1
	// The default: the directory of the file.
	if p := checkIn(t, src, Config{}); p.Input("A").Len() != 29 {
		t.Error("default BaseDir")
	}
	// An explicit BaseDir wins.
	p, err := Check(parse(t, "elsewhere/x.dp", src), Config{BaseDir: "testdata"})
	if err != nil || p.Input("A").Len() != 29 {
		t.Errorf("BaseDir: %v", err)
	}
	// Without it, the path is relative to the file and not found.
	if _, err := Check(parse(t, "elsewhere/x.dp", src), Config{}); err == nil || !strings.Contains(err.Error(), "a.txt") {
		t.Errorf("want a missing-file error, got %v", err)
	}
}

const overrideSrc = `int 1x? wt = 1,2,3
int 1x3 fixed = 1,2,3
int ?x? M = 1,2 & 3,4
char 1x? A = "ACGT"
double 1x? D = 0.5
int cap = 10
char gapc = '-'
int twice = cap * 2
2 x (twice + 1)
cell[i][j] = wt[0] + fixed[0] + M[0][0] + A[0] + D[0] + gapc
`

func TestInputOverrides(t *testing.T) {
	tests := []struct {
		name string
		ov   Override
		in   string
		rows int
		cols int
		I    []int64
		F    []float64
	}{
		{"values", Override{"wt", "4, 5,6,7"}, "wt", 1, 4, []int64{4, 5, 6, 7}, nil},
		{"values for a fixed side", Override{"fixed", "7,8,9"}, "fixed", 1, 3, []int64{7, 8, 9}, nil},
		{"matrix rows", Override{"M", "1,2,3&4,5,6& 7,8,9"}, "M", 3, 3, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, nil},
		{"chars", Override{"A", "G,A,T"}, "A", 1, 3, chars("GAT"), nil},
		{"a quoted string", Override{"A", `"TTAGG"`}, "A", 1, 5, chars("TTAGG"), nil},
		{"doubles", Override{"D", "1e3,-2.5"}, "D", 1, 2, nil, []float64{1000, -2.5}},
		{"a file", Override{"A", "@" + td("a.txt")}, "A", 1, 29, chars("ACCGGTCGAGTGCGCGGAAGCCGGCCGAA"), nil},
		{"a FASTA record", Override{"A", "@" + td("two.fa") + "#2"}, "A", 1, 8, chars("GGATTACA"), nil},
		{"a matrix file", Override{"M", "@" + td("dist.txt")}, "M", 4, 4, []int64{0, 3, 4, 2, 3, 0, 5, 7, 4, 5, 0, 1, 2, 7, 1, 0}, nil},
	}
	for _, tc := range tests {
		p := mustCheck(t, overrideSrc, Config{Inputs: []Override{tc.ov}})
		in := p.Input(tc.in)
		if in.Rows != tc.rows || in.Cols != tc.cols || !reflect.DeepEqual(in.I, tc.I) || !reflect.DeepEqual(in.F, tc.F) {
			t.Errorf("%s: got %dx%d I=%v F=%v", tc.name, in.Rows, in.Cols, in.I, in.F)
		}
	}
	// len() follows the new data.
	p := mustCheck(t, "int 1x? v = 1,2\n(len(v)) x 2\ncell[i][j] = v[i]\n", Config{Inputs: []Override{{"v", "5,6,7,8,9"}}})
	if p.Rows != 5 {
		t.Errorf("rows %d after --input", p.Rows)
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"a fixed side must still match", Config{Inputs: []Override{{"fixed", "1,2"}}},
			[]string{"0:0: --input fixed=1,2: fixed is declared 1x3 but has 2 values"}},
		{"an unknown input lists the inputs", Config{Inputs: []Override{{"wgt", "1"}}},
			[]string{"0:0: --input wgt=1: no input named wgt (inputs: wt, fixed, M, A, D)"}},
		{"--input of a scalar", Config{Inputs: []Override{{"cap", "1"}}},
			[]string{"0:0: --input cap=1: cap is a scalar; use --set cap=VALUE"}},
		{"a bad value", Config{Inputs: []Override{{"wt", "1,x,3"}}},
			[]string{"0:0: --input wt=1,x,3: wt: \"x\" is not a number"}},
		{"a missing value", Config{Inputs: []Override{{"wt", "1,,3"}}},
			[]string{"0:0: --input wt=1,,3: wt: missing value"}},
		{"a word for a char input", Config{Inputs: []Override{{"A", "ACGT"}}},
			[]string{"0:0: --input A=ACGT: A: char value \"ACGT\" must be a single character"}},
		{"ragged rows", Config{Inputs: []Override{{"M", "1,2&3"}}},
			[]string{"0:0: --input M=1,2&3: row 2 of M has 1 values, but row 1 has 2"}},
		{"a missing file", Config{Inputs: []Override{{"wt", "@nope.txt"}}},
			[]string{"0:0: --input wt=@nope.txt: input wt: "}},
		{"given twice", Config{Inputs: []Override{{"wt", "1"}, {"wt", "2"}}},
			[]string{"0:0: --input wt=2: wt is already given by --input"}},
		{"an unknown scalar", Config{Sets: []Override{{"cpa", "3"}}},
			[]string{"0:0: --set cpa=3: no scalar named cpa (scalars: cap, gapc, twice)"}},
		{"--set of an input", Config{Sets: []Override{{"wt", "3"}}},
			[]string{"0:0: --set wt=3: wt is an input; use --input wt=VALUES"}},
		{"a fraction for an int", Config{Sets: []Override{{"cap", "2.5"}}},
			[]string{"0:0: --set cap=2.5: 2.5 is not an integer, and the scalar is int"}},
		{"not a number", Config{Sets: []Override{{"cap", "ten"}}},
			[]string{"0:0: --set cap=ten: \"ten\" is not a number"}},
		{"out of range", Config{Sets: []Override{{"cap", "5000000000"}}},
			[]string{"0:0: --set cap=5000000000: 5000000000 does not fit int; declare it long"}},
		{"a derived value that breaks the grid", Config{Sets: []Override{{"cap", "-3"}}},
			[]string{"9:5: the grid's columns must be a positive integer, but (twice + 1) is -5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errtest.Want(t, checkErrs(t, parse(t, "t.dp", overrideSrc), tc.cfg), tc.want...)
		})
	}
}

func TestSetOverrides(t *testing.T) {
	p := mustCheck(t, overrideSrc, Config{Sets: []Override{{"cap", "30"}, {"gapc", "x"}}})
	if v := p.Scalar("cap").Value; v != (ir.Value{T: ir.Int, I: 30}) {
		t.Errorf("cap = %+v", v)
	}
	if v := p.Scalar("twice").Value; v != (ir.Value{T: ir.Int, I: 60}) {
		t.Errorf("twice = %+v (derived scalars follow --set)", v)
	}
	if p.Cols != 61 {
		t.Errorf("cols = %d", p.Cols)
	}
	if v := p.Scalar("gapc").Value; v != (ir.Value{T: ir.Char, I: 'x'}) {
		t.Errorf("gapc = %+v", v)
	}
	// A derived scalar may be set itself; it is then not evaluated.
	p = mustCheck(t, overrideSrc, Config{Sets: []Override{{"twice", "7"}, {"cap", "1e3"}}})
	if p.Scalar("twice").Value.I != 7 || p.Scalar("cap").Value.I != 1000 || p.Cols != 8 {
		t.Errorf("twice %v cap %v cols %d", p.Scalar("twice").Value, p.Scalar("cap").Value, p.Cols)
	}
	// long scalars are exact beyond 2^53, from the file and from --set.
	p = mustCheck(t, "long a = 9007199254740993\nlong b = 1\n1x1\ncell[i][j] = 0\n", Config{Sets: []Override{{"b", "9007199254740995"}}})
	if p.Scalar("a").Value.I != 9007199254740993 || p.Scalar("b").Value.I != 9007199254740995 {
		t.Errorf("a = %d, b = %d", p.Scalar("a").Value.I, p.Scalar("b").Value.I)
	}
}

const knapArgsSrc = `problem knapsack
int 1x? wt  = 2,3,4,5,9
int 1x? val = 3,4,5,8,10
int cap = 20
args: (val, wt, cap) = pisinger
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                     when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1]       when wt[i-1] <= w && cell[i-1][w-wt[i-1]] + val[i-1] > cell[i-1][w]   emit i-1
           | cell[i-1][w]                          otherwise
`

func TestArgs(t *testing.T) {
	p := mustCheck(t, knapArgsSrc, Config{Args: []string{td("knap6.txt")}})
	if !reflect.DeepEqual(p.Input("val").I, []int64{3, 4, 5, 8, 10, 7}) || !reflect.DeepEqual(p.Input("wt").I, []int64{2, 3, 4, 5, 9, 6}) {
		t.Errorf("val %v wt %v", p.Input("val").I, p.Input("wt").I)
	}
	if p.Scalar("cap").Value.I != 30 || p.Rows != 7 || p.Cols != 31 {
		t.Errorf("cap %v grid %dx%d", p.Scalar("cap").Value, p.Rows, p.Cols)
	}
	if o := p.Input("wt").Origin; o != td("knap6.txt") {
		t.Errorf("origin %q", o)
	}

	lcs := "problem lcs\nchar 1x? A = \"X\"\nchar 1x? B = \"Y\"\nargs: A, B\n(len(A)+1) x (len(B)+1)\ncell[i][j] = 0\n"
	p = mustCheck(t, lcs, Config{Args: []string{td("a.txt"), td("two.fa") + "#2"}})
	if string(bytesOf(p.Input("A").I)) != "ACCGGTCGAGTGCGCGGAAGCCGGCCGAA" || string(bytesOf(p.Input("B").I)) != "GGATTACA" {
		t.Errorf("A %q B %q", bytesOf(p.Input("A").I), bytesOf(p.Input("B").I))
	}
	// A single scalar takes a file of one value.
	p = mustCheck(t, "int n = 3\nargs: n\n(n) x 2\ncell[i][j] = 0\n", Config{Args: []string{td("one.txt")}})
	if p.Scalar("n").Value.I != 42 || p.Rows != 42 {
		t.Errorf("n = %v", p.Scalar("n").Value)
	}
	// No args: the file's own data.
	p = mustCheck(t, knapArgsSrc, Config{})
	if p.Scalar("cap").Value.I != 20 || len(p.Input("wt").I) != 5 {
		t.Errorf("defaults changed")
	}
}

func bytesOf(v []int64) []byte {
	b := make([]byte, len(v))
	for k, x := range v {
		b[k] = byte(x)
	}
	return b
}

func TestArgsErrors(t *testing.T) {
	knap5 := strings.Replace(knapArgsSrc, "int 1x? wt", "int 1x5 wt", 1)
	tests := []struct {
		name string
		src  string
		cfg  Config
		want []string
	}{
		{"too many", knapArgsSrc, Config{Args: []string{"a", "b"}},
			[]string{"0:0: knapsack takes 1 file: (val,wt,cap)=pisinger (got 2)"}},
		{"too few", "problem lcs\nchar 1x? A = \"X\"\nchar 1x? B = \"Y\"\nargs: A, B\n1x1\ncell[i][j] = 0\n", Config{Args: []string{"a"}},
			[]string{"0:0: lcs takes 2 files: A B (got 1)"}},
		{"no args line", "problem p\n1x1\ncell[i][j] = 0\n", Config{Args: []string{"a"}},
			[]string{"0:0: p takes no positional files (the file has no `args:` line)"}},
		{"a declared size the file does not match", knap5, Config{Args: []string{td("knap6.txt")}},
			[]string{"5:13: argument 1 (" + td("knap6.txt") + "): wt is declared 1x5 but has 6 values"}},
		{"a group of the wrong size", strings.Replace(knapArgsSrc, "(val, wt, cap)", "(val, wt)", 1), Config{Args: []string{td("knap5.txt")}},
			[]string{"5:7: argument 1 (" + td("knap5.txt") + "): the pisinger format gives 3 tables, but the group names 2"}},
		{"an unknown format", strings.Replace(knapArgsSrc, "pisinger", "pissinger", 1), Config{Args: []string{td("knap5.txt")}},
			[]string{`5:7: args: unknown format "pissinger" (known: manhattan, pisinger)`}},
		// Found by check, without files to load.
		{"an unknown format, no files given", strings.Replace(knapArgsSrc, "pisinger", "pissinger", 1), Config{},
			[]string{`5:7: args: unknown format "pissinger" (known: manhattan, pisinger)`}},
		{"a missing file", knapArgsSrc, Config{Args: []string{"no-such.kp"}},
			[]string{"5:7: argument 1 (no-such.kp): "}},
		{"a scalar from a file of several values", "int n = 3\nargs: n\n(n) x 2\ncell[i][j] = 0\n", Config{Args: []string{td("m.csv")}},
			[]string{"2:7: argument 1 (" + td("m.csv") + "): scalar n takes one value, but the data is 2x3"}},
		{"an argument and --set for one scalar", knapArgsSrc, Config{Args: []string{td("knap5.txt")}, Sets: []Override{{"cap", "3"}}},
			[]string{"0:0: --set cap=3: cap is already given by argument 1"}},
		{"an argument and --input for one input", knapArgsSrc, Config{Args: []string{td("knap5.txt")}, Inputs: []Override{{"wt", "1,2,3,4,5"}}},
			[]string{"0:0: --input wt=1,2,3,4,5: wt is already given by argument 1"}},
		{"a name twice", "int 1x? A = 1\nargs: A, A\n1x1\ncell[i][j] = 0\n", Config{},
			[]string{"2:10: args: A is named twice"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errtest.Want(t, checkErrs(t, parse(t, "t.dp", tc.src), tc.cfg), tc.want...)
		})
	}
}

// TestInputsMustBeFinite: int and long inputs and scalars hold finite
// values only (docs/language.md §6.1): the largest magnitude of each type
// stands for inf, so a value read as 2147483647 into an int would come
// back as inf. Inline data, --input, files and --set are all checked, the
// error naming the input, the element and the position.
func TestInputsMustBeFinite(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	intMax := file("intmax.txt", "1\n2147483647\n")
	intOK := file("intok.txt", "1\n-2147483646\n")
	longMax := file("longmax.csv", "1,-9223372036854775807\n")
	oneMax := file("onemax.txt", "2147483647\n")
	grid := "1x1\ncell[i][j] = 0\n"
	tests := []struct {
		name string
		src  string
		cfg  Config
		want string // "" when accepted
	}{
		{"int at the limit", "int 1x3 A = 1, 2147483646, -2147483646\n" + grid, Config{}, ""},
		{"int inf sentinel inline", "int 1x3 A = 1, 2147483647, 3\n" + grid, Config{},
			"1:16: A: 2147483647 does not fit int; declare it long (int holds finite values -2147483646..2147483646; the values beyond stand for inf) (element 1)"},
		{"int -inf sentinel inline", "int 1x2 A = -2147483647, 3\n" + grid, Config{},
			"1:13: A: -2147483647 does not fit int; declare it long"},
		{"int min inline", "int ?x? A = 1, 2 & 3, -2147483648\n" + grid, Config{},
			"1:23: A: -2147483648 does not fit int; declare it long (int holds finite values -2147483646..2147483646; the values beyond stand for inf) (element 3)"},
		{"long at the limit", "long 1x2 A = 9223372036854775806, -9223372036854775806\n" + grid, Config{}, ""},
		{"long inf sentinel inline", "long 1x2 A = 7, 9223372036854775807\n" + grid, Config{},
			"1:17: A: 9223372036854775807 does not fit long (long holds finite values -9223372036854775806..9223372036854775806; the values beyond stand for inf) (element 1)"},
		{"int --input", "int 1x? A = 1\n" + grid, Config{Inputs: []Override{{"A", "5,2147483647"}}},
			"0:0: --input A=5,2147483647: A: 2147483647 does not fit int; declare it long"},
		{"int file", "int 1x? A = @\"" + intMax + "\"\n" + grid, Config{},
			"1:13: input A: element 1: 2147483647 does not fit int; declare it long"},
		{"int file at the limit", "int 1x? A = @\"" + intOK + "\"\n" + grid, Config{}, ""},
		{"long file", "long ?x? A = @\"" + longMax + "\"\n" + grid, Config{},
			"1:14: input A: " + longMax + ":1: cell 2: \"-9223372036854775807\" is outside the finite range of long (±9223372036854775806)"}, // -inf is written -inf
		{"int --input file", "int 1x? A = 1\n" + grid, Config{Inputs: []Override{{"A", "@" + intMax}}},
			"0:0: --input A=@" + intMax + ": input A: element 1: 2147483647 does not fit int"},
		{"int --set", "int n = 1\n" + grid, Config{Sets: []Override{{"n", "2147483647"}}},
			"0:0: --set n=2147483647: 2147483647 does not fit int; declare it long"},
		{"long --set", "long n = 1\n" + grid, Config{Sets: []Override{{"n", "-9223372036854775807"}}},
			"0:0: --set n=-9223372036854775807: -9223372036854775807 does not fit long"},
		{"int scalar from a file", "int n = 1\nargs: n\n" + grid, Config{Args: []string{oneMax}},
			"2:7: argument 1 (" + oneMax + "): scalar n: 2147483647 does not fit int; declare it long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := parse(t, "t.dp", tc.src)
			if tc.want == "" {
				if _, err := Check(f, tc.cfg); err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			errtest.Want(t, checkErrs(t, f, tc.cfg), tc.want)
		})
	}
}

// TestInputNotARegularFile: an input file (`@"path"`, --input NAME=@path,
// a positional file) that is a directory or a device is refused with the
// input's position and the path, not read.
func TestInputNotARegularFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d.txt")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	grid := "1x1\ncell[i][j] = 0\n"
	tests := []struct {
		name string
		src  string
		cfg  Config
		want string
	}{
		{"@path", "int 1x? A = @\"" + dir + "\"\n" + grid, Config{}, "1:13: input A: " + dir + ": is a directory"},
		{"--input", "int 1x? A = 1\n" + grid, Config{Inputs: []Override{{"A", "@" + dir}}}, "0:0: --input A=@" + dir + ": input A: " + dir + ": is a directory"},
		{"argument", "char 1x? A = \"x\"\nargs: A\n" + grid, Config{Args: []string{dir}}, "2:7: argument 1 (" + dir + "): input A: " + dir + ": is a directory"},
		{"group argument", "int 1x? A = 1\nint 1x? B = 1\nint c = 1\nargs: (A, B, c) = pisinger\n" + grid, Config{Args: []string{"/dev/zero"}},
			"4:7: argument 1 (/dev/zero): /dev/zero: is a character device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errtest.Want(t, checkErrs(t, parse(t, "t.dp", tc.src), tc.cfg), tc.want)
		})
	}
}
