package render

import (
	"fmt"
	"strings"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// manhattan prints the tourist's route as S (south) and E (east) moves from
// the north-west corner, and its total weight summed from the street
// weights.
func manhattan(p *ir.Problem, res *backend.Result) (string, bool) {
	down, right := intInput(p, "down"), intInput(p, "right")
	if down == nil || right == nil {
		return "", false
	}
	path := res.Path
	// A recurrence that starts its edges with sums rather than moves ends
	// the traceback on row 0 or column 0: the way from the corner is then
	// straight east or straight south.
	var moves []byte
	var total int64
	var i, j int64
	// move walks one street from (i, j): its weight is weights[i][j], and
	// it goes di down and dj right.
	move := func(weights *ir.Input, di, dj int64, name byte) bool {
		if i < 0 || i >= int64(weights.Rows) || j < 0 || j >= int64(weights.Cols) {
			return false
		}
		total += weights.I[i*int64(weights.Cols)+j]
		i, j = i+di, j+dj
		moves = append(moves, name)
		return true
	}
	south := func() bool { return move(down, 1, 0, 'S') }
	east := func() bool { return move(right, 0, 1, 'E') }
	first := path[0]
	if first[0] != 0 && first[1] != 0 {
		return "", false
	}
	for i < first[0] {
		if !south() {
			return "", false
		}
	}
	for j < first[1] {
		if !east() {
			return "", false
		}
	}
	for _, c := range path[1:] {
		var ok bool
		switch {
		case c[0] == i+1 && c[1] == j:
			ok = south()
		case c[0] == i && c[1] == j+1:
			ok = east()
		}
		if !ok {
			return "", false
		}
	}
	var out strings.Builder
	if len(moves) == 0 {
		out.WriteString("(no moves)\n")
	}
	for _, line := range chunks(string(moves), width) {
		out.WriteString(line + "\n")
	}
	s := strings.Count(string(moves), "S")
	fmt.Fprintf(&out, "%d south, %d east, total weight %d", s, len(moves)-s, total)
	return out.String(), true
}
