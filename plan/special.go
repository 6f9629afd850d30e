package plan

import "github.com/dpgpu/dpgpu/ir"

// SpecialKind is an algorithm better than sweeping the recurrence cell by
// cell that the planner recognised in it (issue #13: the user should not
// have to know them).
type SpecialKind string

const (
	// BitLCS: the length of a longest common subsequence (match: the
	// diagonal + 1, else the max of up and left), computed 64 cells per
	// word operation (Allison-Dix / Hyyrö).
	BitLCS SpecialKind = "lcs"
	// BitLevenshtein: unit-cost edit distance (Myers 1999 / Hyyrö).
	BitLevenshtein SpecialKind = "levenshtein"
	// BitIndel: edit distance with insertions and deletions only.
	BitIndel SpecialKind = "indel"
)

// Special is the recognised algorithm and what it needs. Executors run it
// instead of the schedule unless asked not to (backend.Options.NoSpecial,
// `--no-special`), and only for what it computes: the answer, score only
// (a traceback, --grid or maintain runs the schedule).
type Special struct {
	Kind SpecialKind
	// Name says it for a person: "bit-parallel LCS (Hyyrö 2004)".
	Name string
	// Why says what in the recurrence matched, for `dpgpu check`.
	Why string
	// A is the sequence along the rows (cell[i][.] follows A[i-1]: the grid
	// has len(A)+1 rows) and B the one along the columns.
	A, B *ir.Input
	// SemiGlobal: the answer is the min (max for LCS) over the last row,
	// i.e. B's end gaps are free; else it is the last cell.
	SemiGlobal bool
}

// recognise looks for a Special in p as planned; nil when none matches
// exactly (anything that does not match runs the schedule).
func recognise(p *ir.Problem, pl *Plan) *Special { return nil }
