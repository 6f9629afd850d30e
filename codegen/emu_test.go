package codegen

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/analysis"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// The tests of this file run the generated kernels on host threads with
// testdata/cuda_emu.h (a small emulation of blocks, warps, shuffles and
// barriers) and compare what they compute with plain-Go references. They
// need g++ with C++20 and skip without it. The harness written here plays
// the executor's part: the launch sequence of each kernel.

// emuResult is what a harness prints.
type emuResult struct {
	ans   float64 // dp_ans
	ansI  int64   // dp_ans exactly, for integer cells
	err   [6]int64
	caps  []float64
	parts [][4]float64 // idx, iv, fv, any
	grid  []float64    // line and tile kernels: every cell, row-major
}

func emuCompiler(t *testing.T) string {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++ to run the emulated kernels")
	}
	return gxx
}

func cLiteral(in *Input) string {
	var b strings.Builder
	if in.In.T.IsFloat() {
		for k, v := range in.In.F {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	} else {
		for k, v := range in.In.I {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(v, 10))
			if in.In.T == ir.Long {
				b.WriteString("LL")
			}
		}
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

// harness writes main() for prog.
func harness(prog *Program) string {
	var b strings.Builder
	b.WriteString("\nint main() {\n")
	b.WriteString(inputSetup(prog))
	b.WriteString("\tstatic dp_part_t parts[4096];\n\tmemset(parts, 0, sizeof parts);\n")
	b.WriteString(harnessRest(prog))
	return b.String()
}

// inputSetup fills the program's inputs (constant or global memory).
func inputSetup(prog *Program) string {
	var b strings.Builder
	for k := range prog.Inputs {
		in := &prog.Inputs[k]
		et := elemCType(in)
		fmt.Fprintf(&b, "\tstatic const %s in%d[] = {%s};\n", et, k, cLiteral(in))
		switch in.Place {
		case Constant:
			fmt.Fprintf(&b, "\tmemcpy(%s, in%d, sizeof in%d);\n", in.Symbol, k, k)
		case Global:
			fmt.Fprintf(&b, "\t%s = in%d;\n", in.Symbol, k)
		default:
			b.WriteString("\tfprintf(stderr, \"textures are not emulated\\n\"); return 1;\n")
		}
	}
	return b.String()
}

func harnessRest(prog *Program) string {
	var b strings.Builder
	b.WriteString("\tconst long long R = DP_ROWS, C = DP_COLS;\n\tstd::vector<cell_t> grid(R * C);\n\tbool haveGrid = false;\n")
	switch prog.Kernel {
	case KernelLine:
		fmt.Fprintf(&b, "#define DP_EMU_LEFT %dLL\n#define DP_EMU_RIGHT %dLL\n", prog.LineLeft, prog.LineRight)
		b.WriteString(`	std::vector<cell_t> ring(DP_NLINES * DP_WIDTH);
	const unsigned T = DP_LINE_THREADS, blocks = (unsigned)((DP_WIDTH + T - 1) / T);
	for (long long L = 0; L < DP_NLINES; ++L)
		emu_launch(blocks, T, [&] { dp_line(L, ring.data(), (int)DP_NLINES, parts); });
	{
		// The same lines in runs of dp_lines (grid barriers between lines):
		// line 0 alone, then runs of 1, 2, 3, ... lines; every cell equal,
		// or, where dp_line failed, a failure of the same kind (dp_lines
		// stops at the barrier after it).
		const dp_error_t first = dp_err;
		memset((void *)&dp_err, 0, sizeof dp_err);
		std::vector<cell_t> ring2(DP_NLINES * DP_WIDTH);
		static dp_part_t parts2[4096];
		int bar[4];
		for (long long L = 0, n = 1; L < DP_NLINES; L += n, ++n) {
			long long end = L + n < DP_NLINES ? L + n : DP_NLINES;
			memset(bar, 0, sizeof bar);
			emu_launch_coop(blocks, T, [&] { dp_lines(L, end, ring2.data(), (int)DP_NLINES, parts2, bar); });
		}
		if (first.code != dp_err.code) {
			fprintf(stderr, "dp_lines failed with code %d, dp_line with %d\n", dp_err.code, first.code);
			return 3;
		}
		if (first.code == 0 && memcmp(ring.data(), ring2.data(), ring.size() * sizeof(cell_t)) != 0) {
			fprintf(stderr, "dp_lines computed other cells than dp_line\n");
			return 3;
		}
		memcpy((void *)&dp_err, &first, sizeof first);
	}
	{
		// The same lines on one block of 32 threads: a thread strides
		// over several cells of a line. Every cell equal, or a failure of
		// the same kind.
		const dp_error_t first = dp_err;
		memset((void *)&dp_err, 0, sizeof dp_err);
		std::vector<cell_t> ring4(DP_NLINES * DP_WIDTH);
		static dp_part_t parts4[4096];
		for (long long L = 0; L < DP_NLINES; ++L)
			emu_launch(1, 32, [&] { dp_line(L, ring4.data(), (int)DP_NLINES, parts4); });
		if (first.code != dp_err.code) {
			fprintf(stderr, "dp_line on one block failed with code %d, on %u with %d\n", dp_err.code, blocks, first.code);
			return 3;
		}
		if (first.code == 0 && memcmp(ring.data(), ring4.data(), ring.size() * sizeof(cell_t)) != 0) {
			fprintf(stderr, "dp_line on one block computed other cells than on %u\n", blocks);
			return 3;
		}
		memcpy((void *)&dp_err, &first, sizeof first);
	}
#if DP_CHAIN && defined(EMU_CHAIN_STEPS)
	{
		// The same lines by residue classes (dp_linechain) at each line's
		// step and increment (EMU_CHAIN_STEPS, EMU_CHAIN_INCS; step 0 where
		// the executor runs dp_line), in 1, 2, 3, 7 and 40 segments, on one
		// block of 32 threads and on three, in one launch (mode 0) and, where
		// the reduction is a case's whole value (EMU_CHAIN_ALONE), in two
		// (modes 1 and 2): every cell equal, or a failure of the same kind.
		static const long long steps[] = EMU_CHAIN_STEPS, incs[] = EMU_CHAIN_INCS;
		static long long agg[2 * DP_WIDTH + 16];
		const dp_error_t first = dp_err;
		for (int two = 0; two <= EMU_CHAIN_ALONE; ++two)
			for (long long segs : {1LL, 2LL, 3LL, 7LL, 40LL})
				for (unsigned nb : {1u, 3u}) {
					memset((void *)&dp_err, 0, sizeof dp_err);
					std::vector<cell_t> ring7(DP_NLINES * DP_WIDTH);
					static dp_part_t parts7[4096];
					for (long long L = 0; L < DP_NLINES; ++L) {
						const long long real = DP_BACK ? DP_NLINES - 1 - L : L; // steps and incs are by row
						if (steps[real] <= 0) {
							emu_launch(nb, 32, [&] { dp_line(L, ring7.data(), (int)DP_NLINES, parts7); });
							continue;
						}
						for (int mode : {two ? 1 : 0, two ? 2 : -1}) {
							if (mode < 0)
								continue;
							if (mode == 1)
								for (auto &x : agg)
									x = 12345; // stale sums of another line: mode 2 must read only mode 1's
							emu_launch(nb, 32, [&] { dp_linechain(L, ring7.data(), (int)DP_NLINES, parts7, steps[real], segs, mode, incs[real], EMU_CHAIN_MAX, EMU_CHAIN_FHI, agg); });
						}
					}
					if (first.code != dp_err.code) {
						fprintf(stderr, "dp_linechain (%s, %lld segments, %u blocks) failed with code %d, dp_line with %d\n", two ? "two launches" : "one launch", segs, nb, dp_err.code, first.code);
						return 3;
					}
					if (first.code == 0 && memcmp(ring.data(), ring7.data(), ring.size() * sizeof(cell_t)) != 0) {
						fprintf(stderr, "dp_linechain (%s, %lld segments, %u blocks) computed other cells than dp_line\n", two ? "two launches" : "one launch", segs, nb);
						return 3;
					}
				}
		memcpy((void *)&dp_err, &first, sizeof first);
	}
#endif
	if (DP_EMU_LEFT >= 0 && DP_EMU_RIGHT >= 0) {
		// The same lines in passes of k lines in shared memory
		// (dp_linepass), tiles of a third and a fifth of the line, passes
		// of 1, 2, 3, ... lines and of 4 throughout; the ring holds only
		// the lines the passes write back. Every cell of a pass's last
		// DP_REACH lines equal (the only ones it writes), or a failure
		// of the same kind.
		const dp_error_t first = dp_err;
		for (int cut = 3; cut <= 5; cut += 2)
			for (int grow = 0; grow < 2; ++grow) {
				memset((void *)&dp_err, 0, sizeof dp_err);
				std::vector<cell_t> ring5(DP_NLINES * DP_WIDTH);
				static dp_part_t parts5[4096];
				memset(parts5, 0, sizeof parts5);
				const long long tw = (DP_WIDTH + cut - 1) / cut;
				const unsigned nb = (unsigned)((DP_WIDTH + tw - 1) / tw);
				bool same = true;
				for (long long L = 0, n = 1; L < DP_NLINES; L += n, n = grow ? n + 1 : 4) {
					const int k = (int)(L + n < DP_NLINES ? n : DP_NLINES - L);
					const long long sw = tw + k * (DP_EMU_LEFT + DP_EMU_RIGHT);
					if ((long long)(DP_REACH + 1) * sw * (long long)sizeof(cell_t) > (long long)sizeof dp_emu_smem) {
						fprintf(stderr, "a pass of %d lines does not fit the emulated shared memory\n", k);
						return 3;
					}
					emu_launch(nb, T, [&] { dp_linepass(L, k, ring5.data(), (int)DP_NLINES, parts5, tw, sw, DP_EMU_LEFT, DP_EMU_RIGHT, 0LL, (long long)DP_WIDTH); });
					for (int d = 0; d < DP_REACH && d < k; ++d) {
						const long long Ld = L + k - 1 - d;
						if (memcmp(ring.data() + Ld * DP_WIDTH, ring5.data() + Ld * DP_WIDTH, DP_WIDTH * sizeof(cell_t)) != 0)
							same = false;
					}
				}
				if (first.code != dp_err.code) {
					fprintf(stderr, "dp_linepass (tiles of %lld, passes %s) failed with code %d, dp_line with %d\n", tw, grow ? "growing" : "of 4", dp_err.code, first.code);
					return 3;
				}
				if (first.code == 0 && !same) {
					fprintf(stderr, "dp_linepass (tiles of %lld, passes %s) computed other cells than dp_line\n", tw, grow ? "growing" : "of 4");
					return 3;
				}
#if DP_ANS_KIND == 2 && DP_REG_OP != 2
				// The region's best over the blocks' partials (which fold
				// the widened cells too): dp_line's.
				if (first.code == 0) {
					dp_part_t want, got;
					dp_part_init(want);
					dp_part_init(got);
					for (int k = 0; k < 4096; ++k) {
						dp_part_merge(want, parts[k]);
						dp_part_merge(got, parts5[k]);
					}
					if (want.any != got.any || want.idx != got.idx || want.iv != got.iv || want.fv != got.fv) {
						fprintf(stderr, "dp_linepass (tiles of %lld, passes %s): region best %g at %lld, dp_line's %g at %lld\n", tw, grow ? "growing" : "of 4",
							(double)DP_PART_V(got), got.idx, (double)DP_PART_V(want), want.idx);
						return 3;
					}
				}
#endif
			}
		// Slabs (backend/gpu/lineslabs.go): the line cut into 2 and 3
		// slabs, each with a ring of its own and launches over its own
		// positions (qb .. qe-1), the positions a slab's next pass reads
		// around it copied from the other slabs' rings after each pass;
		// passes of 4 lines. Every slab's own cells of a pass's last
		// DP_REACH lines equal dp_line's.
		for (int ns = 2; ns <= 3 && first.code == 0; ++ns) {
			memset((void *)&dp_err, 0, sizeof dp_err);
			std::vector<std::vector<cell_t>> rings(ns, std::vector<cell_t>(DP_NLINES * DP_WIDTH));
			static dp_part_t parts6[4096];
			long long qb[4];
			for (int g = 0; g <= ns; ++g)
				qb[g] = DP_WIDTH * g / ns;
			bool same = true;
			for (long long L = 0; L < DP_NLINES; L += 4) {
				const int k = (int)(L + 4 < DP_NLINES ? 4 : DP_NLINES - L);
				for (int g = 0; g < ns; ++g) {
					const long long tw = (qb[g + 1] - qb[g] + 1) / 2 > 0 ? (qb[g + 1] - qb[g] + 1) / 2 : 1;
					const unsigned nb = (unsigned)((qb[g + 1] - qb[g] + tw - 1) / tw);
					const long long sw = tw + k * (DP_EMU_LEFT + DP_EMU_RIGHT);
					if (nb > 0)
						emu_launch(nb, T, [&] { dp_linepass(L, k, rings[g].data(), (int)DP_NLINES, parts6, tw, sw, DP_EMU_LEFT, DP_EMU_RIGHT, qb[g], qb[g + 1]); });
				}
				const long long next = L + k + 4 < DP_NLINES ? 4 : DP_NLINES - L - k;
				for (int d = 0; d < DP_REACH && d < k; ++d) {
					const long long Ld = L + k - 1 - d;
					for (int g = 0; g < ns; ++g) {
						if (memcmp(ring.data() + Ld * DP_WIDTH + qb[g], rings[g].data() + Ld * DP_WIDTH + qb[g], (qb[g + 1] - qb[g]) * sizeof(cell_t)) != 0)
							same = false;
						// What slab g's next pass reads around its own.
						const long long lo = qb[g] - next * DP_EMU_LEFT > 0 ? qb[g] - next * DP_EMU_LEFT : 0;
						const long long hi = qb[g + 1] + next * DP_EMU_RIGHT < DP_WIDTH ? qb[g + 1] + next * DP_EMU_RIGHT : DP_WIDTH;
						for (int h = 0; h < ns; ++h) {
							const long long a = lo > qb[h] ? lo : qb[h], b = hi < qb[h + 1] ? hi : qb[h + 1];
							if (h != g && a < b)
								memcpy(rings[g].data() + Ld * DP_WIDTH + a, rings[h].data() + Ld * DP_WIDTH + a, (b - a) * sizeof(cell_t));
						}
					}
				}
			}
			if (dp_err.code != 0 || !same) {
				fprintf(stderr, "dp_linepass in %d slabs: code %d, %s\n", ns, dp_err.code, same ? "the same cells" : "other cells than dp_line");
				return 3;
			}
		}
		memcpy((void *)&dp_err, &first, sizeof first);
	}
	{
		// The same lines in runs of 1, 2, 3, ... lines dealt to tiles of
		// columns (dp_linetiles): every block at once, one a tile (mode
		// 2), and, where the cells read only one side, two blocks taking
		// five tiles by tickets (mode 0 or 1); a line at a time and three
		// (each tile also computing its neighbours' cells that its later
		// lines read). Every cell equal, or a failure of the same kind.
		const dp_error_t first = dp_err;
		auto tiles = [&](int mode, long long tw, unsigned grid, int depth) -> bool {
			memset((void *)&dp_err, 0, sizeof dp_err);
			std::vector<cell_t> ring3(DP_NLINES * DP_WIDTH);
			static dp_part_t parts3[4096];
			const int nt = (int)((DP_WIDTH + tw - 1) / tw);
			const int lt = (int)((depth * DP_EMU_LEFT + tw - 1) / tw), rt = (int)((depth * DP_EMU_RIGHT + tw - 1) / tw);
			std::vector<int> flags(nt + 1);
			for (long long L = 0, n = 1; L < DP_NLINES; L += n, ++n) {
				long long end = L + n < DP_NLINES ? L + n : DP_NLINES;
				std::fill(flags.begin(), flags.end(), 0);
				emu_launch_coop(mode == 2 ? (unsigned)nt : grid, T, [&] { dp_linetiles(L, end, ring3.data(), (int)DP_NLINES, parts3, flags.data(), flags.data() + nt, tw, nt, lt, rt, mode, depth, DP_EMU_LEFT, DP_EMU_RIGHT); });
			}
			if (first.code != dp_err.code) {
				fprintf(stderr, "dp_linetiles (mode %d, %d tiles, depth %d) failed with code %d, dp_line with %d\n", mode, nt, depth, dp_err.code, first.code);
				return false;
			}
			if (first.code == 0 && memcmp(ring.data(), ring3.data(), ring.size() * sizeof(cell_t)) != 0) {
				fprintf(stderr, "dp_linetiles (mode %d, %d tiles, depth %d) computed other cells than dp_line\n", mode, nt, depth);
				return false;
			}
			return true;
		};
		if (DP_EMU_LEFT >= 0 && DP_EMU_RIGHT >= 0) {
			for (int depth = 1; depth <= 3; depth += 2) {
				if (!tiles(2, (DP_WIDTH + 2) / 3, 0, depth))
					return 3;
				if (DP_EMU_RIGHT == 0 && !tiles(0, (DP_WIDTH + 4) / 5, 2, depth))
					return 3;
				if (DP_EMU_LEFT == 0 && !tiles(1, (DP_WIDTH + 4) / 5, 2, depth))
					return 3;
			}
		}
		memcpy((void *)&dp_err, &first, sizeof first);
	}
	for (long long L = 0; L < DP_NLINES; ++L)
		for (long long q = 0; q < DP_WIDTH; ++q) {
			long long real = DP_BACK ? DP_NLINES - 1 - L : L;
			long long i = DP_SWEEP_ROWS ? real : q, j = DP_SWEEP_ROWS ? q : real;
			grid[i * C + j] = ring[L * DP_WIDTH + q];
		}
	haveGrid = true;
`)
	case KernelTile:
		fmt.Fprintf(&b, "\tconst long long nTI = %d, nTJ = %d;\n", prog.TilesI, prog.TilesJ)
		b.WriteString(captureDecls(prog))
		b.WriteString(`	std::vector<cell_t> H(3 * (DP_PI + 1) * C), V((DP_PJ + 1) * R);
	std::vector<cell_t> stage((nTI < nTJ ? nTI : nTJ) * DP_TH * DP_TW);
	for (long long d = 0; d < nTI + nTJ - 1; ++d) {
		long long tiLo = d - (nTJ - 1) > 0 ? d - (nTJ - 1) : 0, tiHi = d < nTI - 1 ? d : nTI - 1;
		emu_launch((unsigned)(tiHi - tiLo + 1), DP_TH, [&] { dp_tile((int)d, (int)tiLo, H.data(), V.data(), stage.data(), parts, cap, ncap, capv); });
		for (long long ti = tiLo; ti <= tiHi; ++ti) {
			long long tj = d - ti;
			for (long long r = 0; r < DP_TH; ++r)
				for (long long c = 0; c < DP_TW; ++c) {
					long long ip = ti * DP_TH + r, jp = tj * DP_TW + c;
					if (ip >= R || jp >= C)
						continue;
					long long i = DP_BACK ? R - 1 - ip : ip, j = DP_BACK ? C - 1 - jp : jp;
					grid[i * C + j] = stage[(ti - tiLo) * DP_TH * DP_TW + r * DP_TW + c];
				}
		}
	}
	haveGrid = true;
	printf("CAP");
	for (int k = 0; k < ncap; ++k)
		printf(" %.17g", (double)capv[k]);
	printf("\n");
`)
	case KernelStrip:
		if prog.KeepRows {
			b.WriteString(keptTableC(prog))
		}
		b.WriteString(`	std::vector<cell_t> bnd(2 * (DP_PI + 1) * C);
	std::vector<int> prog(DP_NSTRIPS + 2);
#if DP_KEEP
	// A host thread copies strips out of two slots as the kernel sets their
	// done flags, and frees the slots, as backend/gpu does.
	const long long nslots = DP_NSTRIPS < 2 ? DP_NSTRIPS : 2;
	std::vector<cell_t> keep(nslots * DP_BH * C);
	std::vector<int> done(DP_NSTRIPS);
	int freed = 0;
	std::thread host([&] {
		for (long long s = 0; s < DP_NSTRIPS; ++s) {
			while (__atomic_load_n(&done[s], __ATOMIC_ACQUIRE) == 0)
				std::this_thread::yield();
			const long long end = (s + 1) * DP_BH < R ? (s + 1) * DP_BH : R;
			const long long lo = DP_BACK ? R - end : s * DP_BH, hi = DP_BACK ? R - s * DP_BH : end;
			memcpy(&grid[lo * C], &keep[(s % nslots) * DP_BH * C], (hi - lo) * C * sizeof(cell_t));
			__atomic_store_n(&freed, (int)(s + 1), __ATOMIC_RELEASE);
		}
	});
	emu_launch(2, DP_STRIP_WARPS * 32, [&] { dp_strip(bnd.data(), prog.data(), prog.data() + DP_NSTRIPS + 1, parts, keep.data(), nslots, &freed, done.data(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); });
	host.join();
	haveGrid = true;
#elif DP_KEEPROWS
	// Every row kept, in reverse order of rows: each kept row is compared;
	// and with DP_KEEPCOLS the columns of keptCols (Go's KeptTable), which
	// overwrite the grid's cells in them: each is compared too.
	std::vector<int> slot(keptTable, keptTable + sizeof keptTable / sizeof keptTable[0]);
	std::vector<cell_t> rows(R * C + 1);
	emu_launch(2, DP_STRIP_WARPS * 32, [&] { dp_strip(bnd.data(), prog.data(), prog.data() + DP_NSTRIPS + 1, parts, 0, 0, 0, 0, slot.data(), rows.data(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); });
	for (long long i = 0; i < R; ++i)
		memcpy(&grid[i * C], &rows[slot[i] * C], C * sizeof(cell_t));
#if DP_KEEPCOLS
	{
		// Again, keeping a few rows and columns, which overwrite theirs.
		std::fill(bnd.begin(), bnd.end(), (cell_t)0);
		std::fill(prog.begin(), prog.end(), 0);
		memset(parts, 0, sizeof parts);
		std::vector<int> slot2(keptTable2, keptTable2 + sizeof keptTable2 / sizeof keptTable2[0]);
		std::vector<cell_t> kept(nKeptRows2 * C + nKeptCols * R + 1);
		emu_launch(2, DP_STRIP_WARPS * 32, [&] { dp_strip(bnd.data(), prog.data(), prog.data() + DP_NSTRIPS + 1, parts, 0, 0, 0, 0, slot2.data(), kept.data(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); });
		for (long long k = 0; k < nKeptRows2; ++k)
			memcpy(&grid[keptRows2[k] * C], &kept[k * C], C * sizeof(cell_t));
		for (long long k = 0; k < nKeptCols; ++k)
			for (long long i = 0; i < R; ++i)
				grid[i * C + keptCols[k]] = kept[nKeptRows2 * C + k * R + i];
	}
#endif
	haveGrid = true;
#elif DP_SLABS
	// EMU_SLABS slabs of about equal width, each a launch, left to right
	// (the emulation's shared memory is one per kernel, so the launches
	// cannot overlap here: the flags are set before a slab waits on them;
	// on the device they overlap).
	{
		const int NS = EMU_SLABS;
		std::vector<long long> c0(NS + 1);
		for (int k = 0; k <= NS; ++k)
			c0[k] = C * k / NS;
		std::vector<std::vector<cell_t>> bnds(NS), lin(NS + 1);
		std::vector<std::vector<int>> progs(NS), flags(NS + 1);
		for (int k = 0; k < NS; ++k) {
			bnds[k].resize(2 * (DP_PI + 1) * (c0[k + 1] - c0[k]) + 1);
			progs[k].resize(DP_NSTRIPS + 2);
			lin[k].resize(R * (DP_PJ + 1));
			flags[k].resize(DP_NSTRIPS + 1);
		}
		for (int k = 0; k < NS; ++k)
			emu_launch(2, DP_STRIP_WARPS * 32, [&] {
				dp_strip(bnds[k].data(), progs[k].data(), progs[k].data() + DP_NSTRIPS + 1, parts + 64 * k, 0, 0, 0, 0, 0, 0, c0[k],
					c0[k + 1] - c0[k], k > 0 ? lin[k].data() : 0, k > 0 ? flags[k].data() : 0, k < NS - 1 ? lin[k + 1].data() : 0,
					k < NS - 1 ? flags[k + 1].data() : 0, 0, 0, 0, 0, 0, 0, 0);
			});
	}
#elif DP_BANDS
	// EMU_BANDS launches sharing the strips in bands of EMU_CHUNK strips
	// (one launch), or in one band each (several launches, run in order:
	// as with slabs, the emulation cannot overlap launches, and a second
	// round of bands would wait for a later launch).
	{
		const int NB = EMU_BANDS;
		const long long chunk = NB == 1 ? EMU_CHUNK : (DP_NSTRIPS + NB - 1) / NB;
		std::vector<std::vector<cell_t>> bnds(NB), lbnds(NB);
		std::vector<std::vector<int>> progs(NB), lprogs(NB);
		for (int k = 0; k < NB; ++k) {
			bnds[k].resize(2 * (DP_PI + 1) * C);
			lbnds[k].resize(2 * (DP_PI + 1) * C);
			progs[k].resize(DP_NSTRIPS + 2);
			lprogs[k].resize(DP_NSTRIPS + 1);
		}
		for (int k = 0; k < NB; ++k)
			emu_launch(2, DP_STRIP_WARPS * 32, [&] {
				dp_strip(bnds[k].data(), progs[k].data(), progs[k].data() + DP_NSTRIPS + 1, parts + 64 * k, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					0, 0, 0, chunk, NB, k, lbnds[k].data(), lprogs[k].data(), lbnds[(k + 1) % NB].data(), lprogs[(k + 1) % NB].data());
			});
	}
#else
	emu_launch(2, DP_STRIP_WARPS * 32, [&] { dp_strip(bnd.data(), prog.data(), prog.data() + DP_NSTRIPS + 1, parts, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); });
#endif
	printf("CAP");
	for (int k = 0; k < 4; ++k)
		printf(" %.17g", (double)dp_capv[k]);
	printf("\n");
`)
	}
	b.WriteString(`	printf("ANS %.17g\n", (double)dp_ans);
#if !DP_CELL_FLOAT
	printf("ANSI %lld\n", (long long)dp_ans);
#endif
	printf("ERR %d %d %lld %lld %lld %lld\n", dp_err.code, dp_err.site, dp_err.i, dp_err.j, dp_err.a, dp_err.b);
	printf("PARTS");
	for (int k = 0; k < 4096; ++k)
		if (parts[k].any)
			printf(" %lld %lld %.17g", parts[k].idx, parts[k].iv, parts[k].fv);
	printf("\n");
	if (haveGrid) {
		printf("GRID");
		for (long long k = 0; k < R * C; ++k)
			printf(" %.17g", (double)grid[k]);
		printf("\n");
	}
	return 0;
}
`)
	return b.String()
}

// chainDefines gives the harness each row's chain step and increment, as
// backend/gpu's lineChain evaluates them (step 0 where they do not
// evaluate, or the step is below 1), the reduction's op and finite range,
// and whether it is a case's whole value (analysis.ChainAlone).
func chainDefines(t *testing.T, name, src string) string {
	t.Helper()
	p, _ := dptest.Load(t, name, src)
	red := analysis.FirstChain(p)
	if red == nil {
		t.Fatal("a program with a chain, but no chain in its problem")
	}
	ch, ok := analysis.ChainOf(red)
	if !ok {
		t.Fatal("the problem's first chain is not of the chain form")
	}
	var steps, incs strings.Builder
	for i := range p.Rows {
		s, errS := eval.EvalAt(ch.S, i, 0, nil)
		v, errV := eval.EvalAt(ch.V, i, 0, nil)
		if errS != nil || errV != nil || s.I < 1 {
			s.I, v.I = 0, 0
		}
		fmt.Fprintf(&steps, "%dLL, ", s.I)
		fmt.Fprintf(&incs, "%dLL, ", v.I)
	}
	_, fhi := ir.FiniteRange(red.T)
	return fmt.Sprintf("#define EMU_CHAIN_STEPS {%s0LL}\n#define EMU_CHAIN_INCS {%s0LL}\n#define EMU_CHAIN_MAX %d\n#define EMU_CHAIN_FHI %dLL\n#define EMU_CHAIN_ALONE %d\n",
		steps.String(), incs.String(), b2i(red.Op == ir.ReduceMax), fhi, b2i(analysis.ChainAlone(p, red)))
}

// emulate compiles prog with the harness and runs it.
func emulate(t *testing.T, prog *Program) emuResult {
	t.Helper()
	return parseEmu(t, runEmu(t, prog.Name, prog.Source+harness(prog)))
}

// runEmu compiles code, a generated program with its harness, against
// the emulation and returns what it prints.
func runEmu(t *testing.T, name, code string) string {
	t.Helper()
	return runEmuInput(t, name, code, "")
}

// runEmuInput is runEmu with stdin given to the program.
func runEmuInput(t *testing.T, name, code, stdin string) string {
	t.Helper()
	gxx := emuCompiler(t)
	dir := t.TempDir()
	emu, err := filepath.Abs("testdata/cuda_emu.h")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "emu.cc")
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "emu")
	if out, err := exec.Command(gxx, "-std=c++20", "-O1", "-pthread", "-w", "-include", emu, "-x", "c++", src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("compiling the emulated %s: %v\n%s", name, err, out)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the emulated %s: %v\n%s", name, err, stderr.String())
	}
	return stdout.String()
}

// parseEmu reads what a harness printed.
func parseEmu(t *testing.T, out string) emuResult {
	t.Helper()
	var res emuResult
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		nums := make([]float64, len(f)-1)
		for k, s := range f[1:] {
			v, err := strconv.ParseFloat(s, 64)
			switch {
			case err == nil:
			case strings.Contains(s, "nan"):
				v = math.NaN()
			case strings.Contains(s, "inf"):
				v = math.Inf(1)
				if strings.HasPrefix(s, "-") {
					v = math.Inf(-1)
				}
			default:
				t.Fatalf("bad harness output %q", line)
			}
			nums[k] = v
		}
		switch f[0] {
		case "ANS":
			res.ans = nums[0]
		case "ANSI":
			res.ansI, _ = strconv.ParseInt(f[1], 10, 64)
		case "ERR":
			// Exactly: operands may be long values a double cannot hold.
			for k := range res.err {
				if k+1 < len(f) {
					res.err[k], _ = strconv.ParseInt(f[k+1], 10, 64)
				}
			}
		case "CAP":
			res.caps = nums
		case "PARTS":
			for k := 0; k+2 < len(nums); k += 3 {
				res.parts = append(res.parts, [4]float64{nums[k], nums[k+1], nums[k+2], 1})
			}
		case "GRID":
			res.grid = nums
		}
	}
	return res
}

// refLCS is the LCS grid of a and b.
func refLCS(a, b string) [][]float64 {
	g := grid(len(a)+1, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				g[i][j] = g[i-1][j-1] + 1
			default:
				g[i][j] = math.Max(g[i-1][j], g[i][j-1])
			}
		}
	}
	return g
}

func grid(r, c int) [][]float64 {
	g := make([][]float64, r)
	for i := range g {
		g[i] = make([]float64, c)
	}
	return g
}

func compareGrid(t *testing.T, name string, got []float64, want [][]float64, tol float64) {
	t.Helper()
	if len(got) != len(want)*len(want[0]) {
		t.Fatalf("%s: grid has %d cells, want %dx%d", name, len(got), len(want), len(want[0]))
	}
	bad := 0
	for i := range want {
		for j := range want[i] {
			g, w := got[i*len(want[0])+j], want[i][j]
			if !close(g, w, tol) {
				if bad < 5 {
					t.Errorf("%s: cell[%d][%d] = %v, want %v", name, i, j, g, w)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d cells differ", name, bad)
	}
}

func close(a, b, tol float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func randSeq(n int, seed uint64) string {
	b := make([]byte, n)
	x := seed*6364136223846793005 + 1442695040888963407
	for k := range b {
		x = x*6364136223846793005 + 1442695040888963407
		b[k] = "ACGT"[x>>62]
	}
	return string(b)
}

func lcsText(a, b string) string {
	return fmt.Sprintf(`problem lcs
char 1x? A = %q
char 1x? B = %q
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                                  when i == 0 || j == 0
           | cell[i-1][j-1] + 1                 when A[i-1] == B[j-1]
           | max(cell[i-1][j], cell[i][j-1])    otherwise
`, a, b)
}

func TestEmulatedLCS(t *testing.T) {
	emuCompiler(t)
	sizes := [][2]int{{0, 0}, {1, 40}, {40, 1}, {16, 32}, {63, 63}, {63, 127}, {100, 70}}
	if os.Getenv("DPGPU_EMU_ALL") == "" {
		sizes = [][2]int{{100, 70}}
	}
	for k, sz := range sizes {
		a, b := randSeq(sz[0], uint64(k)), randSeq(sz[1], uint64(k+100))
		want := refLCS(a, b)
		last := want[sz[0]][sz[1]]
		for _, kern := range []KernelKind{KernelStrip, KernelTile} {
			name := fmt.Sprintf("%dx%d/%s", sz[0]+1, sz[1]+1, kern)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				prog := generate(t, "lcs.dp", lcsText(a, b), Options{Kernel: kern, RowsPerThread: 1, StripWarps: 2})
				if prog.Kernel != kern {
					t.Fatalf("kernel %s, want %s", prog.Kernel, kern)
				}
				res := emulate(t, prog)
				if res.err[0] != 0 {
					t.Fatalf("device error %v", res.err)
				}
				if res.ans != last {
					t.Errorf("answer %v, want %v", res.ans, last)
				}
				if res.grid != nil {
					compareGrid(t, name, res.grid, want, 0)
				}
			})
		}
	}
}

// emuCase is a problem, how to generate it, and what the kernels must give.
type emuCase struct {
	name    string
	src     string
	opt     Options
	kern    KernelKind
	want    [][]float64 // the whole grid (checked where the kernel yields it)
	ans     float64     // dp_ans (AnswerCell), or the region's best value
	best    [2]int64    // region min/max: the winning cell
	caps    []float64   // captured answer cells, in the program's order
	tol     float64
	err     [2]int64 // device error code and site (code 0: none; site -1: any site of errKind)
	errAt   [2]int64 // the cell being computed when it failed
	errKind SiteKind
	slabs   int  // the strip kernel over this many column slabs (Options.Slabs)
	bands   int  // the strip kernel as this many launches of row bands (Options.Bands)
	chunk   int  // with bands == 1: strips a band
	chain   bool // the program must chain its reduction (Program.Chain)
}

func ints(vals []int64) string {
	s := make([]string, len(vals))
	for k, v := range vals {
		s[k] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ",")
}

func matrixText(m [][]int64) string {
	rows := make([]string, len(m))
	for i, r := range m {
		rows[i] = ints(r)
	}
	return strings.Join(rows, " & ")
}

// ints returns n values in [0, below) from seed.
func (r *rng) ints(n int, below int64) []int64 {
	v := make([]int64, n)
	for k := range v {
		v[k] = r.intn(below)
	}
	return v
}

type rng struct{ x uint64 }

func (r *rng) intn(n int64) int64 {
	r.x = r.x*6364136223846793005 + 1442695040888963407
	return int64((r.x >> 33) % uint64(n))
}

func editCase(a, b string, kern KernelKind) emuCase {
	g := grid(len(a)+1, len(b)+1)
	for i := 0; i <= len(a); i++ {
		for j := 0; j <= len(b); j++ {
			switch {
			case i == 0 && j == 0:
			case i == 0:
				g[i][j] = g[i][j-1] + 1
			case j == 0:
				g[i][j] = g[i-1][j] + 1
			default:
				sub := 2.0
				if a[i-1] == b[j-1] {
					sub = 0
				}
				g[i][j] = math.Min(math.Min(g[i-1][j-1]+sub, g[i-1][j]+1), g[i][j-1]+1)
			}
		}
	}
	src := fmt.Sprintf(`problem editdistance
char 1x? A = %q
char 1x? B = %q
int ins = 1
int del = 1
int sub = 2
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 && j == 0
           | cell[i][j-1] + ins      when i == 0
           | cell[i-1][j] + del      when j == 0
           | min(cell[i-1][j-1] + (A[i-1] == B[j-1] ? 0 : sub), cell[i-1][j] + del, cell[i][j-1] + ins)   otherwise
`, a, b)
	return emuCase{name: "edit/" + string(kern), src: src, opt: Options{Kernel: kern, RowsPerThread: 2, StripWarps: 2}, kern: kern, want: g, ans: g[len(a)][len(b)]}
}

// manhattanCase is the Manhattan tourist on an n x m city with cell type t.
func manhattanCase(n, m int, t string, kern KernelKind, seed uint64) emuCase {
	r := &rng{seed}
	down := make([][]int64, n-1)
	for i := range down {
		down[i] = make([]int64, m)
		for j := range down[i] {
			down[i][j] = r.intn(20)
		}
	}
	right := make([][]int64, n)
	for i := range right {
		right[i] = make([]int64, m-1)
		for j := range right[i] {
			right[i][j] = r.intn(20)
		}
	}
	g := grid(n, m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i == 0 && j == 0:
			case i == 0:
				g[i][j] = g[i][j-1] + float64(right[i][j-1])
			case j == 0:
				g[i][j] = g[i-1][j] + float64(down[i-1][j])
			default:
				g[i][j] = math.Max(g[i-1][j]+float64(down[i-1][j]), g[i][j-1]+float64(right[i][j-1]))
			}
		}
	}
	it := t
	if t == "float" || t == "double" || t == "long" {
		it = t
	}
	src := fmt.Sprintf(`problem manhattan
%s %dx%d down = %s
%s %dx%d right = %s
cell: %s
%d x %d
cell[i][j] = 0                                                    when i == 0 && j == 0
           | cell[i][j-1] + right[i][j-1]                         when i == 0
           | cell[i-1][j] + down[i-1][j]                          when j == 0
           | max(cell[i-1][j] + down[i-1][j], cell[i][j-1] + right[i][j-1])   otherwise
`, it, n-1, m, matrixText(down), it, n, m-1, matrixText(right), t, n, m)
	return emuCase{name: fmt.Sprintf("manhattan-%s-%dx%d/%s", t, n, m, kern), src: src, opt: Options{Kernel: kern, RowsPerThread: 1, StripWarps: 2, TileH: 32, TileW: 32}, kern: kern, want: g, ans: g[n-1][m-1]}
}

func knapsackCase(items int, capacity int64, seed uint64) emuCase {
	r := &rng{seed}
	wt, val := make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k] = 1+r.intn(capacity/2+1), 1+r.intn(100)
	}
	g := grid(items+1, int(capacity)+1)
	for i := 1; i <= items; i++ {
		for w := int64(0); w <= capacity; w++ {
			g[i][w] = g[i-1][w]
			if wt[i-1] <= w && g[i-1][w-wt[i-1]]+float64(val[i-1]) > g[i-1][w] {
				g[i][w] = g[i-1][w-wt[i-1]] + float64(val[i-1])
			}
		}
	}
	src := fmt.Sprintf(`problem knapsack01
int 1x? wt  = %s
int 1x? val = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                     when i == 0
           | cell[i-1][w-wt[i-1]] + val[i-1]       when wt[i-1] <= w && cell[i-1][w-wt[i-1]] + val[i-1] > cell[i-1][w]
           | cell[i-1][w]                          otherwise
`, ints(wt), ints(val), capacity)
	return emuCase{name: fmt.Sprintf("knapsack-%dx%d", items, capacity), src: src, opt: Options{LineThreads: 64}, kern: KernelLine, want: g, ans: g[items][capacity]}
}

func boundedCase(items int, capacity int64, seed uint64) emuCase {
	r := &rng{seed}
	wt, val, cnt := make([]int64, items), make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k], cnt[k] = r.intn(capacity/2+1), 1+r.intn(50), 1+r.intn(4)
	}
	g := dptest.BoundedKnapsackGrid(wt, val, cnt, int(capacity))
	src := dptest.BoundedKnapsack(wt, val, cnt, int(capacity))
	return emuCase{name: "bounded", src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: g, ans: g[items][capacity]}
}

// copiesCase is a knapsack whose items are taken in copies, every weight
// >= 1 so that the program is specialised to divisors of one sign and
// proves every copy's read inside the row (analysis quotientDiff):
// bounded (counts cnt) or unbounded, in the natural form of a reduction
// over the copies, against a plain DP.
func copiesCase(items int, capacity int64, bounded bool, seed uint64) emuCase {
	r := &rng{seed}
	wt, val, cnt := make([]int64, items), make([]int64, items), make([]int64, items)
	for k := range wt {
		wt[k], val[k], cnt[k] = 1+r.intn(capacity/2+1), 1+r.intn(50), 1+r.intn(4)
	}
	if !bounded {
		for k := range cnt {
			cnt[k] = capacity + 1 // never binding: unbounded
		}
		src := dptest.UnboundedKnapsack(wt, val, int(capacity))
		g := dptest.BoundedKnapsackGrid(wt, val, cnt, int(capacity))
		return emuCase{name: fmt.Sprintf("unbounded-%dx%d", items, capacity), src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: g, ans: g[items][capacity], chain: true}
	}
	g := dptest.BoundedKnapsackGrid(wt, val, cnt, int(capacity))
	src := dptest.BoundedKnapsack(wt, val, cnt, int(capacity))
	return emuCase{name: fmt.Sprintf("bounded-%dx%d", items, capacity), src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: g, ans: g[items][capacity]}
}

// backwardCase sweeps from the bottom-right corner (long cells, modular).
func backwardCase(n, m int, kern KernelKind) emuCase {
	r := &rng{7}
	a, b := make([]int64, n), make([]int64, m)
	for k := range a {
		a[k] = r.intn(1000)
	}
	for k := range b {
		b[k] = r.intn(1000)
	}
	g := grid(n, m)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case i == n-1 || j == m-1:
				g[i][j] = float64(a[i] + b[j])
			default:
				g[i][j] = float64((int64(g[i+1][j]) + 2*int64(g[i][j+1]) + int64(g[i+1][j+1]) + a[i]*b[j]) % 1000003)
			}
		}
	}
	src := fmt.Sprintf(`problem backward
long 1x? a = %s
long 1x? b = %s
cell: long
(len(a)) x (len(b))
cell[i][j] = a[i] + b[j]     when i == ROWS-1 || j == COLS-1
           | (cell[i+1][j] + 2*cell[i][j+1] + cell[i+1][j+1] + a[i]*b[j]) %% 1000003   otherwise
`, ints(a), ints(b))
	return emuCase{name: "backward/" + string(kern), src: src, opt: Options{Kernel: kern, RowsPerThread: 1, StripWarps: 1, TileH: 32, TileW: 32}, kern: kern, want: g, ans: g[0][0]}
}

// passCase is a rows schedule swept backward (cells read rows i+1 and
// i+2), reading 3 columns left and 2 right, with a region max over row 0:
// what dp_linepass must widen on both sides, keep two lines of in shared
// memory and fold into the region's partials.
func passCase(n, m int) emuCase {
	a := (&rng{21}).ints(m, 100)
	g := grid(n, m)
	for i := n - 1; i >= 0; i-- {
		for j := 0; j < m; j++ {
			if i >= n-2 {
				g[i][j] = float64(a[j])
				continue
			}
			if j >= 3 && j+2 < m {
				g[i][j] = math.Max(g[i+1][j], math.Max(g[i+2][j-3], g[i+1][j+2])) + float64(a[j]%5) - 2
			} else {
				g[i][j] = g[i+1][j] + float64(a[j]%5) - 2
			}
		}
	}
	best, bj := g[0][0], 0
	for j := range g[0] {
		if g[0][j] > best {
			best, bj = g[0][j], j
		}
	}
	src := fmt.Sprintf(`problem band2
int 1x? A = %s
%d x %d
cell[i][j] = A[j]                                                          when i >= ROWS-2
           | max(cell[i+1][j], cell[i+2][j-3], cell[i+1][j+2]) + A[j] %% 5 - 2   when j >= 3 && j + 2 < COLS
           | cell[i+1][j] + A[j] %% 5 - 2                                          otherwise
answer: max(j in 0..COLS-1: cell[0][j])
`, ints(a), n, m)
	return emuCase{name: "band2", src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: g, ans: best, best: [2]int64{0, int64(bj)}}
}

// colsCase needs the cols schedule: every reference reads column j-1 at a
// row that depends on i.
func colsCase(n, m int) emuCase {
	w := (&rng{11}).ints(n, 100)
	g := grid(n, m)
	for j := 0; j < m; j++ {
		for i := 0; i < n; i++ {
			if j == 0 {
				g[i][j] = float64(w[i])
				continue
			}
			g[i][j] = 0.5*g[i][j-1] + 0.25*g[(i*7+3)%n][j-1]
		}
	}
	src := fmt.Sprintf(`problem cols
int 1x? w = %s
cell: double
%d x %d
cell[i][j] = w[i]                                             when j == 0
           | 0.5*cell[i][j-1] + 0.25*cell[(i*7+3) %% ROWS][j-1]   otherwise
`, ints(w), n, m)
	return emuCase{name: "cols", src: src, opt: Options{LineThreads: 32}, kern: KernelLine, want: g, ans: g[n-1][m-1], tol: 1e-12}
}

// swCase is Smith-Waterman: the answer is the best cell anywhere.
func swCase(a, b string, kern KernelKind) emuCase {
	g := grid(len(a)+1, len(b)+1)
	best, bi, bj := 0.0, int64(0), int64(0)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			s := -3.0
			if a[i-1] == b[j-1] {
				s = 3
			}
			g[i][j] = math.Max(math.Max(0, g[i-1][j-1]+s), math.Max(g[i-1][j]-2, g[i][j-1]-2))
			if g[i][j] > best {
				best, bi, bj = g[i][j], int64(i), int64(j)
			}
		}
	}
	src := fmt.Sprintf(`problem smith-waterman
char 1x? A = %q
char 1x? B = %q
int match = 3
int mismatch = -3
int gap = -2
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + (A[i-1] == B[j-1] ? match : mismatch), cell[i-1][j] + gap, cell[i][j-1] + gap)   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`, a, b)
	return emuCase{name: "sw/" + string(kern), src: src, opt: Options{Kernel: kern, RowsPerThread: 1, StripWarps: 2}, kern: kern, want: g, ans: best, best: [2]int64{bi, bj}}
}

func (c emuCase) run(t *testing.T) {
	prog := generate(t, c.name+".dp", c.src, c.opt)
	if c.kern != "" && prog.Kernel != c.kern {
		t.Fatalf("kernel %s, want %s", prog.Kernel, c.kern)
	}
	var res emuResult
	if c.slabs > 0 {
		if !prog.Slabs {
			t.Fatalf("a %s program without slabs", prog.Kernel)
		}
		res = parseEmu(t, runEmu(t, prog.Name, fmt.Sprintf("#define EMU_SLABS %d\n", c.slabs)+prog.Source+harness(prog)))
	} else if c.bands > 0 {
		if !prog.Bands {
			t.Fatalf("a %s program without bands", prog.Kernel)
		}
		res = parseEmu(t, runEmu(t, prog.Name, fmt.Sprintf("#define EMU_BANDS %d\n#define EMU_CHUNK %d\n", c.bands, max(c.chunk, 1))+prog.Source+harness(prog)))
	} else if prog.Chain {
		res = parseEmu(t, runEmu(t, prog.Name, chainDefines(t, c.name+".dp", c.src)+prog.Source+harness(prog)))
	} else {
		res = emulate(t, prog)
	}
	if c.chain && !prog.Chain {
		t.Fatalf("a %s program without a chain", prog.Kernel)
	}
	siteOK := res.err[1] == c.err[1]
	if c.err[1] < 0 {
		site := int(res.err[1])
		siteOK = site >= 0 && site < len(prog.Sites) && prog.Sites[site].Kind == c.errKind
	}
	if res.err[0] != c.err[0] || (c.err[0] != 0 && (!siteOK || res.err[2] != c.errAt[0] || res.err[3] != c.errAt[1])) {
		t.Fatalf("device error %v, want code %d site %d at %v", res.err, c.err[0], c.err[1], c.errAt)
	}
	if c.err[0] != 0 {
		return
	}
	switch prog.Answer {
	case AnswerCell:
		if !close(res.ans, c.ans, c.tol) {
			t.Errorf("answer %v, want %v", res.ans, c.ans)
		}
	case AnswerRegion:
		var best [4]float64
		for k, p := range res.parts {
			if k == 0 || p[1] > best[1] || (p[1] == best[1] && p[0] < best[0]) {
				best = p
			}
		}
		idx := int64(best[0])
		if best[1] != c.ans || idx/prog.Cols != c.best[0] || idx%prog.Cols != c.best[1] {
			t.Errorf("region best %v at cell[%d][%d], want %v at %v", best[1], idx/prog.Cols, idx%prog.Cols, c.ans, c.best)
		}
	case AnswerCapture:
		for k, w := range c.caps {
			if k >= len(res.caps) || !close(res.caps[k], w, c.tol) {
				t.Errorf("captured cells %v, want %v", res.caps, c.caps)
				break
			}
		}
	}
	if c.opt.Maintain && res.grid == nil {
		t.Fatalf("a %s program for maintain gave no grid", prog.Kernel)
	}
	if res.grid != nil && c.want != nil {
		compareGrid(t, c.name, res.grid, c.want, c.tol)
	}
}

// slabbed is c swept in n column slabs, each a launch of its own.
func (c emuCase) slabbed(n int) emuCase {
	c.name += fmt.Sprintf("/slabs%d", n)
	c.opt.Slabs = true
	c.slabs = n
	return c
}

// banded is c swept by n launches of row bands (Options.Bands): one band
// each, or with n == 1 bands of chunk strips whose links the launch writes
// to itself.
func (c emuCase) banded(n, chunk int) emuCase {
	c.name += fmt.Sprintf("/bands%dx%d", n, chunk)
	c.opt.Bands = true
	c.bands, c.chunk = n, chunk
	return c
}

// kept is c with the grid kept (maintain).
func (c emuCase) kept() emuCase {
	c.name += "/maintain"
	c.opt.Maintain = true
	return c
}

// keptTableC declares, for the harness of a program that keeps rows, the
// kernel's table (Program.KeptTable) keeping every row, in reverse order:
// keptTable. Where it keeps columns, a second table, keptTable2, keeps
// every 37th row from the sixth and every 41st column from the third, and
// the last row and column, in reverse order (nKeptRows2 rows, keptRows2;
// nKeptCols columns, keptCols): the harness runs the kernel again with it
// and overwrites those cells, so that a kept cell missed by a chunk that
// skips the kept rows' and columns' stores differs.
func keptTableC(prog *Program) string {
	var b strings.Builder
	array := func(name, typ string, vs []int64) {
		fmt.Fprintf(&b, "\tstatic const %s %s[] = {", typ, name)
		for k, v := range vs {
			if k > 0 {
				b.WriteString(",")
			}
			fmt.Fprint(&b, v)
		}
		if len(vs) == 0 {
			b.WriteString("0")
		}
		b.WriteString("};\n")
	}
	table := func(rows, cols []int64, reversed bool) []int64 {
		sorted := append([]int64(nil), rows...)
		slices.Sort(sorted)
		t := prog.KeptTable(sorted, cols)
		if reversed {
			// Slots in the rows' given order.
			for k, i := range rows {
				t[i] = int32(k)
			}
		}
		out := make([]int64, len(t))
		for k, v := range t {
			out[k] = int64(v)
		}
		return out
	}
	all := make([]int64, prog.Rows)
	for k := range all {
		all[k] = prog.Rows - 1 - int64(k)
	}
	array("keptTable", "int", table(all, nil, true))
	var rows2, cols []int64
	if prog.KeepCols {
		for i := prog.Rows - 1; i >= 0; i-- {
			if i%37 == 5 || i == prog.Rows-1 {
				rows2 = append(rows2, i)
			}
		}
		for j := prog.Cols - 1; j >= 0; j-- {
			if j%41 == 2 || j == prog.Cols-1 {
				cols = append(cols, j)
			}
		}
		array("keptTable2", "int", table(rows2, cols, true))
	}
	array("keptRows2", "long long", rows2)
	array("keptCols", "long long", cols)
	fmt.Fprintf(&b, "\tconst long long nKeptRows2 = %d, nKeptCols = %d;\n\t(void)keptRows2, (void)keptCols, (void)nKeptRows2, (void)nKeptCols;\n", len(rows2), len(cols))
	return b.String()
}

// colsKept is c with the strip kernel keeping rows and columns (every row
// and every 41st column, which the harness compares).
func (c emuCase) colsKept() emuCase {
	c.name += "/keepcols"
	c.opt.KeepRows, c.opt.KeepCols = true, true
	return c
}

// rowsKept is c with the strip kernel keeping rows (every row, which the
// harness compares).
func (c emuCase) rowsKept() emuCase {
	c.name += "/keeprows"
	c.opt.KeepRows = true
	return c
}

// shiftedCase is editCase with B read at an offset held in data (a
// one-element input, as a checkpoint band's base row is): the read still
// depends on j alone and is staged per column (pureIndex).
func shiftedCase(a, b string, kern KernelKind) emuCase {
	c := editCase(a, b, kern)
	c.name = "shifted/" + string(kern)
	c.src = strings.Replace(c.src, "B[j-1]", "B[j + off[0] - 3]", 1)
	c.src = strings.Replace(c.src, "int ins = 1", "int 1x? off = 2\nint ins = 1", 1)
	return c
}

// rowZeroCase is editCase with a 2-D input read at a constant row,
// Z[0][j-1] (zeros; row 1 holds junk): a value of the column, staged per
// column (a checkpoint band's one given row is read so).
func rowZeroCase(a, b string, kern KernelKind) emuCase {
	c := editCase(a, b, kern)
	c.name = "rowzero/" + string(kern)
	zeros, junk := strings.Repeat("0,", len(b)-1)+"0", strings.Repeat("9,", len(b)-1)+"9"
	c.src = strings.Replace(c.src, "? 0 : sub)", "? Z[0][j-1] : sub)", 1)
	c.src = strings.Replace(c.src, "int ins = 1", "int 2x? Z = "+zeros+" & "+junk+"\nint ins = 1", 1)
	return c
}

func TestEmulatedProblems(t *testing.T) {
	emuCompiler(t)
	a, b := randSeq(45, 1), randSeq(70, 2)
	cases := []emuCase{
		editCase("INTENTION", "EXECUTION", KernelStrip),
		editCase(a, b, KernelTile),
		editCase(b, a, KernelStrip),
		shiftedCase(a, b, KernelStrip),
		rowZeroCase(a, b, KernelStrip),
		manhattanCase(37, 50, "int", KernelStrip, 1),
		{name: "lcs-4warps", src: lcsText(randSeq(299, 5), randSeq(180, 6)), opt: Options{Kernel: KernelStrip, RowsPerThread: 1, StripWarps: 4}, kern: KernelStrip, want: refLCS(randSeq(299, 5), randSeq(180, 6)), ans: refLCS(randSeq(299, 5), randSeq(180, 6))[299][180]},
		manhattanCase(37, 50, "long", KernelTile, 2),
		manhattanCase(50, 37, "float", KernelStrip, 3),
		manhattanCase(33, 65, "double", KernelTile, 4),
		knapsackCase(9, 70, 5),
		// Lines of 601 cells: on one block of 32 threads (the harness)
		// each thread computes 18 or 19 cells a line.
		knapsackCase(12, 600, 15),
		passCase(23, 157),
		boundedCase(7, 40, 6),
		copiesCase(7, 40, true, 7),
		copiesCase(1, 1, true, 8),
		copiesCase(9, 63, false, 9),
		copiesCase(2, 17, false, 10),
		backwardCase(40, 45, KernelStrip),
		backwardCase(45, 40, KernelTile),
		colsCase(30, 20),
		swCase(a, b, KernelStrip),
		swCase(b, a, KernelTile),
		outsideCase(KernelStrip),
		outsideCase(KernelTile),
		// The strip kernel writing its cells out: several strips through
		// two slots, both directions, 4- and 8-byte cells, 1 and 4 rows
		// per thread.
		emuCase{name: "lcs-4warps", src: lcsText(randSeq(299, 5), randSeq(180, 6)), opt: Options{Kernel: KernelStrip, RowsPerThread: 1, StripWarps: 4}, kern: KernelStrip, want: refLCS(randSeq(299, 5), randSeq(180, 6)), ans: refLCS(randSeq(299, 5), randSeq(180, 6))[299][180]}.kept(),
		emuCase{name: "lcs-rpt4", src: lcsText(randSeq(600, 7), randSeq(77, 8)), opt: Options{Kernel: KernelStrip, RowsPerThread: 4, StripWarps: 2}, kern: KernelStrip, want: refLCS(randSeq(600, 7), randSeq(77, 8)), ans: refLCS(randSeq(600, 7), randSeq(77, 8))[600][77]}.kept(),
		manhattanCase(150, 37, "double", KernelStrip, 7).kept(),
		manhattanCase(37, 50, "long", KernelStrip, 8).kept(),
		manhattanCase(131, 9, "float", KernelStrip, 9).kept(),
		backwardCase(100, 45, KernelStrip).kept(),
		backwardCase(100, 45, KernelStrip).rowsKept(),
		manhattanCase(131, 9, "float", KernelStrip, 9).rowsKept(),
		// Rows and columns kept (a traceback's checkpoints in blocks):
		// grids wide enough for chunks without checks between the kept
		// columns, which only checked chunks write.
		emuCase{name: "lcs-rpt2", src: lcsText(randSeq(130, 13), randSeq(333, 14)), opt: Options{Kernel: KernelStrip, RowsPerThread: 2, StripWarps: 2}, kern: KernelStrip, want: refLCS(randSeq(130, 13), randSeq(333, 14)), ans: refLCS(randSeq(130, 13), randSeq(333, 14))[130][333]}.colsKept(),
		manhattanCase(70, 260, "double", KernelStrip, 10).colsKept(),
		emuCase{name: "lcs-rpt4", src: lcsText(randSeq(600, 7), randSeq(77, 8)), opt: Options{Kernel: KernelStrip, RowsPerThread: 4, StripWarps: 2}, kern: KernelStrip, want: refLCS(randSeq(600, 7), randSeq(77, 8)), ans: refLCS(randSeq(600, 7), randSeq(77, 8))[600][77]}.rowsKept(),
		swCase(a, b, KernelStrip).kept(),
		// The answer at a cell inside the grid: its column in a chunk
		// that reads nothing outside (the strip kernel looks for the
		// answer only in checked chunks, which must include its).
		midCase(lcsText(randSeq(200, 11), randSeq(300, 12)), refLCS(randSeq(200, 11), randSeq(300, 12)), 150, 170, 1),
		midCase(backwardCase(100, 150, KernelStrip).src, backwardCase(100, 150, KernelStrip).want, 40, 60, 2),
		{name: "input-outside", kern: KernelLine, opt: Options{LineThreads: 32}, src: `problem bad
int 1x? A = 1,2,3,4
(len(A)+1) x 5
cell[i][j] = (i == ROWS-1 && j == 2 ? A[i] : 0) + cell[i-1][j]   when i > 0
           | 0                                                    otherwise
`, err: [2]int64{ErrLoad, -1}, errKind: SiteLoad, errAt: [2]int64{4, 2}},
		// The same failures on wider lines (230 cells, a thread's fourth
		// cell on one block of 32 threads): a checked reference outside
		// the grid at one cell, an overflow at one cell.
		{name: "wide-outside", kern: KernelLine, opt: Options{LineThreads: 32}, src: `problem far
30 x 230
cell[i][j] = cell[i-1][j + (i == 17 && j == 100 ? 200 : 0)] + 1   when i > 0
           | 0                                                     otherwise
`, err: [2]int64{ErrCell, 0}, errAt: [2]int64{17, 100}},
		{name: "wide-overflow", kern: KernelLine, opt: Options{LineThreads: 32}, src: `problem big
30 x 230
cell[i][j] = cell[i-1][j] * (j == 100 ? 3 : 1) + 1   when i > 0
           | 1                                        otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{20, 100}},
		// An overflow where a reference is not proved inside the grid:
		// the line kernels compute with the checks as a flag first
		// (lineFlagChecks), then report.
		{name: "wide-overflow-flagged", kern: KernelLine, opt: Options{LineThreads: 32}, src: `problem bigk
30 x 230
cell[i][j] = cell[i-1][j - (j == 100 ? 1 : 0)] * (j == 100 && i == 20 ? 2000000000 : 1) + 1   when i > 0
           | 1                                                                                  otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{20, 100}},
		{name: "overflow", kern: KernelLine, opt: Options{LineThreads: 32}, src: `problem big
30 x 1
cell[i][j] = cell[i-1][j] * 3 + 1   when i > 0
           | 1                      otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{20, 0}},
	}
	if os.Getenv("DPGPU_EMU_ALL") == "" {
		// Each case compiles a C++ program (seconds): by default run a
		// few that cover every kernel; DPGPU_EMU_ALL=1 runs them all.
		quick := map[string]bool{"edit/strip": true, "shifted/strip": true, "rowzero/strip": true, "lcs-4warps": true, "knapsack-9x70": true, "sw/tile": true, "outside/strip": true,
			"input-outside": true, "manhattan-double-150x37/strip/maintain": true,
			"knapsack-12x600": true, "band2": true, "wide-outside": true, "wide-overflow": true, "wide-overflow-flagged": true, // several cells a line thread "backward/strip/maintain": true,
			"backward/strip/keeprows": true, "lcs-rpt4/keeprows": true, "lcs-rpt2/keepcols": true,
			"bounded-7x40": true, "unbounded-9x63": true, // copies' reads proved inside the row
			"cols":            true, // line tiles reading both sides
			"mid/lcs-150-170": true, "mid/backward-40-60": true}
		var some []emuCase
		for _, c := range cases {
			if quick[c.name] {
				some = append(some, c)
				delete(quick, c.name)
			}
		}
		if len(quick) > 0 {
			t.Fatalf("quick cases not found: %v", quick)
		}
		cases = some
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// midCase is the strip kernel's answer at cell (i, j) of the problem src
// (whose grid is want), warps of 32 rows.
func midCase(src string, want [][]float64, i, j, warps int) emuCase {
	name := strings.Fields(src)[1]
	return emuCase{name: fmt.Sprintf("mid/%s-%d-%d", name, i, j), src: src + fmt.Sprintf("answer: cell[%d][%d]\n", i, j),
		opt: Options{Kernel: KernelStrip, RowsPerThread: 1, StripWarps: warps}, kern: KernelStrip, want: want, ans: want[i][j]}
}

// outsideCase reads outside the grid at exactly one cell, (2, 3).
func outsideCase(kern KernelKind) emuCase {
	return emuCase{name: "outside/" + string(kern), kern: kern, opt: Options{Kernel: kern, RowsPerThread: 1, StripWarps: 2, TileH: 32, TileW: 32}, src: `problem bad
40 x 50
cell[i][j] = cell[i][j-4]                        when i == 2 && j == 3
           | max(cell[i-1][j], cell[i][j-1])     when i > 0 && j > 0
           | 1                                   otherwise
`, err: [2]int64{ErrCell, 0}, errAt: [2]int64{2, 3}}
}

// captureDecls declares, for a harness, the flat indices of the cells the
// answer captures (cap, ncap) and where their values go (capv).
func captureDecls(prog *Program) string {
	var caps strings.Builder
	for k, c := range prog.Captures {
		if k > 0 {
			caps.WriteByte(',')
		}
		fmt.Fprintf(&caps, "%dLL", c[0]*prog.Cols+c[1])
	}
	if caps.Len() == 0 {
		caps.WriteString("0")
	}
	return fmt.Sprintf("\tstatic const long long cap[] = {%s};\n\tconst int ncap = %d;\n\tstatic cell_t capv[%d];\n", caps.String(), len(prog.Captures), len(prog.Captures)+1)
}

// wideCase reads two rows and three columns back (cell[i-2][j-1],
// cell[i-1][j-3], cell[i][j-2], cell[i-1][j]): slab borders DP_PJ = 3
// columns wide.
func wideCase(n, m int, seed uint64) emuCase {
	a := (&rng{seed}).ints(n*m, 100)
	g := grid(n, m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			v := float64(a[i*m+j])
			best := 0.0
			if i >= 2 && j >= 1 {
				best = math.Max(best, g[i-2][j-1]+1)
			}
			if i >= 1 && j >= 3 {
				best = math.Max(best, g[i-1][j-3]+2)
			}
			if j >= 2 {
				best = math.Max(best, g[i][j-2])
			}
			if i >= 1 {
				best = math.Max(best, g[i-1][j]-1)
			}
			g[i][j] = v + best
		}
	}
	rows := make([]string, n)
	for i := range rows {
		rows[i] = ints(a[i*m : (i+1)*m])
	}
	src := fmt.Sprintf(`problem wide
int %dx%d W = %s
%d x %d
cell[i][j] = W[i][j] + max(i >= 2 && j >= 1 ? cell[i-2][j-1] + 1 : 0, i >= 1 && j >= 3 ? cell[i-1][j-3] + 2 : 0, j >= 2 ? cell[i][j-2] : 0, i >= 1 ? cell[i-1][j] - 1 : 0)
answer: cell[ROWS-1][COLS-1]
`, n, m, strings.Join(rows, " & "), n, m)
	return emuCase{name: fmt.Sprintf("wide-%dx%d", n, m), src: src, opt: Options{Kernel: KernelStrip, RowsPerThread: 2, StripWarps: 2}, kern: KernelStrip, want: g, ans: g[n-1][m-1]}
}

// TestEmulatedBands sweeps grids as launches of row bands: one launch
// whose bands of 1 or 2 strips link to itself (every strip, or every
// second, reads its top rows through the link), and 2 or 3 launches of one
// band each, every answer kind, backward, borders of two rows, floating
// cells, several tables, and an error in a later band's strip.
func TestEmulatedBands(t *testing.T) {
	emuCompiler(t)
	long, b := randSeq(300, 21), randSeq(45, 22)
	lcs := emuCase{name: "lcs-rpt4", src: lcsText(randSeq(601, 13), randSeq(97, 14)), opt: Options{Kernel: KernelStrip, RowsPerThread: 4, StripWarps: 2}, kern: KernelStrip,
		ans: refLCS(randSeq(601, 13), randSeq(97, 14))[601][97]}
	cases := []emuCase{
		lcs.banded(1, 1),
		lcs.banded(2, 0),
		editCase(long, b, KernelStrip).banded(3, 0),
		editCase(long, b, KernelStrip).banded(1, 2),
		swCase(long, b, KernelStrip).banded(2, 0),
		backwardCase(300, 45, KernelStrip).banded(3, 0),
		wideCase(200, 41, 3).banded(2, 0),
		manhattanCase(200, 37, "double", KernelStrip, 3).banded(1, 3),
		affineCase(long, b, "global", 1, 2).banded(3, 0),
		affineCase(long, b, "local", 1, 2).banded(1, 1),
		// An overflow in the third strip, in the second launch's band: the
		// error names its cell.
		emuCase{name: "overflow-band", kern: KernelStrip, opt: Options{Kernel: KernelStrip, RowsPerThread: 1, StripWarps: 2}, src: `problem big
300 x 50
cell[i][j] = cell[i-1][j] * 4000000000000000000  when i == 130 && j == 7
           | max(cell[i-1][j], cell[i][j-1])     when i > 0 && j > 0
           | 1                                   otherwise
`, err: [2]int64{ErrOverflow, -1}, errKind: SiteOverflow, errAt: [2]int64{130, 7}}.banded(3, 0),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// TestEmulatedSlabs sweeps grids in 2 and 3 column slabs, each a launch on
// its own (as on several GPUs), and compares with the plain-Go references:
// answers at a cell, region maxima (Smith-Waterman), backward sweeps,
// borders of several columns, rows per thread 1, 2 and 4, slabs narrower
// than a warp's skew.
func TestEmulatedSlabs(t *testing.T) {
	emuCompiler(t)
	a, b := randSeq(45, 11), randSeq(70, 12)
	lcs := emuCase{name: "lcs-rpt4", src: lcsText(randSeq(301, 13), randSeq(97, 14)), opt: Options{Kernel: KernelStrip, RowsPerThread: 4, StripWarps: 2}, kern: KernelStrip,
		ans: refLCS(randSeq(301, 13), randSeq(97, 14))[301][97]}
	cases := []emuCase{
		editCase(a, b, KernelStrip).slabbed(2),
		editCase(b, a, KernelStrip).slabbed(3),
		lcs.slabbed(3),
		swCase(a, b, KernelStrip).slabbed(2),
		backwardCase(70, 45, KernelStrip).slabbed(3),
		wideCase(67, 41, 3).slabbed(2),
		wideCase(40, 100, 4).slabbed(3),
		manhattanCase(50, 37, "double", KernelStrip, 3).slabbed(2),
		outsideCase(KernelStrip).slabbed(2),
		// A read above the grid in the right slab: the error names its cell.
		emuCase{name: "above-right", kern: KernelStrip, opt: Options{Kernel: KernelStrip, RowsPerThread: 1, StripWarps: 2}, src: `problem bad
40 x 50
cell[i][j] = cell[i-3][j]                        when i == 2 && j == 40
           | max(cell[i-1][j], cell[i][j-1])     when i > 0 && j > 0
           | 1                                   otherwise
`, err: [2]int64{ErrCell, 0}, errAt: [2]int64{2, 40}}.slabbed(2),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// TestPassCaseShape pins what passCase is there to exercise: a backward
// line program two lines deep, reading 3 positions left and 2 right, with a
// region answer.
func TestPassCaseShape(t *testing.T) {
	c := passCase(23, 157)
	prog := generate(t, c.name+".dp", c.src, c.opt)
	if prog.Kernel != KernelLine || !prog.Backward || prog.Reach != 2 || prog.LineLeft != 3 || prog.LineRight != 2 || prog.Answer != AnswerRegion {
		t.Errorf("kernel %s, backward %v, reach %d, left %d, right %d, answer %v", prog.Kernel, prog.Backward, prog.Reach, prog.LineLeft, prog.LineRight, prog.Answer)
	}
}
