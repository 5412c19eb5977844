package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestReproduceMLLessQuick writes the -quick report with every section,
// figure and table it promises. (That the same seed writes the same
// bytes is TestLongReproduceMLLessTwice's: under -race this report takes
// seconds a run.)
func TestReproduceMLLessQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the -quick report (seconds under -race)")
	}
	a := t.TempDir()
	runReports(t, "mlless.md", mllessQuickArgs, a)
	fa := checkReport(t, a, mllessQuickFiles...)
	md := string(fa["mlless.md"])
	for _, want := range []string{
		"go run ./cmd/syncbench reproduce mlless -quick -out OUT -seed 3\n",
		"Seed N. Wall time: —", "**-quick**", "virtual clock",
		"## The paper's claims and ours", "| ISP (v = 0.7) over SSP (s = 3), PMF (Fig. 9) | 1.9× at 12 workers, 1.4× at 24 |",
		"## Setup", "MLLess's BSP", "cost.IBMCloud2021",
		"## Execution time against the significance threshold (Fig. 5)", "| PMF | ", "| LR dense | ", "| LR sparse | ", "(mlless/fig5.png)",
		"## The scale-in auto-tuner: Perf/$ and time (Fig. 6)", "(mlless/fig6.png)",
		"## ISP against SSP and BSP (Fig. 9)", "(mlless/fig9.png)", "(mlless/curves-fig9-pmf.png)",
		"## Why the numbers differ from the paper's",
		"## Not reproduced", "## Per-run details", "(mlless/runs.csv)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("mlless.md lacks %q", want)
		}
	}
	// A NaN that is not a diverged run's error ("delta entry 15 is NaN")
	// is a number the report failed to compute.
	if strings.Count(md, "NaN") > strings.Count(md, " is NaN") {
		t.Errorf("mlless.md has a NaN")
	}
	// The header and one line per run.
	runs := 0
	for _, w := range mllessWorkloads(mllessQuick, "") {
		c := &mllessCase{w: w, byKey: map[string]*mllessRun{}}
		c.plan()
		runs += len(c.runs)
	}
	if n := bytes.Count(fa["mlless/runs.csv"], []byte("\n")); n != 1+runs {
		t.Errorf("runs.csv has %d lines; want %d", n, 1+runs)
	}
}

// mllessQuickArgs are the -quick report's arguments, written into dir.
func mllessQuickArgs(dir string) []string {
	return []string{"reproduce", "mlless", "-quick", "-out", dir, "-seed", "3"}
}

// mllessQuickFiles are files the -quick report writes.
var mllessQuickFiles = []string{"mlless.md", "mlless/runs.csv", "mlless/fig5.png", "mlless/fig6.png", "mlless/fig9.png",
	"mlless/curves-sweep-pmf.png", "mlless/curves-sweep-lr-dense.png", "mlless/curves-sweep-lr-sparse.png", "mlless/curves-fig9-pmf.png"}

// TestLongReproduceMLLessTwice writes the -quick report twice with the
// same seed into two directories: the same files, byte for byte (but the
// wall time and the -out path). A long check (SYNCMODELS_LONG=1).
func TestLongReproduceMLLessTwice(t *testing.T) {
	long(t)
	a, b := t.TempDir(), t.TempDir()
	runReports(t, "mlless.md", mllessQuickArgs, a, b)
	sameReports(t, a, b, mllessQuickFiles...)
}
