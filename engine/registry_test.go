package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/problems"
)

// TestRegistry takes every built-in of the problems registry, by its name
// and by each alias, through what the commands do with it: Resolve finds
// it (solve, check, bench), its default data solves with a traceback that
// its renderer prints (solve --traceback), and, where it has a generator,
// SizeInputs makes an instance that loads, solves and renders (bench), at
// the sizes bench runs by default when none are given.
func TestRegistry(t *testing.T) {
	seen := map[string]string{} // every name and alias, to the built-in it names
	for _, name := range problems.Names() {
		b, ok := problems.Lookup(name)
		if !ok || b.Name != name {
			t.Fatalf("Lookup(%q) = %v, %v", name, b, ok)
		}
		for _, alias := range append([]string{name}, b.Aliases...) {
			if other, dup := seen[alias]; dup {
				t.Errorf("%q names both %s and %s", alias, other, name)
			}
			seen[alias] = name
			if a, ok := problems.Lookup(alias); !ok || a.Name != name {
				t.Errorf("Lookup(%q): %v, %v; want %s", alias, a, ok, name)
			}
			src, err := Resolve(alias)
			if err != nil || !src.Builtin || src.Name != name || string(src.Text) != string(b.Source) {
				t.Errorf("Resolve(%q) = %+v, %v; want the built-in %s", alias, src, err, name)
			}
		}
		t.Run(name, func(t *testing.T) { registryEntry(t, b) })
	}
}

func registryEntry(t *testing.T, b *problems.Builtin) {
	src, err := Resolve(b.Name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(src, bind.Config{})
	if err != nil {
		// Only a built-in whose data is required (tsp) has no default
		// instance; it is then also one bench cannot make.
		if b.Generate != nil || b.Render != nil {
			t.Fatalf("default data: %v", err)
		}
		return
	}
	if l.Plan == nil {
		t.Fatal("a built-in with default data should be a grid problem")
	}
	checkRender(t, b, l)
	if b.Generate == nil {
		if b.Data != "" || b.BenchSizes != nil {
			t.Errorf("no generator, but gen-data kind %q and bench sizes %v", b.Data, b.BenchSizes)
		}
		return
	}
	if b.Data == "" || len(b.BenchSizes) == 0 || !Scalable(l) {
		t.Errorf("a generator, but gen-data kind %q, bench sizes %v, scalable %v", b.Data, b.BenchSizes, Scalable(l))
	}
	if got := benchSizes(l, nil); !slices.Equal(got, b.BenchSizes) {
		t.Errorf("bench sizes %v, want the registry's %v", got, b.BenchSizes)
	}
	for _, size := range []int{3, 17} {
		vals, err := SizeInputs(l, size, 5, nil)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		sized, err := Load(src, bind.Config{Values: vals})
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if sized.Problem.Rows <= int64(size)-1 && sized.Problem.Cols <= int64(size)-1 {
			t.Errorf("size %d: grid %dx%d does not grow with the size", size, sized.Problem.Rows, sized.Problem.Cols)
		}
		checkRender(t, b, sized)
	}
}

// checkRender solves l with a traceback and renders it, by the built-in's
// name and by each alias.
func checkRender(t *testing.T, b *problems.Builtin, l *Loaded) {
	t.Helper()
	res, err := Run(context.Background(), l, cpu.New(2), backend.Options{Traceback: b.Render != nil})
	if err != nil {
		t.Fatalf("%dx%d: %v", l.Problem.Rows, l.Problem.Cols, err)
	}
	for _, alias := range append([]string{b.Name}, b.Aliases...) {
		text, ok := problems.Solution(alias, l.Problem, res.Grid, res.Tree)
		if ok != (b.Render != nil) || ok && text == "" {
			t.Errorf("%dx%d: rendering as %s: %v %q", l.Problem.Rows, l.Problem.Cols, alias, ok, text)
		}
	}
}
