package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// gen makes the text of a problem with random inputs of about n x m.
type gen func(r *rand.Rand, n, m int) string

var problemsUnderTest = []struct {
	name string
	gen  gen
	// float says whether the problem may run with float cells (its values
	// stay exact in float32 at the sizes tested), double with double cells.
	float, double bool
}{
	{"lcs", genLCS, true, true},
	{"editdistance", genEdit, true, true},
	{"needleman-wunsch", genNW, true, true},
	{"smith-waterman", genSW, true, true},
	{"manhattan", genManhattan, true, true},
	{"knapsack", genKnapsack, true, true},
	{"knapsack-bounded", genBounded, true, true},
	{"knapsack-unbounded", genUnbounded, true, true},
	{"backward", genBackward, false, false},
	{"cols", genCols, true, true},
	{"minplus", genMinPlus, true, true},
	{"sink", genSink, false, true},
	{"lookback", genLookback, false, true},
	{"sums", genSums, true, true},
	{"backward-max", genBackwardMax, true, true},
	{"seqcond", genSeqCond, true, true},
	{"floaty", genFloaty, true, true},
	{"gathers", genGathers, true, true},
	{"seqint", genSeqInt, false, false},
	{"lanemath", genLaneMath, false, true},
	{"lanemath-cols", genLaneMathCols, false, true},
}

// genLaneMath reads math functions of the lane index alone on a rows
// schedule, in cases not every cell takes, next to the same functions of
// the step index (uniform) and of cells.
func genLaneMath(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`double u = %.3f
%d x %d
cell[i][j] = pow(u, j) - 1                                        when i == 0
           | 0                                                    when j > i + 3
           | max(pow(u, j) - 1, cell[i-1][j] * exp(-0.01 * i) + sqrt(j + 0.5))   when j %% 3 == 1
           | cell[i-1][j] / (1 + log(j + 1.0)) + pow(1.5, -j) * (j %% 2 == 0 ? floor(exp(j / 7.0)) : ceil(sqrt(j * 1.0)))   otherwise
`, 1+r.Float64()/10, n, m)
}

// genLaneMathCols is genLaneMath along i: a cols schedule.
func genLaneMathCols(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`double u = %.3f
%d x %d
cell[i][j] = pow(u, i) - 1                                        when j == 0
           | max(pow(u, i) - 1, cell[i][j-1] * exp(-0.01 * j) + sqrt(i + 0.5))   when i %% 3 == 1
           | cell[i][j-1] / (1 + log(i + 1.0)) + pow(1.5, -i)     otherwise
`, 1+r.Float64()/10, n, m)
}

// genSeqInt has cases that read the row being computed in shapes no scan
// covers, with a reduction whose variable the batch cannot hoist.
func genSeqInt(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d A = %s
%d x %d
cell[i][j] = A[j]                                          when j < 2 || i == 0
           | min(cell[i][j-1], max(k in 0..2: A[(j+k) %% len(A)] - k + cell[i][j-2] %% 3))   when A[j] == 3
           | (cell[i][j-1] + cell[i-1][j] + cell[i-1][j-1]) %% 1000    when A[j] == 2
           | cell[i][j-1] * 2 %% 7 + cell[i-1][j]                     otherwise
`, m, dptest.Join(dptest.Ints(r, m, 0, 9)), n, m)
}

// genFloaty exercises the floating operators and conversions to the cell
// type, whatever it is.
func genFloaty(r *rand.Rand, n, m int) string {
	f := make([]string, m)
	for k := range f {
		f[k] = fmt.Sprintf("%.3f", r.Float64()*20-10)
	}
	return fmt.Sprintf(`double 1x%d F = %s
%d x %d
cell[i][j] = F[j]                                                     when i == 0
           | cell[i-1][j] * 0.5 + F[j] / (abs(F[j]) + 1) - cell[i-1][(j*3) %% COLS] * F[(j*5) %% COLS] / 7    when j %% 2 == 0
           | 1 / (abs(cell[i-1][j]) + 1) + min(cell[i-1][j], F[j] * F[j]) - max(cell[i-1][j] / 3, exp(F[j] / 100))   when j %% 3 == 0
           | floor(cell[i-1][j] * 1.5) - ceil(F[j]) + log(abs(F[j]) + 1) + pow(abs(cell[i-1][j]) + 0.5, 0.3) otherwise
`, m, strings.Join(f, ","), n, m)
}

// genGathers reads inputs and cells at indices that are not the lane plus
// a constant, on a cols schedule and a rows schedule.
func genGathers(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int ?x? M = %s
int 1x%d P = %s
%d x %d
cell[i][j] = M[i][j] + P[(i * 3 + j) %% len(P)]                             when i == 0
           | cell[i-1][(j * 5 + i) %% COLS] - M[(i * 7) %% ROWS][COLS - 1 - j] + (P[j %% len(P)] > 4 ? 1 : 0)  otherwise
`, matrix(r, n, m, -9, 9), m+3, dptest.Join(dptest.Ints(r, m+3, 0, 9)), n, m)
}

// genBackwardMax is a backward wavefront with a scan from the right.
func genBackwardMax(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d W = %s
%d x %d
cell[i][j] = W[j]                                          when i == ROWS-1 && j == COLS-1
           | cell[i][j+1] + W[j]                           when i == ROWS-1
           | cell[i+1][j] - 1                              when j == COLS-1
           | max(cell[i+1][j] - W[j], cell[i][j+1] + 1, cell[i+1][j+1])    otherwise
`, m, dptest.Join(dptest.Ints(r, m, 0, 9)), n, m)
}

// genSeqCond decides its case by the cell just computed.
func genSeqCond(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d W = %s
%d x %d
cell[i][j] = W[j]                                          when i == 0 || j == 0
           | cell[i-1][j] + 1                              when cell[i][j-1] > cell[i-1][j-1] + 2
           | cell[i][j-1] - W[j]                           when W[j] > 6
           | min(cell[i-1][j-1], cell[i][j-1]) + W[j]      otherwise
`, m, dptest.Join(dptest.Ints(r, m, 0, 9)), n, m)
}

func genLCS(r *rand.Rand, n, m int) string {
	return dptest.LCS(dptest.DNA(r, n), dptest.DNA(r, m))
}

func genEdit(r *rand.Rand, n, m int) string {
	return dptest.EditDistance(dptest.DNA(r, n), dptest.DNA(r, m), 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(4))
}

func genNW(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`char 1x? A = "%s"
char 1x? B = "%s"
int match = %d
int mismatch = %d
int gap = %d
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 && j == 0
           | cell[i][j-1] + gap      when i == 0
           | cell[i-1][j] + gap      when j == 0
           | max(cell[i-1][j-1] + (A[i-1] == B[j-1] ? match : mismatch), cell[i-1][j] + gap, cell[i][j-1] + gap)   otherwise
`, dptest.DNA(r, n), dptest.DNA(r, m), 1+r.IntN(3), -r.IntN(3), -1-r.IntN(3))
}

func genSW(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`char 1x? A = "%s"
char 1x? B = "%s"
int match = 3
int mismatch = -3
int gap = -2
(len(A)+1) x (len(B)+1)
cell[i][j] = 0                       when i == 0 || j == 0
           | max(0, cell[i-1][j-1] + (A[i-1] == B[j-1] ? match : mismatch), cell[i-1][j] + gap, cell[i][j-1] + gap)   otherwise
answer: max(i in 0..ROWS-1: max(j in 0..COLS-1: cell[i][j]))
`, dptest.DNA(r, n), dptest.DNA(r, m))
}

func matrix(r *rand.Rand, rows, cols, lo, hi int) string {
	parts := make([]string, rows)
	for k := range parts {
		parts[k] = dptest.Join(dptest.Ints(r, cols, lo, hi))
	}
	return strings.Join(parts, " & ")
}

func genManhattan(r *rand.Rand, n, m int) string {
	n, m = max(n, 2), max(m, 2)
	return fmt.Sprintf(`int ?x? down = %s
int ?x? right = %s
(rows(right)) x (cols(down))
cell[i][j] = 0                                                    when i == 0 && j == 0
           | cell[i][j-1] + right[i][j-1]                         when i == 0
           | cell[i-1][j] + down[i-1][j]                          when j == 0
           | max(cell[i-1][j] + down[i-1][j], cell[i][j-1] + right[i][j-1])   otherwise
`, matrix(r, n-1, m, 0, 9), matrix(r, n, m-1, 0, 9))
}

func genKnapsack(r *rand.Rand, n, m int) string {
	return dptest.Knapsack(dptest.Ints(r, n, 1, m+3), dptest.Ints(r, n, 1, 30), m)
}

func genBounded(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d wt = %s
int 1x%d val = %s
int 1x%d cnt = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                              when i == 0
           | max(k in 0..(wt[i-1] == 0 ? cnt[i-1] : min(cnt[i-1], w / wt[i-1])): cell[i-1][w - k*wt[i-1]] + k*val[i-1])   otherwise
`, n, dptest.Join(dptest.Ints(r, n, 0, m+2)), n, dptest.Join(dptest.Ints(r, n, 1, 30)), n, dptest.Join(dptest.Ints(r, n, 0, 4)), m)
}

func genUnbounded(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d wt = %s
int 1x%d val = %s
int cap = %d
(len(wt)+1) x (cap+1)
cell[i][w] = 0                                                          when i == 0
           | max(k in 0..w / wt[i-1]: cell[i-1][w - k*wt[i-1]] + k*val[i-1])   otherwise
`, n, dptest.Join(dptest.Ints(r, n, 1, m+2)), n, dptest.Join(dptest.Ints(r, n, 1, 30)), m)
}

// genBackward is a backward wavefront: paths to the bottom-right corner.
func genBackward(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d W = %s
%d x %d
cell[i][j] = W[j]                                          when i == ROWS-1 || j == COLS-1
           | (cell[i+1][j] + cell[i][j+1] + cell[i+1][j+1]) %% 10007    otherwise
`, m, dptest.Join(dptest.Ints(r, m, 0, 9)), n, m)
}

// genCols can only run by columns: the row read is data-dependent.
func genCols(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d A = %s
int 1x%d B = %s
%d x %d
cell[i][j] = A[i]                                                   when j == 0
           | max(cell[i][j-1], cell[(i+B[j]) %% ROWS][j-1]) - 1 + B[j]   otherwise
`, n, dptest.Join(dptest.Ints(r, n, -5, 20)), m, dptest.Join(dptest.Ints(r, m, 0, 7)), n, m)
}

// genMinPlus is a shortest path with walls of inf: saturating arithmetic.
func genMinPlus(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int ?x? W = %s
%d x %d
cell[i][j] = 0                          when i == 0 && j == 0
           | inf                        when W[i][j] < 0
           | min(i > 0 ? cell[i-1][j] : inf, j > 0 ? cell[i][j-1] : inf) + W[i][j]   otherwise
`, matrix(r, n, m, -2, 9), n, m)
}

// genSink exercises the operators on a rows schedule.
func genSink(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d A = %s
double 1x%d F = %s
int k = %d
%d x %d
cell[i][j] = A[j] + i                                        when i == 0
           | -cell[i-1][j] / 3 + abs(A[j]) %% 5               when j %% 3 == 0 && !(A[j] < 0)
           | (A[j] > 2 ? cell[i-1][(j+k) %% COLS] : cell[i-1][j] * 2) - (j / (A[j] == 0 ? 1 : A[j]))   when i %% 2 == 1
           | floor(F[j] * 2.5) + sqrt(abs(F[j])) + pow(2, j %% 4) + sum(q in 0..2: cell[i-1][(j+q) %% COLS]) / 4.0 when i %% 4 == 2
           | min(q in 1..i: cell[i-1][j] - q) + max(cell[i-1][j], 7, A[j])      otherwise
`, m, dptest.Join(dptest.Ints(r, m, -9, 9)), m, dptest.Join(dptest.Ints(r, m, -50, 50)), r.IntN(5), n, m)
}

func genLookback(r *rand.Rand, n, _ int) string {
	return dptest.Lookback(max(n, 1))
}

// genSums reads the row being computed two lanes back and through ?:.
func genSums(r *rand.Rand, n, m int) string {
	return fmt.Sprintf(`int 1x%d A = %s
%d x %d
cell[i][j] = A[j]                                          when j < 2
           | cell[i][j-2] + A[j]                           when i == 0
           | cell[i][j-1] > cell[i-1][j] ? cell[i][j-2] - 1 : cell[i-1][j-1] + 2     when A[j] > 5
           | max(cell[i-1][j], cell[i][j-1] - 1, cell[i][j-2] + A[j] - 3)   otherwise
`, m, dptest.Join(dptest.Ints(r, m, 0, 9)), n, m)
}

func withCell(src string, t ir.Type) string {
	if t == ir.Int || strings.Contains(src, "cell: ") {
		return src
	}
	return "cell: " + t.String() + "\n" + src
}

var sizes = [][2]int{{1, 1}, {1, 9}, {9, 1}, {2, 2}, {17, 33}, {33, 17}, {64, 70}}

// TestBatchedMatchesReference runs every problem through the kernels, with
// whole-grid and per-batch specialisation and several batch widths, and
// compares each cell with the general evaluator.
func TestBatchedMatchesReference(t *testing.T) {
	r := dptest.Rand(t)
	for _, pr := range problemsUnderTest {
		for _, sz := range sizes {
			for _, ct := range []ir.Type{ir.Int, ir.Long, ir.Float, ir.Double} {
				if (ct == ir.Float && !pr.float) || (ct == ir.Double && !pr.double) {
					continue
				}
				src := withCell(pr.gen(r, sz[0], sz[1]), ct)
				name := fmt.Sprintf("%s/%dx%d/%s", pr.name, sz[0], sz[1], ct)
				t.Run(name, func(t *testing.T) {
					p, pl := dptest.Load(t, pr.name+".dp", src)
					axis, stepDesc, laneDesc := scheduleOf(pl)
					want, wantErr := reference(p, axis, stepDesc, laneDesc)
					for _, width := range []int{1, 3, 8, 64} {
						for _, perBatch := range []bool{false, true} {
							got, _, err := batched(p, axis, stepDesc, laneDesc, width, perBatch)
							if (err != nil) != (wantErr != nil) {
								t.Fatalf("width %d perBatch %v: error %v, want %v\n%s", width, perBatch, err, wantErr, src)
							}
							if err != nil {
								continue
							}
							if d := sameGrid(want, got); d != nil {
								t.Fatalf("%s (schedule %s %s) width %d perBatch %v: %v\n%s", pr.name, pl.Schedule, pl.Direction, width, perBatch, d, src)
							}
						}
					}
				})
			}
		}
	}
}

// TestKernelsSpecialise checks that interior regions get kernels without
// the boundary cases, and that the cache shares them.
func TestKernelsSpecialise(t *testing.T) {
	r := dptest.Rand(t)
	p, _ := dptest.Load(t, "lcs.dp", genLCS(r, 300, 300))
	rec, err := Compile(p, AlongJ, false)
	if err != nil {
		t.Fatal(err)
	}
	k1, _ := rec.Kernel(10, 20, 10, 200)
	k2, _ := rec.Kernel(100, 120, 5, 300)
	k3, _ := rec.Kernel(0, 20, 0, 200)
	if k1 != k2 {
		t.Errorf("two interior regions got different kernels")
	}
	if k1 == k3 {
		t.Errorf("the corner region got the interior kernel")
	}
	if k1.fast == nil {
		t.Errorf("the interior LCS kernel has no fast scan")
	}
	if rec.Kernels() != 2 {
		t.Errorf("%d kernels compiled, want 2", rec.Kernels())
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"cell outside", `int 1x4 A = 1,2,3,4
3 x 4
cell[i][j] = A[j]  when i == 0
           | cell[i-1][j+1] + 1  otherwise
`, "t.dp:4:14: cell[i-1][j+1] reads cell[0][4], outside the 3x4 grid"},
		{"input outside", `int 1x4 A = 1,2,3,4
3 x 5
cell[i][j] = A[j]  when i == 0
           | cell[i-1][j] + 1  otherwise
`, "t.dp:3:14: A[4] is outside A, which has 4 elements (0..3)"},
		{"division by zero", `int 1x4 A = 1,0,3,4
3 x 4
cell[i][j] = 10 / A[j]  when i == 0
           | cell[i-1][j] + 1  otherwise
`, "t.dp:3:17: division by zero"},
		{"overflow", `int 1x4 A = 1,2,3,4
40 x 4
cell[i][j] = A[j]  when i == 0
           | cell[i-1][j] * 3  otherwise
`, "t.dp:4:27: overflow computing cell[19][1]: 774840978 * 3 does not fit in int (finite range ±2,147,483,646); use cell: long"},
		{"guarded read is fine", `int 1x4 A = 1,2,3,4
3 x 4
cell[i][j] = A[j]  when i == 0
           | j > 0 && cell[i-1][j-1] > 2 ? cell[i-1][j-1] : A[j]  otherwise
`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, pl := dptest.Load(t, "t.dp", tc.src)
			axis, stepDesc, laneDesc := scheduleOf(pl)
			_, wantErr := reference(p, axis, stepDesc, laneDesc)
			for _, width := range []int{1, 4, 64} {
				_, _, err := batched(p, axis, stepDesc, laneDesc, width, width == 4)
				if tc.want == "" {
					if err != nil || wantErr != nil {
						t.Fatalf("error %v (reference %v), want none", err, wantErr)
					}
					continue
				}
				if err == nil || !strings.Contains(errText(err), tc.want) {
					t.Errorf("width %d: error %q, want %q", width, errText(err), tc.want)
				}
				if wantErr == nil || !strings.Contains(errText(wantErr), tc.want) {
					t.Errorf("reference: error %q, want %q", errText(wantErr), tc.want)
				}
			}
		})
	}
}
