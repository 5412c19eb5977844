package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
)

// quickFidelity parses fidelity's flags as the command does.
func quickFidelity(t *testing.T, args ...string) *fidelityFlags {
	t.Helper()
	var f fidelityFlags
	fs := flag.NewFlagSet("syncbench fidelity", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	f.args = args
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := f.check(); err != nil {
		t.Fatal(err)
	}
	return &f
}

// The virtual side of fidelity -quick is a function of the profile and
// what the real runs measured: the pilots, the predictions, the
// ablations and their CSV rows are the same bytes twice (the real runs
// are left out: they are the machine's; LR's BSP and FSP, interrupts
// and stalls included).
func TestFidelityVirtualDeterministic(t *testing.T) {
	prof, err := harness.LoadProfile(writeTestProfile(t))
	if err != nil {
		t.Fatal(err)
	}
	var csvs [2][]byte
	for i := range csvs {
		f := quickFidelity(t, "-quick", "-runtimes", "inproc", "-workloads", "lr", "-workers", "4", "-sync", "bsp,fsp:2ms", "-duration", "10ms")
		sc, err := f.scenarios()
		if err != nil {
			t.Fatal(err)
		}
		if err := pilots(context.Background(), f, prof, sc); err != nil {
			t.Fatal(err)
		}
		for j, s := range sc {
			// What real runs would have measured, differing by scenario:
			// 1,000 preemptions in a second of CPU time, the threads
			// 300 ms in the run queue of which 1,000 wake-ups took 20 µs
			// or 40 µs each.
			os := osStats{CPU: time.Second, RunQueue: 300 * time.Millisecond, Voluntary: 1000, Involuntary: 1000}
			s.meas = []fidReal{{PointNS: 90 + float64(j), WakeNS: 20000, Procs: 2, OS: os, CommitCPUNS: 80000, CommitPoints: 500}, {PointNS: 120, WakeNS: 40000, Procs: 2, OS: os, CommitCPUNS: 90000, CommitPoints: 500}}
		}
		if err := predict(context.Background(), f, prof, sc, nil); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "runs.csv")
		if err := writeFidelityCSV(path, sc, false); err != nil {
			t.Fatal(err)
		}
		if csvs[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		// The variants of the in-process runtime but the one from the
		// real runs' CPU per commit (no real runs here).
		keys := slices.DeleteFunc(fidAblationKeys("inproc"), func(k string) bool { return k == "cpu" })
		per := 4 + len(keys)
		if n := bytes.Count(csvs[i], []byte("\n")); n != 1+per*len(sc) {
			t.Fatalf("%d CSV lines for %d scenarios; want a header and %d per scenario", n, len(sc), per)
		}
		for _, s := range sc {
			if len(s.reps) != 2 || slices.Contains(s.reps, nil) || s.run == nil || s.profile == nil || s.dur <= 0 {
				t.Fatalf("%s: predictions %v %v %v, run length %v", s.name(), s.reps, s.run != nil, s.profile != nil, s.dur)
			}
			for _, k := range keys {
				if s.result(k) == nil {
					t.Fatalf("%s: no variant %q", s.name(), k)
				}
			}
		}
		// The prediction at the runs' speed takes their median compute
		// time per point (105 ns) and wake-up (30 µs), and GOMAXPROCS
		// cores; the variant with stalls their median stalls (280 µs and
		// 260 µs: 270 µs, every 1 ms), its compute what is left without
		// them: 105 / 1.27 ns.
		c, err := sc[0].runCost(prof, sc[0].inputs())
		if err != nil {
			t.Fatal(err)
		}
		if c.PointCost != 105*time.Nanosecond || c.Wakeup != 30*time.Microsecond || c.Cores != 2 || c.Stall != 0 {
			t.Errorf("%s: cost model %+v; want point 105ns, wake-up 30µs, 2 cores, no stalls", sc[0].name(), c)
		}
		// At the speed of the CPU time per commit (the gRPC runtime's
		// measure) the model's CPU time per commit, a commit's 500
		// points and its work per commit, is the runs' median, 85 µs.
		cc, err := sc[0].costAt(prof, sc[0].inputs(), "cpu")
		if err != nil {
			t.Fatal(err)
		}
		if got := 500*cc.PointCost + cc.CommitCPU; got < 85*time.Microsecond-time.Microsecond || got > 85*time.Microsecond+time.Microsecond {
			t.Errorf("%s: at the CPU speed a commit costs %v of CPU (%v per point, %v per commit); want the runs' 85µs", sc[0].name(), got, cc.PointCost, cc.CommitCPU)
		}
		withStalls(&c, sc[0].inputs())
		if c.PointCost != 83*time.Nanosecond || c.Stall != 270*time.Microsecond || c.StallEvery != time.Millisecond {
			t.Errorf("%s: with stalls %+v; want point 83ns, stalls of 270µs every 1ms", sc[0].name(), c)
		}
	}
	if !bytes.Equal(csvs[0], csvs[1]) {
		t.Fatalf("the virtual side differs between two runs:\n%s\n%s", csvs[0], csvs[1])
	}
}

// fidelity -quick end to end on one workload, one worker count and two
// models: the report's sections, a plot, a CSV row per run.
func TestFidelityQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs (seconds)")
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"fidelity", "-quick", "-runtimes", "inproc", "-workloads", "lr", "-workers", "4", "-sync", "bsp,asp", "-profile", writeTestProfile(t), "-out", dir}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("syncbench %s = %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "fidelity.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Fidelity: virtual time against the real runtime", "**-quick**", "**Machine**", "**Wall time**",
		"## Errors", "### The goroutine runtime (in process)", "| time to target | run |", "| time per iteration | profile |", "| time to target | *repeat* |", "(fidelity/fidelity.png)", "| at the median inputs without the work per commit |",
		"## Scenarios", "| lr/4/none/bsp |", "| lr/4/injected/asp |", "## The machine during the runs", "## Outliers", "## The model", "## Method"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("fidelity.md lacks %q", want)
		}
	}
	for _, absent := range []string{"NaN", "%!", "+Inf"} {
		if strings.Contains(string(md), absent) {
			t.Errorf("fidelity.md has %q", absent)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "fidelity", "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// 4 scenarios (2 models × with and without stragglers), one real run,
	// its prediction, the prediction at the median inputs, the profile's
	// and the variants each.
	// (The variant with the runs' own CPU per commit only where their
	// counters gave a positive one.)
	most := 1 + 4*(4+len(fidAblationKeys("inproc")))
	if n := bytes.Count(csv, []byte("\n")); n < most-4 || n > most {
		t.Errorf("runs.csv has %d lines; want %d to %d", n, most-4, most)
	}
	if st, err := os.Stat(filepath.Join(dir, "fidelity", "fidelity.png")); err != nil || st.Size() == 0 {
		t.Errorf("fidelity.png: %v", err)
	}
}

// The gRPC runtime's side of fidelity -quick: worker processes (this
// test binary, TestMain) on loopback with TLS serve every run of a
// workload's scenarios; each run's trace passed consistency.Check (the
// coordinator's harness.Run checks it, and here again), the workers'
// own Busy time and points give the compute time per point, the
// processes' counters are read, and the report has the gRPC runtime's
// tables and the variant without the processes' work per commit.
func TestFidelityGRPC(t *testing.T) {
	prof, err := harness.LoadProfile(writeTestProfileGRPC(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := quickFidelity(t, "-quick", "-runtimes", "grpc", "-workloads", "lr", "-sync", "bsp,asp", "-out", dir)
	f.tmp = t.TempDir()
	sc, err := f.scenarios()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := pilots(ctx, f, prof, sc); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	if err := f.runReal(ctx, sc, &progress); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	for _, s := range sc {
		if s.rt != "grpc" || len(s.real) != 1 || !strings.HasPrefix(s.name(), "grpc/lr/4/") {
			t.Fatalf("%s: runtime %q, %d real runs", s.name(), s.rt, len(s.real))
		}
		r, m := s.real[0], s.meas[0]
		if r.Trace == nil {
			t.Fatalf("%s: no trace", s.name())
		}
		if err := consistency.Check(r.Trace); err != nil {
			t.Errorf("%s: %v", s.name(), err)
		}
		var busy time.Duration
		for _, w := range r.Workers {
			busy += w.Busy
		}
		if busy <= 0 || !(m.PointNS > 0) || r.WaitFraction < 0 || r.WaitFraction > 1 {
			t.Errorf("%s: workers' busy %v, %v ns per point, wait fraction %v", s.name(), busy, m.PointNS, r.WaitFraction)
		}
		if runtime.GOOS == "linux" && m.Span > 0 && (m.Workers.CPU <= 0 || m.OS.CPU < m.Workers.CPU) {
			t.Errorf("%s: worker processes' CPU %v of %v", s.name(), m.Workers.CPU, m.OS.CPU)
		}
	}
	if err := predict(ctx, f, prof, sc, nil); err != nil {
		t.Fatal(err)
	}
	if err := writeFidelityReport(f, prof, "test", sc, time.Second); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "fidelity.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### The gRPC runtime (worker processes)", "| grpc/lr/4/none/bsp |", "| grpc/lr/4/injected/asp |",
		"| at the median inputs without the worker processes' share of the work per commit |", "`syncbench worker` process per worker", "-grpc-workers 4"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("fidelity.md lacks %q", want)
		}
	}
	for _, absent := range []string{"NaN", "%!", "+Inf", "goroutine runtime (in process)"} {
		if strings.Contains(string(md), absent) {
			t.Errorf("fidelity.md has %q", absent)
		}
	}
}

// writeTestProfileGRPC is writeTestProfile's with the gRPC runtime's
// costs.
func writeTestProfileGRPC(t *testing.T) string {
	t.Helper()
	p, err := harness.LoadProfile(writeTestProfile(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Workloads {
		p.Workloads[i].GRPCCommitNS = 30000
	}
	p.Transports = append(p.Transports, harness.TransportCost{Name: "grpc", LatencyNS: 15000, Bandwidth: 2e8, MessageNS: 3000,
		ProcessCommitNS: 150000, NullCommitNS: 30000, ProcessLatencyNS: 45000})
	return saveTestProfile(t, p, "grpc.json")
}

// A profile from before calibrate measured the gRPC runtime's work per
// commit fails fidelity -runtimes grpc before any run, naming the file
// and the field; the in-process side still takes it.
func TestFidelityOldProfile(t *testing.T) {
	// An old profile: a grpc transport without the processes' costs, and
	// no grpc_commit_ns.
	p, err := harness.LoadProfile(writeTestProfile(t))
	if err != nil {
		t.Fatal(err)
	}
	p.Transports = append(p.Transports, harness.TransportCost{Name: "grpc", LatencyNS: 15000, Bandwidth: 2e8, MessageNS: 3000, RoundNS: 20000, WorkerNS: 22000})
	old := saveTestProfile(t, p, "old.json")
	var out, errb bytes.Buffer
	if code := run([]string{"fidelity", "-quick", "-runtimes", "inproc,grpc", "-workloads", "lr", "-profile", old, "-out", t.TempDir()}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "-profile (runtime grpc): harness: profile "+old+": workloads[0].grpc_commit_ns: missing") || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Errorf("fidelity with an old profile = %d, %q; want 1 and one line naming %s and workloads[0].grpc_commit_ns", code, errb.String(), old)
	}
}

func TestFidelityUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-sync", "fspv"}, "-sync fspv: fidelity runs plain models"},
		{[]string{"-sync", "fsp:1ms:semi"}, "-sync fsp:1ms:semi: fidelity runs plain models"},
		{[]string{"-workers", "4,x"}, `-workers "4,x": "x" is not a worker count`},
		{[]string{"-workloads", "gmm"}, `-workloads "gmm": "gmm" is not one of lr, kmeans`},
		{[]string{"-reps", "0"}, "-reps 0: want ≥ 1"},
		{[]string{"-warmup", "-1ms"}, "-warmup -1ms: want ≥ 0 and at most 1m"},
		{[]string{"-runtimes", "inproc,mpi"}, `-runtimes "inproc,mpi": "mpi" is not one of inproc, grpc`},
		{[]string{"-grpc-workers", "0"}, `-grpc-workers "0": "0" is not a worker count`},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"fidelity"}, tc.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("fidelity %v = %d, %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// commitDelay is the 90th percentile of the time from a worker's send
// to the coordinator's commit, matched by worker and sequence number,
// and NaN without the workers' side of the trace.
func TestCommitDelay(t *testing.T) {
	tr := &consistency.Trace{WorkerSide: true}
	// 19 commits of worker 0 taken 1 µs after their send and one of
	// worker 1 taken 500 µs after: the 90th percentile is 1 µs; four
	// more slow ones (workers 2 to 5), 5 of 24, make it 500 µs.
	slow := func(w consistency.WorkerID) {
		at := time.Duration(100+w) * time.Millisecond
		tr.Add(consistency.Record{At: at, Kind: consistency.RecSend, Worker: w, Seq: 1})
		tr.Add(consistency.Record{At: at + 500*time.Microsecond, Kind: consistency.RecCommit, Worker: w, Seq: 1})
	}
	for i := range 19 {
		at := time.Duration(i) * time.Millisecond
		tr.Add(consistency.Record{At: at, Kind: consistency.RecSend, Worker: 0, Seq: uint64(i + 1)})
		tr.Add(consistency.Record{At: at + time.Microsecond, Kind: consistency.RecCommit, Worker: 0, Seq: uint64(i + 1)})
	}
	slow(1)
	if got := commitDelay(&harness.Result{Trace: tr}); got != 1e3 {
		t.Errorf("commitDelay = %v ns with one slow commit in 20; want 1 µs", got)
	}
	for w := range consistency.WorkerID(4) {
		slow(w + 2)
	}
	if got := commitDelay(&harness.Result{Trace: tr}); got != 500e3 {
		t.Errorf("commitDelay = %v ns with 5 slow commits in 24; want 500 µs", got)
	}
	tr.WorkerSide = false
	if got := commitDelay(&harness.Result{Trace: tr}); !math.IsNaN(got) {
		t.Errorf("commitDelay without the workers' side = %v; want NaN", got)
	}
}

// roundWorkers is the mean over applies of the participation of their
// deltas' points: 2 for a version of two full batches and two of one
// point (4000, 4000, 1, 1), 1 for one of a single batch.
func TestRoundWorkers(t *testing.T) {
	tr := &consistency.Trace{}
	apply := func(v consistency.Version, points ...int) {
		var ids []consistency.DeltaID
		for w, p := range points {
			id := consistency.DeltaID{Worker: consistency.WorkerID(w), Seq: uint64(v)}
			tr.Add(consistency.Record{Kind: consistency.RecCommit, Worker: id.Worker, Seq: id.Seq, Points: p})
			ids = append(ids, id)
		}
		tr.Add(consistency.Record{Kind: consistency.RecApply, Version: v, Deltas: ids})
	}
	apply(1, 4000, 4000, 1, 1)
	apply(2, 0, 0, 0, 4000)
	got := roundWorkers(&harness.Result{Trace: tr})
	// (8002²/(2·4000² + 2) + 1) / 2
	want := (8002.0*8002.0/(2*4000.0*4000.0+2) + 1) / 2
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("roundWorkers = %v; want %v", got, want)
	}
	if got := roundWorkers(&harness.Result{Trace: &consistency.Trace{}}); !math.IsNaN(got) {
		t.Errorf("roundWorkers without applies = %v; want NaN", got)
	}
}

// shardWorkers is the participation of the workers' total points: 2 for
// two workers with all the points, 4 for four with equal points.
func TestShardWorkers(t *testing.T) {
	r := &harness.Result{Workers: []harness.WorkerStats{{Points: 8000}, {Points: 8000}, {}, {}}}
	if got := shardWorkers(r); got != 2 {
		t.Errorf("two of four workers with all the points: %v; want 2", got)
	}
	for i := range r.Workers {
		r.Workers[i].Points = 500
	}
	if got := shardWorkers(r); got != 4 {
		t.Errorf("four workers with equal points: %v; want 4", got)
	}
	if got := shardWorkers(&harness.Result{Workers: make([]harness.WorkerStats, 3)}); !math.IsNaN(got) {
		t.Errorf("no points: %v; want NaN", got)
	}
}

// warmUp computes on every core for at least its duration, and not at
// all for 0.
func TestWarmUp(t *testing.T) {
	before := warmSink.Load()
	start := time.Now()
	warmUp(5 * time.Millisecond)
	if d := time.Since(start); d < 5*time.Millisecond {
		t.Errorf("warmUp(5ms) returned after %v", d)
	}
	if warmSink.Load() == before {
		t.Error("warmUp(5ms) computed nothing")
	}
	after := warmSink.Load()
	warmUp(0)
	if warmSink.Load() != after {
		t.Error("warmUp(0) computed")
	}
}

// repeatError is the leave-one-out error of median size: wait fractions
// of 10%, 20% and 40% miss the others' medians (30%, 25%, 15%) by −67%,
// −20% and +167%; the middle one by size is −67%. inRange counts the
// predictions between their real runs' extremes.
func TestRepeatError(t *testing.T) {
	wait := fidMetrics[1]
	s := &fidScenario{real: []*harness.Result{{WaitFraction: .1}, {WaitFraction: .2}, {WaitFraction: .4}}}
	if got, want := s.repeatError(wait), 10.0/30-1; math.Abs(got-want) > 1e-12 {
		t.Errorf("repeatError = %v; want %v", got, want)
	}
	if got := (&fidScenario{real: s.real[:1]}).repeatError(wait); !math.IsNaN(got) {
		t.Errorf("one real run: %v; want NaN", got)
	}
	s.reps = []*harness.Result{{WaitFraction: .3}}
	out := &fidScenario{real: s.real, reps: []*harness.Result{{WaitFraction: .5}}}
	if in, n := inRange([]*fidScenario{s, out, {}}, wait, "run"); in != 1 || n != 2 {
		t.Errorf("inRange = %d of %d; want 1 of 2", in, n)
	}
}

// itersBy counts the commits accepted by a time, per worker; and
// itersToTarget takes that time from the curve's crossing of the target.
func TestItersBy(t *testing.T) {
	ms := time.Millisecond
	tr := &consistency.Trace{Records: []consistency.Record{
		{At: 1 * ms, Kind: consistency.RecRead, Worker: 0},
		{At: 1 * ms, Kind: consistency.RecCommit, Worker: 0, Seq: 1},
		{At: 2 * ms, Kind: consistency.RecCommit, Worker: 1, Seq: 1},
		{At: 3 * ms, Kind: consistency.RecCommit, Worker: 0, Seq: 2},
		{At: 4 * ms, Kind: consistency.RecCommit, Worker: 1, Seq: 2},
	}}
	r := &harness.Result{Trace: tr, Workers: make([]harness.WorkerStats, 2),
		Curve: []harness.Point{{T: 0, Objective: 10}, {T: 2 * ms, Objective: 8}, {T: 4 * ms, Objective: 4}}}
	for _, tc := range []struct {
		at   time.Duration
		want float64
	}{{0, 0}, {2 * ms, 1}, {3 * ms, 1.5}, {time.Second, 2}} {
		if got := itersBy(r, tc.at); got != tc.want {
			t.Errorf("itersBy(%v) = %v; want %v", tc.at, got, tc.want)
		}
	}
	if got := itersBy(&harness.Result{Workers: r.Workers}, ms); !math.IsNaN(got) {
		t.Errorf("no trace: %v; want NaN", got)
	}
	// Objective 6 is crossed halfway from 2 ms (8) to 4 ms (4): at 3 ms,
	// after 3 commits of 2 workers.
	s := &fidScenario{w: &fidWork{alg: minimizer{}}, target: 6}
	if got := s.itersToTarget(r); got != 1.5 {
		t.Errorf("itersToTarget = %v; want 1.5", got)
	}
	s.target = 1
	if got := s.itersToTarget(r); !math.IsNaN(got) {
		t.Errorf("a target not reached: %v; want NaN", got)
	}
}

// minimizer is an algorithm whose objective goes down; only Minimize is
// defined.
type minimizer struct{ algorithms.Algorithm }

func (minimizer) Minimize() bool { return true }
