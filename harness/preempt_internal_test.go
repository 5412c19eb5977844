package harness

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/preempt"
)

// runKept is Run on the virtual clock, keeping the run's state for
// inspection.
func runKept(t *testing.T, e Experiment) (*Result, *setupState) {
	t.Helper()
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	st, err := setup(&e)
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulate(context.Background(), &e, st)
	if err != nil {
		t.Fatal(err)
	}
	if err := finish(context.Background(), &e, st, res); err != nil {
		t.Fatal(err)
	}
	if err := consistency.Check(res.Trace); err != nil {
		t.Fatal(err)
	}
	return res, st
}

// latestContributions returns the sum over every point of its latest
// contribution to an EM workload's statistics, as the workers' per-point
// state holds it. A worker's Process adds, per point, its contribution
// under θ minus the one its state remembers; so processing the whole
// shard under one θ from a fresh worker (which remembers nothing) and
// from a copy of the worker's state (restored from its checkpoint) gives
// two deltas whose difference is the sum of the remembered
// contributions, whatever θ is.
func latestContributions(alg algorithms.Algorithm, st *setupState) ([]float64, error) {
	l := alg.Layout()
	sum := make([]float64, l.Delta)
	theta := st.coord.params
	for i, sh := range st.shards {
		fresh, err := alg.NewWorker(st.parts[i])
		if err != nil {
			return nil, err
		}
		probe, err := alg.NewWorker(st.parts[i])
		if err != nil {
			return nil, err
		}
		if err := probe.(algorithms.Checkpointer).Restore(sh.w.(algorithms.Checkpointer).Checkpoint()); err != nil {
			return nil, err
		}
		dFresh, dProbe := algorithms.NewDelta(l), algorithms.NewDelta(l)
		fresh.SetParams(theta)
		probe.SetParams(theta)
		fresh.Process(0, fresh.Len(), dFresh)
		probe.Process(0, probe.Len(), dProbe)
		for j := range sum {
			sum[j] += dFresh.Vec[j] - dProbe.Vec[j]
		}
	}
	return sum, nil
}

// statsMismatch compares the K-means server's running statistics [S | C]
// with the sum of the points' latest contributions: "" if they agree (C
// exactly, S to 1e-9 of its largest entry), else what differs.
func statsMismatch(t *testing.T, alg algorithms.Algorithm, st *setupState) string {
	t.Helper()
	s, c := st.coord.srv.(interface{ Stats() (S, C []float64) }).Stats()
	want, err := latestContributions(alg, st)
	if err != nil {
		t.Fatal(err)
	}
	kd := len(s)
	var scale, worst float64
	for i, v := range s {
		scale = max(scale, math.Abs(v))
		worst = max(worst, math.Abs(v-want[i]))
	}
	var sumC, wantC float64
	bad := -1
	for j, v := range c {
		sumC += v
		wantC += want[kd+j]
		if v != want[kd+j] && bad < 0 {
			bad = j
		}
	}
	if bad >= 0 {
		return fmt.Sprintf("cluster %d counts %v points; the workers' assignments hold %v (all clusters: %v against %v)", bad, c[bad], want[kd+bad], sumC, wantC)
	}
	if worst > 1e-9*scale {
		return fmt.Sprintf("S differs by %.3g (largest entry %.3g)", worst, scale)
	}
	return ""
}

// K-means under preemptions: the server's statistics equal the sum of
// every point's latest contribution, as the workers hold them after the
// run, so no point was counted twice and none was lost; and the same
// check catches a runtime that restarts a preempted worker from scratch
// (Experiment.bugs.noRestore), which adds its points again. The runs end
// right after an apply (Stop.MaxIterations) with nothing in flight (BSP
// and FSP rounds wait for every member), so the server has every delta
// the workers' states reflect.
func TestPreemptedKMeansStatistics(t *testing.T) {
	alg := mutationKMeans(t)
	for _, spec := range []string{"bsp", "fsp:2ms", "fsp:2ms:semi"} {
		for _, bug := range []bool{false, true} {
			e := Experiment{Algorithm: alg, Sync: consistency.MustParse(spec), Workers: 6, Batch: 50, Seed: 4,
				Duration: time.Second, Stop: Stop{MaxIterations: 200},
				Preempt: &preempt.Config{Alpha: 0.7, MeanCycle: 40 * time.Millisecond, Step: 4 * time.Millisecond}}
			e.bugs.noRestore = bug
			res, st := runKept(t, e)
			for _, r := range res.Trace.Records {
				if r.Kind == consistency.RecAbandon {
					t.Fatalf("%s: %v: a delta was in flight at the end; the comparison needs none", spec, r)
				}
			}
			if res.StoppedBy != "max-iterations" || res.Rejoins == 0 {
				t.Fatalf("%s: stopped by %s after %d rejoins; want max-iterations after some", spec, res.StoppedBy, res.Rejoins)
			}
			// Every point was visited (the counts then total the points).
			for i, w := range res.Workers {
				if w.Passes < 2 {
					t.Fatalf("%s: worker %d made %.2f passes; want ≥ 2", spec, i, w.Passes)
				}
			}
			diff := statsMismatch(t, alg, st)
			switch {
			case !bug && diff != "":
				t.Errorf("%s: %d preemptions, %d rejoins: %s", spec, res.Preemptions, res.Rejoins, diff)
			case bug && diff == "":
				t.Errorf("%s: restoring preempted workers from scratch went unnoticed (%d rejoins)", spec, res.Rejoins)
			case bug:
				t.Logf("%s: caught the unrestored worker: %s", spec, diff)
			}
		}
	}
}
