package formats

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestCharArena: the arena's tables equal Record.Char's (empty
// sequences, ones past an array's end, ones larger than an array), and
// appending to one never writes into the next.
func TestCharArena(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var a CharArena
	var got []*Table
	var want []*Table
	for k := 0; k < 3000; k++ {
		n := []int{0, 1, 17, 150, 151, 4099, 1 << 14, 70000}[r.IntN(8)]
		seq := make([]byte, n)
		for i := range seq {
			seq[i] = "ACGT"[r.IntN(4)]
		}
		got = append(got, a.Char(&Record{Seq: seq}))
		want = append(want, (&Record{Seq: seq}).Char())
	}
	for _, g := range got {
		if len(g.I) > 0 {
			_ = append(g.I, -1) // must not reach the next table, made already
		}
	}
	for k := range got {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Fatalf("table %d (%d values) differs from Record.Char's", k, want[k].Cols)
		}
	}
}
