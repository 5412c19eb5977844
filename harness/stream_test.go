package harness_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/preempt"
)

// streamExp is a DOLL job in miniature: 8 workers receiving Poisson
// streams at 2,000 points/s each, batches of 50, groups of K = 4.
func streamExp(alg algorithms.Algorithm, k int) harness.Experiment {
	return harness.Experiment{
		Algorithm: alg, Sync: consistency.Spec{Kind: consistency.KGroup, Group: k}, Workers: 8, Batch: 50, Seed: 11,
		Shuffle: true, Arrivals: &arrival.Spec{Rate: 2000}, Duration: 2 * time.Second, EvalEvery: 200 * time.Millisecond,
	}
}

// Streams and K-grouping, with LR and K-means: Check passes (Run runs
// it); the updates are as many as the batches that arrived allow
// (⌊batches/K⌋, less the group in progress); the points that arrived
// are Poisson with mean N·λ·T (within 5 standard deviations); every
// apply but the final flush merged K·b points; the same seed gives a
// byte-identical trace.
func TestVirtualKGroupStreams(t *testing.T) {
	for name, alg := range map[string]algorithms.Algorithm{"lr": smallLR(t), "kmeans": blobsKMeans(t, 4000)} {
		t.Run(name, func(t *testing.T) {
			e := streamExp(alg, 4)
			var traces [2]bytes.Buffer
			var r *harness.Result
			for i := range 2 {
				var err error
				if r, err = harness.Run(context.Background(), e); err != nil {
					t.Fatal(err)
				}
				if _, err := r.Trace.WriteTo(&traces[i]); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) {
				t.Fatal("same seed, different traces")
			}
			var arrived int64
			batches := 0
			for _, w := range r.Workers {
				arrived += w.Arrived
				batches += w.Batches
				if w.Up != r.Duration {
					t.Errorf("worker up %v of %v without preemptions", w.Up, r.Duration)
				}
			}
			mean := 8 * 2000 * r.Duration.Seconds()
			if d := math.Abs(float64(arrived) - mean); d > 5*math.Sqrt(mean)+8*50 {
				t.Errorf("%d points arrived; want about %.0f (N·λ·T)", arrived, mean)
			}
			if got, want := int(r.Versions), batches/4; got > want+1 || got < want-3 {
				t.Errorf("%d updates from %d batches; want about %d (batches/K)", got, batches, want)
			}
			for _, rec := range r.Trace.Records {
				if rec.Kind != consistency.RecApply || rec.Final {
					continue
				}
				pts := 0
				for _, d := range rec.Deltas {
					for _, c := range r.Trace.Records {
						if c.Kind == consistency.RecCommit && c.Worker == d.Worker && c.Seq == d.Seq {
							pts += c.Points
						}
					}
				}
				if pts != 4*50 {
					t.Fatalf("apply v=%d merged %d points; want K·b = 200", rec.Version, pts)
				}
				break // the checker verifies the rest; one by hand shows it
			}
		})
	}
}

// Preemptions under K-grouping: only the preemptible workers are
// preempted; Check passes (nothing lost or doubled, the batches of a
// preempted worker computed after it is back); every worker's instance
// spans tile [0, end) and a preemptible worker's unavailable time is its
// down time; a worker's up time is the time its stream ran.
func TestVirtualKGroupPreemptible(t *testing.T) {
	e := streamExp(smallLR(t), 6)
	e.Preempt = &preempt.Config{Alpha: 0.7, MeanCycle: 400 * time.Millisecond, Step: 20 * time.Millisecond}
	e.Preemptible = []int{1, 3, 5, 7}
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if r.Preemptions == 0 {
		t.Fatal("no preemptions")
	}
	for w, ws := range r.Workers {
		spot := slices.Contains(e.Preemptible, w)
		if !spot && ws.Preempted > 0 {
			t.Errorf("on-demand worker %d preempted %d times", w, ws.Preempted)
		}
		var at, down time.Duration
		for _, sp := range r.Instances {
			if sp.Worker != w {
				continue
			}
			if sp.From != at || sp.To <= sp.From {
				t.Fatalf("worker %d: span %+v after %v", w, sp, at)
			}
			if sp.Preemptible != spot {
				t.Errorf("worker %d: span %+v; preemptible should be %v", w, sp, spot)
			}
			if !sp.Available {
				down += sp.To - sp.From
			}
			at = sp.To
		}
		if at != r.Duration {
			t.Errorf("worker %d: spans end at %v; run at %v", w, at, r.Duration)
		}
		if down != ws.Down || ws.Up+ws.Down != r.Duration {
			t.Errorf("worker %d: spans down %v, stats down %v up %v of %v", w, down, ws.Down, ws.Up, r.Duration)
		}
	}
}

// Provision moves workers between instance kinds: here every worker
// starts preemptible and, at 1 s, all but worker 0 move to on demand.
// After that only worker 0 is preempted, a worker that was down then is
// back at once, and the observation handed to Revise tallies arrivals
// and availability consistently.
func TestVirtualProvisionRevise(t *testing.T) {
	e := streamExp(smallLR(t), 4)
	e.Preempt = &preempt.Config{Alpha: 0.6, MeanCycle: 300 * time.Millisecond, Step: 20 * time.Millisecond}
	var seen []harness.Observation
	e.Provision = &harness.Provisioning{At: []time.Duration{time.Second}, Revise: func(o harness.Observation) ([]int, error) {
		seen = append(seen, o)
		return []int{0}, nil
	}}
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Now != time.Second {
		t.Fatalf("Revise saw %+v; want one call at 1s", seen)
	}
	for w, o := range seen[0].Workers {
		if !o.Preemptible || o.SpotUp+o.SpotDown != time.Second || o.Up != o.SpotUp {
			t.Errorf("worker %d observed %+v at 1s", w, o)
		}
		if o.Arrived%50 != 0 || o.Arrived == 0 {
			t.Errorf("worker %d: %d points arrived by 1s", w, o.Arrived)
		}
	}
	for _, sp := range r.Instances {
		if sp.From >= time.Second && sp.Worker != 0 && (sp.Preemptible || !sp.Available) {
			t.Errorf("span %+v after worker %d moved to on demand", sp, sp.Worker)
		}
	}
	// Revise errors end the run with the error.
	e.Provision.Revise = func(harness.Observation) ([]int, error) { return []int{9}, nil }
	if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
		t.Errorf("Revise naming worker 9 of 8: %v; want ErrConfig", err)
	}
}

// What streams and K-grouping refuse.
func TestStreamConfigErrors(t *testing.T) {
	alg := smallLR(t)
	cases := map[string]func(e *harness.Experiment){
		"kgroup without arrivals": func(e *harness.Experiment) { e.Arrivals = nil },
		"arrivals under bsp":      func(e *harness.Experiment) { e.Sync = consistency.MustParse("bsp") },
		"preemptible, real clock": func(e *harness.Experiment) {
			e.Clock = harness.Real
			e.Preempt = &preempt.Config{Alpha: 0.5, MeanCycle: time.Second}
			e.Preemptible = []int{0}
		},
		"full pass":               func(e *harness.Experiment) { e.Batch = 0 },
		"bad rate":                func(e *harness.Experiment) { e.Arrivals = &arrival.Spec{Rate: -1} },
		"preemptible w/o preempt": func(e *harness.Experiment) { e.Preemptible = []int{0} },
		"preemptible out of range": func(e *harness.Experiment) {
			e.Preempt = &preempt.Config{Alpha: 0.5, MeanCycle: time.Second}
			e.Preemptible = []int{8}
		},
		"preemptible twice": func(e *harness.Experiment) {
			e.Preempt = &preempt.Config{Alpha: 0.5, MeanCycle: time.Second}
			e.Preemptible = []int{2, 2}
		},
		"provision without revise": func(e *harness.Experiment) {
			e.Preempt = &preempt.Config{Alpha: 0.5, MeanCycle: time.Second}
			e.Provision = &harness.Provisioning{}
		},
	}
	for name, mutate := range cases {
		e := streamExp(alg, 4)
		mutate(&e)
		if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
			t.Errorf("%s: %v; want ErrConfig", name, err)
		}
	}
}
