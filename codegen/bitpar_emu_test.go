package codegen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/plan"
)

// The bit-parallel kernel run on host threads (testdata/cuda_emu.h) and
// compared with plain DPs written here. One compiled harness per program
// reads its cases from stdin.

// bitparHarness is main() for a bit-parallel program: per case, "n m jlo
// jhi tw strips nch sigma blocks slabs", the Peq words and the codes; it
// prints "ACC acc best bestJ" per case. With bands > 1 it sweeps the
// strips as that many row bands, one launch each, top to bottom, each band's
// last strip passing its links to the next band's first (acc adds up over
// the bands).
const bitparHarness = `
#include <iostream>
int main() {
	int cases;
	std::cin >> cases;
	for (int k = 0; k < cases; ++k) {
		long long n, m, jlo, jhi, tw;
		int strips, nch, sigma, blocks, bands;
		std::cin >> n >> m >> jlo >> jhi >> tw >> strips >> nch >> sigma >> blocks >> bands;
		std::vector<unsigned long long> peq((size_t)sigma * 32 * strips);
		for (auto &x : peq)
			std::cin >> x;
		std::vector<unsigned long long> codes8(((size_t)nch * BP_CW + 8) / 8);
		for (size_t j = 0; j < codes8.size() * 8; ++j) {
			unsigned c;
			std::cin >> c;
			((unsigned char *)codes8.data())[j] = (unsigned char)c;
		}
		unsigned long long acc = 0;
		long long track[2] = {-7, -7};
		std::vector<std::vector<unsigned>> border(bands + 1, std::vector<unsigned>(nch + 1));
		std::vector<int> count(bands + 1);
		for (int k = 0; k < bands; ++k) {
			const int s0 = strips * k / bands, s1 = strips * (k + 1) / bands;
			std::vector<unsigned> cbuf(2 * (size_t)nch);
			std::vector<int> prog(strips + 2);
			emu_launch(blocks, BP_WARPS * 32, [&] {
				dp_bitpar(peq.data(), (const unsigned char *)codes8.data(), cbuf.data(), prog.data(), prog.data() + strips + 1, &acc, track, n, m,
					strips, nch, tw, jlo, jhi, s0, s1, k > 0 ? border[k].data() : 0, k > 0 ? &count[k] : 0,
					k < bands - 1 ? border[k + 1].data() : 0, k < bands - 1 ? &count[k + 1] : 0);
			});
		}
		printf("ACC %lld %lld %lld\n", (long long)acc, track[0], track[1]);
	}
	return 0;
}
`

// bitparCase is one instance and what the kernel must give.
type bitparCase struct {
	a, b     []int64
	jlo, jhi int64 // Track: the columns of row n the answer ranges over
}

// refBitpar is the last row of the plain DP of kind for a (rows) and b.
func refBitpar(kind plan.SpecialKind, a, b []int64) []int64 {
	n, m := len(a), len(b)
	prev, cur := make([]int64, m+1), make([]int64, m+1)
	for j := range prev {
		if kind != plan.BitLCS {
			prev[j] = int64(j)
		}
	}
	for i := 1; i <= n; i++ {
		cur[0] = 0
		if kind != plan.BitLCS {
			cur[0] = int64(i)
		}
		for j := 1; j <= m; j++ {
			match := a[i-1] == b[j-1]
			switch kind {
			case plan.BitLCS:
				if match {
					cur[j] = prev[j-1] + 1
				} else {
					cur[j] = max(prev[j], cur[j-1])
				}
			case plan.BitIndel:
				if match {
					cur[j] = prev[j-1]
				} else {
					cur[j] = min(prev[j], cur[j-1]) + 1
				}
			default:
				sub := prev[j-1]
				if !match {
					sub++
				}
				cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
			}
		}
		prev, cur = cur, prev
	}
	return prev
}

func randChars(r *rand.Rand, n, sigma int) []int64 {
	s := make([]int64, n)
	for k := range s {
		s[k] = int64('A' + r.IntN(sigma))
	}
	return s
}

func TestEmulatedBitpar(t *testing.T) {
	emuCompiler(t)
	seed := uint64(rand.Int64())
	if s := os.Getenv("DPGPU_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (DPGPU_SEED)", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	sizes := [][2]int{{1, 1}, {1, 63}, {63, 1}, {64, 64}, {65, 63}, {63, 65}, {65, 65}, {4097, 65}, {64, 4097}, {2049, 200}, {4200, 100}}
	if testing.Short() {
		sizes = [][2]int{{1, 1}, {64, 65}, {2049, 100}}
	}
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
		for _, sigma := range []int{2, 3, 4, 20} {
			for _, track := range []bool{false, true} {
				for _, cw := range []int{8, 16} {
					name := fmt.Sprintf("%s/sigma%d/track=%v/cw%d", kind, sigma, track, cw)
					// Each subtest its own stream: they run in parallel.
					r := rand.New(rand.NewPCG(seed, r.Uint64()))
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						var cases []bitparCase
						for q, sz := range sizes {
							// Every other B has a character A lacks.
							c := bitparCase{a: randChars(r, sz[0], sigma), b: randChars(r, sz[1], sigma+q%2), jlo: 0, jhi: int64(sz[1])}
							if track && sz[1] > 2 {
								// A part of the last row as well as all of it.
								cases = append(cases, c)
								c.jlo, c.jhi = 1+r.Int64N(int64(sz[1]-1)), int64(sz[1]-1)
							}
							cases = append(cases, c)
						}
						// Sigma of the program: the characters of A (B may hold others).
						checkBitpar(t, kind, track, cw, cases)
					})
				}
			}
		}
	}
}

// checkBitpar runs cases through the programs they need (one per Sigma
// class: registers or shared tables) with cw columns a step and compares
// with refBitpar.
func checkBitpar(t *testing.T, kind plan.SpecialKind, track bool, cw int, cases []bitparCase) {
	checkBitparBands(t, kind, track, cw, cases, 1)
}

// checkBitparBands is checkBitpar with the strips swept in row bands.
func checkBitparBands(t *testing.T, kind plan.SpecialKind, track bool, cw int, cases []bitparCase, bands int) {
	t.Helper()
	bySigma := map[int][]int{}
	packed := make([]BitparInput, len(cases))
	for k, c := range cases {
		packed[k] = PackBitpar(c.a, c.b, cw)
		bySigma[packed[k].Sigma] = append(bySigma[packed[k].Sigma], k)
	}
	for sigma, idx := range bySigma {
		prog, err := GenerateBitpar("emu", Bitpar{Kind: kind, Sigma: sigma, Track: track, CW: cw, Warps: 2, Bands: bands > 1})
		if err != nil {
			t.Fatal(err)
		}
		var in strings.Builder
		fmt.Fprintln(&in, len(idx))
		for _, k := range idx {
			c, p := cases[k], packed[k]
			n, m := int64(len(c.a)), int64(len(c.b))
			tw := (n - 1) / 64
			fmt.Fprintf(&in, "%d %d %d %d %d %d %d %d %d %d\n", n, m, c.jlo, c.jhi, tw, p.Strips, p.Chunks, p.Sigma, 2, bands)
			for _, w := range p.Peq {
				fmt.Fprintf(&in, "%d ", w)
			}
			in.WriteByte('\n')
			for _, b := range p.Codes {
				fmt.Fprintf(&in, "%d ", b)
			}
			in.WriteByte('\n')
		}
		out := runEmuInput(t, prog.Name, prog.Source+bitparHarness, in.String())
		lines := strings.Fields(out)
		if len(lines) != 4*len(idx) {
			t.Fatalf("harness printed %q", out)
		}
		for q, k := range idx {
			c := cases[k]
			n, m := int64(len(c.a)), int64(len(c.b))
			f := lines[4*q : 4*q+4]
			acc, _ := strconv.ParseInt(f[1], 10, 64)
			best, _ := strconv.ParseInt(f[2], 10, 64)
			bestJ, _ := strconv.ParseInt(f[3], 10, 64)
			row := refBitpar(kind, c.a, c.b)
			what := fmt.Sprintf("%dx%d sigma %d", n, m, sigma)
			if got := BitparAnswer(kind, n, m, acc); got != row[m] {
				t.Errorf("%s: cell[n][m] = %d, want %d", what, got, row[m])
			}
			if !track {
				continue
			}
			wantJ := c.jlo
			for j := c.jlo; j <= c.jhi; j++ {
				if (kind == plan.BitLCS && row[j] > row[wantJ]) || (kind != plan.BitLCS && row[j] < row[wantJ]) {
					wantJ = j
				}
			}
			if best != row[wantJ] || bestJ != wantJ {
				t.Errorf("%s: best of row n over columns %d..%d = %d at %d, want %d at %d", what, c.jlo, c.jhi, best, bestJ, row[wantJ], wantJ)
			}
		}
	}
}

// TestEmulatedBitparBands sweeps the bit-parallel kernel's strips in 2 and
// 3 row bands, each a launch whose first strip takes the links of the band
// above, and compares with the plain DP: LCS, Levenshtein and indel, the
// last cell and (tracking row n) the best of the last row; bands of one
// strip and empty bands (more bands than strips) included.
func TestEmulatedBitparBands(t *testing.T) {
	emuCompiler(t)
	seed := uint64(rand.Int64())
	if s := os.Getenv("DPGPU_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (DPGPU_SEED)", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	sizes := [][2]int{{1, 64}, {63, 65}, {2049, 100}, {4097, 33}, {6200, 300}}
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
		for _, bands := range []int{2, 3} {
			for _, track := range []bool{false, true} {
				r := rand.New(rand.NewPCG(seed, r.Uint64()))
				t.Run(fmt.Sprintf("%s/bands%d/track=%v", kind, bands, track), func(t *testing.T) {
					t.Parallel()
					var cases []bitparCase
					for q, sz := range sizes {
						cases = append(cases, bitparCase{a: randChars(r, sz[0], 4), b: randChars(r, sz[1], 4+q%2), jhi: int64(sz[1])})
					}
					checkBitparBands(t, kind, track, 16, cases, bands)
				})
			}
		}
	}
}
