package harness_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/syncmodels/syncmodels/harness"
)

// testProfile is a small valid profile.
func testProfile() *harness.Profile {
	return &harness.Profile{
		Version: harness.ProfileVersion, Date: "2026-01-02",
		Machine: harness.Machine{GOOS: "linux", GOARCH: "amd64", CPU: "Test CPU", NumCPU: 2, GOMAXPROCS: 2, Go: "go1.26", Load: 0.5},
		Cores:   1.5, WakeupNS: 20000,
		Workloads: []harness.WorkloadCost{
			{Key: "lr", Size: "dim", InterceptNS: 20, SlopeNS: 1, R2: 0.99, ApplyEntryNS: 10, CommitNS: 15000,
				Samples: []harness.CostSample{{Dim: 16, Size: 16, PointNS: 36, LowNS: 35, HighNS: 40, ApplyEntryNS: 10, CommitNS: 15000, Batch: 500, Repeats: 7}}},
			{Key: "kmeans", Size: "k·dim", Groups: "k", InterceptNS: 5, SlopeNS: 0.5, GroupNS: 2, R2: 0.98, ApplyEntryNS: 4, CommitNS: 9000},
		},
		Transports: []harness.TransportCost{
			{Name: "inproc", LatencyNS: 1000, Bandwidth: 4e8, MessageNS: 500, RoundNS: 2000, WorkerNS: 12000,
				Rounds: []harness.RoundSample{{Workers: 1, NS: 14000}}, Samples: []harness.MessageSample{{Bytes: 14, NS: 500}}},
			{Name: "redis", LatencyNS: 15000, Bandwidth: 7e8},
		},
	}
}

// WriteProfile then ParseProfile gives the profile back, field for field.
func TestProfileRoundTrip(t *testing.T) {
	p := testProfile()
	var b bytes.Buffer
	if err := harness.WriteProfile(&b, p); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := harness.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(p, q, cmp.AllowUnexported(harness.Profile{}), cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "source" }, cmp.Ignore())); d != "" {
		t.Fatalf("round trip (-wrote +read):\n%s", d)
	}
	if q.Source() != path {
		t.Errorf("Source() = %q; want %q", q.Source(), path)
	}
	var again bytes.Buffer
	if err := harness.WriteProfile(&again, q); err != nil {
		t.Fatal(err)
	}
	if again.String() != b.String() {
		t.Errorf("written twice, different bytes:\n%s\n%s", b.String(), again.String())
	}
}

// The cost model of a workload: its fit at the shape's size and groups,
// the apply cost, the runtime's work per commit, the transport's costs
// and the machine's cores and wake-up; the cluster model puts the null
// rounds' costs on the links instead, a core per worker.
func TestProfileCostModel(t *testing.T) {
	p := testProfile()
	c, err := p.CostModel(harness.WorkloadShape{Algo: "kmeans", Dim: 10, K: 4}, "inproc")
	if err != nil {
		t.Fatal(err)
	}
	want := harness.CostModel{
		PointCost:   time.Duration(5 + 0.5*40 + 2*4), // intercept + slope·k·dim + group·k
		Latency:     500 * time.Nanosecond,           // latency_ns − message_ns
		Bandwidth:   4e8,
		EntryCost:   4,
		MessageCost: 500 * time.Nanosecond,
		Cores:       1.5,
		CommitCPU:   9 * time.Microsecond,
		Wakeup:      20 * time.Microsecond,
	}
	if c != want {
		t.Errorf("CostModel(kmeans k=4 dim=10, inproc) = %+v; want %+v", c, want)
	}
	c, err = p.ClusterCostModel(harness.WorkloadShape{Algo: "kmeans", Dim: 10, K: 4}, "inproc")
	if err != nil {
		t.Fatal(err)
	}
	want = harness.CostModel{
		PointCost:   time.Duration(5 + 0.5*40 + 2*4),
		Latency:     time.Microsecond, // round_ns / 2
		Bandwidth:   4e8,
		EntryCost:   4,
		MessageCost: 6 * time.Microsecond, // worker_ns / 2
	}
	if c != want {
		t.Errorf("ClusterCostModel(kmeans k=4 dim=10, inproc) = %+v; want %+v", c, want)
	}
	// Without null rounds: the transport's message cost, and its latency
	// less that.
	c, err = p.ClusterCostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "redis")
	if err != nil {
		t.Fatal(err)
	}
	if c.PointCost != 120 || c.Latency != 15*time.Microsecond || c.MessageCost != 0 || c.EntryCost != 10 {
		t.Errorf("CostModel(lr dim=100, redis) = %+v; want point 120ns, latency 15µs, no message cost, entry 10ns", c)
	}
	m, err := harness.CostModel{Cores: 8, EntryCost: 99}.FromProfile(p, harness.WorkloadShape{Algo: "lr", Dim: 100}, "inproc")
	if err != nil {
		t.Fatal(err)
	}
	if m.Cores != 1.5 || m.EntryCost != 10 || m.PointCost != 120 || m.CommitCPU != 15*time.Microsecond || m.Wakeup != 20*time.Microsecond {
		t.Errorf("FromProfile = %+v; want the profile's cores 1.5, entry 10ns, point 120ns, commit 15µs, wake-up 20µs", m)
	}
	for _, tc := range []struct {
		shape     harness.WorkloadShape
		transport string
		want      string
	}{
		{harness.WorkloadShape{Algo: "gmm", Dim: 2, K: 2}, "inproc", `workloads: no entry "gmm" (have lr, kmeans)`},
		{harness.WorkloadShape{Algo: "lr", Sparse: true, Dim: 40}, "inproc", `no entry "lr-sparse"`},
		{harness.WorkloadShape{Algo: "lr", Dim: 2}, "grpc", `transports: no entry "grpc" (have inproc, redis)`},
	} {
		_, err := p.CostModel(tc.shape, tc.transport)
		if !errors.Is(err, harness.ErrProfile) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CostModel(%+v, %s) = %v; want ErrProfile saying %q", tc.shape, tc.transport, err, tc.want)
		}
	}
}

// Over transport grpc the work per commit is the gRPC runtime's, in one
// process plus what worker processes add, and the latency is between
// processes; a profile from before they were measured loads, and fails
// only a gRPC prediction, naming the file and the field.
func TestProfileCostModelGRPC(t *testing.T) {
	p := testProfile()
	p.Transports = append(p.Transports, harness.TransportCost{Name: "grpc", LatencyNS: 15000, Bandwidth: 2e8, MessageNS: 3000,
		ProcessCommitNS: 200000, NullCommitNS: 30000, ProcessLatencyNS: 45000})
	p.Workloads[0].GRPCCommitNS = 40000
	var b bytes.Buffer
	if err := harness.WriteProfile(&b, p); err != nil {
		t.Fatal(err)
	}
	q, err := harness.ParseProfile("new.json", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c, err := q.CostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "grpc")
	if err != nil {
		t.Fatal(err)
	}
	// 40 µs in one process + (200 − 30) µs that the processes add.
	if c.CommitCPU != 210*time.Microsecond || c.Latency != 45*time.Microsecond || c.MessageCost != 3*time.Microsecond || c.Bandwidth != 2e8 {
		t.Errorf("CostModel(lr, grpc) = %+v; want commit 210µs, latency 45µs, message 3µs, 2e8 B/s", c)
	}
	if c, err := q.CostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "inproc"); err != nil || c.CommitCPU != 15*time.Microsecond {
		t.Errorf("CostModel(lr, inproc) = %+v, %v; want the in-process commit 15µs", c, err)
	}
	// The old profile: no grpc_commit_ns, no process_commit_ns.
	old := testProfile()
	old.Transports = append(old.Transports, harness.TransportCost{Name: "grpc", LatencyNS: 15000, Bandwidth: 2e8, MessageNS: 3000})
	b.Reset()
	if err := harness.WriteProfile(&b, old); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "grpc_commit_ns") || strings.Contains(b.String(), "process_commit_ns") {
		t.Fatalf("an old profile has the new fields:\n%s", b.String())
	}
	o, err := harness.ParseProfile("old.json", b.Bytes())
	if err != nil {
		t.Fatalf("an old profile does not load: %v", err)
	}
	if _, err := o.CostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "inproc"); err != nil {
		t.Errorf("an old profile's in-process prediction: %v", err)
	}
	_, err = o.CostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "grpc")
	if want := "harness: profile old.json: workloads[0].grpc_commit_ns: missing"; !errors.Is(err, harness.ErrProfile) || !strings.HasPrefix(fmt.Sprint(err), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("CostModel(lr, grpc) of an old profile = %v; want a one-line ErrProfile starting %q", err, want)
	}
	old.Workloads[0].GRPCCommitNS = 40000
	b.Reset()
	harness.WriteProfile(&b, old)
	o, _ = harness.ParseProfile("old.json", b.Bytes())
	_, err = o.CostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "grpc")
	if want := "harness: profile old.json: transports[2].process_commit_ns: missing"; !errors.Is(err, harness.ErrProfile) || !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("CostModel(lr, grpc) without the processes' costs = %v; want ErrProfile starting %q", err, want)
	}
}

// Bad files give one-line errors that name the file and the field, and
// match ErrProfile.
func TestProfileBadFiles(t *testing.T) {
	good := func() string {
		var b bytes.Buffer
		harness.WriteProfile(&b, testProfile())
		return b.String()
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "truncated or empty JSON"},
		{"truncated", good()[:40], "truncated or empty JSON"},
		{"syntax", "{\n  \"version\": 1,\n  \"cores\": 2,,\n}", "line 3 column 14: malformed JSON"},
		{"two values", good() + good(), "more than one JSON value"},
		{"unknown field", strings.Replace(good(), `"date"`, `"dat"`, 1), "dat: unknown field"},
		{"wrong type", strings.Replace(good(), `"cores": 1.5`, `"cores": "two"`, 1), "cores: want a float64, got a JSON string"},
		{"version", strings.Replace(good(), `"version": 1`, `"version": 2`, 1), "version: 2: want 1"},
		{"cores", strings.Replace(good(), `"cores": 1.5`, `"cores": 0`, 1), "cores: 0: want a number of cores"},
		{"negative slope", strings.Replace(good(), `"slope_ns": 1,`, `"slope_ns": -1,`, 1), "workloads[0].slope_ns: -1: want ≥ 0"},
		{"duplicate key", strings.Replace(good(), `"key": "kmeans"`, `"key": "lr"`, 1), `workloads[1].key: "lr" is listed twice`},
		{"huge", strings.Replace(good(), `"apply_entry_ns": 4,`, `"apply_entry_ns": 4e15,`, 1), "workloads[1].apply_entry_ns: 4e+15 ns is more than an hour"},
		{"bandwidth", strings.Replace(good(), `"bandwidth": 700000000`, `"bandwidth": 0`, 1), "transports[1].bandwidth: 0: want a finite number"},
		{"latency", strings.Replace(good(), `"latency_ns": 15000`, `"latency_ns": -1`, 1), "transports[1].latency_ns: -1: want ≥ 0"},
		{"sample", strings.Replace(good(), `"point_ns": 36`, `"point_ns": 0`, 1), "workloads[0].samples[0].point_ns: 0"},
		{"nothing", `{"version": 1, "cores": 1}`, "no workloads and no transports"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.json")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := harness.LoadProfile(path)
			switch {
			case err == nil:
				t.Fatalf("LoadProfile accepted it")
			case !errors.Is(err, harness.ErrProfile):
				t.Fatalf("LoadProfile = %v; want ErrProfile", err)
			case strings.Contains(err.Error(), "\n"):
				t.Fatalf("LoadProfile = %q: more than one line", err)
			case !strings.Contains(err.Error(), "profile "+path+": "):
				t.Fatalf("LoadProfile = %q: does not name the file", err)
			case !strings.Contains(err.Error(), tc.want):
				t.Fatalf("LoadProfile = %q; want it to say %q", err, tc.want)
			}
		})
	}
	if _, err := harness.LoadProfile(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("LoadProfile(missing file) = %v; want an error naming it", err)
	}
}
