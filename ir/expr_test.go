package ir

import "testing"

// TestWalkSkipsEmits: the emits of min's and max's arguments are no part
// of the value, so Walk, which the planner and the evaluators use to find
// what a value reads, does not visit them.
func TestWalkSkipsEmits(t *testing.T) {
	ref := &CellRef{Node: Node{T: Int}, ID: 0, I: &Const{Node: Node{T: Int}}, J: &Const{Node: Node{T: Int}}}
	emitRef := &CellRef{Node: Node{T: Int}, ID: -1, I: &Const{Node: Node{T: Int}}, J: &Const{Node: Node{T: Int}}}
	call := &Call{Node: Node{T: Int}, Fn: FnMax, Args: []Expr{ref, &Const{Node: Node{T: Int}}}, Emits: []Expr{emitRef, nil}}
	var seen []Expr
	Walk(call, func(e Expr) bool {
		seen = append(seen, e)
		return true
	})
	for _, e := range seen {
		if e == emitRef {
			t.Fatal("Walk visited an argument's emit")
		}
	}
	if len(seen) != 5 { // the call, the reference and its two subscripts, the constant
		t.Errorf("Walk visited %d nodes, want 5", len(seen))
	}
}
