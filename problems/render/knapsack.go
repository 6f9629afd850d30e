package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/ir"
)

// take is one item of a knapsack solution: its 1-based number (as in
// Pisinger's files) and how many copies were taken.
type take struct {
	item  int
	count int64
}

// knapsackItems reads the items off a knapsack path. Row i of the grid
// decides item i-1 (0-based), so a path step from (i-1, w') to (i, w) took
// (w - w') / wt[i-1] copies of it. An item of weight 0 leaves no trace in the
// columns; its count then comes from the rise in value, which needs the
// grid. Every step must go down exactly one row and never left.
func knapsackItems(path [][2]int64, wt, val []int64, grid *backend.Grid) ([]take, bool) {
	var items []take
	for k := 1; k < len(path); k++ {
		i, w := path[k][0], path[k][1]
		pi, pw := path[k-1][0], path[k-1][1]
		if i-pi != 1 || i < 1 || i > int64(len(wt)) || w < pw || pw < 0 {
			return nil, false
		}
		weight, value := wt[i-1], val[i-1]
		var n int64
		switch {
		case weight > 0:
			if (w-pw)%weight != 0 {
				return nil, false
			}
			n = (w - pw) / weight
		case w != pw:
			return nil, false
		case grid != nil && value > 0 && i < grid.Rows && w < grid.Cols && grid.T.IsInteger():
			rise := grid.At(i, w).I - grid.At(pi, pw).I
			if rise < 0 || rise%value != 0 {
				return nil, false
			}
			n = rise / value
		}
		if n > 0 {
			items = append(items, take{int(i), n})
		}
	}
	return items, true
}

// knapsack lists the items taken, with their counts when an item is taken
// more than once, and the total weight and value.
func knapsack(p *ir.Problem, res *backend.Result) (string, bool) {
	wtIn, valIn := intInput(p, "wt"), intInput(p, "val")
	if wtIn == nil || valIn == nil || wtIn.Len() != valIn.Len() {
		return "", false
	}
	items, ok := knapsackItems(res.Path, wtIn.I, valIn.I, res.Grid)
	if !ok {
		return "", false
	}
	var weight, value int64
	multi := false
	words := make([]string, len(items))
	for k, it := range items {
		weight += it.count * wtIn.I[it.item-1]
		value += it.count * valIn.I[it.item-1]
		multi = multi || it.count > 1
		words[k] = strconv.Itoa(it.item)
	}
	if multi {
		for k, it := range items {
			words[k] = fmt.Sprintf("%d (x%d)", it.item, it.count)
		}
	}
	var out strings.Builder
	if len(items) == 0 {
		out.WriteString("no items\n")
	} else {
		sep := " "
		if multi {
			sep = ", "
		}
		writeWords(&out, "items ", words, sep)
	}
	capacity := p.Cols - 1
	if c, ok := intScalar(p, "cap"); ok {
		capacity = c
	}
	fmt.Fprintf(&out, "weight %d of %d, value %d", weight, capacity, value)
	return out.String(), true
}

// writeWords writes words joined by sep after head, wrapping lines at about
// 72 characters; continuation lines are indented under the first word.
func writeWords(out *strings.Builder, head string, words []string, sep string) {
	line := head
	indent := strings.Repeat(" ", len(head))
	for k, w := range words {
		piece := w
		if k < len(words)-1 {
			piece += strings.TrimRight(sep, " ")
		}
		if len(line) > len(head) && len(line)+1+len(piece) > 72 {
			out.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		} else if len(line) > len(head) {
			line += " "
		}
		line += piece
	}
	out.WriteString(line + "\n")
}
