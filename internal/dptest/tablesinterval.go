package dptest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Interval DP over several tables (contract v2 §7.2 with §7.3): each table
// of an interval cell [i][j] reads the others over ranges of shorter
// intervals, and earlier tables at the same cell. The references are
// plain Go, written here from the definitions; the grids they return are
// the flat ones the engine computes (sema's lowering: table t's cell
// [i][j] at column j*T + t), so that a test compares every cell.

// BoolParen counts the ways to parenthesise the boolean expression s[0]
// o[0] s[1] o[1] ... s[n-1] (symbols 'T'/'F', operators '&', '|', '^') so
// that it is true (table T) or false (table F): the textbook's Boolean
// parenthesization problem. Cells with i > j hold 0. The counts are long;
// they stay finite up to n = 30 (at most Catalan(29) ways in all).
func BoolParen(r *rand.Rand, n int) (src string, flat [][]float64, answer float64) {
	sym, ops := make([]byte, n), make([]byte, n)
	for k := range n {
		sym[k] = "TF"[r.IntN(2)]
		ops[k] = "&|^"[r.IntN(3)]
	}
	tv, fv := NewGrid(n, n), NewGrid(n, n)
	for d := 0; d < n; d++ {
		for i := 0; i+d < n; i++ {
			j := i + d
			if d == 0 {
				if sym[i] == 'T' {
					tv[i][j] = 1
				} else {
					fv[i][j] = 1
				}
				continue
			}
			var t, f float64
			for k := i; k < j; k++ {
				a, b, c, e := tv[i][k], fv[i][k], tv[k+1][j], fv[k+1][j]
				switch ops[k] {
				case '&':
					t += a * c
					f += (a+b)*(c+e) - a*c
				case '|':
					t += (a+b)*(c+e) - b*e
					f += b * e
				default:
					t += a*e + b*c
					f += a*c + b*e
				}
			}
			tv[i][j], fv[i][j] = t, f
		}
	}
	flat = NewGrid(n, 2*n)
	for i := range n {
		for j := range n {
			flat[i][2*j], flat[i][2*j+1] = tv[i][j], fv[i][j]
		}
	}
	src = fmt.Sprintf(`problem boolparen
char 1x? s = %q
char 1x? o = %q
len(s) x len(s)
cell: long
T[i][j] = (s[i] == 'T' ? 1 : 0)    when i == j
        | 0                       when i > j
        | sum(k in i..j-1: o[k] == '&' ? T[i][k]*T[k+1][j]
                         : o[k] == '|' ? (T[i][k] + F[i][k])*(T[k+1][j] + F[k+1][j]) - F[i][k]*F[k+1][j]
                         : T[i][k]*F[k+1][j] + F[i][k]*T[k+1][j])   otherwise
F[i][j] = (s[i] == 'F' ? 1 : 0)    when i == j
        | 0                       when i > j
        | sum(k in i..j-1: o[k] == '&' ? (T[i][k] + F[i][k])*(T[k+1][j] + F[k+1][j]) - T[i][k]*T[k+1][j]
                         : o[k] == '|' ? F[i][k]*F[k+1][j]
                         : T[i][k]*T[k+1][j] + F[i][k]*F[k+1][j])   otherwise
answer: T[0][COLS-1]
`, string(sym), string(ops))
	return src, flat, tv[0][n-1]
}

// TablesChain is an interval DP of tables X0..X{T-1} (T >= 2): X_t[i][j]
// is A[i] + t on the diagonal, 0 below it, and above it the least over k
// of X_t[i][k] + X_{t-1 mod T}[k+1][j], plus X_{t-1}[i][j] % 5 (the
// earlier table at the same cell) or 1 for X0. X0 reading X_{T-1} one row
// down makes its flat order t = J - T*i, beyond the coefficients the
// planner tries for one table when T > 3.
func TablesChain(r *rand.Rand, n, tables int) (src string, flat [][]float64, answer float64) {
	a := Ints(r, n, -50, 50)
	g := make([][][]int64, tables)
	for t := range g {
		g[t] = make([][]int64, n)
		for i := range g[t] {
			g[t][i] = make([]int64, n)
		}
	}
	for d := 0; d < n; d++ {
		for i := 0; i+d < n; i++ {
			j := i + d
			for t := 0; t < tables; t++ {
				if d == 0 {
					g[t][i][j] = int64(a[i] + t)
					continue
				}
				best := int64(1) << 62
				for k := i; k < j; k++ {
					best = min(best, g[t][i][k]+g[(t+tables-1)%tables][k+1][j])
				}
				if t > 0 {
					best += g[t-1][i][j] % 5
				} else {
					best++
				}
				g[t][i][j] = best
			}
		}
	}
	flat = NewGrid(n, tables*n)
	for i := range n {
		for j := range n {
			for t := range tables {
				flat[i][j*tables+t] = float64(g[t][i][j])
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "problem tableschain\nint 1x? A = %s\nlen(A) x len(A)\ncell: long\n", Join(a))
	for t := 0; t < tables; t++ {
		add := "1"
		if t > 0 {
			add = fmt.Sprintf("X%d[i][j] %% 5", t-1)
		}
		fmt.Fprintf(&b, "X%d[i][j] = A[i] + %d   when i == j\n        | 0   when i > j\n        | min(k in i..j-1: X%d[i][k] + X%d[k+1][j]) + %s   otherwise\n",
			t, t, t, (t+tables-1)%tables, add)
	}
	fmt.Fprintf(&b, "answer: X%d[0][COLS-1]\n", tables-1)
	return b.String(), flat, float64(g[tables-1][0][n-1])
}

// UpDown is a 1-D look-back over two tables on a 1 x n grid: U[0][j] is the
// longest strictly increasing subsequence of a ending at a[j], D[0][j] the
// longest that ends at a[j] going down after going up (a[k] > a[j], from
// either table). Both read every earlier cell of both tables. The answer is
// the longest of all, a region's maximum.
func UpDown(r *rand.Rand, n int) (src string, flat [][]float64, answer float64) {
	a := Ints(r, n, 0, 20)
	u, d := make([]float64, n), make([]float64, n)
	for j := range n {
		bu, bd := 0.0, 0.0
		for k := range j {
			if a[k] < a[j] {
				bu = max(bu, u[k])
			}
			if a[k] > a[j] {
				bd = max(bd, d[k], u[k])
			}
		}
		u[j], d[j] = 1+bu, 1+bd
		answer = max(answer, u[j], d[j])
	}
	flat = NewGrid(1, 2*n)
	for j := range n {
		flat[0][2*j], flat[0][2*j+1] = u[j], d[j]
	}
	src = fmt.Sprintf(`problem updown
int 1x? a = %s
1 x len(a)
U[i][j] = 1 + max(0, max(k in 0..j-1: a[k] < a[j] ? U[i][k] : 0))
D[i][j] = 1 + max(0, max(k in 0..j-1: a[k] > a[j] ? max(D[i][k], U[i][k]) : 0))
answer: max(j in 0..COLS-1: max(U[0][j], D[0][j]))
`, Join(a))
	return src, flat, answer
}
