package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/dataset"
)

// quickFSP is the smallest report: -quick, LR only (with its interval
// sweep), Fashion-MNIST looked for in a directory that does not exist.
func quickFSP(out string, extra ...string) []string {
	return append([]string{"reproduce", "fsp", "-quick", "-algos", "lr", "-fashion-mnist", filepath.Join(out, "no-such-dir"), "-out", out}, extra...)
}

// wallLine is the one line of the report that depends on the machine.
var wallLine = regexp.MustCompile(`(?m)^Seed \d+\. Wall time: .*$`)

// readReport returns every file the report wrote, by path relative to dir,
// with the wall-time line of the Markdown blanked and dir replaced by OUT.
func readReport(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if filepath.Ext(rel) == ".md" {
			b = wallLine.ReplaceAll(b, []byte("Seed N. Wall time: —"))
			b = bytes.ReplaceAll(b, []byte(dir), []byte("OUT"))
		}
		files[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// runReports runs the command args(dir) for each of the directories at the
// same time (the reports are CPU-bound but partly serial: two at once
// keep both cores busy) and checks that each exits 0 and names
// dir/report on stdout.
func runReports(t *testing.T, report string, args func(dir string) []string, dirs ...string) {
	t.Helper()
	type outcome struct {
		code      int
		out, errs string
	}
	res := make([]outcome, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Go(func() {
			var o, e bytes.Buffer
			res[i].code = run(args(dir), &o, &e)
			res[i].out, res[i].errs = o.String(), e.String()
		})
	}
	wg.Wait()
	for i, dir := range dirs {
		if res[i].code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", dir, res[i].code, res[i].errs)
		}
		if !strings.Contains(res[i].out, "wrote "+filepath.Join(dir, report)) {
			t.Errorf("stdout %q does not name the report", res[i].out)
		}
	}
}

// sameReports reads the reports in directories a and b, written with the
// same flags and seed, and checks that they hold the same files byte for
// byte, the named ones among them, and that every PNG decodes; it returns
// a's files.
func sameReports(t *testing.T, a, b string, names ...string) map[string][]byte {
	t.Helper()
	fa, fb := checkReport(t, a, names...), readReport(t, b)
	if len(fa) != len(fb) {
		t.Errorf("same seed, %d files vs %d", len(fa), len(fb))
	}
	for name, x := range fa {
		if !bytes.Equal(x, fb[name]) {
			t.Errorf("same seed, %s differs", name)
		}
	}
	return fa
}

// checkReport reads the report in dir and checks that it holds the named
// files and that every PNG decodes; it returns the files.
func checkReport(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	files := readReport(t, dir)
	for _, name := range names {
		if files[name] == nil {
			t.Errorf("the report has no %s", name)
		}
	}
	for name, x := range files {
		if strings.HasSuffix(name, ".png") {
			if _, err := png.Decode(bytes.NewReader(x)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	return files
}

// TestLongReproduceFSPQuick writes the -quick report of LR with every
// section, figure and table it promises. (That the same seed writes the
// same bytes is TestLongReproduceFSPAll's.) A long check
// (SYNCMODELS_LONG=1, without -race): under -race its 39 runs took 9 to
// 15 s of the README's command.
func TestLongReproduceFSPQuick(t *testing.T) {
	long(t)
	a := t.TempDir()
	runReports(t, "fsp.md", func(dir string) []string { return quickFSP(dir, "-seed", "3") }, a)
	fa := checkReport(t, a, "fsp.md", "fsp/runs.csv", "fsp/fig7.png", "fsp/fig8.png", "fsp/curves-lr.png", "fsp/fig15-lr.png", "fsp/fig12-lr.png", "fsp/fig12.csv")
	md := string(fa["fsp.md"])
	for _, want := range []string{
		"go run ./cmd/syncbench reproduce fsp -quick -algos lr -fashion-mnist OUT/no-such-dir -out OUT -seed 3\n",
		"Seed N. Wall time: —", "**-quick**", "virtual clock",
		"## Runtime with and without stragglers (Figs. 7 and 8)",
		"| workload | target | bspb | bspv | asp | fspb | fspv | fspv+opt |\n",
		"| LR | ", "(fsp/fig7.png)", "(fsp/fig8.png)", "(fsp/curves-lr.png)",
		"### FSPV's speedups", "| BSPV | 1.3–78× |",
		"### Why the numbers differ from the paper's", "**Measured.**",
		"## Runtime against the interval (Fig. 15)", "(fsp/fig15-lr.png)", "**Acceptance on seed 3, the report's seed (FSPV within 1.25× of the best fixed η): ",
		"**Acceptance on the medians over 2 seeds: ", "| η | η / P | η / full-batch round | seed 3 | seed 4 | median [interval] | median ÷ best median |\n",
		"\n| FSPV | ",
		"FSPV's included, takes an objective snapshot every 1/100 of its run length", "as often as the tables above",
		"## Asynchronous data migration (Fig. 12) and FSPV+opt (Fig. 11)", "### Time to target: FSPV against FSPV+opt",
		"### Passes and contributions per worker (Fig. 12)", "| LR | fspv (no migration), Injected | ", "| LR | fspv+opt, Injected | ",
		"(fsp/fig12-lr.png)", "- **LR**, Injected: max/min passes ", "(fsp/fig12.csv)",
		"## Semi-centralized coordination (Fig. 13)", "| LR | ", "The semi-centralized barrier cost less per iteration in ",
		"## Not reproduced yet", "Fig. 11's *sync* variant",
		"## Per-run details", "syncbench compare: logreg on synthetic:logistic",
		"| LR, Fashion-MNIST | — (not in Table 1) | skipped: Fashion-MNIST not installed (OUT/no-such-dir",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("fsp.md lacks %q", want)
		}
	}
	for _, absent := range []string{"| K-means |", "NaN"} {
		if strings.Contains(md, absent) {
			t.Errorf("fsp.md has %q (only LR ran)", absent)
		}
	}
	// The header, 18 table runs, Fig. 13's fspv+semi and the sweep (fixed
	// intervals and FSPV, per seed).
	if n, want := bytes.Count(fa["fsp/runs.csv"], []byte("\n")), 1+len(fspSystems)*len(fspSettings)+1+(fspQuick.sweepSteps+1)*fspQuick.sweepSeeds; n != want {
		t.Errorf("runs.csv has %d lines; want %d", n, want)
	}
}

// TestLongReproduceFSPAll writes the -quick report with every algorithm
// (and Fashion-MNIST where installed) twice with the same seed: the same
// files byte for byte, every workload's rows and figures. A long check
// (SYNCMODELS_LONG=1).
func TestLongReproduceFSPAll(t *testing.T) {
	long(t)
	a, b := t.TempDir(), t.TempDir()
	runReports(t, "fsp.md", func(dir string) []string { return []string{"reproduce", "fsp", "-quick", "-out", dir} }, a, b)
	var names []string
	for _, w := range fspWorkloads(fspQuick, dataset.FashionMNISTDir) {
		if _, err := os.Stat(dataset.FashionMNISTDir); err != nil && strings.HasSuffix(w.key, "-fmnist") {
			continue
		}
		names = append(names, "fsp/curves-"+w.key+".png")
		if w.sweep {
			names = append(names, "fsp/fig15-"+w.key+".png")
		}
	}
	names = append(names, "fsp.md", "fsp/runs.csv", "fsp/fig7.png", "fsp/fig8.png", "fsp/fig12-kmeans.png", "fsp/fig12-lr.png", "fsp/fig12.csv")
	fa := sameReports(t, a, b, names...)
	md := string(fa["fsp.md"])
	for _, want := range []string{"| K-means | ", "| GMM | ", "| FCM | ", "| LR | ", "| NMF | ", "### K-means\n", "### LR\n", "- **K-means**, Injected: ", "- **NMF is bound by"} {
		if !strings.Contains(md, want) {
			t.Errorf("fsp.md lacks %q", want)
		}
	}
	if strings.Contains(md, "NaN") {
		t.Errorf("fsp.md has a NaN")
	}
}

func TestFirstPoints(t *testing.T) {
	d, err := loadData("synthetic:blobs", synthSize{n: 50, dim: 3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := firstPoints(d, 20, "images")
	if n, dim := got.shape(); n != 20 || dim != 3 || got.spec != "synthetic:blobs (first 20 images)" {
		t.Errorf("firstPoints(50×3, 20) = %d×%d %q; want 20×3 \"synthetic:blobs (first 20 images)\"", n, dim, got.spec)
	}
	if !slices.Equal(got.dense.X, d.dense.X[:60]) || !slices.Equal(got.dense.Labels, d.dense.Labels[:20]) {
		t.Errorf("firstPoints(50×3, 20) does not hold the first 20 rows")
	}
	for _, n := range []int{0, 50, 80} {
		if got := firstPoints(d, n, "images"); got != d {
			t.Errorf("firstPoints(50×3, %d) is not the data set itself", n)
		}
	}
}

func TestReproduceUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"reproduce"}, 2, "name a paper (want doll, fsp, mlless, p2p or slsml)"},
		{[]string{"reproduce", "-h"}, 0, ""},
		{[]string{"reproduce", "dogs"}, 2, `unknown paper "dogs" (want doll, fsp, mlless, p2p or slsml)`},
		{[]string{"reproduce", "mlless", "-workloads", "pmf,cnn"}, 2, `"cnn" is not one of pmf, lr-dense, lr-sparse`},
		{[]string{"reproduce", "mlless", "-out", "/dev/null/x"}, 1, "syncbench reproduce mlless: mkdir /dev/null"},
		{[]string{"reproduce", "fsp", "-algos", "kmeans,cnn"}, 2, `"cnn" is not one of kmeans, gmm, fcm, lr, nmf`},
		{[]string{"reproduce", "fsp", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"reproduce", "fsp", "-out", "/dev/null/x"}, 1, "syncbench reproduce fsp: mkdir /dev/null"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("syncbench %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, errs, tc.code, tc.want)
		}
	}
}

func TestSpeedupOf(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		ta, tb, dur time.Duration
		want        string
	}{
		{s, 3 * s, 4 * s, "3×"},
		{2 * s, s, 4 * s, "0.5×"},
		{s, -1, 4 * s, "> 4×"},       // b did not reach: it took more than the run
		{-1, 2 * s, 4 * s, "< 0.5×"}, // a did not reach
		{-1, -1, 4 * s, "n/a"},
	} {
		if got := speedupOf(tc.ta, tc.tb, tc.dur).String(); got != tc.want {
			t.Errorf("speedupOf(%v, %v, %v) = %s; want %s", tc.ta, tc.tb, tc.dur, got, tc.want)
		}
	}
}

// TestBelowBound: the sweep's note when the best fixed η lies below FSPV's
// shortest interval (as LR's P/256 did against an earlier floor of 16
// points' time), with the numbers of that case.
func TestBelowBound(t *testing.T) {
	us, ms := time.Microsecond, time.Millisecond
	lr := fspSweep{lo: 160 * us, best: 52 * ms, bestEta: 117187 * time.Nanosecond, bestIn: 68 * ms, bestInEta: 234375 * time.Nanosecond, fspv: 80 * ms}
	for _, c := range []struct {
		name string
		sw   func(fspSweep) fspSweep
		want string // "" for no note
	}{
		{"FSPV reached", func(s fspSweep) fspSweep { return s },
			"The best fixed η (117 µs) is shorter than FSPV's shortest interval, 160 µs (the tuners' lower bound: one point's time, and at least twice the longest apply). Among the fixed η of the grid at or above it, the best is 234 µs (0.068 s): FSPV took 1.18× its time.\n\n"},
		{"FSPV did not reach", func(s fspSweep) fspSweep { s.fspv = -1; return s },
			"Among the fixed η of the grid at or above it, the best is 234 µs (0.068 s); FSPV did not reach the target.\n\n"},
		{"none above the bound reached", func(s fspSweep) fspSweep { s.bestIn = -1; return s },
			"No fixed η of the grid at or above that bound reached the target.\n\n"},
		{"best within the bound", func(s fspSweep) fspSweep { s.bestEta = 234375 * time.Nanosecond; return s }, ""},
		{"no fixed η reached", func(s fspSweep) fspSweep { s.best, s.bestIn = -1, -1; return s }, ""},
	} {
		got := belowBound(c.sw(lr))
		if c.want == "" && got != "" || !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: %q; want it to end with %q", c.name, got, c.want)
		}
	}
}

// median is the median time to target of ts as the fsp report takes it
// (tttStat's, through tttOf): the mean of the two middle ones for an even
// count, -1 if it is not reached.
func median(ts []time.Duration) time.Duration { return tttOf(tttStat(ts).median) }

// TestMedian: a not-reached run (-1) counts as the slowest; an even count
// takes the mean of the two middle ones, not reached if one is not.
func TestMedian(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		ts   []time.Duration
		want time.Duration
	}{
		{nil, -1},
		{[]time.Duration{5 * ms}, 5 * ms},
		{[]time.Duration{-1}, -1},
		{[]time.Duration{9 * ms, -1, 3 * ms, 5 * ms, -1}, 9 * ms},
		{[]time.Duration{9 * ms, -1, -1, 5 * ms, -1}, -1},
		{[]time.Duration{9 * ms, 1 * ms, 3 * ms, 5 * ms}, 4 * ms},
		{[]time.Duration{9 * ms, 1 * ms, -1, 5 * ms}, 7 * ms},
		{[]time.Duration{1 * ms, -1, -1, 5 * ms}, -1},
	} {
		if got := median(c.ts); got != c.want {
			t.Errorf("median(%v) = %v; want %v", c.ts, got, c.want)
		}
	}
}
