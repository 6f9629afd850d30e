package engine

import (
	"github.com/dpgpu/dpgpu/internal/dptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/problems/formats"
)

// TestColumnTemplate: an instance's column template has the bucket's
// columns and the instance's recurrence; a recurrence that reads the
// column count (len(B), COLS) gets none.
func TestColumnTemplate(t *testing.T) {
	const free = `problem sw
char 1x? A = "ACGT"
char 1x? B = "ACGT"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0    when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -1), cell[i-1][j] - 1, cell[i][j-1] - 1)   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`
	const bound = `problem ends
char 1x? A = "ACGT"
char 1x? B = "ACGT"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0    when i == 0 || j == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -1), cell[i-1][j] - 1, cell[i][j-1] - (j == len(B) ? 0 : 1))   otherwise
`
	const cols = `problem ends
char 1x? A = "ACGT"
char 1x? B = "ACGT"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0    when i == 0 || j == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -1), cell[i-1][j] - 1, cell[i][j-1] - (COLS - j))   otherwise
`
	// The answer's row reads the column count: no template.
	const ansRow = `problem corner
char 1x? A = "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT"
char 1x? B = "ACGT"
args: A, B
(len(A)+1) x (len(B)+1)
cell[i][j] = 0    when i == 0 || j == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -1), cell[i-1][j] - 1, cell[i][j-1] - 1)   otherwise
answer: cell[min(len(B), 7)][len(B)]
`
	chars := func(s string) *formats.Table {
		t := &formats.Table{Rows: 1, Cols: len(s)}
		for _, c := range []byte(s) {
			t.I = append(t.I, int64(c))
		}
		return t
	}
	for _, c := range []struct {
		name, src string
		b         string
		want      int64 // template columns; 0: none
	}{
		{"free", free, "ACGTTGCA", 64},
		{"free-70", free, string(make([]byte, 0)) + "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTAC", 128},
		{"len(B)", bound, "ACGTTGCA", 0},
		{"COLS", cols, "ACGTTGCA", 0},
		{"answer row", ansRow, "ACGT", 0},
		// Three tables a cell: the template pads cells (64 of them, 192
		// flat columns), the region is one table's every column.
		{"tables-local", dptest.Affine("ACGT", "ACGT", 5, 2, "local"), "ACGTTGCA", 192},
		{"tables-global", dptest.Affine("ACGT", "ACGT", 5, 2, "global"), "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACG", 384},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := dsl.Parse(c.name+".dp", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			src := &Source{Path: c.name + ".dp", Name: c.name, Text: []byte(c.src)}
			b := &batch{src: src, file: f}
			items := []batchItem{{name: "a", label: "a.fa#1", data: chars("GATTACA")}, {name: "b", label: "b.fa#1", data: chars(c.b)}}
			cfg := bind.Config{Args: []string{"a.fa#1", "b.fa#1"}, ArgData: []*formats.Table{0: items[0].data, 1: items[1].data}}
			p, err := bind.Check(f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			l, err := loadChecked(src, f, p)
			if err != nil {
				t.Fatal(err)
			}
			tl := b.columnTemplate(items, l)
			switch {
			case c.want == 0 && tl != nil:
				t.Fatalf("a template of %d columns for a recurrence that reads the column count", tl.Problem.Cols)
			case c.want > 0 && tl == nil:
				t.Fatal("no template")
			case c.want > 0 && (tl.Problem.Cols != c.want || tl.Problem.Rows != p.Rows):
				t.Fatalf("template %s, want %d x %d", tl.Problem.GridText(), p.Rows, c.want)
			}
		})
	}
}

// TestBusyUnion: overlapping launches count once, several GPUs add up.
func TestBusyUnion(t *testing.T) {
	ms := func(a, b int) [2]time.Duration {
		return [2]time.Duration{time.Duration(a) * time.Millisecond, time.Duration(b) * time.Millisecond}
	}
	var d0, d1 gpu.Executor
	g := &gpuBatcher{spans: map[BatchDevice][][2]time.Duration{
		&d0: {ms(5, 9), ms(0, 3), ms(2, 4), ms(8, 12), ms(20, 21)}, // 0-4, 5-12, 20-21: 4 + 7 + 1
		&d1: {ms(1, 2)},
	}}
	if got, want := g.busy(), 13*time.Millisecond; got != want {
		t.Errorf("busy %v, want %v", got, want)
	}
}

// TestVaryingInputs: the inputs of arguments that hold several instances
// vary; those of a file or a FASTA file of one record (a query) are
// shared, which lets a batch program profile its reads of them.
func TestVaryingInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) *BatchArg {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := OpenBatchArg(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	one := write("q.fa", ">q\nACGT\nAC\n")
	two := write("db.fa", ">a\nACGT\n>b\nGG\n")
	plain := write("x.txt", "ACGT\n")
	f, err := dsl.Parse("sw.dp", []byte("problem sw\nchar 1x? A = \"AC\"\nchar 1x? B = \"AC\"\nargs: A, B\n(len(A)+1) x (len(B)+1)\ncell[i][j] = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []*BatchArg
		want []string
	}{
		{"query vs database", []*BatchArg{one, two}, []string{"B"}},
		{"database vs query", []*BatchArg{two, one}, []string{"A"}},
		{"all against all", []*BatchArg{two, two}, []string{"A", "B"}},
		{"a file and a database", []*BatchArg{plain, two}, []string{"B"}},
		{"fewer arguments", []*BatchArg{two}, []string{"A", "B"}},
	} {
		if got := varyingInputs(f, c.args); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
