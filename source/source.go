// Package source holds what every stage says about a `.dp` file: positions,
// positioned errors and lists of them, and their rendering with the source
// line and a caret. It is a leaf, like go/token and go/scanner's ErrorList:
// the stages after the parser (ir, plan, eval, codegen, the executors) name
// positions without importing the parser.
package source

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// bytes. The zero Pos means "no position".
type Pos struct {
	File   string
	Offset int
	Line   int
	Col    int
}

// IsValid reports whether the position refers to a place in a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string {
	file := p.File
	if file == "" {
		file = "<input>"
	}
	if !p.IsValid() {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
}

// Error is a problem found in a `.dp` file, at a position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is several errors, reported together. Its Error method prints
// one per line; use Format to add the offending source line and a caret.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the errors by position, keeping the order of equal ones.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(a, b int) bool {
		pa, pb := l[a].Pos, l[b].Pos
		if pa.File != pb.File {
			return pa.File < pb.File
		}
		if pa.Line != pb.Line {
			return pa.Line < pb.Line
		}
		return pa.Col < pb.Col
	})
}

// Err returns nil for an empty list and the list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Format renders err for a person: each positioned error followed by its
// source line and a caret under the column. source is the file's text (may be
// nil). Errors that are not *Error or ErrorList are printed as they are.
func Format(err error, source []byte) string {
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		return err.Error()
	}
	lines := strings.Split(string(source), "\n")
	var b strings.Builder
	for i, e := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
		if e.Pos.Line >= 1 && e.Pos.Line <= len(lines) && source != nil {
			line := strings.TrimRight(lines[e.Pos.Line-1], "\r")
			col := e.Pos.Col
			if col < 1 {
				col = 1
			}
			if col > len(line)+1 {
				col = len(line) + 1
			}
			shown, caret := excerpt(line, col)
			b.WriteString("\n    " + shown + "\n    ")
			b.WriteString(strings.Repeat(" ", caret-1) + "^")
		}
	}
	return b.String()
}

// excerptWidth is how much of a long source line an error shows around its
// caret: a hostile line of megabytes is not echoed whole.
const excerptWidth = 120

// excerpt returns the part of line to show under an error at byte column
// col, and the caret's column in it. Tabs become spaces and control
// characters '?', one column each, so the caret stays under the column and
// no escape sequence from the input reaches the terminal.
func excerpt(line string, col int) (string, int) {
	start, end, pre, post := 0, len(line), "", ""
	if len(line) > excerptWidth {
		start = max(0, col-1-excerptWidth/2)
		end = min(len(line), start+excerptWidth)
		if start > 0 {
			pre = "..."
		}
		if end < len(line) {
			post = "..."
		}
	}
	b := []byte(line[start:end])
	for k, c := range b {
		switch {
		case c == '\t':
			b[k] = ' '
		case c < 0x20 || c == 0x7f:
			b[k] = '?'
		}
	}
	return pre + string(b) + post, col - start + len(pre)
}
