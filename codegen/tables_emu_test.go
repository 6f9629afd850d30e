package codegen

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// The strip kernel sweeping the cells of several tables (Program.Tables):
// global, local and semi-global alignment with Gotoh's affine gaps against
// plain three-matrix references, at sizes around a warp's and a strip's
// rows, 1 to 4 rows a lane.

func affineCase(a, b string, mode string, rpt, warps int) emuCase {
	ans, bi, bj := dptest.AffineAnswer(a, b, 5, 2, mode)
	best := [2]int64{int64(bi), int64(bj)*3 + 2} // the flat cell of H[bi][bj]
	return emuCase{
		name: fmt.Sprintf("%s-%dx%d-rpt%d-w%d", mode, len(a), len(b), rpt, warps),
		src:  dptest.Affine(a, b, 5, 2, mode),
		opt:  Options{RowsPerThread: rpt, StripWarps: warps},
		kern: KernelStrip, ans: float64(ans), best: best,
	}
}

func TestEmulatedTables(t *testing.T) {
	emuCompiler(t)
	a, b := randSeq(70, 11), randSeq(45, 12)
	long := randSeq(300, 13)
	near := []byte(long)
	for k := 0; k < len(near); k += 7 {
		near[k] = "ACGT"[(k/7)%4]
	}
	cases := []emuCase{
		affineCase("A", "A", "global", 1, 2),
		affineCase("", "ACG", "global", 1, 2),
		affineCase("ACGTT", "", "semi", 1, 2),
		affineCase(a, b, "global", 1, 2),
		affineCase(a, b, "local", 1, 2),
		affineCase(b, a, "global", 2, 2),
		affineCase(a, b, "local", 3, 2),
		affineCase(a, b[:40], "globalY", 2, 2),
		affineCase(a[:17], b, "semi", 1, 2),
		affineCase(long, string(near[:230]), "global", 4, 2), // several strips of 256 rows
		affineCase(long, string(near[:33]), "local", 1, 4),
		affineCase(string(near[:257]), long, "semi", 2, 4),
	}
	if os.Getenv("DPGPU_EMU_ALL") == "" {
		// Each case compiles a C++ program (seconds): by default the
		// cases that cover one and several strips, a region in each
		// table position, an empty sequence and 1..4 rows a lane;
		// DPGPU_EMU_ALL=1 runs them all.
		var some []emuCase
		for k, c := range cases {
			if k%2 == 0 || k == len(cases)-1 {
				some = append(some, c)
			}
		}
		cases = some
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			prog := generate(t, c.name+".dp", c.src, c.opt)
			if prog.Tables != 3 {
				t.Fatalf("a %s program of %d tables, want the cells' strip kernel of 3", prog.Kernel, prog.Tables)
			}
			// max(X - e, H - o - e) as max(X, H - o) - e (emitter.offsetPair).
			if !strings.Contains(prog.Source, "+ -5)) + -2)") {
				t.Errorf("the kernel does not write max(X - e, H - o - e) as max(X, H - o) - e")
			}
			c.run(t)
		})
	}
}

// TestCellStripChoice: the cells' wavefront runs on the strip kernel
// where nothing is kept (also in row bands), and on the generic fronts
// where the grid, rows or column slabs are (they keep the whole grid).
func TestCellStripChoice(t *testing.T) {
	src := dptest.Affine(randSeq(40, 1), randSeq(30, 2), 5, 2, "global")
	for _, c := range []struct {
		name   string
		opt    Options
		kern   KernelKind
		tables int
	}{
		{"plain", Options{}, KernelStrip, 3},
		{"maintain", Options{Maintain: true}, KernelFront, 0},
		{"front", Options{Kernel: KernelFront}, KernelFront, 0},
		{"slabs", Options{Slabs: true}, KernelFront, 0},
		{"bands", Options{Bands: true}, KernelStrip, 3},
	} {
		prog := generate(t, c.name+".dp", src, c.opt)
		if prog.Kernel != c.kern || prog.Tables != c.tables {
			t.Errorf("%s: kernel %s of %d tables, want %s of %d", c.name, prog.Kernel, prog.Tables, c.kern, c.tables)
		}
		if prog.Bands != c.opt.Bands {
			t.Errorf("%s: bands %v", c.name, prog.Bands)
		}
	}
}

// TestEmulatedInfOverflow: where cells may be inf and their finite values
// grow past int, the + that may see inf keeps its check (satOperands proves
// nothing) and reports the first cell that overflows.
func TestEmulatedInfOverflow(t *testing.T) {
	emuCompiler(t)
	c := emuCase{name: "inf-overflow", kern: KernelStrip, opt: Options{RowsPerThread: 1, StripWarps: 2}, src: `problem grow
2 x 5
cell[i][j] = -inf                                            when j == 0
           | 1                                               when i == 0
           | max(cell[i][j-1], cell[i-1][j]) + 1000000000    otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteInf, errAt: [2]int64{1, 3}}
	c.run(t)
}

// TestEmulatedOffsetPairs: GPU kernels write min or max of two constant
// offsets, one of a table never inf, as one offset of the min or max
// (emitter.offsetPair) — where the other table holds -inf, inf, and inf
// that the max keeps. The kernels keep the grid (the generic fronts) and
// every cell of both tables equals a plain-Go reference with the inf
// rules (x + k is x where x is inf).
func TestEmulatedOffsetPairs(t *testing.T) {
	emuCompiler(t)
	const inf = 1<<31 - 1
	xadd := func(x, k int64) int64 {
		if x == inf || x == -inf {
			return x
		}
		return x + k
	}
	a, b := randSeq(37, 21), randSeq(45, 22)
	n, m := len(a)+1, len(b)+1
	s := func(i, j int, eq, ne int64) int64 {
		if a[i-1] == b[j-1] {
			return eq
		}
		return ne
	}
	for _, c := range []struct {
		name, body, form string
		cell             func(t0, t1 [][]int64, i, j int) (int64, int64) // table 0, then table 1, at (i, j)
	}{
		{"pair-neg", `X[i][j] = -inf                                  when j == 0 || (i == 2 && j == 1)
        | max(X[i][j-1] - 2, (H[i][j-1] - 4) - 3)   otherwise
H[i][j] = i - j                                 when i == 0 || j == 0
        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), X[i][j], H[i-1][j] - 6)   otherwise`, "+ -5)) + -2)",
			func(x, h [][]int64, i, j int) (int64, int64) {
				xv := int64(-inf)
				if j != 0 && (i != 2 || j != 1) {
					xv = max(xadd(x[i][j-1], -2), h[i][j-1]-7)
				}
				if i == 0 || j == 0 {
					return xv, int64(i - j)
				}
				return xv, max(h[i-1][j-1]+s(i, j, 2, -3), xv, h[i-1][j]-6)
			}},
		{"pair-pos", `Y[i][j] = inf                                   when i == 0 || j == 0 || (i == 1 && j == 3)
        | min(Y[i-1][j] + 3, H[i-1][j-1] + 1)       otherwise
H[i][j] = i + j                                 when i == 0 || j == 0
        | min(H[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : 2), Y[i][j], H[i][j-1] + 4)   otherwise`, "+ -2)) + 3)",
			func(y, h [][]int64, i, j int) (int64, int64) {
				yv := int64(inf)
				if i != 0 && j != 0 && (i != 1 || j != 3) {
					yv = min(xadd(y[i-1][j], 3), h[i-1][j-1]+1)
				}
				if i == 0 || j == 0 {
					return yv, int64(i + j)
				}
				return yv, min(h[i-1][j-1]+s(i, j, 0, 2), yv, h[i][j-1]+4)
			}},
		{"pair-keeps-inf", `Z[i][j] = inf                                   when j == 0 && i % 2 == 1
        | i                                     when j == 0
        | max(Z[i][j-1] - 2, (H[i][j-1] - 4) - 3)   otherwise
H[i][j] = i - j                                 when i == 0 || j == 0
        | max(H[i-1][j-1] + (A[i-1] == B[j-1] ? 2 : -3), H[i-1][j] - 6)   otherwise`, "dp_xadd<int, 2>(dp_max<int>(",
			func(z, h [][]int64, i, j int) (int64, int64) {
				var zv int64
				switch {
				case j == 0 && i%2 == 1:
					zv = inf
				case j == 0:
					zv = int64(i)
				default:
					zv = max(xadd(z[i][j-1], -2), h[i][j-1]-7)
				}
				if i == 0 || j == 0 {
					return zv, int64(i - j)
				}
				return zv, max(h[i-1][j-1]+s(i, j, 2, -3), h[i-1][j]-6)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			t0, t1 := make([][]int64, n), make([][]int64, n)
			want := grid(n, 2*m)
			for i := range n {
				t0[i], t1[i] = make([]int64, m), make([]int64, m)
				for j := range m {
					t0[i][j], t1[i][j] = c.cell(t0, t1, i, j)
					want[i][2*j], want[i][2*j+1] = float64(t0[i][j]), float64(t1[i][j])
				}
			}
			src := fmt.Sprintf("problem %s\nchar 1x? A = %q\nchar 1x? B = %q\n(len(A)+1) x (len(B)+1)\n%s\n", c.name, a, b, c.body)
			ec := emuCase{name: c.name, src: src, opt: Options{Maintain: true}, want: want, ans: want[n-1][2*m-1]}
			if prog := generate(t, c.name+".dp", src, ec.opt); !strings.Contains(prog.Source, c.form) {
				t.Fatalf("the %s kernel has no %s", prog.Kernel, c.form)
			}
			ec.run(t)
		})
	}
}
