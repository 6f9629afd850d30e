package bitpar_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dpgpu/dpgpu/backend/bitpar"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/plan"
)

// lastRow is the last row of the plain DP of kind over a (rows) and b.
func lastRow(kind plan.SpecialKind, a, b string) []int64 {
	prev := make([]int64, len(b)+1)
	cur := make([]int64, len(b)+1)
	for j := range prev {
		if kind != plan.BitLCS {
			prev[j] = int64(j)
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = int64(i)
		if kind == plan.BitLCS {
			cur[0] = 0
		}
		for j := 1; j <= len(b); j++ {
			eq := a[i-1] == b[j-1]
			switch kind {
			case plan.BitLCS:
				if eq {
					cur[j] = prev[j-1] + 1
				} else {
					cur[j] = max(prev[j], cur[j-1])
				}
			case plan.BitLevenshtein:
				d := prev[j-1]
				if !eq {
					d++
				}
				cur[j] = min(d, prev[j]+1, cur[j-1]+1)
			default:
				d := prev[j-1] + 2
				if eq {
					d = prev[j-1]
				}
				cur[j] = min(d, prev[j]+1, cur[j-1]+1)
			}
		}
		prev, cur = cur, prev
	}
	return prev
}

// want is the answer the plain DP's last row gives: the last cell, or
// the best of the row at the first column that reaches it.
func want(kind plan.SpecialKind, row []int64, semi bool) bitpar.Result {
	n := int64(len(row) - 1)
	w := bitpar.Result{Score: row[n], At: n}
	if semi {
		w.At = 0
		for j, v := range row {
			if kind == plan.BitLCS && v > row[w.At] || kind != plan.BitLCS && v < row[w.At] {
				w.At = int64(j)
			}
		}
		w.Score = row[w.At]
	}
	return w
}

// shapes are the cuts the tests force: the one Solve picks (0, 0), and
// strips of a few words over chunks of a few words of columns, so that the
// test sizes take the parallel path with many strips and chunks.
var shapes = [][2]int{{0, 0}, {1, 64}, {2, 128}, {3, 64}, {16, 256}}

var kinds = []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel}

func TestSolveAgainstPlainDP(t *testing.T) {
	r := dptest.Rand(t)
	sizes := []int{0, 1, 2, 63, 64, 65, 127, 128, 1000, 4097}
	for _, alpha := range []string{"AB", "ACGT", "ABCDEFGHIJKLMNOPQRST"} {
		for _, m := range sizes {
			for _, n := range sizes {
				if m*n > 1000*4097 && (m != n) {
					continue
				}
				a, b := dptest.String(r, m, alpha), dptest.String(r, n, alpha)
				for _, kind := range kinds {
					row := lastRow(kind, a, b)
					for _, semi := range []bool{false, true} {
						want := want(kind, row, semi)
						for _, threads := range []int{1, 2, 3, 7} {
							for _, sh := range shapes {
								if sh[0] == 0 && threads == 1 {
									// The public entry point, as the executor calls it.
									got, err := bitpar.Solve(context.Background(), kind, []byte(a), []byte(b), semi, 1, nil)
									if err != nil || got != want {
										t.Fatalf("%s %dx%d alphabet %d semi %v: got %+v, %v; want %+v", kind, m, n, len(alpha), semi, got, err, want)
									}
								}
								got, err := bitpar.SolveShape(context.Background(), kind, []byte(a), []byte(b), semi, threads, sh[0], sh[1], nil)
								if err != nil || got != want {
									t.Fatalf("%s %dx%d alphabet %d semi %v threads %d shape %v: got %+v, %v; want %+v",
										kind, m, n, len(alpha), semi, threads, sh, got, err, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestSolveChosenParallel runs sizes for which Solve itself picks the
// parallel path, and checks that it does.
func TestSolveChosenParallel(t *testing.T) {
	r := dptest.Rand(t)
	for _, sz := range [][2]int{{4500, 9000}, {8000, 8200}} {
		a, b := dptest.DNA(r, sz[0]), dptest.DNA(r, sz[1])
		words := (sz[0] + 63) / 64
		if strip, _ := bitpar.Choose(plan.BitLCS, words, sz[1], 2); strip >= words {
			t.Fatalf("%dx%d: Solve would not run in parallel (strip %d of %d words)", sz[0], sz[1], strip, words)
		}
		for _, kind := range kinds {
			row := lastRow(kind, a, b)
			for _, semi := range []bool{false, true} {
				want := want(kind, row, semi)
				for _, threads := range []int{0, 2, 3, 7} {
					got, err := bitpar.Solve(context.Background(), kind, []byte(a), []byte(b), semi, threads, nil)
					if err != nil || got != want {
						t.Fatalf("%s %dx%d semi %v threads %d: got %+v, %v; want %+v", kind, sz[0], sz[1], semi, threads, got, err, want)
					}
				}
			}
		}
	}
}

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		kind          plan.SpecialKind
		words, n, thr int
		parallel      bool
	}{
		{plan.BitLCS, 1563, 100000, 2, true},
		{plan.BitLevenshtein, 1563, 100000, 2, true},
		{plan.BitLCS, 1563, 100000, 1, false},
		{plan.BitLCS, 4, 1 << 20, 8, false},
		{plan.BitLCS, 1563, 1000, 2, false},
	} {
		strip, chunk := bitpar.Choose(c.kind, c.words, c.n, c.thr)
		if got := strip < c.words; got != c.parallel {
			t.Errorf("%s %d words, %d columns, %d threads: strip %d chunk %d, parallel %v, want %v", c.kind, c.words, c.n, c.thr, strip, chunk, got, c.parallel)
		}
		if strip < c.words && (chunk%64 != 0 || chunk < 64 || strip < 1) {
			t.Errorf("%s %d words: strip %d chunk %d", c.kind, c.words, strip, chunk)
		}
	}
}

func TestSolveCancelAndProgress(t *testing.T) {
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 100), dptest.DNA(r, 1<<16)
	for _, c := range []struct{ threads, strip, chunk int }{{1, 0, 0}, {2, 1, 1024}, {3, 1, 64}, {7, 1, 4096}} {
		var calls, last int64
		_, err := bitpar.SolveShape(context.Background(), plan.BitLevenshtein, []byte(a), []byte(b), false, c.threads, c.strip, c.chunk, func(done, total int64) {
			calls++
			if done < last || total != int64(len(b)) {
				t.Errorf("%+v: progress %d of %d after %d", c, done, total, last)
			}
			last = done
		})
		if err != nil || calls < 2 || last != int64(len(b)) {
			t.Fatalf("%+v: err %v, %d progress calls, last %d", c, err, calls, last)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := bitpar.SolveShape(ctx, plan.BitLCS, []byte(a), []byte(b), false, c.threads, c.strip, c.chunk, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("%+v: cancelled: got %v", c, err)
		}
		// Cancelled half way: every worker stops, none waits for ever.
		ctx, cancel = context.WithCancel(context.Background())
		_, err = bitpar.SolveShape(ctx, plan.BitLCS, []byte(a), []byte(b), true, c.threads, c.strip, c.chunk, func(done, total int64) {
			if done >= total/2 {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%+v: cancelled half way: got %v", c, err)
		}
	}
}

func BenchmarkSolve(b *testing.B) {
	r := dptest.Rand(b)
	x, y := dptest.DNA(r, 20000), dptest.DNA(r, 20000)
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein} {
		b.Run(fmt.Sprint(kind), func(b *testing.B) {
			for k := 0; k < b.N; k++ {
				bitpar.Solve(context.Background(), kind, []byte(x), []byte(y), false, 1, nil)
			}
			b.ReportMetric(float64(len(x))*float64(len(y))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
		})
	}
}

// BenchmarkParallel is LCS and Levenshtein of two random DNA strings of
// 100,000 characters on 1 and 2 threads.
func BenchmarkParallel(b *testing.B) {
	r := dptest.Rand(b)
	x, y := dptest.DNA(r, 100000), dptest.DNA(r, 100000)
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", kind, threads), func(b *testing.B) {
				for k := 0; k < b.N; k++ {
					bitpar.Solve(context.Background(), kind, []byte(x), []byte(y), false, threads, nil)
				}
				b.ReportMetric(float64(len(x))*float64(len(y))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
			})
		}
	}
}

// BenchmarkShape measures where the parallel path starts to pay: patterns
// of a few words to a few thousand over a text of 100,000 characters, on
// one thread and, with the cut forced to strips of half the pattern (at
// most 64 words) or the cut Solve picks, on two.
func BenchmarkShape(b *testing.B) {
	r := dptest.Rand(b)
	y := dptest.DNA(r, 100000)
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein} {
		for _, words := range []int{2, 4, 8, 16, 32, 64, 256} {
			x := dptest.DNA(r, 64*words)
			strip, chunk := bitpar.Choose(kind, 1<<20, len(y), 2)
			strip = min(strip, (words+1)/2)
			for _, c := range []struct {
				name                  string
				threads, strip, chunk int
			}{{"1", 1, 0, 0}, {"2-forced", 2, strip, chunk}, {"2-chosen", 2, 0, 0}} {
				b.Run(fmt.Sprintf("%s/words=%d/threads=%s", kind, words, c.name), func(b *testing.B) {
					for k := 0; k < b.N; k++ {
						bitpar.SolveShape(context.Background(), kind, []byte(x), []byte(y), true, c.threads, c.strip, c.chunk, nil)
					}
					b.ReportMetric(float64(len(x))*float64(len(y))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
				})
			}
		}
	}
}
