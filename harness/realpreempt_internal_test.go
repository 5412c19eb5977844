package harness

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/preempt"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// realAggressive is the aggressive schedule of the external tests: α =
// 0.7, a 200 ms cycle, a 20 ms step.
var realAggressive = preempt.Config{Alpha: 0.7, MeanCycle: 200 * time.Millisecond, Step: 20 * time.Millisecond}

func realPreemptKMeans(alg algorithms.Algorithm, spec string, network func(algorithms.Layout) (transport.Transport, error)) Experiment {
	return Experiment{Algorithm: alg, Sync: consistency.MustParse(spec), Workers: 6, Batch: 50, Seed: 4,
		Clock: Real, Duration: 400 * time.Millisecond, Retry: 5 * time.Millisecond, Lease: 50 * time.Millisecond,
		Network: network, Preempt: &realAggressive}
}

// K-means with goroutine workers killed and restarted on the aggressive
// schedule, over a clean link and a lossy one, under every sync model:
// at the end the server's statistics equal the sum of every point's
// latest contribution, as the workers' states hold it (a worker down at
// the end holds the state it would restore), so no point was counted
// twice and none was lost. The same check catches a runtime that
// restarts a preempted worker from scratch (bugs.noRestore): the
// coordinator takes it back (it joins with its last commit's number) and
// its points count again.
func TestRealPreemptedKMeansStatistics(t *testing.T) {
	alg := mutationKMeans(t)
	nets := map[string]func(algorithms.Layout) (transport.Transport, error){
		"clean": func(l algorithms.Layout) (transport.Transport, error) {
			return inproc.New(inproc.Config{Layout: l, Delay: time.Millisecond})
		},
		"lossy": func(l algorithms.Layout) (transport.Transport, error) {
			return inproc.New(inproc.Config{Layout: l, Seed: 9, Drop: 0.1, Duplicate: 0.1, Delay: 100 * time.Microsecond, Jitter: time.Millisecond})
		},
	}
	for _, net := range []string{"clean", "lossy"} {
		for _, spec := range []string{"bsp", "ssp:1", "asp", "quorum:3", "fsp:2ms"} {
			for _, bug := range []bool{false, true} {
				synctest.Test(t, func(t *testing.T) {
					e := realPreemptKMeans(alg, spec, nets[net])
					e.bugs.noRestore = bug
					res, st, err := realKept(t, e)
					if err != nil {
						t.Fatalf("%s/%s: %v", net, spec, err)
					}
					if res.Preemptions == 0 || res.Rejoins == 0 {
						t.Fatalf("%s/%s: %d preemptions, %d rejoins: nothing exercised", net, spec, res.Preemptions, res.Rejoins)
					}
					diff := statsMismatch(t, alg, st)
					switch {
					case !bug && diff != "":
						t.Errorf("%s/%s: %d preemptions, %d rejoins: %s", net, spec, res.Preemptions, res.Rejoins, diff)
					case bug && diff == "":
						t.Errorf("%s/%s: restarting preempted workers from scratch went unnoticed (%d rejoins)", net, spec, res.Rejoins)
					case bug:
						t.Logf("%s/%s: caught the unrestored worker: %s", net, spec, diff)
					}
				})
			}
		}
	}
}

// A K-means worker dies with a commit the coordinator never received
// (its link blackholes at its first commit, before its first scheduled
// preemption). Its next incarnation starts from the state as of that
// commit, learns from the join's answer that it was not accepted,
// abandons it and goes back to the state as of its last accepted commit:
// the statistics then equal the latest contributions. Keeping the state
// of the unaccepted commit (bugs.noRejoinRestore) breaks the equality.
func TestRealPreemptRestoresAcceptedState(t *testing.T) {
	alg := mutationKMeans(t)
	e0 := realPreemptKMeans(alg, "asp", nil)
	// The worker preempted first, restored with time to compute again.
	victim, at := -1, e0.Duration
	for w := range e0.Workers {
		ts, err := preempt.Schedule(realAggressive, e0.Seed, w, e0.Duration)
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) >= 2 && ts[0].At < at && ts[1].At <= e0.Duration-150*time.Millisecond {
			victim, at = w, ts[0].At
		}
	}
	if victim < 0 {
		t.Fatal("no worker's schedule fits the scenario")
	}
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			net, err := NewBlackholeNet(alg.Layout())
			if err != nil {
				t.Fatal(err)
			}
			e := e0
			e.Network = func(algorithms.Layout) (transport.Transport, error) { return net, nil }
			e.bugs.noRejoinRestore = bug
			go func() {
				// Before the victim's first commit (the run's clock
				// starts once the workers joined, at 1 ms; a release
				// and a commit take 1 ms each way): that commit's
				// points are all assigned, from nothing.
				time.Sleep(time.Millisecond)
				net.HoleAtCommit(transport.NodeID(victim))
			}()
			res, st, err := realKept(t, e)
			if err != nil {
				t.Fatal(err)
			}
			// Its first commit, blackholed, is abandoned at its first
			// rejoin (a later kill may catch another commit unsent).
			abandoned := false
			for _, r := range res.Trace.Records {
				if r.Kind == consistency.RecAbandon && int(r.Worker) == victim && r.Seq == 1 && strings.Contains(r.Reason, "not accepted before incarnation 2") {
					abandoned = true
				}
			}
			if !abandoned {
				t.Fatalf("worker %d did not abandon its first commit when it rejoined; the scenario needs it", victim)
			}
			diff := statsMismatch(t, alg, st)
			switch {
			case !bug && diff != "":
				t.Fatalf("after the restore: %s", diff)
			case bug && diff == "":
				t.Fatal("a restored worker that kept the state of its unaccepted commit went unnoticed")
			case bug:
				t.Logf("caught: %s", diff)
			}
		})
	}
}
