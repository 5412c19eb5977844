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
	"github.com/syncmodels/syncmodels/transport/inproc"
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

// K-grouping on goroutines killed and restarted on the aggressive
// schedule (α = 0.7, 200 ms cycle), over a clean link and a lossy one
// (10% of messages dropped, 10% duplicated): Check passes (no batch used
// twice, none skipped, none used before it was announced, every update
// K batches); preemptions and down time follow the schedules
// (checkRealPreemptions); every restarted incarnation goes on announcing
// its stream where the coordinator's count stood (Check: the numbers
// continue without a gap or a repeat); the batches a killed worker was
// computing are released again after it is back (each worker computes
// for 5 ms a batch, so kills catch some computing); and each
// worker's announced batches are what its up time allows: λ·Up/b within
// 5 standard deviations, less up to one batch per preemption (the
// up-time a killed worker had run since its last announced batch is not
// credited; realstream.go).
func TestRealKGroupPreemptions(t *testing.T) {
	algs := []algorithms.Algorithm{smallLR(t), blobsKMeans(t, 4000)}
	for _, lossyLink := range []bool{false, true} {
		for _, alg := range algs {
			name := alg.Name()
			if lossyLink {
				name += "/lossy"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					e := realStreamExp(alg, 6)
					e.Preempt = &aggressive
					e.Lease = 50 * time.Millisecond
					// A batch takes 5 ms to compute (synctest's clock does
					// not see the arithmetic), so kills catch workers
					// computing.
					e.Stragglers = harness.Stragglers{Kind: harness.Injected, Workers: []int{0, 1, 2, 3, 4, 5, 6, 7}, Tau: time.Millisecond, Every: 10}
					if lossyLink {
						e.Network = lossy
					}
					r, err := harness.Run(context.Background(), e)
					if err != nil {
						t.Fatal(err)
					}
					checkRealPreemptions(t, e, r)
					checkStreamAfterRejoin(t, e, r)
					again := releasedAgain(r.Trace)
					var lost time.Duration
					for _, ws := range r.Workers {
						lost += ws.Lost
					}
					if again == 0 || lost == 0 {
						t.Fatalf("%d batches released again, %v of compute lost to kills: no kill caught a worker computing", again, lost)
					}
					t.Logf("%d releases of batches a killed worker had been computing, %v of compute lost", again, lost)
				})
			})
		}
	}
}

// releasedAgain counts the releases of batches that were released before
// (to an incarnation killed before its commit counted): the model put
// them back in the worker's queue, and Check saw each used once.
func releasedAgain(tr *consistency.Trace) int {
	type key struct {
		w consistency.WorkerID
		b uint64
	}
	seen, n := map[key]bool{}, 0
	for _, rec := range tr.Records {
		if rec.Kind != consistency.RecRead {
			continue
		}
		k := key{rec.Worker, rec.Batch}
		if seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}

// checkStreamAfterRejoin checks that every worker announced about what
// its up time allows, and that a worker that rejoined well before the
// end announced batches after its last join.
func checkStreamAfterRejoin(t *testing.T, e harness.Experiment, r *harness.Result) {
	t.Helper()
	lastJoin := make([]time.Duration, e.Workers)
	announcedAfter := make([]bool, e.Workers)
	for _, rec := range r.Trace.Records {
		switch rec.Kind {
		case consistency.RecJoin:
			lastJoin[rec.Worker], announcedAfter[rec.Worker] = rec.At, false
		case consistency.RecBatch:
			announcedAfter[rec.Worker] = true
		}
	}
	rate := e.Arrivals.Rate / float64(e.Batch) // batches per second
	for w, ws := range r.Workers {
		if lastJoin[w] > 0 && lastJoin[w] < e.Duration-100*time.Millisecond && !announcedAfter[w] {
			t.Errorf("worker %d rejoined at %v and announced nothing after", w, lastJoin[w])
		}
		mean := rate * ws.Up.Seconds()
		if d := float64(ws.Batches) - mean; d > 5*math.Sqrt(mean)+1 || d < -5*math.Sqrt(mean)-float64(ws.Preempted)-1 {
			t.Errorf("worker %d: %d batches announced in %v up (%d preemptions); want about %.0f (λ·Up/b)", w, ws.Batches, ws.Up, ws.Preempted, mean)
		}
	}
}

// K-grouping with workers elsewhere (RunWorker over an in-process network
// that outlives its coordinator) and a journal: the coordinator dies
// after its 20th commit and a new one resumes from the journal, with the
// workers' streams running on meanwhile. The batch indicators are
// journaled with the commits, so the resumed model knows every batch it
// had acknowledged; what the dead coordinator never made durable was
// never acknowledged and comes again. The joined trace passes Check
// (Run checks: batch numbers continue without a gap or a repeat, every
// update K batches), the run goes on past the crash, and each worker's
// own count of its batches (WorkerResult) covers what the coordinator
// got from it.
func TestJournalResumeKGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alg := smallLR(t)
		e := realStreamExp(alg, 4)
		tr, err := inproc.New(inproc.Config{Layout: alg.Layout(), Seed: 1, Delay: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		got, wres := crashAndResume(t, e, tr, 20)
		if got.Resumed != 1 || got.Versions < 10 {
			t.Fatalf("resumed %d, %d versions", got.Resumed, got.Versions)
		}
		// After the 20th commit (the crash), batches were announced and
		// groups applied.
		var commits, batchesAfter, appliesAfter int
		for _, rec := range got.Trace.Records {
			switch {
			case rec.Kind == consistency.RecCommit:
				commits++
			case commits >= 20 && rec.Kind == consistency.RecBatch:
				batchesAfter++
			case commits >= 20 && rec.Kind == consistency.RecApply:
				appliesAfter++
			}
		}
		if batchesAfter == 0 || appliesAfter == 0 {
			t.Fatalf("after the crash: %d batches announced, %d applies", batchesAfter, appliesAfter)
		}
		for i, ws := range got.Workers {
			if own := wres[i].Stats.Batches; own < ws.Batches {
				t.Errorf("worker %d counted %d batches of its own; the coordinator got %d", i, own, ws.Batches)
			}
		}
		t.Logf("%d versions, batches per worker %v", got.Versions, batchCounts(got))
	})
}

func batchCounts(r *harness.Result) []int {
	var n []int
	for _, ws := range r.Workers {
		n = append(n, ws.Batches)
	}
	return n
}
