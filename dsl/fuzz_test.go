package dsl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that what it returns is
// consistent (positions that match the source, errors that are positioned
// ErrorLists), and that ExprString round-trips every expression of a file
// that parses. The seed corpus in testdata/fuzz/FuzzParse holds the example
// files and broken variants of them; the example files are added here too.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.dp"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.dp", src)
		if file == nil {
			t.Fatal("nil File")
		}
		checkPositions(t, file)
		if err != nil {
			list, ok := err.(ErrorList)
			if !ok || len(list) == 0 || len(list) > maxErrors+1 {
				t.Fatalf("error %v (%T) is not an ErrorList of 1 to %d errors", err, err, maxErrors+1)
			}
			for i, e := range list {
				p := e.Pos
				if p.File != "fuzz.dp" || p.Line < 1 || p.Col < 1 || p.Offset < 0 || p.Offset > len(src) {
					t.Errorf("error %q has a bad position %+v", e.Msg, p)
				}
				if e.Msg == "" || strings.Contains(e.Msg, "internal error") {
					t.Errorf("error at %s: %q", p, e.Msg)
				}
				if i > 0 && p.Offset < list[i-1].Pos.Offset {
					t.Errorf("errors not sorted: %v before %v", list[i-1], e)
				}
			}
			return
		}
		for _, e := range exprs(file) {
			roundTrip(t, e)
		}
	})
}
