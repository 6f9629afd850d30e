package main

import (
	"os"
	"sync"
)

// temps are the temporary files and directories of the running command.
// A command removes its own when it fails or is interrupted in time; the
// registry lets runContext remove them also when an interrupted command
// does not stop within interruptGrace (it is then abandoned, not waited
// for).
var temps struct {
	mu    sync.Mutex
	paths map[string]bool
}

// addTemp registers path (a file, or a directory removed with its
// contents).
func addTemp(path string) {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[path] = true
}

// dropTemp forgets path: it was renamed into place or removed.
func dropTemp(path string) {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	delete(temps.paths, path)
}

// removeTemps removes every registered path.
func removeTemps() {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	for p := range temps.paths {
		os.RemoveAll(p)
		delete(temps.paths, p)
	}
}
