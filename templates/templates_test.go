package templates

import (
	"bytes"
	"strings"
	"testing"
)

// Every kernel template renders, and none is left unparsed.
func TestTemplates(t *testing.T) {
	names := Names()
	for _, want := range []string{"preamble.cu", "line.cu", "tile.cu", "strip.cu", "front.cu"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("template %s missing (have %v)", want, names)
		}
	}
	for _, n := range names {
		var b bytes.Buffer
		if err := Execute(&b, n, struct{}{}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if b.Len() == 0 || strings.Contains(b.String(), "{{") {
			t.Errorf("%s rendered %d bytes with leftover actions", n, b.Len())
		}
	}
	if err := Execute(&bytes.Buffer{}, "nonesuch.cu", nil); err == nil {
		t.Error("an unknown template rendered")
	}
}
