package render

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// The renderers of 1-D look-back problems (contract v2 §7.1): the path of
// a traceback over a 1-D grid visits cells [0][j] by increasing j.

// The path renderers of the 1-D built-ins.
var (
	// LIS renders a longest increasing subsequence (input a): its values
	// and their positions.
	LIS = traced(lis)

	// CoinChange renders the coins of a fewest-coins change (input c,
	// scalar amount), largest first, or that no combination makes the
	// amount.
	CoinChange = traced(coinChange)
)

// columns are the columns of a path over a 1-D grid, or false when it is
// not one (rows other than 0, or not increasing).
func columns(p *ir.Problem, path [][2]int64) ([]int64, bool) {
	if p.Rows != 1 {
		return nil, false
	}
	js := make([]int64, len(path))
	for k, c := range path {
		if c[0] != 0 || c[1] < 0 || c[1] >= p.Cols || (k > 0 && c[1] <= js[k-1]) {
			return nil, false
		}
		js[k] = c[1]
	}
	return js, true
}

// lis writes the subsequence's values and their positions (0-based, as
// a[k] in the file), which must increase strictly.
func lis(p *ir.Problem, res *backend.Result) (string, bool) {
	a := intInput(p, "a")
	js, ok := columns(p, res.Path)
	if a == nil || !ok || int64(a.Len()) != p.Cols {
		return "", false
	}
	values, at := make([]string, len(js)), make([]string, len(js))
	for k, j := range js {
		if k > 0 && a.I[j] <= a.I[js[k-1]] {
			return "", false
		}
		values[k], at[k] = strconv.FormatInt(a.I[j], 10), strconv.FormatInt(j, 10)
	}
	var out strings.Builder
	writeWords(&out, "values    ", values, " ")
	writeWords(&out, "positions ", at, " ")
	fmt.Fprintf(&out, "length %d", len(js))
	return out.String(), true
}

// coinChange writes the coins: each step of the path from amount s to s'
// adds one coin of value s' - s, which must be one of c. The path starts
// at 0 when the amount is made; otherwise the answer is inf and there is
// nothing to list.
func coinChange(p *ir.Problem, res *backend.Result) (string, bool) {
	c := intInput(p, "c")
	js, ok := columns(p, res.Path)
	if c == nil || !ok {
		return "", false
	}
	amount := js[len(js)-1]
	if isInf(res.Answer) {
		return fmt.Sprintf("no combination of the coins makes %d", amount), true
	}
	if js[0] != 0 {
		return "", false
	}
	var coins []int64
	for k := 1; k < len(js); k++ {
		v := js[k] - js[k-1]
		if !slices.Contains(c.I, v) {
			return "", false
		}
		coins = append(coins, v)
	}
	slices.SortFunc(coins, func(x, y int64) int { return cmp.Compare(y, x) })
	words := make([]string, len(coins))
	for k, v := range coins {
		words[k] = strconv.FormatInt(v, 10)
	}
	var out strings.Builder
	if len(coins) == 0 {
		out.WriteString("no coins\n")
	} else {
		writeWords(&out, "coins ", words, " ")
	}
	fmt.Fprintf(&out, "%s, total %d", plural(len(coins), "coin"), amount)
	return out.String(), true
}

// isInf reports whether v is the inf sentinel of its integer type.
func isInf(v ir.Value) bool {
	if !v.T.IsInteger() || !v.T.HasInf() {
		return false
	}
	pos, _ := ir.InfSentinel(v.T)
	return v.I == pos
}
