/*
Copyright 2026 The listkeeper Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
)

// strategyColors are the line colors, by strategy.
var strategyColors = map[string]string{
	StrategyBlind:      "#9e9e9e",
	StrategyMutex:      "#8d6e63",
	StrategyOCCDefault: "#f9a825",
	StrategyOCCJitter:  "#e53935",
	StrategyListkeeper: "#1e88e5",
}

// Chart geometry, in SVG user units.
const (
	panelW, panelH = 340.0, 230.0
	padL, padR     = 58.0, 16.0
	padT, padB     = 30.0, 42.0
	legendH        = 48.0
	titleH         = 28.0
)

// WriteSVG draws requests per change against C, one line per strategy, as
// small multiples: one panel per replica count (columns) and list size
// (rows), on a shared logarithmic y axis. Hollow markers are runs that hit
// the time cap.
func WriteSVG(w io.Writer, res *Results) error {
	sizes := sizesOf(res.Runs)
	var reps, concs []int
	var strategies []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range res.Runs {
		if !slices.Contains(reps, r.Replicas) {
			reps = append(reps, r.Replicas)
		}
		if !slices.Contains(concs, r.Concurrency) {
			concs = append(concs, r.Concurrency)
		}
		if !slices.Contains(strategies, r.Strategy) {
			strategies = append(strategies, r.Strategy)
		}
		if r.ReqPerChange > 0 {
			lo, hi = min(lo, r.ReqPerChange), max(hi, r.ReqPerChange)
		}
	}
	slices.Sort(reps)
	slices.Sort(concs)
	if len(sizes) == 0 || math.IsInf(lo, 0) {
		lo, hi = 0.01, 10
	}
	yMin, yMax := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if yMax <= yMin {
		yMax = yMin + 1
	}
	width := max(panelW*float64(max(len(reps), 1)), 2*panelW)
	height := titleH + legendH + panelH*float64(max(len(sizes), 1))

	b := &strings.Builder{}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p(`<text x="%.0f" y="18" text-anchor="middle" font-size="14" font-weight="bold">HTTP requests per change vs goroutines per replica (N=%d, latency %.1f ms; log scale)</text>`+"\n",
		width/2, res.Config.N, res.Config.LatencyMs)
	for i, s := range strategies {
		x := 12 + float64(i)*125
		p(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2.5"/>`, x, titleH+12, x+22, titleH+12, color(s))
		p(`<text x="%.0f" y="%.0f">%s</text>`+"\n", x+27, titleH+16, html.EscapeString(s))
	}
	p(`<text x="12" y="%.0f" fill="#555">Hollow markers: the run hit the time cap (requests per change that returned). Hover a marker for its value.</text>`+"\n", titleH+34)

	for row, size := range sizes {
		for col, rep := range reps {
			ox, oy := float64(col)*panelW, titleH+legendH+float64(row)*panelH
			drawPanel(b, res.Runs, size, rep, concs, strategies, ox, oy, yMin, yMax)
		}
	}
	p("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func color(s string) string {
	if c, ok := strategyColors[s]; ok {
		return c
	}
	return "#000"
}

func drawPanel(b *strings.Builder, runs []RunResult, size, rep int, concs []int, strategies []string, ox, oy, yMin, yMax float64) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	x0, x1 := ox+padL, ox+panelW-padR
	y0, y1 := oy+padT, oy+panelH-padB // top, bottom
	xAt := func(i int) float64 {
		if len(concs) == 1 {
			return (x0 + x1) / 2
		}
		return x0 + 14 + float64(i)*(x1-x0-28)/float64(len(concs)-1)
	}
	yAt := func(v float64) float64 { return y1 - (math.Log10(v)-yMin)/(yMax-yMin)*(y1-y0) }

	p(`<g>`+"\n"+`<text x="%.0f" y="%.0f" text-anchor="middle" font-weight="bold">R=%d, %d IDs</text>`+"\n", (x0+x1)/2, oy+padT-10, rep, size)
	p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#bbb"/>`+"\n", x0, y0, x1-x0, y1-y0)
	for e := yMin; e <= yMax; e++ {
		y := yAt(math.Pow(10, e))
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, x0, y, x1, y)
		p(`<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, y+4, tick(e))
	}
	for i, c := range concs {
		p(`<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, xAt(i), y1+14, c)
	}
	p(`<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">C (goroutines per replica)</text>`+"\n", (x0+x1)/2, y1+30)
	p(`<text transform="translate(%.1f %.1f) rotate(-90)" text-anchor="middle" fill="#555">requests / change</text>`+"\n", ox+14, (y0+y1)/2)

	for _, s := range strategies {
		var pts []string
		var marks []string
		for i, c := range concs {
			r, ok := find(runs, s, rep, c, size)
			if !ok || r.ReqPerChange <= 0 {
				continue
			}
			x, y := xAt(i), yAt(r.ReqPerChange)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			fill := color(s)
			if r.TimedOut {
				fill = "white"
			}
			marks = append(marks, fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s" stroke="%s" stroke-width="1.5"><title>%s C=%d: %.3f req/change%s</title></circle>`,
				x, y, fill, color(s), html.EscapeString(r.Name()), c, r.ReqPerChange, timedOutNote(r)))
		}
		if len(pts) > 1 {
			p(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), color(s))
		}
		p("%s\n", strings.Join(marks, ""))
	}
	p("</g>\n")
}

func tick(e float64) string {
	v := math.Pow(10, e)
	if e >= 0 {
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.*f", int(-e), v), "0"), ".")
}
