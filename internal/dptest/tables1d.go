package dptest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Several tables on a 1-D grid (contract v2 §7.1 with §7.2): the textbook
// problems whose state at a position is a handful of values — a stock held
// or not, the length and the count of the longest increasing subsequences
// ending here, an HMM's states. The references are plain Go, written here
// from the definitions; the grids they return are the flat row the engine
// computes (table t's cell [j] at column j*T + t of the 1 x N*T grid).

// Table1D is one instance: its source, the flat row of every table's
// cells and the answer (an expression of cells, not one cell). Tol is the
// relative tolerance of its floating-point cells (0: exact).
type Table1D struct {
	Name   string
	Src    string
	Flat   [][]float64
	Answer float64
	Tol    float64
}

// Tables1DCases are the 1-D problems of several tables at size n >= 1.
func Tables1DCases(r *rand.Rand, n int) []Table1D {
	return []Table1D{UpDown1D(r, n), StockCooldown(r, n), NumberOfLIS(r, n), HMMForward(r, n)}
}

// flatRow lays tables side by side as the lowering does: table t's cell j
// at column j*T + t.
func flatRow(tables ...[]float64) [][]float64 {
	T, n := len(tables), len(tables[0])
	row := make([]float64, T*n)
	for t, tab := range tables {
		for j, v := range tab {
			row[j*T+t] = v
		}
	}
	return [][]float64{row}
}

// UpDown1D is UpDown written as a 1-D grid: U[j], D[j].
func UpDown1D(r *rand.Rand, n int) Table1D {
	src, flat, ans := UpDown(r, n)
	src = strings.NewReplacer("problem updown", "problem updown1d", "1 x len(a)", "len(a)",
		"[i][j]", "[j]", "[i][k]", "[k]", "[0][j]", "[j]", "COLS-1", "DIM0-1").Replace(src)
	return Table1D{Name: "updown1d", Src: src, Flat: flat, Answer: ans}
}

// StockCooldown is the best profit from trading a stock at prices p with a
// day of cooldown after each sale (three states a day: holding, sold
// today, resting), answer the better of the last day's two states without
// the stock.
func StockCooldown(r *rand.Rand, n int) Table1D {
	p := Ints(r, n, 0, 50)
	hold, sold, rest := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		if i == 0 {
			hold[i], sold[i], rest[i] = float64(-p[0]), math.Inf(-1), 0
			continue
		}
		hold[i] = max(hold[i-1], rest[i-1]-float64(p[i]))
		sold[i] = hold[i-1] + float64(p[i])
		rest[i] = max(rest[i-1], sold[i-1])
	}
	src := fmt.Sprintf(`problem stock
int 1x? p = %s
len(p)
hold[i] = -p[0]                                when i == 0
        | max(hold[i-1], rest[i-1] - p[i])     otherwise
sold[i] = -inf                                 when i == 0
        | hold[i-1] + p[i]                     otherwise
rest[i] = 0                                    when i == 0
        | max(rest[i-1], sold[i-1])            otherwise
answer: max(sold[len(p)-1], rest[len(p)-1])
`, Join(p))
	return Table1D{Name: "stock", Src: src, Flat: flatRow(hold, sold, rest), Answer: max(sold[n-1], rest[n-1])}
}

// NumberOfLIS counts the longest strictly increasing subsequences of a
// (LeetCode 673): L[j] is the length of the longest ending at j, N[j] how
// many of that length end there; N reads L at its own cell.
func NumberOfLIS(r *rand.Rand, n int) Table1D {
	a := Ints(r, n, 0, 12)
	L, N := make([]float64, n), make([]float64, n)
	for j := range n {
		L[j] = 1
		for k := range j {
			if a[k] < a[j] {
				L[j] = max(L[j], L[k]+1)
			}
		}
		if L[j] == 1 {
			N[j] = 1
			continue
		}
		for k := range j {
			if a[k] < a[j] && L[k]+1 == L[j] {
				N[j] += N[k]
			}
		}
	}
	best, count := 0.0, 0.0
	for j := range n {
		switch {
		case L[j] > best:
			best, count = L[j], N[j]
		case L[j] == best:
			count += N[j]
		}
	}
	src := fmt.Sprintf(`problem nlis
int 1x? a = %s
len(a)
cell: long
L[j] = 1 + max(0, max(k in 0..j-1: a[k] < a[j] ? L[k] : 0))
N[j] = 1                                                           when L[j] == 1
     | sum(k in 0..j-1: a[k] < a[j] && L[k] + 1 == L[j] ? N[k] : 0)   otherwise
answer: sum(j in 0..len(a)-1: L[j] == max(k in 0..len(a)-1: L[k]) ? N[j] : 0)
`, Join(a))
	return Table1D{Name: "nlis", Src: src, Flat: flatRow(L, N), Answer: count}
}

// HMMForward is the forward algorithm of a two-state hidden Markov model
// (a fair and a loaded die) over rolls x: F[t] and G[t] are the joint
// probabilities of the first t+1 rolls and the state at t; the answer is
// the probability of all rolls.
func HMMForward(r *rand.Rand, n int) Table1D {
	x := Ints(r, n, 1, 6)
	const stay, loaded6 = 0.95, 0.5
	emitF := func(int) float64 { return 1.0 / 6 }
	emitG := func(v int) float64 {
		if v == 6 {
			return loaded6
		}
		return (1 - loaded6) / 5
	}
	F, G := make([]float64, n), make([]float64, n)
	for t := range n {
		if t == 0 {
			F[t], G[t] = 0.5*emitF(x[0]), 0.5*emitG(x[0])
			continue
		}
		F[t] = (F[t-1]*stay + G[t-1]*(1-stay)) * emitF(x[t])
		G[t] = (F[t-1]*(1-stay) + G[t-1]*stay) * emitG(x[t])
	}
	src := fmt.Sprintf(`problem hmm
int 1x? x = %s
double stay = %v
double six = %v
len(x)
cell: double
F[t] = 0.5 / 6                                                  when t == 0
     | (F[t-1]*stay + G[t-1]*(1 - stay)) / 6                    otherwise
G[t] = 0.5 * (x[t] == 6 ? six : (1 - six) / 5)                  when t == 0
     | (F[t-1]*(1 - stay) + G[t-1]*stay) * (x[t] == 6 ? six : (1 - six) / 5)   otherwise
answer: F[len(x)-1] + G[len(x)-1]
`, Join(x), stay, loaded6)
	return Table1D{Name: "hmm", Src: src, Flat: flatRow(F, G), Answer: F[n-1] + G[n-1], Tol: 1e-12}
}
