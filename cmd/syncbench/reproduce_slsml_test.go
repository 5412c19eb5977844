package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
)

// slsmlSections are what the report promises.
var slsmlSections = []string{
	"Seed N. Wall time: —", "**-quick**", "**virtual clock**", "passed `slsml.Check`",
	"## The paper's claims and ours", "| Stragglers: \"with large concurrency", "| The 90% counting semaphore", "| \"… with little cost\"",
	"| Time: \"decreases and looks like 1/x", "| Cost \"remains flat up to a certain point", "| \"The main reason for the extra cost is actually the cost of S3 calls\"",
	"| \"The pipeline would write and read roughly 1TB", "| More reducers:",
	"## Setup", "`latency.Default()`", "`cost.AWS2018()`", "`github.com/montanaflynn/stats`",
	"## Tail latency: time per iteration with a barrier and with the 90% semaphore (8K)",
	"## Time per epoch against workers (Fig. 4, dotted line)",
	"## Cost per epoch against workers (Fig. 4, blue and green lines)",
	"## Cost against workers and reducers", "| W \\ R | R = 1 | R = 4 |",
	"## Why the numbers differ from the paper's", "## Per-run details", "(slsml/runs.csv)",
}

// TestReproduceSlsMLQuick writes the -quick report twice with the same
// seed: the same files, byte for byte (but the wall time and the -out
// path), with every section the report promises and a CSV line per run.
func TestReproduceSlsMLQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the -quick report twice")
	}
	a, b := t.TempDir(), t.TempDir()
	runReports(t, "slsml.md", func(dir string) []string {
		return []string{"reproduce", "slsml", "-quick", "-out", dir, "-seed", "2"}
	}, a, b)
	fa := sameReports(t, a, b, "slsml.md", "slsml/runs.csv")
	md := string(fa["slsml.md"])
	for _, want := range append(slsmlSections, "go run ./cmd/syncbench reproduce slsml -quick -out OUT -seed 2\n", "**the in-process store (`exchange.Memory`)**") {
		if !strings.Contains(md, want) {
			t.Errorf("slsml.md lacks %q", want)
		}
	}
	for _, absent := range []string{"NaN", "%!", "Inf", "—%"} {
		if strings.Contains(md, absent) {
			t.Errorf("slsml.md has %q", absent)
		}
	}
	p := &slsmlPlan{s: slsmlQuick, byKey: map[string]*slsmlCell{}}
	p.plan()
	runs := len(p.cells) * slsmlQuick.seeds
	if n := bytes.Count(fa["slsml/runs.csv"], []byte("\n")); n != 1+runs {
		t.Errorf("runs.csv has %d lines; want %d", n, 1+runs)
	}
	if !strings.Contains(md, "All "+itoa(int64(runs))+" runs of this report passed") {
		t.Errorf("slsml.md does not count its %d runs", runs)
	}
}

// The same report (one seed a cell) on a real Redis: -exchange changes
// the store, not one number.
func TestReproduceSlsMLRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the -quick report on Redis and in process")
	}
	srv := redistest.Start(t)
	a, b := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		dir  string
		args []string
	}{{a, nil}, {b, []string{"-exchange", srv.URL()}}} {
		code, _, errs := runCmd(t, append([]string{"reproduce", "slsml", "-quick", "-seeds", "1", "-out", tc.dir}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
	}
	fa, fb := readReport(t, a), readReport(t, b)
	if !bytes.Equal(fa["slsml/runs.csv"], fb["slsml/runs.csv"]) {
		t.Error("runs.csv differs between the in-process store and Redis")
	}
	ma, mb := string(fa["slsml.md"]), string(fb["slsml.md"])
	mb = strings.Replace(mb, " -exchange "+srv.URL(), "", 1)
	mb = strings.Replace(mb, "a real Redis (`-exchange`, package `exchange/redisx`)", "the in-process store (`exchange.Memory`)", 1)
	if ma != mb {
		t.Error("slsml.md on Redis differs from the in-process report beyond the store's name and the command line")
	}
}

func TestReproduceSlsMLFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-exchange", "memcached://x"}, "-exchange \"memcached://x\": want redis://HOST:PORT"},
		{[]string{"-iters", "1"}, "-iters 1: want ≥ 2"},
		{[]string{"-seeds", "-2"}, "-seeds -2: want ≥ 1"},
	} {
		code, _, errs := runCmd(t, append([]string{"reproduce", "slsml", "-out", t.TempDir()}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
