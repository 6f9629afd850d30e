package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/engine"
	"github.com/dpgpu/dpgpu/ir"
)

// BatchFormats are the output formats of `dpgpu batch`.
var BatchFormats = []string{"tsv", "jsonl"}

// BatchWriter writes a batch's results one line per instance, as they
// come: TSV with a header line, or JSON Lines. A failed instance is a line
// too, with its names and the error, so that a reader can tell which
// record failed without matching stderr against the input.
type BatchWriter struct {
	w         io.Writer
	jsonl     bool
	args      []string // column heads of the arguments
	traceback bool
	paf       bool
	started   bool
	buf       []byte
}

// NewBatchWriter writes to w in format (tsv or jsonl). args name the
// positional arguments (engine.ArgNames); traceback adds the cigar and
// solution columns.
func NewBatchWriter(w io.Writer, format string, args []string, traceback bool) (*BatchWriter, error) {
	switch format {
	case "tsv", "jsonl", "paf":
	default:
		return nil, fmt.Errorf("unknown batch format %q (want tsv, jsonl or paf)", format)
	}
	return &BatchWriter{w: w, jsonl: format == "jsonl", paf: format == "paf", args: args, traceback: traceback || format == "paf"}, nil
}

// BatchLine is one line of JSON Lines output. Answer is a number, or
// "inf", "-inf", "nan" (JSONValue); N counts instances from 1, in input
// order.
type BatchLine struct {
	N        int64             `json:"n"`
	Names    map[string]string `json:"names,omitempty"`
	Answer   any               `json:"answer,omitempty"`
	Cells    int64             `json:"cells,omitempty"`
	CIGAR    string            `json:"cigar,omitempty"`
	Solution string            `json:"solution,omitempty"`
	Emitted  []any             `json:"emitted,omitempty"`
	// Alignment is the traceback of an alignment as a record (=XID
	// CIGAR, coordinates), with --traceback.
	Alignment *AlignJSON `json:"alignment,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// TSVColumns are the TSV header's columns for args and traceback.
func TSVColumns(args []string, traceback bool) []string {
	cols := append([]string{"n"}, args...)
	cols = append(cols, "answer")
	if traceback {
		cols = append(cols, "cigar", "solution")
	}
	return append(cols, "error")
}

// Write writes r's line (and, before the first TSV line, the header).
func (b *BatchWriter) Write(r *engine.BatchResult) error {
	b.buf = b.buf[:0]
	if b.paf {
		// One PAF line an alignment; an instance that failed, or is no
		// alignment, is a comment line (PAF readers skip '#').
		b.started = true
		switch {
		case r.Err != nil:
			_, err := fmt.Fprintf(b.w, "# %d\t%s\terror: %s\n", r.Index+1, strings.Join(r.Names, "\t"), oneLine(r.Err.Error()))
			return err
		case r.Alignment == nil:
			_, err := fmt.Fprintf(b.w, "# %d\t%s\tno alignment\n", r.Index+1, strings.Join(r.Names, "\t"))
			return err
		}
		a := *r.Alignment
		// The records' names, where the arguments have them.
		if len(r.Names) >= 2 {
			a.QName, a.TName = pafName(r.Names[0], a.QName), pafName(r.Names[1], a.TName)
		}
		return PAF(b.w, a, r.Answer)
	}
	if b.jsonl {
		line := b.line(r)
		data, err := json.Marshal(line)
		if err != nil {
			return err
		}
		b.buf = append(append(b.buf, data...), '\n')
	} else {
		if !b.started {
			b.buf = appendTSV(b.buf, TSVColumns(b.args, b.traceback))
		}
		b.buf = appendTSV(b.buf, b.fields(r))
	}
	b.started = true
	_, err := b.w.Write(b.buf)
	return err
}

// Header writes the TSV header if no line has been written (an empty
// batch still has its columns); JSON Lines has none.
func (b *BatchWriter) Header() error {
	if b.started || b.jsonl {
		return nil
	}
	b.started = true
	_, err := b.w.Write(appendTSV(nil, TSVColumns(b.args, b.traceback)))
	return err
}

func (b *BatchWriter) line(r *engine.BatchResult) BatchLine {
	l := BatchLine{N: r.Index + 1, Names: map[string]string{}}
	for k, n := range r.Names {
		l.Names[b.argName(k)] = n
	}
	if r.Err != nil {
		l.Error = oneLine(r.Err.Error())
		return l
	}
	l.Answer, l.Cells = JSONValue(r.Answer), r.Cells
	if b.traceback {
		l.CIGAR, l.Solution = CIGAR(r.Path), r.Solution
		if r.Alignment != nil {
			l.Alignment = AlignObject(*r.Alignment)
		}
		for _, v := range r.Emitted {
			l.Emitted = append(l.Emitted, JSONValue(v))
		}
	}
	return l
}

func (b *BatchWriter) argName(k int) string {
	if k < len(b.args) {
		return b.args[k]
	}
	return "arg" + strconv.Itoa(k+1)
}

func (b *BatchWriter) fields(r *engine.BatchResult) []string {
	f := []string{strconv.FormatInt(r.Index+1, 10)}
	for k := range b.args {
		name := ""
		if k < len(r.Names) {
			name = r.Names[k]
		}
		f = append(f, name)
	}
	if r.Err != nil {
		f = append(f, "")
		if b.traceback {
			f = append(f, "", "")
		}
		return append(f, oneLine(r.Err.Error()))
	}
	f = append(f, ValueText(r.Answer, r.CellType))
	if b.traceback {
		f = append(f, CIGAR(r.Path), solutionText(r))
	}
	return append(f, "")
}

// solutionText is the built-in's rendering, else the emitted values, else
// the path.
func solutionText(r *engine.BatchResult) string {
	switch {
	case r.Solution != "":
		return r.Solution
	case len(r.Emitted) > 0:
		vals := make([]string, len(r.Emitted))
		for i, v := range r.Emitted {
			vals[i] = emittedText(v)
		}
		return strings.Join(vals, " ")
	case len(r.Path) > 0:
		return PathText(r.Path)
	}
	return ""
}

func emittedText(v ir.Value) string {
	if v.T == ir.Char {
		return string(rune(v.I))
	}
	return ValueText(v, v.T)
}

// oneLine joins the lines of a message (an error list) with "; ".
func oneLine(s string) string {
	return strings.Join(strings.Split(strings.TrimRight(s, "\n"), "\n"), "; ")
}

// appendTSV appends one TSV line. Fields are escaped as the IANA
// text/tab-separated-values convention leaves open and most readers
// (PostgreSQL's COPY, pandas with escapechar) expect: backslash, tab,
// newline and carriage return as \\, \t, \n, \r; so a solution of several
// lines stays on its instance's line.
func appendTSV(buf []byte, fields []string) []byte {
	for k, f := range fields {
		if k > 0 {
			buf = append(buf, '\t')
		}
		for i := 0; i < len(f); i++ {
			switch c := f[i]; c {
			case '\\':
				buf = append(buf, '\\', '\\')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			default:
				buf = append(buf, c)
			}
		}
	}
	return append(buf, '\n')
}

// UnescapeTSV undoes appendTSV's escapes in one field.
func UnescapeTSV(f string) string {
	if !strings.Contains(f, `\`) {
		return f
	}
	var out strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '\\' || i+1 == len(f) {
			out.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 't':
			out.WriteByte('\t')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		default:
			out.WriteByte(f[i])
		}
	}
	return out.String()
}

// CIGAR writes a traceback path through an alignment grid as a CIGAR
// string, the rows' sequence (A) taken as the query and the columns' (B)
// as the reference, as in SAM: a diagonal step is M (match or mismatch), a
// step down consumes a letter of A only (I), a step right one of B only
// (D). It is "" for a path with any other step (not an alignment) or
// fewer than two cells. Letters before the path's first cell are not
// covered (a local alignment's start is the path's first cell).
func CIGAR(path [][2]int64) string {
	if len(path) < 2 {
		return ""
	}
	var out []byte
	var op byte
	n := 0
	for k := 1; k < len(path); k++ {
		var o byte
		switch [2]int64{path[k][0] - path[k-1][0], path[k][1] - path[k-1][1]} {
		case [2]int64{1, 1}:
			o = 'M'
		case [2]int64{1, 0}:
			o = 'I'
		case [2]int64{0, 1}:
			o = 'D'
		default:
			return ""
		}
		if o != op && n > 0 {
			out = append(strconv.AppendInt(out, int64(n), 10), op)
			n = 0
		}
		op = o
		n++
	}
	return string(append(strconv.AppendInt(out, int64(n), 10), op))
}

// pafName is a record's name for a PAF column: name when it has no
// whitespace (a FASTA ID, a file name), else def.
func pafName(name, def string) string {
	if name == "" || strings.ContainsAny(name, " \t\n\r") {
		return def
	}
	return name
}
