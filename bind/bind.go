// Package bind is the binding step between parsing and checking: it gives
// a parsed `.dp` file its data. It reads the files the file names
// (`@"path"`) and the positional files of its `args:` line (through
// problems/formats), and applies the command line's --input and --set and
// the values a program hands over (bench's random instances), resolving
// each name as package sema scopes it. The result is a sema.Data, which
// sema.Check converts and checks against the declarations: sema itself
// does no I/O, as go/types reads no files and is handed packages by an
// importer.
//
// Bind reports nothing itself: what it cannot bind travels in the Data, so
// that Check reports it at its place among the file's own errors and the
// user sees every problem in one round.
package bind

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems/formats"
	"github.com/dpgpu/dpgpu/sema"
	"github.com/dpgpu/dpgpu/source"
)

// Override replaces the value of an input (--input NAME=VALUE) or a scalar
// (--set NAME=VALUE), as typed on the command line.
type Override struct{ Name, Value string }

// Value is an input's or a scalar's data handed over as values by a
// program, not typed by a person: nothing to parse, no file to write.
type Value struct {
	Name string
	Text string    // a char vector's characters
	Ints []int64   // integers, row-major (a scalar: one)
	F    []float64 // or floating values
	// Rows and Cols are a matrix's shape; both 0 for a vector or a
	// scalar.
	Rows, Cols int
}

// Config is what the command line (or a program) adds to a file.
type Config struct {
	// Inputs replace inputs' data. VALUE is "@path" (loaded by extension,
	// "@path#k" for FASTA record k), a quoted string "ACGT" for a char
	// vector, or comma-separated values with matrix rows separated by '&'.
	// Paths are used as given: relative ones are relative to the working
	// directory, as for any command-line path.
	Inputs []Override
	// Values give inputs and scalars their data as values. A name given
	// here and by --input or --set is an error, as one given twice on the
	// command line.
	Values []Value
	// Sets replace scalars' values; VALUE is a number (or, for a char
	// scalar, one character). Derived scalars are evaluated after them.
	Sets []Override
	// Args are the positional files, mapped to inputs by the file's
	// `args:` line.
	Args []string
	// ArgData gives positional arguments as data already read, by
	// position (0-based): a batch reads each record of a multi-record
	// file once and hands it over, rather than have every instance scan
	// the file for its record. Args[k] then only names the data in
	// messages (say "reads.fa#17"). Only an argument that fills one input
	// or scalar can be given so.
	// The slice is indexed by position; nil (or past its end): not given.
	ArgData []*formats.Table
	// BaseDir is the directory that the file's own relative `@"path"`s
	// are relative to; "" means the directory of dsl.File.Name.
	BaseDir string
	// Files, where set, keeps the data files read (a scoring matrix the
	// `.dp` file names) for the next Bind: the instances of a batch read
	// each once. The tables it hands out are shared: nothing may change
	// them.
	Files *FileCache
}

// FileCache is the data files a batch's instances have read (Config.Files),
// safe for concurrent use.
type FileCache struct {
	mu sync.Mutex
	m  map[fileKey]fileEntry
	// files: the names of the files bound, which every binding needs.
	files map[*dsl.File]*fileNames
}

type fileKey struct {
	path string
	opt  formats.Options
}

// fileNames are a file's names (sema.Names) and those in scope by name:
// read, never written, by every binding of the file.
type fileNames struct {
	list  []sema.Name
	scope map[string]*sema.Name
}

func namesOf(f *dsl.File) *fileNames {
	n := &fileNames{list: sema.Names(f), scope: map[string]*sema.Name{}}
	for k := range n.list {
		if x := &n.list[k]; x.InScope {
			n.scope[x.Name] = x
		}
	}
	return n
}

// names gives f's names, found once for a cache's every binding of f.
func (c *FileCache) names(f *dsl.File) *fileNames {
	if c == nil {
		return namesOf(f)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.files[f]
	if n == nil {
		n = namesOf(f)
		if c.files == nil || len(c.files) >= 16 { // a batch binds a file or two
			c.files = map[*dsl.File]*fileNames{}
		}
		c.files[f] = n
	}
	return n
}

type fileEntry struct {
	t       *formats.Table
	checked *sema.Checked // the types the checker found t's values fit
	err     error
}

// load reads path, or gives the values read before and what the checker
// found of them (nil without a cache).
func (c *FileCache) load(path string, opt formats.Options) (*formats.Table, *sema.Checked, error) {
	if c == nil {
		t, err := formats.Load(path, opt)
		return t, nil, err
	}
	k := fileKey{path, opt}
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return e.t, e.checked, e.err
	}
	t, err := formats.Load(path, opt)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[fileKey]fileEntry{}
	}
	e, ok = c.m[k]
	if !ok { // (another instance may have read it meanwhile: one entry)
		e = fileEntry{t, &sema.Checked{}, err}
		c.m[k] = e
	}
	c.mu.Unlock()
	return e.t, e.checked, e.err
}

// Check binds cfg to f and checks the result: sema.Check(f, Bind(f, cfg)).
func Check(f *dsl.File, cfg Config) (*ir.Problem, error) {
	return sema.Check(f, Bind(f, cfg))
}

// Bind resolves where every input's data and every overridden scalar's
// value come from (the file, `args:`, --input, Values, --set, in that
// order of precedence checks) and then reads the data files of the inputs,
// so that data replaced on the command line is never read.
func Bind(f *dsl.File, cfg Config) *sema.Data {
	if f == nil {
		f = &dsl.File{}
	}
	names := cfg.Files.names(f)
	b := &binder{
		file:  f,
		cfg:   cfg,
		names: names.list,
		scope: names.scope,
		data:  &sema.Data{Inputs: map[*dsl.InputDecl]*sema.Datum{}, Names: names.list},
	}
	for _, d := range f.Decls {
		if a, ok := d.(*dsl.ArgsDecl); ok {
			b.args = a // the first: Check reports the others
			break
		}
	}
	b.fileSources()
	b.bindArgs()
	b.bindInputFlags()
	b.bindValues()
	b.bindSetFlags()
	b.readFiles()
	return b.data
}

type binder struct {
	file  *dsl.File
	cfg   Config
	names []sema.Name
	scope map[string]*sema.Name // the names in scope
	args  *dsl.ArgsDecl
	files map[*dsl.InputDecl]*dataFile // inputs whose data is a file still to read
	given map[string]string            // name -> who gave it outside the file
	data  *sema.Data
}

// dataFile is an input's data file, read once every override is known.
type dataFile struct {
	path   string
	record int // FASTA record, 1-based; 0 the first
	datum  sema.Datum
}

func (b *binder) errorf(pos source.Pos, format string, args ...any) {
	if pos.File == "" {
		pos.File = b.file.Name
	}
	b.data.Steps = append(b.data.Steps, sema.Step{Err: &source.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

// filePos is the position of errors that come from the command line: the
// file, no line.
func (b *binder) filePos() source.Pos { return source.Pos{File: b.file.Name} }

// setInput makes d the data of in, replacing the file's.
func (b *binder) setInput(in *dsl.InputDecl, d *sema.Datum) {
	delete(b.files, in)
	b.data.Inputs[in] = d
}

// setFile makes the data file df the data of in, replacing the file's;
// it is read once every override is known (readFiles).
func (b *binder) setFile(in *dsl.InputDecl, df *dataFile) {
	delete(b.data.Inputs, in)
	b.setDataFile(in, df)
}

// setScalar gives s a value.
func (b *binder) setScalar(s *dsl.ScalarDecl, d *sema.Datum) {
	b.data.Steps = append(b.data.Steps, sema.Step{Scalar: s, Datum: d})
}

// setDataFile notes that input in reads df (the map made on first use: a
// batch's instances mostly read none).
func (b *binder) setDataFile(in *dsl.InputDecl, df *dataFile) {
	if b.files == nil {
		b.files = map[*dsl.InputDecl]*dataFile{}
	}
	b.files[in] = df
}

// give notes who gave name its data (the map made on first use).
func (b *binder) give(name, who string) {
	if b.given == nil {
		b.given = map[string]string{}
	}
	b.given[name] = who
}

// fileSources notes the data files the file names itself.
func (b *binder) fileSources() {
	for _, n := range b.names {
		if in := n.Input; in != nil && in.Source != nil {
			b.setDataFile(in, &dataFile{path: b.filePath(in.Source.Path), record: in.Source.Record,
				datum: sema.Datum{Origin: in.Source.Path, Pos: in.Source.Pos}})
		}
	}
}

// filePath resolves a path written in the `.dp` file.
func (b *binder) filePath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	base := b.cfg.BaseDir
	if base == "" {
		base = filepath.Dir(b.file.Name)
	}
	return filepath.Join(base, p)
}

// splitRecord splits a command-line path "x.fa#2" into the path and the
// FASTA record, unless a file with the whole name exists.
func splitRecord(p string) (string, int) {
	i := strings.LastIndexByte(p, '#')
	if i < 0 {
		return p, 0
	}
	if _, err := os.Stat(p); err == nil {
		return p, 0
	}
	k, err := strconv.Atoi(p[i+1:])
	if err != nil || k < 1 {
		return p, 0
	}
	return p[:i], k
}

// loadOptions are the options of reading data for a declaration of type
// t.
func loadOptions(t ir.Type, record int) formats.Options {
	return formats.Options{Record: record, Char: t == ir.Char, Float: t.IsFloat()}
}

// readFiles reads the data files that no override replaced, in the order
// of the declarations; an input of an unknown type is not read (Check
// reports the type).
func (b *binder) readFiles() {
	for _, n := range b.names {
		df := b.files[n.Input]
		if df == nil {
			continue
		}
		d := df.datum
		load(&d, n.Input.Type, df.path, df.record, b.cfg.Files)
		b.data.Inputs[n.Input] = &d
	}
}

// load reads the data file path (FASTA record rec) into d for a
// declaration of type typ; one of an unknown type is not read (Check
// reports the type).
func load(d *sema.Datum, typ, path string, rec int, cache *FileCache) {
	t := ir.ParseType(typ)
	if t == ir.Invalid {
		return
	}
	tab, checked, err := cache.load(path, loadOptions(t, rec))
	if err != nil {
		d.Err = err
	} else {
		d.Table = table(tab)
		d.Table.Checked = checked
	}
}

func table(t *formats.Table) *sema.Table {
	return &sema.Table{Rows: t.Rows, Cols: t.Cols, I: t.I, F: t.F, Printable: t.Printable, Span: t.Span, Column: t.Column}
}

// nameList lists the inputs (or scalars) for messages.
func (b *binder) nameList(inputs bool) string {
	var names []string
	for _, n := range b.names {
		if (n.Input != nil) == inputs {
			names = append(names, n.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// CheckData binds cfg to f and checks all but the recurrence:
// sema.CheckData(f, Bind(f, cfg)).
func CheckData(f *dsl.File, cfg Config) (*ir.Problem, error) {
	return sema.CheckData(f, Bind(f, cfg))
}
