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
	"github.com/syncmodels/syncmodels/preempt"
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

// checkRealPreemptions compares a real run with the schedules of
// e.Preempt, and returns its preemptions, rejoins and the deltas that
// preempted workers abandoned.
func checkRealPreemptions(t *testing.T, e harness.Experiment, r *harness.Result) (total, rejoins, abandoned int) {
	t.Helper()
	if r.StoppedBy != "duration" || r.Versions == 0 {
		t.Fatalf("stopped by %q after %d versions", r.StoppedBy, r.Versions)
	}
	leaves := make([]int, e.Workers)
	joins := make([]int, e.Workers)
	lastJoin := make([]time.Duration, e.Workers)
	readAfter := make([]bool, e.Workers)
	for _, rec := range r.Trace.Records {
		switch rec.Kind {
		case consistency.RecLeave:
			if !strings.Contains(rec.Reason, "lease expired") && !strings.Contains(rec.Reason, "replaced by incarnation") {
				t.Errorf("worker %d left at %v: %q; a preemption shows as an expired lease or a replaced incarnation", rec.Worker, rec.At, rec.Reason)
			}
			leaves[rec.Worker]++
		case consistency.RecJoin:
			joins[rec.Worker]++
			lastJoin[rec.Worker], readAfter[rec.Worker] = rec.At, false
		case consistency.RecRead:
			readAfter[rec.Worker] = true
		case consistency.RecAbandon:
			if strings.Contains(rec.Reason, "not accepted before incarnation") || strings.Contains(rec.Reason, "preempted") {
				abandoned++
			}
		}
	}
	for w := range e.Workers {
		ts, err := preempt.Schedule(*e.Preempt, e.Seed, w, e.Duration)
		if err != nil {
			t.Fatal(err)
		}
		up, n := preempt.Uptime(ts, e.Duration)
		st := r.Workers[w]
		if st.Preempted != n || st.Down != e.Duration-up {
			t.Errorf("worker %d: preempted %d times, down %v; its schedule: %d times, down %v", w, st.Preempted, st.Down, n, e.Duration-up)
		}
		if leaves[w] != n && leaves[w] != n-1 {
			t.Errorf("worker %d: %d leaves in the trace for %d preemptions", w, leaves[w], n)
		}
		restores := len(ts) - n
		if joins[w] > restores || joins[w] < restores-1 {
			t.Errorf("worker %d: %d joins in the trace for %d restores", w, joins[w], restores)
		}
		if joins[w] > 0 && lastJoin[w] < e.Duration-50*time.Millisecond && !readAfter[w] {
			t.Errorf("worker %d rejoined at %v and never computed again", w, lastJoin[w])
		}
		total += n
		rejoins += joins[w]
	}
	if r.Preemptions != total || r.Rejoins != rejoins {
		t.Errorf("Result: %d preemptions, %d rejoins; the schedules and the trace say %d, %d", r.Preemptions, r.Rejoins, total, rejoins)
	}
	t.Logf("%d preemptions, %d rejoins, %d expired leases, %d refused messages, %d abandoned in flight, %d versions, final %.4g",
		total, rejoins, r.Expired, r.Rejected, abandoned, r.Versions, r.Final)
	if total == 0 || rejoins == 0 {
		t.Fatalf("%d preemptions, %d rejoins: the test exercises nothing", total, rejoins)
	}
	return total, rejoins, abandoned
}
