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
				for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
					row := lastRow(kind, a, b)
					for _, semi := range []bool{false, true} {
						want := bitpar.Result{Score: row[n], At: int64(n)}
						if semi {
							want.At = 0
							for j, v := range row {
								if kind == plan.BitLCS && v > row[want.At] || kind != plan.BitLCS && v < row[want.At] {
									want.At = int64(j)
								}
							}
							want.Score = row[want.At]
						}
						got, err := bitpar.Solve(context.Background(), kind, []byte(a), []byte(b), semi, nil)
						if err != nil || got != want {
							t.Fatalf("%s %dx%d alphabet %d semi %v: got %+v, %v; want %+v", kind, m, n, len(alpha), semi, got, err, want)
						}
					}
				}
			}
		}
	}
}

func TestSolveCancelAndProgress(t *testing.T) {
	r := dptest.Rand(t)
	a, b := dptest.DNA(r, 100), dptest.DNA(r, 1<<16)
	var calls, last int64
	_, err := bitpar.Solve(context.Background(), plan.BitLevenshtein, []byte(a), []byte(b), false, func(done, total int64) {
		calls++
		if done < last || total != int64(len(b)) {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	})
	if err != nil || calls < 2 || last != int64(len(b)) {
		t.Fatalf("err %v, %d progress calls, last %d", err, calls, last)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := bitpar.Solve(ctx, plan.BitLCS, []byte(a), []byte(b), false, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
}

func BenchmarkSolve(b *testing.B) {
	r := dptest.Rand(b)
	x, y := dptest.DNA(r, 20000), dptest.DNA(r, 20000)
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein} {
		b.Run(fmt.Sprint(kind), func(b *testing.B) {
			for k := 0; k < b.N; k++ {
				bitpar.Solve(context.Background(), kind, []byte(x), []byte(y), false, nil)
			}
			b.ReportMetric(float64(len(x))*float64(len(y))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
		})
	}
}
