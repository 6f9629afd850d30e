package engine

import (
	"reflect"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/problems/formats"
)

// Instances of a batch that differ in their column count (one query
// against a database of proteins of every length) share a batch program
// with BatchColumns (codegen): the program is made for a template, the
// instance with its column sequence padded to a power of two of columns,
// and runs every instance of as many rows and at most that many columns,
// each over its own columns. That is sound where the instance's lowered
// recurrence is the template's — the recurrence does not depend on the
// column count — which sameRecurrence checks once per column count.

// columnBucket is the column count of the template for c columns: the
// least power of two >= c, at least 64.
func columnBucket(c int64) int64 {
	b := int64(64)
	for b < c {
		b *= 2
	}
	return b
}

// columnTemplate binds and plans the instance of items (bound as p, l)
// with its column argument padded to columnBucket(p.Cols) columns; nil
// where no argument gives the columns or the recurrence changes with them.
func (b *batch) columnTemplate(items []batchItem, l *Loaded) *Loaded {
	p := l.Problem
	// A recurrence of T tables planned as its cells' wavefront
	// (plan.Plan.Cells) has T flat columns a cell: the template pads the
	// cells, T flat columns each.
	T := max(l.Plan.Cells, 1)
	want := columnBucket(p.Cols/T) * T
	if want == p.Cols {
		return l
	}
	extra := int((want - p.Cols) / T)
	for k := len(items) - 1; k >= 0; k-- {
		t := items[k].data
		if t == nil || t.Rows > 1 || len(t.F) > 0 || len(t.I) == 0 {
			continue
		}
		pad := &formats.Table{Rows: t.Rows, Cols: t.Cols + extra, I: make([]int64, len(t.I)+extra)}
		copy(pad.I, t.I)
		for x := len(t.I); x < len(pad.I); x++ {
			pad.I[x] = t.I[0] // a letter the data has: no new data bits
		}
		cfg := b.cfg
		cfg.Args = make([]string, len(items))
		cfg.ArgData = make([]*formats.Table, len(items))
		for m, it := range items {
			cfg.Args[m] = it.label
			if it.data != nil {
				cfg.ArgData[m] = it.data
			}
		}
		cfg.ArgData[k] = pad
		q, err := b.check(cfg)
		if err != nil || q.Rows != p.Rows || q.Cols != want {
			continue
		}
		ql, err := loadChecked(b.src, b.file, q)
		if err != nil || ql.Plan == nil || (ql.Plan.Schedule != plan.Wavefront && ql.Plan.Cells < 2) || ql.Plan.Schedule != l.Plan.Schedule || ql.Plan.Cells != l.Plan.Cells ||
			ql.Plan.Direction != l.Plan.Direction || ql.Plan.Answer.Kind != l.Plan.Answer.Kind {
			return nil
		}
		if !sameRecurrence(p, q) || !sameAnswer(l, ql) {
			return nil
		}
		return ql
	}
	return nil
}

// sameAnswer reports whether the template t answers what instance l does
// in l's own columns: the same answer row (a cell answer's column comes with
// the launch), or the same region of rows over every column of each.
func sameAnswer(l, t *Loaded) bool {
	a, b := l.Plan.Answer, t.Plan.Answer
	switch a.Kind {
	case plan.AnswerCell:
		return a.I == b.I
	case plan.AnswerRegion:
		T := max(l.Plan.Cells, 1)
		return a.Op == b.Op && a.I0 == b.I0 && a.I1 == b.I1 && a.J0 == b.J0 && a.EveryColumn(l.Problem.Cols, T) && b.EveryColumn(t.Problem.Cols, T)
	}
	return false
}

// sameRecurrence reports whether p and q, two instances of one `.dp`
// file, have the same lowered recurrence: the same cases and cell
// references, inputs matched by name (their data and lengths may differ).
func sameRecurrence(p, q *ir.Problem) bool {
	if p.CellType != q.CellType || len(p.Cases) != len(q.Cases) || len(p.CellRefs) != len(q.CellRefs) || len(p.Tables) != len(q.Tables) {
		return false
	}
	seen := map[[2]uintptr]bool{}
	return deepEqual(reflect.ValueOf(p.Cases), reflect.ValueOf(q.Cases), seen) &&
		deepEqual(reflect.ValueOf(p.CellRefs), reflect.ValueOf(q.CellRefs), seen)
}

var inputType = reflect.TypeOf((*ir.Input)(nil))

// deepEqual is reflect.DeepEqual over IR, but inputs compare by name.
func deepEqual(a, b reflect.Value, seen map[[2]uintptr]bool) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Type() == inputType {
			return (*ir.Input)(a.UnsafePointer()).Name == (*ir.Input)(b.UnsafePointer()).Name
		}
		key := [2]uintptr{a.Pointer(), b.Pointer()}
		if seen[key] {
			return true
		}
		seen[key] = true
		return deepEqual(a.Elem(), b.Elem(), seen)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return deepEqual(a.Elem(), b.Elem(), seen)
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && (a.IsNil() != b.IsNil() || a.Len() != b.Len()) {
			return false
		}
		for k := 0; k < a.Len(); k++ {
			if !deepEqual(a.Index(k), b.Index(k), seen) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for k := 0; k < a.NumField(); k++ {
			if !deepEqual(a.Field(k), b.Field(k), seen) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, key := range a.MapKeys() {
			if !deepEqual(a.MapIndex(key), b.MapIndex(key), seen) {
				return false
			}
		}
		return true
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return a.IsNil() && b.IsNil()
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || x != x && y != y
	}
	// Unexported fields included: compare what they hold.
	return reflect.DeepEqual(valueOf(a), valueOf(b))
}

// valueOf is v's value as an interface, unexported fields included.
func valueOf(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.String:
		return v.String()
	case reflect.Complex64, reflect.Complex128:
		return v.Complex()
	}
	return v.Kind().String()
}
