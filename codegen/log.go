package codegen

import (
	"regexp"
	"strings"
)

// nvrtcLoc matches the location NVRTC prints at the start of a message:
// `lcs.dp(7): error: ...` (the file and line come from the #line directives
// the generator writes, so they name the `.dp` file for the recurrence and
// the .cu program for the kernel templates).
var nvrtcLoc = regexp.MustCompile(`^(.+?)\((\d+)\): (error|warning|remark|catastrophe)`)

// MapLog rewrites an NVRTC log into the file:line form of the rest of
// dpgpu's messages (`lcs.dp:7: error: ...`), so that errors in the
// recurrence point at the `.dp` line that caused them. Lines that are not
// located messages are kept as they are.
func MapLog(log string) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	for k, l := range lines {
		if m := nvrtcLoc.FindStringSubmatchIndex(l); m != nil {
			file, line := l[m[2]:m[3]], l[m[4]:m[5]]
			lines[k] = file + ":" + line + ": " + l[m[6]:]
		}
	}
	return strings.Join(lines, "\n")
}

// LogMentions reports the `.dp` lines (file:line) that a mapped log's
// messages point at, in order, without duplicates.
func LogMentions(mapped, dpFile string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(mapped, "\n") {
		if !strings.HasPrefix(l, dpFile+":") {
			continue
		}
		rest := l[len(dpFile)+1:]
		n := strings.IndexByte(rest, ':')
		if n <= 0 {
			continue
		}
		loc := dpFile + ":" + rest[:n]
		if !seen[loc] {
			seen[loc] = true
			out = append(out, loc)
		}
	}
	return out
}
