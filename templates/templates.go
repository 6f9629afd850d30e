// Package templates holds the CUDA C kernel templates that package codegen
// fills in: preamble.cu (arithmetic, checks, errors and the answer's
// partial results, shared by every kernel) and one file per kernel kind
// (line.cu for rows and cols, tile.cu and strip.cu for wavefronts, front.cu
// for the generic schedules: interval DP, 1-D look-back, ..., batch.cu for
// many instances a launch; window.cu is the register window strip.cu and
// batch.cu share). They are Go text/templates over codegen's data, but most
// of their parameters are C macros that codegen defines (DP_ROWS, DP_TH,
// ...), so that the kernels read as ordinary CUDA.
package templates

import (
	"embed"
	"fmt"
	"io"
	"sync"
	"text/template"
)

//go:embed *.cu
var files embed.FS

var parsed = sync.OnceValues(func() (*template.Template, error) {
	return template.New("").Option("missingkey=error").ParseFS(files, "*.cu")
})

// Prewarm parses the templates on a goroutine of its own, for a caller
// that will generate a program soon: parsing them all took 0.7 ms of a
// run's fixed cost (a 2-core VM), which opening a GPU or reading the inputs
// can hide. Execute waits for it where it has not ended.
func Prewarm() { go parsed() }

// Execute renders the template called name (e.g. "tile.cu") with data.
func Execute(w io.Writer, name string, data any) error {
	t, err := parsed()
	if err != nil {
		return fmt.Errorf("parsing the kernel templates: %w", err)
	}
	if err := t.ExecuteTemplate(w, name, data); err != nil {
		return fmt.Errorf("kernel template %s: %w", name, err)
	}
	return nil
}

// Names lists the templates.
func Names() []string {
	entries, _ := files.ReadDir(".")
	names := make([]string, len(entries))
	for k, e := range entries {
		names[k] = e.Name()
	}
	return names
}
