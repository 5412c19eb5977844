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
