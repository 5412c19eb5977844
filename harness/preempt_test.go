package harness_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/preempt"
)

// aggressive preempts a worker every 140 ms of virtual time on average,
// for 60 ms: DOLL's chain (§V-A) with its cycle scaled from 1,000 s to
// 200 ms and its 2 s step to 20 ms, and α = 0.7 instead of 0.8 or 0.9.
var aggressive = preempt.Config{Alpha: 0.7, MeanCycle: 200 * time.Millisecond, Step: 20 * time.Millisecond}

func smallLR(t testing.TB) algorithms.Algorithm {
	t.Helper()
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 5)), 4000, 10)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.Adam, LR: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

func preemptExp(alg algorithms.Algorithm, spec string, cfg *preempt.Config) harness.Experiment {
	return harness.Experiment{
		Algorithm: alg, Sync: consistency.MustParse(spec), Workers: 8, Batch: 100, Seed: 9,
		Stragglers: harness.Stragglers{Kind: harness.Injected, Count: 2, Tau: 4 * time.Millisecond, Every: 200},
		Duration:   400 * time.Millisecond, EvalEvery: 100 * time.Millisecond, Preempt: cfg,
	}
}

// Under every sync model, with K-means and LR, workers preempted on the
// aggressive schedule: the run finishes and passes consistency.Check;
// each worker's preemptions and down time are exactly its schedule's;
// the trace shows a leave per preemption (the last may still be on its
// way at the end) and a join per accepted rejoin; every worker that
// rejoined early enough computes again; the same seed gives a
// byte-identical trace (checked on every other model: each model's
// determinism without preemptions is TestVirtualDeterministic's).
func TestVirtualPreemptions(t *testing.T) {
	algs := map[string]algorithms.Algorithm{"kmeans": blobsKMeans(t, 4000), "lr": smallLR(t)}
	for j, name := range []string{"kmeans", "lr"} {
		for k, spec := range allSpecs {
			t.Run(name+"/"+spec, func(t *testing.T) {
				e := preemptExp(algs[name], spec, &aggressive)
				var traces [2]bytes.Buffer
				var res [2]*harness.Result
				n := 1 + (j+k)%2 // twice on every other model, alternating between the workloads
				for i := range n {
					r, err := harness.Run(context.Background(), e) // Run checks the trace
					if err != nil {
						t.Fatal(err)
					}
					if _, err := r.Trace.WriteTo(&traces[i]); err != nil {
						t.Fatal(err)
					}
					res[i] = r
				}
				if n == 2 && (!bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) || res[0].Final != res[1].Final) {
					t.Fatal("same seed, different runs")
				}
				checkPreemptions(t, e, res[0])
			})
		}
	}
}

// checkPreemptions compares a run that lasted e.Duration (a real run
// then drains) with the schedules of e.Preempt, and returns the
// preemptions and rejoins.
func checkPreemptions(t *testing.T, e harness.Experiment, r *harness.Result) (total, rejoins int) {
	t.Helper()
	if (e.Clock == harness.Virtual && r.Duration != e.Duration) || r.Duration < e.Duration {
		t.Fatalf("the run lasted %v of %v (%s)", r.Duration, e.Duration, r.StoppedBy)
	}
	leaves := make([]int, e.Workers)
	joins := make([]int, e.Workers)
	lastJoin := make([]time.Duration, e.Workers)
	readAfter := make([]bool, e.Workers)
	for _, rec := range r.Trace.Records {
		switch rec.Kind {
		case consistency.RecLeave:
			leaves[rec.Worker]++
		case consistency.RecJoin:
			joins[rec.Worker]++
			lastJoin[rec.Worker], readAfter[rec.Worker] = rec.At, false
		case consistency.RecRead:
			readAfter[rec.Worker] = true
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
		// (Under K-grouping a rejoined worker computes once a group takes
		// its batches, which may wait for a group held up by another
		// preempted member: its streams' tests check what it announces.)
		if joins[w] > 0 && lastJoin[w] < e.Duration-50*time.Millisecond && !readAfter[w] && e.Sync.Kind != consistency.KGroup {
			t.Errorf("worker %d rejoined at %v and never computed again", w, lastJoin[w])
		}
		total += n
		rejoins += joins[w]
	}
	if r.Preemptions != total || r.Rejoins != rejoins {
		t.Errorf("Result: %d preemptions, %d rejoins; the schedules and the trace say %d, %d", r.Preemptions, r.Rejoins, total, rejoins)
	}
	t.Logf("%d preemptions, %d rejoins, %d versions, final %.4g", total, rejoins, r.Versions, r.Final)
	if total == 0 || r.Versions == 0 {
		t.Fatalf("%d preemptions, %d versions: the test exercises nothing", total, r.Versions)
	}
	return total, rejoins
}

// α = 1 never preempts: the run is the run without Preempt, trace and
// result alike.
func TestVirtualPreemptAlphaOne(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, spec := range []string{"bsp", "asp", "fsp:2ms"} {
		var traces [2]bytes.Buffer
		var res [2]*harness.Result
		for i, cfg := range []*preempt.Config{nil, {Alpha: 1}} {
			r, err := harness.Run(context.Background(), preemptExp(alg, spec, cfg))
			if err != nil {
				t.Fatal(err)
			}
			r.Trace.WriteTo(&traces[i])
			res[i] = r
		}
		if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) {
			t.Fatalf("%s: α = 1 changed the trace", spec)
		}
		res[0].Trace, res[1].Trace = nil, nil
		// With Preempt the result bills each worker's instance: one
		// available preemptible span over the whole run.
		for w, sp := range res[1].Instances {
			if sp != (harness.InstanceSpan{Worker: w, From: 0, To: res[1].Duration, Preemptible: true, Available: true}) {
				t.Fatalf("%s: instance span %+v", spec, sp)
			}
		}
		if len(res[1].Instances) != 8 {
			t.Fatalf("%s: %d instance spans for 8 workers", spec, len(res[1].Instances))
		}
		res[1].Instances = nil
		if !reflect.DeepEqual(res[0], res[1]) {
			t.Fatalf("%s: α = 1 changed the result", spec)
		}
		if res[1].Preemptions != 0 {
			t.Fatalf("%s: %d preemptions with α = 1", spec, res[1].Preemptions)
		}
	}
}

// With two workers that are often both down, and with α = 0 (everyone
// down after the first step, for good), time passes until a worker
// returns, or the run's end; the models do not stall or fail.
func TestVirtualPreemptAllDown(t *testing.T) {
	alg := smallLR(t)
	low := preempt.Config{Alpha: 0.3, MeanCycle: 200 * time.Millisecond, Step: 20 * time.Millisecond}
	for _, spec := range []string{"bsp", "ssp:1", "asp", "quorum:2", "fsp:2ms"} {
		e := preemptExp(alg, spec, &low)
		e.Workers = 2
		// The schedules do leave both workers down at once.
		a, _ := preempt.Schedule(low, e.Seed, 0, e.Duration)
		b, _ := preempt.Schedule(low, e.Seed, 1, e.Duration)
		if bothDown(a, b, e.Duration) == 0 {
			t.Fatal("the schedules never have both workers down")
		}
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		checkPreemptions(t, e, r)

		e.Preempt = &preempt.Config{Alpha: 0, Step: 20 * time.Millisecond}
		r, err = harness.Run(context.Background(), e)
		if err != nil {
			t.Fatalf("%s, α = 0: %v", spec, err)
		}
		if r.Duration != e.Duration || r.Preemptions != 2 || r.Rejoins != 0 || r.Workers[0].Down != e.Duration-20*time.Millisecond {
			t.Fatalf("%s, α = 0: lasted %v, %d preemptions, %d rejoins, worker 0 down %v", spec, r.Duration, r.Preemptions, r.Rejoins, r.Workers[0].Down)
		}
	}
}

// bothDown returns how long two schedules are both down before h.
func bothDown(a, b []preempt.Transition, h time.Duration) time.Duration {
	var d time.Duration
	for t := time.Duration(0); t < h; t += time.Millisecond {
		if !upAt(a, t) && !upAt(b, t) {
			d += time.Millisecond
		}
	}
	return d
}

func upAt(ts []preempt.Transition, t time.Duration) bool {
	up := true
	for _, tr := range ts {
		if tr.At > t {
			break
		}
		up = tr.Available
	}
	return up
}

func TestPreemptConfigErrors(t *testing.T) {
	alg := smallLR(t)
	for _, tc := range []struct {
		name string
		edit func(*harness.Experiment)
		want string
	}{
		{"alpha", func(e *harness.Experiment) { e.Preempt = &preempt.Config{Alpha: 1.5} }, "harness: preempt: Config.Alpha = 1.5"},
		{"cycle", func(e *harness.Experiment) { e.Preempt = &preempt.Config{Alpha: 0.5, MeanCycle: time.Second} },
			"Config.MeanCycle = 1s: mean on-off cycle must be at least two steps"},
		{"remote", func(e *harness.Experiment) { e.Clock, e.Remote, e.Network = harness.Real, true, delayed(0) },
			"preemptions of remote workers are their hosts'"},
		{"isp", func(e *harness.Experiment) { e.Sync = consistency.MustParse("isp") }, "preemptions run without ISP"},
	} {
		e := preemptExp(alg, "bsp", &aggressive)
		tc.edit(&e)
		before := *e.Preempt
		_, err := harness.Run(context.Background(), e)
		if !errors.Is(err, harness.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Run = %v; want ErrConfig containing %q", tc.name, err, tc.want)
		}
		if *e.Preempt != before {
			t.Errorf("%s: Run changed the caller's preempt.Config", tc.name)
		}
	}
}
