package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escapeControl makes msg safe to print on a terminal: every control
// character (and every byte that is not UTF-8) becomes a visible escape
// such as \x1b or \r, so that a file name or a source line cannot move the
// cursor, clear the screen or fake other output. Newlines stay: error
// messages span lines. Under a source line that is followed by a caret
// line (spaces then ^, as source.Format writes), the caret is moved right by
// what the escapes added before it, so it still points at the column.
func escapeControl(msg string) string {
	if !needsEscape(msg) {
		return msg
	}
	lines := strings.Split(msg, "\n")
	for i := 0; i < len(lines); i++ {
		caret := -1
		if i+1 < len(lines) {
			caret = caretColumn(lines[i+1])
		}
		esc, shift := escapeLine(lines[i], caret)
		lines[i] = esc
		if caret >= 0 && shift > 0 {
			lines[i+1] = strings.Repeat(" ", caret+shift) + "^"
			i++
		}
	}
	return strings.Join(lines, "\n")
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r != '\n' && (unicode.IsControl(r) || r == utf8.RuneError) {
			return true
		}
	}
	return false
}

// caretColumn is the byte offset of the ^ of a caret line, or -1.
func caretColumn(line string) int {
	t := strings.TrimLeft(line, " ")
	if t != "^" {
		return -1
	}
	return len(line) - 1
}

// escapeLine escapes one line and returns how many bytes the escapes added
// before byte offset upTo.
func escapeLine(line string, upTo int) (string, int) {
	var b strings.Builder
	shift := 0
	for k := 0; k < len(line); {
		r, size := utf8.DecodeRuneInString(line[k:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = fmt.Sprintf(`\x%02x`, line[k])
		case r == '\t':
			esc = `\t`
		case r == '\r':
			esc = `\r`
		case unicode.IsControl(r) && r < 0x80:
			esc = fmt.Sprintf(`\x%02x`, r)
		case unicode.IsControl(r):
			esc = fmt.Sprintf(`\u%04x`, r)
		default:
			b.WriteString(line[k : k+size])
			k += size
			continue
		}
		b.WriteString(esc)
		if k < upTo {
			shift += len(esc) - size
		}
		k += size
	}
	return b.String(), shift
}
