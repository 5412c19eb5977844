package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
)

// quickP2P is the -quick report's command on synthetic data (no
// Fashion-MNIST), into dir.
func quickP2P(dir string, more ...string) []string {
	return append([]string{"reproduce", "p2p", "-quick", "-fashion-mnist", filepath.Join(dir, "no-such-dir"), "-out", dir, "-seed", "3"}, more...)
}

// p2pQuickFiles are files the -quick report writes.
var p2pQuickFiles = []string{"p2p.md", "p2p/runs.csv", "p2p/fig3.png", "p2p/fig4.png", "p2p/fig6.png"}

// TestLongReproduceP2PTwice writes the -quick report twice with the same
// seed into two directories: the same files, byte for byte (but the wall
// time and the -out path). A long check (SYNCMODELS_LONG=1);
// TestReproduceP2PRedis compares a report on Redis with one in process
// under the README's command.
func TestLongReproduceP2PTwice(t *testing.T) {
	long(t)
	a, b := t.TempDir(), t.TempDir()
	runReports(t, "p2p.md", func(dir string) []string { return quickP2P(dir) }, a, b)
	sameReports(t, a, b, p2pQuickFiles...)
}

// TestReproduceP2PQuick writes the -quick report with every section,
// figure and table it promises, one CSV line per run, and no NaN.
func TestReproduceP2PQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the -quick report (seconds under -race)")
	}
	a := t.TempDir()
	runReports(t, "p2p.md", func(dir string) []string { return quickP2P(dir) }, a)
	fa := checkReport(t, a, p2pQuickFiles...)
	md := string(fa["p2p.md"])
	for _, want := range []string{
		"go run ./cmd/syncbench reproduce p2p -quick -fashion-mnist OUT/no-such-dir -out OUT -seed 3\n",
		"Seed N. Wall time: —", "**-quick**", "virtual clock", "passed `p2p.Check`",
		"## The paper's claims and ours", "| Fig. 3: serverless gradient computation faster, 4 peers, B = 64 | 97.34% | ",
		"| Tables II, III: serverless costs more (Eq. 1 ÷ Eq. 2), 4 peers | up to 5.34× (5.4× in the abstract) | up to ",
		"| Fig. 6: sync reaches the higher accuracy | 84.3% after ~128 epochs (MobileNet V3 Small) | sync ",
		"## Setup", "synthetic logistic data", "Fashion-MNIST not found",
		"## Fig. 3, Tables II and III", "| 4 | 64 | ", "97.3% (10.5 s vs 394.8 s)", "(p2p/fig3.png)",
		"## Fig. 4: computation and communication as peers grow", "| VGG11 | 12 | ", "| MobileNet V3 Small | 4 | ", "(p2p/fig4.png)",
		"## Fig. 5: QSGD", "| QSGD, 255 levels, packed | ", "| async + QSGD | ",
		"## Fig. 6: synchronous against asynchronous", "| 3 | ", "(p2p/fig6.png)", "**Staleness**", "**Updates nobody read**",
		"## Why the numbers differ from the paper's", "(p2p/runs.csv)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("p2p.md lacks %q", want)
		}
	}
	for _, absent := range []string{"NaN", "%!", "+Inf", "-Inf"} {
		if strings.Contains(md, absent) {
			t.Errorf("p2p.md has %q", absent)
		}
	}
	p := &p2pPlan{s: p2pQuick, byKey: map[string]*p2pCell{}}
	p.plan()
	runs := 0
	for _, c := range p.cells {
		runs += p.seeds(c)
	}
	if n := bytes.Count(fa["p2p/runs.csv"], []byte("\n")); n != 1+runs {
		t.Errorf("runs.csv has %d lines; want %d", n, 1+runs)
	}
	if !strings.Contains(md, "All "+itoa(int64(runs))+" runs of this report passed") {
		t.Errorf("p2p.md does not count its %d runs", runs)
	}
}

// TestLongReproduceP2PRedis writes the -quick report (one seed a
// setting) on a redis-server and in process: the same report but for the
// command line. A long check (SYNCMODELS_LONG=1): under -race its store
// round trips took 6 to 7 s of the README's command; the Redis exchange's
// own tests run there (exchange/redisx, exchange/storenet), and
// TestReproduceSlsMLRedis compares a report on Redis.
func TestLongReproduceP2PRedis(t *testing.T) {
	long(t)
	srv := redistest.Start(t)
	a, b := t.TempDir(), t.TempDir()
	runReports(t, "p2p.md", func(dir string) []string {
		if dir == a {
			return quickP2P(dir, "-seeds", "1", "-exchange", srv.URL())
		}
		return quickP2P(dir, "-seeds", "1")
	}, a, b)
	fa, fb := readReport(t, a), readReport(t, b)
	cmd := regexp.MustCompile("(?m)^go run ./cmd/syncbench reproduce p2p .*$")
	ma, mb := cmd.ReplaceAll(fa["p2p.md"], nil), cmd.ReplaceAll(fb["p2p.md"], nil)
	if !bytes.Equal(ma, mb) {
		t.Errorf("the report on Redis differs from the in-process one")
	}
	for name, x := range fb {
		if name != "p2p.md" && !bytes.Equal(x, fa[name]) {
			t.Errorf("%s differs between Redis and in process", name)
		}
	}
	if !strings.Contains(string(fa["p2p.md"]), "-exchange "+srv.URL()) {
		t.Errorf("the Redis report's command does not name the store")
	}
}

// Bad flags are refused before any run.
func TestReproduceP2PFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-exchange", "postgres://x"}, "-exchange \"postgres://x\": want memory or redis://HOST:PORT"},
		{[]string{"-seeds", "-1"}, "-seeds -1"},
	} {
		code, out, errs := runCmd(t, append([]string{"reproduce", "p2p", "-out", t.TempDir()}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) || strings.Contains(errs, "[1/") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q before any run", c.args, code, out, errs, c.want)
		}
	}
}
