package harness_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
)

// realPreemptExp is preemptExp on the real clock: 8 goroutine workers
// over a link with 1 ms of latency (lossy, if set), retrying every 5 ms,
// a 50 ms lease (the aggressive schedule's mean down time is 60 ms, so
// the coordinator learns of some preemptions from the lease and of the
// others from the next incarnation's join).
func realPreemptExp(alg algorithms.Algorithm, spec string, lossyLink bool) harness.Experiment {
	e := preemptExp(alg, spec, &aggressive)
	e.Clock = harness.Real
	e.Retry, e.Lease = 5*time.Millisecond, 50*time.Millisecond
	e.Network = delayed(time.Millisecond)
	if lossyLink {
		e.Network = lossy
	}
	return e
}

// Under every sync model, with K-means and LR, goroutine workers killed
// and restarted on the aggressive schedule (α = 0.7, 200 ms cycle, 20 ms
// step): the run finishes and passes consistency.Check (Run checks: no
// delta lost or applied twice); each worker's preemptions and down time
// are exactly its schedule's; each preemption shows in the trace as a
// leave (after the lease, or when the next incarnation joined; the last
// may come too late), each restore as a join; a worker that rejoined
// early enough computes again. The lossy variant drops and duplicates
// 10% of the messages, so that some workers die with a commit the
// coordinator never got, which their next incarnation abandons.
func TestRealPreemptions(t *testing.T) {
	algs := []algorithms.Algorithm{blobsKMeans(t, 4000), smallLR(t)}
	var total, rejoins, abandoned int
	var lost time.Duration
	for _, lossy := range []bool{false, true} {
		for _, alg := range algs {
			for _, spec := range []string{"bsp", "ssp:1", "asp", "quorum:3", "fsp:2ms"} {
				name := alg.Name() + "/" + spec
				if lossy {
					name += "/lossy"
				}
				t.Run(name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						e := realPreemptExp(alg, spec, lossy)
						r, err := harness.Run(context.Background(), e)
						if err != nil {
							t.Fatal(err)
						}
						n, j, a := checkRealPreemptions(t, e, r)
						total, rejoins, abandoned = total+n, rejoins+j, abandoned+a
						for _, w := range r.Workers {
							lost += w.Lost
						}
					})
				})
			}
		}
	}
	t.Logf("fault figures: %d seeded preemptions survived (kills without notice), %d rejoins, %d deltas in flight at a preemption abandoned, 0 deltas lost (Check); %v of compute lost to kills",
		total, rejoins, abandoned, lost)
}

// checkRealPreemptions checks a real run against the schedules of
// e.Preempt (checkPreemptions), and that every leave in its trace is a
// preemption's (an expired lease or a replaced incarnation); it returns
// the preemptions, the rejoins and the deltas that preempted workers
// abandoned (in flight when they died, never accepted).
func checkRealPreemptions(t *testing.T, e harness.Experiment, r *harness.Result) (total, rejoins, abandoned int) {
	t.Helper()
	for _, rec := range r.Trace.Records {
		switch {
		case rec.Kind == consistency.RecLeave && !strings.Contains(rec.Reason, "lease expired") && !strings.Contains(rec.Reason, "replaced by incarnation"):
			t.Errorf("worker %d left at %v: %q; a preemption shows as an expired lease or a replaced incarnation", rec.Worker, rec.At, rec.Reason)
		case rec.Kind == consistency.RecAbandon && (strings.Contains(rec.Reason, "not accepted before incarnation") || strings.Contains(rec.Reason, "preempted")):
			abandoned++
		}
	}
	total, rejoins = checkPreemptions(t, e, r)
	if rejoins == 0 {
		t.Fatal("no rejoins: the test exercises nothing")
	}
	t.Logf("%d expired leases, %d refused messages, %d abandoned in flight", r.Expired, r.Rejected, abandoned)
	return total, rejoins, abandoned
}
