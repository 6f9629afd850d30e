package bind

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems/formats"
	"github.com/dpgpu/dpgpu/sema"
)

// argItemsOK reports, per item of the `args:` line, whether it can take a
// file: it names something, every name is in scope and named once, and its
// format is known. Check reports the names; the formats are reported here,
// whether or not files are given, so that `dpgpu check` finds them before
// anything is computed.
func (b *binder) argItemsOK() []bool {
	ok := make([]bool, len(b.args.Items))
	seen := map[string]bool{}
	for k, it := range b.args.Items {
		ok[k] = len(it.Names) > 0
		if it.Format != "" && !formats.IsGroupFormat(it.Format) {
			b.errorf(it.Pos, "args: unknown format %q (known: %s)", it.Format, strings.Join(formats.GroupFormats, ", "))
			ok[k] = false
		}
		for _, id := range it.Names {
			if b.scope[id.Name] == nil || seen[id.Name] {
				ok[k] = false
			}
			seen[id.Name] = true
		}
	}
	return ok
}

// bindArgs maps the positional files through the `args:` line.
func (b *binder) bindArgs() {
	var itemOK []bool
	if b.args != nil {
		itemOK = b.argItemsOK()
	}
	args := b.cfg.Args
	if len(args) == 0 {
		return
	}
	name := sema.ProblemName(b.file)
	if b.args == nil {
		b.errorf(b.filePos(), "%s takes no positional files (the file has no `args:` line); give data with --input NAME=@FILE", name)
		return
	}
	if len(args) != len(b.args.Items) {
		var parts []string
		for _, it := range b.args.Items {
			parts = append(parts, argItemText(it))
		}
		b.errorf(b.filePos(), "%s takes %d file%s: %s (got %d)", name, len(b.args.Items), plural(len(b.args.Items)), strings.Join(parts, " "), len(args))
		return
	}
	for k, arg := range args {
		it := b.args.Items[k]
		if !itemOK[k] {
			continue
		}
		who := "argument " + strconv.Itoa(k+1) + " (" + arg + ")" // (not Sprintf: a batch binds every instance)
		if tab := argData(b.cfg.ArgData, k); tab != nil {
			if it.Format != "" {
				b.errorf(it.Pos, "%s: the group %s is read from a file in the %s format, not given as data", who, argItemText(it), it.Format)
				continue
			}
			n := b.scope[it.Names[0].Name]
			b.give(n.Name, who)
			d := &sema.Datum{Origin: arg, Pos: it.Pos, Who: who, Table: table(tab)}
			if n.Input != nil {
				b.setInput(n.Input, d)
				continue
			}
			b.setScalar(n.Scalar, d)
			continue
		}
		if it.Format == "" {
			n := b.scope[it.Names[0].Name]
			b.give(n.Name, who)
			path, rec := splitRecord(arg)
			if n.Input != nil {
				b.setFile(n.Input, &dataFile{path: path, record: rec, datum: sema.Datum{Origin: arg, Pos: it.Pos, Who: who}})
				continue
			}
			b.scalarFromFile(n.Scalar, path, rec, sema.Datum{Pos: it.Pos, Who: who})
			continue
		}
		tables, err := formats.LoadGroup(it.Format, arg)
		if err != nil {
			b.errorf(it.Pos, "%s: %v", who, err)
			continue
		}
		if len(tables) != len(it.Names) {
			b.errorf(it.Pos, "%s: the %s format gives %d tables, but the group names %d", who, it.Format, len(tables), len(it.Names))
			continue
		}
		for m, id := range it.Names {
			n := b.scope[id.Name]
			b.give(n.Name, who)
			d := &sema.Datum{Origin: arg, Pos: id.Pos, Who: who, Table: table(tables[m])}
			if n.Input != nil {
				b.setInput(n.Input, d)
				continue
			}
			b.setScalar(n.Scalar, d)
		}
	}
}

// scalarFromFile gives a scalar named alone in `args:` the one value of a
// file. A scalar of an unknown type is not read (Check reports the type).
func (b *binder) scalarFromFile(s *dsl.ScalarDecl, path string, rec int, d sema.Datum) {
	if ir.ParseType(s.Type) == ir.Invalid {
		return
	}
	load(&d, s.Type, path, rec, b.cfg.Files)
	b.setScalar(s, &d)
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

// lookup finds the declaration that a --input, --set or Value names, or
// reports why there is none to give data to: want is "input" or "scalar",
// what the flag gives.
func (b *binder) lookup(flag, name, want string) *sema.Name {
	n := b.scope[name]
	switch {
	case n == nil && want == "input":
		b.errorf(b.filePos(), "%s: no input named %s (inputs: %s)", flag, name, b.nameList(true))
	case n == nil:
		b.errorf(b.filePos(), "%s: no scalar named %s (scalars: %s)", flag, name, b.nameList(false))
	case want == "input" && n.Scalar != nil:
		b.errorf(b.filePos(), "%s: %s is a scalar; use --set %s=VALUE", flag, name, name)
	case want == "scalar" && n.Input != nil:
		b.errorf(b.filePos(), "%s: %s is an input; use --input %s=VALUES or --input %s=@FILE", flag, name, name, name)
	case b.given[name] != "":
		b.errorf(b.filePos(), "%s: %s is already given by %s", flag, name, b.given[name])
	default:
		return n
	}
	return nil
}

func (b *binder) bindInputFlags() {
	for _, ov := range b.cfg.Inputs {
		flag := fmt.Sprintf("--input %s=%s", ov.Name, ov.Value)
		n := b.lookup(flag, ov.Name, "input")
		if n == nil {
			continue
		}
		b.give(ov.Name, "--input")
		d := sema.Datum{Origin: "--input", Pos: b.filePos(), Who: flag}
		v := strings.TrimSpace(ov.Value)
		switch {
		case strings.HasPrefix(v, "@"):
			path, rec := splitRecord(v[1:])
			d.Origin = path
			b.setFile(n.Input, &dataFile{path: path, record: rec, datum: d})
			continue
		case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
			text := v[1 : len(v)-1]
			d.Text = &text
		default:
			for _, row := range strings.Split(v, "&") {
				var vals []dsl.Value
				for _, x := range strings.Split(row, ",") {
					vals = append(vals, dsl.Value{Text: strings.TrimSpace(x)})
				}
				d.Values = append(d.Values, vals)
			}
		}
		b.setInput(n.Input, &d)
	}
}

// bindValues gives the Values: a program's data, as they are.
func (b *binder) bindValues() {
	for _, v := range b.cfg.Values {
		flag := "the values of " + v.Name
		var n *sema.Name
		if n = b.scope[v.Name]; n != nil && n.Scalar != nil {
			n = b.lookup(flag, v.Name, "scalar")
		} else {
			n = b.lookup(flag, v.Name, "input")
		}
		if n == nil {
			continue
		}
		b.give(v.Name, flag)
		d := &sema.Datum{Origin: "values", Pos: b.filePos(), Who: flag}
		rows, cols := v.Rows, v.Cols
		if rows == 0 && cols == 0 {
			rows, cols = 1, len(v.Ints)+len(v.F)
		}
		switch {
		case v.Text != "":
			text := v.Text
			d.Text = &text
		case v.F != nil:
			d.Table = &sema.Table{Rows: rows, Cols: cols, F: v.F}
		default:
			d.Table = &sema.Table{Rows: rows, Cols: cols, I: v.Ints}
		}
		if n.Scalar != nil {
			b.setScalar(n.Scalar, d)
			continue
		}
		b.setInput(n.Input, d)
	}
}

func (b *binder) bindSetFlags() {
	for _, ov := range b.cfg.Sets {
		flag := fmt.Sprintf("--set %s=%s", ov.Name, ov.Value)
		n := b.lookup(flag, ov.Name, "scalar")
		if n == nil {
			continue
		}
		b.give(ov.Name, "--set")
		text := strings.TrimSpace(ov.Value)
		b.setScalar(n.Scalar, &sema.Datum{Pos: b.filePos(), Who: flag, Text: &text})
	}
}

// argData is data[k], or nil past data's end.
func argData(data []*formats.Table, k int) *formats.Table {
	if k < len(data) {
		return data[k]
	}
	return nil
}
