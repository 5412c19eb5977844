package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
	"github.com/syncmodels/syncmodels/harness"
)

// calibrateQuick runs `calibrate -quick` with more flags and returns the
// profile it wrote and its stderr.
func calibrateQuick(t *testing.T, more ...string) (*harness.Profile, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.json")
	var out, errb bytes.Buffer
	args := append([]string{"calibrate", "-quick", "-out", path, "-date", "2026-01-02"}, more...)
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("syncbench %s = %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	p, err := harness.LoadProfile(path)
	if err != nil {
		t.Fatalf("the profile calibrate wrote: %v", err)
	}
	return p, errb.String()
}

// calibrate -quick on a tiny scale: every workload asked for, a fit and
// samples each; the in-process transport with its null rounds; the
// machine and date as given; Redis skipped with a message. (gRPC:
// TestCalibrateGRPC.)
func TestCalibrateQuick(t *testing.T) {
	p, stderr := calibrateQuick(t, "-workloads", "lr,kmeans,pmf", "-transports", "inproc,redis")
	if p.Date != "2026-01-02" || p.Machine.GOOS == "" || p.Machine.GOMAXPROCS < 1 || p.Machine.Go == "" {
		t.Errorf("date and machine = %q, %+v", p.Date, p.Machine)
	}
	for _, key := range []string{"lr", "kmeans", "pmf"} {
		w, ok := p.Workload(key)
		switch {
		case !ok:
			t.Errorf("no workload %q", key)
		case len(w.Samples) != 2 || w.Samples[0].PointNS <= 0 || w.ApplyEntryNS <= 0:
			t.Errorf("%s: %d samples, %+v", key, len(w.Samples), w)
		case w.PointCost(harness.WorkloadShape{Algo: key, Dim: 8, K: 4, Rank: 4}) <= 0:
			t.Errorf("%s: no cost at a size", key)
		}
	}
	if _, ok := p.Workload("gmm"); ok {
		t.Errorf("gmm measured without being asked for")
	}
	checkTransports(t, p, "inproc")
	if _, ok := p.Transport("grpc"); ok || strings.Contains(stderr, "over gRPC") {
		t.Errorf("grpc measured without being asked for")
	}
	if _, ok := p.Transport("redis"); ok || !strings.Contains(stderr, "redis skipped: give -redis redis://HOST:PORT") {
		t.Errorf("redis without -redis: in the profile %v, stderr %q", ok, stderr)
	}
	if !(p.Cores > 0) || p.Cores > float64(p.Machine.GOMAXPROCS) {
		t.Errorf("cores %v with GOMAXPROCS %d", p.Cores, p.Machine.GOMAXPROCS)
	}
}

// checkTransports checks that the profile has each of names measured,
// with its null rounds.
func checkTransports(t *testing.T, p *harness.Profile, names ...string) {
	t.Helper()
	for _, name := range names {
		tc, ok := p.Transport(name)
		if !ok {
			t.Fatalf("no transport %q", name)
		}
		if tc.LatencyNS <= 0 || tc.Bandwidth <= 0 || len(tc.Samples) != 3 || len(tc.Rounds) != 2 || tc.WorkerNS <= 0 {
			t.Errorf("%s: %+v", name, tc)
		}
	}
}

// calibrate -quick -transports grpc: gRPC over loopback with TLS, its
// null rounds, the gRPC runtime's work per commit at each size, and
// what worker processes (syncbench worker: this test binary, TestMain)
// add to it and to a message's latency.
func TestCalibrateGRPC(t *testing.T) {
	p, stderr := calibrateQuick(t, "-workloads", "lr", "-transports", "grpc")
	checkTransports(t, p, "grpc")
	if n := strings.Count(stderr, "µs over gRPC"); n != 2 {
		t.Errorf("%d sizes with the gRPC runtime's work per commit; want 2:\n%s", n, stderr)
	}
	w, _ := p.Workload("lr")
	if !(w.GRPCCommitNS > 0) && !strings.Contains(stderr, "lr: the gRPC runtime's work per commit not measured") {
		t.Errorf("lr: grpc_commit_ns %v, and no word of it:\n%s", w.GRPCCommitNS, stderr)
	}
	if tc, _ := p.Transport("grpc"); !(tc.ProcessCommitNS > 0 && tc.NullCommitNS > 0 && tc.ProcessLatencyNS > 0) {
		t.Errorf("grpc: worker processes' costs %v, %v, latency %v; want them measured", tc.ProcessCommitNS, tc.NullCommitNS, tc.ProcessLatencyNS)
	}
	if _, ok := p.Transport("inproc"); ok {
		t.Errorf("inproc measured without being asked for")
	}
}

// With -redis, the Redis server's latency and bandwidth (redistest starts
// one; the test skips without redis-server).
func TestCalibrateRedis(t *testing.T) {
	srv := redistest.Start(t)
	p, _ := calibrateQuick(t, "-workloads", "lr", "-transports", "redis", "-redis", srv.URL())
	tc, ok := p.Transport("redis")
	if !ok || tc.LatencyNS <= 0 || tc.Bandwidth <= 0 || len(tc.Samples) != 3 {
		t.Fatalf("redis: %v %+v", ok, tc)
	}
}

func TestCalibrateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-workloads", "lr,svm"}, `-workloads "lr,svm": "svm" is not one of kmeans`},
		{[]string{"-transports", "udp"}, `"udp" is not one of inproc, grpc, redis`},
		{[]string{"-redis", "localhost:6379"}, `-redis "localhost:6379": want redis://HOST:PORT`},
		{[]string{"-repeats", "0"}, "-repeats 0: want ≥ 1"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"calibrate"}, tc.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("calibrate %v = %d, %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// writeTestProfile writes a small profile (lr, kmeans, inproc) for the
// commands that read one.
func writeTestProfile(t *testing.T) string {
	t.Helper()
	p := &harness.Profile{Version: harness.ProfileVersion, Date: "test", Cores: 1.5, WakeupNS: 20000,
		Machine: harness.Machine{GOOS: "linux", GOARCH: "amd64", CPU: "Test CPU", NumCPU: 2, GOMAXPROCS: 2, Go: "go1.26"},
		Workloads: []harness.WorkloadCost{
			{Key: "lr", Size: "dim", InterceptNS: 30, SlopeNS: 0.8, ApplyEntryNS: 12, CommitNS: 15000},
			{Key: "kmeans", Size: "k·dim", Groups: "k", InterceptNS: 5, SlopeNS: 0.1, GroupNS: 4, ApplyEntryNS: 8, CommitNS: 9000},
		},
		Transports: []harness.TransportCost{{Name: "inproc", LatencyNS: 1500, Bandwidth: 3e8, MessageNS: 600, RoundNS: 2000, WorkerNS: 12000}},
	}
	return saveTestProfile(t, p, "profile.json")
}

// saveTestProfile writes p to a file name in a temporary directory and
// returns its path.
func saveTestProfile(t *testing.T, p *harness.Profile, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b bytes.Buffer
	if err := harness.WriteProfile(&b, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// compare -profile takes the workload's costs from the profile (a flag
// given on the command line wins), names the profile in the table and
// the JSON, and shares the profile's cores with its work per commit and
// wake-ups; -cores 0 takes the cluster's costs (the null rounds' on the
// links); without -profile the JSON has neither key.
func TestCompareProfile(t *testing.T) {
	path := writeTestProfile(t)
	base := []string{"compare", "-n", "2000", "-workers", "4", "-sync", "bsp,asp", "-duration", "20ms", "-stragglers", "1"}
	var out, errb bytes.Buffer
	if code := run(append(slices.Clone(base), "-profile", path, "-latency", "50us"), &out, &errb); code != 0 {
		t.Fatalf("compare -profile = %d: %s", code, errb.String())
	}
	if want := "cost profile " + path + " (measured test on Test CPU, linux/amd64): point cost 110ns, apply 12ns per entry, inproc messages 50µs latency, 600ns each and 300.0 MB/s; the workers share 1.5 cores, 15µs of runtime work per commit on them, a core waking in 20µs"; !strings.Contains(out.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	if code := run(append(slices.Clone(base), "-profile", path, "-cores", "0", "-json"), &out, &errb); code != 0 {
		t.Fatalf("compare -profile -json = %d: %s", code, errb.String())
	}
	var j struct {
		Scenario struct {
			PointCostS float64      `json:"point_cost_s"`
			Profile    *profileJSON `json:"profile"`
			Cores      *float64     `json:"cores"`
		} `json:"scenario"`
	}
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	want := profileJSON{File: path, Date: "test", CPU: "Test CPU", Transport: "inproc", EntryS: 12e-9, MessageS: 6e-6}
	if j.Scenario.PointCostS != 110e-9 || j.Scenario.Profile == nil || *j.Scenario.Profile != want || j.Scenario.Cores != nil {
		t.Errorf("JSON scenario: point cost %v, profile %+v, cores %v; want 110ns, %+v, no cores (-cores 0)", j.Scenario.PointCostS, j.Scenario.Profile, j.Scenario.Cores, want)
	}
	out.Reset()
	if code := run(append(slices.Clone(base), "-json"), &out, &errb); code != 0 {
		t.Fatalf("compare -json = %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), `"profile"`) || strings.Contains(out.String(), `"cores"`) {
		t.Errorf("compare without -profile names a profile or cores")
	}
}

// A bad -profile is a usage error of one line naming the file and field.
func TestCompareBadProfile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"version": 1, "cores": -2, "workloads": []}`), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"compare", "-profile", bad}, &out, &errb)
	want := "syncbench compare: -profile: harness: profile " + bad + ": cores: -2: want a number of cores"
	if code != 2 || !strings.HasPrefix(errb.String(), want) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("compare -profile bad = %d, %q; want 2 and one line starting %q", code, errb.String(), want)
	}
	path := writeTestProfile(t)
	errb.Reset()
	code = run([]string{"compare", "-profile", path, "-algo", "gmm", "-n", "500"}, &out, &errb)
	if want := `-profile: harness: profile ` + path + `: workloads: no entry "gmm" (have lr, kmeans)`; code != 1 || !strings.Contains(errb.String(), want) {
		t.Errorf("compare -profile without the workload = %d, %q; want 1 and %q", code, errb.String(), want)
	}
	errb.Reset()
	code = run([]string{"compare", "-profile", path, "-profile-transport", "grpc"}, &out, &errb)
	if want := `-profile-transport "grpc": the profile ` + path + ` has no such transport`; code != 2 || !strings.Contains(errb.String(), want) {
		t.Errorf("compare -profile-transport grpc = %d, %q; want 2 and %q", code, errb.String(), want)
	}
}

// reproduce fsp -profile: each workload's costs come from the profile
// (fspFlags.costs, as runFSP sets them) and the setup names the profile
// and the costs; a bad profile is refused before anything runs.
func TestReproduceFSPProfile(t *testing.T) {
	path := writeTestProfile(t)
	fs := flag.NewFlagSet("reproduce fsp", flag.ContinueOnError)
	var f fspFlags
	f.register(fs)
	if err := fs.Parse([]string{"-profile", path, "-algos", "lr"}); err != nil {
		t.Fatal(err)
	}
	if err := f.check(); err != nil {
		t.Fatal(err)
	}
	var w fspWorkload
	for _, x := range fspWorkloads(fspQuick, "") {
		if x.key == "lr" {
			w = x
		}
	}
	d, _, err := w.load(f.seed)
	if err != nil || d == nil {
		t.Fatalf("loading %s: %v", w.key, err)
	}
	cf, err := w.flagsFor(fspSettings[0], f.seed, fspSystems)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.costs(cf, d); err != nil {
		t.Fatal(err)
	}
	// LR on 28 features: 30 + 0.8·28 = 52.4 ns; null rounds 2 µs + 12 µs
	// per worker: 1 µs latency, 6 µs per message; no shared cores.
	if c := cf.costModel(); c.PointCost != 52*time.Nanosecond || c.EntryCost != 12*time.Nanosecond || c.Latency != time.Microsecond || c.MessageCost != 6*time.Microsecond || c.Cores != 0 {
		t.Errorf("cost model %+v", c)
	}
	r := &fspReport{f: &f, ran: []*fspCase{{w: w, flags: []*compareFlags{cf}}}}
	if got, want := r.costModel(cf), "**Cost model**: the cost profile `"+path+"` (measured test on Test CPU, linux/amd64; see [calibrate.md](../calibrate.md)) with a core per worker: compute per data point LR 52ns; an apply per entry LR 12ns; in-process messages 1µs latency, 6µs each and 2.4 Gbit/s."; !strings.HasPrefix(got, want) {
		t.Errorf("setup line\n%s\nwant\n%s", got, want)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	var out, errb bytes.Buffer
	if code := run(quickFSP(t.TempDir(), "-profile", bad), &out, &errb); code != 2 || !strings.Contains(errb.String(), "-profile: harness: profile "+bad+": truncated or empty JSON") {
		t.Errorf("reproduce fsp -profile bad = %d, %q", code, errb.String())
	}
}

// leastSquares recovers an exact line (intercept, slope, group term), gives
// R² 1 and refuses columns that do not determine the coefficients; on
// the samples of docs/calibrate/profile.json (fitted by gonum's QR when
// they were measured, before calibrate had its own solver) it gives the
// profile's coefficients back.
func TestLeastSquares(t *testing.T) {
	var rows [][]float64
	var y []float64
	for _, s := range []float64{16, 32, 64, 100, 128, 256} {
		for _, g := range []float64{4, 10, 16} {
			rows = append(rows, []float64{1, s * g, g})
			y = append(y, 3+2*s*g+0.5*g)
		}
	}
	c, r2, err := leastSquares(rows, y)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{3, 2, 0.5} {
		if math.Abs(c[i]-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("coefficient %d = %v; want %v", i, c[i], want)
		}
	}
	if math.Abs(r2-1) > 1e-12 {
		t.Errorf("R² = %v; want 1", r2)
	}
	if _, _, err := leastSquares([][]float64{{1, 2}, {1, 2}, {1, 2}}, []float64{1, 2, 3}); err == nil {
		t.Error("a repeated size fitted two coefficients")
	}
	p, err := harness.LoadProfile(filepath.Join("..", "..", "docs", "calibrate", "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range p.Workloads {
		got := w
		got.InterceptNS, got.SlopeNS, got.GroupNS, got.R2, got.Groups = 0, 0, 0, 0, ""
		if err := fitWorkload(&got, w.Key); err != nil {
			t.Fatalf("%s: %v", w.Key, err)
		}
		for _, f := range [][2]float64{{got.InterceptNS, w.InterceptNS}, {got.SlopeNS, w.SlopeNS}, {got.GroupNS, w.GroupNS}, {got.R2, w.R2}} {
			if math.Abs(f[0]-f[1]) > 1e-6*max(1, math.Abs(f[1])) {
				t.Errorf("%s: refitted %+v; the profile has %+v", w.Key, got, w)
				break
			}
		}
	}
}
