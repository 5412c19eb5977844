package main

import (
	"image/color"
	"slices"
	"testing"

	"gonum.org/v1/plot/vg/draw"
)

// sameStyle reports whether a and b draw alike.
func sameStyle(a, b seriesStyle) bool {
	return colorEq(a.Color, b.Color) && slices.Equal(a.Dashes, b.Dashes) && a.Glyph == b.Glyph
}

func colorEq(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

// TestStyleFor: a model's style depends on its name only — the same for a
// tuned run ("bspv(b=93)"), a scale-in run, and in any panel — and the
// models that share a panel in the reports or in compare's defaults
// differ in colour.
func TestStyleFor(t *testing.T) {
	for _, c := range [][2]string{
		{"bspv", "bspv(b=93)"}, {"bspv", "bspv(b=3)"}, {"bsp+replicas", "bsp+replicas+scale-in"},
		{"fsp", "fsp:1.953µs"}, {"fsp", "fsp:250µs"}, {"bspb", "bsp:full"}, {"quorum:7", "QUORUM:7"},
	} {
		if !sameStyle(styleFor(c[0]), styleFor(c[1])) {
			t.Errorf("%q and %q are drawn differently", c[0], c[1])
		}
	}
	// A name's style does not depend on what was asked for before (no
	// index within a panel).
	first := styleFor("quorum:13")
	for _, n := range []string{"bsp", "asp", "ssp:7", "isp:0.2"} {
		styleFor(n)
	}
	if !sameStyle(first, styleFor("quorum:13")) {
		t.Errorf("quorum:13's style changed with the calls before it")
	}
	panels := map[string][]string{
		"compare's defaults":              {"bsp", "ssp:3", "asp", "quorum:0.9", "quorum:0.75"},
		"Figs. 7 and 8":                   fspSystems,
		"Fig. 12":                         {"fspv", "fspv+asyn", "fspv+opt"},
		"Figs. 13 and 15":                 {"fspv", "fspv+semi", "fsp"},
		"Fig. 9":                          fig9Syncs,
		"Fig. 5 (workloads)":              {"PMF", "LR dense", "LR sparse"},
		"Fig. 6 (measures)":               {"Perf/$ gain", "time to target ratio"},
		"the ISP sweep (curves-sweep-*)":  {"bsp+replicas", "isp:0.1", "isp:0.3", "isp:0.5", "isp:0.7", "isp:1"},
		"the FSP paper's presets (-sync)": {"bspb", "bspv", "fspb", "fspv", "fspv+semi", "fspv+asyn", "fspv+opt"},
	}
	for panel, names := range panels {
		for i, a := range names {
			for _, b := range names[i+1:] {
				if colorEq(styleFor(a).Color, styleFor(b).Color) {
					t.Errorf("%s: %s and %s share a colour", panel, a, b)
				}
			}
		}
	}
	// Every ISP threshold the report runs has its own style.
	for _, v := range mllessThresholds[1:] {
		if _, ok := knownStyles[isp(v)]; !ok {
			t.Errorf("%s has no fixed style", isp(v))
		}
	}
	// The cross is kept for runs that did not reach the target.
	for name, st := range knownStyles {
		if _, ok := st.Glyph.(draw.CrossGlyph); ok {
			t.Errorf("%s is drawn with a cross", name)
		}
	}
}

// TestLighter: halfway to white.
func TestLighter(t *testing.T) {
	if got := lighter(color.RGBA{0, 100, 255, 255}); !colorEq(got, color.RGBA{127, 177, 255, 255}) {
		t.Errorf("lighter = %v", got)
	}
}
