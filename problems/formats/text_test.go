package formats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeTemp writes content to a file called name in a fresh directory and
// returns its path.
func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadCase is one Load call on a file with the given content, and what it
// must give: a table, or an error containing every one of errs.
type loadCase struct {
	name    string
	file    string // file name; the extension picks the format
	content string
	opt     Options
	rows    int
	cols    int
	ints    []int64
	floats  []float64
	errs    []string
}

func chars(s string) []int64 {
	v := make([]int64, len(s))
	for i := range len(s) {
		v[i] = int64(s[i])
	}
	return v
}

func runLoadCases(t *testing.T, cases []loadCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, c.file, c.content)
			got, err := Load(path, c.opt)
			if c.errs != nil {
				if err == nil {
					t.Fatalf("Load succeeded with %+v, want an error containing %q", got, c.errs)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, path) {
					t.Errorf("error %q does not start with the file name %s", msg, path)
				}
				for _, e := range c.errs {
					if !strings.Contains(msg, e) {
						t.Errorf("error %q does not contain %q", msg, e)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			checkTable(t, got, c.rows, c.cols, c.ints, c.floats)
		})
	}
}

func checkTable(t *testing.T, got *Table, rows, cols int, ints []int64, floats []float64) {
	t.Helper()
	if got.Rows != rows || got.Cols != cols {
		t.Fatalf("shape %dx%d, want %dx%d", got.Rows, got.Cols, rows, cols)
	}
	if (got.I == nil) == (got.F == nil) {
		t.Fatalf("exactly one of I and F must be set: I=%v F=%v", got.I, got.F)
	}
	if ints != nil && !reflect.DeepEqual(got.I, ints) {
		t.Errorf("I = %v, want %v", got.I, ints)
	}
	checkSpan(t, got)
	if floats != nil {
		if len(got.F) != len(floats) {
			t.Fatalf("F = %v, want %v", got.F, floats)
		}
		for i := range floats {
			if got.F[i] != floats[i] && !(math.IsNaN(got.F[i]) && math.IsNaN(floats[i])) {
				t.Errorf("F[%d] = %v, want %v", i, got.F[i], floats[i])
			}
		}
	}
	if ints == nil && got.I != nil {
		t.Errorf("got integers %v, want floats", got.I)
	}
	if floats == nil && got.F != nil {
		t.Errorf("got floats %v, want integers", got.F)
	}
	if got.Len() != rows*cols || len(got.I)+len(got.F) != rows*cols {
		t.Errorf("Len %d, data %d values, want %d", got.Len(), len(got.I)+len(got.F), rows*cols)
	}
}

func TestLoadText(t *testing.T) {
	fl := Options{Float: true}
	ch := Options{Char: true}
	runLoadCases(t, []loadCase{
		{name: "matrix", file: "m.txt", content: "1 2 3\n4 5 6\n", rows: 2, cols: 3, ints: []int64{1, 2, 3, 4, 5, 6}},
		{name: "one line is a vector", file: "v.txt", content: "7 -8 9", rows: 1, cols: 3, ints: []int64{7, -8, 9}},
		{name: "one per line is a vector", file: "v.txt", content: "7\n8\n9\n", rows: 1, cols: 3, ints: []int64{7, 8, 9}},
		{name: "comments and blanks", file: "c.txt", content: "# header\n\n1\t2\n   # indented\n  \n3 4\n", rows: 2, cols: 2, ints: []int64{1, 2, 3, 4}},
		{name: "CRLF", file: "crlf.txt", content: "1 2\r\n3 4\r\n", rows: 2, cols: 2, ints: []int64{1, 2, 3, 4}},
		{name: "uppercase extension", file: "U.TXT", content: "5", rows: 1, cols: 1, ints: []int64{5}},
		{name: "int64 limits", file: "l.txt", content: "9223372036854775806 -9223372036854775808 +12", rows: 1, cols: 3,
			ints: []int64{math.MaxInt64 - 1, math.MinInt64, 12}},
		// inf (contract v2 §7.5): Inf and -Inf among integers; the values
		// that mark it cannot be written as numbers.
		{name: "inf into int", file: "i.txt", content: "0 inf 3\n-inf +Inf 1\nINFINITY -Infinity 2\n", rows: 3, cols: 3,
			ints: []int64{0, Inf, 3, -Inf, Inf, 1, Inf, -Inf, 2}},
		{name: "inf into float", file: "i.txt", content: "0 inf -inf", opt: fl, rows: 1, cols: 3, floats: []float64{0, math.Inf(1), math.Inf(-1)}},
		{name: "inf's mark as a number", file: "l.txt", content: "1 9223372036854775807", errs: []string{"l.txt:1:", `"9223372036854775807" is outside the finite range of long (±9223372036854775806)`}},
		{name: "-inf's mark as a number", file: "l.txt", content: "-9223372036854775807", errs: []string{"l.txt:1:", "outside the finite range of long"}},
		{name: "not inf", file: "b.txt", content: "1 infinite", errs: []string{"b.txt:1:", `"infinite" is not a number`}},
		{name: "nan into int", file: "b.txt", content: "nan", errs: []string{"b.txt:1:", `"nan" is not an integer`}},
		{name: "integral floats into int", file: "f.txt", content: "3.0 1e3 -2.000000000000000000e+00", rows: 1, cols: 3, ints: []int64{3, 1000, -2}},
		{name: "floats", file: "f.txt", content: "1.5 -2\n1e-3 inf\n", opt: fl, rows: 2, cols: 2, floats: []float64{1.5, -2, 0.001, math.Inf(1)}},
		{name: "ragged", file: "r.txt", content: "1 2\n\n3\n", errs: []string{"r.txt:3:", "row 2 has 1 values", "first row (line 1) has 2"}},
		{name: "bad number", file: "b.txt", content: "1 2\n3 x\n", errs: []string{"b.txt:2:", `"x" is not a number`}},
		// Values joined by commas in a .txt: the token is cut short and
		// the message says what separates values.
		{name: "commas in a .txt", file: "c.txt", content: "0,70,78,inf,inf,inf,inf,inf,inf,92,inf,inf,inf,inf,82\n", errs: []string{"c.txt:1:", `"0,70,78,inf,inf,inf,inf,inf,inf,92,inf,i..." is not a number: values here are separated by spaces (a .csv file takes commas)`}},
		{name: "fraction into int", file: "b.txt", content: "1 2.5", errs: []string{"b.txt:1:", `"2.5" is not an integer`, "float or double"}},
		{name: "int overflow", file: "b.txt", content: "9223372036854775808", errs: []string{"b.txt:1:", "outside the 64-bit integer range"}},
		{name: "huge float into int", file: "b.txt", content: "1e300", errs: []string{"outside the 64-bit integer range"}},
		{name: "float overflow", file: "b.txt", content: "1e400", opt: fl, errs: []string{"b.txt:1:", "outside the range of a double"}},
		{name: "empty", file: "e.txt", content: "", errs: []string{"holds no values"}},
		{name: "only comments", file: "e.txt", content: "# nothing\n\n", errs: []string{"holds no values"}},
		{name: "char vector wrapped", file: "s.txt", content: "ACG\nTA\n", opt: ch, rows: 1, cols: 5, ints: chars("ACGTA")},
		{name: "char vector spaces", file: "s.txt", content: " a C\tg \n", opt: ch, rows: 1, cols: 3, ints: chars("aCg")},
		{name: "char matrix", file: "s.txt", content: "AB\n# note\nCD\nEF\n", opt: ch, rows: 3, cols: 2, ints: chars("ABCDEF")},
		{name: "char digits", file: "s.txt", content: "65 66", opt: ch, rows: 1, cols: 4, ints: chars("6566")},
		{name: "char non-ASCII", file: "s.txt", content: "AB\nCé\n", opt: ch, errs: []string{"s.txt:2:", "column 2", "not ASCII"}},
		{name: "char control", file: "s.txt", content: "A\x01B", opt: ch, errs: []string{"s.txt:1:", "control character"}},
		{name: "char empty", file: "s.txt", content: "\n \n", opt: ch, rows: 1, cols: 0, ints: []int64{}},
		{name: "char and float", file: "s.txt", content: "1", opt: Options{Char: true, Float: true}, errs: []string{"both char and floating"}},
		{name: "record on text", file: "s.txt", content: "1", opt: Options{Record: 2}, errs: []string{"record selector (#2)", "FASTA"}},
		{name: "unknown extension", file: "x.dat", content: "1", errs: []string{`unknown data file extension ".dat"`, ".npy"}},
	})
}

func TestLoadCSV(t *testing.T) {
	fl := Options{Float: true}
	ch := Options{Char: true}
	runLoadCases(t, []loadCase{
		{name: "matrix", file: "m.csv", content: "1,2,3\n4,5,6\n", rows: 2, cols: 3, ints: []int64{1, 2, 3, 4, 5, 6}},
		{name: "header skipped", file: "h.csv", content: "a, b ,c\n1,2,3\n4,5,6\n", rows: 2, cols: 3, ints: []int64{1, 2, 3, 4, 5, 6}},
		{name: "header column", file: "h.csv", content: "cost\n1\n2\n3\n", rows: 1, cols: 3, ints: []int64{1, 2, 3}},
		{name: "one row", file: "r.csv", content: " 1 , 2 ,3 \n", rows: 1, cols: 3, ints: []int64{1, 2, 3}},
		{name: "comments and CRLF", file: "c.csv", content: "# made by hand\r\n1,2\r\n3,4\r\n", rows: 2, cols: 2, ints: []int64{1, 2, 3, 4}},
		{name: "quoted", file: "q.csv", content: "\"1\",\"2\"\n3,4\n", rows: 2, cols: 2, ints: []int64{1, 2, 3, 4}},
		{name: "floats", file: "f.csv", content: "x,y\n1.5,-2\n0.25,1e2\n", opt: fl, rows: 2, cols: 2, floats: []float64{1.5, -2, 0.25, 100}},
		{name: "inf into int", file: "d.csv", content: "0,inf,7\n-inf,0, Inf \n", rows: 2, cols: 3, ints: []int64{0, Inf, 7, -Inf, 0, Inf}},
		{name: "inf into float", file: "d.csv", content: "a,b\ninf,-inf\n", opt: fl, rows: 1, cols: 2, floats: []float64{math.Inf(1), math.Inf(-1)}},
		{name: "inf's mark as a number", file: "d.csv", content: "1,9223372036854775807\n", errs: []string{"d.csv:1:", "cell 2", "outside the finite range of long"}},
		{name: "chars", file: "c.csv", content: "A,B\nC, D\n", opt: ch, rows: 2, cols: 2, ints: chars("ABCD")},
		{name: "chars header", file: "c.csv", content: "first,second\nA,B\n", opt: ch, rows: 1, cols: 2, ints: chars("AB")},
		{name: "mixed header", file: "m.csv", content: "a,2\n1,2\n", errs: []string{"m.csv:1:", "cell 1", `"a" is not a number`}},
		{name: "fraction in first row", file: "m.csv", content: "1.5,2\n", errs: []string{"m.csv:1:", "cell 1", "not an integer"}},
		{name: "ragged", file: "r.csv", content: "1,2\n3,4,5\n", errs: []string{"r.csv:2:", "row 2 has 3 cells", "first row (line 1) has 2"}},
		{name: "bad cell", file: "b.csv", content: "1,2\n3,zz\n", errs: []string{"b.csv:2:", "cell 2", `"zz" is not a number`}},
		{name: "empty cell", file: "b.csv", content: "1,2\n3,\n", errs: []string{"b.csv:2:", "cell 2", "empty value"}},
		{name: "long char", file: "b.csv", content: "A,BC\n", opt: ch, errs: []string{"b.csv:1:", "cell 2", "not a single character"}},
		{name: "bad quote", file: "b.csv", content: "1,2\n3,\"4\n", errs: []string{"b.csv:"}},
		{name: "only header", file: "h.csv", content: "a,b\n", errs: []string{"holds no values"}},
		{name: "empty", file: "e.csv", content: "", errs: []string{"holds no values"}},
	})
}

// TestTextRandomRoundTrip writes random matrices at awkward sizes in plain
// Go and checks that both text formats read them back exactly, with the
// vector shapes folded to 1xN.
func TestTextRandomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][2]int{{1, 1}, {1, 7}, {13, 1}, {2, 2}, {5, 3}, {17, 31}, {64, 65}}
	for _, sh := range shapes {
		r, c := sh[0], sh[1]
		ints := make([]int64, r*c)
		floats := make([]float64, r*c)
		for i := range ints {
			ints[i] = rng.Int64() >> rng.IntN(64)
			if rng.IntN(2) == 0 {
				ints[i] = -ints[i]
			}
			floats[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
		wr, wc := r, c
		if r == 1 || c == 1 {
			wr, wc = 1, r*c
		}
		for _, ext := range []string{".txt", ".csv"} {
			sep := " "
			if ext == ".csv" {
				sep = ","
			}
			var si, sf strings.Builder
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if j > 0 {
						si.WriteString(sep)
						sf.WriteString(sep)
					}
					si.WriteString(strconv.FormatInt(ints[i*c+j], 10))
					sf.WriteString(strconv.FormatFloat(floats[i*c+j], 'g', -1, 64))
				}
				si.WriteString("\n")
				sf.WriteString("\n")
			}
			name := fmt.Sprintf("%dx%d%s", r, c, ext)
			t.Run(name, func(t *testing.T) {
				got, err := Load(writeTemp(t, "i"+ext, si.String()), Options{})
				if err != nil {
					t.Fatal(err)
				}
				checkTable(t, got, wr, wc, ints, nil)
				got, err = Load(writeTemp(t, "f"+ext, sf.String()), Options{Float: true})
				if err != nil {
					t.Fatal(err)
				}
				checkTable(t, got, wr, wc, nil, floats)
			})
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	for _, ext := range []string{".txt", ".csv", ".fa", ".npy", ".tsp"} {
		p := filepath.Join(t.TempDir(), "absent"+ext)
		_, err := Load(p, Options{Char: ext == ".fa"})
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Load(%s) error %v, want one naming the file", p, err)
		}
	}
}

// TestSpans: the readers that parse integers line by line (text, Manhattan
// tourist) know their values' span, inf included, on random files of
// several shapes.
func TestSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][2]int{{1, 1}, {1, 9}, {9, 1}, {3, 4}, {40, 33}} {
		r, c := sh[0], sh[1]
		var b strings.Builder
		vals := make([]int64, 0, r*c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				v := rng.Int64N(1 << uint(1+rng.IntN(62)))
				if rng.IntN(2) == 0 {
					v = -v
				}
				word := strconv.FormatInt(v, 10)
				switch rng.IntN(40) {
				case 0:
					v, word = Inf, "inf"
				case 1:
					v, word = -Inf, "-inf"
				}
				vals = append(vals, v)
				fmt.Fprintf(&b, "%s ", word)
			}
			b.WriteString("\n")
		}
		got, err := readText(strings.NewReader(b.String()), "s.txt", int64(b.Len()), Options{})
		if err != nil {
			t.Fatalf("%dx%d: %v", r, c, err)
		}
		if !got.Span.Known {
			t.Fatalf("%dx%d: no span", r, c)
		}
		checkSpan(t, got)
		if !slices.Equal(got.I, vals) {
			t.Fatalf("%dx%d: values %v, want %v", r, c, got.I, vals)
		}
	}
	src := "3 4\n1 0 -2 4\n4 6 5 2\n3 2 4\n0 7 3\n3 -3 0\n"
	tabs, err := readManhattan(strings.NewReader(src), "m.txt", int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range [][2]int64{{-2, 6}, {-3, 7}} {
		if sp := tabs[k].Span; !sp.Known || sp.Lo != want[0] || sp.Hi != want[1] {
			t.Errorf("block %d: span %+v, want %d..%d", k, sp, want[0], want[1])
		}
	}
}
