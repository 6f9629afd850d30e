// Package problems holds the built-in problems: `.dp` files compiled into
// the binary so that `dpgpu solve lcs` works anywhere, each a commented
// example of the language with small default data and an `args:` line for
// instance files. Its subpackages write the seed thesis's random instances
// (gen) and print the solutions of the built-ins for a person (render).
package problems

import (
	"bufio"
	"bytes"
	"embed"
	"path"
	"slices"
	"strings"
)

//go:embed *.dp
var files embed.FS

// Builtin is one built-in problem.
type Builtin struct {
	Name    string // the name users type: the file name without ".dp"
	Summary string // one line: the file's first comment line
	Source  []byte // the `.dp` text; a fresh copy for each Lookup
}

// Names returns the names of the built-in problems, sorted.
func Names() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		// The embedded directory is fixed at build time; reading it cannot
		// fail unless the build itself is broken.
		panic("problems: reading the embedded files: " + err.Error())
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".dp"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Lookup returns the built-in problem called name ("lcs", not "lcs.dp").
func Lookup(name string) (*Builtin, bool) {
	// Refuse anything that is not a plain name, so that a path such as
	// "../x" or "a/b" never matches an embedded file.
	if name == "" || strings.ContainsAny(name, `/\`) || name != path.Clean(name) || strings.HasPrefix(name, ".") {
		return nil, false
	}
	src, err := files.ReadFile(name + ".dp")
	if err != nil {
		return nil, false
	}
	return &Builtin{Name: name, Summary: summary(src), Source: src}, true
}

// summary is the text of the first non-empty comment line of src, without
// the '#'.
func summary(src []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if text, ok := strings.CutPrefix(line, "#"); ok && strings.TrimSpace(text) != "" {
			return strings.TrimSpace(text)
		}
	}
	return ""
}
