package harness_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// Every model runs on goroutines over the in-process transport and its
// trace passes the checker (Run checks it). Inside a synctest bubble the
// straggler sleeps and timeouts use the fake clock, so the test is quick
// and the pauses are exact.
func TestRealAllModels(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, s := range allSpecs {
		t.Run(s, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := smallExp(alg, s)
				e.Clock = harness.Real
				e.Network = delayed(time.Millisecond)
				e.EvalEvery = e.Duration // the curve's first and last points are checked
				res, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("versions %d, messages %d, wait %.2f, final %.6g", res.Versions, res.Messages, res.WaitFraction, res.Final)
				if res.Versions < 5 || res.Clock != harness.Real || res.BytesSent == 0 {
					t.Fatalf("versions %d, clock %v, bytes %d", res.Versions, res.Clock, res.BytesSent)
				}
				for _, w := range res.Workers {
					if w.Straggler && w.Paused == 0 && w.Points >= int64(e.Stragglers.Every) {
						t.Errorf("straggler %+v processed %d points without pausing", w, w.Points)
					}
				}
				if e.Sync.Kind == consistency.FSP {
					// Interrupted stragglers commit partial passes (500 points).
					for _, w := range res.Workers {
						if w.Straggler && w.Commits > 0 && w.Points/int64(w.Commits) >= 500 {
							t.Errorf("fsp straggler %+v: never interrupted", w)
						}
					}
				}
				if res.Final >= res.Curve[0].Objective {
					t.Errorf("objective %v → %v: no progress", res.Curve[0].Objective, res.Final)
				}
			})
		})
	}
}

// Over a network that drops, duplicates and reorders messages, nothing
// committed is lost or applied twice (the checker's ledger rules) and the
// run still makes progress.
func TestRealLossyNetwork(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, s := range []string{"bsp", "ssp:2", "asp", "quorum:0.75", "fsp:2ms", "fsp:2ms:semi"} {
		t.Run(s, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := smallExp(alg, s)
				e.Clock = harness.Real
				e.Duration, e.EvalEvery = 500*time.Millisecond, 500*time.Millisecond
				var net *inproc.Network
				e.Network = func(l algorithms.Layout) (transport.Transport, error) {
					var err error
					net, err = inproc.New(inproc.Config{Layout: l, Seed: 9, Drop: 0.1, Duplicate: 0.1,
						Delay: 100 * time.Microsecond, Jitter: time.Millisecond})
					return net, err
				}
				res, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("versions %d, messages %d, bytes %d, iterations %.1f", res.Versions, res.Messages, res.BytesSent, res.Iterations)
				if res.Versions < 10 {
					t.Fatalf("only %d versions over a lossy link", res.Versions)
				}
				tot := net.Stats().Total()
				dropped, dup := tot.Dropped.Total(), tot.Duplicated.Total()
				if dropped.Messages < 20 || dup.Messages < 20 {
					t.Fatalf("the link dropped %d and duplicated %d messages; the test needs both", dropped.Messages, dup.Messages)
				}
			})
		})
	}
}

// delayed is an in-process network with a fixed latency. Inside a synctest
// bubble compute takes no fake time, so without a delay an ASP worker
// would never block and the bubble's clock would never advance.
func delayed(d time.Duration) func(algorithms.Layout) (transport.Transport, error) {
	return func(l algorithms.Layout) (transport.Transport, error) {
		return inproc.New(inproc.Config{Layout: l, Delay: d})
	}
}

// lossy is an in-process network that drops and duplicates 10% of the
// messages, with 100 µs delay and 1 ms jitter.
func lossy(l algorithms.Layout) (transport.Transport, error) {
	return inproc.New(inproc.Config{Layout: l, Seed: 9, Drop: 0.1, Duplicate: 0.1, Delay: 100 * time.Microsecond, Jitter: time.Millisecond})
}

// A real run on the real clock leaves no goroutine behind.
func TestRealNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	e := smallExp(blobsKMeans(t, 4000), "ssp:1")
	e.Clock = harness.Real
	e.Duration = 100 * time.Millisecond
	if _, err := harness.Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// Data migration stays on the virtual clock, semi-centralized or not.
func TestRealRefusesSemiMigration(t *testing.T) {
	e := smallExp(blobsKMeans(t, 400), "fsp:semi")
	e.Clock = harness.Real
	e.Migrate = &harness.Migration{PointBytes: 64}
	if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) || !strings.Contains(fmt.Sprint(err), "virtual clock only") {
		t.Fatalf("real semi-centralized FSP with migration: %v; want ErrConfig naming the virtual clock", err)
	}
}

// The real coordinator takes its objective snapshots when it next
// handles an event, not on a timer of their own: a wake-up for each
// would put its goroutine in the run queue behind the computing workers
// and hold the commits that arrive meanwhile (in syncbench fidelity's
// runs, one commit in ten waited 0.4 to 1 ms for it). Each snapshot is
// still of its own time: taken at an exact multiple of EvalEvery (the
// run's clock counts nanoseconds, so a timer's wake-up would not land on
// one), with the version of the last apply before it in the trace.
func TestRealSnapshotsAtTheirTimes(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, s := range []string{"asp", "bsp", "fsp:2ms"} {
		t.Run(s, func(t *testing.T) {
			e := smallExp(alg, s)
			e.Clock, e.Stragglers = harness.Real, harness.Stragglers{}
			e.Duration, e.EvalEvery = 60*time.Millisecond, 250*time.Microsecond
			res, err := harness.Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			var applies []consistency.Record
			for _, r := range res.Trace.Records {
				if r.Kind == consistency.RecApply {
					applies = append(applies, r)
				}
			}
			inner := res.Curve[1 : len(res.Curve)-1] // θ0 and the end aside
			if len(inner) < 200 || len(applies) < 5 {
				t.Fatalf("%d snapshots between the first and the last, %d applies", len(inner), len(applies))
			}
			for _, p := range inner {
				if p.T%e.EvalEvery != 0 {
					t.Fatalf("a snapshot at %v: not a multiple of %v", p.T, e.EvalEvery)
				}
				var v consistency.Version
				for _, a := range applies {
					if a.At >= p.T {
						break
					}
					v = a.Version
				}
				if p.Version != v {
					t.Fatalf("the snapshot at %v has version %d; the trace's last apply before it made %d", p.T, p.Version, v)
				}
			}
		})
	}
}
