package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpgpu/dpgpu/runtime"
	"github.com/dpgpu/dpgpu/runtime/cpu"
	"github.com/dpgpu/dpgpu/sema"
)

func TestTSPLIBThroughEngine(t *testing.T) {
	// TSPLIB optima (OPTIMA.txt): the tour is recomputed by Run itself.
	for _, tc := range []struct {
		file string
		n    int
		want int64
	}{{"gr17.tsp", 17, 2085}, {"br17.atsp", 17, 39}, {"ulysses16.tsp", 16, 6859}} {
		path := filepath.Join("..", "problems", "formats", "testdata", "tsplib", tc.file)
		src, err := Resolve("tsp")
		if err != nil {
			t.Fatal(err)
		}
		l, err := Load(src, sema.Config{Args: []string{path}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), l, cpu.New(2), runtimeOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.Answer.I != tc.want || len(res.Tour) != tc.n || res.Tour[0] != 0 {
			t.Errorf("%s: %d, tour %v; want %d", tc.file, res.Answer.I, res.Tour, tc.want)
		}
	}
}

func TestTourLength(t *testing.T) {
	d := []int64{0, 1, 9, 2, 0, 3, 4, 5, 0} // 3 cities, asymmetric
	if got, err := TourLength(d, 3, []int{0, 1, 2}); err != nil || got != 1+3+4 {
		t.Errorf("0-1-2: %d %v", got, err)
	}
	if got, err := TourLength(d, 3, []int{0, 2, 1}); err != nil || got != 9+5+2 {
		t.Errorf("0-2-1: %d %v", got, err)
	}
	if _, err := TourLength(d, 3, []int{0, 0, 1}); err == nil {
		t.Error("repeated city accepted")
	}
}

func TestResolve(t *testing.T) {
	if _, err := Resolve("knapsack"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.dp")
	os.WriteFile(p, []byte("3x3\ncell[i][j] = i + j\n"), 0o644)
	if s, err := Resolve(p); err != nil || s.Builtin {
		t.Fatalf("%v %v", s, err)
	}
	if _, err := Resolve(filepath.Join(dir, "missing.dp")); err == nil {
		t.Error("missing file resolved")
	}
}

func runtimeOptions() runtime.Options { return runtime.Options{} }
