package bind

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/testrand"
)

// TestRandomData loads random vectors and matrices of awkward sizes inline,
// from files and from --input, and compares them with what was written.
func TestRandomData(t *testing.T) {
	r := testrand.New(t, 2)
	dir := t.TempDir()
	for _, n := range []int{1, 2, 7, 31, 100, 257, 1000} {
		ints := make([]int64, n)
		floats := make([]float64, n)
		text := make([]string, n)
		ftext := make([]string, n)
		for k := range ints {
			switch r.IntN(4) {
			case 0:
				ints[k] = math.MaxInt32 - 1 - r.Int64N(2) // the largest finite ints (§6.1)
			case 1:
				ints[k] = -(math.MaxInt32 - 1) + r.Int64N(2)
			default:
				ints[k] = r.Int64N(2001) - 1000
			}
			floats[k] = r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
			text[k] = strconv.FormatInt(ints[k], 10)
			ftext[k] = strconv.FormatFloat(floats[k], 'g', -1, 64)
		}
		path := filepath.Join(dir, fmt.Sprintf("v%d.txt", n))
		if err := os.WriteFile(path, []byte(strings.Join(text, " ")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf("int 1x%d v = %s\ndouble 1x? f = %s\nint 1x? w = @%q\n1x1\ncell[i][j] = 0\n",
			n, strings.Join(text, ","), strings.Join(ftext, ", "), path)
		p := mustCheck(t, src, Config{})
		if !reflect.DeepEqual(p.Input("v").I, ints) || !reflect.DeepEqual(p.Input("w").I, ints) || !reflect.DeepEqual(p.Input("f").F, floats) {
			t.Errorf("n=%d: data differs", n)
		}
		// --input replaces it, both ways.
		p = mustCheck(t, src, Config{Inputs: []Override{{"v", "@" + path}, {"w", strings.Join(text, ",")}}})
		if !reflect.DeepEqual(p.Input("v").I, ints) || !reflect.DeepEqual(p.Input("w").I, ints) {
			t.Errorf("n=%d: --input data differs", n)
		}
		// A matrix of rows x cols, inline with & and from a CSV file.
		rows, cols := 1+r.IntN(9), 1+r.IntN(13)
		var inline, csv []string
		var want []int64
		for i := 0; i < rows; i++ {
			row := make([]string, cols)
			for j := range row {
				x := r.Int64N(1 << 40)
				want = append(want, x)
				row[j] = strconv.FormatInt(x, 10)
			}
			inline = append(inline, strings.Join(row, ","))
			csv = append(csv, strings.Join(row, ","))
		}
		mpath := filepath.Join(dir, fmt.Sprintf("m%d.csv", n))
		if err := os.WriteFile(mpath, []byte(strings.Join(csv, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		msrc := fmt.Sprintf("long ?x%d M = %s\nlong ?x%d N = @%q\n(rows(M)) x (cols(N))\ncell[i][j] = 0\n", cols, strings.Join(inline, " & "), cols, mpath)
		p = mustCheck(t, msrc, Config{})
		for _, name := range []string{"M", "N"} {
			in := p.Input(name)
			if in.Rows != rows || in.Cols != cols || !reflect.DeepEqual(in.I, want) || in.Vector {
				t.Errorf("n=%d: %s is %dx%d, want %dx%d", n, name, in.Rows, in.Cols, rows, cols)
			}
		}
		if p.Rows != int64(rows) || p.Cols != int64(cols) {
			t.Errorf("grid %dx%d", p.Rows, p.Cols)
		}
	}
}

// BenchmarkCheckKnapsackArgs checks the knapsack with a 10 000-item
// Pisinger file given as a positional argument (load included).
func BenchmarkCheckKnapsackArgs(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	var sb strings.Builder
	n := 10000
	fmt.Fprintf(&sb, "%d %d\n", n, 50000)
	for k := 0; k < n; k++ {
		fmt.Fprintf(&sb, "%d %d\n", 1+r.IntN(1000), 1+r.IntN(1000))
	}
	path := filepath.Join(b.TempDir(), "knap.txt")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	f := parse(b, "knapsack.dp", knapArgsSrc)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Check(f, Config{Args: []string{path}}); err != nil {
			b.Fatal(err)
		}
	}
}
