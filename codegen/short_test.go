package codegen

import (
	"math"
	"strings"
	"testing"
)

// The tests of this file run `cell: short` programs on host threads (see
// emu_test.go): 16-bit cells widened to int as they are read and narrowed,
// with the overflow check of docs/language.md §6.1, as they are stored.

func shortLCS(a, b string) string {
	src := lcsText(a, b)
	nl := strings.IndexByte(src, '\n')
	return src[:nl+1] + "cell: short\n" + src[nl+1:]
}

func TestGenerateShort(t *testing.T) {
	prog := generate(t, "lcs.dp", shortLCS("ACGT", "CGTA"), Options{})
	for _, want := range []string{"#define DP_CELL_T short\n", "#define DP_CELL_WIDEN 1\n", "#define DP_CELL_POS 32767LL\n"} {
		if !strings.Contains(prog.Source, want) {
			t.Errorf("no %q in the source", strings.TrimSpace(want))
		}
	}
	if prog.Cell.Size() != 2 {
		t.Errorf("cell %s", prog.Cell)
	}
}

func TestEmulatedShort(t *testing.T) {
	emuCompiler(t)
	a, b := randSeq(70, 11), randSeq(45, 12)
	want := refLCS(a, b)
	var cases []emuCase
	for _, kern := range []KernelKind{KernelStrip, KernelTile} {
		c := emuCase{name: "short-lcs-" + string(kern), src: shortLCS(a, b), kern: kern, want: want, ans: want[70][45],
			opt: Options{Kernel: kern, RowsPerThread: 1, StripWarps: 2, TileH: 16, TileW: 16}}
		cases = append(cases, c, c.kept())
	}
	// A region maximum over short cells, one of them inf (the sentinel).
	cases = append(cases, emuCase{name: "short-region-inf", src: `problem reg
cell: short
4 x 5
cell[i][j] = inf               when i == 2 && j == 3
           | i * 100 - j       otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`, ans: 32767, best: [2]int64{2, 3}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
	// A region sum over short cells, one of them inf: the partials take the
	// sentinel as long's inf (DP_CELL_WIDEN) and say so in their flags.
	t.Run("short-region-sum-inf", func(t *testing.T) {
		t.Parallel()
		prog := generate(t, "sum.dp", `problem sum
cell: short
4 x 5
cell[i][j] = inf               when i == 2 && j == 3
           | i * 100 - j       otherwise
answer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))
`, Options{})
		if prog.Answer != AnswerRegion {
			t.Fatalf("answer kind %v", prog.Answer)
		}
		if res := emulate(t, prog); res.err[0] != 0 {
			t.Fatalf("device error %v", res.err)
		}
	})
}

func TestEmulatedShortArithmetic(t *testing.T) {
	emuCompiler(t)
	cases := []arithCase{
		// 2^15 does not fit: an overflow at the store, with the value.
		{name: "short-doubling", src: `problem dbl
cell: short
20 x 1
cell[i][j] = 2 * cell[i-1][j]   when i > 0
           | 1                  otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{15, 0}, ops: [2]int64{32768, 0}},
		// 32,767 is inf, never a finite value; 32,766 fits.
		{name: "short-max", src: `problem max
cell: short
2 x 1
cell[i][j] = cell[i-1][j] + 16384   when i > 0
           | 16383                  otherwise
`, code: ErrOverflow, kind: SiteOverflow, at: [2]int64{1, 0}, ops: [2]int64{32767, 0}},
		{name: "short-max-1", src: `problem max
cell: short
2 x 1
cell[i][j] = cell[i-1][j] + 16383   when i > 0
           | 16383                  otherwise
`, ans: 32766, ansI: 32766},
		// inf read from a short cell is int's inf: inf + 1 stays inf.
		{name: "short-inf", src: `problem inf
cell: short
3 x 1
cell[i][j] = cell[i-1][j] + 1   when i > 0
           | inf                otherwise
`, ans: 32767, ansI: 32767},
		// A double that does not fit, reported with its bits.
		{name: "short-from-double", src: `problem fd
cell: short
double 1x1 X = 40000.5
2 x 1
cell[i][j] = X[0]   when i > 0
           | 1      otherwise
`, code: ErrOverflow, kind: SiteNaN, at: [2]int64{1, 0}, ops: [2]int64{int64(math.Float64bits(40000.5)), 0}},
		// short inputs promote to int.
		{name: "short-input", src: `problem in
cell: short
short 1x3 W = -32766, 5, 32766
3 x 1
cell[i][j] = cell[i-1][j] + W[i] + W[0]   when i > 0
           | 100                          otherwise
`, ans: 100 + 5 - 32766 + 32766 - 32766, ansI: 100 + 5 - 32766 + 32766 - 32766},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}
