package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// small is a comparison that takes a fraction of a second even under -race.
var small = []string{"compare", "-n", "4000", "-dim", "20", "-workers", "8", "-batch", "100", "-duration", "300ms"}

func smallArgs(extra ...string) []string {
	return append(append([]string(nil), small...), extra...)
}

// TestCompareDefault runs `syncbench` with no arguments: the table has a
// row per default sync model. TestCompareSameSeed checks that a run is
// byte-identical on a small scenario, TestLongCompareDefaultTwice on this
// one.
func TestCompareDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("the default comparison takes a few seconds")
	}
	out := compareDefault(t)
	for _, want := range []string{
		"syncbench compare: logreg on synthetic:logistic (50000×100 dense)",
		"16 workers, batch 500, 4 injected stragglers (workers ",
		"pausing 32ms every 1000 points",
		"virtual clock, 4s per run",
		"99% of the best run's improvement",
		"sync         time to target  final objective  iterations  server versions  wait %  bytes sent\n",
		"\nbsp ", "\nssp:3 ", "\nasp ", "\nquorum:0.9 ", "\nquorum:0.75 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("default output lacks %q:\n%s", want, out)
		}
	}
}

// compareDefault runs `syncbench` with no arguments and returns its
// output, checking the exit status and the progress lines.
func compareDefault(t *testing.T) string {
	t.Helper()
	code, out, errs := runCmd(t)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if n := strings.Count(errs, "syncbench compare: ["); n != 5 {
		t.Errorf("stderr has %d progress lines; want one per run (5):\n%s", n, errs)
	}
	return out
}

// TestLongCompareDefaultTwice: the default comparison twice, byte for
// byte (a long check: SYNCMODELS_LONG=1).
func TestLongCompareDefaultTwice(t *testing.T) {
	long(t)
	if a, b := compareDefault(t), compareDefault(t); a != b {
		t.Errorf("same seed, different output:\n%s\nvs\n%s", a, b)
	}
}

// TestCompareSameSeed: the same flags and seed print the same table,
// stragglers, every default model and the FSP presets included.
func TestCompareSameSeed(t *testing.T) {
	args := smallArgs("-sync", "bsp,ssp:3,asp,quorum:0.75,fspv")
	code, a, errs := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if _, b, _ := runCmd(t, args...); a != b {
		t.Errorf("same seed, different output:\n%s\nvs\n%s", a, b)
	}
}

func TestCompareNoStragglers(t *testing.T) {
	code, out, errs := runCmd(t, smallArgs("-stragglers", "0", "-sync", "bsp,asp")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "8 workers, batch 100, no stragglers\n") {
		t.Errorf("output does not say there are no stragglers:\n%s", out)
	}
}

func TestCompareNaturalStragglers(t *testing.T) {
	code, out, errs := runCmd(t, smallArgs("-straggler-kind", "natural", "-slowdown", "3", "-stragglers", "1", "-sync", "bsp")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "1 natural straggler (worker ") || !strings.Contains(out, "3× slower") {
		t.Errorf("output does not describe the natural straggler:\n%s", out)
	}
}

// compareRun runs a small comparison with -json (and extra flags) and
// decodes it twice: into the command's own type and into a generic map,
// which checks the field names a consumer reads.
func compareRun(t *testing.T, extra ...string) (compareJSON, map[string]any) {
	t.Helper()
	code, out, errs := runCmd(t, smallArgs(append([]string{"-json"}, extra...)...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return c, m
}

func TestCompareJSON(t *testing.T) {
	c, m := compareRun(t)
	sc := c.Scenario
	if sc.Algo != "logreg" || sc.Points != 4000 || sc.Dim != 20 || sc.Workers != 8 || sc.Batch != 100 ||
		sc.Stragglers != 4 || sc.StragglerKind != "injected" || len(sc.StragglerWorkers) != 4 ||
		sc.Clock != "virtual" || sc.DurationS != 0.3 || sc.TauS != 0.032 || sc.Seed != 1 {
		t.Errorf("scenario %+v", sc)
	}
	want := []string{"bsp", "ssp:3", "asp", "quorum:0.9", "quorum:0.75"}
	if len(c.Runs) != len(want) {
		t.Fatalf("%d runs; want %d", len(c.Runs), len(want))
	}
	if !c.TargetDerived || !c.Minimize || math.Abs(c.InitialObjective-math.Ln2) > 1e-12 {
		t.Errorf("target_derived %v, minimize %v, initial %v; want true, true, ln 2", c.TargetDerived, c.Minimize, c.InitialObjective)
	}
	best, reached := math.Inf(1), 0
	for i, r := range c.Runs {
		if r.Sync != want[i] {
			t.Errorf("run %d is %s; want %s", i, r.Sync, want[i])
		}
		best = min(best, float64(r.FinalObjective))
		if r.TimeToTargetS != nil {
			reached++
			if *r.TimeToTargetS < 0 || *r.TimeToTargetS > 0.3 {
				t.Errorf("%s: time to target %v s outside the run", r.Sync, *r.TimeToTargetS)
			}
		}
		if len(r.Curve) < 100 || r.Curve[0].TS != 0 || r.Curve[len(r.Curve)-1].TS != 0.3 {
			t.Errorf("%s: curve of %d points from %v to %v s; want ≥ 100 from 0 to 0.3", r.Sync, len(r.Curve), r.Curve[0].TS, r.Curve[len(r.Curve)-1].TS)
		}
		if r.FinalObjective != r.Curve[len(r.Curve)-1].Objective || r.Versions == 0 || r.Iterations <= 0 ||
			r.BytesSent <= 0 || r.Messages <= 0 || r.WaitFraction < 0 || r.WaitFraction >= 1 {
			t.Errorf("%s: implausible run %+v", r.Sync, r)
		}
		if len(r.Workers) != 8 {
			t.Errorf("%s: %d worker stats; want 8", r.Sync, len(r.Workers))
		}
		strag := 0
		for _, w := range r.Workers {
			if w.Straggler {
				strag++
				if w.PausedS <= 0 {
					t.Errorf("%s: straggler %d never paused", r.Sync, w.Worker)
				}
			}
		}
		if strag != 4 {
			t.Errorf("%s: %d stragglers; want 4", r.Sync, strag)
		}
	}
	if wantT := c.InitialObjective - 0.99*(c.InitialObjective-best); math.Abs(float64(c.Target)-wantT) > 1e-12 {
		t.Errorf("target %v; want 99%% of the best improvement %v", c.Target, wantT)
	}
	if reached == 0 {
		t.Error("no run reached the derived target; the best run always should")
	}
	// Field names, as a consumer reads them.
	runs := m["runs"].([]any)
	for _, k := range []string{"sync", "time_to_target_s", "final_objective", "iterations", "wait_fraction", "bytes_sent", "versions", "messages", "curve", "workers"} {
		if _, ok := runs[0].(map[string]any)[k]; !ok {
			t.Errorf("runs[0] has no %q", k)
		}
	}
	pt := runs[0].(map[string]any)["curve"].([]any)[0].(map[string]any)
	for _, k := range []string{"t_s", "objective", "version"} {
		if _, ok := pt[k]; !ok {
			t.Errorf("runs[0].curve[0] has no %q", k)
		}
	}
	for _, k := range []string{"scenario", "target", "initial_objective"} {
		if _, ok := m[k]; !ok {
			t.Errorf("output has no %q", k)
		}
	}
}

// TestCompareISPIndirect runs BSP, SSP and ISP over MLLess's indirect
// communication: the JSON carries the store model, each run's store
// traffic and ISP's held mass; ISP moves fewer store bytes than BSP, and
// without -indirect none of these fields appear.
func TestCompareISPIndirect(t *testing.T) {
	c, m := compareRun(t, "-sync", "bsp,ssp:3,isp", "-indirect", "-store-rtt", "500us")
	if in := c.Scenario.Indirect; in == nil || in.RTTS != 0.0005 || in.Bandwidth != 1.25e8 || in.SignalS != 0.001 {
		t.Fatalf("scenario.indirect %+v", c.Scenario.Indirect)
	}
	if len(c.Runs) != 3 || c.Runs[2].Sync != "isp:0.7" {
		t.Fatalf("%d runs, the last %s; want 3, the last isp:0.7 (isp's default v)", len(c.Runs), c.Runs[len(c.Runs)-1].Sync)
	}
	for _, r := range c.Runs {
		if r.Store == nil || r.Store.Puts <= 0 || r.Store.Gets <= 0 || r.Store.Bytes <= 0 || r.Store.Bytes > r.BytesSent {
			t.Errorf("%s: store %+v, bytes sent %d", r.Sync, r.Store, r.BytesSent)
		}
		if (r.Held != nil) != strings.HasPrefix(r.Sync, "isp") {
			t.Errorf("%s: held %v", r.Sync, r.Held)
		}
	}
	bsp, isp := c.Runs[0], c.Runs[2]
	if isp.Store.Bytes/int64(isp.Versions) >= bsp.Store.Bytes/int64(bsp.Versions) || *isp.Held <= 0 {
		t.Errorf("isp:0.7 store bytes per round %d, bsp %d; held %v", isp.Store.Bytes/int64(isp.Versions), bsp.Store.Bytes/int64(bsp.Versions), *isp.Held)
	}
	if _, ok := m["runs"].([]any)[0].(map[string]any)["store"]; !ok {
		t.Error(`runs[0] has no "store"`)
	}
	c2, m2 := compareRun(t, "-sync", "bsp")
	if c2.Scenario.Indirect != nil || c2.Runs[0].Store != nil || c2.Runs[0].Held != nil {
		t.Error("indirect fields without -indirect")
	}
	if _, ok := m2["scenario"].(map[string]any)["indirect"]; ok {
		t.Error(`scenario has "indirect" without -indirect`)
	}
}

// TestCompareReplicas runs BSP and SSP in MLLess's replica design: -replicas
// names every bsp/ssp run "+replicas" and marks the scenario, "bsp+replicas"
// in -sync does the same for one run, and bsp with replicas ends where isp:0
// ends (the same design, Corollary 1), unlike the default bsp.
func TestCompareReplicas(t *testing.T) {
	c, m := compareRun(t, "-sync", "bsp,ssp:3,isp:0", "-replicas", "-indirect")
	if !c.Scenario.Replicas || len(c.Runs) != 3 || c.Runs[0].Sync != "bsp+replicas" || c.Runs[1].Sync != "ssp:3+replicas" || c.Runs[2].Sync != "isp:0" {
		t.Fatalf("scenario.replicas %v, runs %v", c.Scenario.Replicas, c.Scenario.Sync)
	}
	if c.Runs[0].FinalObjective != c.Runs[2].FinalObjective || c.Runs[0].Versions != c.Runs[2].Versions {
		t.Errorf("bsp+replicas ends at %v after %d versions, isp:0 at %v after %d", c.Runs[0].FinalObjective, c.Runs[0].Versions, c.Runs[2].FinalObjective, c.Runs[2].Versions)
	}
	one, _ := compareRun(t, "-sync", "bsp,bsp+replicas")
	if one.Scenario.Replicas || one.Runs[1].Sync != "bsp+replicas" || one.Runs[0].FinalObjective == one.Runs[1].FinalObjective {
		t.Errorf("scenario.replicas %v, runs %v, finals %v and %v", one.Scenario.Replicas, one.Scenario.Sync, one.Runs[0].FinalObjective, one.Runs[1].FinalObjective)
	}
	if _, ok := m["scenario"].(map[string]any)["replicas"]; !ok {
		t.Error(`scenario has no "replicas" with -replicas`)
	}
}

// TestCompareJSONNotReached checks that a target no run reaches is null.
func TestCompareJSONNotReached(t *testing.T) {
	c, m := compareRun(t, "-sync", "bsp", "-target", "0.01")
	if c.TargetDerived || c.Target != 0.01 {
		t.Errorf("target %v derived %v; want 0.01 from -target", c.Target, c.TargetDerived)
	}
	if v, ok := m["runs"].([]any)[0].(map[string]any)["time_to_target_s"]; !ok || v != nil {
		t.Errorf("time_to_target_s = %v (present %v); want null", v, ok)
	}
}

// TestCompareMaximize checks the derived target mirrors for an objective
// to maximize (GMM log-likelihood).
func TestCompareMaximize(t *testing.T) {
	c, _ := compareRun(t, "-algo", "gmm", "-k", "4", "-sync", "bsp,asp")
	best := math.Inf(-1)
	for _, r := range c.Runs {
		best = max(best, float64(r.FinalObjective))
	}
	if c.Minimize || !(float64(c.Target) > c.InitialObjective) || !(float64(c.Target) < best) {
		t.Errorf("minimize %v, target %v from %v to best %v; want maximize with initial < target < best", c.Minimize, c.Target, c.InitialObjective, best)
	}
}

func TestDeriveTarget(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		initial  float64
		finals   []float64
		minimize bool
		best, t  float64
	}{
		{1, []float64{0.5, 0, 0.2}, true, 0, 0.01},
		{-10, []float64{-5, 0, nan}, false, 0, -0.1},
		{1, []float64{nan, 0.5}, true, 0.5, 0.505},
	} {
		best, target := deriveTarget(tc.initial, tc.finals, tc.minimize)
		if best != tc.best || math.Abs(target-tc.t) > 1e-12 {
			t.Errorf("deriveTarget(%v, %v, %v) = %v, %v; want %v, %v", tc.initial, tc.finals, tc.minimize, best, target, tc.best, tc.t)
		}
	}
	if _, target := deriveTarget(1, []float64{nan}, true); !math.IsNaN(target) {
		t.Errorf("deriveTarget with every final NaN = %v; want NaN", target)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

func TestCompareCSV(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "csv")
	c, _ := compareRun(t, "-sync", "bsp,asp,quorum:0.75", "-csv", dir)
	points := 0
	for _, r := range c.Runs {
		points += len(r.Curve)
	}
	for _, tc := range []struct {
		name   string
		header string
		rows   int
	}{
		{"runs.csv", "sync,time_to_target_s,final_objective,iterations,versions,wait_fraction,bytes_sent,messages,target", 3},
		{"curves.csv", "sync,t_s,objective,version,points", points},
		{"workers.csv", "sync,worker,straggler,points,passes,commits,busy_s,paused_s,wait_s", 3 * 8},
	} {
		rows := readCSV(t, filepath.Join(dir, tc.name))
		if got := strings.Join(rows[0], ","); got != tc.header {
			t.Errorf("%s header %q; want %q", tc.name, got, tc.header)
		}
		if len(rows)-1 != tc.rows {
			t.Errorf("%s has %d rows; want %d", tc.name, len(rows)-1, tc.rows)
		}
	}
	runs := readCSV(t, filepath.Join(dir, "runs.csv"))
	if runs[1][0] != "bsp" || runs[2][0] != "asp" || runs[3][0] != "quorum:0.75" {
		t.Errorf("runs.csv rows %v; want bsp, asp, quorum:0.75", runs[1:])
	}
}

func TestComparePlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "curves.png")
	code, _, errs := runCmd(t, smallArgs("-sync", "bsp,asp", "-plot", path)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("%s does not start with the PNG signature: % x", path, raw[:min(8, len(raw))])
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s does not decode: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 250 {
		t.Errorf("plot is %v; want at least 400×250", b)
	}
}

// TestCompareRealClock passes -clock real through to the harness,
// semi-centralized FSP (§5.2) included.
func TestCompareRealClock(t *testing.T) {
	code, out, errs := runCmd(t, smallArgs("-clock", "real", "-sync", "bsp,asp,fsp:2ms:semi", "-duration", "200ms", "-json")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.Scenario.Clock != "real" || len(c.Runs) != 3 {
		t.Fatalf("clock %q, %d runs; want real, 3 runs", c.Scenario.Clock, len(c.Runs))
	}
	for _, r := range c.Runs {
		if r.Versions == 0 {
			t.Errorf("%+v: no versions", r)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-sync", "bsp,fsp:0s"}, 2, `-sync "fsp:0s"`},
		{[]string{"-sync", "fspv+opt", "-clock", "real"}, 2, "need -clock virtual"},
		{[]string{"-sync", "fspv+asyn", "-clock", "real"}, 2, "need -clock virtual"},
		{[]string{"-sync", "fspv,fspv+semi,fsp:5ms:semi", "-clock", "virtual"}, 0, ""},
		{[]string{"-sync", "fspv", "-clock", "real"}, 2, "need -clock virtual"},
		{[]string{"-sync", "fspv+semi", "-clock", "real"}, 2, "need -clock virtual"},
		{[]string{"-sync", "fspb,FSPB"}, 2, "listed twice"},
		{[]string{"-sync", "bsp,,asp"}, 2, `-sync ""`},
		{[]string{"-sync", "asp,ASP"}, 2, "listed twice"},
		{[]string{"-stragglers", "-1"}, 2, "-stragglers -1"},
		{[]string{"-workers", "4", "-stragglers", "5"}, 2, "-stragglers 5"},
		{[]string{"-straggler-kind", "flaky"}, 2, `-straggler-kind "flaky"`},
		{[]string{"-slowdown", "0.5"}, 2, "-slowdown 0.5"},
		{[]string{"-tau", "-1ms"}, 2, "-tau -1ms"},
		{[]string{"-every", "0"}, 2, "-every 0"},
		{[]string{"-clock", "wall"}, 2, `-clock "wall"`},
		{[]string{"-duration", "0s"}, 2, "-duration 0s"},
		{[]string{"-eval-every", "1h"}, 2, "-eval-every 1h0m0s"},
		{[]string{"-batch", "-1"}, 2, "-batch -1"},
		{[]string{"-point-cost", "0s"}, 2, "-point-cost 0s"},
		{[]string{"-latency", "-1us"}, 2, "-latency -1µs"},
		{[]string{"-bandwidth", "0"}, 2, "-bandwidth 0"},
		{[]string{"-target", "low"}, 2, `invalid value "low" for flag -target`},
		{[]string{"-target", "NaN"}, 2, `invalid value "NaN" for flag -target`},
		{[]string{"-workers", "0"}, 2, "-workers 0"},
		{[]string{"-algo", "svm"}, 2, `-algo "svm"`},
		{[]string{"-nosuchflag"}, 2, "flag provided but not defined"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-data", "nope"}, 1, `-data "nope"`},
		{[]string{"-algo", "pmf", "-data", "synthetic:blobs"}, 1, "needs"},
		{[]string{"-workers", "5000", "-stragglers", "0"}, 1, "-workers 5000: synthetic:logistic has only 4000 data points"},
		{[]string{"-sync", "isp:-1"}, 2, `-sync "isp:-1"`},
		{[]string{"-indirect", "-clock", "real"}, 2, "-indirect is a virtual-time cost model"},
		{[]string{"-indirect", "-sync", "fsp"}, 2, "not modelled over -indirect"},
		{[]string{"-indirect", "-store-rtt", "-1ms"}, 2, "-store-rtt -1ms"},
		{[]string{"-indirect", "-store-bandwidth", "0"}, 2, "-store-bandwidth 0"},
		{[]string{"-indirect", "-signal", "-1ms"}, 2, "-signal -1ms"},
		{[]string{"-algo", "kmeans", "-sync", "isp"}, 1, "MLLess trains GD models only"},
		{[]string{"-algo", "kmeans", "-sync", "bsp", "-replicas"}, 1, "MLLess trains GD models only"},
		{[]string{"-sync", "fsp+replicas"}, 2, "the replica design runs bsp, ssp, asp and quorum"},
		{[]string{"-sync", "fspv", "-replicas"}, 2, "the replica design runs bsp, ssp, asp and quorum"},
	} {
		args := smallArgs(tc.args...)
		code, _, errs := runCmd(t, args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || tc.code == 1 && strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("syncbench %v: exit %d, stderr %q; want exit %d and one line mentioning %q", args, code, errs, tc.code, tc.want)
		}
	}
	// Bad output paths are runtime errors, found before the runs.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-csv", filepath.Join(file, "dir")}, {"-plot", filepath.Join(file, "p.png")}} {
		code, _, errs := runCmd(t, smallArgs(append(args, "-sync", "asp")...)...)
		if code != 1 || !strings.Contains(errs, file) {
			t.Errorf("syncbench compare %v: exit %d, stderr %q; want exit 1 naming %s", args, code, errs, file)
		}
	}
}

func TestCommands(t *testing.T) {
	code, out, _ := runCmd(t, "help")
	if code != 0 || !strings.Contains(out, "compare") || !strings.Contains(out, "train") {
		t.Errorf("help: exit %d, output %q; want both commands listed", code, out)
	}
	code, _, errs := runCmd(t, "frobnicate")
	if code != 2 || !strings.Contains(errs, `unknown command "frobnicate" (want compare, train, coordinator, worker, tls, provision, calibrate, fidelity, reproduce or help)`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, errs)
	}
	for _, cmd := range []string{"compare", "train", "coordinator", "worker", "tls", "calibrate", "fidelity"} {
		if code, _, _ := runCmd(t, cmd, "-h"); code != 0 {
			t.Errorf("%s -h: exit %d; want 0", cmd, code)
		}
	}
}

// The FSP paper's configurations run under their names: BSPV's pilot picks
// one of the candidate batches, FSPB and FSPV tune the interval, FSPV+opt
// migrates data, and the runs pass the checkers (harness.Run checks every
// trace).
func TestComparePresets(t *testing.T) {
	code, out, errs := runCmd(t, smallArgs("-sync", "bspb,bspv,asp,fspb,fspv,fspv+opt", "-json")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range c.Runs {
		names = append(names, r.Sync)
		if r.Versions == 0 {
			t.Errorf("%s: no versions", r.Sync)
		}
	}
	got := strings.Join(names, ",")
	// 4000 points over 8 workers: shards of 500, candidates 15..500.
	if !strings.HasPrefix(got, "bspb,bspv(b=") || !strings.HasSuffix(got, "),asp,fspb,fspv,fspv+opt") {
		t.Fatalf("runs %s", got)
	}
	for i, r := range c.Runs {
		if (r.Migration != nil) != (i == len(c.Runs)-1) {
			t.Errorf("%s: migration record %v", r.Sync, r.Migration)
		}
	}
	if m := c.Runs[len(c.Runs)-1].Migration; m == nil || m.Windows == 0 || m.Bytes == 0 || len(m.Passes) != 8 || m.Epsilon != 0.5 {
		t.Errorf("fspv+opt: migration record %+v; want windows sent over 8 workers with ε = 0.5", m)
	}
}
