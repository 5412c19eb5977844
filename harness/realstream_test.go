package harness_test

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
)

// realStreamExp is streamExp on goroutines: a link with 1 ms of latency,
// retrying every 5 ms, 1 s of (synctest's fake) time.
func realStreamExp(alg algorithms.Algorithm, k int) harness.Experiment {
	e := streamExp(alg, k)
	e.Clock = harness.Real
	e.Network = delayed(time.Millisecond)
	e.Retry, e.Lease = 5*time.Millisecond, 100*time.Millisecond
	e.Duration, e.EvalEvery = time.Second, 250*time.Millisecond
	return e
}

// K-grouping over Poisson streams on goroutines, with LR and K-means:
// Check passes (Run runs it: every update aggregates K batches, every
// batch announced 0, 1, 2, … and used once, in order); the batches the
// coordinator counted are those of the trace, about N·λ·T/b (within 5
// standard deviations of the Poisson count, less a batch in flight per
// worker at the end); the updates are as many as those batches allow
// (⌊batches/K⌋, less the group in progress); the objective improves.
func TestRealKGroupStreams(t *testing.T) {
	for name, alg := range map[string]algorithms.Algorithm{"lr": smallLR(t), "kmeans": blobsKMeans(t, 4000)} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := realStreamExp(alg, 4)
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				st, err := consistency.CheckStats(r.Trace)
				if err != nil {
					t.Fatal(err)
				}
				batches := 0
				for w, ws := range r.Workers {
					u := st.Batches[w]
					if int(u.Announced) != ws.Batches || int(u.Unused) != ws.Queued || ws.Arrived != int64(ws.Batches)*50 {
						t.Errorf("worker %d: stats %+v; the trace says %+v", w, ws, u)
					}
					batches += ws.Batches
				}
				mean := 8 * 2000 * r.Duration.Seconds() / 50
				if d := float64(batches) - mean; math.Abs(d) > 5*math.Sqrt(mean)+8 {
					t.Errorf("%d batches announced in %v; want about %.0f (N·λ·T/b)", batches, r.Duration, mean)
				}
				if got, want := int(r.Versions), batches/4; got > want || got < want-3 {
					t.Errorf("%d updates from %d batches; want about %d (batches/K)", got, batches, want)
				}
				if r.Final >= r.Curve[0].Objective {
					t.Errorf("objective %v → %v: no progress", r.Curve[0].Objective, r.Final)
				}
				t.Logf("%d batches, %d updates, %d messages, final %.4g", batches, r.Versions, r.Messages, r.Final)
			})
		})
	}
}
