// Package sema checks a parsed `.dp` file and lowers it to the typed form of
// package ir. It resolves every name, checks every input's data against its
// declaration (inline values, and the data a binding step gives it: data
// files, command-line overrides, the positional files of an `args:` line),
// evaluates the scalars and the grid size on the host, gives every
// expression a C type with explicit conversions, and marks the integer
// additions that must saturate on the inf sentinel.
//
// Like go/types, which reads no files (an Importer hands it packages), sema
// does no I/O: package bind reads the data files and applies --input,
// --set and `args:`, and hands Check the result as a Data. So the checker
// can be given data that never was a file (bench's random instances).
//
// Check reports every problem it finds at once, each at the `.dp` position
// of the node at fault, so that a user fixes a file in one round; errors
// that come from the command line rather than the file carry the file's name
// and no line.
package sema

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// Check checks f with the data bound to it and lowers it to an ir.Problem.
// data may be nil: then only the file's inline data is there, and an input
// read from a file (`@"path"`) is reported as not loaded. A non-nil error is
// a sorted source.ErrorList holding every problem found, the binding's
// among them.
func Check(f *dsl.File, data *Data) (*ir.Problem, error) {
	return run(f, data, (*checker).check)
}

// run is Check or CheckData: a checker's steps, then the problem or every
// error, sorted.
func run(f *dsl.File, data *Data, steps func(*checker)) (*ir.Problem, error) {
	c := newChecker(f, data)
	steps(c)
	return c.result()
}

// result is c's problem, named, or every error c found, sorted.
func (c *checker) result() (*ir.Problem, error) {
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	c.p.Name = ProblemName(c.file)
	return c.p, nil
}

// entity is a declared name: an input or a scalar.
type entity struct {
	name   string
	pos    source.Pos
	order  int // index of the declaration in File.Decls
	input  *inputInfo
	scalar *scalarInfo
}

func (e *entity) kind() string {
	if e.input != nil {
		return "input"
	}
	return "scalar"
}

type inputInfo struct {
	index int // in checker.inputs
	decl  *dsl.InputDecl
	in    *ir.Input
	ok    bool // the data is there and matches the declaration
}

type scalarInfo struct {
	index      int // in checker.scalars
	decl       *dsl.ScalarDecl
	order      int // index of the declaration in File.Decls
	s          *ir.Scalar
	t          ir.Type
	overrideBy string // who gave the value on the command line ("" if none)
	ok         bool   // the value is known
	// literal: the value is the declaration's literal, found once by
	// Prepare (a binding may still override it).
	literal bool
}

type checker struct {
	file *dsl.File
	data *Data
	errs source.ErrorList
	p    *ir.Problem

	names    map[string]int // the index in ents of each name in scope (shared by clones)
	ents     []entity
	inputs   []*inputInfo
	scalars  []*scalarInfo
	settings map[string]*dsl.SettingDecl

	grid       *dsl.GridDecl
	recur      *dsl.RecurrenceDecl
	recurOrder int
	tables     []tableDecl // every recurrence, one per table, in file order (tables.go)
	table      int         // the table whose cases are being lowered, -1 outside them
	answer     *dsl.AnswerDecl
	args       *dsl.ArgsDecl

	cellType   ir.Type
	idxType    ir.Type
	dims       int   // 1, 2 or 3: the grid line's sides, else the left side's variables (0: neither)
	rows, cols int64 // the grid size, when gridOK (1 x N for a 1-D grid, K x R*C for a 3-D grid)
	mid, inner int64 // R and C of a 3-D grid, when gridOK
	gridOK     bool  // the grid size is known
	heldKarp   bool
	// arityReported: the recurrence's left side disagrees with the grid
	// line, which is reported once, not again at every cell reference.
	arityReported bool
	schedule      *dsl.SettingDecl // `schedule: t = EXPR`, lowered after the recurrence

	laterReported map[string]bool        // names reported as used before their declaration
	infInputs     map[*ir.Input]bool     // inputInf's answers
	shared        map[*ir.Input]*Checked // inputs whose values a Table shares with other checks (Table.Checked)
	proto         *Prototype             // the prototype c was cloned from, if any
}

func newChecker(f *dsl.File, data *Data) *checker {
	if f == nil {
		f = &dsl.File{}
	}
	return &checker{
		file:     f,
		data:     data,
		p:        &ir.Problem{File: f.Name, Src: f.Source, Prev: -1, CellType: ir.Int},
		names:    map[string]int{},
		settings: map[string]*dsl.SettingDecl{},
		cellType: ir.Int,
		idxType:  ir.Int,
		table:    -1,
	}
}

// filePos is the position used for errors that come from the command line:
// the file, no line.
// entity is the declared name in scope, or nil.
func (c *checker) entity(name string) *entity {
	if k, ok := c.names[name]; ok {
		return &c.ents[k]
	}
	return nil
}

func (c *checker) filePos() source.Pos { return source.Pos{File: c.file.Name} }

func (c *checker) errorf(pos source.Pos, format string, args ...any) {
	if pos.File == "" {
		pos.File = c.file.Name
	}
	c.errs.Add(pos, format, args...)
}

func (c *checker) check() {
	c.checkData()
	c.checkRest()
}

// checkRest is check after checkData: the recurrence, the schedule and the
// answer.
func (c *checker) checkRest() {
	c.checkHeldKarp()
	c.checkRecurrence()
	c.checkSchedule()
	c.checkAnswer()
	c.markInf()
}

// checkData checks the declarations, settings and arguments, binds and
// checks the data and the scalars, and sizes the grid: all of Check that
// comes before the recurrence (CheckData stops there).
func (c *checker) checkData() {
	c.checkDecls()
	c.checkValues()
}

// checkDecls is what checkData does without the data: the declarations,
// settings and the args: line. It depends on the file alone (Prepare
// keeps its result for a batch's instances).
func (c *checker) checkDecls() {
	c.collect()
	c.setDims()
	c.checkSettings()
	c.checkArgsDecl()
}

// checkValues is the rest of checkData: the bound data and the scalars'
// values checked, the grid sized.
func (c *checker) checkValues() {
	c.bindSteps()
	c.loadInputs()
	c.evalScalars()
	c.checkGrid()
}

// reserved are names that an input, scalar or index variable may not take:
// they already mean something in an expression.
var reserved = map[string]string{
	"cell": "the grid",
	"ROWS": "the number of grid rows",
	"COLS": "the number of grid columns",
	"DIM0": "the size of the grid's first dimension",
	"DIM1": "the size of the grid's second dimension",
	"min":  "a built-in function", "max": "a built-in function", "sum": "a built-in function",
	"abs": "a built-in function", "len": "a built-in function", "rows": "a built-in function",
	"cols": "a built-in function", "exp": "a built-in function", "log": "a built-in function",
	"sqrt": "a built-in function", "pow": "a built-in function", "floor": "a built-in function",
	"ceil": "a built-in function",
}

// collect sorts the declarations by kind, reporting duplicates.
func (c *checker) collect() {
	firsts := map[string]source.Pos{}
	once := func(what string, pos source.Pos) bool {
		if first, dup := firsts[what]; dup {
			c.errorf(pos, "duplicate %s (the first is at line %d)", what, first.Line)
			return false
		}
		firsts[what] = pos
		return true
	}
	names := c.data.names(c.file)
	next := 0 // the entry of names for the next input or scalar
	for k, d := range c.file.Decls {
		switch d := d.(type) {
		case *dsl.ProblemDecl:
			once("`problem` line", d.Pos)
		case *dsl.GridDecl:
			if first, dup := firsts["grid"]; dup {
				c.errorf(d.Pos, "a second grid line: the grid is already given at line %d", first.Line)
				continue
			}
			firsts["grid"] = d.Pos
			c.grid = d
		case *dsl.SettingDecl:
			if once("`"+d.Key+":` line", d.Pos) {
				c.settings[d.Key] = d
			}
		case *dsl.AnswerDecl:
			if once("`answer:` line", d.Pos) {
				c.answer = d
			}
		case *dsl.ArgsDecl:
			if once("`args:` line", d.Pos) {
				c.args = d
			}
		case *dsl.RecurrenceDecl:
			c.addTable(d, k)
		case *dsl.InputDecl:
			n := names[next]
			next++
			info := &inputInfo{index: len(c.inputs), decl: d, in: &ir.Input{Pos: d.Pos, Name: n.Name, Vector: d.Dims.Rows == 1}}
			info.in.T = ir.ParseType(d.Type)
			if info.in.T == ir.Invalid {
				c.errorf(d.Pos, "unknown type %q (types: char, int, long, float, double)", d.Type)
			}
			c.inputs = append(c.inputs, info)
			c.declare(&entity{name: n.Name, pos: d.Pos, order: k, input: info}, n)
		case *dsl.ScalarDecl:
			n := names[next]
			next++
			info := &scalarInfo{index: len(c.scalars), decl: d, order: k, s: &ir.Scalar{Pos: d.Pos, Name: d.Name, Derived: !isLiteral(d.Expr)}}
			info.t = ir.ParseType(d.Type)
			if info.t == ir.Invalid {
				c.errorf(d.Pos, "unknown type %q (types: char, int, long, float, double)", d.Type)
			}
			info.s.Value.T = info.t
			c.scalars = append(c.scalars, info)
			c.declare(&entity{name: d.Name, pos: d.Pos, order: k, scalar: info}, n)
		case nil:
		default:
			c.errorf(d.Position(), "unexpected declaration %T", d)
		}
	}
}

// declare puts e in scope, or reports why Names left it out.
func (c *checker) declare(e *entity, n Name) {
	if !n.InScope {
		c.errorf(e.pos, "%s", n.clash)
		return
	}
	c.names[e.name] = len(c.ents)
	c.ents = append(c.ents, *e)
	if e.input != nil {
		c.p.Inputs = append(c.p.Inputs, e.input.in)
	} else {
		c.p.Scalars = append(c.p.Scalars, e.scalar.s)
	}
}

// isLiteral reports whether a scalar's expression is a plain literal (a
// literal scalar) rather than a formula over other names (derived).
func isLiteral(e dsl.Expr) bool {
	switch e := e.(type) {
	case *dsl.IntLit, *dsl.FloatLit, *dsl.CharLit, *dsl.Inf:
		return true
	case *dsl.Paren:
		return isLiteral(e.X)
	case *dsl.Unary:
		return (e.Op == "-" || e.Op == "+") && isLiteral(e.X)
	}
	return false
}

var settingValues = map[string][]string{
	"mem":      {"0", "1"},
	"maintain": {"0", "1"},
	"cell":     ir.TypeNames(ir.IsCell),
	"schedule": {"wavefront", "rows", "cols", "interval", "held-karp"},
	"nan":      {"error", "allow"},
}

func (c *checker) checkSettings() {
	for key, s := range c.settings {
		if _, known := settingValues[key]; s.Expr != nil && (known || key == "prev") {
			c.settingExpr(s)
			continue
		}
		if key == "prev" {
			n, err := strconv.Atoi(s.Value)
			if err != nil || n < 0 {
				c.errorf(s.ValuePos, "prev: wants a non-negative integer (how many previous rows or diagonals to keep), not %q", s.Value)
				continue
			}
			c.p.Prev, c.p.PrevPos = n, s.Pos
			continue
		}
		allowed, known := settingValues[key]
		if !known {
			msg := fmt.Sprintf("unknown setting %s: (settings: prev, mem, maintain, cell, schedule, nan)", key)
			if near := closest(key, []string{"prev", "mem", "maintain", "cell", "schedule", "nan"}); near != "" {
				msg = fmt.Sprintf("unknown setting %s: (did you mean %s:?)", key, near)
			}
			c.errorf(s.Pos, "%s", msg)
			continue
		}
		if !contains(allowed, s.Value) {
			if key == "schedule" {
				c.errorf(s.ValuePos, "schedule: wants %s or t = EXPR (linear in the index variables), not %q", strings.Join(allowed, ", "), s.Value)
				continue
			}
			c.errorf(s.ValuePos, "%s: wants %s, not %q", key, strings.Join(allowed, " or "), s.Value)
			continue
		}
		switch key {
		case "mem":
			c.p.Mem = int(s.Value[0] - '0')
		case "maintain":
			c.p.Maintain = s.Value == "1"
		case "nan":
			c.p.AllowNaN = s.Value == "allow"
		case "cell":
			c.cellType = ir.ParseType(s.Value)
			c.p.CellType = c.cellType
		case "schedule":
			c.p.Schedule, c.p.SchedulePos = s.Value, s.Pos
			c.heldKarp = s.Value == "held-karp"
		}
	}
}

// settingExpr checks a setting of the form `key: name = EXPR`: only
// `schedule: t = EXPR` is one. EXPR is lowered by checkSchedule, once the
// recurrence has bound the index variables it names.
func (c *checker) settingExpr(s *dsl.SettingDecl) {
	switch {
	case s.Key != "schedule":
		c.errorf(s.ValuePos, "%s: takes a value, not `%s = ...` (only schedule: takes an expression, t = EXPR)", s.Key, s.Value)
	case s.Value != "t":
		c.errorf(s.ValuePos, "schedule: names the time t, as in `schedule: t = j - i`, not %s", s.Value)
	default:
		c.p.Schedule, c.p.SchedulePos = "t", s.Pos
		c.schedule = s
	}
}

// setDims finds how many dimensions the grid has: as many as the grid line
// has sides, or without a grid line (an error reported later) as many as
// the recurrence's left side has index variables. Cell references and
// index variables are lowered by it.
func (c *checker) setDims() {
	switch {
	case c.grid != nil:
		c.dims = len(c.grid.Sides)
	case c.recur != nil:
		c.dims = len(c.recur.Vars)
	}
	if c.dims > 3 {
		c.dims = 0 // reported by the parser
	}
	c.p.Dims = c.dims
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ProblemName is the name f's problem goes by: the name on its first
// `problem` line, else its file's base name without the extension.
func ProblemName(f *dsl.File) string {
	for _, d := range f.Decls {
		if d, ok := d.(*dsl.ProblemDecl); ok {
			if d.Name != "" {
				return d.Name
			}
			break
		}
	}
	if f.Name == "" {
		return "problem"
	}
	base := filepath.Base(f.Name)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// checkHeldKarp checks what the Held-Karp solver needs: a square integer
// distance matrix, `dist` or the only matrix input.
func (c *checker) checkHeldKarp() {
	if !c.heldKarp {
		return
	}
	c.p.Rows, c.p.Cols, c.p.Dims, c.p.Mid, c.p.Inner = 0, 0, 0, 0, 0
	var dist *inputInfo
	if e := c.entity("dist"); e != nil && e.input != nil {
		dist = e.input
	} else {
		var mats []*inputInfo
		for _, in := range c.inputs {
			if !in.in.Vector {
				mats = append(mats, in)
			}
		}
		if len(mats) == 1 {
			dist = mats[0]
		}
	}
	pos := c.p.SchedulePos
	if dist == nil {
		c.errorf(pos, "schedule: held-karp needs a square int or long matrix input of distances, named dist (e.g. `int ?x? dist`)")
		return
	}
	in := dist.in
	switch {
	case in.Vector:
		c.errorf(in.Pos, "schedule: held-karp needs %s to be a square matrix, not a vector", in.Name)
	case in.T != ir.Int && in.T != ir.Long:
		c.errorf(in.Pos, "schedule: held-karp needs integer distances: declare %s as int or long, not %s", in.Name, in.T)
	case dist.ok && in.Rows != in.Cols:
		c.errorf(in.Pos, "schedule: held-karp needs a square distance matrix, but %s is %dx%d", in.Name, in.Rows, in.Cols)
	case dist.ok && in.Rows < 1:
		c.errorf(in.Pos, "schedule: held-karp needs at least 1 city, but %s is %dx%d", in.Name, in.Rows, in.Cols)
	}
}

// closest returns the candidate nearest to name by edit distance, or "" when
// none is near enough to be a likely typo.
func closest(name string, candidates []string) string {
	best, bestD := "", 0
	for _, cand := range candidates {
		if cand == name {
			continue
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(cand))
		if d == 0 {
			d = 1 // differs only in case: a likely typo
		}
		limit := 2
		if len(name) <= 3 {
			limit = 1
		}
		if d > limit || d >= max(len(name), len(cand)) {
			continue
		}
		if best == "" || d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
