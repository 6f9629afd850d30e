package sema

import (
	"fmt"

	"github.com/dpgpu/dpgpu/dsl"
)

// Name is an input or a scalar that a file declares, named as Check names
// it.
type Name struct {
	Name   string          // the declared name; unnamed inputs are in0, in1, ...
	Input  *dsl.InputDecl  // the declaration: an input's,
	Scalar *dsl.ScalarDecl // or a scalar's
	// InScope reports whether Name refers to this declaration: false for
	// a reserved name (cell, min, ...) and for a name declared before.
	InScope bool
	clash   string // why not, as Check reports it
}

func (n Name) kind() string {
	if n.Input != nil {
		return "input"
	}
	return "scalar"
}

func (n Name) pos() int {
	if n.Input != nil {
		return n.Input.Pos.Line
	}
	return n.Scalar.Pos.Line
}

// Names lists f's inputs and scalars in the order of their declarations,
// with Check's rules of scope. A binding step resolves the names of
// --input, --set and `args:` with it, so that a name on the command line
// means the declaration that Check gives the data to.
func Names(f *dsl.File) []Name {
	var out []Name
	first := map[string]int{} // a name in scope -> its entry in out
	unnamed := 0
	for _, d := range f.Decls {
		var n Name
		named := true
		switch d := d.(type) {
		case *dsl.InputDecl:
			n = Name{Name: d.Name, Input: d}
			if d.Name == "" {
				n.Name, named = fmt.Sprintf("in%d", unnamed), false
				unnamed++
			}
		case *dsl.ScalarDecl:
			n = Name{Name: d.Name, Scalar: d}
		default:
			continue
		}
		if what, ok := reserved[n.Name]; ok && named {
			n.clash = fmt.Sprintf("%s %s cannot be named %s: %s is %s", article(n.kind()), n.kind(), n.Name, n.Name, what)
		} else if k, dup := first[n.Name]; dup {
			prev := out[k]
			n.clash = fmt.Sprintf("duplicate name %s: %s %s is already declared at line %d", n.Name, prev.kind(), n.Name, prev.pos())
		} else {
			first[n.Name], n.InScope = len(out), true
		}
		out = append(out, n)
	}
	return out
}

// names are Names(f), given by the binder where it found them.
func (d *Data) names(f *dsl.File) []Name {
	if d != nil && d.Names != nil {
		return d.Names
	}
	return Names(f)
}
