package harness_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
)

// With as many cores as workers nobody shares one, so the processor
// sharing must time every batch as the plain pace does: the same trace,
// byte for byte, for every model (FSP's interrupts and the Injected
// pauses included). A differential test of cores.go against sim.go's
// pace.
func TestCoresAsManyAsWorkers(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, s := range []string{"bsp", "bsp:full", "ssp:3", "asp", "quorum:0.75", "fsp:2ms", "fsp:300us"} {
		t.Run(s, func(t *testing.T) {
			var traces [2]bytes.Buffer
			var res [2]*harness.Result
			for i, cores := range []float64{0, 8} {
				e := smallExp(alg, s)
				e.Duration, e.EvalEvery = 100*time.Millisecond, 10*time.Millisecond
				e.Cost.Cores = cores
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				res[i] = r
				if _, err := r.Trace.WriteTo(&traces[i]); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) {
				t.Fatalf("cores 8 of 8 workers: trace differs from cores 0 (%d against %d bytes)", traces[1].Len(), traces[0].Len())
			}
			if res[0].Versions != res[1].Versions || res[0].Final != res[1].Final {
				t.Fatalf("cores 8: %d versions, final %v; cores 0: %d, %v", res[1].Versions, res[1].Final, res[0].Versions, res[0].Final)
			}
		})
	}
}

// BSP without stragglers: every worker wants a core at once, so C cores
// shared by N workers stretch each round's computing N/C times. 8 workers
// × 100 points × 10 µs on 2 cores: 4 ms of computing per round against
// 1 ms with a core each; the messages add the same small time to both, so
// the version count falls by a factor just under 4. Each worker computes
// 1 ms of the 4 and waits for its turn or the round's end the rest.
func TestCoresStretchBSP(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	versions := map[float64]float64{}
	for _, cores := range []float64{0, 2} {
		e := smallExp(alg, "bsp")
		e.Stragglers = harness.Stragglers{}
		e.Cost.Cores = cores
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		versions[cores] = float64(r.Versions)
		if cores == 2 {
			if r.WaitFraction < 0.7 || r.WaitFraction > 0.8 {
				t.Errorf("cores 2: wait fraction %.3f; want 0.7–0.8 (a worker computes 1 ms of each 4 ms round)", r.WaitFraction)
			}
		}
	}
	ratio := versions[0] / versions[2]
	if ratio < 3.3 || ratio > 4 {
		t.Fatalf("versions without contention / with 2 cores = %v / %v = %.2f; want in [3.3, 4]", versions[0], versions[2], ratio)
	}
}

// A straggler's pause leaves its core to the others: with 2 workers on 1
// core and one of them pausing 8 ms after every 200 points, the other
// computes alone during the pauses. ASP's points per second then exceed
// what a fixed half-speed per worker would give.
func TestCoresPauseFreesCore(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	e := smallExp(alg, "asp")
	e.Workers = 2
	e.Stragglers = harness.Stragglers{Kind: harness.Injected, Workers: []int{0}, Tau: 8 * time.Millisecond, Every: 200}
	e.Cost.Cores = 1
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	// Without sharing the fast worker would do 200 ms / 10 µs = 20,000
	// points; at a fixed half speed, 10,000. The straggler computes 200
	// points (2 ms alone, up to 4 ms shared) per ~12 ms cycle, so the fast
	// worker computes alone about two thirds of the time.
	fast := r.Workers[1].Points
	if fast < 14000 || fast > 19000 {
		t.Fatalf("fast worker processed %d points; want 14,000–19,000 (alone during the other's pauses)", fast)
	}
}

func TestCoresConfig(t *testing.T) {
	alg := blobsKMeans(t, 400)
	for _, tc := range []struct {
		name string
		edit func(*harness.Experiment)
	}{
		{"negative", func(e *harness.Experiment) { e.Cost.Cores = -1 }},
		{"negative message cost", func(e *harness.Experiment) { e.Cost.MessageCost = -time.Microsecond }},
		{"negative wake-up", func(e *harness.Experiment) {
			e.Cost.Cores = 2
			e.Cost.Wakeup = -time.Microsecond
		}},
		{"commit CPU without cores", func(e *harness.Experiment) { e.Cost.CommitCPU = time.Microsecond }},
		{"wake-up without cores", func(e *harness.Experiment) { e.Cost.Wakeup = time.Microsecond }},
		{"stalls without cores", func(e *harness.Experiment) { e.Cost.Stall, e.Cost.StallEvery = time.Millisecond, time.Millisecond }},
		{"stalls too often", func(e *harness.Experiment) {
			e.Cost.Cores = 2
			e.Cost.Stall, e.Cost.StallEvery = time.Millisecond, time.Nanosecond
		}},
		{"semi", func(e *harness.Experiment) {
			e.Cost.Cores = 2
			e.Sync = consistency.MustParse("fsp:1ms:semi")
		}},
		{"migrate", func(e *harness.Experiment) {
			e.Cost.Cores = 2
			e.Migrate = &harness.Migration{PointBytes: 8}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := smallExp(alg, "fsp:1ms")
			tc.edit(&e)
			if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
				t.Fatalf("Run = %v; want ErrConfig", err)
			}
		})
	}
}

// Batches longer than the scheduler's 10 ms quantum share the cores
// round-robin: 2 workers of 20 ms passes (2,000 points × 10 µs) on one
// core run 10 ms slices in turn, so each computes 30 ms of a 40 ms round
// and waits 10 (worker 0 after its pass, worker 1 before its first
// point): a wait fraction of 1/4. Run to completion one after the other
// (no quantum) each would wait 20 ms of 40: 1/2.
func TestCoresQuantum(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	e := smallExp(alg, "bsp:full")
	e.Workers = 2
	e.Stragglers = harness.Stragglers{}
	e.Cost.Cores = 1
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if r.WaitFraction < 0.22 || r.WaitFraction > 0.3 {
		t.Fatalf("wait fraction %.3f; want about 0.25 (10 ms slices in turn)", r.WaitFraction)
	}
	if r.Versions < 4 || r.Versions > 5 {
		t.Fatalf("%d versions in 200 ms; want 4 or 5 (40 ms rounds)", r.Versions)
	}
}

// Fractional cores: 1.5 cores' worth on two cores. Eight workers keep
// both busy, each at 0.75 of full speed, so a BSP round's computing takes
// 8/1.5 batch times instead of 8/2: versions fall by 4/3 against 2 whole
// cores. A worker alone on them computes at full speed, as with a core
// each.
func TestCoresFractional(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(workers int, cores float64) *harness.Result {
		e := smallExp(alg, "bsp")
		e.Workers = workers
		e.Stragglers = harness.Stragglers{}
		e.Cost.Cores = cores
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	two, frac := run(8, 2), run(8, 1.5)
	if ratio := float64(two.Versions) / float64(frac.Versions); ratio < 1.28 || ratio > 1.36 {
		t.Errorf("8 workers: %d versions on 2 cores, %d on 1.5: ratio %.3f; want about 4/3", two.Versions, frac.Versions, ratio)
	}
	alone, own := run(1, 1.5), run(1, 0)
	if alone.Versions != own.Versions || alone.Final != own.Final {
		t.Errorf("1 worker on 1.5 cores: %d versions, final %v; with a core of its own %d, %v", alone.Versions, alone.Final, own.Versions, own.Final)
	}
	// Half a core doubles the 1 ms of computing of a round, not its
	// 0.2 ms of messages: 2.2 ms against 1.2.
	half := run(1, 0.5)
	if ratio := float64(own.Versions) / float64(half.Versions); ratio < 1.75 || ratio > 1.92 {
		t.Errorf("1 worker: %d versions on its own core, %d on half a core: ratio %.3f; want about 2.2/1.2", own.Versions, half.Versions, ratio)
	}
}

// The runtime's work per commit (CostModel.CommitCPU) is computed on the
// shared cores before the batch's points: 8 workers × (100 points × 10
// µs + 500 µs) on 2 cores take 6 ms of computing per BSP round against
// 4 ms without it, so the versions fall by about 3/2 (a little less:
// the messages add the same to both).
func TestCoresCommitCPU(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(commit time.Duration) *harness.Result {
		e := smallExp(alg, "bsp")
		e.Stragglers = harness.Stragglers{}
		e.Cost.Cores, e.Cost.CommitCPU = 2, commit
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	without, with := run(0), run(500*time.Microsecond)
	if ratio := float64(without.Versions) / float64(with.Versions); ratio < 1.4 || ratio > 1.5 {
		t.Errorf("%d versions without commit CPU, %d with 500 µs: ratio %.3f; want about 1.5", without.Versions, with.Versions, ratio)
	}
	// Wait counts it (the real runtime's workers decode a release and
	// encode a commit outside their Busy time), Busy and Paused do not.
	w := with.Workers[0]
	busy, commit := time.Duration(w.Commits)*time.Millisecond, time.Duration(w.Commits)*500*time.Microsecond
	if w.Busy < busy || w.Busy >= busy+commit || w.Wait < commit || w.Paused != 0 {
		t.Errorf("worker 0: busy %v wait %v paused %v over %d commits; want busy from %v to %v, wait ≥ %v, nothing paused", w.Busy, w.Wait, w.Paused, w.Commits, busy, busy+commit, commit)
	}
}

// A core idle for longer than a commit's round trip has gone to sleep:
// starting a worker on it takes CostModel.Wakeup. A straggler that
// pauses 8 ms after each 1 ms batch finds its core asleep after every
// pause (the other worker keeps its own), so its cycle grows from about
// 9 ms to 11 ms with a 2 ms wake-up; the fast worker, whose core never
// idles that long, is not slowed.
func TestCoresWakeup(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(wake time.Duration) *harness.Result {
		e := smallExp(alg, "asp")
		e.Workers = 2
		e.Stragglers = harness.Stragglers{Kind: harness.Injected, Workers: []int{0}, Tau: 8 * time.Millisecond, Every: 100}
		e.Cost.Cores, e.Cost.Wakeup = 2, wake
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	awake, asleep := run(0), run(2*time.Millisecond)
	slow0, slow1 := float64(awake.Workers[0].Points), float64(asleep.Workers[0].Points)
	if ratio := slow0 / slow1; ratio < 1.15 || ratio > 1.3 {
		t.Errorf("straggler: %v points with instant wake-ups, %v with 2 ms: ratio %.3f; want about 11/9", slow0, slow1, ratio)
	}
	if f0, f1 := awake.Workers[1].Points, asleep.Workers[1].Points; float64(f1) < 0.97*float64(f0) {
		t.Errorf("fast worker: %d points with instant wake-ups, %d with 2 ms; want about the same", f0, f1)
	}
}

// CommitCPU, Wakeup and stalls keep every model's guarantee (Run checks the
// trace) and the simulator deterministic, FSP's interrupts included.
func TestCoresCommitWakeupModels(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, s := range []string{"bsp", "ssp:3", "asp", "quorum:0.75", "fsp:2ms", "fsp:300us"} {
		t.Run(s, func(t *testing.T) {
			var traces [2]bytes.Buffer
			for i := range traces {
				e := smallExp(alg, s)
				e.Duration, e.EvalEvery = 50*time.Millisecond, 10*time.Millisecond
				e.Cost.Cores, e.Cost.CommitCPU, e.Cost.Wakeup = 1.5, 300*time.Microsecond, 150*time.Microsecond
				e.Cost.Stall, e.Cost.StallEvery = 400*time.Microsecond, time.Millisecond
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				if r.Versions == 0 {
					t.Fatal("no version")
				}
				if _, err := r.Trace.WriteTo(&traces[i]); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) {
				t.Fatal("two runs differ")
			}
		})
	}
}

// Stalls (the operating system taking a core away for 1 ms after every
// 2 ms of running, on average) slow each worker by up to a third: ASP,
// whose workers never wait for one another, computes 2/3 of its points
// without them or a little more (a core waiting for a message does not
// run, so it is not stalled then). BSP waits at each barrier for the
// worker stalled longest, so it loses more than that.
func TestCoresStall(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(spec string, stall time.Duration) *harness.Result {
		e := smallExp(alg, spec)
		e.Workers, e.Duration = 4, time.Second
		e.Stragglers = harness.Stragglers{}
		e.Cost.Cores, e.Cost.Stall, e.Cost.StallEvery = 4, stall, 2*time.Millisecond
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	points := func(r *harness.Result) (n int64) {
		for _, w := range r.Workers {
			n += w.Points
		}
		return n
	}
	asp := float64(points(run("asp", time.Millisecond))) / float64(points(run("asp", 0)))
	if asp < 0.6 || asp > 0.75 {
		t.Errorf("ASP computes %.3f of its points with stalls; want about 2/3", asp)
	}
	bsp := float64(run("bsp", time.Millisecond).Versions) / float64(run("bsp", 0).Versions)
	t.Logf("with stalls ASP keeps %.3f of its points, BSP %.3f of its rounds", asp, bsp)
	if bsp >= asp-0.05 {
		t.Errorf("BSP keeps %.3f of its rounds with stalls, ASP %.3f of its points; want BSP to lose more (the barrier waits for the stalled)", bsp, asp)
	}
}
