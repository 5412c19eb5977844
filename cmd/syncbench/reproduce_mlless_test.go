package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestReproduceMLLessQuick writes the -quick report of one workload (LR
// dense: the report's runner, tables, figures and prose for what ran)
// under the README's test command. The whole -quick report, with every
// section, figure and table it promises and the same bytes for the same
// seed, is TestLongReproduceMLLessTwice's: under -race it takes 15 s.
func TestReproduceMLLessQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the -quick report (seconds under -race)")
	}
	a := t.TempDir()
	runReports(t, "mlless.md", func(dir string) []string { return append(mllessQuickArgs(dir), "-workloads", "lr-dense") }, a)
	fa := checkReport(t, a, "mlless.md", "mlless/runs.csv", "mlless/fig5.png", "mlless/fig6.png", "mlless/curves-sweep-lr-dense.png")
	md := string(fa["mlless.md"])
	checkMLLessReport(t, md, "go run ./cmd/syncbench reproduce mlless -quick -out OUT -seed 3 -workloads lr-dense\n",
		"| LR dense | ", "PMF did not run (-workloads).")
	for _, absent := range []string{"| PMF | ", "| LR sparse | ", "(mlless/fig9.png)"} {
		if strings.Contains(md, absent) {
			t.Errorf("mlless.md has %q; only LR dense ran", absent)
		}
	}
	checkMLLessRuns(t, fa["mlless/runs.csv"], "lr-dense")
}

// checkMLLessReport checks the sections every mlless report has, and the
// lines want.
func checkMLLessReport(t *testing.T, md string, want ...string) {
	t.Helper()
	for _, want := range append([]string{
		"Seed N. Wall time: —", "**-quick**", "virtual clock",
		"## The paper's claims and ours", "## Setup", "MLLess's BSP", "cost.IBMCloud2021",
		"## Execution time against the significance threshold (Fig. 5)", "(mlless/fig5.png)",
		"## The scale-in auto-tuner: Perf/$ and time (Fig. 6)", "(mlless/fig6.png)",
		"## ISP against SSP and BSP (Fig. 9)", "## Why the numbers differ from the paper's",
		"## Not reproduced", "## Per-run details", "(mlless/runs.csv)",
	}, want...) {
		if !strings.Contains(md, want) {
			t.Errorf("mlless.md lacks %q", want)
		}
	}
	// A NaN that is not a diverged run's error ("delta entry 15 is NaN")
	// is a number the report failed to compute.
	if strings.Count(md, "NaN") > strings.Count(md, " is NaN") {
		t.Errorf("mlless.md has a NaN")
	}
}

// checkMLLessRuns checks that runs.csv has its header and one line per
// run of the -quick workloads keys ("" = all).
func checkMLLessRuns(t *testing.T, csv []byte, keys ...string) {
	t.Helper()
	runs := 0
	for _, w := range mllessWorkloads(mllessQuick, "") {
		if len(keys) > 0 && !slices.Contains(keys, w.key) {
			continue
		}
		c := &mllessCase{w: w, byKey: map[string]*mllessRun{}}
		c.plan()
		runs += len(c.runs)
	}
	if n := bytes.Count(csv, []byte("\n")); n != 1+runs {
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
// same seed into two directories: every section, figure and table it
// promises, and the same files, byte for byte (but the wall time and the
// -out path). A long check (SYNCMODELS_LONG=1).
func TestLongReproduceMLLessTwice(t *testing.T) {
	long(t)
	a, b := t.TempDir(), t.TempDir()
	runReports(t, "mlless.md", mllessQuickArgs, a, b)
	fa := sameReports(t, a, b, mllessQuickFiles...)
	checkMLLessReport(t, string(fa["mlless.md"]), "go run ./cmd/syncbench reproduce mlless -quick -out OUT -seed 3\n",
		"| ISP (v = 0.7) over SSP (s = 3), PMF (Fig. 9) | 1.9× at 12 workers, 1.4× at 24 |",
		"| PMF | ", "| LR dense | ", "| LR sparse | ", "(mlless/fig9.png)", "(mlless/curves-fig9-pmf.png)")
	checkMLLessRuns(t, fa["mlless/runs.csv"])
}
