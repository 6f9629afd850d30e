package main

import (
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/engine"
)

// TestBenchPlot: every format `bench --plot` accepts is written, decodes
// (PNG and JPEG as images of the chart's size with each series' colour
// drawn, SVG as XML naming each series), and a name with markup stays text.
func TestBenchPlot(t *testing.T) {
	rows := []engine.BenchRow{
		{Problem: "lcs", Backend: "cpu", Size: 1000, GCUPS: 0.5},
		{Problem: "lcs", Backend: "cpu", Size: 2000, GCUPS: 0.9},
		{Problem: "lcs", Backend: "cpu", Size: 4000, GCUPS: 1.1},
		{Problem: "a<b>&c", Backend: "cuda", Size: 1000, GCUPS: 12},
		{Problem: "a<b>&c", Backend: "cuda", Size: 4000, GCUPS: 250},
	}
	dir := t.TempDir()
	for _, ext := range plotFormats {
		path := filepath.Join(dir, "p"+ext)
		if err := benchPlot(path, rows); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if ext == ".svg" {
			data, _ := os.ReadFile(path)
			d := xml.NewDecoder(strings.NewReader(string(data)))
			var texts []string
			for {
				tok, err := d.Token()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatalf("svg: %v", err)
					}
					break
				}
				if cd, ok := tok.(xml.CharData); ok {
					texts = append(texts, string(cd))
				}
			}
			all := strings.Join(texts, "|")
			for _, want := range []string{"lcs / cpu", "a<b>&c / cuda", "GCUPS (wall)", "250"} {
				if !strings.Contains(all, want) {
					t.Errorf("svg: no text %q in %q", want, all)
				}
			}
			f.Close()
			continue
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if b := img.Bounds(); b.Dx() != plotW || b.Dy() != plotH {
			t.Fatalf("%s: %v, want %dx%d", ext, b, plotW, plotH)
		}
		if ext != ".png" {
			continue // JPEG's colours are approximate
		}
		for k := range 2 {
			if !hasColor(img, plotColors[k]) {
				t.Errorf("png: no pixel of series %d's colour %v", k, plotColors[k])
			}
		}
	}
	if err := benchPlot(filepath.Join(dir, "p.gif"), rows); err == nil {
		t.Error("a .gif plot was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "p.gif")); err == nil {
		t.Error("a failed plot left its file")
	}
}

func hasColor(img image.Image, c color.RGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(bb>>8) == c.B {
				return true
			}
		}
	}
	return false
}

// TestBenchSizesRepeated: `--size` given again adds sizes, as commas do
// (it kept only the last one), and a bad one is a usage error.
func TestBenchSizesRepeated(t *testing.T) {
	out, errs, code := dpgpu(t, "bench", "-b", "cpu", "-n", "8,9", "--size", "11", "--reps", "1", "--warmup", "0", "--csv", "lcs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sizes []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		sizes = append(sizes, strings.Split(line, ",")[1])
	}
	if got := strings.Join(sizes, " "); got != "8 9 11" {
		t.Errorf("sizes %q, want \"8 9 11\"\n%s", got, out)
	}
	if _, errs, code := dpgpu(t, "bench", "-b", "cpu", "-n", "8", "--size", "0", "lcs"); code != 2 || !strings.Contains(errs, "--size") {
		t.Errorf("--size 0: exit %d, %q; want 2 and a word on --size", code, errs)
	}
}
