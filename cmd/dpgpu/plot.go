package main

import (
	"bufio"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// plotFormats are the file types `bench --plot` writes, by extension.
//
// The chart is drawn here rather than with a plotting library: gonum/plot
// parsed its fonts when the process started, 1.4 ms of every dpgpu command
// (`dpgpu problems` 5.5 -> 4.1 ms) and 8 MB of the binary, for a chart
// that only `bench --plot` draws.
var plotFormats = []string{".png", ".svg", ".jpg", ".jpeg"}

// plotSeries is one line of a chart: its name and its points, in order.
type plotSeries struct {
	Name string
	X, Y []float64
}

// chart is a line chart of series over linear axes from 0 (or the least
// value, where one is negative) to a round number above the greatest.
type chart struct {
	Title, XLabel, YLabel string
	Series                []plotSeries
}

// The chart's size and margins, in pixels (SVG user units).
const (
	plotW, plotH                             = 800, 500
	plotLeft, plotRight, plotTop, plotBottom = 80, 20, 40, 50
)

// plotColors are the series' colours, in turn.
var plotColors = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xff, 0x7f, 0x0e, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
}

// axis is the range of one axis and its ticks.
type axis struct {
	lo, hi float64
	ticks  []float64
}

// niceAxis covers 0 (or the least of vs, where it is below 0) to the
// greatest of vs with about five ticks a round step apart.
func niceAxis(vs []float64) axis {
	lo, hi := 0.0, 0.0
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / 5
	step := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*step >= raw {
			step *= m
			break
		}
	}
	a := axis{lo: math.Floor(lo/step) * step, hi: math.Ceil(hi/step) * step}
	for t := a.lo; t <= a.hi+step/2; t += step {
		a.ticks = append(a.ticks, t)
	}
	return a
}

func (a axis) at(v float64, from, to int) float64 {
	return float64(from) + (v-a.lo)/(a.hi-a.lo)*float64(to-from)
}

func tickText(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// axes are the chart's x and y axes.
func (c *chart) axes() (x, y axis) {
	var xs, ys []float64
	for _, s := range c.Series {
		xs, ys = append(xs, s.X...), append(ys, s.Y...)
	}
	return niceAxis(xs), niceAxis(ys)
}

// writePlot writes c to path in the format its extension names.
func writePlot(path string, c *chart) (err error) {
	ext := strings.ToLower(filepath.Ext(path))
	if !slices.Contains(plotFormats, ext) {
		return fmt.Errorf("--plot %s: unknown image type %q (want one of %s)", path, ext, strings.Join(plotFormats, " "))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	w := bufio.NewWriter(f)
	switch ext {
	case ".svg":
		err = c.svg(w)
	case ".png":
		err = png.Encode(w, c.raster())
	default: // .jpg, .jpeg
		err = jpeg.Encode(w, c.raster(), &jpeg.Options{Quality: 95})
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// svg writes c as an SVG document.
func (c *chart) svg(w io.Writer) error {
	xa, ya := c.axes()
	px := func(v float64) float64 { return xa.at(v, plotLeft, plotW-plotRight) }
	py := func(v float64) float64 { return ya.at(v, plotH-plotBottom, plotTop) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="24" text-anchor="middle" font-size="16">%s</text>`+"\n", plotW/2, html.EscapeString(c.Title))
	for _, t := range xa.ticks {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			px(t), plotTop, px(t), plotH-plotBottom, px(t), plotH-plotBottom+16, tickText(t))
	}
	for _, t := range ya.ticks {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			plotLeft, py(t), plotW-plotRight, py(t), plotLeft-6, py(t)+4, tickText(t))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", plotLeft, plotTop, plotW-plotLeft-plotRight, plotH-plotTop-plotBottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", (plotLeft+plotW-plotRight)/2, plotH-12, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">%s</text>`+"\n", (plotTop+plotH-plotBottom)/2, (plotTop+plotH-plotBottom)/2, html.EscapeString(c.YLabel))
	for k, s := range c.Series {
		col := plotColors[k%len(plotColors)]
		hex := fmt.Sprintf("#%02x%02x%02x", col.R, col.G, col.B)
		var pts []string
		for n := range s.X {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[n]), py(s.Y[n])))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="6" height="6" fill="%s"/>`+"\n", px(s.X[n])-3, py(s.Y[n])-3, hex)
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), hex)
		ly := plotTop + 16 + 16*k
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="4" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", plotLeft+10, ly-6, hex, plotLeft+28, ly, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// raster draws c into an image, text in the basic 7x13 bitmap font.
func (c *chart) raster() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, plotW, plotH))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	xa, ya := c.axes()
	px := func(v float64) int { return int(math.Round(xa.at(v, plotLeft, plotW-plotRight))) }
	py := func(v float64) int { return int(math.Round(ya.at(v, plotH-plotBottom, plotTop))) }
	grey, black := color.RGBA{0xdd, 0xdd, 0xdd, 0xff}, color.RGBA{0, 0, 0, 0xff}
	text := func(s string, x, y int, align float64) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(black), Face: basicfont.Face7x13}
		wd := d.MeasureString(s).Round()
		d.Dot = fixed.P(x-int(align*float64(wd)), y)
		d.DrawString(s)
	}
	for _, t := range xa.ticks {
		line(img, px(t), plotTop, px(t), plotH-plotBottom, grey, 1)
		text(tickText(t), px(t), plotH-plotBottom+16, 0.5)
	}
	for _, t := range ya.ticks {
		line(img, plotLeft, py(t), plotW-plotRight, py(t), grey, 1)
		text(tickText(t), plotLeft-6, py(t)+4, 1)
	}
	x0, y0, x1, y1 := plotLeft, plotTop, plotW-plotRight, plotH-plotBottom
	line(img, x0, y0, x1, y0, black, 1)
	line(img, x0, y1, x1, y1, black, 1)
	line(img, x0, y0, x0, y1, black, 1)
	line(img, x1, y0, x1, y1, black, 1)
	text(c.Title, plotW/2, 24, 0.5)
	text(c.XLabel, (plotLeft+plotW-plotRight)/2, plotH-12, 0.5)
	text(c.YLabel, 4, plotTop-8, 0)
	for k, s := range c.Series {
		col := plotColors[k%len(plotColors)]
		for n := range s.X {
			if n > 0 {
				line(img, px(s.X[n-1]), py(s.Y[n-1]), px(s.X[n]), py(s.Y[n]), col, 2)
			}
			draw.Draw(img, image.Rect(px(s.X[n])-3, py(s.Y[n])-3, px(s.X[n])+3, py(s.Y[n])+3), image.NewUniform(col), image.Point{}, draw.Src)
		}
		ly := plotTop + 16 + 16*k
		draw.Draw(img, image.Rect(plotLeft+10, ly-6, plotLeft+22, ly-2), image.NewUniform(col), image.Point{}, draw.Src)
		text(s.Name, plotLeft+28, ly, 0)
	}
	return img
}

// line draws a line of width w (1 or 2 pixels) from (x0, y0) to (x1, y1)
// (Bresenham's), clipped to img.
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA, w int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		for a := range w {
			for b := range w {
				if p := (image.Point{X: x0 + a, Y: y0 + b}); p.In(img.Rect) {
					img.SetRGBA(p.X, p.Y, c)
				}
			}
		}
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
