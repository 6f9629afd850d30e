package sema

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/source"
)

// Data is what a binding step (package bind) gives Check: the data of the
// inputs that do not take it from the file's own text, the values the
// command line gives scalars, and the problems met on the way. Check
// converts and checks all of it against the declarations, so that the
// rules of the language's values live here once, whoever supplied them.
type Data struct {
	// Inputs holds the data of each input declaration given one outside
	// the file's text: a data file (its own `@"path"`, --input, `args:`)
	// or values. An input not here takes its inline values, or needs data.
	Inputs map[*dsl.InputDecl]*Datum
	// Steps are the binding's errors and its scalar values, in the order
	// it met them (the command line's): Check reports them in that order.
	Steps []Step
	// Names, where the binder has them, are Names(f) of the file bound
	// (shared, not written), which Check would otherwise find again.
	Names []Name
}

// Step is one event of the binding: an error, or a value for a scalar.
type Step struct {
	Err    *source.Error   // a problem, or
	Scalar *dsl.ScalarDecl // the scalar given the value in Datum
	Datum  *Datum
}

// Datum is one input's or scalar's data as bound: exactly one of Err,
// Values, Text and Table is set.
type Datum struct {
	Origin string     // ir.Input.Origin: "inline", a path, "--input", ...
	Pos    source.Pos // where errors about the data point
	// Who gave the data, when not the file: "--input A=@a.txt",
	// "argument 1 (a.fa)"; errors about the data begin with it.
	Who string

	Err    error         // the data could not be read
	Values [][]dsl.Value // values as written, rows of a matrix
	// Text is a string of characters for a char input, or a scalar's
	// value as written (--set).
	Text  *string
	Table *Table // values that were read or made, not written
}

// Table is values of one input (or one scalar, 1x1), row-major.
type Table struct {
	Rows, Cols int
	// I holds integer values; ±math.MaxInt64 (the long sentinels, which
	// no finite value reaches) stand for inf and -inf, and become the
	// sentinels of the input's declared type.
	I []int64
	F []float64 // or floating ones (IEEE infinities for inf)
	// Printable: every value of I is a printable ASCII character (0x21 to
	// 0x7e: a record of a FASTA file), which every integer type holds.
	Printable bool
	// Span, where Known, is the least and greatest value of I (the
	// loader's, formats.Table.Span): values within the declared type's
	// range are then taken without a pass over them, and the input keeps
	// the span (ir.Input.Span).
	Span ir.Span
	// Column: the values came one a line, a column the Rows x Cols of 1
	// x N gives as a list (formats.Table.Column).
	Column bool
	// Checked, where not nil, is shared by every Table of the same values
	// (a data file a batch reads once for all its instances, a scoring
	// matrix): the integer types the values were found to fit as they
	// are, which the next instances' checks take as done.
	Checked *Checked
}

// Checked remembers the integer types some values fit as they are (safe
// for concurrent use).
type Checked struct{ types, finite atomic.Uint64 }

// hasNoInf and addNoInf: the values hold no inf sentinel of type t.
func (c *Checked) hasNoInf(t ir.Type) bool { return c != nil && t < 64 && c.finite.Load()&(1<<t) != 0 }

func (c *Checked) addNoInf(t ir.Type) {
	if c != nil && t < 64 {
		c.finite.Or(1 << t)
	}
}

func (c *Checked) has(t ir.Type) bool { return c != nil && t < 64 && c.types.Load()&(1<<t) != 0 }

func (c *Checked) add(t ir.Type) {
	if c != nil && t < 64 {
		c.types.Or(1 << t)
	}
}

// Len is the number of values the shape holds.
func (t *Table) Len() int { return t.Rows * t.Cols }

// prefix begins the errors about d's data.
func (d *Datum) prefix() string {
	if d.Who == "" {
		return ""
	}
	return d.Who + ": "
}

// bindSteps reports the binding's errors and sets the scalars it gives,
// before the scalars are evaluated: a scalar given a value keeps it, and
// the scalars derived from it are computed from it.
func (c *checker) bindSteps() {
	if c.data == nil {
		return
	}
	for _, st := range c.data.Steps {
		switch {
		case st.Err != nil:
			c.errorf(st.Err.Pos, "%s", st.Err.Msg)
		case st.Scalar != nil && st.Datum != nil:
			for _, s := range c.scalars {
				if s.decl == st.Scalar {
					c.bindScalar(s, st.Datum)
				}
			}
		}
	}
}

// bindScalar sets s from d: a value as written (--set), a 1x1 table, or an
// error reading it. A scalar whose value was refused is not evaluated
// either.
func (c *checker) bindScalar(s *scalarInfo, d *Datum) {
	if s.t == ir.Invalid {
		return
	}
	switch {
	case d.Err != nil:
		c.errorf(d.Pos, "%s: %v", d.Who, d.Err)
		s.overrideBy = d.Who
	case d.Table != nil:
		c.scalarFromTable(s, d.Table, d.Pos, d.Who)
	case d.Text != nil:
		v, err := parseScalarText(*d.Text, s.t)
		if err != nil {
			c.errorf(d.Pos, "%s: %v", d.Who, err)
			s.overrideBy = d.Who // known to be bad: not evaluated either
			return
		}
		s.setOverride(v, d.Who)
	}
}

func (s *scalarInfo) setOverride(v ir.Value, by string) {
	s.s.Value, s.ok, s.overrideBy = v, true, by
}

// checkArgsDecl checks the names of the `args:` line, whether or not files
// are given, so that `dpgpu check` finds them before anything is computed.
// (Its formats are the binding's to know, and to check.)
func (c *checker) checkArgsDecl() {
	if c.args == nil {
		return
	}
	seen := map[string]bool{}
	for _, it := range c.args.Items {
		for _, id := range it.Names {
			switch {
			case c.entity(id.Name) == nil:
				c.errorf(id.Pos, "args: %s", c.unknownName(id.Name, nil))
			case seen[id.Name]:
				c.errorf(id.Pos, "args: %s is named twice", id.Name)
			}
			seen[id.Name] = true
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// scalarFromTable sets a scalar from a 1x1 table (e.g. a Pisinger
// capacity).
func (c *checker) scalarFromTable(s *scalarInfo, t *Table, pos source.Pos, who string) {
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

// inputData is where info's data comes from: the binding's, else the
// file's inline values or string; nil when there is none.
func (c *checker) inputData(info *inputInfo) *Datum {
	if c.data != nil {
		if d := c.data.Inputs[info.decl]; d != nil {
			return d
		}
	}
	d := info.decl
	switch {
	case d.Source != nil:
		return &Datum{Origin: d.Source.Path, Pos: d.Source.Pos, Err: errNotBound}
	case d.Text != nil:
		text := d.Text.Value
		return &Datum{Origin: "inline", Pos: d.Text.Pos, Text: &text}
	case len(d.Values) > 0:
		return &Datum{Origin: "inline", Pos: d.Pos, Values: d.Values}
	}
	return nil
}

// errNotBound is the error of a data file that no binding step read: Check
// was called without package bind.
var errNotBound = errors.New("the data file was not read (no binding step)")

// loadInputs checks the data of every input against its declaration.
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
		if info.in.T == ir.Invalid {
			continue
		}
		src, name := c.inputData(info), info.in.Name
		if src == nil {
			info.in.Origin = "inline"
			if argNames[name] {
				c.errorf(info.decl.Pos, "input %s needs data: give a file as an argument or --input %s=@FILE", name, name)
			} else {
				c.errorf(info.decl.Pos, "input %s needs data: give --input %s=@FILE (or values, --input %s=v1,v2,...)", name, name, name)
			}
			continue
		}
		info.in.Origin = src.Origin
		switch {
		case src.Err != nil:
			c.errorf(src.Pos, "%sinput %s: %v", src.prefix(), name, src.Err)
		case src.Values != nil:
			c.fillValues(info, src)
		case src.Text != nil:
			c.fillText(info, src, *src.Text)
		case src.Table != nil:
			c.fillTable(info, src, src.Table)
		}
	}
}

// fillValues parses inline (or --input) values.
func (c *checker) fillValues(info *inputInfo, src *Datum) {
	in := info.in
	cols := len(src.Values[0])
	good := true
	for r, row := range src.Values {
		if len(row) != cols && !in.Vector {
			c.errorf(valuePos(row, src), "%srow %d of %s has %d values, but row 1 has %d (every row of a matrix has the same length)", src.prefix(), r+1, in.Name, len(row), cols)
			return
		}
		if r > 0 && in.Vector {
			c.errorf(valuePos(row, src), "%s%s is declared %s, a vector, but its data has %d rows (rows are separated by &)", src.prefix(), in.Name, dimsText(info.decl.Dims), len(src.Values))
			return
		}
	}
	for _, row := range src.Values {
		for _, v := range row {
			pos := v.Pos
			if !pos.IsValid() {
				pos = src.Pos
			}
			if in.T.IsFloat() {
				f, err := parseFloatValue(v.Text, in.T)
				if err != nil {
					c.errorf(pos, "%s%s: %v (element %d)", src.prefix(), in.Name, err, len(in.F))
					good = false
				}
				in.F = append(in.F, f)
				continue
			}
			x, err := parseIntValue(v.Text, in.T)
			if err != nil {
				c.errorf(pos, "%s%s: %v (element %d)", src.prefix(), in.Name, err, len(in.I))
				good = false
			}
			in.I = append(in.I, x)
		}
	}
	if good {
		c.setShape(info, src, len(src.Values), cols)
	}
}

func valuePos(row []dsl.Value, src *Datum) source.Pos {
	if len(row) > 0 && row[0].Pos.IsValid() {
		return row[0].Pos
	}
	return src.Pos
}

// fillText takes a string's characters as a char vector.
func (c *checker) fillText(info *inputInfo, src *Datum, text string) {
	in := info.in
	switch {
	case in.T != ir.Char:
		c.errorf(src.Pos, "%sa string gives characters, but %s is declared %s (write numbers separated by commas)", src.prefix(), in.Name, in.T)
		return
	case !in.Vector:
		c.errorf(src.Pos, "%sa string gives a vector, but %s is declared %s, a matrix", src.prefix(), in.Name, dimsText(info.decl.Dims))
		return
	}
	in.I = make([]int64, len(text))
	for k := 0; k < len(text); k++ {
		if text[k] >= 0x80 {
			c.errorf(src.Pos, "%s%s: character %d of the string is not ASCII (char inputs hold ASCII characters)", src.prefix(), in.Name, k+1)
			in.I = nil
			return
		}
		in.I[k] = int64(text[k])
	}
	c.setShape(info, src, 1, len(text))
}

// tableOK reports whether a loaded table is consistent: one slice of
// Rows*Cols values.
func tableOK(t *Table) bool {
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

// fillTable takes loaded data. The conversion is one loop per input with
// the type's range hoisted out of it; where the declared type holds every
// value as loaded (an integer input from integers, a double input from
// floating values, a float input from values float holds exactly), the
// input takes the loader's array itself, checked but not copied. Nothing
// writes an input's values after checking, so sharing them is safe.
func (c *checker) fillTable(info *inputInfo, src *Datum, t *Table) {
	in := info.in
	if !tableOK(t) {
		c.errorf(src.Pos, "%sinput %s: the loader returned %dx%d without matching data", src.prefix(), in.Name, t.Rows, t.Cols)
		return
	}
	var k int
	var err error
	if in.T.IsFloat() {
		in.F, k, err = floatsOf(t, in.T)
	} else {
		in.I, in.Span, k, err = intsOf(t, in.T)
	}
	if err != nil {
		c.errorf(src.Pos, "%sinput %s: element %d: %v", src.prefix(), in.Name, k, err)
		in.I, in.F = nil, nil
		return
	}
	if t.Checked != nil && len(in.I) > 0 && len(in.I) == len(t.I) && &in.I[0] == &t.I[0] {
		if c.shared == nil {
			c.shared = map[*ir.Input]*Checked{}
		}
		c.shared[in] = t.Checked // its values, not a copy: inputInf may ask it
	}
	rows, cols := t.Rows, t.Cols
	if d := info.decl.Dims; !in.Vector && rows == 1 && cols != 1 && (d.Rows < 0 || d.Rows == cols) &&
		(d.Cols == 1 || d.Cols < 0 && t.Column) {
		// One value per line reads as a 1xN list; a matrix declared with
		// one column, or with ? columns from a file of one value a line
		// (formats.Table.Column: one line a row), takes it as the column
		// it is.
		rows, cols = cols, 1
	}
	c.setShape(info, src, rows, cols)
}

// intsOf converts t's values to integer type typ: the values themselves
// when they are integers (only checked), else truncated floating values
// that must be whole. inf and -inf in the data (±dataInf, IEEE
// infinities) become typ's sentinels. It returns the span of what it
// returns too: the loader's where that shows every value fits typ as it is
// (no pass over them), else found in the pass that checks them (unknown
// only where neither looked: taken unchecked as printable or as checked
// before). On error it returns the index of the first value that does not
// fit and the error intValue or floatValue gives for it.
func intsOf(t *Table, typ ir.Type) ([]int64, ir.Span, int, error) {
	lo, hi := intRange(typ)
	if t.F == nil && (t.Checked.has(typ) || t.Printable && lo <= 0x21 && hi >= 0x7e ||
		t.Span.Known && t.Span.Lo >= lo && t.Span.Hi <= hi) {
		if t.I == nil {
			return []int64{}, ir.Span{}, 0, nil
		}
		if t.Span.Known {
			t.Checked.add(typ)
		}
		return t.I, t.Span, 0, nil
	}
	if t.F == nil {
		out, copied := t.I, false
		if len(out) == 0 {
			return []int64{}, ir.Span{}, 0, nil // an empty table: an empty input, not none
		}
		smin, smax := int64(math.MaxInt64), int64(math.MinInt64) // of the values returned
		for k, x := range t.I {
			if x >= lo && x <= hi {
				if copied {
					out[k] = x
				}
				smin, smax = min(smin, x), max(smax, x)
				continue
			}
			if x != dataInf && x != -dataInf {
				_, err := intValue(x, typ)
				return nil, ir.Span{}, k, err
			}
			v, err := infData(typ, x < 0)
			if err != nil {
				return nil, ir.Span{}, k, err
			}
			if v != x && !copied {
				// The loader's array stays as it was (a program may
				// hand the same values to several inputs).
				out, copied = make([]int64, len(t.I)), true
				copy(out, t.I[:k])
			}
			out[k] = v
			smin, smax = min(smin, v), max(smax, v)
		}
		if !copied {
			t.Checked.add(typ)
		}
		return out, ir.Span{Lo: smin, Hi: smax, Known: true}, 0, nil
	}
	// float64(hi)+1 is the exclusive bound exactly (see floatValue).
	flo, fhi := float64(lo), float64(hi)+1
	out := make([]int64, len(t.F))
	for k, f := range t.F {
		tr := math.Trunc(f)
		if math.IsInf(f, 0) {
			v, err := infData(typ, f < 0)
			if err != nil {
				return nil, ir.Span{}, k, err
			}
			out[k] = v
			continue
		}
		if tr != f || tr < flo || tr >= fhi { // NaN fails tr != f
			_, err := floatValue(f, typ)
			if err == nil {
				err = fmt.Errorf("%v is not an integer (declare the input float or double)", f)
			}
			return nil, ir.Span{}, k, err
		}
		out[k] = int64(tr)
	}
	return out, ir.SpanOf(out), 0, nil
}

// floatsOf converts t's values to floating type typ: double takes
// floating values as they are (NaN refused); float takes them as they are
// while float holds each exactly, copying from the first one it rounds.
// Integers are converted as C converts them, the inf marks (±dataInf) to
// the infinities.
func floatsOf(t *Table, typ ir.Type) ([]float64, int, error) {
	if t.F == nil {
		out := make([]float64, len(t.I))
		if typ == ir.Float {
			for k, x := range t.I {
				out[k] = float64(float32(float64(x)))
			}
		} else {
			for k, x := range t.I {
				out[k] = float64(x)
			}
		}
		for k, x := range t.I {
			if x == dataInf || x == -dataInf {
				out[k] = math.Inf(int(x>>63 | 1))
			}
		}
		return out, 0, nil
	}
	if typ != ir.Float {
		for k, f := range t.F {
			if math.IsNaN(f) {
				_, err := floatValue(f, typ)
				return nil, k, err
			}
		}
		return t.F, 0, nil
	}
	out, copied := t.F, false
	for k, f := range t.F {
		r := float64(float32(f))
		switch {
		case r == f:
			if copied {
				out[k] = r
			}
			continue
		case math.IsNaN(r) || math.IsInf(r, 0): // NaN, or beyond float
			_, err := floatValue(f, typ)
			return nil, k, err
		case !copied:
			out, copied = make([]float64, len(t.F)), true
			copy(out, t.F[:k])
		}
		out[k] = r
	}
	return out, 0, nil
}

// setShape checks the data's shape against the declared dimensions and
// records it. A declared vector takes all the values in order, whatever
// shape the data has.
func (c *checker) setShape(info *inputInfo, src *Datum, rows, cols int) {
	in, d := info.in, info.decl.Dims
	if in.Vector {
		n := rows * cols
		if d.Cols >= 0 && d.Cols != n {
			c.errorf(src.Pos, "%s%s is declared %s but has %d value%s", src.prefix(), in.Name, dimsText(d), n, plural(n))
			return
		}
		in.Rows, in.Cols = 1, n
		info.ok = true
		return
	}
	if (d.Rows >= 0 && d.Rows != rows) || (d.Cols >= 0 && d.Cols != cols) {
		c.errorf(src.Pos, "%s%s is declared %s but the data is %dx%d", src.prefix(), in.Name, dimsText(d), rows, cols)
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
	if neg, ok := infText(text); ok {
		return infData(t, neg)
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

// infText reports whether a data value is written as inf or -inf, in any
// of the spellings that files use ("inf", "-inf", "+Inf", "infinity":
// those of strconv.ParseFloat, as a float input reads them), and which.
func infText(text string) (neg, ok bool) {
	if len(text) < 3 || len(text) > 9 {
		return false, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || !math.IsInf(f, 0) {
		return false, false // 1e999 is too large, not inf
	}
	return f < 0, true
}

// infData is inf (or -inf) as data of integer type t: the type's sentinel
// (docs/language.md §6.1). char has none.
func infData(t ir.Type, neg bool) (int64, error) {
	if !t.HasInf() {
		return 0, fmt.Errorf("%s has no inf (only short, int and long inputs hold inf, as their sentinels)", t)
	}
	p, n := ir.InfSentinel(t)
	if neg {
		return n, nil
	}
	return p, nil
}

// dataInf is how loaded integer data marks inf and -inf (the text `inf`
// in a .txt or .csv file): the long sentinels, ±(2^63-1), which no finite
// value of any type reaches. intsOf takes them to the sentinels of the
// declared type. Table.I documents the convention to the loaders.
const dataInf = math.MaxInt64

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
