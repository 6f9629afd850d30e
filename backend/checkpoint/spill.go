package checkpoint

import (
	"fmt"
	"os"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// spillFile keeps the checkpoint rows of a traceback in a temporary file
// (plan.TraceLayout.Spill): band b's given rows, Reach rows of the grid's
// width, at offset (b-1) times their size. The file is removed from its
// directory as soon as it is open, where the system allows it: it then
// goes with the process however that ends (Ctrl-C, a crash), and nothing
// is left behind; elsewhere close removes it.
type spillFile struct {
	f        *os.File
	name     string
	unlinked bool
	t        ir.Type
	reach    int64
	cols     int64
	size     int64 // bytes of one band's given rows
	total    int64 // the layout's SpillBytes, for messages
}

// newSpill creates the temporary file of lay's checkpoint rows in
// os.TempDir() (TMPDIR).
func newSpill(p *ir.Problem, lay plan.TraceLayout) (*spillFile, error) {
	f, err := os.CreateTemp("", "dpgpu-checkpoints-*")
	if err != nil {
		return nil, fmt.Errorf("the traceback keeps its checkpoint rows (%s) in a temporary file, which cannot be made: %w (set TMPDIR to a directory with room, or raise --traceback-memory)", hostmem.Bytes(lay.SpillBytes), err)
	}
	s := &spillFile{f: f, name: f.Name(), t: p.CellType, reach: lay.Reach, cols: p.Cols,
		size: lay.Reach * p.Cols * int64(p.CellType.Size()), total: lay.SpillBytes}
	s.unlinked = os.Remove(s.name) == nil
	return s, nil
}

// put writes band b's given rows (b >= 1).
func (s *spillFile) put(b int64, rows *backend.Grid) error {
	if !rows.Fits(s.t, s.reach, s.cols) {
		return fmt.Errorf("internal error: checkpoint rows of band %d are %dx%d, want %dx%d", b, rows.Rows, rows.Cols, s.reach, s.cols)
	}
	if _, err := s.f.WriteAt(rows.Bytes(), (b-1)*s.size); err != nil {
		return fmt.Errorf("writing the checkpoint rows (%s in all) to a temporary file in %s: %w (set TMPDIR to a directory with room, or raise --traceback-memory)", hostmem.Bytes(s.total), os.TempDir(), err)
	}
	return nil
}

// get reads band b's given rows back (b >= 1).
func (s *spillFile) get(b int64) (*backend.Grid, error) {
	rows := backend.NewGrid(s.t, s.reach, s.cols)
	if _, err := s.f.ReadAt(rows.Bytes(), (b-1)*s.size); err != nil {
		return nil, fmt.Errorf("reading the checkpoint rows of band %d back from a temporary file: %w", b, err)
	}
	return rows, nil
}

// close closes the file, and removes it where opening could not.
func (s *spillFile) close() error {
	err := s.f.Close()
	if !s.unlinked {
		if e := os.Remove(s.name); err == nil && e != nil && !os.IsNotExist(e) {
			err = e
		}
	}
	return err
}
