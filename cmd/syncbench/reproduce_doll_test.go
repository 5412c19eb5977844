package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/doll"
	"github.com/syncmodels/syncmodels/workload"
)

// dollQuickArgs are the -quick report's arguments, written into dir.
func dollQuickArgs(dir string) []string {
	return []string{"reproduce", "doll", "-quick", "-out", dir, "-seed", "3"}
}

// dollQuickFiles are files the -quick report writes.
var dollQuickFiles = []string{"doll.md", "doll/runs.csv", "doll/fig3.png", "doll/fig3b.png", "doll/fig4.png", "doll/fig4b.png", "doll/fig5.png"}

// TestLongReproduceDOLLTwice writes the -quick report twice with the same
// seed into two directories: the same files, byte for byte (but the wall
// time and the -out path). A long check (SYNCMODELS_LONG=1).
func TestLongReproduceDOLLTwice(t *testing.T) {
	long(t)
	a, b := t.TempDir(), t.TempDir()
	runReports(t, "doll.md", dollQuickArgs, a, b)
	sameReports(t, a, b, dollQuickFiles...)
}

// TestReproduceDOLLQuick writes the -quick report with every section,
// figure and table it promises, and one CSV line per run. (That the same
// seed writes the same bytes is TestLongReproduceDOLLTwice's.)
func TestReproduceDOLLQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the -quick report (seconds under -race)")
	}
	a := t.TempDir()
	runReports(t, "doll.md", dollQuickArgs, a)
	fa := checkReport(t, a, dollQuickFiles...)
	md := string(fa["doll.md"])
	for _, want := range []string{
		"go run ./cmd/syncbench reproduce doll -quick -out OUT -seed 3\n",
		"Seed N. Wall time: —", "**-quick**", "virtual clock", "passed `consistency.Check`",
		"## The paper's claims and ours", "A **cost ratio** is the mean cost of a method's 2 runs ÷ the mean cost of the 2 on-demand-only runs",
		"| Fig. 3, static, α = 0.9, θ/θ0 = 1.05 | 69.5% | ", "| Fig. 3, static, α = 0.8, θ/θ0 = 1.05 | 86.2% | ", "| Fig. 3, static, α = 0.8, θ/θ0 = 1.10 | 78.0% | ",
		"| Fig. 4 (λ_n ~ U(1, 250)), static, α = 0.9, θ/θ0 = 1.05 | 70.5% | ",
		"| Fig. 5, adaptive, high price, homogeneous | 66.5% (static 69.5%) | ", "| Fig. 5, adaptive, high price, heterogeneous | 56.5% (static 70.5%) | ",
		"## Setup", "`cost.DOLLHigh()` with seed 3", "`cost.DOLLLow()` with seed 3",
		"## Fig. 3: the static method, homogeneous arrivals (λ = 125)", "(doll/fig3.png)", "(doll/fig3b.png)",
		"## Fig. 4: the static method, heterogeneous arrivals (λ_n ~ U(1, 250))", "(doll/fig4.png)", "(doll/fig4b.png)",
		"## Fig. 5: static against adaptive against Corollary 2's bound", "| high (0.286 $/h on demand) | 125 | ", "| low (0.186 $/h on demand) | U(1, 250) | ", "(doll/fig5.png)",
		"## Table II: per workload and optimizer", "| EMNIST, Adam | 125 | 20 | 78.2% / 54.6% / 80.1% | LR (synthetic), Adam | 4 | ",
		"| I-MNIST, SGD | U(1, 250) | 10 | 77.3% / 52.9% / – | K-means (synthetic blobs) | 2 | ",
		"**What the workloads change.**",
		"## Why the numbers differ from the paper's", "## Per-run details", "(doll/runs.csv)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("doll.md lacks %q", want)
		}
	}
	for _, absent := range []string{"NaN", "%!", "+Inf", "-Inf"} {
		if strings.Contains(md, absent) {
			t.Errorf("doll.md has %q", absent)
		}
	}
	p := &dollPlan{s: dollQuick, ws: dollWorkloads(dollQuick, 3, ""), byKey: map[string]*dollCell{}}
	p.plan()
	if n, want := bytes.Count(fa["doll/runs.csv"], []byte("\n")), 1+len(p.cells)*dollQuick.runs; n != want {
		t.Errorf("runs.csv has %d lines; want %d", n, want)
	}
	if want := strings.Count(md, "All "+itoa(int64(len(p.cells)*dollQuick.runs))+" runs of this report passed"); want != 1 {
		t.Errorf("doll.md does not count its %d runs", len(p.cells)*dollQuick.runs)
	}
}

// TestReproduceDOLLSpotTrace runs the -quick report, one run a cell, on
// spot traces read from files: a CSV for the high price and an AWS
// history (JSON) for the low one; the report names both.
func TestReproduceDOLLSpotTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the -quick report (seconds under -race)")
	}
	// At -quick's 100,000× a day of trace is 0.864 s of run.
	csvPath := writeFile(t, "high.csv", "seconds,price_per_hour\n0,0.15\n86400,0.17\n172800,0.16\n")
	jsonPath := writeFile(t, "low.json", `{"SpotPriceHistory": [
		{"AvailabilityZone": "ca-central-1b", "InstanceType": "c5.xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "0.060000", "Timestamp": "2021-01-02T00:00:00.000Z"},
		{"AvailabilityZone": "ca-central-1b", "InstanceType": "c5.xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "0.055000", "Timestamp": "2021-01-01T00:00:00.000Z"}]}`)
	out := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCmd(t, "reproduce", "doll", "-quick", "-runs", "1", "-out", out, "-spot-trace", csvPath, "-spot-trace-low", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	md, err := os.ReadFile(filepath.Join(out, "doll.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**high** price (on demand 0.286 $/hour) read from `" + csvPath + "`, lasting 2 s of run time at 100000×",
		"**low** price (on demand 0.186 $/hour) read from `" + jsonPath + "` (an AWS history from 2021-01-01T00:00:00Z)",
		"prices within the first θ = 13 s of run (0.15–0.17 $/hour",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("doll.md lacks %q", want)
		}
	}
	if strings.Contains(string(md), "cost.GenerateSpot") {
		t.Errorf("doll.md says it generated a trace it read")
	}
}

// TestReproduceDOLLUsage: bad flags are one-line errors, before any run.
func TestReproduceDOLLUsage(t *testing.T) {
	dir := t.TempDir()
	late := writeFile(t, "late.csv", "5,0.15\n10,0.16\n")
	bad := writeFile(t, "bad.csv", "0,0.15\n10,cheap\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-runs", "-1"}, 2, "-runs -1: want ≥ 1"},
		{[]string{"-price-ondemand", "0"}, 2, "-price-ondemand 0: want a price > 0"},
		{[]string{"-price-ondemand-low", "NaN"}, 2, "-price-ondemand-low NaN: want a price > 0"},
		{[]string{"-speedup", "-2"}, 2, "-speedup -2: want a factor > 0"},
		{[]string{"-fashion-mnist", filepath.Join(dir, "none")}, 2, "-fashion-mnist " + filepath.Join(dir, "none") + ": no such file or directory"},
		{[]string{"-spot-trace", filepath.Join(dir, "none.csv")}, 2, "-spot-trace: "},
		{[]string{"-spot-trace", late}, 2, "the trace starts at 5 s; want 0"},
		{[]string{"-spot-trace-low", bad}, 2, "-spot-trace-low: "},
		{[]string{"-out", "/dev/null/x"}, 1, "syncbench reproduce doll: mkdir /dev/null"},
	} {
		code, _, errs := runCmd(t, append([]string{"reproduce", "doll", "-quick"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("reproduce doll %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, errs, tc.code, tc.want)
		}
		if lines := strings.Count(strings.TrimSpace(errs), "\n"); tc.code == 1 && lines != 0 {
			t.Errorf("reproduce doll %s: %d lines of error", strings.Join(tc.args, " "), lines+1)
		}
	}
}

// TestDOLLOnDemandShared: an on-demand run does not depend on (α, θ/θ0)
// (no worker is preemptible), which lets the report share one set of
// on-demand runs across the settings.
func TestDOLLOnDemandShared(t *testing.T) {
	s := dollQuick
	alg, _, err := workload.Open(dollWorkloads(s, 1, "")[0].spec)
	if err != nil {
		t.Fatal(err)
	}
	var got []*doll.Outcome
	for _, st := range dollSettings {
		p := &dollPlan{s: s, seed: 1}
		c := &dollCell{w: &dollWorkload{k: 20, alg: alg}, het: true, setting: st, policy: doll.OnDemand}
		f := &dollFlags{odHigh: dollOnDemandHi, odLow: dollOnDemandLow, speedup: dollSpeedup, seed: 1}
		tr, err := f.spotTraces(s)
		if err != nil {
			t.Fatal(err)
		}
		j := p.job(c, 0, tr, f)
		o, err := j.Run(context.Background(), doll.OnDemand)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o)
	}
	for i, o := range got[1:] {
		if o.Cost != got[0].Cost || o.Runtime != got[0].Runtime || o.Final != got[0].Final {
			t.Errorf("on demand at %v: cost %v, runtime %v, final %v; at %v: %v, %v, %v",
				dollSettings[i+1], o.Cost, o.Runtime, o.Final, dollSettings[0], got[0].Cost, got[0].Runtime, got[0].Final)
		}
	}
}
