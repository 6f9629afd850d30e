package sema

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems/formats"
	"github.com/dpgpu/dpgpu/source"
)

// dataSource is where an input's data comes from once the command line has
// been applied. Exactly one of values, text, path and table is meaningful,
// unless required is set (no data anywhere).
type dataSource struct {
	origin string     // ir.Input.Origin: "inline", a path, "--input", ...
	pos    source.Pos // where errors about the data point
	who    string     // message prefix for data that does not come from the file, e.g. "--input A=@a.txt: "

	values   [][]dsl.Value
	text     *string
	path     string
	record   int
	table    *formats.Table
	required bool
}

// resolveData decides where every input's data and every overridden
// scalar's value come from: the file, the positional arguments (`args:`),
// --input and --set. Nothing is loaded yet, so that data replaced on the
// command line is never read.
func (c *checker) resolveData() {
	for _, info := range c.inputs {
		d := info.decl
		src := &dataSource{origin: "inline", pos: d.Pos}
		switch {
		case d.Source != nil:
			src.path, src.record, src.pos = c.filePath(d.Source.Path), d.Source.Record, d.Source.Pos
			src.origin = d.Source.Path
		case d.Text != nil:
			text := d.Text.Value
			src.text, src.pos = &text, d.Text.Pos
		case len(d.Values) > 0:
			src.values = d.Values
		default:
			src.required = true
		}
		info.src = src
	}
	given := map[string]string{} // name -> who gave it on the command line
	c.resolveArgs(given)
	c.resolveInputFlags(given)
	c.resolveSetFlags(given)
}

// filePath resolves a path written in the `.dp` file.
func (c *checker) filePath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	base := c.cfg.BaseDir
	if base == "" {
		base = filepath.Dir(c.file.Name)
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

// resolveArgs maps the positional files through the `args:` line.
func (c *checker) resolveArgs(given map[string]string) {
	itemOK := c.checkArgsDecl()
	args := c.cfg.Args
	if len(args) == 0 {
		return
	}
	name := c.problemName()
	if c.args == nil {
		c.errorf(c.filePos(), "%s takes no positional files (the file has no `args:` line); give data with --input NAME=@FILE", name)
		return
	}
	if len(args) != len(c.args.Items) {
		var parts []string
		for _, it := range c.args.Items {
			parts = append(parts, argItemText(it))
		}
		c.errorf(c.filePos(), "%s takes %d file%s: %s (got %d)", name, len(c.args.Items), plural(len(c.args.Items)), strings.Join(parts, " "), len(args))
		return
	}
	for k, arg := range args {
		it := c.args.Items[k]
		if !itemOK[k] {
			continue
		}
		who := fmt.Sprintf("argument %d (%s)", k+1, arg)
		if it.Format == "" {
			e := c.names[it.Names[0].Name]
			given[e.name] = who
			path, rec := splitRecord(arg)
			if e.input != nil {
				e.input.src = &dataSource{origin: arg, pos: it.Pos, who: who + ": ", path: path, record: rec}
				continue
			}
			c.scalarFromFile(e.scalar, path, rec, it.Pos, who)
			continue
		}
		tables, err := formats.LoadGroup(it.Format, arg)
		if err != nil {
			c.errorf(it.Pos, "%s: %v", who, err)
			continue
		}
		if len(tables) != len(it.Names) {
			c.errorf(it.Pos, "%s: the %s format gives %d tables, but the group names %d", who, it.Format, len(tables), len(it.Names))
			continue
		}
		for m, id := range it.Names {
			e := c.names[id.Name]
			given[e.name] = who
			if e.input != nil {
				e.input.src = &dataSource{origin: arg, pos: id.Pos, who: who + ": ", table: tables[m]}
				continue
			}
			c.scalarFromTable(e.scalar, tables[m], id.Pos, who)
		}
	}
}

// checkArgsDecl checks the names of the `args:` line; it reports, per item,
// whether the item can be used.
func (c *checker) checkArgsDecl() []bool {
	if c.args == nil {
		return nil
	}
	ok := make([]bool, len(c.args.Items))
	seen := map[string]bool{}
	for k, it := range c.args.Items {
		ok[k] = len(it.Names) > 0
		if it.Format != "" && !formats.IsGroupFormat(it.Format) {
			// Checked whether or not files are given, so that `dpgpu
			// check` finds it before anything is computed.
			c.errorf(it.Pos, "args: unknown format %q (known: %s)", it.Format, strings.Join(formats.GroupFormats, ", "))
			ok[k] = false
		}
		for _, id := range it.Names {
			e := c.names[id.Name]
			switch {
			case e == nil:
				c.errorf(id.Pos, "args: %s", c.unknownName(id.Name, nil))
				ok[k] = false
			case seen[id.Name]:
				c.errorf(id.Pos, "args: %s is named twice", id.Name)
				ok[k] = false
			}
			seen[id.Name] = true
		}
	}
	return ok
}

func argItemText(it *dsl.ArgItem) string {
	if it.Format == "" && len(it.Names) == 1 {
		return it.Names[0].Name
	}
	names := make([]string, len(it.Names))
	for i, id := range it.Names {
		names[i] = id.Name
	}
	return "(" + strings.Join(names, ",") + ")=" + it.Format
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (c *checker) resolveInputFlags(given map[string]string) {
	for _, ov := range c.cfg.Inputs {
		flag := fmt.Sprintf("--input %s=%s", ov.Name, ov.Value)
		e := c.names[ov.Name]
		switch {
		case e == nil:
			c.errorf(c.filePos(), "%s: no input named %s (inputs: %s)", flag, ov.Name, c.nameList(true))
			continue
		case e.scalar != nil:
			c.errorf(c.filePos(), "%s: %s is a scalar; use --set %s=VALUE", flag, ov.Name, ov.Name)
			continue
		case given[ov.Name] != "":
			c.errorf(c.filePos(), "%s: %s is already given by %s", flag, ov.Name, given[ov.Name])
			continue
		}
		given[ov.Name] = "--input"
		src := &dataSource{origin: "--input", pos: c.filePos(), who: flag + ": "}
		v := strings.TrimSpace(ov.Value)
		switch {
		case strings.HasPrefix(v, "@"):
			src.path, src.record = splitRecord(v[1:])
			src.origin = src.path
		case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
			text := v[1 : len(v)-1]
			src.text = &text
		default:
			for _, row := range strings.Split(v, "&") {
				var vals []dsl.Value
				for _, x := range strings.Split(row, ",") {
					vals = append(vals, dsl.Value{Text: strings.TrimSpace(x)})
				}
				src.values = append(src.values, vals)
			}
		}
		e.input.src = src
	}
}

func (c *checker) resolveSetFlags(given map[string]string) {
	for _, ov := range c.cfg.Sets {
		flag := fmt.Sprintf("--set %s=%s", ov.Name, ov.Value)
		e := c.names[ov.Name]
		switch {
		case e == nil:
			c.errorf(c.filePos(), "%s: no scalar named %s (scalars: %s)", flag, ov.Name, c.nameList(false))
			continue
		case e.input != nil:
			c.errorf(c.filePos(), "%s: %s is an input; use --input %s=VALUES or --input %s=@FILE", flag, ov.Name, ov.Name, ov.Name)
			continue
		case given[ov.Name] != "":
			c.errorf(c.filePos(), "%s: %s is already given by %s", flag, ov.Name, given[ov.Name])
			continue
		}
		given[ov.Name] = "--set"
		s := e.scalar
		if s.t == ir.Invalid {
			continue
		}
		v, err := parseScalarText(strings.TrimSpace(ov.Value), s.t)
		if err != nil {
			c.errorf(c.filePos(), "%s: %v", flag, err)
			s.overrideBy = "--set" // known to be bad: not evaluated either
			continue
		}
		s.setOverride(v, "--set")
	}
}

func (s *scalarInfo) setOverride(v ir.Value, by string) {
	s.s.Value, s.ok, s.overrideBy = v, true, by
}

// nameList lists the inputs (or scalars) for messages.
func (c *checker) nameList(inputs bool) string {
	var names []string
	if inputs {
		for _, in := range c.inputs {
			names = append(names, in.in.Name)
		}
	} else {
		for _, s := range c.scalars {
			names = append(names, s.s.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// scalarFromFile sets a scalar named alone in `args:` from a file holding
// one value.
func (c *checker) scalarFromFile(s *scalarInfo, path string, rec int, pos source.Pos, who string) {
	if s.t == ir.Invalid {
		return
	}
	t, err := formats.Load(path, formats.Options{Record: rec, Char: s.t == ir.Char, Float: s.t.IsFloat()})
	if err != nil {
		c.errorf(pos, "%s: %v", who, err)
		s.overrideBy = who
		return
	}
	c.scalarFromTable(s, t, pos, who)
}

// scalarFromTable sets a scalar from a 1x1 table (e.g. a Pisinger
// capacity).
func (c *checker) scalarFromTable(s *scalarInfo, t *formats.Table, pos source.Pos, who string) {
	if s.t == ir.Invalid {
		return
	}
	s.overrideBy = who
	if t.Len() != 1 || !tableOK(t) {
		c.errorf(pos, "%s: scalar %s takes one value, but the data is %dx%d", who, s.s.Name, t.Rows, t.Cols)
		return
	}
	var v ir.Value
	var err error
	if t.I != nil {
		v, err = intValue(t.I[0], s.t)
	} else {
		v, err = floatValue(t.F[0], s.t)
	}
	if err != nil {
		c.errorf(pos, "%s: scalar %s: %v", who, s.s.Name, err)
		return
	}
	s.setOverride(v, who)
}

// loadInputs loads the data of every input from its source and checks it
// against the declaration.
func (c *checker) loadInputs() {
	argNames := map[string]bool{}
	if c.args != nil {
		for _, it := range c.args.Items {
			for _, id := range it.Names {
				argNames[id.Name] = true
			}
		}
	}
	for _, info := range c.inputs {
		if info.in.T == ir.Invalid || info.src == nil {
			continue
		}
		src, name := info.src, info.in.Name
		info.in.Origin = src.origin
		switch {
		case src.required:
			if argNames[name] {
				c.errorf(info.decl.Pos, "input %s needs data: give a file as an argument or --input %s=@FILE", name, name)
			} else {
				c.errorf(info.decl.Pos, "input %s needs data: give --input %s=@FILE (or values, --input %s=v1,v2,...)", name, name, name)
			}
		case src.values != nil:
			c.fillValues(info, src)
		case src.text != nil:
			c.fillText(info, src, *src.text)
		case src.table != nil:
			c.fillTable(info, src, src.table)
		default:
			t, err := formats.Load(src.path, formats.Options{Record: src.record, Char: info.in.T == ir.Char, Float: info.in.T.IsFloat()})
			if err != nil {
				c.errorf(src.pos, "%sinput %s: %v", src.who, name, err)
				continue
			}
			c.fillTable(info, src, t)
		}
	}
}

// fillValues parses inline (or --input) values.
func (c *checker) fillValues(info *inputInfo, src *dataSource) {
	in := info.in
	cols := len(src.values[0])
	good := true
	for r, row := range src.values {
		if len(row) != cols && !in.Vector {
			c.errorf(valuePos(row, src), "%srow %d of %s has %d values, but row 1 has %d (every row of a matrix has the same length)", src.who, r+1, in.Name, len(row), cols)
			return
		}
		if r > 0 && in.Vector {
			c.errorf(valuePos(row, src), "%s%s is declared %s, a vector, but its data has %d rows (rows are separated by &)", src.who, in.Name, dimsText(info.decl.Dims), len(src.values))
			return
		}
	}
	for _, row := range src.values {
		for _, v := range row {
			pos := v.Pos
			if !pos.IsValid() {
				pos = src.pos
			}
			if in.T.IsFloat() {
				f, err := parseFloatValue(v.Text, in.T)
				if err != nil {
					c.errorf(pos, "%s%s: %v (element %d)", src.who, in.Name, err, len(in.F))
					good = false
				}
				in.F = append(in.F, f)
				continue
			}
			x, err := parseIntValue(v.Text, in.T)
			if err != nil {
				c.errorf(pos, "%s%s: %v (element %d)", src.who, in.Name, err, len(in.I))
				good = false
			}
			in.I = append(in.I, x)
		}
	}
	if good {
		c.setShape(info, src, len(src.values), cols)
	}
}

func valuePos(row []dsl.Value, src *dataSource) source.Pos {
	if len(row) > 0 && row[0].Pos.IsValid() {
		return row[0].Pos
	}
	return src.pos
}

// fillText takes a string's characters as a char vector.
func (c *checker) fillText(info *inputInfo, src *dataSource, text string) {
	in := info.in
	switch {
	case in.T != ir.Char:
		c.errorf(src.pos, "%sa string gives characters, but %s is declared %s (write numbers separated by commas)", src.who, in.Name, in.T)
		return
	case !in.Vector:
		c.errorf(src.pos, "%sa string gives a vector, but %s is declared %s, a matrix", src.who, in.Name, dimsText(info.decl.Dims))
		return
	}
	in.I = make([]int64, len(text))
	for k := 0; k < len(text); k++ {
		if text[k] >= 0x80 {
			c.errorf(src.pos, "%s%s: character %d of the string is not ASCII (char inputs hold ASCII characters)", src.who, in.Name, k+1)
			in.I = nil
			return
		}
		in.I[k] = int64(text[k])
	}
	c.setShape(info, src, 1, len(text))
}

// tableOK reports whether a loaded table is consistent: one slice of
// Rows*Cols values.
func tableOK(t *formats.Table) bool {
	n := t.Len()
	switch {
	case t.Rows < 0 || t.Cols < 0:
		return false
	case t.I != nil:
		return len(t.I) == n
	case t.F != nil:
		return len(t.F) == n
	}
	return n == 0
}

// fillTable takes loaded data.
func (c *checker) fillTable(info *inputInfo, src *dataSource, t *formats.Table) {
	in := info.in
	n := t.Len()
	if !tableOK(t) {
		c.errorf(src.pos, "%sinput %s: the loader returned %dx%d without matching data", src.who, in.Name, t.Rows, t.Cols)
		return
	}
	if in.T.IsFloat() {
		in.F = make([]float64, n)
		for k := 0; k < n; k++ {
			var v ir.Value
			var err error
			if t.F != nil {
				v, err = floatValue(t.F[k], in.T)
			} else {
				v, err = intValue(t.I[k], in.T)
			}
			if err != nil {
				c.errorf(src.pos, "%sinput %s: element %d: %v", src.who, in.Name, k, err)
				in.F = nil
				return
			}
			in.F[k] = v.F
		}
	} else {
		in.I = make([]int64, n)
		for k := 0; k < n; k++ {
			var v ir.Value
			var err error
			if t.I != nil {
				v, err = intValue(t.I[k], in.T)
			} else {
				v, err = floatValue(t.F[k], in.T)
				if err == nil && float64(v.I) != t.F[k] {
					err = fmt.Errorf("%v is not an integer (declare the input float or double)", t.F[k])
				}
			}
			if err != nil {
				c.errorf(src.pos, "%sinput %s: element %d: %v", src.who, in.Name, k, err)
				in.I = nil
				return
			}
			in.I[k] = v.I
		}
	}
	rows, cols := t.Rows, t.Cols
	if d := info.decl.Dims; !in.Vector && rows == 1 && cols != 1 && d.Cols == 1 && (d.Rows < 0 || d.Rows == cols) {
		// One value per line reads as a 1xN list; a matrix declared with
		// one column takes it as the column it is.
		rows, cols = cols, 1
	}
	c.setShape(info, src, rows, cols)
}

// setShape checks the data's shape against the declared dimensions and
// records it. A declared vector takes all the values in order, whatever
// shape the data has.
func (c *checker) setShape(info *inputInfo, src *dataSource, rows, cols int) {
	in, d := info.in, info.decl.Dims
	if in.Vector {
		n := rows * cols
		if d.Cols >= 0 && d.Cols != n {
			c.errorf(src.pos, "%s%s is declared %s but has %d value%s", src.who, in.Name, dimsText(d), n, plural(n))
			return
		}
		in.Rows, in.Cols = 1, n
		info.ok = true
		return
	}
	if (d.Rows >= 0 && d.Rows != rows) || (d.Cols >= 0 && d.Cols != cols) {
		c.errorf(src.pos, "%s%s is declared %s but the data is %dx%d", src.who, in.Name, dimsText(d), rows, cols)
		return
	}
	in.Rows, in.Cols = rows, cols
	info.ok = true
}

func dimsText(d dsl.Dims) string {
	side := func(n int) string {
		if n < 0 {
			return "?"
		}
		return strconv.Itoa(n)
	}
	return side(d.Rows) + "x" + side(d.Cols)
}

// intRange is the range of an integer type.
func intRange(t ir.Type) (lo, hi int64) { return ir.FiniteRange(t) }

// widerAdvice suggests the next wider integer type with inf sentinels, if
// there is one: short for char, int for short, long for int.
func widerAdvice(t ir.Type) string {
	if !t.IsInteger() {
		return ""
	}
	wider := ir.Invalid
	for _, u := range ir.Types() {
		if u.HasInf() && u.Is(ir.IsDeclared) && u.Size() > t.Size() && (wider == ir.Invalid || u.Size() < wider.Size()) {
			wider = u
		}
	}
	if wider == ir.Invalid {
		return ""
	}
	return "; declare it " + wider.String()
}

// finiteNote explains the range of the types with inf sentinels (short,
// int, long), whose largest magnitude is kept for inf (docs/language.md
// §6.1): a value read as 2147483647 must not become inf.
func finiteNote(t ir.Type) string {
	if !t.HasInf() {
		return ""
	}
	lo, hi := intRange(t)
	return fmt.Sprintf(" (%s holds finite values %d..%d; the values beyond stand for inf)", t, lo, hi)
}

// intValue converts an integer to a value of type t, checking its range:
// int and long inputs and scalars must be finite.
func intValue(x int64, t ir.Type) (ir.Value, error) {
	if t.IsFloat() {
		return floatValue(float64(x), t)
	}
	lo, hi := intRange(t)
	if x < lo || x > hi {
		return ir.Value{}, fmt.Errorf("%d does not fit %s%s%s", x, t, widerAdvice(t), finiteNote(t))
	}
	return ir.Value{T: t, I: x}, nil
}

// floatValue converts a double to a value of type t: C conversion,
// truncating toward zero for integer types, with range checks.
func floatValue(f float64, t ir.Type) (ir.Value, error) {
	switch {
	case math.IsNaN(f):
		return ir.Value{}, fmt.Errorf("the value is NaN (not a number)")
	case t == ir.Double:
		return ir.Value{T: t, F: f}, nil
	case t == ir.Float:
		r := float64(float32(f))
		if math.IsInf(r, 0) && !math.IsInf(f, 0) {
			return ir.Value{}, fmt.Errorf("%g does not fit float; declare it double", f)
		}
		return ir.Value{T: t, F: r}, nil
	}
	if math.IsInf(f, 0) {
		return ir.Value{}, fmt.Errorf("%g does not fit %s", f, t)
	}
	tr := math.Trunc(f)
	lo, hi := intRange(t)
	// float64(hi)+1 is the exclusive bound exactly: 2^31, or 2^63 (to which
	// float64(MaxInt64) already rounds).
	if tr < float64(lo) || tr >= float64(hi)+1 {
		return ir.Value{}, fmt.Errorf("%g does not fit %s%s", f, t, widerAdvice(t))
	}
	return ir.Value{T: t, I: int64(tr)}, nil
}

// parseIntValue parses one data value of integer type t (for char, a single
// character).
func parseIntValue(text string, t ir.Type) (int64, error) {
	if text == "" {
		return 0, fmt.Errorf("missing value")
	}
	if t == ir.Char {
		if len(text) != 1 {
			return 0, fmt.Errorf("char value %q must be a single character (write one character per value, or a string \"...\")", text)
		}
		if text[0] >= 0x80 {
			return 0, fmt.Errorf("char value %q is not ASCII", text)
		}
		return int64(text[0]), nil
	}
	x, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%s does not fit %s%s", text, t, widerAdvice(t))
		}
		if _, ferr := strconv.ParseFloat(text, 64); ferr == nil {
			return 0, fmt.Errorf("%s is not an integer (declare the input float or double)", text)
		}
		return 0, fmt.Errorf("%q is not a number", text)
	}
	v, err := intValue(x, t)
	return v.I, err
}

// parseFloatValue parses one data value of floating type t.
func parseFloatValue(text string, t ir.Type) (float64, error) {
	if text == "" {
		return 0, fmt.Errorf("missing value")
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%s does not fit %s", text, t)
		}
		return 0, fmt.Errorf("%q is not a number", text)
	}
	v, err := floatValue(f, t)
	return v.F, err
}

// parseScalarText parses a --set value for a scalar of type t.
func parseScalarText(text string, t ir.Type) (ir.Value, error) {
	if t == ir.Char && len(text) == 1 && (text[0] < '0' || text[0] > '9') {
		return ir.Value{T: t, I: int64(text[0])}, nil
	}
	if !t.IsFloat() {
		if x, err := strconv.ParseInt(text, 10, 64); err == nil {
			return intValue(x, t)
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return ir.Value{}, fmt.Errorf("%q is not a number", text)
	}
	if !t.IsFloat() && f != math.Trunc(f) {
		return ir.Value{}, fmt.Errorf("%s is not an integer, and the scalar is %s", text, t)
	}
	return floatValue(f, t)
}
