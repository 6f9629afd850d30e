package dptest

import (
	"os"
	"path/filepath"
	"runtime"
)

// Path is the path of a shared test data file, name relative to dptest's
// testdata directory ("tsplib/gr17.tsp"), whatever the package of the test
// asking: its working directory is its own package directory, so relative
// paths cannot be shared.
//
// The directory is found from this file's location at compile time; a
// test binary run from a copy of the tree elsewhere (scripts/device-check.sh
// runs them on the GPU machine) finds it instead by walking up from the
// working directory to the module root. When neither exists the path is
// returned anyway, and opening it gives the error.
func Path(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return find(filepath.Join(filepath.Dir(file), "testdata"), name)
}

// find is Path with here, the testdata directory where this file was
// compiled.
func find(here, name string) string {
	if exists(here) {
		return filepath.Join(here, filepath.FromSlash(name))
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			if exists(filepath.Join(dir, "go.mod")) {
				return filepath.Join(dir, "internal", "dptest", "testdata", filepath.FromSlash(name))
			}
			up := filepath.Dir(dir)
			if up == dir {
				break
			}
			dir = up
		}
	}
	return filepath.Join(here, filepath.FromSlash(name))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
