package dsl

import (
	"fmt"
	"reflect"
	"testing"
)

// TestGrid3Sides: every way of writing a grid line of three sides gives
// the same three sides at their columns, although the lexer takes two
// numeric sides as one Dims token and what follows it as data.
func TestGrid3Sides(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string // side@column
	}{
		{"2x3x4", []string{"2@1", "3@3", "4@5"}},
		{"2 x 3 x 4", []string{"2@1", "3@5", "4@9"}},
		{"2x3 x n", []string{"2@1", "3@3", "n@7"}},
		{"n x 3 x 4", []string{"n@1", "3@5", "4@9"}},
		{"n x 3x4", []string{"n@1", "3@5", "4@7"}},
		{"4 x n x m", []string{"4@1", "n@5", "m@9"}},
		{"(rows(w)+1) x rows(w) x rows(w)", []string{"(rows(w) + 1)@1", "rows(w)@15", "rows(w)@25"}},
		{"2x3x(n+1)", []string{"2@1", "3@3", "(n + 1)@5"}},
		{"K x (R+1) x len(A)", []string{"K@1", "(R + 1)@5", "len(A)@13"}},
		{"5x5", []string{"5@1", "5@3"}},
		{"n x 7", []string{"n@1", "7@5"}},
	} {
		f, err := Parse("t.dp", []byte(tt.line+"\ncell[k][i][j] = 0\n"))
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		var got []string
		for _, d := range f.Decls {
			if g, ok := d.(*GridDecl); ok {
				for _, s := range g.Sides {
					got = append(got, fmt.Sprintf("%s@%d", ExprString(s), s.Position().Col))
				}
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: sides %q, want %q", tt.line, got, tt.want)
		}
	}
}
