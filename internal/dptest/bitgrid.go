package dptest

import "github.com/dpgpu/dpgpu/plan"

// BitGrid is the whole grid, by the definition, of the recurrences the
// planner runs bit-parallel (plan.Special): LCS length (0 on the border),
// unit-cost Levenshtein distance, and indel distance (border i + j), a
// along the rows and b along the columns.
func BitGrid(kind plan.SpecialKind, a, b string) [][]int64 {
	g := make([][]int64, len(a)+1)
	for i := range g {
		g[i] = make([]int64, len(b)+1)
		for j := range g[i] {
			switch {
			case kind == plan.BitLCS && (i == 0 || j == 0):
			case i == 0 || j == 0:
				g[i][j] = int64(i + j)
			case kind == plan.BitLCS && a[i-1] == b[j-1]:
				g[i][j] = g[i-1][j-1] + 1
			case kind == plan.BitLCS:
				g[i][j] = max(g[i-1][j], g[i][j-1])
			case a[i-1] == b[j-1]:
				g[i][j] = g[i-1][j-1]
			case kind == plan.BitIndel:
				g[i][j] = min(g[i-1][j], g[i][j-1]) + 1
			default:
				g[i][j] = min(g[i-1][j-1], g[i-1][j], g[i][j-1]) + 1
			}
		}
	}
	return g
}
