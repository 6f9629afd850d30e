package dptest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindFromACopy: where the tree it was compiled in is gone (a test
// binary run on another machine), the data is found from the working
// directory.
func TestFindFromACopy(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../../heldkarp")
	got := find("/nonexistent/internal/dptest/testdata", "tsplib/gr17.tsp")
	if want := filepath.Join(root, "internal", "dptest", "testdata", "tsplib", "gr17.tsp"); got != want {
		t.Errorf("find = %s, want %s", got, want)
	}
	if _, err := os.Stat(got); err != nil {
		t.Error(err)
	}
}
