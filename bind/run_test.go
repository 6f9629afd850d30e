package bind_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/internal/dptest"
	"github.com/dpgpu/dpgpu/ir"
)

// TestInfDataRuns: a distance matrix whose missing edges are inf, inline
// or in a .txt file, runs on the CPU executor with the inf rules (inf + x
// is inf), as plain Go computes the same shortest paths. A scalar that
// reduces over the matrix bounds the number of steps.
func TestInfDataRuns(t *testing.T) {
	r := dptest.Rand(t)
	for trial := 0; trial < 20; trial++ {
		n := 2 + r.IntN(7)
		typ := []string{"int", "long", "short"}[trial%3]
		const missing = -1
		d := make([][]int64, n)
		var rows, lines []string
		for u := range d {
			d[u] = make([]int64, n)
			var row []string
			for v := range d[u] {
				switch {
				case u == v:
					d[u][v] = 0
				case r.IntN(3) == 0:
					d[u][v] = missing
				default:
					d[u][v] = int64(1 + r.IntN(50))
				}
				if d[u][v] == missing {
					row = append(row, []string{"inf", "+inf", "Inf"}[r.IntN(3)])
				} else {
					row = append(row, fmt.Sprint(d[u][v]))
				}
			}
			rows = append(rows, strings.Join(row, ","))
			lines = append(lines, strings.Join(row, " "))
		}
		// steps: the number of finite edges, at most n-1 (a path needs no more).
		src := fmt.Sprintf(`%s ?x? D = %s
int n = %d
int steps = min(n - 1, sum(u in 0..rows(D)-1: sum(v in 0..cols(D)-1: D[u][v] < inf && u != v ? 1 : 0)))
cell: %s
(steps + 1) x rows(D)
cell[t][v] = 0                   when t == 0 && v == 0
           | inf                 when t == 0
           | min(cell[t-1][v], min(u in 0..COLS-1: cell[t-1][u] + D[u][v]))   otherwise
answer: cell[ROWS-1][COLS-1]
`, typ, strings.Join(rows, " & "), n, typ)

		// The reference: Bellman-Ford rounds over the finite edges.
		edges := 0
		for u := range d {
			for v := range d[u] {
				if u != v && d[u][v] != missing {
					edges++
				}
			}
		}
		steps := min(n-1, edges)
		const inf = int64(1) << 62
		dist := make([]int64, n)
		for v := range dist {
			dist[v] = inf
		}
		dist[0] = 0
		for s := 0; s < steps; s++ {
			next := append([]int64(nil), dist...)
			for u := range d {
				for v := range d[u] {
					if d[u][v] != missing && dist[u] < inf {
						next[v] = min(next[v], dist[u]+d[u][v])
					}
				}
			}
			dist = next
		}

		for _, how := range []string{"inline", "file"} {
			var opts []dptest.Option
			text := src
			if how == "file" {
				opts = append(opts, dptest.Files(map[string]string{"d.txt": strings.Join(lines, "\n") + "\n"}))
				text = strings.Replace(src, "= "+strings.Join(rows, " & "), `= @"d.txt"`, 1)
			}
			p, pl := dptest.Load(t, "sp.dp", text, opts...)
			if got := p.Scalar("steps").Value.I; got != int64(steps) {
				t.Fatalf("%s: steps = %d, want %d\n%s", how, got, steps, text)
			}
			res, err := cpu.New(2).Run(context.Background(), p, pl, backend.Options{Maintain: true})
			if err != nil {
				t.Fatalf("%s: %v\n%s", how, err, text)
			}
			pos, _ := ir.InfSentinel(p.CellType)
			for v := int64(0); v < p.Cols; v++ {
				got, want := res.Grid.At(p.Rows-1, v).I, dist[v]
				if want == inf {
					want = pos
				}
				if got != want {
					t.Fatalf("%s %s: dist[%d] = %d, want %d\n%s", how, typ, v, got, want, text)
				}
			}
		}
	}
}

// TestInfDataSaturates: inf in an integer input makes the arithmetic that
// reads it follow the inf rules even where no cell can be inf: D + 1 is
// inf where D is, not an overflow.
func TestInfDataSaturates(t *testing.T) {
	for _, typ := range []string{"short", "int", "long"} {
		src := fmt.Sprintf("%s 2x3 D = 1, inf, -inf & -5, 7, inf\ncell: %s\nrows(D) x cols(D)\ncell[i][j] = D[i][j] * 2 + 1\n", typ, typ)
		p, pl := dptest.Load(t, "s.dp", src)
		res, err := cpu.New(1).Run(context.Background(), p, pl, backend.Options{Maintain: true})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		pos, neg := ir.InfSentinel(p.CellType)
		want := []int64{3, pos, neg, -9, 15, pos}
		for k, w := range want {
			if got := res.Grid.At(int64(k/3), int64(k%3)).I; got != w {
				t.Errorf("%s: cell[%d][%d] = %d, want %d", typ, k/3, k%3, got, w)
			}
		}
	}
}
