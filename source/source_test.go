package source

import (
	"fmt"
	"strings"
	"testing"
)

// TestFormatExcerpt: an error on a long line shows a window around the
// caret, and control characters of the source never reach the output.
func TestFormatExcerpt(t *testing.T) {
	long := strings.Repeat("a", 5000) + "$" + strings.Repeat("b", 5000)
	tests := []struct {
		name, line string
		col        int
		want       string
	}{
		{"short line as it is", "x = 1", 3, "    x = 1\n      ^"},
		{"tabs and control characters", "x\t=\x1b[31m1", 4, "    x =?[31m1\n       ^"},
		{"a long line is cut around the caret", long, 5001,
			"    ..." + strings.Repeat("a", 60) + "$" + strings.Repeat("b", 59) + "...\n" + strings.Repeat(" ", 4+3+60) + "^"},
		{"the caret near the start", long, 2, "    " + strings.Repeat("a", 120) + "...\n     ^"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := &Error{Pos: Pos{File: "x.dp", Line: 1, Col: tc.col}, Msg: "bad"}
			got := Format(err, []byte(tc.line+"\n"))
			want := fmt.Sprintf("x.dp:1:%d: bad\n", tc.col) + tc.want
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}
