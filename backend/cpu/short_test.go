package cpu

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// TestShortLCS solves LCS in 16-bit cells: the answer, the kept grid (held
// as int16), and the traceback, against the plain-Go reference.
func TestShortLCS(t *testing.T) {
	r := dptest.Rand(t)
	for k := 0; k < 10; k++ {
		a, b := dptest.DNA(r, 1+r.IntN(150)), dptest.DNA(r, 1+r.IntN(150))
		src := withCell(dptest.LCS(a, b), "short")
		p, pl := dptest.Load(t, "lcs.dp", src)
		if p.CellType != ir.Short {
			t.Fatalf("cell type %s", p.CellType)
		}
		for _, threads := range []int{1, 3} {
			res, err := solveTiny(t, p, pl, backend.Options{Threads: threads, Traceback: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer.T != ir.Short || res.Answer.I != int64(dptest.LCSLength(a, b)) {
				t.Fatalf("answer %v, want short %d", res.Answer, dptest.LCSLength(a, b))
			}
			want := dptest.LCSGrid(a, b)
			cells := backend.Cells[int16](res.Grid)
			for i := range want {
				for j, w := range want[i] {
					if got := cells[int64(i)*res.Grid.Cols+int64(j)]; float64(got) != w {
						t.Fatalf("cell[%d][%d] = %d, want %v", i, j, got, w)
					}
				}
			}
			var s strings.Builder
			for _, v := range res.Emitted {
				s.WriteByte(byte(v.I))
			}
			if int64(s.Len()) != res.Answer.I || !isSubsequence(s.String(), a) || !isSubsequence(s.String(), b) {
				t.Fatalf("traceback %q of %q and %q, answer %d", s.String(), a, b, res.Answer.I)
			}
		}
	}
}

// TestShortOverflow: a value that does not fit in a short cell is an error
// naming the cell and suggesting int (section 6.1), never a wrapped value;
// 32,766 is the largest finite short, 32,767 is inf.
func TestShortOverflow(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"doubling", `problem dbl
cell: short
20 x 1
cell[i][j] = 2 * cell[i-1][j]   when i > 0
           | 1                  otherwise
`, "x.dp:4:16: overflow computing cell[15][0]: converting 32768 to short does not fit (finite range ±32,766); use cell: int"},
		{"one past", `problem past
cell: short
3 x 1
cell[i][j] = cell[i-1][j] + 16383   when i > 0
           | 1                      otherwise
`, "converting 32767 to short does not fit (finite range ±32,766); use cell: int"},
		{"beyond int", `problem big
cell: short
2 x 1
long 1x1 A = 5000000000
cell[i][j] = A[0]   when i > 0
           | 1      otherwise
`, "converting 5000000000 to short does not fit (finite range ±32,766); use cell: long"},
		{"from double", `problem dbl
cell: short
2 x 1
cell[i][j] = 40000.5   when i > 0
           | 1.0       otherwise
`, "constant 40000.5 does not fit short"},
		{"from double at run time", `problem fd
cell: short
double 1x1 X = 40000.5
2 x 1
cell[i][j] = X[0]   when i > 0
           | 1      otherwise
`, "converting 40000.5 to short does not fit (finite range ±32,766); use cell: int"},
	}
	for _, tc := range cases {
		p, pl, err := dptest.TryLoad(t, "x.dp", tc.src)
		if err != nil {
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: load error %v, want %q", tc.name, err, tc.want)
			}
			continue
		}
		for _, threads := range []int{1, 2} {
			_, err := solve(t, p, pl, backend.Options{Threads: threads})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, %d threads: error %v, want %q", tc.name, threads, err, tc.want)
			}
		}
	}
	// The largest finite short fits.
	p, pl := dptest.Load(t, "fits.dp", `problem fits
cell: short
3 x 1
cell[i][j] = cell[i-1][j] + 16383   when i > 0
           | 0                      otherwise
`)
	res, err := solve(t, p, pl, backend.Options{Maintain: true})
	if err != nil || res.Answer.I != 32766 {
		t.Fatalf("answer %v, error %v; want 32766", res.Answer, err)
	}
}

// TestShortInf: inf in a short cell is its sentinel, and reads back as int's
// inf in arithmetic; short inputs are range-checked and promote to int.
func TestShortInf(t *testing.T) {
	p, pl := dptest.Load(t, "inf.dp", `problem inf
cell: short
short 1x4 W = 3, -1000, 10000, 7
4 x 4
cell[i][j] = inf                                  when i == 0
           | min(cell[i-1][j] + W[j], W[j] * 1)   otherwise
answer: min(cell[3][0], cell[3][3] + 100000)
`)
	res, err := solve(t, p, pl, backend.Options{Maintain: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Grid.At(0, 2); v.I != 32767 {
		t.Errorf("inf cell holds %d, want the sentinel 32767", v.I)
	}
	if v := res.Grid.At(3, 1); v.I != -3000 {
		t.Errorf("cell[3][1] = %d", v.I)
	}
	if res.Answer.I != 3 {
		t.Errorf("answer %v, want 3", res.Answer)
	}
	if _, _, err := dptest.TryLoad(t, "bad.dp", "problem bad\nshort 1x2 W = 1, 32767\n2 x 2\ncell[i][j] = W[j]\n"); err == nil ||
		!strings.Contains(err.Error(), "32767 does not fit short; declare it int (short holds finite values -32766..32766") {
		t.Errorf("a short input of 32767: error %v", err)
	}
}
